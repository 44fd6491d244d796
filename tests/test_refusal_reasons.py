"""Every refusal the host can send says itself in Italian too (google.rpc.LocalizedMessage).

The reasons are read from the host's own code (every ``Refusal(code, "REASON", …)``,
``precondition("REASON", …)``, ``not_found``, ``permission_denied``, ``malformed`` and
``unauthenticated`` in ``host/``), so a reason added there without its sentence fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grpc
import pytest
from conftest import HostClient
from google.rpc import error_details_pb2, status_pb2

from host.conformance import script
from host.edge import refusal_words
from host.edge.errors import Refusal
from host.table import durations
from scala40_net.pb import lobby_pb2, table_pb2
from scala40_net.seat.refusal import refusal_from_error

ROOT = Path(__file__).resolve().parent.parent
BY_FIRST_ARGUMENT = {"precondition", "not_found", "permission_denied"}
FIXED = {"malformed": "MALFORMED_REQUEST", "unauthenticated": "BAD_TOKEN"}


def reasons_in_the_host() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "host").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in FIXED:
                found.add(FIXED[name])
                continue
            # Refusal(code, REASON, …); a limit's take(key, REASON, sentence)
            at = 0 if name in BY_FIRST_ARGUMENT else 1 if name in ("Refusal", "take") else None
            if at is None or len(node.args) <= at:
                continue
            argument = node.args[at]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                found.add(argument.value)
    return found


def localized(refusal: Refusal, lang: str = "it") -> str | None:
    """The LocalizedMessage a caller asking in ``lang`` gets with ``refusal``."""
    trailers = dict(refusal.to_status(lang).trailing_metadata)
    detail = status_pb2.Status.FromString(trailers["grpc-status-details-bin"])
    for any_detail in detail.details:
        if any_detail.Is(error_details_pb2.LocalizedMessage.DESCRIPTOR):
            message = error_details_pb2.LocalizedMessage()
            any_detail.Unpack(message)
            return message.message
    return None


def test_the_reasons_are_found_in_the_host() -> None:
    found = reasons_in_the_host()
    assert {"NOT_YOUR_TURN", "MALFORMED_REQUEST", "NOT_SAVED", "BAD_TOKEN"} <= found
    assert "RULE_VIOLATION" in found and "BAD_RULESET" in found


@pytest.mark.parametrize("reason", sorted(reasons_in_the_host()))
def test_every_reason_the_host_sends_has_an_italian_sentence(reason: str) -> None:
    refusal = Refusal(grpc.StatusCode.FAILED_PRECONDITION, reason, "an English sentence")
    italian = localized(refusal)
    assert italian, f"{reason} has no Italian sentence (host/edge/refusal_words.py)"
    assert italian != refusal_words.BY_REASON[reason], f"{reason}: not translated"


def test_an_out_of_range_table_setting_is_said_in_italian_naming_the_setting() -> None:
    with pytest.raises(Refusal) as caught:
        durations.check(lobby_pb2.CreateTableRequest(turn_seconds=1))
    refusal = caught.value
    assert refusal.code is grpc.StatusCode.INVALID_ARGUMENT
    assert refusal.reason == "MALFORMED_REQUEST"  # as before: a client that reads it works
    italian = localized(refusal)
    assert italian is not None and "turn_seconds" in italian and "600" in italian
    assert "secondi" in italian


async def test_a_missing_token_is_not_said_to_be_unknown(served: HostClient) -> None:
    """A call with no token at all, asked in Italian: the sentence says none was sent."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await served.table.GetView(
            table_pb2.GetViewRequest(), metadata=(("accept-language", "it"),)
        )
    italian = refusal_from_error(caught.value).sentence
    assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert "gettone" in italian and "conosciuto" not in italian, italian


def test_the_conformance_hosts_scripted_refusals_are_said_in_italian() -> None:
    rule = script._rule_refusal()
    assert localized(rule) and localized(rule) != localized(rule, "en")
    not_saved = Refusal(grpc.StatusCode.UNAVAILABLE, "NOT_SAVED", "could not save")
    assert localized(not_saved) and localized(not_saved) != localized(not_saved, "en")


def test_grpcs_own_internal_error_without_the_hosts_status_is_a_host_not_reached() -> None:
    """A call torn by a host restarting can end INTERNAL "Internal error from Core", with no
    Status of the host's: the seat takes it as the host unreachable and sends again."""
    from scala40_net.seat.refusal import refusal_from_error

    torn = grpc.aio.AioRpcError(
        grpc.StatusCode.INTERNAL,
        grpc.aio.Metadata(),
        grpc.aio.Metadata(),
        details="Internal error from Core",
    )
    refusal = refusal_from_error(torn)
    assert refusal.transient and refusal.code is grpc.StatusCode.UNAVAILABLE
