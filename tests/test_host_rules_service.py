"""RulesService over gRPC answers the examples of RULES.md R5.2 and names broken rules (R4)."""

from __future__ import annotations

import grpc
import pytest
from conftest import HostClient

from scala40_net.cards import Suit, card_id, joker_id
from scala40_net.pb import cards_pb2, rules_service_pb2, ruleset_pb2

H, D, C, S = Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS, Suit.SPADES


def meld(*cards: int) -> rules_service_pb2.ProposedMeld:
    return rules_service_pb2.ProposedMeld(cards=cards)


async def check(
    served: HostClient, *melds: rules_service_pb2.ProposedMeld
) -> rules_service_pb2.CheckMeldsResponse:
    request = rules_service_pb2.CheckMeldsRequest(ruleset=ruleset_pb2.Ruleset(), melds=melds)
    response: rules_service_pb2.CheckMeldsResponse = await served.rules.CheckMelds(request)
    return response


async def test_r5_2_nine_nine_nine_and_ten_jack_queen_open_with_57(served: HostClient) -> None:
    answer = await check(
        served,
        meld(card_id(9, H), card_id(9, D), card_id(9, C)),
        meld(card_id(10, S), card_id(11, S), card_id(12, S)),
    )
    assert [(m.valid, m.kind, m.points) for m in answer.melds] == [
        (True, cards_pb2.MELD_KIND_GROUP, 27),
        (True, cards_pb2.MELD_KIND_SEQUENCE, 30),
    ]
    assert (answer.total_points, answer.opening_points, answer.would_open) == (57, 40, True)


async def test_r5_2_four_four_four_and_three_to_seven_make_37_and_do_not_open(
    served: HostClient,
) -> None:
    answer = await check(
        served,
        meld(card_id(4, H), card_id(4, D), card_id(4, C)),
        meld(*(card_id(r, S) for r in range(3, 8))),
    )
    assert [m.points for m in answer.melds] == [12, 25]
    assert (answer.total_points, answer.would_open) == (37, False)


async def test_r5_2_ace_low_ace_high_and_the_joker_for_eight(served: HostClient) -> None:
    answer = await check(
        served,
        meld(card_id(1, H), card_id(2, H), card_id(3, H)),
        meld(card_id(12, C), card_id(13, C), card_id(1, C)),
        meld(card_id(7, D), joker_id(), card_id(9, D)),
    )
    assert [m.points for m in answer.melds] == [6, 31, 24]
    joker = answer.melds[2].joker
    assert joker.joker == joker_id() and (joker.stands_for.rank, joker.stands_for.suit) == (
        8,
        cards_pb2.SUIT_DIAMONDS,
    )
    assert answer.total_points == 61 and answer.would_open


async def test_a_broken_meld_names_its_rule_and_a_card_used_twice_is_refused(
    served: HostClient,
) -> None:
    answer = await check(
        served,
        meld(card_id(13, H), card_id(1, H), card_id(2, H)),
        meld(card_id(9, H), card_id(9, H, copy=1), card_id(9, C)),
        meld(card_id(5, H), joker_id(), joker_id(1)),
    )
    assert [(m.valid, m.rule) for m in answer.melds] == [
        (False, "R4.1"),
        (False, "R4.2"),
        (False, "R4.3"),
    ]
    assert all(m.reason for m in answer.melds) and not answer.would_open
    twice = await check(
        served,
        meld(card_id(9, H), card_id(9, D), card_id(9, C)),
        meld(card_id(9, C), card_id(10, C), card_id(11, C)),
    )
    assert twice.rule == "R4" and "two melds" in twice.reason and not twice.would_open


async def test_a_malformed_check_is_refused(served: HostClient) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await check(served, meld(card_id(9, H), 999, card_id(9, C)))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
