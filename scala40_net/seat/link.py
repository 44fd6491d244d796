"""One seat's link to its table: each request with a request id and the last event seen, sent
again unchanged while the host may not have had it, over gRPC or straight to the table's task.

A ``SeatLink`` says the seat's moves (draw, play, the fair deal's commitment and
reveal, the answer to a rientro, ready) in the contract's messages and hands
them to a ``TableTransport``: ``GrpcTable`` for a seat in another process (the
client, ``scala40-bot``), or the host's own for its bots (``host.table.bots``).
``GrpcTable`` sends a seat's moves on its stream (``TableService.Seat``, a
``SeatStream``) while one is open, each answered there, and as unary calls
otherwise (a spectator, a host that serves no seat's stream, no stream open). A
request the host could not be reached with, or could not save, is sent again
with the same request id (the host applies it once) after the pauses of
``BACKOFF_SECONDS``; every refusal comes back as a ``HostRefusal``. A ``GrpcTable``
given the pin of its channel judges a call nobody answered by asking who is at
the address: another host there is a ``HostChanged``, never sent again.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol, TypeVar, cast

import grpc
from google.protobuf.message import Message

from scala40_net.net import tls
from scala40_net.pb import cards_pb2, deal_pb2, table_pb2, table_pb2_grpc
from scala40_net.seat.refusal import (
    HostChanged,
    HostRefusal,
    Trouble,
    refusal_from_error,
    refusal_from_status,
    unreachable,
)

T = TypeVar("T")

# Seconds between tries, the last one repeated: of a request sent again, of a stream reopened.
BACKOFF_SECONDS = (0.2, 0.5, 1.0, 2.0, 3.0, 5.0)
CALL_TIMEOUT = 10.0
RETRIES = 3  # how many times a request is sent again before its refusal is the answer

_SERVICE = table_pb2.DESCRIPTOR.services_by_name["TableService"]
_MOVES = table_pb2.SeatRequest.DESCRIPTOR.oneofs_by_name["request"].fields
# The unary calls a seat's stream carries: the method -> SeatRequest's field for its request
# (SeatAnswer's field of the same name holds its answer), read from the contract.
STREAM_MOVES = {
    method.name: move.name
    for method in _SERVICE.methods
    for move in _MOVES
    if move.name != "subscribe" and move.message_type is method.input_type
}


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
    so a stub replaced or wrapped is used. ``seat_stream``: a seat's events and moves go on
    the seat's stream (``subscribe`` opens it), else (a spectator's token) its events on
    SubscribeEvents; a host that does not serve the seat's stream is served the old way.
    """

    def __init__(
        self,
        channel: grpc.aio.Channel,
        token: str,
        lang: str | None = None,
        pin: tls.PinnedHost | None = None,
        seat_stream: bool = True,
    ) -> None:
        self.stub = table_pb2_grpc.TableServiceStub(channel)
        language = (("accept-language", lang),) if lang else ()
        self.metadata: tuple[tuple[str, str], ...] = (*bearer(token), *language)
        self.pin = pin
        self.seat_stream = seat_stream
        self.streamed: SeatStream | None = None  # the seat's stream open now, if one is

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

    async def request(self, method: str, request: Any) -> Any:
        """One request: a move on the seat's stream while one is open, else its call."""
        streamed = self.streamed
        kind = STREAM_MOVES.get(method)
        if streamed is not None and kind is not None and streamed.open:
            request_id = request.context.request_id
            if request_id:  # the answer is found by it: a move without one goes as a call
                return await streamed.ask(kind, request_id, request)
        call = getattr(self.stub, method)
        try:
            return await called(lambda: call(request, metadata=self.metadata, timeout=CALL_TIMEOUT))
        except HostRefusal as refusal:
            raise await self.judged(refusal) from None

    async def draw(self, request: table_pb2.DrawRequest) -> table_pb2.DrawResponse:
        return cast(table_pb2.DrawResponse, await self.request("Draw", request))

    async def play(self, request: table_pb2.PlayRequest) -> table_pb2.PlayResponse:
        return cast(table_pb2.PlayResponse, await self.request("Play", request))

    async def return_discard(
        self, request: table_pb2.ReturnDiscardRequest
    ) -> table_pb2.ReturnDiscardResponse:
        return cast(table_pb2.ReturnDiscardResponse, await self.request("ReturnDiscard", request))

    async def commit_seed(
        self, request: table_pb2.CommitSeedRequest, kept: tuple[bytes, int] | None = None
    ) -> table_pb2.CommitSeedResponse:
        return cast(table_pb2.CommitSeedResponse, await self.request("CommitSeed", request))

    async def reveal_seed(
        self, request: table_pb2.RevealSeedRequest
    ) -> table_pb2.RevealSeedResponse:
        return cast(table_pb2.RevealSeedResponse, await self.request("RevealSeed", request))

    async def answer_rientro(
        self, request: table_pb2.AnswerRientroRequest
    ) -> table_pb2.AnswerRientroResponse:
        return cast(table_pb2.AnswerRientroResponse, await self.request("AnswerRientro", request))

    async def ready(self, request: table_pb2.ReadyRequest) -> table_pb2.ReadyResponse:
        return cast(table_pb2.ReadyResponse, await self.request("Ready", request))

    async def view(self) -> table_pb2.GetViewResponse:
        return cast(
            table_pb2.GetViewResponse, await self.request("GetView", table_pb2.GetViewRequest())
        )

    async def deal_record(self, deal_no: int) -> bytes:
        request = table_pb2.GetDealRecordRequest(deal_no=deal_no)
        answer: table_pb2.GetDealRecordResponse = await self.request("GetDealRecord", request)
        return answer.record

    async def send_private(
        self, request: table_pb2.SendPrivateRequest
    ) -> table_pb2.SendPrivateResponse:
        """One private-table protocol message (docs/PRIVATE_TABLES.md), on the seat's stream
        while one is open."""
        return cast(table_pb2.SendPrivateResponse, await self.request("SendPrivate", request))

    async def hand_to_stand_in(
        self, request: table_pb2.HandToStandInRequest
    ) -> table_pb2.HandToStandInResponse:
        """At a private table: this seat, with its keys, to a host bot for good."""
        return cast(table_pb2.HandToStandInResponse, await self.request("HandToStandIn", request))

    async def decide_absence(
        self, request: table_pb2.DecideAbsenceRequest
    ) -> table_pb2.DecideAbsenceResponse:
        """The first player's decision for an absent seat (a person's, over the network)."""
        return cast(table_pb2.DecideAbsenceResponse, await self.request("DecideAbsence", request))

    async def chat(self, text: str) -> None:
        # The request id names the answer on the seat's stream (chat is not deduplicated).
        context = table_pb2.MoveContext(request_id=uuid.uuid4().hex)
        await self.request("SendChat", table_pb2.SendChatRequest(text=text, context=context))

    async def rematch(self, request: table_pb2.RematchRequest) -> table_pb2.RematchResponse:
        """After the match: agree to another at the same seats (a person's, or a network bot's
        once someone else has)."""
        return cast(table_pb2.RematchResponse, await self.request("Rematch", request))

    def subscribe(self, after_seq: int) -> Any:
        """The table's events after ``after_seq``: the seat's stream, which carries its moves
        from now on (``seat_stream``), else a SubscribeEvents call; either is read as a
        grpc.aio stream call of SubscribeEventsResponse."""
        if not self.seat_stream:
            return self.events(after_seq)
        self.streamed = SeatStream(self, after_seq)
        return self.streamed

    def events(self, after_seq: int) -> Any:
        """A SubscribeEvents call: the table's events after ``after_seq``."""
        request = table_pb2.SubscribeEventsRequest(after_seq=after_seq)
        return self.stub.SubscribeEvents(request, metadata=self.metadata)


class SeatStream:
    """One TableService.Seat call: read as a stream of SubscribeEventsResponse (its events),
    while each answer it brings is handed to the move that waits for it (``ask``).

    The moves are written by the call's own request iterator from a queue, so no move waits
    on another's sending. The host answers a move after the events it made; the answer is
    handed over as it comes, while those events may still wait for the seat's reader. When
    the stream ends, every move still waiting is told the host could not be reached
    (``UNAVAILABLE``, transient): ``resend`` sends it again, with its request id, on the next
    stream or as a call, and the host answers it once. A host that does not serve the
    seat's stream (``UNIMPLEMENTED``) is followed with SubscribeEvents instead, and the
    table's moves go as calls from then on.
    """

    def __init__(self, table: GrpcTable, after_seq: int) -> None:
        self._table = table
        self._after_seq = after_seq
        self._outbox: asyncio.Queue[table_pb2.SeatRequest | None] = asyncio.Queue()
        self._outbox.put_nowait(
            table_pb2.SeatRequest(subscribe=table_pb2.SubscribeEventsRequest(after_seq=after_seq))
        )
        self._waiting: dict[str, asyncio.Future[table_pb2.SeatAnswer]] = {}
        self._call: Any = table.stub.Seat(self._requests(), metadata=table.metadata)
        self.open = True  # False once the stream has ended: moves go another way
        self.got_any = False  # a message came on the seat's stream
        self.fell_back = False  # the host has no seat's stream: SubscribeEvents is followed

    async def _requests(self) -> AsyncIterator[table_pb2.SeatRequest]:
        while (request := await self._outbox.get()) is not None:
            yield request

    async def initial_metadata(self) -> Any:
        """The host's headers, which it sends once it follows the stream (or with its end).
        A host from before the seat's stream ends it UNIMPLEMENTED: the headers are then
        those of the SubscribeEvents call followed instead."""
        metadata = await self._call.initial_metadata()
        ended = not self.fell_back and self._call.done() and not self.got_any
        if ended and await self._call.code() is grpc.StatusCode.UNIMPLEMENTED:
            self._fall_back()
            metadata = await self._call.initial_metadata()
        return metadata

    def done(self) -> bool:
        return bool(self._call.done())

    def _fall_back(self) -> None:
        """A host from before the seat's stream: its events the old way, its moves as calls."""
        self._ended()
        self._table.seat_stream = False
        self._call = self._table.events(self._after_seq)
        self.fell_back = True

    def cancel(self) -> None:
        self._ended()
        self._call.cancel()

    def __aiter__(self) -> AsyncIterator[table_pb2.SubscribeEventsResponse]:
        return self._events()

    async def _events(self) -> AsyncIterator[table_pb2.SubscribeEventsResponse]:
        try:
            if not self.fell_back:
                try:
                    async for message in self._call:
                        self.got_any = True
                        if message.HasField("answer"):
                            future = self._waiting.pop(message.answer.request_id, None)
                            if future is not None and not future.done():
                                future.set_result(message.answer)
                        else:
                            yield table_pb2.SubscribeEventsResponse(event=message.event)
                    return
                except grpc.RpcError as error:
                    if self.got_any or error.code() is not grpc.StatusCode.UNIMPLEMENTED:
                        raise
                    self._fall_back()
            async for event in self._call:
                yield event
        finally:
            self._ended()

    def _ended(self) -> None:
        """No more answers come: every move waiting is told so, and none is sent here again."""
        if self._table.streamed is self:
            self._table.streamed = None
        self.open = False
        self._outbox.put_nowait(None)
        waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            if not future.done():
                future.set_exception(
                    unreachable(
                        grpc.StatusCode.UNAVAILABLE, "the seat's stream ended before the answer"
                    )
                )

    async def ask(self, kind: str, request_id: str, request: Message) -> Message:
        """Send one move and wait for its answer (at most ``CALL_TIMEOUT``); its refusal, as
        the unary call's, is raised as a ``HostRefusal``."""
        future = self._waiting.get(request_id)
        if future is None:
            future = self._waiting[request_id] = asyncio.get_running_loop().create_future()
            # Its end read even when nobody waits any more (the seat gave the move up).
            future.add_done_callback(lambda done: done.cancelled() or done.exception())
        move = table_pb2.SeatRequest()
        getattr(move, kind).CopyFrom(request)
        self._outbox.put_nowait(move)
        try:
            # asyncio.timeout, not wait_for: 3.11's wait_for returns an answer that comes in
            # the turn of the loop the seat is cancelled in, and drops the cancel.
            async with asyncio.timeout(CALL_TIMEOUT):
                answer = await asyncio.shield(future)
        except TimeoutError:
            raise unreachable(
                grpc.StatusCode.DEADLINE_EXCEEDED, "no answer on the seat's stream in time"
            ) from None
        finally:
            if self._waiting.get(request_id) is future and not future.done():
                del self._waiting[request_id]
        if answer.WhichOneof("answer") == "refused":
            raise refusal_from_status(answer.refused)
        return cast(Message, getattr(answer, kind))


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
        positions: list[deal_pb2.PrivatePosition] | None = None,
    ) -> table_pb2.PlayRequest:
        """``positions``: at a private table, the hand's positions whose cards the play lays,
        attaches, swaps in or discards (their shares sent first, by SendPrivate)."""
        request = table_pb2.PlayRequest(
            context=self.context(seen), operations=operations, positions=positions or []
        )
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
        positions: list[deal_pb2.PrivatePosition] | None = None,
    ) -> table_pb2.PlayResponse:
        request = self.play_request(operations, discard, seen, positions)
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
