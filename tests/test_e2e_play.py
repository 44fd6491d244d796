"""``make play`` in a real terminal (tmux): a hand of 13 cards, a move, the bots answer, quit.

Skipped only when tmux is not installed. Everything runs on this machine:
the game's host listens on 127.0.0.1 and a free port inside the client.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.timeout(150)


class Tmux:
    """One tmux session on a tmux server of its own (its socket named after it), so that
    tests running at the same time never share a server, its environment or its options."""

    def __init__(self, name: str) -> None:
        self.name = name

    def argv(self, *args: str) -> list[str]:
        """A tmux command line for this session's own server (no user configuration read)."""
        return ["tmux", "-f", "/dev/null", "-L", self.name, *args]

    def socket(self) -> Path:
        """Where tmux keeps this server's socket (``-L``: in its folder for this user)."""
        return Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / self.name

    def run(self, *args: str) -> str:
        done = subprocess.run(
            self.argv(*args), capture_output=True, text=True, timeout=10, check=False
        )
        return done.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.name, *keys)

    def command(self, text: str) -> None:
        """Type ``text`` on the command line as it is (no key names), then Enter."""
        self.run("send-keys", "-t", self.name, "-l", text)
        self.keys("Enter")

    def alive(self) -> bool:
        return (
            subprocess.run(
                self.argv("has-session", "-t", self.name), capture_output=True, check=False
            ).returncode
            == 0
        )

    def wait(self, condition: Callable[[str], bool], seconds: float, what: str) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            text = self.screen()
            if condition(text):
                return text
            if "You cut the deck" in text or "Tagli tu il mazzo" in text:
                self.keys("Enter")  # a random cut
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}; the screen:\n{self.screen()}")


@contextlib.contextmanager
def start_session(
    env: dict[str, str], command: list[str], columns: int, rows: int
) -> Iterator[Tmux]:
    """``command`` (its words quoted for the shell) with ``env`` in a new tmux session of
    ``columns`` x ``rows``; the session is killed at the end if still there."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    session = Tmux(f"scala40-e2e-{uuid.uuid4().hex[:8]}")
    line = " ".join(
        [f"{k}={shlex.quote(v)}" for k, v in env.items()] + [shlex.quote(w) for w in command]
    )
    size = ["-x", str(columns), "-y", str(rows)]
    subprocess.run(
        session.argv("new-session", "-d", *size, "-s", session.name, line),
        check=True,
        timeout=10,
        env={**os.environ, **env},
    )
    try:
        yield session
    finally:
        if session.alive():
            session.run("kill-session", "-t", session.name)
        session.socket().unlink(missing_ok=True)  # the server has gone; its socket file stays


@contextlib.contextmanager
def start_make_play(data: Path, args: str, columns: int, rows: int) -> Iterator[Tmux]:
    """``make play ARGS="…"`` in a new tmux session of ``columns`` x ``rows``."""
    env = {"SCALA40_DATA_DIR": str(data), "LANG": "en_US.UTF-8", "TERM": "xterm"}
    command = ["make", "--no-print-directory", "-C", str(ROOT), "play", f"ARGS={args}"]
    with start_session(env, command, columns, rows) as session:
        yield session


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    with start_make_play(tmp_path / "data", "--name Ada --lang en", 100, 30) as session:
        yield session


def hand_size(screen: str) -> int | None:
    found = re.search(r"Your hand \((\d+), by (suit|rank)\)", screen)
    return int(found.group(1)) if found else None


def card_under_cursor(screen: str) -> str:
    """The hand card the cursor is on (shown in brackets), as the screen writes it: 6♦."""
    found = re.search(r"\[(\S+)\]", screen.split("Your hand", 1)[-1])
    assert found, f"no cursor in the hand; the screen:\n{screen}"
    return found.group(1)


def refused(screen: str, card: str) -> bool:
    """A refusal naming ``card`` as the screen shows it (refusals may wrap to three lines)."""
    status = " ".join(screen.split("Refused", 1)[1].split()) if "Refused" in screen else ""
    return card in status


def test_make_play_deals_13_cards_a_move_is_made_and_the_bots_answer(tmux: Tmux) -> None:
    screen = tmux.wait(lambda s: hand_size(s) in (13, 14), 90, "the deal")
    assert "Stock (tallone):" in screen and "Discard pile (pozzo):" in screen
    tmux.wait(lambda s: "Your turn: draw" in s, 60, "this player's turn")
    assert hand_size(tmux.screen()) == 13
    tmux.keys("draw", "Enter")
    tmux.wait(lambda s: hand_size(s) == 14, 20, "the drawn card")

    # Discard from the hand panel: Tab to the hand, 'd' on a card; if the host refuses that
    # card (R8.2 …), the refusal is on the status line and the next card is tried.
    # Each refusal names the card it refused, so an answer is never mistaken for the last one.
    tmux.keys("Tab")
    tmux.wait(lambda s: re.search(r"\[\S+\]", s.split("Your hand", 1)[-1]) is not None, 10,
              "the cursor in the hand")  # fmt: skip
    for _ in range(14):
        card = card_under_cursor(tmux.screen())
        tmux.keys("d")
        screen = tmux.wait(
            lambda s, card=card: hand_size(s) == 13 or refused(s, card),
            20,
            f"the answer to discarding {card}",
        )
        if hand_size(screen) == 13:
            break
        tmux.keys("Right")
        tmux.wait(lambda s, card=card: card_under_cursor(s) != card, 10, "the cursor to move")
    assert hand_size(tmux.screen()) == 13
    # The bots answer: they play in turn until it is this player's turn again.
    bot_move = re.compile(r"Bot \d+ (draws|takes|discards|lays down|attaches|swaps|goes out)")
    screen = tmux.wait(
        lambda s: "Your turn: draw" in s and bot_move.search(s) is not None,
        60,
        "the bots' moves",
    )
    assert bot_move.search(screen)

    tmux.keys("C-q")  # mid-match a player still in is asked to confirm
    tmux.wait(
        lambda s: not tmux.alive() or "The match is on" in " ".join(s.split()),
        30,
        "quit or confirm",
    )
    if tmux.alive():
        tmux.keys("C-q")
    deadline = time.monotonic() + 60  # the client, make play and its host end (a busy machine)
    while tmux.alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not tmux.alive(), "quitting the client ends make play and its host"
