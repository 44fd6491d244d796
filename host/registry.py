"""The host's tables by id, created through the journal, each with its running task."""

from __future__ import annotations

import asyncio
import secrets

from host import auth
from host.bots import run_bot_seat
from host.errors import not_found
from host.journal import Journal
from host.table import Table, TableSettings
from scala40_net import rules
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.pb import lobby_pb2


class Registry:
    def __init__(
        self,
        journal: Journal,
        identity: HostIdentity,
        tokens: auth.TokenBook,
        settings: TableSettings,
    ) -> None:
        self.journal = journal
        self.identity = identity
        self.tokens = tokens
        self.settings = settings
        self.tables: dict[str, Table] = {}

    def create_table(self, config: lobby_pb2.CreateTableRequest, ruleset: rules.Ruleset) -> Table:
        table_id = secrets.token_hex(6)
        stored = lobby_pb2.CreateTableRequest()
        stored.CopyFrom(config)
        # The journal keeps the password's digest only: no secret it does not need.
        if stored.HasField("password"):
            stored.password = auth.token_digest(stored.password).hex()
        self.journal.create_table(table_id, stored.SerializeToString())
        table = Table(
            table_id, config, ruleset, self.journal, self.identity, self.tokens, self.settings
        )
        table.on_bot_needed = lambda t, seat: asyncio.create_task(run_bot_seat(t, seat))
        table.start()
        self.tables[table_id] = table
        return table

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise not_found("NO_SUCH_TABLE", f"there is no table {table_id!r} on this host")
        return table

    async def close(self) -> None:
        await asyncio.gather(*(t.stop() for t in self.tables.values()))
