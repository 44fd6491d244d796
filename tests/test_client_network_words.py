"""Network trouble on the player's screen: said in the player's language, apart from a rule's
refusal, with gRPC's own text in the client's log and never on the terminal.

``scala40`` runs in a pseudo-terminal of 80×24, read into a ``pyte`` screen, as
a player sees it: nothing written to descriptor 2 (gRPC's C-core writes its log
lines there itself) can hide from the test. The hosts are real ``scala40-host``
processes on 127.0.0.1; the second one, with another identity, on the very port
of the first.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import struct
import subprocess
import sys
import termios
from collections.abc import Callable
from pathlib import Path

import pyte
import pytest
from hostproc import HostProcess, free_port

from client.connection import LobbyClient
from client.i18n import Text
from client.seats import SeatStore
from client.trust import remember_fingerprint
from scala40_net import invite
from scala40_net.pb import ruleset_pb2

pytestmark = pytest.mark.timeout(240)

IT = Text("it")
ROWS, COLUMNS = 24, 80
# Words of gRPC's, of its C-core and of the socket that a player must never be shown.
TECHNICAL = (
    "ssl_transport_security",
    "Handshake",
    "handshake",
    "failed to connect",
    "UNAVAILABLE",
    "UNKNOWN",
    "ipv4:",
    "Errno",
    "TSI_",
    "SSL_ERROR",
)


def _environment(data: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(SCALA40_DATA_DIR=str(data), TERM="xterm", LANG="it_IT.UTF-8", COLUMNS="80")
    env.pop("LC_ALL", None)
    return env


class Terminal:
    """``scala40 ARGS`` on a pseudo-terminal of ROWS×COLUMNS, its output fed to pyte."""

    def __init__(self, args: list[str], data: Path) -> None:
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.master = master
        self.process = subprocess.Popen(
            [sys.executable, "-m", "client.main", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=_environment(data),
            start_new_session=True,
        )
        os.close(slave)
        os.set_blocking(master, False)
        self.everything = b""  # all the terminal was ever sent, in order

    def read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self.everything += chunk
            self.stream.feed(chunk)

    def text(self) -> str:
        """The screen as shown now, its lines joined (a wrapped word joins up again)."""
        self.read()
        return "".join(line.rstrip() for line in self.screen.display)

    def lines(self) -> str:
        self.read()
        return "\n".join(line.rstrip() for line in self.screen.display)

    async def wait(self, condition: Callable[[str], bool], what: str, seconds: float = 60) -> str:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while loop.time() < deadline:
            shown = self.text()
            if condition(shown):
                return shown
            await asyncio.sleep(0.1)
        raise AssertionError(f"no {what} on the screen:\n{self.lines()}")

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        os.close(self.master)


def no_technical_text(shown: str) -> None:
    for word in TECHNICAL:
        assert word not in shown, f"{word!r} reached the screen:\n{shown}"


async def test_a_host_down_then_another_host_on_its_address_said_in_italian_and_not_retried(
    tmp_path: Path,
) -> None:
    port = free_port()
    data = tmp_path / "client"
    data.mkdir()
    first = HostProcess(tmp_path / "first", port)
    second = HostProcess(tmp_path / "second", port)
    terminal: Terminal | None = None
    try:
        await first.start()
        assert first.channel is not None and first.fingerprint is not None
        lobby = LobbyClient(first.channel, "it")
        table_id = await lobby.create_table("Sera", ruleset_pb2.PRESET_CLASSIC, 2)
        seat = await lobby.join(table_id, "Ada")
        address = f"127.0.0.1:{port}"
        SeatStore(data, address).hold(table_id, seat.seat or 0, seat.token)
        remember_fingerprint(data, address, first.fingerprint)

        terminal = Terminal([address, "--lang", "it", "--name", "Ada"], data)
        await terminal.wait(lambda s: "Sera" in s, "lobby")
        terminal.type("\r")  # the kept seat: sit down again
        await terminal.wait(
            lambda s: "in attesa" in s and "Ada" in s and "spettatore" not in s, "Ada's seat"
        )

        # 4: the host is down and a move is typed: the network's trouble, not a rule's.
        await first.kill()
        terminal.type("pesca\r")
        unreachable = IT("net_unreachable", host=address)
        shown = await terminal.wait(lambda s: "non risponde nessuno" in s, "host down sentence")
        assert unreachable.split(":")[0] in shown
        assert IT("status_refused", reason="").strip(" —") not in shown  # not "Rifiutata"
        no_technical_text(shown)

        # 3: another host (another identity) on the same address: said as such, and given up.
        await second.start()
        assert second.fingerprint is not None and second.fingerprint != first.fingerprint
        shown = await terminal.wait(
            lambda s: "Questo non è l'host della partita" in s, "not-the-host sentence", 90
        )
        assert second.fingerprint in shown and first.fingerprint in shown
        no_technical_text(shown)
        # Retries stop: a while later (past several reconnect pauses) the screen still says
        # the link was given up, with no attempt counted; Enter clears the notice and the
        # status line says so. (That no reconnect is tried: tests/test_seat_trouble.py.)
        await asyncio.sleep(5)
        shown = terminal.text()
        assert "tentativo" not in shown and "riconnetto" not in shown, terminal.lines()
        no_technical_text(shown)
        terminal.type("\r")
        shown = await terminal.wait(
            lambda s: IT("status_link_given_up") in s, "the link given up on the status line"
        )
        assert "tentativo" not in shown and "riconnetto" not in shown, terminal.lines()
        # gRPC's C-core lines went to the client's log instead.
        assert "ssl_transport_security" in (data / "client.log").read_text(errors="replace")
        # Nothing of gRPC's was ever sent to the terminal, not even for a moment.
        sent = terminal.everything.decode(errors="replace")
        for word in TECHNICAL:
            assert word not in sent, f"{word!r} was written to the terminal"
        terminal.type("\x11")  # Ctrl-Q, as the status line says
        assert await asyncio.to_thread(terminal.process.wait, 30) == 0
    finally:
        if terminal is not None:
            terminal.close()
        await first.stop()
        await second.stop()


def _joined(args: list[str], data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "client.main", *args, "--lang", "it"],
        env=_environment(data),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


async def test_no_host_running_and_a_wrong_invite_are_said_in_italian_alone(
    tmp_path: Path,
) -> None:
    port = free_port()
    data = tmp_path / "client"
    data.mkdir()
    address = f"127.0.0.1:{port}"
    nobody = await asyncio.to_thread(_joined, [address], data)
    assert nobody.returncode == 1
    assert nobody.stderr.strip() == IT("net_unreachable", host=address)
    host = HostProcess(tmp_path / "host", port)
    try:
        await host.start()
        assert host.fingerprint is not None
        wrong = "0000-0000-0000-0000-0000-0000-0000-0000"
        shown = invite.make_invite("127.0.0.1", port, wrong)
        refused = await asyncio.to_thread(_joined, [shown], data)
        assert refused.returncode == 1
        said = IT("net_not_the_host", found=host.fingerprint, expected=wrong)
        assert refused.stderr.strip() == said
        # What the socket and TLS said is in the log, for whoever looks into it.
        log = (data / "client.log").read_text()
        assert "Connection refused" in log and wrong in log
    finally:
        await host.stop()
