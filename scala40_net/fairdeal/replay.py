"""Check 4: replay a recorded deal through the rules engine, event by event.

With ``s_host`` known the deck is known, so every stock draw is determined;
each public event becomes the engine action it reports, and the engine
refuses any card laid, discarded or drawn that the rules do not allow then.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from scala40_net import wire
from scala40_net.actions import Action, Draw, RebuildStock, ReturnDiscard
from scala40_net.cards import CARDS_PER_DECK, cards_text
from scala40_net.deal import DealState, apply, start_deal
from scala40_net.errors import InvalidRuleset, RuleViolation
from scala40_net.events import DealOutcome
from scala40_net.fairdeal.record import DealRecord
from scala40_net.fairdeal.spec import Derivation, rebuild_stock
from scala40_net.fairdeal.verify import VerificationFailed
from scala40_net.pb import deal_pb2


def _fail(events: Sequence[deal_pb2.DealEvent], index: int, reason: str) -> VerificationFailed:
    return VerificationFailed("replay", index, events[index].WhichOneof("event"), reason)


#: The r-th rebuilt stock (top first) from the discard pile as the replay has it.
Rebuilt = Callable[[int, Sequence[int]], Sequence[int]]


def replay_deal(
    record: DealRecord, events: Sequence[deal_pb2.DealEvent], derivation: Derivation
) -> str:
    """Replay from the ``started`` event on; a summary such as ``"ok, 143 actions"``."""

    def rebuilt(r: int, pile: Sequence[int]) -> Sequence[int]:
        return rebuild_stock(derivation.mix_key, r, pile)

    return replay_cards(record, events, derivation.deck, rebuilt)


def replay_cards(
    record: DealRecord, events: Sequence[deal_pb2.DealEvent], deck: Sequence[int],
    rebuilt: Rebuilt,
) -> str:
    """Replay a deal dealt from ``deck`` whose r-th rebuilt stock ``rebuilt`` gives (a private
    deal's, as its audit opened them: scala40_net.private.record)."""
    announced = events[0].announced
    seats = list(announced.seats_in_play)
    decks = announced.deck_size // CARDS_PER_DECK
    try:
        ruleset = wire.ruleset_from_pb(announced.ruleset, len(seats))
    except (InvalidRuleset, wire.WireError) as error:
        raise _fail(events, 0, f"the announced ruleset cannot be played: {error}") from error
    kinds = [e.WhichOneof("event") for e in events]
    started = kinds.index("started")
    try:
        state, _ = start_deal(
            ruleset, seats, announced.dealer_seat, deck, record.deal_no
        )
    except RuleViolation as violation:
        raise _fail(events, started, str(violation)) from violation
    actions = 0
    for index in range(started + 1, len(events)):
        kind, event = kinds[index], events[index]
        if kind == "ended":
            _check_end(events, index, state)
            break
        seat: int | None
        action: Action
        if kind == "drawn":
            source = wire.draw_source_from_pb(event.drawn.source)
            seat, action = event.drawn.seat, Draw(source)
        elif kind == "discard_returned":
            seat, action = event.discard_returned.seat, ReturnDiscard()
        elif kind == "played":
            played = event.played
            discard = played.discard if played.HasField("discard") else None
            try:
                action = wire.play_from_pb(played.operations, discard, decks)
            except wire.WireError as error:
                raise _fail(events, index, str(error)) from error
            seat = played.seat
        elif kind == "stock_rebuilt":
            order = rebuilt(state.rebuilds + 1, state.discard_pile)
            seat, action = None, RebuildStock(tuple(order))
        else:
            raise _fail(events, index, f"{kind} does not belong to the play")
        try:
            state, _ = apply(state, seat, action)
        except RuleViolation as violation:
            raise _fail(events, index, str(violation)) from violation
        actions += 1
    return f"ok, {actions} actions"


def _check_end(events: Sequence[deal_pb2.DealEvent], index: int, state: DealState) -> None:
    """The shown hands are the replayed hands; the outcome is the engine's."""
    ended = events[index].ended
    result = state.result
    if ended.outcome == deal_pb2.DEAL_OUTCOME_WENT_OUT:
        if result is None or result.outcome is not DealOutcome.CLOSED:
            raise _fail(events, index, "the record says a player went out; the rules say not")
        if not ended.HasField("closer_seat") or ended.closer_seat != result.closer:
            raise _fail(events, index, f"seat {result.closer} went out, not {ended.closer_seat}")
    elif ended.outcome == deal_pb2.DEAL_OUTCOME_VOID:
        if result is None or result.outcome is not DealOutcome.VOID:
            raise _fail(events, index, "the record says the deal is void; the rules say not")
    elif result is not None:
        raise _fail(events, index, f"the rules ended the deal as {result.outcome.value}")
    for hand in ended.hands:
        replayed = sorted(state.hand(hand.seat))
        if sorted(hand.cards) != replayed:
            raise _fail(
                events,
                index,
                f"seat {hand.seat} shows {cards_text(sorted(hand.cards))}, "
                f"the replay gives {cards_text(replayed)}",
            )
