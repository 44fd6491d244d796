"""The writer threads without the commit log (``Writers(threads)``, the bench's "fsync a job"):
the jobs of every table ready at the same moment are taken by one writer thread and handed
back to the loop together; a job that fails in a batch fails alone. With the log (the host's
way): ``test_host_journal_commitlog.py``."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from host.journal.sqlite import (
    Entry,
    JournalDamaged,
    JournaledEvent,
    TableJournal,
    Writers,
)


class Held:
    """A journal whose write waits until it is let go: the writer thread is busy meanwhile."""

    path = Path("held")

    def __init__(self) -> None:
        self.let_go = threading.Event()
        self.started = threading.Event()

    def append_job(self, entries: Sequence[Entry]) -> None:
        self.started.set()
        assert self.let_go.wait(60)


def job(seq: int) -> list[Entry]:
    return [Entry("chat", 0, None, b"", b"", [JournaledEvent(seq, b"e%d" % seq)])]


async def test_the_jobs_ready_together_are_written_as_one_batch_and_told_in_one_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writers = Writers(1)
    loop = asyncio.get_running_loop()
    hand_backs = 0
    call_soon_threadsafe = loop.call_soon_threadsafe

    def counted(callback: object, *args: object) -> asyncio.Handle:
        nonlocal hand_backs
        hand_backs += getattr(callback, "__name__", "") == "_settle_all"
        return call_soon_threadsafe(callback, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(loop, "call_soon_threadsafe", counted)
    journals = [TableJournal(tmp_path / f"t{n}.sqlite3", writers, b"config") for n in range(10)]
    try:
        held = Held()
        busy = loop.create_future()
        writers.submit(held, [], loop, lambda error: busy.set_result(error))  # type: ignore[arg-type]
        assert await asyncio.to_thread(held.started.wait, 10)
        writes = [journal.write_job(job(1)) for journal in journals]  # all ready at once
        held.let_go.set()
        await asyncio.gather(busy, *writes)
        assert hand_backs == 2  # the held job's, then the ten others' together
        for journal in journals:
            assert [e.kind for e in journal.entries()] == ["chat"]
    finally:
        writers.close()
        for journal in journals:
            journal.close()


async def test_a_failed_job_fails_alone_in_its_batch(tmp_path: Path) -> None:
    writers = Writers(1)
    loop = asyncio.get_running_loop()
    journals = [TableJournal(tmp_path / f"t{n}.sqlite3", writers, b"config") for n in range(3)]
    try:
        journals[1].damage = "garbage in its pages"  # takes no write
        held = Held()
        busy = loop.create_future()
        writers.submit(held, [], loop, lambda error: busy.set_result(error))  # type: ignore[arg-type]
        assert await asyncio.to_thread(held.started.wait, 10)
        writes = [journal.write_job(job(1)) for journal in journals]
        held.let_go.set()
        outcomes = await asyncio.gather(*writes, return_exceptions=True)
        assert outcomes[0] is None and outcomes[2] is None
        assert isinstance(outcomes[1], JournalDamaged)
        assert [len(j.entries()) for j in journals] == [1, 0, 1]  # each as its journal says
    finally:
        held.let_go.set()
        writers.close()
        for journal in journals:
            journal.close()


async def test_while_threads_are_free_no_table_waits_behind_another() -> None:
    """Two jobs ready together, two threads free: each has its own (one slow fsync does not
    hold up the other table's job)."""
    writers = Writers(3)
    loop = asyncio.get_running_loop()
    first, second = Held(), Held()
    done = [loop.create_future(), loop.create_future()]
    try:
        with writers._wake:  # both queued before any thread looks
            writers.submit(first, [], loop, lambda error: done[0].set_result(error))  # type: ignore[arg-type]
            writers.submit(second, [], loop, lambda error: done[1].set_result(error))  # type: ignore[arg-type]
        # Both are being written at once, neither let go yet.
        assert await asyncio.to_thread(first.started.wait, 10)
        assert await asyncio.to_thread(second.started.wait, 5)
    finally:
        first.let_go.set()
        second.let_go.set()
        await asyncio.gather(*done)
        writers.close()
