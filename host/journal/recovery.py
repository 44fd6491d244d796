"""Restart recovery: a table played back from its journal through the engine, as it was.

Every accepted request is handed again to the same table method, in the
journal's order, by its kind (``host.journal.journaled`` declares each kind once); the
host's own steps (a deadline that closed the commitments or the reveals) are
taken again where the journal has them. Randomness comes
back from the journal (the first dealer from the MatchStarted event, each
deal's host seed from the seeds kept with it), so the engine reaches exactly
the state it had. The events published are the journaled ones, and every deal
event the engine produces again must be the same bytes, or the table is not
reopened: its hash chains and signatures depend on them.

The journal ends at a job boundary (``host.journal.sqlite``), so the entries a
request led to (StartMatch's start and announcement, say) are all there or
none is. A journal written by an older host, which committed each entry on
its own, may end inside a job: the rest of that job was never published, so
the playback makes it again, live (a fresh seed where one is needed), and the
task writes it as one job before the table opens. The playback is the
table's ``Outbox`` and ``HostChoices`` while it runs.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from host.edge.errors import Refusal
from host.journal import journaled
from host.journal.journaled import ReplayError
from host.journal.sqlite import Journal, StoredEntry
from host.table.fanout import Record
from host.table.outbox import EntryDraft, JobOutbox, Numbered
from host.table.table import Table
from scala40_net.fairdeal.exchange import new_seed
from scala40_net.pb import deal_pb2, table_pb2


class Replay:
    """The journal of one table, consumed entry by entry as the table produces them again."""

    def __init__(self, entries: list[StoredEntry], host_seeds: dict[int, bytes]) -> None:
        self.pending = deque(entries)
        self._host_seeds = host_seeds
        self.records: list[Record] = []  # what the entry being played back published
        # The rest of a job the journal ends inside of (an older host's crash), made live.
        self.rest_of_job = JobOutbox()

    def commit(self, table: Numbered, draft: EntryDraft) -> list[int]:
        """Match the next entry and take its journaled events as the ones published."""
        if not self.pending:  # past the journal's end, inside its last job: made anew
            return self.rest_of_job.commit(table, draft)
        entry = self.pending.popleft()
        kind, seat, events = draft.kind, draft.seat, draft.events
        if (entry.kind, entry.seat) != (kind, seat) or len(entry.events) != len(events):
            raise ReplayError(
                f"journal entry {entry.entry_no} is a {entry.kind!r} of seat {entry.seat} with "
                f"{len(entry.events)} events; the engine made a {kind!r} of seat {seat} "
                f"with {len(events)}"
            )
        records = []
        for (made, _), stored in zip(events, entry.events, strict=True):
            public = table_pb2.TableEvent.FromString(stored.public)
            if made.HasField("deal") and made.deal.public_event != public.deal.public_event:
                raise ReplayError(f"event {stored.seq} differs from the journal's")
            private = {
                s: deal_pb2.PrivateDealEvent.FromString(b) for s, b in stored.private.items()
            }
            records.append(Record(stored.seq, public, private))
        if records:
            table.seq = records[-1].seq
            if draft.game:
                table.last_game_seq = records[-1].seq
        if entry.request_id:
            table.remember_answer(seat, entry.request_id, kind, entry.response)
        self.records += records
        return [r.seq for r in records]

    def after_commit(self, step: Callable[[], None]) -> None:
        """Nothing to do again: the tokens are read from the journal itself, and the task
        seats the host bots once the playback is over."""

    def first_dealer(self, players: list[int]) -> int:
        """The first dealer the host drew (R2.1), from the journaled MatchStarted."""
        entry = self.pending[0]
        started = table_pb2.TableEvent.FromString(entry.events[0].public)
        if not started.HasField("match_started"):
            raise ReplayError(f"journal entry {entry.entry_no} should start the match")
        return started.match_started.first_dealer_seat

    def host_seed(self, deal_no: int) -> bytes:
        if deal_no in self._host_seeds:
            return self._host_seeds[deal_no]
        if not self.pending:  # a deal the journal's last job had not announced yet
            return new_seed()
        raise ReplayError(f"the host seed of deal {deal_no} is not in the journal")

    def pause_waits_for(self, people: set[int], playing: set[int]) -> set[int]:
        """All of them, out of the match or not: a Ready the journal holds (an older host's
        from a busted seat too) finds the pause it was sent in, and the journal's own next
        entry says when the deal came."""
        return people

    def timed_out_discard(self, chosen: int) -> int:
        """The discard the journal holds: an older host chose another card (the costliest)."""
        entry = self.pending[0] if self.pending else None
        if entry is None or entry.kind != journaled.TIMEOUT_PLAY.kind or not entry.events:
            return chosen  # past the journal's end: the rest of its job is made anew
        public = table_pb2.TableEvent.FromString(entry.events[0].public)
        played = deal_pb2.DealEvent.FromString(public.deal.public_event)
        if played.WhichOneof("event") != "played" or not played.played.HasField("discard"):
            raise ReplayError(f"journal entry {entry.entry_no} should be a timed-out discard")
        return played.played.discard


def play_back(
    table: Table, journal: Journal, publish: Callable[[Record], None] | None
) -> JobOutbox:
    """Bring ``table`` to where its journal ends; raises ``ReplayError`` if that cannot be done.

    ``publish`` gets every journaled event in order (into a new fan-out at a
    restart); None when they were published already (the table is rebuilt after
    a failed job, beside the fan-out that has them). Returns the rest of a job the
    journal ended inside of, not yet written (empty for a journal this host wrote).
    """
    replay = Replay(journal.entries(), journal.host_seeds())
    table.state.bot_seeds = journal.bot_seeds()
    links = table.links
    live_outbox, live_choices = links.outbox, links.choices
    links.outbox, links.choices = replay, replay
    try:
        while replay.pending:
            head = replay.pending[0]
            declared = journaled.KINDS.get(head.kind)
            if declared is None:
                raise ReplayError(
                    f"journal entry {head.entry_no} has an unknown kind {head.kind!r}"
                )
            try:
                declared.hand_back(table, head)
            except Refusal as refusal:
                # Only a bad reveal is journaled and still refused; anything else is a mismatch.
                if refusal.reason != "BAD_REVEAL":
                    raise ReplayError(
                        f"journal entry {head.entry_no} ({head.kind}): {refusal}"
                    ) from None
            if replay.pending and replay.pending[0] is head:
                raise ReplayError(f"journal entry {head.entry_no} ({head.kind}) changed nothing")
            if publish is not None:
                for record in replay.records:
                    publish(record)
            replay.records.clear()
    finally:
        links.outbox, links.choices = live_outbox, live_choices
    return replay.rest_of_job
