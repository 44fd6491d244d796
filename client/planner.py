"""The turn planner: melds, attaches and swaps built up locally, checked by the rules engine.

A plan is a list of the engine's own operations. Each step is arranged and
checked with the engine's meld functions when it is added; the whole plan is
then checked with ``deal.apply`` against the deal as this seat knows it, which
yields the live preview (opening total, joker declarations, what is still
illegal and why). The host has the last word: a plan is sent as one Play
whatever the preview says, and a refusal leaves the plan as it was.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass

from client.cardtext import face_label
from client.commands import CardSpec, CommandError
from client.model import Phase, TableModel
from scala40_net import deal, melds, movegen, search, views, wire
from scala40_net.actions import Attach, DrawSource, NewMeld, Operation, Play, SwapJoker
from scala40_net.bots.medium import MediumBot, discard_order, table_after
from scala40_net.cards import Face, Suit, face, is_joker
from scala40_net.errors import RuleViolation
from scala40_net.melds import ACE_HIGH, ACE_LOW, Meld
from scala40_net.rules import Ruleset


def local_state(model: TableModel) -> deal.DealState | None:
    """The engine's state of the deal as this seat knows it (``views.playable_state`` of the
    seat's view, as the bots play on it), ready for this seat to play.

    A plan made before this seat's turn, or before its draw, is checked as if it had
    just drawn from the stock: the hand, the table and the discard pile are as known.
    """
    view = model.deal
    me = model.my_seat
    if view is None or me is None or view.viewer != me or view.hand is None:
        return None
    if view.phase is deal.Phase.OVER:
        return None
    state = views.playable_state(view)
    if view.phase is deal.Phase.PLAY and view.turn == me:
        return state
    return dataclasses.replace(
        state,
        turn=me,
        phase=deal.Phase.PLAY,
        drawn=DrawSource.STOCK,
        taken_discard=None,
    )


@dataclass(frozen=True)
class StepView:
    """One planned step as the preview shows it."""

    op: Operation
    result: Meld | None  # the meld it makes or grows
    meld_no: int  # the meld's number on the table (a new meld's future number)
    joker_as: Face | None
    joker_other: tuple[Face, ...]  # other declarations the player could choose
    joker_was: Face | None = None  # a swap: the card the joker taken back stood for


@dataclass(frozen=True)
class Preview:
    steps: tuple[StepView, ...]
    opening_total: int | None  # None once this seat has opened
    opening_needed: int
    problem: RuleViolation | None
    ready: bool  # the plan is legal: only the discard is missing
    checked: bool  # False when the engine could not be asked (no deal known)
    hand_left: tuple[int, ...]


def _scale(card: int, ace_high: bool) -> int:
    r = face(card).rank
    return ACE_HIGH if ace_high and r == ACE_LOW else r


def _declared_scales(declared: Face) -> tuple[int, ...]:
    return (ACE_LOW, ACE_HIGH) if declared.rank == ACE_LOW else (declared.rank,)


def _meld_orders(cards: Sequence[int], declared: Face | None) -> list[tuple[int, ...]]:
    """Orders to try for a new meld: as typed first (binding, R4.4), then low to high."""
    reals = [c for c in cards if not is_joker(c)]
    jokers = [c for c in cards if is_joker(c)]
    orders: list[tuple[int, ...]] = [tuple(cards)]
    for ace_high in (False, True):
        ordered = sorted(reals, key=lambda c: _scale(c, ace_high))
        if not jokers:
            orders.append(tuple(ordered))
            continue
        if declared is not None:
            places = [
                sum(1 for c in ordered if _scale(c, ace_high) < s)
                for s in _declared_scales(declared)
            ]
        else:
            places = list(range(len(ordered) + 1))
        for at in places:
            orders.append((*ordered[:at], jokers[0], *ordered[at:], *jokers[1:]))
    unique: list[tuple[int, ...]] = []
    for order in orders:
        if order not in unique:
            unique.append(order)
    return unique


def arrange_meld(cards: Sequence[int], declared: Face | None) -> tuple[Meld, tuple[Face, ...]]:
    """The meld the engine makes of ``cards``, and the other joker declarations it would allow.

    Raises the engine's ``RuleViolation`` for the cards as typed when no order makes a meld.
    """
    for order in _meld_orders(cards, declared):
        options = (declared,) if declared is not None else melds.declarations(order) or (None,)
        try:
            meld = melds.make_meld(order, options[0])
        except RuleViolation:
            continue
        return meld, tuple(f for f in options[1:] if f is not None)
    return melds.make_meld(cards, declared), ()  # no order makes one: the engine says why


def _attach_faces(meld: Meld) -> list[Face]:
    if meld.is_sequence:
        return [Face(r, meld.suit) for r in range(1, 14)]
    taken = {f.suit for f in meld.stands_for}
    return [Face(meld.low, s) for s in Suit if s not in taken]


def arrange_attach(
    meld: Meld, cards: Sequence[int], declared: Face | None
) -> tuple[Meld, Face | None, tuple[Face, ...]]:
    """``meld`` grown by ``cards`` (the engine's attach), the joker's declaration, alternatives."""
    if not any(is_joker(c) for c in cards):
        return melds.attach(meld, cards, None), None, ()
    options = [declared] if declared is not None else _attach_faces(meld)
    fits: list[tuple[Meld, Face]] = []
    for f in options:
        try:
            fits.append((melds.attach(meld, cards, f), f))
        except RuleViolation:
            continue
    if not fits:
        # No declaration fits (a full group offers none at all): the engine's own refusal of
        # the cards as typed says why (R4.2, R6.1 …).
        return melds.attach(meld, cards, declared), declared, ()
    return fits[0][0], fits[0][1], tuple(f for _, f in fits[1:])


def _runs(meld: Meld, max_run: int | None, split: Sequence[int]) -> tuple[int, ...]:
    """The runs a sequence is laid in (R4.6): the player's cut, checked by the engine, else
    the move generator's even cut."""
    if not split:
        return movegen.run_lengths(len(meld.cards), max_run) or ()
    melds.split_run(meld, max_run, split)  # the engine's refusal (R4.6) before planning it
    return tuple(split)


class TurnPlanner:
    """The play this seat is building: engine operations in order, table positions from 0."""

    def __init__(self) -> None:
        self.steps: list[Operation] = []
        self._joker_other: list[tuple[Face, ...]] = []
        self.deal_no = 0
        # Counts every change of the plan: a preview is cached under it (the identity of the
        # last step is no key: after ``adopt`` a plan of the same length can end in it).
        self.revision = 0

    def __bool__(self) -> bool:
        return bool(self.steps)

    def clear(self) -> None:
        self.steps.clear()
        self._joker_other.clear()
        self.revision += 1

    def undo(self) -> Operation | None:
        if not self.steps:
            return None
        self._joker_other.pop()
        self.revision += 1
        return self.steps.pop()

    def adopt(self, operations: Sequence[Operation]) -> None:
        """Take a whole proposed play (a hint) as the plan."""
        self.clear()
        self.steps.extend(operations)
        self._joker_other.extend(() for _ in operations)
        self.revision += 1

    def follow(self, model: TableModel) -> None:
        """Drop the plan when a new deal begins (its meld numbers and cards mean nothing there),
        or when the hand no longer holds its cards: the play just sent is on the table before
        its answer arrives, and a plan of cards gone cannot be shown."""
        if model.deal_no != self.deal_no:
            self.deal_no = model.deal_no
            self.clear()
        elif self.steps and not self._fits(model):
            self.clear()

    def _fits(self, model: TableModel) -> bool:
        try:
            self._simulate(model)
        except (ValueError, IndexError, AssertionError, RuleViolation):
            return False
        return True

    # --- the plan's own view of the hand and the table -------------------------------

    def _simulate(self, model: TableModel) -> tuple[list[int], list[Meld | None], list[StepView]]:
        hand = list(model.hand)
        table: list[Meld | None] = [m.meld for m in model.sorted_melds()]
        views: list[StepView] = []
        max_run = model.max_run
        for op, other in zip(self.steps, self._joker_other, strict=True):
            if isinstance(op, NewMeld):
                for c in op.cards:
                    hand.remove(c)
                meld = melds.make_meld(op.cards, op.joker_as)
                pieces = melds.split_run(meld, max_run, op.split)
                views.append(StepView(op, meld, len(table) + 1, meld.joker_as, other))
                table.extend(pieces)
            elif isinstance(op, Attach):
                for c in op.cards:
                    hand.remove(c)
                target = table[op.meld]
                assert target is not None
                grown = melds.attach(target, op.cards, op.joker_as)
                pieces = melds.split_run(grown, max_run, op.split)
                table[op.meld] = pieces[0]
                table.extend(pieces[1:])
                views.append(StepView(op, grown, op.meld + 1, op.joker_as, other))
            else:
                target = table[op.meld]
                assert target is not None
                swapped, joker = melds.swap_joker(target, op.card)
                hand.remove(op.card)
                hand.append(joker)
                table[op.meld] = swapped
                # The meld keeps no joker: the step declares nothing (the panel says which
                # card the joker stood for as the swap's own text).
                views.append(StepView(op, swapped, op.meld + 1, None, (), target.joker_as))
        return hand, table, views

    def hand_left(self, model: TableModel) -> list[int]:
        return self._simulate(model)[0]

    def used_cards(self, model: TableModel) -> set[int]:
        return set(model.hand) - set(self.hand_left(model))

    def _pick(self, model: TableModel, specs: Sequence[CardSpec | Face]) -> list[int]:
        available = self.hand_left(model)
        chosen: list[int] = []
        for spec in specs:
            f = spec.face if isinstance(spec, CardSpec) else spec
            match = next((c for c in available if face(c) == f), None)
            if match is None:
                planned = any(face(c) == f for c in model.hand)
                raise CommandError(
                    "err_already_planned" if planned else "err_not_in_hand", card=face_label(f)
                )
            available.remove(match)
            chosen.append(match)
        return chosen

    def _target(self, model: TableModel, meld_no: int) -> tuple[int, Meld]:
        table = self._simulate(model)[1]
        if not 1 <= meld_no <= len(table) or table[meld_no - 1] is None:
            raise CommandError("err_no_such_meld", n=meld_no)
        target = table[meld_no - 1]
        assert target is not None
        return meld_no - 1, target

    # --- adding steps -----------------------------------------------------------------

    def add_meld(
        self, model: TableModel, specs: Sequence[CardSpec], split: Sequence[int] = ()
    ) -> StepView:
        """Plan a new meld; raises ``CommandError`` (cards) or the engine's ``RuleViolation``.

        ``split`` is the player's cut of a long sequence into runs (R4.6); without
        one, the move generator's even cut is used.
        """
        cards = self._pick(model, specs)
        declared = next((s.declared for s in specs if s.declared is not None), None)
        meld, other = arrange_meld(cards, declared)
        op = NewMeld(meld.cards, meld.joker_as, _runs(meld, model.max_run, split))
        return self._push(model, op, other)

    def add_attach(
        self,
        model: TableModel,
        meld_no: int,
        specs: Sequence[CardSpec],
        split: Sequence[int] = (),
    ) -> StepView:
        index, target = self._target(model, meld_no)
        cards = self._pick(model, specs)
        declared = next((s.declared for s in specs if s.declared is not None), None)
        grown, joker_as, other = arrange_attach(target, cards, declared)
        lengths = _runs(grown, model.max_run, split)
        return self._push(model, Attach(index, tuple(cards), joker_as, lengths), other)

    def add_swap(self, model: TableModel, meld_no: int, card: Face) -> StepView:
        index, target = self._target(model, meld_no)
        (chosen,) = self._pick(model, [card])
        melds.swap_joker(target, chosen)  # the engine's refusal, if any, before planning it
        return self._push(model, SwapJoker(index, chosen), ())

    def _push(self, model: TableModel, op: Operation, other: tuple[Face, ...]) -> StepView:
        self.steps.append(op)
        self._joker_other.append(other)
        self.revision += 1
        return self._simulate(model)[2][-1]

    # --- the preview and the play -----------------------------------------------------

    def preview(self, model: TableModel) -> Preview:
        hand, _, views = self._simulate(model)
        opened = model.i_have_opened()
        opening_total = None
        if not opened:
            opening_total = sum(
                v.result.points for v in views if isinstance(v.op, NewMeld) and v.result
            )
        needed = model.opening_points
        state = local_state(model)
        if state is None or model.my_seat is None:
            return Preview(tuple(views), opening_total, needed, None, False, False, tuple(hand))
        problem: RuleViolation | None = None
        ready = False
        try:
            deal.apply(state, model.my_seat, Play(tuple(self.steps), None))
            ready = True  # only possible when going out without a discard is allowed
        except RuleViolation as refusal:
            if refusal.rule == "R8.1" and refusal.operation is None and hand:
                ready = True  # everything but the discard is in order
            else:
                problem = refusal
        return Preview(tuple(views), opening_total, needed, problem, ready, True, tuple(hand))

    def play(self, discard: int | None) -> Play:
        return Play(tuple(self.steps), discard)

    def operations_pb(self) -> list[object]:
        return [wire.operation_to_pb(op) for op in self.steps]


def discard_card(model: TableModel, planner: TurnPlanner, f: Face) -> int:
    """The id of a card to discard among those the plan leaves in hand."""
    available = planner.hand_left(model)
    # Prefer a copy that was not just taken from the discard pile (R3.3 would refuse it).
    matches = sorted((c for c in available if face(c) == f), key=lambda c: c == model.taken_discard)
    if not matches:
        planned = any(face(c) == f for c in model.hand)
        key = "err_already_planned" if planned else "err_not_in_hand"
        raise CommandError(key, card=face_label(f))
    return matches[0]


@dataclass(frozen=True)
class Hint:
    """What the engine's move generator proposes: operations to plan and their opening points."""

    operations: tuple[Operation, ...]
    made: tuple[Meld, ...]
    points: int
    playable: bool  # a legal play now, not just melds seen in the hand
    needed: int | None = None  # the opening total (R5.1) while this seat has not opened
    taken_discard: int | None = None  # the card this turn took from the discard pile (R3.2)
    draw: DrawSource | None = None  # before this seat's draw: where to draw from
    take: int | None = None  # ... the top discard, when taking it is the advice
    discard: int | None = None  # after the draw: the discard to end the proposed play with

    @property
    def under_opening(self) -> bool:
        return self.needed is not None and self.points < self.needed


def _truest_total(
    model: TableModel, ruleset: Ruleset | None, found: search.LayDown | None
) -> search.LayDown | None:
    """``best_play`` lays the most penalty points; an opening that lays exactly the same
    cards may be worth more by R5.1 (a joker standing for a high ace, say). Shown then: the
    same play with its truer total, the player's hand after it the same."""
    if (
        found is None
        or found.is_empty
        or ruleset is None
        or model.i_have_opened()
        or model.taken_discard is not None
        or not all(isinstance(op, NewMeld) for op in found.operations)
    ):
        return found
    best = search.best_opening(model.hand, ruleset, keep_discard=True)
    if (
        best is not None
        and best.opening_points > found.opening_points
        and sorted(best.leftover) == sorted(found.leftover)
        and all(isinstance(op, NewMeld) for op in best.operations)
    ):
        return best
    return found


def _draw_advice(model: TableModel) -> DrawSource | None:
    """Before this seat's draw, where the medium bot would draw from (its rule: the discard
    only to use it at once)."""
    view = model.deal
    if view is None or not model.my_turn or model.phase is not Phase.DRAW:
        return None
    if model.discard_barred:
        return DrawSource.STOCK  # R3.2: the card just put back stays there this turn
    return MediumBot(random.Random(0)).choose_draw(view)


def _discard_advice(state: deal.DealState, found: search.LayDown) -> int | None:
    """The discard the medium bot would end ``found`` with: no joker, nothing that feeds
    the next player, a loose card, the costliest (``bots.medium.discard_order``)."""
    if not found.leftover:
        return None
    legal = deal.accepted_discards(state, found.operations, found.leftover)
    if not legal:
        return None
    return min(legal, key=discard_order(state, found, table_after(state, found, legal[0])))


def hint(model: TableModel) -> Hint | None:
    """What the engine's search proposes: the best play when this seat plays now, else the
    best opening (or lay-down, once opened) its hand holds; melds seen, when nothing is legal.
    On this seat's turn it also says where to draw from, and which card to discard."""
    hinted, playable = _melds_hint(model)
    draw = _draw_advice(model)
    take = model.discard_top if draw is DrawSource.DISCARD else None
    state = local_state(model)
    discard = None
    if state is not None and model.my_turn and model.phase is Phase.PLAY:
        lay = playable or search.LayDown((), tuple(model.hand), 0, 0)
        discard = _discard_advice(state, lay)
    if hinted is None:
        if draw is None and discard is None:
            return None
        hinted = Hint((), (), 0, False, None, model.taken_discard)
    return dataclasses.replace(hinted, draw=draw, take=take, discard=discard)


def _melds_hint(model: TableModel) -> tuple[Hint | None, search.LayDown | None]:
    """The melds to propose, and the search's lay-down when it is a legal play now."""
    state = local_state(model)
    me = model.my_seat
    ruleset = model.deal_ruleset()
    found: search.LayDown | None = None
    playable = False
    if state is not None and me is not None and model.my_turn and model.phase is Phase.PLAY:
        found = _truest_total(model, ruleset, search.best_play(state, me))
        playable = found is not None and not found.is_empty
    elif ruleset is not None and state is not None:
        if model.i_have_opened():
            found = search.best_lay_down(model.hand, state.table, ruleset, opened=True)
        else:
            found = search.best_opening(model.hand, ruleset, keep_discard=False)
    needed = None if model.i_have_opened() else model.opening_points
    taken = model.taken_discard
    if (found is None or found.is_empty) and ruleset is not None and needed is not None:
        # No opening can be played: the exact best melds of the hand all the same (a
        # floor of 0), so the hint can say how far under the opening total they are.
        anything = dataclasses.replace(ruleset, opening_points=0)
        found = search.best_opening(model.hand, anything, keep_discard=False)
        playable = False
    if found is not None and not found.is_empty:
        made = tuple(
            melds.make_meld(op.cards, op.joker_as)
            for op in found.operations
            if isinstance(op, NewMeld)
        )
        proposed = Hint(found.operations, made, found.opening_points, playable, needed, taken)
        return proposed, found if playable else None
    seen = movegen.greedy_melds(model.hand, model.taken_discard)
    if not seen:
        return None, None
    made = tuple(melds.make_meld(m.cards, m.joker_as) for m in seen)
    return Hint(tuple(seen), made, sum(m.points for m in made), False, needed, taken), None
