"""The history, a past match's score sheet and the standings on the client's screen at 80x24,
in both languages, from a real host's matches; ``scala40 history`` and ``standings`` as text."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pyte
import pytest
from conftest import HostClient, start_host
from keyed_match import keyed_match
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output
from test_client_80x24 import match_over
from test_client_screen import _Capture, drawn

from client.connection import HostRefusal, LobbyClient
from client.i18n import Text
from client.lobby import LobbyScreen
from client.main import main, rating_of
from client.render_end import deal_end_lines
from client.session import SessionState
from scala40_net.pb import lobby_pb2
from scala40_net.players import KEY_FILE_NAME, PlayerKey, short_fingerprint

ROWS, COLUMNS = 24, 80


async def lobby_screens(
    lobby: LobbyClient, lang: str, steps: list[str], host: str = "127.0.0.1:40040"
) -> list[list[str]]:
    """The lobby at 80x24 after each of ``steps`` (keys typed), as pyte reads the terminal."""
    captured = _Capture()
    output = Vt100_Output(captured, lambda: Size(rows=ROWS, columns=COLUMNS), term="xterm")
    screens = []
    with create_pipe_input() as pipe:
        screen = LobbyScreen(
            Text(lang),  # type: ignore[arg-type]
            lobby,
            SessionState(host=host),
            "Ada",
            input=pipe,
            output=output,  # type: ignore[arg-type]
        )

        async def drive() -> None:
            await drawn(captured, 0)
            for keys in steps:
                before = len(captured.getvalue())
                pipe.send_text(keys)
                await drawn(captured, before)
                terminal = pyte.Screen(COLUMNS, ROWS)
                pyte.Stream(terminal).feed(captured.getvalue())
                screens.append([line.rstrip() for line in terminal.display])
            screen.app.exit()

        task = asyncio.get_running_loop().create_task(drive())
        await screen.app.run_async()
        await task
    return screens


async def an_evening(served: HostClient, ada: PlayerKey) -> None:
    bea, cy = PlayerKey.generate(), PlayerKey.generate()
    await keyed_match(served, [("Ada", ada), ("Bea", bea)], [lobby_pb2.BOT_LEVEL_EASY])
    await keyed_match(served, [("Ada", ada), ("Cy", cy)], [lobby_pb2.BOT_LEVEL_HARD])
    await keyed_match(served, [("Bea", bea), ("Cy", cy), ("Ada", ada)], [])


@pytest.mark.parametrize("lang", ["en", "it"])
async def test_history_sheet_and_standings_fit_80x24(tmp_path: Path, lang: str) -> None:
    served = await start_host(tmp_path / "host")
    ada = PlayerKey.generate()
    try:
        await an_evening(served, ada)
        lobby = LobbyClient(served.channel, lang, ada)
        history, sheet, back, standings = await lobby_screens(
            lobby, lang, ["h", "\r", "\x1b", "\x1bl"]
        )
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    t = Text(lang)  # type: ignore[arg-type]
    mine = short_fingerprint(ada.fingerprint)
    assert t("history_title", host="127.0.0.1:40040") in "\n".join(history)
    assert sum(1 for line in history if line.strip().startswith("20")) == 3  # Ada's 3 matches
    assert t("history_keys") in "\n".join(history)
    text = "\n".join(sheet)
    assert t("sheet_total") in text and mine in text and "→" in text
    assert back == history or "\n".join(back).count("20") >= 3
    board = "\n".join(standings)
    for word in ("standings_rating", "standings_matches", "standings_opened", "standings_in_hand"):
        assert t(word) in board
    assert mine in board and t("history_bot_level", level="easy") in board
    for drawn_screen in (history, sheet, standings):
        assert all(len(line) <= COLUMNS for line in drawn_screen)
    if lang == "en":  # what the README shows
        (tmp_path.parent / "readme-screens.txt").write_text(
            "\n\n".join("\n".join(s).rstrip() for s in (history, sheet, standings)) + "\n"
        )


async def test_scala40_history_and_standings_print_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SCALA40_DATA_DIR", str(tmp_path / "client"))
    served = await start_host(tmp_path / "host")
    ada = PlayerKey.load_or_create(tmp_path / "client")
    assert (tmp_path / "client" / KEY_FILE_NAME).exists()
    try:
        await an_evening(served, ada)
        fp = served.host.identity.fingerprint
        address = f"scala40://127.0.0.1:{served.host.port}/?fp={fp}"
        codes = []
        for argv in (
            ["history", address, "--lang", "en"],
            ["history", address, "--all"],
            ["standings", address],
        ):
            codes.append(await asyncio.to_thread(main, argv))
        said = capsys.readouterr().out
        match_id = next(w for w in said.split() if "/" in w and not w.startswith("scala40"))
        codes.append(await asyncio.to_thread(main, ["history", address, "--match", match_id]))
        sheet = capsys.readouterr().out
        codes.append(await asyncio.to_thread(main, ["history", address, "--match", "no/1"]))
        refused = capsys.readouterr().err
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    assert codes == [0, 0, 0, 0, 1]
    assert "Your matches at" in said and "Standings at" in said
    assert short_fingerprint(ada.fingerprint) in said
    assert "Total" in sheet and "rating" in sheet
    assert "no such finished match" in refused or "no finished match" in refused


async def test_at_the_match_end_the_player_reads_their_rating_before_and_after(
    tmp_path: Path,
) -> None:
    served = await start_host(tmp_path / "host")
    ada = PlayerKey.generate()
    try:
        await keyed_match(served, [("Ada", ada)], [lobby_pb2.BOT_LEVEL_EASY])
        table_id = await keyed_match(served, [("Ada", ada)], [lobby_pb2.BOT_LEVEL_MEDIUM])
        lobby = LobbyClient(served.channel, "en", ada)
        change = await rating_of(lobby, table_id)
        (newest, _) = await lobby.matches(ada.fingerprint)
        assert await rating_of(LobbyClient(served.channel, "en"), table_id) is None  # no key
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    (me,) = [p for p in newest.players if p.key_fingerprint == ada.fingerprint]
    assert change == (me.rating_before, me.rating_after) and me.rating_before != 0
    for lang in ("en", "it"):
        model = match_over()
        t = Text(lang)  # type: ignore[arg-type]
        drawn_before = "".join(x for line in deal_end_lines(model, t, 80) for _, x, *_ in line)
        model.rating_change = change
        drawn_after = "".join(x for line in deal_end_lines(model, t, 80) for _, x, *_ in line)
        said = t("match_rating", before=f"{change[0]:.1f}", after=f"{change[1]:.1f}")  # type: ignore[index]
        assert said not in drawn_before and said in drawn_after


@pytest.mark.parametrize("lang", ["en", "it"])
async def test_a_host_without_history_is_said_so_in_the_lobby(lang: str) -> None:
    class OlderHost:
        key = None

        async def matches(self, key_fingerprint: str = "") -> list[object]:
            raise HostRefusal(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")

        async def standings(self) -> object:
            raise HostRefusal(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")

        async def tables(self) -> list[object]:
            return []

    with create_pipe_input() as pipe:
        screen = LobbyScreen(
            Text(lang),  # type: ignore[arg-type]
            OlderHost(),  # type: ignore[arg-type]
            SessionState(host="h"),
            "Ada",
            input=pipe,
            output=DummyOutput(),
        )
        said = Text(lang)("history_not_served")  # type: ignore[arg-type]
        await screen.show_history()
        assert screen.error == said and screen.page == "tables"
        screen.error = ""
        await screen.show_standings()
        assert screen.error == said and screen.page == "tables"
