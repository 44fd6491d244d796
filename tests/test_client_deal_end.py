"""The end of a deal on screen: every hand and its penalty explained, the pause, the score sheet."""

from __future__ import annotations

import pytest
from test_client_model import cards, deal_event, started_model
from test_client_screen import screen_text

from client import keys, render, render_end
from client.app import TableScreen
from client.i18n import Text
from client.model import TableModel, Verification
from client.session import NoticeKind
from scala40_net.fairdeal.verify import CHECKS
from scala40_net.pb import deal_pb2, ruleset_pb2, table_pb2

EN, IT = Text("en"), Text("it")


def end_deal(
    model: TableModel,
    seq: int,
    totals: dict[int, int],
    *,
    deal_no: int = 1,
    closer: int = 1,
    in_hand: bool = False,
    pause_ms: int = 20_000,
    out: frozenset[int] = frozenset(),
) -> None:
    """Deal ``deal_no`` ends with Bea (seat 1) out; then the scores and the host's pause."""
    ended = deal_pb2.DealEnded(
        outcome=deal_pb2.DEAL_OUTCOME_WENT_OUT, closer_seat=closer, closed_in_one_turn=in_hand
    )
    ended.hands.add(seat=0, cards=cards("AS KS"), opened=True, penalty=42 if in_hand else 21)
    ended.hands.add(seat=1, cards=[], opened=True, penalty=0)
    ended.hands.add(seat=2, cards=cards("5D 9C"), opened=False, penalty=100)
    ended.hands.add(seat=3, cards=cards("AH"), opened=True, penalty=2 if in_hand else 1)
    model.apply(deal_event(seq, deal_no=deal_no, ended=ended))
    update = table_pb2.MatchUpdate()
    for seat, total in totals.items():
        update.scores.add(seat=seat, total=total, out=seat in out)
    if pause_ms:
        update.between_deals.next_deal_within_ms = pause_ms
        update.between_deals.waiting_for_seats.extend([0])
    model.apply(table_pb2.TableEvent(seq=seq + 1, match_update=update))


def test_the_panel_says_how_each_penalty_was_counted_and_the_total_against_the_bust_limit() -> None:
    model = started_model()
    end_deal(model, 6, {0: 21, 1: 0, 2: 100, 3: 1})
    text = render.plain(render.join_lines(render_end.deal_end_lines(model, EN, 100)))
    assert "Ada: A♠ K♠ → 21  total 21/101" in text
    assert "Bea: went out → 0" in text
    assert "Cleo: 5♦ 9♣ → 100 (not opened: 100 flat)  total 100/101" in text
    assert "Dino: A♥ → 1 (lone ace: 1)" in text
    assert "Enter (or 'ready')" in text and "next deal in 20 s" in text


def test_after_a_chiusura_in_mano_the_doubling_is_named_and_a_bust_is_shown() -> None:
    model = started_model()
    end_deal(model, 6, {0: 120, 1: 0, 2: 100, 3: 2}, in_hand=True, out=frozenset({0}))
    text = render.plain(render.join_lines(render_end.deal_end_lines(model, IT, 100)))
    assert "Bea: chiude in mano → 0" in text
    assert "Ada: A♠ K♠ → 42 (×2: chiusura in mano)  totale 120/101 sballa" in text
    assert "Dino: A♥ → 2 (asso da solo: 1, ×2 chiusura in mano)" in text
    # R9.5: the flat 100 is not doubled, and the panel says why it is 100.
    assert "Cleo: 5♦ 9♣ → 100 (non ha aperto: 100)" in text


def test_the_score_sheet_has_a_row_per_deal_and_a_column_per_player() -> None:
    model = started_model()
    end_deal(model, 6, {0: 21, 1: 0, 2: 100, 3: 1})
    end_deal(model, 8, {0: 21, 1: 30, 2: 100, 3: 1}, closer=0, deal_no=2)
    lines = [render.plain(line) for line in render_end.score_sheet_lines(model, IT, 76)]
    assert lines[0].split() == ["Sm.", "Ada", "Bea", "Cleo", "Dino"]
    assert lines[1].split() == ["1", "+21", "21", "✔", "0", "+100", "100", "+1", "1"]
    assert lines[2].split()[:3] == ["2", "✔", "21"]
    assert lines[3].split() == ["Tot.", "21", "30", "100", "1"]
    assert "si sballa a 101" in lines[4]
    assert all(len(line) <= 76 for line in lines)


def test_f2_shows_the_score_sheet_at_80x24_and_100x32() -> None:
    for size in ([24, 80], [32, 100]):
        model = started_model()
        end_deal(model, 6, {0: 21, 1: 0, 2: 100, 3: 1})
        lines = screen_text(model, size, keys="\x1bOQ", lang="it")  # F2
        text = "\n".join(lines)
        assert "Foglio dei punti" in text
        row = next(line for line in lines if "+21" in line)
        assert "+100" in row and "+1" in row
        assert "Esc o F2 chiude il foglio." in text


def test_the_end_of_deal_panel_fits_80x24() -> None:
    model = started_model()
    end_deal(model, 6, {0: 21, 1: 0, 2: 100, 3: 1})
    text = "\n".join(screen_text(model, [24, 80], lang="it"))
    assert "Fine della smazzata 1" in text
    assert "Cleo: 5♦ 9♣ → 100 (non ha aperto: 100)  totale 100/101" in text
    assert "prossima smazzata fra" in text


def test_the_match_end_shows_the_standings() -> None:
    model = started_model()
    end_deal(model, 6, {0: 21, 1: 0, 2: 120, 3: 1}, pause_ms=0, out=frozenset({2}))
    update = table_pb2.MatchUpdate(match_over=True, winners=[1])
    for seat, total in {0: 21, 1: 0, 2: 120, 3: 1}.items():
        update.scores.add(seat=seat, total=total, out=seat == 2)
    model.apply(table_pb2.TableEvent(seq=20, match_update=update))
    text = render.plain(render.join_lines(render_end.deal_end_lines(model, EN, 100)))
    assert "Match over: Bea wins!" in text
    standings = [line for line in text.splitlines() if line[:2] in ("1.", "2.", "3.", "4.")]
    assert [line.split()[1] for line in standings] == ["Bea", "Dino", "Ada", "Cleo"]
    assert len(model.score_sheet.rows) == 1  # the second update is of the same deal


def test_a_seat_saying_ready_is_not_logged_as_a_score_change() -> None:
    model = started_model()
    end_deal(model, 6, {0: 21, 1: 0, 2: 100, 3: 1})
    logged = len(model.log)
    update = table_pb2.MatchUpdate()
    for seat, total in {0: 21, 1: 0, 2: 100, 3: 1}.items():
        update.scores.add(seat=seat, total=total)
    update.between_deals.next_deal_within_ms = 15_000
    update.between_deals.waiting_for_seats.extend([0])
    update.between_deals.ready_seats.extend([0])
    model.apply(table_pb2.TableEvent(seq=8, match_update=update))
    assert len(model.log) == logged
    assert model.between_deals is not None and model.between_deals.ready == (0,)
    text = render.plain(render.join_lines(render_end.deal_end_lines(model, EN, 100)))
    assert "Next deal in" in text


def test_a_full_hand_puts_its_cards_below_so_the_figures_are_never_cut() -> None:
    model = started_model()
    ended = deal_pb2.DealEnded(outcome=deal_pb2.DEAL_OUTCOME_WENT_OUT, closer_seat=1)
    ended.hands.add(seat=0, cards=cards("9D 10C 8C 3S 4S 10C JC AS QS KD AC 10S 9S"), penalty=100)
    ended.hands.add(seat=1, cards=[], opened=True, penalty=0)
    model.apply(deal_event(6, ended=ended))
    lines = [render.plain(x) for x in render_end.deal_end_lines(model, IT, 80)]
    assert "Ada → 100 (non ha aperto: 100)  totale 0/101" in lines
    assert "   9♦ K♦ A♣ 8♣ 10♣ 10♣ J♣ A♠ 3♠ 4♠ 9♠ 10♠ Q♠" in lines  # sorted, as in hand
    assert all(len(line) <= 80 for line in lines)


def ended_match() -> TableModel:
    model = started_model()
    end_deal(model, 6, {0: 21, 1: 0, 2: 120, 3: 1}, pause_ms=0, out=frozenset({2}))
    over = table_pb2.MatchUpdate(match_over=True, winners=[1])
    model.apply(table_pb2.TableEvent(seq=20, match_update=over))
    return model


@pytest.mark.parametrize(
    ("lang", "keys", "offer"),
    [
        ("it", "\x1b[15~", "F5 (o «nuova») altra partita, stessi posti"),  # F5
        ("en", "\x1b[15~", "F5 (or 'new') another match, same seats"),
        ("it", "nuova\r", ""),
        ("en", "new\r", ""),
        ("it", "new\r", ""),  # the other language's word too, as every command
    ],
)
def test_at_the_match_end_another_match_is_the_f5_key_or_the_command(
    lang: str, keys: str, offer: str
) -> None:
    """The key the end of the match names, or the command typed whole: one rematch asked,
    and no letter of the typed command taken by a key."""
    model = ended_match()
    asked: list[object] = []
    screens: list[TableScreen] = []

    def watch(screen: TableScreen) -> None:
        screen._send = asked.append  # type: ignore[method-assign]
        screens.append(screen)

    lines = screen_text(model, [24, 80], keys=keys, lang=lang, act=watch)
    assert offer in "\n".join(lines)
    assert len(asked) == 1  # the rematch is asked of the host (TableService.Rematch)
    notice = screens[0].session.notice
    assert notice is None or notice.kind is not NoticeKind.ERROR, notice


def test_no_key_of_the_command_line_is_a_letter_a_typed_command_begins_with() -> None:
    """A printable key bound where the command line has the focus would take the first letter
    of a word typed there ('n' of 'nuova'): the table's own keys are never printable; the
    hand panel's single letters act only where the hand has the focus."""
    screen = TableScreen(IT, None, model=ended_match())
    for binding in keys.table_bindings(screen).bindings:
        first = binding.keys[0]
        assert not (isinstance(first, str) and len(first) == 1 and first.isprintable()), (
            binding.keys,
            binding.handler.__name__,
        )


def test_the_score_sheet_opens_by_itself_when_the_match_ends() -> None:
    model = started_model()
    screen = TableScreen(IT, None, model=model)
    end_deal(model, 6, {0: 21, 1: 0, 2: 120, 3: 1}, pause_ms=0)
    assert not screen.session.show_scores
    over = table_pb2.MatchUpdate(match_over=True, winners=[1])
    screen.on_event(table_pb2.TableEvent(seq=20, match_update=over))
    assert screen.session.show_scores


def test_a_snapshot_taken_in_the_pause_shows_the_end_of_the_deal() -> None:
    from test_client_model import deal_start_events, waiting_view

    from client.model import Phase

    view = waiting_view()
    for event in deal_start_events():
        view.deal_events.append(event.deal.public_event)
    ended = deal_pb2.DealEnded(outcome=deal_pb2.DEAL_OUTCOME_WENT_OUT, closer_seat=1)
    ended.hands.add(seat=0, cards=cards("AS KS"), opened=True, penalty=21)
    ended.hands.add(seat=1, cards=[], opened=True, penalty=0)
    end = deal_pb2.DealEvent(table_id="t-1", deal_no=1, ended=ended)
    view.deal_events.append(end.SerializeToString())
    view.deal_no, view.dealer_seat = 1, 3
    view.between_deals.next_deal_within_ms = 12_000
    view.between_deals.waiting_for_seats.append(0)
    model = TableModel()
    model.apply(table_pb2.TableEvent(seq=30, snapshot=view))
    assert model.phase is Phase.DEAL_OVER and model.result is not None
    text = render.plain(render.join_lines(render_end.deal_end_lines(model, EN, 100)))
    assert "Ada: A♠ K♠ → 21" in text and "next deal in 12 s" in text


def test_a_void_deal_is_explained_in_the_screens_language() -> None:
    model = started_model()
    reason = "R10.1: the stock ran out and the discard pile has no card to rebuild it"
    ended = deal_pb2.DealEnded(outcome=deal_pb2.DEAL_OUTCOME_VOID, void_reason=reason)
    model.apply(deal_event(6, ended=ended))
    italian = render.plain(render.join_lines(render_end.deal_end_lines(model, IT, 100)))
    assert "il tallone è finito e il pozzo non basta a rifarlo (R10.1)" in italian
    assert "the stock ran out" not in italian
    english = render.plain(render.join_lines(render_end.deal_end_lines(model, EN, 100)))
    assert reason in english


def ended_with(model: TableModel, ada: int, dino: int, cleo: int) -> str:
    ended = deal_pb2.DealEnded(outcome=deal_pb2.DEAL_OUTCOME_WENT_OUT, closer_seat=1)
    ended.hands.add(seat=0, cards=cards("AS KS"), opened=True, penalty=ada)
    ended.hands.add(seat=1, cards=[], opened=True, penalty=0)
    ended.hands.add(seat=2, cards=cards("5D 9C"), opened=False, penalty=cleo)
    ended.hands.add(seat=3, cards=cards("AH"), opened=True, penalty=dino)
    model.apply(deal_event(6, ended=ended))
    return render.plain(render.join_lines(render_end.deal_end_lines(model, EN, 100)))


def test_the_ace_note_follows_the_hosts_count_of_the_ace_r9_4() -> None:
    # lone_ace=never (semplice): the lone ace cost 11, and no note claims it cost 1.
    model = started_model()
    model.ruleset.lone_ace = ruleset_pb2.LONE_ACE_NEVER
    text = ended_with(model, ada=21, dino=11, cleo=100)
    assert "Dino: A♥ → 11" in text and "ace" not in text
    # lone_ace=single: the one ace of a hand holding exactly one cost 1, and is said so.
    model = started_model()
    model.ruleset.lone_ace = ruleset_pb2.LONE_ACE_SINGLE
    text = ended_with(model, ada=11, dino=1, cleo=100)
    assert "Ada: A♠ K♠ → 11 (the hand's only ace: 1)" in text
    assert "Dino: A♥ → 1 (lone ace: 1)" in text


def test_under_unopened_penalty_hand_no_note_claims_a_flat_100_r9_5() -> None:
    model = started_model()
    model.ruleset.unopened_penalty = ruleset_pb2.UNOPENED_PENALTY_HAND
    text = ended_with(model, ada=21, dino=1, cleo=14)
    assert "Cleo: 5♦ 9♣ → 14" in text and "100 flat" not in text


@pytest.mark.parametrize("lang", ["it", "en"])
@pytest.mark.parametrize("check", CHECKS)
def test_a_failed_check_is_said_in_the_players_words_within_80_columns(
    lang: str, check: str
) -> None:
    """Which check failed, in the screen's language, on one status line of 80 columns (the
    English detail of the failure is in the client's log)."""
    model = started_model()
    detail = "FAILED mix at event 2 (reveals): seat 1's own seed is not in the mix"
    model.deals[1].verification = Verification(False, detail, check=check)
    line = "".join(text for _, text, *_ in render.fair_deal_fragment(model, Text(lang)))
    assert detail not in line and "own seed" not in line
    assert len(line) <= 80, line
    assert line.startswith(Text(lang)("fd_failed", deal=1, reason="").split("—")[0])


def test_a_seat_the_host_committed_for_is_verified_without_its_own_seed() -> None:
    model = started_model()
    model.deals[1].verification = Verification(True, own_by_host=True)
    line = "".join(text for _, text, *_ in render.fair_deal_fragment(model, IT))
    assert line == IT("fd_verified_host_played", deal=1)
    assert "il tuo segreto è nel mescolamento" not in line


def test_a_seat_that_left_a_private_match_is_shown_as_gone_not_busted_r10_3() -> None:
    """The match's standing says a seat left (R10.3, ``SeatScore.gone``): the log, the seat's
    line and the end panel say so in its words, not as a bust."""
    model = started_model()
    update = table_pb2.MatchUpdate()
    update.scores.add(seat=0, total=21)
    update.scores.add(seat=1, total=0)
    update.scores.add(seat=2, total=30, out=True, gone=True)
    update.scores.add(seat=3, total=101, out=True)
    model.apply(table_pb2.TableEvent(seq=6, match_update=update))
    keys = [entry.key for entry in model.log]
    assert keys.count("log_gone") == 1 and keys.count("log_busted") == 1
    it = [render.plain(line) for line in render.player_lines(model, IT, 80)]
    assert "uscito dalla partita" in next(line for line in it if "Cleo" in line)
    assert "sballa" in next(line for line in it if "Dino" in line)
    log = [render.plain(line) for line in render.log_lines(model, EN, 100, 20)]
    assert any(
        "Cleo leaves the match: the private deal could not go on without them (R10.3)." in line
        for line in log
    )


def test_the_deal_that_put_this_player_out_stays_on_screen_until_read_r11() -> None:
    """A seat out of the match (busted, R11) is waited for by nobody: the next deal starts at
    once among the others. Its player still reads the deal that put them out, until Enter."""
    model = started_model()
    end_deal(model, 6, {0: 121, 1: 0, 2: 100, 3: 1}, pause_ms=0, out=frozenset({0}))
    announced = deal_pb2.DealAnnounced(
        dealer_seat=0, cutter_seat=3, seats_in_play=[1, 2, 3], deck_size=108
    )
    model.apply(deal_event(8, deal_no=2, announced=announced))
    at_once = "\n".join(screen_text(model, [24, 80]))
    assert "End of deal 1" in at_once and "total 121/101" in at_once, at_once
    assert "You are out of the match" in at_once, at_once
    read = "\n".join(screen_text(model, [24, 80], keys="\r"))
    assert "End of deal 1" not in read, read
    assert model.shown_result is None
    italian = started_model()
    end_deal(italian, 6, {0: 121, 1: 0, 2: 100, 3: 1}, pause_ms=0, out=frozenset({0}))
    italian.apply(deal_event(8, deal_no=2, announced=announced))
    assert "Sei fuori dalla partita" in "\n".join(screen_text(italian, [24, 80], lang="it"))


def test_a_player_still_in_sees_the_next_deal_when_it_starts() -> None:
    model = started_model()
    end_deal(model, 6, {0: 21, 1: 0, 2: 121, 3: 1}, pause_ms=0, out=frozenset({2}))
    announced = deal_pb2.DealAnnounced(
        dealer_seat=0, cutter_seat=3, seats_in_play=[0, 1, 3], deck_size=108
    )
    model.apply(deal_event(8, deal_no=2, announced=announced))
    assert model.shown_result is None
    assert "End of deal 1" not in "\n".join(screen_text(model, [24, 80]))


def test_a_player_who_buys_back_in_sees_the_next_deal_r11_3() -> None:
    model = started_model()
    end_deal(model, 6, {0: 121, 1: 0, 2: 100, 3: 1}, out=frozenset({0}))
    offered = table_pb2.MatchUpdate()
    for seat, total in {0: 121, 1: 0, 2: 100, 3: 1}.items():
        offered.scores.add(seat=seat, total=total, out=seat == 0)
    offered.rientro_offers.add(seat=0, fee=10, answer_within_ms=20_000)
    model.apply(table_pb2.TableEvent(seq=8, match_update=offered))
    back = table_pb2.MatchUpdate()
    for seat, total in {0: 101, 1: 0, 2: 100, 3: 1}.items():
        back.scores.add(seat=seat, total=total, rientri=1 if seat == 0 else 0)
    model.apply(table_pb2.TableEvent(seq=9, match_update=back))
    announced = deal_pb2.DealAnnounced(
        dealer_seat=0, cutter_seat=3, seats_in_play=[0, 1, 2, 3], deck_size=108
    )
    model.apply(deal_event(10, deal_no=2, announced=announced))
    assert model.shown_result is None
