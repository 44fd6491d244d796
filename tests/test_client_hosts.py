"""The list of LAN hosts (``scala40`` with no address), and joining a host found there.

The screen is driven with prompt_toolkit's pipe input; the hosts it lists are
what a browser hands it. Joining uses a real host on 127.0.0.1: the advertised
fingerprint is pinned, and never wins over a different one this user
remembers for that address. Finding hosts over multicast is tested in
network namespaces only (tests/test_lan_netns.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import until
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from client.hosts import HostsScreen, host_row
from client.i18n import Text
from client.main import Options, join_found
from client.trust import TRUST_FILE, check_fingerprint
from host.edge.server import Host
from host.table.state import TableSettings
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.net.discovery import FoundHost

pytestmark = pytest.mark.timeout(60)


def found(
    name: str, address: str, port: int = 4040, fp: str = "", open_tables: int = 0
) -> FoundHost:
    fingerprint = fp or HostIdentity.generate().fingerprint
    return FoundHost(f"{name}._scala40._tcp.local.", name, address, port, fingerprint, open_tables)


def screen_text(screen: HostsScreen) -> str:
    return "".join(text for _, text, *_ in screen._draw_hosts(200, 10))


async def test_hosts_appear_as_they_answer_and_enter_opens_the_one_chosen() -> None:
    lan: list[FoundHost] = []
    with create_pipe_input() as pipe:
        screen = HostsScreen(
            Text("en"), lambda: lan, input=pipe, output=DummyOutput(), patience=0.3
        )
        running = asyncio.create_task(screen.run_async())
        await asyncio.sleep(0.1)
        assert "Looking for hosts" in screen_text(screen)
        pipe.send_text("\r")  # nothing listed: Enter does nothing
        # Once its patience (0.3 s) is over, however late a busy machine runs its timer.
        await until(lambda: "No host answered yet" in screen_text(screen), 30)
        assert not running.done()
        lan.append(found("Casa", "192.168.1.20", open_tables=2))
        lan.append(found("Sala", "192.168.1.30", 4041, open_tables=0))
        screen.changed()
        shown = screen_text(screen)
        for host in lan:
            assert host.name in shown and host.target in shown
            assert host.fingerprint.split("-")[0] in shown
        assert "open tables: 2" in shown and "open tables: 0" in shown
        pipe.send_text("\x1b[B")  # down
        await until(lambda: screen.cursor == 1, 30)
        pipe.send_text("\r")
        chosen = await asyncio.wait_for(running, 30)
    assert chosen == lan[1]


async def test_q_leaves_the_list_with_nothing_and_a_host_gone_moves_the_cursor_back() -> None:
    lan = [found("Casa", "10.0.0.2"), found("Sala", "10.0.0.3")]
    with create_pipe_input() as pipe:
        screen = HostsScreen(Text("it"), lambda: lan, input=pipe, output=DummyOutput())
        running = asyncio.create_task(screen.run_async())
        await asyncio.sleep(0.1)
        pipe.send_text("\x1b[B")
        await until(lambda: screen.cursor == 1, 10)
        lan.pop()
        screen.changed()
        assert screen.cursor == 0
        assert "tavoli aperti: 0" in screen_text(screen)
        pipe.send_text("q")
        assert await asyncio.wait_for(running, 10) is None


def test_a_row_shows_name_address_first_fingerprint_group_and_open_tables() -> None:
    host = found("Casa", "fd00::5", 4040, open_tables=3)
    row = host_row(host, Text("en"))
    assert row == ("Casa  [fd00::5]:4040  open tables: 3", f"   fingerprint {host.fingerprint}")


@pytest.mark.parametrize("lang", ["en", "it"])
def test_at_80_columns_the_list_cuts_nothing(lang: str) -> None:
    # Defect: at 80 columns the row lost its open-tables count, the "none yet" hint its end.
    long = found("Casa di Ada e Bea", "fd00:1234:5678:9abc::5", 40404, open_tables=3)
    screen = HostsScreen(Text(lang), lambda: [long], output=DummyOutput())
    lines = "".join(text for _, text, *_ in screen._draw_hosts(80, 20)).split("\n")
    assert all(len(line.rstrip()) <= 80 for line in lines), lines
    text = " ".join(lines)
    assert long.fingerprint in text and long.target in text and ": 3" in text
    empty = HostsScreen(Text(lang), lambda: [], output=DummyOutput())
    empty.waited = True
    said = "".join(text for _, text, *_ in empty._draw_hosts(80, 20)).split("\n")
    assert len(said) > 1 and all(len(line) <= 80 for line in said), said
    assert " ".join(said).endswith(Text(lang)("hosts_none").split()[-1])


async def start_host(tmp_path: Path) -> Host:
    host = Host("127.0.0.1:0", tmp_path / "host", TableSettings())
    await host.start()
    assert host.advertised == []  # a host on loopback never advertises
    return host


async def test_a_host_found_opens_its_lobby_pinned_and_remembered(tmp_path: Path) -> None:
    host = await start_host(tmp_path)
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    try:
        lan = found("Casa", "127.0.0.1", host.port, host.identity.fingerprint)
        with create_pipe_input() as pipe:
            joining = asyncio.create_task(
                join_found(lan, Options("ann", "en"), client_dir, input=pipe, output=DummyOutput())
            )
            await asyncio.sleep(1.0)
            assert not joining.done()  # the lobby is open
            pipe.send_text("q")
            assert await asyncio.wait_for(joining, 10) == 0
        known = (client_dir / TRUST_FILE).read_text()
        assert f"127.0.0.1:{host.port}" in known and host.identity.fingerprint in known
    finally:
        await host.stop(grace=0.2)


async def test_a_host_found_with_another_fingerprint_than_it_proves_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host = await start_host(tmp_path)
    advertised = HostIdentity.generate().fingerprint  # somebody on the LAN lied
    try:
        lan = found("Casa", "127.0.0.1", host.port, advertised)
        assert await join_found(lan, Options("ann", "en"), tmp_path) == 1
        err = capsys.readouterr().err
        assert advertised in err and host.identity.fingerprint in err
        assert not (tmp_path / TRUST_FILE).exists()
    finally:
        await host.stop(grace=0.2)


async def test_a_host_found_never_wins_over_a_different_fingerprint_remembered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host = await start_host(tmp_path)
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    key = f"127.0.0.1:{host.port}"
    remembered = HostIdentity.generate().fingerprint
    check_fingerprint(client_dir, key, remembered)  # an earlier visit to that address
    try:
        # The host proves what it advertises, but this user knew another host there.
        lan = found("Casa", "127.0.0.1", host.port, host.identity.fingerprint)
        assert await join_found(lan, Options("ann", "en"), client_dir) == 1
        err = capsys.readouterr().err
        assert "Refused" in err and remembered in err and host.identity.fingerprint in err
        assert remembered in (client_dir / TRUST_FILE).read_text()  # not overwritten

        # The user knows why it changed: accepted, and remembered from now on.
        with create_pipe_input() as pipe:
            joining = asyncio.create_task(
                join_found(
                    lan,
                    Options("ann", "en"),
                    client_dir,
                    accept_new_fingerprint=True,
                    input=pipe,
                    output=DummyOutput(),
                )
            )
            await asyncio.sleep(1.0)
            pipe.send_text("q")
            assert await asyncio.wait_for(joining, 10) == 0
        assert host.identity.fingerprint in (client_dir / TRUST_FILE).read_text()
    finally:
        await host.stop(grace=0.2)
