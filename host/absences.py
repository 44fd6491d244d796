"""Who is away from a table: grace periods for seats without a stream, and players coming back.

During a match a person's seat with no open event stream for the table's
``grace_seconds`` is handed to a host bot; a player whose seat a host bot
plays takes it back by opening a stream, at the next turn boundary
(``Table.may_hand_back``). This object only keeps the times and says what is
due; the table's task runs the changes as jobs, journaled like any other.
"""

from __future__ import annotations

import asyncio

from host.table import Table
from host.table_core import Presence
from scala40_net.pb import lobby_pb2


class Absences:
    """Since when each person's seat has had no stream, during a match."""

    def __init__(self) -> None:
        self._gone_since: dict[int, float] = {}

    def watch(self, table: Table, presence: Presence) -> list[int]:
        """After a job: start or stop each seat's grace period; the seats to hand back now."""
        now = asyncio.get_running_loop().time()
        connected = presence.connected_seats()
        playing = table.phase == lobby_pb2.TABLE_PHASE_PLAYING
        back = []
        for seat in table.seats:
            person = seat.taken and not seat.is_bot
            if not (playing and person) or seat.away or seat.number in connected:
                self._gone_since.pop(seat.number, None)
            else:
                self._gone_since.setdefault(seat.number, now)
            returning = seat.away and seat.away != lobby_pb2.AWAY_REASON_LEFT
            if (
                playing
                and returning
                and seat.number in connected
                and table.may_hand_back(seat.number)
            ):
                back.append(seat.number)
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
