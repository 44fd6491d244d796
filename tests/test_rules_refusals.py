"""R12: every refusal of a deal names its rule and says why, each sentence checked word for word."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from scala40_net import refusals
from scala40_net.actions import (
    Attach,
    Draw,
    DrawSource,
    NewMeld,
    Play,
    RebuildStock,
    ReturnDiscard,
    SwapJoker,
)
from scala40_net.cards import parse_faces, pick_from_hand
from scala40_net.deal import DealState, Phase, apply, start_deal
from scala40_net.errors import RuleViolation
from scala40_net.rules import DiscardAttachable, DiscardPickup, FirstTurnClose, JokerSwap, Ruleset
from scala40_net.scenario import position

STOCK, DISCARD = Draw(DrawSource.STOCK), Draw(DrawSource.DISCARD)
FREE = Ruleset(discard_attachable=DiscardAttachable.FREE)
FREE_PICKUP = Ruleset(discard_pickup=DiscardPickup.FREE)


def ids(state: DealState, seat: int, text: str) -> tuple[int, ...]:
    return tuple(pick_from_hand(parse_faces(text), state.hand(seat)))


def one(state: DealState, seat: int, text: str) -> int:
    return ids(state, seat, text)[0]


def drawn(state: DealState, source: Draw = STOCK) -> DealState:
    return apply(state, state.turn, source)[0]


def opener(ruleset: Ruleset | None = None, **kw: object) -> DealState:
    hands = {0: "9H 9D 9C 10S JS QS 2C 5D", 1: "3H 4H 8C KD"}
    return position(ruleset, hands=hands, **kw)  # type: ignore[arg-type]


def last_card(ruleset: Ruleset | None = None) -> DealState:
    state = position(ruleset, hands={0: "2C 3D", 1: "4C"}, discard_pile="KH QH JH", opened=[0])
    return replace(state, stock=state.stock[:1], discard_pile=state.stock[1:] + state.discard_pile)


def rebuilding() -> DealState:
    state = drawn(last_card())
    return apply(state, 0, Play((), one(state, 0, "2C")))[0]


Case = Callable[[], tuple[DealState, int | None, object]]


def _opening_37() -> tuple[DealState, int | None, object]:
    state = drawn(position(hands={0: "4H 4D 4C 3S 4S 5S 6S 7S 2D", 1: ""}))
    ops = (NewMeld(ids(state, 0, "4H 4D 4C")), NewMeld(ids(state, 0, "3S 4S 5S 6S 7S")))
    return state, 0, Play(ops, one(state, 0, "2D"))


def _taken_outside_opening() -> tuple[DealState, int | None, object]:
    state = position(
        hands={0: "9H 9D 9C 10S JS QS 2C 5D", 1: ""}, table=["6C 7C 8C"], discard_pile="9C"
    )
    state = drawn(state, DISCARD)
    ops = (NewMeld(ids(state, 0, "9H 9D 9C")), NewMeld(ids(state, 0, "10S JS QS")))
    return state, 0, Play(ops, one(state, 0, "2C"))


def _unopened_takes_without_opening() -> tuple[DealState, int | None, object]:
    state = drawn(position(hands={0: "9H 9D 2C", 1: ""}, discard_pile="9C"), DISCARD)
    return state, 0, Play((), one(state, 0, "2C"))


def _opened_takes_without_using() -> tuple[DealState, int | None, object]:
    state = drawn(position(FREE, hands={0: "2C 3D", 1: ""}, opened=[0], discard_pile="7S"), DISCARD)
    return state, 0, Play((), one(state, 0, "2C"))


def _kept_joker() -> tuple[DealState, int | None, object]:
    state = drawn(
        position(hands={0: "5S 2C 3D", 1: ""}, table=["4S JK=5S 6S"], opened=[0], stock_top="KD")
    )
    return state, 0, Play((SwapJoker(0, one(state, 0, "5S")),), one(state, 0, "2C"))


def _attach_before_opening() -> tuple[DealState, int | None, object]:
    state = drawn(position(hands={0: "8C 2D 5S", 1: ""}, table=["5C 6C 7C"]))
    return state, 0, Play((Attach(0, ids(state, 0, "8C")),), one(state, 0, "2D"))


def _swap_before_opening() -> tuple[DealState, int | None, object]:
    state = drawn(position(hands={0: "5S 2D 3C", 1: ""}, table=["4S JK=5S 6S"]))
    return state, 0, Play((SwapJoker(0, one(state, 0, "5S")),), one(state, 0, "2D"))


def _swap_before_taken_is_laid() -> tuple[DealState, int | None, object]:
    # 10-J-Q-K of spades reach 40, but the taken 9C is not laid yet (R3.2, R7.3).
    state = position(
        hands={0: "10S JS QS KS 9H 9D 5S 2C", 1: ""}, table=["4S JK=5S 6S"], discard_pile="9C"
    )
    state = drawn(state, DISCARD)
    ops = (NewMeld(ids(state, 0, "10S JS QS KS")), SwapJoker(0, one(state, 0, "5S")))
    return state, 0, Play(ops, one(state, 0, "2C"))


def _not_owner() -> tuple[DealState, int | None, object]:
    state = drawn(
        position(
            Ruleset(joker_swap=JokerSwap.OWNER),
            hands={0: "5S 2C 3D", 1: ""},
            table=["4S JK=5S 6S"],
            owners=[1],
            opened=[0],
        )
    )
    return state, 0, Play((SwapJoker(0, one(state, 0, "5S")),), one(state, 0, "2C"))


def _agreed_attach() -> tuple[DealState, int | None, object]:
    state = position(
        Ruleset(discard_attachable=DiscardAttachable.AGREED),
        hands={0: "8C 2D 5S", 1: "KS 3S"},
        table=["5C 6C 7C"],
        opened=[1],
    )
    state = drawn(state)
    state = apply(state, 0, Play((), one(state, 0, "8C")))[0]
    state = drawn(state, DISCARD)
    eight = state.taken_discard
    assert eight is not None
    return state, 1, Play((Attach(0, (eight,)),), one(state, 1, "KS"))


def _first_turn_close(pickup: bool) -> Case:
    def case() -> tuple[DealState, int | None, object]:
        mode = FirstTurnClose.NOT_AFTER_PICKUP if pickup else FirstTurnClose.NEVER
        where = {"discard_pile": "5H"} if pickup else {"stock_top": "5H"}
        state = position(
            Ruleset(first_turn_close=mode),
            hands={0: "2H 3H 4H 9C", 1: ""},
            opened=[0],
            turns_played=0,
            **where,  # type: ignore[arg-type]
        )
        state = drawn(state, DISCARD if pickup else STOCK)
        return state, 0, Play((NewMeld(ids(state, 0, "2H 3H 4H 5H")),), one(state, 0, "9C"))

    return case


def _discard_attachable(mode: DiscardAttachable) -> Case:
    def case() -> tuple[DealState, int | None, object]:
        state = drawn(
            position(
                Ruleset(discard_attachable=mode), hands={0: "8C 2D 5S", 1: ""}, table=["5C 6C 7C"]
            )
        )
        return state, 0, Play((), one(state, 0, "8C"))

    return case


def _used_twice() -> tuple[DealState, int | None, object]:
    state = drawn(opener(opened=[0]))
    nines = ids(state, 0, "9H 9D 9C")
    return (
        state,
        0,
        Play((NewMeld(nines), NewMeld((nines[0], *ids(state, 0, "10S JS")))), one(state, 0, "2C")),
    )


def _not_in_hand() -> tuple[DealState, int | None, object]:
    state = drawn(opener(opened=[0]))
    return state, 0, Play((NewMeld((*ids(state, 0, "9H 9D"), 200)),), one(state, 0, "2C"))


def _attach_before_taken_is_laid() -> tuple[DealState, int | None, object]:
    state = position(
        hands={0: "10S JS QS KS 9H 9D 8C 2C", 1: ""}, table=["5C 6C 7C"], discard_pile="9C"
    )
    state = drawn(state, DISCARD)
    ops = (NewMeld(ids(state, 0, "10S JS QS KS")), Attach(0, ids(state, 0, "8C")))
    return state, 0, Play(ops, one(state, 0, "2C"))


def _same_card_twice() -> tuple[DealState, int | None, object]:
    state = drawn(opener(opened=[0]))
    nine = one(state, 0, "9H")
    return state, 0, Play((NewMeld((nine, nine, *ids(state, 0, "9D"))),), one(state, 0, "2C"))


CASES: dict[str, tuple[Case, str]] = {
    "attach before the taken card is laid": (
        _attach_before_taken_is_laid,
        "R3.2: operation 2: the opening is complete only with the card taken from the discard "
        "pile laid in it: you may attach only after that",
    ),
    "the same card twice in a meld": (
        _same_card_twice,
        "R4: operation 1: the same card is listed twice in 9H 9H 9D",
    ),
    "not playing": (lambda: (opener(), 7, STOCK), "seat 7 is not playing this deal"),
    "over": (
        lambda: (replace(opener(), phase=Phase.OVER), 0, STOCK),
        "the deal is over",
    ),
    "a seat plays for the table": (
        lambda: (opener(), None, STOCK),
        "R3: only a seat in play draws and plays",
    ),
    "being rebuilt": (
        lambda: (rebuilding(), 1, STOCK),
        "R10.1: the stock is being rebuilt: wait for the new stock",
    ),
    "not your turn": (lambda: (opener(), 1, STOCK), "R3: it is seat 0's turn, not seat 1's"),
    "drawn twice": (
        lambda: (drawn(opener()), 0, STOCK),
        "R3: you have already drawn this turn: play and discard",
    ),
    "put back then the pile": (
        lambda: (
            apply(drawn(opener(), DISCARD), 0, ReturnDiscard())[0],
            0,
            DISCARD,
        ),
        "R3.2: you put the discard back this turn: draw from the stock",
    ),
    "empty pile": (
        lambda: (opener(discard_pile=""), 0, DISCARD),
        "R3: the discard pile is empty: draw from the stock",
    ),
    "nothing to put back": (
        lambda: (drawn(opener()), 0, ReturnDiscard()),
        "R3.2: only a card just taken from the discard pile can be put back",
    ),
    "rebuild too early": (
        lambda: (opener(), None, RebuildStock(())),
        "R10.1: the stock is rebuilt only when it has run out",
    ),
    "a seat rebuilds": (
        lambda: (rebuilding(), 0, RebuildStock(rebuilding().discard_pile[:-1])),
        "R10.1: the table rebuilds the stock, not a seat",
    ),
    "wrong new stock": (
        lambda: (rebuilding(), None, RebuildStock(())),
        "R10.1: the new stock must be exactly the 104 cards of the discard pile less its top "
        "card, each once",
    ),
    "play before draw": (
        lambda: (opener(), 0, Play((), 0)),
        "R3: draw first: a turn starts with a draw",
    ),
    "card used twice": (
        _used_twice,
        "R3: operation 2: 9H is already used in this play",
    ),
    "card not in hand": (_not_in_hand, "R3: operation 1: card id 200 is not in your hand"),
    "no such meld": (
        lambda: (
            s := drawn(opener(opened=[0])),
            0,
            Play((Attach(3, ids(s, 0, "2C")),), one(s, 0, "5D")),
        ),
        "R6.1: operation 1: there is no meld 3 on the table (0 melds)",
    ),
    "opening short": (_opening_37, "R5.1: opening melds total 37 points, 40 needed"),
    "taken card outside the opening": (
        _taken_outside_opening,
        "R3.2: the card taken from the discard pile must be inside the opening melds",
    ),
    "unopened takes the discard": (
        _unopened_takes_without_opening,
        "R3.2: a player who has not opened may take the discard (9C) only to open with it "
        "in this turn (or put it back)",
    ),
    "opened takes the discard": (
        _opened_takes_without_using,
        "R3.2: the card taken from the discard pile (7S) must be used in this turn: in a new "
        "meld, attached, or put in a joker's place (or put back)",
    ),
    "kept joker": (
        _kept_joker,
        "R7.2: a joker taken from the table must be used in this turn, before the discard",
    ),
    "attach before opening": (
        _attach_before_opening,
        "R6.1: operation 1: only a player who has opened may attach (opening melds so far "
        "total 0 points, 40 needed)",
    ),
    "swap before opening": (
        _swap_before_opening,
        "R7.1: operation 1: only a player who has opened may swap a joker (opening melds so "
        "far total 0 points, 40 needed)",
    ),
    "swap before the taken card is laid": (
        _swap_before_taken_is_laid,
        "R7.3: operation 2: the opening is complete only with the card taken from the discard "
        "pile laid in it: you may swap a joker only after that",
    ),
    "not the meld's owner": (
        _not_owner,
        "R7.4: operation 1: only the player who laid a meld may take its joker: seat 1 laid "
        "this one",
    ),
    "agreed card attached": (
        _agreed_attach,
        "R8.2: operation 1: 8C was discarded though it could be attached (di comune accordo): "
        "who takes it may not attach it to a meld on the table in this turn",
    ),
    "first turn close": (
        _first_turn_close(False),
        "R9.2: nobody may go out in their own first turn",
    ),
    "first turn close after the pickup": (
        _first_turn_close(True),
        "R9.2: nobody may go out in their own first turn after taking the discard",
    ),
    "no discard": (
        lambda: (drawn(opener()), 0, Play(())),
        "R8.1: every turn ends with exactly one discard",
    ),
    "nothing left to discard": (
        lambda: (
            s := drawn(position(hands={0: "2H 3H 4H", 1: ""}, opened=[0], stock_top="5H")),
            0,
            Play((NewMeld(ids(s, 0, "2H 3H 4H 5H")),)),
        ),
        "R9.1: ending a turn with no card left to discard is not allowed: keep one to discard",
    ),
    "discard used in the play": (
        lambda: (
            s := drawn(opener(opened=[0])),
            0,
            Play((NewMeld(ids(s, 0, "9H 9D 9C")),), one(s, 0, "9H")),
        ),
        "R8.1: the discard 9H is used in this play",
    ),
    "discard not in hand": (
        lambda: (drawn(opener()), 0, Play((), 200)),
        "R8.1: the discard card id 200 is not in your hand",
    ),
    "discard the taken card": (
        lambda: (
            s := drawn(
                position(FREE_PICKUP, hands={0: "2C 3D", 1: ""}, discard_pile="7S"), DISCARD
            ),
            0,
            Play((), s.taken_discard),
        ),
        "R3.3: 7S was taken from the discard pile this turn: discard another card",
    ),
    "joker as the closing discard": (
        lambda: (
            s := drawn(position(hands={0: "2H 3H 4H", 1: ""}, opened=[0], stock_top="JK")),
            0,
            Play((NewMeld(ids(s, 0, "2H 3H 4H")),), s.hand(0)[-1]),
        ),
        "R8.3: a joker may never be the closing discard",
    ),
    "classic attachable discard": (
        _discard_attachable(DiscardAttachable.CLASSIC),
        "R8.2: 8C could be attached to a meld on the table: a player who has not opened may "
        "not discard it",
    ),
    "never attachable discard": (
        _discard_attachable(DiscardAttachable.NEVER),
        "R8.2: 8C could be attached to a meld on the table: nobody may discard it, not even "
        "to go out",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_r12_every_refusal_names_its_rule_in_plain_words(case: str) -> None:
    build, sentence = CASES[case]
    state, seat, action = build()
    with pytest.raises(RuleViolation) as info:
        apply(state, seat, action)  # type: ignore[arg-type]
    assert str(info.value) == sentence


@pytest.mark.parametrize(
    ("kwargs", "sentence"),
    [
        ({"seats": (0, 0)}, "R1.2: a seat is listed twice"),
        ({"dealer": 5}, "R2.1: the dealer, seat 5, is not among the seats in play"),
        ({"deck": ()}, "R1.1: the deck must hold each of the 108 cards exactly once"),
        ({"totals": (0,)}, "R9.4: one total per seat in play: 2, not 1"),
    ],
)
def test_r12_every_refusal_of_a_deal_start_names_its_rule(
    kwargs: dict[str, object], sentence: str
) -> None:
    start: dict[str, object] = {
        "ruleset": Ruleset(),
        "seats": (0, 1),
        "dealer": 1,
        "deck": tuple(range(108)),
        **kwargs,
    }
    with pytest.raises(RuleViolation) as info:
        start_deal(**start)  # type: ignore[arg-type]
    assert str(info.value) == sentence


def test_r12_a_play_of_something_that_is_not_an_operation_is_refused() -> None:
    state = drawn(opener())
    with pytest.raises(RuleViolation) as info:
        apply(state, 0, Play((ReturnDiscard(),), one(state, 0, "2C")))  # type: ignore[arg-type]
    assert str(info.value) == "operation 1: ReturnDiscard is not an operation of a play"


# The table's own actions and what the host refuses before the engine sees it
# (NOT_IN_DEAL, NO_DEAL): no player's request reaches these.
NOT_A_PLAYERS_MOVE = {
    "not playing",
    "over",
    "a seat plays for the table",
    "rebuild too early",
    "a seat rebuilds",
    "wrong new stock",
}


@pytest.mark.parametrize("case", sorted(set(CASES) - NOT_A_PLAYERS_MOVE))
def test_r12_every_refusal_of_a_move_has_a_reason_code_and_an_italian_sentence(case: str) -> None:
    build, _ = CASES[case]
    state, seat, action = build()
    with pytest.raises(RuleViolation) as info:
        apply(state, seat, action)  # type: ignore[arg-type]
    refusal = info.value
    assert refusal.code is not None and refusal.code.isupper(), refusal.code
    assert refusals.localized(refusal, "it") != refusals.localized(refusal, "en")
