"""A table's deal cycle: the fair-deal exchange before each deal, its rebuilds and end, the
pause between deals, and the buy-back offers (rientro) that may follow a deal.

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

from host.edge.errors import Refusal, malformed, not_found, precondition
from host.journal import journaled
from host.journal.sqlite import Extras
from host.table import durations
from host.table.between_deals import BetweenDeals
from host.table.outbox import EntryDraft
from host.table.private_cycle import PrivateCycle
from host.table.scribe import MadeEvent, Scribe
from host.table.state import DealInProgress, TableState
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


class DealCycle:
    """The deals of one table, from each announcement to the next, and what a move leads to."""

    def __init__(self, state: TableState, scribe: Scribe) -> None:
        self.state = state
        self.scribe = scribe
        self._settings = scribe.links.settings
        self._deadline = scribe.links.deadline
        self.private = PrivateCycle(state, scribe, self._end_deal)

    def _match_event(self) -> MadeEvent:
        return table_pb2.TableEvent(match_update=self.match_update()), {}

    def after_move(self, draft: EntryDraft, engine_events: list[events.Event]) -> None:
        """Journal and publish an accepted move, then take the table's own steps after it."""
        state = self.state
        # A move's response names the seq of the move's own event, the first one it caused.
        if draft.response is not None and hasattr(draft.response, "seq"):
            draft.response.seq = state.seq + 1
        self.private.moved()
        if self.private.ends(engine_events):
            self.private.hold_end(draft, engine_events)
            return
        draft.events = [self.scribe.engine_event(e) for e in engine_events if wire.is_deal_event(e)]
        self.scribe.commit(draft)
        assert state.match is not None
        if state.match.phase is match.MatchPhase.IN_DEAL and state.deal_state is not None:
            if state.deal_state.phase is deal.Phase.REBUILD:
                self._rebuild_stock()
            return
        self._end_deal([e for e in engine_events if not wire.is_deal_event(e)])

    def _rebuild_stock(self) -> None:
        """R10.1: the table makes the new stock from the fair deal's stream (FAIR_DEAL.md)."""
        deal_state, current = self.state.deal_state, self.state.current
        assert deal_state is not None and current is not None
        if current.private is not None:
            order = list(current.private.rebuild(deal_state.discard_pile[:-1]))
        else:
            order = current.exchange.rebuilt_stock(deal_state.discard_pile)
        engine_events = self.scribe.apply(None, actions.RebuildStock(tuple(order)))
        self.after_move(EntryDraft(journaled.REBUILD.kind, None), engine_events)

    def announce_deal(self) -> None:
        """Step 1: a new deal attempt and the host's commitment; its seed is journaled, secret."""
        state = self.state
        assert state.match is not None
        if state.private_cards:
            self.private.announce()
            return
        state.deal_no += 1
        setup = DealSetup(
            table_id=state.table_id,
            deal_no=state.deal_no,
            dealer=state.match.dealer,
            seats_in_play=state.match.seats_in_play,
            deck_size=state.ruleset.deck_size,
            ruleset=wire.ruleset_to_pb(state.preset, state.ruleset),
        )
        host_seed = self.scribe.links.choices.host_seed(state.deal_no)
        state.current = DealInProgress(
            HostExchange(setup, host_seed), DealRecorder(state.table_id, state.deal_no)
        )
        announced = state.current.exchange.announce()
        self.scribe.commit(
            EntryDraft(
                journaled.ANNOUNCE.kind,
                None,
                events=[self.scribe.deal_event(announced)],
                extras=Extras(host_seed=(state.deal_no, host_seed)),
            )
        )
        self._deadline.arm(self._settings.commit_timeout)

    def _exchange_for(self, seat: int, deal_no: int, step: int) -> DealInProgress:
        current = self.state.current
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
        if self.scribe.repeat(seat, journaled.COMMIT, request.context) is not None:
            return table_pb2.CommitSeedResponse()
        current = self._exchange_for(seat, request.deal_no, table_pb2.TURN_PHASE_COMMIT)
        host_played = self.state.seats[seat].played_by_host
        _receive(
            seat,
            current,
            "committed",
            current.exchange.awaiting_commitments,
            lambda: current.exchange.receive_commitment(
                seat, request.commitment, host_played=host_played
            ),
        )
        response = table_pb2.CommitSeedResponse()
        self.scribe.commit(
            EntryDraft(
                journaled.COMMIT.kind,
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
        current = self.state.current
        assert current is not None
        published = current.exchange.publish_commitments()
        current.step = table_pb2.TURN_PHASE_REVEAL
        self.scribe.commit(
            EntryDraft(journaled.COMMITMENTS.kind, None, events=[self.scribe.deal_event(published)])
        )
        if current.exchange.awaiting_reveals:
            self._deadline.arm(self._settings.reveal_timeout)
        else:
            self._publish_reveals()

    def reveal_seed(
        self, seat: int, request: table_pb2.RevealSeedRequest
    ) -> table_pb2.RevealSeedResponse:
        if len(request.seed) != spec.SEED_BYTES:
            raise malformed(f"a seed is {spec.SEED_BYTES} bytes, not {len(request.seed)}")
        if self.scribe.repeat(seat, journaled.REVEAL, request.context) is not None:
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
        self.scribe.commit(
            EntryDraft(
                journaled.REVEAL.kind,
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
        current = self.state.current
        assert current is not None
        self._deadline.clear()
        revealed = current.exchange.publish_reveals()
        out = [self.scribe.deal_event(revealed)]
        engine_events = self.scribe.apply(
            None, match.StartDeal(tuple(current.exchange.derivation.deck))
        )
        current.step = table_pb2.TURN_PHASE_UNSPECIFIED
        out += [self.scribe.engine_event(e) for e in engine_events]
        self.scribe.commit(EntryDraft(journaled.DEAL.kind, None, events=out))

    def deadline_passed(self) -> None:
        """What the table does when its deadline passes: the step waiting is closed."""
        if self.between_deals.running:
            self._pause_over()
            return
        m = self.state.match
        if m is not None and m.phase is match.MatchPhase.RIENTRO:
            self._rientro_unanswered()
            return
        if self.private.deadline_passed():
            return
        current = self.state.current
        if current is None:
            return
        if current.step == table_pb2.TURN_PHASE_COMMIT:
            self._publish_commitments()
        elif current.step == table_pb2.TURN_PHASE_REVEAL:
            self._publish_reveals()

    def _end_deal(self, match_events: list[events.Event]) -> None:
        """Step 6 and the record: the host's seed, the signature, the scores; then the next deal."""
        state = self.state
        current, m = state.current, state.match
        assert current is not None and m is not None
        if m.phase is match.MatchPhase.RIENTRO:
            # The answer's deadline starts with the offer, so the offer can say how long it has.
            self._deadline.arm(self._settings.reveal_timeout)
        self._pause_if_due()
        out: list[MadeEvent] = []
        if current.private is None:
            out.append(self.scribe.deal_event(current.exchange.reveal_host_seed()))
        else:
            current.recorder.private_transcript = tuple(current.private.transcript)
        record = current.recorder.finish(self.scribe.links.identity)
        signed = table_pb2.DealSigned(
            deal_no=current.deal_no, chain_head=current.recorder.head, signature=record.signature
        )
        out.append((table_pb2.TableEvent(deal_signed=signed), {}))
        out.append(self._match_event())
        state.recorders[current.deal_no] = current.recorder
        self.scribe.commit(
            EntryDraft(
                journaled.DEAL_END.kind,
                None,
                events=out,
                extras=Extras(deal_record=(current.deal_no, record.to_json().encode("utf-8"))),
            )
        )
        state.current = None
        if m.phase is match.MatchPhase.OVER:
            state.phase = lobby_pb2.TABLE_PHASE_FINISHED
        elif m.phase is match.MatchPhase.DEAL_DUE:
            self._next_deal()

    # --- the pause between deals (host.table.between_deals) --------------------------------

    @functools.cached_property
    def between_deals(self) -> BetweenDeals:
        config = self.state.config
        if not config.HasField("between_deals_seconds"):
            return BetweenDeals(self._settings.between_deals)
        return BetweenDeals(
            float(durations.held("between_deals_seconds", config.between_deals_seconds))
        )

    def _pause_if_due(self) -> None:
        """A deal is due: pause first for the people at the table the host's choices name
        (those connected and still playing the match: a busted seat has no deal to wait
        for; all of them while the journal is played back, so a Ready it holds finds the
        pause it was sent in)."""
        m = self.state.match
        if m is None or m.phase is not match.MatchPhase.DEAL_DUE:
            return
        people = {s.number for s in self.state.seats if s.taken and not s.is_bot}
        waited_for = self.scribe.links.choices.pause_waits_for(people, set(m.seats_in_play))
        if self.between_deals.begin(waited_for):
            self._deadline.arm(self.between_deals.seconds)

    def _next_deal(self) -> None:
        if not self.between_deals.running:
            self._deadline.clear()
            self.announce_deal()

    def _pause_over(self) -> None:
        self.between_deals.end()
        self._deadline.clear()
        self.announce_deal()

    def ready(self, seat: int, request: table_pb2.ReadyRequest) -> table_pb2.ReadyResponse:
        """A seat has read the end of the deal; the last person ready starts the next one."""
        response = table_pb2.ReadyResponse()
        if self.scribe.repeat(seat, journaled.READY, request.context) is not None:
            return response
        pause = self.between_deals
        if not pause.running or seat not in pause.waiting_for or seat in pause.ready:
            return response  # late, or said twice: nothing to wait for, nothing to record
        pause.say_ready(seat)
        self.scribe.commit(
            EntryDraft(
                journaled.READY.kind,
                seat,
                request,
                response,
                [self._match_event()],
                request_id=request.context.request_id,
                game=False,
            )
        )
        if pause.over:
            self._pause_over()
        return response

    def pause_without(self, seat: int) -> None:
        """A person waited for has gone (their stream closed): the pause no longer waits for
        them. Only live: played back, the journal's own next entry says when the deal came
        (a connection's entry is handed back without this), and a pause that waits for more
        people never ends earlier than it did."""
        pause = self.between_deals
        if not pause.running or seat not in pause.waiting_for:
            return
        if seat not in self.scribe.links.presence.connected_seats() and pause.left(seat):
            self._pause_over()

    def resume(self) -> None:
        """After the journal was played back: the deadline starts afresh for the step waiting."""
        self._deadline.clear()
        current, m = self.state.current, self.state.match
        if current is not None and current.private is not None:
            if current.step != table_pb2.TURN_PHASE_UNSPECIFIED:
                self._deadline.arm(self.private.wait_seconds())
        elif current is not None and current.step != table_pb2.TURN_PHASE_UNSPECIFIED:
            timeout = (
                self._settings.commit_timeout
                if current.step == table_pb2.TURN_PHASE_COMMIT
                else self._settings.reveal_timeout
            )
            self._deadline.arm(timeout)
        if m is not None and m.phase is match.MatchPhase.RIENTRO:
            self._deadline.arm(self._settings.reveal_timeout)
        if self.between_deals.running:
            self._deadline.arm(self.between_deals.seconds)

    def answer_rientro(
        self, seat: int, buy_back: bool, request: table_pb2.AnswerRientroRequest | None = None
    ) -> table_pb2.AnswerRientroResponse:
        """R11.3: a busted seat buys back in or retires."""
        if (
            request is not None
            and self.scribe.repeat(seat, journaled.RIENTRO, request.context) is not None
        ):
            return table_pb2.AnswerRientroResponse()
        m = self.state.match
        if m is None or m.phase is not match.MatchPhase.RIENTRO:
            raise precondition("NO_RIENTRO", "no buy-back is on offer now", "R11.3")
        self.scribe.apply(seat, match.BuyBack() if buy_back else match.Retire())
        self._pause_if_due()
        response = table_pb2.AnswerRientroResponse()
        request_id = request.context.request_id if request is not None else None
        self.scribe.commit(
            EntryDraft(
                journaled.RIENTRO.kind,
                seat,
                request,
                response,
                [self._match_event()],
                request_id=request_id,
            )
        )
        self._after_rientro()
        return response

    def _after_rientro(self) -> None:
        m = self.state.match
        assert m is not None
        if m.phase is match.MatchPhase.OVER:
            self.state.phase = lobby_pb2.TABLE_PHASE_FINISHED
        elif m.phase is match.MatchPhase.DEAL_DUE:
            self._next_deal()

    def _rientro_unanswered(self) -> None:
        """R11.3: a busted seat that did not answer the buy-back offer in time retires."""
        m = self.state.match
        assert m is not None
        for seat in m.pending_rientro:
            self.scribe.apply(seat, match.Retire())
        self._pause_if_due()
        self.scribe.commit(
            EntryDraft(journaled.RIENTRO_TIMEOUT.kind, None, events=[self._match_event()])
        )
        self._after_rientro()

    def seconds_to_deadline(self) -> float:
        """What is left of the running fair-deal or rientro deadline (0 when none runs)."""
        return self._deadline.remaining()

    def match_update(self) -> table_pb2.MatchUpdate:
        m = self.state.match
        assert m is not None
        by_deals = m.ruleset.match_mode is rules.MatchMode.DEALS
        scores = [
            table_pb2.SeatScore(
                seat=seat,
                total=m.deals_won[i] if by_deals else m.totals[i],
                out=m.out[i],
                gone=seat in m.gone,
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
        recorder = self.state.recorders.get(deal_no)
        if recorder is not None:
            return recorder.record_for(seat).to_json().encode("utf-8")
        record = self.scribe.links.journal.deal_record(deal_no)
        if record is None:
            raise not_found(
                "NO_SUCH_RECORD", f"deal {deal_no} of this table has not ended (or never was)"
            )
        return record
