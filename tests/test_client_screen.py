"""Rendering and the full-screen layout, without a host: panels as text, the screen through pyte.

The application runs on a pipe input and a VT100 output captured into a
``pyte`` screen, so what is checked is what a terminal would show.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import time
from collections.abc import Callable

import grpc
import pyte
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from test_client_model import HAND, card, cards, deal_event, started_model

from client import commands as c
from client import render, render_end
from client.app import TableScreen
from client.cardtext import face_label
from client.i18n import Text
from client.model import HandOrder, TableModel, Verification
from client.session import NOTICE_READ_SECONDS, LinkState, NoticeKind, SessionState, TrustState
from scala40_net.pb import deal_pb2, lobby_pb2

EN, IT = Text("en"), Text("it")


class _Capture(io.StringIO):
    encoding = "utf-8"

    def fileno(self) -> int:
        raise io.UnsupportedOperation()


async def drawn(captured: _Capture, before: int, quiet: float = 0.25, limit: float = 10.0) -> None:
    """Wait until the screen has written past ``before`` characters and then nothing for
    ``quiet`` seconds (at most ``limit``): a loaded machine is slower, never skipped."""
    loop = asyncio.get_running_loop()
    start = changed = loop.time()
    size = len(captured.getvalue())
    while loop.time() - start < limit:
        await asyncio.sleep(0.05)
        now = len(captured.getvalue())
        if now != size:
            size, changed = now, loop.time()
        elif size > before and loop.time() - changed >= quiet:
            return


def screen_text(
    model: TableModel,
    size: list[int],
    keys: str = "",
    session: SessionState | None = None,
    lang: str = "en",
    act: Callable[[TableScreen], None] | None = None,
    then: str = "",
) -> list[str]:
    """Run the table screen on ``model`` at ``size`` = [rows, columns], type ``keys``, read it."""
    captured = _Capture()
    output = Vt100_Output(captured, lambda: Size(rows=size[0], columns=size[1]), term="xterm")
    frames: list[str] = []

    async def main() -> None:
        with create_pipe_input() as pipe:
            screen = TableScreen(
                Text(lang),
                None,
                model=model,
                session=session,
                input=pipe,
                output=output,  # type: ignore[arg-type]
            )

            async def drive() -> None:
                await drawn(captured, 0)
                if act is not None:
                    act(screen)
                if keys:
                    pipe.send_text(keys)
                if then:  # keys typed after the screen has redrawn (the history reloads then)
                    await drawn(captured, len(captured.getvalue()))
                    pipe.send_text(then)
                await drawn(captured, len(captured.getvalue()) if keys or then else 0)
                frames.append(captured.getvalue())
                screen.app.exit()

            task = asyncio.get_running_loop().create_task(drive())
            await screen.app.run_async()
            await task

    asyncio.run(main())
    terminal = pyte.Screen(size[1], size[0])
    pyte.Stream(terminal).feed(frames[0])
    return list(terminal.display)


def test_face_labels_use_suit_symbols_and_red_for_hearts_and_diamonds() -> None:
    assert face_label(card_face("10D")) == "10♦"
    assert render.face_style(card_face("7H")) == "class:card.red"
    assert render.face_style(card_face("7D")) == "class:card.red"
    assert render.face_style(card_face("7S")) == "class:card.black"
    assert render.face_style(card_face("JK")) == "class:card.joker"


def card_face(text: str):  # type: ignore[no-untyped-def]
    from scala40_net.cards import parse_face

    return parse_face(text)


def test_players_show_cards_opened_score_turn_and_connection() -> None:
    model = started_model()
    model.seat(2).connected = False
    lines = [render.plain(line) for line in render.player_lines(model, EN, 80)]
    assert lines[0].startswith("▶ Ada (you)")
    assert "13 cards" in lines[1] and "not opened" in lines[1] and "0/101" in lines[1]
    assert "Dino (bot) ◆" in lines[3]
    assert all(len(line) <= 80 for line in lines)


def test_melds_are_numbered_and_show_the_joker_as_its_card() -> None:
    model = started_model()
    meld = deal_pb2.Played(seat=1, discard=card("5C"), opened=True, new_meld_ids=[1])
    op = meld.operations.add().new_meld
    op.cards.extend([card("8H", 1), card("JK", 1), card("10H", 1)])
    op.joker_as.rank, op.joker_as.suit = 9, 1
    model.apply(deal_event(6, played=meld))
    text = render.plain(render.join_lines(render.meld_lines(model, EN, 80, 5)))
    assert " 1) 8♥ *9♥ 10♥" in text


def test_the_hand_sorts_by_suit_or_by_rank() -> None:
    model = started_model()
    by_suit = render.hand_cards(model, SessionState(hand_order=HandOrder.SUIT))
    by_rank = render.hand_cards(model, SessionState(hand_order=HandOrder.RANK))
    assert by_suit[:3] == cards("7H 8H 9H")
    assert by_rank[:2] == [card("AS"), card("2D")] and by_rank[-1] == card("JK")


def test_the_status_line_says_whose_turn_and_what_to_do() -> None:
    model = started_model()
    session = SessionState()
    first, _ = render.status_lines(model, session, EN, 100)
    assert "Your turn: draw" in render.plain(first)
    session.say(
        NoticeKind.REFUSAL,
        "status_refused",
        reason="R5.1: opening melds total 37 points, 40 needed",
    )
    first, _ = render.status_lines(model, session, EN, 100)
    assert "R5.1: opening melds total 37 points" in render.plain(first)
    session.clear_notice()
    session.link = LinkState.RECONNECTING
    session.reconnect_attempt = 2
    first, _ = render.status_lines(model, session, EN, 100)
    assert "reconnecting" in render.plain(first)


def test_the_status_line_shows_the_fair_deal_and_the_fingerprint() -> None:
    model = started_model()
    session = SessionState(fingerprint="ABCD-0123", trust=TrustState.KNOWN)
    model.deals[1].verification = Verification(True)
    _, second = render.status_lines(model, session, EN, 120)
    assert "deal 1: your seed is in — verified ✔" in render.plain(second)
    assert "host ABCD-0123" in render.plain(second)
    model.deals[1].verification = Verification(
        False, "FAILED deck at event 3 (started): wrong card"
    )
    _, second = render.status_lines(model, session, EN, 200)
    assert "VERIFICATION FAILED" in render.plain(second)
    assert second[0][0] == "class:alarm"


def test_a_changed_fingerprint_is_loud() -> None:
    session = SessionState(fingerprint="NEW", trust=TrustState.CHANGED, previous_fingerprint="OLD")
    fragments = render.fingerprint_fragment(session, IT)
    assert fragments[0][0] == "class:alarm"
    assert "ATTENZIONE" in render.plain(fragments) and "OLD" in render.plain(fragments)


def test_an_abandoned_deal_and_a_seed_left_out_are_shown() -> None:
    model = started_model()
    model.deals[1].left_out = {0: deal_pb2.LEFT_OUT_REASON_NO_REVEAL}
    text = render.plain(render.fair_deal_fragment(model, EN))
    assert "YOUR seed is left out" in text and "no reveal" in text
    ended = deal_pb2.DealEnded(outcome=deal_pb2.DEAL_OUTCOME_ABANDONED)
    model.apply(deal_event(6, ended=ended))
    assert "ABANDONED" in render.plain(render.fair_deal_fragment(model, EN))


def test_the_end_of_a_deal_lists_every_hand() -> None:
    model = started_model()
    ended = deal_pb2.DealEnded(outcome=deal_pb2.DEAL_OUTCOME_WENT_OUT, closer_seat=1)
    ended.hands.add(seat=0, cards=cards("AS KS"), opened=True, penalty=21)
    ended.hands.add(seat=1, cards=[], opened=True, penalty=0)
    ended.hands.add(seat=2, cards=cards("5D"), opened=False, penalty=100)
    model.apply(deal_event(6, ended=ended))
    text = render.plain(render.join_lines(render_end.deal_end_lines(model, IT, 80)))
    assert "Fine della smazzata 1" in text
    assert "Ada: A♠ K♠ → 21" in text
    assert "Bea: chiude → 0" in text
    assert "Cleo: 5♦ → 100" in text


def test_the_screen_fits_80x24_and_shows_the_hand() -> None:
    lines = screen_text(started_model(), [24, 80])
    text = "\n".join(lines)
    assert "Prova · deal 1 · dealer (mazziere) Dino" in lines[0]
    assert "7♥  8♥  9♥  2♦  5♦  10♦  J♦  4♣  4♣  A♠  Q♠  K♠  JK" in text
    assert "Stock (tallone): 55" in text
    assert "Your turn: draw" in text
    assert lines[-1].startswith(">")


def test_a_bigger_terminal_gets_a_log_and_a_chat_column() -> None:
    lines = screen_text(started_model(), [40, 130], lang="it")
    text = "\n".join(lines)
    assert "Cronaca" in text and "Chat" in text
    assert "Tallone: 55" in text


def test_a_tiny_terminal_does_not_crash() -> None:
    lines = screen_text(started_model(), [8, 30])
    assert any(line.strip() for line in lines)


def test_resizing_redraws_without_error() -> None:
    sizes = [[24, 80]]

    def grow(screen: TableScreen) -> None:
        sizes[0] = [50, 160]
        screen.app._on_resize()

    lines = screen_text(started_model(), sizes[0], act=grow)
    assert lines  # the pyte screen is 24x80; the app redrew at the new size without failing


def test_keys_select_cards_in_the_hand_and_lay_them_as_a_meld() -> None:
    model = started_model()
    drawn = deal_pb2.PrivateDealEvent(table_id="t-1", deal_no=1)
    drawn.stock_card_drawn.card = card("6S")
    model.apply(
        deal_event(6, drawn, drawn=deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_STOCK))
    )
    # Tab to the hand, select the first three cards (7♥ 8♥ 9♥), Enter lays them.
    lines = screen_text(model, [24, 80], keys="\t   \r")
    text = "\n".join(lines)
    assert "1. meld → 7♥ 8♥ 9♥ (24)" in text
    assert "opening 24/40" in text


def test_typed_commands_plan_and_refuse_clearly() -> None:
    lines = screen_text(started_model(HAND), [24, 80], keys="meld 7H 8H 10D\r")
    text = "\n".join(lines)
    assert "Refused — R4: 7♥ 8♥ 10♦ is neither a sequence" in text
    lines = screen_text(started_model(HAND), [24, 80], keys="meld 7H 8H 10H\r")
    assert "Error: 10♥ is not in your hand" in "\n".join(lines)  # as the screen shows it
    lines = screen_text(started_model(HAND), [24, 80], keys="frobnicate\r")
    assert "unknown command 'frobnicate'" in "\n".join(lines)


def test_help_shows_every_command_and_key_uncut_at_80x24_and_100x32() -> None:
    # Defect: the help Float had no width and drew an 8-column box ("│  discar│").
    for lang in ("it", "en"):
        for size in ([24, 80], [32, 100]):
            lines = screen_text(started_model(), size, keys="\x1bOP", lang=lang)  # F1
            text = "\n".join(lines)
            for line in Text(lang)("help_text").splitlines():  # type: ignore[arg-type]
                assert line.strip() in text, (lang, size, line)
            assert Text(lang)("help_close") in text  # type: ignore[arg-type]


def test_a_typing_error_clears_the_command_line_and_up_brings_it_back() -> None:
    # Defect: the line kept "cala KC KF KP" and the next command was appended to it.
    lines = screen_text(started_model(), [24, 80], keys="frobnicate 7H\rsort\r")
    assert lines[-1].rstrip() == ">"
    assert "frobnicate 7Hsort" not in "\n".join(lines)
    lines = screen_text(started_model(), [24, 80], keys="frobnicate 7H\r", then="\x1b[A")
    assert lines[-1].rstrip() == "> frobnicate 7H"


R32 = (
    "a player who has not opened may take the discard (A♣) only to open with it in this "
    "turn, and only if the opening reaches 40 points"
)


def test_a_long_refusal_wraps_and_is_kept_in_full_in_the_log() -> None:
    # Defect: "Refused — R3.2: … only to open with it in this t" was cut at the screen's edge.
    from client.connection import HostRefusal

    for size in ([24, 80], [32, 100]):
        model = started_model()
        refusal = HostRefusal(grpc.StatusCode.FAILED_PRECONDITION, R32, "R3.2")
        lines = screen_text(model, size, act=lambda screen, r=refusal: screen.say_refusal(r))
        status = lines[-5:-1]  # three lines of the refusal and the fair deal's, above the prompt
        shown = " ".join(" ".join(line.split()) for line in status)
        assert f"Refused — R3.2: {R32}" in shown, size
        assert model.log[-1].key == "log_refused"
        assert model.log[-1].as_dict()["reason"] == f"R3.2: {R32}"


def test_return_says_the_card_went_back_and_that_the_player_now_draws() -> None:
    # Defect: the log said "… and draws from the stock" when nothing was drawn, and the
    # status line then offered take, which the host refuses.
    model = started_model()
    took = deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_DISCARD, card=card("3C"))
    model.apply(deal_event(6, drawn=took))
    model.apply(deal_event(7, discard_returned=deal_pb2.DiscardReturned(seat=0, card=card("3C"))))
    for lang, expected in (("en", "now draw from the stock (draw)"), ("it", "ora pesca")):
        first = render.plain(render.status_lines(model, SessionState(), Text(lang), 100)[0])  # type: ignore[arg-type]
        assert expected in first and "3♣" in first
        assert "take" not in first and "prendi" not in first
    logged = EN(model.log[-1].key, **model.log[-1].as_dict())
    assert logged == "Ada puts 3♣ back on the discard pile; now draws from the stock."


def test_a_deal_sat_out_is_verified_as_a_third_party_not_with_your_seed() -> None:
    # Defect: "your seed is in — verified ✔" was shown for a deal a busted seat did not play.
    model = started_model()
    model.deals[1].seats_in_play = (1, 2, 3)
    model.deals[1].verification = Verification(True)
    text = render.plain(render.fair_deal_fragment(model, EN))
    assert text == "deal 1: you sat it out; checked as a third party ✔"
    assert "segreto" not in render.plain(render.fair_deal_fragment(model, IT))
    model.deals[1].seats_in_play = (0, 1, 2, 3)
    assert "your seed is in — verified" in render.plain(render.fair_deal_fragment(model, EN))


def test_players_columns_hold_for_a_bust_seat_and_the_score_says_what_it_counts() -> None:
    # Defect: "fuori smazzata103 punti", "connected" while reconnecting, "pts" unexplained.
    model = started_model()
    model.seat(2).in_deal = False
    model.seat(2).out = True
    model.seat(2).total = 103
    model.seat(1).bot = False
    model.seat(1).connected = True
    for t in (IT, EN):
        lines = [render.plain(line) for line in render.player_lines(model, t, 80)]
        legend, cleo = render.plain(render.players_legend(model, t, 80)), lines[2]
        column = legend.index(t("col_penalty", limit=101))
        assert cleo[column:].startswith("103/101 "), (t.lang, cleo)
        assert len(legend) == 80
        assert cleo[column - 1] == " "
        assert all(len(line) <= 80 for line in lines)
    it = [render.plain(x) for x in render.player_lines(model, IT, 80, LinkState.RECONNECTING)]
    assert "connesso" not in it[1] and "? (mi riconnetto)" in it[1]
    assert "mi riconnetto…" in it[0]


HAND_OF_MELDS = "7H 8H 9H 2D 3D 4D 5S 5C 5H JD QD KD 10S"


def busy_table(take: bool = False) -> TableModel:
    """Bea has laid five melds; this seat has drawn 6♥ and holds four melds of its own
    (``take``: it took Bea's discard, K♥, instead)."""
    from test_client_model import new_meld, played, private, with_view

    model = started_model(HAND_OF_MELDS)
    laid = [
        new_meld(cards(t)) for t in ("AS 2S 3S", "6C 7C 8C", "9S 9H 9D", "JC QC KC", "2C 3C 4C")
    ]
    model.apply(
        deal_event(
            6, played=played(1, *laid, discard="KH", opened=True, new_meld_ids=[1, 2, 3, 4, 5])
        )
    )
    with_view(model, turn=0)
    if take:
        taken = deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_DISCARD, card=card("KH"))
        model.apply(deal_event(7, drawn=taken))
        return model
    drawn = private(stock_card_drawn=deal_pb2.StockCardDrawn(card=card("6H")))
    model.apply(
        deal_event(7, drawn, drawn=deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_STOCK))
    )
    return model


def test_the_plan_summary_stays_visible_with_three_and_four_steps_at_80x24_and_100x32() -> None:
    # Defect: at 80x24 the summary ("opening 67/40 play is legal") vanished from 3 steps on.
    plans = ["meld 7H 8H 9H\r", "meld 2D 3D 4D\r", "meld 5S 5C 5H\r", "meld JD QD KD\r"]
    for size in ([24, 80], [32, 100]):
        for steps, total in ((3, 48), (4, 78)):
            lines = screen_text(busy_table(), size, keys="".join(plans[:steps]))
            text = "\n".join(lines)
            assert f"opening {total}/40  play is legal: now discard" in text, (size, steps)
            assert "Dino (bot)" in text  # every seat keeps its row


def test_steps_that_do_not_fit_show_the_latest_under_a_count_and_always_the_summary() -> None:
    model = busy_table()
    from client.planner import TurnPlanner

    planner = TurnPlanner()
    for word in ("7H 8H 9H", "2D 3D 4D", "5S 5C 5H", "JD QD KD"):
        planner.add_meld(model, [c.parse_card_spec(w) for w in word.split()])
    preview = planner.preview(model)
    lines = [render.plain(line) for line in render.plan_lines(preview, EN, 80, 3)]
    assert lines == [
        "… 3 steps before (undo drops)",
        "4. meld → J♦ Q♦ K♦ (30)",
        "opening 78/40  play is legal: now discard",
    ]


def test_melds_the_table_panel_cannot_hold_are_reachable_on_f3() -> None:
    lines = screen_text(busy_table(), [20, 60], keys="meld 7H 8H 9H\rmeld 2D 3D 4D\r")
    assert any("more: F3" in line for line in lines)
    lines = screen_text(busy_table(), [20, 60], keys="meld 7H 8H 9H\r", then="\x1bOR")  # F3
    text = "\n".join(lines)
    assert "Melds on the table" in text
    for meld in ("A♠ 2♠ 3♠", "6♣ 7♣ 8♣", "9♠ 9♥ 9♦", "J♣ Q♣ K♣", "2♣ 3♣ 4♣"):
        assert meld in text


def test_the_plan_preview_follows_an_adopted_plan_ending_in_the_same_step() -> None:
    # Defect: the preview was cached by (seq, steps, id of the last step): a hint adopted over
    # a plan of the same length ending in the same step kept the old plan's numbers.
    from scala40_net.actions import NewMeld

    model = busy_table()
    screen = TableScreen(EN, None, model=model)
    low, groups, high = (NewMeld(tuple(cards(t))) for t in ("2D 3D 4D", "5S 5C 5H", "JD QD KD"))
    screen.planner.adopt([low, high])
    first = screen.preview()
    assert first is not None and first.opening_total == 39
    screen.planner.adopt([groups, high])
    second = screen.preview()
    assert second is not None and second.opening_total == 45


def test_a_planned_swap_says_the_joker_went_to_hand_not_what_it_declares() -> None:
    # Defect: a swap step still said "joker = 6♥" when the meld had no joker left.
    from test_client_model import new_meld, played, with_view

    model = started_model("4H 5H 6H 2D 5D 10D JD 4C 4C AS QS KS KD")
    laid = new_meld([card("4H", 1), card("JK"), card("6H", 1)], joker_as="5H")
    model.apply(deal_event(6, played=played(1, laid, discard="KH", opened=True, new_meld_ids=[1])))
    with_view(model, turn=0, opened=(True, True, False, False))
    screen = TableScreen(EN, None, model=model)
    screen.planner.add_swap(model, 1, card_face("5H"))
    lines = [render.plain(line) for line in render.plan_lines(screen.preview(), EN, 100)]
    assert "joker = " not in lines[0]
    assert "joker to hand (it was 5♥)" in lines[0]


def test_italian_suit_letters_c_cuori_q_quadri_f_fiori_p_picche() -> None:
    # Defect: cards were typed with English letters, C for clubs, where an Italian reads cuori.
    lines = screen_text(started_model(), [24, 80], keys="cala 7C 8C 9C\r", lang="it")
    assert "1. cala → 7♥ 8♥ 9♥ (24)" in "\n".join(lines)
    lines = screen_text(started_model(), [24, 80], keys="cala QP KP AP\r", lang="it")
    assert "1. cala → Q♠ K♠ A♠ (31)" in "\n".join(lines)
    assert c.parse_command("scarta 4F", "it") == c.PlayCmd(card_face("4C"))
    lines = screen_text(started_model(), [24, 80], keys="cala 7♥ 8♥ 9♥\r", lang="it")
    assert "1. cala → 7♥ 8♥ 9♥ (24)" in "\n".join(lines)
    lines = screen_text(started_model(), [24, 80], keys="cala 7H 8H 9H\r", lang="it")
    assert "il seme è C (cuori), Q (quadri), F (fiori) o P (picche)" in "\n".join(lines)
    lines = screen_text(started_model(), [24, 80], keys="meld 7♥ 8♥ 9♥\r", lang="en")
    assert "1. meld → 7♥ 8♥ 9♥ (24)" in "\n".join(lines)
    assert c.parse_command("scarta QP", "it") == c.PlayCmd(card_face("QS"))
    assert c.parse_command("scarta QQ", "it") == c.PlayCmd(card_face("QD"))
    assert c.parse_command("scarta 10Q", "it") == c.PlayCmd(card_face("10D"))


def test_italian_completion_offers_the_cards_in_italian_letters() -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from client.app import CommandCompleter

    screen = TableScreen(IT, None, model=started_model())
    offered = [
        completion.text.strip()
        for completion in CommandCompleter(screen).get_completions(
            Document("cala 7"), CompleteEvent(completion_requested=True)
        )
    ]
    assert offered == ["7C"]


def test_a_question_stays_when_the_turn_moves_on_and_a_refusal_goes() -> None:
    """A refusal speaks of the table as it was and goes once the turn moves on; a question
    (quit, or hand the seat to a stand-in: each asked again to be done) stays while it is
    armed, or a player who asked it would lose sight of what the next word does."""
    draw = deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_DISCARD, card=card("3C"))
    for key in ("quit_confirm", "stand_in_confirm", "err_not_in_hand"):
        screen = TableScreen(Text("en"), None, model=started_model())
        screen.session.say(NoticeKind.REFUSAL, key, word="w", card="9S")
        # Said long enough ago to have been read (the next test: one said just now).
        screen.session.notice = dataclasses.replace(
            screen.session.notice, said_at=time.monotonic() - NOTICE_READ_SECONDS
        )
        screen.on_event(deal_event(6, drawn=draw))  # Ada draws: her turn moved on to playing
        notice = screen.session.notice
        if key.endswith("_confirm"):
            assert notice is not None and notice.key == key, key
        else:
            assert notice is None, notice


async def test_an_answer_said_as_the_turn_moves_on_stays_to_be_read_then_goes() -> None:
    # Defect: a command's error said just before the turn moved (a deal announced in the
    # same moment) was cleared by that event at once, before anyone could read it.
    draw = deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_DISCARD, card=card("3C"))
    screen = TableScreen(Text("en"), None, model=started_model())
    screen.session.say(NoticeKind.ERROR, "err_absent_self")
    screen.on_event(deal_event(6, drawn=draw))  # the turn moves on in the same moment
    notice = screen.session.notice
    assert notice is not None and notice.key == "err_absent_self"
    await asyncio.sleep(NOTICE_READ_SECONDS + 0.3)
    assert screen.session.notice is None, "read by now, it gives way to the turn"
    # Another notice said meanwhile is not cleared at the time the first one was given.
    screen.session.say(NoticeKind.ERROR, "err_absent_self")
    screen.on_event(deal_event(7, played=deal_pb2.Played(seat=0, discard=card("3C"))))
    await asyncio.sleep(NOTICE_READ_SECONDS / 2)
    screen.session.say(NoticeKind.ERROR, "err_absent_self")
    await asyncio.sleep(NOTICE_READ_SECONDS / 2 + 0.3)
    assert screen.session.notice is not None, "cleared at another notice's time"


def test_quitting_mid_match_asks_to_be_confirmed() -> None:
    model = started_model()
    model.table_phase = lobby_pb2.TABLE_PHASE_PLAYING
    lines = screen_text(model, [24, 80], keys="esci\r", lang="it")
    assert "La partita è in corso" in " ".join(" ".join(x.split()) for x in lines)
    closed: list[bool] = []

    def twice(screen: TableScreen) -> None:
        screen.quit = lambda: closed.append(True)  # type: ignore[method-assign]
        screen.run(c.QuitCmd())
        assert screen.app.is_running
        screen.run(c.SortCmd())  # another command in between: the next quit asks again
        screen.run(c.QuitCmd())
        assert screen.app.is_running and screen.session.quit_armed
        assert not closed
        screen.run(c.QuitCmd())

    screen_text(started_model(), [24, 80], act=twice)
    assert closed == [True]


def test_the_cut_prompt_counts_down_and_takes_digits_typed_in_the_hand() -> None:
    session = SessionState(cut_prompt=True, cut_deadline=time.monotonic() + 12.4)
    lines = screen_text(started_model(), [24, 80], keys="\t42", session=session, lang="it")
    text = " ".join(" ".join(line.split()) for line in lines)
    # The clock runs while the screen is drawn: a busy machine may draw it a second or so late.
    assert "Tagli tu il mazzo" in text and any(f"({s} s)" in text for s in (12, 11, 10)), text
    assert lines[-1].rstrip() == "> 42"  # the digits went to the command line


def test_the_piles_show_the_cards_under_the_top_and_who_took_from_the_pile() -> None:
    from test_client_model import with_view

    model = with_view(busy_table(), discard_pile=tuple(cards("3C 7S 9D KH")))
    model.pile_takes = [(1, card("QD")), (2, card("5S"))]
    text = render.plain(render.join_lines(render.piles_lines(model, EN, 100)))
    assert "K♥ (4) below: 9♦ 7♠ 3♣" in text
    assert "taken: Bea Q♦, Cleo 5♠" in text
    assert all(len(render.plain(x)) <= 60 for x in render.piles_lines(model, EN, 60))


def test_the_log_takes_the_rows_the_table_does_not_need_at_100x32() -> None:
    # Defect: at 100x32 the table area had empty rows above a four-line log.
    lines = screen_text(busy_table(), [32, 100])
    start = next(i for i, line in enumerate(lines) if line.startswith("Nothing planned"))
    log = [line for line in lines[start + 2 : -4] if line.strip()]
    assert len(log) >= 10


def test_a_long_plan_problem_wraps_instead_of_being_cut_at_80x24() -> None:
    # An opening of 54 that leaves out the card taken from the pile: R3.2's long sentence.
    model = busy_table(take=True)
    lines = screen_text(model, [24, 80], keys="cala 7C 8C 9C\rcala JQ QQ KQ\r", lang="it")
    assert all(len(line.rstrip()) <= 80 for line in lines)
    shown = " ".join(" ".join(line.split()) for line in lines)
    sentence = (
        "non ancora valida: R3.2: la carta presa dal pozzo deve stare nei giochi dell'apertura"
    )
    assert "apertura 54/40" in shown and sentence in shown
