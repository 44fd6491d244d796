"""The seat's stream (TableService.Seat) over real gRPC with TLS on 127.0.0.1: a move's events
come before its answer, a refusal is the unary call's status carried as an answer and the
stream goes on, a resent request id is answered once, the limits count each move, the stream
opens with `subscribe` and only for a seat."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, bearer, start_host, until
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from test_host_limits import host_with

from host.edge.errors import error_info
from host.edge.limits import Limits
from host.edge.table_service import SEAT_MOVES, TableService
from host.table.fanout import Fanout
from host.table.state import TableSettings
from scala40_net.bots import make_bot
from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2
from scala40_net.seat.link import STREAM_MOVES, GrpcTable, SeatLink, resend
from scala40_net.seat.netbot import NetworkSeat
from scala40_net.seat.refusal import HostRefusal
from scala40_net.seat.stream import ResumableStream

# Nobody commits in these tests' deals: the seat is dealt in on the host's seeds alone.
QUICK = TableSettings(commit_timeout=0.3, reveal_timeout=0.3, between_deals=0.0)


@dataclass
class SeatStream:
    """One Seat call, its messages kept in the order they came."""

    call: grpc.aio.StreamStreamCall[table_pb2.SeatRequest, table_pb2.SeatResponse]
    got: list[table_pb2.SeatResponse] = field(default_factory=list)
    reader: asyncio.Task[None] | None = None
    ended: grpc.aio.AioRpcError | None = None
    done: bool = False

    async def read(self) -> None:
        try:
            async for message in self.call:
                self.got.append(message)
        except grpc.aio.AioRpcError as error:
            self.ended = error
        self.done = True

    async def send(self, **move: object) -> None:
        # The host may end the call before this write (a host going away): the call's end is
        # then read by ``read``. A write that fails leaves gRPC's own INTERNAL as that end, not
        # the host's code, so a test of a refused open writes nothing (see the stranger test).
        with contextlib.suppress(grpc.aio.AioRpcError):
            await self.call.write(table_pb2.SeatRequest(**move))  # type: ignore[arg-type]

    async def answer(self, request_id: str, seconds: float = 30.0) -> table_pb2.SeatAnswer:
        def found() -> table_pb2.SeatAnswer | None:
            for message in self.got:
                if message.HasField("answer") and message.answer.request_id == request_id:
                    return message.answer
            return None

        await until(lambda: found() is not None or self.done, seconds, lambda: str(self.ended))
        answer = found()
        assert answer is not None, f"no answer to {request_id}: {self.ended}"
        return answer

    def index_of_answer(self, request_id: str) -> int:
        return next(
            i
            for i, m in enumerate(self.got)
            if m.HasField("answer") and m.answer.request_id == request_id
        )

    def seqs_before(self, index: int) -> list[int]:
        return [m.event.seq for m in self.got[:index] if m.HasField("event")]


async def open_seat(
    served: HostClient, token: str, after_seq: int = 0, lang: str | None = None
) -> SeatStream:
    metadata = bearer(token) + ((("accept-language", lang),) if lang else ())
    stream = SeatStream(served.table.Seat(metadata=metadata))
    await stream.send(subscribe=table_pb2.SubscribeEventsRequest(after_seq=after_seq))
    stream.reader = asyncio.create_task(stream.read())
    return stream


def context(request_id: str, seq: int = 0) -> table_pb2.MoveContext:
    return table_pb2.MoveContext(request_id=request_id, last_seen_seq=seq)


async def ann_against_a_bot(served: HostClient) -> tuple[str, lobby_pb2.JoinTableResponse]:
    """A table of two: ann and a host bot, the match started."""
    table_id = await served.new_table(seats=2)
    ann = await served.join(table_id, "ann")
    metadata = bearer(ann.seat_token)
    await served.lobby.AddBot(lobby_pb2.AddBotRequest(table_id=table_id), metadata=metadata)
    await served.lobby.StartMatch(lobby_pb2.StartMatchRequest(table_id=table_id), metadata=metadata)
    return table_id, ann


async def anns_turn(served: HostClient, token: str) -> table_pb2.GetViewResponse:
    """The view once it is ann's turn to draw."""
    for _ in range(1500):
        seen = await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(token))
        if (
            seen.view.phase == table_pb2.TURN_PHASE_DRAW
            and seen.view.turn_seat == seen.view.my_seat
        ):
            return seen
        await asyncio.sleep(0.02)
    raise AssertionError("ann's turn did not come")


@pytest.fixture
async def quick(tmp_path: Path) -> AsyncIterator[HostClient]:
    client = await start_host(tmp_path / "host", QUICK)
    try:
        yield client
    finally:
        await client.channel.close()
        await client.host.stop(grace=0.5)


def test_every_move_of_the_stream_has_its_unary_call_and_its_answer() -> None:
    moves = table_pb2.SeatRequest.DESCRIPTOR.oneofs_by_name["request"].fields
    answers = table_pb2.SeatAnswer.DESCRIPTOR.oneofs_by_name["answer"].fields
    service = table_pb2.DESCRIPTOR.services_by_name["TableService"]
    assert {f.name for f in moves} == {"subscribe", *SEAT_MOVES}
    assert {f.name for f in answers} == {*SEAT_MOVES, "refused"}
    for move in moves:
        if move.name == "subscribe":
            continue
        method = service.methods_by_name[SEAT_MOVES[move.name]]
        assert method.input_type is move.message_type, move.name
        answer = table_pb2.SeatAnswer.DESCRIPTOR.fields_by_name[move.name]
        assert method.output_type is answer.message_type, move.name


def test_an_event_of_the_seats_stream_is_the_bytes_of_subscribe_events() -> None:
    event = table_pb2.TableEvent(seq=7, chat=table_pb2.ChatMessage(seat=1, name="bea", text="ciao"))
    assert (
        table_pb2.SeatResponse(event=event).SerializeToString()
        == table_pb2.SubscribeEventsResponse(event=event).SerializeToString()
    )


async def test_a_moves_events_come_on_the_stream_before_its_answer(quick: HostClient) -> None:
    _, ann = await ann_against_a_bot(quick)
    stream = await open_seat(quick, ann.seat_token)
    seen = await anns_turn(quick, ann.seat_token)
    draw = table_pb2.DrawRequest(
        context=context("draw-1", seen.seq), source=deal_pb2.DRAW_SOURCE_STOCK
    )
    await stream.send(draw=draw)
    drawn = await stream.answer("draw-1")
    assert drawn.WhichOneof("answer") == "draw", drawn
    assert drawn.draw.seq in stream.seqs_before(stream.index_of_answer("draw-1"))
    hand = (
        await quick.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(ann.seat_token))
    ).view.my_hand
    # The first card the rules let go (R8.2: not one a player who has not opened could
    # attach to a meld on the table); a refusal changes nothing, so the next is tried.
    for n, card in enumerate(reversed(hand)):
        request_id = f"play-{n}"
        play = table_pb2.PlayRequest(context=context(request_id, drawn.draw.seq), discard=card)
        await stream.send(play=play)
        played = await stream.answer(request_id)
        if played.WhichOneof("answer") != "refused":
            break
    assert played.WhichOneof("answer") == "play", played
    assert played.play.seq in stream.seqs_before(stream.index_of_answer(request_id))
    # Every event of the stream in order, none missed, none twice.
    seqs = [m.event.seq for m in stream.got if m.HasField("event")]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    stream.call.cancel()


async def test_a_refusal_on_the_stream_is_the_unary_calls_status_and_the_stream_goes_on(
    quick: HostClient,
) -> None:
    _, ann = await ann_against_a_bot(quick)
    stream = await open_seat(quick, ann.seat_token, lang="it")
    metadata = (*bearer(ann.seat_token), ("accept-language", "it"))
    # Play before drawing: refused by a rule (R3) both ways, in Italian, and nothing done.
    seen = await anns_turn(quick, ann.seat_token)
    play = table_pb2.PlayRequest(
        context=context("too-soon", seen.seq), discard=seen.view.my_hand[0]
    )
    with pytest.raises(grpc.aio.AioRpcError) as unary:
        await quick.table.Play(play, metadata=metadata)
    play.context.request_id = "too-soon-on-the-stream"
    await stream.send(play=play)
    answer = await stream.answer("too-soon-on-the-stream")
    assert answer.WhichOneof("answer") == "refused"
    said = rpc_status.from_call(unary.value)
    assert said is not None
    assert answer.refused == said
    assert answer.refused.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    info, localized = error_details_pb2.ErrorInfo(), error_details_pb2.LocalizedMessage()
    assert answer.refused.details[0].Unpack(info) and info.reason == error_info(unary.value).reason  # type: ignore[union-attr]
    assert answer.refused.details[1].Unpack(localized) and localized.locale == "it"
    # The stream goes on: the next move is answered, and the table took nothing of the refused.
    after = await quick.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(ann.seat_token))
    assert after.seq == seen.seq
    chat = table_pb2.SendChatRequest(text="ciao", context=context("chat-1"))
    await stream.send(send_chat=chat)
    chatted = await stream.answer("chat-1")
    assert chatted.WhichOneof("answer") == "send_chat"
    assert any(m.event.chat.text == "ciao" for m in stream.got if m.HasField("event"))
    assert not stream.done
    stream.call.cancel()


async def test_a_request_id_sent_again_on_the_stream_is_answered_alike_and_applied_once(
    quick: HostClient,
) -> None:
    _, ann = await ann_against_a_bot(quick)
    stream = await open_seat(quick, ann.seat_token)
    seen = await anns_turn(quick, ann.seat_token)
    draw = table_pb2.DrawRequest(
        context=context("again", seen.seq), source=deal_pb2.DRAW_SOURCE_STOCK
    )
    await stream.send(draw=draw)
    first = await stream.answer("again")
    stream.got.clear()
    await stream.send(draw=draw)  # a resend after a lost answer: the same id, unchanged
    second = await stream.answer("again")
    assert second == first
    # A second stream, as after a reconnect, gets the same answer for it too.
    other = await open_seat(quick, ann.seat_token, after_seq=first.draw.seq)
    await other.send(draw=draw)
    assert await other.answer("again") == first
    view = await quick.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(ann.seat_token))
    assert view.seq == first.draw.seq and view.view.phase == table_pb2.TURN_PHASE_PLAY
    for opened in (stream, other):
        opened.call.cancel()


async def test_the_stream_opens_with_subscribe(served: HostClient) -> None:
    table_id = await served.new_table(seats=2)
    ann = await served.join(table_id, "ann")
    call = served.table.Seat(metadata=bearer(ann.seat_token))
    await call.write(table_pb2.SeatRequest(ready=table_pb2.ReadyRequest(context=context("r"))))
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await asyncio.wait_for(call.read(), 30)
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(refused.value).reason == "MALFORMED_REQUEST"  # type: ignore[union-attr]
    # A second `subscribe` on an open stream is answered as a malformed move; the stream goes on.
    stream = await open_seat(served, ann.seat_token)
    await stream.send(subscribe=table_pb2.SubscribeEventsRequest())
    await stream.send(send_chat=table_pb2.SendChatRequest(text="ciao", context=context("c")))
    await stream.answer("c")
    malformed = [m.answer for m in stream.got if m.HasField("answer") and not m.answer.request_id]
    assert (
        len(malformed) == 1
        and malformed[0].refused.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    )
    stream.call.cancel()


async def test_a_spectator_or_a_stranger_cannot_open_a_seats_stream(served: HostClient) -> None:
    table_id = await served.new_table(seats=2)
    await served.join(table_id, "ann")
    watcher = await served.lobby.SpectateTable(lobby_pb2.SpectateTableRequest(table_id=table_id))
    for token, code in (
        (watcher.spectator_token, grpc.StatusCode.PERMISSION_DENIED),
        ("not-a-token", grpc.StatusCode.UNAUTHENTICATED),
    ):
        # Nothing is written: the host refuses on the call's metadata alone, and a write that
        # races that end would leave the call with gRPC's own INTERNAL instead of the host's code.
        stream = SeatStream(served.table.Seat(metadata=bearer(token)))
        await stream.read()
        assert stream.ended is not None and stream.ended.code() is code
        assert not stream.got


async def test_closing_its_side_ends_the_stream_once_its_moves_are_answered(
    served: HostClient,
) -> None:
    table_id = await served.new_table(seats=2)
    ann = await served.join(table_id, "ann")
    stream = await open_seat(served, ann.seat_token)
    await stream.send(send_chat=table_pb2.SendChatRequest(text="a dopo", context=context("bye")))
    await stream.call.done_writing()
    await until(lambda: stream.done)
    assert stream.ended is None  # OK
    assert stream.got[-1].answer.request_id == "bye"
    assert stream.got[-1].answer.WhichOneof("answer") == "send_chat"


async def test_the_limits_count_each_move_of_the_stream_and_answer_it(tmp_path: Path) -> None:
    """The token is checked once, when the stream opens; every move counts against the seat's
    request limit, and one past it is answered RESOURCE_EXHAUSTED, the stream going on."""
    async with host_with(tmp_path, Limits(seat_requests_per_second=5)) as served:
        table_id = await served.new_table(seats=2)
        ann = await served.join(table_id, "ann")
        stream = await open_seat(served, ann.seat_token)
        ids = [f"ready-{n}" for n in range(30)]
        for request_id in ids:
            await stream.send(ready=table_pb2.ReadyRequest(context=context(request_id)))
        answers = [await stream.answer(request_id) for request_id in ids]
        codes = [a.refused.code for a in answers]
        limited = [a for a in answers if _reason(a) == "TOO_MANY_REQUESTS"]
        assert limited and len(limited) < len(ids), codes
        assert limited[0].refused.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        assert not stream.done
        stream.call.cancel()


def _reason(answer: table_pb2.SeatAnswer) -> str:
    for detail in answer.refused.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return ""


async def test_answers_count_in_the_streams_bound_and_a_full_queue_drops_the_stream() -> None:
    fanout = Fanout(keep=100, queue_size=2)
    _, subscriber = fanout.subscribe(0, 0, table_pb2.TableEvent)
    assert fanout.send(subscriber, b"answer 1") and fanout.send(subscriber, b"answer 2")
    assert not fanout.send(subscriber, b"answer 3")  # full: the stream is dropped
    assert subscriber.dropped and fanout.subscriber_count() == 0
    assert not fanout.send(subscriber, b"answer 4")  # and takes nothing more
    assert subscriber.queue.qsize() == 2


class CountingStub:
    """A TableService stub that notes each unary move asked of it, and is otherwise itself."""

    def __init__(self, inner: object) -> None:
        self._inner = inner
        self.unary: list[str] = []

    def __getattr__(self, name: str) -> object:
        if name in STREAM_MOVES:
            self.unary.append(name)
        return getattr(self._inner, name)


async def test_scala40_bot_plays_a_deal_with_every_move_on_its_stream(served: HostClient) -> None:
    """The network bot's draws, plays and fair-deal steps go on the seat's stream, none as a
    unary call, and its match is played out as before."""
    options = ruleset_pb2.RulesetOptions(match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1)
    request = lobby_pb2.CreateTableRequest(
        name="bots", seats=2, ruleset=ruleset_pb2.Ruleset(options=options)
    )
    table_id = (await served.lobby.CreateTable(request)).table_id
    seat = NetworkSeat(served.channel, table_id, make_bot("medium", random.Random(3)))
    counting = CountingStub(seat.tables)
    seat.tables = counting  # type: ignore[assignment]
    me = await seat.join("net bot")
    add = lobby_pb2.AddBotRequest(table_id=table_id, level=lobby_pb2.BOT_LEVEL_MEDIUM)
    await served.lobby.AddBot(add, metadata=seat.metadata)
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=seat.metadata
    )
    winners = await asyncio.wait_for(seat.play_match(), timeout=120)
    assert winners and set(winners) <= {me, 1 - me}
    assert counting.unary == [], counting.unary
    journal = served.host.registry.get(table_id).journal
    kinds = {entry.kind for entry in journal.entries() if entry.seat == me}
    assert {"draw", "play", "commit", "reveal"} <= kinds, kinds


async def test_a_move_whose_stream_ends_is_sent_again_with_its_request_id_and_applied_once(
    quick: HostClient,
) -> None:
    _, ann = await ann_against_a_bot(quick)
    table = GrpcTable(quick.channel, ann.seat_token)
    seen = await anns_turn(quick, ann.seat_token)
    stream = table.subscribe(seen.seq)
    await stream.initial_metadata()
    link = SeatLink(table, lambda: seen.seq)
    request = link.draw_request(deal_pb2.DRAW_SOURCE_STOCK)
    tried: list[HostRefusal] = []

    async def send() -> table_pb2.DrawResponse:
        if not tried:  # the first try: on the stream, which ends before its answer is read
            answer = asyncio.ensure_future(table.draw(request))
            await asyncio.sleep(0)
            stream.cancel()
            return await answer
        return await table.draw(request)  # no stream open now: the unary call

    drawn = await resend(send, on_retry=tried.append)
    assert len(tried) == 1 and tried[0].transient
    view = await quick.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(ann.seat_token))
    assert view.seq == drawn.seq and view.view.phase == table_pb2.TURN_PHASE_PLAY
    journal = quick.host.registry.get(view.view.table.table_id).journal
    assert [e.request_id for e in journal.entries() if e.kind == "draw" and e.seat == ann.seat] == [
        request.context.request_id
    ]


async def test_a_host_without_the_seats_stream_is_followed_and_moved_on_the_old_way(
    quick: HostClient,
) -> None:
    """A host from before TableService.Seat answers it UNIMPLEMENTED: the seat follows
    SubscribeEvents instead and sends its moves as unary calls."""
    _, ann = await ann_against_a_bot(quick)
    table = GrpcTable(quick.channel, ann.seat_token)
    old_host = quick.channel.stream_stream(
        "/scala40.v1.TableService/NotServedHere",
        request_serializer=table_pb2.SeatRequest.SerializeToString,
        response_deserializer=table_pb2.SeatResponse.FromString,
    )
    table.stub.Seat = old_host  # type: ignore[method-assign]
    stream = table.subscribe(0)
    await stream.initial_metadata()
    first = await asyncio.wait_for(anext(aiter(stream)), 30)
    assert first.event.HasField("snapshot")
    assert not table.seat_stream and table.streamed is None
    seen = await anns_turn(quick, ann.seat_token)
    drawn = await SeatLink(table, lambda: seen.seq).draw(deal_pb2.DRAW_SOURCE_STOCK)
    assert drawn.seq == seen.seq + 1
    stream.cancel()


@pytest.mark.parametrize("seat_stream", [True, False], ids=["seat-stream", "subscribe-events"])
async def test_a_stream_is_told_open_only_once_the_host_follows_it(
    quick: HostClient, monkeypatch: pytest.MonkeyPatch, seat_stream: bool
) -> None:
    """A seat that acts once its stream is open (the screen starts the match then) must hear
    what it did as an event after the stream's snapshot, never folded into the snapshot: the
    stream is open when the host has registered it and sent its headers, not when this side
    has sent its own (gRPC's ``wait_for_connection``). The host here takes half a second to
    register a stream, as a loaded one may."""
    registering = TableService._subscribed

    @contextlib.asynccontextmanager
    async def slowly(
        self: TableService, after_seq: int, context: grpc.aio.ServicerContext[object, object]
    ) -> AsyncIterator[object]:
        await asyncio.sleep(0.5)
        async with registering(self, after_seq, context) as opened:
            yield opened

    monkeypatch.setattr(TableService, "_subscribed", slowly)
    table_id = await quick.new_table(seats=2)
    ann = await quick.join(table_id, "ann")
    await quick.lobby.AddBot(
        lobby_pb2.AddBotRequest(table_id=table_id), metadata=bearer(ann.seat_token)
    )
    table = GrpcTable(quick.channel, ann.seat_token)
    table.seat_stream = seat_stream
    got: list[table_pb2.TableEvent] = []
    starting: list[asyncio.Task[object]] = []

    def on_link(connected: bool, attempt: int) -> None:
        if connected and not starting:
            request = lobby_pb2.StartMatchRequest(table_id=table_id)
            started = quick.lobby.StartMatch(request, metadata=bearer(ann.seat_token))
            starting.append(asyncio.ensure_future(started))

    async def on_event(message: table_pb2.SubscribeEventsResponse, _: float) -> bool:
        got.append(message.event)
        folded = got[0].snapshot.table.phase != lobby_pb2.TABLE_PHASE_WAITING
        return folded or message.event.HasField("match_started")

    stream = ResumableStream(table, lambda: got[-1].seq if got else 0)
    await asyncio.wait_for(stream.follow(on_event, on_link=on_link), 30)
    await starting[0]
    assert got[0].HasField("snapshot")
    assert got[0].snapshot.table.phase == lobby_pb2.TABLE_PHASE_WAITING
    assert got[-1].HasField("match_started")


async def test_a_move_cancelled_as_its_answer_comes_is_cancelled_not_answered(
    quick: HostClient,
) -> None:
    """A seat's task cancelled in the very turn of the loop its move's answer comes in stops:
    Python 3.11's ``asyncio.wait_for`` returned the answer then and dropped the cancel, and a
    seat told to stop played on (a dropped stream's seat kept moving for minutes)."""
    _, ann = await ann_against_a_bot(quick)
    table = GrpcTable(quick.channel, ann.seat_token)
    stream = table.subscribe(0)
    await stream.initial_metadata()
    request = table_pb2.ReadyRequest(context=table_pb2.MoveContext(request_id="the-move"))
    move = asyncio.ensure_future(stream.ask("ready", "the-move", request))
    await until(lambda: "the-move" in stream._waiting)
    answer = table_pb2.SeatAnswer(request_id="the-move", ready=table_pb2.ReadyResponse())
    stream._waiting["the-move"].set_result(answer)  # the answer read off the stream ...
    move.cancel()  # ... as the seat is told to stop
    with pytest.raises(asyncio.CancelledError):
        await move
    stream.cancel()


async def test_a_move_refused_for_the_request_limit_is_sent_again_after_a_pause(
    tmp_path: Path,
) -> None:
    """TOO_MANY_REQUESTS says "slow down" (PROTOCOL.md, the limits): a seat's move refused
    for it is sent again after a pause, with its request id, and answered; the player or the
    bot never sees the refusal. Two seats of one address playing flat out on a fast host
    reached the limit, and the network bot gave up its match on it."""
    async with host_with(tmp_path, Limits(seat_requests_per_second=5)) as served:
        table_id = await served.new_table(seats=2)
        ann = await served.join(table_id, "ann")
        table = GrpcTable(served.channel, ann.seat_token)
        stream = table.subscribe(0)

        async def drain() -> None:
            async for _ in stream:
                pass

        reader = asyncio.create_task(drain())
        await until(lambda: table.streamed is not None and table.streamed.open)
        retried: list[HostRefusal] = []
        for n in range(18):  # under the chat's own limit, past the seat's burst of 10
            request = table_pb2.SendChatRequest(text=f"line {n}", context=context(f"chat-{n}"))
            await resend(
                lambda line=request: table.request("SendChat", line), on_retry=retried.append
            )
        assert retried and {(r.code, r.reason) for r in retried} == {
            (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_REQUESTS")
        }
        journal = served.host.registry.get(table_id).journal
        said = [table_pb2.SendChatRequest.FromString(e.request).text
                for e in journal.entries() if e.kind == "chat"]  # fmt: skip
        assert said == [f"line {n}" for n in range(18)]  # each once, in order
        stream.cancel()
        await asyncio.gather(reader, return_exceptions=True)
