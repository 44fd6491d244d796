"""A table's jobs that wait together: run back to back, journaled in one commit, answered in order.

Each test queues its jobs in one pass of the event loop, before the table's task
wakes, so they wait together as a private table's shares of a drawn card do;
the commits are counted by the host's commit log (one ``fdatasync`` a batch).
The failures are real ones: a SQLite trigger that fails the write, a job that
raises.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable
from typing import Any

from conftest import HostClient
from test_host_durability import chat, entry_kinds, journal_path, two_seats

from host.edge.errors import Refusal
from host.table.table import Table
from host.table.task import BATCH_JOBS, PRESENCE_SETTLE_SECONDS, TableTask
from scala40_net.pb import lobby_pb2, table_pb2


def said(text: str, seat: int = 0) -> Callable[[Table], Any]:
    """The job of a chat line, as SendChat hands it to the table."""
    return lambda table: table.chat(seat, table_pb2.SendChatRequest(text=text))


def chat_lines(served: HostClient, table_id: str) -> list[str]:
    path = journal_path(served.host.data_dir, table_id)
    with contextlib.closing(sqlite3.connect(path)) as db:
        events = [table_pb2.TableEvent.FromString(raw)
                  for (raw,) in db.execute("SELECT public FROM events ORDER BY seq")]  # fmt: skip
    return [event.chat.text for event in events if event.HasField("chat")]


async def together(task: TableTask, jobs: list[Callable[[Table], Any]]) -> list[Any]:
    """Hand ``jobs`` to the table at once; each one's answer or exception, in order."""
    return await asyncio.gather(*(task.call(job) for job in jobs), return_exceptions=True)


async def settled(served: HostClient, table_id: str) -> TableTask:
    """The table's task once the jobs the joins left behind (who is connected) are done."""
    task = served.host.registry.tables[table_id]
    await task.call(lambda table: None)
    await asyncio.sleep(PRESENCE_SETTLE_SECONDS + 0.1)  # any news of who is connected
    await task.call(lambda table: None)
    return task


async def commits_for(
    served: HostClient, task: TableTask, jobs: list[Callable[[Table], Any]]
) -> tuple[list[Any], int]:
    """``jobs`` handed to the table at once: each one's answer, and the commits they took
    (the commit log's fdatasyncs)."""
    writers = served.host.journals.writers
    syncs = writers.log_syncs
    answers = await together(task, jobs)
    return answers, writers.log_syncs - syncs


async def test_jobs_that_wait_together_are_journaled_in_one_commit_and_answered_in_order(
    served: HostClient,
) -> None:
    table_id, _ = await two_seats(served)
    task = await settled(served, table_id)
    seq = task.fanout.last_seq
    texts = [f"line {n}" for n in range(6)]
    answers, commits = await commits_for(
        served, task, [said(text, n % 2) for n, text in enumerate(texts)]
    )
    assert all(isinstance(a, table_pb2.SendChatResponse) for a in answers), answers
    assert commits == 1  # one commit for the six
    assert task.fanout.last_seq == seq + 6
    assert chat_lines(served, table_id) == texts  # in the order they were asked


async def test_a_batch_whose_write_fails_refuses_every_job_of_it_and_keeps_none(
    served: HostClient,
) -> None:
    """The write of a batch is one transaction: when it fails, every job of it is refused
    UNAVAILABLE (NOT_SAVED), none is published or kept, and the next job is taken."""
    table_id, tokens = await two_seats(served)
    task = await settled(served, table_id)
    path = journal_path(served.host.data_dir, table_id)
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute(
            "CREATE TRIGGER fail_poison BEFORE INSERT ON entries"
            " WHEN CAST(NEW.request AS TEXT) LIKE '%poison%'"
            " BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END"
        )
        db.commit()
    kinds, seq, state_seq = entry_kinds(path), task.fanout.last_seq, task.table.seq
    answers = await together(task, [said("one"), said("poison"), said("three")])
    assert all(isinstance(a, Refusal) and a.reason == "NOT_SAVED" for a in answers), answers
    assert entry_kinds(path) == kinds
    assert (task.fanout.last_seq, task.table.seq) == (seq, state_seq)
    await chat(served, tokens[1], "after")
    assert chat_lines(served, table_id) == ["after"]


async def test_a_job_that_raises_in_a_batch_is_undone_alone(served: HostClient) -> None:
    """A bug in the second of three jobs: the first is journaled and answered before the
    table is rebuilt without the second (INTERNAL to its caller); the third runs after."""
    table_id, _ = await two_seats(served)
    task = await settled(served, table_id)
    seq = task.fanout.last_seq

    def broken(table: Table) -> None:
        table.chat(0, table_pb2.SendChatRequest(text="half"))
        raise RuntimeError("a bug after a commit")

    answers = await together(task, [said("before"), broken, said("after")])
    assert isinstance(answers[0], table_pb2.SendChatResponse)
    assert isinstance(answers[1], RuntimeError)
    assert isinstance(answers[2], table_pb2.SendChatResponse)
    assert chat_lines(served, table_id) == ["before", "after"]
    assert task.fanout.last_seq == task.table.seq == seq + 2


async def test_a_job_that_changes_the_game_ends_its_batch(served: HostClient) -> None:
    """The match's start (a change of the game, with host steps after its commit) is the
    last job of its batch: the turn clock and the grace periods see the table as it left
    it, and the chat lines after it are the next batch."""
    table_id, _ = await two_seats(served)
    task = await settled(served, table_id)
    start = lobby_pb2.StartMatchRequest(table_id=table_id)
    answers, commits = await commits_for(
        served, task,
        [said("ready?"), lambda table: table.start_match_asked(0, start), said("go"),
         said("good luck", 1)],
    )  # fmt: skip
    assert not [a for a in answers if isinstance(a, BaseException)], answers
    assert commits == 2
    assert chat_lines(served, table_id) == ["ready?", "go", "good luck"]
    kinds = entry_kinds(journal_path(served.host.data_dir, table_id))
    assert kinds[-5:] == ["chat", "start", "announce", "chat", "chat"]


async def test_a_flood_of_jobs_is_cut_into_batches_of_at_most_batch_jobs(
    served: HostClient,
) -> None:
    """No batch holds more than ``BATCH_JOBS``: the first of a flood is answered soon."""
    table_id, _ = await two_seats(served)
    task = await settled(served, table_id)
    jobs = BATCH_JOBS + 8
    answers, commits = await commits_for(served, task, [said(f"n{n}") for n in range(jobs)])
    assert all(isinstance(a, table_pb2.SendChatResponse) for a in answers)
    assert commits == 2
    assert chat_lines(served, table_id) == [f"n{n}" for n in range(jobs)]
