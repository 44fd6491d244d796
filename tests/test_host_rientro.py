"""Rientro over gRPC (R11.3): a busted seat offered a buy-back answers it; the match goes on."""

from __future__ import annotations

import asyncio

from conftest import HostClient

from host.bots import SimpleBot
from host.remote_bot import RemoteSeat
from scala40_net.pb import lobby_pb2, ruleset_pb2


class BuysBack(SimpleBot):
    def buys_back(self, fee: int) -> bool:
        return True


async def test_a_busted_seat_buys_back_in_once_and_the_match_still_ends(served: HostClient) -> None:
    rules = ruleset_pb2.Ruleset(
        preset=ruleset_pb2.PRESET_TRADIZIONALE,
        options=ruleset_pb2.RulesetOptions(rientro_max=1, bust_at=101),
    )
    table_id = await served.new_table(seats=3, ruleset=rules)
    seats = []
    for name in ("ann", "bob", "cy"):
        joined = await served.join(table_id, name)
        seats.append(RemoteSeat(served.channel, joined.seat_token, joined.seat, BuysBack()))
    tasks = [asyncio.create_task(s.run()) for s in seats]
    while not all(s.log.events for s in seats):
        await asyncio.sleep(0.01)
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=seats[0].metadata
    )
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=90)
    updates = [e.match_update for e in seats[0].log.events if e.HasField("match_update")]
    offers = [o for u in updates for o in u.rientro_offers]
    assert offers and all(o.fee >= 1 for o in offers)
    final = updates[-1]
    assert final.match_over and len(final.winners) == 1
    bought = [s for s in final.scores if s.rientri == 1]
    assert bought
    # The chips only change hands: buy-back fees go to the pot and the pot to the winner.
    assert sum(s.chips for s in final.scores) == 0
    assert all(s.rientri <= 1 for s in final.scores)
    refused = [r for s in seats for r in s.log.refusals if "NO_RIENTRO" in r]
    assert not refused
