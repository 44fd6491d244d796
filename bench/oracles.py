"""What knowing hidden cards would be worth: bots that peek, against hard, on duplicate deals.

No level may peek (the expert plays from its seat's view); these bots do, to
bound what a better guess of the hidden cards could buy before anyone builds
it. Each deck is dealt twice heads-up, the two bots swapping seats
(``tune_expert.py``'s procedure), and the peeking bot is told the true deal
before each of its decisions:

- ``feed``: hard, never throwing a card the opponent's real hand would take
  and use this turn (unless every card would): perfect knowledge for not
  feeding the next player;
- ``feed-sampled``: the same rule on hands dealt from the seat's view
  (``sampling``), a card withheld when more than ``--limit`` of the samples
  would use it: what the view alone gives that rule;
- ``draws``: the expert, racing its candidates on the true deal (its own
  next stock cards, every other one, the opponent drawing the rest) instead
  of samples: perfect foresight of its own draws for the races.

    .venv/bin/python bench/oracles.py feed --decks 1000 --workers 2 --seeds o1
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from bench_bots import wilson

from scala40_net.actions import Play
from scala40_net.bots.arena import play_deal
from scala40_net.bots.base import Bot, after_taking_discard
from scala40_net.bots.expert import ExpertBot, Move
from scala40_net.bots.hard import HardBot
from scala40_net.bots.race import race
from scala40_net.bots.sampling import Inconsistent, sample_deal
from scala40_net.cards import face, is_joker
from scala40_net.deal import DealState, Phase, apply
from scala40_net.errors import RuleViolation
from scala40_net.rules import preset
from scala40_net.search import LayDown, has_play


def feeds_opponent(deal: DealState, seat: int, lay: LayDown, card: int) -> bool:
    """Would the next seat take ``card`` from the pile and use it (R3.2) on ``deal``?"""
    try:
        after, _ = apply(deal, seat, Play(lay.operations, card))
    except RuleViolation:
        return False
    if after.is_over:
        return False
    taken = after_taking_discard(after)
    return taken is not None and has_play(taken)


class Peeking:
    """The true deal, set by the loop before each of this bot's decisions."""

    truth: DealState


class FeedOracle(HardBot, Peeking):
    level = "feed"
    limit = 0.0
    samples = 0

    def deals(self, state: DealState) -> list[DealState]:
        return [self.truth]

    def ranked_discards(
        self, state: DealState, lay: LayDown, legal: list[int]
    ) -> tuple[list[int], list[int]]:
        ranked, weighed = super().ranked_discards(state, lay, legal)
        deals = self.deals(state)
        by_face = {face(c): c for c in ranked}
        risky_faces = {
            f
            for f, c in by_face.items()
            if sum(feeds_opponent(d, state.turn, lay, c) for d in deals) > self.limit * len(deals)
        }
        safe = [c for c in ranked if face(c) not in risky_faces]
        if not safe:
            return ranked, weighed
        kept = [c for c in weighed if c in safe]
        if not kept:
            kept = list({face(c): c for c in reversed(safe) if not is_joker(c)}.values())
            kept = sorted(kept, key=ranked.index)[: len(weighed)] or safe[:1]
        return safe + [c for c in ranked if c not in safe], kept


class SampledFeed(FeedOracle):
    level = "feed-sampled"
    limit = 0.3
    samples = 12

    def deals(self, state: DealState) -> list[DealState]:
        out = []
        for _ in range(self.samples):
            try:
                out.append(sample_deal(state, state.turn, self.memory, self.rng))
            except Inconsistent:
                out.append(sample_deal(state, state.turn, None, self.rng))
        return out


class DrawsOracle(ExpertBot, Peeking):
    level = "draws"

    def _weigh(self, state: DealState, moves: list[Move]) -> Move:  # type: ignore[override]
        # The others draw every other stock card: the seat's own come at the odd places
        # once it has drawn this turn, at the even ones before.
        start = 0 if state.phase is Phase.DRAW else 1
        deal = replace(self.truth, stock=self.truth.stock[start::2])
        worths = [race(deal, state.turn, m, self._policy, self.horizon)[0] for m in moves]
        return moves[max(range(len(moves)), key=lambda i: (worths[i], -i))]


ORACLES: dict[str, Callable[[random.Random], Bot]] = {
    "feed": FeedOracle,
    "feed-sampled": SampledFeed,
    "draws": DrawsOracle,
}


def one_deal(args: tuple[str, int, int, str]) -> bool | None:
    """Deck ``k`` with the oracle in seat ``swap``: whether it went out first (None: void)."""
    oracle, k, swap, seeds = args
    bots: dict[int, Bot] = {
        swap: ORACLES[oracle](random.Random(k * 4 + 2 * swap)),
        1 - swap: HardBot(random.Random(k * 4 + 1 + 2 * swap)),
    }

    def tell_truth(state: DealState) -> None:
        bot = bots[state.turn]
        if isinstance(bot, Peeking):
            bot.truth = state

    state = play_deal(bots, preset("classic", 2), k % 2, f"{seeds}-{k}", on_turn=tell_truth)
    assert state.result is not None
    closer = state.result.closer
    return None if closer is None else closer == swap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("oracle", choices=sorted(ORACLES))
    parser.add_argument("--decks", type=int, default=1000, help="decks, each dealt twice")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seeds", default="oracles", help="label the decks are derived from")
    options = parser.parse_args()
    jobs = [
        (options.oracle, k, swap, options.seeds) for k in range(options.decks) for swap in (0, 1)
    ]
    started = time.perf_counter()
    with ProcessPoolExecutor(options.workers) as pool:
        results = list(pool.map(one_deal, jobs, chunksize=8))
    wins = sum(r is True for r in results)
    decided = sum(r is not None for r in results)
    low, high = wilson(wins, decided)
    print(
        f"{options.oracle} vs hard (seeds {options.seeds!r}): {wins}/{decided} decided deals = "
        f"{wins / max(decided, 1):.1%} (95% Wilson {low:.1%}-{high:.1%}); "
        f"{len(results) - decided} void; {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
