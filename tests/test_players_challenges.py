"""Join challenges held per address: a flood from one address forgets only its own."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from conftest import TEST_SETTINGS, host_channel

from host.edge.errors import error_info
from host.edge.players_service import MAX_CHALLENGES_PER_ADDRESS, Challenges
from host.edge.server import Host
from scala40_net import wire
from scala40_net.net import tls
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc, players_pb2, players_pb2_grpc
from scala40_net.players import PlayerKey
from scala40_net.seat.proof import add_proof


def test_a_flood_from_one_address_keeps_the_challenges_of_other_addresses() -> None:
    challenges = Challenges(most=100, most_per_address=10)
    theirs = [challenges.new("192.0.2.7"), challenges.new("2001:db8::1")]
    flood = [challenges.new("198.51.100.9") for _ in range(1_000)]
    assert challenges.open_for("198.51.100.9") == 10
    assert all(challenges.use(nonce) for nonce in theirs)
    # The flood kept only its newest; its older challenges are gone, used or not.
    assert not challenges.use(flood[0])
    assert challenges.use(flood[-1])
    assert challenges.open_for("198.51.100.9") == 9


def test_past_the_host_wide_cap_the_oldest_go_whoever_asked() -> None:
    challenges = Challenges(most=4, most_per_address=4)
    first = challenges.new("192.0.2.1")
    later = [challenges.new(f"192.0.2.{n}") for n in range(2, 6)]
    assert not challenges.use(first)
    assert all(challenges.use(nonce) for nonce in later)
    assert challenges.open_for("192.0.2.1") == 0


@pytest.mark.asyncio
async def test_a_player_elsewhere_joins_with_a_challenge_asked_before_a_flood(
    tmp_path: Path,
) -> None:
    """A host on both loopbacks: the player asks over IPv6 (::1), the flood comes over
    IPv4 (127.0.0.1), more asks than one address may hold."""
    host = Host("[::]:0", tmp_path / "host", TEST_SETTINGS)
    await host.start()
    flood_channel = await host_channel(host)
    player_channel, _ = await tls.pinned_channel(
        "::1", host.port, host.identity.fingerprint, wire.CHANNEL_OPTIONS
    )
    try:
        lobby = lobby_pb2_grpc.LobbyServiceStub(flood_channel)
        table_id = (
            await lobby.CreateTable(lobby_pb2.CreateTableRequest(name="flooded", seats=2))
        ).table_id
        ada = PlayerKey.generate()
        request = lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Ada")
        players = players_pb2_grpc.PlayersServiceStub(player_channel)
        assert await add_proof(players, request, ada, host.identity.fingerprint)

        flooding = players_pb2_grpc.PlayersServiceStub(flood_channel)
        asked = [
            (await flooding.GetJoinChallenge(players_pb2.GetJoinChallengeRequest())).nonce
            for _ in range(MAX_CHALLENGES_PER_ADDRESS + 8)
        ]
        joined = await lobby_pb2_grpc.LobbyServiceStub(player_channel).JoinTable(request)
        assert joined.seat_token

        # The flood's oldest challenge is gone: a join signed over it is stale.
        ben = PlayerKey.generate()
        stale = lobby_pb2.JoinTableRequest(
            table_id=table_id,
            player_name="Ben",
            proof=lobby_pb2.PlayerProof(
                public_key=ben.public_key,
                nonce=asked[0],
                signature=ben.sign_join(host.identity.fingerprint, table_id, "Ben", asked[0]),
            ),
        )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await lobby.JoinTable(stale)
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        info = error_info(caught.value)
        assert info is not None and info.reason == "STALE_CHALLENGE"
        listed = await lobby.ListTables(lobby_pb2.ListTablesRequest())
        assert [s.name for s in listed.tables[0].seats if s.taken] == ["Ada"]
    finally:
        await flood_channel.close()
        await player_channel.close()
        await host.stop(grace=0.5)
