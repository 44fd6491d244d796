"""The sampler, the shuffle and the cut: bounds, rejection, permutations and uniformity."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from scala40_net.fairdeal.spec import (
    Stream,
    WordSource,
    be32,
    derived_cut,
    rebuild_stock,
    sha256,
    shuffle,
    uniform,
)

Shuffler = Callable[[int, WordSource], list[int]]


class StubWords:
    """A stream that gives the listed words, in order."""

    def __init__(self, words: list[int]) -> None:
        self.words = list(words)
        self.taken = 0

    def next_word(self) -> int:
        self.taken += 1
        return self.words.pop(0)


def seeded_stream(label: bytes, n: int) -> Stream:
    return Stream(sha256(label + be32(n)))


def test_uniform_stays_below_its_bound_for_every_bound_up_to_108() -> None:
    stream = seeded_stream(b"bounds", 0)
    for bound in range(1, 109):
        for _ in range(200):
            assert 0 <= uniform(stream, bound) < bound


@pytest.mark.parametrize("bound", [3, 7, 54, 107, 108])
def test_uniform_rejects_words_at_or_above_the_limit(bound: int) -> None:
    limit = 2**32 - (2**32 % bound)
    stub = StubWords([limit, 2**32 - 1, limit - 1])
    assert uniform(stub, bound) == (limit - 1) % bound
    assert stub.taken == 3


def test_uniform_of_one_takes_one_word() -> None:
    stub = StubWords([2**32 - 1, 5])
    assert uniform(stub, 1) == 0
    assert stub.taken == 1


def test_uniform_refuses_an_empty_range() -> None:
    with pytest.raises(ValueError):
        uniform(StubWords([0]), 0)


@pytest.mark.parametrize("size", [0, 1, 2, 3, 13, 54, 108])
def test_every_shuffle_is_a_permutation_of_the_ids(size: int) -> None:
    for n in range(50):
        deck = shuffle(range(size), seeded_stream(b"perm", n))
        assert sorted(deck) == list(range(size))


def test_derived_cut_is_between_one_and_n_minus_one() -> None:
    for n in range(500):
        assert 1 <= derived_cut(seeded_stream(b"cut", n), 108) <= 107
    assert derived_cut(StubWords([0]), 2) == 1


def test_rebuild_keeps_the_top_card_out_and_the_rest_as_a_permutation() -> None:
    key = sha256(b"rebuild")
    pile = [90, 3, 77, 41, 12]
    stock = rebuild_stock(key, 1, pile)
    assert sorted(stock) == [3, 41, 77, 90]
    assert rebuild_stock(key, 1, [7]) == []
    assert rebuild_stock(key, 1, [7, 9]) == [7]
    # The order depends on the rebuild number and not on the pile's order below the top.
    assert rebuild_stock(key, 1, [41, 77, 3, 90, 12]) == stock
    assert rebuild_stock(key, 2, pile) != stock


# --- Uniformity -----------------------------------------------------------------------

DECK = 108
RUNS = 4000  # expected count per card and position: 37
Z_LIMIT = 5.0  # standard deviations of the chi-square statistic around its degrees of freedom


def chi_square_z(shuffler: Shuffler, size: int = DECK, runs: int = RUNS) -> float:
    """Chi-square of card-by-position counts, as a z-score around (size-1)^2 degrees of freedom."""
    counts = [[0] * size for _ in range(size)]
    for n in range(runs):
        deck = shuffler(size, seeded_stream(b"chi-square", n))
        for position, card in enumerate(deck):
            counts[card][position] += 1
    expected = runs / size
    statistic = sum((c - expected) ** 2 / expected for row in counts for c in row)
    freedom = (size - 1) ** 2
    return (statistic - freedom) / math.sqrt(2 * freedom)


def spec_shuffle(size: int, stream: WordSource) -> list[int]:
    return shuffle(range(size), stream)


def byte_modulo(size: int, stream: WordSource) -> list[int]:
    """Broken: one byte modulo the range, no rejection."""
    deck = list(range(size))
    for i in range(size - 1, 0, -1):
        j = (stream.next_word() & 0xFF) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def swap_with_any_position(size: int, stream: WordSource) -> list[int]:
    """Broken: every position swapped with any position of the whole deck."""
    deck = list(range(size))
    for i in range(size - 1, -1, -1):
        j = uniform(stream, size)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def off_by_one(size: int, stream: WordSource) -> list[int]:
    """Broken: ``uniform(i)`` instead of ``uniform(i+1)`` (a card can never stay put)."""
    deck = list(range(size))
    for i in range(size - 1, 0, -1):
        j = uniform(stream, i)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_spec_shuffle_passes_the_card_by_position_chi_square() -> None:
    assert abs(chi_square_z(spec_shuffle)) < Z_LIMIT


@pytest.mark.parametrize("mutant", [byte_modulo, swap_with_any_position, off_by_one])
def test_chi_square_catches_a_broken_shuffle(mutant: Shuffler) -> None:
    assert chi_square_z(mutant) > Z_LIMIT


def test_derived_cuts_are_uniform() -> None:
    runs = 107 * 60
    counts = [0] * 108
    for n in range(runs):
        counts[derived_cut(seeded_stream(b"cut-uniform", n), 108)] += 1
    assert counts[0] == 0
    expected = runs / 107
    statistic = sum((c - expected) ** 2 / expected for c in counts[1:])
    assert abs(statistic - 106) / math.sqrt(2 * 106) < Z_LIMIT
