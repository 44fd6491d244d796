"""R11 matches (points, deals, rientro with its ledger, pairs) and R2.1 dealer rotation."""

from dataclasses import replace

import pytest

from scala40_net.actions import Draw, DrawSource, NewMeld, Play
from scala40_net.cards import parse_faces, pick_from_hand
from scala40_net.deal import DealState
from scala40_net.errors import RuleViolation
from scala40_net.events import (
    Busted,
    ChipsPaid,
    DealScored,
    MatchEnded,
    Retired,
    RientroOffered,
    RientroTaken,
)
from scala40_net.match import (
    BuyBack,
    MatchPhase,
    MatchState,
    Retire,
    StartDeal,
    apply_match,
    start_match,
)
from scala40_net.rules import RIENTRO_CEILING, LoneAce, MatchMode, Progression, Ruleset
from scala40_net.scenario import position

STOCK = Draw(DrawSource.STOCK)


def in_deal(match: MatchState, closer: int, hands: dict[int, str], opened: list[int]) -> MatchState:
    """The match with a deal where ``closer`` goes out this turn laying 2H 3H 4H, discarding 9C."""
    hands = {**hands, closer: "2H 3H 4H"}
    deal = position(
        match.ruleset,
        hands=hands,
        opened=[*opened, closer],
        stock_top="9C",
        turn=closer,
        dealer=match.dealer,
    )
    return replace(match, deal=deal, phase=MatchPhase.IN_DEAL, deal_no=match.deal_no + 1)


def close(match: MatchState, closer: int) -> tuple[MatchState, list[object]]:
    match, _ = apply_match(match, closer, STOCK)
    deal = match.deal
    assert isinstance(deal, DealState)
    hand = deal.hand(closer)
    meld = tuple(pick_from_hand(parse_faces("2H 3H 4H"), hand))
    nine = pick_from_hand(parse_faces("9C"), hand)[0]
    new, events = apply_match(match, closer, Play((NewMeld(meld),), nine))
    return new, list(events)


def test_r2_1_the_dealer_passes_clockwise_after_every_deal() -> None:
    match = start_match(Ruleset(), (0, 1, 2), 2)
    match, _events = apply_match(match, None, StartDeal(tuple(range(108))))
    assert match.deal is not None and match.deal.dealer == 2 and match.deal.turn == 0
    match = in_deal(match, 0, {1: "KD", 2: "5S"}, [1, 2])
    match, _ = close(match, 0)
    assert match.dealer == 0 and match.phase is MatchPhase.DEAL_DUE


def test_r11_1_penalties_add_up() -> None:
    match = start_match(Ruleset(), (0, 1, 2), 2)
    match = in_deal(match, 0, {1: "KD QD", 2: "5S"}, [1, 2])
    match, events = close(match, 0)
    scored = next(e for e in events if isinstance(e, DealScored))
    assert scored.totals == (0, 20, 5) and scored.deals_won == (1, 0, 0)


def test_r11_1_a_player_reaching_bust_at_is_out_and_the_last_one_wins() -> None:
    match = replace(start_match(Ruleset(), (0, 1, 2), 2), totals=(80, 95, 30))
    match = in_deal(match, 2, {0: "KD", 1: "5S 2C"}, [0, 1])
    match, events = close(match, 2)
    assert Busted(1, 102) in events
    assert match.out == (False, True, False) and match.phase is MatchPhase.DEAL_DUE
    # Seat 1 is skipped from now on.
    match = in_deal(match, 2, {0: "KS KH KC"}, [0])
    match, events = close(match, 2)
    ended = events[-1]
    assert isinstance(ended, MatchEnded) and ended.winners == (2,)
    assert match.phase is MatchPhase.OVER
    with pytest.raises(RuleViolation, match="over"):
        apply_match(match, None, StartDeal(tuple(range(108))))


def test_r11_1_bust_at_151() -> None:
    match = replace(start_match(Ruleset(bust_at=151), (0, 1), 0), totals=(0, 120))
    match = in_deal(match, 0, {1: "KD QD"}, [1])
    match, events = close(match, 0)
    assert not any(isinstance(e, Busted) for e in events) and match.totals == (0, 140)


def test_r11_2_deals_mode_most_deals_won_wins() -> None:
    rules = Ruleset(match_mode=MatchMode.DEALS, deals=3)
    match = start_match(rules, (0, 1), 0)
    for closer in (0, 1, 0):
        match = in_deal(match, closer, {1 - closer: "KD"}, [1 - closer])
        match, events = close(match, closer)
    ended = events[-1]
    assert isinstance(ended, MatchEnded) and ended.winners == (0,)


def test_r11_2_a_best_of_three_ends_at_2_0() -> None:
    # "generalmente 2 su 3": after two deals won of three, nobody can catch up.
    rules = Ruleset(match_mode=MatchMode.DEALS, deals=3)
    match = start_match(rules, (0, 1), 0)
    for _ in range(2):
        match = in_deal(match, 0, {1: "KD"}, [1])
        match, events = close(match, 0)
    ended = events[-1]
    assert isinstance(ended, MatchEnded) and ended.winners == (0,)
    assert match.phase is MatchPhase.OVER and match.deals_closed == 2


def test_r11_2_the_match_goes_on_while_another_player_can_still_catch_up() -> None:
    # Best of 5 among three: 2-0-0 after two deals, three left: not decided; 3-0-0 is.
    rules = Ruleset(match_mode=MatchMode.DEALS, deals=5)
    match = start_match(rules, (0, 1, 2), 0)
    for deal in range(3):
        match = in_deal(match, 0, {1: "KD", 2: "KS"}, [1, 2])
        match, events = close(match, 0)
        assert (match.phase is MatchPhase.OVER) == (deal == 2)
    assert isinstance(events[-1], MatchEnded) and events[-1].winners == (0,)


def test_r11_2_a_tie_after_the_agreed_deals_plays_on() -> None:
    rules = Ruleset(match_mode=MatchMode.DEALS, deals=3)
    match = start_match(rules, (0, 1, 2), 0)
    for closer in (0, 1, 2):
        others = {s: "KD" for s in (0, 1, 2) if s != closer}
        match = in_deal(match, closer, others, list(others))
        match, _ = close(match, closer)
    assert match.phase is MatchPhase.DEAL_DUE
    match = in_deal(match, 1, {0: "KD", 2: "KS"}, [0, 2])
    match, events = close(match, 1)
    assert isinstance(events[-1], MatchEnded) and events[-1].winners == (1,)


def test_r9_4_a_deal_knows_the_match_totals_for_the_lone_ace_at_99() -> None:
    rules = Ruleset(lone_ace=LoneAce.AT_99)
    match = replace(start_match(rules, (0, 1, 2), 2), totals=(99, 50, 0))
    deck = tuple(range(rules.deck_size))
    match, _ = apply_match(match, None, StartDeal(deck))
    assert match.deal is not None and match.deal.totals == (99, 50, 0)


def test_r11_3_unlimited_rientro_stops_at_the_ceiling() -> None:
    rules = Ruleset(rientro=True, rientro_progression=Progression.DOUBLING)
    assert rules.rientro_max is None and rules.rientro_limit == RIENTRO_CEILING == 20
    match = replace(start_match(rules, (0, 1, 2), 2), totals=(60, 95, 30))
    last = replace(match, rientri=(0, RIENTRO_CEILING - 1, 0))
    assert last.rientro_fee(1) == 2**19
    done = in_deal(
        replace(match, rientri=(0, RIENTRO_CEILING, 0)), 2, {0: "KD", 1: "5S 2C"}, [0, 1]
    )
    done, events = close(done, 2)
    assert not any(isinstance(e, RientroOffered) for e in events)
    assert done.out == (False, True, False)


def test_r11_3_rientro_busted_player_buys_back_at_the_worst_total() -> None:
    rules = Ruleset(rientro=True, rientro_fee=2)
    match = replace(start_match(rules, (0, 1, 2), 2), totals=(60, 95, 30))
    match = in_deal(match, 2, {0: "KD", 1: "5S 2C"}, [0, 1])
    match, events = close(match, 2)
    assert RientroOffered((1,), (2,)) in events
    assert ChipsPaid(0, 2, 2, "deal won (R11.3)") in events
    assert match.phase is MatchPhase.RIENTRO
    with pytest.raises(RuleViolation, match=r"R11\.3"):
        apply_match(match, 0, BuyBack())
    match, events = apply_match(match, 1, BuyBack())
    assert events[0] == RientroTaken(1, 1, 2, 70)
    assert match.totals == (70, 70, 30) and match.out == (False, False, False)
    assert match.pot == 2 and match.phase is MatchPhase.DEAL_DUE


def test_r11_3_rientro_needs_two_other_players_still_in() -> None:
    rules = Ruleset(rientro=True)
    match = replace(start_match(rules, (0, 1), 0), totals=(0, 95))
    match = in_deal(match, 0, {1: "KD"}, [1])
    match, events = close(match, 0)
    assert not any(isinstance(e, RientroOffered) for e in events)
    assert isinstance(events[-1], MatchEnded) and events[-1].winners == (0,)


def test_r11_3_fees_grow_linear_or_doubling_and_are_capped() -> None:
    linear = replace(
        start_match(Ruleset(rientro=True, rientro_fee=3), (0, 1, 2), 0), rientri=(0, 3, 0)
    )
    assert linear.rientro_fee(0) == 3 and linear.rientro_fee(1) == 12
    rules = Ruleset(rientro=True, rientro_progression=Progression.DOUBLING, rientro_max=4)
    doubling = replace(start_match(rules, (0, 1, 2), 0), rientri=(0, 3, 4))
    assert doubling.rientro_fee(0) == 1 and doubling.rientro_fee(1) == 8
    match = replace(doubling, totals=(0, 0, 95))
    match = in_deal(match, 0, {1: "KD", 2: "KS"}, [1, 2])
    match, events = close(match, 0)
    assert not any(isinstance(e, RientroOffered) for e in events)


def test_r11_3_retiring_and_the_winner_takes_pot_and_prize() -> None:
    rules = Ruleset(rientro=True, rientro_fee=1)
    match = replace(start_match(rules, (0, 1, 2), 0), totals=(0, 95, 95), pot=3, chips=(0, -3, 0))
    match = in_deal(match, 0, {1: "KD", 2: "KS"}, [1, 2])
    match, events = close(match, 0)
    # Both busted in the same deal: only one other player (seat 0) is still in, no rientro.
    ended = events[-1]
    assert isinstance(ended, MatchEnded) and ended.winners == (0,)
    assert ChipsPaid(None, 0, 3, "rientro fees (R11.3)") in events
    assert ChipsPaid(1, 0, 5, "match prize (R11.3)") in events
    assert sum(ended.chips) == 0
    rules4 = Ruleset(rientro=True)
    match = replace(start_match(rules4, (0, 1, 2, 3), 0), totals=(0, 95, 0, 0))
    match = in_deal(match, 0, {1: "KD", 2: "2S", 3: "2D"}, [1, 2, 3])
    match, events = close(match, 0)
    match, events = apply_match(match, 1, Retire())
    assert events[0] == Retired(1) and match.out == (False, True, False, False)


def test_r11_4_pairs_share_a_score_and_the_closers_partner_pays_nothing() -> None:
    rules = Ruleset(pairs=True)
    match = start_match(rules, (0, 1, 2, 3), 3)
    match = in_deal(match, 0, {1: "KD", 2: "KS QS", 3: "5C"}, [1, 2, 3])
    match, events = close(match, 0)
    assert match.totals == (0, 10, 0, 5)
    assert match.team(1) == (1, 3) and match.team_total(1) == 15
    match = replace(match, totals=(0, 60, 0, 40))
    match = in_deal(match, 2, {0: "KD", 1: "KS", 3: "5C"}, [0, 1, 3])
    match, events = close(match, 2)
    ended = events[-1]
    assert isinstance(ended, MatchEnded) and ended.winners == (0, 2)


def test_r10_2_a_void_deal_passes_to_the_next_dealer() -> None:
    # 000_…: "Ad ogni fine smazzata … il mazziere gira", a void deal like any other.
    match = start_match(Ruleset(), (0, 1), 1)
    deal = position(hands={0: "2C 3D", 1: "4C"}, discard_pile="KH QH JH", dealer=1)
    deal = replace(
        deal, stock=deal.stock[:1], discard_pile=deal.stock[1:] + deal.discard_pile, idle_rebuilds=2
    )
    match = replace(match, deal=deal, phase=MatchPhase.IN_DEAL, deal_no=1)
    match, _ = apply_match(match, 0, STOCK)
    two = pick_from_hand(parse_faces("2C"), match.deal.hand(0))[0]  # type: ignore[union-attr]
    match, _events = apply_match(match, 0, Play((), two))
    assert match.phase is MatchPhase.DEAL_DUE and match.dealer == 0 and match.totals == (0, 0)
    match, _ = apply_match(match, None, StartDeal(tuple(range(108))))
    assert match.deal is not None and match.deal.deal_no == 2 and match.deal.dealer == 0
