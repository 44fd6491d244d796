"""The command line's language: every command, English and Italian words, and readable errors."""

from __future__ import annotations

import pytest

from client import commands as c
from client.commands import CardSpec, CommandError, NewMatchCmd, parse_command
from client.tableform import read_rule_changes, rule_changes
from scala40_net.cards import Face, Suit, parse_face
from scala40_net.pb import ruleset_pb2

JK = parse_face("JK")


def f(text: str) -> Face:
    return parse_face(text)


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("draw", c.DrawStockCmd()),
        ("pesca", c.DrawStockCmd()),
        ("take", c.DrawDiscardCmd()),
        ("prendi", c.DrawDiscardCmd()),
        ("return", c.ReturnDiscardCmd()),
        ("meld 7H 8H 9H", c.PlanMeldCmd((CardSpec(f("7H")), CardSpec(f("8H")), CardSpec(f("9H"))))),
        ("cala 7h 8h 9h", c.PlanMeldCmd((CardSpec(f("7H")), CardSpec(f("8H")), CardSpec(f("9H"))))),
        ("attach 3 10H", c.PlanAttachCmd(3, (CardSpec(f("10H")),))),
        ("attacca 3 10H JK(JH)", c.PlanAttachCmd(3, (CardSpec(f("10H")), CardSpec(JK, f("JH"))))),
        ("swap 2 7H", c.PlanSwapCmd(2, f("7H"))),
        ("scambia 2 7H", c.PlanSwapCmd(2, f("7H"))),
        ("discard KS", c.PlayCmd(f("KS"))),
        ("scarta ks", c.PlayCmd(f("KS"))),
        ("sort", c.SortCmd()),
        ("ordina", c.SortCmd()),
        ("hint", c.HintCmd()),
        ("suggerisci", c.HintCmd()),
        ("undo", c.UndoCmd()),
        ("annulla", c.UndoCmd()),
        ("clear", c.ClearCmd()),
        ("help", c.HelpCmd()),
        ("?", c.HelpCmd()),
        ("aiuto", c.HelpCmd()),
        ("quit", c.QuitCmd()),
        ("esci", c.QuitCmd()),
        ("chat ciao a tutti", c.ChatCmd("ciao a tutti")),
        ("cut 40", c.CutCmd(40)),
        ("taglia", c.CutCmd(None)),
        ("start", c.StartCmd()),
    ],
)
def test_each_command_parses(line: str, command: c.Command) -> None:
    assert parse_command(line) == command


def test_a_joker_carries_its_declaration() -> None:
    cmd = parse_command("meld JK(8H) 7H 9H")
    assert isinstance(cmd, c.PlanMeldCmd)
    assert cmd.cards[0] == CardSpec(JK, Face(8, Suit.HEARTS))
    assert parse_command("meld 7H JK=8H 9H") == parse_command("meld 7H JK(8H) 9H")
    assert parse_command("meld 7H JK (8H) 9H") == parse_command("meld 7H JK(8H) 9H")


def test_suit_symbols_are_understood() -> None:
    assert parse_command("discard 10♦") == c.PlayCmd(f("10D"))


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("fly away", "err_unknown_command"),
        ("meld", "err_meld_usage"),
        ("meld 7X 8H 9H", "err_bad_suit"),
        ("meld 1H 2H 3H", "err_bad_rank"),
        ("meld hello", "err_not_card"),
        ("meld 7H(8H) 9H 10H", "err_declare_joker_only"),
        ("meld JK(JK) 9H 10H", "err_declare_joker"),
        ("attach 10H", "err_attach_usage"),
        ("attach x 10H", "err_meld_number"),
        ("attach 0 10H", "err_meld_number"),
        ("swap 2", "err_swap_usage"),
        ("discard", "err_discard_usage"),
        ("discard KS QS", "err_discard_usage"),
        ("chat", "err_chat_usage"),
        ("draw now", "err_too_many"),
        ("cut many", "err_cut_not_number"),
    ],
)
def test_errors_name_what_is_wrong(line: str, key: str) -> None:
    with pytest.raises(CommandError) as caught:
        parse_command(line)
    assert caught.value.key == key


def test_completion_offers_the_interface_language_first() -> None:
    assert c.command_words("it")[0] == "pesca"
    assert c.command_words("en")[0] == "draw"
    assert "draw" in c.command_words("it")


def test_new_takes_other_rules_for_the_next_match_as_the_lobby_form_reads_them() -> None:
    assert parse_command("new") == NewMatchCmd()
    assert parse_command("nuova 151 rientro=no", "it") == NewMatchCmd(("151", "rientro=no"))
    assert parse_command("new 3d max_run=5") == NewMatchCmd(("3d", "max_run=5"))
    changes = read_rule_changes(["151", "rientro=no", "discard_pickup=free"])
    assert changes.bust_at == 151 and changes.match_mode == ruleset_pb2.MATCH_MODE_POINTS
    assert not changes.rientro and changes.discard_pickup == ruleset_pb2.DISCARD_PICKUP_FREE
    assert not changes.HasField("opening_points")  # only what was typed
    for wrong in ("new tomorrow", "new rientro=perhaps", "new 0"):
        with pytest.raises(CommandError) as caught:
            parse_command(wrong)
        assert caught.value.key == "err_new_usage"


def test_the_rules_a_rematch_changes_are_told_as_they_are_typed() -> None:
    now = ruleset_pb2.RulesetOptions(bust_at=101, rientro=True, opening_points=40)
    proposed = ruleset_pb2.RulesetOptions(bust_at=151, rientro=False, opening_points=40)
    proposed.discard_pickup = ruleset_pb2.DISCARD_PICKUP_FREE
    assert rule_changes(now, proposed) == "discard_pickup=free bust_at=151 rientro=✘"
    assert rule_changes(now, now) == ""
