"""The player's key on the client: made on first start (0600), refused when others may read
it, moved with ``scala40 identity export/import``; joins proved with it, and the fingerprint
beside each name in the lobby and the players panel."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

import pytest
from conftest import bearer, start_host
from test_client_lobby import run_lobby

from client.connection import HostRefusal, LobbyClient
from client.i18n import Text
from client.lobby import people_line, table_row
from client.main import identity_main, main
from client.model import TableModel
from client.render import player_lines
from scala40_net.pb import lobby_pb2, table_pb2
from scala40_net.players import KEY_FILE_NAME, PlayerKey, short_fingerprint


def test_the_key_is_made_on_first_start_and_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SCALA40_DATA_DIR", str(tmp_path))
    assert main(["identity"]) == 0
    path = tmp_path / KEY_FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    key = PlayerKey.read(path)
    assert key.fingerprint in capsys.readouterr().out
    assert identity_main(["show"]) == 0 and PlayerKey.read(path).public_key == key.public_key


@pytest.mark.parametrize(("lang", "words"), [("en", "may be read by others"), ("it", "letta")])
def test_a_key_others_may_read_is_refused_in_the_players_language(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lang: str,
    words: str,
) -> None:
    monkeypatch.setenv("SCALA40_DATA_DIR", str(tmp_path))
    PlayerKey.load_or_create(tmp_path)
    (tmp_path / KEY_FILE_NAME).chmod(0o644)
    assert identity_main(["--lang", lang, "show"]) == 1
    said = capsys.readouterr().err
    assert words in said and "chmod 600" in said


def test_the_key_moves_to_another_machine_with_export_and_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second, carried = tmp_path / "first", tmp_path / "second", tmp_path / "usb" / "k.pem"
    carried.parent.mkdir()
    monkeypatch.setenv("SCALA40_DATA_DIR", str(first))
    first.mkdir()
    assert identity_main(["export", str(carried)]) == 0
    assert stat.S_IMODE(carried.stat().st_mode) == 0o600
    assert identity_main(["export", str(carried)]) == 1  # never over a file that is there
    monkeypatch.setenv("SCALA40_DATA_DIR", str(second))
    second.mkdir()
    PlayerKey.load_or_create(second)  # this machine had a key of its own
    assert identity_main(["import", str(carried)]) == 1  # not replaced unless asked
    assert identity_main(["import", str(carried), "--replace"]) == 0
    assert (
        PlayerKey.read(second / KEY_FILE_NAME).public_key
        == PlayerKey.read(first / KEY_FILE_NAME).public_key
    )


async def test_a_client_with_a_key_takes_its_seat_back_from_a_second_machine(
    tmp_path: Path,
) -> None:
    served = await start_host(tmp_path / "host")
    ada = PlayerKey.load_or_create(tmp_path / "laptop")
    try:
        lobby = LobbyClient(served.channel, "en", ada)
        table_id = await lobby.create_table("evening", 0, 2)
        seat = await lobby.join(table_id, "Ada")
        await lobby.add_bot(seat, lobby_pb2.BOT_LEVEL_EASY)
        await lobby.start_match(seat)
        (table,) = await lobby.tables()
        assert table.seats[seat.seat].key_fingerprint == ada.fingerprint  # type: ignore[index]
        line = people_line(table, Text("en"))
        assert line == f"At this table: Ada {short_fingerprint(ada.fingerprint)}, Bot 1"
        moved = PlayerKey.from_pem(ada.pem(), "export")
        desk = LobbyClient(served.channel, "it", moved)
        again = await desk.join(table_id, "Ada")
        assert again.seat == seat.seat and again.token != seat.token
        view = await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(again.token))
        assert view.view.my_seat == seat.seat
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


def test_the_players_panel_shows_the_short_fingerprint_beside_the_name() -> None:
    model = TableModel()
    fp = PlayerKey.generate().fingerprint
    for seat, (name, key) in enumerate((("Ada", fp), ("Ada2", ""))):
        info = lobby_pb2.SeatInfo(seat=seat, taken=True, name=name, key_fingerprint=key)
        model.apply(table_pb2.TableEvent(seq=seat + 1, seat_changed=info))
    drawn = ["".join(text for _, text, *_ in line) for line in player_lines(model, Text("en"), 80)]
    assert f"Ada {short_fingerprint(fp)}" in drawn[0] and all(len(x) <= 80 for x in drawn)
    assert "Ada2 " in drawn[1] and "-" not in drawn[1].split("Ada2")[1][:3]


async def test_a_table_made_with_invites_takes_only_the_invited_keys(tmp_path: Path) -> None:
    served = await start_host(tmp_path / "host")
    ada, bea, eve = PlayerKey.generate(), PlayerKey.generate(), PlayerKey.generate()
    try:
        lobby = LobbyClient(served.channel, "en", ada)
        # n: a new table, every question of the form left as it is shown.
        chosen = await run_lobby(lobby, ["n", *["\r"] * 13], invited=(bea.fingerprint,))
        seat, _ = chosen  # type: ignore[misc]
        (table,) = await lobby.tables()
        assert table.invited_only and "invited keys only" in table_row(table, Text("en"))
        await LobbyClient(served.channel, "en", bea).join(seat.table_id, "Bea")
        for key in (eve, None):
            with pytest.raises(HostRefusal) as refused:
                await LobbyClient(served.channel, "en", key).join(seat.table_id, "Eve")
            assert refused.value.reason == "NOT_INVITED"
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


@pytest.mark.parametrize("lang", ["en", "it"])
async def test_the_new_table_form_asks_last_which_keys_it_invites(
    tmp_path: Path, lang: str
) -> None:
    """The form's last question (only for a player with a key, and no --invite): the keys a
    table takes, anyone by default; a wrong answer is named and asked again."""
    from conftest import until
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from client.lobby import LobbyScreen
    from client.session import SessionState

    served = await start_host(tmp_path / "host")
    ada, bea, eve = PlayerKey.generate(), PlayerKey.generate(), PlayerKey.generate()
    text = Text(lang)  # type: ignore[arg-type]
    try:
        lobby = LobbyClient(served.channel, lang, ada)

        async def form(answers: list[str], wrong: str = "") -> tuple[str, str]:
            """The form filled in (every question but the last left as shown), and the
            question asked last and the sentence a wrong answer got."""
            with create_pipe_input() as pipe:
                screen = LobbyScreen(
                    text, lobby, SessionState(host="h"), "Ada", input=pipe, output=DummyOutput()
                )
                running = asyncio.create_task(screen.run_async())
                await until(lambda: screen.listed)
                pipe.send_text("n")
                await until(lambda: bool(screen.questions))
                for _ in range(13):
                    pipe.send_text("\r")
                    await asyncio.sleep(0.05)
                await until(lambda: len(screen.questions) == 1)
                label, said = screen.questions[0].label, ""
                if wrong:
                    pipe.send_text(wrong + "\r")
                    await until(lambda: bool(screen.error))
                    said = screen.error
                for answer in answers:
                    pipe.send_text(answer + "\r")
                chosen = await asyncio.wait_for(running, 20)
                assert chosen is not None
                return label, said

        label, said = await form([f"{bea.fingerprint.lower()} {eve.fingerprint}"], "Bea")
        assert label == text("lobby_field_invited")
        assert said == text("lobby_invited_wrong") and "XXXX-XXXX" in said
        (table,) = await lobby.tables()
        assert table.invited_only
        await LobbyClient(served.channel, lang, bea).join(table.table_id, "Bea")
        await LobbyClient(served.channel, lang, eve).join(table.table_id, "Eve")
        for key in (PlayerKey.generate(), None):
            with pytest.raises(HostRefusal) as refused:
                await LobbyClient(served.channel, lang, key).join(table.table_id, "Cy")
            assert refused.value.reason == "NOT_INVITED"

        await form([""])  # Enter: the default, anyone
        (opened,) = [t for t in await lobby.tables() if t.table_id != table.table_id]
        assert not opened.invited_only
        await LobbyClient(served.channel, lang, None).join(opened.table_id, "Cy")
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


def test_the_invited_keys_are_read_in_any_grouping_and_counted() -> None:
    from client.tableform import TooManyInvited, read_invited

    key = PlayerKey.generate().fingerprint
    assert read_invited("chiunque", "chiunque") == read_invited(" - ", "anyone") == []
    assert read_invited(key.replace("-", " ").lower(), "anyone") == [key]
    assert read_invited(f"{key}, {key}", "anyone") == [key]  # once
    for wrong in ("Bea", key[:-1], key + "-ZZ"):
        with pytest.raises(ValueError):
            read_invited(wrong, "anyone")
    with pytest.raises(TooManyInvited):
        read_invited(" ".join(PlayerKey.generate().fingerprint for _ in range(12)), "anyone")
