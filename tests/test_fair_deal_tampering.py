"""Tampered records and cheating hosts: verification fails and names the check and the event.

Two kinds of change. A record changed after the host signed it fails the
signature check, whatever was changed. A host that cheats signs what it did:
then the content checks catch it and name the first event that disagrees.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scala40_net.fairdeal.chain import chain_head
from scala40_net.fairdeal.exchange import HostMisbehaved
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.fairdeal.record import DealRecord, parse_deal_event
from scala40_net.fairdeal.rehearsal import Rehearsal
from scala40_net.fairdeal.spec import DealtCards, Derivation, cut, deal_cards, derive_deal
from scala40_net.fairdeal.verify import CHECKS, VerificationFailed, verify_record
from scala40_net.pb import deal_pb2, ruleset_pb2

IDENTITY = HostIdentity.from_private_bytes(bytes(range(32)))
SEAT = 1


@cache
def honest() -> tuple[Rehearsal, DealRecord]:
    rehearsal = Rehearsal(turns=70, identity=IDENTITY, choices=7)
    record = rehearsal.run().record_for(SEAT)
    return rehearsal, record


def failure(record: DealRecord, **known: object) -> VerificationFailed:
    with pytest.raises(VerificationFailed) as caught:
        verify_record(record, **known)  # type: ignore[arg-type]
    assert caught.value.check in CHECKS
    return caught.value


def resigned(record: DealRecord, events: Sequence[bytes]) -> DealRecord:
    """The record as a cheating host would sign it: its own events, its own key."""
    head = chain_head(record.table_id, record.deal_no, events)
    return dataclasses.replace(
        record,
        events=tuple(events),
        signature=IDENTITY.sign_record(record.table_id, record.deal_no, head),
    )


def edited(record: DealRecord, index: int, change: object) -> list[bytes]:
    events = list(record.events)
    event = parse_deal_event(events[index])
    change(event)  # type: ignore[operator]
    events[index] = event.SerializeToString()
    return events


def kind_index(record: DealRecord, kind: str) -> int:
    kinds = [parse_deal_event(e).WhichOneof("event") for e in record.events]
    return kinds.index(kind)


def flipped_byte(data: st.DataObject, record: DealRecord) -> list[bytes]:
    """The record's events with one bit pattern XORed into one byte of one event."""
    index = data.draw(st.integers(0, len(record.events) - 1), label="event")
    event_bytes = bytearray(record.events[index])
    position = data.draw(st.integers(0, len(event_bytes) - 1), label="byte")
    event_bytes[position] ^= data.draw(st.integers(1, 255), label="mask")
    events = list(record.events)
    events[index] = bytes(event_bytes)
    return events


def dropped_or_reordered(data: st.DataObject, record: DealRecord) -> list[bytes]:
    """The record's events with one left out, or swapped with the next."""
    events = list(record.events)
    index = data.draw(st.integers(0, len(events) - 2), label="event")
    if data.draw(st.booleans(), label="drop"):
        del events[index]
    else:
        events[index], events[index + 1] = events[index + 1], events[index]
    return events


# --- changed after signing: the signature ---------------------------------------------


def test_the_honest_record_verifies() -> None:
    rehearsal, record = honest()
    verify_record(record, seat=SEAT, my_seed=rehearsal.seats[SEAT].seed)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_flipped_event_byte_fails_the_signature(data: st.DataObject) -> None:
    _, record = honest()
    events = flipped_byte(data, record)
    assert failure(dataclasses.replace(record, events=tuple(events))).check == "signature"


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_a_dropped_or_reordered_event_fails_the_signature(data: st.DataObject) -> None:
    _, record = honest()
    events = dropped_or_reordered(data, record)
    assert failure(dataclasses.replace(record, events=tuple(events))).check == "signature"


def test_a_flipped_signature_or_substituted_key_fails_the_signature() -> None:
    _, record = honest()
    bad_signature = bytes([record.signature[0] ^ 1]) + record.signature[1:]
    assert failure(dataclasses.replace(record, signature=bad_signature)).check == "signature"
    other = HostIdentity.generate()
    assert failure(dataclasses.replace(record, host_public_key=other.public_key)).check == (
        "signature"
    )
    # Re-signed by another key the record is consistent, but not the host one remembers.
    forged = dataclasses.replace(
        record,
        host_public_key=other.public_key,
        signature=other.sign_record(record.table_id, record.deal_no, record.chain_head),
    )
    verify_record(forged)
    assert failure(forged, host_fingerprint=IDENTITY.fingerprint).check == "signature"


# --- signed by a host that lies: the content checks -----------------------------------


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_flipped_event_byte_signed_by_the_host_is_caught(data: st.DataObject) -> None:
    _, record = honest()
    events = flipped_byte(data, record)
    caught = failure(resigned(record, events))
    assert caught.check != "signature"
    assert caught.event_index is not None


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_dropped_or_reordered_event_signed_by_the_host_is_caught(data: st.DataObject) -> None:
    _, record = honest()
    events = dropped_or_reordered(data, record)
    caught = failure(resigned(record, events))
    assert caught.check != "signature"


def test_a_changed_seed_is_caught_as_commitment() -> None:
    _, record = honest()
    index = kind_index(record, "reveals")

    def change(event: deal_pb2.DealEvent) -> None:
        event.reveals.reveals[2].seed = bytes(32)

    caught = failure(resigned(record, edited(record, index, change)))
    assert (caught.check, caught.event_index) == ("commitment", index)


def test_a_changed_cut_is_caught_as_commitment() -> None:
    _, record = honest()
    index = kind_index(record, "reveals")
    cutter = record.cutter

    def change(event: deal_pb2.DealEvent) -> None:
        for reveal in event.reveals.reveals:
            if reveal.seat == cutter:
                reveal.cut = reveal.cut % 107 + 1

    caught = failure(resigned(record, edited(record, index, change)))
    assert (caught.check, caught.event_index) == ("commitment", index)


def test_a_changed_commitment_is_caught_as_commitment() -> None:
    _, record = honest()
    index = kind_index(record, "commitments")

    def change(event: deal_pb2.DealEvent) -> None:
        event.commitments.commitments[0].commitment = bytes(32)

    caught = failure(resigned(record, edited(record, index, change)))
    assert caught.check == "commitment"


def test_an_omitted_seed_is_caught_as_mix() -> None:
    _, record = honest()
    index = kind_index(record, "reveals")

    def change(event: deal_pb2.DealEvent) -> None:
        del event.reveals.reveals[0]

    caught = failure(resigned(record, edited(record, index, change)))
    assert (caught.check, caught.event_index) == ("mix", index)


def test_an_announced_ruleset_value_the_rules_do_not_define_is_caught_as_chain() -> None:
    _, record = honest()
    index = kind_index(record, "announced")

    def change(event: deal_pb2.DealEvent) -> None:
        event.announced.ruleset.preset = max(ruleset_pb2.Preset.values()) + 1  # type: ignore[assignment]

    caught = failure(resigned(record, edited(record, index, change)))
    assert (caught.check, caught.event_index) == ("chain", index)


def test_a_swapped_card_in_a_shown_hand_is_caught() -> None:
    _, record = honest()
    index = kind_index(record, "ended")

    def change(event: deal_pb2.DealEvent) -> None:
        hand = event.ended.hands[2]
        hand.cards[0] = next(c for c in range(108) if c not in hand.cards)

    caught = failure(resigned(record, edited(record, index, change)).without_private())
    assert caught.check in {"deal", "draw", "rebuild"}


def test_a_shown_card_no_deck_has_is_caught_and_named_by_its_id() -> None:
    _, record = honest()
    index = kind_index(record, "ended")

    def change(event: deal_pb2.DealEvent) -> None:
        event.ended.hands[2].cards[0] = 117

    caught = failure(resigned(record, edited(record, index, change)).without_private())
    assert caught.check in {"deal", "draw", "rebuild"}
    assert "card id 117" in str(caught)


def test_a_swapped_first_discard_is_caught_as_deal() -> None:
    _, record = honest()
    index = kind_index(record, "started")

    def change(event: deal_pb2.DealEvent) -> None:
        event.started.first_discard = (event.started.first_discard + 1) % 108

    caught = failure(resigned(record, edited(record, index, change)))
    assert (caught.check, caught.event_index, caught.kind) == ("deal", index, "started")


def test_a_changed_host_seed_is_caught_as_commitment() -> None:
    _, record = honest()
    index = len(record.events) - 1

    def change(event: deal_pb2.DealEvent) -> None:
        event.host_seed_revealed.host_seed = bytes(32)

    caught = failure(resigned(record, edited(record, index, change)))
    assert (caught.check, caught.event_index) == ("commitment", index)


# --- cheating hosts, each caught every time -------------------------------------------

ATTEMPTS = 12


class WrongCut(Rehearsal):
    def dealt_cards(self, derivation: Derivation) -> DealtCards:
        other = derivation.cut % (self.deck_size - 1) + 1
        return deal_cards(cut(derivation.shuffled, other), self.dealer, self.seats_in_play)


class DealsFromTheDealer(Rehearsal):
    """Starts dealing with the dealer instead of the player on the dealer's left."""

    def dealt_cards(self, derivation: Derivation) -> DealtCards:
        before = max(s for s in self.seats_in_play if s != self.dealer)
        return deal_cards(derivation.deck, before, self.seats_in_play)


class RebuildsInAnotherOrder(Rehearsal):
    def rebuilt_stock(self, discard_pile: Sequence[int]) -> list[int]:
        return list(reversed(self.host.rebuilt_stock(discard_pile)))


class ChoosesItsSeedLate(Rehearsal):
    """Commits to one seed, then, with every reveal in hand, deals from a seed it prefers."""

    def exchange_seeds(self) -> None:
        super().exchange_seeds()
        host, setup = self.host, self.setup
        host._host_seed = bytes(32)
        host._derivation = derive_deal(
            host_seed=host._host_seed,
            table_id=setup.table_id,
            deal_no=setup.deal_no,
            dealer=setup.dealer,
            cutter=setup.cutter,
            seats_in_play=setup.seats_in_play,
            deck_size=setup.deck_size,
            reveals=host._reveals.values(),
        )


def attempt(cheat: type[Rehearsal], n: int, turns: int = 70) -> Rehearsal:
    return cheat(turns=turns, identity=IDENTITY, choices=n, deal_no=n + 1, dealer=n % 4)


@pytest.mark.parametrize("n", range(ATTEMPTS))
def test_a_host_that_changes_the_cut_is_caught(n: int) -> None:
    rehearsal = attempt(WrongCut, n)
    recorder = rehearsal.run()
    seat = rehearsal.seats_in_play[n % 4]
    caught = failure(recorder.record_for(seat))
    assert (caught.check, caught.kind) == ("cut", "started")
    assert failure(recorder.signed).check == "deal"


@pytest.mark.parametrize("n", range(ATTEMPTS))
def test_a_host_that_deals_out_of_order_is_caught(n: int) -> None:
    rehearsal = attempt(DealsFromTheDealer, n)
    recorder = rehearsal.run()
    caught = failure(recorder.record_for(rehearsal.seats_in_play[n % 4]))
    assert (caught.check, caught.kind) == ("deal", "started")
    assert failure(recorder.signed).check in {"deal", "draw", "replay"}


@pytest.mark.parametrize("n", range(ATTEMPTS))
def test_a_host_that_rebuilds_the_stock_from_another_order_is_caught(n: int) -> None:
    rehearsal = attempt(RebuildsInAnotherOrder, n, turns=110)
    recorder = rehearsal.run()
    events = [parse_deal_event(e) for e in recorder.events]
    rebuilt = next(i for i, e in enumerate(events) if e.WhichOneof("event") == "stock_rebuilt")
    first_draw = next(
        e.drawn
        for e in events[rebuilt:]
        if e.WhichOneof("event") == "drawn" and e.drawn.source == deal_pb2.DRAW_SOURCE_STOCK
    )
    caught = failure(recorder.record_for(first_draw.seat))
    assert (caught.check, caught.kind) == ("rebuild", "drawn")
    assert failure(recorder.signed).check in {"rebuild", "replay"}


@pytest.mark.parametrize("n", range(ATTEMPTS))
def test_a_host_that_chooses_its_seed_after_the_reveals_is_caught(n: int) -> None:
    rehearsal = attempt(ChoosesItsSeedLate, n)
    with pytest.raises(HostMisbehaved, match="C_host"):
        rehearsal.run()  # every honest client sees it at once
    caught = failure(rehearsal.recorder.finish(IDENTITY))
    assert (caught.check, caught.kind) == ("commitment", "host_seed_revealed")


@pytest.mark.parametrize("n", range(ATTEMPTS))
def test_a_host_that_drops_a_players_seed_is_caught_by_that_player(n: int) -> None:
    rehearsal = attempt(Rehearsal, n)
    record = rehearsal.run().record_for(SEAT)
    index = kind_index(record, "reveals")

    def drop(event: deal_pb2.DealEvent) -> None:
        kept = [r for r in event.reveals.reveals if r.seat != SEAT]
        del event.reveals.reveals[:]
        event.reveals.reveals.extend(kept)
        event.reveals.left_out.add(seat=SEAT, reason=deal_pb2.LEFT_OUT_REASON_BAD_REVEAL)

    # Re-derived from the new mix, the rest of the record no longer fits either; the
    # player's own check names the mix first.
    cheated = resigned(record, edited(record, index, drop))
    caught = failure(cheated, seat=SEAT, my_seed=rehearsal.seats[SEAT].seed)
    assert (caught.check, caught.event_index) == ("mix", index)
