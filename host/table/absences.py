"""Who is away from a table: grace periods for seats without a stream, and players coming back.

During a match a person's seat with no open event stream for the table's
``grace_seconds`` is handed to a host bot. A player whose seat a host bot
plays takes it back by opening a stream (reconnecting) after it went away,
at the next turn boundary (``Table.may_hand_back``; of the next match, for a
stream opened after the match); a stream that stayed open while the turn
clock ran out does not count, that player was not there.
This object only keeps the times and says what is due; the table's task runs
the changes as jobs, journaled like any other.

More time (``DecideAbsence``) is bounded: ``MORE_TIME_PER_DEAL`` times per seat
per deal, and a grace period never ends later than two grace periods after the
stream went away, so no seat holds the table longer than its clock plus the grace
period, whatever is decided.
"""

from __future__ import annotations

import asyncio

from host.table.links import Presence
from host.table.table import Table
from scala40_net.pb import lobby_pb2

# How many times the deciding seat may give one absent seat more time in one deal.
MORE_TIME_PER_DEAL = 2


class Absences:
    """Since when each person's seat has had no stream, and who reconnected while away."""

    def __init__(self) -> None:
        self._gone_since: dict[int, float] = {}  # when each grace period counts from
        self._gone_at: dict[int, float] = {}  # when each seat's stream went away
        self._extensions: dict[int, tuple[int, int]] = {}  # seat: (deal, more times given)
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
                self._gone_at.pop(n, None)
            else:
                self._gone_since.setdefault(n, now)
                self._gone_at.setdefault(n, now)
            # A seat stays away after the match (its stand-in agrees to a rematch, and plays
            # it on): a player back meanwhile takes it in the next match. A seat handed with
            # its keys to a stand-in (a private table's) is never handed back.
            if (
                not (person and seat.away)
                or seat.away == lobby_pb2.AWAY_REASON_LEFT
                or seat.stand_in
            ):
                self._away.discard(n)
                self._came_back.discard(n)
                continue
            self._away.add(n)  # from now on, only a stream opened brings the player back
            if playing and n in self._came_back and n in connected and table.may_hand_back(n):
                self._came_back.discard(n)
                back.append(n)
        return back

    def more_time(self, seat: int, deal_no: int, grace_seconds: float) -> bool:
        """The seat's grace period starts again from now, within its bounds; False (nothing
        changed) when the seat had its ``MORE_TIME_PER_DEAL`` this deal."""
        deal, given = self._extensions.get(seat, (deal_no, 0))
        if deal != deal_no:
            given = 0
        if given >= MORE_TIME_PER_DEAL:
            return False
        self._extensions[seat] = (deal_no, given + 1)
        if seat in self._gone_since:
            latest = self._gone_at.get(seat, self._gone_since[seat]) + grace_seconds
            self._gone_since[seat] = min(asyncio.get_running_loop().time(), latest)
        return True

    def retry(self, seat: int) -> None:
        """The hand-over could not be saved: tried again a grace period from now."""
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
