"""Choosing how a long sequence is cut into runs (R4.6, max_run): typed, planned, shown, sent."""

from __future__ import annotations

import pytest
from test_client_planner import my_play_phase, specs

from client import commands as c
from client import render
from client.commands import CommandError, parse_command
from client.i18n import Text
from client.model import TableModel
from client.planner import TurnPlanner
from scala40_net import wire
from scala40_net.actions import Attach, NewMeld
from scala40_net.cards import face
from scala40_net.errors import RuleViolation
from scala40_net.pb import ruleset_pb2

LONG_HAND = "3H 4H 5H 6H 7H 8H 9H 2D 5D QS KS AS 4C"


def max_run_model(hand: str = LONG_HAND, drawn: str = "6S") -> TableModel:
    """This seat to play on a table where no sequence may be longer than 5 (R4.6)."""
    model = my_play_phase(hand, drawn, ruleset_pb2.PRESET_TRADIZIONALE, max_run=5)
    assert model.max_run == 5
    return model


def test_the_cut_follows_a_slash_in_both_languages() -> None:
    meld = parse_command("meld 3H 4H 5H 6H 7H 8H 9H / 4 3")
    assert isinstance(meld, c.PlanMeldCmd) and meld.split == (4, 3) and len(meld.cards) == 7
    assert parse_command("cala 3H 4H 5H 6H 7H 8H 9H /3+4") == c.PlanMeldCmd(meld.cards, (3, 4))
    attach = parse_command("attacca 2 8H 9H / 3 4")
    assert isinstance(attach, c.PlanAttachCmd) and attach.split == (3, 4) and attach.meld == 2
    assert parse_command("meld 7H 8H 9H") == c.PlanMeldCmd(meld.cards[4:])  # no cut: automatic


@pytest.mark.parametrize("line", ["meld 3H 4H 5H / ", "meld 3H 4H 5H / 4 x", "cala 3H / 0 3"])
def test_a_cut_that_is_not_lengths_is_named(line: str) -> None:
    with pytest.raises(CommandError) as error:
        parse_command(line)
    assert error.value.key == "err_split_usage"


def test_the_players_cut_is_planned_and_sent() -> None:
    model = max_run_model()
    planner = TurnPlanner()
    planner.add_meld(model, specs("3H 4H 5H 6H 7H 8H 9H"), (3, 4))
    op = planner.steps[0]
    assert isinstance(op, NewMeld) and op.split == (3, 4)
    assert planner.preview(model).problem is None  # the engine accepts the cut
    sent = wire.operation_to_pb(op)
    assert list(sent.new_meld.split) == [3, 4]
    plan = render.plain(
        render.join_lines(render.plan_lines(planner.preview(model), Text("en"), 90))
    )
    assert "in runs of 3+4" in plan


def test_without_a_cut_the_automatic_one_is_kept() -> None:
    model = max_run_model()
    planner = TurnPlanner()
    planner.add_meld(model, specs("3H 4H 5H 6H 7H 8H 9H"))
    op = planner.steps[0]
    assert isinstance(op, NewMeld) and op.split == (4, 3)


@pytest.mark.parametrize("split", [(5, 2), (4, 4), (6, 1)])
def test_a_cut_the_engine_refuses_is_not_planned(split: tuple[int, ...]) -> None:
    model = max_run_model()
    planner = TurnPlanner()
    with pytest.raises(RuleViolation) as refusal:
        planner.add_meld(model, specs("3H 4H 5H 6H 7H 8H 9H"), split)
    assert refusal.value.rule == "R4.6"
    assert not planner.steps


def test_a_cut_of_a_short_sequence_or_without_max_run_is_refused() -> None:
    planner = TurnPlanner()
    with pytest.raises(RuleViolation):
        planner.add_meld(max_run_model(), specs("3H 4H 5H"), (3, 0))
    classic = my_play_phase(LONG_HAND)  # no max_run: nothing is ever cut
    with pytest.raises(RuleViolation) as refusal:
        planner.add_meld(classic, specs("3H 4H 5H 6H 7H 8H 9H"), (4, 3))
    assert refusal.value.rule == "R4.6"


def test_an_attach_that_grows_a_run_past_five_takes_the_players_cut() -> None:
    model = max_run_model(drawn="10H")
    planner = TurnPlanner()
    planner.add_meld(model, specs("3H 4H 5H 6H 7H"))
    planner.add_meld(model, specs("QS KS AS"))
    planner.add_attach(model, 1, specs("8H 9H 10H"), (5, 3))
    op = planner.steps[-1]
    assert isinstance(op, Attach) and op.split == (5, 3)
    preview = planner.preview(model)
    grown = preview.steps[-1].result
    assert grown is not None and [str(face(x)) for x in grown.cards][-1] == "10H"
