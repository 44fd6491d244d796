"""``make play`` in Italian at 80x24 in tmux: two whole deals, their end, the score sheet, help.

The player draws and discards every turn (typed commands, Italian card letters);
the bots play fast (``--bot-delay``). Checked on the screen as a player reads it:
the help (F1), an Italian refusal from the host, each deal's end panel with
penalties against the bust limit, the pause's prompt, the score sheet (F2).
Skipped only when tmux is not installed.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_e2e_play import Tmux, start_make_play

pytestmark = [pytest.mark.timeout(600), pytest.mark.long(22)]

ITALIAN_LETTERS = {"♥": "C", "♦": "Q", "♣": "F", "♠": "P"}
CARD = re.compile(r"^(10|[2-9AJQK])([♥♦♣♠])$|^JK$")


@pytest.fixture
def tmux_it(tmp_path: Path) -> Iterator[Tmux]:
    args = "--name Ada --lang it --bot-delay 0.05"
    with start_make_play(tmp_path / "data", args, 80, 24) as session:
        yield session


def hand_cards(screen: str) -> list[str]:
    """The hand as shown under "La tua mano", in the order shown (``7♥``, ``JK`` …)."""
    lines = screen.splitlines()
    start = next((i for i, line in enumerate(lines) if "La tua mano (" in line), None)
    if start is None:
        return []
    cards: list[str] = []
    for line in lines[start + 1 : start + 4]:
        words = line.replace("[", " ").replace("]", " ").split()
        if not words or not all(CARD.match(w) for w in words):
            break
        cards += words
    return cards


def hand_size(screen: str) -> int | None:
    found = re.search(r"La tua mano \((\d+), per (seme|valore)\)", screen)
    return int(found.group(1)) if found else None


def typed(card: str) -> str:
    return "JK" if card == "JK" else card[:-1] + ITALIAN_LETTERS[card[-1]]


def refused(screen: str, card: str) -> bool:
    return "Rifiutata" in screen and card in screen.split("Rifiutata", 1)[1]


def play_one_turn(tmux: Tmux, first: bool) -> None:
    """Draw from the stock and discard the first card the host accepts."""
    tmux.command("pesca")
    screen = tmux.wait(lambda s: hand_size(s) == 14, 30, "the drawn card")
    if first:
        # A second draw: the host refuses it, in Italian (google.rpc.LocalizedMessage).
        tmux.command("prendi")
        screen = tmux.wait(lambda s: "Rifiutata" in s, 20, "the refusal of a second draw")
        status = " ".join(screen.split())
        assert "Rifiutata — R3: hai già pescato in questo turno: gioca e scarta" in status
    for card in hand_cards(screen):
        if card == "JK":
            continue
        tmux.command(f"scarta {typed(card)}")
        screen = tmux.wait(
            lambda s, card=card: hand_size(s) != 14 or refused(s, card),
            30,
            f"the answer to discarding {card}",
        )
        if hand_size(screen) != 14:
            return
    raise AssertionError(f"no discard was accepted; the screen:\n{screen}")


MATCH_OVER = "Partita finita"
OUT = "Sei fuori dalla partita"


def test_two_deals_in_italian_at_80x24(tmux_it: Tmux) -> None:
    tmux = tmux_it
    screen = tmux.wait(lambda s: hand_size(s) in (13, 14) or "Tocca a" in s, 120, "the deal")
    tmux.keys("F1")
    screen = tmux.wait(lambda s: "Esc o F1 chiude l'aiuto." in s, 10, "the help")
    for line in ("pesca (draw)", "scarta RP (discard)", "pronto / punti / torno", "F2 punti"):
        assert line in screen, line
    assert "C♥ Q♦ F♣ P♠; F fante, D donna, R re" in screen
    tmux.keys("Escape")
    tmux.wait(lambda s: "Esc o F1 chiude" not in s, 10, "the help to close")

    first_turn = True
    for deal in (1, 2):
        end = f"Fine della smazzata {deal}"
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            screen = tmux.wait(
                lambda s, end=end: "Tocca a te: pesca" in s or end in s or MATCH_OVER in s,
                120,
                f"deal {deal}",
            )
            if end in screen or MATCH_OVER in screen:
                break
            play_one_turn(tmux, first_turn)
            first_turn = False
        screen = tmux.wait(lambda s: "Invio (o «pronto»)" in s or "Si aspetta" in s
                           or OUT in s or MATCH_OVER in s, 20, "the pause's prompt")  # fmt: skip
        if MATCH_OVER in screen:
            # Every seat but one went over 101 with this deal (a deal left unopened costs
            # 100, R9.5): the match ends here, its score sheet on the screen.
            assert "Foglio dei punti" in screen and "si sballa a 101" in screen, screen
            break
        # The end-of-deal panel: every hand, its penalty, the total against the bust limit.
        assert end in screen
        assert re.search(r"→ \d+", screen) and re.search(r"totale \d+/101", screen)
        assert "chiude" in screen  # who went out (or "chiude in mano")
        # Each seat's figures are whole on the screen, however many cards it held.
        assert len(re.findall(r"totale \d+/101", screen)) == 4, screen
        tmux.keys("F2")
        sheet = tmux.wait(lambda s: "Foglio dei punti" in s, 10, "the score sheet")
        # A deal's row of the sheet, inside its frame: a line of the panel under it may begin
        # with a number too (the last play wrapped: "5 · 4♣ al posto del jolly …").
        lines = sheet.splitlines()
        top = next(k for k, line in enumerate(lines) if "Foglio dei punti" in line)
        bottom = next(k for k in range(top, len(lines)) if lines[k].lstrip().startswith("└"))
        rows = [line for line in lines[top:bottom] if re.match(r"^\s*│\s*\d+\s", line)]
        # Out of the match (R11), the player reads on while the others play the next deals.
        assert len(rows) == deal or (OUT in screen and len(rows) >= deal), sheet
        assert "Ada" in sheet and "si sballa a 101" in sheet
        tmux.keys("Escape")
        # Out of the match, the player may see it end meanwhile (the others play on without
        # waiting for a ready): its end opens the score sheet again, for good.
        screen = tmux.wait(lambda s: "Foglio dei punti" not in s or MATCH_OVER in s, 10,
                           "the sheet to close")  # fmt: skip
        if MATCH_OVER in screen:
            break
        tmux.keys("Enter")  # ready for the next deal
        tmux.wait(lambda s, end=end: end not in s, 40, "the next deal")

    assert not first_turn, "the player never had a turn"
    tmux.keys("C-q")  # mid-match a player still in is asked to confirm
    tmux.wait(
        lambda s: not tmux.alive() or "La partita è in corso" in " ".join(s.split()),
        30,
        "quit or confirm",
    )
    if tmux.alive():
        tmux.keys("C-q")
    deadline = time.monotonic() + 60  # the client, make play and its host end (a busy machine)
    while tmux.alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not tmux.alive(), "quitting the client ends make play and its host"
