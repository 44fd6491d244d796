"""A real LAN: separate network stacks (namespaces) on one bridge, the host on ``0.0.0.0``.

Machine 1 runs ``scala40-host``; machines 2 and 3 run the network clients. A
whole 4-seat match (two ``scala40-bot`` clients, two host bots) is played
across it, every deal verified with ``scala40-verify``, and one client's cable
is pulled mid-deal and plugged back: it resumes with no gap in its events.
Discovery is tested here only: a client on machine 2 finds the host on machine
1, and not the hosts that must not advertise. Everything is torn down at the
end, also on failure; without root or ``ip netns`` the tests are skipped.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import netns

pytestmark = [pytest.mark.timeout(300), pytest.mark.long(30)]

WHY_NOT = netns.unavailable()
if WHY_NOT:
    pytest.skip(f"no LAN of network namespaces: {WHY_NOT}", allow_module_level=True)

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
PORT = 4040


def tool(name: str, module: str) -> list[str]:
    """The installed command, or the module with this interpreter where it is not installed."""
    script = BIN / name
    return [str(script)] if script.exists() else [sys.executable, "-m", module]


@dataclass
class Machine:
    lan: netns.Lan
    number: int

    @property
    def address(self) -> str:
        return self.lan.address(self.number)

    def start(self, argv: list[str], log: Path) -> subprocess.Popen[bytes]:
        out = open(log, "ab")  # noqa: SIM115 - the child keeps it open
        try:
            return subprocess.Popen(self.lan.command(self.number, argv), stdout=out, stderr=out)
        finally:
            out.close()

    def run(self, argv: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.lan.command(self.number, argv),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def wait_for(what: str, check: object, timeout: float, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.1)
    tail = log.read_text(errors="replace")[-3000:] if log is not None and log.exists() else ""
    raise AssertionError(f"{what}: not within {timeout:g} s\n{tail}")


class RunningHost:
    """``scala40-host`` on one machine; ``fingerprint`` once it listens."""

    def __init__(self, machine: Machine, data_dir: Path, listen: str, *options: str) -> None:
        self.log = data_dir.parent / f"{data_dir.name}.log"
        argv = [*tool("scala40-host", "host"), "--listen", listen, "--data-dir", str(data_dir)]
        argv += ["--bot-delay", "0.1", "--commit-timeout", "20", "--reveal-timeout", "20"]
        self.process = machine.start([*argv, *options], self.log)
        wait_for("the host listens", lambda: "fingerprint" in self.output(), 30, self.log)
        found = re.search(r"host fingerprint ([0-9A-F-]{39})", self.output())
        assert found is not None, self.output()
        self.fingerprint = found.group(1)

    def output(self) -> str:
        assert self.process.poll() is None, self.log.read_text(errors="replace")
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def lan() -> Iterator[netns.Lan]:
    made = netns.Lan(3)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def stopping() -> Iterator[list[subprocess.Popen[bytes] | RunningHost]]:
    """Every process a test starts, stopped at its end whatever happened."""
    started: list[subprocess.Popen[bytes] | RunningHost] = []
    try:
        yield started
    finally:
        for item in reversed(started):
            if isinstance(item, RunningHost):
                item.stop()
            elif item.poll() is None:
                item.kill()
                item.wait()


def events(record_dir: Path) -> tuple[list[tuple[int, str]], int]:
    """A bot's stream log: its events as (seq, kind), and how often its connection dropped."""
    seen, drops = [], 0
    path = record_dir / "stream.log"
    for line in path.read_text().splitlines() if path.exists() else []:
        word, _, rest = line.partition(" ")
        if word == "event":
            seq, _, kind = rest.partition(" ")
            seen.append((int(seq), kind))
        elif word == "reconnect":
            drops += 1
    return seen, drops


def test_a_match_across_the_lan_survives_a_pulled_cable(
    lan: netns.Lan,
    tmp_path: Path,
    stopping: list[subprocess.Popen[bytes] | RunningHost],
) -> None:
    host_machine, ann_machine, bea_machine = (Machine(lan, i) for i in (1, 2, 3))
    host = RunningHost(host_machine, tmp_path / "host", f"0.0.0.0:{PORT}", "--no-advertise")
    stopping.append(host)
    address = f"{host_machine.address}:{PORT}"

    # Machine 2: a table of 4 with two host bots; Ann's seat goes to a network bot there.
    token_file = tmp_path / "ann.token"
    organiser_log = tmp_path / "organiser.log"
    organiser = ann_machine.start(
        [sys.executable, str(HERE / "lan_table.py"), address, host.fingerprint, str(token_file)],
        organiser_log,
    )
    stopping.append(organiser)
    wait_for("the table is made", lambda: token_file.exists(), 30, organiser_log)
    wait_for("its id", lambda: len(organiser_log.read_text().split()) >= 1, 10, organiser_log)
    table_id = organiser_log.read_text().split()[0]

    bot = [*tool("scala40-bot", "scala40_net.seat.netbot"), address, "--table", table_id]
    bot += ["--fingerprint", host.fingerprint, "--level", "easy", "--rematch-wait", "0"]
    ann_dir, bea_dir = tmp_path / "ann", tmp_path / "bea"
    ann = ann_machine.start(
        [*bot, "--seat-token-file", str(token_file), "--record-dir", str(ann_dir), "--seed", "1"],
        tmp_path / "ann.log",
    )
    bea = bea_machine.start(
        [*bot, "--name", "Bea", "--record-dir", str(bea_dir), "--seed", "2"],
        tmp_path / "bea.log",
    )
    stopping += [ann, bea]
    assert organiser.wait(timeout=60) == 0, organiser_log.read_text()

    # Mid-deal: the first deal is being played (cards drawn), its record not yet signed.
    def playing() -> bool:
        kinds = [kind for _, kind in events(bea_dir)[0]]
        return kinds.count("deal") >= 12

    wait_for("the first deal is under way", playing, 60, tmp_path / "bea.log")
    assert "deal_signed" not in [kind for _, kind in events(bea_dir)[0]]
    lan.link(3, up=False)  # Bea's cable pulled
    try:
        # Until her client knows its connection is gone (the keepalive: well within a minute).
        wait_for("Bea's client sees the link gone", lambda: events(bea_dir)[1] >= 1, 90)
        time.sleep(3)  # the others play on meanwhile: events she must get when she is back
    finally:
        lan.link(3, up=True)

    for name, process in (("ann", ann), ("bea", bea)):
        assert process.wait(timeout=240) == 0, (tmp_path / f"{name}.log").read_text()
        assert "match over" in (tmp_path / f"{name}.log").read_text()

    # Bea resumed after the last event she had: a snapshot first, then every seq once, in
    # order, across the drop; the match played on to its end.
    seen, drops = events(bea_dir)
    assert drops >= 1
    assert seen[0][1] == "snapshot" and "snapshot" not in [kind for _, kind in seen[1:]]
    numbers = [seq for seq, _ in seen]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), numbers
    assert "match_update" in [kind for _, kind in seen]

    # Every deal verified with each client's own seed, offline, by scala40-verify.
    for record_dir in (ann_dir, bea_dir):
        records = sorted(record_dir.glob("deal-*[0-9].json"))
        assert len(records) >= 2, sorted(p.name for p in record_dir.iterdir())
        for record in records:
            mine = json.loads(record.with_suffix(".seat.json").read_text())
            argv = [*tool("scala40-verify", "scala40_net.verifier"), str(record)]
            argv += ["--host-fingerprint", host.fingerprint, "--seat", str(mine["seat"])]
            if "seed" in mine:
                argv += ["--my-seed", mine["seed"], "--my-cut", str(mine["cut"])]
            checked = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            assert checked.returncode == 0, (record, checked.stdout, checked.stderr)
            assert checked.stdout.startswith("verified:")
            assert "seed in the mix" in checked.stdout, checked.stdout


def test_a_client_on_one_machine_finds_the_host_on_another_and_joins_it(
    lan: netns.Lan,
    tmp_path: Path,
    stopping: list[subprocess.Popen[bytes] | RunningHost],
) -> None:
    host_machine, client_machine, other_machine = (Machine(lan, i) for i in (1, 2, 3))
    host = RunningHost(host_machine, tmp_path / "sala", f"0.0.0.0:{PORT}", "--name", "Sala")
    stopping.append(host)
    assert f"on the LAN as 'Sala' (_scala40._tcp.local. on {host_machine.address})" in (
        host.output()
    )
    # Hosts that must not be listed: one told not to, one on loopback only, one without TLS
    # (nothing to pin).
    quiet = RunningHost(other_machine, tmp_path / "quiet", f"0.0.0.0:{PORT}", "--no-advertise")
    local = RunningHost(other_machine, tmp_path / "local", f"127.0.0.1:{PORT + 1}")
    clear = RunningHost(other_machine, tmp_path / "clear", f"0.0.0.0:{PORT + 2}", "--insecure")
    stopping += [quiet, local, clear]
    assert "on the LAN as" not in quiet.output() + local.output() + clear.output()
    assert "not on the LAN's lists: without TLS there is no fingerprint to pin" in clear.output()

    browse = [sys.executable, "-m", "scala40_net.net.discovery", "--interface"]
    browse += [client_machine.address]
    found = client_machine.run([*browse, "--seconds", "4"], timeout=60)
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines() == [
        f"Sala\t{host_machine.address}:{PORT}\t{host.fingerprint}\topen 0"
    ]

    # The count of open tables follows the host: a table made while a browser listens.
    listening = client_machine.start([*browse, "--seconds", "12"], tmp_path / "browse.log")
    stopping.append(listening)
    time.sleep(3)
    token_file = tmp_path / "ann.token"
    organiser = client_machine.start(
        [
            sys.executable,
            str(HERE / "lan_table.py"),
            f"{host_machine.address}:{PORT}",
            host.fingerprint,
            str(token_file),
        ],
        tmp_path / "organiser.log",
    )
    stopping.append(organiser)
    assert listening.wait(timeout=60) == 0, (tmp_path / "browse.log").read_text()
    assert (tmp_path / "browse.log").read_text().splitlines() == [
        f"Sala\t{host_machine.address}:{PORT}\t{host.fingerprint}\topen 1"
    ]

    # scala40 with no address: the host listed, Enter, its lobby opened, its fingerprint
    # pinned and remembered.
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    visit = client_machine.run(
        [sys.executable, str(HERE / "lan_client.py"), client_machine.address, str(client_dir)],
        timeout=60,
    )
    assert visit.returncode == 0, visit.stdout + visit.stderr
    known = json.loads((client_dir / "known_hosts.json").read_text())
    assert known == {f"{host_machine.address}:{PORT}": host.fingerprint}

    # Gone from the LAN with the host: it says goodbye when it stops.
    host.stop()
    gone = client_machine.run([*browse, "--seconds", "3"], timeout=60)
    assert gone.returncode == 1 and gone.stdout == "", gone.stdout


def test_a_host_that_cannot_advertise_serves_all_the_same_and_says_why(
    lan: netns.Lan,
    tmp_path: Path,
    stopping: list[subprocess.Popen[bytes] | RunningHost],
) -> None:
    host_machine, client_machine = Machine(lan, 1), Machine(lan, 2)
    # Another program holds the mDNS port on machine 1, without sharing it.
    holder = host_machine.start(
        [
            sys.executable,
            "-c",
            "import socket, time; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
            "s.bind(('0.0.0.0', 5353)); print('held', flush=True); time.sleep(120)",
        ],
        tmp_path / "holder.log",
    )
    stopping.append(holder)
    wait_for("the port is held", lambda: "held" in (tmp_path / "holder.log").read_text(), 20)
    host = RunningHost(host_machine, tmp_path / "sala", f"0.0.0.0:{PORT}", "--name", "Sala")
    stopping.append(host)
    assert (
        f"not on the LAN's lists: cannot advertise on {host_machine.address}: "
        "[Errno 98] Address already in use"
    ) in host.output()
    # Its invite names its LAN address and works: the host proves its fingerprint.
    assert f"invite: scala40://{host_machine.address}:{PORT}/?fp={host.fingerprint}" in (
        host.output()
    )
    probe = "import asyncio, sys; from scala40_net.net import tls; "
    probe += (
        f"print(asyncio.run(tls.fetch_certificate('{host_machine.address}', {PORT})).fingerprint)"
    )
    proved = client_machine.run([sys.executable, "-c", probe], timeout=60)
    assert proved.stdout.strip() == host.fingerprint, proved.stderr
    # Not listed; and a browser where the port is held says it cannot look.
    browse = [sys.executable, "-m", "scala40_net.net.discovery", "--seconds", "2", "--interface"]
    missing = client_machine.run([*browse, client_machine.address], timeout=60)
    assert missing.returncode == 1 and missing.stdout == ""
    blocked = host_machine.run([*browse, host_machine.address], timeout=60)
    assert blocked.returncode == 2
    assert f"cannot look for hosts on {host_machine.address}" in blocked.stderr
    # The client there says so, and how else to join, instead of an empty list.
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    visit = host_machine.run(
        [sys.executable, str(HERE / "lan_client.py"), host_machine.address, str(client_dir)],
        timeout=60,
    )
    assert visit.returncode == 1
    assert f"No list of LAN hosts: cannot look for hosts on {host_machine.address}" in (
        visit.stderr
    )
    assert "Join by the host's address or invite instead" in visit.stderr
