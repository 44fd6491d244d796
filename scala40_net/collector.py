"""Python's garbage collector kept out of the way of a long-lived process (a host, a bot).

A full collection walks every object the collector tracks, and the bots' search
caches and a host's tables are many: measured (``bench/bench_gc.py``), the
slowest hard-bot decisions each had a full collection of 70–700 ms in them
(the more so the busier the machine). What survives a collection of the
middle generation (or a full one) is live, so it is frozen (``gc.freeze``,
which costs nothing) instead of going on to the oldest generation, and no
full collection is due. Frozen objects are never collected: so that a cycle
among them that later became garbage (a table gone, say) is not kept for
ever, after ``THAW_EVERY`` such collections they are all thawed, and the next
full collection walks everything, as Python's own would about 16 times as often.
A process opts in once, from its entry point (never a library or a test's
process: the collector is the whole process's).
"""

from __future__ import annotations

import gc
from typing import Any

# After this many collections whose survivors were frozen, they are all thawed: the next
# full collection walks everything (and collects the cycles among them that became
# garbage), and freezing starts again after it. Python's own collector walks everything
# about every tenth collection of the middle generation while the heap grows.
THAW_EVERY = 160


class Settler:
    """The ``gc.callbacks`` entry that freezes the survivors of each collection of the middle
    and the oldest generation, and thaws everything every ``thaw_every``-th of them."""

    def __init__(self, thaw_every: int = THAW_EVERY) -> None:
        self.thaw_every = thaw_every
        self.settled = 0  # collections whose survivors were frozen since the last thaw
        self.thawed = False  # everything thawed, until a full collection has walked it
        self.full = 0  # full collections seen

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        generation = info.get("generation", 0)
        if phase != "stop" or generation == 0:
            return
        if generation == 2:
            self.full += 1
        if self.thawed:
            if generation == 2:  # everything walked: freezing starts again
                self.thawed = False
                self.settled = 0
                gc.freeze()
            return
        self.settled += 1
        if self.settled >= self.thaw_every:
            gc.unfreeze()  # the next full collection walks (and may collect) everything
            self.thawed = True
        else:
            # What survived is live and would go on to the oldest generation: frozen now,
            # out of every full collection's way.
            gc.freeze()


def keep_out_of_the_way(thaw_every: int = THAW_EVERY) -> Settler:
    """From now on, what survives the collections of the older two generations is frozen;
    what exists now (imports, tables played back) is collected once and frozen at once.
    Returns the callback (for ``let_be``)."""
    gc.collect()
    gc.freeze()
    settler = Settler(thaw_every)
    gc.callbacks.append(settler)
    return settler


def let_be(settler: Settler) -> None:
    """Undo ``keep_out_of_the_way``: the collector as Python has it, every object thawed."""
    if settler in gc.callbacks:
        gc.callbacks.remove(settler)
    gc.unfreeze()
