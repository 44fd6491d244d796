"""Host bots at a private table over real gRPC (docs/PRIVATE_TABLES.md "Host bots"): seated
by AddBot, disclosed in the lobby as seats whose hand the host can read, each a full
participant (its key, its shuffle, its shares, its reveal) beside people's seats; the deal's
record verifies, and nothing reaches a person's stream before it is opened."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import HostClient, until
from hostproc import HostProcess, free_port
from private_participant import Participant, play_all, quick_rules
from test_host_private import audit_stream, record_verifies, restarted

from host.journal.sqlite import TABLES_FOLDER
from host.table.private_bot import host_bot_signer
from scala40_net.pb import (
    deal_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    ruleset_pb2,
    table_pb2,
    table_pb2_grpc,
)
from scala40_net.private.messages import Ed25519Signer
from scala40_net.private.protocol import Phase


async def table_with_bots(
    lobby: lobby_pb2_grpc.LobbyServiceStub, table: table_pb2_grpc.TableServiceStub,
    people: int, bots: int, **config: object,
) -> tuple[str, list[Participant], list[int]]:
    """A private table: ``people`` in-test seats, then ``bots`` host bots. The in-test seats
    discard what they draw, whatever the bots lay: any card may be discarded (R8.2 free)."""
    rules = quick_rules(2)
    rules.options.discard_attachable = ruleset_pb2.DISCARD_ATTACHABLE_FREE
    created = await lobby.CreateTable(
        lobby_pb2.CreateTableRequest(
            name="private", seats=people + bots, ruleset=rules, private_cards=True,
            **config,  # type: ignore[arg-type]
        )
    )  # fmt: skip
    seated = []
    for n in range(people):
        signer = Ed25519Signer()
        joined = await lobby.JoinTable(
            lobby_pb2.JoinTableRequest(
                table_id=created.table_id, player_name=f"p{n}",
                private_signing_key=signer.public_key(),
            )
        )  # fmt: skip
        seated.append(
            Participant(table, created.table_id, joined.seat, joined.seat_token, signer)
        )
    bot_seats = []
    for level in [lobby_pb2.BOT_LEVEL_EASY, lobby_pb2.BOT_LEVEL_HARD][:bots]:
        added = await lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=created.table_id, level=level),
            metadata=seated[0].metadata,
        )
        bot_seats.append(added.seat)
    return created.table_id, seated, bot_seats


def unexpected(refusals: list[str]) -> list[str]:
    """The refusals an in-test seat should not have had. It draws as soon as the last play
    makes it its turn; when a bot went out with that play, the deal is over (R9.1) and the
    draw is refused as out of any deal: that one is the helper's haste, not the host's."""
    return [r for r in refusals if r != "R3: no deal is being played now"]


@pytest.mark.timeout(300)
async def test_host_bots_play_a_private_deal_beside_people_and_are_disclosed(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table_id, people, bots = await table_with_bots(served.lobby, served.table, 2, 2)
    listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    [summary] = [t for t in listed.tables if t.table_id == table_id]
    seats = {s.seat: s for s in summary.seats}
    assert {s for s, info in seats.items() if info.host_bot} == set(bots)
    for seat in bots:  # the host's key for it, the same at every start
        expected = host_bot_signer(served.host.identity, table_id, seat).public_key()
        assert seats[seat].private_signing_key == expected
    tasks = play_all(people)
    await until(lambda: all(p.received for p in people))
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=people[0].metadata
    )
    await until(lambda: all(1 in p.signed for p in people), 240,
                lambda: f"refusals {[p.refusals for p in people]}")  # fmt: skip
    for p in people:
        p.stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    record = await served.table.GetDealRecord(
        table_pb2.GetDealRecordRequest(deal_no=1), metadata=people[0].metadata
    )
    record_verifies(tmp_path, record.record, "deal.json", capsys)
    publics = [
        deal_pb2.DealEvent.FromString(e.deal.public_event)
        for e in (table_pb2.SubscribeEventsResponse.FromString(m).event for m in people[0].received)
        if e.HasField("deal")
    ]
    movers = {p.drawn.seat for p in publics if p.HasField("drawn")}
    assert set(bots) <= movers, movers  # the bots took their turns
    ended = [p.ended for p in publics if p.HasField("ended")]
    assert ended and not ended[0].void_reason.startswith("R10.3"), ended
    for p in people:
        assert not unexpected(p.refusals)
        assert audit_stream(p.received) == 1


@pytest.mark.long(30)
@pytest.mark.timeout(300)
async def test_a_host_killed_mid_deal_takes_its_bots_part_up_again_from_disk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGKILLed while the deck is shuffled and again mid-deal, the host starts again: its
    bot's per-deal key and messages are on disk beside the journal, so the bot goes on with
    the same key and never signs a second message at a place of its chain (its peers would
    name that). The deal ends and verifies; its files go once it is over."""
    host = HostProcess(tmp_path / "host", free_port())
    await host.start()
    try:
        assert host.channel is not None
        lobby = lobby_pb2_grpc.LobbyServiceStub(host.channel)
        table_id, people, [bot] = await table_with_bots(
            lobby, table_pb2_grpc.TableServiceStub(host.channel), 2, 1,
            turn_seconds=0, grace_seconds=600,
        )  # fmt: skip
        tasks = play_all(people)
        await until(lambda: all(p.received for p in people))
        await lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=people[0].metadata
        )

        def shuffling() -> bool:
            return any(
                p.deal is not None and p.deal.ledger.phase == Phase.SHUFFLING
                and p.deal.ledger.shuffles >= 1
                for p in people
            )

        await until(shuffling, 60)
        tasks = await restarted(host, people, tasks)
        await until(lambda: people[0].draws_seen >= 4, 90,
                    lambda: f"refusals {[p.refusals for p in people]}")  # fmt: skip
        tasks = await restarted(host, people, tasks)
        await until(lambda: all(1 in p.signed for p in people), 180,
                    lambda: f"refusals {[p.refusals for p in people]}")  # fmt: skip
        for p in people:
            p.stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert host.channel is not None
        record = await table_pb2_grpc.TableServiceStub(host.channel).GetDealRecord(
            table_pb2.GetDealRecordRequest(deal_no=1), metadata=people[0].metadata
        )
        record_verifies(tmp_path, record.record, "deal.json", capsys)
        for p in people:
            assert not unexpected(p.refusals)
        drew = {
            deal_pb2.DealEvent.FromString(e.deal.public_event).drawn.seat
            for e in (table_pb2.SubscribeEventsResponse.FromString(m).event
                      for m in people[0].received)
            if e.HasField("deal")
            and deal_pb2.DealEvent.FromString(e.deal.public_event).HasField("drawn")
        }  # fmt: skip
        assert bot in drew  # the bot played its turns across both restarts
        # The deal is over: its key was revealed to everyone, and its files are gone.
        folder = host.data_dir / TABLES_FOLDER / f"{table_id}.bots"
        assert not list(folder.rglob("1.*")), sorted(folder.rglob("*"))
    finally:
        await host.stop()
