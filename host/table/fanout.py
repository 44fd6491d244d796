"""A table's event log in memory and its subscribers, each with a bounded queue.

``publish`` never awaits: it puts the event, as each subscriber's seat may
see it, into that subscriber's queue, and a subscriber whose queue is full is
dropped on the spot (it has every event up to its last one and resumes from
there). So one slow client can never stall the table that publishes. What a
queue holds is the stream message already serialized (``prepare``): once per
distinct message, shared by every stream that sends the same bytes, and made
while the journal commits, so that only the hand-over is left once it has.

Before its match a table keeps far fewer events (``keep_waiting``): they are
only seats taken and given up, chat and connections, which a snapshot says as
they are now, so people joining and leaving without end cannot fill the log.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from scala40_net.pb import deal_pb2, table_pb2
from scala40_net.private.messages import ENVELOPE_MAGIC


@dataclass(frozen=True)
class Record:
    """One seq-numbered event with every seat's private part, as the journal holds it."""

    seq: int
    public: table_pb2.TableEvent
    private: Mapping[int, deal_pb2.PrivateDealEvent] = field(default_factory=dict)

    @property
    def author(self) -> int | None:
        """The seat that sent a relayed private message: its own copy has no envelope."""
        if self.public.WhichOneof("event") != "private_message":
            return None
        data = self.public.private_message.envelope
        # The envelope's author byte follows its magic, table id and deal number (a length-
        # prefixed text, then 4 bytes): docs/PRIVATE_TABLES.md "The messages".
        at = len(ENVELOPE_MAGIC)
        author_at = at + 2 + int.from_bytes(data[at : at + 2], "big") + 4
        return data[author_at] if len(data) > author_at else None

    def for_seat(self, seat: int | None) -> table_pb2.TableEvent:
        """The event as ``seat`` (None: a spectator) may see it: the one place that picks."""
        if seat is not None and seat == self.author:
            event = table_pb2.TableEvent()
            event.CopyFrom(self.public)
            event.private_message.ClearField("envelope")
            return event
        mine = self.private.get(seat) if seat is not None else None
        if mine is None:
            return self.public
        event = table_pb2.TableEvent()
        event.CopyFrom(self.public)
        event.deal.private_event.CopyFrom(mine)
        return event


@dataclass(frozen=True)
class Ready:
    """One event as its streams send it: the SubscribeEventsResponse bytes for every seat
    without a private part (and spectators), and for each seat with one."""

    public: bytes
    private: Mapping[int, bytes]

    def for_seat(self, seat: int | None) -> bytes:
        return self.private.get(seat, self.public) if seat is not None else self.public


def prepare(record: Record) -> Ready:
    """Serialize ``record`` once for each distinct message its streams send."""
    seats = set(record.private)
    author = record.author
    if author is not None:
        seats.add(author)
    return Ready(
        _response(record.public),
        {seat: _response(record.for_seat(seat)) for seat in seats},
    )


def _response(event: table_pb2.TableEvent) -> bytes:
    """``SubscribeEventsResponse(event=event)`` serialized, without copying ``event`` into
    one: its field 1, length-delimited (the bytes protobuf itself writes)."""
    data = event.SerializeToString()
    return _EVENT_TAG + _varint(len(data)) + data


_EVENT_TAG = bytes([table_pb2.SubscribeEventsResponse.EVENT_FIELD_NUMBER << 3 | 2])


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


@dataclass(eq=False)
class Subscriber:
    """One open event stream: its seat (None for a spectator) and its bounded queue of
    serialized stream messages (None: the stream ends)."""

    seat: int | None
    queue: asyncio.Queue[bytes | None]
    dropped: bool = False
    last_queued_seq: int = 0
    # A host bot's own wake-up, not a client's stream: it says nobody is connected, and a
    # player leaving does not end it.
    internal: bool = False


class Fanout:
    """The recent events of one table and the streams that follow them."""

    def __init__(
        self, keep: int = 100_000, queue_size: int = 256, keep_waiting: int = 1_000
    ) -> None:
        self._records: deque[Record] = deque(maxlen=keep)
        self._subscribers: set[Subscriber] = set()
        self._queue_size = queue_size
        self._keep_waiting = keep_waiting
        self.last_seq = 0
        # Set by the table's task while its match has not started: the short log.
        self.waiting = False

    @property
    def oldest_kept_seq(self) -> int:
        return self._records[0].seq if self._records else self.last_seq + 1

    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def watched(self) -> bool:
        """Whether anyone follows the table: a seat's or a spectator's stream (not a host bot)."""
        return any(not s.internal for s in self._subscribers)

    def connected_seats(self) -> set[int]:
        return {s.seat for s in self._subscribers if s.seat is not None and not s.internal}

    def publish(self, record: Record, ready: Ready | None = None) -> None:
        """Log ``record`` and queue it for every stream (``ready``: its ``prepare``)."""
        if record.seq != self.last_seq + 1:
            raise ValueError(f"event seq {record.seq} does not follow {self.last_seq}")
        if ready is None:
            ready = prepare(record)
        self._records.append(record)
        self.last_seq = record.seq
        while self.waiting and len(self._records) > self._keep_waiting:
            self._records.popleft()  # older than that, a stream starts from a snapshot
        for subscriber in list(self._subscribers):
            if self.send(subscriber, ready.for_seat(subscriber.seat)):
                subscriber.last_queued_seq = record.seq

    def send(self, subscriber: Subscriber, message: bytes | None) -> bool:
        """Queue one serialized message for ``subscriber``'s stream, without awaiting (an
        event, or the answer to a move sent on the seat's stream); a subscriber whose queue
        is full is dropped on the spot, and one dropped takes nothing more (its stream ends
        once it has sent what it holds). False when the message was not queued."""
        if subscriber.dropped:
            return False
        try:
            subscriber.queue.put_nowait(message)
        except asyncio.QueueFull:
            subscriber.dropped = True
            self._subscribers.discard(subscriber)
            return False
        return True

    def subscribe(
        self,
        seat: int | None,
        after_seq: int,
        snapshot: Callable[[], table_pb2.TableEvent],
        internal: bool = False,
    ) -> tuple[list[table_pb2.TableEvent], Subscriber]:
        """The events a stream starts with, and its subscriber, registered with no await in between.

        After ``after_seq`` when every later event is still kept; otherwise (0,
        or older than what is kept) ``snapshot()`` of the caller's view first.
        """
        if after_seq == 0 or after_seq + 1 < self.oldest_kept_seq:
            backlog = [snapshot()]
        else:
            backlog = [r.for_seat(seat) for r in self._records if r.seq > after_seq]
        subscriber = Subscriber(
            seat, asyncio.Queue(self._queue_size), last_queued_seq=self.last_seq, internal=internal
        )
        self._subscribers.add(subscriber)
        return backlog, subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self._subscribers.discard(subscriber)

    def close_seat(self, seat: int | None) -> None:
        """End the streams of ``seat`` (its player left): nothing more reaches them."""
        closing = [s for s in self._subscribers if s.seat == seat and not s.internal]
        for subscriber in closing if seat is not None else []:
            self.end(subscriber)

    def finish(self, subscriber: Subscriber) -> None:
        """End one stream once it has sent what it holds (its seat closed its side)."""
        self._subscribers.discard(subscriber)
        self.send(subscriber, None)

    def end(self, subscriber: Subscriber) -> None:
        """End one stream now: nothing more reaches it, and what it still held is not sent."""
        self._subscribers.discard(subscriber)
        subscriber.dropped = False
        # Emptied first, so the end is seen at once, before any event still queued.
        while not subscriber.queue.empty():
            subscriber.queue.get_nowait()
        subscriber.queue.put_nowait(None)

    def close(self) -> None:
        """End every stream (the host is shutting down)."""
        for subscriber in self._subscribers:
            try:
                subscriber.queue.put_nowait(None)
            except asyncio.QueueFull:
                subscriber.dropped = True
        self._subscribers.clear()
