"""The conformance check's script: what the host does to the client under test, and the checks.

The client under test sits at seat 0 of one table; host bots fill the other
seats. ``Script`` is told of every move the client sends and every event its
stream is given (``host.conformance.service``), decides the refusals the host
scripts (each once), when its stream is dropped, and keeps one ``Check`` per
situation with what was expected and what was seen. The run itself — the
table, the host restart, the waiting — is ``host.conformance.check``'s.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc
from google.protobuf.message import Message

from host.edge.errors import Refusal
from scala40_net.pb import deal_pb2, table_pb2

NOT_REACHED = "not reached: the run ended before this situation came"


@dataclass
class Check:
    """One situation: what the client was expected to do, what it did, and whether it passed."""

    name: str
    expected: str
    seen: str = NOT_REACHED
    passed: bool | None = None  # None: not decided (yet)

    def decide(self, passed: bool, seen: str) -> None:
        """The first verdict stands: a later move does not undo a failure."""
        if self.passed is None:
            self.passed, self.seen = passed, seen

    def line(self) -> str:
        mark = {True: "PASS", False: "FAIL", None: "FAIL"}[self.passed]
        return f"{mark}  {self.name}\n      expected: {self.expected}\n      seen:     {self.seen}"


@dataclass(frozen=True)
class Move:
    """One move the client sent, and what became of it."""

    kind: str  # draw, play, return_discard, commit, reveal
    request_id: str
    last_seen_seq: int
    what: bytes  # the move itself without its context, to tell a repeat from another move
    outcome: str  # "accepted", or the refusal's reason (scripted ones start with "scripted ")
    run: int  # which host run (1, then 2 after the restart) took it


def _without_context(request: Message) -> bytes:
    """The request's bytes with its MoveContext cleared: the move, not its ids."""
    copy = type(request)()
    copy.CopyFrom(request)
    copy.ClearField("context")
    return copy.SerializeToString(deterministic=True)


@dataclass
class Script:
    """What happens to the client under test, and what it did about it."""

    silent_seat: int  # the host bot seat that sends no commitment in deal 1: the cutter
    seat: int | None = None  # the client's seat
    table_id: str | None = None  # the conformance table, once made
    run: int = 1
    moves: list[Move] = field(default_factory=list)
    subscriptions: list[tuple[int, int]] = field(default_factory=list)  # host run, after_seq
    seat_streams: int = 0  # of them, the seat's streams (TableService.Seat): moves on them
    delivered: int = 0  # the last seq the client's stream was given (across runs)
    rebuilt_at: int | None = None  # seq of the first stock_rebuilt
    cutter_left_out: bool = False
    client_left_out: str | None = None
    drop_requested: bool = False
    dropped_after: int | None = None  # the last seq given on the stream that was dropped
    restarted_after: int | None = None  # the last seq given before the host stopped
    host_refusals: list[str] = field(default_factory=list)  # the host's own (not scripted)
    _stale_refused: Move | None = None
    _read_after_stale: bool = False  # a GetView after the STALE_VIEW refusal
    _rule_refused: Move | None = None
    _not_saved: Move | None = None
    _news: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        s = self.silent_seat
        self.left_out = Check(
            "left-out seat",
            f"a RevealSeed accepted after the commitments without seat {s} (it sent none in "
            "time): the deal goes on without it",
        )
        self.derived_cut = Check(
            "derived cut",
            f"the client plays its first turn of the deal whose cutter (seat {s}) was left "
            "out, the cut derived from the mix",
        )
        self.stale_view = Check(
            "stale view refusal",
            "after its first Draw is refused with STALE_VIEW, the client reads the table "
            "again (GetView) and sends a new Draw (a new request_id), which is accepted",
        )
        self.rule_refusal = Check(
            "rule refusal",
            "after its first Play is refused with RULE_VIOLATION, the client makes another "
            "move (other operations or another discard, or ReturnDiscard), which is accepted",
        )
        self.not_saved = Check(
            "not saved refusal",
            "after a Draw is refused with UNAVAILABLE, reason NOT_SAVED, the client sends it "
            "again (the same request_id may be reused) and carries on",
        )
        self.rebuild = Check(
            "stock rebuild",
            "after stock_rebuilt, the client's next turn (its Play sent after it) is accepted",
        )
        self.dropped = Check(
            "dropped stream",
            "after the host ends its event stream mid-deal (UNAVAILABLE), the client "
            "subscribes again with after_seq = its last event, then plays its next turn",
        )
        self.restart = Check(
            "host restart",
            "after the host stops and starts again on the same port and data dir mid-deal, "
            "the client subscribes again with after_seq = its last event and plays its next "
            "two turns",
        )

    @property
    def checks(self) -> list[Check]:
        return [
            self.left_out,
            self.derived_cut,
            self.stale_view,
            self.rule_refusal,
            self.not_saved,
            self.rebuild,
            self.dropped,
            self.restart,
        ]

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    # --- Waiting (the run's stages) ------------------------------------------------------

    def _tell(self) -> None:
        self._news.set()

    async def until(
        self, done: Callable[[], bool], seconds: float, gone: Callable[[], bool] = lambda: False
    ) -> bool:
        """Wait until ``done()`` holds, ``seconds`` pass, or ``gone()`` (the client exited)."""
        end = time.monotonic() + seconds
        while not done():
            left = end - time.monotonic()
            if left <= 0 or gone():
                return False
            self._news.clear()
            try:
                async with asyncio.timeout(min(left, 0.5)):
                    await self._news.wait()
            except TimeoutError:
                pass
        return True

    def accepted(self, kind: str, *, after: int = 0, run: int = 0) -> list[Move]:
        """The client's accepted moves of ``kind`` sent with last_seen_seq >= ``after``."""
        return [
            m
            for m in self.moves
            if m.kind == kind
            and m.outcome == "accepted"
            and m.last_seen_seq >= after
            and m.run >= run
        ]

    # --- What the client sends ------------------------------------------------------------

    def before_move(
        self, kind: str, request: Message, context: table_pb2.MoveContext
    ) -> Refusal | None:
        """The scripted refusal for this move, if the host refuses it (nothing is done)."""
        move = Move(
            kind, context.request_id, context.last_seen_seq, _without_context(request), "", self.run
        )
        if kind == "draw":
            return self._draw_refusal(move)
        if kind != "play":
            return None
        refused = self._rule_refused
        if refused is None:
            self._rule_refused = move
            return self._refused(move, _rule_refusal())
        if self.rule_refusal.passed is None and move.what == refused.what:
            # The same play again: the same answer. Under the same request id it is a resend
            # (its answer was lost with a dropped stream), not a new decision: no verdict yet.
            if move.request_id != refused.request_id:
                self.rule_refusal.decide(False, "the client sent the refused play again, unchanged")
            return self._refused(move, _rule_refusal())
        return None

    def view_read(self) -> None:
        """The client under test asked for its view (GetView)."""
        if self._stale_refused is not None:
            self._read_after_stale = True

    def _draw_refusal(self, move: Move) -> Refusal | None:
        if self._stale_refused is None:
            self.derived_cut.decide(
                self.cutter_left_out,
                f"the client drew in its first turn (last_seen_seq {move.last_seen_seq})"
                if self.cutter_left_out
                else f"seat {self.silent_seat} was not left out of this deal",
            )
            self._stale_refused = move
            return self._refused(
                move,
                Refusal(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    "STALE_VIEW",
                    f"the table changed after event {move.last_seen_seq}: read the table "
                    "again (GetView) and decide again (the conformance check refuses each "
                    "client's first Draw so)",
                ),
            )
        if self._not_saved is None and self.accepted("play"):
            self._not_saved = move
            return self._refused(
                move,
                Refusal(
                    grpc.StatusCode.UNAVAILABLE,
                    "NOT_SAVED",
                    "the host could not save this move: a conformance check (on purpose); "
                    "nothing of it was done, try again",
                ),
            )
        return None

    def _refused(self, move: Move, refusal: Refusal) -> Refusal:
        self.moves.append(_with(move, f"scripted {refusal.reason}"))
        self._tell()
        return refusal

    def after_move(
        self,
        kind: str,
        request: Message,
        context: table_pb2.MoveContext,
        refusal: Refusal | None,
    ) -> None:
        """The table's own answer to a move the script let through."""
        move = Move(
            kind,
            context.request_id,
            context.last_seen_seq,
            _without_context(request),
            "accepted" if refusal is None else refusal.reason,
            self.run,
        )
        self.moves.append(move)
        if refusal is not None:
            self.host_refusals.append(
                f"{kind}: {refusal.code.name} {refusal.reason}: {refusal.message}"
            )
        self._judge(move, refusal)
        self._tell()

    def _judge(self, move: Move, refusal: Refusal | None) -> None:
        if move.kind == "reveal":
            if refusal is None:
                self.left_out.decide(
                    self.cutter_left_out,
                    "RevealSeed accepted"
                    + (
                        ""
                        if self.cutter_left_out
                        else f", but seat {self.silent_seat} was not left out"
                    ),
                )
            else:
                self.left_out.decide(
                    False, f"RevealSeed refused: {refusal.reason}: {refusal.message}"
                )
        if refusal is not None:
            return
        if move.kind == "draw":
            self._judge_draw(move)
        elif move.kind in ("play", "return_discard") and self._rule_refused is not None:
            self.rule_refusal.decide(True, f"another move ({move.kind}) was sent and accepted")

    def _judge_draw(self, move: Move) -> None:
        stale = self._stale_refused
        if stale is not None and self.stale_view.passed is None:
            if move.request_id == stale.request_id:
                self.stale_view.decide(
                    False,
                    "the refused Draw was sent again with the same request_id, not decided again",
                )
            elif not self._read_after_stale:
                self.stale_view.decide(
                    False,
                    f"a new Draw (last_seen_seq {move.last_seen_seq}) was sent without reading "
                    "the table again: no GetView after the refusal",
                )
            else:
                self.stale_view.decide(
                    True,
                    f"a new Draw (last_seen_seq {move.last_seen_seq}, "
                    f"was {stale.last_seen_seq}) was accepted",
                )
        lost = self._not_saved
        if lost is not None and self.not_saved.passed is None and move is not lost:
            same = "the same" if move.request_id == lost.request_id else "a new"
            self.not_saved.decide(True, f"the Draw was sent again ({same} request_id) and accepted")

    # --- What the client's stream is given ------------------------------------------------

    def stream_opened(self, after_seq: int, seat_stream: bool = False) -> None:
        """The client opened an event stream: SubscribeEvents, or its seat's stream."""
        self.subscriptions.append((self.run, after_seq))
        self.seat_streams += seat_stream
        self._tell()

    def given(self, event: table_pb2.TableEvent) -> bool:
        """The client's stream was given ``event``; True: drop the stream now."""
        self.delivered = max(self.delivered, event.seq)
        if event.WhichOneof("event") == "deal":
            self._deal_event(event.seq, deal_pb2.DealEvent.FromString(event.deal.public_event))
        self._tell()
        if self.drop_requested:
            self.drop_requested = False
            self.dropped_after = event.seq
            return True
        return False

    def _deal_event(self, seq: int, public: deal_pb2.DealEvent) -> None:
        kind = public.WhichOneof("event")
        if kind == "commitments" and public.deal_no == 1:
            committed = {c.seat for c in public.commitments.commitments}
            self.cutter_left_out = self.silent_seat not in committed
        elif kind == "reveals" and public.deal_no == 1 and self.seat is not None:
            for left in public.reveals.left_out:
                if left.seat == self.seat:
                    self.client_left_out = deal_pb2.LeftOutReason.Name(left.reason)
                    self.left_out.decide(
                        False, f"the client was left out itself ({self.client_left_out})"
                    )
        elif kind == "stock_rebuilt" and self.rebuilt_at is None:
            self.rebuilt_at = seq

    def report(self) -> list[str]:
        lines = [check.line() for check in self.checks]
        streams = len(self.subscriptions)
        if streams:
            lines.append(
                f"the client followed the table on {streams} stream(s), {self.seat_streams} of "
                "them the seat's stream (TableService.Seat: its moves and events on one call), "
                "the rest SubscribeEvents (its moves as unary calls)"
            )
        if self.host_refusals:
            lines.append("refusals by the table itself (not scripted), for the record:")
            lines += [f"      {line}" for line in self.host_refusals[:20]]
        passed = sum(1 for c in self.checks if c.passed)
        lines.append(f"{passed} of {len(self.checks)} checks passed")
        return lines


def _with(move: Move, outcome: str) -> Move:
    return Move(move.kind, move.request_id, move.last_seen_seq, move.what, outcome, move.run)


def _rule_refusal() -> Refusal:
    return Refusal(
        grpc.StatusCode.FAILED_PRECONDITION,
        "RULE_VIOLATION",
        "the conformance check refuses each client's first play, and the same play again: "
        "make another move",
        "R3",
        reason_code="CONFORMANCE_REFUSAL",
    )
