"""A join proved with a player key: the host's challenge fetched and signed into the request."""

from __future__ import annotations

import grpc

from scala40_net.pb import lobby_pb2, players_pb2, players_pb2_grpc
from scala40_net.players import PlayerKey


async def add_proof(
    players: players_pb2_grpc.PlayersServiceStub,
    request: lobby_pb2.JoinTableRequest,
    key: PlayerKey,
    host_fingerprint: str,
    metadata: tuple[tuple[str, str], ...] = (),
    timeout: float | None = None,
) -> bool:
    """Sign ``request`` (its table and name as they are now) with ``key`` over a fresh
    challenge; False, the request left as it was, for a host that asks for no key (an older
    one: PlayersService unimplemented)."""
    try:
        challenge: players_pb2.GetJoinChallengeResponse = await players.GetJoinChallenge(
            players_pb2.GetJoinChallengeRequest(), metadata=metadata, timeout=timeout
        )
    except grpc.aio.AioRpcError as error:
        if error.code() == grpc.StatusCode.UNIMPLEMENTED:
            return False
        raise
    request.proof.CopyFrom(
        lobby_pb2.PlayerProof(
            public_key=key.public_key,
            nonce=challenge.nonce,
            signature=key.sign_join(
                host_fingerprint, request.table_id, request.player_name, challenge.nonce
            ),
        )
    )
    return True
