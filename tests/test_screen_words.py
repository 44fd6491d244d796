"""The end-to-end tests' screen checks find what they look for: rows cut at the edge, English."""

from __future__ import annotations

from screen_words import cut_rows, english_on

FINGERPRINT = "8746-8336-897D-85B7-6B73-4013-938C-1A2B"
NAMES = ["Ada", "Ben", "Serata", FINGERPRINT]


def test_a_row_ending_mid_word_at_the_edge_is_cut() -> None:
    rows = [
        "▶ Ada                    13 cards  not opened  0 won     ⏱ 12 s ● ? (reconnectin",
        " Tables on 127.0.0.1:4040   host 4062-3973-A629-95F8-4746-E4BF-9782-744F (new: r",
        "deal 1: your seed is in — verified ✔  ·  host 8746-8336-897D-85B7-6B73-4013-938C",
    ]
    for row in rows:
        assert len(row) == 80
        assert cut_rows(row, "en", 80, NAMES) == [row]


def test_an_italian_row_ending_mid_word_at_the_edge_is_cut() -> None:
    row = "smazzata 1: il tuo segreto è nel mescolamento — verificata ✔  ·  host 8746-8336-"
    assert len(row) == 80
    assert cut_rows(row, "it", 80, NAMES) == [row]


def test_rows_that_end_whole_are_not_cut() -> None:
    screen = "\n".join(
        [
            "  Ada (tu)               0 carte   non aperto  0 vinte   ● connesso",
            "│Sm.                Ada             Ben            Gigi            Lele        │",
            "┌─────────────────────────────| Foglio dei punti |─────────────────────────────┐",
            "─" * 80,
            "Lele: 4♦ Q♣ A♠ Q♥ 2♣ 4♥ 3♠ A♣ 7♦ 3♠ 9♦ K♦ 8♠ → 100 (non ha aperto: 100)  0 vinte",
        ]
    )
    assert cut_rows(screen, "it", 80, NAMES) == []
    # A sentence that fills the row exactly, ending on a whole word of the catalogue.
    whole = f"host {FINGERPRINT} (nuovo: ricordato)  ·  Ada connesso"
    assert len(whole) == 80 and cut_rows(whole, "it", 80, NAMES) == []


def test_a_box_row_whose_text_runs_into_its_border_is_cut() -> None:
    row = "│✔ ha chiuso e vince la smazzata · Tot. = smazzate vinte, e anche le altre smaz│"
    assert len(row) == 80
    assert cut_rows(row, "it", 80, NAMES) == [row]


def test_english_words_on_an_italian_screen_are_found_and_names_are_not() -> None:
    screen = "La tua mano (13, per seme)\nWaiting for the next deal.\nBen è connesso · Serata"
    assert english_on(screen, NAMES) == ["Waiting", "next", "deal"]
    italian = "Tocca a te: pesca (draw/pesca) o prendi dal pozzo (take/prendi)."
    assert english_on(italian, NAMES) == []
    path = "registro salvato in /tmp/x/Ada/records/deal-0001.json"
    assert english_on(path, NAMES) == []
