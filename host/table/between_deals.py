"""The pause between two deals: it lasts until every person waited for is ready, or time is up.

A table hands it the people to wait for when a deal ends with another one due;
the table keeps the clock (its one deadline) and asks ``over`` after each
``ready``. Bots never hold a deal up, nor does a seat out of the match (busted),
so a table with no person connected and playing does not pause at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scala40_net.pb import table_pb2

DEFAULT_SECONDS = 20.0


@dataclass
class BetweenDeals:
    """Who the next deal waits for, and who of them has said Ready."""

    seconds: float = DEFAULT_SECONDS
    waiting_for: frozenset[int] = frozenset()
    ready: set[int] = field(default_factory=set)
    running: bool = False

    def begin(self, people: set[int]) -> bool:
        """Start a pause for ``people``; False (no pause) when there is nobody to wait for."""
        self.ready = set()
        self.waiting_for = frozenset(people)
        self.running = self.seconds > 0 and bool(people)
        return self.running

    def say_ready(self, seat: int) -> bool:
        """``seat`` is ready; True once the last person waited for is."""
        if seat in self.waiting_for:
            self.ready.add(seat)
        return self.over

    def left(self, seat: int) -> bool:
        """``seat`` is no longer there to say Ready; True once everyone still there is ready.
        When nobody is left (all gone, or the host shutting down) the clock decides: someone
        may come back to read the end of the deal."""
        self.waiting_for = self.waiting_for - {seat}
        self.ready.discard(seat)
        return bool(self.waiting_for) and self.over

    @property
    def over(self) -> bool:
        return self.waiting_for <= self.ready

    def end(self) -> None:
        self.running = False
        self.ready = set()
        self.waiting_for = frozenset()

    def to_pb(self, seconds_left: float) -> table_pb2.BetweenDeals:
        return table_pb2.BetweenDeals(
            next_deal_within_ms=round(seconds_left * 1000),
            waiting_for_seats=sorted(self.waiting_for),
            ready_seats=sorted(self.ready),
        )
