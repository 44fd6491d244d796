"""Offline verification of a deal record: FAIR_DEAL.md "What a verifier checks", checks 1-4.

The signature is checked first: a record the host did not sign proves nothing
about the host. Then the events are read in order and every check names the
first event where the record disagrees with the specification.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from scala40_net.cards import card_text, cards_text
from scala40_net.fairdeal.identity import fingerprint, verify_record_signature
from scala40_net.fairdeal.record import (
    DealRecord,
    parse_deal_event,
    parse_private_event,
    ruleset_document,
)
from scala40_net.fairdeal.spec import (
    DECK_SIZES,
    DIGEST_BYTES,
    SEED_BYTES,
    Derivation,
    Reveal,
    cut,
    cut_is_valid,
    cutter_seat,
    deal_cards,
    deal_order,
    derive_deal,
    host_commitment,
    rebuild_stock,
    seat_commitment,
)
from scala40_net.pb import deal_pb2

CHECKS = (
    "signature",
    "chain",
    "commitment",
    "mix",
    "deck",
    "cut",
    "deal",
    "draw",
    "rebuild",
    "replay",
    "private",  # a private deal's audit (scala40_net.private.record)
)

_PLAY = {"drawn", "discard_returned", "played", "stock_rebuilt", "ended"}
# What may follow each kind of public event in a deal's log.
_NEXT: dict[str, set[str]] = {
    "announced": {"commitments", "ended", "host_seed_revealed"},
    "commitments": {"reveals", "ended", "host_seed_revealed"},
    "reveals": {"started", "ended", "host_seed_revealed"},
    "started": _PLAY,
    "drawn": _PLAY,
    "discard_returned": _PLAY,
    "played": _PLAY,
    "stock_rebuilt": _PLAY,
    "ended": {"host_seed_revealed"},
    "host_seed_revealed": set(),
}


class VerificationFailed(Exception):
    """A check failed: which one, at which public event (0-based), and why."""

    def __init__(self, check: str, event_index: int | None, kind: str | None, reason: str) -> None:
        super().__init__(reason)
        assert check in CHECKS
        self.check = check
        self.event_index = event_index
        self.kind = kind
        self.reason = reason

    def line(self) -> str:
        where = "" if self.event_index is None else f" at event {self.event_index} ({self.kind})"
        return f"FAILED {self.check}{where}: {self.reason}"


@dataclass
class Verified:
    """What a successful verification established, for its one-line summary."""

    table_id: str
    deal_no: int
    seats: int
    dealer: int
    cutter: int
    cut: int | None
    cut_chosen: bool
    left_out: list[tuple[int, str]]
    rebuilds: int
    events: int
    outcome: str
    host_fingerprint: str
    own_seat: int | None = None
    own_seed_checked: bool = False
    own_cards_checked: int = 0
    replay: str = "not run"
    notes: list[str] = field(default_factory=list)
    # Seats whose commitment a host bot made (SeatCommitment.host_played): no protection
    # against the host comes from their seeds.
    host_played: list[int] = field(default_factory=list)

    def line(self) -> str:
        if self.cut is None:
            cut_text = "no deal"
        else:
            cut_text = f"cut {self.cut} ({'chosen' if self.cut_chosen else 'derived'})"
        left = ", ".join(f"seat {s} {why}" for s, why in self.left_out) or "none"
        parts = [
            f"verified: table {self.table_id} deal {self.deal_no}",
            f"{self.seats} seats, dealer {self.dealer}, cutter {self.cutter}, {cut_text}",
            f"left out: {left}",
            f"{self.rebuilds} stock rebuilds",
            f"{self.events} events",
            self.outcome,
        ]
        if self.own_seat is not None:
            if self.own_seed_checked:
                seed = "seed in the mix"
            elif self.own_seat in self.host_played:
                seed = "seed made by the host (a host bot committed for the seat)"
            else:
                seed = "seed not given"
            parts.append(
                f"seat {self.own_seat}: {seed}, {self.own_cards_checked} own cards checked"
            )
        if self.host_played:
            seats = ", ".join(str(seat) for seat in self.host_played)
            parts.append(f"seeds made by the host's bots: seat {seats}")
        parts.append(f"replay: {self.replay}")
        parts.append(f"host {self.host_fingerprint}")
        return "; ".join(parts)


@dataclass
class _Custody:
    """Where every card is while the deal is followed event by event (check 3 and 4's card part)."""

    stock: list[int]
    discard: list[int]
    hands: dict[int, set[int]]
    table: set[int] = field(default_factory=set)
    rebuilds: int = 0
    # For each card in a hand that came from the stock: (event index, rebuild number then).
    drawn_from_stock: dict[int, tuple[int, int]] = field(default_factory=dict)


Replayer = Callable[[DealRecord, Sequence[deal_pb2.DealEvent], Derivation], str]


def verify_record(
    record: DealRecord,
    *,
    seat: int | None = None,
    my_seed: bytes | None = None,
    my_cut: int | None = None,
    host_fingerprint: str | None = None,
    replayer: Replayer | None = None,
) -> Verified:
    """Check ``record``; return what was verified or raise ``VerificationFailed``.

    ``seat``/``my_seed``/``my_cut`` are what the verifying player knows of its
    own (check 2); ``host_fingerprint`` pins the host key remembered on first
    use; ``replayer`` runs check 4 through the rules engine.
    """
    return _Verification(record, seat, my_seed, my_cut, host_fingerprint, replayer).run()


class _Verification:
    def __init__(
        self,
        record: DealRecord,
        seat: int | None,
        my_seed: bytes | None,
        my_cut: int | None,
        host_fingerprint: str | None,
        replayer: Replayer | None,
    ) -> None:
        self.record = record
        self.seat = seat if seat is not None else record.private_seat
        self.my_seed = my_seed
        self.my_cut = my_cut
        self.pinned_fingerprint = host_fingerprint
        self.replayer = replayer
        self.events: list[deal_pb2.DealEvent] = []
        self.kinds: list[str] = []
        self.own_cards = 0

    def fail(self, check: str, index: int | None, reason: str) -> VerificationFailed:
        kind = self.kinds[index] if index is not None and index < len(self.kinds) else None
        return VerificationFailed(check, index, kind, reason)

    def index_of(self, kind: str) -> int | None:
        return self.kinds.index(kind) if kind in self.kinds else None

    # --- signature and chain ----------------------------------------------------------

    def check_signature(self) -> None:
        r = self.record
        actual = fingerprint(r.host_public_key) if len(r.host_public_key) == 32 else "(no key)"
        if self.pinned_fingerprint is not None and actual != self.pinned_fingerprint.upper():
            raise self.fail(
                "signature",
                None,
                f"signed by host {actual}, but the host you know is {self.pinned_fingerprint}",
            )
        if not verify_record_signature(
            r.host_public_key, r.table_id, r.deal_no, r.chain_head, r.signature
        ):
            raise self.fail(
                "signature", None, "the host's signature does not match the chain of events"
            )

    def check_chain(self) -> None:
        r = self.record
        if not r.events:
            raise self.fail("chain", None, "the record holds no event")
        previous: str | None = None
        for index, data in enumerate(r.events):
            try:
                event = parse_deal_event(data)
            except ValueError as error:
                raise self.fail("chain", index, str(error)) from error
            kind = event.WhichOneof("event")
            self.events.append(event)
            self.kinds.append(kind or "nothing")
            if (event.table_id, event.deal_no) != (r.table_id, r.deal_no):
                raise self.fail(
                    "chain",
                    index,
                    f"event of table {event.table_id!r} deal {event.deal_no} in the record of "
                    f"table {r.table_id!r} deal {r.deal_no}",
                )
            if previous is None and kind != "announced":
                raise self.fail("commitment", index, "the deal does not start with C_host")
            if previous is not None and kind not in _NEXT[previous]:
                if kind == "commitments" and previous == "announced":
                    raise self.fail("commitment", index, "commitments asked before C_host")
                raise self.fail("chain", index, f"{kind} cannot follow {previous}")
            previous = kind
        if previous != "host_seed_revealed":
            raise self.fail("commitment", len(r.events) - 1, "the host seed is never revealed")
        announced = self.events[0].announced
        try:
            ruleset = ruleset_document(announced)
        except (ValueError, KeyError):
            # A preset or option value the rules do not define: no header can name it.
            raise self.fail(
                "chain", 0, "the signed announcement names a ruleset value the rules do not define"
            ) from None
        header = (
            tuple(announced.seats_in_play),
            announced.dealer_seat,
            announced.cutter_seat,
            announced.deck_size,
            ruleset,
        )
        if header != (r.seats_in_play, r.dealer, r.cutter, r.deck_size, r.ruleset):
            raise self.fail("chain", 0, "the record's header differs from the signed announcement")

    # --- checks 1 and 2 ---------------------------------------------------------------

    def check_announcement(self) -> None:
        a = self.events[0].announced
        seats = list(a.seats_in_play)
        if len(seats) < 2 or seats != sorted(set(seats)):
            raise self.fail("chain", 0, "seats in play must be two or more, ascending")
        if a.deck_size not in DECK_SIZES or (a.deck_size == 54 and len(seats) != 2):
            raise self.fail("deck", 0, f"R1.1: {a.deck_size} cards with {len(seats)} seats")
        if a.cutter_seat != cutter_seat(a.dealer_seat, seats):
            raise self.fail(
                "cut",
                0,
                f"R2.2: the cutter is seat {cutter_seat(a.dealer_seat, seats)}, "
                f"the host named seat {a.cutter_seat}",
            )
        if len(a.host_commitment) != DIGEST_BYTES:
            raise self.fail("commitment", 0, "C_host is not 32 bytes")

    def check_host_seed(self) -> bytes:
        r = self.record
        index = len(self.events) - 1
        host_seed: bytes = self.events[index].host_seed_revealed.host_seed
        announced = self.events[0].announced.host_commitment
        if host_commitment(r.table_id, r.deal_no, host_seed) != announced:
            raise self.fail("commitment", index, "the host seed does not match C_host")
        return host_seed

    def check_commitments(self) -> dict[int, bytes]:
        index = self.index_of("commitments")
        if index is None:
            return {}
        published = self.events[index].commitments
        if published.host_commitment != self.events[0].announced.host_commitment:
            raise self.fail("commitment", index, "C_host differs from the announced one")
        seats_in_play = set(self.record.seats_in_play)
        commitments: dict[int, bytes] = {}
        for c in published.commitments:
            if c.seat not in seats_in_play or c.seat in commitments:
                raise self.fail("commitment", index, f"seat {c.seat} not in play or twice")
            if len(c.commitment) != DIGEST_BYTES:
                raise self.fail("commitment", index, f"seat {c.seat}'s commitment is not 32 bytes")
            commitments[c.seat] = c.commitment
        return commitments

    def host_played(self) -> list[int]:
        """The seats the published commitments mark as made by a host bot."""
        index = self.index_of("commitments")
        if index is None:
            return []
        return [c.seat for c in self.events[index].commitments.commitments if c.host_played]

    def own_made_by_host(self, commitments: dict[int, bytes]) -> bool:
        """The verifying seat's published commitment is marked ``host_played`` and is not the
        one its own seed and cut make: the player was away at the announcement (or did not
        commit in time), a host bot committed for the seat, and the player's seed is rightly
        not in the mix (FAIR_DEAL.md, check 2)."""
        if self.seat is None or self.seat not in self.host_played():
            return False
        if self.my_seed is None or self.my_cut is None:
            return True
        r = self.record
        own = seat_commitment(r.table_id, r.deal_no, self.seat, self.my_seed, self.my_cut)
        return commitments.get(self.seat) != own

    def check_reveals(self, commitments: dict[int, bytes]) -> tuple[list[Reveal], int | None]:
        index = self.index_of("reveals")
        if index is None:
            return [], None
        r = self.record
        a = self.events[0].announced
        published = self.events[index].reveals
        reveals: list[Reveal] = []
        for reveal in published.reveals:
            if reveal.seat not in commitments:
                raise self.fail("commitment", index, f"seat {reveal.seat} revealed uncommitted")
            expected = seat_commitment(r.table_id, r.deal_no, reveal.seat, reveal.seed, reveal.cut)
            if (
                len(reveal.seed) != SEED_BYTES
                or reveal.cut > 0xFFFF
                or expected != commitments[reveal.seat]
            ):
                raise self.fail(
                    "commitment", index, f"seat {reveal.seat}'s seed and cut do not match C_i"
                )
            is_cutter = reveal.seat == a.cutter_seat
            if not cut_is_valid(reveal.cut, is_cutter=is_cutter, deck_size=a.deck_size):
                raise self.fail("cut", index, f"seat {reveal.seat} revealed cut {reveal.cut}")
            reveals.append(Reveal(reveal.seat, reveal.seed, reveal.cut))
        # Check 2: every seat in play is in the mix or left out, once, for a reason that fits.
        left_out = {x.seat: x.reason for x in published.left_out}
        listed = [x.seat for x in published.left_out] + [x.seat for x in reveals]
        if sorted(listed) != sorted(r.seats_in_play):
            raise self.fail("mix", index, "every seat in play must be in the mix or left out, once")
        for seat_no, reason in left_out.items():
            committed = seat_no in commitments
            if (reason == deal_pb2.LEFT_OUT_REASON_NO_COMMITMENT) == committed or reason not in (
                deal_pb2.LEFT_OUT_REASON_NO_COMMITMENT,
                deal_pb2.LEFT_OUT_REASON_NO_REVEAL,
                deal_pb2.LEFT_OUT_REASON_BAD_REVEAL,
            ):
                raise self.fail("mix", index, f"seat {seat_no} is left out for a wrong reason")
        if self.my_seed is not None and not self.own_made_by_host(commitments):
            mine = [x for x in reveals if x.seat == self.seat]
            if not mine or mine[0].seed != self.my_seed:
                raise self.fail("mix", index, f"seat {self.seat}'s own seed is not in the mix")
            if self.my_cut is not None and mine[0].cut != self.my_cut:
                raise self.fail("mix", index, f"seat {self.seat}'s own cut is not in the mix")
        return reveals, index

    # --- check 3: deck, cut, deal, draws and rebuilds ---------------------------------

    def private_with(self, index: int) -> list[deal_pb2.PrivateDealEvent]:
        found = []
        for entry in self.record.private_events:
            if entry.with_event == index:
                try:
                    found.append(parse_private_event(entry.event))
                except ValueError as error:
                    raise self.fail("deal", index, f"own private data: {error}") from error
        return found

    def check_started(self, index: int, derivation: Derivation) -> _Custody:
        started = self.events[index].started
        dealt = derivation.dealt
        a = self.events[0].announced
        if started.first_seat != deal_order(a.dealer_seat, list(a.seats_in_play))[0]:
            raise self.fail("deal", index, "R2.4: the first player is the dealer's left")
        own_hand: list[int] | None = None
        for private in self.private_with(index):
            if private.WhichOneof("event") != "hand_dealt" or self.seat not in dealt.hands:
                raise self.fail("deal", index, "own private data is not a hand dealt to a seat")
            own_hand = list(private.hand_dealt.cards)
        if started.first_discard != dealt.first_discard:
            raise self.fail(
                self.cut_or_deal(derivation, started.first_discard, own_hand),
                index,
                f"first discard {_card(started.first_discard)}, "
                f"the deck has {card_text(dealt.first_discard)} there",
            )
        if own_hand is not None:
            assert self.seat is not None
            if own_hand != dealt.hands[self.seat]:
                raise self.fail(
                    self.cut_or_deal(derivation, started.first_discard, own_hand),
                    index,
                    f"seat {self.seat} was dealt {_cards(own_hand)}, the deck gives "
                    f"{cards_text(dealt.hands[self.seat])}",
                )
            self.own_cards += len(own_hand)
        if started.stock_count != len(dealt.stock):
            raise self.fail(
                "deal", index, f"stock of {started.stock_count}, not {len(dealt.stock)}"
            )
        return _Custody(
            stock=list(dealt.stock),
            discard=[dealt.first_discard],
            hands={s: set(h) for s, h in dealt.hands.items()},
        )

    def cut_or_deal(
        self, derivation: Derivation, first_discard: int, own_hand: list[int] | None
    ) -> str:
        """``cut`` when the seat's own hand and the first discard fit another cut of the shuffle.

        Without the seat's own hand, the first discard alone fits some other
        cut too often to say so: the failure is then named ``deal``.
        """
        if own_hand is None or self.seat is None:
            return "deal"
        a = self.events[0].announced
        for c in range(1, len(derivation.shuffled)):
            dealt = deal_cards(cut(derivation.shuffled, c), a.dealer_seat, list(a.seats_in_play))
            if dealt.first_discard == first_discard and dealt.hands[self.seat] == own_hand:
                return "cut"
        return "deal"

    def check_play(self, derivation: Derivation, custody: _Custody, started: int) -> None:
        a = self.events[0].announced
        order = deal_order(a.dealer_seat, list(a.seats_in_play))
        turn, drew = 0, False  # R2.4 and R3: clockwise turns, each a draw then a play
        for index, event in enumerate(self.events):
            kind = self.kinds[index]
            if index > started and kind == "discard_returned":
                self.check_returned(index, event.discard_returned, custody, drew)
                drew = False  # R3.2 settled: the seat now draws from the stock
            elif index > started and kind in ("drawn", "played"):
                seat = event.drawn.seat if kind == "drawn" else event.played.seat
                expected = order[turn % len(order)]
                if seat != expected or drew != (kind == "played"):
                    step = "play" if drew else "draw"
                    raise self.fail(
                        "replay", index, f"R3: seat {expected} is to {step}, not seat {seat} to "
                        f"{'draw' if kind == 'drawn' else 'play'}"
                    )  # fmt: skip
                drew = kind == "drawn"
                turn += kind == "played"
            elif kind == "stock_rebuilt" and drew:
                raise self.fail(
                    "rebuild", index, "R10.1: the stock is rebuilt at the end of a turn"
                )
            if kind == "drawn":
                self.check_draw(index, event.drawn, custody)
            elif kind == "played":
                self.check_played(index, event.played, custody)
            elif kind == "stock_rebuilt":
                self.check_rebuild(index, event.stock_rebuilt, derivation, custody)
            elif kind == "ended":
                self.check_ended(index, event.ended, custody)

    def check_draw(self, index: int, drawn: deal_pb2.CardDrawn, custody: _Custody) -> None:
        if drawn.seat not in custody.hands:
            raise self.fail("draw", index, f"seat {drawn.seat} is not in play")
        if drawn.source == deal_pb2.DRAW_SOURCE_STOCK:
            if not custody.stock:
                raise self.fail("draw", index, "a draw from an empty stock")
            card = custody.stock.pop(0)
            check = "rebuild" if custody.rebuilds else "draw"
            if drawn.HasField("card") and drawn.card != card:
                raise self.fail(
                    check, index, f"drew {_card(drawn.card)}, the stock's top is {card_text(card)}"
                )
            for private in self.private_with(index):
                shown = private.stock_card_drawn.card
                if private.WhichOneof("event") != "stock_card_drawn" or drawn.seat != self.seat:
                    raise self.fail("draw", index, "own private data is not this seat's draw")
                if shown != card:
                    raise self.fail(
                        check,
                        index,
                        f"seat {self.seat} drew {_card(shown)}, the stock's top is "
                        f"{card_text(card)}",
                    )
                self.own_cards += 1
            custody.drawn_from_stock[card] = (index, custody.rebuilds)
        elif drawn.source == deal_pb2.DRAW_SOURCE_DISCARD:
            top = custody.discard[-1] if custody.discard else None
            if top is None or not drawn.HasField("card") or drawn.card != top:
                raise self.fail(
                    "draw",
                    index,
                    f"took {_card(drawn.card)} from the discard pile, its top is {_card(top)}",
                )
            card = custody.discard.pop()
        else:
            raise self.fail("draw", index, "a draw from nowhere")
        custody.hands[drawn.seat].add(card)

    def check_returned(
        self, index: int, returned: deal_pb2.DiscardReturned, custody: _Custody, drew: bool
    ) -> None:
        """The card just taken from the discard pile goes back on top of it."""
        previous = self.events[index - 1]
        taken = (
            self.kinds[index - 1] == "drawn"
            and previous.drawn.source == deal_pb2.DRAW_SOURCE_DISCARD
            and previous.drawn.seat == returned.seat
            and previous.drawn.card == returned.card
        )
        if not (drew and taken) or returned.card not in custody.hands[returned.seat]:
            raise self.fail(
                "replay", index, f"seat {returned.seat} returns {_card(returned.card)}, "
                "which it did not just take from the discard pile"
            )  # fmt: skip
        custody.hands[returned.seat].remove(returned.card)
        custody.discard.append(returned.card)

    def check_played(self, index: int, played: deal_pb2.Played, custody: _Custody) -> None:
        hand = custody.hands.get(played.seat)
        if hand is None:
            raise self.fail("replay", index, f"seat {played.seat} is not in play")
        swapped_out = 0  # jokers taken from melds this play, still to be laid again (R7.2)
        for operation in played.operations:
            which = operation.WhichOneof("operation")
            if which == "swap_joker":
                self.take_from_hand(index, played.seat, [operation.swap_joker.card], custody)
                swapped_out += 1
                continue
            cards = list(getattr(operation, which).cards) if which else []
            for card in cards:
                if card in hand:
                    self.take_from_hand(index, played.seat, [card], custody)
                elif card in custody.table and swapped_out and _is_joker(card):
                    swapped_out -= 1  # the joker moves from one meld to another
                else:
                    self.card_not_in_hand(index, played.seat, card, custody)
        if played.HasField("discard"):
            if played.discard not in hand:
                self.card_not_in_hand(index, played.seat, played.discard, custody)
            hand.remove(played.discard)
            custody.discard.append(played.discard)
        if played.went_out and hand:
            raise self.fail("replay", index, f"seat {played.seat} went out holding cards")

    def take_from_hand(self, index: int, seat: int, cards: list[int], custody: _Custody) -> None:
        for card in cards:
            if card not in custody.hands[seat]:
                self.card_not_in_hand(index, seat, card, custody)
            custody.hands[seat].remove(card)
            custody.table.add(card)

    def card_not_in_hand(self, index: int, seat: int, card: int, custody: _Custody) -> NoReturn:
        """A card played that the seat does not hold: blame the stock draw it must have been."""
        unplayed_draws = sorted(
            (at, rebuild)
            for c, (at, rebuild) in custody.drawn_from_stock.items()
            if c in custody.hands[seat] and self.events[at].drawn.seat == seat
        )
        # The card is still in the stock the seat drew from last: that stock gave it instead.
        same_stock = [d for d in unplayed_draws if d[1] == custody.rebuilds]
        if card in custody.stock and (same_stock or unplayed_draws):
            at, rebuild = (same_stock or unplayed_draws)[0]
            raise self.fail(
                "rebuild" if rebuild else "draw",
                at,
                f"seat {seat} later played {_card(card)}, which the deck had still in the stock",
            )
        raise self.fail("replay", index, f"seat {seat} played {_card(card)}, not in its hand")

    def check_rebuild(
        self,
        index: int,
        rebuilt: deal_pb2.StockRebuilt,
        derivation: Derivation,
        custody: _Custody,
    ) -> None:
        custody.rebuilds += 1
        if rebuilt.rebuild_no != custody.rebuilds:
            raise self.fail(
                "rebuild", index, f"rebuild {rebuilt.rebuild_no}, not {custody.rebuilds}"
            )
        if custody.stock:
            raise self.fail("rebuild", index, "R10.1: the stock was rebuilt before it ran out")
        stock = rebuild_stock(derivation.mix_key, custody.rebuilds, custody.discard)
        if rebuilt.stock_count != len(stock):
            raise self.fail("rebuild", index, f"a stock of {rebuilt.stock_count}, not {len(stock)}")
        custody.stock = stock
        custody.discard = custody.discard[-1:]

    def check_ended(self, index: int, ended: deal_pb2.DealEnded, custody: _Custody) -> None:
        shown = {h.seat: sorted(h.cards) for h in ended.hands}
        if sorted(shown) != sorted(custody.hands) or len(ended.hands) != len(shown):
            raise self.fail("deal", index, "every seat in play shows its hand once")
        for seat, cards in sorted(shown.items()):
            held = custody.hands[seat]
            if cards == sorted(held):
                continue
            missing = sorted(held - set(cards))
            from_stock = [
                custody.drawn_from_stock[c] for c in missing if c in custody.drawn_from_stock
            ]
            if from_stock:
                at, rebuild = min(from_stock)
                raise self.fail(
                    "rebuild" if rebuild else "draw",
                    at,
                    f"seat {seat} shows {_cards(cards)} at the end, the deck gave it "
                    f"{cards_text(sorted(held))}",
                )
            raise self.fail(
                "deal",
                index,
                f"seat {seat} shows {_cards(cards)}, the deck gave it {cards_text(sorted(held))}",
            )

    # --- all checks -------------------------------------------------------------------

    def run(self) -> Verified:
        self.check_signature()
        self.check_chain()
        self.check_announcement()
        host_seed = self.check_host_seed()
        commitments = self.check_commitments()
        reveals, reveals_index = self.check_reveals(commitments)
        r = self.record
        a = self.events[0].announced
        left_out: list[tuple[int, str]] = []
        if reveals_index is not None:
            for x in self.events[reveals_index].reveals.left_out:
                why = deal_pb2.LeftOutReason.Name(x.reason).removeprefix("LEFT_OUT_REASON_")
                left_out.append((x.seat, why.lower().replace("_", " ")))
        ended_index = self.index_of("ended")
        outcome = "abandoned before the deal"
        if ended_index is not None:
            name = deal_pb2.DealOutcome.Name(self.events[ended_index].ended.outcome)
            outcome = name.removeprefix("DEAL_OUTCOME_").lower().replace("_", " ")
        verified = Verified(
            table_id=r.table_id,
            deal_no=r.deal_no,
            seats=len(r.seats_in_play),
            dealer=a.dealer_seat,
            cutter=a.cutter_seat,
            cut=None,
            cut_chosen=False,
            left_out=left_out,
            rebuilds=0,
            events=len(r.events),
            outcome=outcome,
            host_fingerprint=r.host_fingerprint,
            own_seat=self.seat,
            own_seed_checked=(
                self.my_seed is not None
                and reveals_index is not None
                and not self.own_made_by_host(commitments)
            ),
            host_played=self.host_played(),
        )
        started_index = self.index_of("started")
        if reveals_index is None:
            return verified
        derivation = derive_deal(
            host_seed=host_seed,
            table_id=r.table_id,
            deal_no=r.deal_no,
            dealer=a.dealer_seat,
            cutter=a.cutter_seat,
            seats_in_play=list(a.seats_in_play),
            deck_size=a.deck_size,
            reveals=reveals,
        )
        verified.cut, verified.cut_chosen = derivation.cut, derivation.cut_chosen
        if started_index is None:
            return verified
        custody = self.check_started(started_index, derivation)
        self.check_play(derivation, custody, started_index)
        verified.rebuilds = custody.rebuilds
        verified.own_cards_checked = self.own_cards
        if self.replayer is not None:
            verified.replay = self.replayer(r, self.events, derivation)
        return verified


def _card(card: int | None) -> str:
    if card is None:
        return "nothing"
    try:
        return card_text(card)
    except ValueError:
        return f"card id {card}"


def _cards(cards: Iterable[int]) -> str:
    """Cards a record claims, for a failure: ids no deck has are named, not refused."""
    return " ".join(_card(c) for c in cards)


def _is_joker(card: int) -> bool:
    return card % 54 >= 52
