"""How many turns a deal lasts between bots and seats that never open, by the engine alone.

The LAN evening (tests/test_e2e_evening.py) plays two people who draw from the stock and
discard their first card, beside two bots: how long its match runs is how long the bots
take to go out. Run ``.venv/bin/python bench/deal_lengths.py [LEVEL] [DEALS]`` (medium, 200):
the turns a deal, median, p90, p99 and the longest, over deals dealt from labelled seeds.
"""

from __future__ import annotations

import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))

from scala40_net.actions import DrawSource, Play
from scala40_net.bots import make_bot
from scala40_net.bots.arena import play_deal
from scala40_net.cards import is_joker, rank, suit
from scala40_net.deal import DealState, accepted_discards
from scala40_net.events import Event
from scala40_net.rules import Ruleset
from scala40_net.views import DealView, playable_state


class NeverOpens:
    """A seat as the evening's people play it: the stock, then the first card it may discard
    (never a joker while another card will do), in the order the screen shows the hand."""

    level = "never opens"

    def choose_draw(self, view: DealView) -> DrawSource:
        return DrawSource.STOCK

    def choose_play(self, view: DealView) -> Play | None:
        assert view.hand is not None
        hand = sorted(view.hand, key=lambda c: (is_joker(c), suit(c) or 0, rank(c)))
        allowed = set(accepted_discards(playable_state(view), (), hand))
        ordered = [c for c in hand if not is_joker(c)] + [c for c in hand if is_joker(c)]
        return Play((), next(c for c in ordered if c in allowed))

    def observe(self, event: Event) -> None:
        pass

    def buys_back(self, fee: int) -> bool:
        return False


def main() -> None:
    level = sys.argv[1] if len(sys.argv) > 1 else "medium"
    deals = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    turns: list[int] = []
    for n in range(deals):
        bots = {0: NeverOpens(), 1: NeverOpens(), 2: make_bot(level, random.Random(n)),
                3: make_bot(level, random.Random(n + 7))}  # fmt: skip
        moves = [0]  # a draw and a play each turn

        def count(state: DealState, moves: list[int] = moves) -> None:
            moves[0] += 1

        play_deal(bots, Ruleset(), dealer=n % 4, label=f"deal-length-{n}", on_turn=count)
        turns.append(moves[0] // 2)
    turns.sort()

    def at(q: float) -> int:
        return turns[min(len(turns) - 1, int(q * len(turns)))]

    print(f"{deals} deals, two {level} bots and two seats that never open: turns a deal "
          f"median {statistics.median(turns):g}, p90 {at(0.9)}, p99 {at(0.99)}, "
          f"longest {turns[-1]}")


if __name__ == "__main__":
    main()
