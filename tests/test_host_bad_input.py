"""Bad input over gRPC: the right code, reason and sentence for each, and the table unchanged."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import grpc
import pytest
from conftest import HostClient, bearer

from host.edge.errors import DOMAIN, error_info
from scala40_net import melds
from scala40_net.fairdeal.exchange import SeatExchange
from scala40_net.pb import cards_pb2, deal_pb2, lobby_pb2, table_pb2

ALREADY_EXISTS = grpc.StatusCode.ALREADY_EXISTS
PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION


@dataclass
class Dealt:
    """A two-seat table whose first deal has been dealt; ``mover`` is the seat to play."""

    served: HostClient
    table_id: str
    tokens: dict[int, str]
    mover: int

    @property
    def other(self) -> int:
        return 1 - self.mover

    async def snapshot_all(self) -> list[bytes]:
        """Every seat's view, less the turn clock's countdown (time passes, nothing else)."""
        views = [await view(self.served, t) for t in self.tokens.values()]
        for one in views:
            one.view.ClearField("turn_time_left_ms")
        return [one.SerializeToString() for one in views]

    async def refused(
        self,
        call: Callable[[], Awaitable[object]],
        code: grpc.StatusCode,
        reason: str,
        rule: str | None = None,
    ) -> str:
        """Make the call, check it is refused as said and that no seat's view changed; the
        sentence."""
        before = await self.snapshot_all()
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call()
        error = caught.value
        assert error.code() == code, error.details()
        info = error_info(error)
        if code != grpc.StatusCode.RESOURCE_EXHAUSTED or reason != "":
            assert info is not None and info.domain == DOMAIN and info.reason == reason, (
                error.details()
            )
            assert info.metadata["sentence"]
            if rule is not None:
                assert info.metadata["rule"] == rule
                assert error.details().startswith(f"{rule}: ")
        assert await self.snapshot_all() == before
        return error.details() or ""


async def view(served: HostClient, token: str) -> table_pb2.GetViewResponse:
    response: table_pb2.GetViewResponse = await served.table.GetView(
        table_pb2.GetViewRequest(), metadata=bearer(token)
    )
    return response


async def start_two_seats(served: HostClient) -> tuple[str, dict[int, str]]:
    """Two people join a two-seat table and the first starts the match; its seat tokens."""
    table_id = await served.new_table(seats=2)
    tokens = {}
    for name in ("ann", "bob"):
        joined = await served.join(table_id, name)
        tokens[joined.seat] = joined.seat_token
    start = lobby_pb2.StartMatchRequest(table_id=table_id)
    await served.lobby.StartMatch(start, metadata=bearer(tokens[0]))
    return table_id, tokens


async def commit_seed(
    served: HostClient, seat: int, token: str
) -> tuple[SeatExchange, table_pb2.CommitSeedRequest]:
    """The seat reads deal 1's announcement and sends its commitment, like any client."""
    announced = deal_pb2.DealEvent.FromString((await view(served, token)).view.deal_events[0])
    exchange = SeatExchange(seat)
    exchange.on_announced(announced)
    commit = table_pb2.CommitSeedRequest(
        context=context(0), deal_no=1, commitment=exchange.commit()
    )
    await served.table.CommitSeed(commit, metadata=bearer(token))
    return exchange, commit


async def reveal_seed(served: HostClient, exchange: SeatExchange, token: str) -> None:
    """The seat reads the published commitments and reveals its seed and cut."""
    published = deal_pb2.DealEvent.FromString((await view(served, token)).view.deal_events[1])
    exchange.on_commitments(published)
    reveal = exchange.reveal()
    request = table_pb2.RevealSeedRequest(
        context=context(0), deal_no=1, seed=reveal.seed, cut=reveal.cut
    )
    await served.table.RevealSeed(request, metadata=bearer(token))


async def deal_two_seats(served: HostClient) -> Dealt:
    """Two people join, start, and run the fair-deal exchange over gRPC like any client."""
    table_id, tokens = await start_two_seats(served)
    exchanges = {}
    for seat, token in tokens.items():
        exchanges[seat], _ = await commit_seed(served, seat, token)
    for seat, token in tokens.items():
        await reveal_seed(served, exchanges[seat], token)
    state = (await view(served, tokens[0])).view
    assert state.phase == table_pb2.TURN_PHASE_DRAW
    return Dealt(served, table_id, tokens, state.turn_seat)


def context(seq: int, request_id: str | None = None) -> table_pb2.MoveContext:
    """A move's context; a fresh request id unless one is given (a retry gives the same)."""
    chosen = uuid.uuid4().hex if request_id is None else request_id
    return table_pb2.MoveContext(request_id=chosen, last_seen_seq=seq)


async def test_a_move_without_a_request_id_is_refused_and_changes_nothing(
    served: HostClient,
) -> None:
    """A request id is what makes a retry safe; a move without one is refused, not risked."""
    dealt = await deal_two_seats(served)
    me = bearer(dealt.tokens[dealt.mover])
    seq = (await view(served, dealt.tokens[dealt.mover])).seq
    hand = list((await view(served, dealt.tokens[dealt.mover])).view.my_hand)
    moves: list[Callable[[], Awaitable[object]]] = [
        lambda: served.table.Draw(
            table_pb2.DrawRequest(
                context=table_pb2.MoveContext(last_seen_seq=seq), source=deal_pb2.DRAW_SOURCE_STOCK
            ),
            metadata=me,
        ),
        lambda: served.table.Draw(
            table_pb2.DrawRequest(source=deal_pb2.DRAW_SOURCE_STOCK), metadata=me
        ),
        lambda: served.table.Play(
            table_pb2.PlayRequest(context=context(seq, ""), discard=hand[0]), metadata=me
        ),
        lambda: served.table.ReturnDiscard(
            table_pb2.ReturnDiscardRequest(context=context(seq, "")), metadata=me
        ),
        lambda: served.table.Ready(table_pb2.ReadyRequest(), metadata=me),
        lambda: served.table.AnswerRientro(
            table_pb2.AnswerRientroRequest(buy_back=True), metadata=me
        ),
        lambda: served.table.CommitSeed(
            table_pb2.CommitSeedRequest(deal_no=1, commitment=bytes(32)), metadata=me
        ),
        lambda: served.table.RevealSeed(
            table_pb2.RevealSeedRequest(deal_no=1, seed=bytes(32)), metadata=me
        ),
    ]
    for move in moves:
        sentence = await dealt.refused(move, grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
        assert "request_id" in sentence


async def test_malformed_and_unknown_requests_are_refused_and_change_nothing(
    served: HostClient,
) -> None:
    dealt = await deal_two_seats(served)
    me = bearer(dealt.tokens[dealt.mover])
    seq = (await view(served, dealt.tokens[dealt.mover])).seq
    draw = served.table.Draw
    no_source = table_pb2.DrawRequest(context=context(seq))
    await dealt.refused(
        lambda: draw(no_source, metadata=me), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"
    )
    future = table_pb2.DrawRequest(context=context(seq + 50), source=deal_pb2.DRAW_SOURCE_STOCK)
    await dealt.refused(
        lambda: draw(future, metadata=me), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"
    )
    no_card = table_pb2.PlayRequest(context=context(seq), discard=500)
    await dealt.refused(
        lambda: served.table.Play(no_card, metadata=me),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    join = lobby_pb2.JoinTableRequest(table_id="no-such-table", player_name="cy")
    await dealt.refused(
        lambda: served.lobby.JoinTable(join), grpc.StatusCode.NOT_FOUND, "NO_SUCH_TABLE"
    )
    seat = lobby_pb2.JoinTableRequest(table_id=dealt.table_id, player_name="cy", seat=7)
    await dealt.refused(
        lambda: served.lobby.JoinTable(seat), grpc.StatusCode.FAILED_PRECONDITION, "MATCH_STARTED"
    )
    record = table_pb2.GetDealRecordRequest(deal_no=1)
    await dealt.refused(
        lambda: served.table.GetDealRecord(record, metadata=me),
        grpc.StatusCode.NOT_FOUND,
        "NO_SUCH_RECORD",
    )
    chat = table_pb2.SendChatRequest(text="x" * 100_000)
    details = await dealt.refused(
        lambda: served.table.SendChat(chat, metadata=me), grpc.StatusCode.RESOURCE_EXHAUSTED, ""
    )
    assert "larger than max" in details


async def test_missing_bad_and_spectator_tokens_are_refused(served: HostClient) -> None:
    dealt = await deal_two_seats(served)
    seq = (await view(served, dealt.tokens[0])).seq
    request = table_pb2.DrawRequest(context=context(seq), source=deal_pb2.DRAW_SOURCE_STOCK)
    await dealt.refused(
        lambda: served.table.Draw(request), grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN"
    )
    await dealt.refused(
        lambda: served.table.Draw(request, metadata=bearer("made-up")),
        grpc.StatusCode.UNAUTHENTICATED,
        "BAD_TOKEN",
    )
    watch = await served.lobby.SpectateTable(
        lobby_pb2.SpectateTableRequest(table_id=dealt.table_id)
    )
    spectator = bearer(watch.spectator_token)
    await dealt.refused(
        lambda: served.table.Draw(request, metadata=spectator),
        grpc.StatusCode.PERMISSION_DENIED,
        "SPECTATOR",
    )
    # A spectator may look: its view has no hand.
    assert not (await view(served, watch.spectator_token)).view.my_hand
    other_table = await served.new_table(seats=2)
    leave = lobby_pb2.LeaveTableRequest(table_id=other_table)
    mine = bearer(dealt.tokens[0])
    await dealt.refused(
        lambda: served.lobby.LeaveTable(leave, metadata=mine),
        grpc.StatusCode.PERMISSION_DENIED,
        "OTHER_TABLE",
    )


async def test_moves_against_the_turn_are_refused_with_their_rule(served: HostClient) -> None:
    dealt = await deal_two_seats(served)
    me, other = bearer(dealt.tokens[dealt.mover]), bearer(dealt.tokens[dealt.other])
    seq = (await view(served, dealt.tokens[dealt.mover])).seq
    stock = deal_pb2.DRAW_SOURCE_STOCK
    out_of_turn = table_pb2.DrawRequest(context=context(seq), source=stock)
    await dealt.refused(
        lambda: served.table.Draw(out_of_turn, metadata=other),
        grpc.StatusCode.FAILED_PRECONDITION,
        "NOT_YOUR_TURN",
        "R3",
    )
    hand = list((await view(served, dealt.tokens[dealt.mover])).view.my_hand)
    no_draw = table_pb2.PlayRequest(context=context(seq), discard=hand[0])
    sentence = await dealt.refused(
        lambda: served.table.Play(no_draw, metadata=me),
        grpc.StatusCode.FAILED_PRECONDITION,
        "RULE_VIOLATION",
        "R3",
    )
    assert "draw first" in sentence
    drawn = await served.table.Draw(
        table_pb2.DrawRequest(context=context(seq, "d1"), source=stock), metadata=me
    )
    # A retry of the same request is answered alike and applied once.
    again = await served.table.Draw(
        table_pb2.DrawRequest(context=context(seq, "d1"), source=stock), metadata=me
    )
    assert again == drawn
    stale = table_pb2.DrawRequest(context=context(seq, "d2"), source=stock)
    await dealt.refused(
        lambda: served.table.Draw(stale, metadata=me),
        grpc.StatusCode.FAILED_PRECONDITION,
        "STALE_VIEW",
    )
    now = await view(served, dealt.tokens[dealt.mover])
    assert now.seq == drawn.seq and len(now.view.my_hand) == 14
    second = table_pb2.DrawRequest(context=context(now.seq, "d3"), source=stock)
    sentence = await dealt.refused(
        lambda: served.table.Draw(second, metadata=me),
        grpc.StatusCode.FAILED_PRECONDITION,
        "RULE_VIOLATION",
        "R3",
    )
    assert "already drawn" in sentence
    hand = list(now.view.my_hand)
    stranger = next(c for c in range(108) if c not in hand)
    not_mine = table_pb2.PlayRequest(context=context(now.seq), discard=stranger)
    sentence = await dealt.refused(
        lambda: served.table.Play(not_mine, metadata=me),
        grpc.StatusCode.FAILED_PRECONDITION,
        "RULE_VIOLATION",
    )
    assert "not in your hand" in sentence
    twice = cards_pb2.Operation(new_meld=cards_pb2.NewMeld(cards=[hand[0], hand[0], hand[1]]))
    double = table_pb2.PlayRequest(context=context(now.seq), operations=[twice], discard=hand[2])
    sentence = await dealt.refused(
        lambda: served.table.Play(double, metadata=me),
        grpc.StatusCode.FAILED_PRECONDITION,
        "RULE_VIOLATION",
        "R4",
    )
    assert "twice" in sentence
    broken = next(
        trio
        for trio in itertools.combinations(hand, 3)
        if not melds.declarations(trio) and not melds.is_valid_meld(trio)
    )
    discard = next(c for c in hand if c not in broken)
    bad_meld = cards_pb2.Operation(new_meld=cards_pb2.NewMeld(cards=broken))
    play = table_pb2.PlayRequest(context=context(now.seq), operations=[bad_meld], discard=discard)
    sentence = await dealt.refused(
        lambda: served.table.Play(play, metadata=me),
        grpc.StatusCode.FAILED_PRECONDITION,
        "RULE_VIOLATION",
    )
    assert sentence.startswith("R4") and "operation 1" in sentence


async def test_a_discard_taken_can_be_put_back_and_then_only_the_stock_is_left(
    served: HostClient,
) -> None:
    dealt = await deal_two_seats(served)
    me = bearer(dealt.tokens[dealt.mover])
    seq = (await view(served, dealt.tokens[dealt.mover])).seq
    taken = await served.table.Draw(
        table_pb2.DrawRequest(context=context(seq), source=deal_pb2.DRAW_SOURCE_DISCARD),
        metadata=me,
    )
    back = await served.table.ReturnDiscard(
        table_pb2.ReturnDiscardRequest(context=context(taken.seq)), metadata=me
    )
    now = await view(served, dealt.tokens[dealt.mover])
    assert now.seq == back.seq and now.view.discard_top == taken.card
    assert now.view.phase == table_pb2.TURN_PHASE_DRAW and len(now.view.my_hand) == 13
    again = table_pb2.DrawRequest(context=context(now.seq), source=deal_pb2.DRAW_SOURCE_DISCARD)
    await dealt.refused(
        lambda: served.table.Draw(again, metadata=me),
        grpc.StatusCode.FAILED_PRECONDITION,
        "RULE_VIOLATION",
        "R3.2",
    )
    stock = table_pb2.DrawRequest(context=context(now.seq), source=deal_pb2.DRAW_SOURCE_STOCK)
    assert (await served.table.Draw(stock, metadata=me)).seq == now.seq + 1


async def test_each_fair_deal_mistake_gets_its_reason_and_changes_nothing(
    served: HostClient,
) -> None:
    """A second commitment or reveal is ALREADY_*, whether or not its step is still open; a
    message for a step not open is WRONG_STEP; a bad reveal leaves the seat out, and every
    later reveal of that seat, a retry with the same request id included, is BAD_REVEAL again."""
    table_id, tokens = await start_two_seats(served)
    table = Dealt(served, table_id, tokens, 0)
    me, other = bearer(tokens[0]), bearer(tokens[1])
    exchanges = {}
    exchanges[0], commit = await commit_seed(served, 0, tokens[0])
    assert await served.table.CommitSeed(commit, metadata=me) == table_pb2.CommitSeedResponse()
    again = table_pb2.CommitSeedRequest()
    again.CopyFrom(commit)
    again.context.request_id = "another"
    early = table_pb2.RevealSeedRequest(context=context(0), deal_no=1, seed=bytes(32))
    for call, code, reason in [
        (lambda: served.table.CommitSeed(again, metadata=me), ALREADY_EXISTS, "ALREADY_COMMITTED"),
        (lambda: served.table.RevealSeed(early, metadata=me), PRECONDITION, "WRONG_STEP"),
    ]:
        await table.refused(call, code, reason)
    exchanges[1], commit = await commit_seed(served, 1, tokens[1])  # the step closes
    again.CopyFrom(commit)
    again.context.request_id = "another"
    await table.refused(
        lambda: served.table.CommitSeed(again, metadata=other), ALREADY_EXISTS, "ALREADY_COMMITTED"
    )
    wrong = table_pb2.RevealSeedRequest(
        context=context(0), deal_no=1, seed=bytes(32), cut=exchanges[0].cut
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await served.table.RevealSeed(wrong, metadata=me)
    info = error_info(caught.value)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert info is not None and info.reason == "BAD_REVEAL"
    published = deal_pb2.DealEvent.FromString((await view(served, tokens[0])).view.deal_events[1])
    exchanges[0].on_commitments(published)
    right = exchanges[0].reveal()
    retry = table_pb2.RevealSeedRequest(
        context=context(0), deal_no=1, seed=right.seed, cut=right.cut
    )
    for request in (wrong, retry):  # the same request id again, then the right seed
        await table.refused(
            lambda r=request: served.table.RevealSeed(r, metadata=me), PRECONDITION, "BAD_REVEAL"
        )
    await reveal_seed(served, exchanges[1], tokens[1])  # the reveals close; the deal starts
    for request in (wrong, retry):
        await table.refused(
            lambda r=request: served.table.RevealSeed(r, metadata=me), PRECONDITION, "BAD_REVEAL"
        )
    twice = table_pb2.RevealSeedRequest(
        context=context(0), deal_no=1, seed=bytes(32), cut=exchanges[1].cut
    )
    await table.refused(
        lambda: served.table.RevealSeed(twice, metadata=other), ALREADY_EXISTS, "ALREADY_REVEALED"
    )
    state = (await view(served, tokens[0])).view
    reveals = next(
        e.reveals
        for e in map(deal_pb2.DealEvent.FromString, state.deal_events)
        if e.HasField("reveals")
    )
    assert [(x.seat, x.reason) for x in reveals.left_out] == [
        (0, deal_pb2.LEFT_OUT_REASON_BAD_REVEAL)
    ]
    assert [r.seat for r in reveals.reveals] == [1]
    assert state.phase == table_pb2.TURN_PHASE_DRAW and len(state.my_hand) == 13
