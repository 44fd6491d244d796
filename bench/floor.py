"""The floor: only the necessary work of a play, with the host's libraries, to measure it by.

A table here is what a play cannot do without: a SQLite file in WAL mode with
``synchronous=FULL`` (its schema and first row written in one transaction at
creation), a writer thread that commits each move's row, and three server
streams (two seats and a spectator) that each move's event is pushed to once
it is durable. A turn has the host's shape: two moves (a draw, then a play),
each one committed row and one event on every stream. Moves come either as
unary calls or on one bidirectional stream per seat (``Moves``), each answered
on it; the seat driver below hands them to a ``MoveTransport``, the one piece
that differs. Messages are protobuf (the contract's ``TableEvent`` and
``PlayRequest``), as the host's are.

``bench_host.py`` runs this beside the host in the same run and prints every
host figure beside the floor's. Run alone (``--serve DIR``) it prints its port.
"""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import sys
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scala40_net import wire  # noqa: E402
from scala40_net.pb import table_pb2  # noqa: E402

SERVICE = "floor.Floor"
# As many writer threads as the host's journal has (``host.journal.sqlite.WRITER_THREADS``).
WRITER_THREADS = 32
SCHEMA = """
CREATE TABLE IF NOT EXISTS config (created_ns INTEGER NOT NULL, config BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS moves (seq INTEGER PRIMARY KEY, seat INTEGER, request BLOB NOT NULL,
                                  event BLOB NOT NULL);
"""
DRAW, PLAY = 1, 2


# --- The floor's server -------------------------------------------------------------------


@dataclass
class FloorTable:
    """One table: its file, its last seq and its three streams' queues."""

    db: sqlite3.Connection
    seq: int = 0
    streams: list[asyncio.Queue[bytes | None]] = field(default_factory=list)


class FloorServer:
    """The floor's gRPC service: Create, Subscribe, Move (unary) and Moves (bidi stream)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.tables: dict[int, FloorTable] = {}
        self.made = 0
        self.writers = ThreadPoolExecutor(WRITER_THREADS, thread_name_prefix="floor-writer")

    def handlers(self) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Create": grpc.unary_unary_rpc_method_handler(self.create),
                "Subscribe": grpc.unary_stream_rpc_method_handler(self.subscribe),
                "Move": grpc.unary_unary_rpc_method_handler(self.move),
                "Moves": grpc.stream_stream_rpc_method_handler(self.moves),
            },
        )

    def _open(self, table_id: int, config: bytes) -> sqlite3.Connection:
        """The table's file: schema and first row in one transaction, the connection kept."""
        db = sqlite3.connect(
            self.data_dir / f"{table_id}.sqlite3", isolation_level=None, check_same_thread=False
        )
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("BEGIN IMMEDIATE")
        for statement in SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute("INSERT INTO config VALUES (?, ?)", (time.time_ns(), config))
        db.execute("COMMIT")
        return db

    async def create(self, request: bytes, context: object) -> bytes:
        self.made += 1  # before the wait: tables are created side by side
        table_id = self.made
        loop = asyncio.get_running_loop()
        db = await loop.run_in_executor(self.writers, self._open, table_id, request)
        self.tables[table_id] = FloorTable(db)
        return table_id.to_bytes(4, "big")

    async def subscribe(self, request: bytes, context: object) -> AsyncIterator[bytes]:
        table = self.tables[int.from_bytes(request[:4], "big")]
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        table.streams.append(queue)
        # The first message says the stream is open (the host's first one is a snapshot).
        yield table_pb2.SubscribeEventsResponse(
            event=table_pb2.TableEvent(seq=table.seq)
        ).SerializeToString()
        while (message := await queue.get()) is not None:
            yield message

    async def _accept(self, data: bytes) -> bytes:
        """One move: its row committed in a writer thread, then its event on every stream."""
        table_id, seat, kind = int.from_bytes(data[:4], "big"), data[4], data[5]
        request = table_pb2.PlayRequest.FromString(data[6:])
        table = self.tables[table_id]
        table.seq += 1
        seq = table.seq
        event = table_pb2.TableEvent(seq=seq)
        event.chat.seat = seat
        event.chat.text = "draw" if kind == DRAW else "play"
        message = table_pb2.SubscribeEventsResponse(event=event).SerializeToString()

        def commit() -> None:
            table.db.execute("BEGIN IMMEDIATE")
            table.db.execute(
                "INSERT INTO moves VALUES (?, ?, ?, ?)",
                (seq, seat, request.SerializeToString(), message),
            )
            table.db.execute("COMMIT")

        await asyncio.get_running_loop().run_in_executor(self.writers, commit)
        for queue in table.streams:
            queue.put_nowait(message)
        return table_pb2.PlayResponse(seq=seq).SerializeToString()

    async def move(self, request: bytes, context: object) -> bytes:
        return await self._accept(request)

    async def moves(self, requests: AsyncIterator[bytes], context: object) -> AsyncIterator[bytes]:
        async for request in requests:
            yield await self._accept(request)

    def close(self) -> None:
        for table in self.tables.values():
            for queue in table.streams:
                queue.put_nowait(None)
            table.db.close()
        self.writers.shutdown(wait=True)


async def serve(data_dir: Path) -> None:
    """Serve the floor on 127.0.0.1 (without TLS, as the bench's host) until stdin closes."""
    floor = FloorServer(data_dir)
    server = grpc.aio.server(options=wire.SERVER_OPTIONS)
    server.add_generic_rpc_handlers((floor.handlers(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    floor.close()
    await server.stop(0)


# --- The floor's seat driver --------------------------------------------------------------


class MoveTransport(Protocol):
    """How a seat's move reaches the table: the seq of its event, once accepted."""

    async def send(self, move: bytes) -> int: ...

    async def close(self) -> None: ...


class UnaryMoves:
    """Each move a unary call."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._call = channel.unary_unary(f"/{SERVICE}/Move")

    async def send(self, move: bytes) -> int:
        return table_pb2.PlayResponse.FromString(await self._call(move)).seq

    async def close(self) -> None:
        pass


class StreamMoves:
    """Every move of a seat on one bidirectional stream, each answered on it in order."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._call = channel.stream_stream(f"/{SERVICE}/Moves")()

    async def send(self, move: bytes) -> int:
        await self._call.write(move)
        answer = await self._call.read()
        assert isinstance(answer, bytes), answer
        return table_pb2.PlayResponse.FromString(answer).seq

    async def close(self) -> None:
        await self._call.done_writing()


TRANSPORTS = {"unary": UnaryMoves, "stream": StreamMoves}


@dataclass
class FloorTimes:
    """What a floor table measured: each play's latency, set-up times, plays made."""

    samples: list[float] = field(default_factory=list)  # ms, Play -> every subscriber
    setup: list[float] = field(default_factory=list)  # ms, Create -> first play accepted
    plays: int = 0


async def floor_table(
    channel: grpc.aio.Channel,
    transport: str,
    think: float,
    ready: asyncio.Event,
    stop: asyncio.Event,
    times: FloorTimes,
    once: bool = False,
) -> None:
    """One table of two seats and a spectator playing turns of a draw and a play until ``stop``.

    ``ready`` is set by the caller once every table has made its first play: plays
    before it are the set-up phase, and are not timed. ``once``: stop after the first play
    (a set-up alone).
    """
    started = time.perf_counter()
    create = channel.unary_unary(f"/{SERVICE}/Create")
    table_id = await create(b"config")
    subscribe = channel.unary_stream(f"/{SERVICE}/Subscribe")
    arrivals: list[dict[int, float]] = [{}, {}, {}]
    sent: dict[int, float] = {}
    opened = [asyncio.Event() for _ in arrivals]

    async def follow(index: int) -> None:
        seen = arrivals[index]
        async for message in subscribe(table_id + bytes([index])):
            seen[table_pb2.SubscribeEventsResponse.FromString(message).event.seq] = (
                time.perf_counter()
            )
            opened[index].set()

    streams = [asyncio.create_task(follow(i)) for i in range(3)]
    for event in opened:
        await event.wait()
    seats = [TRANSPORTS[transport](channel) for _ in range(2)]
    thinking = [think * random.uniform(0.5, 1.5) for _ in seats]
    request = table_pb2.PlayRequest(discard=17)
    request.context.request_id = "0123456789abcdef"
    body = request.SerializeToString()
    turn = 0
    try:
        while not stop.is_set():
            seat = turn % 2
            if thinking[seat]:
                await asyncio.sleep(thinking[seat])
            await seats[seat].send(table_id + bytes([seat, DRAW]) + body)
            start = time.perf_counter()
            seq = await seats[seat].send(table_id + bytes([seat, PLAY]) + body)
            if turn == 0:
                times.setup.append((time.perf_counter() - started) * 1000)
                if once:
                    break
            elif ready.is_set():
                sent[seq] = start
            turn += 1
    finally:
        for seat_moves in seats:
            await seat_moves.close()
        await asyncio.sleep(0.05)  # the last play's events on their way
        for task in streams:
            task.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
    for seq, at in sent.items():
        seen = [arrived[seq] for arrived in arrivals if seq in arrived]
        if len(seen) == len(arrivals):
            times.samples.append((max(seen) - at) * 1000)
    times.plays += len(sent)


async def _main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        await serve(Path(sys.argv[2]))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    asyncio.run(_main())
