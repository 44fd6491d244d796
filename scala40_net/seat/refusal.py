"""A refusal as a seat reads it: the gRPC code, the host's sentence, its rule and its reason.

Every call a seat makes comes back, when the host says no (or cannot be
reached), as one ``HostRefusal``: read from the ``google.rpc.Status`` in the
call's trailers (its ``ErrorInfo`` reason and metadata, and the
``LocalizedMessage`` in the language the seat asked for), or, inside the host,
made from the host's own refusal. What a seat does next depends only on it:
send the same request again (``transient``), count a step as sent
(``already_done``), decide again on a fresh view (``stale``), try another move
(``broke_rule``), or tell the player. What the player is told depends on its
``trouble``: the host said no (``REFUSED``: its sentence, in the player's
language), nobody answers (``UNREACHABLE``), or the host that answers is not
the one pinned (``NOT_THE_HOST``, a ``HostChanged``: both fingerprints) — the
screen says each in its own words and keeps gRPC's text for its log.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

import grpc
from google.rpc import error_details_pb2, status_pb2

# The host could not be reached, or could not save the request (reason NOT_SAVED): nothing
# was done, and the same request (the same request id) may be sent again.
TRANSIENT = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


class Trouble(StrEnum):
    """What kind of failure a refusal is, for the player: one of the host's, or the network's."""

    REFUSED = "refused"  # the host answered no: a rule, a token, a request it will not take
    UNREACHABLE = "unreachable"  # no answer: the host is down, or the network between
    NOT_THE_HOST = "not-the-host"  # the host that answers has another identity than the pin


class HostRefusal(Exception):
    """The host said no (or could not be reached): the rule, if any, and the host's sentence.

    ``sentence`` is the host's, in the language asked for, when ``trouble`` is ``REFUSED``;
    otherwise it is gRPC's own account of the failure, for a log, not for a player.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        sentence: str,
        rule: str = "",
        reason: str = "",
        trouble: Trouble = Trouble.REFUSED,
    ):
        self.code = code
        self.sentence = sentence
        self.rule = rule
        self.reason = reason
        self.trouble = trouble
        super().__init__(self.message)

    @property
    def message(self) -> str:
        if self.rule and not self.sentence.startswith(self.rule):
            return f"{self.rule}: {self.sentence}"
        return self.sentence

    @property
    def line(self) -> str:
        """The code, the reason and the message, as a log says it."""
        reason = f" {self.reason}" if self.reason else ""
        return f"{self.code.name}{reason}: {self.message}"

    @property
    def transient(self) -> bool:
        """Whether the same request may well be answered if sent again after a pause: the
        host was out of reach, or it asked the caller to slow down (a request rate,
        docs/PROTOCOL.md "Limits": nothing of the request was done)."""
        if self.code is grpc.StatusCode.RESOURCE_EXHAUSTED:
            return self.reason == "TOO_MANY_REQUESTS"
        return self.code in TRANSIENT and self.trouble is not Trouble.NOT_THE_HOST

    @property
    def already_done(self) -> bool:
        """The host already has this step (a commitment or reveal sent by an earlier run)."""
        return self.code is grpc.StatusCode.ALREADY_EXISTS

    @property
    def stale(self) -> bool:
        """The move was decided on a view older than the table: read it again, decide again."""
        return self.reason == "STALE_VIEW"

    @property
    def broke_rule(self) -> bool:
        """The move is not allowed now (a rule of the game, or not this seat's turn)."""
        return self.code is grpc.StatusCode.FAILED_PRECONDITION


class HostChanged(HostRefusal):
    """The host at the pinned address proves another identity (or none): not a dropped link,
    and no retry changes it. ``found``: its fingerprint ("" when its certificate binds none)."""

    def __init__(self, found: str, expected: str, detail: str) -> None:
        proved = f"its fingerprint is {found}" if found else "it proves no host's identity"
        sentence = f"this is not the host joined: {proved} (expected {expected})"
        super().__init__(grpc.StatusCode.UNAVAILABLE, sentence, trouble=Trouble.NOT_THE_HOST)
        self.found = found
        self.expected = expected
        self.detail = detail  # what gRPC and the TLS check said, for a log

    @property
    def line(self) -> str:
        return f"{super().line} [{self.detail}]"


def unreachable(code: grpc.StatusCode, detail: str) -> HostRefusal:
    """A call that no host answered: gRPC's (or the socket's) ``detail`` is for the log."""
    return HostRefusal(code, detail, trouble=Trouble.UNREACHABLE)


def refusal_from_error(error: grpc.RpcError) -> HostRefusal:
    """The rule and sentence of the ``google.rpc.Status`` trailer, else the status message."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = error.details() if hasattr(error, "details") else str(error)
    # The stubs type the entries as objects with .key and .value; at run time they are
    # (key, value) pairs, grpc.aio's Metadata included, and are unpacked as such.
    trailers: Iterable[tuple[str, bytes]] | None = (
        error.trailing_metadata()  # type: ignore[assignment]
        if hasattr(error, "trailing_metadata")
        else None
    )
    for key, value in trailers or ():
        if key != "grpc-status-details-bin" or not isinstance(value, bytes):
            continue
        return refusal_from_status(status_pb2.Status.FromString(value), code, details or "")
    if code in TRANSIENT:
        # No Status of the host's: gRPC's own words about a host it could not reach (a host
        # that cannot save a request says so in a Status, reason NOT_SAVED, and is REFUSED).
        return unreachable(code, details or code.name)
    if code is grpc.StatusCode.INTERNAL:
        # No Status of the host's either (every refusal of the host carries one): gRPC's
        # core on a connection torn mid-call ("Internal error from Core", seen as a host
        # restarted): the host was not reached, and the move may be sent again.
        return unreachable(grpc.StatusCode.UNAVAILABLE, details or code.name)
    return HostRefusal(code, details or code.name)


def refusal_from_status(
    status: status_pb2.Status, code: grpc.StatusCode | None = None, details: str = ""
) -> HostRefusal:
    """The rule and sentence of a ``google.rpc.Status`` (a call's trailer, or an answer of
    the seat's stream, ``SeatAnswer.refused``): its ErrorInfo, and its LocalizedMessage
    when it has one. ``code``: the call's (None: the status's own number)."""
    if code is None:
        code = _CODES.get(status.code, grpc.StatusCode.UNKNOWN)
    found: error_details_pb2.ErrorInfo | None = None
    localized = ""
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        said = error_details_pb2.LocalizedMessage()
        if detail.Unpack(info):  # False, and info untouched, for any other detail type
            found = info
        elif detail.Unpack(said):
            localized = said.message  # the whole refusal in the language asked for
    if found is None:
        return HostRefusal(code, status.message or details)
    sentence = localized or found.metadata.get("sentence") or status.message or details
    return HostRefusal(code, sentence, found.metadata.get("rule", ""), found.reason)


_CODES = {code.value[0]: code for code in grpc.StatusCode}
