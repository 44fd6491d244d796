"""What this client alone knows about its session: hand order, selection, notices, connection.

The view model (``model.py``) holds the table as the host's events describe
it; this module holds the rest of what the screen shows — choices the player
made locally and the state of the link to the host — so that the model
stays a pure function of the events.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum

from client.model import HandOrder


class NoticeKind(StrEnum):
    INFO = "info"
    OK = "ok"
    REFUSAL = "refusal"
    ERROR = "error"


@dataclass(frozen=True)
class Notice:
    """A one-line message for the status line: an i18n key and fields, or a host's sentence."""

    kind: NoticeKind
    key: str
    fields: tuple[tuple[str, str | int], ...] = ()
    #: When it was said (``time.monotonic``).
    said_at: float = field(default_factory=time.monotonic, compare=False)

    @property
    def question(self) -> bool:
        """A question the player answers by asking again (quit, hand the seat to a stand-in):
        it stays on the status line while it is armed, whatever the table does meanwhile."""
        return self.key in QUESTIONS


QUESTIONS = frozenset({"quit_confirm", "stand_in_confirm"})

#: The least time a notice stays on the status line once said, whatever the table does
#: meanwhile: long enough to read a line.
NOTICE_READ_SECONDS = 3.0


class LinkState(StrEnum):
    OFFLINE = "offline"
    CONNECTING = "connecting"
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    GIVEN_UP = "given-up"  # not tried again: the host is not the one joined, or refused the seat


class TrustState(StrEnum):
    """The host's fingerprint against what this user remembered (trust on first use)."""

    UNKNOWN = "unknown"
    NEW = "new"
    KNOWN = "known"
    CHANGED = "changed"


@dataclass
class SessionState:
    """Local screen state; every field has a default so a screen can show a table at once."""

    host: str = ""
    hand_order: HandOrder = HandOrder.SUIT
    selected: set[int] = field(default_factory=set)
    cursor: int = 0
    notice: Notice | None = None
    link: LinkState = LinkState.OFFLINE
    reconnect_attempt: int = 0
    fingerprint: str = ""
    trust: TrustState = TrustState.UNKNOWN
    previous_fingerprint: str = ""
    show_help: bool = False
    log_scroll: int = 0
    cut_prompt: bool = False  # this seat cuts: the command line waits for the cut
    hints: list[str] = field(default_factory=list)
    rientro_deadline: float | None = None  # time.monotonic() by which to answer a buy-back
    next_deal_deadline: float | None = None  # time.monotonic() of the next deal at the latest
    show_scores: bool = False
    show_melds: bool = False
    cut_deadline: float | None = None  # time.monotonic() of the random cut, when this seat cuts
    turn_deadline: float | None = None  # time.monotonic() the turn clock of the seat to move ends
    quit_armed: bool = False  # a quit mid-match was asked once: the next one leaves
    stand_in_armed: bool = False  # a hand-over to a stand-in was asked once: the next sends it

    def rientro_seconds_left(self) -> int:
        if self.rientro_deadline is None:
            return 0
        return max(0, round(self.rientro_deadline - time.monotonic()))

    def cut_seconds_left(self) -> int:
        if self.cut_deadline is None:
            return 0
        return max(0, round(self.cut_deadline - time.monotonic()))

    def turn_seconds_left(self) -> int | None:
        """What the seat to move has left on its turn clock; None when no clock runs."""
        if self.turn_deadline is None:
            return None
        return max(0, round(self.turn_deadline - time.monotonic()))

    def next_deal_seconds_left(self) -> int:
        if self.next_deal_deadline is None:
            return 0
        return max(0, round(self.next_deal_deadline - time.monotonic()))

    def say_failure(self, words: tuple[str, dict[str, str]]) -> None:
        """A failure to reach or trust the host (``connection.failure_words``) on the status
        line."""
        key, fields = words
        self.say(NoticeKind.ERROR, key, **fields)

    def say(self, kind: NoticeKind, key: str, **fields: str | int) -> None:
        self.notice = Notice(kind, key, tuple(fields.items()))

    def clear_notice(self) -> None:
        self.notice = None
