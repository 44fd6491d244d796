"""A stranger on the LAN posing as a host this user joined before: listed beside it, flagged,
and opened only once the user says so.

Anyone on the LAN may advertise a known host's very instance name, or a name that
looks like it, from its own address with its own fingerprint. Trust by address
cannot see that; the names of the hosts joined from the list, remembered with the
fingerprints they proved, can.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import until
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from client import trust
from client.hosts import HostsScreen, host_row
from client.i18n import Text
from client.main import Options, join_found
from host.edge.server import Host
from host.table.state import TableSettings
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.net import discovery
from scala40_net.net.discovery import FoundHost

pytestmark = pytest.mark.timeout(60)

REAL = HostIdentity.generate().fingerprint
FORGED = HostIdentity.generate().fingerprint


def found(name: str, address: str, fp: str, service: str = "Sala 0B49") -> FoundHost:
    return FoundHost(f"{service}._scala40._tcp.local.", name, address, 4040, fp, 1)


def screen_text(screen: HostsScreen) -> str:
    return "".join(text for _, text, *_ in screen._draw_hosts(300, 10))


def footer(screen: HostsScreen) -> str:
    return "".join(text for _, text, *_ in screen._draw_footer(300, 1))


def test_a_stranger_with_a_known_host_s_instance_name_is_listed_beside_it() -> None:
    browser = discovery.Browser()
    service = "Sala 0B49._scala40._tcp.local."
    browser.listed(service, found("Sala", "192.168.1.20", REAL))
    browser.listed(service, found("Sala", "192.168.1.66", FORGED))
    assert {h.fingerprint for h in browser.hosts()} == {REAL, FORGED}
    browser.listed(service, found("Sala", "192.168.1.20", REAL))  # answered again: one row
    assert len(browser.hosts()) == 2
    browser.removed(service)
    assert browser.hosts() == []


def test_a_host_name_is_known_by_its_look_with_the_fingerprints_it_proved(tmp_path: Path) -> None:
    trust.remember_host_name(tmp_path, "Sala", REAL)
    known = trust.known_host_names(tmp_path)
    assert trust.posing_as(known, "Sala", REAL) is None
    assert trust.posing_as(known, "Sala", FORGED) == REAL
    assert trust.posing_as(known, "Ѕala", FORGED) == REAL  # a Cyrillic Ѕ: the same look
    assert trust.posing_as(known, "Casa", FORGED) is None  # never joined: nothing to compare
    trust.remember_host_name(tmp_path, "sala", FORGED)  # the user joined that one too
    assert trust.posing_as(trust.known_host_names(tmp_path), "Sala", FORGED) is None


def test_a_flagged_row_says_it_is_not_the_host_joined_before() -> None:
    host = found("Sala", "192.168.1.66", FORGED)
    assert host_row(host, Text("en"), REAL)[0].endswith("⚠ not the Sala you joined before")
    assert "⚠" not in host_row(host, Text("en"))[0]
    assert FORGED[:4] in host_row(host, Text("en"))[1]


async def test_opening_a_flagged_host_asks_first() -> None:
    known = {"sala": [REAL]}
    real, forged = found("Sala", "192.168.1.20", REAL), found("Sala", "192.168.1.66", FORGED)
    lan = [real, forged]
    with create_pipe_input() as pipe:
        screen = HostsScreen(
            Text("en"),
            lambda: lan,
            input=pipe,
            output=DummyOutput(),
            posing_as=lambda h: trust.posing_as(known, h.name, h.fingerprint),
        )
        running = asyncio.create_task(screen.run_async())
        await asyncio.sleep(0.1)
        shown = screen_text(screen).splitlines()
        assert sum("⚠" in line for line in shown) == 1
        row = next(line for line in shown if "⚠" in line)
        assert "192.168.1.66" in row
        cursor = [h.fingerprint for h in screen.hosts()].index(FORGED)
        pipe.send_text("\x1b[B" * cursor + "\r")  # Enter on the stranger
        await until(lambda: screen.asking == forged, 30)
        assert not running.done()
        assert FORGED in footer(screen) and REAL in footer(screen)
        pipe.send_text("n")  # not opened
        await until(lambda: screen.asking is None, 30)
        assert not running.done()
        pipe.send_text("\r")
        await until(lambda: screen.asking == forged, 30)
        pipe.send_text("y")  # the user knows: opened
        assert await asyncio.wait_for(running, 10) == forged


async def test_a_host_joined_from_the_list_is_remembered_by_its_name(tmp_path: Path) -> None:
    host = Host("127.0.0.1:0", tmp_path / "host", TableSettings())
    await host.start()
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    try:
        lan = FoundHost(
            "Sala x._scala40._tcp.local.",
            "Sala",
            "127.0.0.1",
            host.port,
            host.identity.fingerprint,
            1,
        )
        with create_pipe_input() as pipe:
            joining = asyncio.create_task(
                join_found(lan, Options("ann", "en"), client_dir, input=pipe, output=DummyOutput())
            )
            await asyncio.sleep(1.0)
            pipe.send_text("q")
            assert await asyncio.wait_for(joining, 10) == 0
        known = trust.known_host_names(client_dir)
        assert trust.posing_as(known, "Sala", host.identity.fingerprint) is None
        assert trust.posing_as(known, "Sala", FORGED) == host.identity.fingerprint
    finally:
        await host.stop(grace=0.2)


async def test_a_host_that_does_not_prove_its_fingerprint_is_not_remembered_by_name(
    tmp_path: Path,
) -> None:
    host = Host("127.0.0.1:0", tmp_path / "host", TableSettings())
    await host.start()
    try:
        lan = FoundHost("Sala x._scala40._tcp.local.", "Sala", "127.0.0.1", host.port, FORGED, 1)
        assert await join_found(lan, Options("ann", "en"), tmp_path) == 1
        assert trust.known_host_names(tmp_path) == {}
    finally:
        await host.stop(grace=0.2)
