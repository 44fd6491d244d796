"""Short matches of people with player keys (network bots playing their seats) and host bots."""

from __future__ import annotations

import asyncio

from conftest import HostClient, bot_seat

from scala40_net.pb import lobby_pb2, players_pb2, players_pb2_grpc, ruleset_pb2
from scala40_net.players import PlayerKey
from scala40_net.seat.proof import add_proof


async def keyed_join(
    served: HostClient, table_id: str, name: str, key: PlayerKey, **fields: object
) -> lobby_pb2.JoinTableResponse:
    """A join proved with ``key`` (a challenge fetched and signed)."""
    request = lobby_pb2.JoinTableRequest(table_id=table_id, player_name=name, **fields)  # type: ignore[arg-type]
    players = players_pb2_grpc.PlayersServiceStub(served.channel)
    assert await add_proof(players, request, key, served.host.identity.fingerprint)
    answer: lobby_pb2.JoinTableResponse = await served.lobby.JoinTable(request)
    return answer


def one_deal() -> ruleset_pb2.Ruleset:
    """A match of one deal (R11.2): most deals won wins, so the one who goes out."""
    return ruleset_pb2.Ruleset(
        options=ruleset_pb2.RulesetOptions(
            match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1
        )
    )


async def keyed_match(
    served: HostClient,
    people: list[tuple[str, PlayerKey | None]],
    bots: list[int],
    ruleset: ruleset_pb2.Ruleset | None = None,
) -> str:
    """A match played to its end by ``people`` (each seat played by a network bot, joined
    with its key, or without one for None) and host bots of ``bots``' levels; the table id,
    once the host kept the match in its history."""
    table_id = await served.new_table(seats=len(people) + len(bots), ruleset=ruleset or one_deal())
    seats = []
    for name, key in people:
        joined = (
            await served.join(table_id, name)
            if key is None
            else await keyed_join(served, table_id, name, key)
        )
        seats.append(bot_seat(served.channel, table_id, joined))
    for level in bots:
        await served.lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=table_id, level=level),  # type: ignore[arg-type]
            metadata=seats[0].metadata,
        )
    playing = [asyncio.create_task(seat.play_match()) for seat in seats]
    while not all(seat.log.events for seat in seats):
        await asyncio.sleep(0.01)
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=seats[0].metadata
    )
    await asyncio.wait_for(asyncio.gather(*playing), timeout=120)
    while table_id not in await kept_tables(served):
        await asyncio.sleep(0.02)
    return table_id


async def kept_tables(served: HostClient) -> set[str]:
    players = players_pb2_grpc.PlayersServiceStub(served.channel)
    listed = await players.ListMatches(players_pb2.ListMatchesRequest(limit=500))
    return {m.table_id for m in listed.matches}
