"""A seat's link to its table, written once: requests sent again unchanged, one refusal type
over gRPC and inside the host, the stream's policies, the fair-deal steps kept until answered."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from host.table.bots import InHostTable
from scala40_net.fairdeal.exchange import SeatExchange
from scala40_net.fairdeal.spec import cutter_seat
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2
from scala40_net.seat.fairdeal import FairDealSteps
from scala40_net.seat.link import RETRIES, GrpcTable, SeatLink, bearer
from scala40_net.seat.refusal import HostRefusal
from scala40_net.seat.stream import (
    ResumableStream,
    gives_up_if_seat_refused,
    gives_up_unless_reconnecting,
)
from tests.conftest import HostClient

NOT_SAVED = HostRefusal(grpc.StatusCode.UNAVAILABLE, "the table could not save it", "", "NOT_SAVED")


class RefusingTable:
    """A table that refuses each request ``refusals`` times with ``refusal``, then takes it:
    it keeps every request it was sent, in order."""

    def __init__(self, refusals: int, refusal: HostRefusal = NOT_SAVED) -> None:
        self.refusals = refusals
        self.refusal = refusal
        self.sent: list[Any] = []

    async def _take(self, request: Any, answer: Any) -> Any:
        self.sent.append(request)
        if len(self.sent) <= self.refusals:
            raise self.refusal
        return answer

    async def draw(self, request: table_pb2.DrawRequest) -> table_pb2.DrawResponse:
        return await self._take(request, table_pb2.DrawResponse())

    async def commit_seed(
        self, request: table_pb2.CommitSeedRequest, kept: tuple[bytes, int] | None = None
    ) -> table_pb2.CommitSeedResponse:
        return await self._take(request, table_pb2.CommitSeedResponse())


async def test_a_move_the_host_could_not_save_is_sent_again_with_the_same_request_id() -> None:
    table = RefusingTable(refusals=2)
    link = SeatLink(table, lambda: 7)  # type: ignore[arg-type]
    await link.draw(deal_pb2.DRAW_SOURCE_STOCK)
    assert len(table.sent) == 3
    assert len({r.SerializeToString() for r in table.sent}) == 1  # the same request, id and all
    assert table.sent[0].context.last_seen_seq == 7 and table.sent[0].context.request_id


async def test_a_host_that_never_saves_it_gets_the_refusal_after_the_retries() -> None:
    table = RefusingTable(refusals=RETRIES + 5)
    link = SeatLink(table, lambda: 0)  # type: ignore[arg-type]
    with pytest.raises(HostRefusal) as refused:
        await link.draw(deal_pb2.DRAW_SOURCE_STOCK)
    assert refused.value.reason == "NOT_SAVED" and refused.value.transient
    assert len(table.sent) == RETRIES + 1


async def test_a_refusal_by_a_rule_is_the_answer_at_once() -> None:
    rule = HostRefusal(grpc.StatusCode.FAILED_PRECONDITION, "not your turn", "R2.4", "NOT_TURN")
    table = RefusingTable(refusals=1, refusal=rule)
    link = SeatLink(table, lambda: 0)  # type: ignore[arg-type]
    with pytest.raises(HostRefusal) as refused:
        await link.draw(deal_pb2.DRAW_SOURCE_STOCK)
    assert refused.value.broke_rule and refused.value.message == "R2.4: not your turn"
    assert len(table.sent) == 1


async def test_a_step_lost_with_the_connection_is_sent_again_while_its_step_is_open() -> None:
    lost = HostRefusal(grpc.StatusCode.UNAVAILABLE, "connection dropped")
    table = RefusingTable(refusals=RETRIES + 1, refusal=lost)
    steps = FairDealSteps(SeatLink(table, lambda: 3))  # type: ignore[arg-type]
    steps.exchanges[1] = _committed_exchange()
    refusal = await steps.send_commitment(1)
    assert refusal is not None and refusal.transient
    assert list(steps.unanswered) == [("commit", 1)]  # kept for after the reconnect
    # Back while the commitments are open: the same request again, and then it is answered.
    commit_open = table_pb2.TableView(deal_no=1, phase=table_pb2.TURN_PHASE_COMMIT)
    assert await steps.send_unanswered(commit_open) == []
    assert table.sent[-1].SerializeToString() == table.sent[0].SerializeToString()
    assert not steps.unanswered


async def test_a_step_lost_with_the_connection_is_dropped_once_its_step_is_over() -> None:
    lost = HostRefusal(grpc.StatusCode.UNAVAILABLE, "connection dropped")
    table = RefusingTable(refusals=RETRIES + 1, refusal=lost)
    steps = FairDealSteps(SeatLink(table, lambda: 3))  # type: ignore[arg-type]
    steps.exchanges[1] = _committed_exchange()
    await steps.send_commitment(1)
    tried = len(table.sent)
    reveal_open = table_pb2.TableView(deal_no=1, phase=table_pb2.TURN_PHASE_REVEAL)
    assert await steps.send_unanswered(reveal_open) == []
    assert len(table.sent) == tried and not steps.unanswered  # too late: not sent


def _committed_exchange() -> SeatExchange:
    """Seat 0's exchange of deal 1, its commitment made (two seats)."""
    announced = deal_pb2.DealEvent(deal_no=1)
    announced.announced.seats_in_play.extend([0, 1])
    announced.announced.host_commitment = bytes(32)
    announced.announced.deck_size = 108
    announced.announced.cutter_seat = cutter_seat(0, [0, 1])
    mine = SeatExchange(0)
    mine.on_announced(announced)
    mine.commit()
    return mine


def test_the_screen_waits_out_what_the_bot_takes_as_final() -> None:
    def refusal(code: grpc.StatusCode) -> HostRefusal:
        return HostRefusal(code, code.name)

    for code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
        assert gives_up_if_seat_refused(refusal(code))
        assert gives_up_unless_reconnecting(refusal(code))
    for code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED):
        assert not gives_up_if_seat_refused(refusal(code))
        assert not gives_up_unless_reconnecting(refusal(code))
    assert not gives_up_if_seat_refused(refusal(grpc.StatusCode.NOT_FOUND))
    assert gives_up_unless_reconnecting(refusal(grpc.StatusCode.NOT_FOUND))


async def test_a_stream_with_a_token_the_host_does_not_know_is_refused_not_reopened(
    served: HostClient,
) -> None:
    table_id = await served.new_table(seats=2)
    await served.join(table_id)
    for gives_up in (gives_up_if_seat_refused, gives_up_unless_reconnecting):
        stream = ResumableStream(GrpcTable(served.channel, "not-a-token"), lambda: 0)
        stream.gives_up = gives_up

        async def never(message: table_pb2.SubscribeEventsResponse, at: float) -> bool:
            raise AssertionError("a refused stream delivered an event")

        with pytest.raises(HostRefusal) as refused:
            await asyncio.wait_for(stream.follow(never), 30)
        assert refused.value.code is grpc.StatusCode.UNAUTHENTICATED


async def test_inside_the_host_and_over_grpc_a_seat_is_refused_alike(served: HostClient) -> None:
    """The same move, out of turn, through both transports: the same HostRefusal, and the
    table unchanged."""
    table_id = await served.new_table(seats=2)
    ann = await served.join(table_id, "ann")
    bea = await served.join(table_id, "bea")
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=bearer(ann.seat_token)
    )
    task = served.host.registry.get(table_id)
    over_grpc = GrpcTable(served.channel, bea.seat_token)

    async def dealt() -> table_pb2.GetViewResponse:
        for _ in range(500):
            answer = await over_grpc.view()
            if answer.view.phase in (table_pb2.TURN_PHASE_DRAW, table_pb2.TURN_PHASE_PLAY):
                return answer
            await asyncio.sleep(0.02)
        raise AssertionError("the deal did not start")

    before = await dealt()
    idle = 1 - before.view.turn_seat  # the seat whose turn it is not
    token = ann.seat_token if idle == ann.seat else bea.seat_token
    said = []
    for transport in (GrpcTable(served.channel, token), InHostTable(task, idle)):
        link = SeatLink(transport, lambda: before.seq)
        with pytest.raises(HostRefusal) as refused:
            await link.draw(deal_pb2.DRAW_SOURCE_STOCK)
        said.append((refused.value.code, refused.value.reason, refused.value.rule))
    assert said[0] == said[1] and said[0][0] is grpc.StatusCode.FAILED_PRECONDITION
    after = await over_grpc.view()
    assert after.seq == before.seq  # nothing was done
    # The reads alike too: the seat's view, and a deal's record that does not exist yet.
    remote, inside = GrpcTable(served.channel, token), InHostTable(task, idle)
    views = [await remote.view(), await inside.view()]
    for seen in views:
        seen.view.ClearField("turn_time_left_ms")  # the turn clock runs between the two reads
    assert views[0] == views[1]
    records = []
    for transport in (remote, inside):
        with pytest.raises(HostRefusal) as refused:
            await transport.deal_record(99)
        records.append((refused.value.code, refused.value.reason))
    assert records[0] == records[1]
