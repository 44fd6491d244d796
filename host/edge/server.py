"""The host process: a grpc.aio server with lobby, table and rules services, health, reflection."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import resource
import signal
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from host.edge import connections, table_service, tls_files
from host.edge.auth import Access, AuthInterceptor, TokenBook
from host.edge.limits import Limits, connection_cap, connections_per_address
from host.edge.lobby import MAX_TABLES, LobbyService
from host.edge.players_service import Challenges, PlayerKeys, PlayersService
from host.edge.rules_service import RulesService
from host.edge.table_service import TableService
from host.journal.datadir import DataDirInUse, DataDirLock
from host.journal.history import History
from host.journal.players import PlayerBook
from host.journal.registry import Registry
from host.journal.sqlite import JournalStore
from host.table.state import TableSettings
from host.table.task import BotRunner
from scala40_net import collector, wire
from scala40_net.fairdeal.identity import HostIdentity, IdentityError
from scala40_net.invite import lan_address, make_invite
from scala40_net.net import discovery
from scala40_net.pb import (
    lobby_pb2,
    lobby_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
    rules_service_pb2,
    rules_service_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
)

log = logging.getLogger(__name__)
# How long a thread that wants the GIL waits for the one holding it (Python's default: 5 ms).
GIL_SWITCH_SECONDS = 0.001
# Why ``Host.start`` refuses, each a sentence for the host's owner (another host on the data
# dir or the port, a key file others may read): said in one line, never as a traceback.
START_PROBLEMS: tuple[type[Exception], ...] = (DataDirInUse, IdentityError, OSError)

SERVICES = (
    lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name,
    table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name,
    rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name,
    players_pb2.DESCRIPTOR.services_by_name["PlayersService"].full_name,
)


# The seat's stream counts each of its moves against the limits itself (a move refused by
# them is answered on the stream, which goes on).
COUNTS_ITSELF = frozenset({f"/{SERVICES[1]}/Seat"})


def method_access() -> dict[str, Access]:
    """Which token each method needs; a method not listed needs none."""
    table = table_pb2.DESCRIPTOR.services_by_name["TableService"]
    access = {f"/{table.full_name}/{m.name}": Access.SEAT for m in table.methods}
    for name in ("SubscribeEvents", "GetView", "GetDealRecord"):
        access[f"/{table.full_name}/{name}"] = Access.SEAT_OR_SPECTATOR
    lobby = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name
    for name in ("LeaveTable", "AddBot", "StartMatch"):
        access[f"/{lobby}/{name}"] = Access.SEAT
    return access


def connection_cap_of(limits: Limits) -> int:
    """How many connections the host takes at once: the limits' figure, or what the process's
    descriptors allow with the journals' kept aside."""
    if limits.max_connections is not None:
        return limits.max_connections
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    descriptors = 1 << 20 if soft == resource.RLIM_INFINITY else soft
    return connection_cap(descriptors, MAX_TABLES)


def per_address_cap_of(limits: Limits) -> int:
    """How many connections one client address may hold (0: not counted)."""
    if limits.max_connections_per_address is not None:
        return limits.max_connections_per_address
    return connections_per_address(connection_cap_of(limits))


def connection_options(limits: Limits) -> tuple[tuple[str, int], ...]:
    """The server options that bound connections: handshakes and idle connections time out,
    and past the cap a new connection is closed at once, so that no flood of them takes the
    descriptors the journals need (a new table's, a restart's). One address's share of the
    cap is kept by the host's ``ConnectionGuard``."""
    return (
        ("grpc.server_handshake_timeout_ms", int(limits.handshake_seconds * 1000)),
        ("grpc.max_connection_idle_ms", int(limits.idle_seconds * 1000)),
        ("grpc.max_allowed_incoming_connections", connection_cap_of(limits)),
    )


@dataclass
class Host:
    """A running host: call ``start`` (binds, returns the port) and ``stop``."""

    listen: str
    data_dir: Path
    settings: TableSettings = field(default_factory=TableSettings)
    port: int = 0
    # TLS with the certificate bound to the host's identity, unless turned off (--insecure).
    insecure: bool = False
    limits: Limits = field(default_factory=Limits)
    # Advertised on the LAN (mDNS/DNS-SD) unless turned off, never on loopback nor without TLS.
    advertise: bool = True
    name: str = field(default_factory=socket.gethostname)  # the name players see in the list
    advertised: list[str] = field(default_factory=list, init=False)  # the addresses, once on
    advertise_problem: str = field(default="", init=False)  # why it is not, when it failed
    # What the start found in the data dir: the tables reopened, and those set aside (why).
    resumed: list[str] = field(default_factory=list, init=False)
    set_aside: list[str] = field(default_factory=list, init=False)
    _advertiser: discovery.Advertiser | None = field(default=None, init=False, repr=False)
    _guard: connections.ConnectionGuard | None = field(default=None, init=False, repr=False)
    # What the conformance check composes into the host (host.conformance.check); None: the host's
    # own table service and bots.
    wrap_table_service: Callable[[TableService], table_pb2_grpc.TableServiceServicer] | None = None
    run_bot: BotRunner | None = None

    async def start(self) -> int:
        """Take the data dir (refused while another host has it), reopen the tables, listen."""
        self._lock = DataDirLock(self.data_dir)
        self._lock.acquire()
        try:
            return await self._start()
        except BaseException:
            await self.stop(grace=0)
            raise

    async def _start(self) -> int:
        # The journal's writer threads take the GIL back after each SQLite call of a job (a
        # job is several); with Python's default 5 ms switch interval, a busy event loop kept
        # each waiting that long, and a move's commit queued for tens of ms at 100 tables.
        sys.setswitchinterval(GIL_SWITCH_SECONDS)
        self.identity = HostIdentity.load_or_create(self.data_dir)
        self.journals = JournalStore(self.data_dir)
        self.players = PlayerBook(self.data_dir)
        self.history = History(self.data_dir, self.players)
        self.tokens = TokenBook()
        self.registry = Registry(
            self.journals, self.identity, self.tokens, self.settings, self.run_bot, self.history
        )
        self.set_aside = self.registry.restore()
        await self.registry.kept()
        # Matches over while no host ran to keep them (stopped at their end, or older hosts').
        await asyncio.to_thread(self.history.catch_up)
        for problem in self.set_aside:
            log.error("%s", problem)
        self.resumed = list(self.registry.tables)
        for line in resumed_lines(self):
            log.info("%s", line)
        self.server = grpc.aio.server(
            interceptors=[
                AuthInterceptor(self.tokens, method_access(), self.limits, COUNTS_ITSELF)
            ],
            # No port sharing: a second host on a port in use is an error, not half the tables.
            options=(
                *wire.SERVER_OPTIONS,
                ("grpc.so_reuseport", 0),
                *connection_options(self.limits),
            ),
        )
        challenges = Challenges()
        keys = PlayerKeys(self.players, self.identity.fingerprint, challenges)
        lobby_pb2_grpc.add_LobbyServiceServicer_to_server(
            LobbyService(self.registry, self.identity, self.limits, keys), self.server
        )
        players_pb2_grpc.add_PlayersServiceServicer_to_server(
            PlayersService(challenges, self.history, self.registry), self.server
        )
        service = TableService(self.registry, self.limits)
        wrap = self.wrap_table_service
        tables = service if wrap is None else wrap(service)
        table_service.add_to_server(tables, self.server)
        rules_service_pb2_grpc.add_RulesServiceServicer_to_server(RulesService(), self.server)
        self.health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        for name in ("", *SERVICES):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        reflection.enable_server_reflection(
            (
                *SERVICES,
                health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                reflection.SERVICE_NAME,
            ),
            self.server,
        )
        try:
            if self.insecure:
                self.port = self.server.add_insecure_port(self.listen)
            else:
                key_pem, cert_pem = tls_files.load_or_create(self.data_dir, self.identity)
                credentials = grpc.ssl_server_credentials([(key_pem, cert_pem)])
                self.port = self.server.add_secure_port(self.listen, credentials)
        except RuntimeError as error:  # grpc's word for a port it could not bind
            raise OSError(
                f"cannot listen on {self.listen}: {error} (is another host on it?)"
            ) from None
        if self.port == 0:
            raise OSError(f"cannot listen on {self.listen} (is another host on it?)")
        await self.server.start()
        per_address = per_address_cap_of(self.limits)
        if per_address and connections.available():
            self._guard = connections.ConnectionGuard(
                self.port,
                per_address,
                self.limits.connection_sweep_seconds,
                self.limits.connection_alert_seconds,
                self.limits.callers,
            )
            self._guard.start()
        elif per_address:
            log.warning("connections per address are not counted on this system")
        log.info(
            "host %s listening on %s (port %d)", self.identity.fingerprint, self.listen, self.port
        )
        await self._advertise()
        return self.port

    async def _advertise(self) -> None:
        """On the LAN by mDNS; a failure leaves the host serving, without it (the invite and
        the address still work), and says why."""
        addresses = discovery.advertised_addresses(self.listen)
        if not self.advertise or self.insecure or not addresses:
            return
        self._advertiser = discovery.Advertiser(
            addresses, self.port, self.name, self.identity.fingerprint, self.registry.open_count
        )
        try:
            await self._advertiser.start()
        except discovery.DiscoveryError as error:
            self._advertiser = None
            self.advertise_problem = str(error)
            log.warning("not advertised on the LAN: %s", error)
            return
        self.advertised = addresses

    async def stop(self, grace: float = 5.0) -> None:
        """Graceful shutdown: NOT_SERVING, end the streams, let calls finish, close the journals.

        Safe after a start that failed part-way: it undoes what was done.
        """
        if self._advertiser is not None:  # gone from the LAN's lists first: no new visitors
            await self._advertiser.stop()
            self._advertiser = None
        if self._guard is not None:
            await self._guard.stop()
            self._guard = None
        if getattr(self, "health", None) is not None:
            await self.health.enter_graceful_shutdown()
        if getattr(self, "registry", None) is not None:
            for task in self.registry.tables.values():
                task.fanout.close()
        if getattr(self, "server", None) is not None:
            await self.server.stop(grace)
        if getattr(self, "registry", None) is not None:
            await self.registry.close()
        if getattr(self, "journals", None) is not None:
            self.journals.close()
        if getattr(self, "players", None) is not None:
            self.players.close()
        lock = getattr(self, "_lock", None)
        if lock is not None:
            lock.release()


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def invite_lines(listen: str, port: int, fingerprint: str) -> list[str]:
    """What the host's owner gives the players: the invite and the same read aloud."""
    address = listen.rsplit(":", 1)[0].strip("[]")
    if address in ("0.0.0.0", "::", ""):
        address = lan_address()
        if not _is_address(address):  # no route out (a LAN of its own): an interface's
            address = next(iter(discovery.advertised_addresses(listen)), address)
    invite = make_invite(address, port, fingerprint)
    spoken = " ".join(fingerprint.split("-"))
    return [
        f"invite: {invite}",
        f"read aloud: host {address}, port {port}, fingerprint {spoken}",
    ]


def advertising_lines(host: Host) -> list[str]:
    """Whether players on the LAN see this host in their list, and if not, why."""
    if host.advertised:
        where = ", ".join(host.advertised)
        return [f"on the LAN as {host.name!r} ({discovery.SERVICE_TYPE} on {where})"]
    if host.advertise_problem:
        return [f"not on the LAN's lists: {host.advertise_problem}"]
    if host.advertise and host.insecure:
        return ["not on the LAN's lists: without TLS there is no fingerprint to pin"]
    return []


def resumed_lines(host: Host) -> list[str]:
    """What the host reopened from its data dir at start: each table and where its match is,
    and each journal it set aside."""
    lines = []
    for table_id in host.resumed:
        task = host.registry.tables.get(table_id)
        if task is None:
            continue
        state = task.table.state
        people = [s.name for s in state.seats if s.taken]
        seated = ", ".join(people) if people else "nobody seated"
        if state.phase == lobby_pb2.TABLE_PHASE_WAITING:
            where = "waiting for its match to start"
        elif state.phase == lobby_pb2.TABLE_PHASE_FINISHED:
            where = "match over (kept a while for its last records)"
        else:
            where = f"match resumed at deal {state.deal_no}"
        lines.append(f"resumed table {table_id} {state.config.name!r}: {where}; {seated}")
    lines += host.set_aside
    if not lines:
        return [f"no table to resume in {host.data_dir}"]
    return lines


async def serve(host: Host) -> None:
    """Run ``host`` until SIGINT or SIGTERM, then shut it down gracefully."""
    await host.start()
    # The host's process for its life: what the start made (every table played back) and,
    # from now on, whatever outlives a full collection stays out of the collector's walks.
    collector.keep_out_of_the_way()
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stopping.set)
    # The start's report is written at once: whoever waits for the fingerprint (a person, a
    # script) reads the invite and the LAN's answer with it, never half of it.
    lines = [
        f"listening on {host.listen} (port {host.port}); "
        f"host fingerprint {host.identity.fingerprint}"
    ]
    if host.insecure:
        lines.append(
            "WARNING: --insecure: no TLS. Seat tokens, passwords, hands and "
            "seeds travel in clear; anyone on the network can read them and play a seat."
        )
    else:
        lines += invite_lines(host.listen, host.port, host.identity.fingerprint)
    lines += advertising_lines(host) + resumed_lines(host)
    print("\n".join(f"scala40-host: {line}" for line in lines), flush=True)
    await stopping.wait()
    print("scala40-host: shutting down", flush=True)
    await host.stop()
