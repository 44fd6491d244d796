"""A private table over a real host, beside an ordinary table in the same run.

Run with ``.venv/bin/python bench/bench_private_host.py`` (``make bench`` runs it too). One
host in this process on 127.0.0.1, and, in the same process, every seat of a 4-seat private
table (``tests/private_participant.py``: a ``PrivateSeat`` each, every proof made and
checked, the host checking every message too) and one person's seat of an ordinary 4-seat
table with three host bots. Printed, each a median and the worst of the runs:

- the deal's start: from StartMatch to the deal's ``started`` event at every seat (private:
  keys, the four shuffles, the cut, every hand's shares and the first discard; ordinary:
  the fair-deal exchange), and their difference, the time a private table adds to a deal;
- a draw from the stock: from the Draw call to the card read (private: the answer, then the
  three other seats' shares relayed and checked; ordinary: the answer, which names it).

Every seat of the private table shares this process's one core here, where in play each runs
on its own machine: the figures are an upper bound of what a table of four machines sees.
Targets (docs/PRIVATE_TABLES.md): ≤ 1.5 s added to a 4-player deal, ≤ 20 ms a draw.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))

import grpc
from private_participant import play_all, private_table, quick_rules

from host.edge.server import Host
from host.table.state import TableSettings
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

RUNS = 5
CPU: list[float] = []  # this process's CPU for each private deal's start: every party's
DRAWS = 12  # each run's private draws timed (every seat's)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def line(name: str, values: list[float]) -> str:
    return f"{name:<58} median {ms(statistics.median(values)):>10}  worst {ms(max(values)):>10}"


async def private_run(
    lobby: lobby_pb2_grpc.LobbyServiceStub, table: table_pb2_grpc.TableServiceStub
) -> tuple[float, list[float]]:
    table_id, people = await private_table(lobby, table, 4, quick_rules(2))
    tasks = play_all(people)
    while not all(p.received for p in people):
        await asyncio.sleep(0.001)
    began, cpu = time.perf_counter(), time.process_time()
    await lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=people[0].metadata
    )
    while not all(p.started for p in people):
        await asyncio.sleep(0.001)
    start = time.perf_counter() - began
    CPU.append(time.process_time() - cpu)
    while sum(len(p.draw_times) for p in people) < DRAWS:
        await asyncio.sleep(0.005)
    for p in people:
        p.stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return start, [t for p in people for t in p.draw_times]


async def ordinary_run(
    lobby: lobby_pb2_grpc.LobbyServiceStub, table: table_pb2_grpc.TableServiceStub
) -> tuple[float, list[float]]:
    """One person (the fair-deal exchange answered here) and three host bots."""
    rules = quick_rules(2)
    # Any discard goes (R8.2 free): this seat discards what it draws, whatever the bots laid.
    rules.options.discard_attachable = ruleset_pb2.DISCARD_ATTACHABLE_FREE
    created = await lobby.CreateTable(
        lobby_pb2.CreateTableRequest(name="ordinary", seats=4, ruleset=rules)
    )
    joined = await lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=created.table_id, player_name="me")
    )
    md = (("authorization", f"Bearer {joined.seat_token}"),)
    for _ in range(3):
        await lobby.AddBot(lobby_pb2.AddBotRequest(table_id=created.table_id), metadata=md)
    stream = table.SubscribeEvents(table_pb2.SubscribeEventsRequest(after_seq=0), metadata=md)
    me = joined.seat
    exchange = SeatExchange(me)
    seq, draws, start = 0, [], 0.0
    began = 0.0

    def context() -> table_pb2.MoveContext:
        return table_pb2.MoveContext(request_id=str(uuid.uuid4()), last_seen_seq=seq)

    first = True
    async for response in stream:
        event = response.event
        seq = max(seq, event.seq)
        if first:
            first = False
            began = time.perf_counter()
            await lobby.StartMatch(
                lobby_pb2.StartMatchRequest(table_id=created.table_id), metadata=md
            )
        if not event.HasField("deal"):
            continue
        public = deal_pb2.DealEvent.FromString(event.deal.public_event)
        which = public.WhichOneof("event")
        if which == "announced":
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
            start = start or time.perf_counter() - began  # the first deal's
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
            draws.append(time.perf_counter() - sent)
            seq = max(seq, drawn.seq)
            await table.Play(
                table_pb2.PlayRequest(context=context(), discard=drawn.card), metadata=md
            )
            if len(draws) >= DRAWS // 4:
                break
    stream.cancel()
    return start, draws


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        host = Host("127.0.0.1:0", Path(folder), TableSettings(between_deals=0.0))
        await host.start()
        channel, _ = await tls.pinned_channel(
            "127.0.0.1", host.port, host.identity.fingerprint, wire.CHANNEL_OPTIONS
        )
        lobby, table = lobby_pb2_grpc.LobbyServiceStub(channel), table_pb2_grpc.TableServiceStub(
            channel
        )
        try:
            private_starts, private_draws, plain_starts, plain_draws = [], [], [], []
            for _ in range(RUNS):
                start, draws = await ordinary_run(lobby, table)
                plain_starts.append(start)
                plain_draws += draws
                start, draws = await private_run(lobby, table)
                private_starts.append(start)
                private_draws += draws
        finally:
            await channel.close()
            await host.stop(grace=0.5)
    print(f"{RUNS} runs, load average before: {LOAD}, after: {os.getloadavg()[0]:.2f}")
    print(line("ordinary 4-seat table: StartMatch to the deal's start", plain_starts))
    print(line("private 4-seat table: StartMatch to the deal's start", private_starts))
    added = [p - o for p, o in zip(private_starts, plain_starts, strict=True)]
    print(line("added by the private deal (target ≤ 1500 ms)", added))
    print(line("the private deal's start: CPU of all five parties together", CPU))
    print(line("ordinary draw: the call to the card read", plain_draws))
    print(line("private draw: the call to the card read (target ≤ 20 ms)", private_draws))


LOAD = f"{os.getloadavg()[0]:.2f}"

if __name__ == "__main__":
    asyncio.run(main())
