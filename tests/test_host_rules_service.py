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


async def check_under(
    served: HostClient, options: ruleset_pb2.RulesetOptions, *melds: rules_service_pb2.ProposedMeld
) -> rules_service_pb2.CheckMeldsResponse:
    request = rules_service_pb2.CheckMeldsRequest(
        ruleset=ruleset_pb2.Ruleset(options=options), melds=melds
    )
    response: rules_service_pb2.CheckMeldsResponse = await served.rules.CheckMelds(request)
    return response


async def test_r4_6_check_melds_lays_sequences_as_the_engine_does_under_max_run(
    served: HostClient,
) -> None:
    four = ruleset_pb2.RulesetOptions(max_run=4)
    hearts = [card_id(r, H) for r in range(2, 9)]
    # 2H..6H: five cards, and no cut into runs of 3-4 makes five.
    answer = await check_under(served, four, meld(*hearts[:5]))
    assert (answer.melds[0].valid, answer.melds[0].rule) == (False, "R4.6")
    assert not answer.would_open
    # 2H..7H: six cards are cut 3+3 by themselves.
    answer = await check_under(served, four, meld(*hearts[:6]))
    assert answer.melds[0].valid and list(answer.melds[0].split) == [3, 3]
    # 2H..8H: seven cards need the player's cut.
    answer = await check_under(served, four, meld(*hearts))
    assert (answer.melds[0].valid, answer.melds[0].rule) == (False, "R4.6")
    split = rules_service_pb2.ProposedMeld(cards=hearts, split=[4, 3])
    answer = await check_under(served, four, split)
    assert answer.melds[0].valid and list(answer.melds[0].split) == [4, 3]
    assert answer.melds[0].points == sum(range(2, 9))
    # Without max_run the same five cards are one valid meld, whole.
    answer = await check_under(served, ruleset_pb2.RulesetOptions(), meld(*hearts[:5]))
    assert answer.melds[0].valid and not answer.melds[0].split


async def test_r4_4_joker_as_is_checked_when_given_and_needed_for_a_group_of_three(
    served: HostClient,
) -> None:
    seq = rules_service_pb2.ProposedMeld(
        cards=[card_id(2, H), card_id(3, H), joker_id(0)], joker_as=cards_pb2.Face(rank=1, suit=1)
    )
    answer = await check(served, seq)
    assert (answer.melds[0].valid, answer.melds[0].rule) == (False, "R4.4")
    assert answer.melds[0].reason == "the joker here stands for 4H, not AH"
    filled = await check(served, meld(card_id(2, H), card_id(3, H), joker_id(0)))
    assert filled.melds[0].valid and filled.melds[0].joker.stands_for.rank == 4
    three = await check(served, meld(card_id(9, H), card_id(9, D), joker_id(0)))
    assert (three.melds[0].valid, three.melds[0].rule) == (False, "R4.4")
    assert three.melds[0].reason == "the joker must declare the card it stands for (9C or 9S)"
    four = await check(served, meld(card_id(9, H), card_id(9, D), card_id(9, C), joker_id(0)))
    assert four.melds[0].valid and four.melds[0].joker.stands_for.suit == cards_pb2.SUIT_SPADES
    none = rules_service_pb2.ProposedMeld(
        cards=[card_id(2, H), card_id(3, H), card_id(4, H)],
        joker_as=cards_pb2.Face(rank=5, suit=1),
    )
    answer = await check(served, none)
    assert (answer.melds[0].valid, answer.melds[0].rule) == (False, "R4.4")
