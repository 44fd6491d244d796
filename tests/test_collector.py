"""The collector kept out of a long-lived process's way: the survivors of a full collection are
frozen out of the next ones, and a cycle among them that became garbage is still collected
at a thaw."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from scala40_net import collector


class Node:
    """An object in a cycle with itself: only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def settled() -> Iterator[collector.Settler]:
    settler = collector.keep_out_of_the_way(thaw_every=3)
    try:
        yield settler
    finally:
        collector.let_be(settler)


def test_what_outlives_a_full_collection_is_frozen_out_of_the_next(
    settled: collector.Settler,
) -> None:
    kept = [[n] for n in range(1000)]
    assert any(d is kept[0] for g in (0, 1, 2) for d in gc.get_objects(generation=g))
    gc.collect()
    assert gc.get_freeze_count() >= len(kept)
    assert not any(d is kept[0] for g in (0, 1, 2) for d in gc.get_objects(generation=g))


def test_what_outlives_a_collection_of_the_middle_generation_is_frozen_too(
    settled: collector.Settler,
) -> None:
    kept = [[n] for n in range(1000)]
    gc.collect(1)
    assert not any(d is kept[0] for g in (0, 1, 2) for d in gc.get_objects(generation=g))
    assert settled.full == 0  # no full collection was needed for it


def test_a_frozen_cycle_that_became_garbage_is_collected_at_a_thaw(
    settled: collector.Settler,
) -> None:
    node = Node()
    alive = weakref.ref(node)
    gc.collect()  # the node survives it, and is frozen
    del node
    gc.collect()  # frozen objects are not walked
    assert alive() is not None
    gc.collect()  # the third since (thaw_every=3): everything thawed after it
    assert alive() is not None and settled.thawed
    gc.collect()  # the next full collection walks everything
    assert alive() is None
    assert not settled.thawed and gc.get_freeze_count() > 0  # freezing again


def test_a_process_with_no_full_collection_due_still_thaws() -> None:
    """Survivors frozen at every collection of the middle generation leave no full collection
    due: the thaw is counted in those collections, not in full ones."""
    settler = collector.keep_out_of_the_way(thaw_every=2)
    try:
        node = Node()
        alive = weakref.ref(node)
        gc.collect(1)
        del node
        gc.collect(1)  # the second: everything thawed
        assert settler.thawed and settler.full == 0
        gc.collect()
        assert alive() is None
    finally:
        collector.let_be(settler)


def test_let_be_gives_the_collector_back_as_it_was() -> None:
    settler = collector.keep_out_of_the_way()
    collector.let_be(settler)
    assert settler not in gc.callbacks
    assert gc.get_freeze_count() == 0
