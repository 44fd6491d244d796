"""The link to a host: a grpc.aio channel, the lobby calls, and one table's stream and moves.

The table's side is the seat's link of ``scala40_net.seat``: ``TableLink.follow``
keeps the event stream alive (``seat.stream``): when it drops, it reconnects with
backoff and resubscribes after the last sequence number the view model has seen
(the seat token is kept), so nothing is missed and nothing is applied twice.
Moves carry a request id and that sequence number; a call lost to a dropped
connection is sent again with the same id, which the host applies once
(``seat.link``). Every refusal comes back as ``HostRefusal`` carrying the rule and
the sentence of the host's ``google.rpc.ErrorInfo``; a failure of the network or of
trust (``failure_words``) is said in the client's own catalogue instead, gRPC's text
going to the log only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import grpc

from scala40_net.net import tls
from scala40_net.pb import (
    cards_pb2,
    deal_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
    ruleset_pb2,
    table_pb2,
)
from scala40_net.players import PlayerKey
from scala40_net.private.messages import Ed25519Signer, Signer
from scala40_net.seat.link import CALL_TIMEOUT, RETRIES, GrpcTable, SeatLink, bearer, called, resend
from scala40_net.seat.private import deal_folder
from scala40_net.seat.private_link import signing_key_at
from scala40_net.seat.proof import add_proof
from scala40_net.seat.refusal import HostChanged, HostRefusal, Trouble
from scala40_net.seat.stream import ResumableStream, gives_up_if_seat_refused
from scala40_net.wire import CHANNEL_OPTIONS

__all__ = [
    "HostRefusal",
    "LobbyClient",
    "Seat",
    "TableLink",
    "failure_words",
    "open_channel",
    "open_insecure_channel",
    "target",
]

T = TypeVar("T")


def target(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def open_channel(
    host: str, port: int, fingerprint: str | None = None
) -> tuple[grpc.aio.Channel, str]:
    """A TLS channel to the host and the fingerprint it proved (``scala40_net.net.tls``).

    ``fingerprint`` pins it (an invite's; ``PinError`` naming both when the host is
    another); None takes whichever identity the host's certificate is bound to, for the
    caller to compare with what it remembers. OSError when nobody answers there.
    """
    # Keepalive matched to the host's (wire.CHANNEL_OPTIONS): long idle streams survive the LAN.
    channel, found = await tls.pinned_channel(host, port, fingerprint, CHANNEL_OPTIONS)
    return channel, found.fingerprint


def open_insecure_channel(host: str, port: int) -> grpc.aio.Channel:
    """A channel without TLS, to a host started with --insecure (everything in clear)."""
    return grpc.aio.insecure_channel(target(host, port), options=CHANNEL_OPTIONS)


def failure_words(error: BaseException, host: str) -> tuple[str, dict[str, str]] | None:
    """What the player is told of a failure to reach or trust ``host``: a message key and its
    fields. None for a refusal that is the host's own answer (its sentence is already in
    the player's language) and for anything that is not such a failure."""
    if isinstance(error, HostChanged | tls.PinError):
        if not error.found:
            return "net_not_a_host", {"host": host}
        return "net_not_the_host", {"found": error.found, "expected": error.expected}
    if isinstance(error, HostRefusal):
        if error.trouble is Trouble.UNREACHABLE:
            return "net_unreachable", {"host": host}
        return None
    if isinstance(error, OSError):  # the socket's: refused, timed out, no route, no such name
        return "net_unreachable", {"host": host}
    return None


async def _call(make: Callable[[], Awaitable[T]], retries: int = RETRIES) -> T:
    """One lobby call; transient failures sent again (``seat.link.resend``)."""
    return await resend(lambda: called(make), retries)


@dataclass(frozen=True)
class Seat:
    """A seat this client holds: its table, number and token (the token is the seat)."""

    table_id: str
    seat: int | None
    token: str


def private_signer(data_dir: Path | None, table_id: str) -> Signer:
    """The key this client signs a private table's messages with: kept in its data dir
    beside the table's per-deal keys (the screen started again signs on with it); without
    a data dir, one for this run, kept for the table."""
    if data_dir is not None:
        return signing_key_at(deal_folder(data_dir, table_id) / "signing.key")
    return _RUN_SIGNERS.setdefault(table_id, Ed25519Signer())


_RUN_SIGNERS: dict[str, Ed25519Signer] = {}


class LobbyClient:
    """The lobby calls of one host."""

    def __init__(
        self,
        channel: grpc.aio.Channel,
        lang: str = "en",
        key: PlayerKey | None = None,
        data_dir: Path | None = None,
    ) -> None:
        self.stub = lobby_pb2_grpc.LobbyServiceStub(channel)
        # Where a private table's signing key is kept (client/private.py): the join names it.
        self.data_dir = data_dir
        self.players = players_pb2_grpc.PlayersServiceStub(channel)
        # The host says its refusals in this language (google.rpc.LocalizedMessage).
        self.language = (("accept-language", lang),)
        # The player's key proves every join (a host that asks for none gets a join without).
        self.key = key
        self.host_fingerprint = ""

    def _seat_metadata(self, seat: Seat) -> tuple[tuple[str, str], ...]:
        return (*bearer(seat.token), *self.language)

    async def host_info(self) -> lobby_pb2.GetHostInfoResponse:
        info: lobby_pb2.GetHostInfoResponse = await _call(
            lambda: self.stub.GetHostInfo(
                lobby_pb2.GetHostInfoRequest(), metadata=self.language, timeout=CALL_TIMEOUT
            )
        )
        self.host_fingerprint = info.host_fingerprint
        return info

    async def tables(self) -> list[lobby_pb2.TableSummary]:
        answer = await _call(
            lambda: self.stub.ListTables(
                lobby_pb2.ListTablesRequest(), metadata=self.language, timeout=CALL_TIMEOUT
            )
        )
        return list(answer.tables)

    async def create_table(
        self,
        name: str,
        preset: int,
        seats: int,
        password: str | None = None,
        options: ruleset_pb2.RulesetOptions | None = None,
        settings: lobby_pb2.CreateTableRequest | None = None,
    ) -> str:
        """A new table of ``preset``; ``options`` set change single rules of it (bust_at …);
        ``settings``' fields that are set (the turn clock, the pause …) are sent too."""
        request = lobby_pb2.CreateTableRequest(name=name, seats=seats)
        if settings is not None:
            request.MergeFrom(settings)
        request.ruleset.preset = preset  # type: ignore[assignment]
        if options is not None:
            request.ruleset.options.CopyFrom(options)
        if password:
            request.password = password
        answer: lobby_pb2.CreateTableResponse = await _call(
            lambda: self.stub.CreateTable(request, metadata=self.language, timeout=CALL_TIMEOUT)
        )
        return answer.table_id

    async def join(self, table_id: str, name: str, password: str | None = None) -> Seat:
        request = lobby_pb2.JoinTableRequest(table_id=table_id, player_name=name)
        # Read only by a private table: the key this seat signs its protocol messages with.
        request.private_signing_key = private_signer(self.data_dir, table_id).public_key()
        if password:
            request.password = password
        key = self.key
        if key is None:
            answer = await _call(
                lambda: self.stub.JoinTable(request, metadata=self.language, timeout=CALL_TIMEOUT)
            )
            return Seat(table_id, answer.seat, answer.seat_token)
        if not self.host_fingerprint:
            await self.host_info()

        async def proved_join() -> lobby_pb2.JoinTableResponse:
            # Each try signs a fresh challenge: a challenge is good for one join only.
            signed = lobby_pb2.JoinTableRequest()
            signed.CopyFrom(request)
            await add_proof(
                self.players, signed, key, self.host_fingerprint, self.language, CALL_TIMEOUT
            )
            answer: lobby_pb2.JoinTableResponse = await self.stub.JoinTable(
                signed, metadata=self.language, timeout=CALL_TIMEOUT
            )
            return answer

        joined = await _call(proved_join)
        return Seat(table_id, joined.seat, joined.seat_token)

    async def matches(
        self, key_fingerprint: str = "", limit: int = 0
    ) -> list[players_pb2.PastMatch]:
        """The host's finished matches, newest first (only that key's, when given; at most
        ``limit``, 0: the host's default)."""
        request = players_pb2.ListMatchesRequest(key_fingerprint=key_fingerprint, limit=limit)
        answer: players_pb2.ListMatchesResponse = await _call(
            lambda: self.players.ListMatches(request, metadata=self.language, timeout=CALL_TIMEOUT)
        )
        return list(answer.matches)

    async def standings(self) -> players_pb2.GetStandingsResponse:
        answer: players_pb2.GetStandingsResponse = await _call(
            lambda: self.players.GetStandings(
                players_pb2.GetStandingsRequest(), metadata=self.language, timeout=CALL_TIMEOUT
            )
        )
        return answer

    async def spectate(self, table_id: str, password: str | None = None) -> Seat:
        request = lobby_pb2.SpectateTableRequest(table_id=table_id)
        if password:
            request.password = password
        answer = await _call(
            lambda: self.stub.SpectateTable(request, metadata=self.language, timeout=CALL_TIMEOUT)
        )
        return Seat(table_id, None, answer.spectator_token)

    async def add_bot(self, seat: Seat, level: int = lobby_pb2.BOT_LEVEL_MEDIUM) -> int:
        request = lobby_pb2.AddBotRequest(table_id=seat.table_id, level=level)  # type: ignore[arg-type]
        answer: lobby_pb2.AddBotResponse = await _call(
            lambda: self.stub.AddBot(
                request, metadata=self._seat_metadata(seat), timeout=CALL_TIMEOUT
            )
        )
        return answer.seat

    async def start_match(self, seat: Seat) -> None:
        request = lobby_pb2.StartMatchRequest(table_id=seat.table_id)
        await _call(
            lambda: self.stub.StartMatch(
                request, metadata=self._seat_metadata(seat), timeout=CALL_TIMEOUT
            )
        )

    async def leave(self, seat: Seat) -> None:
        request = lobby_pb2.LeaveTableRequest(table_id=seat.table_id)
        await _call(
            lambda: self.stub.LeaveTable(
                request, metadata=self._seat_metadata(seat), timeout=CALL_TIMEOUT
            ),
            retries=0,
        )


class TableLink:
    """One seat's (or spectator's) calls to its table, and the resumable event stream."""

    def __init__(
        self,
        channel: grpc.aio.Channel,
        seat: Seat,
        last_seq: Callable[[], int],
        lang: str = "en",
        pin: tls.PinnedHost | None = None,
    ) -> None:
        """``pin``: where ``channel`` goes and the identity it trusts, so that a host with
        another identity at that address is told apart from one that is down."""
        self.seat = seat
        self.channel = channel
        # A seat's moves go on its stream with its events; a spectator follows the events.
        self.table = GrpcTable(channel, seat.token, lang, pin, seat_stream=seat.seat is not None)
        self.link = SeatLink(self.table, last_seq)
        # The screen waits out anything but its seat refused: the player decides to leave.
        self.stream = ResumableStream(self.table, last_seq, gives_up=gives_up_if_seat_refused)

    @property
    def closed(self) -> bool:
        return self.stream.closed

    async def follow(
        self,
        on_event: Callable[[table_pb2.TableEvent], None],
        on_link: Callable[[bool, int], None],
    ) -> None:
        """Apply the stream's events until ``close``; on loss, reconnect with backoff and resume.

        ``on_link(connected, attempt)`` reports the link: connected once a stream
        delivers, or the reconnect attempt number while it is down. Another host at the
        pinned address ends it (``HostChanged``), and the channel with it.
        """

        async def take(message: table_pb2.SubscribeEventsResponse, received_at: float) -> bool:
            on_event(message.event)
            return False

        try:
            await self.stream.follow(take, on_link=on_link)
        except HostChanged:
            # Left open, the channel would go on handshaking with the other host in the
            # background: nothing more is sent to it.
            await self.channel.close(grace=None)
            raise

    def close(self) -> None:
        self.stream.close()

    def reopen(self) -> None:
        """End the stream and open a new one at once: to the host, this seat's player is
        back (a host bot played the seat while they were away)."""
        self.stream.reopen()

    async def view(self) -> table_pb2.GetViewResponse:
        return await self.link.view()

    async def draw(self, source: deal_pb2.DrawSource) -> table_pb2.DrawResponse:
        return await self.link.draw(source)

    async def play(
        self,
        operations: list[cards_pb2.Operation],
        discard: int | None,
        positions: list[deal_pb2.PrivatePosition] | None = None,
    ) -> table_pb2.PlayResponse:
        """``positions``: at a private table, the hand's positions the play lays or discards."""
        return await self.link.play(operations, discard, positions=positions)

    async def return_discard(self) -> table_pb2.ReturnDiscardResponse:
        return await self.link.return_discard()

    async def commit_seed(self, deal_no: int, commitment: bytes) -> None:
        await self.link.commit_seed(self.link.commitment(deal_no, commitment))

    async def reveal_seed(self, deal_no: int, seed: bytes, cut: int) -> None:
        await self.link.reveal_seed(self.link.reveal(deal_no, seed, cut))

    async def answer_rientro(self, buy_back: bool) -> None:
        """R11.3: buy back in after busting, or retire from the match."""
        await self.link.answer_rientro(buy_back)

    async def chat(self, text: str) -> None:
        await self.table.chat(text)  # said once: a chat line sent twice would show twice

    async def ready(self) -> None:
        """Between deals: this seat has read the end of the deal."""
        await self.link.ready()

    async def decide_absence(self, seat: int, choice: table_pb2.AbsenceChoice) -> None:
        """The first player's decision for an absent seat (``seat``)."""
        request = table_pb2.DecideAbsenceRequest(
            context=self.link.context(), seat=seat, choice=choice
        )
        await resend(lambda: self.table.decide_absence(request))

    async def rematch(self, rules: ruleset_pb2.Ruleset | None = None) -> None:
        """After the match: this seat agrees to another at the same seats (under ``rules``,
        from the first player; None: the same rules); sent again with the same request id
        when the host did not answer."""
        request = table_pb2.RematchRequest(context=self.link.context(), rules=rules)
        await resend(lambda: self.table.rematch(request))

    async def deal_record(self, deal_no: int) -> bytes:
        return await self.link.deal_record(deal_no)
