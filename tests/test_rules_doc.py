"""docs/RULES.md and the code say the same: the preset table, the options table, R10.1."""

from __future__ import annotations

import re
from dataclasses import fields
from enum import StrEnum
from pathlib import Path

from hypothesis import assume, given
from hypothesis import strategies as st

from scala40_net.rules import CHOICES, MAX_PLAYERS, OPTION_RANGES, PRESETS, Ruleset, preset

DOCS = Path(__file__).resolve().parent.parent / "docs"
RULES_MD = (DOCS / "RULES.md").read_text(encoding="utf-8")


def table_after(heading: str) -> list[list[str]]:
    """The rows (header first) of the first Markdown table under ``heading``."""
    section = RULES_MD.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    cells = [
        [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows
    ]
    return [cells[0], *cells[2:]]  # without the |---| line


def written(value: object) -> str:
    """How the tables write an option's value."""
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def cell_value(cell: str, players: int, value: object) -> str:
    if cell == "1 for 2 players, else 2":
        return "1" if players == 2 else "2"
    if cell == "4 (3 with 1 deck)":
        return "3" if players == 2 else "4"
    cell = re.sub(r" \(`00[034]_…` is silent\)$", "", cell)
    if isinstance(value, bool):
        # A yes/no option may also be written on/off (rientro).
        return {"on": "yes", "off": "no"}.get(cell, cell)
    return cell


PRESET_TABLE = table_after("Presets")
OPTIONS_TABLE = table_after("Options")


@given(name=st.sampled_from(PRESETS), players=st.integers(2, MAX_PLAYERS))
def test_presets_every_preset_table_row_matches_the_code(name: str, players: int) -> None:
    header, rows = PRESET_TABLE[0], PRESET_TABLE[1:]
    column = next(k for k, title in enumerate(header) if title.startswith(f"`{name}`"))
    # A preset's own max_players row says which tables it is for (semplice: 2 to 4).
    assume(players <= preset(name, 4).max_players)
    rules = preset(name, players)
    for row in rows:
        option = row[0]
        value = getattr(rules, option)
        assert written(value) == cell_value(row[column], players, value), (name, option)


def test_presets_table_names_every_option_a_preset_changes() -> None:
    listed = {row[0] for row in PRESET_TABLE[1:]}
    for name in PRESETS:
        for players in (2, 4):
            changed = {
                f.name
                for f in fields(Ruleset)
                if getattr(preset(name, players), f.name) != f.default
            }
            assert changed <= listed, (name, changed - listed)


def test_options_table_lists_every_option_with_its_range_and_default() -> None:
    rows = {row[0]: row for row in OPTIONS_TABLE[1:]}
    assert set(rows) == {f.name for f in fields(Ruleset)}
    for f in fields(Ruleset):
        _, rule, values, default, source = rows[f.name]
        assert default == written(f.default), f.name
        assert source.startswith("`"), f.name
        if f.name in OPTION_RANGES:
            allowed = OPTION_RANGES[f.name]
            # The range as the code checks it; a note in brackets may follow a part of it.
            assert rule == allowed.rule, f.name
            assert re.sub(r" \(.*?\)", "", values) == allowed.text, f.name
        else:
            choice_rule, kind = CHOICES[f.name]
            assert rule == choice_rule, f.name
            expected = "yes | no" if kind is None else " | ".join(str(v) for v in kind)
            assert values == expected, f.name
            assert kind is None or issubclass(kind, StrEnum)


def test_r10_1_the_rebuilt_stocks_cut_comes_from_the_committed_stream() -> None:
    clause = RULES_MD.split("- R10.1 ", 1)[1].split("\n- R10.2", 1)[0]
    assert "cut comes from the deal's committed stream" in " ".join(clause.split())
    assert "cut by the player on the dealer's left" not in " ".join(clause.split())
    fair = " ".join((DOCS / "FAIR_DEAL.md").read_text(encoding="utf-8").split())
    assert "a cut chosen live by a seat would let the host and that player choose" in fair


def test_r4_4_joker_as_is_documented_as_the_host_reads_it() -> None:
    protos = DOCS.parent / "protos" / "scala40" / "v1"
    cards = " ".join((protos / "cards.proto").read_text(encoding="utf-8").split())
    assert "Ignored otherwise" not in cards
    assert "When set it is always checked" in cards
    assert "Required when a joker is attached" in cards
    protocol = " ".join((DOCS / "PROTOCOL.md").read_text(encoding="utf-8").split())
    assert "is never ignored" in protocol and "`2H 3H JK` declared as `AH` is refused" in protocol


def test_ruleset_proto_gives_every_option_its_range_and_source() -> None:
    proto = (DOCS.parent / "protos" / "scala40" / "v1" / "ruleset.proto").read_text(
        encoding="utf-8"
    )
    body = proto.split("message RulesetOptions {", 1)[1].split("\n}", 1)[0]
    comments: dict[str, str] = {}
    pending: list[str] = []
    for line in body.splitlines():
        line = line.strip()
        if line.startswith("//"):
            pending.append(line[2:].strip())
        elif line:
            field = line.rstrip(";").split("=")[0].split()[-1]
            comments[field] = " ".join(pending)
            pending = []
    wire_name = {"deals": "deals_in_match"}
    for f in fields(Ruleset):
        text = comments[wire_name.get(f.name, f.name)]
        assert re.search(r"sources? 00[034]", text), f.name
        if f.name in OPTION_RANGES:
            allowed = OPTION_RANGES[f.name]
            assert f"{allowed.low}..{allowed.high}" in text, f.name
