"""LobbyService: the host's identity; tables created, listed, joined, left, given bots, started."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any, Protocol, TypeAlias, TypeVar

import grpc

from host.edge import auth
from host.edge.errors import Refusal, malformed, permission_denied
from host.edge.limits import Limits
from host.edge.players_service import PlayerKeys
from host.edge.rulesets import table_ruleset
from host.journal.registry import Registry
from host.table import durations
from host.table.seating import checked_name
from host.table.table import Table
from host.table.task import TableTask
from scala40_net import wire
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc

VERSION = "0.1.0"
FAIR_DEAL_VERSION = 1
MAX_TABLE_NAME = 40
# Each live table keeps its journal file open (three descriptors with WAL); finished
# matches are archived and do not count.
MAX_TABLES = 500
MAX_INVITED = 12
FINGERPRINT = re.compile(r"[0-9A-F]{4}(?:-[0-9A-F]{4}){7}")

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"


class _NamesTable(Protocol):
    table_id: str


ForTable = TypeVar("ForTable", bound=_NamesTable)
Response = TypeVar("Response")


def _check_stand_in(request: lobby_pb2.CreateTableRequest) -> None:
    if request.stand_in_level not in lobby_pb2.BotLevel.values():
        raise malformed(f"stand_in_level {request.stand_in_level} is not a known bot level")


def _check_invited(request: lobby_pb2.CreateTableRequest) -> None:
    """The invited keys, each a full fingerprint (kept upper-case, once each)."""
    if len(request.invited_keys) > MAX_INVITED:
        raise malformed(f"a table invites at most {MAX_INVITED} player keys")
    kept = []
    for given in request.invited_keys:
        wanted = given.strip().upper()
        if not FINGERPRINT.fullmatch(wanted):
            raise malformed(
                f"{given!r} is not a player key's fingerprint (8 groups of 4 hex digits)"
            )
        if wanted not in kept:
            kept.append(wanted)
    request.ClearField("invited_keys")
    request.invited_keys.extend(kept)


class LobbyService(lobby_pb2_grpc.LobbyServiceServicer):
    def __init__(
        self, registry: Registry, identity: HostIdentity, limits: Limits, keys: PlayerKeys
    ) -> None:
        self._registry = registry
        self._identity = identity
        self._limits = limits
        self._keys = keys

    async def GetHostInfo(
        self, request: lobby_pb2.GetHostInfoRequest, context: Context
    ) -> lobby_pb2.GetHostInfoResponse:
        return lobby_pb2.GetHostInfoResponse(
            host_public_key=self._identity.public_key,
            host_fingerprint=self._identity.fingerprint,
            version=VERSION,
            fair_deal_version=FAIR_DEAL_VERSION,
            contract_version=wire.CONTRACT_VERSION,
        )

    async def CreateTable(
        self, request: lobby_pb2.CreateTableRequest, context: Context
    ) -> lobby_pb2.CreateTableResponse:
        request.name = checked_name(request.name, "a table name", MAX_TABLE_NAME)
        if request.HasField("password") and not request.password:
            raise malformed("a table password cannot be empty (leave it unset for none)")
        durations.check(request)
        _check_stand_in(request)
        _check_invited(request)
        self._limits.new_table(context.peer())
        if self._registry.live_count() >= MAX_TABLES:
            raise Refusal(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "TOO_MANY_TABLES",
                f"this host runs at most {MAX_TABLES} tables whose match is not over",
            )
        ruleset = table_ruleset(request.ruleset, request.seats)
        table = await self._registry.create_table(request, ruleset)
        return lobby_pb2.CreateTableResponse(table_id=table.table_id)

    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Context
    ) -> lobby_pb2.ListTablesResponse:
        return lobby_pb2.ListTablesResponse(
            tables=[t.summary() for t in self._registry.tables.values()]
        )

    async def _check_password(self, task: TableTask, given: str | None, peer: str) -> None:
        """The table's password (scrypt, in a thread: slow on purpose), each try counted as a
        guess of the client's address before it is checked, and given back when right."""
        stored = task.table.state.password
        if stored is None:
            return
        self._limits.guess(peer)
        if given is None or not await asyncio.to_thread(auth.password_matches, given, stored):
            raise permission_denied(
                "BAD_PASSWORD", "this table needs its password, and that is not it"
            )
        self._limits.right_guess(peer)

    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Context
    ) -> lobby_pb2.JoinTableResponse:
        task = self._registry.get(request.table_id)
        password = request.password if request.HasField("password") else None
        await self._check_password(task, password, context.peer())
        key = self._keys.proved_key(request)
        self._limits.seat_change(request.table_id, context.peer())

        async def join() -> lobby_pb2.JoinTableResponse:
            return await task.call(lambda table: table.join(request))

        if key is not None and task.table.seating.holds(key) is not None:
            return await join()  # the key's own seat, under the name it has there
        return await self._keys.join_as(request.player_name, key, join)

    async def SpectateTable(
        self, request: lobby_pb2.SpectateTableRequest, context: Context
    ) -> lobby_pb2.SpectateTableResponse:
        task = self._registry.get(request.table_id)
        password = request.password if request.HasField("password") else None
        await self._check_password(task, password, context.peer())
        return await task.call(lambda table: table.spectate(request))

    def _own_seat(self, table_id: str) -> int:
        principal = auth.current_principal()
        if principal.table_id != table_id:
            self._registry.get(table_id)  # NOT_FOUND for a table that is not (or no longer) here
            raise permission_denied("OTHER_TABLE", "this token is for another table")
        assert principal.seat is not None
        return principal.seat

    async def _as_own_seat(
        self,
        act: Callable[[Table, int, ForTable], Response],
        request: ForTable,
        seat_change: str | None = None,
    ) -> Response:
        """Hand ``act`` of the caller's seat at the table the request names to its task;
        ``seat_change``: the caller's peer, when the act changes a seat (rate-limited)."""
        seat = self._own_seat(request.table_id)
        if seat_change is not None:
            self._limits.seat_change(request.table_id, seat_change)
        task = self._registry.get(request.table_id)
        return await task.call(lambda table: act(table, seat, request))

    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Context
    ) -> lobby_pb2.LeaveTableResponse:
        answer = await self._as_own_seat(Table.leave, request, seat_change=context.peer())
        # The seat's streams end now: its private events are no longer the leaver's to read.
        task = self._registry.get(request.table_id)
        task.fanout.close_seat(auth.current_principal().seat)
        return answer

    async def AddBot(
        self, request: lobby_pb2.AddBotRequest, context: Context
    ) -> lobby_pb2.AddBotResponse:
        return await self._as_own_seat(Table.add_bot, request, seat_change=context.peer())

    async def StartMatch(
        self, request: lobby_pb2.StartMatchRequest, context: Context
    ) -> lobby_pb2.StartMatchResponse:
        return await self._as_own_seat(Table.start_match_asked, request)
