"""The faster search, discard and attach checks give the very answers of the ones they replace.

``search_reference`` is the search before its candidates were cached and its
loop tightened; ``accepted_discards`` replaces trying ``apply`` once per card.
Every answer is compared whole: the value, the operations in their order and
the cards left, so a bot plays exactly the same move with either.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable, Sequence
from dataclasses import replace

import pytest
import search_reference as reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scala40_net import search
from scala40_net.actions import NewMeld, Play
from scala40_net.bots import base, hard, lookahead, make_bot, medium
from scala40_net.bots.arena import play_deal
from scala40_net.cards import CARDS_PER_DECK
from scala40_net.deal import DealState, accepted_discards, apply, could_attach
from scala40_net.errors import RuleViolation
from scala40_net.melds import Meld, attach, can_attach, joker_attach_faces, make_meld, split_run
from scala40_net.movegen import operation_cards
from scala40_net.rules import PRESETS, DiscardPickup, Ruleset, preset, with_options
from scala40_net.scenario import CardPool

DECK = list(range(108))


def _answer(found: object) -> object:
    """A lay-down as plain values (the two modules' LayDown classes are not one class)."""
    if isinstance(found, (search.LayDown, reference.LayDown)):
        return (found.operations, found.leftover, found.opening_points, found.relief)
    return found


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(DECK), min_size=3, max_size=15, unique=True), st.booleans())
def test_best_opening_as_the_reference(hand: list[int], first_turn: bool) -> None:
    assert _answer(search.best_opening(hand, first_turn=first_turn)) == _answer(
        reference.best_opening(hand, first_turn=first_turn)
    )
    assert search.can_open(hand, first_turn=first_turn) == reference.can_open(
        hand, first_turn=first_turn
    )


def test_best_opening_as_the_reference_over_random_hands() -> None:
    rng = random.Random(14)
    for _ in range(2000):
        hand = rng.sample(DECK, 14)
        taken = hand[0] if rng.random() < 0.3 else None
        found = search.best_opening(hand, taken=taken)
        assert _answer(found) == _answer(reference.best_opening(hand, taken=taken))


def _accepted_one_by_one(
    state: DealState, operations: Sequence[object], hand: Sequence[int]
) -> list[int]:
    out = []
    for card in dict.fromkeys(hand):
        try:
            apply(state, state.turn, Play(tuple(operations), card))  # type: ignore[arg-type]
        except RuleViolation:
            continue
        out.append(card)
    return out


@pytest.mark.parametrize("preset_name", ["classic", "tradizionale", "semplice"])
@pytest.mark.parametrize("players", [2, 4])
def test_bots_play_as_with_the_reference(
    preset_name: str, players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whole deals of medium and hard bots: at every play the search and the discards agree."""
    asked = {"plays": 0, "discards": 0}

    def twin(name: str) -> Callable[..., object]:
        fast, slow = getattr(search, name), getattr(reference, name)

        def checked(*args: object, **kwargs: object) -> object:
            found = fast(*args, **kwargs)
            assert _answer(found) == _answer(slow(*args, **kwargs)), (name, args, kwargs)
            asked["plays"] += 1
            return found

        return checked

    def checked_discards(
        state: DealState, operations: Sequence[object], cards: Sequence[int]
    ) -> list[int]:
        found = accepted_discards(state, operations, cards)  # type: ignore[arg-type]
        assert found == _accepted_one_by_one(state, operations, cards)
        asked["discards"] += 1
        return found

    def checked_has_play(state: DealState, seat: int | None = None) -> bool:
        found = search.has_play(state, seat)
        best = reference.best_play(state, seat)
        assert found == (best is not None and not best.is_empty)
        asked["plays"] += 1
        return found

    monkeypatch.setattr(medium, "has_play", checked_has_play)
    for module in (base, medium, hard, lookahead):
        for name in ("best_play", "best_opening", "best_lay_down", "can_open"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, twin(name))
    monkeypatch.setattr(base, "accepted_discards", checked_discards)
    rules = preset(preset_name, players)
    for k in range(6):
        level = "medium" if k % 2 == 0 else "hard"
        bots = {s: make_bot(level, random.Random(k * 10 + s)) for s in range(players)}
        play_deal(bots, rules, dealer=k % players, label=f"same-answers-{preset_name}-{k}")
    assert asked["plays"] > 50 and asked["discards"] > 20


def _table_from(rng: random.Random, deck: list[int], rules: Ruleset) -> tuple[Meld, ...]:
    """Melds as players lay them: the openings of a few random hands from the top of ``deck``
    (taken off it), each cut under R4.6 as laid."""
    free = with_options(rules, opening_points=0)
    table: list[Meld] = []
    for _ in range(rng.randrange(4)):
        hand = [deck.pop() for _ in range(12)]
        found = reference.best_opening(hand, free, keep_discard=False)
        for op in () if found is None else found.operations:
            assert isinstance(op, NewMeld)
            table += split_run(make_meld(op.cards, op.joker_as), rules.max_run, op.split)
        deck += found.leftover if found is not None else hand
        rng.shuffle(deck)
    return tuple(table)


@st.composite
def _rulesets(draw: st.DrawFn) -> Ruleset:
    """A preset with the options the search reads changed at random."""
    decks = draw(st.sampled_from([1, 2]))
    return with_options(
        preset(draw(st.sampled_from(PRESETS)), 2),
        decks=decks,
        max_players=2 if decks == 1 else 4,
        max_run=draw(st.sampled_from([None, 3, 4, 5, 7])),
        opening_points=draw(st.sampled_from([0, 40, 51])),
        discard_pickup=draw(st.sampled_from(list(DiscardPickup))),
        close_without_discard=draw(st.booleans()),
    )


@pytest.mark.long(20)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _rulesets(),
    st.integers(0, 2**32),
    st.integers(1, 15),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["none", "any", "some"]),
)
def test_best_lay_down_as_the_reference(
    rules: Ruleset,
    seed: int,
    size: int,
    opened: bool,
    first_turn: bool,
    takes: bool,
    owner: str,
) -> None:
    """Random tables as laid under every preset and option the search reads (decks, R4.6
    cuts, pickup rules, closing without a discard, the opening total, whose jokers may be
    swapped): the best play is the reference one, asked again with the very same melds
    (the search keeps what it worked out for each), with equal ones, and in another order."""
    rng = random.Random(seed)
    deck = list(range(rules.deck_size))
    rng.shuffle(deck)
    table = _table_from(rng, deck, rules)
    hand = deck[:size]
    taken = hand[0] if takes else None
    swappable = None
    if owner == "some":
        swappable = frozenset(k for k in range(len(table)) if rng.random() < 0.5)
    options: dict[str, object] = dict(
        opened=opened, taken=taken, first_turn=first_turn, swappable=swappable
    )
    expected = _answer(reference._search(hand, table, rules, by_points=False, **options))  # type: ignore[arg-type]
    for _ in range(2):
        found = search._search(hand, table, rules, by_points=False, **options)  # type: ignore[arg-type]
        assert _answer(found) == expected
    alike = tuple(replace(meld) for meld in table)
    assert _answer(search._search(hand, alike, rules, by_points=False, **options)) == expected  # type: ignore[arg-type]
    order = list(range(len(table)))
    rng.shuffle(order)
    moved = tuple(table[k] for k in order)
    if swappable is not None:
        options["swappable"] = frozenset(order.index(k) for k in swappable)
    assert _answer(search._search(hand, moved, rules, by_points=False, **options)) == _answer(  # type: ignore[arg-type]
        reference._search(hand, moved, rules, by_points=False, **options)  # type: ignore[arg-type]
    )
    opening = dict(taken=taken, first_turn=first_turn)
    assert _answer(search.best_opening(hand, rules, **opening)) == _answer(  # type: ignore[arg-type]
        reference.best_opening(hand, rules, **opening)  # type: ignore[arg-type]
    )
    assert search.can_open(hand, rules) == reference.can_open(hand, rules)


@settings(max_examples=150, deadline=None)
@given(_rulesets(), st.integers(0, 2**32))
def test_could_attach_as_can_attach(rules: Ruleset, seed: int) -> None:
    """``could_attach`` (what each meld takes, kept with it) says what ``can_attach`` says, for
    every card id and for melds as laid and as grown by an attach (long runs, aces at
    either end, groups of four)."""
    rng = random.Random(seed)
    deck = list(range(rules.deck_size))
    rng.shuffle(deck)
    melds = list(_table_from(rng, deck, rules))
    for meld in list(melds):
        fits = [c for c in deck if can_attach(meld, c)]
        if fits:
            card = rng.choice(fits)
            joker_as = joker_attach_faces(meld)[0] if card % 54 >= 52 else None
            melds.append(attach(meld, (card,), joker_as))
    for meld in melds:
        for card in range(2 * CARDS_PER_DECK):
            assert could_attach((meld,), card) == can_attach(meld, card), (str(meld), card)
    for card in range(2 * CARDS_PER_DECK):
        assert could_attach(melds, card) == any(can_attach(m, card) for m in melds)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_rulesets(), st.integers(0, 2**32), st.integers(1, 15), st.booleans(), st.booleans())
def test_a_lay_down_leaves_what_its_operations_leave(
    rules: Ruleset, seed: int, size: int, opened: bool, takes: bool
) -> None:
    """The cards left, worked out before the operations are built (they are built when first
    asked for), are the hand less every card the operations put down; a lay-down is empty
    exactly when it has no operation, cannot be changed, and equals one made of its values."""
    rng = random.Random(seed)
    deck = list(range(rules.deck_size))
    rng.shuffle(deck)
    table = _table_from(rng, deck, rules)
    hand = deck[:size]
    # Both copies of a face, often: which of them stays in hand is what is checked.
    rest = set(deck[size:])
    hand += [twin for c in hand if (twin := (c + 54) % 108) in rest and rng.random() < 0.6]
    taken = hand[0] if takes else None
    found = search._search(
        hand, table, rules, opened=opened, by_points=False, taken=taken, first_turn=False
    )
    if found is None:
        return
    leftover, empty = found.leftover, found.is_empty
    laid = {c for op in found.operations for c in operation_cards(op)}
    assert leftover == tuple(c for c in hand if c not in laid)
    assert empty == (not found.operations)
    again = search.LayDown(found.operations, leftover, found.opening_points, found.relief)
    assert again == found and hash(again) == hash(found)
    with pytest.raises(AttributeError):
        found.relief = 0  # type: ignore[misc]


def test_a_lay_down_is_copied_and_pickled_with_its_operations() -> None:
    found = search.best_opening(CardPool().cards("9H 9D 9C 10S JS QS 4C"))
    assert found is not None
    for again in (copy.copy(found), copy.deepcopy(found), pickle.loads(pickle.dumps(found))):
        assert again == found and again.operations == found.operations
