"""The link to a host: a grpc.aio channel, the lobby calls, and one table's stream and moves.

``TableLink.follow`` keeps the event stream alive: when it drops, it
reconnects with backoff and resubscribes after the last sequence number the
view model has seen (the seat token is kept), so nothing is missed and
nothing is applied twice. Moves carry a request id and that sequence number;
a call lost to a dropped connection is retried with the same id, which the
host applies once. Every refusal comes back as ``HostRefusal`` carrying the
rule and the sentence of the host's ``google.rpc.ErrorInfo``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from google.rpc import error_details_pb2, status_pb2

from scala40_net import tls
from scala40_net.pb import (
    cards_pb2,
    deal_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    ruleset_pb2,
    table_pb2,
    table_pb2_grpc,
)
from scala40_net.wire import CHANNEL_OPTIONS

T = TypeVar("T")

BACKOFF_SECONDS = (0.2, 0.5, 1.0, 2.0, 3.0, 5.0)
CALL_TIMEOUT = 10.0
RETRIES = 3
_TRANSIENT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


class HostRefusal(Exception):
    """The host said no (or could not be reached): the rule, if any, and the host's sentence."""

    def __init__(self, code: grpc.StatusCode, sentence: str, rule: str = "", reason: str = ""):
        self.code = code
        self.sentence = sentence
        self.rule = rule
        self.reason = reason
        super().__init__(self.message)

    @property
    def message(self) -> str:
        if self.rule and not self.sentence.startswith(self.rule):
            return f"{self.rule}: {self.sentence}"
        return self.sentence

    @property
    def transient(self) -> bool:
        return self.code in _TRANSIENT

    @property
    def already_done(self) -> bool:
        """The host already has this step (a commitment or reveal sent by an earlier run)."""
        return self.code is grpc.StatusCode.ALREADY_EXISTS


def refusal_from_error(error: grpc.RpcError) -> HostRefusal:
    """The rule and sentence of the ``google.rpc.Status`` trailer, else the status message."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = error.details() if hasattr(error, "details") else str(error)
    # The stubs type the entries as objects with .key and .value; at run time they are
    # (key, value) pairs, grpc.aio's Metadata included, and are unpacked as such.
    trailers: Iterable[tuple[str, bytes]] | None = (
        error.trailing_metadata()  # type: ignore[assignment]
        if hasattr(error, "trailing_metadata")
        else None
    )
    for key, value in trailers or ():
        if key != "grpc-status-details-bin":
            continue
        status = status_pb2.Status.FromString(value)
        found: error_details_pb2.ErrorInfo | None = None
        localized = ""
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            said = error_details_pb2.LocalizedMessage()
            if detail.Unpack(info):  # False, and info untouched, for any other detail type
                found = info
            elif detail.Unpack(said):
                localized = said.message  # the whole refusal in the language asked for
        if found is None:
            return HostRefusal(code, status.message or details or "")
        sentence = localized or found.metadata.get("sentence") or status.message or details or ""
        return HostRefusal(code, sentence, found.metadata.get("rule", ""), found.reason)
    return HostRefusal(code, details or code.name)


def target(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def open_channel(
    host: str, port: int, fingerprint: str | None = None
) -> tuple[grpc.aio.Channel, str]:
    """A TLS channel to the host and the fingerprint it proved (``scala40_net.tls``).

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


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def _call(make: Callable[[], Awaitable[T]], retries: int = RETRIES) -> T:
    """One unary call; transient failures retried (the caller keeps the request id the same)."""
    for attempt in range(retries + 1):
        try:
            return await make()
        except grpc.RpcError as error:
            refusal = refusal_from_error(error)
            if not refusal.transient or attempt == retries:
                raise refusal from None
            await asyncio.sleep(BACKOFF_SECONDS[min(attempt, len(BACKOFF_SECONDS) - 1)])
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class Seat:
    """A seat this client holds: its table, number and token (the token is the seat)."""

    table_id: str
    seat: int | None
    token: str


class LobbyClient:
    """The lobby calls of one host."""

    def __init__(self, channel: grpc.aio.Channel, lang: str = "en") -> None:
        self.stub = lobby_pb2_grpc.LobbyServiceStub(channel)
        # The host says its refusals in this language (google.rpc.LocalizedMessage).
        self.language = (("accept-language", lang),)

    def _seat_metadata(self, seat: Seat) -> tuple[tuple[str, str], ...]:
        return (*_bearer(seat.token), *self.language)

    async def host_info(self) -> lobby_pb2.GetHostInfoResponse:
        return await _call(
            lambda: self.stub.GetHostInfo(
                lobby_pb2.GetHostInfoRequest(), metadata=self.language, timeout=CALL_TIMEOUT
            )
        )

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
        if password:
            request.password = password
        answer = await _call(
            lambda: self.stub.JoinTable(request, metadata=self.language, timeout=CALL_TIMEOUT)
        )
        return Seat(table_id, answer.seat, answer.seat_token)

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
    ) -> None:
        self.stub = table_pb2_grpc.TableServiceStub(channel)
        self.seat = seat
        # The host says its refusals in this language (google.rpc.LocalizedMessage).
        self.metadata = (*_bearer(seat.token), ("accept-language", lang))
        self.last_seq = last_seq
        self.closed = False
        self._call: Any = None  # the stream now open, to reopen it
        self._reopening = False

    def _context(self) -> table_pb2.MoveContext:
        return table_pb2.MoveContext(request_id=str(uuid.uuid4()), last_seen_seq=self.last_seq())

    async def follow(
        self,
        on_event: Callable[[table_pb2.TableEvent], None],
        on_link: Callable[[bool, int], None],
    ) -> None:
        """Apply the stream's events until ``close``; on loss, reconnect with backoff and resume.

        ``on_link(connected, attempt)`` reports the link: connected once a stream
        delivers, or the reconnect attempt number while it is down.
        """
        attempt = 0
        while not self.closed:
            call = self.stub.SubscribeEvents(
                table_pb2.SubscribeEventsRequest(after_seq=self.last_seq()), metadata=self.metadata
            )
            self._call = call
            try:
                await call.wait_for_connection()
                attempt = 0
                on_link(True, 0)
                async for response in call:
                    on_event(response.event)
                if self.closed:
                    return
            except asyncio.CancelledError:
                if not self._reopening:
                    raise
                self._reopening = False  # a new stream at once, resuming after the last event
                continue
            except grpc.RpcError as error:
                if self.closed:
                    return
                refusal = refusal_from_error(error)
                if refusal.code in (
                    grpc.StatusCode.UNAUTHENTICATED,
                    grpc.StatusCode.PERMISSION_DENIED,
                ):
                    raise refusal from None
            finally:
                call.cancel()
            # The stream ended or broke: come back after a pause, from the last event applied.
            attempt += 1
            on_link(False, attempt)
            await asyncio.sleep(BACKOFF_SECONDS[min(attempt - 1, len(BACKOFF_SECONDS) - 1)])

    def close(self) -> None:
        self.closed = True

    def reopen(self) -> None:
        """End the stream and open a new one at once: to the host, this seat's player is
        back (a host bot played the seat while they were away)."""
        if self._call is not None:
            self._reopening = True
            self._call.cancel()

    async def view(self) -> table_pb2.GetViewResponse:
        return await _call(
            lambda: self.stub.GetView(
                table_pb2.GetViewRequest(), metadata=self.metadata, timeout=CALL_TIMEOUT
            )
        )

    async def draw(self, source: deal_pb2.DrawSource) -> table_pb2.DrawResponse:
        request = table_pb2.DrawRequest(context=self._context(), source=source)
        return await _call(
            lambda: self.stub.Draw(request, metadata=self.metadata, timeout=CALL_TIMEOUT)
        )

    async def play(
        self, operations: list[cards_pb2.Operation], discard: int | None
    ) -> table_pb2.PlayResponse:
        request = table_pb2.PlayRequest(context=self._context(), operations=operations)
        if discard is not None:
            request.discard = discard
        return await _call(
            lambda: self.stub.Play(request, metadata=self.metadata, timeout=CALL_TIMEOUT)
        )

    async def return_discard(self) -> table_pb2.ReturnDiscardResponse:
        request = table_pb2.ReturnDiscardRequest(context=self._context())
        return await _call(
            lambda: self.stub.ReturnDiscard(request, metadata=self.metadata, timeout=CALL_TIMEOUT)
        )

    async def commit_seed(self, deal_no: int, commitment: bytes) -> None:
        request = table_pb2.CommitSeedRequest(
            context=self._context(), deal_no=deal_no, commitment=commitment
        )
        await _call(
            lambda: self.stub.CommitSeed(request, metadata=self.metadata, timeout=CALL_TIMEOUT)
        )

    async def reveal_seed(self, deal_no: int, seed: bytes, cut: int) -> None:
        request = table_pb2.RevealSeedRequest(
            context=self._context(), deal_no=deal_no, seed=seed, cut=cut
        )
        await _call(
            lambda: self.stub.RevealSeed(request, metadata=self.metadata, timeout=CALL_TIMEOUT)
        )

    async def answer_rientro(self, buy_back: bool) -> None:
        """R11.3: buy back in after busting, or retire from the match."""
        request = table_pb2.AnswerRientroRequest(context=self._context(), buy_back=buy_back)
        await _call(
            lambda: self.stub.AnswerRientro(request, metadata=self.metadata, timeout=CALL_TIMEOUT)
        )

    async def chat(self, text: str) -> None:
        request = table_pb2.SendChatRequest(text=text)
        await _call(
            lambda: self.stub.SendChat(request, metadata=self.metadata, timeout=CALL_TIMEOUT),
            retries=0,
        )

    async def ready(self) -> None:
        """Between deals: this seat has read the end of the deal."""
        request = table_pb2.ReadyRequest(context=self._context())
        await _call(lambda: self.stub.Ready(request, metadata=self.metadata, timeout=CALL_TIMEOUT))

    async def decide_absence(self, seat: int, choice: table_pb2.AbsenceChoice) -> None:
        """The first player's decision for an absent seat (``seat``)."""
        request = table_pb2.DecideAbsenceRequest(context=self._context(), seat=seat, choice=choice)
        await _call(
            lambda: self.stub.DecideAbsence(request, metadata=self.metadata, timeout=CALL_TIMEOUT)
        )

    async def deal_record(self, deal_no: int) -> bytes:
        request = table_pb2.GetDealRecordRequest(deal_no=deal_no)
        answer: table_pb2.GetDealRecordResponse = await _call(
            lambda: self.stub.GetDealRecord(request, metadata=self.metadata, timeout=CALL_TIMEOUT)
        )
        return answer.record
