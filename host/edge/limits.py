"""What one stranger may consume, and how often a thing is said in the log.

Every limit here answers ``RESOURCE_EXHAUSTED`` with a sentence once passed,
and touches only the caller that passed it: everyone else is served as before.
The figures are the host's (documented in docs/PROTOCOL.md "Limits").
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

import grpc

from host.edge.errors import Refusal

# Requests per second on one connection, and for one seat (bursts up to twice that pass):
# far above what a person or a bot plays at, low enough that one connection cannot take
# the host's two cores from everyone else.
REQUESTS_PER_SECOND = 500.0
SEAT_REQUESTS_PER_SECOND = 300.0
# Open event streams on one connection.
STREAMS_PER_CONNECTION = 8
# New tables per client address per minute.
TABLES_PER_MINUTE = 10
# Wrong tokens or table passwords per client address per minute, before it must wait.
WRONG_GUESSES_PER_MINUTE = 20
# Chat lines per seat per minute.
CHAT_LINES_PER_MINUTE = 20
# Seat changes (joining, leaving, seating a bot, freeing a seat) per address per table per
# minute: a group sits down in a few, while churn from one address cannot flood a table.
SEAT_CHANGES_PER_MINUTE = 12
# Spectators per table.
SPECTATORS_PER_TABLE = 20
# How often one kind of log line is written for one peer.
LOG_EVERY_SECONDS = 60.0


def address_of(peer: str) -> str:
    """The client's address from a gRPC peer string (``ipv4:1.2.3.4:5678``), port dropped."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    return peer


@dataclass
class Window:
    """How many times each key did something in the last ``seconds``."""

    limit: int
    seconds: float = 60.0
    _times: dict[str, deque[float]] = field(default_factory=dict)

    def count(self, key: str) -> int:
        times = self._times.get(key)
        if times is None:
            return 0
        cutoff = time.monotonic() - self.seconds
        while times and times[0] < cutoff:
            times.popleft()
        if not times:
            del self._times[key]
            return 0
        return len(times)

    def full(self, key: str) -> bool:
        return self.count(key) >= self.limit

    def note(self, key: str) -> None:
        self.count(key)  # drop the old ones first
        self._times.setdefault(key, deque()).append(time.monotonic())
        if len(self._times) > 10_000:  # many keys seen once: forget the quietest
            for stale in [k for k, v in self._times.items() if len(v) <= 1][:5_000]:
                del self._times[stale]

    def take(self, key: str, reason: str, sentence: str) -> None:
        """Note one more for ``key``, or refuse it when the window is full."""
        if self.full(key):
            raise Refusal(grpc.StatusCode.RESOURCE_EXHAUSTED, reason, sentence)
        self.note(key)


@dataclass
class Bucket:
    """A token bucket per key: ``rate`` a second, bursts up to ``burst``."""

    rate: float
    burst: float
    _state: dict[str, tuple[float, float]] = field(default_factory=dict)

    def take(self, key: str, reason: str, sentence: str) -> None:
        now = time.monotonic()
        tokens, last = self._state.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens < 1.0:
            self._state[key] = (tokens, now)
            raise Refusal(grpc.StatusCode.RESOURCE_EXHAUSTED, reason, sentence)
        self._state[key] = (tokens - 1.0, now)

    def forget(self, key: str) -> None:
        self._state.pop(key, None)


@dataclass
class OncePer:
    """Says whether a log line about ``key`` is due: at most once per ``seconds``."""

    seconds: float = LOG_EVERY_SECONDS
    _last: dict[str, float] = field(default_factory=dict)

    def due(self, key: str) -> bool:
        now = time.monotonic()
        if now - self._last.get(key, -self.seconds) < self.seconds:
            return False
        self._last[key] = now
        if len(self._last) > 10_000:
            self._last.clear()
        return True


@dataclass
class Limits:
    """The host's limits, shared by its services (a benchmark, whose one client plays a
    hundred tables, raises them)."""

    requests_per_second: float = REQUESTS_PER_SECOND
    seat_requests_per_second: float = SEAT_REQUESTS_PER_SECOND
    wrong_guesses_per_minute: int = WRONG_GUESSES_PER_MINUTE
    tables_per_minute: int = TABLES_PER_MINUTE
    streams_per_connection: int = STREAMS_PER_CONNECTION
    requests: Bucket = field(init=False)
    seat_requests: Bucket = field(init=False)
    guesses: Window = field(init=False)
    tables: Window = field(init=False)
    chat: Window = field(default_factory=lambda: Window(CHAT_LINES_PER_MINUTE))
    seat_changes: Window = field(default_factory=lambda: Window(SEAT_CHANGES_PER_MINUTE))
    log: OncePer = field(default_factory=OncePer)
    streams: dict[str, int] = field(default_factory=dict)  # open streams by connection

    def __post_init__(self) -> None:
        self.guesses = Window(self.wrong_guesses_per_minute)
        self.tables = Window(self.tables_per_minute)
        self.requests = Bucket(self.requests_per_second, 2 * self.requests_per_second)
        self.seat_requests = Bucket(
            self.seat_requests_per_second, 2 * self.seat_requests_per_second
        )

    def request(self, peer: str) -> None:
        self.requests.take(
            peer,
            "TOO_MANY_REQUESTS",
            f"more than {self.requests_per_second:.0f} requests a second on this connection: "
            "slow down",
        )

    def seat_request(self, table_id: str, seat: int | None) -> None:
        self.seat_requests.take(
            f"{table_id}/{seat}",
            "TOO_MANY_REQUESTS",
            f"more than {self.seat_requests_per_second:.0f} requests a second for one seat: "
            "slow down",
        )

    def guessing(self, peer: str) -> None:
        """Refuse an address that sent too many wrong tokens or passwords this minute."""
        if self.guesses.full(address_of(peer)):
            raise Refusal(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "TOO_MANY_WRONG_GUESSES",
                f"more than {self.wrong_guesses_per_minute} wrong tokens or passwords from your "
                "address this minute: wait a minute",
            )

    def wrong_guess(self, peer: str) -> None:
        self.guesses.note(address_of(peer))

    def new_table(self, peer: str) -> None:
        self.tables.take(
            address_of(peer),
            "TOO_MANY_NEW_TABLES",
            f"at most {self.tables_per_minute} new tables a minute from one address: wait a little",
        )

    def chat_line(self, table_id: str, seat: int) -> None:
        self.chat.take(
            f"{table_id}/{seat}",
            "TOO_MUCH_CHAT",
            f"at most {CHAT_LINES_PER_MINUTE} chat lines a minute per seat",
        )

    def seat_change(self, table_id: str, peer: str) -> None:
        """One more join, leave, bot seated or seat freed at ``table_id`` from this address."""
        self.seat_changes.take(
            f"{table_id}/{address_of(peer)}",
            "TOO_MANY_SEAT_CHANGES",
            f"at most {SEAT_CHANGES_PER_MINUTE} seat changes a minute at one table from one "
            "address: wait a little",
        )

    def stream_opened(self, peer: str) -> None:
        open_now = self.streams.get(peer, 0)
        if open_now >= self.streams_per_connection:
            raise Refusal(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "TOO_MANY_STREAMS",
                f"at most {self.streams_per_connection} event streams on one connection",
            )
        self.streams[peer] = open_now + 1

    def stream_closed(self, peer: str) -> None:
        left = self.streams.get(peer, 1) - 1
        if left <= 0:
            self.streams.pop(peer, None)
        else:
            self.streams[peer] = left
