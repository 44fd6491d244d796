"""The rules a table of this host plays: the wire's ruleset, the engine's checks, the host's own.

One place for CreateTable and a rematch's new rules alike, so a table can never be
given by one what the other refuses.
"""

from __future__ import annotations

import grpc

from host.edge.errors import Refusal, malformed
from scala40_net import rules, wire
from scala40_net.errors import InvalidRuleset
from scala40_net.pb import ruleset_pb2


def table_ruleset(ruleset: ruleset_pb2.Ruleset, seats: int) -> rules.Ruleset:
    """The engine's ruleset for a table of ``seats``, or the refusal that says what is wrong."""
    try:
        checked = wire.ruleset_from_pb(ruleset, seats)
    except wire.WireError as error:
        raise malformed(str(error)) from None
    except InvalidRuleset as error:
        raise bad_ruleset(error) from None
    if checked.stall_rebuilds is None:
        # Without it nothing ends a deal nobody can go out of (nobody can open, say):
        # the table would play, and write its journal, for ever.
        raise Refusal(
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_RULESET",
            "the stall rule stays on at this host's tables (stall_rebuilds 1..99): "
            "without it a deal nobody can go out of never ends",
            "R10.2",
        )
    return checked


def bad_ruleset(error: InvalidRuleset) -> Refusal:
    """A ruleset the engine cannot play: its rule and a sentence."""
    rule, _, sentence = str(error).partition(": ")
    return Refusal(
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_RULESET",
        sentence or rule,
        rule if sentence else None,
    )
