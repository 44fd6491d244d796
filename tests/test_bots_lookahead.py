"""Hard's look-ahead: it draws only from the cards hidden from it, and its odds are exact."""

from __future__ import annotations

import copy
import random

from scala40_net.actions import DrawSource
from scala40_net.bots.arena import play_deal
from scala40_net.bots.hard import HardBot
from scala40_net.bots.lookahead import Outlook
from scala40_net.bots.medium import table_after
from scala40_net.bots.memory import CardMemory
from scala40_net.bots.unknown import unknown_cards
from scala40_net.deal import DealState, Phase
from scala40_net.events import CardDrawn
from scala40_net.rules import Ruleset, preset
from scala40_net.scenario import position
from scala40_net.search import best_lay_down, best_play, can_open
from scala40_net.views import playable_state, view_state


def hard_decisions(deals: int, players: int = 2) -> list[tuple[DealState, CardMemory]]:
    """Deals of hard bots; the true state at each of their plays, and the playing bot's memory
    as it was then."""
    rules = preset("classic", players)
    found: list[tuple[DealState, CardMemory]] = []
    for k in range(deals):
        bots = {s: HardBot(random.Random(k * 7 + s)) for s in range(players)}

        def note(state: DealState, bots: dict[int, HardBot] = bots) -> None:
            if state.phase is Phase.PLAY:
                found.append((state, copy.deepcopy(bots[state.turn].memory)))

        play_deal(bots, rules, k % players, f"look-{k}", on_turn=note)
    return found


def test_unknown_cards_are_exactly_the_stock_and_the_other_hands_less_what_was_taken() -> None:
    checked = 0
    for state, memory in hard_decisions(6, players=3):
        seat = state.turn
        seen = playable_state(view_state(state, seat))
        unknown = set(unknown_cards(seen, seat, memory))
        others = {c for s in state.seats if s != seat for c in state.hand(s)}
        held = memory.held_by_others(seat)
        assert held <= others
        assert unknown == (set(state.stock) | others) - held
        checked += 1
    assert checked > 50


def test_held_cards_leave_memory_when_played_or_put_back() -> None:
    bot = HardBot(random.Random(0))
    bot.observe(CardDrawn(1, DrawSource.DISCARD, 20))
    bot.observe(CardDrawn(2, DrawSource.DISCARD, 30))
    assert bot.memory.held_by_others(0) == {20, 30}
    assert bot.memory.held_by_others(1) == {30}
    state = position(hands={0: "5C", 1: "3C 4C", 2: "3D"}, turn=0)
    unknown = unknown_cards(state, 0, bot.memory)
    assert 20 not in unknown and 30 not in unknown


def brute_opening_outs(hand: list[int], discard: int, unknown: list[int], rules: Ruleset) -> int:
    kept = list(hand)
    kept.remove(discard)
    return sum(can_open([*kept, card], rules) for card in unknown)


def brute_closing(
    hand: list[int], discard: int, unknown: list[int], state: DealState, rules: Ruleset
) -> tuple[int, int]:
    kept = list(hand)
    kept.remove(discard)
    outs = left_total = 0
    for card in unknown:
        found = best_lay_down([*kept, card], state.table, rules, opened=True)
        left = len(kept) + 1 if found is None else len(found.leftover)
        outs += left <= 1
        left_total += left
    return outs, -left_total


def test_outlook_counts_every_unknown_card_as_a_brute_force_does() -> None:
    rng = random.Random(3)
    decisions = hard_decisions(8)
    opened_cases = unopened_cases = 0
    for state, _ in rng.sample(decisions, 40):
        seat = state.turn
        lay = best_play(state)
        assert lay is not None
        hand = list(lay.leftover)
        discards = list(dict.fromkeys(c for c in hand if c != state.taken_discard))[:4]
        if len(discards) < 2:
            continue
        unknown = unknown_cards(state, seat)
        outlook = Outlook(unknown, state.ruleset)
        if state.has_opened(seat) or lay.operations:
            after = table_after(state, lay, discards[0])
            closing = outlook.closing(hand, discards, after)
            after_state = DealState(**{**state.__dict__, "table": after})
            for d in discards:
                assert closing[d] == brute_closing(hand, d, unknown, after_state, state.ruleset)
            opened_cases += 1
        else:
            outs = outlook.opening_outs(hand, discards)
            for d in discards:
                assert outs[d] == brute_opening_outs(hand, d, unknown, state.ruleset)
            unopened_cases += 1
    assert opened_cases >= 5 and unopened_cases >= 5
