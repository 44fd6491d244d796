"""Python's garbage collector kept out of the way of a long-lived process (a host, a bot).

A full collection walks every object the collector tracks, and the bots' search
caches and a host's tables are many: measured (``bench/bench_gc.py``), nearly
every hard-bot decision over 50 ms was a full collection of 70–130 ms in it.
What survived a collection of the middle generation (or a full one) is live,
so it is frozen (``gc.freeze``, which costs nothing) instead of going on to
the oldest generation, and a full collection walks next to nothing. Frozen objects are never collected: so that a cycle among them that
later became garbage (a table gone, say) is not kept for ever, every
``THAW_EVERY``-th full collection first thaws them all and walks everything.
A process opts in once, from its entry point (never a library or a test's
process: the collector is the whole process's).
"""

from __future__ import annotations

import gc
from typing import Any

# One full collection in this many walks every object again (the others walk only what is
# new since the last): the one that collects the cycles among frozen objects.
THAW_EVERY = 16


class Settler:
    """The ``gc.callbacks`` entry that freezes the survivors of each collection of the
    middle and the oldest generation, and thaws everything every ``thaw_every``-th full one."""

    def __init__(self, thaw_every: int = THAW_EVERY) -> None:
        self.thaw_every = thaw_every
        self.full = 0  # full collections seen

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        generation = info.get("generation", 0)
        if phase == "start":
            if generation == 2:
                self.full += 1
                if self.full % self.thaw_every == 0:
                    gc.unfreeze()  # this one walks (and may collect) everything
        elif generation >= 1:
            # What survived a collection of the middle generation or the oldest is live and
            # would go on to the oldest: frozen now, out of every full collection's way.
            gc.freeze()


def keep_out_of_the_way(thaw_every: int = THAW_EVERY) -> Settler:
    """From now on, what survives the collections of the older two generations is frozen;
    what exists now (imports, tables played back) is collected once and frozen at once. Returns the callback (for
    ``let_be``)."""
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
