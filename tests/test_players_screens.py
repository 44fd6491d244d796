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

        async def matches(self, key_fingerprint: str = "", limit: int = 0) -> list[object]:
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


def _minute_ms(n: int) -> int:
    return 1_796_000_000_000 + 60_000 * n


def _minute(n: int) -> str:
    """The time the history shows for the match finished at minute ``n``."""
    import datetime

    return f"{datetime.datetime.fromtimestamp(_minute_ms(n) / 1000, tz=datetime.UTC):%H:%M}"


def _kept(
    served: HostClient, keys: list[PlayerKey], count: int, deals: int = 1, first: int = 0
) -> None:
    """``count`` finished matches of ``keys``' players (one deal each, or ``deals``), kept
    in the host's history as a match's end keeps them; the n-th finished at minute n
    (counted from ``first``)."""
    from scala40_net.pb import deal_pb2, players_pb2

    for n in range(first, first + count):
        match = players_pb2.PastMatch(
            match_id=f"t{n:03d}/1",
            table_id=f"t{n:03d}",
            match_no=1,
            table_name=f"Sera {n}",
            finished_unix_ms=_minute_ms(n),
            deal_count=deals,
            winners=[0],
        )
        for seat, key in enumerate(keys):
            match.players.add(
                seat=seat,
                name=f"P{seat}",
                key_fingerprint=key.fingerprint,
                total=10 * seat,
                place=seat + 1,
                deals_played=deals,
            )
        for deal_no in range(1, deals + 1):
            deal = match.deals.add(
                deal_no=deal_no, outcome=deal_pb2.DEAL_OUTCOME_WENT_OUT, closer_seat=0
            )
            for seat in range(1, len(keys)):
                deal.seats.add(seat=seat, penalty=10)
        assert served.host.players.record(match, match.finished_unix_ms * 1_000_000)


@pytest.mark.parametrize("lang", ["en", "it"])
async def test_a_long_history_and_sheet_scroll_at_80x24(tmp_path: Path, lang: str) -> None:
    """60 matches (more than the 50 a host lists by default, more than a screen holds):
    PgDn and the arrows bring each into view, End the oldest; a sheet of 40 deals scrolls."""
    served = await start_host(tmp_path / "host")
    ada, bea = PlayerKey.generate(), PlayerKey.generate()
    try:
        _kept(served, [ada, bea], 60)
        lobby = LobbyClient(served.channel, lang, ada)
        first, paged, last, sheet, down = await lobby_screens(
            lobby, lang, ["h", "\x1b[6~", "\x1b[F", "\r", "\x1b[6~"]
        )
        _kept(served, [bea, ada], 1, deals=40, first=60)  # the newest: a long sheet on top
        _, long_sheet, scrolled, back_up = await lobby_screens(
            lobby, lang, ["h", "\r", "\x1b[6~\x1b[B", "\x1b[5~\x1b[5~\x1b[A"]
        )
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    t = Text(lang)  # type: ignore[arg-type]

    def rows(screen: list[str]) -> list[str]:
        """The matches shown, by their minute (the n-th match finished at minute n)."""
        return [line.split()[1] for line in screen if line.strip().startswith("2026-")]

    for screen in (first, paged, last, sheet, down, long_sheet, scrolled, back_up):
        assert len(screen) == ROWS and all(len(line) <= COLUMNS for line in screen)
    # Newest first, as many as fit, and a line says how many are below.
    shown = rows(first)
    assert len(shown) >= 15 and shown[0] == _minute(59)
    assert t("history_below", n=60 - len(shown)) in "\n".join(first)
    assert t("history_keys") in "\n".join(first)
    # PgDn: the cursor a page further, the view following it, a line for those above.
    assert rows(paged)[0] != shown[0] and marks(paged) == (True, True)
    # End: the oldest match, the 60th (past the host's default 50), on the last row.
    assert rows(last)[-1] == _minute(0) and marks(last) == (True, False)
    # Enter opens that match's sheet; a short sheet has nothing to scroll.
    assert t("sheet_total") in "\n".join(sheet) and sheet == down
    assert marks(sheet) == (False, False)

    # A sheet longer than the screen: its head stays, PgDn and ↓ scroll, PgUp and ↑ back.
    head = next(line for line in long_sheet if line.strip().startswith(t("sheet_deal")))
    assert head in scrolled and marks(long_sheet) == (False, True)
    assert deals(long_sheet)[0] == "1" and t("sheet_total") not in "\n".join(long_sheet)
    assert marks(scrolled) == (True, True) and int(deals(scrolled)[0]) > 10
    assert back_up == long_sheet


def marks(screen: list[str]) -> tuple[bool, bool]:
    """Whether the screen says more lines are above, and below."""
    return (
        any(line.strip().startswith("↑ ") for line in screen),
        any(line.strip().startswith("↓ ") for line in screen),
    )


def deals(screen: list[str]) -> list[str]:
    """The deal numbers of a score sheet's rows shown."""
    return [line.split()[0] for line in screen if line[:1].isdigit() and "." not in line[:3]]


def test_the_view_keeps_the_cursor_shown_and_no_row_empty() -> None:
    from client.history import view

    assert view(10, 20, 9, 5) == (0, 10)  # all fit: from the first
    for cursor in range(60):
        for top in (0, 30, 59):
            start, end = view(60, 20, cursor, top)
            assert start <= cursor < end
            # rows: the lines, a mark above when start > 0, a mark below when end < 60
            assert (end - start) + (start > 0) + (end < 60) == 20
