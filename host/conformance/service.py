"""The conformance check's TableService: the host's own, with the script between it and one seat.

Every call of the client under test's seat goes through ``Script``: a move
it scripts a refusal for is refused before it reaches the table (nothing is
done), every other one goes to the host's ``TableService`` and its answer is
noted; the seat's event stream is the host's, each event noted, and ended
with ``UNAVAILABLE`` when the script drops it. The seat's stream (``Seat``)
is both: its moves go to the same scripted handlers, its events are noted and
dropped alike. Every other caller (none, in a
conformance run) is served by the host's service untouched.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias, TypeVar

import grpc
from google.protobuf.message import Message

from host.conformance.script import Script
from host.edge import auth
from host.edge.errors import Refusal
from host.edge.table_service import TableService
from scala40_net.pb import table_pb2, table_pb2_grpc

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
Request = TypeVar("Request", bound=Message)
Response = TypeVar("Response")


class ScriptedTableService(table_pb2_grpc.TableServiceServicer):
    def __init__(self, inner: TableService, script: Script) -> None:
        self._inner = inner
        self._script = script

    def _scripted(self) -> bool:
        """Whether the caller is the seat under test (of the table under test)."""
        caller, script = auth.current_principal(), self._script
        return script.seat is not None and (caller.table_id, caller.seat) == (
            script.table_id,
            script.seat,
        )

    async def _move(
        self,
        kind: str,
        handler: Callable[[Request, Context], Awaitable[Response]],
        request: Request,
        move: table_pb2.MoveContext,
        context: Context,
    ) -> Response:
        if not self._scripted():
            return await handler(request, context)
        refusal = self._script.before_move(kind, request, move)
        if refusal is not None:
            raise refusal
        try:
            answer = await handler(request, context)
        except Refusal as refused:
            self._script.after_move(kind, request, move, refused)
            raise
        self._script.after_move(kind, request, move, None)
        return answer

    async def SubscribeEvents(
        self, request: table_pb2.SubscribeEventsRequest, context: Context
    ) -> AsyncIterator[table_pb2.SubscribeEventsResponse | bytes]:
        scripted = self._scripted()
        if scripted:
            self._script.stream_opened(request.after_seq)
        async for message in self._watched(
            self._inner.SubscribeEvents(request, context), scripted, context
        ):
            yield message

    async def Seat(
        self, requests: AsyncIterator[table_pb2.SeatRequest], context: Context
    ) -> AsyncIterator[table_pb2.SeatResponse | bytes]:
        """The seat's stream: the host's, its moves answered by this service's handlers (so
        scripted like their unary calls), its events noted and dropped like SubscribeEvents'."""
        scripted = self._scripted()

        async def opened() -> AsyncIterator[table_pb2.SeatRequest]:
            first = True
            async for request in requests:
                if first and scripted and request.WhichOneof("request") == "subscribe":
                    self._script.stream_opened(request.subscribe.after_seq, seat_stream=True)
                first = False
                yield request

        stream = self._inner.seat_stream(opened(), context, self)
        async for message in self._watched(stream, scripted, context):
            yield message

    async def _watched(
        self, stream: AsyncIterator[Message | bytes], scripted: bool, context: Context
    ) -> AsyncIterator[Any]:
        """The host's stream as it is, each event noted by the script, ended with
        ``UNAVAILABLE`` right after the event the script drops it at."""
        drop = False
        async with contextlib.aclosing(stream):  # type: ignore[type-var]
            async for message in stream:
                yield message
                event = _event(message)
                if scripted and event is not None and self._script.given(event):
                    drop = True
                    break
        if drop:
            await context.abort(
                grpc.StatusCode.UNAVAILABLE,
                "the stream was dropped (a conformance check): subscribe again with after_seq "
                "of your last event",
            )

    async def GetView(
        self, request: table_pb2.GetViewRequest, context: Context
    ) -> table_pb2.GetViewResponse:
        if self._scripted():
            self._script.view_read()
        return await self._inner.GetView(request, context)

    async def Draw(
        self, request: table_pb2.DrawRequest, context: Context
    ) -> table_pb2.DrawResponse:
        return await self._move("draw", self._inner.Draw, request, request.context, context)

    async def Play(
        self, request: table_pb2.PlayRequest, context: Context
    ) -> table_pb2.PlayResponse:
        return await self._move("play", self._inner.Play, request, request.context, context)

    async def ReturnDiscard(
        self, request: table_pb2.ReturnDiscardRequest, context: Context
    ) -> table_pb2.ReturnDiscardResponse:
        return await self._move(
            "return_discard", self._inner.ReturnDiscard, request, request.context, context
        )

    async def CommitSeed(
        self, request: table_pb2.CommitSeedRequest, context: Context
    ) -> table_pb2.CommitSeedResponse:
        return await self._move("commit", self._inner.CommitSeed, request, request.context, context)

    async def RevealSeed(
        self, request: table_pb2.RevealSeedRequest, context: Context
    ) -> table_pb2.RevealSeedResponse:
        return await self._move("reveal", self._inner.RevealSeed, request, request.context, context)

    async def AnswerRientro(
        self, request: table_pb2.AnswerRientroRequest, context: Context
    ) -> table_pb2.AnswerRientroResponse:
        return await self._inner.AnswerRientro(request, context)

    async def SendChat(
        self, request: table_pb2.SendChatRequest, context: Context
    ) -> table_pb2.SendChatResponse:
        return await self._inner.SendChat(request, context)

    async def DecideAbsence(
        self, request: table_pb2.DecideAbsenceRequest, context: Context
    ) -> table_pb2.DecideAbsenceResponse:
        return await self._inner.DecideAbsence(request, context)

    async def Ready(
        self, request: table_pb2.ReadyRequest, context: Context
    ) -> table_pb2.ReadyResponse:
        return await self._inner.Ready(request, context)

    async def Rematch(
        self, request: table_pb2.RematchRequest, context: Context
    ) -> table_pb2.RematchResponse:
        return await self._inner.Rematch(request, context)

    async def SendPrivate(
        self, request: table_pb2.SendPrivateRequest, context: Context
    ) -> table_pb2.SendPrivateResponse:
        return await self._inner.SendPrivate(request, context)

    async def HandToStandIn(
        self, request: table_pb2.HandToStandInRequest, context: Context
    ) -> table_pb2.HandToStandInResponse:
        return await self._inner.HandToStandIn(request, context)

    async def GetDealRecord(
        self, request: table_pb2.GetDealRecordRequest, context: Context
    ) -> table_pb2.GetDealRecordResponse:
        return await self._inner.GetDealRecord(request, context)


def _event(message: Message | bytes) -> table_pb2.TableEvent | None:
    """The event of a stream message (either stream's: an event is field 1 of both), sent as
    the fan-out serialized it or not; None for an answer of the seat's stream."""
    if isinstance(message, bytes):
        message = table_pb2.SeatResponse.FromString(message)
    if isinstance(message, table_pb2.SubscribeEventsResponse):
        return message.event
    assert isinstance(message, table_pb2.SeatResponse)
    return message.event if message.HasField("event") else None
