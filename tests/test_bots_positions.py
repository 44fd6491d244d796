"""Every bot level decides in random positions under every preset and every option value
the search reads (max_run, lone_ace, joker_swap, discard rules), and the engine accepts
each decision: no decision raises, none is refused."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scala40_net.actions import DrawSource
from scala40_net.bots import make_bot
from scala40_net.bots.arena import decide
from scala40_net.cards import Face, Suit, card_id, is_joker
from scala40_net.deal import DealState, Phase, apply
from scala40_net.errors import RuleViolation
from scala40_net.melds import Meld, make_meld, split_run
from scala40_net.rules import (
    PRESETS,
    DiscardAttachable,
    DiscardPickup,
    JokerSwap,
    LoneAce,
    Ruleset,
    preset,
    with_options,
)

MAX_RUNS = (3, 4, 5, None)


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    name = draw(st.sampled_from(PRESETS))
    return with_options(
        preset(name, 2),
        max_run=draw(st.sampled_from(MAX_RUNS)),
        lone_ace=draw(st.sampled_from(list(LoneAce))),
        joker_swap=draw(st.sampled_from(list(JokerSwap))),
        discard_pickup=draw(st.sampled_from(list(DiscardPickup))),
        discard_attachable=draw(st.sampled_from(list(DiscardAttachable))),
    )


def _free_copy(f: Face, decks: int, used: set[int]) -> int | None:
    assert f.suit is not None
    free = [card_id(f.rank, f.suit, k) for k in range(decks)]
    return next((c for c in free if c not in used), None)


def random_meld(rng: random.Random, rules: Ruleset, used: set[int]) -> Meld | None:
    """A meld that may lie on the table under ``rules``, of cards not yet ``used``."""
    if rng.random() < 0.6:
        suit = rng.choice(list(Suit))
        length = rng.randint(3, rules.max_run or 8)
        low = rng.randint(1, 15 - length)
        faces = [Face(1 if r == 14 else r, suit) for r in range(low, low + length)]
    else:
        rank = rng.randint(1, 13)
        faces = [Face(rank, s) for s in rng.sample(list(Suit), rng.randint(3, 4))]
    cards = [_free_copy(f, rules.decks, used) for f in faces]
    if None in cards:
        return None
    picked = [c for c in cards if c is not None]
    declared = None
    jokers = [c for c in range(rules.deck_size) if is_joker(c) and c not in used]
    if jokers and rng.random() < 0.4:
        place = rng.randrange(len(picked))
        declared = faces[place]
        picked[place] = jokers[0]
    try:
        meld = make_meld(picked, declared)
    except RuleViolation:
        return None
    if len(split_run(meld, rules.max_run)) != 1:
        return None
    used.update(picked)
    return meld


def random_position(rng: random.Random, rules: Ruleset) -> DealState:
    """Seat 0 to move in mid-deal: a table of melds, seat 0's hand, seat 1's, pile and stock."""
    used: set[int] = set()
    table = [m for _ in range(rng.randint(0, 5)) if (m := random_meld(rng, rules, used))]
    # The hand holds melds of its own (jokers among them), so that there is something to lay.
    on_table = set(used)
    for _ in range(rng.randint(0, 3)):
        random_meld(rng, rules, used)
    # And cards that extend the table's sequences, both copies of a face now and then: a run
    # grown past max_run is cut (R4.6), and a cut-off run may take a face again.
    for meld in table:
        if meld.is_sequence and rng.random() < 0.6:
            assert meld.suit is not None
            ranks = [meld.low - 1, meld.high + 1, meld.high + 2, meld.low - 2]
            for rank in ranks[: rng.randint(1, 4)]:
                if 1 <= rank <= 14:
                    f = Face(1 if rank == 14 else rank, meld.suit)
                    for _ in range(rng.randint(1, rules.decks)):
                        card = _free_copy(f, rules.decks, used)
                        if card is not None:
                            used.add(card)
    hand = [c for c in used if c not in on_table]
    rng.shuffle(hand)
    rest = [c for c in range(rules.deck_size) if c not in used]
    rng.shuffle(rest)
    size = max(0, rng.randint(2, 14) - len(hand))
    hand += rest[:size]
    other = rest[size : size + rng.randint(1, 12)]
    rest = rest[size + len(other) :]
    pile, stock = rest[:3], rest[3:]
    phase = rng.choice((Phase.DRAW, Phase.PLAY))
    drawn: DrawSource | None = None
    taken = None
    if phase is Phase.PLAY:
        drawn = rng.choice((DrawSource.STOCK, DrawSource.DISCARD))
        taken = hand[-1] if drawn is DrawSource.DISCARD else None
    opened = (rng.random() < 0.6, rng.random() < 0.6)
    return DealState(
        ruleset=rules,
        seats=(0, 1),
        dealer=1,
        hands=(tuple(hand), tuple(other)),
        opened=opened if table or not any(opened) else (False, False),
        turns_played=(rng.randint(0, 3), rng.randint(1, 3)),
        table=tuple(table),
        owners=tuple(rng.choice((0, 1)) for _ in table),
        stock=tuple(stock),
        discard_pile=tuple(pile),
        turn=0,
        phase=phase,
        drawn=drawn,
        taken_discard=taken,
    )


def check_decisions(levels: tuple[str, ...], rules: Ruleset, seed: int) -> None:
    rng = random.Random(seed)
    state = random_position(rng, rules)
    for level in levels:
        bot = make_bot(level, random.Random(seed))
        action = decide(state, bot)
        try:
            apply(state, 0, action)
        except RuleViolation as refusal:
            pytest.fail(f"{level}: {action} refused: {refusal}")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets(), seed=st.integers(0, 2**32 - 1))
def test_every_bot_level_decides_in_any_position_under_every_option(
    rules: Ruleset, seed: int
) -> None:
    check_decisions(("easy", "medium", "hard"), rules, seed)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets(), seed=st.integers(0, 2**32 - 1))
def test_the_expert_decides_in_any_position_under_every_option(rules: Ruleset, seed: int) -> None:
    check_decisions(("expert",), rules, seed)
