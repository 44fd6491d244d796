"""A private deal end to end: every seat shuffles, hands, draws, a rebuild, the audit; and every
relay or seat that cheats is caught and named (docs/PRIVATE_TABLES.md)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scala40_net.deal import start_deal
from scala40_net.private.audit import audit_deal, audit_views
from scala40_net.private.chain import HOST, ChainChecker, FaultFound, FaultKind
from scala40_net.private.elgamal import open_deck, share
from scala40_net.private.group import IDENTITY, base_times, random_scalar
from scala40_net.private.local import LocalDeal, honest_relay, long_deal
from scala40_net.private.messages import (
    Ed25519Signer,
    Envelope,
    KeyBody,
    Kind,
    RevealBody,
    Share,
    SharesBody,
    ShuffleBody,
    seal,
    signed_bytes,
    table_code,
)
from scala40_net.private.proofs import KeyProof, ShareProof
from scala40_net.private.protocol import (
    DealSetup,
    Phase,
    PrivateSeat,
    digest_of,
    share_step,
    shuffle_step,
)
from scala40_net.private.shuffle import shuffle_deck
from scala40_net.rules import Ruleset


def signers(seats: tuple[int, ...]) -> dict[int, Ed25519Signer]:
    return {seat: Ed25519Signer.from_seed(bytes([seat + 1]) * 32) for seat in seats}


def small_deal(relay: Callable[[int, int, bytes], list[bytes]] = honest_relay,
               deal_no: int = 1) -> LocalDeal:
    """Three seats and one 54-card deck: the fast deal the attacks are played on."""
    setup = DealSetup("private-t", deal_no, (0, 1, 2), dealer=0, deck_size=54)
    return LocalDeal(setup, signers(setup.seats), relay=relay)


def dealt(deal: LocalDeal) -> LocalDeal:
    deal.exchange_keys()
    deal.shuffle_all()
    deal.cut(11)
    return deal


def caught(fault: FaultFound, culprit: str, kind: FaultKind) -> None:
    assert (fault.fault.culprit, fault.fault.kind) == (culprit, kind), fault


def test_a_four_seat_deal_deals_13_cards_each_draws_rebuilds_and_audits() -> None:
    setup = DealSetup("private-4", 7, (0, 1, 2, 3), dealer=2)
    deal = LocalDeal(setup, signers(setup.seats))
    deal.exchange_keys()
    deal.shuffle_all()
    deal.cut(40)
    # Nobody reads a card of another's hand: the owner's share is never sent.
    first_of_seat_1 = setup.positions.hands[1][0]
    with pytest.raises(KeyError):
        deal.seats[0].ledger.open_card(0, first_of_seat_1)
    hands = deal.deal_hands()
    assert all(len(cards) == 13 for cards in hands.values())
    with pytest.raises(KeyError):
        deal.seats[0].ledger.open_card(0, first_of_seat_1)
    first_discard = deal.first_discard()
    drawn = [deal.draw(seat) for seat in setup.shuffle_order]
    laid = deal.open_publicly(1, 0, [first_of_seat_1])
    assert laid == [hands[1][0]]
    # Public now: every seat opens it alike.
    assert {s.ledger.open_card(0, first_of_seat_1) for s in deal.seats.values()} == set(laid)
    drawer = setup.shuffle_order[0]
    discarded = deal.open_publicly(drawer, 0, [setup.positions.stock[0]])
    assert discarded == [drawn[0]]
    discards = [first_discard, hands[1][0], drawn[0]]
    deal.shuffle_all(rebuild=discards)
    after_rebuild = deal.draw(3)
    deal.reveal_all()

    audit = audit_deal(setup, deal.signing_keys, deal.transcript)
    assert audit.dealt.hands == hands
    assert audit.dealt.first_discard == first_discard
    assert audit.dealt.stock[:4] == drawn
    assert sorted(audit.deck) == list(range(108))
    assert sorted(audit.rebuilt_stocks[0]) == sorted(discards)
    assert audit.rebuilt_stocks[0][0] == after_rebuild
    assert audit.opened[(0, first_of_seat_1)] == hands[1][0]
    # What the audit opens is what the engine deals: the replay starts from it.
    state, _ = start_deal(Ruleset(), setup.seats, setup.dealer, audit.deck, deal_no=7)
    assert {seat: list(hand) for seat, hand in zip(state.seats, state.hands, strict=True)} == hands
    assert state.discard_pile == (first_discard,)
    assert list(state.stock[:4]) == drawn
    audit_views(setup, deal.signing_keys, deal.views)
    codes = {table_code(setup.table_id, dict(s.checker.keys)) for s in deal.seats.values()}
    assert codes == {audit.table_code}


class TamperingRelay:
    """A relay that does ``act`` to the ``nth`` message of ``author`` it hands ``recipient``."""

    def __init__(self, author: int, recipient: int, nth: int,
                 act: Callable[[bytes], list[bytes]]) -> None:
        self.author, self.recipient, self.nth, self.act = author, recipient, nth, act
        self.count = 0

    def __call__(self, author: int, recipient: int, message: bytes) -> list[bytes]:
        if (author, recipient) != (self.author, self.recipient):
            return [message]
        self.count += 1
        return self.act(message) if self.count == self.nth else [message]


def flip_last_byte(message: bytes) -> list[bytes]:
    return [message[:-1] + bytes([message[-1] ^ 1])]


def flip_body_byte(message: bytes) -> list[bytes]:
    at = len(message) - 64 - 5
    return [message[:at] + bytes([message[at] ^ 1]) + message[at + 1 :]]


@pytest.mark.parametrize("act", [flip_last_byte, flip_body_byte])
def test_a_relay_that_alters_a_message_is_named(act: Callable[[bytes], list[bytes]]) -> None:
    with pytest.raises(FaultFound) as found:
        small_deal(TamperingRelay(1, 2, 1, act)).exchange_keys()
    caught(found.value, HOST, FaultKind.ALTERED)


def test_a_relay_that_replays_a_message_is_named() -> None:
    with pytest.raises(FaultFound) as found:
        small_deal(TamperingRelay(0, 1, 1, lambda m: [m, m])).exchange_keys()
    caught(found.value, HOST, FaultKind.REPLAYED)


def test_a_message_of_another_deal_relayed_into_this_one_is_named() -> None:
    earlier = small_deal(deal_no=1)
    earlier.exchange_keys()
    old_key = earlier.transcript[0]
    with pytest.raises(FaultFound) as found:
        small_deal(TamperingRelay(0, 1, 1, lambda m: [old_key]), deal_no=2).exchange_keys()
    caught(found.value, HOST, FaultKind.FOREIGN)


def test_a_relay_that_reorders_a_seats_messages_is_named() -> None:
    held: list[bytes] = []

    def relay(author: int, recipient: int, message: bytes) -> list[bytes]:
        if (author, recipient) != (0, 2):
            return [message]
        if not held:
            held.append(message)
            return []
        return [message, held.pop()]

    deal = dealt(small_deal())
    deal.relay = relay
    with pytest.raises(FaultFound) as found:
        deal.deal_hands()
    caught(found.value, HOST, FaultKind.MISSING)


def test_a_relay_that_withholds_a_share_is_named_when_another_seat_answers_it() -> None:
    deal = dealt(small_deal())
    seat_0, seat_1 = deal.seats[0], deal.seats[1]
    # Seat 0 opens a card of seat 1's hand to seat 1; the relay keeps it from seat 2.
    position = deal.setup.positions.hands[1][0]
    deal.relay = TamperingRelay(0, 2, 1, lambda m: [])
    deal.post(0, seat_0.shares_message(0, [position], 1))
    deal.relay = honest_relay
    # Seat 2 has not seen it, so it cannot tell; seat 1's next message says it saw it.
    assert len(deal.seats[2].checker.chains[0]) < len(seat_1.checker.chains[0])
    with pytest.raises(FaultFound) as found:
        deal.post(1, seat_1.shares_message(0, [deal.setup.positions.hands[0][0]], 0))
    caught(found.value, HOST, FaultKind.MISSING)


def test_a_withheld_share_shows_when_its_author_answers_a_heads_message() -> None:
    """Seat 2 draws and waits on seat 0's share; it asks, and seat 0's answer shows the gap."""
    deal = dealt(small_deal())
    position = deal.setup.positions.stock[0]
    deal.post(1, deal.seats[1].shares_message(0, [position], 2))
    deal.relay = TamperingRelay(0, 2, 1, lambda m: [])
    deal.post(0, deal.seats[0].shares_message(0, [position], 2))
    deal.relay = honest_relay
    # Nothing crossed it yet: seat 2 only knows it lacks seat 0's share.
    assert deal.seats[2].ledger.missing_shares(0, position, 2) == [0]
    with pytest.raises(FaultFound) as found:
        deal.post(2, deal.seats[2].heads_message())
        deal.post(0, deal.seats[0].heads_message())
    caught(found.value, HOST, FaultKind.MISSING)


def test_a_seat_that_shows_two_seats_different_decks_is_named_by_the_audit_of_their_views(
) -> None:
    """The first shuffler signs two shuffles; the relay hands one to each of the others."""
    deal = small_deal()
    deal.exchange_keys()
    setup = deal.setup
    first, second, third = setup.shuffle_order
    seat = deal.seats[first]
    deck = seat.ledger.decks[0]
    message_a = seat.shuffle_message()
    env_a = Envelope.parse(message_a)
    ctx = setup.context(first, shuffle_step(0, 0))
    other_deck, other_proof = shuffle_deck(ctx, seat.ledger.joint_key, deck, random_scalar)
    # Both shuffles start from the open deck, and both proofs hold.
    body_b = ShuffleBody(0, 0, (), digest_of(deck), other_deck, other_proof)
    env_b = seal(signers(setup.seats)[first], setup.table_id, setup.deal_no, first, env_a.seq,
                 env_a.prev, env_a.seen, body_b)

    def relay(author: int, recipient: int, message: bytes) -> list[bytes]:
        if author == first and recipient == third and message == message_a:
            return [bytes(env_b)]
        return [message]

    deal.relay = relay
    deal.post(first, message_a)
    with pytest.raises(FaultFound) as live:
        deal.post(second, deal.seats[second].shuffle_message())
    # The third seat sees the second's shuffle start from another deck than it was shown.
    assert live.value.fault.culprit == HOST
    assert live.value.fault.kind in (FaultKind.DIVERGED, FaultKind.INVALID)
    views = {s: list(v) for s, v in deal.views.items()}
    with pytest.raises(FaultFound) as audited:
        audit_views(setup, deal.signing_keys, views)
    caught(audited.value, f"seat {first}", FaultKind.EQUIVOCATED)


@pytest.mark.parametrize("shown", [{"dealer": 1}, {"deck_size": 108}, {"seats": (0, 1, 2, 3)}])
def test_a_host_that_announces_a_deal_differently_to_one_seat_is_named(
    shown: dict[str, object],
) -> None:
    """The relay shows seat 2 another setup than seats 0 and 1 (another dealer, so another
    order of shuffles; another deck; another table): the first message that crosses names
    the host, never an honest seat (every chain starts from its setup's genesis)."""
    deal = small_deal()
    setup = deal.setup
    other = dataclasses.replace(setup, **shown)  # type: ignore[arg-type]
    keys = dict(deal.signing_keys)
    if 3 in other.seats:
        keys[3] = signers((3,))[3].public_key()
    deal.seats[2] = PrivateSeat(other, 2, signers(setup.seats)[2], keys)
    with pytest.raises(FaultFound) as found:
        deal.exchange_keys()
        deal.shuffle_all()
    caught(found.value, HOST, FaultKind.DIVERGED)


def test_a_relay_that_speaks_for_a_seat_with_a_key_of_its_own_is_caught() -> None:
    """The host shows the third seat its own key as the first shuffler's, and its own deck."""
    deal = small_deal()
    setup = deal.setup
    first, second, third = setup.shuffle_order
    host_key = Ed25519Signer.from_seed(b"\x99" * 32)
    shown = dict(deal.signing_keys) | {first: host_key.public_key()}
    from scala40_net.private.protocol import PrivateSeat

    deal.seats[third] = PrivateSeat(setup, third, signers(setup.seats)[third], shown)
    assert table_code(setup.table_id, shown) != table_code(setup.table_id, deal.signing_keys)
    forged: dict[bytes, bytes] = {}

    def relay(author: int, recipient: int, message: bytes) -> list[bytes]:
        if author != first or recipient != third:
            return [message]
        env = Envelope.parse(message)
        out = seal(host_key, env.table_id, env.deal_no, env.author, env.seq, env.prev,
                   env.seen, env.body())
        forged[message] = bytes(out)
        return [bytes(out)]

    deal.relay = relay
    # Caught at the first message the third seat gets, forged or not: every chain starts
    # from the setup with every seat's signing key, and the third seat was shown another.
    with pytest.raises(FaultFound) as found:
        deal.exchange_keys()
        deal.post(first, deal.seats[first].shuffle_message())
        deal.post(second, deal.seats[second].shuffle_message())
    caught(found.value, HOST, FaultKind.DIVERGED)
    assert "another setup" in found.value.fault.detail


def forged_shares(deal: LocalDeal, author: int, recipient: int, position: int,
                  wrong: str) -> bytes:
    seat = deal.seats[author]
    ct = seat.ledger.decks[0][position]
    ctx = deal.setup.context(author, share_step(0, position))
    right = share(seat.secret, ct)
    if wrong == "share":
        d = right + base_times(1)
        proof = ShareProof.prove(ctx, seat.secret, seat.public, ct.a, right, random_scalar)
    elif wrong == "position":  # a right share of another position, sent as this one's
        other = position + 1
        other_ct = seat.ledger.decks[0][other]
        d = share(seat.secret, other_ct)
        other_ctx = deal.setup.context(author, share_step(0, other))
        proof = ShareProof.prove(other_ctx, seat.secret, seat.public, other_ct.a, d,
                                 random_scalar)
    else:  # another key's share, with a proof for that key
        d = share(seat.secret + 1, ct)
        proof = ShareProof.prove(ctx, seat.secret + 1, seat.public, ct.a, d, random_scalar)
    return seat.send(SharesBody(0, recipient, (Share(position, d, proof),)))


@pytest.mark.parametrize("wrong", ["share", "key", "position"])
def test_a_wrong_share_is_named(wrong: str) -> None:
    deal = dealt(small_deal())
    position = deal.setup.positions.hands[2][0]
    with pytest.raises(FaultFound) as found:
        deal.post(0, forged_shares(deal, 0, 2, position, wrong))
    caught(found.value, "seat 0", FaultKind.INVALID)
    # Refused, it changed nothing: seat 2 still waits for seat 0's share.
    assert deal.seats[2].ledger.missing_shares(0, position, 2) == [0, 1]


@pytest.mark.parametrize("change", ["swap", "substitute", "duplicate", "drop"])
def test_a_seats_shuffle_that_changes_a_card_is_named(change: str) -> None:
    """The shuffler proves an honest shuffle, then sends a deck changed after it."""
    deal = small_deal()
    deal.exchange_keys()
    first = deal.setup.shuffle_order[0]
    seat = deal.seats[first]
    deck = seat.ledger.decks[0]
    joint = seat.ledger.joint_key
    ctx = deal.setup.context(first, shuffle_step(0, 0))
    out, proof = shuffle_deck(ctx, joint, deck, random_scalar)
    cards = list(out)
    if change == "swap":
        cards[0], cards[1] = cards[1], cards[0]
    elif change == "substitute":
        cards[2] = open_deck([53])[0].reencrypted(joint, random_scalar())
    elif change == "duplicate":
        cards[3] = cards[4].reencrypted(joint, random_scalar())
    else:
        cards.pop()
    with pytest.raises(FaultFound) as found:
        deal.post(first, seat.send(ShuffleBody(0, 0, (), digest_of(deck), tuple(cards), proof)))
    caught(found.value, f"seat {first}", FaultKind.INVALID)
    # Refused, it changed nothing for the seat that checked it.
    reader = deal.seats[deal.setup.shuffle_order[1]]
    assert reader.ledger.shuffles == 0 and reader.ledger.decks[0] == deck
    assert reader.checker.chains[first] == reader.checker.chains[first][:1]  # its key only


def test_a_rebuilt_stock_that_is_not_the_discard_pile_is_named() -> None:
    deal = dealt(small_deal())
    deal.deal_hands()
    discard = deal.first_discard()
    first = deal.setup.shuffle_order[0]
    for seat in deal.seats.values():
        seat.ledger.begin_rebuild([discard, 7])
    other = 8 if discard != 8 else 9
    with pytest.raises(FaultFound) as found:
        deal.post(first, deal.seats[first].shuffle_message(rebuild=[discard, other]))
    caught(found.value, f"seat {first}", FaultKind.INVALID)
    reader = deal.seats[deal.setup.shuffle_order[1]]
    assert reader.ledger.round == 0 and len(reader.ledger.decks) == 1


def test_a_shuffle_out_of_turn_is_named() -> None:
    deal = small_deal()
    deal.exchange_keys()
    last = deal.setup.shuffle_order[-1]
    with pytest.raises(FaultFound) as found:
        deal.post(last, deal.seats[last].send(_honest_shuffle(deal, last)))
    caught(found.value, f"seat {last}", FaultKind.INVALID)


def _honest_shuffle(deal: LocalDeal, seat_no: int) -> ShuffleBody:
    seat = deal.seats[seat_no]
    deck = seat.ledger.decks[0]
    ctx = deal.setup.context(seat_no, shuffle_step(0, 0))
    out, proof = shuffle_deck(ctx, seat.ledger.joint_key, deck, random_scalar)
    return ShuffleBody(0, 0, (), digest_of(deck), out, proof)


def test_a_key_without_a_proof_of_knowledge_is_named() -> None:
    """The rogue key: Y' = Y_mine - Y_others, whose secret the seat cannot prove it knows."""
    deal = small_deal()
    deal.post(0, deal.seats[0].key_message())
    deal.post(1, deal.seats[1].key_message())
    rogue = base_times(5) - deal.seats[0].public - deal.seats[1].public
    proof = KeyProof.prove(deal.setup.context(2, b"key"), 5, rogue, random_scalar)
    with pytest.raises(FaultFound) as found:
        deal.post(2, deal.seats[2].send(KeyBody(rogue, proof)))
    caught(found.value, "seat 2", FaultKind.INVALID)


def test_a_signed_message_whose_body_does_not_read_is_its_authors_fault() -> None:
    deal = small_deal()
    setup = deal.setup
    seq, prev = deal.seats[0].checker.next_place(0)
    bad_point = b"\xff" * 32  # no canonical ristretto255 encoding
    body = bad_point + bytes(64)
    signed = signed_bytes(setup.table_id, setup.deal_no, 0, seq, prev, (), Kind.KEY, body)
    env = Envelope(setup.table_id, setup.deal_no, 0, seq, prev, (), Kind.KEY, body,
                   signers(setup.seats)[0].sign(signed))
    with pytest.raises(FaultFound) as found:
        deal.seats[1].receive(bytes(env))
    caught(found.value, "seat 0", FaultKind.INVALID)
    assert deal.seats[1].checker.chains[0] == []


def test_a_seat_that_sends_another_seats_key_as_its_own_is_named() -> None:
    deal = small_deal()
    deal.post(0, deal.seats[0].key_message())
    copied = Envelope.parse(deal.transcript[0]).body()
    assert isinstance(copied, KeyBody)
    with pytest.raises(FaultFound) as found:
        deal.post(1, deal.seats[1].send(copied))
    caught(found.value, "seat 1", FaultKind.INVALID)


def test_a_key_that_is_the_identity_is_named() -> None:
    deal = small_deal()
    proof = KeyProof.prove(deal.setup.context(0, b"key"), 0, IDENTITY, random_scalar)
    with pytest.raises(FaultFound) as found:
        deal.post(0, deal.seats[0].send(KeyBody(IDENTITY, proof)))
    caught(found.value, "seat 0", FaultKind.INVALID)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_byte_of_any_relayed_message_changed_is_caught_as_altered(
    data: st.DataObject,
) -> None:
    setup, keys, transcript = small_transcript()
    index = data.draw(st.integers(0, len(transcript) - 1))
    message = transcript[index]
    at = data.draw(st.integers(0, len(message) - 1))
    flip = data.draw(st.integers(1, 255))
    changed = message[:at] + bytes([message[at] ^ flip]) + message[at + 1 :]
    checker = ChainChecker(setup.table_id, setup.deal_no, keys, setup.digest(keys))
    for earlier in transcript[:index]:
        checker.accept(earlier)
    with pytest.raises(FaultFound) as found:
        checker.accept(changed)
    caught(found.value, HOST, FaultKind.ALTERED)


def test_a_cut_by_another_seat_or_out_of_range_is_named() -> None:
    deal = small_deal()
    deal.exchange_keys()
    deal.shuffle_all()
    cutter = deal.setup.cutter
    other = next(s for s in deal.setup.seats if s != cutter)
    with pytest.raises(FaultFound) as found:
        deal.post(other, deal.seats[other].cut_message(5))
    caught(found.value, f"seat {other}", FaultKind.INVALID)
    fresh = small_deal()
    fresh.exchange_keys()
    fresh.shuffle_all()
    with pytest.raises(FaultFound) as found:
        fresh.post(cutter, fresh.seats[cutter].cut_message(54))
    caught(found.value, f"seat {cutter}", FaultKind.INVALID)


def test_a_revealed_key_that_is_not_the_seats_is_named() -> None:
    deal = dealt(small_deal())
    with pytest.raises(FaultFound) as found:
        deal.post(1, deal.seats[1].send(RevealBody(deal.seats[1].secret + 1)))
    caught(found.value, "seat 1", FaultKind.INVALID)


def finished_small_deal() -> LocalDeal:
    deal = dealt(small_deal())
    deal.deal_hands()
    deal.first_discard()
    deal.draw(1)
    deal.reveal_all()
    return deal


@cache
def small_transcript() -> tuple[DealSetup, dict[int, bytes], tuple[bytes, ...]]:
    """One finished small deal's setup, keys and transcript, made once (read only)."""
    deal = finished_small_deal()
    return deal.setup, deal.signing_keys, tuple(deal.transcript)


def test_the_audit_names_a_transcript_altered_cut_short_or_unrevealed() -> None:
    deal = finished_small_deal()
    setup, keys, transcript = deal.setup, deal.signing_keys, deal.transcript
    audit_deal(setup, keys, transcript)
    altered = list(transcript)
    altered[5] = flip_body_byte(altered[5])[0]
    with pytest.raises(FaultFound) as found:
        audit_deal(setup, keys, altered)
    caught(found.value, HOST, FaultKind.ALTERED)
    # One of the first shuffler's messages taken out: its next one shows the gap.
    first = setup.shuffle_order[0]
    index = next(i for i, m in enumerate(transcript) if Envelope.parse(m).author == first)
    with pytest.raises(FaultFound) as found:
        audit_deal(setup, keys, transcript[:index] + transcript[index + 1 :])
    caught(found.value, HOST, FaultKind.MISSING)
    with pytest.raises(FaultFound) as found:
        audit_deal(setup, keys, transcript[:-1])
    caught(found.value, "seat 2", FaultKind.MISSING)


def test_a_seat_that_checks_the_shuffle_before_its_own_while_it_shuffles_deals_the_same() -> None:
    with ThreadPoolExecutor(max_workers=1) as pool:
        deal = small_deal()
        deal.exchange_keys()
        deal.shuffle_all(overlap=pool)
        deal.cut(11)
        hands = deal.deal_hands()
        deal.first_discard()
        deal.reveal_all()
    audit = audit_deal(deal.setup, deal.signing_keys, deal.transcript)
    assert audit.dealt.hands == hands


def test_a_bad_shuffle_checked_while_the_next_seat_shuffles_is_named_and_nothing_is_sent() -> None:
    deal = small_deal()
    deal.exchange_keys()
    first, second = deal.setup.shuffle_order[:2]
    seat = deal.seats[first]
    deck = seat.ledger.decks[0]
    ctx = deal.setup.context(first, shuffle_step(0, 0))
    out, proof = shuffle_deck(ctx, seat.ledger.joint_key, deck, random_scalar)
    bad = seat.send(ShuffleBody(0, 0, (), digest_of(deck), (out[1], out[0], *out[2:]), proof))
    nxt = deal.seats[second]
    with ThreadPoolExecutor(max_workers=1) as pool, pytest.raises(FaultFound) as found:
        nxt.shuffle_after(bad, pool)
    caught(found.value, f"seat {first}", FaultKind.INVALID)
    assert nxt.ledger.shuffles == 0 and nxt.ledger.decks[0] == deck
    assert len(nxt.checker.chains[first]) == 1 and len(nxt.checker.chains[second]) == 1


def test_a_seats_own_messages_over_a_long_deal_stay_within_50_kb() -> None:
    """docs/PRIVATE_TABLES.md "Bytes on the wire": what a seat puts on the wire over a long
    deal (40 draws, 60 cards laid or discarded, each in a message of its own) is within the
    ~50 KB a player a deal; what it receives is every other seat's messages, relayed once."""
    deal = long_deal(DealSetup("bytes", 1, (0, 1, 2, 3), dealer=0), draws=40, openings=60)
    assert len(audit_deal(deal.setup, deal.signing_keys, deal.transcript).deck) == 108
    for seat in deal.setup.seats:
        assert deal.sent[seat] <= 50_000, f"seat {seat} sent {deal.sent[seat]} bytes"
        others = sum(sent for other, sent in deal.sent.items() if other != seat)
        assert deal.received[seat] == others
    assert sum(deal.sent.values()) == sum(len(m) for m in deal.transcript)


def test_a_deal_that_ends_while_its_rebuilt_stock_is_shuffled_is_revealed_and_audited() -> None:
    # Defect: a player went out with the discard it took (R10.1 leaves the pile to draw
    # from) while the rebuilt stock was still being shuffled; every seat that had taken in
    # the rebuild's first shuffle refused its own reveal ("before the deal was dealt"), so
    # the deal waited on reveals that never came.
    setup = DealSetup("private-end", 3, (0, 1, 2), dealer=0)
    deal = LocalDeal(setup, signers(setup.seats))
    deal.exchange_keys()
    deal.shuffle_all()
    deal.cut(20)
    hands = deal.deal_hands()
    first_discard = deal.first_discard()
    first = setup.shuffle_order[0]
    rebuild = deal.seats[first].shuffle_message([first_discard, 5, 9])
    deal.post(first, rebuild)  # the rebuild's first shuffle: the others are left undone
    assert all(s.ledger.phase == Phase.SHUFFLING for s in deal.seats.values())
    deal.reveal_all()
    audit = audit_deal(setup, deal.signing_keys, deal.transcript)
    assert audit.dealt.hands == hands
    assert sorted(audit.rebuilt_stocks[0]) == sorted([first_discard, 5, 9])
