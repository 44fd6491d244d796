"""How soon a seat goes out playing on alone: the expert's measure of a move, over sampled draws.

Heads-up, the deal is won by going out first (R9.1), and a seat's own
discards decide how soon it can. So a candidate move is applied to a deal
sampled from the seat's view (``sampling``: the stock's order is what it
cannot know) and the seat then plays on by itself: it draws the stock's next
card each turn and plays the fast medium policy (``RacePolicy``: the exact
best lay-down, melds held in hand once opened heads-up, as the hard bot
holds them), while the others are not asked to move. The number of its plays
until it goes out is what the move is worth (fewer is better); a race
stopped at its horizon counts as slower than any race that went out, the
hand it still holds deciding between two such (R9.4, R9.5).

The others' moves are left out on purpose: played by a policy that cannot
see what they hold, they add more noise than they tell (measured: full
rollouts of every seat lost to the hard bot's own moves), and a seat's own
draws are the same random cards whoever else plays. At a table of three or
more, where somebody else often goes out first and the penalty the seat pays
then is the deal, the others enter only as a clock (``deadline``): the chance
that none of them has gone out yet after each of the seat's plays, which
weighs what its hand would pay then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from scala40_net.actions import Draw, DrawSource, Play
from scala40_net.bots.base import accepts
from scala40_net.bots.hand import card_points
from scala40_net.bots.medium import MediumBot, discard_order, table_after
from scala40_net.deal import DealState, Phase, apply
from scala40_net.errors import RuleViolation
from scala40_net.rules import UnopenedPenalty
from scala40_net.search import LayDown

UNOPENED_FLAT = 100
# What a move the engine refuses on a sample is worth: less than any race.
REFUSED = -10_000.0


def race(
    state: DealState,
    seat: int,
    move: Draw | Play,
    policy: RacePolicy,
    turns: int,
    survival: Sequence[float] | None = None,
) -> tuple[float, int]:
    """What ``move`` by ``seat`` on the sampled ``state`` is worth, and the plays it took.

    Without ``survival`` (heads-up, where going out first is the deal) the
    worth is minus the plays ``seat`` needs to go out, ``move`` counting as
    the first when it is a play; beyond ``turns`` plays it is ``-(turns + 1)``
    less a hundredth of the penalty the hand would pay then.

    With ``survival`` (at tables of three or more, where somebody else often
    goes out first and what the seat pays then is the deal) the worth is minus
    the penalty it can expect: ``survival[p - 1]`` is the chance that nobody
    else has gone out in the rounds after its first ``p`` plays (``deadline``),
    and the penalty it would pay after each play is weighed by the chance that
    the deal ends there (R9.4, R9.5); going out pays nothing.
    """
    try:
        state, _ = apply(state, seat, move)
    except RuleViolation:
        return REFUSED, 0
    played = 1 if isinstance(move, Play) else 0
    standings: list[int] = []  # after each play that did not go out
    while not state.is_over:
        if played > len(standings) and survival is not None:
            standings.append(standing(state, seat))
        if played >= turns or state.phase is Phase.REBUILD:
            return _unfinished(state, seat, turns, standings, survival), played
        if state.phase is Phase.DRAW:
            state = replace(state, turn=seat)  # the others sit this race out
            if not state.stock:
                return _unfinished(state, seat, turns, standings, survival), played
            state, _ = apply(state, seat, Draw(DrawSource.STOCK))
        play = policy.play(state)
        if play is None:  # only a taken discard is ever put back, and a race takes none
            return _unfinished(state, seat, turns, standings, survival), played
        state, _ = apply(state, seat, play)
        played += 1
    assert state.result is not None
    if state.result.closer != seat:  # a void deal (R10.2)
        return _unfinished(state, seat, turns, standings, survival) - 1.0, played
    if survival is not None:
        return -_expected(standings, survival, still=0), played
    return -float(played), played


def _unfinished(
    state: DealState,
    seat: int,
    turns: int,
    standings: Sequence[int],
    survival: Sequence[float] | None,
) -> float:
    now = standing(state, seat)
    if survival is not None:
        return -_expected(standings, survival, still=now)
    return -(turns + 1.0) - now / 100.0


def _expected(standings: Sequence[int], survival: Sequence[float], still: int) -> float:
    """The penalty expected when the deal ends in the round after the play that left
    ``standings[p]``, with ``still`` paid if it lasts beyond them (0: the seat went out)."""
    expected, alive = 0.0, 1.0
    for p, points in enumerate(standings):
        after = survival[min(p, len(survival) - 1)]
        expected += (alive - after) * points
        alive = after
    return expected + alive * still


def standing(state: DealState, seat: int) -> int:
    """The penalty ``seat`` would pay if the deal ended now (R9.4, R9.5)."""
    points = sum(card_points(c) for c in state.hand(seat))
    if state.has_opened(seat):
        return points
    rule = state.ruleset.unopened_penalty
    if rule is UnopenedPenalty.FLAT100:
        return UNOPENED_FLAT
    return 2 * points if rule is UnopenedPenalty.DOUBLE else points


class RacePolicy(MediumBot):
    """Medium's play at race speed: the same lay-down and discard order, fewer engine calls.

    Medium asks the engine about every card before choosing; here the cards are
    tried in medium's order and the first accepted one is thrown. A race draws
    only from the stock, so the policy is never asked about the discard pile.
    """

    def play(self, state: DealState) -> Play | None:
        # Heads-up and opened, melds stay in hand until they go out, as the hard bot plays
        # them; at larger tables it lays them, as the hard bot does.
        seat = state.turn
        if len(state.seats) == 2 and state.has_opened(seat) and state.taken_discard is None:
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
