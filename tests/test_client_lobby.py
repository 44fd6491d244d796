"""The lobby screen against a real host on 127.0.0.1: create a table by the form, join, spectate."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import until
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from client.connection import LobbyClient, open_channel
from client.i18n import Text
from client.lobby import LobbyScreen
from client.session import SessionState
from host.edge.server import Host
from host.table.state import TableSettings
from scala40_net.pb import lobby_pb2

pytestmark = pytest.mark.timeout(60)


async def run_lobby(lobby: LobbyClient, keys: list[str]) -> object:
    with create_pipe_input() as pipe:
        screen = LobbyScreen(
            Text("en"), lobby, SessionState(host="test"), "Ada", input=pipe, output=DummyOutput()
        )
        running = asyncio.create_task(screen.run_async())
        # As a person would: keys once the host's first list is on the screen ("s" before
        # it has nothing to spectate and does nothing).
        await until(lambda: screen.listed)
        for key in keys:
            await asyncio.sleep(0.15)
            pipe.send_text(key)
        return await asyncio.wait_for(running, 20)


async def test_the_form_creates_a_table_with_bots_and_joins_it(tmp_path: Path) -> None:
    host = Host("127.0.0.1:0", tmp_path / "host", TableSettings())
    port = await host.start()
    channel, _ = await open_channel("127.0.0.1", port)
    lobby = LobbyClient(channel)
    try:
        # Enter keeps the default shown.
        # n: new table; name, rules, seats, bots, bots' level, password.
        chosen = await run_lobby(lobby, ["n", "\r", "semplice\r", "3\r", "2\r", "hard\r", "\r"])
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


def test_the_form_lists_the_presets_and_bot_levels_and_hides_the_password() -> None:
    from client.lobby import table_row

    with create_pipe_input() as pipe:
        screen = LobbyScreen(
            Text("it"),
            None,
            SessionState(host="h"),
            "Ada",
            input=pipe,
            output=DummyOutput(),  # type: ignore[arg-type]
        )
        screen._new_table_form()
        labels = [q.label for q in screen.questions]
        assert labels[1] == "Regole (classica | tradizionale | semplice)"
        assert labels[4] == "Livello dei bot (facile | medio | difficile | esperto)"
        assert screen.questions[4].default == "medio"
        from client.lobby import LEVELS

        assert LEVELS["esperto"] == LEVELS["expert"] == lobby_pb2.BOT_LEVEL_EXPERT
        assert [q.secret for q in screen.questions] == [False, False, False, False, False, True]
        while len(screen.questions) > 1:
            screen.questions.pop(0)
        from prompt_toolkit.layout.processors import ConditionalProcessor, PasswordProcessor

        processors = screen.field.control.input_processors or []
        hidden = [
            p
            for p in processors
            if isinstance(p, ConditionalProcessor) and isinstance(p.processor, PasswordProcessor)
        ]
        assert hidden and hidden[0].filter()  # the password question: typed as asterisks
        screen.questions[0].secret = False
        assert not hidden[0].filter()
    summary = lobby_pb2.TableSummary(table_id="t-42", name="Prova")
    assert table_row(summary, Text("en")).endswith("· id t-42")
