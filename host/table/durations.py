"""Every duration a table accepts (CreateTableRequest, in seconds), each with its range.

CreateTable refuses a value outside its range (INVALID_ARGUMENT, naming the
field and the range), so every clock a table runs fits the milliseconds it is
told in (uint32) with room to spare. A journal written before a range existed
is played back with its value held to the range (``held``), so such a table
still plays instead of breaking at its first pause.
"""

from __future__ import annotations

from dataclasses import dataclass

from host.edge.errors import malformed
from host.edge.refusal_words import SETTING_RANGE, SETTING_RANGE_OR_OFF
from scala40_net.pb import lobby_pb2


@dataclass(frozen=True)
class Duration:
    """A duration field's range: ``low``..``high`` seconds, and 0 when it may be turned off."""

    low: int
    high: int
    off: str | None = None  # what 0 means, when 0 is allowed

    @property
    def text(self) -> str:
        span = f"{self.low}..{self.high}"
        return f"0 ({self.off}) or {span}" if self.off else span

    def admits(self, value: int) -> bool:
        return (self.off is not None and value == 0) or self.low <= value <= self.high


# Ten minutes at most, each: longer than anyone reads the end of a deal or thinks over a turn.
DURATIONS: dict[str, Duration] = {
    "turn_seconds": Duration(2, 600, off="no clock"),
    "grace_seconds": Duration(1, 600),
    "between_deals_seconds": Duration(1, 600, off="no pause"),
}


def check(request: lobby_pb2.CreateTableRequest) -> None:
    """Refuse a table whose durations are out of their ranges, naming the first one."""
    for name, allowed in DURATIONS.items():
        if request.HasField(name) and not allowed.admits(getattr(request, name)):
            refusal = malformed(f"{name} is {allowed.text}, not {getattr(request, name)}")
            words = SETTING_RANGE_OR_OFF if allowed.off else SETTING_RANGE
            refusal.words = (words, {"name": name, "low": allowed.low, "high": allowed.high})
            raise refusal


def held(name: str, value: int) -> int:
    """``value`` held to the range of ``name`` (a journal older than the ranges)."""
    allowed = DURATIONS[name]
    if allowed.admits(value):
        return value
    return min(max(value, allowed.low), allowed.high)
