"""The one refusal the engine raises: a rule (R-number of RULES.md) and a sentence (R12).

A refusal made with ``refuse`` also carries a reason code and the parameters
of its sentence, so it can be said in another language (``scala40_net.refusals``);
its English sentence is the same either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from scala40_net.cards import Face, Suit, cards_text


@dataclass(frozen=True)
class Choices:
    """Faces a player may choose between, said "8H or 8D" (in each language its own way)."""

    faces: tuple[Face, ...]


@dataclass(frozen=True)
class Cuts:
    """The ways a long sequence may be cut into runs (R4.6), said "3+4 or 4+3"."""

    lengths: tuple[tuple[int, ...], ...]

    def texts(self) -> list[str]:
        return ["+".join(map(str, cut)) for cut in self.lengths]


def english(value: object) -> str:
    """A parameter as the English sentence writes it (card ids as ``7H 8H``, a suit ``♥``)."""
    if isinstance(value, tuple):
        return cards_text(value)
    if isinstance(value, Choices):
        return " or ".join(str(f) for f in value.faces)
    if isinstance(value, Cuts):
        return " or ".join(value.texts())
    if isinstance(value, Suit):
        return value.symbol
    return str(value)


class RuleViolation(Exception):
    """A refused action. Nothing changed: the state it was applied to stays as it was.

    ``rule`` is the R-number broken (``"R5.1"``) or, for a malformed action that
    breaks no rule of the game (a card id not in hand, an unknown meld index),
    the closest rule or ``None``. ``operation`` is the 1-based position of the
    operation of a play that failed, when one did.

    >>> str(RuleViolation("R5.1", "opening melds total 37 points, 40 needed"))
    'R5.1: opening melds total 37 points, 40 needed'
    >>> str(RuleViolation("R6.1", "4H does not fit meld 2", operation=3))
    'R6.1: operation 3: 4H does not fit meld 2'
    """

    def __init__(
        self,
        rule: str | None,
        reason: str,
        operation: int | None = None,
        *,
        code: str | None = None,
        template: str | None = None,
        params: Mapping[str, object] | None = None,
    ) -> None:
        self.rule = rule
        self.reason = reason
        self.operation = operation
        # UPPER_SNAKE reason code, the English template (the catalogues' msgid), its fields.
        self.code = code
        self.template = template
        self.params: Mapping[str, object] = params or {}
        super().__init__(self.__str__())

    def at_operation(self, operation: int) -> RuleViolation:
        """The same refusal, naming the operation of a play that caused it."""
        return RuleViolation(
            self.rule,
            self.reason,
            operation,
            code=self.code,
            template=self.template,
            params=self.params,
        )

    def __str__(self) -> str:
        where = f"operation {self.operation}: " if self.operation is not None else ""
        prefix = f"{self.rule}: " if self.rule else ""
        return f"{prefix}{where}{self.reason}"

    def __repr__(self) -> str:
        return f"RuleViolation({self.rule!r}, {self.reason!r}, operation={self.operation!r})"


def refuse(rule: str | None, code: str, template: str, **params: object) -> RuleViolation:
    """A refusal whose sentence is ``template`` with ``params``, translatable by its template.

    >>> str(refuse("R5.1", "OPENING_SHORT", "opening melds total {total} points, {needed} needed",
    ...            total=37, needed=40))
    'R5.1: opening melds total 37 points, 40 needed'
    """
    reason = template.format(**{k: english(v) for k, v in params.items()})
    return RuleViolation(rule, reason, code=code, template=template, params=params)


class InvalidRuleset(ValueError):
    """A ruleset whose options do not go together (R1, R11), or that does not fit the table."""


class OptionOutOfRange(InvalidRuleset):
    """One option of a ruleset outside its range (``rules.OPTION_RANGES``).

    ``option`` is the option's name in ``Ruleset`` (``"bust_at"``), ``allowed``
    its range as RULES.md writes it (``"1..1000"``, ``"off or 3..13"``),
    ``rule`` the R-number the option belongs to and ``value`` what was given.

    >>> str(OptionOutOfRange("bust_at", 0, "1..1000", "R11.1"))
    'R11.1: bust_at is 1..1000, not 0'
    """

    def __init__(self, option: str, value: object, allowed: str, rule: str | None) -> None:
        self.option = option
        self.value = value
        self.allowed = allowed
        self.rule = rule
        prefix = f"{rule}: " if rule else ""
        super().__init__(f"{prefix}{option} is {allowed}, not {value!r}")
