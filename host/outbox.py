"""What one table job accepted: its entries numbered and held until one transaction commits them.

A table's methods never write or publish anything themselves: each accepted
action goes to the table's ``Outbox`` (``commit``), and whatever must follow
only a durable write (a token that opens a seat, a bot that takes its seat)
goes to ``after_commit``. The table's task then writes the whole job in one
transaction and only then publishes its events and runs those steps; if the
write fails, the job is dropped whole. The journal's playback after a restart
is the other ``Outbox``: its entries are already written (``host.recovery``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from google.protobuf.message import Message

from host.fanout import Record
from host.journal import Entry, JournaledEvent
from scala40_net.pb import deal_pb2, table_pb2

# Events a job made, each with every seat's private part, before they get their seqs.
PendingEvents = list[tuple[table_pb2.TableEvent, dict[int, deal_pb2.PrivateDealEvent]]]


class Numbered(Protocol):
    """The part of a table an outbox numbers: its last seq and the answers to request ids."""

    seq: int
    last_game_seq: int

    def remember_answer(
        self, seat: int | None, request_id: str, kind: str, response: bytes
    ) -> None: ...


@dataclass(frozen=True)
class Extras:
    """What an entry writes besides its events (see ``host.journal.Entry``)."""

    host_seed: tuple[int, bytes] | None = None
    bot_seed: tuple[int, int, bytes, int] | None = None
    deal_record: tuple[int, bytes] | None = None
    tokens: tuple[tuple[bytes, int | None], ...] = ()
    forget_seat: int | None = None


class Outbox(Protocol):
    """Where a table's accepted actions go."""

    def commit(
        self,
        table: Numbered,
        kind: str,
        seat: int | None,
        request: Message | None,
        response: Message | None,
        events: PendingEvents,
        *,
        request_id: str | None,
        game: bool,
        extras: Extras,
    ) -> list[int]:
        """Number ``events`` after the table's last seq and keep the entry; the seqs given."""
        ...

    def after_commit(self, step: Callable[[], None]) -> None:
        """Run ``step`` once the job is durable (never, if its write fails)."""
        ...


@dataclass
class JobOutbox:
    """The live outbox: the running job's entries, records and steps, until the task writes them."""

    entries: list[Entry] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    steps: list[Callable[[], None]] = field(default_factory=list)

    def commit(
        self,
        table: Numbered,
        kind: str,
        seat: int | None,
        request: Message | None,
        response: Message | None,
        events: PendingEvents,
        *,
        request_id: str | None,
        game: bool,
        extras: Extras,
    ) -> list[int]:
        first = table.seq + 1
        records = []
        for offset, (public, private) in enumerate(events):
            public.seq = first + offset
            records.append(Record(public.seq, public, private))
        table.seq += len(records)
        response_bytes = response.SerializeToString() if response is not None else b""
        self.entries.append(
            Entry(
                kind=kind,
                seat=seat,
                request_id=request_id or None,
                request=request.SerializeToString() if request is not None else b"",
                response=response_bytes,
                events=[
                    JournaledEvent(
                        r.seq,
                        r.public.SerializeToString(),
                        {s: p.SerializeToString() for s, p in r.private.items()},
                    )
                    for r in records
                ],
                host_seed=extras.host_seed,
                bot_seed=extras.bot_seed,
                deal_record=extras.deal_record,
                tokens=extras.tokens,
                forget_seat=extras.forget_seat,
            )
        )
        self.records += records
        if request_id:
            table.remember_answer(seat, request_id, kind, response_bytes)
        if game and records:
            table.last_game_seq = records[-1].seq
        return [r.seq for r in records]

    def after_commit(self, step: Callable[[], None]) -> None:
        self.steps.append(step)

    def take(self) -> tuple[list[Entry], list[Record], list[Callable[[], None]]]:
        """Everything the job accepted, leaving the outbox empty for the next job."""
        taken = (self.entries, self.records, self.steps)
        self.entries, self.records, self.steps = [], [], []
        return taken
