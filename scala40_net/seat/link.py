"""One seat's link to its table: each request with a request id and the last event seen, sent
again unchanged while the host may not have had it, over gRPC or straight to the table's task.

A ``SeatLink`` says the seat's moves (draw, play, the fair deal's commitment and
reveal, the answer to a rientro, ready) in the contract's messages and hands
them to a ``TableTransport``: ``GrpcTable`` for a seat in another process (the
client, ``scala40-bot``), or the host's own for its bots (``host.table.bots``). A
request the host could not be reached with, or could not save, is sent again
with the same request id (the host applies it once) after the pauses of
``BACKOFF_SECONDS``; every refusal comes back as a ``HostRefusal``. A ``GrpcTable``
given the pin of its channel judges a call nobody answered by asking who is at
the address: another host there is a ``HostChanged``, never sent again.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar, cast

import grpc

from scala40_net.net import tls
from scala40_net.pb import cards_pb2, deal_pb2, table_pb2, table_pb2_grpc
from scala40_net.seat.refusal import HostChanged, HostRefusal, Trouble, refusal_from_error

T = TypeVar("T")

# Seconds between tries, the last one repeated: of a request sent again, of a stream reopened.
BACKOFF_SECONDS = (0.2, 0.5, 1.0, 2.0, 3.0, 5.0)
CALL_TIMEOUT = 10.0
RETRIES = 3  # how many times a request is sent again before its refusal is the answer


def backoff(attempt: int) -> float:
    """The pause before try ``attempt + 1`` (0: the first one again)."""
    return BACKOFF_SECONDS[min(attempt, len(BACKOFF_SECONDS) - 1)]


async def resend(
    make: Callable[[], Awaitable[T]],
    retries: int = RETRIES,
    on_retry: Callable[[HostRefusal], None] | None = None,
) -> T:
    """One request; while its refusal is transient, sent again as it is (the same request id),
    up to ``retries`` times; ``on_retry`` is told each refusal that is not the answer."""
    for attempt in range(retries + 1):
        try:
            return await make()
        except HostRefusal as refusal:
            if not refusal.transient or attempt == retries:
                raise
            if on_retry is not None:
                on_retry(refusal)
            await asyncio.sleep(backoff(attempt))
    raise AssertionError("unreachable")


async def called(make: Callable[[], Awaitable[T]]) -> T:
    """The answer of one gRPC call; its failure as the ``HostRefusal`` it says."""
    try:
        return await make()
    except grpc.RpcError as error:
        raise refusal_from_error(error) from None


class TableTransport(Protocol):
    """How a seat's requests reach its table; each raises ``HostRefusal`` when refused."""

    async def draw(self, request: table_pb2.DrawRequest) -> table_pb2.DrawResponse: ...

    async def play(self, request: table_pb2.PlayRequest) -> table_pb2.PlayResponse: ...

    async def return_discard(
        self, request: table_pb2.ReturnDiscardRequest
    ) -> table_pb2.ReturnDiscardResponse: ...

    async def commit_seed(
        self, request: table_pb2.CommitSeedRequest, kept: tuple[bytes, int] | None = None
    ) -> table_pb2.CommitSeedResponse:
        """``kept``: the seat's seed and cut, for a host that keeps its own bots' (a seat of
        another process keeps its own and sends only the commitment)."""
        ...

    async def reveal_seed(
        self, request: table_pb2.RevealSeedRequest
    ) -> table_pb2.RevealSeedResponse: ...

    async def answer_rientro(
        self, request: table_pb2.AnswerRientroRequest
    ) -> table_pb2.AnswerRientroResponse: ...

    async def ready(self, request: table_pb2.ReadyRequest) -> table_pb2.ReadyResponse: ...

    async def view(self) -> table_pb2.GetViewResponse: ...

    async def deal_record(self, deal_no: int) -> bytes: ...


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


class GrpcTable:
    """The table over TableService, as the holder of ``token`` (a seat's or a spectator's).

    ``lang``: the language the host says its refusals in (``google.rpc.LocalizedMessage``).
    ``pin``: where the channel goes and the identity it trusts (None: a channel without TLS,
    or one whose failures are not judged). The stub's methods are looked up at each call,
    so a stub replaced or wrapped is used.
    """

    def __init__(
        self,
        channel: grpc.aio.Channel,
        token: str,
        lang: str | None = None,
        pin: tls.PinnedHost | None = None,
    ) -> None:
        self.stub = table_pb2_grpc.TableServiceStub(channel)
        language = (("accept-language", lang),) if lang else ()
        self.metadata: tuple[tuple[str, str], ...] = (*bearer(token), *language)
        self.pin = pin

    async def judged(self, refusal: HostRefusal) -> HostRefusal:
        """``refusal`` as it is, or, when nobody answered the call but a host other than the
        pinned one answers at its address, the ``HostChanged`` it is."""
        if refusal.trouble is not Trouble.UNREACHABLE or self.pin is None:
            return refusal
        try:
            await self.pin.check()
        except tls.PinError as error:
            return HostChanged(error.found, error.expected, f"{refusal.sentence} ({error})")
        except OSError:
            pass  # nobody there: the host is down, as the call said
        return refusal

    async def _unary(self, method: str, request: Any) -> Any:
        call = getattr(self.stub, method)
        try:
            return await called(lambda: call(request, metadata=self.metadata, timeout=CALL_TIMEOUT))
        except HostRefusal as refusal:
            raise await self.judged(refusal) from None

    async def draw(self, request: table_pb2.DrawRequest) -> table_pb2.DrawResponse:
        return cast(table_pb2.DrawResponse, await self._unary("Draw", request))

    async def play(self, request: table_pb2.PlayRequest) -> table_pb2.PlayResponse:
        return cast(table_pb2.PlayResponse, await self._unary("Play", request))

    async def return_discard(
        self, request: table_pb2.ReturnDiscardRequest
    ) -> table_pb2.ReturnDiscardResponse:
        return cast(table_pb2.ReturnDiscardResponse, await self._unary("ReturnDiscard", request))

    async def commit_seed(
        self, request: table_pb2.CommitSeedRequest, kept: tuple[bytes, int] | None = None
    ) -> table_pb2.CommitSeedResponse:
        return cast(table_pb2.CommitSeedResponse, await self._unary("CommitSeed", request))

    async def reveal_seed(
        self, request: table_pb2.RevealSeedRequest
    ) -> table_pb2.RevealSeedResponse:
        return cast(table_pb2.RevealSeedResponse, await self._unary("RevealSeed", request))

    async def answer_rientro(
        self, request: table_pb2.AnswerRientroRequest
    ) -> table_pb2.AnswerRientroResponse:
        return cast(table_pb2.AnswerRientroResponse, await self._unary("AnswerRientro", request))

    async def ready(self, request: table_pb2.ReadyRequest) -> table_pb2.ReadyResponse:
        return cast(table_pb2.ReadyResponse, await self._unary("Ready", request))

    async def view(self) -> table_pb2.GetViewResponse:
        return cast(
            table_pb2.GetViewResponse, await self._unary("GetView", table_pb2.GetViewRequest())
        )

    async def deal_record(self, deal_no: int) -> bytes:
        request = table_pb2.GetDealRecordRequest(deal_no=deal_no)
        answer: table_pb2.GetDealRecordResponse = await self._unary("GetDealRecord", request)
        return answer.record

    async def decide_absence(
        self, request: table_pb2.DecideAbsenceRequest
    ) -> table_pb2.DecideAbsenceResponse:
        """The first player's decision for an absent seat (a person's, over the network)."""
        return cast(table_pb2.DecideAbsenceResponse, await self._unary("DecideAbsence", request))

    async def chat(self, text: str) -> None:
        await self._unary("SendChat", table_pb2.SendChatRequest(text=text))

    async def rematch(self, request: table_pb2.RematchRequest) -> table_pb2.RematchResponse:
        """After the match: agree to another at the same seats (a person's, or a network bot's
        once someone else has)."""
        return cast(table_pb2.RematchResponse, await self._unary("Rematch", request))

    def subscribe(self, after_seq: int) -> Any:
        """The table's events after ``after_seq`` (a grpc.aio stream call)."""
        request = table_pb2.SubscribeEventsRequest(after_seq=after_seq)
        return self.stub.SubscribeEvents(request, metadata=self.metadata)


class SeatLink:
    """A seat's moves as requests to its table: each with a fresh request id and, as the view
    it was decided on, ``last_seq()`` (or the seq given), sent again while transient."""

    def __init__(self, transport: TableTransport, last_seq: Callable[[], int]) -> None:
        self.transport = transport
        self.last_seq = last_seq

    def context(self, seen: int | None = None) -> table_pb2.MoveContext:
        """A new request id, and the seq of the last event the move was decided on."""
        seq = self.last_seq() if seen is None else seen
        return table_pb2.MoveContext(request_id=uuid.uuid4().hex, last_seen_seq=seq)

    # The requests, made apart from their sending so that one can be sent again as it was.

    def draw_request(
        self, source: deal_pb2.DrawSource, seen: int | None = None
    ) -> table_pb2.DrawRequest:
        return table_pb2.DrawRequest(context=self.context(seen), source=source)

    def play_request(
        self,
        operations: list[cards_pb2.Operation],
        discard: int | None,
        seen: int | None = None,
    ) -> table_pb2.PlayRequest:
        request = table_pb2.PlayRequest(context=self.context(seen), operations=operations)
        if discard is not None:
            request.discard = discard
        return request

    def return_request(self, seen: int | None = None) -> table_pb2.ReturnDiscardRequest:
        return table_pb2.ReturnDiscardRequest(context=self.context(seen))

    def commitment(self, deal_no: int, commitment: bytes) -> table_pb2.CommitSeedRequest:
        return table_pb2.CommitSeedRequest(
            context=self.context(), deal_no=deal_no, commitment=commitment
        )

    def reveal(self, deal_no: int, seed: bytes, cut: int) -> table_pb2.RevealSeedRequest:
        return table_pb2.RevealSeedRequest(
            context=self.context(), deal_no=deal_no, seed=seed, cut=cut
        )

    # The moves.

    async def draw(
        self, source: deal_pb2.DrawSource, seen: int | None = None
    ) -> table_pb2.DrawResponse:
        request = self.draw_request(source, seen)
        return await resend(lambda: self.transport.draw(request))

    async def play(
        self,
        operations: list[cards_pb2.Operation],
        discard: int | None,
        seen: int | None = None,
    ) -> table_pb2.PlayResponse:
        request = self.play_request(operations, discard, seen)
        return await resend(lambda: self.transport.play(request))

    async def return_discard(self, seen: int | None = None) -> table_pb2.ReturnDiscardResponse:
        request = self.return_request(seen)
        return await resend(lambda: self.transport.return_discard(request))

    async def commit_seed(
        self, request: table_pb2.CommitSeedRequest, kept: tuple[bytes, int] | None = None
    ) -> None:
        await resend(lambda: self.transport.commit_seed(request, kept))

    async def reveal_seed(self, request: table_pb2.RevealSeedRequest) -> None:
        await resend(lambda: self.transport.reveal_seed(request))

    async def answer_rientro(self, buy_back: bool) -> None:
        """R11.3: buy back in after busting, or retire from the match."""
        request = table_pb2.AnswerRientroRequest(context=self.context(), buy_back=buy_back)
        await resend(lambda: self.transport.answer_rientro(request))

    async def ready(self) -> None:
        """Between deals: this seat has read the end of the deal."""
        request = table_pb2.ReadyRequest(context=self.context())
        await resend(lambda: self.transport.ready(request))

    async def view(self) -> table_pb2.GetViewResponse:
        return await resend(self.transport.view)

    async def deal_record(self, deal_no: int) -> bytes:
        return await resend(lambda: self.transport.deal_record(deal_no))
