"""Properties of the engine over random decks and random actions (hypothesis)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scala40_net.actions import Attach, Draw, DrawSource, NewMeld, Play, SwapJoker
from scala40_net.deal import DealState, Phase, apply, deal_penalties, start_deal
from scala40_net.errors import RuleViolation
from scala40_net.melds import make_meld
from scala40_net.movegen import first_legal_play
from scala40_net.rules import PRESETS, preset, preset_players

# Each preset at every table size it is for (R1.2: semplice 2 to 4).
games = st.sampled_from(PRESETS).flatmap(
    lambda name: st.tuples(
        st.just(name),
        st.sampled_from(preset_players(name)),
        st.randoms(use_true_random=False),
    )
)


def new_deal(name: str, players: int, rnd: random.Random) -> DealState:
    rules = preset(name, players)
    deck = list(range(rules.deck_size))
    rnd.shuffle(deck)
    return start_deal(rules, tuple(range(players)), rnd.randrange(players), deck)[0]


def random_action(state: DealState, rnd: random.Random) -> object:
    seat = state.turn
    hand = list(state.hand(seat))
    size = len(state.table)
    kind = rnd.randrange(5)
    if kind == 0:
        return Draw(rnd.choice(list(DrawSource)))
    cards = tuple(rnd.sample(hand, min(len(hand), rnd.randint(1, 4))))
    ops: list[object] = []
    for _ in range(rnd.randint(0, 3)):
        pick = rnd.randrange(3)
        if pick == 0:
            ops.append(NewMeld(cards))
        elif pick == 1:
            ops.append(Attach(rnd.randrange(size + 1), cards[:1]))
        else:
            ops.append(SwapJoker(rnd.randrange(size + 1), cards[0]))
    return Play(tuple(ops), rnd.choice([*hand, None]))  # type: ignore[arg-type]


@pytest.mark.long(12)
@settings(max_examples=40, deadline=None)
@given(games)
def test_property_cards_are_all_accounted_for_and_refusals_change_nothing(
    game: tuple[str, int, random.Random],
) -> None:
    name, players, rnd = game
    state = new_deal(name, players, rnd)
    for _ in range(120):
        if state.is_over or state.phase is Phase.REBUILD:
            break
        before = state
        try:
            state, _ = apply(state, state.turn, random_action(state, rnd))  # type: ignore[arg-type]
        except RuleViolation as refusal:
            assert state == before and str(refusal)
        if state.phase is Phase.PLAY and rnd.random() < 0.7:
            play = first_legal_play(state, state.turn)
            assert play is not None or state.taken_discard is not None
            if play is not None:
                state, _ = apply(state, state.turn, play)
        assert sorted(state.all_cards()) == list(range(state.ruleset.deck_size))
        for meld in state.table:
            assert make_meld(meld.cards, meld.joker_as) == meld


@settings(max_examples=60, deadline=None)
@given(games, st.data())
def test_property_scores_are_never_negative_except_the_closer_bonus(
    game: tuple[str, int, random.Random], data: st.DataObject
) -> None:
    name, players, rnd = game
    state = new_deal(name, players, rnd)
    opened = tuple(data.draw(st.booleans()) for _ in state.seats)
    state = DealState(**{**state.__dict__, "opened": opened})
    closer = data.draw(st.sampled_from(state.seats))
    penalties = deal_penalties(state, closer, data.draw(st.booleans()))
    for seat, penalty in zip(state.seats, penalties, strict=True):
        if seat == closer:
            assert penalty == state.ruleset.closer_bonus
        else:
            assert penalty >= 0
