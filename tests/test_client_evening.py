"""What a player notices over an evening: the log's order, the closer's last play and the
final standings on the end panels (the defects found playing whole matches)."""

from __future__ import annotations

from test_client_deal_end import end_deal
from test_client_model import (
    attach,
    card,
    cards,
    deal_event,
    new_meld,
    played,
    private,
    started_model,
)
from test_client_screen import busy_table

from client import render, render_end
from client.i18n import Text
from scala40_net.actions import Play
from scala40_net.cards import face
from scala40_net.pb import deal_pb2, table_pb2

EN, IT = Text("en"), Text("it")


def test_an_opening_is_logged_before_the_attach_of_the_same_play() -> None:
    # Defect: the log said "attacca …" and only then "apre con …".
    model = busy_table()  # Bea laid five melds; this seat drew 6♥
    play = played(
        0,
        new_meld(cards("7H 8H 9H")),
        new_meld(cards("JD QD KD")),
        attach(5, [card("5C")]),  # on Bea's 2♣ 3♣ 4♣
        discard="10S",
        opened=True,
        new_meld_ids=[6, 7],
    )
    model.apply(deal_event(8, played=play))
    keys = [e.key for e in model.log[-5:]]
    assert keys == ["log_opened", "log_new_meld", "log_new_meld", "log_attach", "log_discard"]
    assert IT(model.log[-5].key, **model.log[-5].as_dict()) == "Ada apre con 54 punti."


def test_the_end_panel_shows_the_closers_last_play() -> None:
    model = started_model()
    mine = private(stock_card_drawn=deal_pb2.StockCardDrawn(card=card("6H")))
    stock = deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_STOCK)
    model.apply(deal_event(6, mine, drawn=stock))
    model.apply(deal_event(7, played=played(0, discard="6H")))
    model.apply(deal_event(8, drawn=deal_pb2.CardDrawn(seat=1, source=deal_pb2.DRAW_SOURCE_STOCK)))
    laid = [new_meld(cards(t)) for t in ("AS 2S 3S 4S", "6C 7C 8C", "9S 9H 9D", "JC QC KC")]
    out = played(1, *laid, discard="KH", opened=True, went_out=True, new_meld_ids=[1, 2, 3, 4])
    model.apply(deal_event(9, played=out))
    end_deal(model, 10, {0: 21, 1: 0, 2: 100, 3: 1})
    for t, words in ((EN, "last play"), (IT, "ultima giocata")):
        text = render.plain(render.join_lines(render_end.deal_end_lines(model, t, 80)))
        assert f"{words}: A♠ 2♠ 3♠ 4♠ · 6♣ 7♣ 8♣ · 9♠ 9♥ 9♦ · J♣ Q♣ K♣ · " in text, text
        assert ("discard K♥" if t is EN else "scarta K♥") in text


def test_the_standings_rank_the_busted_by_who_went_out_last() -> None:
    # Defect: busted players were ranked by their total: Cleo, out after deal 1 with 110,
    # came before Ada, who lasted a deal longer and went out with 150.
    model = started_model()
    end_deal(model, 6, {0: 60, 1: 0, 2: 110, 3: 30}, out=frozenset({2}), pause_ms=0)
    end_deal(model, 8, {0: 150, 1: 0, 2: 110, 3: 40}, deal_no=2, out=frozenset({0, 2}), pause_ms=0)
    over = table_pb2.MatchUpdate(match_over=True, winners=[1])
    model.apply(table_pb2.TableEvent(seq=20, match_update=over))
    rows = [render.plain(x) for x in render_end.standings_lines(model, EN, 80)[1:]]
    assert [r.split()[1] for r in rows] == ["Bea", "Dino", "Ada", "Cleo"], rows


def test_a_scrolled_log_says_how_many_newer_entries_are_below_and_end_brings_them() -> None:
    # Defect: after PgUp the log stayed scrolled with no mark, hiding the new events.
    from test_client_screen import screen_text

    from client.session import SessionState

    for lang, mark in (("en", "↓ 3 newer below"), ("it", "↓ altre 3 più recenti")):
        session = SessionState()
        session.log_scroll = 3
        lines = screen_text(busy_table(), [24, 80], session=session, lang=lang)
        assert any(line.startswith(mark) for line in lines), lines
        back = SessionState()
        back.log_scroll = 3
        lines = screen_text(busy_table(), [24, 80], keys="\x1b[F", session=back, lang=lang)
        assert not any("↓" in line for line in lines) and back.log_scroll == 0


def test_the_italian_status_line_wraps_the_turn_clock_whole() -> None:
    # Defect: the line wrapped between "⏱ 78" and "s".
    import time

    from client.session import SessionState

    model = busy_table()  # this seat's turn, after drawing
    session = SessionState()
    session.turn_deadline = time.monotonic() + 78.4
    lines = [render.plain(x) for x in render.status_lines(model, session, IT, 80)[:-1]]
    assert len(lines) == 2 and all(len(x) <= 80 for x in lines), lines
    assert lines[1] in ("⏱ 78 s", "⏱ 77 s"), lines


def test_a_discard_put_back_leaves_the_taken_list() -> None:
    from test_client_model import started_model

    model = started_model()
    take = deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_DISCARD, card=card("3C"))
    model.apply(deal_event(6, drawn=take))
    assert model.pile_takes == [(0, card("3C"))]
    back = deal_pb2.DiscardReturned(seat=0, card=card("3C"))
    model.apply(deal_event(7, discard_returned=back))
    assert model.pile_takes == []
    assert "taken:" not in render.plain(render.join_lines(render.piles_lines(model, EN, 200)))


def test_the_taken_list_is_shown_on_the_english_screen_at_120_columns() -> None:
    # Defect: beside the side column the English piles line had no room left for it.
    from test_client_model import with_view
    from test_client_screen import screen_text

    for lang, words in (("en", "taken: Bea Q♦, Cleo 5♠"), ("it", "Bea Q♦, Cleo 5♠")):
        model = with_view(busy_table(), discard_pile=tuple(cards("3C 7S 9D KH")))
        model.pile_takes = [(1, card("QD")), (2, card("5S"))]
        for size in ([40, 120], [24, 80]):
            text = "\n".join(screen_text(model, size, lang=lang))
            assert words in text, (lang, size, text)


def test_hint_before_drawing_says_to_take_the_discard_that_opens() -> None:
    # Defect: the hint proposed melds only, never where to draw from nor what to discard.
    from test_client_model import started_model

    from client.planner import hint
    from scala40_net.actions import DrawSource

    model = started_model("4C 5C KH KD KS 2D 7H 9S JD 6H 8S 10D QH")  # 3♣ on the pile
    assert model.my_turn
    found = hint(model)
    assert found is not None and found.draw is DrawSource.DISCARD and found.take == card("3C")
    assert render.hint_text(found, EN).startswith("take 3♣ from the discard pile (take)")
    assert render.hint_text(found, IT).startswith("prendi 3♣ dal pozzo (prendi)")


def test_hint_before_drawing_says_to_draw_when_the_discard_is_no_use() -> None:
    from test_client_model import started_model

    from client.planner import hint
    from scala40_net.actions import DrawSource

    found = hint(started_model("7H 8H 9H 2D 5D 10D JD 4S 4D AS QS KS JK"))
    assert found is not None and found.draw is DrawSource.STOCK
    assert render.hint_text(found, IT).startswith("pesca dal tallone (pesca) · ")


def test_hint_after_drawing_ends_its_play_with_a_legal_discard() -> None:
    from test_client_planner import my_play_phase

    from client.planner import hint, local_state
    from scala40_net import deal

    model = my_play_phase("7H 8H 9H 2D 5D 10D JD 4C 4C AS QS KS JK")
    found = hint(model)
    assert found is not None and found.playable and found.discard is not None
    state = local_state(model)
    assert state is not None
    deal.apply(state, 0, Play(found.operations, found.discard))  # the engine accepts it
    discard = render.face_label(face(found.discard))
    assert render.hint_text(found, EN).endswith(f"· discard {discard}")
