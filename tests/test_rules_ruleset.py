"""Rulesets: options, the presets of RULES.md and the combinations refused (R1, R11)."""

import pytest

from scala40_net.errors import InvalidRuleset, OptionOutOfRange
from scala40_net.rules import (
    CHOICES,
    OPTION_RANGES,
    RIENTRO_CEILING,
    DiscardAttachable,
    DiscardPickup,
    LoneAce,
    MatchMode,
    Ruleset,
    UnopenedPenalty,
    preset,
    with_options,
)


def test_presets_classic_is_the_default() -> None:
    classic = preset("classic", 4)
    assert classic == Ruleset()
    assert classic.decks == 2
    assert classic.discard_pickup is DiscardPickup.CLASSIC
    assert classic.discard_attachable is DiscardAttachable.CLASSIC
    assert not classic.close_without_discard
    assert classic.unopened_penalty is UnopenedPenalty.FLAT100
    assert classic.max_run is None and not classic.rientro


def test_presets_tradizionale_follows_004() -> None:
    trad = preset("tradizionale", 5)
    assert trad.discard_attachable is DiscardAttachable.NEVER
    assert trad.max_run == 5 and trad.rientro
    # 004: "tutti gli avversari … pagano … le carte rimaste loro in mano", opened or not.
    assert trad.unopened_penalty is UnopenedPenalty.HAND
    assert trad.discard_pickup is DiscardPickup.OPEN_WITH_IT
    assert not trad.closing_in_hand_double


def test_presets_semplice_uses_one_deck_for_two_players_else_two() -> None:
    two = preset("semplice", 2)
    assert two.decks == 1 and two.deck_size == 54
    assert preset("semplice", 3).decks == 2
    for rules in (two, preset("semplice", 4)):
        assert rules.discard_pickup is DiscardPickup.FREE
        assert rules.close_without_discard
        assert rules.unopened_penalty is UnopenedPenalty.DOUBLE
        # 003_…: "Asso: 11 punti", with no exception.
        assert rules.lone_ace is LoneAce.NEVER
        # 003_… is silent on discarding an attachable card: 000_…'s answer.
        assert rules.discard_attachable is DiscardAttachable.CLASSIC


def test_presets_semplice_is_for_2_to_4_players() -> None:
    # 003_…: "per 2-4 giocatori"; with its one deck, at most 3 (R1.1).
    assert preset("semplice", 4).max_players == 4
    assert preset("semplice", 2).max_players == 3
    with pytest.raises(InvalidRuleset, match=r"R1.2"):
        preset("semplice", 5)


def test_presets_unknown_name_is_refused() -> None:
    with pytest.raises(InvalidRuleset, match="unknown preset"):
        preset("burraco", 4)


def test_r1_1_one_deck_only_for_two_or_three_players() -> None:
    # 003_… plays one deck with 2 players and notes "un solo mazzo di carte anche con 3
    # giocatori".
    with pytest.raises(InvalidRuleset, match=r"R1.1: one deck is allowed for 2 or 3 players"):
        Ruleset(decks=1)
    with pytest.raises(InvalidRuleset, match=r"R1.1"):
        Ruleset(decks=1, max_players=4)
    rules = Ruleset(decks=1, max_players=3)
    rules.check_players(2)
    rules.check_players(3)
    with pytest.raises(InvalidRuleset, match=r"R1"):
        rules.check_players(4)


def test_r1_1_decks_are_one_or_two() -> None:
    with pytest.raises(InvalidRuleset, match=r"R1.1"):
        Ruleset(decks=3)


def test_r1_2_two_to_six_players_up_to_max_players() -> None:
    Ruleset().check_players(6)
    with pytest.raises(InvalidRuleset, match=r"R1.2"):
        Ruleset().check_players(7)
    with pytest.raises(InvalidRuleset, match=r"R1.2"):
        Ruleset().check_players(1)
    with pytest.raises(InvalidRuleset, match=r"R1.2"):
        Ruleset(max_players=4).check_players(5)
    with pytest.raises(InvalidRuleset, match=r"R1.2"):
        Ruleset(max_players=7)


def test_r11_4_pairs_only_with_four_players() -> None:
    rules = Ruleset(pairs=True)
    rules.check_players(4)
    with pytest.raises(InvalidRuleset, match=r"R11.4"):
        rules.check_players(6)
    with pytest.raises(InvalidRuleset, match=r"R11.4"):
        Ruleset(pairs=True, max_players=3)


def test_r11_3_rientro_only_individually_and_to_points() -> None:
    with pytest.raises(InvalidRuleset, match=r"R11.3"):
        Ruleset(pairs=True, rientro=True)
    with pytest.raises(InvalidRuleset, match=r"R11.3"):
        Ruleset(rientro=True, match_mode=MatchMode.DEALS)


def test_r4_6_max_run_is_off_or_at_least_three() -> None:
    with pytest.raises(InvalidRuleset, match=r"R4.6"):
        Ruleset(max_run=2)
    assert Ruleset(max_run=3).max_run == 3


def test_r9_6_closer_bonus_is_zero_or_negative() -> None:
    assert Ruleset(closer_bonus=-10).closer_bonus == -10
    with pytest.raises(InvalidRuleset, match=r"R9.6"):
        Ruleset(closer_bonus=10)


def test_other_options_are_range_checked() -> None:
    for bad in (
        {"opening_points": -1},
        {"stall_rebuilds": 0},
        {"bust_at": 0},
        {"deals": 0},
        {"rientro_fee": -1},
        {"rientro_max": 0},
    ):
        with pytest.raises(InvalidRuleset):
            Ruleset(**bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("option", sorted(OPTION_RANGES))
def test_r12_every_integer_option_is_checked_against_its_range(option: str) -> None:
    allowed = OPTION_RANGES[option]
    ok = {"max_players": 2} if option == "decks" else {}
    for value in (allowed.low, allowed.high):
        assert getattr(Ruleset(**{option: value, **ok}), option) == value  # type: ignore[arg-type]
    for value in (allowed.low - 1, allowed.high + 1, 2**31, True, "3"):
        with pytest.raises(OptionOutOfRange) as info:
            Ruleset(**{option: value, **ok})  # type: ignore[arg-type]
        error = info.value
        assert isinstance(error, InvalidRuleset) and isinstance(error, ValueError)
        assert (error.option, error.allowed, error.rule) == (option, allowed.text, allowed.rule)
        assert str(error) == f"{allowed.rule}: {option} is {allowed.text}, not {value!r}"
    if allowed.off:
        assert getattr(Ruleset(**{option: None, **ok}), option) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("option", sorted(CHOICES))
def test_r12_every_choice_option_refuses_a_value_it_does_not_have(option: str) -> None:
    rule, kind = CHOICES[option]
    with pytest.raises(OptionOutOfRange) as info:
        Ruleset(**{option: "sometimes"})  # type: ignore[arg-type]
    assert info.value.option == option and info.value.rule == rule
    if kind is not None:
        for member in kind:
            assert getattr(Ruleset(**{option: str(member)}), option) is member  # type: ignore[arg-type]


def test_ranges_keep_every_score_and_fee_inside_its_wire_type() -> None:
    # The largest deal penalty: 4 jokers, 8 aces and a king (198), doubled (R9.3 or R9.5).
    worst_hand = 4 * 25 + 8 * 11 + 10
    assert 2 * worst_hand <= 2**31 - 1
    assert OPTION_RANGES["closer_bonus"].low >= -(2**31)
    # The dearest buy-back: the last one allowed, doubling (uint32 RientroOffer.fee).
    fee = OPTION_RANGES["rientro_fee"].high * 2 ** (RIENTRO_CEILING - 1)
    assert fee <= 2**32 - 1
    # Totals (int64) over the most deals a table can number (be32 deal numbers).
    deals = 2**32 - 1
    step = max(2 * worst_hand, -OPTION_RANGES["closer_bonus"].low)
    assert OPTION_RANGES["bust_at"].high + deals * step <= 2**63 - 1
    # Chips (int64): per deal each of 5 opponents pays the closer at most a fee.
    assert deals * 5 * OPTION_RANGES["rientro_fee"].high + 6 * RIENTRO_CEILING * fee <= 2**63 - 1


def test_with_options_changes_and_revalidates() -> None:
    rules = with_options(Ruleset(), opening_points=51, bust_at=151)
    assert (rules.opening_points, rules.bust_at) == (51, 151)
    with pytest.raises(InvalidRuleset, match="unknown option"):
        with_options(Ruleset(), colour="red")
    with pytest.raises(InvalidRuleset):
        with_options(Ruleset(), decks=1)


def test_rulesets_are_immutable_and_hashable() -> None:
    rules = Ruleset()
    with pytest.raises(AttributeError):
        rules.decks = 1  # type: ignore[misc]
    assert hash(rules) == hash(Ruleset())
