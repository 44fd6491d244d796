"""The Node.js example client (examples/js-client/) against the fair-deal vectors and a real host.

It was written from protos/ and docs/ alone; here it checks itself against
tests/vectors/fair_deal_v1.json, plays a whole match on loopback with a Python
network bot and host bots (every deal verified by the JS client itself and by
scala40-verify), resumes its stream across a host restart in mid-deal, and
passes the conformance check (scala40-conformance) as PROTOCOL.md tells anyone to run it.
Skipped, saying so, where node or npm is not installed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scala40_net import wire
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc
from tests.hostproc import HostProcess, free_port
from tests.test_conformance import CHECKS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "js-client"
NODE, NPM = shutil.which("node"), shutil.which("npm")
VERIFY = Path(sys.executable).with_name("scala40-verify")
NETBOT = Path(sys.executable).with_name("scala40-bot")
CONFORMANCE = Path(sys.executable).with_name("scala40-conformance")

pytestmark = [
    pytest.mark.skipif(
        NODE is None or NPM is None,
        reason="node and npm are not installed: the JavaScript example is not tested",
    ),
    # One worker runs them all: node_modules is installed once, into the example's own folder.
    pytest.mark.xdist_group("js_client"),
    pytest.mark.long(10),
]
MATCH_SECONDS = 180


def _usable() -> bool:
    """The example's dependencies load (a tree npm left half made does not)."""
    done = subprocess.run(
        [str(NODE), "-e", "require('@grpc/grpc-js'); require('@grpc/proto-loader')"],
        cwd=EXAMPLE, capture_output=True, timeout=60,
    )  # fmt: skip
    return done.returncode == 0


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """``npm ci`` in the example, only when node_modules is missing, does not load, or the lock
    file changed; a tree that still does not load after it is made once more."""
    lock = EXAMPLE / "package-lock.json"
    stamp = EXAMPLE / "node_modules" / ".installed-from-lock"
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()
    for _ in range(2):
        if stamp.exists() and stamp.read_text() == digest and _usable():
            break
        done = subprocess.run(
            [str(NPM), "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=EXAMPLE,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        stamp.write_text(digest)  # npm ci empties node_modules first, so a stale stamp goes too
    assert _usable(), "the example's dependencies do not load after npm ci"
    return EXAMPLE / "node_modules"


def node(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(NODE), *args], cwd=EXAMPLE, capture_output=True, text=True, timeout=timeout
    )


def test_the_example_checks_itself_against_the_vectors(node_modules: Path) -> None:
    done = node("check_vectors.js")
    assert done.returncode == 0, done.stdout + done.stderr
    vectors = json.loads((ROOT / "tests" / "vectors" / "fair_deal_v1.json").read_text())
    bindings = json.loads((ROOT / "tests" / "vectors" / "tls_binding_v1.json").read_text())
    cases = len(vectors["deals"]) + len(vectors["recorded_deals"]) + 1 + len(bindings["cases"])
    assert f"vectors ok: {cases} cases" in done.stdout


def test_the_example_reads_invites_as_protocol_md_says(node_modules: Path) -> None:
    done = node("check_invites.js")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "invites ok: 14 cases" in done.stdout


def test_the_example_decodes_the_records_protocol_md_shows(node_modules: Path) -> None:
    done = node("check_discovery.js")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "discovery ok" in done.stdout


def test_the_example_finds_a_host_advertised_on_the_lan(node_modules: Path) -> None:
    """``node discover.js``: one query from a port of its own, the host's answer read."""
    from scala40_net.fairdeal.identity import HostIdentity
    from scala40_net.net import discovery

    addresses = [a for a in discovery.advertised_addresses("0.0.0.0:4040") if ":" not in a]
    if not addresses:
        pytest.skip("no IPv4 address but loopback: nothing to advertise on")
    fingerprint = HostIdentity.generate().fingerprint  # this test's own host, whoever else runs

    async def advertise_and_browse() -> str:
        advertiser = discovery.Advertiser(addresses[:1], 4040, "js test", fingerprint, lambda: 1)
        try:
            await advertiser.start()
        except discovery.DiscoveryError as error:
            pytest.skip(f"mDNS cannot run here: {error}")
        try:
            browse = await asyncio.create_subprocess_exec(
                str(NODE), "discover.js", "3", cwd=EXAMPLE, stdout=subprocess.PIPE
            )
            out, _ = await asyncio.wait_for(browse.communicate(), timeout=30)
            return out.decode()
        finally:
            await advertiser.stop()

    found = asyncio.run(advertise_and_browse())
    assert f"scala40://{addresses[0]}:4040/?fp={fingerprint}" in found, found
    assert "js test  1 open" in found, found


@pytest.mark.parametrize("where", ["deals", "recorded_deals"])
def test_the_vector_check_fails_on_a_changed_answer(
    node_modules: Path, tmp_path: Path, where: str
) -> None:
    vectors = json.loads((ROOT / "tests" / "vectors" / "fair_deal_v1.json").read_text())
    case = vectors[where][0]
    hands = case["hands"]
    hands[0]["cards"][0], hands[1]["cards"][0] = hands[1]["cards"][0], hands[0]["cards"][0]
    changed = tmp_path / "vectors.json"
    changed.write_text(json.dumps(vectors))
    done = node("check_vectors.js", str(changed))
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"FAILED {case['name']}: hands" in done.stderr


def test_the_vector_check_fails_on_a_tls_binding_it_would_take(
    node_modules: Path, tmp_path: Path
) -> None:
    bindings = json.loads((ROOT / "tests" / "vectors" / "tls_binding_v1.json").read_text())
    refused = next(c for c in bindings["cases"] if c["name"] == "a bad binding")
    refused["accepted"] = True  # the example must refuse it all the same
    changed = tmp_path / "tls.json"
    changed.write_text(json.dumps(bindings))
    vectors = ROOT / "tests" / "vectors" / "fair_deal_v1.json"
    done = node("check_vectors.js", str(vectors), str(changed))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED TLS: a bad binding" in done.stderr


def test_the_example_passes_the_conformance_check(node_modules: Path) -> None:
    """``scala40-conformance -- node examples/js-client/play.js {invite} --table {table}``."""
    client = [str(NODE), str(EXAMPLE / "play.js"), "{invite}", "--table", "{table}"]
    done = subprocess.run(
        [str(CONFORMANCE), "--", *client], capture_output=True, text=True, timeout=240
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert f"{len(CHECKS)} of {len(CHECKS)} checks passed" in done.stdout, out
    for name in CHECKS:
        assert f"PASS  {name}" in done.stdout, out
    # Each refusal handled as PROTOCOL.md says, in the client's own words: the stale Draw
    # decided again, the refused Play printed with its rule and replaced by another, the
    # unsaved Draw sent again as it was.
    assert "Draw refused, STALE_VIEW: reading the table again" in done.stdout, out
    assert f"host contract version {wire.CONTRACT_VERSION}\n" in done.stdout, out  # GetHostInfo
    rule = r"^refused Play \(.*\): FAILED_PRECONDITION RULE_VIOLATION R3 "
    assert re.search(rule, out, re.M), out
    assert "Draw not saved: sending it again, the same request id" in done.stdout, out
    assert "the Draw was sent again (the same request_id) and accepted" in done.stdout, out
    # Every stream it opened was the seat's stream: its moves went on it, answered there.
    followed = re.search(r"on (\d+) stream\(s\), (\d+) of them the seat's stream", done.stdout)
    assert followed is not None and followed[1] == followed[2] != "0", out
    _check_refusals(done.stdout)


async def _lines(stream: asyncio.StreamReader, into: list[str], seen: asyncio.Event) -> None:
    while line := await stream.readline():
        into.append(line.decode().rstrip("\n"))
        seen.set()


async def _wait_for(lines: list[str], seen: asyncio.Event, pattern: str) -> re.Match[str]:
    async with asyncio.timeout(60):
        while True:
            for line in lines:
                if found := re.search(pattern, line):
                    return found
            seen.clear()
            await seen.wait()


class JsPlayer:
    """``node play.js`` as a child process, its output lines collected as they come."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.seen = asyncio.Event()

    async def start(self, *args: str) -> None:
        self.process = await asyncio.create_subprocess_exec(
            str(NODE),
            "play.js",
            *args,
            cwd=EXAMPLE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        assert self.process.stdout is not None
        self.reader = asyncio.create_task(_lines(self.process.stdout, self.lines, self.seen))

    async def wait_for(self, pattern: str) -> re.Match[str]:
        return await _wait_for(self.lines, self.seen, pattern)

    async def finish(self) -> int:
        try:
            async with asyncio.timeout(MATCH_SECONDS):
                code = await self.process.wait()
                await self.reader
        except TimeoutError:
            raise AssertionError(f"not over in {MATCH_SECONDS} s:\n{self.output}") from None
        return code

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()

    @property
    def output(self) -> str:
        return "\n".join(self.lines)


def _verify_records(records: Path, fingerprint: str) -> list[int]:
    """scala40-verify on every record the JS client saved, with its own seed and cut."""
    deals = []
    for path in sorted(records.glob("deal-*.seed.json")):
        mine = json.loads(path.read_text())
        record = path.with_name(path.name.replace(".seed", ""))
        args = [str(VERIFY), str(record), "--host-fingerprint", fingerprint]
        if mine["seed"]:
            args += ["--seat", str(mine["seat"]), "--my-seed", mine["seed"]]
            args += ["--my-cut", str(mine["cut"])]
        done = subprocess.run(args, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and done.stdout.startswith("verified:"), done.stdout
        if mine["seed"]:
            assert f"seat {mine['seat']}: seed in the mix" in done.stdout
        deals.append(json.loads(record.read_text())["deal_no"])
    return deals


def _check_refusals(output: str) -> None:
    # Every refusal of a move the JS client printed names its rule and says why.
    for line in output.splitlines():
        if line.startswith("refused Play"):
            assert re.search(r"RULE_VIOLATION R\d+(\.\d+)? \S", line), line


async def test_a_whole_match_with_a_python_bot_and_host_bots(
    node_modules: Path, tmp_path: Path
) -> None:
    options = ("--bot-delay", "0", "--commit-timeout", "20", "--reveal-timeout", "20")
    host = HostProcess(tmp_path / "host", free_port(), *options)
    await host.start()
    assert host.fingerprint is not None
    js, records = JsPlayer(), tmp_path / "records"
    bot: asyncio.subprocess.Process | None = None
    try:
        await js.start(
            f"127.0.0.1:{host.port}",
            *("--fingerprint", host.fingerprint, "--name", "ada", "--seats", "4", "--bots", "2"),
            *("--deals", "2", "--records", str(records)),
        )
        table = (await js.wait_for(r"^table (\S+) seat (\d+) host (\S+)$")).group(1)
        bot = await asyncio.create_subprocess_exec(
            str(NETBOT),
            f"127.0.0.1:{host.port}",
            *("--table", table, "--fingerprint", host.fingerprint, "--name", "pybot"),
            *("--rematch-wait", "0"),  # it leaves at the match's end
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        async with asyncio.timeout(MATCH_SECONDS):
            bot_output, _ = await bot.communicate()
        code = await js.finish()
    finally:
        js.kill()
        if bot is not None and bot.returncode is None:
            bot.kill()
        await host.stop()
    assert code == 0, js.output
    assert bot.returncode == 0, bot_output.decode()
    assert re.search(r"^match over: winners \d", js.output, re.M), js.output

    # Every deal was verified by the JS client, by the Python bot and by scala40-verify.
    js_deals = [int(n) for n in re.findall(r"^deal (\d+) verified: ", js.output, re.M)]
    bot_deals = [
        int(n) for n in re.findall(r"deal (\d+) over: .*; record verified", bot_output.decode())
    ]
    assert js_deals and js_deals == bot_deals == _verify_records(records, host.fingerprint)
    _check_refusals(js.output)


async def test_the_stream_resumes_across_a_host_restart_in_mid_deal(
    node_modules: Path, tmp_path: Path
) -> None:
    # Bots that think a little, so that the deal is still being played when the host goes.
    options = ("--bot-delay", "0.3", "--commit-timeout", "20", "--reveal-timeout", "20")
    host = HostProcess(tmp_path / "host", free_port(), *options)
    await host.start()
    assert host.fingerprint is not None
    js, records = JsPlayer(), tmp_path / "records"
    try:
        await js.start(
            f"scala40://127.0.0.1:{host.port}/?fp={host.fingerprint}",  # an invite pins it
            *("--seats", "2", "--bots", "1"),
            *("--deals", "1", "--records", str(records)),
        )
        dealt = await js.wait_for(r"^deal (\d+): first discard")
        await js.wait_for(r"^played: ")  # its first turn of the deal is over
        await host.kill()  # SIGKILL: no goodbye to the streams
        await asyncio.sleep(0.5)
        await host.start()  # the same data dir and port: the table comes back from its journal
        code = await js.finish()
    finally:
        js.kill()
        await host.stop()
    assert code == 0, js.output
    assert re.search(r"^stream dropped \(\w+\): resuming after seq \d+", js.output, re.M)
    assert re.search(r"^resumed after seq \d+", js.output, re.M), js.output
    # The deal the restart cut in two was verified from the bytes of both halves.
    interrupted = int(dealt.group(1))
    assert re.search(rf"^deal {interrupted} verified: ", js.output, re.M), js.output
    assert interrupted in _verify_records(records, host.fingerprint)


async def test_a_host_with_another_fingerprint_is_refused_before_any_call(
    node_modules: Path, tmp_path: Path
) -> None:
    host = HostProcess(tmp_path / "host", free_port())
    await host.start()
    try:
        wrong = "6668-7AAD-F862-BD77-6C8F-C18B-8E9F-8E20"
        done = await asyncio.to_thread(
            node, "play.js", f"127.0.0.1:{host.port}", "--fingerprint", wrong
        )
        assert host.channel is not None
        tables = await lobby_pb2_grpc.LobbyServiceStub(host.channel).ListTables(
            lobby_pb2.ListTablesRequest()
        )
    finally:
        await host.stop()
    assert done.returncode == 1
    assert f"host fingerprint {host.fingerprint}, not {wrong}: refusing" in done.stderr
    assert not tables.tables  # nothing was asked of the host


async def test_a_client_started_again_picks_up_the_deal_from_a_snapshot(
    node_modules: Path, tmp_path: Path
) -> None:
    options = ("--bot-delay", "0.3", "--commit-timeout", "20", "--reveal-timeout", "20")
    host = HostProcess(tmp_path / "host", free_port(), *options)
    await host.start()
    assert host.fingerprint is not None
    seat_file, records = tmp_path / "seat.json", tmp_path / "records"
    args = (
        f"127.0.0.1:{host.port}",
        *("--fingerprint", host.fingerprint, "--seats", "2", "--bots", "1", "--deals", "1"),
        *("--records", str(records), "--seat-file", str(seat_file)),
    )
    first, again = JsPlayer(), JsPlayer()
    try:
        await first.start(*args)
        dealt = await first.wait_for(r"^deal (\d+): first discard")
        await first.wait_for(r"^played: ")
        first.kill()  # SIGKILL: the program, its seed and its stream are gone
        await first.process.wait()
        assert seat_file.stat().st_mode & 0o077 == 0  # the token is the seat: owner-only
        await again.start(*args)
        code = await again.finish()
    finally:
        first.kill()
        again.kill()
        await host.stop()
    assert code == 0, again.output
    assert "(taken up again)" in again.lines[0]
    interrupted = int(dealt.group(1))
    # From after_seq 0 the host sends a snapshot with the deal's bytes so far and the
    # seat's own private events: enough to verify the deal (the seed is the old run's).
    snapshot = re.search(
        rf"^snapshot at seq \d+: deal {interrupted}, (\d+) events so far, (\d+) of them",
        again.output,
        re.M,
    )
    assert snapshot and int(snapshot.group(1)) > 4 and int(snapshot.group(2)) >= 1, again.output
    assert re.search(rf"^deal {interrupted} verified: ", again.output, re.M), again.output
    assert interrupted in _verify_records(records, host.fingerprint)
