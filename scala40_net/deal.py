"""One deal (smazzata) as a pure state machine: start_deal, then apply(state, seat, action).

Nothing here is mutated: ``apply`` returns a new state and the events the
action caused, or raises ``RuleViolation`` and the old state is untouched
(R12). No clock, no randomness: the deck and every rebuilt stock come from
outside (FAIR_DEAL.md), so a deal replays exactly from its actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from scala40_net.actions import (
    Action,
    Attach,
    Draw,
    DrawSource,
    NewMeld,
    Operation,
    Play,
    RebuildStock,
    ReturnDiscard,
    SwapJoker,
)
from scala40_net.cards import CARDS_PER_DECK, face, is_joker
from scala40_net.errors import RuleViolation, refuse
from scala40_net.events import (
    AppliedOperation,
    CardDrawn,
    CardsAttached,
    DealEnded,
    DealOutcome,
    DealStarted,
    DiscardReturned,
    Event,
    JokerSwapped,
    MeldLaid,
    Played,
    StockRebuilt,
)
from scala40_net.melds import (
    Meld,
    attach,
    attachable,
    can_attach,
    face_points,
    make_meld,
    split_run,
    swap_joker,
)
from scala40_net.rules import (
    HAND_SIZE,
    DiscardAttachable,
    DiscardPickup,
    FirstTurnClose,
    JokerSwap,
    LoneAce,
    Ruleset,
    UnopenedPenalty,
)
from scala40_net.stall import is_stalled

T = TypeVar("T")


class Phase(StrEnum):
    DRAW = "draw"
    PLAY = "play"
    REBUILD = "rebuild"
    OVER = "over"


@dataclass(frozen=True)
class DealState:
    """Everything about a deal. Per-seat tuples follow ``seats`` (ascending seat numbers).

    ``discard_pile`` is bottom first (its top is the last card); ``stock`` is
    top first. ``turn`` is the seat to move (during ``REBUILD``, the next one).
    ``totals`` are the match totals before this deal (a pair's shared total in
    pairs), for ``lone_ace=at_99`` (R9.4); empty outside a match.
    ``agreed_discard`` is the top discard when it was discarded under
    ``discard_attachable=agreed`` though it could be attached (R8.2).
    """

    ruleset: Ruleset
    seats: tuple[int, ...]
    dealer: int
    hands: tuple[tuple[int, ...], ...]
    opened: tuple[bool, ...]
    turns_played: tuple[int, ...]
    table: tuple[Meld, ...]
    owners: tuple[int, ...]
    stock: tuple[int, ...]
    discard_pile: tuple[int, ...]
    turn: int
    phase: Phase
    deal_no: int = 1
    drawn: DrawSource | None = None
    taken_discard: int | None = None
    discard_barred: bool = False
    rebuilds: int = 0
    idle_rebuilds: int = 0
    laid_since_rebuild: bool = False
    result: DealEnded | None = None
    totals: tuple[int, ...] = ()
    agreed_discard: int | None = None

    def index(self, seat: int) -> int:
        try:
            return self.seats.index(seat)
        except ValueError:
            raise RuleViolation(None, f"seat {seat} is not playing this deal") from None

    def hand(self, seat: int) -> tuple[int, ...]:
        return self.hands[self.index(seat)]

    def has_opened(self, seat: int) -> bool:
        return self.opened[self.index(seat)]

    @property
    def top_discard(self) -> int | None:
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def next_seat(self, seat: int) -> int:
        """The seat on ``seat``'s left: the next one clockwise among those in play (R1.3)."""
        return self.seats[(self.index(seat) + 1) % len(self.seats)]

    def partner(self, seat: int) -> int | None:
        """The partner sitting opposite in a pairs game (R11.4)."""
        if not self.ruleset.pairs:
            return None
        return self.seats[(self.index(seat) + 2) % len(self.seats)]

    def all_cards(self) -> list[int]:
        """Every card of the deal, wherever it lies (for invariant checks)."""
        out = [c for hand in self.hands for c in hand]
        out += [c for meld in self.table for c in meld.cards]
        return out + list(self.stock) + list(self.discard_pile)


def deal_order(seats: Sequence[int], dealer: int) -> tuple[int, ...]:
    """Seats in play clockwise from the dealer's left (R2.3): who gets card 0, 1, 2…"""
    ordered = sorted(seats)
    at = ordered.index(dealer)
    return tuple(ordered[at + 1 :] + ordered[: at + 1])


def start_deal(
    ruleset: Ruleset,
    seats: Sequence[int],
    dealer: int,
    deck: Sequence[int],
    deal_no: int = 1,
    totals: Sequence[int] = (),
) -> tuple[DealState, list[Event]]:
    """Deal ``deck`` (position 0 = top) as FAIR_DEAL.md "Deriving the deck" says (R2.3).

    Card ``k < 13n`` goes to seat ``deal_order(seats, dealer)[k % n]``; card
    ``13n`` is the first discard; the rest is the stock, top first. ``totals``
    (ascending seat order) are the match totals before the deal (R9.4 at_99).
    """
    seat_list = sorted(seats)
    if len(set(seat_list)) != len(seat_list):
        raise RuleViolation("R1.2", "a seat is listed twice")
    ruleset.check_players(len(seat_list))
    if dealer not in seat_list:
        raise RuleViolation("R2.1", f"the dealer, seat {dealer}, is not among the seats in play")
    if sorted(deck) != list(range(ruleset.deck_size)):
        raise RuleViolation(
            "R1.1", f"the deck must hold each of the {ruleset.deck_size} cards exactly once"
        )
    n = len(seat_list)
    if totals and len(totals) != n:
        raise RuleViolation("R9.4", f"one total per seat in play: {n}, not {len(totals)}")
    order = deal_order(seat_list, dealer)
    dealt: dict[int, list[int]] = {s: [] for s in seat_list}
    for k in range(HAND_SIZE * n):
        dealt[order[k % n]].append(deck[k])
    first_discard = deck[HAND_SIZE * n]
    stock = tuple(deck[HAND_SIZE * n + 1 :])
    hands = tuple(tuple(dealt[s]) for s in seat_list)
    state = DealState(
        ruleset=ruleset,
        seats=tuple(seat_list),
        dealer=dealer,
        hands=hands,
        opened=(False,) * n,
        turns_played=(0,) * n,
        table=(),
        owners=(),
        stock=stock,
        discard_pile=(first_discard,),
        turn=order[0],
        phase=Phase.DRAW,
        deal_no=deal_no,
        totals=tuple(totals),
    )
    event = DealStarted(
        deal_no, dealer, state.seats, first_discard, hands, (HAND_SIZE,) * n, len(stock)
    )
    return state, [event]


def legal_draw_sources(state: DealState, seat: int) -> tuple[DrawSource, ...]:
    """Where ``seat`` may draw from now (empty when it is not that seat's draw)."""
    if state.phase is not Phase.DRAW or state.turn != seat:
        return ()
    sources = [DrawSource.STOCK]
    if state.discard_pile and not state.discard_barred:
        sources.append(DrawSource.DISCARD)
    return tuple(sources)


def attach_targets(table: Sequence[Meld], card: int) -> list[int]:
    """Indices of the melds on the table ``card`` could be attached to, alone (R6)."""
    return [i for i, meld in enumerate(table) if can_attach(meld, card)]


# ``could_attach`` is asked of the same melds over and over (a bot weighs every card against
# the table, turn after turn): what each meld takes is kept with it while it lies there, by
# identity, each with the meld itself so that its id stays its own. Emptied when full.
_TAKES: dict[int, tuple[Meld, frozenset[int]]] = {}
_TAKES_MAX = 1 << 12


def could_attach(table: Sequence[Meld], card: int) -> bool:
    """Could ``card`` alone be attached to some meld of ``table`` (``can_attach``)?"""
    if not table:
        return False
    if not 0 <= card < 2 * CARDS_PER_DECK:
        face(card)  # the ValueError of a card id that is none
    kind = min(card % CARDS_PER_DECK, 52)  # the face index, or 52 for a joker
    takes = _TAKES
    for meld in table:
        entry = takes.get(id(meld))
        if entry is None or entry[0] is not meld:
            if len(takes) >= _TAKES_MAX:
                takes.clear()
            entry = takes[id(meld)] = (meld, attachable(meld))
        if kind in entry[1]:
            return True
    return False


_CLASSIC = Ruleset()


def hand_penalty(hand: Sequence[int], rules: Ruleset = _CLASSIC, total: int = 0) -> int:
    """R9.4: joker 25, ace 11, J/Q/K 10, others face value; one ace may count 1
    (``ace_counts_one``) for a player whose match total is ``total``."""
    points = sum(face_points(face(c)) for c in hand)
    return points - 10 if ace_counts_one(hand, rules, total) else points


def ace_counts_one(hand: Sequence[int], rules: Ruleset, total: int) -> bool:
    """R9.4: whether an ace of ``hand`` costs 1, not 11, as ``lone_ace`` reads it.

    ``always``: the ace that is the only card left; ``at_99`` the same, only for the
    player one point short of the total that keeps them in after paying it (99 when
    busting at 101, S12); ``single``: the one ace of a hand holding exactly one.
    """
    aces = sum(1 for c in hand if not is_joker(c) and face(c).rank == 1)
    mode = rules.lone_ace
    if mode is LoneAce.SINGLE:
        return aces == 1
    lone = aces == 1 and len(hand) == 1
    if mode is LoneAce.ALWAYS:
        return lone
    if mode is LoneAce.NEVER:
        return False
    return lone and total == rules.bust_at - 2


def deal_penalties(state: DealState, closer: int, chiusura_in_mano: bool) -> tuple[int, ...]:
    """R9.3-R9.6 (and R11.4 in pairs): each seat's points for a deal ``closer`` went out of."""
    rules = state.ruleset
    partner = state.partner(closer)
    doubled = chiusura_in_mano and rules.closing_in_hand_double
    totals = state.totals or (0,) * len(state.seats)
    out: list[int] = []
    for seat, hand, opened, total in zip(
        state.seats, state.hands, state.opened, totals, strict=True
    ):
        paid = hand_penalty(hand, rules, total)
        if seat == closer:
            out.append(rules.closer_bonus)
        elif seat == partner:
            out.append(0)
        elif not opened and rules.unopened_penalty is UnopenedPenalty.FLAT100:
            out.append(100)
        elif not opened and rules.unopened_penalty is UnopenedPenalty.DOUBLE:
            # The doubling of R9.5 replaces that of R9.3, as the flat 100 does.
            out.append(2 * paid)
        else:
            # An opened player, or an unopened one under unopened_penalty=hand (R9.5).
            out.append(paid * (2 if doubled else 1))
    return tuple(out)


def set_at(values: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """``values`` with item ``i`` replaced by ``value``: a seat's entry in a per-seat tuple."""
    return (*values[:i], value, *values[i + 1 :])


def _with_hand(state: DealState, i: int, hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    return set_at(state.hands, i, hand)


def _changed(state: DealState, **changes: object) -> DealState:
    """``state`` with ``changes``: ``dataclasses.replace`` without its per-call field walk.

    Every draw and play makes one (the bots' look-ahead makes tens of thousands a
    second), and ``DealState`` runs no code at construction, so copying its fields
    is the whole of what ``replace`` would do.
    """
    new = object.__new__(DealState)
    fields = new.__dict__
    fields.update(state.__dict__)
    fields.update(changes)
    return new


def apply(state: DealState, seat: int | None, action: Action) -> tuple[DealState, list[Event]]:
    """Apply ``action`` by ``seat`` (None = the table, for ``RebuildStock``).

    Returns the new state and the events caused; raises ``RuleViolation`` for a
    refused action, which leaves ``state`` exactly as it was (R12).
    """
    if state.phase is Phase.OVER:
        raise RuleViolation(None, "the deal is over")
    if isinstance(action, RebuildStock):
        return _rebuild(state, seat, action)
    if seat is None:
        raise RuleViolation("R3", "only a seat in play draws and plays")
    _may_act(state, seat)
    if isinstance(action, Draw):
        return _draw(state, seat, action)
    if isinstance(action, ReturnDiscard):
        return _return_discard(state, seat)
    return _play(state, seat, action)


def _draw(state: DealState, seat: int, action: Draw) -> tuple[DealState, list[Event]]:
    if state.phase is not Phase.DRAW:
        raise refuse("R3", "DRAWN_ALREADY", "you have already drawn this turn: play and discard")
    i = state.index(seat)
    hand = state.hands[i]
    if action.source is DrawSource.STOCK:
        card, stock = state.stock[0], state.stock[1:]
        new = _changed(
            state,
            hands=_with_hand(state, i, (*hand, card)),
            stock=stock,
            phase=Phase.PLAY,
            drawn=DrawSource.STOCK,
            taken_discard=None,
        )
        return new, [CardDrawn(seat, DrawSource.STOCK, card)]
    if state.discard_barred:
        raise refuse("R3.2", "PUT_BACK", "you put the discard back this turn: draw from the stock")
    if not state.discard_pile:
        raise refuse("R3", "DISCARD_PILE_EMPTY", "the discard pile is empty: draw from the stock")
    card = state.discard_pile[-1]
    new = _changed(
        state,
        hands=_with_hand(state, i, (*hand, card)),
        discard_pile=state.discard_pile[:-1],
        phase=Phase.PLAY,
        drawn=DrawSource.DISCARD,
        taken_discard=card,
    )
    return new, [CardDrawn(seat, DrawSource.DISCARD, card)]


def _return_discard(state: DealState, seat: int) -> tuple[DealState, list[Event]]:
    if state.phase is not Phase.PLAY or state.taken_discard is None:
        raise refuse(
            "R3.2", "NOTHING_TO_PUT_BACK",
            "only a card just taken from the discard pile can be put back",
        )  # fmt: skip
    i = state.index(seat)
    card = state.taken_discard
    hand = list(state.hands[i])
    hand.remove(card)
    new = _changed(
        state,
        hands=_with_hand(state, i, tuple(hand)),
        discard_pile=(*state.discard_pile, card),
        phase=Phase.DRAW,
        drawn=None,
        taken_discard=None,
        discard_barred=True,
    )
    return new, [DiscardReturned(seat, card)]


def _rebuild(
    state: DealState, seat: int | None, action: RebuildStock
) -> tuple[DealState, list[Event]]:
    if state.phase is not Phase.REBUILD:
        raise RuleViolation("R10.1", "the stock is rebuilt only when it has run out")
    if seat is not None:
        raise RuleViolation("R10.1", "the table rebuilds the stock, not a seat")
    below_top = state.discard_pile[:-1]
    if sorted(action.order) != sorted(below_top):
        raise RuleViolation(
            "R10.1",
            f"the new stock must be exactly the {len(below_top)} cards of the discard pile "
            "less its top card, each once",
        )
    r = state.rebuilds + 1
    new = _changed(
        state,
        stock=tuple(action.order),
        discard_pile=state.discard_pile[-1:],
        phase=Phase.DRAW,
        rebuilds=r,
        laid_since_rebuild=False,
    )
    return new, [StockRebuilt(r, len(action.order))]


@dataclass
class _Scratch:
    """The play being checked: working copies that are thrown away if anything is refused."""

    hand: list[int]
    table: list[Meld]
    owners: list[int]
    opened: bool
    opening_total: int = 0
    taken_laid: bool = False
    laid_any: bool = False


def _take_from_hand(
    scratch: _Scratch, cards: Sequence[int], original: Sequence[int], taken: int | None
) -> None:
    """Move a play's ``cards`` from the hand to the table. Whichever operation moves the
    card taken from the pile (a new meld, an attach, a joker's place) uses it (R3.2)."""
    if len(set(cards)) != len(cards):
        raise refuse(
            "R4", "CARD_TWICE", "the same card is listed twice in {cards}", cards=tuple(cards)
        )
    for c in cards:
        if c not in scratch.hand and c in original:
            raise refuse("R3", "CARD_USED", "{card} is already used in this play", card=face(c))
        if c not in scratch.hand:
            raise _not_in_hand(c)
    for c in cards:
        scratch.hand.remove(c)
    if taken is not None and taken in cards:
        scratch.taken_laid = True


def _not_in_hand(card: int, discard: bool = False) -> RuleViolation:
    """A card of a play (R8.1: its discard) that the hand does not hold. An id that is no
    card at all, which the host refuses before, is named by its number."""
    # Each sentence written out whole: the catalogues are extracted from these literals.
    if not 0 <= card < 2 * CARDS_PER_DECK:
        if discard:
            return refuse(
                "R8.1", "DISCARD_NOT_IN_HAND", "the discard card id {id} is not in your hand",
                id=card,
            )  # fmt: skip
        return refuse("R3", "NOT_IN_HAND", "card id {id} is not in your hand", id=card)
    if discard:
        return refuse(
            "R8.1", "DISCARD_NOT_IN_HAND", "the discard {card} is not in your hand",
            card=face(card),
        )  # fmt: skip
    return refuse("R3", "NOT_IN_HAND", "{card} is not in your hand", card=face(card))


def _meld_index(scratch: _Scratch, index: int, rule: str) -> Meld:
    """The table meld an attach (R6.1) or a swap (R7.1) names."""
    if not 0 <= index < len(scratch.table):
        raise refuse(
            rule, "NO_SUCH_MELD", "there is no meld {index} on the table ({n} melds)",
            index=index, n=len(scratch.table),
        )  # fmt: skip
    return scratch.table[index]


def _place(
    scratch: _Scratch, index: int | None, pieces: Sequence[Meld], owner: int
) -> tuple[tuple[int, Meld], ...]:
    """Put melds on the table: the first at ``index`` (None = a new place), the rest at the end.

    Runs cut off by R4.6 go to the end so that every other meld keeps its index. A run
    cut from a meld on the table is still that meld's: it keeps the seat that laid it,
    whoever cut it (R7.4, S21), as its joker is still the one that seat laid.
    """
    if index is not None:
        owner = scratch.owners[index]
    placed: list[tuple[int, Meld]] = []
    for k, meld in enumerate(pieces):
        if k == 0 and index is not None:
            scratch.table[index] = meld
            placed.append((index, meld))
        else:
            scratch.table.append(meld)
            scratch.owners.append(owner)
            placed.append((len(scratch.table) - 1, meld))
    return tuple(placed)


def accepted_discards(
    state: DealState, operations: Sequence[Operation], cards: Sequence[int]
) -> list[int]:
    """The cards of ``cards`` that ``apply`` accepts as the discard after ``operations``.

    The same answer as trying ``Play(operations, card)`` for each card, but the
    operations are checked once: only the discard differs between those plays.
    """
    if state.phase is Phase.OVER:
        return []
    try:
        _may_act(state, state.turn)
        scratch, _ = _lay(state, state.turn, operations)
    except RuleViolation:
        return []
    i = state.index(state.turn)
    out: list[int] = []
    for card in dict.fromkeys(cards):
        try:
            _check_discard(state, scratch, card, state.taken_discard)
            if len(scratch.hand) == 1 and state.turns_played[i] == 0:
                _check_first_turn_close(state)
        except RuleViolation:
            continue
        out.append(card)
    return out


def _may_act(state: DealState, seat: int) -> None:
    """What ``apply`` refuses of a seat before it looks at the seat's action."""
    if state.phase is Phase.REBUILD:
        raise refuse("R10.1", "REBUILDING", "the stock is being rebuilt: wait for the new stock")
    state.index(seat)
    if seat != state.turn:
        raise refuse(
            "R3", "NOT_YOUR_TURN", "it is seat {turn}'s turn, not seat {seat}'s",
            turn=state.turn, seat=seat,
        )  # fmt: skip


def _lay(
    state: DealState, seat: int, operations: Sequence[Operation]
) -> tuple[_Scratch, list[AppliedOperation]]:
    """Check a play's operations (R3-R7) on working copies; what is left is its discard."""
    if state.phase is not Phase.PLAY:
        raise refuse("R3", "DRAW_FIRST", "draw first: a turn starts with a draw")
    rules = state.ruleset
    i = state.index(seat)
    original = state.hands[i]
    opened_before = state.opened[i]
    taken = state.taken_discard
    # R3.2: classic binds everyone who takes the discard; open_with_it only the unopened.
    classic_pickup = taken is not None and (
        rules.discard_pickup is DiscardPickup.CLASSIC
        or (rules.discard_pickup is DiscardPickup.OPEN_WITH_IT and not opened_before)
    )
    must_open_with_taken = classic_pickup and not opened_before
    agreed = taken is not None and taken == state.agreed_discard
    scratch = _Scratch(list(original), list(state.table), list(state.owners), opened_before)
    swapped: list[int] = []
    applied: list[AppliedOperation] = []
    needed = rules.opening_points

    for k, op in enumerate(operations, start=1):
        try:
            if isinstance(op, NewMeld):
                _take_from_hand(scratch, op.cards, original, taken)
                meld = make_meld(op.cards, op.joker_as)
                pieces = split_run(meld, rules.max_run, op.split)
                placed = _place(scratch, None, pieces, seat)
                applied.append(MeldLaid(tuple(op.cards), op.joker_as, placed))
                if not scratch.opened:
                    scratch.opening_total += meld.points
                    if scratch.opening_total >= needed and (
                        not must_open_with_taken or scratch.taken_laid
                    ):
                        scratch.opened = True
            elif isinstance(op, Attach):
                if not scratch.opened:
                    raise _not_open_yet("attach", "R6.1", scratch, must_open_with_taken, needed)
                target = _meld_index(scratch, op.meld, "R6.1")
                if agreed and taken in op.cards:
                    raise _agreed_refusal(taken, swap=False)
                _take_from_hand(scratch, op.cards, original, taken)
                grown = attach(target, op.cards, op.joker_as)
                pieces = split_run(grown, rules.max_run, op.split)
                placed = _place(scratch, op.meld, pieces, seat)
                applied.append(CardsAttached(op.meld, tuple(op.cards), op.joker_as, placed))
            elif isinstance(op, SwapJoker):
                if not scratch.opened:
                    raise _not_open_yet(
                        "swap a joker", "R7.1", scratch, must_open_with_taken, needed
                    )
                target = _meld_index(scratch, op.meld, "R7.1")
                _check_swap_owner(state, seat, scratch.owners[op.meld])
                if agreed and op.card == taken:
                    raise _agreed_refusal(taken, swap=True)
                _take_from_hand(scratch, (op.card,), original, taken)
                was = target.joker_as
                swapped_meld, joker = swap_joker(target, op.card)
                assert was is not None
                scratch.table[op.meld] = swapped_meld
                scratch.hand.append(joker)
                swapped.append(joker)
                applied.append(
                    JokerSwapped(op.meld, op.card, joker, was, ((op.meld, swapped_meld),))
                )
            else:
                raise RuleViolation(None, f"{type(op).__name__} is not an operation of a play")
            scratch.laid_any = True
        except RuleViolation as refusal:
            raise refusal.at_operation(k) from None

    if not opened_before and scratch.laid_any and not scratch.opened:
        if scratch.opening_total < needed:
            raise refuse(
                "R5.1", "OPENING_SHORT", "opening melds total {total} points, {needed} needed",
                total=scratch.opening_total, needed=needed,
            )  # fmt: skip
        raise refuse(
            "R3.2", "TAKEN_NOT_IN_OPENING",
            "the card taken from the discard pile must be inside the opening melds",
        )  # fmt: skip
    if classic_pickup and not scratch.taken_laid:
        assert taken is not None
        if not opened_before:
            raise refuse(
                "R3.2", "TAKEN_NOT_IN_OPENING",
                "a player who has not opened may take the discard ({card}) only to "
                "open with it in this turn (or put it back)",
                card=face(taken),
            )  # fmt: skip
        raise refuse(
            "R3.2", "TAKEN_NOT_USED",
            "the card taken from the discard pile ({card}) must be used in this "
            "turn: in a new meld, attached, or put in a joker's place (or put back)",
            card=face(taken),
        )  # fmt: skip
    kept = [j for j in swapped if j in scratch.hand]
    if kept:
        raise refuse(
            "R7.2", "JOKER_NOT_USED",
            "a joker taken from the table must be used in this turn, before the discard",
        )  # fmt: skip

    return scratch, applied


def _play(state: DealState, seat: int, play: Play) -> tuple[DealState, list[Event]]:
    scratch, applied = _lay(state, seat, play.operations)
    rules = state.ruleset
    i = state.index(seat)
    opened_before = state.opened[i]
    taken = state.taken_discard
    _check_discard(state, scratch, play.discard, taken)
    if play.discard is not None:
        scratch.hand.remove(play.discard)
    went_out = not scratch.hand
    if went_out and state.turns_played[i] == 0:
        _check_first_turn_close(state)
    opened_now = scratch.opened and not opened_before
    played = Played(seat, tuple(applied), play.discard, opened_now, went_out)

    pile = state.discard_pile + ((play.discard,) if play.discard is not None else ())
    new = _changed(
        state,
        hands=_with_hand(state, i, tuple(scratch.hand)),
        opened=set_at(state.opened, i, scratch.opened),
        turns_played=set_at(state.turns_played, i, state.turns_played[i] + 1),
        table=tuple(scratch.table),
        owners=tuple(scratch.owners),
        discard_pile=pile,
        drawn=None,
        taken_discard=None,
        discard_barred=False,
        laid_since_rebuild=state.laid_since_rebuild or scratch.laid_any,
        agreed_discard=agreed_mark(rules, scratch.table, play.discard),
    )
    events: list[Event] = [played]
    if went_out:
        in_mano = not opened_before
        ended = DealEnded(
            DealOutcome.CLOSED,
            seat,
            new.seats,
            new.hands,
            deal_penalties(new, seat, in_mano),
            in_mano,
        )
        events.append(ended)
        return _changed(new, phase=Phase.OVER, result=ended), events
    new = _changed(new, turn=new.next_seat(seat), phase=Phase.DRAW)
    # R10.2 "as soon as": only a play that changes the table can leave nothing to lay.
    if scratch.laid_any and _stalled(new):
        return _void(new, events, STALLED), events
    if not new.stock:
        return _stock_ran_out(new, events)
    return new, events


STALLED = (
    "R10.2: no card off the table can be attached to a meld on the table "
    "or make a new meld with others"
)


def _stalled(state: DealState) -> bool:
    """R10.2: no card off the table (hands, stock, pile) can still be laid or attached."""
    off_table = [c for hand in state.hands for c in hand]
    off_table += state.stock
    off_table += state.discard_pile
    return is_stalled(state.table, off_table, state.ruleset.max_run)


def _void(state: DealState, events: list[Event], reason: str, **changes: object) -> DealState:
    """The deal ends void (R10.2, S13): no score."""
    n = len(state.seats)
    ended = DealEnded(DealOutcome.VOID, None, state.seats, state.hands, (0,) * n, False, reason)
    events.append(ended)
    return _changed(state, phase=Phase.OVER, result=ended, **changes)


def _agreed_refusal(card: int, swap: bool) -> RuleViolation:
    # Two sentences, not one with a word put in: each is translated whole.
    if swap:
        return refuse(
            "R8.2", "AGREED_DISCARD_ATTACHED",
            "{card} was discarded though it could be attached (di comune accordo): "
            "who takes it may not put it in a joker's place on the table in this turn",
            card=face(card),
        )  # fmt: skip
    return refuse(
        "R8.2", "AGREED_DISCARD_ATTACHED",
        "{card} was discarded though it could be attached (di comune accordo): "
        "who takes it may not attach it to a meld on the table in this turn",
        card=face(card),
    )  # fmt: skip


def agreed_mark(rules: Ruleset, table: Sequence[Meld], discard: int | None) -> int | None:
    """R8.2 agreed: the discard the next player may take only if not attaching it, once
    the play has left ``table``; None for any other discard."""
    if rules.discard_attachable is not DiscardAttachable.AGREED or discard is None:
        return None
    return discard if could_attach(table, discard) else None


def _check_swap_owner(state: DealState, seat: int, owner: int) -> None:
    """R7.4 owner: only the player who laid the meld (or that player's partner, R11.4)."""
    if state.ruleset.joker_swap is not JokerSwap.OWNER:
        return
    if owner in (seat, state.partner(seat)):
        return
    raise refuse(
        "R7.4",
        "SWAP_NOT_OWNER",
        "only the player who laid a meld may take its joker: seat {owner} laid this one",
        owner=owner,
    )


def may_close_in_first_turn(state: DealState) -> bool:
    """R9.2: whether the seat to move, in its own first turn, may go out in it."""
    mode = state.ruleset.first_turn_close
    if mode is FirstTurnClose.NOT_AFTER_PICKUP:
        return state.drawn is not DrawSource.DISCARD
    return mode is FirstTurnClose.ALLOWED


def _check_first_turn_close(state: DealState) -> None:
    """R9.2 for a player going out in their own first turn."""
    mode = state.ruleset.first_turn_close
    if mode is FirstTurnClose.NEVER:
        raise refuse("R9.2", "FIRST_TURN_OUT", "nobody may go out in their own first turn")
    if mode is FirstTurnClose.NOT_AFTER_PICKUP and state.drawn is DrawSource.DISCARD:
        raise refuse(
            "R9.2",
            "FIRST_TURN_OUT_AFTER_PICKUP",
            "nobody may go out in their own first turn after taking the discard",
        )


def _not_open_yet(
    what: str, rule: str, scratch: _Scratch, must_open_with_taken: bool, needed: int
) -> RuleViolation:
    if must_open_with_taken and scratch.opening_total >= needed:
        # R7.3: the opening with the discard is complete only once that card is laid.
        return refuse(
            "R7.3" if what.startswith("swap") else "R3.2", "TAKEN_FIRST",
            "the opening is complete only with the card taken from the discard pile laid in it: "
            "you may {what} only after that",
            what=what,
        )  # fmt: skip
    return refuse(
        rule, "NOT_OPENED",
        "only a player who has opened may {what} (opening melds so far total "
        "{total} points, {needed} needed)",
        what=what, total=scratch.opening_total, needed=needed,
    )  # fmt: skip


def _check_discard(
    state: DealState, scratch: _Scratch, discard: int | None, taken: int | None
) -> None:
    rules = state.ruleset
    hand = scratch.hand
    if discard is None:
        if hand:
            raise refuse("R8.1", "NO_DISCARD", "every turn ends with exactly one discard")
        if not rules.close_without_discard:
            raise refuse(
                "R9.1", "KEEP_A_DISCARD",
                "ending a turn with no card left to discard is not allowed: keep one to discard",
            )  # fmt: skip
        return
    if discard not in hand:
        if discard in state.hand(state.turn):
            raise refuse(
                "R8.1", "DISCARD_USED", "the discard {card} is used in this play",
                card=face(discard),
            )  # fmt: skip
        raise _not_in_hand(discard, discard=True)
    if discard == taken:
        raise refuse(
            "R3.3", "DISCARD_TAKEN",
            "{card} was taken from the discard pile this turn: discard another card",
            card=face(discard),
        )  # fmt: skip
    closing = len(hand) == 1
    if closing and is_joker(discard):
        raise refuse("R8.3", "JOKER_CLOSING", "a joker may never be the closing discard")
    mode = rules.discard_attachable
    if mode in (DiscardAttachable.FREE, DiscardAttachable.AGREED):
        return
    # classic (000_…): the closing discard and an opened player's are allowed; never (004_…)
    # has no exception, the closing discard included.
    if mode is DiscardAttachable.CLASSIC and (scratch.opened or closing):
        return

    def barred(card: int) -> bool:
        return could_attach(scratch.table, card)

    if barred(discard):
        # When every card that could be discarded would attach, the table lets any go:
        # otherwise the turn could not end at all (S9). Not the closing discard: a player
        # about to go out can always end the turn keeping a card back instead.
        others = [c for c in hand if c != taken]
        if closing or any(not barred(c) for c in others):
            # Two sentences, not one with a word put in: each is translated whole.
            if mode is DiscardAttachable.NEVER:
                raise refuse(
                    "R8.2", "DISCARD_ATTACHES",
                    "{card} could be attached to a meld on the table: nobody may discard it, "
                    "not even to go out",
                    card=face(discard),
                )  # fmt: skip
            raise refuse(
                "R8.2", "DISCARD_ATTACHES",
                "{card} could be attached to a meld on the table: a player who has not opened "
                "may not discard it",
                card=face(discard),
            )  # fmt: skip


def _stock_ran_out(state: DealState, events: list[Event]) -> tuple[DealState, list[Event]]:
    """R10.1 / R10.2 at the end of the turn that emptied the stock."""
    below_top = state.discard_pile[:-1]
    idle = 0 if state.laid_since_rebuild else state.idle_rebuilds + 1
    stall = state.ruleset.stall_rebuilds
    reason: str | None = None
    if not below_top:
        reason = "R10.1: the stock ran out and the discard pile has no card to rebuild it"
    elif _stalled(state):
        # Every play that lays is checked when it is made; a deal given in mid-play
        # (a position, a replay of an older record) is checked here too.
        reason = STALLED
    elif stall is not None and idle >= stall:
        # This project's own guarantee that a deal ends: no source counts rebuilds.
        reason = f"R10.2: the stock ran out {idle} times with no card laid down or attached"
    if reason is not None:
        return _void(state, events, reason, idle_rebuilds=idle), events
    return _changed(state, phase=Phase.REBUILD, idle_rebuilds=idle), events
