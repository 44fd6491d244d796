"""A whole deal rehearsed with real play: the greedy move generator's turns, applied by the engine.

Like ``Rehearsal`` it exchanges the real fair-deal messages and leaves a signed
record, but every draw and play is one the rules engine accepted, so the
record has melds, attaches, joker swaps and a closing to replay (check 4).
"""

from __future__ import annotations

from scala40_net import wire
from scala40_net.actions import Draw, DrawSource, RebuildStock
from scala40_net.deal import DealState, Phase, apply, start_deal
from scala40_net.events import DealOutcome
from scala40_net.fairdeal.exchange import deal_event
from scala40_net.fairdeal.record import DealRecord
from scala40_net.fairdeal.rehearsal import Rehearsal
from scala40_net.movegen import first_legal_play, wants_discard
from scala40_net.pb import deal_pb2

# A bound on turns, so a deal that neither closes nor stalls still ends (as abandoned).
MAX_TURNS = 400


class EngineDeal(Rehearsal):
    """A rehearsal whose turns are the greedy move generator's, applied by the rules engine."""

    def run_engine(self) -> DealRecord:
        self.exchange_seeds()
        self.deal()
        ruleset = wire.ruleset_from_pb(self.setup.ruleset, len(self.seats_in_play))
        state, _ = start_deal(
            ruleset, self.seats_in_play, self.dealer, self.host.derivation.deck, self.deal_no
        )
        for _ in range(MAX_TURNS):
            if state.phase is Phase.OVER:
                break
            state = self.engine_turn(state)
        result = state.result
        outcome = deal_pb2.DEAL_OUTCOME_ABANDONED
        if result is not None:
            closed = result.outcome is DealOutcome.CLOSED
            outcome = deal_pb2.DEAL_OUTCOME_WENT_OUT if closed else deal_pb2.DEAL_OUTCOME_VOID
        ended = deal_pb2.DealEnded(
            outcome=outcome,
            hands=[deal_pb2.SeatHand(seat=s, cards=sorted(state.hand(s))) for s in state.seats],
        )
        if result is not None and result.closer is not None:
            ended.closer_seat = result.closer
        self.broadcast(deal_event(self.table_id, self.deal_no, ended=ended))
        self.broadcast(self.host.reveal_host_seed())
        self.recorder.finish(self.identity)
        return self.recorder.signed

    def engine_turn(self, state: DealState) -> DealState:
        seat = state.turn
        planned = wants_discard(state, seat)
        source = DrawSource.DISCARD if planned is not None else DrawSource.STOCK
        before = set(state.hand(seat))
        state, _ = apply(state, seat, Draw(source))
        (card,) = set(state.hand(seat)) - before
        drawn = deal_pb2.CardDrawn(seat=seat, source=wire.draw_source_to_pb(source))
        if source is DrawSource.DISCARD:
            drawn.card = card
        self.broadcast(deal_event(self.table_id, self.deal_no, drawn=drawn))
        if source is DrawSource.STOCK:
            self.tell(seat, stock_card_drawn=deal_pb2.StockCardDrawn(card=card))
        play = planned or first_legal_play(state, seat)
        assert play is not None, "the greedy player always has a discard after a stock draw"
        state, _ = apply(state, seat, play)
        operations, discard = wire.play_to_pb(play)
        played = deal_pb2.Played(seat=seat, operations=operations, went_out=not state.hand(seat))
        if discard is not None:
            played.discard = discard
        self.broadcast(deal_event(self.table_id, self.deal_no, played=played))
        if state.phase is Phase.REBUILD:
            order = self.rebuilt_stock(state.discard_pile)
            state, _ = apply(state, None, RebuildStock(tuple(order)))
            rebuilt = deal_pb2.StockRebuilt(rebuild_no=state.rebuilds, stock_count=len(order))
            self.broadcast(deal_event(self.table_id, self.deal_no, stock_rebuilt=rebuilt))
        return state
