"""The one deadline a table waits for (a fair-deal step, a rientro answer), on the loop's clock.

It is kept as the event loop's monotonic time, never as a wall-clock time, and
clients are only ever told what is left of it (a duration).
"""

from __future__ import annotations

import asyncio


class Deadline:
    """Armed for some seconds from now, or not armed; the table's task sleeps until it is due."""

    def __init__(self) -> None:
        self._at: float | None = None

    def arm(self, seconds: float) -> None:
        self._at = asyncio.get_running_loop().time() + seconds

    def clear(self) -> None:
        self._at = None

    @property
    def armed(self) -> bool:
        return self._at is not None

    def remaining(self) -> float:
        """Seconds left (0 when not armed or already due)."""
        if self._at is None:
            return 0.0
        return max(0.0, self._at - asyncio.get_running_loop().time())
