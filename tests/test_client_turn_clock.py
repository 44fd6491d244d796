"""The turn clock and absent seats on the table screen: the countdown on the seat to move and in
this player's status line (a warning in the last 15 s), moves the host made marked in the log,
seats a bot plays while their player is away, and taking one's own seat back."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path

from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_client_host import _DEBUG, until
from test_client_host import no_older_screen as no_older_screen
from test_client_model import card, deal_event, started_model
from test_client_screen import EN, IT, screen_text

from client import render
from client.app import TableScreen
from client.connection import LobbyClient, open_channel
from client.i18n import Text
from client.main import open_table
from client.model import Phase, TableModel
from client.session import SessionState
from host.edge.server import Host
from host.table.state import TableSettings
from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2

CLOCK = re.compile(r"⏱ (\d+) s")


def clocked(seconds: int) -> tuple[TableModel, SessionState]:
    """Ada (this seat) to draw, with ``seconds`` on her turn clock."""
    model = started_model()
    model.turn_time = float(seconds)
    model.turn_time_told += 1
    session = SessionState()
    session.turn_deadline = time.monotonic() + seconds
    return model, session


def test_the_event_that_starts_a_turn_and_the_view_set_the_clock_as_a_duration() -> None:
    model = started_model()
    told = model.turn_time_told
    event = deal_event(6, played=deal_pb2.Played(seat=0, discard=card("5C")))
    event.deal.turn_time_ms = 30_000
    model.apply(event)
    assert model.turn_time == 30.0 and model.turn_time_told == told + 1
    view = table_pb2.TableView()
    view.table.table_id = model.table_id
    view.turn_time_left_ms = 12_500
    model.load_view(view, 7)
    assert model.turn_time == 12.5


def test_the_seat_to_move_shows_its_clock_and_the_last_15_seconds_warn() -> None:
    model, session = clocked(42)
    lines = render.player_lines(model, EN, 80, clock=session.turn_seconds_left())
    assert "⏱ 42 s" in render.plain(lines[model.turn or 0])
    first, _ = render.status_lines(model, session, EN, 100)
    assert "Your turn: draw" in render.plain(first) and "⏱ 42 s" in render.plain(first)
    model, session = clocked(9)
    first, _ = render.status_lines(model, session, EN, 100)
    assert first[0][0] == "class:alarm" and "⏱ 9 s" in render.plain(first)


def test_the_countdown_is_on_the_screen_at_80x24() -> None:
    model, session = clocked(20)
    rows = screen_text(model, [24, 80], session=session)
    # The clock runs while the screen is drawn: a busy machine may draw it at 19 s or less.
    shown = [int(m.group(1)) for row in rows if "Ada" in row for m in [CLOCK.search(row)] if m]
    assert shown and all(0 < left <= 20 for left in shown), rows
    assert any("Your turn" in row and "⏱" in row for row in rows), rows


def test_a_move_the_host_made_is_marked_in_the_log() -> None:
    model = started_model()
    played = deal_event(6, played=deal_pb2.Played(seat=0, discard=card("5C")))
    played.deal.by_host = True
    model.apply(played)
    assert any(e.key == "log_played_by_host" and e.as_dict()["name"] == "Ada" for e in model.log)
    text = [EN(e.key, **e.as_dict()) for e in model.log]
    assert "The host played Ada's turn: the turn clock ran out" in text


def test_an_away_seat_says_a_bot_plays_for_it_and_its_player_is_told_how_to_come_back() -> None:
    model = started_model()
    info = lobby_pb2.SeatInfo(
        seat=0, taken=True, name="Ada", connected=True, away=lobby_pb2.AWAY_REASON_TIMED_OUT
    )
    model.apply(table_pb2.TableEvent(seq=6, seat_changed=info))
    assert model.i_am_away
    line = render.plain(render.player_lines(model, EN, 100)[0])
    assert "away, a bot plays" in line
    first, _ = render.status_lines(model, SessionState(), EN, 100)
    assert "Type 'back'" in render.plain(first)
    it_first, _ = render.status_lines(model, SessionState(), IT, 100)
    assert "torno" in render.plain(it_first) and "Un bot gioca per te" in render.plain(it_first)
    log = [EN(e.key, **e.as_dict()) for e in model.log]
    assert "Ada's turn clock ran out: a bot plays for them until back" in log, log
    back = lobby_pb2.SeatInfo(seat=0, taken=True, name="Ada", connected=True)
    model.apply(table_pb2.TableEvent(seq=7, seat_changed=back))
    assert not model.i_am_away and model.log[-1].key == "log_seat_back"


def test_back_when_not_away_is_refused_in_words() -> None:
    model = started_model()
    rows = screen_text(model, [24, 80], keys="back\r")
    assert any("nobody plays for you" in row for row in rows), rows


@contextlib.asynccontextmanager
async def a_screen_against_a_bot(
    tmp_path: Path,
    name: str,
    text: Text,
    options: ruleset_pb2.RulesetOptions | None = None,
    turn_seconds: int = 2,
) -> AsyncIterator[tuple[TableScreen, PipeInput]]:
    """A real host with ``turn_seconds`` turns and Ada's screen at a two-seat table with a bot,
    its match started; the screen quits and the host stops when the block ends. When Ada cuts
    the deck she presses Enter at once (a random cut), as a person would: the screen itself
    waits CUT_WAIT_SECONDS (20 s) before cutting for her, which is most of a test's time."""
    host = Host(
        "127.0.0.1:0", tmp_path / "host", TableSettings(bot_delay=0.0, turn_seconds=turn_seconds)
    )
    port = await host.start()
    channel, _ = await open_channel("127.0.0.1", port)
    lobby = LobbyClient(channel)
    try:
        table_id = await lobby.create_table(name, ruleset_pb2.PRESET_CLASSIC, 2, options=options)
        seat = await lobby.join(table_id, "Ada")
        await lobby.add_bot(seat)
        with create_pipe_input() as pipe:
            screen = await open_table(
                channel,
                seat,
                text,
                SessionState(host=f"127.0.0.1:{port}"),
                tmp_path,
                start=True,
                input=pipe,
                output=DummyOutput(),
            )
            _DEBUG[:] = [screen]  # what a timed-out until describes
            running = asyncio.create_task(screen.run_async())
            cutting = asyncio.create_task(cut_when_asked(screen, pipe))
            try:
                yield screen, pipe
            finally:
                cutting.cancel()
            screen.quit()
            await asyncio.wait_for(running, 20)
    finally:
        await channel.close()
        await host.stop(grace=0.5)


async def cut_when_asked(screen: TableScreen, pipe: PipeInput) -> None:
    """Enter (a random cut) once for each deal whose cut the screen asks this seat for."""
    answered: set[int | None] = set()
    while True:
        deal_no = screen.fair_deal.cut_deal
        if screen.session.cut_prompt and deal_no not in answered:
            answered.add(deal_no)
            pipe.send_text("\r")
        await asyncio.sleep(0.05)


async def test_a_player_whose_clock_ran_out_takes_the_seat_back_with_back(tmp_path: Path) -> None:
    """Real host, 5 s turns: Ada never moves, the host plays her turn (the log says so), a bot
    plays for her; 'back' reconnects and the seat is hers again: she draws on her next turn
    (in its 5 s, which a busy machine still leaves her)."""
    clocked = a_screen_against_a_bot(tmp_path, "clock", Text("en"), turn_seconds=5)
    async with clocked as (screen, pipe):
        model = screen.model
        await until(lambda: model.i_am_away, 60)
        assert any(e.key == "log_played_by_host" for e in model.log)
        assert any(e.key == "log_away_timed_out" for e in model.log)
        pipe.send_text("back\r")
        await until(lambda: not model.i_am_away, 60)
        await until(lambda: model.my_turn and model.phase is Phase.DRAW, 60)
        held = len(model.hand)
        pipe.send_text("draw\r")
        await until(lambda: len(model.hand) == held + 1, 30)
