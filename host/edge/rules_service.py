"""RulesService: stateless meld checks answered by the engine's own helper (R4, R5)."""

from __future__ import annotations

from typing import Any, TypeAlias

import grpc

from host.edge.errors import Refusal, malformed
from scala40_net import melds, wire
from scala40_net.errors import InvalidRuleset
from scala40_net.pb import rules_service_pb2, rules_service_pb2_grpc

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
MAX_MELDS = 20
MAX_MELD_CARDS = 14  # the longest sequence (R4.1)


class RulesService(rules_service_pb2_grpc.RulesServiceServicer):
    async def CheckMelds(
        self, request: rules_service_pb2.CheckMeldsRequest, context: Context
    ) -> rules_service_pb2.CheckMeldsResponse:
        if len(request.melds) > MAX_MELDS:
            raise malformed(f"check at most {MAX_MELDS} melds at a time")
        if any(len(m.cards) > MAX_MELD_CARDS for m in request.melds):
            raise malformed(f"a meld has at most {MAX_MELD_CARDS} cards (R4.1)")
        options = request.ruleset.options
        # The number of players matters only to presets that change with it (semplice's one deck).
        players = options.max_players if options.HasField("max_players") else 4
        try:
            ruleset = wire.ruleset_from_pb(request.ruleset, players)
            proposed = [wire.proposed_meld_from_pb(m, ruleset.decks) for m in request.melds]
        except wire.WireError as error:
            raise malformed(str(error)) from None
        except InvalidRuleset as error:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, "BAD_RULESET", str(error)) from None
        check = melds.check_opening(proposed, ruleset.opening_points, ruleset.max_run)
        response = rules_service_pb2.CheckMeldsResponse(
            melds=[wire.meld_check_to_pb(m) for m in check.melds],
            total_points=check.total,
            opening_points=check.needed,
            would_open=check.would_open,
        )
        # A card named in two melds makes the melds refused together: say so at the top too.
        seen: set[int] = set()
        for meld, verdict in zip(proposed, check.melds, strict=True):
            if seen & set(meld.cards) and not verdict.valid:
                response.rule = verdict.rule or ""
                response.reason = verdict.reason or ""
                break
            seen |= set(meld.cards)
        return response
