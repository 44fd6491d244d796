"""R2, R3, R5, R6-R10 played through the deal state machine, one test per clause."""

from dataclasses import replace

import pytest

from scala40_net.actions import (
    Attach,
    Draw,
    DrawSource,
    NewMeld,
    Play,
    RebuildStock,
    ReturnDiscard,
    SwapJoker,
)
from scala40_net.cards import Face, card_text, parse_face, parse_faces, pick_from_hand
from scala40_net.deal import (
    DealState,
    Phase,
    apply,
    attach_targets,
    deal_penalties,
    hand_penalty,
    legal_draw_sources,
    start_deal,
)
from scala40_net.errors import RuleViolation
from scala40_net.events import (
    CardDrawn,
    DealEnded,
    DealOutcome,
    DealStarted,
    DiscardReturned,
    JokerSwapped,
    Played,
    StockRebuilt,
)
from scala40_net.rules import (
    DiscardAttachable,
    DiscardPickup,
    Ruleset,
    UnopenedPenalty,
    preset,
)
from scala40_net.scenario import CardPool, position, stacked_deck

STOCK, DISCARD = Draw(DrawSource.STOCK), Draw(DrawSource.DISCARD)
FREE_PICKUP = Ruleset(discard_pickup=DiscardPickup.FREE)


def f(text: str) -> Face:
    return parse_face(text)


def ids(state: DealState, seat: int, text: str) -> tuple[int, ...]:
    return tuple(pick_from_hand(parse_faces(text), state.hand(seat)))


def one(state: DealState, seat: int, text: str) -> int:
    return ids(state, seat, text)[0]


def refused(state: DealState, seat: int | None, action: object) -> RuleViolation:
    before = state
    with pytest.raises(RuleViolation) as info:
        apply(state, seat, action)  # type: ignore[arg-type]
    assert state == before
    return info.value


def drawn(state: DealState, seat: int = 0, source: Draw = STOCK) -> DealState:
    return apply(state, seat, source)[0]


OPENER = {0: "9H 9D 9C 10S JS QS 2C 5D", 1: "3H 4H 8C KD"}


# R2 dealing


def test_r2_3_thirteen_each_from_the_dealers_left_then_discard_then_stock() -> None:
    deck = list(range(108))
    state, events = start_deal(Ruleset(), (0, 1, 2), 1, deck)
    # Seat 2 is on the dealer's left: card 0 is its, then seat 0, then seat 1.
    assert state.hand(2)[:3] == (0, 3, 6)
    assert state.hand(0)[:3] == (1, 4, 7)
    assert state.hand(1)[:3] == (2, 5, 8)
    assert all(len(h) == 13 for h in state.hands)
    assert state.discard_pile == (39,)
    assert state.stock == tuple(range(40, 108))
    (started,) = events
    assert isinstance(started, DealStarted) and started.first_discard == 39
    assert started.stock_count == 68


def test_r2_3_seats_in_play_may_skip_table_seats() -> None:
    state, _ = start_deal(Ruleset(), (5, 1, 3), 3, list(range(108)))
    assert state.seats == (1, 3, 5)
    assert state.hand(5)[0] == 0 and state.hand(1)[0] == 1 and state.hand(3)[0] == 2


def test_r2_4_the_player_on_the_dealers_left_plays_first() -> None:
    state, _ = start_deal(Ruleset(), (0, 1, 2, 3), 3, list(range(108)))
    assert state.turn == 0 and state.phase is Phase.DRAW
    state, _ = start_deal(Ruleset(), (0, 1, 2, 3), 1, list(range(108)))
    assert state.turn == 2


def test_r2_the_deck_must_be_exactly_the_cards_of_the_ruleset() -> None:
    with pytest.raises(RuleViolation, match=r"R1\.1"):
        start_deal(Ruleset(), (0, 1), 0, list(range(107)))
    with pytest.raises(RuleViolation, match=r"R2\.1"):
        start_deal(Ruleset(), (0, 1), 4, list(range(108)))
    state, _ = start_deal(preset("semplice", 2), (0, 1), 0, list(range(54)))
    assert len(state.stock) == 54 - 27


def test_r2_stacked_deck_deals_the_named_hands() -> None:
    rules = Ruleset()
    deck = stacked_deck(rules, (0, 1, 2), 2, {0: "AH KH", 1: "JK"}, "7C", "8C 9C")
    state, _ = start_deal(rules, (0, 1, 2), 2, deck)
    assert card_text(state.hand(0)[0]) == "AH" and card_text(state.hand(1)[0]) == "JK"
    assert [card_text(c) for c in state.stock[:2]] == ["8C", "9C"]


# R3 a turn


def test_r3_a_turn_starts_with_a_draw() -> None:
    state = position(hands=OPENER)
    err = refused(state, 0, Play((), one(state, 0, "2C")))
    assert err.rule == "R3" and "draw first" in err.reason


def test_r3_only_one_draw_per_turn() -> None:
    state = drawn(position(hands=OPENER))
    assert refused(state, 0, STOCK).rule == "R3"


def test_r3_not_your_turn() -> None:
    state = position(hands=OPENER)
    err = refused(state, 1, STOCK)
    assert str(err) == "R3: it is seat 0's turn, not seat 1's"


def test_r3_1_draw_and_discard_passes_the_turn_clockwise() -> None:
    state = position(hands={0: "2C", 1: "", 2: ""}, stock_top="KS")
    state, events = apply(state, 0, STOCK)
    assert events == [CardDrawn(0, DrawSource.STOCK, state.hand(0)[-1])]
    state, events = apply(state, 0, Play((), one(state, 0, "2C")))
    assert state.turn == 1 and state.phase is Phase.DRAW
    assert card_text(state.top_discard or 0) == "2C"
    (played,) = events
    assert isinstance(played, Played) and not played.opened and not played.went_out


def test_r3_2_an_opened_player_may_take_the_discard_and_must_use_it() -> None:
    state = position(
        hands={0: "7H 8H 2C 3D", 1: ""}, table=["4S 5S 6S"], opened=[0], discard_pile="7S"
    )
    state = drawn(state, 0, DISCARD)
    seven = state.taken_discard
    assert seven is not None
    err = refused(state, 0, Play((), one(state, 0, "2C")))
    assert err.rule == "R3.2" and "must be used" in err.reason
    after, _ = apply(state, 0, Play((Attach(0, (seven,)),), one(state, 0, "2C")))
    assert len(after.table[0].cards) == 4


def test_r3_2_an_unopened_player_may_take_the_discard_only_to_open_with_it() -> None:
    state = position(hands={0: "9H 9D 10S JS QS 2C 5D", 1: ""}, discard_pile="9C")
    state = drawn(state, 0, DISCARD)
    nines = (*ids(state, 0, "9H 9D"), state.taken_discard or 0)
    seq = ids(state, 0, "10S JS QS")
    after, events = apply(state, 0, Play((NewMeld(nines), NewMeld(seq)), one(state, 0, "2C")))
    assert after.has_opened(0)
    assert isinstance(events[0], Played) and events[0].opened
    err = refused(state, 0, Play((NewMeld(seq),), one(state, 0, "2C")))
    assert err.rule == "R5.1"
    err = refused(state, 0, Play((), one(state, 0, "2C")))
    assert err.rule == "R3.2" and "only to open" in err.reason


def test_r3_2_the_discard_must_be_inside_the_opening_melds() -> None:
    state = position(
        hands={0: "9H 9D 9C 10S JS QS 2C 5D", 1: ""}, table=["6C 7C 8C"], discard_pile="9C"
    )
    state = drawn(state, 0, DISCARD)
    taken = state.taken_discard or 0
    ops = (
        NewMeld(ids(state, 0, "9H 9D 9C")),
        NewMeld(ids(state, 0, "10S JS QS")),
        Attach(0, (taken,)),
    )
    err = refused(state, 0, Play(ops, one(state, 0, "2C")))
    assert err.rule == "R3.2" and err.operation == 3


def test_r3_2_a_player_who_cannot_use_the_discard_puts_it_back_and_draws() -> None:
    state = position(hands={0: "2C 5D", 1: ""}, discard_pile="KH")
    state = drawn(state, 0, DISCARD)
    back, events = apply(state, 0, ReturnDiscard())
    assert events == [DiscardReturned(0, state.taken_discard or 0)]
    assert back.phase is Phase.DRAW and card_text(back.top_discard or 0) == "KH"
    assert back.hand(0) == position(hands={0: "2C 5D", 1: ""}).hand(0)
    assert legal_draw_sources(back, 0) == (DrawSource.STOCK,)
    assert refused(back, 0, DISCARD).rule == "R3.2"
    assert apply(back, 0, STOCK)[0].phase is Phase.PLAY


def test_r3_2_free_pickup_has_no_obligation() -> None:
    state = position(FREE_PICKUP, hands={0: "2C 5D", 1: ""}, discard_pile="KH")
    state = drawn(state, 0, DISCARD)
    after, _ = apply(state, 0, Play((), one(state, 0, "2C")))
    assert len(after.hand(0)) == 2


def test_r3_3_the_card_taken_from_the_discard_pile_may_not_be_discarded() -> None:
    state = position(FREE_PICKUP, hands={0: "2C 5D", 1: ""}, discard_pile="KH")
    state = drawn(state, 0, DISCARD)
    err = refused(state, 0, Play((), state.taken_discard))
    assert err.rule == "R3.3"


def test_r3_legal_draw_sources() -> None:
    state = position(hands=OPENER)
    assert legal_draw_sources(state, 0) == (DrawSource.STOCK, DrawSource.DISCARD)
    assert legal_draw_sources(state, 1) == ()
    assert legal_draw_sources(drawn(state), 0) == ()


# R5 opening


def test_r5_1_opening_with_37_points_is_refused() -> None:
    state = drawn(position(hands={0: "4H 4D 4C 3S 4S 5S 6S 7S 9D 2C", 1: ""}))
    ops = (NewMeld(ids(state, 0, "4H 4D 4C")), NewMeld(ids(state, 0, "3S 4S 5S 6S 7S")))
    err = refused(state, 0, Play(ops, one(state, 0, "2C")))
    assert str(err) == "R5.1: opening melds total 37 points, 40 needed"


def test_r5_1_opening_with_57_points() -> None:
    state = drawn(position(hands=OPENER))
    ops = (NewMeld(ids(state, 0, "9H 9D 9C")), NewMeld(ids(state, 0, "10S JS QS")))
    after, events = apply(state, 0, Play(ops, one(state, 0, "2C")))
    assert after.has_opened(0) and len(after.table) == 2
    assert after.owners == (0, 0)
    played = events[0]
    assert isinstance(played, Played) and played.opened


def test_r5_1_opening_points_is_an_option() -> None:
    state = drawn(position(Ruleset(opening_points=60), hands=OPENER))
    ops = (NewMeld(ids(state, 0, "9H 9D 9C")), NewMeld(ids(state, 0, "10S JS QS")))
    assert refused(state, 0, Play(ops, one(state, 0, "2C"))).rule == "R5.1"


def test_r5_1_attached_cards_do_not_count_and_wait_for_the_opening() -> None:
    state = drawn(position(hands={0: "9H 9D 9C 10S JS QS 8C 2C", 1: ""}, table=["5C 6C 7C"]))
    ops = (Attach(0, ids(state, 0, "8C")), NewMeld(ids(state, 0, "9H 9D 9C")))
    err = refused(state, 0, Play(ops, one(state, 0, "2C")))
    assert err.rule == "R6.1" and err.operation == 1 and "opened" in err.reason


def test_r5_3_after_opening_in_the_same_turn_attach_and_lay_any_meld() -> None:
    state = drawn(
        position(hands={0: "9H 9D 9C 10S JS QS 8C 2H 3H 4H 2C", 1: ""}, table=["5C 6C 7C"])
    )
    ops = (
        NewMeld(ids(state, 0, "9H 9D 9C")),
        NewMeld(ids(state, 0, "10S JS QS")),
        Attach(0, ids(state, 0, "8C")),
        NewMeld(ids(state, 0, "2H 3H 4H")),
    )
    after, _ = apply(state, 0, Play(ops, one(state, 0, "2C")))
    assert len(after.table) == 4 and len(after.table[0].cards) == 4


def test_r5_3_an_opened_player_lays_melds_of_any_value() -> None:
    state = drawn(position(hands={0: "2H 3H 4H 2C", 1: ""}, opened=[0]))
    after, _ = apply(state, 0, Play((NewMeld(ids(state, 0, "2H 3H 4H")),), one(state, 0, "2C")))
    assert after.table[-1].points == 9


# R6 / R7 in a play


def test_r6_1_attach_to_another_players_meld() -> None:
    state = drawn(
        position(hands={0: "8C 2C 3C", 1: ""}, table=["5C 6C 7C"], owners=[1], opened=[0, 1])
    )
    after, _ = apply(state, 0, Play((Attach(0, ids(state, 0, "8C")),), one(state, 0, "2C")))
    assert after.owners == (1,) and len(after.table[0].cards) == 4
    assert attach_targets(state.table, one(state, 0, "8C")) == [0]


def test_r6_unknown_meld_index_is_refused_naming_the_operation() -> None:
    state = drawn(position(hands={0: "8C 2C 3C", 1: ""}, table=["5C 6C 7C"], opened=[0]))
    err = refused(state, 0, Play((Attach(3, ids(state, 0, "8C")),), one(state, 0, "2C")))
    assert err.operation == 1 and "no meld 3" in err.reason


def test_r6_cards_not_in_hand_and_cards_used_twice_are_refused() -> None:
    state = drawn(position(hands={0: "8C 9C 2C 3C", 1: ""}, table=["5C 6C 7C"], opened=[0]))
    other = position(hands={0: "", 1: "KD"}).hand(1)[0]
    err = refused(state, 0, Play((Attach(0, (other,)),), one(state, 0, "2C")))
    assert "not in your hand" in err.reason
    eight = ids(state, 0, "8C")
    ops = (Attach(0, eight), Attach(0, eight))
    err = refused(state, 0, Play(ops, one(state, 0, "2C")))
    assert err.operation == 2 and "already used" in err.reason
    err = refused(state, 0, Play((Attach(0, eight),), eight[0]))
    assert err.rule == "R8.1" and "used in this play" in err.reason


def test_r7_1_swap_a_joker_and_r7_2_use_it_in_the_same_turn() -> None:
    state = drawn(
        position(
            hands={0: "6C 9H 9D 2C 3D", 1: ""}, table=["5C JK=6C 7C"], owners=[1], opened=[0, 1]
        )
    )
    joker = state.table[0].joker
    assert joker is not None
    swap = SwapJoker(0, one(state, 0, "6C"))
    err = refused(state, 0, Play((swap,), one(state, 0, "2C")))
    assert err.rule == "R7.2"
    use = NewMeld((*ids(state, 0, "9H 9D"), joker), f("9S"))
    after, events = apply(state, 0, Play((swap, use), one(state, 0, "2C")))
    assert after.table[0].joker is None and after.table[1].joker == joker
    applied = events[0].operations  # type: ignore[union-attr]
    assert isinstance(applied[0], JokerSwapped) and applied[0].joker_was == f("6C")


def test_r7_2_a_swapped_joker_may_not_be_discarded() -> None:
    state = drawn(
        position(hands={0: "6C 2C 3D", 1: ""}, table=["5C JK=6C 7C"], opened=[0], stock_top="KS")
    )
    joker = state.table[0].joker
    err = refused(state, 0, Play((SwapJoker(0, one(state, 0, "6C")),), joker))
    assert err.rule == "R7.2"


def test_r7_1_only_an_opened_player_swaps() -> None:
    state = drawn(position(hands={0: "6C 2C 3D", 1: ""}, table=["5C JK=6C 7C"]))
    err = refused(state, 0, Play((SwapJoker(0, one(state, 0, "6C")),), one(state, 0, "2C")))
    assert err.rule == "R7.1" and err.operation == 1


def test_r7_3_after_opening_with_the_discard_swap_only_once_it_is_laid() -> None:
    state = position(
        hands={0: "9H 9D 10S JS QS 6C 2C 3D", 1: ""}, table=["5C JK=6C 7C"], discard_pile="9C"
    )
    state = drawn(state, 0, DISCARD)
    taken = state.taken_discard or 0
    joker = state.table[0].joker or 0
    seq = NewMeld(ids(state, 0, "10S JS QS"))
    nines = NewMeld((*ids(state, 0, "9H 9D"), taken))
    swap = SwapJoker(0, one(state, 0, "6C"))
    use = Attach(1, (joker,), f("KS"))
    # 10-J-Q alone is 30 < 40: even counted, the opening is not complete before the 9s.
    err = refused(state, 0, Play((seq, swap, nines, use), one(state, 0, "2C")))
    assert err.rule == "R7.1" and err.operation == 2
    rich = position(
        hands={0: "9H 9D 10S JS QS KS 6C 2C 3D", 1: ""}, table=["5C JK=6C 7C"], discard_pile="9C"
    )
    rich = drawn(rich, 0, DISCARD)
    big = NewMeld(ids(rich, 0, "10S JS QS KS"))
    swap = SwapJoker(0, one(rich, 0, "6C"))
    nines = NewMeld((*ids(rich, 0, "9H 9D"), rich.taken_discard or 0))
    err = refused(rich, 0, Play((big, swap, nines), one(rich, 0, "2C")))
    assert err.rule == "R7.3" and err.operation == 2
    after, _ = apply(
        rich, 0, Play((big, nines, swap, Attach(1, (joker,), f("9S"))), one(rich, 0, "2C"))
    )
    assert after.has_opened(0)


# R8 discarding


def test_r8_1_a_turn_ends_with_exactly_one_discard() -> None:
    state = drawn(position(hands=OPENER))
    assert refused(state, 0, Play(())).rule == "R8.1"


def test_r8_2_classic_unopened_may_not_discard_an_attachable_card() -> None:
    state = drawn(position(hands={0: "8C 2D 5S", 1: ""}, table=["5C 6C 7C"], stock_top="KS"))
    err = refused(state, 0, Play((), one(state, 0, "8C")))
    assert err.rule == "R8.2" and "has not opened" in err.reason
    apply(state, 0, Play((), one(state, 0, "2D")))


def test_r8_2_classic_opened_player_may_discard_an_attachable_card() -> None:
    state = drawn(position(hands={0: "8C 2D 5S", 1: ""}, table=["5C 6C 7C"], opened=[0]))
    apply(state, 0, Play((), one(state, 0, "8C")))


def test_r8_2_never_nobody_discards_an_attachable_card() -> None:
    rules = Ruleset(discard_attachable=DiscardAttachable.NEVER)
    state = drawn(position(rules, hands={0: "8C 2D 5S", 1: ""}, table=["5C 6C 7C"], opened=[0]))
    err = refused(state, 0, Play((), one(state, 0, "8C")))
    assert err.rule == "R8.2" and "nobody" in err.reason


def test_r8_2_free_anyone_discards_anything() -> None:
    rules = Ruleset(discard_attachable=DiscardAttachable.FREE)
    state = drawn(position(rules, hands={0: "8C 2D 5S", 1: ""}, table=["5C 6C 7C"]))
    apply(state, 0, Play((), one(state, 0, "8C")))


def test_r8_2_classic_closing_with_an_attachable_card_is_allowed() -> None:
    # 000_…: "…o che si 'chiuda' con lo scarto": the closing discard is the exception.
    state = drawn(
        position(
            hands={0: "2H 3H 4H 9S 9D 9C QS KS AS", 1: "KD"}, table=["5C 6C 7C"], stock_top="8C"
        )
    )
    melds = (NewMeld(ids(state, 0, "2H 3H 4H")), NewMeld(ids(state, 0, "9S 9D 9C")))
    after, events = apply(
        state, 0, Play((*melds, NewMeld(ids(state, 0, "QS KS AS"))), one(state, 0, "8C"))
    )
    assert after.is_over and isinstance(events[-1], DealEnded)


def test_r8_2_never_the_closing_discard_may_not_be_an_attachable_card() -> None:
    # 004_…: "non è consentito a nessun giocatore … scartare una carta che troverebbe
    # sistemazione", with no exception for the closing discard (000_…'s is not 004_…'s).
    rules = Ruleset(discard_attachable=DiscardAttachable.NEVER)
    state = drawn(
        position(
            rules, hands={0: "2H 3H 4H", 1: "KD"}, table=["5C 6C 7C"], opened=[0], stock_top="8C"
        )
    )
    err = refused(state, 0, Play((NewMeld(ids(state, 0, "2H 3H 4H")),), one(state, 0, "8C")))
    assert err.rule == "R8.2" and err.code == "DISCARD_ATTACHES"
    assert "not even to go out" in err.reason
    # Keeping a card back, the player ends the turn: 2H does not attach.
    apply(state, 0, Play((), one(state, 0, "2H")))


def test_r8_2_when_every_card_would_attach_any_may_be_discarded() -> None:
    rules = Ruleset(discard_attachable=DiscardAttachable.NEVER)
    state = drawn(position(rules, hands={0: "8C", 1: ""}, table=["5C 6C 7C"], stock_top="4C"))
    apply(state, 0, Play((), one(state, 0, "8C")))


def test_r8_3_a_joker_may_never_be_the_closing_discard() -> None:
    state = drawn(position(hands={0: "2H 3H 4H", 1: ""}, opened=[0], stock_top="JK"))
    joker = state.hand(0)[-1]
    err = refused(state, 0, Play((NewMeld(ids(state, 0, "2H 3H 4H")),), joker))
    assert err.rule == "R8.3"


# R9 going out and scoring


def closing_position(**kw: object) -> DealState:
    hands = {0: "2H 3H 4H", 1: "KD QD 5S", 2: "AS"}
    state = position(hands=hands, opened=[0, 1, 2], stock_top="9C", **kw)  # type: ignore[arg-type]
    return drawn(state)


def test_r9_1_going_out_lays_every_card_and_discards_the_last() -> None:
    state = closing_position()
    after, events = apply(
        state, 0, Play((NewMeld(ids(state, 0, "2H 3H 4H")),), one(state, 0, "9C"))
    )
    ended = events[-1]
    assert isinstance(ended, DealEnded) and ended.outcome is DealOutcome.CLOSED
    assert ended.closer == 0 and not ended.chiusura_in_mano
    assert after.phase is Phase.OVER and after.result == ended


def test_r9_1_ending_with_no_card_to_discard_is_refused() -> None:
    state = drawn(position(hands={0: "2H 3H 4H", 1: ""}, opened=[0], stock_top="5H"))
    err = refused(state, 0, Play((NewMeld(ids(state, 0, "2H 3H 4H 5H")),)))
    assert err.rule == "R9.1"


def test_r9_1_close_without_discard_option_allows_it() -> None:
    rules = Ruleset(close_without_discard=True)
    state = drawn(position(rules, hands={0: "2H 3H 4H", 1: "KD"}, opened=[0], stock_top="5H"))
    after, events = apply(state, 0, Play((NewMeld(ids(state, 0, "2H 3H 4H 5H")),)))
    assert after.is_over and events[0] == Played(0, events[0].operations, None, False, True)  # type: ignore[union-attr]


def test_r9_2_nobody_goes_out_in_their_own_first_turn() -> None:
    state = drawn(
        position(hands={0: "2H 3H 4H", 1: ""}, opened=[0], stock_top="9C", turns_played=0)
    )
    err = refused(state, 0, Play((NewMeld(ids(state, 0, "2H 3H 4H")),), one(state, 0, "9C")))
    assert err.rule == "R9.2"


def test_r9_3_chiusura_in_mano_doubles_every_opponents_hand() -> None:
    hands = {0: "9H 9D 9C 10S JS QS KS 2C 3C 4C 5C 6C 7C", 1: "KD QD 5S", 2: "AS"}
    state = position(hands=hands, opened=[1, 2], stock_top="8D")
    state = drawn(state)
    ops = (
        NewMeld(ids(state, 0, "9H 9D 9C")),
        NewMeld(ids(state, 0, "10S JS QS KS")),
        NewMeld(ids(state, 0, "2C 3C 4C 5C 6C 7C")),
    )
    _, events = apply(state, 0, Play(ops, one(state, 0, "8D")))
    ended = events[-1]
    assert isinstance(ended, DealEnded) and ended.chiusura_in_mano
    assert ended.penalties == (0, 50, 2)


def test_r9_3_chiusura_in_mano_unopened_opponent_still_pays_100() -> None:
    state = position(hands={0: "", 1: "KD"}, opened=[])
    assert deal_penalties(state, 0, True) == (0, 100)


def test_r9_4_hand_values() -> None:
    pool = CardPool()
    assert hand_penalty(pool.cards("JK AH KD QC JS 10H 2C")) == 25 + 11 + 30 + 10 + 2
    assert hand_penalty(pool.cards("AH")) == 1
    assert hand_penalty(CardPool().cards("AH AS")) == 22
    assert hand_penalty(pool.cards("JK")) == 25


def test_r9_4_opponents_pay_their_hand_melded_or_not() -> None:
    state = closing_position()
    _, events = apply(state, 0, Play((NewMeld(ids(state, 0, "2H 3H 4H")),), one(state, 0, "9C")))
    ended = events[-1]
    assert isinstance(ended, DealEnded)
    assert ended.penalties == (0, 25, 1)
    assert ended.hands[1] == state.hand(1)


def test_r9_5_unopened_pays_100_flat_or_double_by_option() -> None:
    state = position(hands={0: "", 1: "KD 2C"})
    assert deal_penalties(state, 0, False) == (0, 100)
    doubled = replace(state, ruleset=Ruleset(unopened_penalty=UnopenedPenalty.DOUBLE))
    assert deal_penalties(doubled, 0, False) == (0, 24)
    assert deal_penalties(doubled, 0, True) == (0, 24)


def test_r9_6_the_closer_scores_zero_or_the_bonus() -> None:
    state = position(Ruleset(closer_bonus=-10), hands={0: "", 1: "KD"}, opened=[1])
    assert deal_penalties(state, 0, False) == (-10, 10)


def test_r11_4_pairs_partner_of_the_closer_scores_zero() -> None:
    rules = Ruleset(pairs=True)
    state = position(rules, hands={0: "", 1: "KD", 2: "KS", 3: "2C"}, opened=[0, 1, 2, 3])
    assert deal_penalties(state, 0, False) == (0, 10, 0, 2)


# R10 stock rebuild and stall


def last_card_position(**kw: object) -> DealState:
    state = position(hands={0: "2C 3D", 1: "4C"}, discard_pile="KH QH JH", opened=[0], **kw)  # type: ignore[arg-type]
    stock = state.stock
    # Move all but one stock card to the discard pile so the next draw empties the stock.
    return replace(state, stock=stock[:1], discard_pile=stock[1:] + state.discard_pile)


def test_r10_1_an_empty_stock_is_rebuilt_at_the_end_of_the_turn() -> None:
    state = drawn(last_card_position())
    assert not state.stock and state.phase is Phase.PLAY
    after, _ = apply(state, 0, Play((), one(state, 0, "2C")))
    assert after.phase is Phase.REBUILD and after.turn == 1
    assert refused(after, 1, STOCK).rule == "R10.1"
    below = after.discard_pile[:-1]
    order = tuple(reversed(below))
    rebuilt, events = apply(after, None, RebuildStock(order))
    assert rebuilt.stock == order and rebuilt.discard_pile == after.discard_pile[-1:]
    assert events == [StockRebuilt(1, len(order))]
    assert rebuilt.phase is Phase.DRAW and rebuilt.rebuilds == 1


def test_r10_1_the_new_stock_must_be_exactly_the_pile_less_its_top() -> None:
    state = drawn(last_card_position())
    after, _ = apply(state, 0, Play((), one(state, 0, "2C")))
    below = after.discard_pile[:-1]
    assert refused(after, None, RebuildStock(below[1:])).rule == "R10.1"
    assert refused(after, None, RebuildStock(after.discard_pile)).rule == "R10.1"
    assert refused(after, None, RebuildStock((*below[1:], below[1]))).rule == "R10.1"
    assert refused(after, 0, RebuildStock(below)).rule == "R10.1"
    assert refused(state, None, RebuildStock(below)).rule == "R10.1"


def test_r10_2_stall_after_idle_rebuilds_voids_the_deal() -> None:
    state = drawn(last_card_position())
    state = replace(state, idle_rebuilds=2, laid_since_rebuild=False)
    after, events = apply(state, 0, Play((), one(state, 0, "2C")))
    ended = events[-1]
    assert isinstance(ended, DealEnded) and ended.outcome is DealOutcome.VOID
    assert ended.penalties == (0, 0) and ended.void_reason and "R10.2" in ended.void_reason
    assert after.is_over


def test_r10_2_a_card_laid_resets_the_stall_count() -> None:
    state = drawn(replace(last_card_position(stock_top="5C", table=["6C 7C 8C"]), idle_rebuilds=2))
    five = one(state, 0, "5C")
    after, _ = apply(state, 0, Play((Attach(0, (five,)),), one(state, 0, "2C")))
    assert after.phase is Phase.REBUILD and after.idle_rebuilds == 0
    idle, _ = apply(state, 0, Play((), one(state, 0, "2C")))
    assert idle.is_over


def test_r10_2_stall_rebuilds_off_never_voids() -> None:
    state = drawn(last_card_position(ruleset=Ruleset(stall_rebuilds=None)))
    state = replace(state, idle_rebuilds=50)
    after, _ = apply(state, 0, Play((), one(state, 0, "2C")))
    assert after.phase is Phase.REBUILD


def test_r12_str_of_a_refusal_names_rule_and_reason() -> None:
    err = RuleViolation("R5.1", "opening melds total 37 points, 40 needed")
    assert str(err) == "R5.1: opening melds total 37 points, 40 needed"
    assert str(err.at_operation(2)) == "R5.1: operation 2: opening melds total 37 points, 40 needed"


def test_r12_a_finished_deal_refuses_everything() -> None:
    state = closing_position()
    after, _ = apply(state, 0, Play((NewMeld(ids(state, 0, "2H 3H 4H")),), one(state, 0, "9C")))
    assert "over" in refused(after, 1, STOCK).reason


def test_r3_2_the_taken_discard_put_in_a_jokers_place_is_used() -> None:
    # 000_…: the taken card "deve essere necessariamente utilizzata in una combinazione o
    # sequenza": put in place of a joker it is in a meld, and the freed joker is laid (R7.2).
    state = position(
        hands={0: "2D 3C KD", 1: ""},
        table=["8H 8D JK=8C", "5S 6S 7S"],
        owners=[1, 1],
        opened=[0, 1],
        discard_pile="8C",
    )
    state = drawn(state, 0, DISCARD)
    taken = state.taken_discard
    joker = state.table[0].joker
    assert taken is not None and joker is not None
    play = Play((SwapJoker(0, taken), Attach(1, (joker,), f("8S"))), one(state, 0, "KD"))
    after, _ = apply(state, 0, play)
    assert taken in after.table[0].cards and joker in after.table[1].cards
    # Taken and not used at all, it is still refused, and the sentence names every use.
    err = refused(state, 0, Play((), one(state, 0, "KD")))
    assert err.code == "TAKEN_NOT_USED" and "joker's place" in err.reason
