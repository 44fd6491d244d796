"""The host's tables by id, each with its journal file and its running task."""

from __future__ import annotations

import asyncio
import secrets

from host import auth
from host.bots import run_bot_seat
from host.errors import not_found
from host.journal import JournalStore
from host.recovery import ReplayError, play_back
from host.table import Table, TableSettings
from scala40_net import rules, wire
from scala40_net.errors import InvalidRuleset
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.pb import lobby_pb2


class Registry:
    def __init__(
        self,
        journals: JournalStore,
        identity: HostIdentity,
        tokens: auth.TokenBook,
        settings: TableSettings,
    ) -> None:
        self.journals = journals
        self.identity = identity
        self.tokens = tokens
        self.settings = settings
        self.tables: dict[str, Table] = {}

    async def create_table(
        self, config: lobby_pb2.CreateTableRequest, ruleset: rules.Ruleset
    ) -> Table:
        table_id = secrets.token_hex(6)
        stored = lobby_pb2.CreateTableRequest()
        stored.CopyFrom(config)
        # The journal keeps the password's digest only: no secret it does not need.
        if stored.HasField("password"):
            stored.password = auth.token_digest(stored.password).hex()
        journal = await self.journals.create(table_id, stored.SerializeToString())
        table = Table(table_id, stored, ruleset, journal, self.identity, self.tokens, self.settings)
        self._open(table)
        return table

    def _open(self, table: Table) -> None:
        table.on_bot_needed = lambda _, seat: asyncio.create_task(run_bot_seat(table, seat))
        table.start()
        self.tables[table.table_id] = table

    def restore(self) -> list[str]:
        """Reopen every table of the journal, played back through the engine; returns problems."""
        problems = []
        for table_id, journal, config_bytes in self.journals.existing():
            for digest, seat in journal.tokens():
                self.tokens.add(digest, auth.Principal(table_id, seat))
            config = lobby_pb2.CreateTableRequest.FromString(config_bytes)
            try:
                ruleset = wire.ruleset_from_pb(config.ruleset, config.seats)
                table = Table(
                    table_id,
                    config,
                    ruleset,
                    journal,
                    self.identity,
                    self.tokens,
                    self.settings,
                )
                play_back(table, journal)
            except (ReplayError, InvalidRuleset, wire.WireError) as error:
                problems.append(f"table {table_id} not reopened: {error}")
                continue
            self._open(table)
            table.resume_after_restart()
        return problems

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise not_found("NO_SUCH_TABLE", f"there is no table {table_id!r} on this host")
        return table

    async def close(self) -> None:
        await asyncio.gather(*(t.stop() for t in self.tables.values()))
