"""A client started again mid-match: the kept seat token and deal seeds, the lobby's rejoin,
and the deal verified afterwards with the seed of the run that committed it (real host)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import stat
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from conftest import bot_seat
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_client_host import _DEBUG, Game, dealt, legal_discard, refusal_shown, until
from test_client_host import no_older_screen as no_older_screen

from client.app import TableScreen
from client.connection import LobbyClient, Seat, TableLink, open_channel, open_insecure_channel
from client.fairdeal import record_path
from client.i18n import Text
from client.lobby import LobbyScreen, table_row
from client.main import open_table
from client.model import Phase
from client.seats import SeatStore
from client.session import SessionState
from host.edge.server import Host
from host.table.state import TableSettings
from scala40_net.cards import card_text
from scala40_net.fairdeal.record import DealRecord, parse_deal_event
from scala40_net.pb import lobby_pb2, ruleset_pb2, table_pb2

pytestmark = pytest.mark.timeout(180)

EN = Text("en")
SEED = bytes(range(32))


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@dataclass(frozen=True)
class FirstRun:
    """What a client run that took a seat, saw deal 1 dealt and quit leaves behind."""

    table_id: str
    seat: Seat
    hand: list[int]
    seed: bytes
    cut: int


async def _open(
    channel: grpc.aio.Channel,
    seat: Seat,
    address: str,
    data: Path,
    pipe: PipeInput,
    *,
    start: bool = False,
) -> TableScreen:
    """The table screen as `scala40` opens it, typed into through ``pipe``."""
    return await open_table(
        channel,
        seat,
        EN,
        SessionState(host=address),
        data,
        start=start,
        input=pipe,
        output=DummyOutput(),
        store=SeatStore(data, address),
    )


async def _first_run(channel: grpc.aio.Channel, name: str, address: str, data: Path) -> FirstRun:
    """Take a seat at a new 2-seat classic table with a bot, get deal 1's hand, quit mid-deal."""
    lobby = LobbyClient(channel)
    table_id = await lobby.create_table(name, ruleset_pb2.PRESET_CLASSIC, 2)
    seat = await lobby.join(table_id, "Ada")
    await lobby.add_bot(seat)
    with create_pipe_input() as pipe:
        screen = await _open(channel, seat, address, data, pipe, start=True)
        game = Game(screen, pipe, asyncio.create_task(screen.run_async()))
        await dealt(game)
        exchange = screen.fair_deal.exchanges[1]
        run = FirstRun(table_id, seat, sorted(screen.model.hand), exchange.seed, exchange.cut)
        screen.quit()
        await asyncio.wait_for(game.task, 20)
    return run


def _announced(events: list[table_pb2.TableEvent], deal_no: int) -> bool:
    """Has the stream carried the announcement of deal ``deal_no``?"""
    for event in events:
        if event.WhichOneof("event") == "deal":
            deal_event = parse_deal_event(event.deal.public_event)
            if deal_event.WhichOneof("event") == "announced" and deal_event.deal_no == deal_no:
                return True
    return False


def _revealed(record: DealRecord, seat: int | None) -> list[tuple[bytes, int]]:
    """The seed and cut a seat revealed in a deal, as its signed record holds them."""
    return [
        (r.seed, r.cut)
        for e in map(parse_deal_event, record.events)
        if e.WhichOneof("event") == "reveals"
        for r in e.reveals.reveals
        if r.seat == seat
    ]


def test_the_store_keeps_seat_and_seeds_owner_only_per_host_and_table(tmp_path: Path) -> None:
    store = SeatStore(tmp_path, "192.168.1.20:4040")
    store.hold("t-1", 2, "secret-token")
    store.remember_seed("t-1", 1, SEED, 17)
    store.hold("t-1", 2, "secret-token")  # sitting down again keeps the seeds
    held = store.get("t-1")
    assert held is not None and held.seat == 2 and held.token == "secret-token"
    assert store.seed("t-1", 1) == (SEED, 17)
    files = list(store.folder.glob("*"))
    assert len(files) == 1 and mode(files[0]) == 0o600 and mode(store.folder) == 0o700
    assert SeatStore(tmp_path, "192.168.1.21:4040").held() == {}  # another host, nothing held

    store.forget_deal("t-1", 1)
    assert store.seed("t-1", 1) is None and store.get("t-1") is not None
    store.hold("t-1", 3, "a-new-token")  # a new token is a new seat: old seeds do not apply
    store.remember_seed("t-1", 2, SEED, 0)
    store.hold("t-1", 3, "another-token")
    assert store.seed("t-1", 2) is None
    store.forget("t-1")
    assert store.held() == {}


def test_a_damaged_file_is_skipped(tmp_path: Path) -> None:
    store = SeatStore(tmp_path, "h:1")
    store.hold("good", 0, "tok")
    (store.folder / "bad.json").write_text("{not json")
    assert list(store.held()) == ["good"]


async def test_the_end_of_the_match_forgets_the_seat(tmp_path: Path) -> None:
    store = SeatStore(tmp_path, "127.0.0.1:9")
    store.hold("t-1", 0, "tok")
    channel = open_insecure_channel("127.0.0.1", 9)  # never used: no call is made
    try:
        link = TableLink(channel, Seat("t-1", 0, "tok"), lambda: 0)
        screen = TableScreen(EN, link, output=DummyOutput(), seat_store=store)
        screen.on_event(table_pb2.TableEvent(seq=1, match_update=table_pb2.MatchUpdate()))
        assert store.get("t-1") is not None
        over = table_pb2.MatchUpdate(match_over=True, winners=[0])
        screen.on_event(table_pb2.TableEvent(seq=2, match_update=over))
        assert store.get("t-1") is None
    finally:
        await channel.close()


async def test_a_restarted_client_rejoins_sees_its_hand_and_verifies_with_its_seed(
    tmp_path: Path,
) -> None:
    host = Host("127.0.0.1:0", tmp_path / "host", TableSettings(bot_delay=0.0))
    port = await host.start()
    address = f"127.0.0.1:{port}"
    data = tmp_path / "client"
    try:
        # The first run: take a seat, get the first deal's hand, then quit mid-deal.
        first, _ = await open_channel("127.0.0.1", port)
        run = await _first_run(first, "again", address, data)
        table_id, seat = run.table_id, run.seat
        await first.close()
        kept = SeatStore(data, address)
        held = kept.get(table_id)
        assert held is not None and held.token == seat.token and held.seat == seat.seat
        assert kept.seed(table_id, 1) == (run.seed, run.cut)
        assert all(mode(p) == 0o600 for p in kept.folder.glob("*.json"))

        # The second run, as `scala40 HOST` starts it: the lobby offers the rejoin.
        second, _ = await open_channel("127.0.0.1", port)
        try:
            chosen = await _lobby_rejoin(LobbyClient(second), SeatStore(data, address))
            assert chosen == (Seat(table_id, seat.seat, seat.token), False)
            await _play_out_the_deal(second, chosen[0], data, address, run.hand, run.seed)
        finally:
            await second.close()
        assert SeatStore(data, address).seed(table_id, 1) is None  # checked: seed by the record
        assert SeatStore(data, address).get(table_id) is not None  # the match goes on
    finally:
        await host.stop(grace=0.2)


async def _lobby_rejoin(lobby: LobbyClient, store: SeatStore) -> object:
    with create_pipe_input() as pipe:
        screen = LobbyScreen(
            EN,
            lobby,
            SessionState(host="test"),
            "Ada",
            input=pipe,
            output=DummyOutput(),
            store=store,
        )
        running = asyncio.create_task(screen.run_async())
        await until(lambda: bool(screen.tables))
        table = screen.tables[screen.cursor]
        assert table.table_id in screen.held  # the cursor starts on the table to rejoin
        assert "rejoin" in table_row(table, EN, screen.held[table.table_id])
        assert table.phase == lobby_pb2.TABLE_PHASE_PLAYING
        pipe.send_text("\r")
        return await asyncio.wait_for(running, 20)


async def _play_out_the_deal(
    channel: grpc.aio.Channel, seat: Seat, data: Path, address: str, hand: list[int], seed: bytes
) -> None:
    with create_pipe_input() as pipe:
        screen = await _open(channel, seat, address, data, pipe)
        game = Game(screen, pipe, asyncio.create_task(screen.run_async()))
        model = screen.model
        _DEBUG[:] = [screen]
        try:
            await until(lambda: model.deal_no == 1 and bool(model.hand), 20)
            assert sorted(model.hand) == hand  # the snapshot gives the hand back
            assert screen.fair_deal.exchanges[1].seed == seed  # taken up from the store
            fd = model.deals[1]
            while not fd.ended:
                await until(lambda: model.my_turn or fd.ended, 30)
                if fd.ended:
                    break
                await _one_turn(game)
            await until(lambda: fd.verification is not None and fd.verification.ok is not None, 30)
            assert fd.verification is not None and fd.verification.ok, fd.verification
            assert not refusal_shown(screen), screen.session.notice
            saved = record_path(data, model.table_id, 1)
            record = DealRecord.from_json(saved.read_bytes())
            mine = [seed for seed, _ in _revealed(record, seat.seat)]
            assert mine == [seed]  # the first run's seed is in the deal's mix
            assert f"seed {seed.hex()}" in saved.with_suffix(".seed").read_text()
            assert json.loads(saved.read_text())["deal_no"] == 1
        finally:
            screen.quit()
            await asyncio.wait_for(game.task, 20)


async def _one_turn(game: Game) -> None:
    screen, model = game.screen, game.screen.model
    me = model.my_seat
    assert me is not None
    fd = model.deals[model.deal_no]
    if model.phase is Phase.DRAW:
        game.type("draw")
        await until(
            lambda: (
                model.phase is Phase.PLAY or not model.my_turn or fd.ended or refusal_shown(screen)
            )
        )
        assert not refusal_shown(screen), screen.session.notice
        return
    turns = model.turns_played.get(me, 0)
    game.type("hint")
    await until(lambda: screen.session.notice is not None)
    game.type(f"discard {card_text(legal_discard(screen))}")
    await until(
        lambda: (
            model.turns_played.get(me, 0) > turns
            or fd.ended  # went out: the next deal may be announced at once
            or refusal_shown(screen)
        )
    )
    assert not refusal_shown(screen), screen.session.notice


async def test_a_deal_that_ended_while_the_client_was_away_is_verified_with_its_kept_seed(
    tmp_path: Path,
) -> None:
    host = Host("127.0.0.1:0", tmp_path / "host", TableSettings(bot_delay=0.0))
    port = await host.start()
    address = f"127.0.0.1:{port}"
    data = tmp_path / "client"
    channel, _ = await open_channel("127.0.0.1", port)
    try:
        # The first run commits and reveals for deal 1 (its seed kept on disk), then quits.
        run = await _first_run(channel, "away", address, data)
        table_id, seat, seed, cut = run.table_id, run.seat, run.seed, run.cut
        assert SeatStore(data, address).seed(table_id, 1) == (seed, cut)

        # Meanwhile the seat's moves come from elsewhere (its token), until deal 1 is signed.
        assert seat.seat is not None
        joined = lobby_pb2.JoinTableResponse(seat=seat.seat, seat_token=seat.token)
        elsewhere = bot_seat(channel, table_id, joined, fair=False)
        playing = asyncio.create_task(elsewhere.play_match())
        # Until deal 2 is announced too: a client back between deal 1's signature and that
        # announcement is sent a snapshot of deal 1 and takes up its exchange again.
        await until(
            lambda: (
                any(s.deal_no == 1 for s in elsewhere.log.signed)
                and _announced(elsewhere.log.events, 2)
            ),
            60,
        )
        playing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await playing

        # The client comes back: the snapshot is of deal 2; deal 1 is fetched and checked.
        with create_pipe_input() as pipe:
            screen = await _open(channel, seat, address, data, pipe)
            game = Game(screen, pipe, asyncio.create_task(screen.run_async()))
            model = screen.model
            try:
                await until(lambda: model.deal_no >= 2, 20)
                assert 1 not in screen.fair_deal.exchanges  # never seen by this run
                await until(
                    lambda: (
                        1 in model.deals
                        and model.deals[1].verification is not None
                        and model.deals[1].verification.ok is not None
                    ),
                    30,
                )
                verification = model.deals[1].verification
                assert verification is not None and verification.ok, verification
                assert any(e.key == "log_missed_deal_verified" for e in model.log)
            finally:
                screen.quit()
                await asyncio.wait_for(game.task, 20)
        saved = record_path(data, table_id, 1)
        assert verification.record_path == str(saved)
        record = DealRecord.from_json(saved.read_bytes())
        # The first run's seed is in the deal's mix.
        assert _revealed(record, seat.seat) == [(seed, cut)]
        seed_file = saved.with_suffix(".seed")
        assert f"seed {seed.hex()}" in seed_file.read_text() and mode(seed_file) == 0o600
        assert SeatStore(data, address).seed(table_id, 1) is None  # it lies by the record now
    finally:
        await channel.close()
        await host.stop(grace=0.2)
