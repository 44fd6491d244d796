"""Ratings: Thurstone-Mosteller full pairing over each match's final standing; ties move
together; bots per level; a player who left loses; the host's ratings equal those computed
offline from the history, across restarts."""

from __future__ import annotations

import asyncio
import itertools
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import HostClient, bot_seat, start_host
from keyed_match import keyed_join, keyed_match, one_deal
from openskill.models import ThurstoneMostellerFull

from host.journal import ratings
from scala40_net import verifier
from scala40_net.pb import lobby_pb2, players_pb2, players_pb2_grpc
from scala40_net.players import PlayerKey


def a_match(places: list[int], keys: list[str]) -> players_pb2.PastMatch:
    match = players_pb2.PastMatch(match_id="t/1")
    for seat, (place, key) in enumerate(zip(places, keys, strict=True)):
        match.players.add(seat=seat, place=place, key_fingerprint=key)
    return match


@pytest.mark.parametrize("places", [[1, 2, 2, 4], [1, 1, 3], [1, 2, 2, 2, 5, 6], [1, 1]])
def test_tied_players_move_together_and_nobody_below_overtakes_them(places: list[int]) -> None:
    keys = [f"K{n}" for n in range(len(places))]
    # Everyone at the same skill first, then again from unequal skills.
    for skills in (
        {},
        {f"key:K{n}": ratings.Skill(20 + 3 * n, 6 + n / 2) for n in range(len(places))},
    ):
        after = ratings.rate(a_match(places, keys), skills)
        moved = {k: after[f"key:{k}"].mu - skills.get(f"key:{k}", ratings.Skill()).mu for k in keys}
        for (a, pa), (b, pb) in itertools.combinations(zip(keys, places, strict=True), 2):
            if pa == pb and not skills:
                assert after[f"key:{a}"] == after[f"key:{b}"]  # tied: together
            if pa < pb:
                assert moved[a] > moved[b]  # who placed better gained more than who placed below
        if not skills:
            ordinal = {k: after[f"key:{k}"].ordinal for k in keys}
            for (a, pa), (b, pb) in itertools.combinations(zip(keys, places, strict=True), 2):
                if pa < pb:
                    assert ordinal[a] > ordinal[b]  # nobody below overtakes


def offline(history: list[players_pb2.PastMatch]) -> dict[str, tuple[float, float]]:
    """The ratings from the history alone, oldest match first, with openskill itself."""
    model = ThurstoneMostellerFull()
    skills: dict[str, tuple[float, float]] = {}
    for match in history:
        rated = []
        for p in match.players:
            if p.key_fingerprint:
                rated.append((p, f"key:{p.key_fingerprint}"))
            elif p.bot_level:
                level = lobby_pb2.BotLevel.Name(p.bot_level).removeprefix("BOT_LEVEL_").lower()
                rated.append((p, f"bot:{level}"))
        if len(rated) < 2:
            continue
        teams = [[model.rating(*skills.get(who, (model.mu, model.sigma)))] for _, who in rated]
        after = model.rate(teams, ranks=[float(p.place) for p, _ in rated])
        came: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for (_, who), (new,) in zip(rated, after, strict=True):
            came[who].append((new.mu, new.sigma))
        for who, got in came.items():
            skills[who] = (
                sum(m for m, _ in got) / len(got),
                sum(s for _, s in got) / len(got),
            )
    return skills


async def standings(served: HostClient) -> players_pb2.GetStandingsResponse:
    stub = players_pb2_grpc.PlayersServiceStub(served.channel)
    answer: players_pb2.GetStandingsResponse = await stub.GetStandings(
        players_pb2.GetStandingsRequest()
    )
    return answer


async def test_a_dozen_matches_across_restarts_rate_as_the_history_says(tmp_path: Path) -> None:
    data_dir = tmp_path / "host"
    people = [(name, PlayerKey.generate()) for name in ("Ada", "Bea", "Cy", "Dan")]
    levels = [lobby_pb2.BOT_LEVEL_EASY, lobby_pb2.BOT_LEVEL_MEDIUM, lobby_pb2.BOT_LEVEL_HARD]
    played = 0
    for round_no in range(4):  # the host restarted between rounds
        served = await start_host(data_dir)
        try:
            for n in range(3):
                at_table = [people[(round_no + n + i) % 4] for i in range(1 + (n + round_no) % 3)]
                bots = [levels[(round_no + n) % 3]] * (1 + n % 2)
                await keyed_match(served, list(at_table), bots)
                played += 1
        finally:
            await served.channel.close()
            await served.host.stop(grace=0.5)
    served = await start_host(data_dir)
    try:
        stub = players_pb2_grpc.PlayersServiceStub(served.channel)
        history = list((await stub.ListMatches(players_pb2.ListMatchesRequest(limit=500))).matches)
        assert len(history) == played == 12
        expected = offline(list(reversed(history)))
        board = await standings(served)
        assert board.model == ratings.MODEL_NAME
        found = {}
        for line in board.standings:
            who = (
                f"key:{line.key_fingerprint}"
                if line.key_fingerprint
                else f"bot:{lobby_pb2.BotLevel.Name(line.bot_level)[10:].lower()}"
            )
            found[who] = (line.mu, line.sigma)
            assert line.rating == pytest.approx(line.mu - 3 * line.sigma)
        assert found.keys() == expected.keys()
        for who, (mu, sigma) in expected.items():
            assert found[who] == pytest.approx((mu, sigma), abs=1e-9), who
        ranks = [line.rating for line in board.standings]
        assert ranks == sorted(ranks, reverse=True)
        # Each match says each rated player's rating before and after it.
        for match in history:
            for p in match.players:
                assert p.HasField("rating_after") == bool(p.key_fingerprint or p.bot_level)
        assert sum(line.matches for line in board.standings if line.key_fingerprint) == sum(
            sum(1 for p in m.players if p.key_fingerprint) for m in history
        )
        # The history lists every match, and every deal of each verifies from its record.
        fingerprint = served.host.identity.fingerprint
        for match in history:
            got = await stub.GetMatch(players_pb2.GetMatchRequest(match_id=match.match_id))
            assert 1 <= len(got.deal_records) <= match.deal_count  # an abandoned deal: none
            for n, record in enumerate(got.deal_records):
                path = tmp_path / f"{match.table_id}-{n}.json"
                path.write_bytes(record)
                assert verifier.main([str(path), "--host-fingerprint", fingerprint]) == 0
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_a_player_who_leaves_the_match_loses_it(tmp_path: Path) -> None:
    served = await start_host(tmp_path / "host")
    try:
        ada, bea = PlayerKey.generate(), PlayerKey.generate()
        table_id = await served.new_table(seats=3, ruleset=one_deal())
        seat = bot_seat(served.channel, table_id, await keyed_join(served, table_id, "Ada", ada))
        leaver = await keyed_join(served, table_id, "Bea", bea)
        meta = (("authorization", f"Bearer {leaver.seat_token}"),)
        await served.lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=table_id, level=lobby_pb2.BOT_LEVEL_EASY),
            metadata=seat.metadata,
        )
        playing = asyncio.create_task(seat.play_match())
        while not seat.log.events:
            await asyncio.sleep(0.01)
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=seat.metadata
        )
        await served.lobby.LeaveTable(lobby_pb2.LeaveTableRequest(table_id=table_id), metadata=meta)
        await asyncio.wait_for(playing, timeout=120)
        stub = players_pb2_grpc.PlayersServiceStub(served.channel)
        while not (await stub.ListMatches(players_pb2.ListMatchesRequest())).matches:
            await asyncio.sleep(0.02)
        (match,) = (await stub.ListMatches(players_pb2.ListMatchesRequest())).matches
        bea_seat = next(p for p in match.players if p.key_fingerprint == bea.fingerprint)
        assert bea_seat.left and bea_seat.place == 3
        assert all(p.place < 3 for p in match.players if p is not bea_seat)
        assert bea_seat.rating_after < bea_seat.rating_before
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
