"""What every bot shares: the bot interface, the engine asked about a move, the turn frame.

A bot sees only its seat's view (``views.DealView``) and the per-seat events
(``views.view_event``). To try a move it rebuilds a deal state from that view
with every hidden card replaced by a placeholder (the engine has no public
entry point for this; ``views.playable_state`` is the smallest one) and asks the
engine itself, so a bot never decides legality on its own: every play it
returns has been accepted by ``deal.apply`` on that state.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar, Protocol

from scala40_net.actions import Draw, DrawSource, Operation, Play
from scala40_net.deal import DealState, Phase, accepted_discards, apply
from scala40_net.errors import RuleViolation
from scala40_net.events import Event
from scala40_net.rules import DiscardPickup
from scala40_net.search import LayDown, best_play
from scala40_net.views import DealView
from scala40_net.views import playable_state as playable_state  # (it lives beside the view now)


class Bot(Protocol):
    """What a table asks a bot seat; every answer comes from that seat's view alone."""

    @property
    def level(self) -> str:
        """easy, medium or hard."""
        ...

    def choose_draw(self, view: DealView) -> DrawSource:
        """Step 1 of the turn (R3): the stock or the discard pile."""
        ...

    def choose_play(self, view: DealView) -> Play | None:
        """Step 2 after the draw; None puts back a taken discard it cannot use (R3.2, S7)."""
        ...

    def observe(self, event: Event) -> None:
        """Every event of the table as this seat sees it, in order (its own moves included)."""
        ...

    def buys_back(self, fee: int) -> bool:
        """R11.3: whether to buy back in for ``fee`` chips."""
        ...


def accepts(state: DealState, play: Play) -> bool:
    """Does the engine accept ``play`` from the seat to move?"""
    try:
        apply(state, state.turn, play)
    except RuleViolation:
        return False
    return True


def legal_discards(
    state: DealState, operations: Sequence[Operation], hand: Sequence[int]
) -> list[int]:
    """The cards of ``hand`` the engine accepts as the discard after ``operations``."""
    return accepted_discards(state, tuple(operations), hand)


def after_taking_discard(state: DealState) -> DealState | None:
    """The state after taking the top discard, or None when the pile cannot be drawn from."""
    if state.phase is not Phase.DRAW or not state.discard_pile:
        return None
    try:
        after, _ = apply(state, state.turn, Draw(DrawSource.DISCARD))
    except RuleViolation:
        return None
    return after


class TurnBot(ABC):
    """The frame of a turn every level shares; a level chooses the lay-down and the discard.

    Bots are used from one task at a time (a table seat, a simulation), so the
    small memory kept here (the turn a discard was put back) needs no lock.
    """

    level: ClassVar[str] = ""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._put_back: tuple[int, int] | None = None

    # --- the interface ------------------------------------------------------------

    def observe(self, event: Event) -> None:
        return None

    def buys_back(self, fee: int) -> bool:
        return False

    def choose_draw(self, view: DealView) -> DrawSource:
        state = playable_state(view)
        if self._put_back == turn_key(view) or state.discard_pile == ():
            return DrawSource.STOCK
        after = after_taking_discard(state)
        if after is None or not self.takes_discard(state, after):
            return DrawSource.STOCK
        return DrawSource.DISCARD

    def choose_play(self, view: DealView) -> Play | None:
        state = playable_state(view)
        play = self.play(state)
        if play is None:
            # Only a taken discard that cannot be used leads here: it goes back (S7).
            self._put_back = turn_key(view)
        return play

    # --- what a level decides -----------------------------------------------------

    @abstractmethod
    def takes_discard(self, before: DealState, after: DealState) -> bool:
        """Whether to take the top discard; ``after`` is the state once it is taken."""

    def lay_down(self, state: DealState) -> LayDown | None:
        """The operations to play before the discard (None: nothing legal, put back)."""
        return best_play(state)

    @abstractmethod
    def pick_discard(self, state: DealState, lay: LayDown, legal: list[int]) -> int:
        """One of ``legal`` (never empty): the cards the engine accepts as the discard."""

    # --- shared -------------------------------------------------------------------

    def play(self, state: DealState) -> Play | None:
        """A play the engine accepts, built from the level's lay-down and discard."""
        lay = self.lay_down(state)
        if lay is not None:
            play = self._with_discard(state, lay)
            if play is not None:
                return play
        if state.taken_discard is not None and not self._free_pickup(state):
            return None
        bare = LayDown((), state.hand(state.turn), 0, 0)
        return self._with_discard(state, bare)

    def _with_discard(self, state: DealState, lay: LayDown) -> Play | None:
        # The search leaves the discard to the level: the engine says which cards may go
        # (R3.3, R8.2 classic and never, R8.3), and accepts the play with it.
        if not lay.leftover and accepts(state, Play(lay.operations, None)):
            return Play(lay.operations, None)
        legal = legal_discards(state, lay.operations, lay.leftover)
        if not legal:
            return None
        return Play(lay.operations, self.pick_discard(state, lay, legal))

    @staticmethod
    def _free_pickup(state: DealState) -> bool:
        """Whether the taken discard may stay in hand unused (R3.2 free, or open_with_it opened)."""
        pickup = state.ruleset.discard_pickup
        if pickup is DiscardPickup.OPEN_WITH_IT:
            return state.has_opened(state.turn)
        return pickup is DiscardPickup.FREE


def turn_key(view: DealView) -> tuple[int, int]:
    """The seat's deal and turn: a discard put back is remembered for that turn only."""
    assert view.viewer is not None
    return view.deal_no, view.turns_played[view.seats.index(view.viewer)]
