"""The lobby screen against a real host on 127.0.0.1: create a table by the form, join, spectate."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from client.connection import LobbyClient, open_channel
from client.i18n import Text
from client.lobby import LobbyScreen
from client.session import SessionState
from host.server import Host
from host.table_core import TableSettings
from scala40_net.pb import lobby_pb2

pytestmark = pytest.mark.timeout(60)


async def run_lobby(lobby: LobbyClient, keys: list[str]) -> object:
    with create_pipe_input() as pipe:
        screen = LobbyScreen(
            Text("en"), lobby, SessionState(host="test"), "Ada", input=pipe, output=DummyOutput()
        )
        running = asyncio.create_task(screen.run_async())
        for key in keys:
            await asyncio.sleep(0.15)
            pipe.send_text(key)
        return await asyncio.wait_for(running, 20)


async def test_the_form_creates_a_table_with_bots_and_joins_it(tmp_path: Path) -> None:
    host = Host("127.0.0.1:0", tmp_path / "host", TableSettings())
    port = await host.start()
    channel = open_channel("127.0.0.1", port)
    lobby = LobbyClient(channel)
    try:
        # n: new table; name, rules, seats, bots, password (Enter keeps the default shown).
        chosen = await run_lobby(lobby, ["n", "\r", "semplice\r", "3\r", "2\r", "\r"])
        assert chosen is not None
        seat, start = chosen  # type: ignore[misc]
        assert seat.seat == 0 and start  # the bots fill the table: it starts at once
        tables = await lobby.tables()
        assert len(tables) == 1 and tables[0].name == "Ada's game"
        assert sum(1 for s in tables[0].seats if s.bot) == 2
        assert tables[0].preset == 3  # PRESET_SEMPLICE

        # Another visitor spectates it from the list with s.
        watched = await run_lobby(lobby, ["s"])
        assert watched is not None and watched[0].seat is None  # type: ignore[index]

        # A wrong answer in the form is named and asked again; q leaves with nothing.
        assert await run_lobby(lobby, ["n", "\r", "nonsense\r", "\x1b", "q"]) is None
        assert len(await lobby.tables()) == 1
        assert tables[0].phase == lobby_pb2.TABLE_PHASE_WAITING
    finally:
        await channel.close()
        await host.stop(grace=0.2)
