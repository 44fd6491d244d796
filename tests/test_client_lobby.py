"""The lobby screen against a real host on 127.0.0.1: create a table by the form, join, spectate."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
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
from scala40_net.pb import lobby_pb2, ruleset_pb2

pytestmark = pytest.mark.timeout(60)


async def run_lobby(lobby: LobbyClient, keys: list[str], invited: tuple[str, ...] = ()) -> object:
    with create_pipe_input() as pipe:
        screen = LobbyScreen(
            Text("en"),
            lobby,
            SessionState(host="test"),
            "Ada",
            input=pipe,
            output=DummyOutput(),
            invited=invited,
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
        # n: new table; name, rules, seats, bots, bots' level; then the match, rientro, the
        # clocks, other rules, private cards and the password, each left as it is shown.
        keys = ["n", "\r", "semplice\r", "3\r", "2\r", "hard\r", *["\r"] * 8]
        chosen = await run_lobby(lobby, keys)
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


@contextlib.contextmanager
def offline_form(lang: str) -> Iterator[LobbyScreen]:
    """A lobby screen with no host, its new-table form open."""
    with create_pipe_input() as pipe:
        screen = LobbyScreen(
            Text(lang),  # type: ignore[arg-type]
            None,  # type: ignore[arg-type]
            SessionState(host="h"),
            "Ada",
            input=pipe,
            output=DummyOutput(),
        )
        screen._new_table_form()
        yield screen


def test_the_form_lists_the_presets_and_bot_levels_and_hides_the_password() -> None:
    from client.lobby import table_row

    with offline_form("it") as screen:
        labels = [q.label for q in screen.questions]
        assert labels[1] == "Regole (classica | tradizionale | semplice)"
        assert labels[4] == "Livello dei bot (facile | medio | difficile | esperto)"
        assert screen.questions[4].default == "medio"
        from client.lobby import LEVELS

        assert LEVELS["esperto"] == LEVELS["expert"] == lobby_pb2.BOT_LEVEL_EXPERT
        assert [q.secret for q in screen.questions] == [False] * 12 + [True]
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


async def test_the_form_sets_every_table_option_and_leaves_seats_free_by_default(
    tmp_path: Path,
) -> None:
    # Defect: the form filled a 4-seat table with 3 bots (no seat for a friend, the match
    # started at once) and could not set the bust limit, the clocks, rientro or the rules.
    host = Host("127.0.0.1:0", tmp_path / "host", TableSettings())
    port = await host.start()
    channel, _ = await open_channel("127.0.0.1", port)
    lobby = LobbyClient(channel)
    try:
        chosen = await run_lobby(lobby, ["n", *["\r"] * 13])  # every default
        assert chosen is not None
        seat, start = chosen  # type: ignore[misc]
        assert seat.seat == 0 and not start  # it waits for the friends
        (table,) = await lobby.tables()
        assert [s.taken for s in table.seats] == [True, False, False, False]
        assert table.ruleset.bust_at == 101 and not table.ruleset.rientro
        assert table.turn_seconds == 90 and table.grace_seconds == 60

        answers = ["Sera\r", "\r", "3\r", "1\r", "easy\r", "151\r", "yes\r", "45\r"]
        answers += ["30\r", "5\r", "max_run=5 discard_pickup=free\r", "\r", "segreta\r"]
        chosen = await run_lobby(lobby, ["n", *answers])
        assert chosen is not None
        (evening,) = [t for t in await lobby.tables() if t.name == "Sera"]
        options = evening.ruleset
        assert options.bust_at == 151 and options.rientro and options.max_run == 5
        assert options.discard_pickup == ruleset_pb2.DISCARD_PICKUP_FREE
        assert evening.turn_seconds == 45 and evening.grace_seconds == 30
        assert evening.has_password and sum(1 for s in evening.seats if s.bot) == 1
        task = host.registry.tables[evening.table_id]
        assert task.table.state.config.between_deals_seconds == 5

        # A match of deals; a rule that does not exist is named with the ones that do.
        keys = ["n", "Tre\r", "\r", "2\r", "\r", "\r", "3d\r", "no\r", "0\r", "\r", "\r"]
        keys += ["colour=red\r", "\x1b", "q"]
        assert await run_lobby(lobby, keys) is None
    finally:
        await channel.close()
        await host.stop(grace=0.2)


async def test_the_form_makes_a_private_table_which_the_lobby_marks(tmp_path: Path) -> None:
    host = Host("127.0.0.1:0", tmp_path / "host", TableSettings())
    port = await host.start()
    channel, _ = await open_channel("127.0.0.1", port)
    lobby = LobbyClient(channel, data_dir=tmp_path / "ada")
    try:
        # name, rules, seats 2, no bots (none at a private table), level; match, rientro,
        # the clocks and other rules as shown; private cards: yes; no password.
        keys = ["n", "\r", "\r", "2\r", "0\r", *["\r"] * 7, "yes\r", "\r"]
        chosen = await run_lobby(lobby, keys)
        assert chosen is not None
        (table,) = await lobby.tables()
        assert table.private_cards
        # The join named this client's signing key for the table's messages.
        (mine,) = [s for s in table.seats if s.taken]
        assert len(mine.private_signing_key) == 32
        from client.lobby import table_row

        assert "private cards" in table_row(table, Text("en"))
    finally:
        await channel.close()
        await host.stop(grace=0.2)


def test_the_form_reads_any_rule_option_by_name() -> None:
    from client.tableform import NewTable, read_match, read_rule_options, rule_names

    form = NewTable()
    read_rule_options(form, "opening_points=51 close_without_discard=sì lone_ace=always")
    assert form.options.opening_points == 51 and form.options.close_without_discard
    assert form.options.lone_ace == ruleset_pb2.LONE_ACE_ALWAYS
    read_rule_options(form, "closer_bonus=-10")
    assert form.options.closer_bonus == -10
    for wrong in ("opening_points=many", "lone_ace=never_ever", "nothing", "max_run=-3"):
        with pytest.raises(ValueError):
            read_rule_options(form, wrong)
    read_match(form, "5d")
    assert form.options.match_mode == ruleset_pb2.MATCH_MODE_DEALS
    assert form.options.deals_in_match == 5
    assert "rientro_fee" in rule_names() and "pairs" in rule_names()


def test_a_long_answer_in_the_form_is_wrapped_at_80_columns_not_cut() -> None:
    from client.tableform import NewTable, read_rule_options, rule_names

    with offline_form("en") as screen:
        with pytest.raises(ValueError) as wrong:
            read_rule_options(NewTable(), "colour=red")
        screen.error = str(wrong.value)
        drawn = "".join(text for _, text, *_ in screen._draw_footer(80, 6)).split("\n")
        assert all(len(line) <= 80 for line in drawn), drawn
        assert rule_names()[-1] in " ".join(drawn) and "Name [Ada's game]" in drawn[-1]


@pytest.mark.parametrize("lang", ["it", "en"])
def test_the_lobby_title_keeps_the_whole_fingerprint_at_80_columns(lang: str) -> None:
    from client.session import TrustState

    fingerprint = "DD5C-F918-36B2-4239-70B4-4BB7-1200-481F"
    with offline_form(lang) as screen:
        screen.session = SessionState(
            host="127.0.0.1:33469", fingerprint=fingerprint, trust=TrustState.NEW
        )
        drawn = "".join(text for _, text, *_ in screen._draw_title(80, 2)).split("\n")
        assert all(len(line) <= 80 for line in drawn), drawn
        said = Text(lang)("fingerprint_new", fp=fingerprint)  # type: ignore[arg-type]
        assert any(line.strip() == said for line in drawn), drawn
