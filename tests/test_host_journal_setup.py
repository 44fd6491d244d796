"""A new table's journal costs one transaction: its schema and its config committed together,
nothing read back, and the table resumes from it like any other."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from host.journal import sqlite as journal_sqlite
from host.journal.sqlite import Entry, JournaledEvent, JournalStore


def traced(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every statement the journals' connections run, in order."""
    statements: list[str] = []
    connect = sqlite3.connect

    def tracing(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = connect(*args, **kwargs)
        db.set_trace_callback(statements.append)
        return db

    monkeypatch.setattr(journal_sqlite.sqlite3, "connect", tracing)
    return statements


def first_word(statement: str) -> str:
    return statement.split()[0].upper()


async def test_a_new_journal_is_its_schema_and_config_in_one_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    statements = traced(monkeypatch)
    store = JournalStore(tmp_path)
    try:
        await store.create("abc123", b"config")
    finally:
        store.close()
    made = [s for s in statements if first_word(s) in ("CREATE", "INSERT", "BEGIN", "COMMIT")]
    words = [first_word(s) for s in made]
    # One BEGIN, every table and the config's row inside it, one COMMIT: one fsync, not one
    # for each table of the schema.
    assert words[0] == "BEGIN" and words[-1] == "COMMIT", words
    assert words.count("BEGIN") == 1 and words.count("COMMIT") == 1, words
    assert words.count("CREATE") == len(journal_sqlite.SCHEMA_STATEMENTS)
    assert any(s.startswith("INSERT INTO table_config") for s in made)
    # Nothing of the new file is read back.
    assert not [s for s in statements if "table_info" in s or "MAX(entry_no)" in s]


async def test_a_new_journal_and_the_files_sqlite_makes_beside_it_are_the_hosts_alone(
    tmp_path: Path,
) -> None:
    """Whatever the umask: the -wal and -shm files SQLite makes take the database's mode."""
    store = JournalStore(tmp_path)
    umask = os.umask(0)
    try:
        journal = await store.create("abc123", b"config")
        await journal.write_job([Entry("join", 0, "r1", b"q", b"a", [JournaledEvent(1, b"e")])])
        for suffix in ("", "-wal", "-shm"):
            assert stat.S_IMODE(os.stat(f"{journal.path}{suffix}").st_mode) == 0o600, suffix
        assert stat.S_IMODE(os.stat(journal.path.parent).st_mode) == 0o700
    finally:
        os.umask(umask)
        store.close()


async def test_a_journal_made_in_one_transaction_is_read_and_written_as_before(
    tmp_path: Path,
) -> None:
    store = JournalStore(tmp_path)
    try:
        journal = await store.create("abc123", b"config")
        await journal.write_job(
            [Entry("join", 0, "r1", b"req", b"resp", [JournaledEvent(1, b"e")])]
        )
        path = journal.path
    finally:
        store.close()
    again = JournalStore(tmp_path)
    try:
        reopened = again.open(path)
        assert reopened.config() is not None and reopened.config()[1] == b"config"  # type: ignore[index]
        assert [e.kind for e in reopened.entries()] == ["join"]
        reopened.append_job([Entry("chat", 0, None, b"", b"", [JournaledEvent(2, b"f")])])
        assert [e.entry_no for e in reopened.entries()] == [1, 2]
    finally:
        again.close()


def test_a_journal_made_by_the_schema_of_old_is_resumed(tmp_path: Path) -> None:
    """A data dir of before: its schema written statement by statement, its config after."""
    store = JournalStore(tmp_path)
    path = store.path("old123")
    try:
        old = store.open(path)
        old.create(b"config")
        old.append_job([Entry("join", 0, "r1", b"req", b"resp", [JournaledEvent(1, b"e")])])
    finally:
        store.close()
    again = JournalStore(tmp_path)
    try:
        reopened = again.open(path)
        assert reopened.config()[1] == b"config"  # type: ignore[index]
        assert [e.kind for e in reopened.entries()] == ["join"]
    finally:
        again.close()
