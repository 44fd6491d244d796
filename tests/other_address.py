"""Another client address on loopback: a relay whose connections reach a host from 127.0.0.2."""

from __future__ import annotations

import asyncio

import grpc

from host.edge.server import Host
from scala40_net import wire
from scala40_net.net import tls


class OtherAddress:
    """A relay on 127.0.0.1 whose connections reach the host from 127.0.0.2: another client
    address on loopback (the bytes, TLS included, pass as they are)."""

    SOURCE = "127.0.0.2"

    def __init__(self, host_port: int) -> None:
        self._host_port = host_port
        self._pipes: set[asyncio.Task[None]] = set()
        self.port = 0

    async def __aenter__(self) -> OtherAddress:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._server.close()
        for pipe in self._pipes:
            pipe.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(
            "127.0.0.1", self._host_port, local_addr=(self.SOURCE, 0)
        )
        for a, b in ((reader, up_writer), (up_reader, writer)):
            pipe = asyncio.create_task(self._pipe(a, b))
            self._pipes.add(pipe)
            pipe.add_done_callback(self._pipes.discard)

    @staticmethod
    async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            sink.close()

    async def channel(self, host: Host) -> grpc.aio.Channel:
        channel, _ = await tls.pinned_channel(
            "127.0.0.1", self.port, host.identity.fingerprint, wire.CHANNEL_OPTIONS
        )
        return channel
