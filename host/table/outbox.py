"""What one table job accepted: its entries numbered and held until one transaction commits them.

A table's methods never write or publish anything themselves: each accepted
action goes to the table's ``Outbox`` (``commit``), and whatever must follow
only a durable write (a token that opens a seat, a bot that takes its seat)
goes to ``after_commit``. The table's task then writes the whole job in one
transaction and only then publishes its events and runs those steps; if the
write fails, the job is dropped whole. The journal's playback after a restart
is the other ``Outbox``: its entries are already written (``host.journal.recovery``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from google.protobuf.message import Message

from host.journal.sqlite import NO_EXTRAS, Entry, Extras, JournaledEvent
from host.table.fanout import Record
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


@dataclass
class EntryDraft:
    """One accepted action as a table hands it to its outbox: its events not yet numbered.

    ``game`` says whether its events change the game a move is checked against
    (a move made after seeing an older one is stale); chat, seating and the
    fair-deal messages do not.
    """

    kind: str
    seat: int | None
    request: Message | None = None
    response: Message | None = None
    events: PendingEvents = field(default_factory=list)
    request_id: str | None = None
    game: bool = True
    extras: Extras = NO_EXTRAS


class Outbox(Protocol):
    """Where a table's accepted actions go."""

    def commit(self, table: Numbered, draft: EntryDraft) -> list[int]:
        """Number the draft's events after the table's last seq and keep its entry; the seqs."""
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

    def commit(self, table: Numbered, draft: EntryDraft) -> list[int]:
        first = table.seq + 1
        records = []
        for offset, (public, private) in enumerate(draft.events):
            public.seq = first + offset
            records.append(Record(public.seq, public, private))
        table.seq += len(records)
        response = draft.response.SerializeToString() if draft.response is not None else b""
        self.entries.append(
            Entry(
                kind=draft.kind,
                seat=draft.seat,
                request_id=draft.request_id or None,
                request=draft.request.SerializeToString() if draft.request is not None else b"",
                response=response,
                events=[
                    JournaledEvent(
                        r.seq,
                        r.public.SerializeToString(),
                        {s: p.SerializeToString() for s, p in r.private.items()},
                    )
                    for r in records
                ],
                extras=draft.extras,
            )
        )
        self.records += records
        if draft.request_id:
            table.remember_answer(draft.seat, draft.request_id, draft.kind, response)
        if draft.game and records:
            table.last_game_seq = records[-1].seq
        return [r.seq for r in records]

    def after_commit(self, step: Callable[[], None]) -> None:
        self.steps.append(step)

    def take(self) -> tuple[list[Entry], list[Record], list[Callable[[], None]]]:
        """Everything the job accepted, leaving the outbox empty for the next job."""
        taken = (self.entries, self.records, self.steps)
        self.entries, self.records, self.steps = [], [], []
        return taken
