"""What happened: the events an accepted action causes, in the order they happened."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from scala40_net.actions import DrawSource
from scala40_net.cards import Face
from scala40_net.melds import Meld

# A table position and the meld now lying there, as an operation left it.
Placed = tuple[tuple[int, Meld], ...]


@dataclass(frozen=True)
class DealStarted:
    """R2.3: the cards are dealt. ``hands`` follow ``seats``; None = hidden from the viewer."""

    deal_no: int
    dealer: int
    seats: tuple[int, ...]
    first_discard: int
    hands: tuple[tuple[int, ...] | None, ...]
    hand_counts: tuple[int, ...]
    stock_count: int


@dataclass(frozen=True)
class CardDrawn:
    """R3 step 1. ``card`` is None for other viewers when it came from the stock."""

    seat: int
    source: DrawSource
    card: int | None


@dataclass(frozen=True)
class DiscardReturned:
    """The card taken from the discard pile went back on it; the seat now draws from the stock."""

    seat: int
    card: int


@dataclass(frozen=True)
class MeldLaid:
    """A new meld, possibly cut into runs (R4.6): ``placed`` are the table positions it took."""

    cards: tuple[int, ...]
    joker_as: Face | None
    placed: Placed


@dataclass(frozen=True)
class CardsAttached:
    """Cards added to meld ``meld`` (R6); ``placed`` is that meld after, plus any run cut off."""

    meld: int
    cards: tuple[int, ...]
    joker_as: Face | None
    placed: Placed


@dataclass(frozen=True)
class JokerSwapped:
    """``card`` took the joker's place in meld ``meld`` (R7.1); ``joker_was`` its declaration."""

    meld: int
    card: int
    joker: int
    joker_was: Face
    placed: Placed


AppliedOperation = MeldLaid | CardsAttached | JokerSwapped


@dataclass(frozen=True)
class Played:
    """R3 step 2 as applied: operations in order, then the discard (None only by R9.1's option)."""

    seat: int
    operations: tuple[AppliedOperation, ...]
    discard: int | None
    opened: bool
    went_out: bool


@dataclass(frozen=True)
class StockRebuilt:
    """R10.1: the ``r``-th rebuild of this deal made a stock of ``count`` cards."""

    r: int
    count: int


class DealOutcome(StrEnum):
    CLOSED = "closed"
    VOID = "void"


@dataclass(frozen=True)
class DealEnded:
    """End of a deal. Every hand is shown; ``penalties`` follow ``seats`` (R9.4-R9.6).

    A void deal (R10.2) scores nothing and ``void_reason`` says why.
    """

    outcome: DealOutcome
    closer: int | None
    seats: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    penalties: tuple[int, ...]
    chiusura_in_mano: bool
    void_reason: str | None = None


# Match level (R11).


@dataclass(frozen=True)
class DealScored:
    """R11: the match totals after a deal; ``totals`` and ``deals_won`` follow ``seats``."""

    deal_no: int
    seats: tuple[int, ...]
    totals: tuple[int, ...]
    deals_won: tuple[int, ...]


@dataclass(frozen=True)
class Busted:
    """R11.1: ``seat`` reached ``bust_at``."""

    seat: int
    total: int


@dataclass(frozen=True)
class RientroOffered:
    """R11.3: these busted seats may buy back in, for these fees; each must answer."""

    seats: tuple[int, ...]
    fees: tuple[int, ...]


@dataclass(frozen=True)
class RientroTaken:
    """R11.3: ``seat`` bought back in (its ``count``-th time) for ``fee`` chips, now ``total``."""

    seat: int
    count: int
    fee: int
    total: int


@dataclass(frozen=True)
class Retired:
    """R11.3: a busted ``seat`` declined to buy back in and is out of the match."""

    seat: int


@dataclass(frozen=True)
class ChipsPaid:
    """R11.3 ledger: ``payer`` gave ``amount`` chips to ``payee``; None is the buy-back pot."""

    payer: int | None
    payee: int | None
    amount: int
    reason: str


@dataclass(frozen=True)
class MatchEnded:
    """R11: the match is over. ``winners`` is one seat, or a pair (R11.4)."""

    winners: tuple[int, ...]
    seats: tuple[int, ...]
    totals: tuple[int, ...]
    deals_won: tuple[int, ...]
    chips: tuple[int, ...]


Event = (
    DealStarted
    | CardDrawn
    | DiscardReturned
    | Played
    | StockRebuilt
    | DealEnded
    | DealScored
    | Busted
    | RientroOffered
    | RientroTaken
    | Retired
    | ChipsPaid
    | MatchEnded
)
