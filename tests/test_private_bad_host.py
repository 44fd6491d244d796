"""A host that misbehaves on purpose, against real seats (scala40-bot's): a relayed message
altered, or one withheld, is caught by the seat it was meant for and the host is named."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from conftest import HostClient, until
from private_participant import quick_rules

import host.table.fanout as fanout
import host.table.task as task_module
from scala40_net.bots import make_bot
from scala40_net.pb import lobby_pb2
from scala40_net.private.chain import HOST, FaultKind
from scala40_net.private.messages import Envelope, Kind
from scala40_net.seat.netbot import NetworkSeat, SeatLog
from scala40_net.seat.private import fault_sentence


def misbehaving(monkeypatch: pytest.MonkeyPatch, victim: list[int], how: str) -> list[int]:
    """The host's fan-out, changed: the first message of ``how``'s kind by another seat goes
    to ``victim[0]`` altered (a byte of its signature flipped) or not at all."""
    done: list[int] = []
    honest = fanout.prepare

    def prepare(record: fanout.Record) -> fanout.Ready:
        ready = honest(record)
        if done or not victim or record.public.WhichOneof("event") != "private_message":
            return ready
        data = record.public.private_message.envelope
        env = Envelope.parse(data)
        wanted = Kind.SHUFFLE if how == "altered" else Kind.SHARES
        if env.kind != wanted or env.author == victim[0]:
            return ready
        if how == "withheld" and env.body().recipient != victim[0]:  # type: ignore[union-attr]
            return ready
        done.append(record.seq)
        event = record.for_seat(victim[0])
        copy = type(event)()
        copy.CopyFrom(event)
        if how == "altered":
            copy.private_message.envelope = data[:-1] + bytes([data[-1] ^ 1])
        else:
            copy.ClearField("private_message")  # nothing the seat can read: a gap
            copy.chat.SetInParent()
        private = dict(ready.private)
        private[victim[0]] = fanout._response(copy)
        return fanout.Ready(ready.public, private)

    monkeypatch.setattr(fanout, "prepare", prepare)
    monkeypatch.setattr(task_module, "prepare", prepare)
    return done


@pytest.mark.parametrize("how", ["altered", "withheld"])
@pytest.mark.timeout(300)
async def test_a_host_that_alters_or_withholds_a_message_is_named_by_the_seat(
    served: HostClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    victim: list[int] = []
    done = misbehaving(monkeypatch, victim, how)
    created = await served.lobby.CreateTable(
        lobby_pb2.CreateTableRequest(
            name="bad host", seats=3, ruleset=quick_rules(2), private_cards=True,
            grace_seconds=120,
        )
    )  # fmt: skip
    bots = []
    for n in range(3):
        bot = NetworkSeat(served.channel, created.table_id,
                          make_bot("medium", random.Random(n)), log=SeatLog())  # fmt: skip
        bot.private_dir = tmp_path / f"bot{n}"
        await bot.join(f"medium {n}")
        bots.append(bot)
    # The seat that is dealt to last in R2.3's order, so every message kind reaches it.
    victim.append(bots[1].seat)
    stopping = asyncio.Event()
    tasks = [asyncio.create_task(b.play_to_end(stopping)) for b in bots]
    try:
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=created.table_id), metadata=bots[0].metadata
        )
        log = bots[1].log
        assert log is not None
        await until(lambda: done and log.faults, 120, lambda: f"done {done}")
    finally:
        stopping.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    fault = log.faults[0]
    expected = FaultKind.ALTERED if how == "altered" else FaultKind.MISSING
    assert (fault.culprit, fault.kind) == (HOST, expected), fault
    assert "the host" in fault_sentence(fault, "en")
    # The other seats were relayed the true messages: none of them blames anyone.
    assert not [f for b in bots if b is not bots[1] and b.log for f in b.log.faults]
