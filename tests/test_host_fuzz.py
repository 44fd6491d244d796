"""Hostile requests over the real server with TLS on: random bytes, mutated valid messages,
absurd values and moves from the wrong caller, at every RPC the host serves, its own and the
standard health and reflection services (hypothesis, bounded).

For each one: an answer within the deadline, never UNKNOWN or INTERNAL, and when refused the
watched seats' views unchanged; no traceback in the host's log. Afterwards the table plays to
its end and every deal's record verifies.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host.edge.limits import Limits
from host.edge.server import Host
from host.table.bots import SimpleBot
from host.table.state import TableSettings
from scala40_net import wire
from scala40_net.fairdeal.record import DealRecord
from scala40_net.fairdeal.replay import replay_deal
from scala40_net.fairdeal.verify import verify_record
from scala40_net.net import tls
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc, rules_service_pb2, table_pb2, table_pb2_grpc
from scala40_net.seat.netbot import NetworkSeat, SeatLog

EXAMPLES = 300
DEADLINE = 5.0
NEVER = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.DEADLINE_EXCEEDED}
SERVICES = [
    lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"],
    table_pb2.DESCRIPTOR.services_by_name["TableService"],
    rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"],
    health_pb2.DESCRIPTOR.services_by_name["Health"],
    reflection_pb2.DESCRIPTOR.services_by_name["ServerReflection"],
]
METHODS = [(f"/{s.full_name}/{m.name}", m) for s in SERVICES for m in s.methods]


class Tracebacks(logging.Handler):
    """Every log record of the host that carries a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.records.append(record)


@dataclass
class Target:
    """A host on its own loop (a thread), a table mid-deal, and who may call it."""

    loop: asyncio.AbstractEventLoop
    host: Host
    certificate: tls.HostCertificate
    table_id: str
    tokens: dict[str, str] = field(default_factory=dict)  # ann, bea, spectator, other
    tracebacks: Tracebacks = field(default_factory=lambda: Tracebacks())

    def run(self, coroutine: Any) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return future.result(timeout=120)


def _sync_channel(target: Target) -> grpc.Channel:
    credentials = grpc.ssl_channel_credentials(root_certificates=target.certificate.pem)
    return grpc.secure_channel(
        f"127.0.0.1:{target.host.port}",
        credentials,
        options=(*wire.CHANNEL_OPTIONS, ("grpc.ssl_target_name_override", tls.HOST_NAME)),
    )


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    data_dir = tmp_path_factory.mktemp("fuzz") / "host"
    # Short fair-deal deadlines (nobody commits while the fuzz runs), and limits high enough
    # that the hostile traffic itself is what gets refused, not the checks around it.
    host = Host(
        "127.0.0.1:0",
        data_dir,
        TableSettings(commit_timeout=0.5, reveal_timeout=0.5),
        limits=Limits(
            requests_per_second=1e6, seat_requests_per_second=1e6, wrong_guesses_per_minute=10**6
        ),
    )

    async def setup() -> Target:
        await host.start()
        channel, found = await tls.pinned_channel("127.0.0.1", host.port, host.identity.fingerprint)
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        # No turn clock and a long grace period: nothing but the fuzz may change the table.
        quiet = {"seats": 2, "turn_seconds": 0, "grace_seconds": 600}
        table_id = (
            await lobby.CreateTable(lobby_pb2.CreateTableRequest(name="f", **quiet))  # type: ignore[arg-type]
        ).table_id
        other_id = (
            await lobby.CreateTable(lobby_pb2.CreateTableRequest(name="o", **quiet))  # type: ignore[arg-type]
        ).table_id
        ann = await lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=table_id, player_name="ann")
        )
        bea = await lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=table_id, player_name="bea")
        )
        other = await lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=other_id, player_name="x")
        )
        watch = await lobby.SpectateTable(lobby_pb2.SpectateTableRequest(table_id=table_id))
        made = Target(loop, host, found, table_id)
        made.tokens = {
            "ann": ann.seat_token,
            "bea": bea.seat_token,
            "spectator": watch.spectator_token,
            "other table": other.seat_token,
        }
        await lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=_bearer(ann.seat_token)
        )
        # The fair-deal steps time out (nobody commits): wait until the deal waits for a draw.
        tables = table_pb2_grpc.TableServiceStub(channel)
        async with asyncio.timeout(30):
            while True:
                seen = await tables.GetView(
                    table_pb2.GetViewRequest(), metadata=_bearer(ann.seat_token)
                )
                if seen.view.phase == table_pb2.TURN_PHASE_DRAW:
                    break
                await asyncio.sleep(0.1)
        await channel.close()
        return made

    made = asyncio.run_coroutine_threadsafe(setup(), loop).result(timeout=60)
    root = logging.getLogger()
    root.addHandler(made.tracebacks)  # every traceback logged while the fuzz runs, kept
    yield made
    root.removeHandler(made.tracebacks)
    asyncio.run_coroutine_threadsafe(host.stop(grace=0.5), loop).result(timeout=60)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def _filled(message: Message, draw: st.DrawFn, depth: int = 0) -> Message:
    """Set a few fields of ``message`` to absurd or random values, by its descriptor."""
    for fd in message.DESCRIPTOR.fields:
        if not draw(st.booleans()):
            continue
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            if depth < 2 and not fd.is_repeated:
                _filled(getattr(message, fd.name), draw, depth + 1)
            elif depth < 2:
                for _ in range(draw(st.integers(0, 3))):
                    _filled(getattr(message, fd.name).add(), draw, depth + 1)
            continue
        values = {
            FieldDescriptor.TYPE_STRING: st.text(max_size=300),
            FieldDescriptor.TYPE_BYTES: st.binary(max_size=80),
            FieldDescriptor.TYPE_BOOL: st.booleans(),
            FieldDescriptor.TYPE_INT32: st.sampled_from([-(2**31), -1, 0, 1, 2**31 - 1]),
            FieldDescriptor.TYPE_INT64: st.sampled_from([-(2**63), -1, 0, 2**63 - 1]),
            FieldDescriptor.TYPE_UINT32: st.sampled_from([0, 1, 13, 107, 108, 2**32 - 1]),
            FieldDescriptor.TYPE_UINT64: st.sampled_from([0, 1, 2**64 - 1]),
            FieldDescriptor.TYPE_ENUM: st.integers(-5, 40),
        }.get(fd.type)
        if values is None:
            continue
        try:
            if fd.is_repeated:
                getattr(message, fd.name).extend(draw(st.lists(values, max_size=20)))
            else:
                setattr(message, fd.name, draw(values))
        except (ValueError, TypeError):
            pass  # a value the Python runtime itself refuses to hold
    return message


@st.composite
def hostile(draw: st.DrawFn) -> tuple[str, Any, list[bytes], str | None]:
    """(method path, its descriptor, the requests' bytes, token name or None); a method that
    streams its requests (reflection) gets one to three, the others one."""
    path, method = draw(st.sampled_from(METHODS))
    request_type = _message_class(method.input_type)
    requests = []
    for _ in range(draw(st.integers(1, 3)) if method.client_streaming else 1):
        kind = draw(st.sampled_from(["bytes", "mutated", "absurd"]))
        if kind == "bytes":
            data = draw(st.binary(max_size=200))
        else:
            message = _filled(request_type(), draw)
            data = message.SerializeToString()
            if kind == "mutated" and data:
                flips = draw(st.lists(st.integers(0, len(data) - 1), min_size=1, max_size=4))
                raw = bytearray(data)
                for at in flips:
                    raw[at] ^= draw(st.integers(1, 255))
                data = bytes(raw)
        requests.append(data)
    token = draw(st.sampled_from([None, "ann", "bea", "spectator", "other table", "garbage"]))
    return path, method, requests, token


def _message_class(descriptor: Any) -> type[Message]:
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(descriptor)


def _views(target: Target, channel: grpc.Channel) -> list[bytes]:
    stub = table_pb2_grpc.TableServiceStub(channel)
    out = []
    for name in ("ann", "bea", "spectator"):
        view = stub.GetView(
            table_pb2.GetViewRequest(), metadata=_bearer(target.tokens[name]), timeout=DEADLINE
        ).view
        # Who is connected comes and goes with the fuzz's own streams; nothing else may move.
        for seat in view.seats:
            seat.info.ClearField("connected")
        for seat in view.table.seats:
            seat.ClearField("connected")
        out.append(view.SerializeToString())
    return out


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=hostile())
def test_a_hostile_request_gets_a_clear_answer_and_changes_nothing(
    target: Target, case: tuple[str, Any, list[bytes], str | None]
) -> None:
    path, method, requests, token_name = case
    data = requests[0]
    token = {"garbage": "not-a-token"}.get(token_name or "", target.tokens.get(token_name or ""))
    metadata = _bearer(token) if token else ()
    with _sync_channel(target) as channel:
        before = _views(target, channel)
        code = grpc.StatusCode.OK
        try:
            if method.client_streaming:
                answers = channel.stream_stream(path, lambda b: b, lambda b: b)(
                    iter(requests), metadata=metadata, timeout=DEADLINE
                )
                for _ in answers:  # one answer a request, then the end
                    pass
            elif method.server_streaming:
                call = channel.unary_stream(path, lambda b: b, lambda b: b)(
                    data, metadata=metadata, timeout=DEADLINE
                )
                next(iter(call))
                call.cancel()
            else:
                channel.unary_unary(path, lambda b: b, lambda b: b)(
                    data, metadata=metadata, timeout=DEADLINE
                )
        except grpc.RpcError as error:
            code = error.code()  # type: ignore[attr-defined]
        assert code not in NEVER, (path, code, token_name)
        if code not in (grpc.StatusCode.OK, grpc.StatusCode.CANCELLED):
            assert _views(target, channel) == before, f"{path} refused, yet the table changed"


def test_after_the_fuzz_the_table_plays_to_its_end_and_every_record_verifies(
    target: Target,
) -> None:
    async def finish() -> None:
        channel, _ = await tls.pinned_channel(
            "127.0.0.1", target.host.port, target.host.identity.fingerprint, wire.CHANNEL_OPTIONS
        )
        view = await table_pb2_grpc.TableServiceStub(channel).GetView(
            table_pb2.GetViewRequest(), metadata=_bearer(target.tokens["ann"])
        )
        players = []
        for name in ("ann", "bea"):
            seat = NetworkSeat(channel, target.table_id, SimpleBot(), log=SeatLog())  # type: ignore[arg-type]
            number = next(s.info.seat for s in view.view.seats if s.info.name == name)
            seat.take_seat(number, target.tokens[name])
            players.append(seat)
        await asyncio.wait_for(asyncio.gather(*(p.play_match() for p in players)), timeout=90)
        for player in players:
            for signed in player.log.signed:  # type: ignore[union-attr]
                answer = await player.tables.GetDealRecord(
                    table_pb2.GetDealRecordRequest(deal_no=signed.deal_no),
                    metadata=player.metadata,
                )
                verified = verify_record(
                    DealRecord.from_json(answer.record),
                    host_fingerprint=target.host.identity.fingerprint,
                    replayer=replay_deal,
                )
                assert verified.replay.startswith("ok")
        await channel.close()

    target.run(finish())
    # Nothing the fuzz sent, nor the play after it, made the host log a traceback.
    logged = target.tracebacks.records
    assert not logged, [r.getMessage() for r in logged]
