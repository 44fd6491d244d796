"""The host benchmark's scripted seats make only legal moves, to a match's end.

``bench/seat_driver.py`` keeps its hand and the turn from the events alone and
draws and discards without a view; any refusal ends it with ``SeatRefused``. With
one deck and two idle stretches a deal, a match here goes through the fair deal
of each deal, a stock rebuilt (R10.1: the seat waits for it before drawing), a
deal voided at the second idle stock-out (R10.2) and the match's end after three
void deals (R11.5).
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import HostClient

from scala40_net.pb import ruleset_pb2


def seat_driver(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """``bench/seat_driver.py``, loaded from its file (the bench is no package), in
    ``sys.modules`` for the test only."""
    path = Path(__file__).resolve().parent.parent / "bench" / "seat_driver.py"
    spec = importlib.util.spec_from_file_location("bench_seat_driver", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


async def test_scripted_seats_play_void_deals_to_the_match_end(
    served: HostClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R10.1, R10.2, R11.5: every draw and discard accepted, every play's event at all three
    subscribers, and the match over after its three void deals."""
    driver = seat_driver(monkeypatch)
    options = ruleset_pb2.RulesetOptions(decks=1, max_players=2, stall_rebuilds=2)
    table = driver.ScriptedTable(
        served.channel, 0.0, driver.Phase(at=0.0), ruleset_pb2.Ruleset(options=options)
    )
    await asyncio.wait_for(table.play_match(asyncio.Event()), 120)
    assert table.matches == 1 and table.first_play.is_set()
    # 27 cards in the stock, then 26 after the rebuild: about 53 turns a deal, three deals.
    assert table.plays >= 3 * 50, table.plays
    assert len(table.samples) >= table.plays - 2  # the last plays' events may not have come
