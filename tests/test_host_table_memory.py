"""A table's own rules on an in-memory journal: no gRPC, no TLS, no SQLite, the same table task.

The end-to-end tests drive the same code over TLS gRPC and SQLite; these ones
drive the table's task directly (``TableTask.call``), with the host's own bots
in the seats, so the table's rules and its playback are checked in moments.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import typing
from collections.abc import AsyncIterator

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host.edge import auth
from host.edge.errors import Refusal
from host.journal import journaled
from host.journal.memory import MemoryJournal
from host.journal.sqlite import StoredEntry
from host.table.bots import run_bot_seat
from host.table.state import TableSettings
from host.table.table import Table
from host.table.task import TableTask
from scala40_net import wire
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2
from tests.conftest import until

SETTINGS = TableSettings(commit_timeout=10.0, reveal_timeout=10.0, between_deals=0.0)
IDENTITY = HostIdentity.generate()
PRESETS = [ruleset_pb2.PRESET_CLASSIC, ruleset_pb2.PRESET_TRADIZIONALE, ruleset_pb2.PRESET_SEMPLICE]


def config(
    seats: int, preset: int = ruleset_pb2.PRESET_CLASSIC, deals: int = 1
) -> lobby_pb2.CreateTableRequest:
    """A table whose match is a deal (or a few), so a whole match is quick."""
    ruleset = ruleset_pb2.Ruleset(preset=preset)  # type: ignore[arg-type]
    ruleset.options.match_mode = ruleset_pb2.MATCH_MODE_DEALS
    ruleset.options.deals_in_match = deals
    ruleset.options.rientro = False  # a buy-back needs a match to points
    return lobby_pb2.CreateTableRequest(name="memory", seats=seats, ruleset=ruleset)


def new_task(
    journal: MemoryJournal,
    table: lobby_pb2.CreateTableRequest,
    *,
    bots: bool = True,
    settings: TableSettings = SETTINGS,
) -> TableTask:
    ruleset = wire.ruleset_from_pb(table.ruleset, table.seats)
    return TableTask(
        "t1",
        table,
        ruleset,
        journal,
        IDENTITY,
        auth.TokenBook(),
        settings,
        run_bot=(lambda task, seat: asyncio.create_task(run_bot_seat(task, seat)))
        if bots
        else None,
    )


@pytest.fixture
async def waiting() -> AsyncIterator[tuple[TableTask, MemoryJournal]]:
    """A running table of three seats, nobody seated yet, with no bots to seat."""
    journal = MemoryJournal()
    task = new_task(journal, config(3), bots=False)
    task.start()
    try:
        yield task, journal
    finally:
        await task.stop()


def join(name: str, seat: int | None = None) -> lobby_pb2.JoinTableRequest:
    request = lobby_pb2.JoinTableRequest(table_id="t1", player_name=name)
    if seat is not None:
        request.seat = seat
    return request


async def refused(task: TableTask, job: object) -> Refusal:
    with pytest.raises(Refusal) as caught:
        await task.call(job)  # type: ignore[arg-type]
    return caught.value


async def test_seating_refusals_change_nothing(waiting: tuple[TableTask, MemoryJournal]) -> None:
    task, journal = waiting
    ann = await task.call(lambda table: table.join(join("Ann")))
    before = (len(journal.stored), task.table.seq)
    for job, reason in [
        (lambda table: table.join(join(" ann ")), "NAME_TAKEN"),
        (lambda table: table.join(join("Bot 7")), "MALFORMED_REQUEST"),
        (lambda table: table.join(join("Bea", seat=ann.seat)), "SEAT_TAKEN"),
        (lambda table: table.join(join("Bea", seat=9)), "NO_SUCH_SEAT"),
        (lambda table: table.free_seat(1, ann.seat), "NOT_THE_DECIDER"),
        (lambda table: table.start_match(ann.seat, lobby_pb2.StartMatchRequest()), None),
    ]:
        refusal = await refused(task, job)
        assert reason is None or refusal.reason == reason, refusal
    assert (len(journal.stored), task.table.seq) == before


async def test_the_first_player_frees_a_squatted_seat(
    waiting: tuple[TableTask, MemoryJournal],
) -> None:
    task, journal = waiting
    ann = await task.call(lambda table: table.join(join("Ann")))
    bea = await task.call(lambda table: table.join(join("Bea")))
    await task.call(lambda table: table.free_seat(ann.seat, bea.seat))
    assert not task.table.seats[bea.seat].taken
    assert [e.kind for e in journal.stored] == ["join", "join", "free_seat"]
    # Her token no longer opens anything, in the journal as in the host's book.
    assert set(journal.tokens.values()) == {ann.seat}


async def test_a_move_without_a_request_id_is_refused(
    waiting: tuple[TableTask, MemoryJournal],
) -> None:
    task, journal = waiting
    for name in ("Ann", "Bea"):
        await task.call(lambda table, n=name: table.join(join(n)))  # type: ignore[misc]
    await task.call(lambda table: table.start_match(0, lobby_pb2.StartMatchRequest()))
    before = len(journal.stored)
    draw = table_pb2.DrawRequest(source=deal_pb2.DRAW_SOURCE_STOCK)
    refusal = await refused(task, lambda table: table.draw(0, draw))
    assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT and "request_id" in str(refusal)
    assert len(journal.stored) == before


async def test_a_job_whose_write_fails_is_undone(
    waiting: tuple[TableTask, MemoryJournal],
) -> None:
    task, journal = waiting
    await task.call(lambda table: table.join(join("Ann")))
    seq, jobs = task.table.seq, journal.jobs
    journal.fail_writes = "disk full"
    refusal = await refused(task, lambda table: table.join(join("Bea")))
    assert refusal.reason == "NOT_SAVED" and "disk full" in str(refusal)
    assert task.table.seq == seq and journal.jobs == jobs
    assert [s.name for s in task.table.seats if s.taken] == ["Ann"]
    journal.fail_writes = None
    await task.call(lambda table: table.join(join("Bea")))
    assert [s.name for s in task.table.seats if s.taken] == ["Ann", "Bea"]


async def a_bot_match(journal: MemoryJournal, table: lobby_pb2.CreateTableRequest) -> TableTask:
    """A match of host bots at every seat, played to its end on ``journal``."""
    task = new_task(journal, table)
    task.start()
    first = await task.call(lambda t: t.join(join("Ann")))
    for _ in range(table.seats - 1):
        await task.call(lambda t: t.add_bot(first.seat, lobby_pb2.AddBotRequest()))
    await task.call(lambda t: t.start_match(first.seat, lobby_pb2.StartMatchRequest()))
    await task.call(lambda t: t.mark_away(first.seat, lobby_pb2.AWAY_REASON_HANDED_OVER))
    await until(lambda: task.match_over, 120.0)
    await task.stop()
    return task


def played_back(
    journal: MemoryJournal, table: lobby_pb2.CreateTableRequest, settings: TableSettings = SETTINGS
) -> TableTask:
    """A new task of the same table, brought to where the journal ends (a host restarted)."""
    again = new_task(journal, table, bots=False, settings=settings)
    again.play_back()
    return again


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.integers(2, 4), preset=st.sampled_from(PRESETS))
async def test_a_match_plays_back_to_the_same_table(seats: int, preset: int) -> None:
    """Every kind the match wrote is declared once, and handing the journal's entries back
    to the table reaches the state the table had: the same seqs, match and records."""
    journal = MemoryJournal()
    table = config(seats, preset)
    live = await a_bot_match(journal, table)
    assert {e.kind for e in journal.stored} <= set(journaled.KINDS)
    again = played_back(journal, table)
    assert again.table.state.match == live.table.state.match
    assert again.table.seq == live.table.seq and again.fanout.last_seq == live.table.seq
    assert {n: r.head for n, r in again.table.state.recorders.items()} == {
        n: r.head for n, r in live.table.state.recorders.items()
    }
    assert again.table.state.phase == lobby_pb2.TABLE_PHASE_FINISHED


async def test_an_older_hosts_move_without_a_request_id_plays_back() -> None:
    """An older host let a move go without a request id: its journal still plays back."""
    journal = MemoryJournal()
    table = config(2)
    live = await a_bot_match(journal, table)
    older = MemoryJournal(seeds=journal.seeds, bot_seats=journal.bot_seats)
    for entry in journal.stored:
        if entry.kind in ("draw", "play"):
            request_type = journaled_request_type(entry)
            request = request_type.FromString(entry.request)
            request.context.ClearField("request_id")
            entry = dataclasses.replace(entry, request_id=None, request=request.SerializeToString())
        older.stored.append(entry)
    again = played_back(older, table)
    assert again.table.state.match == live.table.state.match
    # It kept an answer for none of them (a retry of a move without an id is no retry).
    assert all(kind not in ("draw", "play") for kind, _ in again.table.state.answers.values())


def journaled_request_type(
    entry: StoredEntry,
) -> type[table_pb2.DrawRequest] | type[table_pb2.PlayRequest]:
    return table_pb2.DrawRequest if entry.kind == "draw" else table_pb2.PlayRequest


async def test_the_pause_between_deals_waits_for_the_people_connected() -> None:
    """Live, the pause waits for the people whose stream is open; played back, the Ready the
    journal holds finds the pause it was sent in."""
    journal = MemoryJournal()
    table = config(2, deals=2)
    paused = dataclasses.replace(SETTINGS, between_deals=60.0)
    task = new_task(journal, table, settings=paused)
    task.start()
    ann = await task.call(lambda t: t.join(join("Ann")))
    await task.call(lambda t: t.add_bot(ann.seat, lobby_pb2.AddBotRequest()))
    await task.call(lambda _: task.subscribe(ann.seat, 0))  # her stream is open
    await task.call(lambda t: t.start_match(ann.seat, lobby_pb2.StartMatchRequest()))
    # A host bot plays her turns; the end of each deal is still hers to read.
    await task.call(lambda t: t.mark_away(ann.seat, lobby_pb2.AWAY_REASON_HANDED_OVER))
    pause = task.table.deals.between_deals
    readies = 0
    for _ in range(10):  # each deal's end until the match is over (a tie plays on)
        await until(lambda: pause.running or task.match_over, 60.0)
        if task.match_over:
            break
        deal_no = task.table.state.deal_no
        assert pause.waiting_for == {ann.seat}
        context = table_pb2.MoveContext(request_id=f"read deal {deal_no}")
        await task.call(lambda t, c=context: t.ready(ann.seat, table_pb2.ReadyRequest(context=c)))  # type: ignore[misc]
        assert not pause.running and task.table.state.deal_no == deal_no + 1
        readies += 1
    assert readies >= 1 and task.match_over
    await task.stop()
    assert "ready" in [e.kind for e in journal.stored]
    again = played_back(journal, table, paused)
    assert again.table.state.match == task.table.state.match
    assert again.table.seq == task.table.seq


async def _a_match_where_a_person_may_bust(
    journal: MemoryJournal, settings: TableSettings, table: lobby_pb2.CreateTableRequest
) -> bool:
    """Two people (connected, their turns handed to host bots) and two bots; every pause is
    checked to wait for the people still in the match. True when one of them busted."""
    task = new_task(journal, table, settings=settings)
    task.start()
    people = [await task.call(lambda t, n=n: t.join(join(n))) for n in ("Ann", "Bob")]  # type: ignore[misc]
    first = people[0].seat
    for _ in range(2):
        await task.call(lambda t: t.add_bot(first, lobby_pb2.AddBotRequest()))
    for person in people:
        await task.call(lambda _, s=person.seat: task.subscribe(s, 0))  # type: ignore[misc]
    await task.call(lambda t: t.start_match(first, lobby_pb2.StartMatchRequest()))
    for person in people:  # host bots play their turns; the deal's end is theirs to read
        await task.call(
            lambda t, s=person.seat: t.mark_away(s, lobby_pb2.AWAY_REASON_HANDED_OVER)  # type: ignore[misc]
        )
    pause = task.table.deals.between_deals
    seen_out = False
    for _ in range(20):
        await until(lambda: pause.running or task.match_over, 60.0)
        if task.match_over:
            break
        m = task.table.state.match
        assert m is not None
        playing = {p.seat for p in people if p.seat in m.seats_in_play}
        seen_out = seen_out or len(playing) < len(people)
        assert pause.waiting_for == playing
        deal_no = task.table.state.deal_no
        for seat in sorted(playing):
            context = table_pb2.MoveContext(request_id=f"read {deal_no} {seat}")
            await task.call(
                lambda t, s=seat, c=context: t.ready(s, table_pb2.ReadyRequest(context=c))  # type: ignore[misc]
            )
        assert not pause.running and task.table.state.deal_no == deal_no + 1
    await task.stop()
    if seen_out:
        again = played_back(journal, table, settings)
        assert again.table.state.match == task.table.state.match
        assert again.table.seq == task.table.seq
    return seen_out


async def test_a_person_out_of_the_match_does_not_hold_up_the_pause() -> None:
    """A busted player (R11.1) who stays connected is not waited for: only the people still
    playing the match are; played back, the same match and the same events."""
    paused = dataclasses.replace(SETTINGS, between_deals=60.0)
    table = config(4)
    table.ruleset.options.match_mode = ruleset_pb2.MATCH_MODE_POINTS
    table.ruleset.options.bust_at = 100  # a hand that never opened (100 points) busts
    for _ in range(12):  # until a person busts while the match goes on
        if await _a_match_where_a_person_may_bust(MemoryJournal(), paused, table):
            return
    pytest.fail("no person busted with the match going on in 12 matches")


async def test_a_timed_out_turn_is_played_by_the_host_and_plays_back() -> None:
    """A person who sends nothing: the deadlines close the fair deal without her, the host
    plays her timed-out turn (its events marked by_host), and a host bot plays on for her."""
    journal = MemoryJournal()
    table = config(2)
    quick = dataclasses.replace(SETTINGS, commit_timeout=0.05, reveal_timeout=0.05)
    task = new_task(journal, table, settings=quick)
    task.start()
    ann = await task.call(lambda t: t.join(join("Ann")))
    await task.call(lambda t: t.add_bot(ann.seat, lobby_pb2.AddBotRequest()))
    await task.call(lambda t: t.start_match(ann.seat, lobby_pb2.StartMatchRequest()))

    def her_turn() -> bool:
        deal_state = task.table.deal_state
        return deal_state is not None and deal_state.turn == ann.seat

    await until(her_turn, 60.0)
    await task.call(lambda t: t.play_timed_out_turn())
    assert task.table.seats[ann.seat].away == lobby_pb2.AWAY_REASON_TIMED_OUT
    await until(lambda: task.match_over, 60.0)
    await task.stop()
    kinds = [e.kind for e in journal.stored]
    assert {"commitments", "deal", "timeout_draw", "timeout_play", "away"} <= set(kinds)
    timed_out = [e for e in journal.stored if e.kind.startswith("timeout_")]
    for entry in timed_out:
        for event in entry.events:
            assert table_pb2.TableEvent.FromString(event.public).deal.by_host
    again = played_back(journal, table, quick)
    assert again.table.state.match == task.table.state.match
    assert again.table.seats[ann.seat].away == lobby_pb2.AWAY_REASON_TIMED_OUT


def test_every_kind_is_declared_once_and_accepted_by_one_table_method() -> None:
    declared = [
        value.kind for value in vars(journaled).values() if isinstance(value, journaled.Journaled)
    ]
    assert sorted(declared) == sorted(journaled.KINDS) and len(set(declared)) == len(declared)
    for kind in journaled.KINDS.values():
        assert kind._hand_back is not None, f"no table method accepts {kind}"
        if isinstance(kind, journaled.Request):
            # The method takes the request the declaration says the journal keeps.
            assert kind.method is not None
            hints = typing.get_type_hints(kind.method)
            names = list(inspect.signature(kind.method).parameters)  # self, [seat,] request
            taken = names[2 if kind.seated else 1]
            assert hints[taken] is kind.request_type, (kind, hints)
    with pytest.raises(ValueError, match="declared twice"):
        journaled.HostStep("play")
    with pytest.raises(ValueError, match="two table methods"):
        journaled.PLAY.accepts(Table.draw)
