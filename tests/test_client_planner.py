"""The turn planner: steps checked by the engine, the live preview, hints from movegen."""

from __future__ import annotations

import pytest
from test_client_model import ME, card, cards, deal_event, new_meld, played, private, started_model

from client import render
from client.commands import CardSpec, CommandError
from client.i18n import Text
from client.model import TableModel
from client.planner import TurnPlanner, discard_card, hint, local_state
from scala40_net.actions import Attach, NewMeld
from scala40_net.cards import Face, Suit, face, parse_face
from scala40_net.errors import RuleViolation
from scala40_net.pb import deal_pb2, ruleset_pb2


def specs(text: str) -> list[CardSpec]:
    out = []
    for word in text.split():
        if "(" in word:
            joker, declared = word.rstrip(")").split("(")
            out.append(CardSpec(parse_face(joker), parse_face(declared)))
        else:
            out.append(CardSpec(parse_face(word)))
    return out


def my_play_phase(
    hand: str, drawn: str = "6S", preset: int = ruleset_pb2.PRESET_UNSPECIFIED, **options: int
) -> TableModel:
    model = started_model(hand, ME, preset, **options)
    event = private(stock_card_drawn=deal_pb2.StockCardDrawn(card=card(drawn, 1)))
    model.apply(
        deal_event(6, event, drawn=deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_STOCK))
    )
    return model


def test_the_local_state_is_the_engines_deal_as_this_seat_knows_it() -> None:
    model = my_play_phase("7H 8H 9H 2D 5D 10D JD 4C 4C AS QS KS JK")
    state = local_state(model)
    assert state is not None
    assert state.hand(0) == tuple(model.hand)
    assert state.turn == 0 and state.ruleset.opening_points == 40


def test_an_opening_below_40_is_shown_with_its_total_and_the_rule() -> None:
    model = my_play_phase("7H 8H 9H 2D 5D 10D JD 4C 4C AS QS KS JK")
    planner = TurnPlanner()
    planner.add_meld(model, specs("7H 8H 9H"))
    preview = planner.preview(model)
    assert preview.opening_total == 24 and preview.opening_needed == 40
    assert preview.problem is not None and preview.problem.rule == "R5.1"
    assert not preview.ready


def test_an_opening_of_40_is_ready_for_the_discard() -> None:
    model = my_play_phase("7H 8H 9H 2D 5D 10D JD 4C 4C AS QS KS JK")
    planner = TurnPlanner()
    planner.add_meld(model, specs("9H 7H 8H"))  # typed out of order: laid low to high
    planner.add_meld(model, specs("QS KS AS"))
    preview = planner.preview(model)
    assert preview.opening_total == 24 + 31
    assert preview.problem is None and preview.ready
    assert [str(face(c)) for c in planner.steps[0].cards] == ["7H", "8H", "9H"]  # type: ignore[union-attr]
    assert card("7H") not in planner.hand_left(model)


def test_the_joker_declaration_places_the_joker() -> None:
    model = my_play_phase("7H 9H 2D 5D 10D JD 4C 4C AS QS KS JK 3C")
    planner = TurnPlanner()
    step = planner.add_meld(model, specs("JK(8H) 7H 9H"))
    assert step.joker_as == Face(8, Suit.HEARTS)
    op = planner.steps[0]
    assert isinstance(op, NewMeld)
    assert [str(face(c)) for c in op.cards] == ["7H", "JK", "9H"]


def test_a_group_of_three_with_a_joker_offers_the_other_suit() -> None:
    model = my_play_phase("4C 4D JK 7H 9H 2D 5D 10D JD AS QS KS 3C")
    planner = TurnPlanner()
    step = planner.add_meld(model, specs("4C 4D JK"))
    assert step.joker_as is not None and step.joker_as.rank == 4
    assert len(step.joker_other) == 1


def test_a_meld_the_engine_refuses_is_not_planned() -> None:
    model = my_play_phase("7H 8H 10H 2D 5D 10D JD 4C 4C AS QS KS JK")
    planner = TurnPlanner()
    with pytest.raises(RuleViolation) as refused:
        planner.add_meld(model, specs("7H 8H 10H"))
    assert refused.value.rule == "R4.1"
    assert not planner


def test_cards_not_held_or_already_planned_are_named() -> None:
    model = my_play_phase("7H 8H 9H 2D 5D 10D JD 4C 4C AS QS KS JK")
    planner = TurnPlanner()
    with pytest.raises(CommandError) as missing:
        planner.add_meld(model, specs("7C 8C 9C"))
    assert missing.value.key == "err_not_in_hand"
    planner.add_meld(model, specs("7H 8H 9H"))
    with pytest.raises(CommandError) as twice:
        planner.add_meld(model, specs("7H 8H 9H"))
    assert twice.value.key == "err_already_planned"
    with pytest.raises(CommandError):
        discard_card(model, planner, parse_face("7H"))
    assert discard_card(model, planner, parse_face("KS")) == card("KS")


def test_attaching_before_opening_is_shown_as_illegal_with_its_rule() -> None:
    model = started_model("10H 2D 5D 10D JD 4C 4C AS QS KS JK 3C 3D")
    bea = deal_pb2.Played(seat=0, discard=card("3D"))
    model.apply(deal_event(6, played=bea))
    laid = deal_pb2.Played(seat=1, discard=card("5C"), opened=True, new_meld_ids=[1])
    laid.operations.add().new_meld.cards.extend(cards("7H 8H 9H"))
    model.apply(deal_event(7, played=laid))
    for seq, (seat, thrown) in enumerate(((2, "2C"), (3, "3S")), start=8):
        model.apply(deal_event(seq, played=deal_pb2.Played(seat=seat, discard=card(thrown, 1))))
    assert model.my_turn
    planner = TurnPlanner()
    step = planner.add_attach(model, 1, specs("10H"))
    assert [str(face(c)) for c in step.result.cards] == ["7H", "8H", "9H", "10H"]  # type: ignore[union-attr]
    preview = planner.preview(model)
    assert preview.problem is not None and preview.problem.rule == "R6.1"
    with pytest.raises(CommandError) as missing:
        planner.add_attach(model, 2, specs("JD"))
    assert missing.value.key == "err_no_such_meld"


def test_undo_and_clear() -> None:
    model = my_play_phase("7H 8H 9H 2D 5D 10D JD 4C 4C AS QS KS JK")
    planner = TurnPlanner()
    planner.add_meld(model, specs("7H 8H 9H"))
    planner.add_meld(model, specs("QS KS AS"))
    assert planner.undo() is not None and len(planner.steps) == 1
    planner.clear()
    assert planner.undo() is None


def test_a_new_deal_drops_the_plan() -> None:
    model = my_play_phase("7H 8H 9H 2D 5D 10D JD 4C 4C AS QS KS JK")
    planner = TurnPlanner()
    planner.follow(model)
    planner.add_meld(model, specs("7H 8H 9H"))
    model.deal_no = 2
    planner.follow(model)
    assert not planner


def test_a_plan_whose_cards_reached_the_table_is_dropped() -> None:
    """The Played event of the play just sent can come before the host's answer to it."""
    model = my_play_phase("7H 8H 9H 2D 5D 10D JD 4C 4C AS QS KS JK")
    planner = TurnPlanner()
    planner.follow(model)
    planner.add_meld(model, specs("7H 8H 9H"))
    planner.add_meld(model, specs("QS KS AS"))
    planner.follow(model)
    assert len(planner.steps) == 2  # still fits: kept
    play = played(
        0,
        new_meld(cards("7H 8H 9H")),
        new_meld(cards("QS KS AS")),
        discard="2D",
        opened=True,
        new_meld_ids=[1, 2],
    )
    model.apply(deal_event(7, played=play))
    planner.follow(model)
    assert not planner
    assert planner.hand_left(model) == model.hand


def test_hint_proposes_a_legal_opening_from_the_engine() -> None:
    model = my_play_phase("7H 8H 9H 2D 5D 10D JD 4C 4C AS QS KS JK")
    found = hint(model)
    assert found is not None and found.playable
    assert found.points >= 40
    planner = TurnPlanner()
    planner.adopt(found.operations)
    assert planner.preview(model).problem is None


def test_hint_before_drawing_lists_melds_in_the_hand() -> None:
    model = started_model("7H 8H 9H 2D 5D 10D JD 4C 4S AS QS KS 3C")
    found = hint(model)
    assert found is not None and not found.playable
    assert found.points == 24 + 31
    assert {str(face(c)) for m in found.made for c in m.cards} >= {"7H", "8H", "9H"}
    assert cards("7H")[0] in found.made[0].cards or cards("7H")[0] in found.made[1].cards


KINGS = "QD KD KD KC KS JK 2C 4S 6H 8C 10S 3H 7D"


def test_hint_before_drawing_is_the_exact_best_opening_of_the_kings_hand() -> None:
    # Q♦-K♦-JK(A♦) 31 + K♦ K♣ K♠ 30 = 61 beats J♦(JK)-Q♦-K♦ 30 + K K K = 60.
    found = hint(started_model(KINGS))
    assert found is not None and found.points == 61 and not found.playable


def test_hint_after_drawing_is_the_exact_best_play_of_the_kings_hand() -> None:
    found = hint(my_play_phase(KINGS, drawn="5C"))
    assert found is not None and found.playable and found.points == 61


def test_hint_after_a_take_says_plainly_that_no_opening_holds_the_taken_card() -> None:
    model = started_model(KINGS)
    take = deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_DISCARD, card=card("3C"))
    model.apply(deal_event(6, drawn=take))
    found = hint(model)
    assert found is not None and not found.playable
    text = render.hint_text(found, Text("en"))
    assert text.endswith("— no opening of 40 holds 3♣: put the taken card back (return)")
    assert "rimetti la carta presa (rimetti)" in render.hint_text(found, Text("it"))


def test_hint_under_the_opening_says_so_with_the_exact_best_total() -> None:
    found = hint(my_play_phase("9H 9D 9C 4S 5S 2C 7D 8H JC QS KH 3D 6C", drawn="10H"))
    assert found is not None and not found.playable and found.under_opening
    text = render.hint_text(found, Text("it"))
    assert "= 27 — sotto l'apertura (40): non si può calare ora · scarta " in text


def agreed_discard_taken() -> TableModel:
    """Under discard_attachable=agreed, seat 3 discards 10H, which fits this seat's 7H 8H 9H
    though it could be attached (R8.2 agreed), and this seat takes it."""
    model = started_model(discard_attachable=ruleset_pb2.DISCARD_ATTACHABLE_AGREED)
    drawn = private(stock_card_drawn=deal_pb2.StockCardDrawn(card=card("6S", 1)))
    stock = deal_pb2.DRAW_SOURCE_STOCK
    model.apply(deal_event(6, drawn, drawn=deal_pb2.CardDrawn(seat=0, source=stock)))
    opening = (new_meld(cards("7H 8H 9H")), new_meld(cards("QS KS AS")))
    model.apply(
        deal_event(7, played=played(0, *opening, discard="2D", opened=True, new_meld_ids=[1, 2]))
    )
    seq = 8
    for seat, discard in ((1, "5C"), (2, "6C"), (3, "10H")):
        model.apply(deal_event(seq, drawn=deal_pb2.CardDrawn(seat=seat, source=stock)))
        model.apply(deal_event(seq + 1, played=played(seat, discard=discard)))
        seq += 2
    take = deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_DISCARD, card=card("10H"))
    model.apply(deal_event(seq, drawn=take))
    return model


def test_r8_2_agreed_the_preview_refuses_attaching_the_agreed_discard() -> None:
    # Defect: the preview accepted attaching it, which the host refuses (AGREED_DISCARD_ATTACHED).
    model = agreed_discard_taken()
    planner = TurnPlanner()
    planner.add_attach(model, 1, specs("10H"))
    preview = planner.preview(model)
    assert preview.checked and not preview.ready
    assert preview.problem is not None and preview.problem.rule == "R8.2"
    assert preview.problem.code == "AGREED_DISCARD_ATTACHED"


def test_r8_2_agreed_the_hint_never_attaches_the_agreed_discard() -> None:
    model = agreed_discard_taken()
    found = hint(model)
    assert found is not None
    assert not any(isinstance(op, Attach) and card("10H") in op.cards for op in found.operations)
