"""The deals of a table: the fair-deal exchange before each one, the engine's moves, the end.

FAIR_DEAL.md steps 1-6 run through the fair-deal module's ``HostExchange``
and ``DealRecorder`` (the hash chain); the table only times them and
journals every message. A deal's end reveals the host seed, signs the chain,
scores the match and announces the next deal.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Literal, TypeVar

import grpc
from google.protobuf.message import Message

from host.between_deals import BetweenDeals
from host.errors import Refusal, malformed, not_found, precondition
from host.journal import Extras
from host.outbox import EntryDraft
from host.table_core import DealInProgress, TableCore
from scala40_net import actions, deal, events, match, rules, wire
from scala40_net.fairdeal import spec
from scala40_net.fairdeal.exchange import DealSetup, ExchangeError, HostExchange
from scala40_net.fairdeal.record import DealRecorder
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2

_Received = TypeVar("_Received")

# The refusal's reason for a seat that sends its commitment or reveal a second time.
_ALREADY = {"committed": "ALREADY_COMMITTED", "revealed": "ALREADY_REVEALED"}


def _receive(
    seat: int,
    current: DealInProgress,
    done: Literal["committed", "revealed"],
    awaiting: list[int],
    receive: Callable[[], _Received],
) -> _Received:
    """Hand a seat's commitment or reveal to the exchange: a second one from the same seat is
    refused as already done, one the exchange is not ready for as out of order."""
    if seat not in awaiting:
        raise Refusal(
            grpc.StatusCode.ALREADY_EXISTS,
            _ALREADY[done],
            f"seat {seat} has already {done} for deal {current.deal_no}",
        )
    try:
        return receive()
    except ExchangeError as error:
        raise precondition("FAIR_DEAL_OUT_OF_ORDER", str(error)) from None


def _bad_reveal(seat: int, deal_no: int) -> Refusal:
    return precondition(
        "BAD_REVEAL",
        f"the seed and cut do not match the commitment (or the cut is out of range): "
        f"seat {seat} is left out of deal {deal_no}'s mix (a seat reveals once)",
    )


class DealingTable(TableCore):
    """A table's deals: the exchange, the moves' consequences, the records."""

    def _publish_engine_events(
        self,
        kind: str,
        seat: int | None,
        request: Message | None,
        response: Message | None,
        request_id: str | None,
        engine_events: list[events.Event],
    ) -> None:
        """Journal and publish an accepted move, then take the table's own steps after it."""
        out = [self._deal_event_from_engine(e) for e in engine_events if wire.is_deal_event(e)]
        # A move's response names the seq of the move's own event, the first one it caused.
        if response is not None and hasattr(response, "seq"):
            response.seq = self.seq + 1
        self._commit(EntryDraft(kind, seat, request, response, out, request_id=request_id))
        assert self.match is not None
        if self.match.phase is match.MatchPhase.IN_DEAL and self.deal_state is not None:
            if self.deal_state.phase is deal.Phase.REBUILD:
                self._rebuild_stock()
            return
        self._end_deal([e for e in engine_events if not wire.is_deal_event(e)])

    def _rebuild_stock(self) -> None:
        """R10.1: the table makes the new stock from the fair deal's stream (FAIR_DEAL.md)."""
        state = self.deal_state
        assert state is not None and self.current is not None
        order = self.current.exchange.rebuilt_stock(state.discard_pile)
        engine_events = self._apply(None, actions.RebuildStock(tuple(order)))
        self._publish_engine_events("rebuild", None, None, None, None, engine_events)

    def _announce_deal(self) -> None:
        """Step 1: a new deal attempt and the host's commitment; its seed is journaled, secret."""
        assert self.match is not None
        self.deal_no += 1
        setup = DealSetup(
            table_id=self.table_id,
            deal_no=self.deal_no,
            dealer=self.match.dealer,
            seats_in_play=self.match.seats_in_play,
            deck_size=self.ruleset.deck_size,
            ruleset=wire.ruleset_to_pb(self.preset, self.ruleset),
        )
        host_seed = self.randomness.host_seed(self.deal_no)
        self.current = DealInProgress(
            HostExchange(setup, host_seed), DealRecorder(self.table_id, self.deal_no)
        )
        announced = self.current.exchange.announce()
        self._commit(
            EntryDraft(
                "announce",
                None,
                events=[self._deal_event(announced)],
                extras=Extras(host_seed=(self.deal_no, host_seed)),
            )
        )
        self._set_deadline(self.settings.commit_timeout)

    def _exchange_for(self, seat: int, deal_no: int, step: int) -> DealInProgress:
        current = self.current
        if current is None or current.deal_no != deal_no:
            now = f"deal {current.deal_no} is" if current is not None else "no deal is"
            raise precondition(
                "WRONG_DEAL", f"deal {deal_no} is not in its fair-deal exchange ({now})"
            )
        if seat not in current.exchange.setup.seats_in_play:
            raise precondition("NOT_IN_DEAL", f"seat {seat} does not play deal {deal_no}")
        # What the seat already did answers first, whether or not its step is still open: a
        # client that lost the reply learns its message is in, not that it is too late.
        exchange = current.exchange
        if step == table_pb2.TURN_PHASE_COMMIT and seat in exchange.committed:
            raise Refusal(
                grpc.StatusCode.ALREADY_EXISTS,
                "ALREADY_COMMITTED",
                f"seat {seat} has already committed for deal {deal_no}",
            )
        if step == table_pb2.TURN_PHASE_REVEAL:
            if exchange.left_out.get(seat) == deal_pb2.LEFT_OUT_REASON_BAD_REVEAL:
                raise _bad_reveal(seat, deal_no)
            if seat in exchange.revealed:
                raise Refusal(
                    grpc.StatusCode.ALREADY_EXISTS,
                    "ALREADY_REVEALED",
                    f"seat {seat} has already revealed for deal {deal_no}",
                )
        if current.step != step:
            if step == table_pb2.TURN_PHASE_COMMIT:
                why = "its commitments are closed (published)"
            elif current.step == table_pb2.TURN_PHASE_COMMIT:
                why = "it takes commitments now: reveal once they are published"
            else:
                why = "its reveals are closed (published)"
            raise precondition("WRONG_STEP", f"deal {deal_no} is not in that step: {why}")
        return current

    def commit_seed(
        self,
        seat: int,
        request: table_pb2.CommitSeedRequest,
        bot_seed: tuple[bytes, int] | None = None,
    ) -> table_pb2.CommitSeedResponse:
        """Step 2: a seat's commitment. A host bot seat's own seed and cut (``bot_seed``)
        are journaled with it, secret like the host's seed, so it can reveal after a restart."""
        if len(request.commitment) != spec.DIGEST_BYTES:
            raise malformed(
                f"a commitment is {spec.DIGEST_BYTES} bytes, not {len(request.commitment)}"
            )
        repeated = self._repeat(seat, "commit", request.context)
        if repeated is not None:
            return table_pb2.CommitSeedResponse()
        current = self._exchange_for(seat, request.deal_no, table_pb2.TURN_PHASE_COMMIT)
        _receive(
            seat,
            current,
            "committed",
            current.exchange.awaiting_commitments,
            lambda: current.exchange.receive_commitment(
                seat, request.commitment, host_played=self.seats[seat].played_by_host
            ),
        )
        response = table_pb2.CommitSeedResponse()
        self._commit(
            EntryDraft(
                "commit",
                seat,
                request,
                response,
                request_id=request.context.request_id,
                game=False,
                extras=Extras(
                    bot_seed=(current.deal_no, seat, *bot_seed) if bot_seed is not None else None
                ),
            )
        )
        if not current.exchange.awaiting_commitments:
            self._publish_commitments()
        return response

    def _publish_commitments(self) -> None:
        """Step 3: every commitment received; the seats without one are left out."""
        current = self.current
        assert current is not None
        published = current.exchange.publish_commitments()
        current.step = table_pb2.TURN_PHASE_REVEAL
        self._commit(EntryDraft("commitments", None, events=[self._deal_event(published)]))
        if current.exchange.awaiting_reveals:
            self._set_deadline(self.settings.reveal_timeout)
        else:
            self._publish_reveals()

    def reveal_seed(
        self, seat: int, request: table_pb2.RevealSeedRequest
    ) -> table_pb2.RevealSeedResponse:
        if len(request.seed) != spec.SEED_BYTES:
            raise malformed(f"a seed is {spec.SEED_BYTES} bytes, not {len(request.seed)}")
        repeated = self._repeat(seat, "reveal", request.context)
        if repeated is not None:
            return table_pb2.RevealSeedResponse()
        current = self._exchange_for(seat, request.deal_no, table_pb2.TURN_PHASE_REVEAL)
        if current.exchange.left_out.get(seat) == deal_pb2.LEFT_OUT_REASON_NO_COMMITMENT:
            raise precondition(
                "NOT_COMMITTED",
                f"seat {seat} sent no commitment for deal {current.deal_no} in time",
            )
        bad = _receive(
            seat,
            current,
            "revealed",
            current.exchange.awaiting_reveals,
            lambda: current.exchange.receive_reveal(seat, request.seed, request.cut),
        )
        response = table_pb2.RevealSeedResponse()
        # A wrong reveal is still a fair-deal message the record shows: journal it either way,
        # but keep no answer for its request id: its answer is the refusal, which a retry gets
        # again (the seat is left out: see _exchange_for).
        self._commit(
            EntryDraft(
                "reveal",
                seat,
                request,
                response,
                request_id=request.context.request_id if bad is None else None,
                game=False,
            )
        )
        if not current.exchange.awaiting_reveals:
            self._publish_reveals()
        if bad is not None:
            raise _bad_reveal(seat, current.deal_no)
        return response

    def _publish_reveals(self) -> None:
        """Step 4 then 5: every reveal and the seats left out; then the deal itself."""
        current = self.current
        assert current is not None
        self.deadline.clear()
        revealed = current.exchange.publish_reveals()
        out = [self._deal_event(revealed)]
        engine_events = self._apply(None, match.StartDeal(tuple(current.exchange.derivation.deck)))
        current.step = table_pb2.TURN_PHASE_UNSPECIFIED
        out += [self._deal_event_from_engine(e) for e in engine_events]
        self._commit(EntryDraft("deal", None, events=out))

    def deadline_passed(self) -> None:
        if self.between_deals.running:
            self._pause_over()
            return
        if self.match is not None and self.match.phase is match.MatchPhase.RIENTRO:
            self._rientro_unanswered()
            return
        current = self.current
        if current is None:
            return
        if current.step == table_pb2.TURN_PHASE_COMMIT:
            self._publish_commitments()
        elif current.step == table_pb2.TURN_PHASE_REVEAL:
            self._publish_reveals()

    def _end_deal(self, match_events: list[events.Event]) -> None:
        """Step 6 and the record: the host's seed, the signature, the scores; then the next deal."""
        current, m = self.current, self.match
        assert current is not None and m is not None
        if m.phase is match.MatchPhase.RIENTRO:
            # The answer's deadline starts with the offer, so the offer can say how long it has.
            self._set_deadline(self.settings.reveal_timeout)
        self._pause_if_due()
        out = [self._deal_event(current.exchange.reveal_host_seed())]
        record = current.recorder.finish(self.identity)
        signed = table_pb2.DealSigned(
            deal_no=current.deal_no, chain_head=current.recorder.head, signature=record.signature
        )
        out.append((table_pb2.TableEvent(deal_signed=signed), {}))
        out.append((table_pb2.TableEvent(match_update=self.match_update()), {}))
        self.recorders[current.deal_no] = current.recorder
        self._commit(
            EntryDraft(
                "deal_end",
                None,
                events=out,
                extras=Extras(deal_record=(current.deal_no, record.to_json().encode("utf-8"))),
            )
        )
        self.current = None
        if m.phase is match.MatchPhase.OVER:
            self.phase = lobby_pb2.TABLE_PHASE_FINISHED
        elif m.phase is match.MatchPhase.DEAL_DUE:
            self._next_deal()

    # --- the pause between deals (host.between_deals) --------------------------------

    @functools.cached_property
    def between_deals(self) -> BetweenDeals:
        wanted = self.config.between_deals_seconds
        seconds = wanted if self.config.HasField("between_deals_seconds") else None
        return BetweenDeals(self.settings.between_deals if seconds is None else float(seconds))

    def _pause_if_due(self) -> None:
        """A deal is due: pause first for the people at the table (all of them while the
        journal is played back, so a Ready it holds finds the pause it was sent in)."""
        if self.match is None or self.match.phase is not match.MatchPhase.DEAL_DUE:
            return
        connected = None if self.replaying else self.presence.connected_seats()
        people = {
            s.number
            for s in self.seats
            if s.taken and not s.is_bot and (connected is None or s.number in connected)
        }
        if self.between_deals.begin(people):
            self._set_deadline(self.between_deals.seconds)

    def _next_deal(self) -> None:
        if not self.between_deals.running:
            self.deadline.clear()
            self._announce_deal()

    def _pause_over(self) -> None:
        self.between_deals.end()
        self.deadline.clear()
        self._announce_deal()

    def ready(self, seat: int, request: table_pb2.ReadyRequest) -> table_pb2.ReadyResponse:
        """A seat has read the end of the deal; the last person ready starts the next one."""
        response = table_pb2.ReadyResponse()
        if self._repeat(seat, "ready", request.context) is not None:
            return response
        pause = self.between_deals
        if not pause.running or seat not in pause.waiting_for or seat in pause.ready:
            return response  # late, or said twice: nothing to wait for, nothing to record
        pause.say_ready(seat)
        self._commit(
            EntryDraft(
                "ready",
                seat,
                request,
                response,
                [(table_pb2.TableEvent(match_update=self.match_update()), {})],
                request_id=request.context.request_id,
                game=False,
            )
        )
        if pause.over:
            self._pause_over()
        return response

    def pause_without(self, seat: int) -> None:
        """A person waited for has gone (their stream closed): the pause no longer waits for
        them. Only while serving: played back, the journal's own next entry says when the
        deal came, and a pause that waits for more people never ends earlier than it did."""
        pause = self.between_deals
        if not pause.running or self.replaying or seat not in pause.waiting_for:
            return
        if seat not in self.presence.connected_seats() and pause.left(seat):
            self._pause_over()

    def resume(self) -> None:
        super().resume()
        if self.between_deals.running:
            self._set_deadline(self.between_deals.seconds)

    def answer_rientro(
        self, seat: int, buy_back: bool, request: table_pb2.AnswerRientroRequest | None = None
    ) -> table_pb2.AnswerRientroResponse:
        """R11.3: a busted seat buys back in or retires."""
        if request is not None and self._repeat(seat, "rientro", request.context) is not None:
            return table_pb2.AnswerRientroResponse()
        if self.match is None or self.match.phase is not match.MatchPhase.RIENTRO:
            raise precondition("NO_RIENTRO", "no buy-back is on offer now", "R11.3")
        self._apply(seat, match.BuyBack() if buy_back else match.Retire())
        self._pause_if_due()
        response = table_pb2.AnswerRientroResponse()
        request_id = request.context.request_id if request is not None else None
        self._commit(
            EntryDraft(
                "rientro",
                seat,
                request,
                response,
                [(table_pb2.TableEvent(match_update=self.match_update()), {})],
                request_id=request_id,
            )
        )
        self._after_rientro()
        return response

    def _after_rientro(self) -> None:
        assert self.match is not None
        if self.match.phase is match.MatchPhase.OVER:
            self.phase = lobby_pb2.TABLE_PHASE_FINISHED
        elif self.match.phase is match.MatchPhase.DEAL_DUE:
            self._next_deal()

    def _rientro_unanswered(self) -> None:
        """R11.3: a busted seat that did not answer the buy-back offer in time retires."""
        assert self.match is not None
        for seat in self.match.pending_rientro:
            self._apply(seat, match.Retire())
        self._pause_if_due()
        update = table_pb2.TableEvent(match_update=self.match_update())
        self._commit(EntryDraft("rientro_timeout", None, events=[(update, {})]))
        self._after_rientro()

    def match_update(self) -> table_pb2.MatchUpdate:
        m = self.match
        assert m is not None
        by_deals = m.ruleset.match_mode is rules.MatchMode.DEALS
        scores = [
            table_pb2.SeatScore(
                seat=seat,
                total=m.deals_won[i] if by_deals else m.totals[i],
                out=m.out[i],
                rientri=m.rientri[i],
                chips=m.chips[i],
            )
            for i, seat in enumerate(m.seats)
        ]
        answer_within_ms = round(self.seconds_to_deadline() * 1000)
        offers = [
            table_pb2.RientroOffer(
                seat=seat, fee=m.rientro_fee(seat), answer_within_ms=answer_within_ms
            )
            for seat in m.pending_rientro
        ]
        update = table_pb2.MatchUpdate(
            scores=scores,
            match_over=m.phase is match.MatchPhase.OVER,
            winners=m.winners,
            rientro_offers=offers,
        )
        if self.between_deals.running:
            update.between_deals.CopyFrom(self.between_deals.to_pb(self.seconds_to_deadline()))
        return update

    def deal_record(self, seat: int | None, deal_no: int) -> bytes:
        """The signed record of an ended deal, with the caller's own private events if it played."""
        recorder = self.recorders.get(deal_no)
        if recorder is not None:
            return recorder.record_for(seat).to_json().encode("utf-8")
        record = self.journal.deal_record(deal_no)
        if record is None:
            raise not_found(
                "NO_SUCH_RECORD", f"deal {deal_no} of this table has not ended (or never was)"
            )
        return record
