"""The host's tables by id: each table's task with its journal, and the tables set aside.

At start every live journal is played back; one that cannot be read or
played back is moved to ``damaged/`` and named in the log, and every other
table starts. While the host runs, a finished match is archived once its
seats have had time to fetch its last records, and a table whose match never
started is removed after it has been idle for ``TableSettings.idle_removal``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import sqlite3
from pathlib import Path
from typing import NoReturn

import grpc

from host.edge import auth
from host.edge.errors import Refusal, not_found
from host.journal.history import History
from host.journal.sqlite import JournalStore, TableJournal, why_unmade
from host.table.bots import run_bot_seat
from host.table.private_bot import new_driver
from host.table.state import TableSettings
from host.table.task import BotRunner, TableTask
from scala40_net import rules, wire
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.pb import lobby_pb2

log = logging.getLogger(__name__)


class Registry:
    def __init__(
        self,
        journals: JournalStore,
        identity: HostIdentity,
        tokens: auth.TokenBook,
        settings: TableSettings,
        run_bot: BotRunner | None = None,
        history: History | None = None,
    ) -> None:
        self.journals = journals
        self.history = history
        self._keeping: set[asyncio.Task[list[str]]] = set()
        self.identity = identity
        self.tokens = tokens
        self.settings = settings
        self.tables: dict[str, TableTask] = {}
        self.damaged: dict[str, str] = {}  # table id -> why it was set aside
        self._janitor: asyncio.Task[None] | None = None
        # How a host bot takes its seat: the library's bot, unless the host is given another.
        self._run_bot: BotRunner = run_bot or (
            lambda task, seat: asyncio.create_task(
                run_bot_seat(task, seat, driver=new_driver(task, seat))
            )
        )

    def live_count(self) -> int:
        """Tables whose match is not over: what the host's cap counts."""
        return sum(1 for task in self.tables.values() if task.live)

    def open_count(self) -> int:
        """Tables a player can still join: not started, a seat free (what discovery shows)."""
        return sum(
            1
            for task in self.tables.values()
            if task.table.state.phase == lobby_pb2.TABLE_PHASE_WAITING
            and any(not seat.taken for seat in task.table.state.seats)
        )

    async def create_table(
        self, config: lobby_pb2.CreateTableRequest, ruleset: rules.Ruleset
    ) -> TableTask:
        table_id = secrets.token_hex(6)
        while table_id in self.tables:  # its journal is made anew, never opened: not another's
            table_id = secrets.token_hex(6)
        stored = lobby_pb2.CreateTableRequest()
        stored.CopyFrom(config)
        # The journal keeps the password's scrypt hash only: no secret it does not need.
        if stored.HasField("password"):
            stored.password = await asyncio.to_thread(auth.password_hash, stored.password)
        try:
            journal = await self.journals.create(table_id, stored.SerializeToString())
        except (sqlite3.Error, OSError) as error:
            self._unmade(table_id, error)
        task = self._task(table_id, stored, ruleset, journal)
        self._open(task)
        return task

    def _unmade(self, table_id: str, error: sqlite3.Error | OSError) -> NoReturn:
        """A new table whose journal could not be made (a full disk, no descriptor left): what
        was made of its files goes, the owner reads why in the log, the caller is told
        UNAVAILABLE ``NOT_SAVED`` in a sentence that names no file."""
        path = self.journals.path(table_id)
        log.warning("could not make the journal %s of a new table: %s", path, error)
        with contextlib.suppress(sqlite3.Error, OSError):
            self.journals.remove(path)
        raise Refusal(
            grpc.StatusCode.UNAVAILABLE,
            "NOT_SAVED",
            f"the host could not save a new table: {why_unmade(error)}; nothing was made, "
            "try again later",
        ) from None

    def _task(
        self,
        table_id: str,
        config: lobby_pb2.CreateTableRequest,
        ruleset: rules.Ruleset,
        journal: TableJournal,
    ) -> TableTask:
        return TableTask(
            table_id,
            config,
            ruleset,
            journal,
            self.identity,
            self.tokens,
            self.settings,
            run_bot=self._run_bot,
            on_over=self._match_over if self.history is not None else None,
        )

    def _match_over(self, task: TableTask) -> None:
        """A table's match is over and durable: the history reads it from the table's journal
        now (between two of its jobs) and keeps it in a thread, before the table is archived
        (``close`` waits for it)."""
        history = self.history
        assert history is not None
        found = history.read_live(task.table_id, task.config, task.journal)
        keeping = asyncio.create_task(asyncio.to_thread(history.keep, found))
        self._keeping.add(keeping)
        keeping.add_done_callback(self._keeping.discard)

    async def kept(self) -> None:
        """Once every match that ended so far is kept in the history."""
        while self._keeping:
            await asyncio.gather(*self._keeping, return_exceptions=True)

    def _open(self, task: TableTask) -> None:
        task.start()
        self.tables[task.table_id] = task
        if self._janitor is None:
            self._janitor = asyncio.create_task(self._tidy(), name="table janitor")

    def restore(self) -> list[str]:
        """Reopen every live table from its journal; returns what was set aside, and why.

        A journal that cannot be opened, read or played back, for whatever reason,
        costs that table only: it moves to ``damaged/`` and the next one is tried (so did
        any whose file could not take what the host's commit log held of it).
        """
        problems = list(self.journals.recovered)
        for path in self.journals.live_paths():
            table_id = path.name.removesuffix(path.suffix)
            try:
                task = self._restored(path)
            except Exception as error:  # any failure of one table: set it aside, go on
                reason = f"{type(error).__name__}: {error}"
                target = self.journals.set_aside(path, reason)
                problems.append(f"table {table_id} set aside as {target}: {reason}")
                continue
            if task is not None:
                # A finished match too: its seats may come back for its last records; it is
                # archived like any other, ``archive_after`` from now.
                self._open(task)
        for digest, table_id in self.journals.archived_tokens():
            self.tokens.add_gone(digest, table_id)
        self.damaged = self.journals.damaged()
        for table_id in self.damaged:
            for digest, seat in self.journals.damaged_tokens(table_id):
                self.tokens.add(digest, auth.Principal(table_id, seat))
        return problems

    def _restored(self, path: Path) -> TableTask | None:
        journal = self.journals.open(path)
        stored = journal.config()
        if stored is None:  # created but never written: nothing to reopen
            self.journals.remove(journal.path)
            return None
        table_id = path.name.removesuffix(path.suffix)
        config = lobby_pb2.CreateTableRequest.FromString(stored[1])
        ruleset = wire.ruleset_from_pb(config.ruleset, config.seats)
        task = self._task(table_id, config, ruleset, journal)
        task.play_back()
        for digest, seat in journal.tokens():
            self.tokens.add(digest, auth.Principal(table_id, seat))
        return task

    def get(self, table_id: str) -> TableTask:
        task = self.tables.get(table_id)
        if task is None:
            if table_id in self.damaged:
                raise not_found(
                    "TABLE_DAMAGED",
                    f"table {table_id!r} was damaged and set aside by this host "
                    f"({self.damaged[table_id]})",
                )
            raise not_found("NO_SUCH_TABLE", f"there is no table {table_id!r} on this host")
        return task

    # --- Archive and idle tables ------------------------------------------------------------

    def _archive(self, task: TableTask) -> None:
        self.tokens.remove_table(task.table_id)
        target = self.journals.archive(task.journal.path)
        log.info("table %s: match over, archived as %s", task.table_id, target)

    async def _retire(self, task: TableTask, *, archive: bool) -> None:
        self.tables.pop(task.table_id, None)
        await task.stop()
        await self.kept()  # the journal moves: its matches are read first
        if archive:
            self._archive(task)
        else:
            self.tokens.remove_table(task.table_id)
            self.journals.remove(task.journal.path)
            log.info("table %s: never started and idle, removed", task.table_id)

    async def tidy(self) -> None:
        """Archive finished matches past ``archive_after``, remove idle unstarted tables, and
        rest the journals of tables left waiting for players past ``journal_rest``.

        Only a waiting table's journal rests: one being set up is written again within
        moments (its connection kept from its creation), and one in play, however long its
        players think, writes each move on the connection it has.
        """
        now = asyncio.get_running_loop().time()
        for task in list(self.tables.values()):
            waiting = task.table.state.phase == lobby_pb2.TABLE_PHASE_WAITING
            idle = now - task.last_request
            if (
                task.finished_at is not None
                and now - task.finished_at >= self.settings.archive_after
            ):
                await self._retire(task, archive=True)
            elif waiting and idle >= self.settings.idle_removal:
                await self._retire(task, archive=False)
            elif waiting and idle >= self.settings.journal_rest:
                await self.journals.rest(task.journal.path)

    async def _tidy(self) -> None:
        settings = self.settings
        soonest = min(settings.archive_after, settings.idle_removal, settings.journal_rest)
        period = max(0.05, min(60.0, soonest / 2))
        while True:
            await asyncio.sleep(period)
            try:
                await self.tidy()
            except (OSError, sqlite3.Error):  # a move that failed: tried again next time
                log.exception("could not archive or remove a table")

    async def close(self) -> None:
        await self.kept()
        if self._janitor is not None:
            self._janitor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._janitor
        await asyncio.gather(*(t.stop() for t in self.tables.values()))
