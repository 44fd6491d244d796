"""A private deal among seats of one process, through a relay that hands every message on.

For the tests, the benchmark and the vectors: each seat is a ``PrivateSeat``; ``post`` hands
a seat's message to every other seat in turn (through ``relay``, which a test replaces to
play a relay that alters, withholds, replays or equivocates) and keeps the transcript and
what each seat took in. The steps mirror docs/PRIVATE_TABLES.md, "The protocol".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from itertools import pairwise

from scala40_net.private.group import ScalarSource, random_scalar
from scala40_net.private.messages import EVERYONE, Ed25519Signer, Signer
from scala40_net.private.protocol import DealSetup, PrivateSeat

#: ``relay(author, recipient, message)``: what the recipient is handed (an honest relay: it).
Relay = Callable[[int, int, bytes], list[bytes]]


def honest_relay(author: int, recipient: int, message: bytes) -> list[bytes]:
    return [message]


class LocalDeal:
    """Every seat of one private deal, and the relay between them."""

    def __init__(
        self,
        setup: DealSetup,
        signers: Mapping[int, Signer],
        draws: Mapping[int, ScalarSource] | None = None,
        relay: Relay = honest_relay,
    ) -> None:
        self.setup = setup
        self.signing_keys = {seat: signers[seat].public_key() for seat in setup.seats}
        self.seats = {
            seat: PrivateSeat(setup, seat, signers[seat], self.signing_keys,
                              (draws or {}).get(seat, random_scalar))
            for seat in setup.seats
        }
        self.relay = relay
        self.transcript: list[bytes] = []
        self.views: dict[int, list[bytes]] = {seat: [] for seat in setup.seats}
        #: The bytes each seat put on the wire, and those relayed to it.
        self.sent: dict[int, int] = {seat: 0 for seat in setup.seats}
        self.received: dict[int, int] = {seat: 0 for seat in setup.seats}
        #: The round being drawn from and the next stock position of it.
        self.stock_round = 0
        self.stock_next = setup.positions.stock[0] if setup.positions.stock else 0

    def post(self, author: int, message: bytes, last_to: int | None = None,
             take_last: Callable[[bytes], bytes] | None = None) -> bytes | None:
        """The author's message: into the transcript, then relayed to every other seat.

        ``last_to``'s last delivery goes to ``take_last`` instead of its ``receive`` (a
        shuffle taken in while the next one is made); what that returns is returned."""
        self.transcript.append(message)
        self.views[author].append(message)
        self.sent[author] += len(message)
        answer = None
        for seat in self.setup.seats:
            if seat == author:
                continue
            delivered_all = self.relay(author, seat, message)
            for k, delivered in enumerate(delivered_all):
                self.received[seat] += len(delivered)
                self.views[seat].append(delivered)
                if seat == last_to and take_last and k == len(delivered_all) - 1:
                    answer = take_last(delivered)
                else:
                    self.seats[seat].receive(delivered)
        return answer

    def exchange_keys(self) -> None:
        for seat in self.setup.seats:
            self.post(seat, self.seats[seat].key_message())

    def shuffle_all(self, rebuild: Sequence[int] = (), overlap: Executor | None = None) -> None:
        """Every seat shuffles in turn (the first from ``rebuild``'s discards, if given);
        with ``overlap``, each checks the shuffle before its own while it makes its own."""
        order = self.setup.shuffle_order
        message = self.seats[order[0]].shuffle_message(rebuild)
        for author, after in pairwise(order):
            if overlap is None:
                self.post(author, message)
                message = self.seats[after].shuffle_message()
            else:
                seat, pool = self.seats[after], overlap

                def take(m: bytes, seat: PrivateSeat = seat, pool: Executor = pool) -> bytes:
                    return seat.shuffle_after(m, pool)

                answer = self.post(author, message, last_to=after, take_last=take)
                if answer is None:
                    raise RuntimeError(f"the relay handed seat {after} nothing to shuffle")
                message = answer
        self.post(order[-1], message)
        if rebuild:
            self.stock_round += 1
            self.stock_next = 0

    def cut(self, cut: int) -> None:
        cutter = self.setup.cutter
        self.post(cutter, self.seats[cutter].cut_message(cut))

    def open_to(self, owner: int, round_: int, positions: Sequence[int]) -> list[int]:
        """Every other seat's shares of ``positions`` to ``owner``, who then reads them."""
        for seat in self.setup.seats:
            if seat != owner:
                self.post(seat, self.seats[seat].shares_message(round_, positions, owner))
        return [self.seats[owner].read_card(round_, p) for p in positions]

    def deal_hands(self) -> dict[int, list[int]]:
        """Each seat's 13 cards, opened to it alone."""
        return {
            seat: self.open_to(seat, 0, self.setup.positions.hands[seat])
            for seat in self.setup.shuffle_order
        }

    def open_publicly(self, owner: int, round_: int, positions: Sequence[int]) -> list[int]:
        """The owner's shares too: the cards become public (laid, discarded …)."""
        self.post(owner, self.seats[owner].shares_message(round_, positions, EVERYONE))
        return [self.seats[owner].ledger.open_card(round_, p) for p in positions]

    def first_discard(self) -> int:
        """The card after the hands, opened to everyone by every seat (R2.3)."""
        position = self.setup.positions.first_discard
        for seat in self.setup.seats:
            self.post(seat, self.seats[seat].shares_message(0, [position], EVERYONE))
        return self.seats[self.setup.seats[0]].ledger.open_card(0, position)

    def draw(self, drawer: int) -> int:
        """The stock's top card, opened to the drawer."""
        round_, position = self.stock_round, self.stock_next
        self.stock_next += 1
        return self.open_to(drawer, round_, [position])[0]

    def reveal_all(self) -> None:
        for seat in self.setup.seats:
            self.post(seat, self.seats[seat].reveal_message())


def long_deal(setup: DealSetup, draws: int, openings: int) -> LocalDeal:
    """A whole deal of ``setup``'s seats with fresh keys, for its bytes: the keys, the
    shuffles, a cut, the hands and the first discard; ``draws`` draws from the stock in turn;
    ``openings`` cards laid or discarded by their owners, each in a message of its own (the
    hands' cards first, then those drawn); every seat's reveal."""
    deal = LocalDeal(setup, {s: Ed25519Signer() for s in setup.seats})
    deal.exchange_keys()
    deal.shuffle_all()
    deal.cut(31)
    deal.deal_hands()
    deal.first_discard()
    order, stock = setup.shuffle_order, setup.positions.stock
    for turn in range(draws):
        deal.draw(order[turn % len(order)])
    hands = len(setup.positions.hands) * len(next(iter(setup.positions.hands.values())))
    for k in range(openings):
        owner = setup.seats[k % len(setup.seats)]
        hand = setup.positions.hands[owner]
        if k < hands:
            position = hand[(k // len(setup.seats)) % len(hand)]
        else:
            position = stock[(k - hands) % draws]
        deal.post(owner, deal.seats[owner].shares_message(0, [position], EVERYONE))
    deal.reveal_all()
    return deal
