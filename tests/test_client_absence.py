"""The first player decides for an absent seat from the screen (DecideAbsence): F4 or the
``absent`` / ``assente`` command, against a real host on 127.0.0.1."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_client_host import _DEBUG, refusal_shown, until
from test_client_host import no_older_screen as no_older_screen

from client.connection import LobbyClient, open_channel
from client.i18n import Text
from client.main import open_table
from client.session import NoticeKind, SessionState
from host.edge.server import Host
from host.table.state import TableSettings
from scala40_net.pb import lobby_pb2, ruleset_pb2

pytestmark = pytest.mark.timeout(180)

F4 = "\x1bOS"


@pytest.mark.long(20)
@pytest.mark.parametrize("lang", ["it", "en"])
async def test_the_first_player_hands_an_absent_seat_to_a_bot_from_the_screen(
    tmp_path: Path, lang: str
) -> None:
    # Ada joins first, so she decides; Bea takes a seat and never opens her stream.
    # The commitment deadline is long too: Bea's seat goes to a bot by Ada's decision only,
    # not by the fair deal's clock running out while a loaded machine types the commands.
    settings = TableSettings(
        bot_delay=0.0, between_deals=0.0, grace_seconds=600, commit_timeout=600.0
    )
    host = Host("127.0.0.1:0", tmp_path / "host", settings)
    port = await host.start()
    channel, _ = await open_channel("127.0.0.1", port)
    text = Text(lang)  # type: ignore[arg-type]
    (tmp_path / "client").mkdir()
    try:
        lobby = LobbyClient(channel)
        table_id = await lobby.create_table("evening", ruleset_pb2.PRESET_CLASSIC, 2)
        ada = await lobby.join(table_id, "Ada")
        bea = await lobby.join(table_id, "Bea")
        with create_pipe_input() as pipe:
            screen = await open_table(
                channel,
                ada,
                text,
                SessionState(host="test"),
                tmp_path / "client",
                start=True,
                input=pipe,
                output=DummyOutput(),
            )
            _DEBUG[:] = [screen]
            task = asyncio.create_task(screen.run_async())
            model = screen.model
            await until(lambda: model.table_phase == lobby_pb2.TABLE_PHASE_PLAYING)
            assert bea.seat is not None and model.absent_seats() == [bea.seat]

            # One's own seat is no absent seat; a seat nobody sits on: the host's refusal.
            pipe.send_text(f"{screen.word('absent')} {ada.seat} bot\r")
            await until(lambda: screen.session.notice is not None)
            notice = screen.session.notice
            assert notice is not None and notice.kind is NoticeKind.ERROR, notice
            assert dict(notice.fields)["reason"] == screen.text("err_absent_self")
            pipe.send_text(f"{screen.word('absent')} 7 bot\r")
            await until(lambda: refusal_shown(screen))
            assert model.seat(bea.seat).away == lobby_pb2.AWAY_REASON_UNSPECIFIED
            assert model.seat(ada.seat).away == lobby_pb2.AWAY_REASON_UNSPECIFIED

            # F4 writes the command up to the choice, for the absent seat, and says the choices.
            pipe.send_text(F4)
            await until(lambda: screen.input_field.text.strip() != "")
            assert screen.input_field.text == f"{screen.word('absent')} {bea.seat} "
            notice = screen.session.notice
            assert notice is not None and notice.key == "absent_prompt"
            # The answer's notice lasts until the turn moves on, and the bot that now plays
            # Bea's seat moves at once: every notice said from here on is kept to be read.
            said: list[str] = []
            say = screen.session.say

            def keep(kind: NoticeKind, key: str, **fields: str | int) -> None:
                said.append(key)
                say(kind, key, **fields)

            screen.session.say = keep  # type: ignore[method-assign]
            pipe.send_text("bot\r")
            await until(lambda: model.seat(bea.seat).away == lobby_pb2.AWAY_REASON_HANDED_OVER)
            await until(lambda: "absence_bot_done" in said)
            assert model.absent_seats() == []
            # The host bot plays Bea's seat, fair-deal steps included: the deal is dealt.
            await until(lambda: len(model.hand) in (13, 14), 60)
            screen.quit()
            await asyncio.wait_for(task, 20)
    finally:
        await channel.close()
        await host.stop(grace=0.2)


def test_absent_parses_in_both_languages_and_says_how_when_wrong() -> None:
    from client import commands as c

    assert c.parse_command("absent 2 bot") == c.AbsentCmd(2, "bot")
    assert c.parse_command("assente 1 aspetta", "it") == c.AbsentCmd(1, "wait")
    assert c.parse_command("assente 3 libera", "it") == c.AbsentCmd(3, "free")
    for wrong in ("absent", "absent 2", "absent x bot", "absent 2 maybe"):
        with pytest.raises(c.CommandError) as error:
            c.parse_command(wrong)
        assert error.value.key == "err_absent_usage"


def test_the_status_line_says_when_the_table_waits_on_an_absent_person() -> None:
    from test_client_model import started_model, with_view

    from client import render
    from client.session import SessionState

    model = with_view(started_model(), turn=1)
    bea = model.seat(1)
    bea.bot, bea.connected = False, False
    for lang in ("en", "it"):
        text = Text(lang)  # type: ignore[arg-type]
        # Only the first person at the table decides: the others are told nothing to do.
        assert "F4" not in render.what_now(model, SessionState(), text)[1]
        model.seat(0).decides_absences = True
        style, said = render.what_now(model, SessionState(), text)
        assert said == text("status_absent_turn", name=bea.name) and "F4" in said
        assert style == "class:warning"
        model.seat(0).decides_absences = False
