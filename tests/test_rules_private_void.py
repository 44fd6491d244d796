"""R10.3 (this project's own rule): a private deal that cannot go on without a seat is void,
and that seat leaves the match; the deals after are dealt without it, one side left wins."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scala40_net.events import DealEnded
from scala40_net.match import (
    MatchPhase,
    MatchState,
    StartDeal,
    apply_match,
    start_match,
    void_deal,
)
from scala40_net.rules import MatchMode, Ruleset


def dealt(match: MatchState) -> MatchState:
    """The next deal dealt from an unshuffled deck (its cards do not matter here)."""
    match, _ = apply_match(match, None, StartDeal(tuple(range(match.ruleset.deck_size))))
    return match


def test_r10_3_the_seat_the_deal_needed_leaves_and_the_next_deal_is_dealt_without_it() -> None:
    match = dealt(start_match(Ruleset(), (0, 1, 2), 0))
    match, events = void_deal(match, "R10.3: seat 2 is away", [2])
    assert isinstance(events[0], DealEnded) and events[0].void_reason == "R10.3: seat 2 is away"
    assert match.phase is MatchPhase.DEAL_DUE
    assert match.out == (False, False, True) and match.gone == (2,)
    assert match.totals == (0, 0, 0) and match.voids_in_row == 1  # void: no score (R11.5)
    assert match.dealer in (0, 1)
    match = dealt(match)
    assert match.deal is not None and match.deal.seats == (0, 1)


def test_r10_3_the_one_seat_left_wins_the_match() -> None:
    match = dealt(start_match(Ruleset(), (0, 1), 0))
    match, _ = void_deal(match, "R10.3: seat 1 did not send what the deal needed", [1])
    assert match.phase is MatchPhase.OVER and match.winners == (0,)
    assert match.gone == (1,)


def test_r10_3_in_pairs_a_seat_leaves_with_its_partner_and_the_other_pair_wins() -> None:
    match = dealt(start_match(Ruleset(pairs=True), (0, 1, 2, 3), 0))
    match, _ = void_deal(match, "R10.3: seat 1 is away", [1])
    assert match.out == (False, True, False, True) and match.gone == (1, 3)
    assert match.phase is MatchPhase.OVER and match.winners == (0, 2)


def test_r10_3_when_every_seat_is_late_nobody_leaves_and_the_deal_is_only_void() -> None:
    match = dealt(start_match(Ruleset(), (0, 1, 2), 0))
    match, _ = void_deal(match, "R10.3: seat 0, seat 1, seat 2 did not send", [0, 1, 2])
    assert match.out == (False, False, False) and match.gone == ()
    assert match.phase is MatchPhase.DEAL_DUE and match.voids_in_row == 1


def test_r10_3_a_seat_gone_wins_nothing_in_a_match_of_deals() -> None:
    """R11.2 among the sides still in: the seat that left, whatever it had won, is not one
    of the leaders when void deals in a row end the match (R11.5)."""
    match = dealt(start_match(Ruleset(match_mode=MatchMode.DEALS, deals=3), (0, 1, 2), 0))
    match, _ = void_deal(match, "R10.3: seat 0 is away", [0])
    for _ in range(2):
        match, _ = void_deal(dealt(match), "R10.2: stall")
    assert match.phase is MatchPhase.OVER and match.winners == (1, 2)


@given(st.lists(st.sets(st.integers(0, 5), max_size=3), min_size=1, max_size=8))
def test_r10_3_a_seat_that_left_is_never_dealt_in_again_and_one_side_left_ends_it(
    leaving: list[set[int]],
) -> None:
    match = start_match(Ruleset(), tuple(range(6)), 0)
    gone: set[int] = set()
    for seats in leaving:
        if match.phase is MatchPhase.OVER:
            break
        match = dealt(match)
        assert match.deal is not None and not gone & set(match.deal.seats)
        in_play = set(match.deal.seats)
        match, _ = void_deal(match, "R10.3", sorted(seats))
        if not in_play <= seats:
            gone |= seats & in_play
        assert set(match.gone) == gone
        assert (match.phase is MatchPhase.OVER) == (len(match.seats_in_play) == 1 or (
            match.voids_in_row >= 3
        ))
        if len(match.seats_in_play) == 1:
            assert match.winners == match.seats_in_play
