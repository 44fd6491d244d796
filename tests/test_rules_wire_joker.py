"""R4.4 as the host reads joker_as off the wire (cards.proto, PROTOCOL.md): never ignored."""

import pytest

from scala40_net import wire
from scala40_net.actions import Draw, DrawSource
from scala40_net.cards import parse_faces, pick_from_hand
from scala40_net.deal import DealState, apply
from scala40_net.errors import RuleViolation
from scala40_net.pb import cards_pb2
from scala40_net.scenario import position


def ids(state: DealState, text: str) -> list[int]:
    return list(pick_from_hand(parse_faces(text), state.hand(0)))


def face(rank: int, suit: int) -> cards_pb2.Face:
    return cards_pb2.Face(rank=rank, suit=suit)  # type: ignore[arg-type]


def played(state: DealState, op: cards_pb2.Operation, discard: int) -> DealState:
    return apply(state, 0, wire.play_from_pb([op], discard))[0]


def refused(state: DealState, op: cards_pb2.Operation, discard: int) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        played(state, op, discard)
    return info.value


@pytest.fixture
def state() -> DealState:
    start = position(
        hands={0: "2H 3H JK 9H 9D 9C 7C 7D", 1: ""},
        table=["4C 5C 6C"],
        opened=[0],
        stock_top="KD",
    )
    return apply(start, 0, Draw(DrawSource.STOCK))[0]


def test_r4_4_a_sequence_joker_declared_against_its_place_is_refused(state: DealState) -> None:
    seq = ids(state, "2H 3H JK")
    wrong = cards_pb2.Operation(new_meld=cards_pb2.NewMeld(cards=seq, joker_as=face(1, 1)))
    err = refused(state, wrong, ids(state, "KD")[0])
    assert str(err) == "R4.4: operation 1: the joker here stands for 4H, not AH"
    bare = cards_pb2.Operation(new_meld=cards_pb2.NewMeld(cards=seq))
    after = played(state, bare, ids(state, "KD")[0])
    assert str(after.table[-1].joker_as) == "4H"


def test_r4_4_a_group_of_three_needs_joker_as(state: DealState) -> None:
    group = ids(state, "9H 9D JK")
    bare = cards_pb2.Operation(new_meld=cards_pb2.NewMeld(cards=group))
    err = refused(state, bare, ids(state, "KD")[0])
    assert str(err) == (
        "R4.4: operation 1: the joker must declare the card it stands for (9C or 9S)"
    )
    named = cards_pb2.Operation(new_meld=cards_pb2.NewMeld(cards=group, joker_as=face(9, 4)))
    assert str(played(state, named, ids(state, "KD")[0]).table[-1].joker_as) == "9S"


def test_r4_4_attaching_a_joker_always_needs_joker_as(state: DealState) -> None:
    joker = ids(state, "JK")
    bare = cards_pb2.Operation(attach=cards_pb2.Attach(meld_id=1, cards=joker))
    err = refused(state, bare, ids(state, "KD")[0])
    assert (
        str(err)
        == "R4.4: operation 1: the attached joker must declare the card it stands for (3C or 7C)"
    )
    end = cards_pb2.Operation(attach=cards_pb2.Attach(meld_id=1, cards=joker, joker_as=face(7, 3)))
    assert str(played(state, end, ids(state, "KD")[0]).table[0].joker_as) == "7C"
    plain = cards_pb2.Attach(meld_id=1, cards=ids(state, "7C"), joker_as=face(7, 3))
    err = refused(state, cards_pb2.Operation(attach=plain), ids(state, "KD")[0])
    assert str(err) == "R4.4: operation 1: no joker is attached, so nothing to declare"
