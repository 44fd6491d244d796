"""No line a player can type raises inside the client: a plan, a refusal or a parse error.

The command parser and the turn planner are driven by typed lines (commands, card names,
meld numbers, jokers with and without declarations) against positions of real bot-played
deals, on a table screen with no host; every outcome is a plan, a refusal sentence (R…)
or a parse error on the status line, never an exception.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_client_model import ME, card, cards, deal_event, new_meld, played, started_model

from client import commands as c
from client.app import TableScreen
from client.cardtext import typed_label
from client.i18n import Text
from client.planner import TurnPlanner
from client.session import NoticeKind
from scala40_net.cards import face
from scala40_net.errors import RuleViolation
from scala40_net.rules import PRESETS, preset
from tests.test_client_views import Screen
from tests.test_engine_views import bot_deal


def test_r4_2_a_joker_attached_to_a_group_of_four_is_refused_not_raised() -> None:
    # Defect: ``attacca 1 JK`` on a group of 4 raised AssertionError in arrange_attach.
    model = started_model("10H 2D 5D 10D JD 4C 4C AS QS KS JK 3C 3D")
    model.apply(deal_event(6, played=played(0, discard="3D")))
    group = new_meld(cards("7H 7D 7C 7S"))
    model.apply(deal_event(7, played=played(1, group, discard="5C", opened=True, new_meld_ids=[1])))
    for seq, (seat, thrown) in enumerate(((2, "2C"), (3, "3S")), start=8):
        model.apply(deal_event(seq, played=played(seat, discard=thrown)))
    planner = TurnPlanner()
    command = c.parse_command("attacca 1 JK", "it")
    assert isinstance(command, c.PlanAttachCmd)
    with pytest.raises(RuleViolation) as refused:
        planner.add_attach(model, command.meld, command.cards)
    assert refused.value.rule == "R4.2"
    with pytest.raises(RuleViolation) as declared:
        planner.add_attach(model, 1, c.parse_command("attach 1 JK(7H)").cards)  # type: ignore[union-attr]
    assert declared.value.rule == "R4.2"
    assert not planner
    assert card("JK") in model.hand and ME == 0


# --- random lines against real positions ----------------------------------------------

_PLANS = ("meld", "attach", "swap", "discard")
_WORDS = [w for pair in c.COMMAND_WORDS.values() for w in pair if w not in ("quit", "esci")]
_WORDS += [w for w in c.ALIASES if c.ALIASES[w] != "quit"]


@st.composite
def typed_line(draw: st.DrawFn, hand: tuple[int, ...], lang: str) -> str:
    """A line as a player might type it: mostly plans of cards in hand, some of anything."""
    held = [typed_label(face(x), lang) for x in hand] or ["JK"]
    any_card = st.sampled_from(["JK", "jk", "7♥", "10♦", "AS", "KC", "QQ", "1H", "11H", "7", ""])
    a_card = st.one_of(st.sampled_from(held), any_card)
    a_joker = st.builds(
        lambda declared: f"JK({declared})", st.one_of(st.sampled_from(held), any_card)
    )
    a_spec = st.one_of(a_card, a_card, a_joker)
    number = st.sampled_from(["0", "1", "2", "3", "5", "9", "-1", "x"])
    kind = draw(st.sampled_from((*_PLANS, "word", "word")))
    if kind == "word":
        rest = draw(st.lists(st.one_of(a_spec, number), max_size=3))
        return " ".join([draw(st.sampled_from(_WORDS)), *rest])
    verb = c.COMMAND_WORDS[kind][1 if lang == "it" else 0]
    specs = draw(st.lists(a_spec, min_size=0, max_size=5))
    if kind == "meld":
        split = draw(st.sampled_from(["", " / 3", " / 3 4", " / 0", " / x"]))
        return f"{verb} {' '.join(specs)}{split}"
    if kind == "attach":
        return f"{verb} {draw(number)} {' '.join(specs)}"
    if kind == "swap":
        return f"{verb} {draw(number)} {draw(a_card)}"
    return f"{verb} {draw(a_card)}"


@given(
    seed=st.integers(min_value=0, max_value=2**16),
    players=st.integers(min_value=2, max_value=4),
    name=st.sampled_from(PRESETS),
    stop=st.integers(min_value=0, max_value=80),
    lang=st.sampled_from(["en", "it"]),
    data=st.data(),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_line_is_a_plan_a_refusal_or_a_parse_error(
    seed: int, players: int, name: str, stop: int, lang: str, data: st.DataObject
) -> None:
    rules = preset(name, players)
    seat = seed % players
    screen_of_deal = Screen(name, rules, players, seat)
    for step, (_, state, events) in enumerate(bot_deal(rules, players, seed)):
        if step == 0:
            screen_of_deal.announce(state)
        for event in events:
            screen_of_deal.hear(state, event)
        if step >= stop:
            break
    model = screen_of_deal.model
    screen = TableScreen(Text(lang), None, model=model)
    for _ in range(6):
        line = data.draw(typed_line(tuple(model.hand), lang))
        try:
            command = c.parse_command(line, lang)
        except c.CommandError as error:
            assert screen.text(error.key, **error.fields)  # a sentence for every parse error
            continue
        if isinstance(command, c.ChatCmd | c.QuitCmd | c.NewMatchCmd | c.StartCmd):
            continue  # they leave the screen or need a host; nothing the planner does
        screen.run(command)  # a refusal or an error is said on the status line; never raised
        notice = screen.session.notice
        if notice is not None and notice.kind in (NoticeKind.REFUSAL, NoticeKind.ERROR):
            assert dict(notice.fields)["reason"]  # a sentence, said in the screen's language
        screen.preview()
