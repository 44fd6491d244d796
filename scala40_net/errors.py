"""The one refusal the engine raises: a rule (R-number of RULES.md) and a sentence (R12)."""

from __future__ import annotations


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

    def __init__(self, rule: str | None, reason: str, operation: int | None = None) -> None:
        self.rule = rule
        self.reason = reason
        self.operation = operation
        super().__init__(self.__str__())

    def at_operation(self, operation: int) -> RuleViolation:
        """The same refusal, naming the operation of a play that caused it."""
        return RuleViolation(self.rule, self.reason, operation)

    def __str__(self) -> str:
        where = f"operation {self.operation}: " if self.operation is not None else ""
        prefix = f"{self.rule}: " if self.rule else ""
        return f"{prefix}{where}{self.reason}"

    def __repr__(self) -> str:
        return f"RuleViolation({self.rule!r}, {self.reason!r}, operation={self.operation!r})"


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
