"""Refusals as the gRPC error model carries them: a code, a sentence, and a google.rpc ErrorInfo.

Every refusal the host sends goes through ``Refusal``: handlers raise it, the
interceptor (``host.edge.auth``) turns it into ``google.rpc.Status`` with an
``ErrorInfo`` detail (UPPER_SNAKE reason, domain ``scala40.v1``, metadata with
the R-number and the sentence) and aborts the call with it. A refusal of the
engine's also carries its reason code and parameters in that metadata, and a
``LocalizedMessage`` in the caller's language (its ``accept-language``).
"""

from __future__ import annotations

import re

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from host.edge import refusal_words
from scala40_net import refusals
from scala40_net.errors import RuleViolation

DOMAIN = "scala40.v1"
# A file path of the host's machine (two components or more, absolute or home-relative, or
# a Windows one): the host's files are nobody else's business.
_SERVER_PATH = re.compile(r"(?<![\w.])(?:~|[A-Za-z]:)?[/\\](?:[\w.\-]+[/\\])+[\w.\-]*")


def without_paths(sentence: str) -> str:
    """``sentence`` with every file path of the host replaced by what it is.

    >>> without_paths("disk I/O error on /srv/scala40/tables/t1.sqlite3")
    'disk I/O error on (a file of the host)'
    >>> without_paths("R11.3/R11.4: rientro is played individually")
    'R11.3/R11.4: rientro is played individually'
    """
    return _SERVER_PATH.sub("(a file of the host)", sentence)


class Refusal(Exception):
    """A request the host refuses; nothing it asked for was done."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        sentence: str,
        rule: str | None = None,
        **metadata: str,
    ) -> None:
        self.code = code
        self.reason = reason
        self.sentence = without_paths(sentence)  # whoever made it, a refusal names no path
        self.rule = rule
        self.metadata = metadata
        self.violation: RuleViolation | None = None  # the engine's refusal, when it is one
        # Its own sentence for the LocalizedMessage (refusal_words) and the sentence's fields,
        # when its reason's is not enough.
        self.words: tuple[str, dict[str, object]] | None = None
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return f"{self.rule}: {self.sentence}" if self.rule else self.sentence

    def to_status(self, accept_language: str | None = None) -> grpc.Status:
        """The refusal as a grpc.Status whose trailers carry the google.rpc.Status (a unary
        call's end)."""
        return rpc_status.to_status(self.rpc_status(accept_language))

    def rpc_status(self, accept_language: str | None = None) -> status_pb2.Status:
        """The refusal as a google.rpc.Status: its code, its ErrorInfo and, in the caller's
        language, its LocalizedMessage. The one making of it: a unary call's trailer carries
        it, an answer on the seat's stream carries it as it is."""
        info = error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN)
        info.metadata["sentence"] = self.sentence
        if self.rule:
            info.metadata["rule"] = self.rule
        for key, value in self.metadata.items():
            info.metadata[key] = value
        detail = any_pb2.Any()
        detail.Pack(info)
        details = [detail]
        violation = self.violation
        lang = refusals.language(accept_language)
        message: str | None = None
        if violation is not None and violation.code is not None:
            info.metadata["reason_code"] = violation.code
            for name, param in violation.params.items():
                info.metadata[f"param_{name}"] = refusals.param_text(param, "en")
            detail.Pack(info)
            message = refusals.localized(violation, lang)
        elif violation is None:
            message = refusal_words.said(self.reason, self.rule, lang, self.words)
        if message is not None:
            details.append(any_pb2.Any())
            details[-1].Pack(error_details_pb2.LocalizedMessage(locale=lang, message=message))
        return status_pb2.Status(code=self.code.value[0], message=self.message, details=details)


def malformed(sentence: str) -> Refusal:
    return Refusal(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", sentence)


def not_found(reason: str, sentence: str) -> Refusal:
    return Refusal(grpc.StatusCode.NOT_FOUND, reason, sentence)


def precondition(reason: str, sentence: str, rule: str | None = None) -> Refusal:
    return Refusal(grpc.StatusCode.FAILED_PRECONDITION, reason, sentence, rule)


def permission_denied(reason: str, sentence: str) -> Refusal:
    return Refusal(grpc.StatusCode.PERMISSION_DENIED, reason, sentence)


def unauthenticated(sentence: str, *, missing: bool = False) -> Refusal:
    """BAD_TOKEN; ``missing``: no token was sent at all (said so, not that it is unknown)."""
    refusal = Refusal(grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN", sentence)
    if missing:
        refusal.words = (refusal_words.NO_TOKEN, {})
    return refusal


def rule_broken(violation: RuleViolation) -> Refusal:
    """A move the engine refused: FAILED_PRECONDITION naming the rule (R12)."""
    extra = {"operation": str(violation.operation)} if violation.operation is not None else {}
    sentence = violation.reason
    if violation.operation is not None:
        sentence = f"operation {violation.operation}: {sentence}"
    refusal = Refusal(
        grpc.StatusCode.FAILED_PRECONDITION,
        "RULE_VIOLATION",
        sentence,
        violation.rule or "R12",
        **extra,
    )
    refusal.violation = violation
    return refusal


def error_info(error: grpc.aio.AioRpcError | grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo detail of a refused call, as a client reads it (used by tests and bots)."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None
