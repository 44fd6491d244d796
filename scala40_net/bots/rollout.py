"""Playing a sampled deal to its end with a fast policy, and what the end is worth to a seat.

The expert compares its candidate moves by where they lead: each candidate
is applied to a sampled deal (``sampling``) and every seat then plays the
medium bot's policy (``RolloutPolicy``, holding melds once opened as the
hard bot does) until the deal ends. The policy reads only the seat's
own hand and the table, so on a sample, where every card is placed, it can
be asked straight from the state.
"""

from __future__ import annotations

import random

from scala40_net.actions import Draw, DrawSource, Play, RebuildStock, ReturnDiscard
from scala40_net.bots.base import accepts, after_taking_discard
from scala40_net.bots.hand import card_points
from scala40_net.bots.lookahead import joins
from scala40_net.bots.medium import MediumBot, discard_order, table_after
from scala40_net.cards import face
from scala40_net.deal import DealState, Phase, apply, could_attach
from scala40_net.errors import RuleViolation
from scala40_net.rules import UnopenedPenalty
from scala40_net.search import LayDown

UNOPENED_FLAT = 100
# Going out first is worth more than the points it saves: it ends the deal before the
# others lay the rest, and it is what wins a heads-up deal.
OUT_FIRST = 50.0


def rollout(
    state: DealState, policy: MediumBot, rng: random.Random, horizon: int
) -> tuple[DealState, int]:
    """``state`` played on by ``policy`` at every seat for at most ``horizon`` plays (or to
    the deal's end); also the number of plays made, the work a decision's budget counts."""
    plays = 0
    while not state.is_over and plays < horizon:
        if state.phase is Phase.REBUILD:
            order = list(state.discard_pile[:-1])
            rng.shuffle(order)
            state, _ = apply(state, None, RebuildStock(tuple(order)))
        elif state.phase is Phase.DRAW:
            state = _draw(state, policy)
        else:
            play = policy.play(state)
            if play is None:
                state, _ = apply(state, state.turn, ReturnDiscard())
            else:
                state, _ = apply(state, state.turn, play)
                plays += 1
    return state, plays


def _draw(state: DealState, policy: MediumBot) -> DealState:
    after = None if state.discard_barred else after_taking_discard(state)
    if after is not None and policy.takes_discard(state, after):
        return after
    try:
        return apply(state, state.turn, Draw(DrawSource.STOCK))[0]
    except RuleViolation:
        # An empty stock with the rebuild pending cannot happen at a draw; the pile is all left.
        assert after is not None
        return after


def worth(state: DealState, seat: int) -> float:
    """What the deal's end is worth to ``seat``: the others' mean penalty less its own.

    A void deal (R10.2) is worth 0. A rollout stopped at its horizon is valued
    by the hands as they stand. Going out first adds ``OUT_FIRST``.
    """
    penalties = _penalties(state)
    i = state.index(seat)
    others = [p for j, p in enumerate(penalties) if j != i]
    out_first = state.result is not None and state.result.closer == seat
    return sum(others) / len(others) - penalties[i] + (OUT_FIRST if out_first else 0.0)


def _penalties(state: DealState) -> tuple[int, ...]:
    result = state.result
    if result is not None:
        return result.penalties if result.closer is not None else (0,) * len(state.seats)
    return tuple(standing(state, seat) for seat in state.seats)


def standing(state: DealState, seat: int) -> int:
    """The penalty ``seat`` would pay if the deal ended now (R9.4, R9.5)."""
    points = sum(card_points(c) for c in state.hand(seat))
    if state.has_opened(seat):
        return points
    rule = state.ruleset.unopened_penalty
    if rule is UnopenedPenalty.FLAT100:
        return UNOPENED_FLAT
    return 2 * points if rule is UnopenedPenalty.DOUBLE else points


class RolloutPolicy(MediumBot):
    """Medium's play at rollout speed: the same lay-down and discard order, fewer engine calls.

    Medium asks the engine about every card before choosing; here the cards are
    tried in medium's order and the first accepted one is thrown, and the
    discard is searched with only when its card joins the hand or the table.
    """

    def takes_discard(self, before: DealState, after: DealState) -> bool:
        card = before.discard_pile[-1]
        hand = before.hand(before.turn)
        swappable = {m.joker_as for m in before.table if m.joker is not None}
        if not (joins(card, hand) or could_attach(before.table, card) or face(card) in swappable):
            return False
        return super().takes_discard(before, after)

    def play(self, state: DealState) -> Play | None:
        # Once opened, melds stay in hand until they go out, as the hard bot plays them.
        seat = state.turn
        if state.has_opened(seat) and state.taken_discard is None:
            lay = self.lay_down(state)
            if lay is not None and not lay.is_empty and len(lay.leftover) > 1:
                whole = LayDown((), state.hand(seat), 0, 0)
                order = discard_order(state, whole, state.table)
                for card in sorted(dict.fromkeys(lay.leftover), key=order):
                    if accepts(state, Play((), card)):
                        return Play((), card)
        return super().play(state)

    def _with_discard(self, state: DealState, lay: LayDown) -> Play | None:
        if not lay.leftover:
            return super()._with_discard(state, lay)
        cards = list(dict.fromkeys(lay.leftover))
        first = next((c for c in cards if accepts(state, Play(lay.operations, c))), None)
        if first is None:
            return None
        order = discard_order(state, lay, table_after(state, lay, first))
        for card in sorted(cards, key=order):
            if card == first or accepts(state, Play(lay.operations, card)):
                return Play(lay.operations, card)
        return Play(lay.operations, first)
