"""A turn the host plays for an absent seat: never a joker thrown while another card may go.

Every turn of these matches times out (nobody at the table sends a move), on the
in-memory journal, so a match is hundreds of timed-out turns in moments; each
one's discard is checked against the cards the rules allowed then, and the
journal plays back to the same table.
"""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host.journal import journaled
from host.journal.memory import MemoryJournal
from host.table.links import LiveChoices
from host.table.table import Table
from scala40_net import actions, deal
from scala40_net.bots.hand import card_points, feeds
from scala40_net.cards import is_joker
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2
from tests.conftest import until
from tests.test_host_table_memory import PRESETS, SETTINGS, config, join, new_task, played_back

QUICK = dataclasses.replace(SETTINGS, commit_timeout=0.02, reveal_timeout=0.02)
# Enough timed-out turns for several stock rebuilds; each is one job of the table.
MAX_TURNS = 300


@dataclasses.dataclass(frozen=True)
class TimedOut:
    """One timed-out turn: what the rules allowed as its discard, and what went."""

    allowed: tuple[int, ...]
    feeding: tuple[int, ...]  # of those, the ones the next player could use (R3.2)
    discarded: int


def time_out(table: Table) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The turn clock runs out on the seat to move: the discards the rules allowed, and
    those of them the next player could use (None: no turn is waiting now)."""
    before = table.deal_state
    if before is None or before.phase is not deal.Phase.DRAW:
        return None
    seat = before.turn
    after_draw, _ = deal.apply(before, seat, actions.Draw(actions.DrawSource.STOCK))
    allowed = tuple(deal.accepted_discards(after_draw, (), after_draw.hand(seat)))
    next_opened = after_draw.has_opened(after_draw.next_seat(seat))
    feeding = tuple(c for c in allowed if feeds(c, after_draw.table, next_opened))
    table.play_timed_out_turn()
    return allowed, feeding


def last_timed_out_discard(journal: MemoryJournal) -> int:
    """The discard of the journal's last timed-out turn, as its event tells everyone."""
    entry = next(e for e in reversed(journal.stored) if e.kind == journaled.TIMEOUT_PLAY.kind)
    public = table_pb2.TableEvent.FromString(entry.events[0].public)
    played = deal_pb2.DealEvent.FromString(public.deal.public_event).played
    return played.discard


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.integers(2, 4), preset=st.sampled_from(PRESETS))
async def test_a_timed_out_turn_never_throws_a_joker_another_card_could_replace(
    seats: int, preset: int
) -> None:
    """Nobody moves: the host plays every turn. No joker goes while another card may, no
    card the next player could use while another may, and the journal plays back."""
    journal = MemoryJournal()
    table = config(seats, preset, deals=2)
    table.turn_seconds = 0  # the test itself runs the clock out, turn after turn
    task = new_task(journal, table, bots=False, settings=QUICK)
    task.start()
    first = await task.call(lambda t: t.join(join("Ann")))
    for n in range(1, seats):
        await task.call(lambda t, n=n: t.join(join(f"P{n}")))  # type: ignore[misc]
    await task.call(lambda t: t.start_match(first.seat, lobby_pb2.StartMatchRequest()))
    turns: list[TimedOut] = []

    def in_turn() -> bool:
        state = task.table.deal_state
        return task.match_over or (state is not None and state.phase is deal.Phase.DRAW)

    for _ in range(MAX_TURNS):
        await until(in_turn, 30.0)
        if task.match_over:
            break
        allowed = await task.call(time_out)
        if allowed is not None:
            turns.append(TimedOut(*allowed, last_timed_out_discard(journal)))
    await task.stop()
    assert len(turns) > seats * 5
    jokers_held = [t for t in turns if any(is_joker(c) for c in t.allowed)]
    assert jokers_held, "no hand held a joker: the test proved nothing"
    for turn in turns:
        assert turn.discarded in turn.allowed
        if any(not is_joker(c) for c in turn.allowed):
            assert not is_joker(turn.discarded), turn
        if set(turn.allowed) - set(turn.feeding):
            assert turn.discarded not in turn.feeding, turn
    again = played_back(journal, table, QUICK)
    assert again.table.state.match == task.table.state.match
    assert again.table.seq == task.table.seq


@dataclasses.dataclass(frozen=True)
class CostliestDiscard(LiveChoices):
    """An older host's rule for a timed-out turn: the costliest card the rules allowed."""

    table: Table | None = None

    def timed_out_discard(self, chosen: int) -> int:
        assert self.table is not None
        state = self.table.deal_state
        assert state is not None
        allowed = deal.accepted_discards(state, (), state.hand(state.turn))
        return max(allowed, key=lambda c: (card_points(c), c))


async def test_an_older_hosts_timed_out_discard_plays_back_as_journaled() -> None:
    """A journal whose timed-out turns discarded by another rule (an older host's, the
    costliest card, a joker first) still plays back: the discard is the journal's."""
    journal = MemoryJournal()
    table = config(2)
    table.turn_seconds = 0
    task = new_task(journal, table, bots=False, settings=QUICK)
    live = task.table.links.choices
    assert isinstance(live, LiveChoices)
    task.table.links.choices = CostliestDiscard(live.presence, task.table)
    task.start()
    first = await task.call(lambda t: t.join(join("Ann")))
    await task.call(lambda t: t.join(join("Bea")))
    await task.call(lambda t: t.start_match(first.seat, lobby_pb2.StartMatchRequest()))
    discarded: list[int] = []

    def in_turn() -> bool:
        state = task.table.deal_state
        return task.match_over or (state is not None and state.phase is deal.Phase.DRAW)

    for _ in range(MAX_TURNS):  # until the older rule has thrown a joker
        await until(in_turn, 30.0)
        if task.match_over or any(is_joker(card) for card in discarded):
            break
        if await task.call(time_out) is not None:
            discarded.append(last_timed_out_discard(journal))
    await task.stop()
    assert any(is_joker(card) for card in discarded)  # which this host would have kept
    again = played_back(journal, table, QUICK)
    assert again.table.state.match == task.table.state.match
    assert again.table.seq == task.table.seq
