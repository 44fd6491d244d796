"""A private table over a real host, beside an ordinary table in the same run, each party its
own process.

Run with ``.venv/bin/python bench/bench_private_host.py`` (``make bench`` runs it too). The
host runs in this process on 127.0.0.1; every seat runs in a process of its own (this script
with ``--seat``), as on a machine of its own: the four seats of a 4-seat private table
(``tests/private_participant.py``: a ``PrivateSeat`` each, every proof made and checked, the
host checking every message too; each seat's messages and moves on its own stream,
``TableService.Seat``, as the screen and ``scala40-bot`` send theirs, or with
``BENCH_CALLS=1`` a unary call each), and one person's seat of an ordinary 4-seat table with
three host bots. Printed, each a median and a p99 (with 5 runs, the p99 of the starts is
their worst):

- the deal's start: from StartMatch to the deal's ``started`` event at every seat (private:
  keys, the four shuffles, the cut, every hand's shares and the first discard; ordinary:
  the fair-deal exchange), and their difference, the time a private table adds to a deal;
- the CPU of each party for that start (the host, with its worker that checks the shuffles'
  proofs at the lowest priority: what of their CPU fell in the start; each seat);
- a draw from the stock: from the Draw call to the card read (private: the answer, then the
  three other seats' shares relayed and checked; ordinary: the answer, which names it), and
  the CPU a draw costs the host and the seats (each party's CPU over the deal's play,
  divided by its draws).

Times are read on the machine's monotonic clock (``time.perf_counter``, one clock for every
process). Targets (docs/PRIVATE_TABLES.md): ≤ 1.5 s added to a 4-player deal, ≤ 20 ms a draw.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).parent.parent))

import grpc
from private_participant import Participant, quick_rules

from scala40_net import wire
from scala40_net.fairdeal.exchange import SeatExchange
from scala40_net.net import tls
from scala40_net.pb import (
    deal_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    ruleset_pb2,
    table_pb2,
    table_pb2_grpc,
)
from scala40_net.private.messages import Ed25519Signer
from scala40_net.seat.link import GrpcTable

RUNS = int(os.environ.get("BENCH_RUNS", "5"))
# The private seats' requests go on each seat's own stream (TableService.Seat), as the screen
# and scala40-bot send theirs; BENCH_CALLS=1: a unary call each, with SubscribeEvents.
CALLS = os.environ.get("BENCH_CALLS") == "1"
# Each run's draws timed (every private seat's; the ordinary seat's own).
DRAWS = int(os.environ.get("BENCH_DRAWS", "20"))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def line(name: str, values: list[float]) -> str:
    return (
        f"{name:<60} median {ms(statistics.median(values)):>10}  p99 {ms(p99(values)):>10}"
        f"  (n={len(values)})"
    )


def say(**what: object) -> None:
    """One line to the host's process (a seat process's stdout)."""
    print(json.dumps(what), flush=True)


# --- a seat, in its own process ---------------------------------------------------------------


async def channel_to(port: int, fingerprint: str) -> grpc.aio.Channel:
    channel, _ = await tls.pinned_channel("127.0.0.1", port, fingerprint, wire.CHANNEL_OPTIONS)
    return channel


async def private_seat(port: int, fingerprint: str, table_id: str, name: str) -> None:
    """Join, follow the stream, answer the protocol; say when subscribed, when the deal
    started (and this process's CPU then), each draw; stop on a line on stdin."""
    channel = await channel_to(port, fingerprint)
    lobby, table = lobby_pb2_grpc.LobbyServiceStub(channel), table_pb2_grpc.TableServiceStub(
        channel
    )
    signer = Ed25519Signer()
    joined = await lobby.JoinTable(
        lobby_pb2.JoinTableRequest(
            table_id=table_id, player_name=name, private_signing_key=signer.public_key()
        )
    )
    link = None if CALLS else GrpcTable(channel, joined.seat_token)
    me = Participant(table, table_id, joined.seat, joined.seat_token, signer, link=link)
    task = asyncio.create_task(me.run())

    async def until(ready: Callable[[], object]) -> None:
        """Wait, without polling, until ``ready()`` holds after one of the seat's events."""
        while not ready():
            if task.done():
                await task  # its failure, said
                raise RuntimeError("the seat's stream ended")
            await me.changed.wait()
            me.changed.clear()

    await until(lambda: me.received)
    say(ready=me.seat, token=joined.seat_token, cpu=time.process_time())
    await until(lambda: me.started)
    say(started=time.perf_counter(), cpu=time.process_time())
    told = 0
    stop = asyncio.ensure_future(
        asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    )
    while not stop.done():
        while told < len(me.draw_times):
            say(draw=me.draw_times[told], cpu=time.process_time())
            told += 1
        changed = asyncio.ensure_future(me.changed.wait())
        await asyncio.wait({changed, stop}, return_when=asyncio.FIRST_COMPLETED)
        changed.cancel()
        me.changed.clear()
    me.stop.set()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    say(done=True, cpu=time.process_time())
    await channel.close()


async def ordinary_seat(port: int, fingerprint: str, table_id: str, name: str) -> None:
    """One person at a table of three host bots (the fair-deal exchange answered here): the
    start is timed from the StartMatch this seat calls; each draw of its own is said."""
    channel = await channel_to(port, fingerprint)
    lobby, table = lobby_pb2_grpc.LobbyServiceStub(channel), table_pb2_grpc.TableServiceStub(
        channel
    )
    joined = await lobby.JoinTable(lobby_pb2.JoinTableRequest(table_id=table_id, player_name=name))
    md = (("authorization", f"Bearer {joined.seat_token}"),)
    for _ in range(3):
        await lobby.AddBot(lobby_pb2.AddBotRequest(table_id=table_id), metadata=md)
    stream = table.SubscribeEvents(table_pb2.SubscribeEventsRequest(after_seq=0), metadata=md)
    me = joined.seat
    exchange = SeatExchange(me)
    seq, draws = 0, 0

    def context() -> table_pb2.MoveContext:
        return table_pb2.MoveContext(request_id=str(uuid.uuid4()), last_seen_seq=seq)

    first, started, deal_no = True, False, 0
    async for response in stream:
        event = response.event
        seq = max(seq, event.seq)
        if first:
            first = False
            say(ready=me, cpu=time.process_time())
            say(began=time.perf_counter())
            await lobby.StartMatch(lobby_pb2.StartMatchRequest(table_id=table_id), metadata=md)
        if not event.HasField("deal"):
            continue
        public = deal_pb2.DealEvent.FromString(event.deal.public_event)
        which = public.WhichOneof("event")
        if which == "announced":
            if deal_no:
                break  # the first deal's draws are the run's
            deal_no = public.deal_no
            exchange = SeatExchange(me)  # each deal its own seed
            exchange.on_announced(public)
            await table.CommitSeed(
                table_pb2.CommitSeedRequest(
                    context=context(), deal_no=public.deal_no, commitment=exchange.commit()
                ),
                metadata=md,
            )
        elif which == "commitments":
            exchange.on_commitments(public)
            reveal = exchange.reveal()
            await table.RevealSeed(
                table_pb2.RevealSeedRequest(
                    context=context(), deal_no=public.deal_no, seed=reveal.seed, cut=reveal.cut
                ),
                metadata=md,
            )
        elif which == "started":
            if not started:
                started = True
                say(started=time.perf_counter(), cpu=time.process_time())
            turn = public.started.first_seat
        elif which == "played":
            turn = (public.played.seat + 1) % 4
        else:
            continue
        if which in ("started", "played") and turn == me:
            sent = time.perf_counter()
            try:
                drawn = await table.Draw(
                    table_pb2.DrawRequest(context=context(), source=deal_pb2.DRAW_SOURCE_STOCK),
                    metadata=md,
                )
            except grpc.aio.AioRpcError:
                continue  # the play before ended the deal (or the stock is being rebuilt)
            say(draw=time.perf_counter() - sent, cpu=time.process_time())
            seq = max(seq, drawn.seq)
            try:
                await table.Play(
                    table_pb2.PlayRequest(context=context(), discard=drawn.card), metadata=md
                )
            except grpc.aio.AioRpcError as refused:  # the turn's clock, or the deal's end
                print(f"bench seat {me}: play refused: {refused.details()}", file=sys.stderr)
            draws += 1
            if draws >= DRAWS:
                break
    stream.cancel()
    say(done=True, cpu=time.process_time())
    await channel.close()


# --- the host's process -----------------------------------------------------------------------


class SeatProcess:
    """A seat's process and the lines it says."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        # Each line by its first key (the host's process reads them, its CPU counted: kept
        # cheap, so that what is counted is the host's).
        self.lines: dict[str, list[dict[str, float]]] = {}
        # Set at each line, and at the end: ``until`` waits on it rather than polling.
        self.heard = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        try:
            async for raw in self.proc.stdout:
                said = json.loads(raw)
                self.lines.setdefault(next(iter(said)), []).append(said)
                self.heard.set()
        finally:
            self.heard.set()

    def said(self, key: str) -> list[dict[str, float]]:
        return self.lines.get(key, [])

    async def until(self, key: str, count: int = 1) -> list[dict[str, float]]:
        while len(self.said(key)) < count:
            if self.reader.done():
                raise RuntimeError(f"a seat process ended before saying {key!r}")
            await self.heard.wait()
            self.heard.clear()
        return self.said(key)

    async def finish(self) -> dict[str, float]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"stop\n")
        await self.proc.stdin.drain()
        done = (await self.until("done"))[0]
        await self.proc.wait()
        return done


SPAWNED: list[asyncio.subprocess.Process] = []


async def spawn(kind: str, port: int, fingerprint: str, table_id: str, name: str) -> SeatProcess:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--seat", kind, str(port), fingerprint, table_id, name,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )
    SPAWNED.append(proc)
    return SeatProcess(proc)


def host_cpu_now() -> float:
    """The host's CPU seconds so far: its own process and its shuffle checks' worker process
    (host.table.shuffle_checks, at the lowest priority: CPU the seats did not want)."""
    from host.table.shuffle_checks import worker_pids

    ticks = os.sysconf("SC_CLK_TCK")
    worker = 0.0
    for pid in worker_pids():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        worker += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return time.process_time() + worker


class Figures:
    def __init__(self) -> None:
        self.starts: list[float] = []
        self.host_start_cpu: list[float] = []
        self.seat_start_cpu: list[float] = []
        self.draws: list[float] = []
        self.host_draw_cpu: list[float] = []
        self.seat_draw_cpu: list[float] = []


async def private_run(
    lobby: lobby_pb2_grpc.LobbyServiceStub, port: int, fingerprint: str, out: Figures
) -> None:
    created = await lobby.CreateTable(
        lobby_pb2.CreateTableRequest(
            name="private", seats=4, ruleset=quick_rules(2), private_cards=True
        )
    )
    seats = []
    for _ in range(4):  # joined one after another: seats 0-3 in order
        seat = await spawn("private", port, fingerprint, created.table_id, f"p{len(seats)}")
        await seat.until("ready")
        seats.append(seat)
    token = str(seats[0].said("ready")[0]["token"])
    cpu_before = [s.said("ready")[0]["cpu"] for s in seats]
    host_cpu, began = host_cpu_now(), time.perf_counter()
    await lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=created.table_id),
        metadata=(("authorization", f"Bearer {token}"),),
    )
    started = [(await s.until("started"))[0] for s in seats]
    out.starts.append(max(d["started"] for d in started) - began)
    out.host_start_cpu.append(host_cpu_now() - host_cpu)
    out.seat_start_cpu += [d["cpu"] - c for d, c in zip(started, cpu_before, strict=True)]
    host_cpu = host_cpu_now()
    while sum(len(s.said("draw")) for s in seats) < DRAWS:
        await asyncio.sleep(0.02)
    host_cpu = host_cpu_now() - host_cpu
    done = [await s.finish() for s in seats]
    draws = [d["draw"] for s in seats for d in s.said("draw")]
    out.draws += draws
    out.host_draw_cpu.append(host_cpu / len(draws))
    seat_cpu = sum(d["cpu"] - s["cpu"] for d, s in zip(done, started, strict=True))
    out.seat_draw_cpu.append(seat_cpu / len(draws) / 4)


async def ordinary_run(
    lobby: lobby_pb2_grpc.LobbyServiceStub, port: int, fingerprint: str, out: Figures
) -> None:
    rules = quick_rules(2)
    # Any discard goes (R8.2 free): this seat discards what it draws, whatever the bots laid.
    rules.options.discard_attachable = ruleset_pb2.DISCARD_ATTACHABLE_FREE
    created = await lobby.CreateTable(
        lobby_pb2.CreateTableRequest(name="ordinary", seats=4, ruleset=rules)
    )
    seat = await spawn("ordinary", port, fingerprint, created.table_id, "me")
    ready = (await seat.until("ready"))[0]
    host_cpu = host_cpu_now()
    began = (await seat.until("began"))[0]["began"]
    started = (await seat.until("started"))[0]
    out.starts.append(started["started"] - began)
    out.host_start_cpu.append(host_cpu_now() - host_cpu)
    out.seat_start_cpu.append(started["cpu"] - ready["cpu"])
    host_cpu = host_cpu_now()
    done = (await seat.until("done"))[0]
    host_cpu = host_cpu_now() - host_cpu
    await seat.proc.wait()
    draws = [d["draw"] for d in seat.said("draw")]
    out.draws += draws
    out.host_draw_cpu.append(host_cpu / len(draws))  # the three host bots' plays in it too
    out.seat_draw_cpu.append((done["cpu"] - started["cpu"]) / len(draws))


async def main() -> None:
    from host.edge.server import Host
    from host.table.state import TableSettings

    load_before = Path("/proc/loadavg").read_text().split()[:3]
    with tempfile.TemporaryDirectory() as folder:
        host = Host("127.0.0.1:0", Path(folder), TableSettings(between_deals=0.0))
        await host.start()
        fingerprint = host.identity.fingerprint
        channel = await channel_to(host.port, fingerprint)
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        private, plain = Figures(), Figures()
        try:
            for _ in range(RUNS):
                await ordinary_run(lobby, host.port, fingerprint, plain)
                await private_run(lobby, host.port, fingerprint, private)
        finally:
            for proc in SPAWNED:
                if proc.returncode is None:
                    proc.kill()
            await channel.close()
            await host.stop(grace=0.5)
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    print(f"{RUNS} runs; load average (1/5/15 min) before: {' '.join(load_before)}, "
          f"after: {' '.join(load_after)}; {os.cpu_count()} cores")
    print("the host in this process, every seat in a process of its own, over TLS on loopback;"
          f" the private seats' requests {'a call each' if CALLS else 'on their seat streams'}")
    print(line("ordinary 4-seat table: StartMatch to the deal's start", plain.starts))
    print(line("private 4-seat table: StartMatch to the deal's start", private.starts))
    added = [p - o for p, o in zip(private.starts, plain.starts, strict=True)]
    print(line("added by the private deal (target ≤ 1500 ms)", added))
    print(line("  ordinary start: the host's CPU (3 host bots' in it)", plain.host_start_cpu))
    print(line("  ordinary start: the seat's CPU", plain.seat_start_cpu))
    print(line("  private start: the host's CPU (with its worker's)", private.host_start_cpu))
    print(line("  private start: each seat's CPU", private.seat_start_cpu))
    print(line("ordinary draw: the call to the card read", plain.draws))
    print(line("private draw: the call to the card read (target ≤ 20 ms)", private.draws))
    print(line("  ordinary play: the host's CPU a draw (3 bots' turns in it)", plain.host_draw_cpu))
    print(line("  ordinary play: the seat's CPU a draw", plain.seat_draw_cpu))
    print(line("  private play: the host's CPU a draw", private.host_draw_cpu))
    print(line("  private play: each seat's CPU a draw", private.seat_draw_cpu))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--profile":
        # One private run, the host's process profiled: ``--profile FILE``.
        import cProfile

        RUNS = 1
        profile = cProfile.Profile()
        profile.enable()
        asyncio.run(main())
        profile.disable()
        profile.dump_stats(sys.argv[2])
    elif len(sys.argv) > 1 and sys.argv[1] == "--seat":
        kind, port, fingerprint, table_id, name = sys.argv[2:7]
        run = private_seat if kind == "private" else ordinary_seat
        asyncio.run(run(int(port), fingerprint, table_id, name))
    else:
        asyncio.run(main())
