"""A seat's event stream that outlives its connections: reopened after the last event seen.

``ResumableStream.once`` follows one SubscribeEvents stream, after the seq
``last_seq()`` says, handing each event on in order; the stream is read by a
task of its own, so it keeps flowing while the seat waits on its own calls.
``follow`` opens it again whenever it ends or drops, after the pauses of
``link.BACKOFF_SECONDS``, until it is closed or the seat is done: the host
sends only what came after, so nothing is missed and nothing is applied twice.
A stream that connects or delivers anything ends an outage; one that lasts
longer than the seat's patience is given up (``HostLost``), and a refusal the
seat cannot outwait (its token unknown, say) is raised, as is, by every seat, a host
at the address that is not the one pinned (``HostChanged``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import grpc

from scala40_net.pb import table_pb2
from scala40_net.seat.link import GrpcTable, backoff
from scala40_net.seat.refusal import HostRefusal, Trouble, refusal_from_error

# A stream that ended with one of these is opened again: the host is gone for a moment
# (restarting), the connection dropped, or the stream fell behind.
RECONNECT_CODES = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.UNKNOWN,
    }
)
# The host does not know this token (any more), or it may not follow this table: no
# reconnecting changes that.
SEAT_REFUSED = frozenset({grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED})


def gives_up_unless_reconnecting(refusal: HostRefusal) -> bool:
    """A seat that takes any other answer as final (``scala40-bot``)."""
    return refusal.code not in RECONNECT_CODES


def gives_up_if_seat_refused(refusal: HostRefusal) -> bool:
    """A seat that waits out anything but its seat refused (the player's screen)."""
    return refusal.code in SEAT_REFUSED


class HostLost(Exception):
    """The host has not answered for longer than the seat's patience: the seat gives up."""

    def __init__(self, patience: float, code: str) -> None:
        super().__init__(f"the host has not answered for {patience:g} s ({code}): given up")


_CONNECTED = "connected"  # the reader's word that the stream is open
_REOPEN = "reopen"  # the reader's word that the stream was ended to open a new one at once

# What the reader hands on: a message and the perf_counter() it came at, a word, an error.
Delivery = tuple[table_pb2.SubscribeEventsResponse, float]
Inbox = asyncio.Queue[Delivery | str | BaseException | None]
# Told each message and when it came; True when the seat is done with the stream.
OnEvent = Callable[[table_pb2.SubscribeEventsResponse, float], Awaitable[bool]]


class ResumableStream:
    """One seat's (or spectator's) events from its table, across dropped connections."""

    def __init__(
        self,
        table: GrpcTable,
        last_seq: Callable[[], int],
        *,
        gives_up: Callable[[HostRefusal], bool] = gives_up_unless_reconnecting,
        patience: float | None = None,
    ) -> None:
        self.table = table
        self.last_seq = last_seq
        self.gives_up = gives_up
        self.patience = patience  # seconds of an outage before HostLost; None: for ever
        self.closed = False
        self.heard_at = 0.0  # time.monotonic() when the stream last connected or delivered
        self._call: object | None = None
        self._reopening = False  # reopen() asked: the stream ends
        self._reopened = False  # ... and the next one opens at once

    def close(self) -> None:
        self.closed = True
        self._cancel()

    def reopen(self) -> None:
        """End the stream and open a new one at once, after the last event seen."""
        if self._call is not None:
            self._reopening = True
            self._cancel()

    def _cancel(self) -> None:
        _cancel(self._call)

    async def once(
        self,
        on_event: OnEvent,
        on_open: Callable[[], Awaitable[None]] | None = None,
        on_connected: Callable[[], None] | None = None,
    ) -> bool:
        """One stream, until it ends (False) or ``on_event`` says the seat is done (True).

        ``on_open`` runs once the stream is asked for, while its first events queue up;
        ``on_connected`` once the host has opened it (its headers came: it follows the stream,
        so anything the seat does from then on comes back as an event). A drop raises its
        ``HostRefusal``.
        """
        call = self.table.subscribe(self.last_seq())
        self._call = call
        inbox: Inbox = asyncio.Queue()

        async def read() -> None:
            try:
                # Open once the host's headers come: it sends them once it follows the stream
                # (gRPC's wait_for_connection says only that this side sent its own). Headers
                # that come with the call's end are a refusal's, read below.
                await call.initial_metadata()
                if not call.done():  # a failed call's end is not the host heard
                    self.heard_at = time.monotonic()
                    inbox.put_nowait(_CONNECTED)
                async for message in call:
                    self.heard_at = time.monotonic()
                    inbox.put_nowait((message, time.perf_counter()))
                inbox.put_nowait(None)
            except asyncio.CancelledError:
                # The call cancelled by reopen() or close() ends the stream; the task
                # cancelled by its reader goes on as a cancellation.
                if not (self._reopening or self.closed):
                    raise
                inbox.put_nowait(_REOPEN if self._reopening else None)
            except grpc.RpcError as error:
                inbox.put_nowait(error)

        reader = asyncio.create_task(read())
        try:
            if on_open is not None:
                await on_open()
            while True:
                item = await inbox.get()
                if item is None:
                    return False
                if item == _REOPEN:
                    self._reopening, self._reopened = False, True
                    return False
                if item == _CONNECTED:
                    if on_connected is not None:
                        on_connected()
                elif isinstance(item, grpc.RpcError):
                    raise await self.table.judged(refusal_from_error(item))
                elif isinstance(item, tuple) and await on_event(*item):
                    return True
        finally:
            reader.cancel()
            _cancel(call)

    async def follow(
        self,
        on_event: OnEvent,
        *,
        on_open: Callable[[], Awaitable[None]] | None = None,
        on_link: Callable[[bool, int], None] | None = None,
        on_drop: Callable[[HostRefusal | None, float | None], None] | None = None,
    ) -> None:
        """``once`` again and again until ``on_event`` says the seat is done or ``close``.

        ``on_link(connected, attempt)``: connected once a stream opens, else the number of
        the reopening to come. ``on_drop(refusal, lost_for)``: each drop (None: the host
        ended the stream), with how long the host has been lost (None: the first drop of an
        outage, or an ended stream, which is none).
        """
        attempt = 0
        lost_at: float | None = None

        def connected() -> None:
            nonlocal attempt, lost_at
            attempt, lost_at = 0, None
            if on_link is not None:
                on_link(True, 0)

        while not self.closed:
            tried_at = time.monotonic()
            refusal: HostRefusal | None = None
            try:
                if await self.once(on_event, on_open, connected):
                    return
            except HostRefusal as refused:
                if self.closed:
                    return
                if refused.trouble is Trouble.NOT_THE_HOST or self.gives_up(refused):
                    raise
                refusal = refused
            if self.closed:
                return
            if self._reopened:
                self._reopened = False
                continue
            if self.heard_at >= tried_at:  # it answered this time: a new outage
                attempt, lost_at = 0, None
            now = time.monotonic()
            lost_for: float | None = None
            if refusal is None:
                lost_at = None  # the host ended the stream: no outage
            elif lost_at is None:
                lost_at = now
            else:
                lost_for = now - lost_at
                if self.patience is not None and lost_for >= self.patience:
                    raise HostLost(self.patience, refusal.code.name) from refusal
            if on_drop is not None:
                on_drop(refusal, lost_for)
            attempt += 1
            if on_link is not None:
                on_link(False, attempt)
            await asyncio.sleep(backoff(attempt - 1))


def _cancel(call: object) -> None:
    """End a stream call, if one is open."""
    cancel = getattr(call, "cancel", None)
    if cancel is not None:
        cancel()
