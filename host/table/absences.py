"""Who is away from a table: grace periods for seats without a stream, and players coming back.

During a match a person's seat with no open event stream for the table's
``grace_seconds`` is handed to a host bot. A player whose seat a host bot
plays takes it back by opening a stream (reconnecting) after it went away,
at the next turn boundary (``Table.may_hand_back``); a stream that stayed
open while the turn clock ran out does not count, that player was not there.
This object only keeps the times and says what is due; the table's task runs
the changes as jobs, journaled like any other.
"""

from __future__ import annotations

import asyncio

from host.table.links import Presence
from host.table.table import Table
from scala40_net.pb import lobby_pb2


class Absences:
    """Since when each person's seat has had no stream, and who reconnected while away."""

    def __init__(self) -> None:
        self._gone_since: dict[int, float] = {}
        self._away: set[int] = set()  # the seats a host bot plays for their player
        self._came_back: set[int] = set()  # of those, the ones whose player opened a stream

    def stream_opened(self, seat: int) -> None:
        """The seat's player opened an event stream: back, if a host bot plays for them."""
        if seat in self._away:
            self._came_back.add(seat)

    def watch(self, table: Table, presence: Presence) -> list[int]:
        """After a job: start or stop each seat's grace period; the seats to hand back now."""
        now = asyncio.get_running_loop().time()
        connected = presence.connected_seats()
        playing = table.state.phase == lobby_pb2.TABLE_PHASE_PLAYING
        back = []
        for seat in table.state.seats:
            n = seat.number
            person = seat.taken and not seat.is_bot
            if not (playing and person) or seat.away or n in connected:
                self._gone_since.pop(n, None)
            else:
                self._gone_since.setdefault(n, now)
            if not (playing and person and seat.away) or seat.away == lobby_pb2.AWAY_REASON_LEFT:
                self._away.discard(n)
                self._came_back.discard(n)
                continue
            self._away.add(n)  # from now on, only a stream opened brings the player back
            if n in self._came_back and n in connected and table.may_hand_back(n):
                self._came_back.discard(n)
                back.append(n)
        return back

    def more_time(self, seat: int) -> None:
        """The seat's grace period starts again from now."""
        if seat in self._gone_since:
            self._gone_since[seat] = asyncio.get_running_loop().time()

    def remaining(self, grace_seconds: float) -> float | None:
        """Seconds until the next grace period ends; None when none runs."""
        if not self._gone_since:
            return None
        now = asyncio.get_running_loop().time()
        return max(0.0, min(self._gone_since.values()) + grace_seconds - now)

    def due(self, grace_seconds: float) -> list[int]:
        """The seats whose grace period is over."""
        now = asyncio.get_running_loop().time()
        return [s for s, since in self._gone_since.items() if now - since >= grace_seconds]
