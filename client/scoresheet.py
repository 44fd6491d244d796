"""The score sheet of a match: one row per deal, one column per player, as kept on paper.

A row is written when the host's scores after a deal arrive (the MatchUpdate
that follows DealEnded): each seat's penalty of that deal and its new total.
A later update for the same deal (a buy-back, R11.3) rewrites that row's
totals, as a player would correct the sheet.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scala40_net.pb import deal_pb2, table_pb2

if TYPE_CHECKING:
    from client.model import DealResult


@dataclass
class ScoreRow:
    """One deal on the sheet; a void deal (R10.2) has no penalties."""

    deal_no: int
    penalties: dict[int, int]
    totals: dict[int, int]
    out: frozenset[int] = frozenset()
    closer: int | None = None
    void: bool = False


@dataclass
class ScoreSheet:
    rows: list[ScoreRow] = field(default_factory=list)

    def busted_in(self, seat: int) -> int:
        """The deal in which ``seat`` went out of the match for good (after any buy-back),
        0 while it is still in."""
        busted = 0
        for row in self.rows:
            if seat not in row.out:
                busted = 0
            elif not busted:
                busted = row.deal_no
        return busted

    def totals_after(
        self, result: DealResult | None, scores: Iterable[table_pb2.SeatScore]
    ) -> None:
        """The host's scores after the deal ``result`` describes (None: no deal ended yet)."""
        scores = list(scores)
        if result is None or not scores:
            return  # an update that carries no scores (a Ready, the match's end) changes none
        totals = {s.seat: s.total for s in scores}
        out = frozenset(s.seat for s in scores if s.out)
        if self.rows and self.rows[-1].deal_no == result.deal_no:
            self.rows[-1].totals = totals
            self.rows[-1].out = out
            return
        void = result.outcome != deal_pb2.DEAL_OUTCOME_WENT_OUT
        penalties = {} if void else {h.seat: h.penalty for h in result.hands}
        self.rows.append(ScoreRow(result.deal_no, penalties, totals, out, result.closer, void))
