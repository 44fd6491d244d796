"""A host that misbehaves on purpose, against real seats (scala40-bot's): a relayed message
altered, withheld, replayed or reordered is caught by the seat it was meant for and the
host is named."""

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
    """The host's fan-out, changed for ``victim[0]``, once: the first message of another seat
    of ``how``'s kind goes to it altered (a byte of its signature flipped) or not at all
    (``withheld``: a share meant for it); ``replayed``: another seat's first message, sent
    again in a later one's place; ``reordered``: another seat's share held back until that
    seat's next message has been relayed. The seqs of the events changed."""
    done: list[int] = []
    held: list[tuple[int, bytes]] = []  # (author, envelope) kept back or kept to send again
    honest = fanout.prepare

    def instead(record: fanout.Record, envelope: bytes | None) -> fanout.Ready:
        """The record as the victim gets it: ``envelope`` in its place, or nothing it can
        read (a gap)."""
        ready = honest(record)
        event = record.for_seat(victim[0])
        copy = type(event)()
        copy.CopyFrom(event)
        if envelope is None:
            copy.ClearField("private_message")
            copy.chat.SetInParent()
        else:
            copy.private_message.envelope = envelope
        done.append(record.seq)
        private = dict(ready.private)
        private[victim[0]] = fanout._response(copy)
        return fanout.Ready(ready.public, private)

    def prepare(record: fanout.Record) -> fanout.Ready:
        if done or not victim or record.public.WhichOneof("event") != "private_message":
            return honest(record)
        data = record.public.private_message.envelope
        env = Envelope.parse(data)
        if env.author == victim[0]:
            return honest(record)
        if how == "altered" and env.kind == Kind.SHUFFLE:
            return instead(record, data[:-1] + bytes([data[-1] ^ 1]))
        body = env.body()
        if how == "withheld" and env.kind == Kind.SHARES and body.recipient == victim[0]:  # type: ignore[union-attr]
            return instead(record, None)
        if how == "replayed":
            if not held:
                held.append((env.author, data))  # relayed as it is, and kept
            else:
                return instead(record, held[0][1])
        if how == "reordered":
            if not held and env.kind == Kind.SHARES:
                held.append((env.author, data))
                ready = instead(record, None)
                done.clear()  # not yet: the victim has only missed it so far
                return ready
            if held and env.author == held[0][0]:  # its next message: relayed, then the held
                return honest(record)  # one in the place of the next message of another
            if held and env.author != held[0][0]:
                return instead(record, held[0][1])
        return honest(record)

    monkeypatch.setattr(fanout, "prepare", prepare)
    monkeypatch.setattr(task_module, "prepare", prepare)
    return done


EXPECTED = {
    "altered": FaultKind.ALTERED,
    "withheld": FaultKind.MISSING,
    "replayed": FaultKind.REPLAYED,
    "reordered": FaultKind.MISSING,  # its next message came first: "withheld or reordered"
}


@pytest.mark.parametrize("how", sorted(EXPECTED))
@pytest.mark.timeout(300)
async def test_a_host_that_alters_withholds_replays_or_reorders_a_message_is_named(
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
    assert (fault.culprit, fault.kind) == (HOST, EXPECTED[how]), fault
    assert "the host" in fault_sentence(fault, "en")
    # The other seats were relayed the true messages: none of them blames anyone.
    assert not [f for b in bots if b is not bots[1] and b.log for f in b.log.faults]
