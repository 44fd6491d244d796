"""A table of three who each try to hold it up, and the match still ends within its clocks.

Over gRPC on 127.0.0.1: one seat churns its streams (its client drops and
resumes, and opens and closes extra streams, all the time), the table's first
player plays and meanwhile asks for every decision they may (more time, a hand
over, a seat freed, a start, Ready, a buy-back, chat) for every seat, and the
third player is connected but never moves. The liveness rule holds: the table
never waits on anyone longer than its clocks allow, no request gets UNKNOWN or
INTERNAL, more time is never granted past its bound, and the match ends.
``SCALA40_SOAK_DEALS`` sets the match's length (``make test``: 1 deal; ``make
soak``: 6).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections import Counter
from pathlib import Path

import grpc
from conftest import bearer, bot_seat, start_host, until

from host.edge.errors import error_info
from host.table.absences import MORE_TIME_PER_DEAL
from host.table.state import TableSettings
from scala40_net.pb import lobby_pb2, ruleset_pb2, table_pb2, table_pb2_grpc
from scala40_net.seat.netbot import NetworkSeat

DEALS = int(os.environ.get("SCALA40_SOAK_DEALS", "1"))
TURN, GRACE, BETWEEN = 2, 2, 1
SETTINGS = TableSettings(commit_timeout=3, reveal_timeout=3)
# The longest the table may wait for anything: a turn given all the time it may have, or a
# fair-deal exchange run to both its deadlines, or the pause between deals. The gaps measured
# are held to twice that, so a loaded machine's slowness is not taken for a stall.
LONGEST_WAIT = max(TURN + GRACE, SETTINGS.commit_timeout + SETTINGS.reveal_timeout, BETWEEN)
SLOWEST_GAP = 2 * LONGEST_WAIT
# Codes a refused decision may get; UNKNOWN or INTERNAL would be a bug.
REFUSED_AS = {
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}


def soak_table() -> lobby_pb2.CreateTableRequest:
    ruleset = ruleset_pb2.Ruleset(preset=ruleset_pb2.PRESET_CLASSIC)
    ruleset.options.match_mode = ruleset_pb2.MATCH_MODE_DEALS
    ruleset.options.deals_in_match = DEALS
    return lobby_pb2.CreateTableRequest(
        name="soak",
        seats=3,
        ruleset=ruleset,
        turn_seconds=TURN,
        grace_seconds=GRACE,
        between_deals_seconds=BETWEEN,
    )


class Abuser:
    """The table's first player's other hand: every decision they may ask for, again and again."""

    def __init__(self, stub: table_pb2_grpc.TableServiceStub, seat: NetworkSeat, task: object):
        self.stub = stub
        self.seat = seat
        self.task = task
        self.answers: Counter[tuple[str, str]] = Counter()
        self.more_time: Counter[tuple[int, int]] = Counter()  # (deal, seat) -> granted

    async def ask(self, name: str, call: object) -> bool:
        try:
            await call  # type: ignore[misc]
        except grpc.aio.AioRpcError as error:
            assert error.code() in REFUSED_AS, (name, error.code(), error.details())
            info = error_info(error)
            self.answers[(name, info.reason if info else error.code().name)] += 1
            return False
        self.answers[(name, "OK")] += 1
        return True

    async def run(self, seats: int) -> None:
        metadata = self.seat.metadata
        lobby = self.seat.lobby
        context = table_pb2.MoveContext
        for round_no in range(100_000):  # bounded; cancelled when the match ends
            for seat in range(seats):
                deal_no = self.task.table.state.deal_no  # type: ignore[attr-defined]
                more = table_pb2.DecideAbsenceRequest(
                    seat=seat, choice=table_pb2.ABSENCE_CHOICE_MORE_TIME
                )
                if await self.ask("more_time", self.stub.DecideAbsence(more, metadata=metadata)):
                    self.more_time[(deal_no, seat)] += 1
                for choice in (
                    table_pb2.ABSENCE_CHOICE_HAND_TO_BOT,
                    table_pb2.ABSENCE_CHOICE_FREE_SEAT,
                ):
                    request = table_pb2.DecideAbsenceRequest(seat=seat, choice=choice)
                    await self.ask(
                        table_pb2.AbsenceChoice.Name(choice),
                        self.stub.DecideAbsence(request, metadata=metadata),
                    )
            start = lobby_pb2.StartMatchRequest(table_id=self.seat.table_id)
            await self.ask("start", lobby.StartMatch(start, metadata=metadata))
            ready = table_pb2.ReadyRequest(context=context(request_id=f"r{round_no}"))
            await self.ask("ready", self.stub.Ready(ready, metadata=metadata))
            buy = table_pb2.AnswerRientroRequest(
                context=context(request_id=f"b{round_no}"), buy_back=True
            )
            await self.ask("rientro", self.stub.AnswerRientro(buy, metadata=metadata))
            chat = table_pb2.SendChatRequest(text=f"hurry up {round_no}")
            await self.ask("chat", self.stub.SendChat(chat, metadata=metadata))
            await asyncio.sleep(0.1)


async def churn(seat: NetworkSeat, stub: table_pb2_grpc.TableServiceStub) -> None:
    """The churning seat's client: it plays, but drops and resumes every moment, and opens and
    closes other streams of its seat in between."""
    for _ in range(100_000):  # bounded; cancelled when the match ends
        playing = asyncio.create_task(seat.play_match())
        await asyncio.sleep(0.7)
        if playing.done():
            with contextlib.suppress(grpc.aio.AioRpcError):
                if playing.result() or seat.winners is not None:
                    return
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
        for _ in range(3):
            extra = stub.SubscribeEvents(
                table_pb2.SubscribeEventsRequest(after_seq=0), metadata=seat.metadata
            )
            with contextlib.suppress(grpc.aio.AioRpcError):
                await extra.read()
            extra.cancel()


async def watch(stub: table_pb2_grpc.TableServiceStub, token: str, gaps: list[float]) -> None:
    """A spectator: the time between each step of the match and the next (the deal's events
    and the match's updates; chat and seat changes say nothing of the match going on), from
    its start until it is over."""
    stream = stub.SubscribeEvents(table_pb2.SubscribeEventsRequest(), metadata=bearer(token))
    last: float | None = None
    async for message in stream:
        event = message.event
        if event.HasField("match_started"):
            last = time.monotonic()
        if last is None or not (event.HasField("deal") or event.HasField("match_update")):
            continue
        now = time.monotonic()
        gaps.append(now - last)
        last = now
        if event.HasField("match_update") and event.match_update.match_over:
            return


async def test_a_churner_an_abuser_and_one_who_never_moves_cannot_hold_up_the_match(
    tmp_path: Path,
) -> None:
    served = await start_host(tmp_path / "host", SETTINGS)
    tasks: list[asyncio.Task[object]] = []
    try:
        table_id = (await served.lobby.CreateTable(soak_table())).table_id
        task = served.host.registry.tables[table_id]
        joined = [await served.join(table_id, name) for name in ("ann", "bea", "cat")]
        ann, bea, cat = (bot_seat(served.channel, table_id, j) for j in joined)
        cat.think = 3600  # connected, and never draws
        spectator = await served.lobby.SpectateTable(
            lobby_pb2.SpectateTableRequest(table_id=table_id)
        )
        gaps: list[float] = []
        watching = asyncio.create_task(watch(served.table, spectator.spectator_token, gaps))
        abuser = Abuser(served.table, ann, task)
        tasks = [
            asyncio.create_task(ann.play_match()),
            asyncio.create_task(cat.play_match()),
            asyncio.create_task(churn(bea, served.table)),
        ]
        await until(lambda: ann.log.events and cat.log.events)  # type: ignore[union-attr]
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ann.metadata
        )
        tasks.append(asyncio.create_task(abuser.run(3)))
        await asyncio.wait_for(watching, timeout=DEALS * 600)
        assert task.match_over
        # The table never waited on anyone longer than its clocks allow.
        assert max(gaps) <= SLOWEST_GAP, sorted(gaps)[-5:]
        # More time was asked for thousands of times and granted only within its bound.
        assert abuser.answers[("more_time", "NOT_ABSENT")] > 0
        assert all(n <= MORE_TIME_PER_DEAL for n in abuser.more_time.values()), abuser.more_time
        # The one who never moved was timed out and played by the host from then on.
        assert task.table.seats[cat.seat].away == lobby_pb2.AWAY_REASON_TIMED_OUT
        print(
            f"\nsoak: {DEALS} deal(s), {len(gaps)} events, longest wait {max(gaps):.2f} s "
            f"(bound {SLOWEST_GAP} s), decisions asked: {sum(abuser.answers.values())}, "
            f"answers: {dict(abuser.answers)}"
        )
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await served.channel.close()
        await served.host.stop(grace=0.5)
