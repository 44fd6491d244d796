"""Bots: every move legal over many deals, whole 6-seat matches, and each level's rules of play."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest

from scala40_net.actions import Draw, DrawSource, NewMeld, Play
from scala40_net.bots import LEVELS, make_bot
from scala40_net.bots.arena import Timings, play_deal, play_match
from scala40_net.bots.base import Bot
from scala40_net.bots.hard import HardBot
from scala40_net.bots.medium import MediumBot
from scala40_net.cards import face, is_joker
from scala40_net.deal import DealState, Phase, apply
from scala40_net.events import (
    CardDrawn,
    CardsAttached,
    DealEnded,
    DiscardReturned,
    Event,
    JokerSwapped,
    MatchEnded,
    MeldLaid,
    Played,
)
from scala40_net.match import MatchPhase
from scala40_net.rules import (
    PRESETS,
    DiscardPickup,
    Ruleset,
    preset,
    preset_players,
    with_options,
)
from scala40_net.scenario import position
from scala40_net.views import view_state


class Recorder:
    """Wraps a bot and keeps the events its seat saw, to check what the bot did with them."""

    def __init__(self, bot: Bot, seat: int, seen: list[Event]) -> None:
        self.bot = bot
        self.seat = seat
        self.seen = seen
        self.level = bot.level

    def choose_draw(self, view):  # type: ignore[no-untyped-def]
        return self.bot.choose_draw(view)

    def choose_play(self, view):  # type: ignore[no-untyped-def]
        return self.bot.choose_play(view)

    def observe(self, event: Event) -> None:
        if self.seat == 0:
            self.seen.append(event)
        self.bot.observe(event)

    def buys_back(self, fee: int) -> bool:
        return self.bot.buys_back(fee)


def laid_cards(event: Played) -> set[int]:
    """The cards a play put on the table: in melds, attached, or in a joker's place (R3.2)."""
    out: set[int] = set()
    for op in event.operations:
        if isinstance(op, MeldLaid | CardsAttached):
            out.update(op.cards)
        if isinstance(op, JokerSwapped):
            out.add(op.card)
    return out


def check_uses(events: Sequence[Event], rules: Ruleset, tally: Counter[str]) -> None:
    """A taken discard is laid in the same play (classic R3.2) and a swapped joker too (R7.2)."""
    taken: dict[int, int] = {}
    for event in events:
        assert not isinstance(event, DiscardReturned), "a bot took a discard it could not use"
        if isinstance(event, CardDrawn) and event.source is DrawSource.DISCARD:
            assert event.card is not None
            taken[event.seat] = event.card
            tally["taken"] += 1
        if isinstance(event, Played):
            laid = laid_cards(event)
            card = taken.pop(event.seat, None)
            if card is not None and rules.discard_pickup is DiscardPickup.CLASSIC:
                assert card in laid
            for op in event.operations:
                if isinstance(op, JokerSwapped):
                    tally["swapped"] += 1
                    assert op.joker in laid
            tally["opened"] += event.opened
            tally["went out"] += event.went_out
        if isinstance(event, DealEnded):
            tally["in mano"] += event.chiusura_in_mano


def test_every_bot_move_is_legal_over_many_deals() -> None:
    """Mixed levels, 2-6 players, every preset; the arena raises on any refused move."""
    rng = random.Random(7)
    tally: Counter[str] = Counter()
    for k in range(90):
        name = PRESETS[k % len(PRESETS)]
        sizes = preset_players(name)
        players = sizes[(k // len(PRESETS)) % len(sizes)]
        rules = preset(name, players)
        seen: list[Event] = []
        bots = {
            s: Recorder(make_bot(LEVELS[(k + s) % 3], random.Random(k * 10 + s)), s, seen)
            for s in range(players)
        }
        final = play_deal(bots, rules, dealer=rng.randrange(players), label=f"legal-{k}")
        assert final.is_over
        check_uses(seen, rules, tally)
    for what in ("taken", "swapped", "opened", "went out"):
        assert tally[what] >= 3, tally


@pytest.mark.parametrize("name", ["classic", "tradizionale"])
def test_six_bots_of_mixed_levels_play_a_whole_match(name: str) -> None:
    rules = with_options(preset(name, 6), bust_at=151 if name == "classic" else 101)
    bots = {s: make_bot(LEVELS[s % 3], random.Random(s)) for s in range(6)}
    final = play_match(bots, rules, first_dealer=2, label=f"match-{name}")
    assert final.phase is MatchPhase.OVER and final.winners
    assert final.deal_no >= 2


def test_match_ends_with_match_ended_event() -> None:
    seen: list[Event] = []
    bots = {s: Recorder(make_bot("medium", random.Random(s)), s, seen) for s in range(2)}
    final = play_match(bots, preset("classic", 2), first_dealer=0, label="short")
    assert isinstance(seen[-1], MatchEnded) and seen[-1].winners == final.winners


def test_make_bot_refuses_an_unknown_level() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("grandmaster", random.Random(0))


# Rules of play, one position each.


def after_draw(state: DealState, source: DrawSource = DrawSource.STOCK) -> DealState:
    return apply(state, state.turn, Draw(source))[0]


def play_of(bot: Bot, state: DealState) -> Play:
    play = bot.choose_play(view_state(state, state.turn))
    assert play is not None
    apply(state, state.turn, play)  # the engine accepts it
    return play


def test_easy_discards_at_random_among_legal_discards() -> None:
    state = after_draw(position(hands={0: "2H 5D 9C KS 7H", 1: "3C"}, stock_top="JD", turn=0))
    chosen = {play_of(make_bot("easy", random.Random(seed)), state).discard for seed in range(30)}
    assert len(chosen) >= 4


def test_medium_keeps_cards_near_a_meld() -> None:
    # QH QD wait for a third queen, 9S 10S for a neighbour; 6C and 2D are loose.
    state = after_draw(
        position(hands={0: "QH QD 9S 10S 6C 2D", 1: "3C 4C"}, stock_top="4H", turn=0)
    )
    play = play_of(MediumBot(random.Random(0)), state)
    assert play.discard is not None and str(face(play.discard)) == "6C"


def test_medium_does_not_feed_the_next_player() -> None:
    # The next seat has opened; AS would go on its J-Q-K of spades. KD is safe.
    rules = Ruleset(discard_attachable="free")  # type: ignore[arg-type]
    state = after_draw(
        position(
            rules,
            hands={0: "AS KD 3H 3D", 1: "5C 6C"},
            table=["JS QS KS"],
            owners=[1],
            opened=[1],
            stock_top="8C",
            turn=0,
        )
    )
    play = play_of(MediumBot(random.Random(0)), state)
    assert play.discard is not None and str(face(play.discard)) == "KD"


def test_medium_never_throws_a_joker_while_another_card_may_go() -> None:
    state = after_draw(position(hands={0: "JK 5D 9C", 1: "3C"}, stock_top="KH", turn=0))
    play = play_of(MediumBot(random.Random(0)), state)
    assert play.discard is not None and not is_joker(play.discard)


def test_hard_takes_a_discard_that_completes_an_opening() -> None:
    # 10-J-Q of hearts (30) and 9S 9D: the 9C on the pile makes 57.
    state = position(hands={0: "10H JH QH 9S 9D 2C 5D", 1: "3C 4C"}, discard_pile="9C", turn=0)
    bot = HardBot(random.Random(0))
    assert bot.choose_draw(view_state(state, 0)) is DrawSource.DISCARD
    taken = after_draw(state, DrawSource.DISCARD)
    play = play_of(bot, taken)
    assert any(taken.taken_discard in op.cards for op in play.operations if isinstance(op, NewMeld))


def test_hard_leaves_a_discard_it_cannot_use() -> None:
    state = position(hands={0: "10H JH QH 9S 2D 2C 5D", 1: "3C 4C"}, discard_pile="KC", turn=0)
    assert HardBot(random.Random(0)).choose_draw(view_state(state, 0)) is DrawSource.STOCK


def test_hard_goes_out_in_one_turn_when_it_can() -> None:
    state = after_draw(
        position(
            hands={0: "KH KD KC QS QD QC 5H 6H 7H 2S 2D 2C", 1: "3C 4C 5C"},
            stock_top="9D",
            turn=0,
        )
    )
    play = play_of(HardBot(random.Random(0)), state)
    after, events = apply(state, 0, play)
    assert after.is_over and isinstance(events[-1], DealEnded) and events[-1].chiusura_in_mano


def test_hard_holds_its_opening_for_a_one_turn_close_against_a_big_opened_hand() -> None:
    hand = "KH KD KC QS QD QC 5H 6H 7H 2S 2D 2C 8C"
    big = "3C 4C 5C 6D 7D 8D 9D 10D 2H 4H 9S"
    state = after_draw(
        position(hands={0: hand, 1: big}, opened=[1], table=["AS AD AC"], stock_top="JC", turn=0)
    )
    play = play_of(HardBot(random.Random(0)), state)
    assert play.operations == ()
    # Against a player close to going out it opens at once.
    state = after_draw(
        position(
            hands={0: hand, 1: "3C 4C"}, opened=[1], table=["AS AD AC"], stock_top="JC", turn=0
        )
    )
    assert play_of(HardBot(random.Random(0)), state).operations != ()


def test_hard_opens_at_once_when_r9_3_does_not_double() -> None:
    # The same big opened hand, but with closing_in_hand_double off there is nothing to wait for.
    hand = "KH KD KC QS QD QC 5H 6H 7H 2S 2D 2C 8C"
    big = "3C 4C 5C 6D 7D 8D 9D 10D 2H 4H 9S"
    rules = Ruleset(closing_in_hand_double=False)
    state = after_draw(
        position(
            rules, hands={0: hand, 1: big}, opened=[1], table=["AS AD AC"], stock_top="JC", turn=0
        )
    )
    assert play_of(HardBot(random.Random(0)), state).operations != ()


@pytest.mark.parametrize(("others", "holds"), [(1, True), (3, False)])
def test_hard_holds_its_melds_once_opened_only_heads_up(others: int, holds: bool) -> None:
    rest = ["3C 4C 8S", "3D 4S 8H", "2H 6S 10C"]
    hands = {0: "5H 6H 7H 9S 9D 9C 2C 4D"} | {s: rest[s - 1] for s in range(1, others + 1)}
    state = after_draw(
        position(hands=hands, table=["AS AD AC"], owners=[0], opened=[0], stock_top="KD", turn=0)
    )
    play = play_of(HardBot(random.Random(0)), state)
    assert (play.operations == ()) is holds


@pytest.mark.parametrize(("others", "holds"), [(1, True), (3, False)])
def test_hard_lays_only_what_a_taken_discard_needs_once_opened_heads_up(
    others: int, holds: bool
) -> None:
    # The 8H on the pile extends 5-6-7H; the three 9s are a meld it holds back heads-up.
    rest = ["3C 4C 8S", "3D 4S 8H", "2H 6S 10C"]
    hands = {0: "5H 6H 7H 9S 9D 9C 2C 4D"} | {s: rest[s - 1] for s in range(1, others + 1)}
    state = position(
        hands=hands, table=["AS AD AC"], owners=[0], opened=[0], discard_pile="8H", turn=0
    )
    bot = HardBot(random.Random(0))
    assert bot.choose_draw(view_state(state, 0)) is DrawSource.DISCARD
    taken = after_draw(state, DrawSource.DISCARD)
    play = play_of(bot, taken)
    laid = {str(face(c)) for op in play.operations if isinstance(op, NewMeld) for c in op.cards}
    assert {"5H", "6H", "7H", "8H"} <= laid
    assert ("9S" not in laid) is holds


def test_hard_avoids_what_the_next_player_took_from_the_pile() -> None:
    # Unopened, hard throws its lowest loose card (8H) - unless seat 1 collects 8s.
    state = position(hands={0: "8H KD QC 3S 3D", 1: "5C 6C"}, stock_top="KS", turn=0)
    plain = play_of(HardBot(random.Random(0)), after_draw(state))
    assert plain.discard is not None and str(face(plain.discard)) == "8H"
    bot = HardBot(random.Random(0))
    eight = next(c for c in range(108) if str(face(c)) == "8C")
    bot.observe(CardDrawn(1, DrawSource.DISCARD, eight))
    assert bot.memory.wanted_by(1, state.hands[0][0])
    play = play_of(bot, after_draw(state))
    assert play.discard is not None and str(face(play.discard)) != "8H"


def test_bots_read_only_their_view() -> None:
    state = after_draw(position(hands={0: "2H 5D 9C KS 7H", 1: "3C 4D"}, stock_top="JD", turn=0))
    view = view_state(state, 0)
    assert view.hand == state.hands[0]
    for level in LEVELS:
        play = make_bot(level, random.Random(1)).choose_play(view)
        assert play is not None and play.discard in state.hands[0]
    assert state.phase is Phase.PLAY


def test_play_deal_shows_on_turn_the_whole_state_before_each_move() -> None:
    """The benchmarks' hook: once per decision, the seat to move with every card where it
    really is (a bot sees only its view), and the same deal as without the hook."""
    rules = preset("classic", 3)

    def bots() -> dict[int, Bot]:
        return {s: make_bot("medium", random.Random(s)) for s in range(3)}

    seen: list[DealState] = []
    timings = Timings()
    final = play_deal(bots(), rules, 0, "on-turn", timings=timings, on_turn=seen.append)
    assert final == play_deal(bots(), rules, 0, "on-turn")
    assert len(seen) == len(timings.by_level["medium"]) > 20
    for state in seen:
        placed = [c for hand in state.hands for c in hand]
        placed += [*state.stock, *state.discard_pile, *(c for m in state.table for c in m.cards)]
        assert sorted(placed) == list(range(rules.deck_size))
