"""At 80×24 nothing the player needs is cut, in either language: every panel of the table
screen rendered (pyte) with its lines checked against the width they are drawn at.

A line is cut when a panel draws more than its width (the terminal drops the rest) or when
``render.cut`` drops text to fit it; both are recorded while each screen is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from test_client_deal_end import end_deal
from test_client_model import started_model
from test_client_screen import busy_table, screen_text

from client import layout, render, render_end
from client.app import TableScreen
from client.model import TableModel
from client.session import LinkState, NoticeKind, SessionState
from scala40_net.pb import table_pb2

SIZE = [24, 80]
F1, F2, F3 = "\x1bOP", "\x1bOQ", "\x1bOR"


@pytest.fixture
def cuts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every text a panel could not show in full while the test draws, as it would have read."""
    lost: list[str] = []
    original_cut = render.cut

    def recording_cut(fragments: Any, width: int) -> Any:
        text = "".join(f[1] for f in fragments)
        if len(text.rstrip()) > width:
            lost.append(text)
        return original_cut(fragments, width)

    monkeypatch.setattr(render, "cut", recording_cut)
    monkeypatch.setattr(render_end, "cut", recording_cut)
    original_content = layout.PanelControl.create_content

    def recording_content(self: layout.PanelControl, width: int, height: int) -> Any:
        content = original_content(self, width, height)
        if content.line_count > height:  # the panel's last lines fall off its bottom
            last = "".join(f[1] for f in content.get_line(content.line_count - 1))
            lost.append(f"{content.line_count - height} lines below: {last}")
        for i in range(content.line_count):
            text = "".join(f[1] for f in content.get_line(i))
            if len(text.rstrip()) > width:
                lost.append(text)
        return content

    monkeypatch.setattr(layout.PanelControl, "create_content", recording_content)
    yield lost


def ended() -> TableModel:
    model = started_model()
    end_deal(model, 6, {0: 21, 1: 0, 2: 100, 3: 1})
    return model


def match_over() -> TableModel:
    model = started_model()
    end_deal(model, 6, {0: 120, 1: 0, 2: 100, 3: 2}, pause_ms=0, out=frozenset({0}))
    over = table_pb2.MatchUpdate(match_over=True, winners=[1])
    model.apply(table_pb2.TableEvent(seq=20, match_update=over))
    return model


def full_hands_over() -> TableModel:
    """The match ends on a deal where three players kept most of their cards."""
    from test_client_model import cards, deal_event

    from scala40_net.pb import deal_pb2

    model = started_model()
    ended = deal_pb2.DealEnded(outcome=deal_pb2.DEAL_OUTCOME_WENT_OUT, closer_seat=1)
    held = ("KS 2H 10D QC 5S 9H JD 3C 7S 6D", "", "AS KH QD JC 10S 9D 8C 7H", "4S 4H 8D 2C 6S")
    for seat, hand in enumerate(held):
        ended.hands.add(seat=seat, cards=cards(hand), opened=seat != 0, penalty=5 * len(hand))
    model.apply(deal_event(6, ended=ended))
    update = table_pb2.MatchUpdate(match_over=True, winners=[1])
    for seat, total in enumerate((151, 0, 160, 40)):
        update.scores.add(seat=seat, total=total, out=total > 101)
    model.apply(table_pb2.TableEvent(seq=7, match_update=update))
    return model


def fingerprint_new() -> SessionState:
    from client.session import TrustState

    session = SessionState()
    session.fingerprint = "0B49-6407-FCAC-4196-6B1E-6F9B-62A9-0272"
    session.trust = TrustState.NEW
    return session


def reconnecting() -> SessionState:
    session = SessionState()
    session.link = LinkState.RECONNECTING
    session.reconnect_attempt = 7
    return session


def joker_notice(screen: TableScreen) -> None:
    screen.session.say(
        NoticeKind.REFUSAL, "status_refused", reason="R7.3 a joker to hand (it was J♠): lay it"
    )


SCREENS: dict[str, tuple[Callable[[], TableModel], str, Callable[[], SessionState | None]]] = {
    "the table": (started_model, "", lambda: None),
    "a busy table": (busy_table, "", lambda: None),
    "the help": (started_model, F1, lambda: None),
    "the score sheet": (ended, F2, lambda: None),
    "all melds": (busy_table, F3, lambda: None),
    "the end of a deal": (ended, "", lambda: None),
    "the end of the match": (match_over, "", lambda: None),
    "a lost connection": (started_model, "", reconnecting),
    "the end of a match with full hands (its rematch line)": (full_hands_over, "", lambda: None),
    "a new host's fingerprint": (started_model, "", fingerprint_new),
}


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("name", sorted(SCREENS))
def test_no_line_is_cut_at_80x24(name: str, lang: str, cuts: list[str]) -> None:
    make, keys, session = SCREENS[name]
    lines = screen_text(make(), SIZE, keys=keys, session=session(), lang=lang)
    assert len(lines) == 24
    assert cuts == [], f"{name} ({lang}): " + " | ".join(cuts)


@pytest.mark.parametrize("lang", ["en", "it"])
def test_a_planned_swap_is_not_cut_at_80x24(lang: str, cuts: list[str]) -> None:
    # Defect: the plan line ended "joker to hand (it was J♠):" at 80 columns.
    from test_client_model import card, deal_event, new_meld, played, with_view

    from client.commands import parse_card_face

    model = started_model("4H 5H 6H 2D 5D 10D JD 4C 4C AS QS KS KD")
    laid = new_meld([card("4H", 1), card("JK"), card("6H", 1)], joker_as="5H")
    model.apply(deal_event(6, played=played(1, laid, discard="KH", opened=True, new_meld_ids=[1])))
    with_view(model, turn=0, opened=(True, True, False, False))

    def swap(screen: TableScreen) -> None:
        screen.planner.add_swap(model, 1, parse_card_face("5H"))

    lines = screen_text(model, SIZE, keys="x", act=swap, lang=lang)  # x: a redraw
    assert any("5♥" in line and "(" in line for line in lines)
    assert cuts == [], " | ".join(cuts)
