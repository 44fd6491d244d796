"""A whole deal rehearsed in memory: host, seats and recorder exchanging the real messages.

It shows the order in which a host calls the fair-deal objects, and gives the
benchmark and the tests complete, signed deal records. Turns are plain draws
and discards (R3.1), taken from the stock or, now and then, from the discard
pile; the host abandons the deal after a given number of turns, so the
record does not depend on any rule beyond R2, R3.3 and R10.1.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from scala40_net.fairdeal.exchange import DealSetup, HostExchange, SeatExchange, deal_event
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.fairdeal.record import DealRecorder
from scala40_net.fairdeal.spec import DealtCards, Derivation, deal_order
from scala40_net.pb import deal_pb2, ruleset_pb2


@dataclass
class Rehearsal:
    """One deal attempt; ``run`` plays it and leaves the signed ``recorder`` behind.

    ``choices`` seeds the players' choices of play only (which card to
    discard, where to draw from): the order of the cards comes from the
    fair-deal exchange alone.
    """

    table_id: str = "rehearsal"
    deal_no: int = 1
    seats_in_play: tuple[int, ...] = (0, 1, 2, 3)
    dealer: int = 0
    deck_size: int = 108
    turns: int = 60
    choices: int = 0
    discard_draw_share: float = 0.2
    cut: int | None = None
    preset: ruleset_pb2.Preset = ruleset_pb2.PRESET_SEMPLICE
    silent_seats: frozenset[int] = frozenset()
    identity: HostIdentity = field(default_factory=HostIdentity.generate)
    host_seed: bytes | None = None
    seat_seeds: dict[int, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.setup = DealSetup(
            table_id=self.table_id,
            deal_no=self.deal_no,
            dealer=self.dealer,
            seats_in_play=self.seats_in_play,
            deck_size=self.deck_size,
            ruleset=ruleset_pb2.Ruleset(
                preset=self.preset,
                options=ruleset_pb2.RulesetOptions(decks=self.deck_size // 54),
            ),
        )
        self.host = HostExchange(self.setup, self.host_seed)
        self.seats = {s: SeatExchange(s, self.seat_seeds.get(s)) for s in self.seats_in_play}
        self.recorder = DealRecorder(self.table_id, self.deal_no)
        self.hands: dict[int, list[int]] = {}
        self.stock: list[int] = []
        self.discard_pile: list[int] = []
        self.rebuilds = 0

    # What a host that cheats would change; the honest host uses the spec's values.
    def dealt_cards(self, derivation: Derivation) -> DealtCards:
        return derivation.dealt

    def rebuilt_stock(self, discard_pile: Sequence[int]) -> list[int]:
        return self.host.rebuilt_stock(discard_pile)

    def broadcast(self, event: deal_pb2.DealEvent) -> deal_pb2.DealEvent:
        """Serialize once, record those bytes, and hand every seat the decoded event."""
        self.recorder.public(event.SerializeToString())
        return event

    def tell(self, seat: int, **private: object) -> None:
        message = deal_pb2.PrivateDealEvent(
            table_id=self.table_id,
            deal_no=self.deal_no,
            **private,  # type: ignore[arg-type]
        )
        self.recorder.private(seat, message.SerializeToString())

    def exchange_seeds(self) -> None:
        """Steps 1-4; a silent seat never commits."""
        announced = self.broadcast(self.host.announce())
        for seat, player in self.seats.items():
            player.on_announced(announced)
            if seat not in self.silent_seats:
                cut = self.cut if player.is_cutter else None
                self.host.receive_commitment(seat, player.commit(cut))
        published = self.broadcast(self.host.publish_commitments())
        for seat, player in self.seats.items():
            if seat not in self.silent_seats:
                player.on_commitments(published)
                reveal = player.reveal()
                self.host.receive_reveal(seat, reveal.seed, reveal.cut)
        revealed = self.broadcast(self.host.publish_reveals())
        for player in self.seats.values():
            player.on_reveals(revealed)

    def deal(self) -> None:
        """Step 5: the deck as derived; each seat gets its hand privately."""
        dealt = self.dealt_cards(self.host.derivation)
        first_seat = deal_order(self.dealer, self.seats_in_play)[0]
        self.broadcast(
            deal_event(
                self.table_id,
                self.deal_no,
                started=deal_pb2.DealStarted(
                    first_discard=dealt.first_discard,
                    stock_count=len(dealt.stock),
                    first_seat=first_seat,
                ),
            )
        )
        for seat, hand in dealt.hands.items():
            self.tell(seat, hand_dealt=deal_pb2.HandDealt(cards=hand))
        self.hands = {seat: list(hand) for seat, hand in dealt.hands.items()}
        self.stock = list(dealt.stock)
        self.discard_pile = [dealt.first_discard]

    def play_turn(self, seat: int, rng: random.Random) -> None:
        taken: int | None = None
        if len(self.discard_pile) > 1 and rng.random() < self.discard_draw_share:
            taken = self.discard_pile.pop()
            drawn = deal_pb2.CardDrawn(seat=seat, source=deal_pb2.DRAW_SOURCE_DISCARD, card=taken)
            self.broadcast(deal_event(self.table_id, self.deal_no, drawn=drawn))
            self.hands[seat].append(taken)
        else:
            card = self.stock.pop(0)
            drawn = deal_pb2.CardDrawn(seat=seat, source=deal_pb2.DRAW_SOURCE_STOCK)
            self.broadcast(deal_event(self.table_id, self.deal_no, drawn=drawn))
            self.tell(seat, stock_card_drawn=deal_pb2.StockCardDrawn(card=card))
            self.hands[seat].append(card)
        # R3.3: the card taken from the discard pile is not discarded in the same turn.
        discard = rng.choice([c for c in self.hands[seat] if c != taken])
        self.hands[seat].remove(discard)
        self.discard_pile.append(discard)
        played = deal_pb2.Played(seat=seat, discard=discard)
        self.broadcast(deal_event(self.table_id, self.deal_no, played=played))
        if not self.stock:
            # R10.1: at the end of the turn that emptied the stock.
            self.stock = self.rebuilt_stock(self.discard_pile)
            self.discard_pile = self.discard_pile[-1:]
            self.rebuilds += 1
            rebuilt = deal_pb2.StockRebuilt(rebuild_no=self.rebuilds, stock_count=len(self.stock))
            self.broadcast(deal_event(self.table_id, self.deal_no, stock_rebuilt=rebuilt))

    def run(self) -> DealRecorder:
        """Play the deal, end it as abandoned after ``turns`` turns, reveal ``s_host`` and sign."""
        self.exchange_seeds()
        self.deal()
        rng = random.Random(self.choices)
        order = deal_order(self.dealer, self.seats_in_play)
        for turn in range(self.turns):
            self.play_turn(order[turn % len(order)], rng)
        ended = deal_pb2.DealEnded(
            outcome=deal_pb2.DEAL_OUTCOME_ABANDONED,
            hands=[
                deal_pb2.SeatHand(seat=seat, cards=sorted(hand))
                for seat, hand in sorted(self.hands.items())
            ],
        )
        self.broadcast(deal_event(self.table_id, self.deal_no, ended=ended))
        seed_event = self.broadcast(self.host.reveal_host_seed())
        for player in self.seats.values():
            player.on_host_seed(seed_event)
        self.recorder.finish(self.identity)
        return self.recorder
