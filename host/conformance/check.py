"""``scala40-conformance``: a real host that scripts, for one table, what every client must handle.

It starts a host (TLS, as ``scala40-host``) on a loopback port, makes one
table of six seats — seat 0 for the client under test, five host bots that
draw and discard and never lay (``host.conformance.bots``) — and prints its
id and invite. It then runs the client's command line (``{invite}``,
``{table}`` … filled in) or waits for any client to join, starts the match,
and plays the script (``host.conformance.script``) through the first deal: the
cutter sends no commitment (a left-out seat, a derived cut); the client's
first Draw is refused as a stale view, its first Play as a rule violation, a
later Draw as not saved; the stock runs out and is rebuilt; the client's
stream is dropped; the host stops and starts again on the same port and data
dir. At the end it prints each check with what was expected and what was
seen, and exits 0 only if every one passed. Nobody can open at this table
(opening 150 points), so the deal lasts until the script is done.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import tempfile
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from host.conformance.bots import seat_runner
from host.conformance.script import Check, Script
from host.conformance.service import ScriptedTableService
from host.edge.server import START_PROBLEMS, Host
from host.table.links import HostChoices
from host.table.state import TableSettings
from host.table.task import TableTask
from scala40_net import wire
from scala40_net.fairdeal.spec import cutter_seat
from scala40_net.invite import Invite, make_invite
from scala40_net.pb import lobby_pb2, ruleset_pb2

SEATS = 6
CLIENT_SEAT = 0
SILENT_SEAT = SEATS - 1  # the cutter of deal 1: the dealer is seat 0
TABLE_NAME = "conformance"
SETTINGS = TableSettings(
    commit_timeout=4.0,
    reveal_timeout=6.0,
    bot_delay=0.0,
    between_deals=0.0,
    archive_after=3600.0,
    idle_removal=3600.0,
)
# Seconds for the stock to run out once the deal started: five rounds of host bots.
REBUILD_SECONDS = 60.0


@dataclass(frozen=True)
class Invitation:
    """Where the client under test finds its table."""

    host: str
    port: int
    table_id: str
    fingerprint: str | None  # None: a host without TLS (--insecure)

    @property
    def address(self) -> str:
        return Invite(self.host, self.port, None).address

    @property
    def invite(self) -> str:
        if self.fingerprint is None:
            return self.address
        return make_invite(self.host, self.port, self.fingerprint)

    def fill(self, arg: str) -> str:
        """A command-line argument with ``{invite}``, ``{address}``, ``{host}``, ``{port}``,
        ``{table}`` and ``{fingerprint}`` filled in."""
        for key, value in {
            "invite": self.invite,
            "address": self.address,
            "host": self.host,
            "port": str(self.port),
            "table": self.table_id,
            "fingerprint": self.fingerprint or "",
        }.items():
            arg = arg.replace("{" + key + "}", value)
        return arg


ClientRunner = Callable[[Invitation], Coroutine[Any, Any, object]]


class _FirstDealer:
    """The host's own choices, but the first dealer is the script's (the cutter follows)."""

    def __init__(self, dealer: int, live: HostChoices) -> None:
        self._dealer = dealer
        self._live = live

    def first_dealer(self, players: list[int]) -> int:
        return self._dealer

    def host_seed(self, deal_no: int) -> bytes:
        return self._live.host_seed(deal_no)

    def pause_waits_for(self, people: set[int], playing: set[int]) -> set[int]:
        return self._live.pause_waits_for(people, playing)

    def timed_out_discard(self, chosen: int) -> int:
        return self._live.timed_out_discard(chosen)


def command_client(argv: Sequence[str]) -> ClientRunner:
    """The client under test as a command line, run once the table exists and ended after."""

    async def run(invitation: Invitation) -> int:
        process = await asyncio.create_subprocess_exec(*[invitation.fill(a) for a in argv])
        try:
            return await process.wait()
        finally:
            if process.returncode is None:
                process.terminate()
                try:
                    async with asyncio.timeout(3.0):
                        await process.wait()
                except TimeoutError:
                    process.kill()
                    await process.wait()

    return run


@dataclass
class Conformance:
    """One conformance run: a host, its table, the client under test, the script's checks."""

    listen: str = "127.0.0.1:0"
    data_dir: Path | None = None
    insecure: bool = False
    join_timeout: float = 300.0
    check_seconds: float = 15.0
    say: Callable[[str], None] = print

    async def run(self, client: ClientRunner | None = None) -> Script:
        """Run the script against ``client`` (None: whichever client joins); its checks."""
        script = Script(SILENT_SEAT, seat=CLIENT_SEAT)
        with tempfile.TemporaryDirectory(prefix="scala40-conformance-") as scratch:
            data_dir = self.data_dir or Path(scratch)
            host = self._host(script, data_dir, self.listen)
            await host.start()
            where = self.listen.rsplit(":", 1)[0].strip("[]")
            listen = f"[{where}]:{host.port}" if ":" in where else f"{where}:{host.port}"
            playing: asyncio.Task[object] | None = None
            running: Host | None = host
            try:
                task = await self._table(host)
                script.table_id = task.table_id
                fingerprint = None if self.insecure else host.identity.fingerprint
                invitation = Invitation(where, host.port, task.table_id, fingerprint)
                self.say(f"table: {invitation.table_id} (seat {CLIENT_SEAT} is yours)")
                self.say(f"invite: {invitation.invite}")
                if client is not None:
                    playing = asyncio.create_task(client(invitation))
                else:
                    self.say("waiting for a client to join the table")

                def gone() -> bool:
                    return playing is not None and playing.done()

                running = await self._play(script, host, task, listen, data_dir, gone)
                if playing is not None and playing.done() and not playing.cancelled():
                    error = playing.exception()
                    ended = f"raised {error!r}" if error else f"ended ({playing.result()})"
                    self.say(f"the client {ended} before the run was over")
            finally:
                if playing is not None:
                    playing.cancel()
                    with contextlib.suppress(BaseException):
                        await playing
                if running is not None:
                    await running.stop(grace=1.0)
        for line in script.report():
            self.say(line)
        return script

    def _host(self, script: Script, data_dir: Path, listen: str) -> Host:
        return Host(
            listen,
            data_dir,
            SETTINGS,
            insecure=self.insecure,
            wrap_table_service=lambda service: ScriptedTableService(service, script),
            run_bot=seat_runner(SILENT_SEAT),
        )

    async def _table(self, host: Host) -> TableTask:
        """The table: seats 1..5 host bots; nobody can open, so the stock runs out."""
        options = ruleset_pb2.RulesetOptions(opening_points=150, stall_rebuilds=0)
        config = lobby_pb2.CreateTableRequest(
            name=TABLE_NAME,
            seats=SEATS,
            ruleset=ruleset_pb2.Ruleset(options=options),
            turn_seconds=0,
            grace_seconds=600,
            between_deals_seconds=0,
        )
        task = await host.registry.create_table(config, wire.ruleset_from_pb(config.ruleset, SEATS))
        for seat in range(SEATS):
            if seat != CLIENT_SEAT:
                request = lobby_pb2.AddBotRequest(table_id=task.table_id, seat=seat)
                await task.call(lambda table, r=request: table.add_bot(CLIENT_SEAT, r))  # type: ignore[misc]
        return task

    async def _play(
        self,
        script: Script,
        host: Host,
        task: TableTask,
        listen: str,
        data_dir: Path,
        gone: Callable[[], bool],
    ) -> Host | None:
        """The script's stages, in order; a stage the client never reaches ends the run.
        Returns the host running at the end (another one after the restart; None if that
        one could not start)."""

        def joined() -> bool:
            table = task.table
            return (
                table.state.seats[CLIENT_SEAT].taken
                and CLIENT_SEAT in task.fanout.connected_seats()
            )

        if not await script.until(joined, self.join_timeout, gone):
            script.left_out.decide(False, "no client joined the table and opened its stream")
            return host
        seats = list(range(SEATS))
        links = task.table.links
        links.choices = _FirstDealer(
            next(d for d in seats if cutter_seat(d, seats) == SILENT_SEAT), links.choices
        )
        start = lobby_pb2.StartMatchRequest(table_id=task.table_id)
        await task.call(lambda table: table.start_match(CLIENT_SEAT, start))
        s, wait = script, self.check_seconds
        fair_deal = SETTINGS.commit_timeout + SETTINGS.reveal_timeout + wait
        steps: list[tuple[Check, float]] = [
            (s.left_out, fair_deal),
            (s.derived_cut, wait),
            (s.stale_view, wait),
            (s.rule_refusal, wait),
            (s.not_saved, wait),
        ]
        for check, seconds in steps:
            if not await self._decided(script, check, seconds, gone):
                return host
        if not await self._rebuild(script, gone):
            return host
        if not await self._drop(script, gone):
            return host
        return await self._restart(script, host, listen, data_dir, gone)

    async def _decided(
        self, script: Script, check: Check, seconds: float, gone: Callable[[], bool]
    ) -> bool:
        """Wait for ``check``'s verdict; none in time fails it, and the run stops there."""
        return await self._waited(script, check, lambda: check.passed is not None, seconds, gone)

    async def _waited(
        self,
        script: Script,
        check: Check,
        done: Callable[[], bool],
        seconds: float,
        gone: Callable[[], bool],
    ) -> bool:
        """Wait until ``done()``; not in time fails ``check`` with what the client did last."""
        if await script.until(done, seconds, gone):
            return True
        check.decide(False, f"{_why(seconds, gone)} (its last moves: {_last_moves(script)})")
        return False

    async def _rebuild(self, script: Script, gone: Callable[[], bool]) -> bool:
        s = script
        if not await s.until(lambda: s.rebuilt_at is not None, REBUILD_SECONDS, gone):
            s.rebuild.decide(False, f"the stock was never rebuilt (its moves: {_last_moves(s)})")
            return False
        rebuilt = s.rebuilt_at
        assert rebuilt is not None

        def turn_played() -> bool:
            return bool(
                s.accepted("play", after=rebuilt) or s.accepted("return_discard", after=rebuilt)
            )

        if not await self._waited(s, s.rebuild, turn_played, 2 * self.check_seconds, gone):
            return False
        stale = [m for m in s.moves if m.outcome == "STALE_VIEW" and m.last_seen_seq < rebuilt]
        note = f"; {len(stale)} STALE_VIEW refusal(s) first" if stale else ""
        s.rebuild.decide(True, f"its turn after stock_rebuilt (seq {rebuilt}) was accepted{note}")
        return True

    async def _drop(self, script: Script, gone: Callable[[], bool]) -> bool:
        s = script
        s.drop_requested = True
        if not await s.until(lambda: s.dropped_after is not None, self.check_seconds, gone):
            s.dropped.decide(False, "no event came to drop the stream after")
            return False
        dropped = s.dropped_after
        assert dropped is not None
        count = len(s.subscriptions)
        if not await s.until(lambda: len(s.subscriptions) > count, self.check_seconds, gone):
            s.dropped.decide(
                False,
                f"{_why(self.check_seconds, gone)}: no SubscribeEvents after the stream was "
                f"dropped after seq {dropped}",
            )
            return False
        _, after = s.subscriptions[count]
        wrong = _resumed_wrongly(after, dropped)
        if wrong:
            s.dropped.decide(False, wrong)
            return True

        def next_turn() -> bool:
            return bool(s.accepted("play", after=dropped + 1))

        if not await self._waited(s, s.dropped, next_turn, 2 * self.check_seconds, gone):
            return False
        s.dropped.decide(
            True,
            f"SubscribeEvents(after_seq={after}) after the drop (the stream had given it up "
            f"to {dropped}), then its next turn was accepted",
        )
        return True

    async def _restart(
        self, script: Script, host: Host, listen: str, data_dir: Path, gone: Callable[[], bool]
    ) -> Host | None:
        s = script
        await host.stop(grace=1.0)
        given = s.restarted_after = s.delivered
        await asyncio.sleep(0.5)
        s.run += 1
        host = self._host(script, data_dir, listen)
        try:
            await host.start()
        except START_PROBLEMS as error:  # it undid its own start: nothing to stop
            s.restart.decide(False, f"the host could not start again on {listen}: {error}")
            return None
        count = len(s.subscriptions)
        if not await s.until(lambda: len(s.subscriptions) > count, 2 * self.check_seconds, gone):
            s.restart.decide(
                False,
                f"{_why(2 * self.check_seconds, gone)}: no SubscribeEvents to the restarted host",
            )
            return host
        _, after = s.subscriptions[count]
        wrong = _resumed_wrongly(after, given)
        if wrong:
            s.restart.decide(False, wrong)
            return host

        def two_turns() -> bool:
            return len(s.accepted("play", run=s.run)) >= 2

        if await self._waited(s, s.restart, two_turns, 3 * self.check_seconds, gone):
            s.restart.decide(
                True,
                f"SubscribeEvents(after_seq={after}) to the restarted host (the stream had "
                f"given it up to {given}), then its next two turns were accepted",
            )
        return host


def _resumed_wrongly(after: int, given: int) -> str | None:
    """What is wrong with resuming after ``after`` when the stream had been given every event
    up to ``given``: None if nothing. An ``after`` below ``given`` is right: the last events
    given may not have reached the client, or been read (it gets them again, none missed)."""
    if after == 0:
        return "SubscribeEvents(after_seq=0): a snapshot, not the events after its last one"
    if after > given:
        return f"SubscribeEvents(after_seq={after}): events {given + 1}..{after} are missed"
    return None


def _why(seconds: float, gone: Callable[[], bool]) -> str:
    return "the client exited" if gone() else f"nothing within {seconds:.0f} s"


def _last_moves(script: Script) -> str:
    moves = [f"{m.kind} {m.outcome}" for m in script.moves[-4:]]
    return ", ".join(moves) or "none"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scala40-conformance",
        description="Check a Scala 40 client against a host that scripts what a client must "
        "handle: refusals, a left-out seat and a derived cut, a stock rebuild, a dropped "
        "stream, a host restart. Exit 0 only if every check passed.",
        epilog="Example: scala40-conformance -- scala40-bot {invite} --table {table}",
    )
    parser.add_argument(
        "--listen",
        default="127.0.0.1:0",
        help="loopback address and port of the host (default 127.0.0.1:0, a free port)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="the host's data dir, best a new one (default: a temporary one, removed after)",
    )
    parser.add_argument("--insecure", action="store_true", help="no TLS ({invite} is HOST:PORT)")
    parser.add_argument(
        "--join-timeout",
        type=float,
        default=300.0,
        help="seconds to wait for the client to join and open its stream (default 300)",
    )
    parser.add_argument(
        "--check-seconds",
        type=float,
        default=15.0,
        help="seconds the client has for each situation (default 15)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log the host's work")
    parser.add_argument(
        "client",
        nargs=argparse.REMAINDER,
        help="after --: the client's command line, with {invite}, {address}, {host}, {port}, "
        "{table} and {fingerprint} filled in; none: wait for any client to join",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.ERROR,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    command = args.client[1:] if args.client[:1] == ["--"] else args.client
    run = Conformance(
        args.listen,
        args.data_dir,
        args.insecure,
        args.join_timeout,
        args.check_seconds,
        say=lambda line: print(line, flush=True),
    )
    try:
        script = asyncio.run(run.run(command_client(command) if command else None))
    except START_PROBLEMS as error:
        print(f"scala40-conformance: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0 if script.passed else 1
