"""What one stranger may consume, and how often a thing is said in the log.

Every limit here answers ``RESOURCE_EXHAUSTED`` with a sentence once passed,
and touches only the caller that passed it: everyone else is served as before.
The figures are the host's (documented in docs/PROTOCOL.md "Limits").
"""

from __future__ import annotations

import asyncio
import ipaddress
import random
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

import grpc

from host.edge.errors import Refusal

# Requests per second from one client address, whatever the number of its connections, and
# for one seat (bursts up to twice that pass): far above what a person or a bot plays at, low
# enough that one address cannot take the host's two cores from everyone else.
REQUESTS_PER_SECOND = 500.0
SEAT_REQUESTS_PER_SECOND = 300.0
# A call refused for a rate is answered after about this pause (half to one and a half times
# it, drawn per call, so that the calls refused together do not come back together): a
# flood's calls in progress mostly wait, taking no CPU, instead of queuing at the host before
# everyone else's. At most this many wait at once for one address (the rest are answered at
# once).
SLOW_DOWN_SECONDS = 1.0
SLOWED_PER_ADDRESS = 256
# Open event streams on one connection, for one seat (over all its connections: a second
# window, a reconnect racing the old connection), and from one client address.
STREAMS_PER_CONNECTION = 8
STREAMS_PER_SEAT = 8
STREAMS_PER_ADDRESS = 64
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
# A connection's TLS handshake must be done within this (gRPC's default: 120 s, which let
# half-finished handshakes hold the host's descriptors), and one with no call in progress for
# this long is closed (a client reconnects by itself on its next call).
HANDSHAKE_SECONDS = 10.0
IDLE_SECONDS = 60.0
# Descriptors kept from connections for the journals: each live table's journal holds up to
# three (the file, its WAL and shared memory), and a few more for what the host opens besides.
DESCRIPTORS_PER_TABLE = 3
DESCRIPTORS_SPARE = 256
# Connections one client address may hold at once (a person's screen holds one, a machine of
# bots one each), at most a quarter of the host's cap: one address cannot take every
# connection. How often the host counts them (host/edge/connections.py: a look costs a few ms
# of the kernel's time on a machine with many sockets), and how often while an address holds
# its share: a flood's connections past the share last about that long.
CONNECTIONS_PER_ADDRESS = 32
CONNECTION_SWEEP_SECONDS = 1.0
CONNECTION_ALERT_SECONDS = 0.25
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

    def give_back(self, key: str) -> None:
        """Forget the latest one noted for ``key`` (it turned out not to count)."""
        times = self._times.get(key)
        if times:
            times.pop()
            if not times:
                del self._times[key]


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
class Held:
    """How many of a thing each key holds open at once, up to ``limit``."""

    limit: int
    what: str  # "on one connection": how the refusal names the key
    _open: dict[str, int] = field(default_factory=dict)

    def room(self, key: str) -> Refusal | None:
        """The refusal of one more for ``key``, or None when there is room."""
        if self._open.get(key, 0) < self.limit:
            return None
        return Refusal(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "TOO_MANY_STREAMS",
            f"at most {self.limit} event streams {self.what}",
        )

    def opened(self, key: str) -> None:
        self._open[key] = self._open.get(key, 0) + 1

    def closed(self, key: str) -> None:
        left = self._open.get(key, 1) - 1
        if left <= 0:
            self._open.pop(key, None)
        else:
            self._open[key] = left


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
class Callers:
    """The order in which client connections (a peer: address and port) made their first
    call, so that the connections kept at an address's cap are those that called first
    (``connections.ConnectionGuard``). A look per call is one dict lookup of gRPC's peer
    string; the peers of closed connections go at each sweep (``ranks``), and at ``bound``
    peers the oldest is forgotten first."""

    bound: int = 8192
    _rank: dict[str, int] = field(default_factory=dict)
    _next: int = 0

    def called(self, peer: str) -> None:
        if peer in self._rank:
            return
        if len(self._rank) >= self.bound:
            del self._rank[next(iter(self._rank))]
        self._rank[peer] = self._next
        self._next += 1

    def ranks(self, live: Iterable[tuple[str, int]]) -> dict[tuple[str, int], int]:
        """The rank of each of the ``live`` peers (client address, port) that has called;
        every other peer is forgotten."""
        wanted = set(live)
        found = {}
        for peer, rank in list(self._rank.items()):
            key = peer_of(peer)
            if key in wanted:
                found[key] = rank
            else:
                del self._rank[peer]
        return found


def peer_of(peer: str) -> tuple[str, int] | None:
    """A gRPC peer string (``ipv4:1.2.3.4:5678``, ``ipv6:[::1]:5678``) as the kernel's table
    names the connection: its address (an IPv4 client of an IPv6 socket as IPv4) and port."""
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return None
    host, _, port = rest.rpartition(":")
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return (str(address), int(port)) if port.isdigit() else None


def connection_cap(descriptors: int, tables: int) -> int:
    """How many connections the host accepts at once, when it may open ``descriptors`` files
    and run ``tables`` live tables: the rest is kept for the journals (at least 16 remain)."""
    return max(16, descriptors - DESCRIPTORS_PER_TABLE * tables - DESCRIPTORS_SPARE)


def connections_per_address(cap: int) -> int:
    """How many connections one client address may hold when the host takes ``cap``."""
    return max(2, min(CONNECTIONS_PER_ADDRESS, cap // 4))


@dataclass
class Limits:
    """The host's limits, shared by its services (a benchmark, whose one client plays a
    hundred tables, raises them)."""

    requests_per_second: float = REQUESTS_PER_SECOND
    seat_requests_per_second: float = SEAT_REQUESTS_PER_SECOND
    wrong_guesses_per_minute: int = WRONG_GUESSES_PER_MINUTE
    tables_per_minute: int = TABLES_PER_MINUTE
    streams_per_connection: int = STREAMS_PER_CONNECTION
    streams_per_seat: int = STREAMS_PER_SEAT
    streams_per_address: int = STREAMS_PER_ADDRESS
    handshake_seconds: float = HANDSHAKE_SECONDS
    idle_seconds: float = IDLE_SECONDS
    # Connections at once; None: what the descriptors allow (``connection_cap``).
    max_connections: int | None = None
    # Connections at once from one client address; None: ``connections_per_address`` of the
    # cap; 0: not counted.
    max_connections_per_address: int | None = None
    connection_sweep_seconds: float = CONNECTION_SWEEP_SECONDS
    connection_alert_seconds: float = CONNECTION_ALERT_SECONDS
    slow_down_seconds: float = SLOW_DOWN_SECONDS
    _slowed: dict[str, int] = field(default_factory=dict, init=False)  # waiting, by address
    requests: Bucket = field(init=False)
    seat_requests: Bucket = field(init=False)
    guesses: Window = field(init=False)
    tables: Window = field(init=False)
    chat: Window = field(default_factory=lambda: Window(CHAT_LINES_PER_MINUTE))
    seat_changes: Window = field(default_factory=lambda: Window(SEAT_CHANGES_PER_MINUTE))
    log: OncePer = field(default_factory=OncePer)
    callers: Callers = field(default_factory=Callers)  # for the connections kept at a cap
    streams: tuple[Held, Held, Held] = field(init=False)  # by connection, seat, address

    def __post_init__(self) -> None:
        self.streams = (
            Held(self.streams_per_connection, "on one connection"),
            Held(self.streams_per_seat, "for one seat"),
            Held(self.streams_per_address, "from one address"),
        )
        self.guesses = Window(self.wrong_guesses_per_minute)
        self.tables = Window(self.tables_per_minute)
        self.requests = Bucket(self.requests_per_second, 2 * self.requests_per_second)
        self.seat_requests = Bucket(
            self.seat_requests_per_second, 2 * self.seat_requests_per_second
        )

    def request(self, peer: str) -> None:
        self.callers.called(peer)
        self.requests.take(
            address_of(peer),
            "TOO_MANY_REQUESTS",
            f"more than {self.requests_per_second:.0f} requests a second from your address: "
            "slow down",
        )

    async def slow_down(self, peer: str) -> None:
        """Before answering a call refused for a rate: wait, unless its address already has
        ``SLOWED_PER_ADDRESS`` calls waiting."""
        address = address_of(peer)
        waiting = self._slowed.get(address, 0)
        if waiting >= SLOWED_PER_ADDRESS or self.slow_down_seconds <= 0:
            return
        self._slowed[address] = waiting + 1
        try:
            await asyncio.sleep(self.slow_down_seconds * random.uniform(0.5, 1.5))
        finally:
            left = self._slowed[address] - 1
            if left:
                self._slowed[address] = left
            else:
                del self._slowed[address]

    def seat_request(self, table_id: str, seat: int | None) -> None:
        self.seat_requests.take(
            f"{table_id}/{seat}",
            "TOO_MANY_REQUESTS",
            f"more than {self.seat_requests_per_second:.0f} requests a second for one seat: "
            "slow down",
        )

    def guess(self, peer: str) -> None:
        """Count one guess (a token or password not yet checked) from the caller's address, or
        refuse it when the address guessed too often this minute.

        Counted before it is checked, so that guesses sent at once cannot all pass the
        check while the slow ones (scrypt) run; a guess that turns out right is given back
        (``right_guess``).
        """
        self.guesses.take(
            address_of(peer),
            "TOO_MANY_WRONG_GUESSES",
            f"more than {self.wrong_guesses_per_minute} wrong tokens or passwords from your "
            "address this minute: wait a minute",
        )

    def right_guess(self, peer: str) -> None:
        """A guess counted by ``guess`` was right: it does not count toward the lockout."""
        self.guesses.give_back(address_of(peer))

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

    def _stream_keys(self, peer: str, table_id: str, seat: int | None) -> list[str]:
        """The keys one stream counts under: its connection, its seat (empty for a
        spectator, who has none), its address, in the order of ``streams``."""
        return [peer, f"{table_id}/{seat}" if seat is not None else "", address_of(peer)]

    def stream_opened(self, peer: str, table_id: str, seat: int | None) -> None:
        """Count one more open event stream, or refuse it when one of its keys has no room."""
        keys = self._stream_keys(peer, table_id, seat)
        for held, key in zip(self.streams, keys, strict=True):
            refusal = held.room(key) if key else None
            if refusal is not None:
                raise refusal
        for held, key in zip(self.streams, keys, strict=True):
            if key:
                held.opened(key)

    def stream_closed(self, peer: str, table_id: str, seat: int | None) -> None:
        keys = self._stream_keys(peer, table_id, seat)
        for held, key in zip(self.streams, keys, strict=True):
            if key:
                held.closed(key)
