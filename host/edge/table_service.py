"""TableService: a seat's event stream and view, its turn, fair-deal messages, chat, records.

Handlers only authenticate (the interceptor did), translate and hand the
work to the table's task; the stream handler alone waits on its own bounded
queue, so a slow reader never holds up the table.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, TypeAlias, TypeVar

import grpc

from host.edge import auth
from host.edge.errors import Refusal
from host.edge.limits import Limits
from host.journal.registry import Registry
from host.table.table import Table
from host.table.task import TableTask
from scala40_net.pb import table_pb2, table_pb2_grpc

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
Request = TypeVar("Request")
Response = TypeVar("Response")


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
    name = table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, handlers),))
    server.add_registered_method_handlers(name, handlers)


def _serialized(message: table_pb2.SubscribeEventsResponse | bytes) -> bytes:
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
        """Hand ``move`` of the caller's seat, with its request, to the table's task."""
        task, seat = self._seat()
        return await task.call(lambda table: move(table, seat, request))

    async def SubscribeEvents(
        self, request: table_pb2.SubscribeEventsRequest, context: Context
    ) -> AsyncIterator[table_pb2.SubscribeEventsResponse | bytes]:
        """The stream's first events, then the fan-out's messages, serialized already."""
        task, seat = self._caller()
        peer = context.peer()
        self._limits.stream_opened(peer, task.table_id, seat)
        try:
            backlog, subscriber = await task.call(lambda _: task.subscribe(seat, request.after_seq))
        except BaseException:
            self._limits.stream_closed(peer, task.table_id, seat)
            raise
        if seat is not None:
            task.stream_opened(seat)
        try:
            for event in backlog:
                yield table_pb2.SubscribeEventsResponse(event=event)
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
                if message is None:  # the host is shutting down
                    return
                yield message
        finally:
            self._limits.stream_closed(peer, task.table_id, seat)
            task.fanout.unsubscribe(subscriber)
            if seat is not None:
                task.stream_closed(seat)

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
        return await task.call(lambda table: table.answer_rientro(seat, request.buy_back, request))

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
        return await task.call(lambda table: task.decide_absence(table, seat, request))

    async def Ready(
        self, request: table_pb2.ReadyRequest, context: Context
    ) -> table_pb2.ReadyResponse:
        return await self._as_seat(Table.ready, request)

    async def Rematch(
        self, request: table_pb2.RematchRequest, context: Context
    ) -> table_pb2.RematchResponse:
        return await self._as_seat(Table.rematch, request)

    async def GetDealRecord(
        self, request: table_pb2.GetDealRecordRequest, context: Context
    ) -> table_pb2.GetDealRecordResponse:
        task, seat = self._caller()
        record = await task.call(lambda table: table.deal_record(seat, request.deal_no))
        return table_pb2.GetDealRecordResponse(record=record)
