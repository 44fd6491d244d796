"""The conformance check: our network bot passes it; broken clients fail it, the right check named.

Every run is a real host (TLS) on 127.0.0.1 and a real client over gRPC. The
JavaScript example's run is in tests/test_js_client.py (it needs node and npm).
"""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import sys
from typing import Any

from host.conformance.check import Conformance, Invitation, _resumed_wrongly
from host.conformance.script import Check, Script
from scala40_net.bots import make_bot
from scala40_net.pb import lobby_pb2
from scala40_net.seat import netbot
from scala40_net.seat.netbot import NetworkSeat

# The eight checks every client must pass, as the report names them.
CHECKS = (
    "left-out seat",
    "derived cut",
    "stale view refusal",
    "rule refusal",
    "not saved refusal",
    "stock rebuild",
    "dropped stream",
    "host restart",
)


async def _conformance(client: Any, check_seconds: float = 15.0) -> tuple[Script, list[str]]:
    said: list[str] = []
    run = Conformance(check_seconds=check_seconds, say=said.append)
    script = await asyncio.wait_for(run.run(client), timeout=240)
    return script, said


def _verdicts(script: Script) -> dict[str, bool | None]:
    return {check.name: check.passed for check in script.checks}


async def _seat(invitation: Invitation, kind: type[NetworkSeat] = NetworkSeat) -> NetworkSeat:
    """A network bot seat joined to the conformance table, over TLS with the invite's pin."""
    channel, _ = await netbot.connect(invitation.invite)
    seat = kind(channel, invitation.table_id, make_bot("medium", random.Random(7)))
    host = await seat.lobby.GetHostInfo(lobby_pb2.GetHostInfoRequest())
    assert host.host_fingerprint == invitation.fingerprint
    await seat.join("under test")
    return seat


def test_our_network_bot_passes_every_check_from_the_command_line() -> None:
    """``scala40-conformance -- scala40-bot {invite} --table {table}``: exit 0, each check PASS."""
    bot = [sys.executable, "-m", "scala40_net.seat.netbot", "{invite}", "--table", "{table}"]
    bot += ["--rematch-wait", "0"]
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from host.conformance.check import main; sys.exit(main())",
            "--",
            *bot,
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(CHECKS)} of {len(CHECKS)} checks passed" in done.stdout
    for name in CHECKS:
        assert f"PASS  {name}" in done.stdout, done.stdout
    assert "scala40://127.0.0.1:" in done.stdout  # the invite the client was given
    # It moved on its seat's stream: every stream it opened was one.
    followed = re.search(r"on (\d+) stream\(s\), (\d+) of them the seat's stream", done.stdout)
    assert followed is not None and followed[1] == followed[2] != "0", done.stdout


async def test_a_client_that_does_not_resubscribe_fails_the_dropped_stream() -> None:
    async def once(invitation: Invitation) -> None:
        seat = await _seat(invitation)
        await seat.play_match()  # no play_to_end: the dropped stream ends it

    script, said = await _conformance(once, check_seconds=5.0)
    verdicts = _verdicts(script)
    assert not script.passed
    assert verdicts["dropped stream"] is False
    assert script.dropped.seen.startswith("the client exited: no SubscribeEvents")
    assert verdicts["host restart"] is None  # never reached
    assert all(verdicts[name] for name in ("left-out seat", "stale view refusal", "stock rebuild"))
    assert any(line.startswith("FAIL  dropped stream") for line in said)


class IgnoresRefusals(NetworkSeat):
    """Takes a refusal as the end of its move: it waits for the next event, which never comes."""

    async def _send_move(self, method: Any, request: Any) -> str:
        outcome = await super()._send_move(method, request)
        return "failed" if outcome in ("stale", "refused") else outcome


async def test_a_client_that_ignores_a_stale_view_fails_that_check() -> None:
    async def stubborn(invitation: Invitation) -> None:
        seat = await _seat(invitation, IgnoresRefusals)
        await seat.play_to_end()

    script, said = await _conformance(stubborn, check_seconds=3.0)
    verdicts = _verdicts(script)
    assert verdicts["left-out seat"] and verdicts["derived cut"]
    assert verdicts["stale view refusal"] is False
    assert "nothing within 3 s" in script.stale_view.seen
    assert "draw scripted STALE_VIEW" in script.stale_view.seen
    assert sum(1 for line in said if line.startswith("FAIL")) == 6  # that one and the rest
    assert said[-1] == "2 of 8 checks passed"


class DrawsAgainUnread(NetworkSeat):
    """After STALE_VIEW sends the same Draw again at once, a new request id, the table unread."""

    async def _send_move(self, method: Any, request: Any) -> str:
        outcome = await super()._send_move(method, request)
        if outcome == "stale":
            request.context.request_id += "-again"
            outcome = await super()._send_move(method, request)
        return outcome


async def test_a_client_that_does_not_read_the_table_after_a_stale_view_fails_that_check() -> None:
    # PROTOCOL.md "A turn": after STALE_VIEW, GetView, then a new move decided on that view.
    async def unread(invitation: Invitation) -> None:
        seat = await _seat(invitation, DrawsAgainUnread)
        await seat.play_to_end()

    script, _ = await _conformance(unread, check_seconds=5.0)
    assert script.stale_view.passed is False
    assert "without reading the table again" in script.stale_view.seen
    assert script.rule_refusal.passed  # the run goes on


class RepeatsItsPlay(NetworkSeat):
    """Sends a refused play again, unchanged, with a new request id (then another one)."""

    async def _send_move(self, method: Any, request: Any) -> str:
        outcome = await super()._send_move(method, request)
        if outcome == "refused":
            request.context.request_id += "-again"
            outcome = await super()._send_move(method, request)
        return outcome


async def test_a_client_that_repeats_a_refused_play_fails_the_rule_refusal() -> None:
    async def repeating(invitation: Invitation) -> None:
        seat = await _seat(invitation, RepeatsItsPlay)
        await seat.play_to_end()

    script, _ = await _conformance(repeating, check_seconds=5.0)
    assert script.rule_refusal.passed is False
    assert script.rule_refusal.seen == "the client sent the refused play again, unchanged"
    # The run goes on: the client carries on with another play, and the rest is checked.
    assert script.stale_view.passed and script.rebuild.passed


def test_a_resume_passes_unless_it_misses_events_or_asks_for_a_snapshot() -> None:
    assert _resumed_wrongly(40, given=40) is None
    assert _resumed_wrongly(39, given=40) is None  # event 40 may not have reached it
    assert "a snapshot" in (_resumed_wrongly(0, given=40) or "")
    assert "41..41 are missed" in (_resumed_wrongly(41, given=40) or "")


def test_a_check_keeps_its_first_verdict() -> None:
    check = Check("x", "something")
    assert check.line().startswith("FAIL")  # undecided is not a pass
    check.decide(False, "first")
    check.decide(True, "later")
    assert (check.passed, check.seen) == (False, "first")
