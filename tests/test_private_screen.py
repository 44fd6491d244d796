"""The screen at a private table over a real host, beside two scala40-bot processes and a bot
of this process, driven by typed keys: its hand read from
the other seats' shares, a card drawn from the stock read once theirs come, its discards
opened by position; the title says "private table", the status line the table code; a
spectator is never sent a card before it is opened; the deal's record audits."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from conftest import HostClient, until
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_client_host import legal_discard
from test_client_turn_clock import cut_when_asked
from test_host_private import audit_journal, audit_stream, record_verifies
from test_private_restart import start_bot

from client import render
from client.app import TableScreen
from client.connection import LobbyClient, Seat
from client.i18n import Text
from client.main import open_table
from client.model import FairDealState, Phase
from client.session import SessionState
from host.journal.sqlite import SUFFIX, TABLES_FOLDER
from host.table.links import LiveChoices
from scala40_net.bots import make_bot
from scala40_net.cards import card_text, face
from scala40_net.fairdeal.spec import cutter_seat
from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2
from scala40_net.private.messages import CutBody, Envelope, Kind
from scala40_net.seat.link import GrpcTable
from scala40_net.seat.netbot import NetworkSeat, SeatLog
from scala40_net.seat.private import key_path


@pytest.mark.long(60)
@pytest.mark.timeout(600)
async def test_a_whole_private_match_beside_bots_and_a_spectator_shows_no_card_before_its_time(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A whole 4-seat private match over TLS: the screen, two scala40-bot processes, a bot of
    this process and a spectator. The privacy audit: no hidden card in what the host holds
    mid-deal (no place it could open), in its journal, its log, or any stream but the
    owner's; every deal's record audits."""
    caplog.set_level(logging.DEBUG)
    ada_dir = tmp_path / "ada"
    lobby = LobbyClient(served.channel, "en", data_dir=ada_dir)
    settings = lobby_pb2.CreateTableRequest(
        private_cards=True, grace_seconds=120, between_deals_seconds=1
    )
    # The match: the first deal won ends it (R11.2), or three void deals in a row (R11.5).
    options = ruleset_pb2.RulesetOptions(
        stall_rebuilds=1, match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1
    )
    table_id = await lobby.create_table(
        "private", ruleset_pb2.PRESET_CLASSIC, 4, options=options, settings=settings
    )
    seat = await lobby.join(table_id, "Ada")
    bots = []
    for n in range(1):
        bot = NetworkSeat(served.channel, table_id, make_bot("medium", random.Random(n)),
                          log=SeatLog())  # fmt: skip
        bot.private_dir = tmp_path / f"bot{n}"
        await bot.join(f"medium {n}")
        bots.append(bot)
    # Two scala40-bot processes take the other seats, as two players' machines would.
    processes = [
        start_bot(served, table_id, f"medium p{n}", tmp_path / "bots", think=0.05)
        for n in range(2)
    ]

    async def seated() -> lobby_pb2.TableSummary:
        while True:
            listed = await lobby.tables()
            summary = next(t for t in listed if t.table_id == table_id)
            if all(s.taken for s in summary.seats):
                return summary
            await asyncio.sleep(0.05)

    summary = await asyncio.wait_for(seated(), 60)
    assert summary.private_cards
    row = render_row(summary)
    assert "private cards" in row

    # A spectator follows the table's events.
    watching = await lobby.spectate(table_id)
    spectator = GrpcTable(served.channel, watching.token, seat_stream=False)
    seen: list[bytes] = []

    async def spectate() -> None:
        async for message in spectator.events(0):
            seen.append(message.SerializeToString())

    # What the host holds, looked at on every event: never a hidden place it could open.
    task = served.host.registry.tables[table_id]
    looked: list[int] = []  # how many hidden places the host held, at each look
    could_open: list[list[tuple[int, int]]] = []

    async def look_at_the_host() -> None:
        _, subscriber = task.fanout.subscribe(
            None, task.fanout.last_seq, table_pb2.TableEvent, internal=True
        )
        try:
            while True:
                await subscriber.queue.get()
                current = task.table.state.current
                secret = current.private if current is not None else None
                if secret is not None and secret.pending_end is None:
                    looked.append(len(secret.id_at))
                    if opened := [p for p in secret.id_at if secret.owner_opened(p)]:
                        could_open.append(opened)
        finally:
            task.fanout.unsubscribe(subscriber)

    stopping = asyncio.Event()
    tasks = [asyncio.create_task(b.play_to_end(stopping)) for b in bots]
    tasks.append(asyncio.create_task(spectate()))
    host_look = asyncio.create_task(look_at_the_host())
    with create_pipe_input() as pipe, create_pipe_input() as watching_pipe:
        # A spectator's screen too: it says "private table" and shows the same table code.
        watcher = await open_table(served.channel, watching, Text("en"), SessionState(host="h"),
                                   tmp_path / "watcher", input=watching_pipe,
                                   output=DummyOutput())  # fmt: skip
        watching_task = asyncio.create_task(watcher.run_async())
        session = SessionState(host=f"127.0.0.1:{served.host.port}")
        screen = await open_table(served.channel, seat, Text("en"), session, ada_dir,
                                  input=pipe, output=DummyOutput())  # fmt: skip
        running = asyncio.create_task(screen.run_async())
        cutting = asyncio.create_task(cut_when_asked(screen, pipe))
        model = screen.model
        try:
            await until(lambda: model.last_seq > 0, 30)
            await lobby.start_match(seat)
            await until(lambda: len(model.hand) == 13, 120)
            title = render.plain(render.title_line(model, session, screen.text))
            assert "private table" in title
            await until(lambda: model.table_code is not None, 30)
            status = render.plain(render.private_fragment(model, screen.text))
            assert model.table_code is not None and model.table_code in status
            assert bots[0].private is not None
            assert model.table_code == bots[0].private.table_code
            assert key_path(ada_dir / "private" / table_id, 1).exists()
            await until(lambda: watcher.model.table_code == model.table_code, 30)
            assert "private table" in render.plain(
                render.title_line(watcher.model, watcher.session, watcher.text)
            )
            turns = await play_the_match(screen, pipe)
            assert model.private_fault is None
            await until(lambda: watcher.model.match_over, 60)
        finally:
            stopping.set()
            cutting.cancel()
            host_look.cancel()
            screen.quit()
            await asyncio.wait_for(running, 30)
            watcher.quit()
            await asyncio.wait_for(watching_task, 30)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, host_look, return_exceptions=True)
            for process in processes:
                process.kill()
                process.wait(10)
    assert turns >= 1 and looked and not could_open
    deals = sorted(model.deals)
    assert model.match_over and deals and model.winners
    assert audit_stream(seen) == len(deals)  # the spectator: no card before its opening
    journal = served.host.data_dir / TABLES_FOLDER / f"{table_id}{SUFFIX}"
    assert audit_journal(journal) == len(deals)
    # The host's log: no sentence names a card (it knows none it could name but public ones).
    named = {str(face(c)) for c in range(108)}
    for record in caplog.records:
        if record.name.startswith("host"):
            line = record.getMessage()
            assert not any(f" {n} " in f" {line} " for n in named), line
    told = bots[0].link
    for deal_no in deals:
        record = await told.deal_record(deal_no)
        print(record_verifies(tmp_path, record, f"deal-{deal_no}.json", capsys))


async def play_the_match(screen: TableScreen, pipe: PipeInput) -> int:
    """Ada's turns to the match's end, typed: a draw from the stock, a discard the rules
    allow (R8.2, by the engine's own check), never a meld; the turns she played."""
    model = screen.model
    turns = 0
    while not model.match_over:
        await until(lambda: (model.my_turn and model.phase is Phase.DRAW) or model.match_over,
                    180)  # fmt: skip
        if model.match_over:
            break
        deal = model.deals[model.deal_no]
        # Her 13 cards before she draws (she lays nothing): at a deal's first turn they are
        # read as the other seats' shares come, and her turn may come first.
        await until(lambda d=deal: len(model.hand) == 13 or d.ended, 60)  # type: ignore[misc]
        if deal.ended:
            continue
        await draw_as_a_person(screen, pipe, deal)
        if deal.ended:
            continue
        drawn = model.last_drawn
        assert drawn is not None and drawn in model.hand
        me = model.my_seat
        done = model.turns_played.get(me, 0)  # type: ignore[arg-type]
        pipe.send_text(f"discard {card_text(legal_discard(screen))}\r")
        await until(
            lambda n=done, me=me, d=deal: model.turns_played.get(me, 0) > n or d.ended,  # type: ignore[misc]
            60,
            lambda: f"notice {screen.session.notice}, fault {model.private_fault}",
        )
        turns += 1
    return turns


async def draw_as_a_person(screen: TableScreen, pipe: PipeInput, deal: FairDealState) -> None:
    """Type ``draw`` until the stock card is read (the other seats' shares come) or the deal
    ends; a draw refused while a rebuilt stock is still being shuffled (R10.1) is typed
    again, as its player would once they read the refusal."""
    model, loop = screen.model, asyncio.get_running_loop()
    deadline = loop.time() + 60
    pipe.send_text("draw\r")
    while not (len(model.hand) == 14 or deal.ended):
        notice = str(screen.session.notice)
        assert loop.time() < deadline, (
            f"no stock card read in 60 s: notice {notice}, waiting for "
            f"{model.private_waiting}, fault {model.private_fault}"
        )
        if "still being shuffled" in notice:
            screen.session.clear_notice()
            await asyncio.sleep(0.5)
            pipe.send_text("draw\r")
        await asyncio.sleep(0.05)


def render_row(summary: lobby_pb2.TableSummary) -> str:
    from client.lobby import table_row

    return table_row(summary, Text("en"))


async def ada_at_a_private_table(
    served: HostClient, tmp_path: Path, seats: int
) -> tuple[Path, LobbyClient, str, Seat]:
    """A private classic table of ``seats`` made through the lobby, and Ada's seat at it."""
    ada_dir = tmp_path / "ada"
    lobby = LobbyClient(served.channel, "en", data_dir=ada_dir)
    settings = lobby_pb2.CreateTableRequest(private_cards=True, grace_seconds=120)
    table_id = await lobby.create_table("private", ruleset_pb2.PRESET_CLASSIC, seats,
                                        settings=settings)  # fmt: skip
    return ada_dir, lobby, table_id, await lobby.join(table_id, "Ada")


@contextlib.asynccontextmanager
async def ada_screen(
    served: HostClient, seat: Seat, ada_dir: Path
) -> AsyncIterator[tuple[TableScreen, PipeInput]]:
    """Ada's screen at her seat on pipe input, running; it quits when the block ends."""
    with create_pipe_input() as pipe:
        screen = await open_table(served.channel, seat, Text("en"), SessionState(host="h"),
                                  ada_dir, input=pipe, output=DummyOutput())  # fmt: skip
        running = asyncio.create_task(screen.run_async())
        try:
            yield screen, pipe
        finally:
            screen.quit()
            await asyncio.wait_for(running, 30)


@pytest.mark.long(30)
@pytest.mark.timeout(300)
async def test_the_screen_started_again_mid_deal_reads_its_hand_again(
    served: HostClient, tmp_path: Path
) -> None:
    ada_dir, lobby, table_id, seat = await ada_at_a_private_table(served, tmp_path, 3)
    bots = []
    for n in range(2):
        bot = NetworkSeat(served.channel, table_id, make_bot("medium", random.Random(n)),
                          log=SeatLog())  # fmt: skip
        bot.private_dir = tmp_path / f"bot{n}"
        await bot.join(f"medium {n}")
        bots.append(bot)
    stopping = asyncio.Event()
    tasks = [asyncio.create_task(b.play_to_end(stopping)) for b in bots]
    try:
        async with ada_screen(served, seat, ada_dir) as (screen, pipe):
            cutting = asyncio.create_task(cut_when_asked(screen, pipe))
            await until(lambda: screen.model.last_seq > 0, 30)
            await lobby.start_match(seat)
            await until(lambda: len(screen.model.hand) == 13, 120)
            hand = sorted(screen.model.hand)
            cutting.cancel()
        # The screen's process is gone; started again, it takes its seat back with its
        # token and reads its hand from its per-deal key on disk and the host's transcript.
        async with ada_screen(served, seat, ada_dir) as (again, _):
            await until(lambda: sorted(again.model.hand) == hand, 60,
                        lambda: f"hand {sorted(again.model.hand)} != {hand}")  # fmt: skip
            assert again.model.private_fault is None
    finally:
        stopping.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


@dataclasses.dataclass(frozen=True)
class FirstDealer(LiveChoices):
    """The live table's choices, but for the first dealer, which the test names."""

    dealer: int = 0

    def first_dealer(self, players: list[int]) -> int:
        return self.dealer


@pytest.mark.long(15)
@pytest.mark.timeout(300)
async def test_the_screens_player_cuts_a_private_deck_as_at_any_table_r2_2(
    served: HostClient, tmp_path: Path
) -> None:
    """Ada cuts: once the deck is shuffled the command line asks her for the cut, as at an
    ordinary table, and the number she types is the cut every seat applies (the CUT
    message of the deal's transcript)."""
    ada_dir, lobby, table_id, seat = await ada_at_a_private_table(served, tmp_path, 2)
    bot = NetworkSeat(served.channel, table_id, make_bot("medium", random.Random(1)),
                      log=SeatLog())  # fmt: skip
    bot.private_dir = tmp_path / "bot"
    await bot.join("medium 1")
    assert bot.seat is not None
    dealer = next(d for d in (seat.seat, bot.seat) if cutter_seat(d, (0, 1)) == seat.seat)
    table = served.host.registry.tables[table_id].table
    live = table.links.choices
    assert isinstance(live, LiveChoices)
    table.links.choices = FirstDealer(live.presence, dealer)
    stopping = asyncio.Event()
    playing = asyncio.create_task(bot.play_to_end(stopping))
    try:
        async with ada_screen(served, seat, ada_dir) as (screen, pipe):
            await until(lambda: screen.model.last_seq > 0, 30)
            await lobby.start_match(seat)
            await until(lambda: screen.session.cut_prompt, 60)
            _, said = render.what_now(screen.model, screen.session, screen.text)
            assert said.startswith("You cut the deck: type 1 to 107"), said
            pipe.send_text("17\r")
            await until(lambda: len(screen.model.hand) == 13, 120)
            assert not screen.session.cut_prompt
            assert screen.link is not None
            view = (await screen.link.table.view()).view
            cuts = [
                (env.author, env.body())
                for data in view.private_transcript
                if (env := Envelope.parse(bytes(data))).kind == Kind.CUT
            ]
            assert cuts == [(seat.seat, CutBody(17))]
            assert screen.model.private_fault is None
    finally:
        stopping.set()
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)


@pytest.mark.long(30)
@pytest.mark.timeout(300)
async def test_the_player_hands_the_seat_with_its_keys_to_a_stand_in_from_the_screen(
    served: HostClient, tmp_path: Path
) -> None:
    """``standin`` typed once says what it costs (the host can then see the hand); typed
    again mid-deal, the seat and its keys go to a host bot: the screen says so, the seat
    shows as the host's to read, and the deal goes on without the screen signing anything
    (docs/PRIVATE_TABLES.md "The stand-in")."""
    ada_dir, lobby, table_id, seat = await ada_at_a_private_table(served, tmp_path, 3)
    bots = []
    for n in range(2):
        bot = NetworkSeat(served.channel, table_id, make_bot("medium", random.Random(n)),
                          log=SeatLog())  # fmt: skip
        bot.private_dir = tmp_path / f"bot{n}"
        await bot.join(f"medium {n}")
        bots.append(bot)
    stopping = asyncio.Event()
    tasks = [asyncio.create_task(b.play_to_end(stopping)) for b in bots]
    try:
        async with ada_screen(served, seat, ada_dir) as (screen, pipe):
            cutting = asyncio.create_task(cut_when_asked(screen, pipe))
            await until(lambda: screen.model.last_seq > 0, 30)
            word = screen.word("standin")
            # Before the match: not yet (nothing changes).
            pipe.send_text(f"{word}\r")
            refused = screen.text("err_stand_in_private")
            await until(lambda: notice_fields(screen).get("reason") == refused, 10)
            await lobby.start_match(seat)
            await until(lambda: len(screen.model.hand) == 13, 120)
            cutting.cancel()
            pipe.send_text(f"{word}\r")
            await until(lambda: notice_key(screen) == "stand_in_confirm", 10)
            me = screen.model.seat(seat.seat)
            assert not me.host_bot and not me.away
            pipe.send_text(f"{word}\r")
            await until(lambda: notice_key(screen) == "stand_in_done", 30,
                        lambda: f"notice {notice_key(screen)}")  # fmt: skip
            await until(lambda: screen.model.seat(seat.seat).host_bot, 30)
            assert screen.model.seat(seat.seat).away == lobby_pb2.AWAY_REASON_STAND_IN
            deals = screen.private.deals
            assert deals is not None and deals.handed and deals.current is None
            # The deal goes on to its end with the stand-in (not void for Ada's seat, R10.3).
            deal_no = 1
            await until(
                lambda: any(
                    e.deal_no == deal_no and e.WhichOneof("event") == "ended"
                    for b in bots
                    for e in deal_events(b)
                ),
                240,
            )
    finally:
        stopping.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    # The bot that saw the end first (the others may not have read it yet).
    ended = next(
        e
        for b in bots
        for e in deal_events(b)
        if e.deal_no == 1 and e.WhichOneof("event") == "ended"
    )
    assert not ended.ended.void_reason.startswith("R10.3"), ended.ended.void_reason


def notice_key(screen: TableScreen) -> str | None:
    notice = screen.session.notice
    return notice.key if notice is not None else None


def notice_fields(screen: TableScreen) -> dict[str, object]:
    notice = screen.session.notice
    return dict(notice.fields) if notice is not None else {}


def deal_events(bot: NetworkSeat) -> list[deal_pb2.DealEvent]:
    return [
        deal_pb2.DealEvent.FromString(e.deal.public_event)
        for e in (bot.log.events if bot.log else [])
        if e.HasField("deal")
    ]
