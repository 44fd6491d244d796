"""A ``scala40-host`` process for tests that stop, kill and restart it on one port and data dir."""

from __future__ import annotations

import asyncio
import random
import resource
import signal
import socket
import subprocess
import sys
from pathlib import Path

import grpc

from scala40_net import wire
from scala40_net.net import tls
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc

# A host that is stopped and started again on its port needs a port known before it starts.
# It is drawn below the kernel's ephemeral range (32768 and up on Linux), from which every
# port-0 listener and every outgoing connection gets its port: so no other test running at
# the same time (another xdist worker, another checkout's suite) is handed it meanwhile.
FIXED_PORTS = range(20000, 32000)
# How long a start may take before the test fails (it costs nothing when the host is quick).
START_SECONDS = 120.0


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now, outside the ephemeral range."""
    for port in random.SystemRandom().sample(FIXED_PORTS, 200):  # whatever a test seeded
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError(f"no free port on 127.0.0.1 in {FIXED_PORTS}")


class HostProcess:
    """``scala40-host`` on 127.0.0.1:port with one data dir, started again after each kill."""

    def __init__(
        self, data_dir: Path, port: int, *options: str, open_files: int | None = None
    ) -> None:
        self.data_dir = data_dir
        # The host's limit on open files (soft and hard), when a test wants it low.
        self.open_files = open_files
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None
        self.generation = 0
        self.channel: grpc.aio.Channel | None = None
        self.old_channels: list[grpc.aio.Channel] = []
        self.fingerprint: str | None = None  # pinned after the first start
        self.log = data_dir.parent / "host.log"
        self.options = options or (
            "--bot-delay",
            "0",
            "--commit-timeout",
            "2",
            "--reveal-timeout",
            "2",
        )

    async def start(self) -> None:
        out = open(self.log, "ab")  # noqa: SIM115 - the child keeps it open
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "host",
                "--listen",
                f"127.0.0.1:{self.port}",
                "--data-dir",
                str(self.data_dir),
                *self.options,
            ],
            stdout=out,
            stderr=out,
            preexec_fn=self._limit_open_files if self.open_files else None,
        )
        out.close()
        # A bound for a busy machine: a host that plays back a long journal beside other
        # workers' tests takes several times the second or two it takes alone.
        async with asyncio.timeout(START_SECONDS):
            while True:
                assert self.process.poll() is None, self.log.read_text()[-2000:]
                try:
                    # TLS, pinned: the same fingerprint after every restart, or the test fails.
                    self.channel, found = await tls.pinned_channel(
                        "127.0.0.1", self.port, self.fingerprint, wire.CHANNEL_OPTIONS
                    )
                    break
                except OSError:
                    await asyncio.sleep(0.05)
            self.fingerprint = found.fingerprint
            lobby = lobby_pb2_grpc.LobbyServiceStub(self.channel)
            while True:
                try:
                    await lobby.GetHostInfo(lobby_pb2.GetHostInfoRequest(), timeout=1)
                    break
                except grpc.aio.AioRpcError:
                    await asyncio.sleep(0.05)
        self.generation += 1

    def _limit_open_files(self) -> None:
        assert self.open_files is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))

    async def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        # The old channel is left to fail its calls as a dead host's would (closing it here
        # would cancel them in the clients instead); it is closed at the end.
        if self.channel is not None:
            self.old_channels.append(self.channel)

    async def terminate(self) -> None:
        """SIGTERM: the host shuts down gracefully (and must exit 0)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(timeout=30) == 0, self.log.read_text()[-2000:]
        if self.channel is not None:
            self.old_channels.append(self.channel)

    async def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        for channel in [*self.old_channels, self.channel]:
            if channel is not None:
                await channel.close(grace=None)
