"""The network bot: joins a real host's table, plays a match out; deal events read off the wire."""

from __future__ import annotations

import asyncio
import json
import random
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from host.table import bots as host_bots
from scala40_net import verifier, wire
from scala40_net.actions import DrawSource, Play
from scala40_net.bots import LEVELS, make_bot
from scala40_net.bots.arena import play_deal
from scala40_net.bots.base import Bot
from scala40_net.bots.hard import HardBot
from scala40_net.events import (
    CardDrawn,
    CardsAttached,
    DealEnded,
    DealStarted,
    Event,
    MeldLaid,
    Played,
)
from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2
from scala40_net.rules import preset
from scala40_net.seat import netbot
from scala40_net.seat.netbot import NetworkSeat, parse_address
from scala40_net.views import DealView, view_event
from tests.conftest import HostClient, bearer, bot_seat, start_host, until
from tests.test_client_views import screen_view


def test_parse_address_adds_the_default_port() -> None:
    assert parse_address("localhost") == "localhost:4040"
    assert parse_address("10.0.0.2:5000") == "10.0.0.2:5000"
    assert parse_address("[::1]:5000") == "[::1]:5000"


async def test_network_bot_plays_a_match_against_a_host_bot(served: HostClient) -> None:
    options = ruleset_pb2.RulesetOptions(match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1)
    request = lobby_pb2.CreateTableRequest(
        name="bots", seats=2, ruleset=ruleset_pb2.Ruleset(options=options)
    )
    table_id = (await served.lobby.CreateTable(request)).table_id
    seat = NetworkSeat(served.channel, table_id, make_bot("hard", random.Random(1)))
    me = await seat.join("net bot")
    add = lobby_pb2.AddBotRequest(table_id=table_id, level=lobby_pb2.BOT_LEVEL_MEDIUM)
    await served.lobby.AddBot(add, metadata=seat.metadata)
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=seat.metadata
    )
    winners = await asyncio.wait_for(seat.play_match(), timeout=120)
    assert winners and set(winners) <= {me, 1 - me}


class Seen:
    """A bot seat that keeps every event as its seat sees it."""

    def __init__(self, bot: Bot, seat: int, log: dict[int, list[Event]]) -> None:
        self.bot, self.level = bot, bot.level
        self.events = log.setdefault(seat, [])

    def choose_draw(self, view: DealView) -> DrawSource:
        return self.bot.choose_draw(view)

    def choose_play(self, view: DealView) -> Play | None:
        return self.bot.choose_play(view)

    def observe(self, event: Event) -> None:
        self.events.append(event)
        self.bot.observe(event)

    def buys_back(self, fee: int) -> bool:
        return False


def test_deal_events_read_off_the_wire_are_the_engine_events_each_seat_saw() -> None:
    """What the host sends (public event, plus the seat's private part) reads back exactly."""
    seen_ops: set[str] = set()
    for k in range(12):
        name = ("classic", "tradizionale")[k % 2]  # tradizionale cuts long runs (R4.6)
        players = 2 + k % 3
        log: dict[int, list[Event]] = {}
        bots = {
            s: Seen(make_bot(LEVELS[(k + s) % 3], random.Random(k + s)), s, log)
            for s in range(players)
        }
        rules = preset(name, players)
        play_deal(bots, rules, dealer=k % players, label=f"wire-{name}-{k}")
        for seat, events in log.items():
            reader = wire.DealEventReader(seat)
            dealer = k % players
            announced = deal_pb2.DealAnnounced(dealer_seat=dealer, seats_in_play=range(players))
            assert reader.read(deal_pb2.DealEvent(deal_no=1, announced=announced)) is None
            for event in events:
                public = wire.deal_event_to_pb(view_event(event, None), "t", 1)
                private = wire.private_event_to_pb(event, seat, "t", 1)
                assert reader.read(public, private) == event
                if isinstance(event, Played):
                    for op in event.operations:
                        cut = isinstance(op, MeldLaid | CardsAttached) and len(op.placed) > 1
                        seen_ops.add("cut" if cut else type(op).__name__)
    assert {"MeldLaid", "CardsAttached", "JokerSwapped", "cut"} <= seen_ops, seen_ops


def test_the_network_bot_tells_its_bot_what_others_took() -> None:
    """The stream's events reach ``observe``: hard's memory learns a card taken from the pile."""
    bot = HardBot(random.Random(0))
    seat = NetworkSeat.__new__(NetworkSeat)
    seat.bot, seat.reader = bot, wire.DealEventReader(0)
    announced = deal_pb2.DealAnnounced(dealer_seat=1, seats_in_play=[0, 1])
    seat._observe(deal_pb2.DealEvent(deal_no=1, announced=announced), None)
    drawn = deal_pb2.CardDrawn(seat=1, source=deal_pb2.DRAW_SOURCE_DISCARD, card=20)
    seat._observe(deal_pb2.DealEvent(deal_no=1, drawn=drawn), None)
    assert bot.memory.held_by_others(0) == {20}
    assert bot.memory.wanted_by(1, 20)


async def test_a_host_bot_seat_sees_every_deal_event_as_its_seat_does(
    served: HostClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host feeds its bot seat the same deal a network seat follows, with its own cards."""
    log: dict[int, list[Event]] = {}
    monkeypatch.setattr(
        host_bots, "level_bot", lambda level: Seen(make_bot("hard", random.Random(2)), 1, log)
    )
    options = ruleset_pb2.RulesetOptions(match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1)
    request = lobby_pb2.CreateTableRequest(
        name="memory", seats=2, ruleset=ruleset_pb2.Ruleset(options=options)
    )
    table_id = (await served.lobby.CreateTable(request)).table_id
    net = Seen(make_bot("medium", random.Random(3)), 0, log)
    seat = NetworkSeat(served.channel, table_id, net)
    assert await seat.join("net bot") == 0
    add = lobby_pb2.AddBotRequest(table_id=table_id, level=lobby_pb2.BOT_LEVEL_HARD)
    await served.lobby.AddBot(add, metadata=seat.metadata)
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=seat.metadata
    )
    await asyncio.wait_for(seat.play_match(), timeout=120)
    host_seen = log[1]
    started = host_seen[0]
    assert isinstance(started, DealStarted) and started.hands[0] is None
    assert started.hands[1] is not None and len(started.hands[1]) == 13
    # The same deal as the network seat saw, hidden cards aside, up to the host seat's last
    # wake-up (once the match is over its task stops reading).
    public = [view_event(e, None) for e in log[0]]
    assert [view_event(e, None) for e in host_seen] == public[: len(host_seen)]
    assert isinstance(public[-1], DealEnded)
    last_own = max(i for i, e in enumerate(public) if isinstance(e, Played) and e.seat == 1)
    assert len(host_seen) >= last_own  # all it saw before its last play
    own_draws = [e for e in host_seen if isinstance(e, CardDrawn) and e.seat == 1]
    assert own_draws and all(e.card is not None for e in own_draws)


async def test_a_six_seat_table_of_bots_of_mixed_levels_plays_a_match_to_the_end(
    served: HostClient,
) -> None:
    """Five host bot seats of every level (an expert among them) and one hard network bot,
    a match of two deals."""
    options = ruleset_pb2.RulesetOptions(match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=2)
    request = lobby_pb2.CreateTableRequest(
        name="six bots", seats=6, ruleset=ruleset_pb2.Ruleset(options=options)
    )
    table_id = (await served.lobby.CreateTable(request)).table_id
    seat = NetworkSeat(served.channel, table_id, make_bot("hard", random.Random(6)))
    me = await seat.join("net bot")
    levels = [
        lobby_pb2.BOT_LEVEL_EASY,
        lobby_pb2.BOT_LEVEL_MEDIUM,
        lobby_pb2.BOT_LEVEL_HARD,
        lobby_pb2.BOT_LEVEL_EXPERT,
        lobby_pb2.BOT_LEVEL_MEDIUM,
    ]
    for level in levels:
        add = lobby_pb2.AddBotRequest(table_id=table_id, level=level)
        await served.lobby.AddBot(add, metadata=seat.metadata)
    listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    (table,) = [t for t in listed.tables if t.table_id == table_id]
    assert all(s.taken for s in table.seats) and sum(s.bot for s in table.seats) == 5
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=seat.metadata
    )
    winners = await asyncio.wait_for(seat.play_match(), timeout=240)
    assert winners and set(winners) <= set(range(6)) and me in range(6)
    listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    assert [t.phase for t in listed.tables if t.table_id == table_id] == [
        lobby_pb2.TABLE_PHASE_FINISHED
    ]


def test_the_host_seats_an_expert_for_its_level() -> None:
    assert host_bots.level_bot(lobby_pb2.BOT_LEVEL_EXPERT).level == "expert"
    assert host_bots.level_bot(lobby_pb2.BOT_LEVEL_HARD).level == "hard"


async def test_scala40_bot_level_expert_plays_a_match_over_the_network(
    served: HostClient,
) -> None:
    """``scala40-bot --level expert`` (its ``run``) against a host's hard bot, one deal."""
    options = ruleset_pb2.RulesetOptions(match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1)
    request = lobby_pb2.CreateTableRequest(
        name="expert", seats=2, ruleset=ruleset_pb2.Ruleset(options=options)
    )
    table_id = (await served.lobby.CreateTable(request)).table_id
    joined = await served.join(table_id, "owner")
    owner = bot_seat(served.channel, table_id, joined, HardBot(random.Random(5)))
    lines: list[str] = []
    playing = asyncio.create_task(
        netbot.run(served.address, table_id, "expert", seed=4, say=lines.append)
    )
    while not lines:  # the expert has its seat
        await asyncio.sleep(0.05)
    owner_playing = asyncio.create_task(owner.play_match())
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=owner.metadata
    )
    winners = await asyncio.wait_for(playing, timeout=180)
    assert set(winners) <= {0, 1} and winners
    assert await asyncio.wait_for(owner_playing, timeout=30) == winners
    assert any(line.startswith("deal 1 over") for line in lines), lines


async def _one_deal_beside_a_host_bot(
    served: HostClient, name: str
) -> tuple[str, lobby_pb2.JoinTableResponse]:
    """A two-seat table of one deal: Ann joined, a host bot beside her, not started."""
    options = ruleset_pb2.RulesetOptions(match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1)
    request = lobby_pb2.CreateTableRequest(
        name=name, seats=2, ruleset=ruleset_pb2.Ruleset(options=options)
    )
    table_id = (await served.lobby.CreateTable(request)).table_id
    joined = await served.join(table_id, "Ann")
    await served.lobby.AddBot(
        lobby_pb2.AddBotRequest(table_id=table_id), metadata=bearer(joined.seat_token)
    )
    return table_id, joined


async def _seat_connected(served: HostClient, table_id: str, seat: int) -> None:
    """Until the host lists ``seat`` of ``table_id`` as connected (its stream open)."""
    async with asyncio.timeout(30):
        while True:
            listed = (await served.lobby.ListTables(lobby_pb2.ListTablesRequest())).tables
            if next(t for t in listed if t.table_id == table_id).seats[seat].connected:
                return
            await asyncio.sleep(0.05)


def _seat_record_verifies(record: Path, fingerprint: str) -> int:
    """scala40-verify on a record the bot kept, with the seed and cut it kept beside it."""
    mine = json.loads(record.with_suffix(".seat.json").read_text())
    argv = [str(record), "--seat", str(mine["seat"]), "--my-seed", mine["seed"]]
    argv += ["--my-cut", str(mine["cut"]), "--host-fingerprint", fingerprint]
    return verifier.main(argv)


async def test_scala40_bot_plays_a_seat_joined_before_and_keeps_what_a_check_needs(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--seat-token-file`` plays the seat joined elsewhere; ``--record-dir`` keeps each
    deal's record and this seat's seed (they pass scala40-verify) and the stream's seqs."""
    table_id, joined = await _one_deal_beside_a_host_bot(served, "kept")
    token_file = tmp_path / "seat"
    token_file.write_text(f"{joined.seat} {joined.seat_token}\n")
    kept = tmp_path / "kept"
    lines: list[str] = []
    playing = asyncio.create_task(
        netbot.run(
            served.address,
            table_id,
            "easy",
            say=lines.append,
            seat_token_file=token_file,
            record_dir=kept,
        )
    )

    # Its stream is open: it will commit to the first deal.
    await _seat_connected(served, table_id, joined.seat)
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=bearer(joined.seat_token)
    )
    await asyncio.wait_for(playing, timeout=180)
    assert lines[0].startswith(f"seat {joined.seat} at table {table_id}")

    records = sorted(kept.glob("deal-*[0-9].json"))
    assert records
    for record in records:
        assert json.loads(record.with_suffix(".seat.json").read_text())["seat"] == joined.seat
        assert _seat_record_verifies(record, served.host.identity.fingerprint) == 0
        assert "seed in the mix" in capsys.readouterr().out
    seen = [line.split() for line in (kept / "stream.log").read_text().splitlines()]
    assert seen[0][0] == "event" and seen[0][2] == "snapshot"
    numbers = [int(seq) for word, seq, _ in seen if word == "event"]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    assert seen[-1][2] == "match_update"


async def test_a_bot_whose_stream_opens_after_the_announcement_still_commits(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A seat that starts playing while the commitments are open sees the announcement only
    inside its first snapshot: it commits then, and its seed is in that deal's mix."""
    table_id, joined = await _one_deal_beside_a_host_bot(served, "late")
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=bearer(joined.seat_token)
    )
    view = (
        await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(joined.seat_token))
    ).view
    assert view.phase == table_pb2.TURN_PHASE_COMMIT and view.deal_no == 1
    token_file = tmp_path / "seat"
    token_file.write_text(f"{joined.seat} {joined.seat_token}\n")
    kept = tmp_path / "kept"
    await asyncio.wait_for(
        netbot.run(
            served.address,
            table_id,
            "easy",
            say=lambda line: None,
            seat_token_file=token_file,
            record_dir=kept,
        ),
        timeout=180,
    )
    assert _seat_record_verifies(kept / "deal-1.json", served.host.identity.fingerprint) == 0
    assert "seed in the mix" in capsys.readouterr().out


async def test_scala40_bot_refuses_a_seat_token_file_it_cannot_read(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "seat"
    bad.write_text("just-a-token\n")
    with pytest.raises(OSError, match="does not hold one line 'SEAT TOKEN'"):
        await netbot.run(served.address, "t", seat_token_file=bad)
    argv = [served.address, "--table", "t", "--seat-token-file", str(bad)]
    assert await asyncio.to_thread(netbot.main, argv) == 1  # the command, with its own loop
    assert "does not hold one line 'SEAT TOKEN'" in capsys.readouterr().err
    missing = [served.address, "--table", "t", "--seat-token-file", str(tmp_path / "none")]
    assert await asyncio.to_thread(netbot.main, missing) == 1
    assert "No such file" in capsys.readouterr().err


def test_a_record_dir_that_cannot_take_a_deal_says_so_and_the_bot_plays_on(
    tmp_path: Path,
) -> None:
    keeper = netbot.Keeper(tmp_path)
    (tmp_path / "deal-1.json").mkdir()  # where the record should go, something else is
    keeper.keep(1, b"{}", 0, (b"\x01" * 32, 5))
    assert keeper.problem.startswith(f"record not kept in {tmp_path}: ")
    keeper.keep(2, b"{}", 0, None)
    assert json.loads((tmp_path / "deal-2.seat.json").read_text()) == {"seat": 0}
    keeper.trace("event 1 snapshot")
    keeper.close()
    keeper.trace("event 2 deal")  # after the log is closed: dropped, not raised
    assert (tmp_path / "stream.log").read_text() == "event 1 snapshot\n"


class Deciding:
    """A bot that keeps the view it last decided on."""

    def __init__(self, bot: Bot) -> None:
        self.bot, self.level = bot, bot.level
        self.view: DealView | None = None

    def choose_draw(self, view: DealView) -> DrawSource:
        self.view = view
        return self.bot.choose_draw(view)

    def choose_play(self, view: DealView) -> Play | None:
        self.view = view
        return self.bot.choose_play(view)

    def observe(self, event: Event) -> None:
        self.bot.observe(event)

    def buys_back(self, fee: int) -> bool:
        return False


async def test_the_network_bot_moves_on_the_view_the_host_has_without_asking_for_it(
    served: HostClient,
) -> None:
    """Two network seats carry their views from the stream (``views.after_event``): at each
    move, while the table waits for it, the host's own view of the seat (GetView) is the one
    the bot decided on, and the one the table screen holds; the other seat's screen, once
    sent every event so far, holds that seat's GetView too (the opponent's taken discard
    included); the seats asked for a view only at each deal's start."""
    options = ruleset_pb2.RulesetOptions(match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=2)
    request = lobby_pb2.CreateTableRequest(
        name="views",
        seats=2,
        ruleset=ruleset_pb2.Ruleset(options=options),
    )
    table_id = (await served.lobby.CreateTable(request)).table_id
    checked: list[str] = []
    seats = []
    for k, level in enumerate(("hard", "medium")):
        joined = await served.lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=table_id, player_name=level)
        )
        bot = Deciding(make_bot(level, random.Random(40 + k)))
        seat = bot_seat(served.channel, table_id, joined, bot)  # type: ignore[arg-type]
        # Checked where the seat's link hands each move to its transport (the seat's stream).
        for name in ("draw", "play", "return_discard"):
            method = getattr(seat.table, name)
            setattr(seat.table, name, _checking(method, seat, bot, checked, seats))
        seats.append(seat)
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=seats[0].metadata
    )
    results = await asyncio.wait_for(asyncio.gather(*(s.play_match() for s in seats)), timeout=240)
    assert results[0] and results[0] == results[1]
    started = 0
    for seat in seats:
        assert seat.log is not None
        deals = sum(e.deal.public_event != b"" and _started(e) for e in seat.log.events)
        assert deals >= 2  # (a void deal is played again)
        assert len(seat.log.views) <= deals + len(seat.log.refusals), seat.log.refusals
        started = max(started, deals)
    # Every deal has at least its first seat's draw and play, each checked.
    assert len(checked) >= 2 * started and {"DrawRequest", "PlayRequest"} <= set(checked)


def _started(event: table_pb2.TableEvent) -> bool:
    return deal_pb2.DealEvent.FromString(event.deal.public_event).WhichOneof("event") == "started"


def _checking(
    method: Callable[..., Awaitable[object]],
    seat: NetworkSeat,
    bot: Deciding,
    checked: list[str],
    seats: list[NetworkSeat],
) -> Callable[..., Awaitable[object]]:
    """``method`` sent only after the host's view of the seat is checked against the bot's,
    and against a screen's sent every message of the seat's stream (one view, one code path);
    and every other seat's GetView against its own screen, at the same moment."""

    async def call(request: object, **kwargs: object) -> object:
        answer = await seat.tables.GetView(
            table_pb2.GetViewRequest(), metadata=seat.metadata, timeout=10
        )
        assert wire.deal_view_from_pb(answer.view) == bot.view
        assert seat.log is not None
        assert screen_view(seat.log.events) == bot.view
        for other in seats:
            if other is not seat:
                await _screen_holds_get_view(other)
        checked.append(type(request).__name__)
        return await method(request, **kwargs)

    return call


async def _screen_holds_get_view(seat: NetworkSeat) -> None:
    """While the table waits for another seat, ``seat``'s GetView is what a screen sent its
    stream up to the same event holds (the stream may still be on its way: waited for)."""
    answer = await seat.tables.GetView(
        table_pb2.GetViewRequest(), metadata=seat.metadata, timeout=10
    )
    log = seat.log
    assert log is not None
    await until(
        lambda: bool(log.events) and log.events[-1].seq >= answer.seq,
        explain=lambda: f"seat {seat.seat} never received event {answer.seq}",
    )
    sent = [event for event in log.events if event.seq <= answer.seq]
    assert screen_view(sent) == wire.deal_view_from_pb(answer.view)


@pytest.mark.long(15)
async def test_scala40_bot_rides_out_a_short_outage_and_gives_up_on_a_host_gone_for_good(
    tmp_path: Path,
) -> None:
    """Its patience counts from the last time the host answered: a restart shorter than it
    is ridden out, and a host gone for longer ends the bot with a sentence and exit 1."""
    data = tmp_path / "host"
    served = await start_host(data)
    port = served.host.port
    table_id, joined = await _one_deal_beside_a_host_bot(served, "gone")
    seat_file = tmp_path / "seat"
    seat_file.write_text(f"{joined.seat} {joined.seat_token}\n")
    argv = [served.address, "--table", table_id, "--seat-token-file", str(seat_file)]
    bot = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "scala40_net.seat.netbot", *argv, "--give-up-after", "8",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    playing = asyncio.ensure_future(bot.communicate())
    try:
        await _seat_connected(served, table_id, joined.seat)
        await served.channel.close()
        await served.host.stop(grace=0.2)
        await asyncio.sleep(1.0)  # away for less than its patience
        assert not playing.done()
        served = await start_host(data, port=port)
        await _seat_connected(served, table_id, joined.seat)  # it came back by itself
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.2)
    gone_at = asyncio.get_running_loop().time()
    _, said = await asyncio.wait_for(playing, 60)
    assert bot.returncode == 1
    # Eight seconds from the second stop, not the first: the outage before did not count.
    assert asyncio.get_running_loop().time() - gone_at >= 8
    err = said.decode()
    message = "the connection to the host dropped (UNAVAILABLE); reconnecting (given up after 8 s"
    assert message in err, err
    assert "scala40-bot: the host has not answered for 8 s (UNAVAILABLE): given up" in err, err


@pytest.mark.parametrize("chosen_at", [None, 0, -1])
def test_a_refused_play_is_never_tried_again_when_it_was_a_bare_discard(
    chosen_at: int | None,
) -> None:
    """After a rule refusal the bot falls back on bare discards, the last card first: its own
    choice, when it was the bare discard of the last card, is not sent a second time (the
    conformance check's "rule refusal" once saw scala40-bot do that)."""
    hand = (5, 17, 40, 88, 107)
    chosen = None if chosen_at is None else Play((), hand[chosen_at])
    tries = netbot.plays_to_try(chosen, hand)
    assert len(tries) == len(set(tries)) == len(hand)
    assert tries[0] == (chosen or Play((), hand[-1]))
    assert {p.discard for p in tries} == set(hand)
