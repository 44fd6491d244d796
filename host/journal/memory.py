"""A table's journal kept in memory: the ``Journal`` protocol without SQLite, for fast tests.

It keeps what ``TableJournal`` keeps (entries with their events, seeds, deal
records, seat tokens), writes a job whole or not at all, and answers a write
on a later pass of the event loop, as the writer thread does. A write can be
made to fail (``fail_writes``), as a full disk would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from host.journal.sqlite import Entry, JournalWriteFailed, StoredEntry


@dataclass
class MemoryJournal:
    """One table's journal in memory; ``path`` only names it in messages."""

    path: Path = Path("in-memory journal")
    stored: list[StoredEntry] = field(default_factory=list)
    seeds: dict[int, bytes] = field(default_factory=dict)
    bot_seats: dict[tuple[int, int], tuple[bytes, int]] = field(default_factory=dict)
    records: dict[int, bytes] = field(default_factory=dict)
    tokens: dict[bytes, int | None] = field(default_factory=dict)
    # Set to a reason ("disk full") to make every write fail with it, until set back to None.
    fail_writes: str | None = None
    jobs: int = 0  # the jobs written

    def write_job(
        self, entries: Sequence[Entry], committed: Callable[[], None] | None = None
    ) -> asyncio.Future[None]:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def settle() -> None:
            try:
                self.append_job(entries)
                if committed is not None:
                    committed()
            except BaseException as error:  # as TableJournal: its awaiter raises
                done.set_exception(error)
            else:
                done.set_result(None)

        asyncio.get_running_loop().call_soon(settle)
        return done

    def append_job(self, entries: Sequence[Entry]) -> None:
        if self.fail_writes is not None:
            raise JournalWriteFailed(self.path, self.fail_writes)
        first = len(self.stored) + 1
        for offset, entry in enumerate(entries):
            self.stored.append(
                StoredEntry(
                    first + offset,
                    entry.kind,
                    entry.seat,
                    entry.request_id,
                    entry.request,
                    entry.response,
                    list(entry.events),
                )
            )
            extras = entry.extras
            if extras.host_seed is not None:
                self.seeds[extras.host_seed[0]] = extras.host_seed[1]
            if extras.bot_seed is not None:
                deal_no, seat, seed, cut = extras.bot_seed
                self.bot_seats[(deal_no, seat)] = (seed, cut)
            if extras.deal_record is not None:
                self.records[extras.deal_record[0]] = extras.deal_record[1]
            self.tokens.update(extras.tokens)
            if extras.forget_seat is not None:
                for digest in [d for d, s in self.tokens.items() if s == extras.forget_seat]:
                    del self.tokens[digest]
        self.jobs += 1

    def entries(self) -> list[StoredEntry]:
        return list(self.stored)

    def host_seeds(self) -> dict[int, bytes]:
        return dict(self.seeds)

    def bot_seeds(self) -> dict[tuple[int, int], tuple[bytes, int]]:
        return dict(self.bot_seats)

    def deal_record(self, deal_no: int) -> bytes | None:
        return self.records.get(deal_no)
