"""GetView: every seat's snapshot is the engine's view of the deal, field by field."""

from __future__ import annotations

from dataclasses import replace

from conftest import HostClient, bearer
from test_host_bad_input import context, deal_two_seats, view

from scala40_net import wire
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2
from scala40_net.views import DealView


def public_part(deal_view: DealView | None) -> DealView:
    """What every seat and spectator sees alike: the view without its viewer and hand."""
    assert deal_view is not None
    return replace(deal_view, viewer=None, hand=None)


async def test_a_taken_discard_is_in_every_seats_view_and_the_spectators(
    served: HostClient,
) -> None:
    """The seat to move takes the top discard: everyone saw it taken (the ``drawn`` event names
    it), so every seat's GetView and a spectator's name it as ``taken_discard``, as the
    engine's per-seat view does; apart from the hand, the views are one and the same."""
    dealt = await deal_two_seats(served)
    mover = dealt.mover
    before = await view(served, dealt.tokens[mover])
    taken = await served.table.Draw(
        table_pb2.DrawRequest(context=context(before.seq), source=deal_pb2.DRAW_SOURCE_DISCARD),
        metadata=bearer(dealt.tokens[mover]),
    )
    assert taken.card == before.view.discard_top
    watch = await served.lobby.SpectateTable(
        lobby_pb2.SpectateTableRequest(table_id=dealt.table_id)
    )
    tokens = [*dealt.tokens.values(), watch.spectator_token]
    seen = [await view(served, token) for token in tokens]
    for answer in seen:
        assert answer.seq == taken.seq
        assert answer.view.phase == table_pb2.TURN_PHASE_PLAY
        assert answer.view.HasField("taken_discard")
        assert answer.view.taken_discard == taken.card
    public = [public_part(wire.deal_view_from_pb(answer.view)) for answer in seen]
    assert all(p == public[0] for p in public)
    assert public[0].taken_discard == taken.card
