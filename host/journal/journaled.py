"""Every kind of journal entry, declared once: its kind, its request type and the table method.

Each declaration below names a kind and what its entry keeps; the table's
method that accepts it is marked with the declaration (``@journaled.PLAY.accepts``)
and drafts its entry with its kind (``journaled.PLAY.kind``). The journal's
playback after a restart looks each entry's kind up in ``KINDS`` and hands the
entry to that method again (``hand_back``): a new journaled request is one
declaration here and its method. The host's own steps that a deadline takes
(the commitments closed, say) are declared too: at the head of the journal
they are the deadline's doing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from google.protobuf.message import Message

from host.journal.sqlite import StoredEntry
from scala40_net.pb import lobby_pb2, table_pb2

R = TypeVar("R", bound=Message)
M = TypeVar("M", bound=Callable[..., object])


class ReplayError(Exception):
    """The journal and the engine disagree: the table cannot be reopened as it was."""


class Journaled:
    """One kind of entry, and the table method a journaled one is handed back to."""

    def __init__(self, kind: str) -> None:
        if kind in KINDS:
            raise ValueError(f"the journal entry kind {kind!r} is declared twice")
        self.kind = kind
        # Set by ``accepts``: how the playback calls the table's method with the entry.
        self._hand_back: Callable[[Any, StoredEntry], object] | None = None
        KINDS[kind] = self

    def _accepted_by(self, hand_back: Callable[[Any, StoredEntry], object]) -> None:
        if self._hand_back is not None:
            raise ValueError(f"two table methods accept the journal entry kind {self.kind!r}")
        self._hand_back = hand_back

    def hand_back(self, table: object, entry: StoredEntry) -> None:
        """Call the table method that accepted ``entry`` again, as it was called then."""
        if self._hand_back is None:
            raise ReplayError(f"no table method accepts journal entries of kind {self.kind!r}")
        self._hand_back(table, entry)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.kind!r})"


KINDS: dict[str, Journaled] = {}


def _seat(entry: StoredEntry) -> int:
    if entry.seat is None:
        raise ReplayError(f"journal entry {entry.entry_no} ({entry.kind}) names no seat")
    return entry.seat


def _accepted(request_type: type[R], entry: StoredEntry) -> R:
    """The request as the table accepted it. An older host let a move go without a request
    id: played back, the move is given one no client sends (it keeps no answer for it,
    as the entry has none), so the table's own check of a move's request id holds."""
    request = request_type.FromString(entry.request)
    context = getattr(request, "context", None)
    if isinstance(context, table_pb2.MoveContext) and not context.request_id:
        context.request_id = f"journal entry {entry.entry_no}"
    return request


class Request(Journaled, Generic[R]):
    """A request the table accepted: its method takes the seat that sent it (unless
    ``seated`` is False: the seat follows from the request, a join) and the request."""

    def __init__(self, kind: str, request_type: type[R], *, seated: bool = True) -> None:
        super().__init__(kind)
        self.request_type = request_type
        self.seated = seated
        self.method: Callable[..., object] | None = None  # the table's, once marked

    def accepts(self, method: M) -> M:
        """Mark ``method`` (table, [seat,] request of ``request_type``) as this kind's."""

        def hand_back(table: object, entry: StoredEntry) -> object:
            request = _accepted(self.request_type, entry)
            if self.seated:
                return method(table, _seat(entry), request)
            return method(table, request)

        self._accepted_by(hand_back)
        self.method = method
        return method


class SeatStep(Journaled):
    """A step the host took for a seat (telling its connection, say): the seat, no request."""

    def accepts(self, method: M) -> M:
        """Mark ``method`` (table, seat) as this kind's."""
        self._accepted_by(lambda table, entry: method(table, _seat(entry)))
        return method


class HostStep(Journaled):
    """A step the host took on its own: its method takes nothing but the table."""

    def accepts(self, method: M) -> M:
        """Mark ``method`` (the table alone) as this kind's."""
        self._accepted_by(lambda table, entry: method(table))
        return method


def accept_all(*steps: HostStep) -> Callable[[M], M]:
    """One method for several host steps (whichever the deadline found waiting)."""

    def mark(method: M) -> M:
        for step in steps:
            step.accepts(method)
        return method

    return mark


# --- Seating (host.table.seating) ----------------------------------------------------------------
JOIN = Request("join", lobby_pb2.JoinTableRequest, seated=False)
SPECTATE = Request("spectate", lobby_pb2.SpectateTableRequest, seated=False)
ADD_BOT = Request("add_bot", lobby_pb2.AddBotRequest)
LEAVE = Request("leave", lobby_pb2.LeaveTableRequest)
# Kept as the SeatInfo of the seat freed (the caller is the entry's seat).
FREE_SEAT = Request("free_seat", lobby_pb2.SeatInfo)
CONNECTION = SeatStep("connection")
AWAY = Request("away", lobby_pb2.SeatInfo)  # kept as the SeatInfo that says why
BACK = SeatStep("back")

# --- The match and its turns (host.table.table) --------------------------------------------------
CHAT = Request("chat", table_pb2.SendChatRequest)
START = Request("start", lobby_pb2.StartMatchRequest)
DRAW = Request("draw", table_pb2.DrawRequest)
PLAY = Request("play", table_pb2.PlayRequest)
RETURN_DISCARD = Request("return_discard", table_pb2.ReturnDiscardRequest)
REMATCH = Request("rematch", table_pb2.RematchRequest)
# The turn clock ran out: the host played the seat's turn, in one job (its draw, its play).
TIMEOUT_DRAW = HostStep("timeout_draw")
TIMEOUT_RETURN = HostStep("timeout_return")
TIMEOUT_PLAY = HostStep("timeout_play")

# --- The deal cycle (host.table.deal_cycle) ------------------------------------------------------
COMMIT = Request("commit", table_pb2.CommitSeedRequest)
REVEAL = Request("reveal", table_pb2.RevealSeedRequest)
READY = Request("ready", table_pb2.ReadyRequest)
RIENTRO = Request("rientro", table_pb2.AnswerRientroRequest)
# Taken when the deadline passes, when the first of their job; else a request's consequence.
ANNOUNCE = HostStep("announce")
COMMITMENTS = HostStep("commitments")
DEAL = HostStep("deal")
REBUILD = HostStep("rebuild")
DEAL_END = HostStep("deal_end")
RIENTRO_TIMEOUT = HostStep("rientro_timeout")

# --- A private table's deal (host.table.private_cycle) -------------------------------------------
# A seat's signed protocol message, relayed as it came (its envelope is the request).
PRIVATE = Request("private", table_pb2.SendPrivateRequest)
# The deal's end once every seat revealed: it is scored on the opened hands.
PRIVATE_END = HostStep("private_end")
# R10.3: a seat the deal needed was absent past its grace: the deal is void.
PRIVATE_VOID = HostStep("private_void")
# A private seat's stand-in found the keys its player handed it gone (host.table.stand_in).
STAND_IN_LOST = SeatStep("stand_in_lost")
# The host's check of a seat's relayed shuffle found its proof false: the deal is void (R10.3).
SHUFFLE_FALSE = SeatStep("shuffle_false")
DEADLINE_STEPS = (
    ANNOUNCE, COMMITMENTS, DEAL, REBUILD, DEAL_END, RIENTRO_TIMEOUT, PRIVATE_END, PRIVATE_VOID
)
