"""The expert bot: legal over every preset, blind to hidden cards, its samples, its races."""

from __future__ import annotations

import copy
import random
from collections import Counter
from itertools import pairwise

import pytest

from scala40_net.actions import Action, Draw, DrawSource, Play
from scala40_net.bots import LEVELS, make_bot
from scala40_net.bots.arena import Dealing, decide, play_deal
from scala40_net.bots.deadline import SURVIVAL, bucket, survival
from scala40_net.bots.expert import ExpertBot
from scala40_net.bots.memory import CardMemory
from scala40_net.bots.race import REFUSED, RacePolicy, race, standing
from scala40_net.bots.sampling import Inconsistent, sample_deal
from scala40_net.cards import face
from scala40_net.deal import DealState, Phase, apply, start_deal
from scala40_net.events import Event
from scala40_net.rules import PRESETS, preset, preset_players
from scala40_net.scenario import position
from scala40_net.search import best_play
from scala40_net.views import playable_state, view_event, view_state
from tests.test_bots import Recorder, after_draw, check_uses, play_of

# A small budget keeps these tests quick; the play is the same code at any budget.
SMALL = 24


def small_expert(seed: int) -> ExpertBot:
    return ExpertBot(random.Random(seed), budget=SMALL, candidates=3, horizon=5)


def test_expert_is_a_level() -> None:
    assert LEVELS[-1] == "expert"
    assert isinstance(make_bot("expert", random.Random(0)), ExpertBot)


def test_every_expert_move_is_legal_over_mixed_deals_of_every_preset() -> None:
    """An expert at every table size and preset, the other seats of every level."""
    tally: Counter[str] = Counter()
    for k in range(15):
        name = PRESETS[k % len(PRESETS)]
        players = min(2 + k % 5, preset_players(name)[-1])  # semplice: 2 to 4 (R1.2)
        rules = preset(name, players)
        seen: list[Event] = []
        bots = {
            s: Recorder(
                small_expert(k * 10) if s == 0 else make_bot(LEVELS[(k + s) % 3], random.Random(s)),
                s,
                seen,
            )
            for s in range(players)
        }
        final = play_deal(bots, rules, dealer=k % players, label=f"expert-legal-{k}")
        assert final.is_over
        check_uses(seen, rules, tally)
    assert tally["opened"] >= 10 and tally["went out"] >= 5, tally


def scrambled(state: DealState, seat: int, rng: random.Random) -> DealState:
    """``state`` with every card ``seat`` cannot see dealt again among the hidden places."""
    others = [i for i, s in enumerate(state.seats) if s != seat]
    hidden = [c for i in others for c in state.hands[i]] + list(state.stock)
    rng.shuffle(hidden)
    hands = list(state.hands)
    for i in others:
        hands[i], hidden = tuple(hidden[: len(hands[i])]), hidden[len(hands[i]) :]
    return DealState(**{**state.__dict__, "hands": tuple(hands), "stock": tuple(hidden)})


def test_expert_decisions_do_not_change_with_the_hidden_cards() -> None:
    """Seed for seed, the expert asked on a deal whose hidden cards were scrambled decides
    exactly as on the real one (the same memory, the same rng)."""
    rng = random.Random(3)
    decisions = 0
    for k in range(3):
        players = 2 + k
        rules = preset("classic", players)
        bots = {s: make_bot("medium", random.Random(s)) for s in range(players)}
        expert = small_expert(k)
        bots[0] = expert
        dealing = Dealing.of(f"blind-{k}", 1, rules, range(players), 0)
        state, events = start_deal(rules, list(range(players)), 0, dealing.deck, 1)
        for _ in range(400):
            for event in events:
                for seat, bot in bots.items():
                    bot.observe(view_event(event, seat))
            if state.is_over:
                break
            action: Action
            if state.phase is Phase.REBUILD:
                action = dealing.rebuilt(state.rebuilds + 1, state.discard_pile)
                state, events = apply(state, None, action)
                continue
            if state.turn == 0:
                twin = copy.deepcopy(expert)
                action = decide(state, expert)
                assert decide(scrambled(state, 0, rng), twin) == action
                decisions += 1
            else:
                action = decide(state, bots[state.turn])
            state, events = apply(state, state.turn, action)
    assert decisions >= 20


def mid_deal(label: str, players: int, turns: int) -> tuple[DealState, CardMemory]:
    """A classic deal after ``turns`` medium turns, and seat 0's memory of it."""
    rules = preset("classic", players)
    bots = {s: make_bot("medium", random.Random(s)) for s in range(players)}
    dealing = Dealing.of(label, 1, rules, range(players), 0)
    state, events = start_deal(rules, list(range(players)), 0, dealing.deck, 1)
    memory = CardMemory()
    for _ in range(turns * 2):
        for event in events:
            memory.observe(view_event(event, 0))
        if state.is_over or state.phase is Phase.REBUILD:
            break
        state, events = apply(state, state.turn, decide(state, bots[state.turn]))
    for event in events:
        memory.observe(view_event(event, 0))
    return state, memory


def test_a_sample_agrees_with_everything_the_seat_saw() -> None:
    for k in range(6):
        real, memory = mid_deal(f"sample-{k}", 2 + k % 3, 4 + k)
        seen = playable_state(view_state(real, 0))
        sample = sample_deal(seen, 0, memory, random.Random(k))
        assert sample.hands[0] == real.hands[0]
        assert (sample.table, sample.discard_pile) == (real.table, real.discard_pile)
        assert [len(h) for h in sample.hands] == [len(h) for h in real.hands]
        assert len(sample.stock) == len(real.stock)
        for seat, held in memory.held.items():
            assert held <= set(sample.hand(seat))

        def every_card(state: DealState) -> list[int]:
            melded = [c for meld in state.table for c in meld.cards]
            in_hands = [c for hand in state.hands for c in hand]
            return sorted(in_hands + melded + list(state.discard_pile) + list(state.stock))

        assert every_card(sample) == every_card(real) == list(range(real.ruleset.deck_size))


def test_samples_differ_and_replay_from_their_seed() -> None:
    real, memory = mid_deal("sample-seed", 2, 3)
    seen = playable_state(view_state(real, 0))
    one = sample_deal(seen, 0, memory, random.Random(5))
    assert one == sample_deal(seen, 0, memory, random.Random(5))
    assert one.hands[1] != sample_deal(seen, 0, memory, random.Random(6)).hands[1]


def test_a_memory_that_does_not_fit_the_hand_counts_is_refused() -> None:
    real, _ = mid_deal("sample-wrong", 2, 2)
    seen = playable_state(view_state(real, 0))
    memory = CardMemory()
    # Seat 1 said to hold more cards than its hand has.
    memory.held[1] = set(real.stock[: len(real.hands[1]) + 1])
    with pytest.raises(Inconsistent):
        sample_deal(seen, 0, memory, random.Random(0))


def opened_after_draw(hand: str, stock_top: str) -> DealState:
    """Seat 0 opened, to play after drawing the first card of ``stock_top``."""
    state = position(
        hands={0: hand, 1: "3C 9D 9H"},
        table=["7D 8D 9D 10D"],
        owners=[0],
        opened=[0, 1],
        stock_top=stock_top,
        turn=0,
        turns_played=3,
    )
    return after_draw(state)


def card(state: DealState, text: str) -> int:
    return next(c for c in state.hand(0) if str(face(c)) == text)


def test_a_race_that_goes_out_with_the_move_is_worth_one_play() -> None:
    state = opened_after_draw("4S 5S 6S", "KD")
    run = tuple(card(state, t) for t in ("4S", "5S", "6S"))
    lay = best_play(state)
    assert lay is not None and sorted(lay.leftover) == [card(state, "KD")]
    move = Play(lay.operations, card(state, "KD"))
    assert set(run) <= {c for op in lay.operations for c in getattr(op, "cards", ())}
    assert race(state, 0, move, RacePolicy(random.Random(0)), 5) == (-1.0, 1)


def test_a_race_counts_the_seats_own_plays_to_going_out_the_others_sit_out() -> None:
    """4S 5S kept, 6S the stock's next card for this seat: out on the second play."""
    state = opened_after_draw("4S 5S 9C", "KD 6S")
    policy = RacePolicy(random.Random(0))
    assert race(state, 0, Play((), card(state, "9C")), policy, 5) == (-2.0, 2)
    # Throwing the 4S instead leaves nothing the 6S completes within two plays.
    worth, plays = race(state, 0, Play((), card(state, "4S")), policy, 2)
    assert plays == 2
    assert worth < -2.0


def test_a_race_stopped_at_its_horizon_is_worth_less_than_any_that_went_out() -> None:
    state = opened_after_draw("4S 5S 9C", "KD 6S")
    policy = RacePolicy(random.Random(0))
    worth, plays = race(state, 0, Play((), card(state, "9C")), policy, 1)
    assert plays == 1
    after, _ = apply(state, 0, Play((), card(state, "9C")))
    assert worth == -2.0 - standing(after, 0) / 100


def test_a_move_the_sample_refuses_is_worth_less_than_any_race() -> None:
    state = opened_after_draw("4S 5S 9C", "KD 6S")
    assert race(state, 0, Draw(DrawSource.STOCK), RacePolicy(random.Random(0)), 5) == (
        REFUSED,
        0,
    )


def test_the_expert_keeps_the_cards_that_go_out_soonest() -> None:
    """Opened with 4S 5S, 9C and KD: throwing a spade leaves a hand far from going out;
    the races over sampled draws tell, where the first move offered is the worse one."""
    state = opened_after_draw("4S 5S 9C", "KD")
    moves = [Play((), card(state, "4S")), Play((), card(state, "9C"))]
    bot = ExpertBot(random.Random(1), budget=400, candidates=2, horizon=5)
    assert bot._weigh(state, moves) == moves[1]


def test_standing_counts_an_unopened_hand_as_the_preset_does() -> None:
    """R9.5: 100 flat under classic, the hand under tradizionale, twice it under semplice."""
    hands = {0: "KD QC 3S", 1: "5H 6H"}
    assert standing(position(hands=hands), 0) == 100
    assert standing(position(hands=hands, opened=[0]), 0) == 23
    assert standing(position(preset("tradizionale", 2), hands=hands), 0) == 23
    assert standing(position(preset("semplice", 2), hands=hands), 0) == 46


def test_expert_goes_out_when_it_can() -> None:
    state = position(
        hands={0: "4S 5S 6S", 1: "3C 9D 9H"},
        table=["7D 8D 9D 10D"],
        owners=[0],
        opened=[0, 1],
        stock_top="KD",
        turn=0,
        turns_played=3,
    )
    play = play_of(small_expert(0), after_draw(state))
    assert play.discard is not None and str(face(play.discard)) == "KD"
    assert len(play.operations) == 1


def test_expert_takes_the_discard_that_closes() -> None:
    """Opened, with 4-5 of spades and 6S on the pile: taking it lays the run and goes out."""
    state = position(
        hands={0: "4S 5S KD", 1: "3C 9D 9H"},
        table=["7D 8D 9D 10D"],
        owners=[0],
        opened=[0, 1],
        discard_pile="2C 6S",
        turn=0,
        turns_played=3,
    )
    bot = small_expert(0)
    assert bot.choose_draw(view_state(state, 0)) is DrawSource.DISCARD


@pytest.mark.timeout(60)
def test_weighing_moves_every_sample_refuses_ends_with_the_first() -> None:
    """Draws asked after the draw are refused on every sample: the budget still runs out."""
    state = after_draw(position(hands={0: "2H 5D 9C", 1: "3C 4D"}, stock_top="JD", turn=0))
    moves = [Draw(DrawSource.STOCK), Draw(DrawSource.DISCARD)]
    assert small_expert(0)._weigh(state, moves) == moves[0]


def test_expert_deals_replay_seed_for_seed() -> None:
    def one() -> DealState:
        bots = {0: small_expert(9), 1: make_bot("hard", random.Random(1))}
        return play_deal(bots, preset("classic", 2), dealer=1, label="replay")

    assert one() == one()


def test_expert_wins_most_of_a_few_deals_against_easy() -> None:
    """Small and statistical: with its seats and the dealer alternated, the expert goes out
    first in at least 7 of 10 heads-up deals against easy (it won all 10 when this was written)."""
    wins = 0
    for k in range(10):
        expert_seat = k % 2
        bots = {expert_seat: small_expert(k), 1 - expert_seat: make_bot("easy", random.Random(k))}
        final = play_deal(bots, preset("classic", 2), dealer=(k // 2) % 2, label=f"vs-easy-{k}")
        assert final.result is not None
        wins += final.result.closer == expert_seat
    assert wins >= 7


def test_the_race_policy_holds_its_melds_once_opened_until_they_go_out() -> None:
    """As the hard bot: an opened seat whose lay-down does not go out lays nothing."""

    held = 0
    for k in range(40):
        real, memory = mid_deal(f"hold-{k}", 2, 6)
        sample = sample_deal(playable_state(view_state(real, 0)), 0, memory, random.Random(k))
        policy = RacePolicy(random.Random(0))
        state = sample
        for _ in range(30):
            if state.is_over:
                break
            if state.phase is Phase.DRAW:
                state, _ = apply(state, state.turn, Draw(DrawSource.STOCK))
                continue
            if state.phase is not Phase.PLAY:
                break
            lay = best_play(state)
            play = policy.play(state)
            assert play is not None
            opened = state.has_opened(state.turn)
            if opened and lay is not None and not lay.is_empty and len(lay.leftover) > 1:
                assert play.operations == ()
                assert play.discard in lay.leftover
                held += 1
            state, _ = apply(state, state.turn, play)
    assert held > 0


def test_expert_with_only_jokers_left_throws_one_as_hard_does() -> None:
    """Two jokers in hand, the table's groups full (R4.2): a joker is the only discard (R8)."""
    state = position(
        hands={0: "JK", 1: "3C 9D 9H"},
        table=["5H 5S 5D 5C", "10H 10D 10C 10S"],
        owners=[1, 1],
        opened=[0, 1],
        stock_top="JK",
        turn=0,
        turns_played=3,
    )
    state = after_draw(state)
    expert = play_of(small_expert(0), state)
    hard = play_of(make_bot("hard", random.Random(0)), state)
    assert expert == hard
    assert expert.discard is not None and face(expert.discard).is_joker


def test_at_a_larger_table_the_clock_is_the_chance_no_other_seat_went_out() -> None:
    """Opponents are independent: three unopened ones early in the deal multiply their rows;
    one opened with a single card left makes the deal's end near (``deadline``)."""
    hands = {0: "4S 5S 6S", 1: "3C 9D 9H", 2: "2C 2D", 3: "JC QC"}
    early = position(hands=hands, turns_played=1)
    row = SURVIVAL[(False, 0)]
    assert survival(early, 0, 6) == pytest.approx(tuple(p**3 for p in row))
    near = position(hands={**hands, 2: "KH"}, opened=[2], turns_played=4)
    assert bucket(near, 2) == (True, 1)
    clock = survival(near, 0, 8)
    assert clock[0] <= SURVIVAL[(True, 1)][0]
    assert all(a >= b for a, b in pairwise(clock))
    assert clock[-1] < clock[5]  # beyond the table's six rounds the last rate goes on


def test_with_a_clock_a_race_is_worth_minus_the_penalty_it_can_expect() -> None:
    """R9.4: the penalty after each play weighed by the chance the deal ends then."""
    state = opened_after_draw("4S 5S 9C", "KD 6S")
    policy = RacePolicy(random.Random(0))
    nine = Play((), card(state, "9C"))
    after, _ = apply(state, 0, nine)
    # Nobody else ever goes out: out on the second play, nothing to pay.
    assert race(state, 0, nine, policy, 5, (1.0,) * 5) == (0.0, 2)
    # The deal ends right after this play: the hand left then is paid.
    assert race(state, 0, nine, policy, 5, (0.0,) * 5) == (-float(standing(after, 0)), 2)
    # Half the time: half of it.
    assert race(state, 0, nine, policy, 5, (0.5,) * 5) == (-standing(after, 0) / 2, 2)


def test_at_a_larger_table_the_expert_sheds_points_when_a_player_is_about_to_go_out() -> None:
    """Opened with KD KH 3C 9S: keeping the kings goes out with one king or joker drawn,
    throwing a king pays 7 points less if the deal ends now. Heads-up the expert keeps
    them (going out first is the deal); at four seats, with seat 1 one card from going
    out, it throws a king (what it pays is the deal, R9.4)."""
    hands = {0: "KD KH 3C 9S", 1: "QH", 2: "2C 2D", 3: "JC QC"}

    def choice(seats: int) -> int | None:
        state = position(
            hands={s: hands[s] for s in range(seats)},
            table=["7D 8D 9D 10D"],
            owners=[1],
            opened=[0, 1],
            turn=0,
            turns_played=6,
            phase=Phase.PLAY,
        )
        moves = [Play((), card(state, "3C")), Play((), card(state, "KD"))]
        bot = ExpertBot(random.Random(2), budget=400, candidates=2, horizon=5)
        move = bot._weigh(state, moves)
        assert isinstance(move, Play) and move.discard is not None
        return move.discard

    assert str(face(choice(2))) == "3C"
    assert str(face(choice(4))) == "KD"


def test_holding_the_opening_back_is_weighed_heads_up_not_where_someone_may_go_out() -> None:
    """Three kings and three queens open (R5.1) and hard lays them. Heads-up the expert also
    weighs keeping them in hand; at four seats it does not: somebody may go out meanwhile
    and an unopened hand pays 100 (R9.5)."""
    hands = {0: "KD KH KC QS QH QD 2C 5H 8S 9D", 1: "3C 9H 9S", 2: "2D 2H", 3: "JC JD"}

    def candidates(seats: int) -> list[Play]:
        state = position(
            hands={s: hands[s] for s in range(seats)},
            turn=0,
            turns_played=3,
            phase=Phase.PLAY,
        )
        bot = ExpertBot(random.Random(0), budget=SMALL, candidates=4, horizon=5)
        own = bot.play(state)
        assert own is not None and own.operations  # hard opens
        return bot._candidate_plays(state)

    assert any(not play.operations for play in candidates(2))
    assert all(play.operations for play in candidates(4))
