"""Random legal play of many deals, 2-6 players, every preset and option value; invariants."""

import os
import random
import time
from collections import Counter

import pytest

from scala40_net.actions import Draw, DrawSource, Play, RebuildStock, ReturnDiscard
from scala40_net.cards import face
from scala40_net.deal import DealState, Phase, apply, start_deal
from scala40_net.errors import RuleViolation
from scala40_net.events import CardsAttached, DealEnded, JokerSwapped, Played
from scala40_net.melds import make_meld
from scala40_net.movegen import first_legal_play, wants_discard
from scala40_net.rules import (
    PRESETS,
    DiscardAttachable,
    DiscardPickup,
    FirstTurnClose,
    JokerSwap,
    LoneAce,
    UnopenedPenalty,
    preset,
    preset_players,
    with_options,
)

# SIM_DEALS lets a profiling run use fewer deals; the test itself always plays at least 1,000.
DEALS = max(1000, int(os.environ.get("SIM_DEALS", "1000")))

# Every value of the options the presets differ on (R3.2, R7.4, R8.2, R9.2-R9.5); each deal
# plays its preset with each of them drawn at random, so every value is played many times.
OPTION_VALUES: dict[str, tuple[object, ...]] = {
    "discard_pickup": tuple(DiscardPickup),
    "discard_attachable": tuple(DiscardAttachable),
    "joker_swap": tuple(JokerSwap),
    "first_turn_close": tuple(FirstTurnClose),
    "closing_in_hand_double": (True, False),
    "lone_ace": tuple(LoneAce),
    "unopened_penalty": tuple(UnopenedPenalty),
}


def check_invariants(state: DealState) -> None:
    cards = state.all_cards()
    assert sorted(cards) == list(range(state.ruleset.deck_size))
    for meld in state.table:
        # Rebuilding each meld from its cards and declaration must give the same meld (R4).
        assert make_meld(meld.cards, meld.joker_as) == meld
        if state.ruleset.max_run is not None and meld.is_sequence:
            assert len(meld.cards) <= state.ruleset.max_run
    assert len(state.owners) == len(state.table)


def play_deal(state: DealState, rng: random.Random, seen: Counter[str]) -> DealState:
    steps = 0
    while not state.is_over:
        steps += 1
        assert steps < 5000, "deal does not end"
        if state.phase is Phase.REBUILD:
            order = list(state.discard_pile[:-1])
            rng.shuffle(order)
            state, _ = apply(state, None, RebuildStock(tuple(order)))
            seen["rebuild"] += 1
            check_invariants(state)
            continue
        seat = state.turn
        play: Play | None = None
        if rng.random() < 0.6:
            play = wants_discard(state, seat)
        if play is not None:
            state, _ = apply(state, seat, Draw(DrawSource.DISCARD))
            seen["take discard"] += 1
        else:
            state, _ = apply(state, seat, Draw(DrawSource.STOCK))
            if rng.random() < 0.15:
                seen["lazy turn"] += 1
                play = first_legal_play_bare(state, seat)
            else:
                play = first_legal_play(state, seat)
        if play is None:
            state, _ = apply(state, seat, ReturnDiscard())
            state, _ = apply(state, seat, Draw(DrawSource.STOCK))
            play = first_legal_play(state, seat)
            seen["returned discard"] += 1
        assert play is not None, "no legal play found"
        state, events = apply(state, seat, play)
        check_invariants(state)
        seen["agreed mark"] += state.agreed_discard is not None
        for event in events:
            if isinstance(event, Played):
                seen["opened"] += event.opened
                seen["attached"] += sum(isinstance(op, CardsAttached) for op in event.operations)
                seen["swapped"] += sum(isinstance(op, JokerSwapped) for op in event.operations)
            if isinstance(event, DealEnded):
                seen[event.outcome.value] += 1
                if event.void_reason:
                    exact = "no card off the table" in event.void_reason
                    seen["void: nothing can be laid" if exact else "void: idle rebuilds"] += 1
                seen["in mano"] += event.chiusura_in_mano
                for seat_, penalty in zip(event.seats, event.penalties, strict=True):
                    if seat_ != event.closer:
                        assert penalty >= 0
                if event.closer is not None:
                    assert event.penalties == r9_penalties(state, event)
    return state


def r9_penalties(state: DealState, ended: DealEnded) -> tuple[int, ...]:
    """Each seat's points counted again from R9.3-R9.6 as the rules say them, apart from
    the engine's code: the oracle the simulation holds the engine's scores to."""
    rules = state.ruleset
    totals = state.totals or (0,) * len(state.seats)
    out: list[int] = []
    for seat, hand, opened, total in zip(
        state.seats, ended.hands, state.opened, totals, strict=True
    ):
        faces = [face(c) for c in hand]
        value = sum(25 if f.is_joker else 11 if f.rank == 1 else min(f.rank, 10) for f in faces)
        aces = sum(1 for f in faces if not f.is_joker and f.rank == 1)
        lone = aces == 1 and len(hand) == 1
        ace_is_one = {
            LoneAce.ALWAYS: lone,
            LoneAce.AT_99: lone and total == rules.bust_at - 2,
            LoneAce.NEVER: False,
            LoneAce.SINGLE: aces == 1,
        }[rules.lone_ace]
        value -= 10 if ace_is_one else 0
        doubled = ended.chiusura_in_mano and rules.closing_in_hand_double
        if seat == ended.closer:
            out.append(rules.closer_bonus)
        elif not opened and rules.unopened_penalty is UnopenedPenalty.FLAT100:
            out.append(100)
        elif not opened and rules.unopened_penalty is UnopenedPenalty.DOUBLE:
            out.append(2 * value)
        else:
            out.append(value * (2 if doubled else 1))
    return tuple(out)


def first_legal_play_bare(state: DealState, seat: int) -> Play | None:
    """A lazy player: draw and discard only (R3.1), when allowed."""
    for card in state.hand(seat):
        try:
            apply(state, seat, Play((), card))
        except RuleViolation:
            continue
        return Play((), card)
    return first_legal_play(state, seat)


@pytest.mark.long(100)
def test_simulation_of_random_legal_deals_keeps_every_invariant() -> None:
    rng = random.Random(40)
    choices = random.Random(11)  # the options and totals drawn, apart from the play itself
    seen: Counter[str] = Counter()
    started = time.perf_counter()
    for k in range(DEALS):
        name = PRESETS[k % len(PRESETS)]
        # Every table size the preset is for (semplice: 2 to 4, R1.2).
        sizes = preset_players(name)
        players = sizes[(k // len(PRESETS)) % len(sizes)]
        options = {option: choices.choice(values) for option, values in OPTION_VALUES.items()}
        rules = with_options(preset(name, players), **options)
        for option, value in options.items():
            seen[f"{option}={value}"] += 1
        deck = list(range(rules.deck_size))
        rng.shuffle(deck)
        seats = tuple(range(players))
        # Match totals before the deal, so that lone_ace=at_99 has players on 99 (R9.4).
        totals = tuple(choices.choice((0, 50, 99)) for _ in seats)
        state, _ = start_deal(rules, seats, rng.choice(seats), deck, totals=totals)
        check_invariants(state)
        play_deal(state, rng, seen)
    elapsed = time.perf_counter() - started
    assert seen["closed"] + seen["void"] == DEALS
    for what in (
        "opened",
        "attached",
        "swapped",
        "take discard",
        "closed",
        "rebuild",
        "in mano",
        "agreed mark",
    ):
        assert seen[what] >= 5, (what, seen)
    for option, values in OPTION_VALUES.items():
        for value in values:
            assert seen[f"{option}={value}"] >= 5, (option, value, seen)
    print(dict(seen), f"{elapsed:.1f}s")
