"""The medium and hard bots never die of their own search under the semplice rules (R3.2 free
pickup: a taken card need not be in the opening), and a bounded run of semplice matches ends."""

from __future__ import annotations

import dataclasses
import random

import pytest

from scala40_net.bots import make_bot
from scala40_net.bots.arena import play_match
from scala40_net.bots.base import Bot
from scala40_net.match import MatchPhase
from scala40_net.rules import DiscardAttachable, DiscardPickup, Ruleset, UnopenedPenalty, preset

# Seeds whose matches raised AssertionError in the exact search's _build: an opening with a
# joker swap, the taken discard required in it although free pickup does not require it.
CRASHED = [19, 24, 75]
MATCHES = 12


def the_old_semplice(players: int) -> Ruleset:
    """The semplice options those seeds were found with (1 deck for 2, free pickup)."""
    return dataclasses.replace(
        preset("classic", players),
        decks=1 if players == 2 else 2,
        max_players=2 if players == 2 else 6,
        discard_pickup=DiscardPickup.FREE,
        discard_attachable=DiscardAttachable.FREE,
        close_without_discard=True,
        unopened_penalty=UnopenedPenalty.DOUBLE,
    )


def bots_for(n: int, players: int) -> dict[int, Bot]:
    return {
        s: make_bot(["medium", "hard"][s % 2], random.Random(n * 10 + s)) for s in range(players)
    }


@pytest.mark.parametrize("n", CRASHED)
def test_r3_2_free_pickup_a_swap_opening_without_the_taken_card_is_built(n: int) -> None:
    players = 2 + n % 3
    over = play_match(bots_for(n, players), the_old_semplice(players), 0, f"semplice-{n}")
    assert over.phase is MatchPhase.OVER


def test_semplice_matches_of_medium_and_hard_bots_end() -> None:
    for n in range(MATCHES):
        players = 2 + n % 3
        ruleset = preset("semplice", players)
        over = play_match(bots_for(n, players), ruleset, n % players, f"semplice-sim-{n}")
        assert over.phase is MatchPhase.OVER and over.winners
