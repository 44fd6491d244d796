"""TableService: a seat's event stream and view, its turn, fair-deal messages, chat, records.

Handlers only authenticate (the interceptor did), translate and hand the
work to the table's task; the stream handler alone waits on its own bounded
queue, so a slow reader never holds up the table.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, TypeAlias, TypeVar

import grpc

from host import auth
from host.errors import Refusal
from host.registry import Registry
from host.table import Table
from scala40_net.pb import table_pb2, table_pb2_grpc

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
Request = TypeVar("Request")
Response = TypeVar("Response")


class TableService(table_pb2_grpc.TableServiceServicer):
    def __init__(self, registry: Registry) -> None:
        self._registry = registry

    def _caller(self) -> tuple[Table, int | None]:
        principal = auth.current_principal()
        return self._registry.get(principal.table_id), principal.seat

    def _seat(self) -> tuple[Table, int]:
        table, seat = self._caller()
        assert seat is not None  # the interceptor lets only seat tokens in
        return table, seat

    async def _as_seat(
        self, move: Callable[[Table, int, Request], Response], request: Request
    ) -> Response:
        """Hand ``move`` of the caller's seat, with its request, to the table's task."""
        table, seat = self._seat()
        return await table.call(lambda: move(table, seat, request))

    async def SubscribeEvents(
        self, request: table_pb2.SubscribeEventsRequest, context: Context
    ) -> AsyncIterator[table_pb2.SubscribeEventsResponse]:
        table, seat = self._caller()
        backlog, subscriber = await table.call(lambda: table.subscribe(seat, request.after_seq))
        if seat is not None:
            table.call_soon(lambda: table.connection_changed(seat))
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
                next_event = await subscriber.queue.get()
                if next_event is None:  # the host is shutting down
                    return
                yield table_pb2.SubscribeEventsResponse(event=next_event)
        finally:
            table.fanout.unsubscribe(subscriber)
            if seat is not None:
                table.call_soon(lambda: table.connection_changed(seat))

    async def GetView(
        self, request: table_pb2.GetViewRequest, context: Context
    ) -> table_pb2.GetViewResponse:
        table, seat = self._caller()
        return await table.call(
            lambda: table_pb2.GetViewResponse(view=table.view(seat), seq=table.fanout.last_seq)
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
        table, seat = self._seat()
        return await table.call(lambda: table.answer_rientro(seat, request.buy_back, request))

    async def SendChat(
        self, request: table_pb2.SendChatRequest, context: Context
    ) -> table_pb2.SendChatResponse:
        return await self._as_seat(Table.chat, request)

    async def Ready(
        self, request: table_pb2.ReadyRequest, context: Context
    ) -> table_pb2.ReadyResponse:
        return await self._as_seat(Table.ready, request)

    async def GetDealRecord(
        self, request: table_pb2.GetDealRecordRequest, context: Context
    ) -> table_pb2.GetDealRecordResponse:
        table, seat = self._caller()
        record = await table.call(lambda: table.deal_record(seat, request.deal_no))
        return table_pb2.GetDealRecordResponse(record=record)
