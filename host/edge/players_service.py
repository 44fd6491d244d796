"""PlayersService: the challenges a player key signs to join, and the check of that proof."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias, TypeVar

import grpc

from host.edge.errors import Refusal, malformed, permission_denied, precondition
from host.journal.players import PlayerBook
from scala40_net import players
from scala40_net.fairdeal.identity import fingerprint
from scala40_net.pb import lobby_pb2, players_pb2, players_pb2_grpc

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"

Joined = TypeVar("Joined")

CHALLENGE_SECONDS = 300
# Challenges outstanding at once: past it the oldest go (a flood of asks forgets only its own).
MAX_CHALLENGES = 10_000


class Challenges:
    """Nonces handed out and not yet used: each good for one join, until it expires."""

    def __init__(self, seconds: float = CHALLENGE_SECONDS, most: int = MAX_CHALLENGES) -> None:
        self.seconds = seconds
        self.most = most
        self._open: OrderedDict[bytes, float] = OrderedDict()

    def new(self) -> bytes:
        now = time.monotonic()
        while self._open and (
            len(self._open) >= self.most or next(iter(self._open.values())) < now
        ):
            self._open.popitem(last=False)
        nonce = secrets.token_bytes(players.NONCE_BYTES)
        self._open[nonce] = now + self.seconds
        return nonce

    def use(self, nonce: bytes) -> bool:
        """Whether ``nonce`` was handed out, is not used and has not expired; it is used now."""
        expires = self._open.pop(nonce, None)
        return expires is not None and expires >= time.monotonic()


class PlayerKeys:
    """What the lobby asks of a join: whose key proved it, and whether its name is its own."""

    def __init__(self, book: PlayerBook, host_fingerprint: str, challenges: Challenges) -> None:
        self.book = book
        self.host_fingerprint = host_fingerprint
        self.challenges = challenges
        self._joining = asyncio.Lock()

    def proved_key(self, request: lobby_pb2.JoinTableRequest) -> bytes | None:
        """The public key whose proof the join carries (None without one); refused when the
        proof does not hold. The challenge is spent whatever the answer: no replay."""
        if not request.HasField("proof"):
            return None
        proof = request.proof
        if len(proof.public_key) != 32 or len(proof.signature) != 64:
            raise malformed("a player proof has a 32-byte public key and a 64-byte signature")
        if not self.challenges.use(proof.nonce):
            raise precondition(
                "STALE_CHALLENGE",
                "this join's challenge is unknown here, used already or expired: ask for a "
                "new one (PlayersService.GetJoinChallenge)",
            )
        if not players.verify_join(
            proof.public_key,
            proof.signature,
            self.host_fingerprint,
            request.table_id,
            request.player_name,
            proof.nonce,
        ):
            raise permission_denied(
                "BAD_KEY_PROOF",
                "the player key's signature does not match this join (host, table, name, "
                "challenge)",
            )
        return bytes(proof.public_key)

    async def join_as(
        self, name: str, key: bytes | None, join: Callable[[], Awaitable[Joined]]
    ) -> Joined:
        """Run ``join`` when ``name`` is not another key's at this host (a join without a key
        may not take a name a key holds either); once it is done, the name is the key's. One
        join at a time goes from the check to the binding, so two keys cannot both take a
        name; a join refused binds nothing."""
        async with self._joining:
            holder = await asyncio.to_thread(self.book.holder, name)
            if holder is not None and holder != key:
                raise Refusal(
                    grpc.StatusCode.ALREADY_EXISTS,
                    "NAME_HELD",
                    f"at this host the name {name} belongs to another player's key "
                    f"({players.short_fingerprint(fingerprint(holder))}): choose another "
                    "name, or ask the host's owner to free it",
                )
            joined = await join()
            if key is not None:
                await asyncio.to_thread(self.book.bind, key, name)
            return joined


class PlayersService(players_pb2_grpc.PlayersServiceServicer):
    def __init__(self, challenges: Challenges) -> None:
        self._challenges = challenges

    async def GetJoinChallenge(
        self, request: players_pb2.GetJoinChallengeRequest, context: Context
    ) -> players_pb2.GetJoinChallengeResponse:
        return players_pb2.GetJoinChallengeResponse(
            nonce=self._challenges.new(), expires_in_seconds=int(self._challenges.seconds)
        )
