"""Rientro over gRPC (R11.3): a busted seat offered a buy-back answers it; the match goes on."""

from __future__ import annotations

import asyncio

from conftest import HostClient

from host.bots import SimpleBot
from host.remote_bot import RemoteSeat
from scala40_net.pb import lobby_pb2, ruleset_pb2, table_pb2

# A buy-back is offered only when a seat busts while two others are still in; in a
# given match that may not happen (two seats can bust in the same deal), so the test
# plays matches until one has an offer.
MATCHES_AT_MOST = 8


class BuysBack(SimpleBot):
    def buys_back(self, fee: int) -> bool:
        return True


async def play_match(served: HostClient) -> list[table_pb2.MatchUpdate]:
    rules = ruleset_pb2.Ruleset(
        preset=ruleset_pb2.PRESET_TRADIZIONALE,
        options=ruleset_pb2.RulesetOptions(rientro_max=1),
    )
    table_id = await served.new_table(seats=4, ruleset=rules)
    seats = []
    for name in ("ann", "bob", "cy", "di"):
        joined = await served.join(table_id, name)
        seats.append(RemoteSeat(served.channel, joined.seat_token, joined.seat, BuysBack()))
    tasks = [asyncio.create_task(s.run()) for s in seats]
    while not all(s.log.events for s in seats):
        await asyncio.sleep(0.01)
    start = lobby_pb2.StartMatchRequest(table_id=table_id)
    await served.lobby.StartMatch(start, metadata=seats[0].metadata)
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=90)
    assert not [r for s in seats for r in s.log.refusals if "NO_RIENTRO" in r]
    return [e.match_update for e in seats[0].log.events if e.HasField("match_update")]


async def test_a_busted_seat_buys_back_in_once_and_the_match_still_ends(served: HostClient) -> None:
    for _ in range(MATCHES_AT_MOST):
        updates = await play_match(served)
        final = updates[-1]
        assert final.match_over and len(final.winners) == 1
        # The chips only change hands: buy-back fees go to the pot and the pot to the winner.
        assert sum(s.chips for s in final.scores) == 0
        assert all(s.rientri <= 1 for s in final.scores)  # rientro_max
        offered = [(i, o) for i, u in enumerate(updates) for o in u.rientro_offers]
        if offered:
            break
    assert offered, f"no buy-back was offered in {MATCHES_AT_MOST} matches"
    for i, offer in offered:
        busted = {s.seat: s for s in updates[i].scores}
        assert busted[offer.seat].out and offer.fee >= 1
        assert sum(not s.out for s in updates[i].scores) >= 2  # at least two others still in
        # The seat bought back in: a later update (its answer's) has it in, one rientro more.
        later = [{s.seat: s for s in u.scores}[offer.seat] for u in updates[i + 1 :]]
        back = next(s for s in later if s.rientri == busted[offer.seat].rientri + 1)
        assert not back.out
