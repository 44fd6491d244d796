"""R11.5 (this project's own rule): void deals in a row end the match with the standings as
they are, so a match whose deals all end void (nobody can open, R10.2) still ends."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from test_rules_match import STOCK, close, in_deal

from scala40_net.actions import Play
from scala40_net.deal import DealState
from scala40_net.events import DealEnded, DealOutcome, MatchEnded
from scala40_net.match import (
    VOID_DEALS_TO_END,
    MatchPhase,
    MatchState,
    apply_match,
    start_match,
)
from scala40_net.rules import MatchMode, Ruleset
from scala40_net.scenario import position


def void(match: MatchState) -> tuple[MatchState, list[object]]:
    """Play a deal that ends void: the last stock card drawn, the third idle rebuild (R10.2)."""
    deal = position(
        match.ruleset,
        hands={0: "2C 3D", 1: "4C 5D"},
        discard_pile="KH QH JH",
        dealer=match.dealer,
    )
    deal = replace(
        deal, stock=deal.stock[:1], discard_pile=deal.stock[1:] + deal.discard_pile, idle_rebuilds=2
    )
    match = replace(match, deal=deal, phase=MatchPhase.IN_DEAL, deal_no=match.deal_no + 1)
    mover = deal.turn
    match, _ = apply_match(match, mover, STOCK)
    assert isinstance(match.deal, DealState)
    match, events = apply_match(match, mover, Play((), match.deal.hand(mover)[0]))
    ended = [e for e in events if isinstance(e, DealEnded)]
    assert ended and ended[0].outcome is DealOutcome.VOID
    return match, list(events)


def deals_mode() -> MatchState:
    return start_match(Ruleset(match_mode=MatchMode.DEALS, deals=3), (0, 1), 1)


def test_r11_5_void_deals_in_a_row_end_the_match_level_when_nobody_scored() -> None:
    match = deals_mode()
    for _ in range(VOID_DEALS_TO_END - 1):
        match, _events = void(match)
        assert match.phase is MatchPhase.DEAL_DUE
    match, events = void(match)
    assert match.phase is MatchPhase.OVER
    assert match.winners == (0, 1)  # nobody leads: both share the match
    assert [e for e in events if isinstance(e, MatchEnded)]


def test_r11_5_a_scored_deal_starts_the_count_again_and_the_leader_wins() -> None:
    match = deals_mode()
    for _ in range(VOID_DEALS_TO_END - 1):
        match, _events = void(match)
    match, _events = close(in_deal(match, 0, {1: "KC QD 7S"}, [1]), 0)
    assert match.phase is MatchPhase.DEAL_DUE and match.voids_in_row == 0
    for _ in range(VOID_DEALS_TO_END - 1):
        match, _events = void(match)
        assert match.phase is MatchPhase.DEAL_DUE
    match, _events = void(match)
    assert match.phase is MatchPhase.OVER and match.winners == (0,)


def test_r11_5_a_points_match_ends_with_the_lowest_total_winning() -> None:
    match = start_match(Ruleset(), (0, 1), 1)
    match, _events = close(in_deal(match, 1, {0: "KC QD 7S"}, [0]), 1)
    assert match.totals[0] > match.totals[1]
    for _ in range(VOID_DEALS_TO_END):
        match, _events = void(match)
    assert match.phase is MatchPhase.OVER and match.winners == (1,)


@given(st.lists(st.booleans(), min_size=1, max_size=12))
def test_r11_5_no_match_plays_more_void_deals_in_a_row_than_the_rule(scored: list[bool]) -> None:
    """Whatever mix of void and scored deals: the match is over by the rule's void deal."""
    match = start_match(Ruleset(match_mode=MatchMode.DEALS, deals=99), (0, 1), 1)
    in_a_row = 0
    for goes_out in scored:
        if match.phase is MatchPhase.OVER:
            break
        if goes_out:
            match, _events = close(in_deal(match, 0, {1: "KC QD 7S"}, [1]), 0)
            in_a_row = 0
        else:
            match, _events = void(match)
            in_a_row += 1
        assert in_a_row < VOID_DEALS_TO_END or match.phase is MatchPhase.OVER
