"""R10.2's stall: a deal is void as soon as no card off the table can still be laid."""

import itertools
from collections.abc import Sequence

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from scala40_net.actions import Attach, Draw, DrawSource, Play
from scala40_net.cards import Face, Suit, face, is_joker, parse_faces, pick_from_hand
from scala40_net.deal import DealState, Phase, apply
from scala40_net.errors import RuleViolation
from scala40_net.events import DealEnded, DealOutcome
from scala40_net.melds import (
    Meld,
    attach,
    declarations,
    is_valid_meld,
    joker_attach_faces,
    split_run,
)
from scala40_net.movegen import run_lengths
from scala40_net.rules import Ruleset
from scala40_net.scenario import CardPool
from scala40_net.stall import is_stalled, run_fits

STALL = (
    "R10.2: no card off the table can be attached to a meld on the table "
    "or make a new meld with others"
)


def last_turn(
    table: list[str], hands: dict[int, str], pile: str, last: str, **rules: object
) -> DealState:
    """Seat 0 to draw the last stock card ``last``; every other card of the deal is given."""
    pool = CardPool()
    melds = tuple(pool.meld(text) for text in table)
    hand_cards = tuple(pool.cards(hands[s]) for s in sorted(hands))
    pile_cards = pool.cards(pile)
    stock = pool.cards(last)
    return DealState(
        ruleset=Ruleset(**rules),  # type: ignore[arg-type]
        seats=tuple(sorted(hands)),
        dealer=1,
        hands=hand_cards,
        opened=(True,) * len(hands),
        turns_played=(3,) * len(hands),
        table=melds,
        owners=(0,) * len(melds),
        stock=stock,
        discard_pile=pile_cards,
        turn=0,
        phase=Phase.DRAW,
        laid_since_rebuild=True,
    )


def end_turn(state: DealState, discard: str) -> tuple[DealState, list[object]]:
    state = apply(state, 0, Draw(DrawSource.STOCK))[0]
    card = pick_from_hand(parse_faces(discard), state.hand(0))[0]
    after, events = apply(state, 0, Play((), card))
    return after, list(events)


def test_r10_2_no_card_can_be_laid_voids_the_deal_at_once() -> None:
    state = last_turn(["5H 6H 7H", "QS QD QC"], {0: "2C 9D", 1: "4S KD"}, "10C JH", "3D")
    after, events = end_turn(state, "2C")
    ended = events[-1]
    assert isinstance(ended, DealEnded) and ended.outcome is DealOutcome.VOID
    assert ended.void_reason == STALL and after.is_over
    # The first idle stretch: only the exact check could end this deal so early.
    assert after.idle_rebuilds == 0


def test_r10_2_a_play_that_leaves_nothing_to_lay_voids_the_deal_with_stock_left() -> None:
    # 000_…: the deal is void as soon as no card can be laid: checked after every play
    # that lays or attaches, not only when the stock runs out (6C is still in it here).
    state = last_turn(["5H 6H 7H", "QS QD QC"], {0: "8H 2C 9D", 1: "4S KD"}, "10C JH", "3D 6C")
    state = apply(state, 0, Draw(DrawSource.STOCK))[0]
    eight, two = (pick_from_hand(parse_faces(t), state.hand(0))[0] for t in ("8H", "2C"))
    after, events = apply(state, 0, Play((Attach(0, (eight,)),), two))
    ended = events[-1]
    assert isinstance(ended, DealEnded) and ended.outcome is DealOutcome.VOID
    assert ended.void_reason == STALL and after.is_over and len(after.stock) == 1
    # A play that lays nothing changes nothing the check looks at: the deal goes on.
    calm = last_turn(["5H 6H 7H"], {0: "8H 2C 9D", 1: "4S KD"}, "10C JH", "3D 6C")
    assert not end_turn(calm, "2C")[0].is_over


@pytest.mark.parametrize(
    ("where", "why"),
    [
        ({1: "4S 8H"}, "8H attaches to 5H 6H 7H"),
        ({1: "4S QH"}, "QH joins the group of queens"),
        ({1: "4S JK"}, "a joker attaches to a meld without one"),
        ({1: "KD KS"}, "KD KS (and KC in the pile) make a group"),
    ],
)
def test_r10_2_a_card_that_can_still_be_laid_keeps_the_deal_going(
    where: dict[int, str], why: str
) -> None:
    hands = {0: "2C 9D", **where}
    state = last_turn(["5H 6H 7H", "QS QD QC"], hands, "10C KC", "3D")
    after, _ = end_turn(state, "2C")
    assert after.phase is Phase.REBUILD, why


def test_r10_2_a_card_that_takes_a_jokers_place_keeps_the_deal_going() -> None:
    state = last_turn(["5H JK=6H 7H"], {0: "2C 9D", 1: "4S 6H"}, "10C KC", "3D")
    assert end_turn(state, "2C")[0].phase is Phase.REBUILD


def test_r10_2_the_check_follows_max_run() -> None:
    # Runs of at most 4: 2H..5H plus 6H would be 5 cards, which no cut of 3-4 makes.
    table, hands = ["2H 3H 4H 5H"], {0: "2C 9D", 1: "JS 6H"}
    cut = last_turn(table, hands, "10C KD", "3D", max_run=4)
    assert end_turn(cut, "2C")[0].is_over
    whole = last_turn(table, hands, "10C KD", "3D")
    assert end_turn(whole, "2C")[0].phase is Phase.REBUILD


def test_r10_2_run_fits_the_cuts_of_r4_6() -> None:
    assert run_fits(14, None) and not run_fits(15, None)
    assert run_fits(6, 3) and not run_fits(4, 3) and not run_fits(5, 4) and run_fits(7, 4)


def test_r10_2_a_second_real_ace_never_extends_a_sequence() -> None:
    pool = CardPool()
    meld = pool.meld("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH")
    ace = pool.cards("AH")
    assert is_stalled([meld], (*ace, *pool.cards("4C")), None)
    assert not is_stalled([meld], (*ace, *pool.cards("JK")), None)


# Brute force: every meld any of the cards could make, every attach the engine's own meld
# functions accept (with the cut of R4.6), every joker's place a card could take.


def _brute_new_meld(cards: Sequence[int]) -> bool:
    for size in range(3, min(len(cards), 5) + 1):
        for chosen in itertools.combinations(cards, size):
            reals = [c for c in chosen if not is_joker(c)]
            jokers = [c for c in chosen if is_joker(c)]
            for ace_high in (False, True):
                base = sorted(
                    reals, key=lambda c: 14 if ace_high and face(c).rank == 1 else face(c).rank
                )
                orders = (
                    [tuple(base[:k] + jokers + base[k:]) for k in range(len(base) + 1)]
                    if jokers
                    else [tuple(base)]
                )
                for order in orders:
                    if any(is_valid_meld(order, d) for d in declarations(order) or (None,)):
                        return True
    return False


def _brute_joins(meld: Meld, cards: Sequence[int], max_run: int | None) -> bool:
    if meld.joker_as is not None and any(
        not is_joker(c) and face(c) == meld.joker_as for c in cards
    ):
        return True
    for size in range(1, min(len(cards), 4) + 1):
        for chosen in itertools.combinations(cards, size):
            options: list[Face | None] = [None]
            if any(is_joker(c) for c in chosen):
                options = [
                    *joker_attach_faces(meld),
                    *(Face(r, s) for r in range(1, 14) for s in Suit),
                ]
            for declared in options:
                try:
                    grown = attach(meld, chosen, declared)
                except RuleViolation:
                    continue
                lengths = run_lengths(len(grown.cards), max_run) if grown.is_sequence else ()
                if lengths is not None:
                    split_run(grown, max_run, lengths)
                    return True
    return False


@st.composite
def stall_positions(draw: st.DrawFn) -> tuple[list[Meld], list[int], int | None]:
    pool = CardPool()
    texts = draw(
        st.lists(
            st.sampled_from(
                [
                    "5H 6H 7H",
                    "QS QD QC",
                    "AD 2D 3D",
                    "JC QC KC AC",
                    "4S JK=5S 6S",
                    "9H 9D JK=9S",
                    "2H 3H 4H 5H",
                    "10D JD QD",
                ]
            ),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    table = [pool.meld(t) for t in texts]
    universe = [c for c in pool.rest() if face(c).rank in (1, 2, 4, 8, 9, 12, 13) or is_joker(c)]
    off = draw(st.lists(st.sampled_from(universe), min_size=1, max_size=7, unique=True))
    return table, off, draw(st.sampled_from((None, None, 3, 4, 5)))


@settings(max_examples=300, deadline=None)
@given(stall_positions())
def test_r10_2_the_stall_check_equals_a_brute_force(
    position: tuple[list[Meld], list[int], int | None],
) -> None:
    table, off, max_run = position
    can_lay = _brute_new_meld(off) or any(_brute_joins(m, off, max_run) for m in table)
    stalled = is_stalled(table, off, max_run)
    event("stalled" if stalled else "not stalled")
    assert stalled == (not can_lay)
