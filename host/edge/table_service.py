"""TableService: a seat's event stream and view, its turn, fair-deal messages, chat, records.

Handlers only authenticate (the interceptor did), translate and hand the
work to the table's task; the stream handlers alone wait on their own bounded
queue, so a slow reader never holds up the table. The seat's stream (``Seat``)
carries the seat's moves too: each is handed to the unary handler of its kind
(one code path), and its answer, or its refusal as a google.rpc.Status, is
queued behind the events its job published, on the same bounded queue.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeAlias, TypeVar

import grpc
from google.protobuf.message import Message

from host.edge import auth
from host.edge.errors import Refusal, malformed
from host.edge.limits import Limits
from host.journal.registry import Registry
from host.table import stand_in
from host.table.bot_keys import bot_folder
from host.table.fanout import Subscriber
from host.table.table import Table
from host.table.task import TableTask
from scala40_net.pb import table_pb2, table_pb2_grpc
from scala40_net.seat.link import STREAM_MOVES

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
Request = TypeVar("Request")
Response = TypeVar("Response")

# The moves of the seat's stream: SeatRequest's field -> the unary method that answers it;
# its answer goes in SeatAnswer's field of the same name (read from the contract, as the
# seat's link reads it).
SEAT_MOVES = {kind: method for method, kind in STREAM_MOVES.items()}


def add_to_server(service: table_pb2_grpc.TableServiceServicer, server: grpc.aio.Server) -> None:
    """The generated registration of TableService, but for SubscribeEvents' serializer: its
    stream sends the bytes the fan-out made ready (``host.table.fanout.prepare``) as they are."""
    captured = _Handlers()
    table_pb2_grpc.add_TableServiceServicer_to_server(service, captured)
    handlers = dict(captured.handlers)
    handlers["SubscribeEvents"] = grpc.unary_stream_rpc_method_handler(
        service.SubscribeEvents,
        request_deserializer=table_pb2.SubscribeEventsRequest.FromString,
        response_serializer=_serialized,
    )
    # A SeatResponse holding an event is the SubscribeEventsResponse's bytes (field 1 both).
    handlers["Seat"] = grpc.stream_stream_rpc_method_handler(
        service.Seat,
        request_deserializer=table_pb2.SeatRequest.FromString,
        response_serializer=_serialized,
    )
    name = table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, handlers),))
    server.add_registered_method_handlers(name, handlers)


def _serialized(message: Message | bytes) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


class _Handlers:
    """Stands in for a server to the generated registration: keeps its method handlers."""

    def __init__(self) -> None:
        self.handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    def add_generic_rpc_handlers(self, handlers: object) -> None:
        pass

    def add_registered_method_handlers(
        self, name: str, handlers: dict[str, grpc.RpcMethodHandler[Any, Any]]
    ) -> None:
        self.handlers = handlers


class TableService(table_pb2_grpc.TableServiceServicer):
    def __init__(self, registry: Registry, limits: Limits) -> None:
        self._registry = registry
        self._limits = limits

    def _caller(self) -> tuple[TableTask, int | None]:
        principal = auth.current_principal()
        return self._registry.get(principal.table_id), principal.seat

    def _seat(self) -> tuple[TableTask, int]:
        task, seat = self._caller()
        assert seat is not None  # the interceptor lets only seat tokens in
        return task, seat

    async def _as_seat(
        self, move: Callable[[Table, int, Request], Response], request: Request
    ) -> Response:
        """Hand ``move`` of the caller's seat, with its request, to the table's task (refused
        once the seat is its stand-in's: ``stand_in.refuse_if_stood_in``)."""
        task, seat = self._seat()
        return await task.call(lambda table: move(table, _acting(table, seat), request))

    @contextlib.asynccontextmanager
    async def _subscribed(
        self, after_seq: int, context: Context
    ) -> AsyncIterator[tuple[TableTask, list[table_pb2.TableEvent], Subscriber]]:
        """One event stream of the caller, counted against the limits while it is open: its
        first events and its subscriber, registered with the table's fan-out."""
        task, seat = self._caller()
        peer = context.peer()
        self._limits.stream_opened(peer, task.table_id, seat)
        try:
            backlog, subscriber = await task.call(lambda _: task.subscribe(seat, after_seq))
        except BaseException:
            self._limits.stream_closed(peer, task.table_id, seat)
            raise
        if seat is not None:
            task.stream_opened(seat)
        try:
            # The stream's headers, sent now rather than with its first message, tell the
            # caller the table follows the stream: whatever it does from here on reaches it
            # as an event (PROTOCOL.md, "Open means followed"), even with nothing to send yet.
            await context.send_initial_metadata(())
            yield task, backlog, subscriber
        finally:
            self._limits.stream_closed(peer, task.table_id, seat)
            task.fanout.unsubscribe(subscriber)
            if seat is not None:
                task.stream_closed(seat)

    async def SubscribeEvents(
        self, request: table_pb2.SubscribeEventsRequest, context: Context
    ) -> AsyncIterator[table_pb2.SubscribeEventsResponse | bytes]:
        """The stream's first events, then the fan-out's messages, serialized already."""
        async with self._subscribed(request.after_seq, context) as (_, backlog, subscriber):
            for event in backlog:
                yield table_pb2.SubscribeEventsResponse(event=event)
            async for message in _queued(subscriber):
                yield message

    async def Seat(
        self, requests: AsyncIterator[table_pb2.SeatRequest], context: Context
    ) -> AsyncIterator[table_pb2.SeatResponse | bytes]:
        """The seat's stream, its moves answered by this service's own handlers."""
        async for message in self.seat_stream(requests, context, self):
            yield message

    async def seat_stream(
        self,
        requests: AsyncIterator[table_pb2.SeatRequest],
        context: Context,
        moves: table_pb2_grpc.TableServiceServicer,
    ) -> AsyncIterator[table_pb2.SeatResponse | bytes]:
        """The seat's stream: its first message subscribes, every later one is a move handed
        to ``moves``' unary handler of its kind (the conformance check's scripted service
        passes itself), read by a task of its own so that events flow while a move waits.

        The interceptor checked the token once, when the stream opened; each move counts
        against the address's and the seat's request limits like a call of its own, and a
        move refused by them is answered, not the stream ended. A message that is not a
        SeatRequest ends the stream with INVALID_ARGUMENT; the seat closing its side ends it
        once every move it sent is answered.
        """
        first = await anext(aiter(requests), None)
        if first is None:
            return
        if first.WhichOneof("request") != "subscribe":
            raise malformed("the seat's stream opens with `subscribe`, then its moves")
        async with self._subscribed(first.subscribe.after_seq, context) as opened:
            task, backlog, subscriber = opened
            for event in backlog:
                yield table_pb2.SeatResponse(event=event)
            failed: list[BaseException] = []
            reader = asyncio.create_task(
                self._seat_moves(requests, context, moves, task, subscriber, failed)
            )
            try:
                async for message in _queued(subscriber):
                    yield message
                if failed:
                    raise failed[0]
            finally:
                reader.cancel()

    async def _seat_moves(
        self,
        requests: AsyncIterator[table_pb2.SeatRequest],
        context: Context,
        moves: table_pb2_grpc.TableServiceServicer,
        task: TableTask,
        subscriber: Subscriber,
        failed: list[BaseException],
    ) -> None:
        """Answer each move of the stream in turn, queued behind the events its job published
        (they are queued before the job's answer is given); a failure ends the stream."""
        peer = context.peer()
        lang = auth.metadata_value(context.invocation_metadata(), "accept-language")
        try:
            async for request in requests:
                kind = request.WhichOneof("request")
                message = table_pb2.SeatResponse()
                answer = message.answer  # built in place: no copy of it into the message
                answer.SetInParent()
                try:
                    if kind is None or kind not in SEAT_MOVES:
                        raise malformed(
                            "a message of the seat's stream after its first is one move "
                            "(`subscribe` only opens it)"
                        )
                    move = getattr(request, kind)
                    answer.request_id = move.context.request_id
                    self._limits.request(peer)
                    self._limits.seat_request(task.table_id, subscriber.seat)
                    response = await getattr(moves, SEAT_MOVES[kind])(move, context)
                    getattr(answer, kind).CopyFrom(response)
                except Refusal as refusal:
                    answer.refused.CopyFrom(refusal.rpc_status(lang))
                task.fanout.send(subscriber, message.SerializeToString())
            task.fanout.finish(subscriber)  # the seat closed its side: the stream ends
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # an undecodable message, say: the stream ends with it
            failed.append(error)
            task.fanout.end(subscriber)

    async def GetView(
        self, request: table_pb2.GetViewRequest, context: Context
    ) -> table_pb2.GetViewResponse:
        task, seat = self._caller()
        return await task.call(
            lambda _: table_pb2.GetViewResponse(view=task.view(seat), seq=task.fanout.last_seq)
        )

    async def Draw(
        self, request: table_pb2.DrawRequest, context: Context
    ) -> table_pb2.DrawResponse:
        return await self._as_seat(Table.draw, request)

    async def Play(
        self, request: table_pb2.PlayRequest, context: Context
    ) -> table_pb2.PlayResponse:
        return await self._as_seat(Table.play, request)

    async def ReturnDiscard(
        self, request: table_pb2.ReturnDiscardRequest, context: Context
    ) -> table_pb2.ReturnDiscardResponse:
        return await self._as_seat(Table.return_discard, request)

    async def CommitSeed(
        self, request: table_pb2.CommitSeedRequest, context: Context
    ) -> table_pb2.CommitSeedResponse:
        return await self._as_seat(Table.commit_seed, request)

    async def RevealSeed(
        self, request: table_pb2.RevealSeedRequest, context: Context
    ) -> table_pb2.RevealSeedResponse:
        return await self._as_seat(Table.reveal_seed, request)

    async def AnswerRientro(
        self, request: table_pb2.AnswerRientroRequest, context: Context
    ) -> table_pb2.AnswerRientroResponse:
        task, seat = self._seat()
        return await task.call(
            lambda table: table.answer_rientro(_acting(table, seat), request.buy_back, request)
        )

    async def SendChat(
        self, request: table_pb2.SendChatRequest, context: Context
    ) -> table_pb2.SendChatResponse:
        task, seat = self._seat()
        self._limits.chat_line(task.table_id, seat)
        return await task.call(lambda table: table.chat(seat, request))

    async def DecideAbsence(
        self, request: table_pb2.DecideAbsenceRequest, context: Context
    ) -> table_pb2.DecideAbsenceResponse:
        task, seat = self._seat()
        if request.choice == table_pb2.ABSENCE_CHOICE_FREE_SEAT:
            self._limits.seat_change(task.table_id, context.peer())
        return await task.call(
            lambda table: task.decide_absence(table, _acting(table, seat), request)
        )

    async def Ready(
        self, request: table_pb2.ReadyRequest, context: Context
    ) -> table_pb2.ReadyResponse:
        return await self._as_seat(Table.ready, request)

    async def Rematch(
        self, request: table_pb2.RematchRequest, context: Context
    ) -> table_pb2.RematchResponse:
        return await self._as_seat(Table.rematch, request)

    async def SendPrivate(
        self, request: table_pb2.SendPrivateRequest, context: Context
    ) -> table_pb2.SendPrivateResponse:
        """A private-table message. A shuffle is taken and relayed before its proof is checked
        (``host.table.shuffle_checks``), so no table waits on that check."""
        task, seat = self._seat()
        return await task.call(lambda table: table.send_private(_acting(table, seat), request))

    async def HandToStandIn(
        self, request: table_pb2.HandToStandInRequest, context: Context
    ) -> table_pb2.HandToStandInResponse:
        """The caller's own seat, with its keys, to a host bot (``host.table.stand_in``)."""
        task, seat = self._seat()
        folder = bot_folder(task.journal.path, seat)
        return await task.call(lambda table: stand_in.hand_over(table, folder, seat, request))

    async def GetDealRecord(
        self, request: table_pb2.GetDealRecordRequest, context: Context
    ) -> table_pb2.GetDealRecordResponse:
        task, seat = self._caller()
        record = await task.call(lambda table: table.deal_record(seat, request.deal_no))
        return table_pb2.GetDealRecordResponse(record=record)


def _acting(table: Table, seat: int) -> int:
    """The seat whose own token acts on ``table``: refused once a stand-in plays the seat
    (its player handed it over with its keys)."""
    stand_in.refuse_if_stood_in(table, seat)
    return seat


async def _queued(subscriber: Subscriber) -> AsyncIterator[bytes]:
    """A stream's messages as its queue hands them over, until it ends (None) or, having
    fallen behind, has sent every event it held."""
    while True:
        if subscriber.dropped and subscriber.queue.empty():
            raise Refusal(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "FELL_BEHIND",
                f"this stream fell behind the table; subscribe again with after_seq "
                f"{subscriber.last_queued_seq}",
                last_seq=str(subscriber.last_queued_seq),
            )
        message = await subscriber.queue.get()
        if message is None:  # the host is shutting down, or the stream was ended
            return
        yield message
