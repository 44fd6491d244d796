"""Restart recovery: a table played back from its journal through the engine, as it was.

Every accepted request is handed again to the same table method, in the
journal's order; the host's own steps (a deadline that closed the commitments
or the reveals) are taken again where the journal has them. Randomness comes
back from the journal (the first dealer from the MatchStarted event, each
deal's host seed from the seeds kept with it), so the engine reaches exactly
the state it had. The events published are the journaled ones, and every deal
event the engine produces again must be the same bytes, or the table is not
reopened: its hash chains and signatures depend on them.

The journal ends at a job boundary (``host.journal``), so the entries a
request led to (StartMatch's start and announcement, say) are all there or
none is. A journal written by an older host, which committed each entry on
its own, may end inside a job: the rest of that job was never published, so
the playback makes it again, live (a fresh seed where one is needed), and the
task writes it as one job before the table opens. The playback is the
table's ``Outbox`` and ``Randomness`` while it runs.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from host.errors import Refusal
from host.fanout import Record
from host.journal import StoredEntry, TableJournal
from host.outbox import EntryDraft, JobOutbox, Numbered
from host.table import Table
from scala40_net.fairdeal.exchange import new_seed
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2

# Entries the host writes on its own; at the head of the journal they are a deadline's doing.
HOST_STEPS = {"announce", "commitments", "deal", "rebuild", "deal_end", "rientro_timeout"}


class ReplayError(Exception):
    """The journal and the engine disagree: the table cannot be reopened as it was."""


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


def _seat_calls(table: Table) -> dict[str, tuple[Callable[[int, Any], object], type[Message]]]:
    """The table method a seat's journaled request went to, by entry kind, with its request type."""
    return {
        "add_bot": (table.add_bot, lobby_pb2.AddBotRequest),
        "leave": (table.leave, lobby_pb2.LeaveTableRequest),
        "chat": (table.chat, table_pb2.SendChatRequest),
        "start": (table.start_match, lobby_pb2.StartMatchRequest),
        "draw": (table.draw, table_pb2.DrawRequest),
        "play": (table.play, table_pb2.PlayRequest),
        "return_discard": (table.return_discard, table_pb2.ReturnDiscardRequest),
        "commit": (table.commit_seed, table_pb2.CommitSeedRequest),
        "reveal": (table.reveal_seed, table_pb2.RevealSeedRequest),
        "ready": (table.ready, table_pb2.ReadyRequest),
    }


def _replay_entry(table: Table, entry: StoredEntry) -> None:
    """Hand one journaled entry to the table method that accepted it."""
    seat, data = entry.seat, entry.request
    kind = entry.kind
    if kind in HOST_STEPS:
        table.deadline.clear()
        table.deadline_passed()
    elif kind == "join":
        table.join(lobby_pb2.JoinTableRequest.FromString(data))
    elif kind == "spectate":
        table.spectate(lobby_pb2.SpectateTableRequest())
    elif kind == "connection" and seat is not None:
        table.connection_changed(seat)
    elif kind.startswith("timeout_"):  # the host played the seat's turn when its clock ran out
        table.play_timed_out_turn()
    elif kind == "away" and seat is not None:
        table.mark_away(seat, lobby_pb2.SeatInfo.FromString(data).away)
    elif kind == "back" and seat is not None:
        table.mark_back(seat)
    elif kind == "free_seat" and seat is not None:
        table.free_seat(seat, lobby_pb2.SeatInfo.FromString(data).seat)
    elif seat is None:
        raise ReplayError(f"journal entry {entry.entry_no} ({kind}) names no seat")
    elif kind == "rientro":
        request = table_pb2.AnswerRientroRequest.FromString(data)
        table.answer_rientro(seat, request.buy_back, request)
    elif (seat_call := _seat_calls(table).get(kind)) is not None:
        call, request_type = seat_call
        call(seat, request_type.FromString(data))
    else:
        raise ReplayError(f"journal entry {entry.entry_no} has an unknown kind {kind!r}")


def play_back(
    table: Table, journal: TableJournal, publish: Callable[[Record], None] | None
) -> JobOutbox:
    """Bring ``table`` to where its journal ends; raises ``ReplayError`` if that cannot be done.

    ``publish`` gets every journaled event in order (into a new fan-out at a
    restart); None when they were published already (the table is rebuilt after
    a failed job, beside the fan-out that has them). Returns the rest of a job the
    journal ended inside of, not yet written (empty for a journal this host wrote).
    """
    replay = Replay(journal.entries(), journal.host_seeds())
    table.bot_seeds = journal.bot_seeds()
    live_outbox, live_randomness = table.outbox, table.randomness
    table.outbox, table.randomness, table.replaying = replay, replay, True
    try:
        while replay.pending:
            head = replay.pending[0]
            try:
                _replay_entry(table, head)
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
        table.outbox, table.randomness, table.replaying = live_outbox, live_randomness, False
    return replay.rest_of_job
