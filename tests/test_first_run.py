"""The first run: what ``make play`` installs (the runtime dependencies alone, no development
extras) is enough to play a deal against bots and to verify its record.

A clean venv gets ``pip install .`` with no extras; its own ``scala40-play`` runs in a real
terminal (tmux) against a bot until the deal ends, and its own ``scala40-verify`` checks the
record the client saved. Skipped only when tmux is not installed. It installs packages from
the machine's pip configuration and plays a whole deal: a few minutes, within make test's.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_e2e_play import ROOT, Tmux, start_session

# One worker runs them all: the runtime venv is installed once for the module.
pytestmark = [pytest.mark.timeout(900), pytest.mark.xdist_group("first_run"), pytest.mark.long(35)]

ENGLISH_CARD = re.compile(r"^(10|[2-9AJQK])([♥♦♣♠])$")
END_OF_DEAL = "End of deal 1"


# What a clean checkout does not hold: left out of the copy the runtime venv installs from.
NOT_SOURCE = shutil.ignore_patterns(
    ".venv", ".git", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
    "node_modules",
)  # fmt: skip


@pytest.fixture(scope="module")
def runtime_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with the project installed as ``make play`` installs it: no extras.

    Installed once for the worker that runs this module (under xdist a module's fixture
    may be torn down and set up again between its tests), and from a copy of the checkout:
    pip builds a project in its own folder, and a test writes only under its tmp path."""
    place = tmp_path_factory.getbasetemp() / "runtime"
    venv, installed = place / "venv", place / "installed"
    if installed.exists():
        return venv
    shutil.rmtree(place, ignore_errors=True)  # a set-up cut short before
    source = place / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(source)]
    subprocess.run(pip, check=True, timeout=600)
    installed.touch()
    return venv


def test_the_runtime_install_holds_no_development_tool(runtime_venv: Path) -> None:
    python = str(runtime_venv / "bin" / "python")
    for tool in ("pytest", "hypothesis", "ruff", "mypy", "pyte", "babel", "grpc_tools"):
        found = subprocess.run([python, "-c", f"import {tool}"], capture_output=True, timeout=60)
        assert found.returncode != 0, f"{tool} is installed for playing"


def hand(screen: str) -> tuple[int | None, list[str]]:
    """The hand's size and its cards as the screen shows them (``7♥`` …)."""
    lines = screen.splitlines()
    at = next((i for i, line in enumerate(lines) if "Your hand (" in line), None)
    if at is None:
        return None, []
    size = re.search(r"Your hand \((\d+)", lines[at])
    cards = []
    for line in lines[at + 1 : at + 4]:
        words = line.replace("[", " ").replace("]", " ").split()
        if not words or not all(ENGLISH_CARD.match(w) or w == "JK" for w in words):
            break
        cards += words
    return (int(size.group(1)) if size else None), cards


def typed(card: str) -> str:
    """``7♥`` as typed in English: ``7H``."""
    return card[:-1] + {"♥": "H", "♦": "D", "♣": "C", "♠": "S"}[card[-1]]


def refusal(screen: str) -> str:
    """The last refusal the screen shows ('' for none)."""
    lines = [line for line in screen.splitlines() if line.startswith("Refused")]
    return lines[-1] if lines else ""


def play_a_turn(tmux: Tmux, refused: set[str]) -> bool:
    """Draw and discard the first card the host accepts; False once the deal has ended.

    ``refused`` holds the cards refused on earlier turns. They are tried last, and a card the
    refusal still on the screen names is tried after every other: the same card refused again
    writes the same sentence, which could not be told from the old one.
    """
    screen = tmux.wait(lambda s: "Your turn: draw" in s or END_OF_DEAL in s, 120, "a turn")
    if END_OF_DEAL in screen:
        return False
    tmux.command("draw")
    screen = tmux.wait(lambda s: hand(s)[0] == 14 or END_OF_DEAL in s, 30, "the drawn card")
    if END_OF_DEAL in screen:  # it ended as the turn came (R10.2: a stalled deal is void)
        return False
    cards = list(dict.fromkeys(c for c in hand(screen)[1] if c != "JK"))
    while cards:
        before = refusal(screen)
        cards.sort(key=lambda c, b=before: (f" {c} " in f" {b} ", c in refused))
        card = cards.pop(0)
        # The answer to this discard: the hand changed, or a refusal other than the last one.
        tmux.command(f"discard {typed(card)}")
        screen = tmux.wait(
            lambda s, b=before: hand(s)[0] != 14 or END_OF_DEAL in s or refusal(s) not in ("", b),
            30,
            f"the answer to discarding {card}",
        )
        if hand(screen)[0] != 14 or END_OF_DEAL in screen:
            return END_OF_DEAL not in screen
        refused.add(card)
    raise AssertionError(f"no discard was accepted; the screen:\n{screen}")


def test_the_runtime_install_plays_a_deal_against_a_bot_and_verifies_its_record(
    runtime_venv: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    play = runtime_venv / "bin" / "scala40-play"
    env = {"SCALA40_DATA_DIR": str(data), "LANG": "en_US.UTF-8", "TERM": "xterm"}
    command = [str(play), "--name", "Ada", "--lang", "en", "--bots", "1", "--bot-delay", "0"]
    with start_session(env, command, 100, 30) as tmux:
        refused: set[str] = set()
        for _ in range(200):
            if not play_a_turn(tmux, refused):
                break
        else:
            raise AssertionError("the deal did not end in 200 turns")
        tmux.wait(lambda s: bool(sorted(data.glob("records/*/deal-0001.json"))), 60, "the record")
    records = sorted(data.glob("records/*/deal-0001.json"))
    verify = runtime_venv / "bin" / "scala40-verify"
    checked = subprocess.run(
        [str(verify), str(records[0])], capture_output=True, text=True, timeout=120
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
