"""A seat tells a rule's refusal from the network's failure, and both from another host at the
pinned address (real hosts on 127.0.0.1; the second one with a new identity, on the same port).

A host that is down is ``UNREACHABLE`` and waited for; a host that answers with
another identity is ``NOT_THE_HOST`` (a ``HostChanged`` naming both fingerprints),
never sent anything again, and ends the stream of every kind of seat.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, start_host
from google.rpc import error_details_pb2, status_pb2
from hostproc import HostProcess, free_port

from client.connection import LobbyClient
from scala40_net.net import tls
from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2
from scala40_net.seat.link import GrpcTable, SeatLink, bearer, resend
from scala40_net.seat.refusal import HostChanged, HostRefusal, Trouble, refusal_from_error
from scala40_net.seat.stream import (
    ResumableStream,
    gives_up_if_seat_refused,
    gives_up_unless_reconnecting,
)

pytestmark = pytest.mark.timeout(120)


async def seated(served: HostClient) -> tuple[str, str]:
    """A started 2-seat table: its id and the token of the seat whose turn it is not."""
    table_id = await served.new_table(seats=2)
    ann = await served.join(table_id, "ann")
    bea = await served.join(table_id, "bea")
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=bearer(ann.seat_token)
    )
    watcher = GrpcTable(served.channel, ann.seat_token)
    for _ in range(500):
        answer = await watcher.view()
        if answer.view.phase in (table_pb2.TURN_PHASE_DRAW, table_pb2.TURN_PHASE_PLAY):
            idle = ann if answer.view.turn_seat != ann.seat else bea
            return table_id, idle.seat_token
        await asyncio.sleep(0.02)
    raise AssertionError("the deal did not start")


# What these tests judge is who answers, not how fast: a busy machine may take longer than a
# seat's few seconds (tls.CHECK_TIMEOUT) to answer a look at its certificate, which a seat
# takes for a host that is down and asks again later.
CHECK_SECONDS = 30.0


def pinned_table(served: HostClient, token: str) -> GrpcTable:
    pin = tls.PinnedHost(
        "127.0.0.1", served.host.port, served.host.identity.fingerprint, CHECK_SECONDS
    )
    return GrpcTable(served.channel, token, "it", pin)


@pytest.mark.long(12)
async def test_a_rule_refused_is_the_hosts_refusal_and_a_host_down_is_unreachable(
    tmp_path: Path,
) -> None:
    served = await start_host(tmp_path / "host")
    try:
        _, idle = await seated(served)
        table = pinned_table(served, idle)
        link = SeatLink(table, lambda: 0)
        with pytest.raises(HostRefusal) as refused:
            await link.draw(deal_pb2.DRAW_SOURCE_STOCK)  # not this seat's turn
        assert refused.value.trouble is Trouble.REFUSED
        assert refused.value.code is grpc.StatusCode.FAILED_PRECONDITION
        await served.host.stop(grace=0.5)
        retried: list[HostRefusal] = []
        with pytest.raises(HostRefusal) as lost:
            await resend(table.view, on_retry=retried.append)
        assert lost.value.trouble is Trouble.UNREACHABLE and lost.value.transient
        assert not isinstance(lost.value, HostChanged)
        assert len(retried) == 3  # a host that is down is waited for, with the same request
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


@pytest.mark.long(12)
async def test_another_host_at_the_pinned_address_is_not_the_host_and_not_asked_again(
    tmp_path: Path,
) -> None:
    # The second host comes up on the first one's port: one drawn below the ephemeral range,
    # which no other test's listener or connection is handed meanwhile (tests/README.md).
    served = await start_host(tmp_path / "host", port=free_port())
    other: HostClient | None = None
    try:
        _, idle = await seated(served)
        table = pinned_table(served, idle)
        expected = served.host.identity.fingerprint
        await served.host.stop(grace=0.5)
        # A host set up anew (another identity) on the very same address.
        other = await start_host(tmp_path / "other", port=served.host.port)
        assert other.host.identity.fingerprint != expected
        retried: list[HostRefusal] = []
        with pytest.raises(HostChanged) as changed:
            await resend(table.view, on_retry=retried.append)
        assert retried == []  # no retry: another host is not a dropped connection
        assert changed.value.trouble is Trouble.NOT_THE_HOST and not changed.value.transient
        assert changed.value.found == other.host.identity.fingerprint
        assert changed.value.expected == expected
        # Its event stream ends at once for every kind of seat, the one that waits out
        # anything as well as the bot's.
        for gives_up in (gives_up_if_seat_refused, gives_up_unless_reconnecting):
            stream = ResumableStream(table, lambda: 0, gives_up=gives_up)
            attempts: list[int] = []

            async def never(message: table_pb2.SubscribeEventsResponse, at: float) -> bool:
                raise AssertionError("another host's stream delivered an event")

            with pytest.raises(HostChanged):
                await asyncio.wait_for(
                    stream.follow(never, on_link=lambda up, n, seen=attempts: seen.append(n)),
                    60,
                )
            assert attempts == []  # not one reconnect attempt
    finally:
        await served.channel.close()
        if other is not None:
            await other.channel.close()
            await other.host.stop(grace=0.5)


async def test_a_pin_check_says_who_answers(tmp_path: Path) -> None:
    # Its port is asked again once the host is gone: nobody else may be handed it meanwhile.
    served = await start_host(tmp_path / "host", port=free_port())
    port, fingerprint = served.host.port, served.host.identity.fingerprint
    try:
        pinned = tls.PinnedHost("127.0.0.1", port, fingerprint, CHECK_SECONDS)
        await pinned.check()  # the one pinned: no error
        with pytest.raises(tls.PinError) as wrong:
            await tls.PinnedHost(
                "127.0.0.1", port, "0000-0000-0000-0000-0000-0000-0000-0000", CHECK_SECONDS
            ).check()
        assert wrong.value.found == fingerprint
        assert wrong.value.expected == "0000-0000-0000-0000-0000-0000-0000-0000"
        await served.host.stop(grace=0.5)
        with pytest.raises(OSError):
            await tls.PinnedHost("127.0.0.1", port, fingerprint).check()
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


# Three processes start one after the other (two hosts and the bot), each within its own
# generous bound (tests/hostproc.py; the bot's line below): a busy machine slows every start.
@pytest.mark.timeout(400)
async def test_scala40_bot_gives_up_on_another_host_at_its_address_and_says_both_fingerprints(
    tmp_path: Path,
) -> None:
    """The bot would wait ten minutes for a host that is down; another host is not waited for."""
    port = free_port()
    first = HostProcess(tmp_path / "first", port)
    second = HostProcess(tmp_path / "second", port)
    bot: subprocess.Popen[str] | None = None
    try:
        await first.start()
        assert first.channel is not None and first.fingerprint is not None
        lobby = LobbyClient(first.channel)
        table_id = await lobby.create_table("Sera", ruleset_pb2.PRESET_CLASSIC, 2)
        bot = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "scala40_net.seat.netbot",
                f"127.0.0.1:{port}",
                "--table",
                table_id,
                "--fingerprint",
                first.fingerprint,
                "--give-up-after",
                "600",
                "--rematch-wait",
                "0",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},  # its lines as it says them
        )
        # The bot's own word that it sat down: the host's table list says so before the bot
        # has the join's answer, which a host killed at that moment takes with it.
        assert bot.stdout is not None
        sat = await asyncio.wait_for(asyncio.to_thread(bot.stdout.readline), 120)
        assert sat.startswith("seat ") and table_id in sat, sat + bot.communicate()[1]
        await first.kill()
        await second.start()
        assert second.fingerprint is not None
        code = await asyncio.to_thread(bot.wait, 90)
        _, said = bot.communicate()
        assert code == 1
        assert f"its fingerprint is {second.fingerprint} (expected {first.fingerprint})" in said
    finally:
        if bot is not None and bot.poll() is None:
            bot.kill()
            bot.wait()
        await first.stop()
        await second.stop()


def _error(code: grpc.StatusCode, details: str, reason: str = "") -> grpc.aio.AioRpcError:
    """A failed call as grpc.aio hands it over: with the host's Status trailer when ``reason``."""
    trailers = grpc.aio.Metadata()
    if reason:
        info = error_details_pb2.ErrorInfo(reason=reason, metadata={"sentence": details})
        status = status_pb2.Status(code=code.value[0], message=details)
        status.details.add().Pack(info)
        trailers.add("grpc-status-details-bin", status.SerializeToString())
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), trailers, details)


def test_a_failure_is_the_hosts_refusal_only_when_the_host_said_it() -> None:
    gone = refusal_from_error(_error(grpc.StatusCode.UNAVAILABLE, "failed to connect to all"))
    assert gone.trouble is Trouble.UNREACHABLE and gone.transient
    slow = refusal_from_error(_error(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded"))
    assert slow.trouble is Trouble.UNREACHABLE and slow.transient
    # The host could not save the move: its own answer, sent again as it is.
    unsaved = refusal_from_error(
        _error(grpc.StatusCode.UNAVAILABLE, "the move was not saved", "NOT_SAVED")
    )
    assert unsaved.trouble is Trouble.REFUSED and unsaved.transient
    ruled = refusal_from_error(
        _error(grpc.StatusCode.FAILED_PRECONDITION, "not your turn", "NOT_YOUR_TURN")
    )
    assert ruled.trouble is Trouble.REFUSED and ruled.broke_rule and not ruled.transient
    changed = HostChanged("AAAA", "BBBB", "handshake failed")
    assert not changed.transient and "AAAA" in changed.message and "BBBB" in changed.message
    assert "handshake failed" in changed.line and "handshake" not in changed.message
