"""The history: every finished match listed through the contract, with its players (names
and key fingerprints), standings and deals, and each deal's record verifiable."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest
from conftest import start_host, until
from keyed_match import keyed_match

from host.edge.errors import error_info
from host.journal.players import FILE_NAME
from host.journal.sqlite import ARCHIVE_FOLDER, SUFFIX
from host.table.state import TableSettings
from scala40_net import verifier
from scala40_net.pb import lobby_pb2, players_pb2, players_pb2_grpc
from scala40_net.players import PlayerKey


async def test_the_history_lists_each_match_and_every_record_verifies(tmp_path: Path) -> None:
    data_dir = tmp_path / "host"
    ada, bea = PlayerKey.generate(), PlayerKey.generate()
    served = await start_host(data_dir)
    try:
        first = await keyed_match(served, [("Ada", ada), ("Bea", bea)], [lobby_pb2.BOT_LEVEL_EASY])
        second = await keyed_match(served, [("Ada", ada), ("Cy", None)], [])
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    served = await start_host(data_dir)  # kept across a restart, and not kept twice
    try:
        players = players_pb2_grpc.PlayersServiceStub(served.channel)
        every = (await players.ListMatches(players_pb2.ListMatchesRequest())).matches
        assert [m.table_id for m in every] == [second, first]  # newest first
        adas = (
            await players.ListMatches(
                players_pb2.ListMatchesRequest(key_fingerprint=ada.fingerprint)
            )
        ).matches
        beas = (
            await players.ListMatches(
                players_pb2.ListMatchesRequest(key_fingerprint=bea.fingerprint.lower())
            )
        ).matches
        assert len(adas) == 2 and [m.table_id for m in beas] == [first]
        match = every[1]
        assert match.match_id == f"{first}/1" and match.finished_unix_ms > 0
        assert [(p.name, p.key_fingerprint, p.bot_level) for p in match.players] == [
            ("Ada", ada.fingerprint, 0),
            ("Bea", bea.fingerprint, 0),
            ("Bot 2", "", lobby_pb2.BOT_LEVEL_EASY),
        ]
        assert match.deal_count == len(match.deals) >= 1 and match.winners
        assert sorted(p.place for p in match.players)[0] == 1
        winners = {p.seat for p in match.players if p.place == 1}
        assert winners == set(match.winners)
        closers = [d.closer_seat for d in match.deals if d.HasField("closer_seat")]
        assert sum(p.deals_closed for p in match.players) == len(closers)
        assert sum(p.deals_played for p in match.players) == sum(
            len(d.seats) for d in match.deals if d.HasField("closer_seat")
        )
        got = await players.GetMatch(players_pb2.GetMatchRequest(match_id=match.match_id))
        assert got.match == match and len(got.deal_records) >= match.deal_count
        for n, record in enumerate(got.deal_records):
            assert "private_seed" not in record.decode() and json.loads(record)["private"] is None
            path = tmp_path / f"deal-{n}.json"
            path.write_bytes(record)
            fingerprint = served.host.identity.fingerprint
            assert verifier.main([str(path), "--host-fingerprint", fingerprint]) == 0
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await players.GetMatch(players_pb2.GetMatchRequest(match_id="nope/1"))
        info = error_info(caught.value)
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
        assert info is not None and info.reason == "NO_SUCH_MATCH"
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_archived_matches_a_host_did_not_keep_are_kept_at_its_next_start(
    tmp_path: Path,
) -> None:
    """A data dir from before the history (or whose players' file was lost): its archived
    matches are read at start, rated in the order they ended, and listed."""
    data_dir = tmp_path / "host"
    ada = PlayerKey.generate()
    quick = TableSettings(commit_timeout=10, reveal_timeout=10, archive_after=0.2)
    served = await start_host(data_dir, quick)
    try:
        tables = [
            await keyed_match(served, [("Ada", ada)], [lobby_pb2.BOT_LEVEL_EASY]) for _ in range(2)
        ]
        for table_id in tables:
            await until(lambda t=table_id: (data_dir / ARCHIVE_FOLDER / f"{t}{SUFFIX}").exists())
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    for stale in data_dir.glob(f"{FILE_NAME}*"):
        stale.unlink()
    served = await start_host(data_dir, quick)
    try:
        players = players_pb2_grpc.PlayersServiceStub(served.channel)
        listed = (await players.ListMatches(players_pb2.ListMatchesRequest())).matches
        assert {m.table_id for m in listed} == set(tables)
        board = (await players.GetStandings(players_pb2.GetStandingsRequest())).standings
        (me,) = [line for line in board if line.key_fingerprint == ada.fingerprint]
        assert me.matches == 2
        got = await players.GetMatch(players_pb2.GetMatchRequest(match_id=listed[0].match_id))
        assert got.deal_records  # from the archive
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
