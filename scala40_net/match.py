"""A match (partita, R11): deals in a row, scores, busts, rientro and its chip ledger, pairs.

Like ``deal``, a pure state machine: ``start_match`` then ``apply_match``.
Each deal's deck comes from outside with ``StartDeal`` (the fair deal).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from scala40_net.actions import Action
from scala40_net.deal import DealState, apply, set_at, start_deal
from scala40_net.deal import Phase as DealPhase
from scala40_net.errors import RuleViolation
from scala40_net.events import (
    Busted,
    ChipsPaid,
    DealEnded,
    DealOutcome,
    DealScored,
    Event,
    MatchEnded,
    Retired,
    RientroOffered,
    RientroTaken,
)
from scala40_net.rules import MatchMode, Progression, Ruleset

PRIZE_FEES = 5  # R11.3: the match prize is 5 × rientro_fee from each opponent.
# R11.5: this many void deals in a row end the match, with the standings as they are.
VOID_DEALS_TO_END = 3


class MatchPhase(StrEnum):
    DEAL_DUE = "deal_due"
    IN_DEAL = "in_deal"
    RIENTRO = "rientro"
    OVER = "over"


@dataclass(frozen=True)
class StartDeal:
    """The table deals the next deal with this deck (position 0 = top, FAIR_DEAL.md)."""

    deck: tuple[int, ...]


@dataclass(frozen=True)
class BuyBack:
    """R11.3: a busted seat buys back in."""


@dataclass(frozen=True)
class Retire:
    """R11.3: a busted seat declines to buy back in."""


MatchAction = Action | StartDeal | BuyBack | Retire


@dataclass(frozen=True)
class MatchState:
    """A match; per-seat tuples follow ``seats`` (every seat of the match, ascending)."""

    ruleset: Ruleset
    seats: tuple[int, ...]
    dealer: int
    totals: tuple[int, ...]
    deals_won: tuple[int, ...]
    out: tuple[bool, ...]
    rientri: tuple[int, ...]
    chips: tuple[int, ...]
    pot: int = 0
    deal_no: int = 0
    deals_closed: int = 0
    phase: MatchPhase = MatchPhase.DEAL_DUE
    deal: DealState | None = None
    pending_rientro: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    voids_in_row: int = 0  # void deals since the last scored one (R11.5)
    gone: tuple[int, ...] = ()  # seats out because a private deal could not go on (R10.3)

    def index(self, seat: int) -> int:
        try:
            return self.seats.index(seat)
        except ValueError:
            raise RuleViolation(None, f"seat {seat} is not in this match") from None

    @property
    def seats_in_play(self) -> tuple[int, ...]:
        return tuple(s for s, gone in zip(self.seats, self.out, strict=True) if not gone)

    def team(self, seat: int) -> tuple[int, ...]:
        """The seat and, in pairs, its partner opposite (R11.4)."""
        if not self.ruleset.pairs:
            return (seat,)
        i = self.index(seat)
        return tuple(sorted((seat, self.seats[(i + 2) % len(self.seats)])))

    def team_total(self, seat: int) -> int:
        return sum(self.totals[self.index(s)] for s in self.team(seat))

    def team_deals_won(self, seat: int) -> int:
        return sum(self.deals_won[self.index(s)] for s in self.team(seat))

    def rientro_fee(self, seat: int) -> int:
        """What ``seat``'s next buy-back costs (R11.3)."""
        k = self.rientri[self.index(seat)] + 1
        step = k if self.ruleset.rientro_progression is Progression.LINEAR else 2 ** (k - 1)
        return self.ruleset.rientro_fee * step


def start_match(ruleset: Ruleset, seats: Sequence[int], first_dealer: int) -> MatchState:
    """A match about to deal its first deal; ``first_dealer`` was drawn at random (R2.1)."""
    seat_list = tuple(sorted(seats))
    ruleset.check_players(len(seat_list))
    if first_dealer not in seat_list:
        raise RuleViolation("R2.1", f"the first dealer, seat {first_dealer}, is not at the table")
    n = len(seat_list)
    zeros = (0,) * n
    return MatchState(ruleset, seat_list, first_dealer, zeros, zeros, (False,) * n, zeros, zeros)


def apply_match(
    match: MatchState, seat: int | None, action: MatchAction
) -> tuple[MatchState, list[Event]]:
    """Apply ``action``; the table (seat None) deals and rebuilds, seats play and answer R11.3."""
    if match.phase is MatchPhase.OVER:
        raise RuleViolation("R11", "the match is over")
    if isinstance(action, StartDeal):
        if match.phase is not MatchPhase.DEAL_DUE or seat is not None:
            raise RuleViolation("R2", "the table deals, and only when a deal is due")
        in_play = match.seats_in_play
        deal, events = start_deal(
            match.ruleset,
            in_play,
            match.dealer,
            action.deck,
            match.deal_no + 1,
            tuple(match.team_total(s) for s in in_play),
        )
        new = replace(match, deal=deal, deal_no=match.deal_no + 1, phase=MatchPhase.IN_DEAL)
        return new, list(events)
    if isinstance(action, BuyBack | Retire):
        return _answer_rientro(match, seat, action)
    if match.phase is not MatchPhase.IN_DEAL or match.deal is None:
        raise RuleViolation("R11", "no deal is being played")
    deal, events = apply(match.deal, seat, action)
    new = replace(match, deal=deal)
    if deal.result is None:
        return new, events
    return _deal_over(new, deal.result, events)


def void_deal(
    match: MatchState, reason: str, leaving: Sequence[int] = ()
) -> tuple[MatchState, list[Event]]:
    """The deal in play ends void for a reason outside its play (R10.3: a private table's
    seat away past its grace): no score, counted as any void deal (R11.5), the deal passed
    on. No hand is shown: at a private table nobody can read the cards left unopened.

    The seats ``leaving`` (those the deal could not go on without) leave the match, each
    with its partner in pairs (R11.4), and the deals after are dealt without them; one side
    left wins. When every side still in would leave, nobody does: the deal is only void."""
    if match.phase is not MatchPhase.IN_DEAL or match.deal is None:
        raise RuleViolation("R10.3", "no deal is being played")
    played = match.deal
    n = len(played.seats)
    ended = DealEnded(DealOutcome.VOID, None, played.seats, ((),) * n, (0,) * n, False, reason)
    over = replace(played, phase=DealPhase.OVER, result=ended)
    return _deal_over(_leave(replace(match, deal=over), leaving), ended, [ended])


def _leave(match: MatchState, seats: Sequence[int]) -> MatchState:
    """R10.3: ``seats`` (with their partners, R11.4) out of the match, unless no side would
    be left in it."""
    in_play = set(match.seats_in_play)
    leaving = {s for seat in seats if seat in in_play for s in match.team(seat)}
    if not leaving or in_play <= leaving:
        return match
    out = tuple(o or s in leaving for s, o in zip(match.seats, match.out, strict=True))
    return replace(match, out=out, gone=tuple(sorted({*match.gone, *leaving})))


def _next_dealer(match: MatchState) -> int:
    """R2.1: the next seat still in play after the old dealer, clockwise."""
    in_play = match.seats_in_play
    later = [s for s in in_play if s > match.dealer]
    return later[0] if later else in_play[0]


def _deal_over(
    match: MatchState, ended: DealEnded, events: list[Event]
) -> tuple[MatchState, list[Event]]:
    voids = match.voids_in_row + 1 if ended.outcome is DealOutcome.VOID else 0
    match = replace(match, voids_in_row=voids)
    teams_in = {match.team(s) for s in match.seats_in_play}
    if ended.outcome is DealOutcome.VOID and len(teams_in) == 1:
        return _finish(match, next(iter(teams_in)), events)  # the others left it (R10.3)
    if voids >= VOID_DEALS_TO_END:
        return _finish(match, _leaders(match), events)
    if ended.outcome is DealOutcome.VOID:
        # R10.2: no score; the deal passes to the next dealer like any other (000_…:
        # "Ad ogni fine smazzata … il mazziere gira").
        return replace(match, dealer=_next_dealer(match), phase=MatchPhase.DEAL_DUE), events
    rules = match.ruleset
    totals, won, chips = match.totals, match.deals_won, match.chips
    for seat, penalty in zip(ended.seats, ended.penalties, strict=True):
        i = match.index(seat)
        totals = set_at(totals, i, totals[i] + penalty)
    assert ended.closer is not None
    closer = ended.closer
    won = set_at(won, match.index(closer), won[match.index(closer)] + 1)
    if rules.rientro and rules.rientro_pays_closer:
        for seat in ended.seats:
            if seat != closer:
                chips = set_at(
                    chips, match.index(seat), chips[match.index(seat)] - rules.rientro_fee
                )
                chips = set_at(
                    chips, match.index(closer), chips[match.index(closer)] + rules.rientro_fee
                )
                events.append(ChipsPaid(seat, closer, rules.rientro_fee, "deal won (R11.3)"))
    match = replace(
        match,
        totals=totals,
        deals_won=won,
        chips=chips,
        deal_no=match.deal_no,
        deals_closed=match.deals_closed + 1,
    )
    events.append(DealScored(match.deal_no, match.seats, totals, won))
    if rules.match_mode is MatchMode.DEALS:
        return _after_deals_mode(match, closer, events)
    return _after_points_deal(match, ended, events)


def _leaders(match: MatchState) -> tuple[int, ...]:
    """R11.5: every seat of the sides leading now, among those still in: most deals won
    (``deals``) or the lowest total (``points``); sides level share the win."""
    teams = sorted({match.team(s) for s in match.seats_in_play})
    if match.ruleset.match_mode is MatchMode.DEALS:
        standing = {t: -match.team_deals_won(t[0]) for t in teams}
    else:
        standing = {t: match.team_total(t[0]) for t in teams}
    best = min(standing.values())
    return tuple(sorted(s for t in teams if standing[t] == best for s in t))


def _after_deals_mode(
    match: MatchState, closer: int, events: list[Event]
) -> tuple[MatchState, list[Event]]:
    """R11.2: the match ends as soon as no other side can catch up with the leader.

    After the agreed number of deals nothing is left to catch up with, so a lone
    leader wins; a shared lead plays on until one side leads alone (Settled points).
    """
    left = max(0, match.ruleset.deals - match.deals_closed)
    teams = sorted({match.team(s) for s in match.seats_in_play})  # a side gone wins nothing
    ranked = sorted(teams, key=lambda t: -match.team_deals_won(t[0]))
    best = match.team_deals_won(ranked[0][0])
    second = match.team_deals_won(ranked[1][0])
    if best > second + left:
        return _finish(match, ranked[0], events)
    return replace(match, dealer=_next_dealer(match), phase=MatchPhase.DEAL_DUE), events


def _after_points_deal(
    match: MatchState, ended: DealEnded, events: list[Event]
) -> tuple[MatchState, list[Event]]:
    rules = match.ruleset
    out = match.out
    busted_now: list[int] = []
    for seat in ended.seats:
        if match.team_total(seat) >= rules.bust_at and not out[match.index(seat)]:
            busted_now.append(seat)
            out = tuple(True if s == seat else o for s, o in zip(match.seats, out, strict=True))
            events.append(Busted(seat, match.totals[match.index(seat)]))
    match = replace(match, out=out)
    still_in = match.seats_in_play
    if rules.rientro and len(still_in) >= 2:
        offered = tuple(
            s for s in busted_now if match.rientri[match.index(s)] < rules.rientro_limit
        )
        if offered:
            events.append(RientroOffered(offered, tuple(match.rientro_fee(s) for s in offered)))
            return replace(match, phase=MatchPhase.RIENTRO, pending_rientro=offered), events
    return _continue_or_finish(match, busted_now, events)


def _continue_or_finish(
    match: MatchState, busted_now: Sequence[int], events: list[Event]
) -> tuple[MatchState, list[Event]]:
    still_in = match.seats_in_play
    teams_in = {match.team(s) for s in still_in}
    if len(teams_in) == 1:
        return _finish(match, next(iter(teams_in)), events)
    if not teams_in:
        # R11.1: everyone left busted in the same deal: the lowest total wins.
        teams = sorted({match.team(s) for s in busted_now})
        best = min(teams, key=lambda t: (match.team_total(t[0]), t))
        return _finish(match, best, events)
    return replace(match, dealer=_next_dealer(match), phase=MatchPhase.DEAL_DUE), events


def _answer_rientro(
    match: MatchState, seat: int | None, action: BuyBack | Retire
) -> tuple[MatchState, list[Event]]:
    if match.phase is not MatchPhase.RIENTRO or seat not in match.pending_rientro:
        raise RuleViolation("R11.3", "only a busted seat offered a rientro may answer it")
    i = match.index(seat)
    pending = tuple(s for s in match.pending_rientro if s != seat)
    events: list[Event] = []
    if isinstance(action, BuyBack):
        fee = match.rientro_fee(seat)
        others_in = [match.totals[match.index(s)] for s in match.seats_in_play]
        total = max(others_in)
        count = match.rientri[i] + 1
        match = replace(
            match,
            totals=set_at(match.totals, i, total),
            out=tuple(
                False if s == seat else o for s, o in zip(match.seats, match.out, strict=True)
            ),
            rientri=set_at(match.rientri, i, count),
            chips=set_at(match.chips, i, match.chips[i] - fee),
            pot=match.pot + fee,
        )
        events += [
            RientroTaken(seat, count, fee, total),
            ChipsPaid(seat, None, fee, "rientro (R11.3)"),
        ]
    else:
        events.append(Retired(seat))
    match = replace(match, pending_rientro=pending)
    if pending:
        return match, events
    return _continue_or_finish(replace(match, phase=MatchPhase.DEAL_DUE), (), events)


def _finish(
    match: MatchState, winners: tuple[int, ...], events: list[Event]
) -> tuple[MatchState, list[Event]]:
    rules = match.ruleset
    chips = match.chips
    if rules.rientro:
        receiver = winners[0]
        r = match.index(receiver)
        if match.pot:
            chips = set_at(chips, r, chips[r] + match.pot)
            events.append(ChipsPaid(None, receiver, match.pot, "rientro fees (R11.3)"))
        prize = PRIZE_FEES * rules.rientro_fee
        for seat in match.seats:
            if seat not in winners and prize:
                k = match.index(seat)
                chips = set_at(chips, k, chips[k] - prize)
                chips = set_at(chips, r, chips[r] + prize)
                events.append(ChipsPaid(seat, receiver, prize, "match prize (R11.3)"))
    match = replace(match, chips=chips, pot=0, winners=winners, phase=MatchPhase.OVER)
    events.append(MatchEnded(winners, match.seats, match.totals, match.deals_won, chips))
    return match, events
