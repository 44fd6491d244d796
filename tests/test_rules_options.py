"""The options each source text needs (R3.2, R7.4, R8.2, R9.2-R9.5), each under every preset."""

from dataclasses import replace

import pytest

from scala40_net import wire
from scala40_net.actions import Attach, Draw, DrawSource, NewMeld, Play, SwapJoker
from scala40_net.cards import parse_face, parse_faces, pick_from_hand
from scala40_net.deal import DealState, apply, deal_penalties
from scala40_net.errors import RuleViolation
from scala40_net.pb import ruleset_pb2
from scala40_net.rules import (
    PRESETS,
    DiscardAttachable,
    DiscardPickup,
    FirstTurnClose,
    JokerSwap,
    LoneAce,
    Ruleset,
    UnopenedPenalty,
    preset,
    with_options,
)
from scala40_net.scenario import position
from scala40_net.views import playable_state, view_state

STOCK, DISCARD = Draw(DrawSource.STOCK), Draw(DrawSource.DISCARD)


def rules_of(name: str, **options: object) -> Ruleset:
    # No cut of long runs: these positions are about the option, not R4.6.
    return with_options(preset(name, 4), max_run=None, **options)


def ids(state: DealState, seat: int, text: str) -> tuple[int, ...]:
    return tuple(pick_from_hand(parse_faces(text), state.hand(seat)))


def one(state: DealState, seat: int, text: str) -> int:
    return ids(state, seat, text)[0]


def refusal(state: DealState, seat: int, action: object) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        apply(state, seat, action)  # type: ignore[arg-type]
    return info.value


# R9.5 unopened_penalty (item 1): flat 100, the hand (004), the hand doubled (003).
@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize(
    ("penalty", "paid"),
    [(UnopenedPenalty.FLAT100, 100), (UnopenedPenalty.HAND, 12), (UnopenedPenalty.DOUBLE, 24)],
)
def test_r9_5_unopened_penalty(name: str, penalty: UnopenedPenalty, paid: int) -> None:
    state = position(rules_of(name, unopened_penalty=penalty), hands={0: "", 1: "KD 2C"})
    assert deal_penalties(state, 0, False) == (0, paid)


@pytest.mark.parametrize("name", PRESETS)
def test_r9_5_hand_pays_like_an_opened_player_doubling_included(name: str) -> None:
    rules = rules_of(name, unopened_penalty=UnopenedPenalty.HAND, closing_in_hand_double=True)
    state = position(rules, hands={0: "", 1: "KD 2C"})
    assert deal_penalties(state, 0, True) == (0, 24)


# R9.3 closing_in_hand_double (item 2): only 000 doubles after a chiusura in mano.
@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize(("double", "paid"), [(True, 20), (False, 10)])
def test_r9_3_closing_in_hand_double(name: str, double: bool, paid: int) -> None:
    state = position(rules_of(name, closing_in_hand_double=double), hands={0: "", 1: "KD"})
    state = replace(state, opened=(True, True))
    assert deal_penalties(state, 0, True) == (0, paid)
    assert deal_penalties(state, 0, False) == (0, 10)


# R3.2 discard_pickup (item 3).
@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("pickup", list(DiscardPickup))
def test_r3_2_discard_pickup_for_an_opened_player(name: str, pickup: DiscardPickup) -> None:
    rules = rules_of(name, discard_pickup=pickup, discard_attachable=DiscardAttachable.FREE)
    state = position(rules, hands={0: "2C 3D 9S", 1: ""}, opened=[0], discard_pile="7S")
    state = apply(state, 0, DISCARD)[0]
    unused = Play((), one(state, 0, "2C"))
    if pickup is DiscardPickup.CLASSIC:
        err = refusal(state, 0, unused)
        assert err.rule == "R3.2" and "must be used" in err.reason
    else:
        # open_with_it (004): a player who has opened ("disceso") takes it freely.
        after, _ = apply(state, 0, unused)
        assert one(after, 0, "7S") in after.hand(0)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("pickup", list(DiscardPickup))
def test_r3_2_discard_pickup_for_an_unopened_player(name: str, pickup: DiscardPickup) -> None:
    rules = rules_of(name, discard_pickup=pickup, discard_attachable=DiscardAttachable.FREE)
    state = position(rules, hands={0: "9H 9D 10S JS QS 2C", 1: ""}, discard_pile="9C")
    state = apply(state, 0, DISCARD)[0]
    unused = Play((), one(state, 0, "2C"))
    if pickup is DiscardPickup.FREE:
        apply(state, 0, unused)
    else:
        err = refusal(state, 0, unused)
        assert err.rule == "R3.2" and "only to open with it" in err.reason
    opening = (NewMeld(ids(state, 0, "9H 9D 9C")), NewMeld(ids(state, 0, "10S JS QS")))
    assert apply(state, 0, Play(opening, one(state, 0, "2C")))[0].has_opened(0)


# R9.2 first_turn_close (item 4).
@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("mode", list(FirstTurnClose))
@pytest.mark.parametrize("source", [DrawSource.STOCK, DrawSource.DISCARD])
def test_r9_2_first_turn_close(name: str, mode: FirstTurnClose, source: DrawSource) -> None:
    rules = rules_of(name, first_turn_close=mode)
    where = {"stock_top": "5H"} if source is DrawSource.STOCK else {"discard_pile": "5H"}
    state = position(rules, hands={0: "2H 3H 4H 9C", 1: ""}, opened=[0], turns_played=0, **where)  # type: ignore[arg-type]
    state = apply(state, 0, Draw(source))[0]
    out = Play((NewMeld(ids(state, 0, "2H 3H 4H 5H")),), one(state, 0, "9C"))
    barred = mode is FirstTurnClose.NEVER or (
        mode is FirstTurnClose.NOT_AFTER_PICKUP and source is DrawSource.DISCARD
    )
    if barred:
        assert refusal(state, 0, out).rule == "R9.2"
    else:
        assert apply(state, 0, out)[0].is_over


def swap_and_lay(
    state: DealState, meld: int, card: str, pair: str, declared: str
) -> tuple[SwapJoker, NewMeld]:
    """Seat 0 puts ``card`` in place of meld ``meld``'s joker and lays it with ``pair`` (R7)."""
    joker = state.table[meld].joker
    assert joker is not None
    return (
        SwapJoker(meld, one(state, 0, card)),
        NewMeld((*ids(state, 0, pair), joker), parse_face(declared)),
    )


# R7.4 joker_swap (item 5).
@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("mode", list(JokerSwap))
@pytest.mark.parametrize("laid_by", [0, 1])
def test_r7_4_joker_swap(name: str, mode: JokerSwap, laid_by: int) -> None:
    state = position(
        rules_of(name, joker_swap=mode),
        hands={0: "5S 8H 9H 2C", 1: ""},
        table=["4S JK=5S 6S"],
        owners=[laid_by],
        opened=[0, 1],
        stock_top="KD",
    )
    state = apply(state, 0, STOCK)[0]
    swap = Play(swap_and_lay(state, 0, "5S", "8H 9H", "10H"), one(state, 0, "2C"))
    if mode is JokerSwap.OWNER and laid_by != 0:
        err = refusal(state, 0, swap)
        assert str(err) == (
            "R7.4: operation 1: only the player who laid a meld may take its joker: "
            "seat 1 laid this one"
        )
    else:
        assert apply(state, 0, swap)[0].table[0].joker is None


def test_r7_4_owner_counts_a_partners_meld_as_ones_own() -> None:
    rules = Ruleset(joker_swap=JokerSwap.OWNER, pairs=True)
    hands = {0: "5S 8H 9H 2C", 1: "", 2: "", 3: ""}
    state = position(
        rules, hands=hands, table=["4S JK=5S 6S"], owners=[2], opened=[0], stock_top="KD", turn=0
    )
    state = apply(state, 0, STOCK)[0]
    apply(state, 0, Play(swap_and_lay(state, 0, "5S", "8H 9H", "10H"), one(state, 0, "2C")))


# R8.2 discard_attachable=agreed (item 6).
@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("mode", list(DiscardAttachable))
def test_r8_2_discard_attachable(name: str, mode: DiscardAttachable) -> None:
    rules = rules_of(name, discard_attachable=mode, discard_pickup=DiscardPickup.CLASSIC)
    state = position(
        rules,
        hands={0: "8C 2D 5S", 1: "8D 8H KS 3S"},
        table=["5C 6C 7C"],
        opened=[1],
        stock_top="QH",
    )
    state = apply(state, 0, STOCK)[0]
    attachable = Play((), one(state, 0, "8C"))
    if mode in (DiscardAttachable.CLASSIC, DiscardAttachable.NEVER):
        assert refusal(state, 0, attachable).rule == "R8.2"
        return
    state = apply(state, 0, attachable)[0]
    eight = state.discard_pile[-1]
    assert state.agreed_discard == (eight if mode is DiscardAttachable.AGREED else None)
    state = apply(state, 1, DISCARD)[0]
    attach_it = Play((Attach(0, (eight,)),), one(state, 1, "KS"))
    if mode is DiscardAttachable.AGREED:
        err = refusal(state, 1, attach_it)
        assert err.rule == "R8.2" and "may not attach it" in err.reason
        # A new meld with it is allowed: only attaching it to a table meld is not.
        meld = Play((NewMeld((eight, *ids(state, 1, "8D 8H"))),), one(state, 1, "KS"))
        assert len(apply(state, 1, meld)[0].table) == 2
    else:
        assert len(apply(state, 1, attach_it)[0].table[0].cards) == 4


def test_r8_2_agreed_marks_only_a_discard_that_could_be_attached() -> None:
    rules = Ruleset(discard_attachable=DiscardAttachable.AGREED)
    state = position(rules, hands={0: "8C 2D 5S", 1: ""}, table=["5C 6C 7C"], stock_top="QH")
    state = apply(state, 0, STOCK)[0]
    after = apply(state, 0, Play((), one(state, 0, "2D")))[0]
    assert after.agreed_discard is None


# R9.4 lone_ace (item 7).
@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize(
    ("mode", "total", "paid"),
    [
        (LoneAce.ALWAYS, 0, 1),
        (LoneAce.ALWAYS, 99, 1),
        (LoneAce.AT_99, 99, 1),
        (LoneAce.AT_99, 98, 11),
        (LoneAce.AT_99, 0, 11),
        (LoneAce.NEVER, 99, 11),
        (LoneAce.SINGLE, 0, 1),
    ],
)
def test_r9_4_lone_ace(name: str, mode: LoneAce, total: int, paid: int) -> None:
    state = position(rules_of(name, lone_ace=mode), hands={0: "", 1: "AS"}, opened=[1])
    state = replace(state, totals=(0, total))
    assert deal_penalties(state, 0, False) == (0, paid)


@pytest.mark.parametrize(
    ("mode", "hand", "paid"),
    [
        # 000_…: "in caso il giocatore abbia un solo Asso in mano, esso vale 1 punto".
        (LoneAce.SINGLE, "AS KD 5C", 1 + 10 + 5),
        (LoneAce.SINGLE, "AS AD 5C", 11 + 11 + 5),
        (LoneAce.SINGLE, "AS JK", 1 + 25),
        # The other readings count an ace 1 only when it is the only card left.
        (LoneAce.ALWAYS, "AS KD 5C", 11 + 10 + 5),
        (LoneAce.NEVER, "AS", 11),
    ],
)
def test_r9_4_single_counts_the_one_ace_of_a_hand_1(mode: LoneAce, hand: str, paid: int) -> None:
    state = position(Ruleset(lone_ace=mode), hands={0: "", 1: hand}, opened=[1])
    assert deal_penalties(state, 0, False) == (0, paid)


def test_r9_4_at_99_follows_bust_at() -> None:
    rules = Ruleset(lone_ace=LoneAce.AT_99, bust_at=151)
    state = replace(position(rules, hands={0: "", 1: "AS"}, opened=[1]), totals=(0, 149))
    assert deal_penalties(state, 0, False) == (0, 1)


def test_r8_2_agreed_mark_is_in_every_seats_view_and_its_playable_state() -> None:
    rules = Ruleset(discard_attachable=DiscardAttachable.AGREED)
    state = position(rules, hands={0: "8C 2D 5S", 1: "KS 3S"}, table=["5C 6C 7C"], opened=[1])
    state = apply(state, 0, STOCK)[0]
    state = apply(state, 0, Play((), one(state, 0, "8C")))[0]
    eight = state.discard_pile[-1]
    view = view_state(state, 1)
    assert view.agreed_discard == eight
    assert playable_state(view).agreed_discard == eight


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize(
    ("option", "value"),
    [("discard_pickup", v) for v in DiscardPickup]
    + [("discard_attachable", v) for v in DiscardAttachable]
    + [("joker_swap", v) for v in JokerSwap]
    + [("first_turn_close", v) for v in FirstTurnClose]
    + [("closing_in_hand_double", v) for v in (True, False)]
    + [("lone_ace", v) for v in LoneAce]
    + [("unopened_penalty", v) for v in UnopenedPenalty],
)
def test_every_option_value_crosses_the_wire_and_back(
    name: str, option: str, value: object
) -> None:
    rules = with_options(preset(name, 4), **{option: value})
    message = wire.ruleset_to_pb(name, rules)
    assert wire.ruleset_from_pb(message, 4) == rules
    # Set alone over its preset, the option is read as given.
    alone = ruleset_pb2.Ruleset(preset=wire.PRESET_BY_NAME[name])
    field = getattr(message.options, option)
    setattr(alone.options, option, field)
    assert getattr(wire.ruleset_from_pb(alone, 4), option) == value


def test_r7_4_owner_keeps_the_joker_of_a_run_another_player_cut() -> None:
    # 003_…: "Il giocatore che ha calato una combinazione con un jolly può … sostituire il
    # jolly". Seat 1's 2♥ makes seat 0's run six cards, cut 3+3 (R4.6): the piece holding
    # the joker is still seat 0's, and seat 0 may take the joker.
    rules = Ruleset(joker_swap=JokerSwap.OWNER, max_run=5)
    state = position(
        rules,
        hands={0: "5H 8C 9C 2D", 1: "2H KS QS"},
        table=["3H 4H JK=5H 6H 7H"],
        owners=[0],
        opened=[0, 1],
        turn=1,
        stock_top="KD JD",
    )
    state = apply(state, 1, STOCK)[0]
    state = apply(state, 1, Play((Attach(0, ids(state, 1, "2H")),), one(state, 1, "KS")))[0]
    assert [len(m.cards) for m in state.table] == [3, 3]
    assert state.table[1].joker is not None and state.owners == (0, 0)
    state = apply(state, 0, STOCK)[0]
    ops = swap_and_lay(state, 1, "5H", "8C 9C", "10C")
    after = apply(state, 0, Play(ops, one(state, 0, "2D")))[0]
    assert after.table[1].joker is None
