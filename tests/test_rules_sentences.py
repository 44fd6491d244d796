"""R12: refusal sentences that must say what is wrong, each word for word in English and Italian.

Each case is a refusal seen in play that named the wrong thing: a cut that does not
exist, one face of two, the ace when the K was wrong, a rule number missing.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scala40_net import refusals
from scala40_net.actions import Attach, Draw, DrawSource, NewMeld, Play, SwapJoker
from scala40_net.cards import parse_faces, pick_from_hand
from scala40_net.deal import DealState, apply
from scala40_net.errors import RuleViolation
from scala40_net.melds import attach, make_meld, split_run
from scala40_net.rules import DiscardAttachable, Ruleset
from scala40_net.scenario import CardPool, position


def refused(call: Callable[[], object]) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        call()
    return info.value


def both(refusal: RuleViolation) -> tuple[str, str]:
    return refusals.localized(refusal, "en"), refusals.localized(refusal, "it")


def ids(state: DealState, seat: int, text: str) -> tuple[int, ...]:
    return tuple(pick_from_hand(parse_faces(text), state.hand(seat)))


def played(state: DealState, play: Play) -> RuleViolation:
    return refused(lambda: apply(state, state.turn, play))


def cut(text: str, max_run: int, lengths: tuple[int, ...] = ()) -> RuleViolation:
    meld = CardPool().meld(text)
    return refused(lambda: split_run(meld, max_run, lengths))


# R4.6: the cuts named are the cuts there are.


def test_r4_6_say_the_cut_lists_the_cuts_that_exist() -> None:
    assert both(cut("3H 4H 5H 6H 7H 8H 9H", 4)) == (
        "R4.6: a sequence on the table has at most 4 cards: say how to cut these 7 (3+4 or 4+3)",
        "R4.6: una scala sul tavolo ha al massimo 4 carte: di' come tagliare queste 7 (3+4 o 4+3)",
    )


def test_r4_6_a_sequence_no_cut_can_make_is_said_so() -> None:
    # Was: "say how to cut these 5 into runs of 3 to 4" (no such cut exists).
    assert both(cut("3H 4H 5H 6H 7H", 4)) == (
        "R4.6: a sequence on the table has at most 4 cards, and no cut makes runs of 3 to 4 "
        "of these 5",
        "R4.6: una scala sul tavolo ha al massimo 4 carte, e nessun taglio fa di queste 5 "
        "scale da 3 a 4",
    )
    # Was: "cut 7 cards into runs of 3 to 3 cards, not 3+4".
    assert cut("3H 4H 5H 6H 7H 8H 9H", 3, (3, 4)).code == "CANNOT_BE_CUT"


def test_r4_6_a_bad_cut_is_answered_with_the_good_ones() -> None:
    assert both(cut("3H 4H 5H 6H 7H 8H 9H 10H", 5, (4, 3, 1))) == (
        "R4.6: these 8 cards are cut 3+5 or 4+4 or 5+3, not 4+3+1",
        "R4.6: queste 8 carte si tagliano 3+5 o 4+4 o 5+3, non 4+3+1",
    )


# R4.4: a joker attached with other cards may stand beyond them.


def test_r4_4_an_undeclared_joker_attached_with_a_card_lists_both_ends() -> None:
    pool = CardPool()
    meld = pool.meld("5H 6H 7H")
    cards = pool.cards("8H JK")
    assert both(refused(lambda: attach(meld, cards))) == (
        "R4.4: the attached joker must declare the card it stands for (4♥ or 9♥)",
        "R4.4: il jolly attaccato deve dichiarare la carta che rappresenta (4♥ o 9♥)",
    )


def test_r4_4_a_joker_attached_to_a_sequence_is_of_its_suit() -> None:
    pool = CardPool()
    meld = pool.meld("4H 5H 6H")
    (joker,) = pool.cards("JK")
    refusal = refused(lambda: attach(meld, (joker,), parse_faces("7S")[0]))
    # Was: "a H card".
    assert both(refusal) == (
        "R4.4: a joker attached here stands for a card of ♥, not 7♠",
        "R4.4: un jolly attaccato qui sta per una carta di ♥, non per 7♠",
    )


# R4.1: the card that does not fit is the one named.


def test_r4_1_the_k_beside_a_low_ace_is_named() -> None:
    cards = CardPool().cards("AH 2H 3H KH")
    assert both(refused(lambda: make_meld(cards))) == (
        "R4.1: K♥ does not fit: an ace goes below the 2 or above the K, never between them",
        "R4.1: K♥ non ci sta: l'asso va sotto il 2 o sopra il K, mai in mezzo",
    )


def test_r4_2_a_two_card_group_is_too_short_under_the_group_rule() -> None:
    cards = CardPool().cards("9H 9D")
    assert both(refused(lambda: make_meld(cards))) == (
        "R4.2: a meld has at least 3 cards, 9♥ 9♦ has 2",
        "R4.2: un gioco ha almeno 3 carte, 9♥ 9♦ ne ha 2",
    )


# R6.1: a card already in the meld is not a card listed twice.


def test_r6_1_a_card_already_in_the_meld() -> None:
    meld = CardPool().meld("4H 5H 6H")
    assert both(refused(lambda: attach(meld, meld.cards[:1]))) == (
        "R6.1: 4♥ is already in the meld 4♥ 5♥ 6♥",
        "R6.1: 4♥ è già nel gioco 4♥ 5♥ 6♥",
    )


# R8.2 agreed: the refused move is said as it is, an attach or a swap.


def test_r8_2_agreed_a_joker_swap_with_the_marked_card_is_said_as_a_swap() -> None:
    rules = Ruleset(discard_attachable=DiscardAttachable.AGREED)
    state = position(
        rules,
        hands={0: "8C 2D 5S", 1: "KS 3S 9C 9D"},
        table=["5C 6C 7C", "8H 8D JK=8C"],
        opened=[0, 1],
    )
    state = apply(state, 0, Draw(DrawSource.STOCK))[0]
    state = apply(state, 0, Play((), ids(state, 0, "8C")[0]))[0]
    state = apply(state, 1, Draw(DrawSource.DISCARD))[0]
    eight = state.taken_discard
    joker = state.table[1].joker
    assert eight is not None and joker is not None
    swap = SwapJoker(1, eight)
    group = NewMeld((*ids(state, 1, "9C 9D"), joker), parse_faces("9S")[0])
    assert both(played(state, Play((swap, group), ids(state, 1, "KS")[0]))) == (
        "R8.2: operation 1: 8♣ was discarded though it could be attached (di comune accordo): "
        "who takes it may not put it in a joker's place on the table in this turn",
        "R8.2: mossa 1: 8♣ è stata scartata pur potendosi attaccare (di comune accordo): chi "
        "la prende non può metterla al posto di un jolly sul tavolo in questo turno",
    )
    attach_it = Play((Attach(0, (eight,)),), ids(state, 1, "KS")[0])
    assert both(played(state, attach_it))[1] == (
        "R8.2: mossa 1: 8♣ è stata scartata pur potendosi attaccare (di comune accordo): chi "
        "la prende non può attaccarla a un gioco sul tavolo in questo turno"
    )


# R12: every refusal names a rule.


def test_r12_a_card_not_in_hand_a_card_used_twice_and_a_meld_not_there_name_their_rule() -> None:
    state = position(hands={0: "9H 9D 9C 2C", 1: "KS"}, table=["5C JK=6C 7C"], opened=[0])
    state = apply(state, 0, Draw(DrawSource.STOCK))[0]
    nines = ids(state, 0, "9H 9D 9C")
    two = ids(state, 0, "2C")[0]
    (king,) = CardPool().cards("KH")
    assert both(played(state, Play((NewMeld(nines), Attach(0, nines[:1])), two))) == (
        "R3: operation 2: 9♥ is already used in this play",
        "R3: mossa 2: 9♥ è già usata in questa giocata",
    )
    assert both(played(state, Play((Attach(0, (king,)),), two))) == (
        "R3: operation 1: K♥ is not in your hand",
        "R3: mossa 1: K♥ non è nella tua mano",
    )
    assert both(played(state, Play((Attach(4, nines[:1]),), two))) == (
        "R6.1: operation 1: there is no meld 4 on the table (1 melds)",
        "R6.1: mossa 1: non c'è il gioco 4 sul tavolo (1 giochi)",
    )
    assert played(state, Play((SwapJoker(4, nines[0]),), two)).rule == "R7.1"


# R3.2 and R8.2 never: the sentences say every use, and that going out is no exception.


def test_r3_2_and_r8_2_never_sentences() -> None:
    state = position(hands={0: "7H 8H 2C 3D", 1: ""}, table=["4S 5S 6S"], opened=[0])
    state = apply(state, 0, Draw(DrawSource.DISCARD))[0]  # 5♣, the position's pile
    assert both(played(state, Play((), ids(state, 0, "2C")[0]))) == (
        "R3.2: the card taken from the discard pile (5♣) must be used in this turn: in a new "
        "meld, attached, or put in a joker's place (or put back)",
        "R3.2: la carta presa dal pozzo (5♣) va usata in questo turno: in un nuovo gioco, "
        "attaccata o messa al posto di un jolly (o rimessa)",
    )
    never = Ruleset(discard_attachable=DiscardAttachable.NEVER)
    state = position(
        never,
        hands={0: "2H 3H 4H", 1: "KD"},
        table=["5C 6C 7C"],
        opened=[0],
        stock_top="8C",
    )
    state = apply(state, 0, Draw(DrawSource.STOCK))[0]
    eight = ids(state, 0, "8C")[0]
    assert both(played(state, Play((NewMeld(ids(state, 0, "2H 3H 4H")),), eight))) == (
        "R8.2: 8♣ could be attached to a meld on the table: nobody may discard it, not even "
        "to go out",
        "R8.2: 8♣ si potrebbe attaccare a un gioco sul tavolo: nessuno può scartarlo, nemmeno "
        "per chiudere",
    )
