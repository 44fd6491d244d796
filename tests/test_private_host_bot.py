"""Host bots at a private table over real gRPC (docs/PRIVATE_TABLES.md "Host bots"): seated
by AddBot, disclosed in the lobby as seats whose hand the host can read, each a full
participant (its key, its shuffle, its shares, its reveal) beside people's seats; the deal's
record verifies, and nothing reaches a person's stream before it is opened."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import HostClient, until
from hostproc import HostProcess, free_port
from private_participant import (
    Participant,
    mid_shuffle,
    private_table,
    quick_rules,
    start_playing,
    stop_all,
    where,
)
from test_host_private import audit_stream, record_verifies, restarted

from host.journal.sqlite import TABLES_FOLDER
from host.table.bot_keys import host_bot_signer
from scala40_net.pb import (
    lobby_pb2,
    lobby_pb2_grpc,
    ruleset_pb2,
    table_pb2,
    table_pb2_grpc,
)


async def table_with_bots(
    lobby: lobby_pb2_grpc.LobbyServiceStub, table: table_pb2_grpc.TableServiceStub,
    people: int, bots: int, **config: object,
) -> tuple[str, list[Participant], list[int]]:
    """A private table: ``people`` in-test seats, then ``bots`` host bots. The in-test seats
    discard what they draw, whatever the bots lay: any card may be discarded (R8.2 free)."""
    rules = quick_rules(2)
    rules.options.discard_attachable = ruleset_pb2.DISCARD_ATTACHABLE_FREE
    table_id, seated = await private_table(lobby, table, people + bots, rules, people, **config)
    bot_seats = []
    for level in [lobby_pb2.BOT_LEVEL_EASY, lobby_pb2.BOT_LEVEL_HARD][:bots]:
        added = await lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=table_id, level=level), metadata=seated[0].metadata
        )
        bot_seats.append(added.seat)
    return table_id, seated, bot_seats


#: Refusals of a draw an in-test seat sends as soon as it thinks its turn has come, both
#: tried again by it when the next event says so: after a bot went out with the last play
#: (the deal is over, R9.1), and after a host restart, before the rebuilt stock's last
#: shuffle is in (R10.1). The seat's haste, not the host's fault.
HASTE = (
    "R3: no deal is being played now",
    "R10.1: the rebuilt stock is still being shuffled by every seat: draw once it is",
)


def unexpected(refusals: list[str]) -> list[str]:
    """The refusals an in-test seat should not have had."""
    return [r for r in refusals if r not in HASTE]


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
    tasks = await start_playing(served.lobby, table_id, people)
    await until(lambda: all(1 in p.signed for p in people), 240,
                lambda: f"refusals {[p.refusals for p in people]}")  # fmt: skip
    await stop_all(people, tasks)
    record = await served.table.GetDealRecord(
        table_pb2.GetDealRecordRequest(deal_no=1), metadata=people[0].metadata
    )
    record_verifies(tmp_path, record.record, "deal.json", capsys)
    publics = people[0].public_events()
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
        tasks = await start_playing(lobby, table_id, people)
        await until(lambda: mid_shuffle(people), 60)
        tasks = await restarted(host, people, tasks)
        await until(lambda: people[0].draws_seen >= 4, 90, lambda: where(people))
        tasks = await restarted(host, people, tasks)
        await until(lambda: all(1 in p.signed for p in people), 180, lambda: where(people))
        await stop_all(people, tasks)
        assert host.channel is not None
        record = await table_pb2_grpc.TableServiceStub(host.channel).GetDealRecord(
            table_pb2.GetDealRecordRequest(deal_no=1), metadata=people[0].metadata
        )
        record_verifies(tmp_path, record.record, "deal.json", capsys)
        for p in people:
            assert not unexpected(p.refusals)
        drew = {p.drawn.seat for p in people[0].public_events() if p.HasField("drawn")}
        assert bot in drew  # the bot played its turns across both restarts
        # The deal is over: its key was revealed to everyone, and its files are gone.
        folder = host.data_dir / TABLES_FOLDER / f"{table_id}.bots"
        assert not list(folder.rglob("1.*")), sorted(folder.rglob("*"))
    finally:
        await host.stop()
