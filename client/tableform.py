"""The new-table form's answers, read into what CreateTable takes: rules, seats, bots, clocks.

Each reader takes one typed answer and either sets it on the ``NewTable`` being
filled in or raises ``ValueError`` with what may be typed instead, so the
lobby can ask again. The defaults shown are the chosen preset's own values
(``rules.preset``) and the host's documented ones for the clocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from scala40_net import rules, wire
from scala40_net.pb import lobby_pb2, ruleset_pb2

# The host's defaults for an unset field of CreateTableRequest (lobby.proto).
TURN_SECONDS, GRACE_SECONDS, PAUSE_SECONDS = 90, 60, 20
_YES = {"yes", "y", "sì", "si", "s"}
_NO = {"no", "n"}
_DEALS_SUFFIXES = ("d", "s")  # 3d (deals), 3s (smazzate)


@dataclass
class NewTable:
    """A table as the form has it so far; ``settings`` holds the clocks and the stand-in."""

    name: str = ""
    preset: int = ruleset_pb2.PRESET_CLASSIC
    seats: int = 4
    bots: int = 0  # seats are left free for people unless bots are asked for
    level: int = lobby_pb2.BOT_LEVEL_MEDIUM
    password: str = ""
    invited: list[str] = field(default_factory=list)  # player keys' fingerprints; none: open
    options: ruleset_pb2.RulesetOptions = field(default_factory=ruleset_pb2.RulesetOptions)
    settings: lobby_pb2.CreateTableRequest = field(default_factory=lobby_pb2.CreateTableRequest)

    def rules(self) -> rules.Ruleset:
        """The preset's rules for this many seats (the defaults the form shows)."""
        return rules.preset(wire.preset_name(self.preset), self.seats)


def match_default(form: NewTable) -> str:
    """How the preset ends a match: its bust limit (``101``), or its deals (``3d``)."""
    preset = form.rules()
    if preset.match_mode is rules.MatchMode.DEALS:
        return f"{preset.deals}d"
    return str(preset.bust_at)


def yes_no(value: bool, lang: str) -> str:
    return ("sì" if value else "no") if lang == "it" else ("yes" if value else "no")


def read_match(form: NewTable, text: str) -> None:
    """``101`` / ``151``: a match of points that busts at that total (R11.1); ``3d``: a match
    of that many deals (R11.2)."""
    value = text.strip().lower()
    if value.endswith(_DEALS_SUFFIXES) and value[:-1].isdigit() and 1 <= int(value[:-1]) <= 99:
        form.options.match_mode = ruleset_pb2.MATCH_MODE_DEALS
        form.options.deals_in_match = int(value[:-1])
        return
    if value.isdigit() and 1 <= int(value) <= 1000:
        form.options.match_mode = ruleset_pb2.MATCH_MODE_POINTS
        form.options.bust_at = int(value)
        return
    raise ValueError("101, 151 … (1-1000) | 3d (1-99d)")


def read_yes_no(text: str) -> bool:
    value = text.strip().lower()
    if value in _YES | _NO:
        return value in _YES
    raise ValueError("yes | no")


def read_seconds(text: str, low: int, high: int, zero: bool = False) -> int:
    """Whole seconds in ``low``..``high`` (or 0 when ``zero`` turns the thing off)."""
    value = text.strip()
    if value.isdigit() and (low <= int(value) <= high or (zero and int(value) == 0)):
        return int(value)
    raise ValueError(f"{'0, ' if zero else ''}{low}-{high}")


# A player key's fingerprint as the host shows it: 16 bytes, 32 hex digits (PROTOCOL.md).
_FINGERPRINT_DIGITS = 32
# The keys a table may invite (CreateTable's own limit), the creator's among them.
MOST_INVITED = 12


class TooManyInvited(ValueError):
    """More keys invited than a table takes besides its creator's."""


def read_invited(text: str, anyone: str) -> list[str]:
    """The player keys a table takes, as fingerprints ``XXXX-XXXX-…`` (typed in any case,
    grouped by dashes, spaces or colons, several after each other); ``anyone`` (the word
    shown as the default), ``-`` or nothing: an open table.

    >>> read_invited("6668-7aad-f862-bd77-6c8f-c18b-8e9f-8e20", "anyone")
    ['6668-7AAD-F862-BD77-6C8F-C18B-8E9F-8E20']
    """
    value = text.strip()
    if value.lower() in ("", "-", anyone.lower()):
        return []
    digits = re.sub(r"[\s:,;-]", "", value).upper()
    if not digits or len(digits) % _FINGERPRINT_DIGITS or re.search(r"[^0-9A-F]", digits):
        raise ValueError("XXXX-XXXX-XXXX-XXXX-XXXX-XXXX-XXXX-XXXX …")
    keys = []
    for start in range(0, len(digits), _FINGERPRINT_DIGITS):
        one = digits[start : start + _FINGERPRINT_DIGITS]
        grouped = "-".join(one[i : i + 4] for i in range(0, _FINGERPRINT_DIGITS, 4))
        if grouped not in keys:
            keys.append(grouped)
    if len(keys) > MOST_INVITED - 1:
        raise TooManyInvited(f"1-{MOST_INVITED - 1}")
    return keys


def rule_names() -> list[str]:
    """Every rule option a table may set (RulesetOptions' fields), as typed: ``max_run``."""
    return [f.name for f in ruleset_pb2.RulesetOptions.DESCRIPTOR.fields]


def _enum_words(fd: Any) -> dict[str, int]:
    """An enum option's values as typed: DISCARD_PICKUP_FREE is ``free``."""
    values = [v for v in fd.enum_type.values if v.number != 0]
    prefix = fd.enum_type.values_by_number[0].name.removesuffix("UNSPECIFIED")
    return {v.name.removeprefix(prefix).lower(): v.number for v in values}


def read_rule_options(form: NewTable, text: str) -> None:
    """Any other rule as ``name=value`` pairs (``opening_points=40 max_run=5
    discard_pickup=free``); ``-`` keeps the preset's. The host checks the ranges."""
    if text.strip() in ("", "-"):
        return
    fields = ruleset_pb2.RulesetOptions.DESCRIPTOR.fields_by_name
    for pair in text.split():
        name, equals, value = pair.partition("=")
        fd = fields.get(name.strip().lower())
        if fd is None or not equals:
            raise ValueError("name=value: " + ", ".join(rule_names()))
        value = value.strip().lower()
        if fd.type == FieldDescriptor.TYPE_ENUM:
            words = _enum_words(fd)
            if value not in words:
                raise ValueError(f"{fd.name}: {' | '.join(words)}")
            setattr(form.options, fd.name, words[value])
        elif fd.type == FieldDescriptor.TYPE_BOOL:
            try:
                setattr(form.options, fd.name, read_yes_no(value))
            except ValueError:
                raise ValueError(f"{fd.name}: yes | no") from None
        else:
            number = value.removeprefix("-")
            if not number.isdigit() or (value.startswith("-") and fd.type != fd.TYPE_INT32):
                raise ValueError(f"{fd.name}: a number")
            setattr(form.options, fd.name, int(value))


def read_rule_changes(words: list[str]) -> ruleset_pb2.RulesetOptions:
    """Rules changed for the next match, as typed after ``new``: how it ends (``151``,
    ``3d``, as ``read_match``) and ``name=value`` pairs (as ``read_rule_options``); only
    the options named are set."""
    form = NewTable()
    for word in words:
        if "=" in word:
            read_rule_options(form, word)
        else:
            read_match(form, word)
    return form.options


def rule_changes(now: ruleset_pb2.RulesetOptions, proposed: ruleset_pb2.RulesetOptions) -> str:
    """The options ``proposed`` sets otherwise than ``now``, as typed after ``new`` but for
    a yes or no, which is ✔ or ✘ in either language (``bust_at=151 rientro=✘``); "" when
    they are the same."""
    changed = []
    for fd, value in proposed.ListFields():
        set_now = now.HasField(fd.name) if fd.has_presence else True  # an enum: its value
        if set_now and getattr(now, fd.name) == value:
            continue
        if fd.type == FieldDescriptor.TYPE_ENUM:
            word = {n: w for w, n in _enum_words(fd).items()}.get(value, str(value))
        elif fd.type == FieldDescriptor.TYPE_BOOL:
            word = "✔" if value else "✘"
        else:
            word = str(value)
        changed.append(f"{fd.name}={word}")
    return " ".join(changed)
