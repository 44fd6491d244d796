"""PlayersService: the challenges a player key signs to join, and the check of that proof."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias, TypeVar

import grpc

from host.edge.errors import Refusal, malformed, not_found, permission_denied, precondition
from host.journal import ratings
from host.journal.history import History
from host.journal.players import PlayerBook
from host.journal.registry import Registry
from host.table.table import Table
from scala40_net import players
from scala40_net.fairdeal.identity import fingerprint
from scala40_net.pb import lobby_pb2, players_pb2, players_pb2_grpc

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"

Joined = TypeVar("Joined")

CHALLENGE_SECONDS = 300
DEFAULT_LISTED, MAX_LISTED = 50, 500
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
        if players.weak_key(proof.public_key):
            raise malformed(
                "that public key is a point of small order, whose signatures prove nothing: "
                "make a new player key"
            )
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
    def __init__(self, challenges: Challenges, history: History, registry: Registry) -> None:
        self._challenges = challenges
        self._history = history
        self._registry = registry

    async def ListMatches(
        self, request: players_pb2.ListMatchesRequest, context: Context
    ) -> players_pb2.ListMatchesResponse:
        if request.limit > MAX_LISTED:
            raise malformed(f"limit is at most {MAX_LISTED} matches (0: {DEFAULT_LISTED})")
        wanted = request.key_fingerprint.strip().upper()
        found = await asyncio.to_thread(
            self._history.listed, wanted, request.limit or DEFAULT_LISTED
        )
        return players_pb2.ListMatchesResponse(matches=found)

    async def GetStandings(
        self, request: players_pb2.GetStandingsRequest, context: Context
    ) -> players_pb2.GetStandingsResponse:
        found = await asyncio.to_thread(self._history.book.standings)
        answer = players_pb2.GetStandingsResponse(model=ratings.MODEL_NAME)
        for n, line in enumerate(found):
            before = answer.standings[-1] if answer.standings else None
            rating = line.skill.ordinal
            bot = line.player.startswith("bot:")
            answer.standings.add(
                rank=before.rank if before is not None and before.rating == rating else n + 1,
                name=line.name,
                key_fingerprint="" if bot else line.player.removeprefix("key:"),
                bot_level=ratings.bot_level(line.player) if bot else 0,
                rating=rating,
                mu=line.skill.mu,
                sigma=line.skill.sigma,
                matches=line.matches,
                wins=line.wins,
                deals_played=line.deals_played,
                deals_opened=line.deals_opened,
                penalty_points=line.penalty_points,
                closed_in_hand=line.closed_in_hand,
            )
        return answer

    async def GetMatch(
        self, request: players_pb2.GetMatchRequest, context: Context
    ) -> players_pb2.GetMatchResponse:
        match = await asyncio.to_thread(self._history.book.match, request.match_id)
        if match is None:
            raise not_found(
                "NO_SUCH_MATCH", f"this host keeps no finished match {request.match_id!r}"
            )
        deal_nos = [d.deal_no for d in match.deals]
        live = self._registry.tables.get(match.table_id)
        if live is not None:  # its journal is the table's own until it is archived

            def records(table: Table) -> list[bytes]:
                kept = []
                for deal_no in deal_nos:
                    try:
                        kept.append(table.deal_record(None, deal_no))  # a spectator's: public
                    except Refusal:
                        continue  # a deal ended before it was dealt has no record
                return kept

            kept = await live.call(records)
        else:
            kept = await asyncio.to_thread(self._history.archived_records, match)
        return players_pb2.GetMatchResponse(match=match, deal_records=kept)

    async def GetJoinChallenge(
        self, request: players_pb2.GetJoinChallengeRequest, context: Context
    ) -> players_pb2.GetJoinChallengeResponse:
        return players_pb2.GetJoinChallengeResponse(
            nonce=self._challenges.new(), expires_in_seconds=int(self._challenges.seconds)
        )
