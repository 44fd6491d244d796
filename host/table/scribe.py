"""The one way a table's change is recorded: the engine asked, deal events made, entries drafted.

Every part of a table (seating, the deal cycle, the turns) changes the table's
state only through its scribe: ``apply`` asks the engine, ``deal_event`` and
``engine_event`` make each deal event's bytes once (those bytes go on the wire
and into the hash chain), and ``commit`` hands the accepted action to the
outbox without awaiting anything, so nothing can interleave with a job.
"""

from __future__ import annotations

from collections.abc import Callable

from host.edge.errors import malformed, rule_broken
from host.journal.journaled import Journaled
from host.table.links import TableLinks
from host.table.outbox import EntryDraft, PendingEvents
from host.table.state import TableState
from scala40_net import events, match, views, wire
from scala40_net.errors import RuleViolation
from scala40_net.pb import deal_pb2, table_pb2

MAX_REQUEST_ID = 128

# One event as a job makes it: its public part and each seat's private part.
MadeEvent = tuple[table_pb2.TableEvent, dict[int, deal_pb2.PrivateDealEvent]]

__all__ = ["MAX_REQUEST_ID", "MadeEvent", "PendingEvents", "Scribe"]


class Scribe:
    """Records what a table accepted: into its state, its deal's hash chain and its outbox."""

    def __init__(self, state: TableState, links: TableLinks) -> None:
        self.state = state
        self.links = links
        # The last action the engine accepted, with the match as it was before it: a private
        # deal's end is applied again on the opened hands (host.table.private_cycle).
        self.last_move: tuple[match.MatchState, int | None, match.MatchAction] | None = None

    def commit(self, draft: EntryDraft) -> list[int]:
        """Number one accepted action's events and hand it to the outbox.

        The job that called this ends before anything is sent: the task writes
        the job's entries (one transaction) and only then publishes their events.
        """
        return self.links.outbox.commit(self.state, draft)

    def after_commit(self, step: Callable[[], None]) -> None:
        """Run ``step`` once the job is durable (a token that opens a seat, say)."""
        self.links.outbox.after_commit(step)

    def start_bot(self, seat: int) -> None:
        """A host bot takes ``seat`` once the job that seated it is durable."""
        seat_bot = self.links.seat_bot
        self.links.outbox.after_commit(lambda: seat_bot(seat))

    def apply(self, seat: int | None, action: match.MatchAction) -> list[events.Event]:
        """Ask the engine; on success the table's match state is the new one."""
        state = self.state
        assert state.match is not None
        before = state.match
        try:
            state.match, engine_events = match.apply_match(state.match, seat, action)
        except RuleViolation as violation:
            raise rule_broken(violation) from None
        self.last_move = (before, seat, action)
        return engine_events

    def deal_event(
        self,
        public: deal_pb2.DealEvent,
        private: dict[int, deal_pb2.PrivateDealEvent] | None = None,
    ) -> MadeEvent:
        """Serialize a deal event once: those bytes go on the wire and into the hash chain."""
        current = self.state.current
        assert current is not None
        data = public.SerializeToString()
        current.recorder.public(data)
        private = private or {}
        for seat, part in private.items():
            current.recorder.private(seat, part.SerializeToString())
            current.private_events.setdefault(seat, []).append(part)
        envelope = table_pb2.DealEventEnvelope(
            public_event=data, by_host=self.state.moving_for_seat
        )
        return table_pb2.TableEvent(deal=envelope), private

    def engine_event(self, event: events.Event) -> MadeEvent:
        """An engine deal event on the wire: public as a spectator sees it, private per seat.

        ``views.view_event`` is the one function that removes hidden cards.
        """
        table = self.state
        deal_state = table.deal_state
        assert deal_state is not None
        seen = views.view_event(event, None)
        public = wire.deal_event_to_pb(seen, table.table_id, table.deal_no, deal_state.opened)
        private: dict[int, deal_pb2.PrivateDealEvent] = {}
        secret = table.current.private if table.current is not None else None
        if secret is not None:
            # A private deal: the host knows no hidden card; a hand is its positions, a draw
            # from the stock the position drawn (docs/PRIVATE_TABLES.md).
            if isinstance(event, events.DealStarted):
                for seat, positions in secret.setup.positions.hands.items():
                    hand = deal_pb2.PrivateDealEvent(table_id=table.table_id, deal_no=table.deal_no)
                    hand.hand_dealt.positions.extend(
                        deal_pb2.PrivatePosition(round=0, position=p) for p in positions
                    )
                    private[seat] = hand
            elif isinstance(event, events.CardDrawn) and secret.last_draw is not None:
                public.drawn.position.round, public.drawn.position.position = secret.last_draw
                secret.drawn, secret.last_draw = (event.seat, secret.last_draw), None
            out = self.deal_event(public, private)
            if table.turn_seconds and self._starts_a_turn(event):
                out[0].deal.turn_time_ms = table.turn_seconds * 1000
            return out
        # An event a spectator sees whole hides nothing: no seat learns more of it alone.
        for seat in deal_state.seats if seen is not event else ():
            part = wire.private_event_to_pb(
                views.view_event(event, seat), seat, table.table_id, table.deal_no
            )
            if part is not None:
                private[seat] = part
        out = self.deal_event(public, private)
        if table.turn_seconds and self._starts_a_turn(event):
            out[0].deal.turn_time_ms = table.turn_seconds * 1000
        return out

    def _starts_a_turn(self, event: events.Event) -> bool:
        """The deal's start, or a play after which another seat is to draw: the turn clock of
        the seat to move starts with this event."""
        deal_state = self.state.deal_state
        if deal_state is None or deal_state.is_over:
            return False
        return isinstance(event, events.DealStarted | events.Played)

    def repeat(self, seat: int, kind: Journaled, context: table_pb2.MoveContext) -> bytes | None:
        """The answer already given to this request id, when this is a retry."""
        if len(context.request_id) > MAX_REQUEST_ID:
            raise malformed(f"a request id has at most {MAX_REQUEST_ID} characters")
        if not context.request_id:
            raise malformed(
                "a move needs a request_id in its MoveContext (a UUID, say): "
                "it is what makes a retry after a lost reply safe"
            )
        found = self.state.answers.get((seat, context.request_id))
        if found is None:
            return None
        if found[0] != kind.kind:
            raise malformed(f"request id {context.request_id!r} was already used for a {found[0]}")
        return found[1]
