"""A seat's snapshot of a table (TableView), built from the engine's per-seat view and nothing else.

The hand and every other hidden card come from ``scala40_net.views.view_state``,
the engine's one redaction function; this module only adds what the table
itself knows (seats, fair-deal step, the deal's public bytes) and maps it to
the wire. Streams, GetView and reconnects all use ``table_view``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scala40_net import deal, views, wire
from scala40_net.pb import deal_pb2, table_pb2

if TYPE_CHECKING:
    from host.table.table import Table


def table_view(table: Table, seat: int | None) -> table_pb2.TableView:
    state = table.state
    out = table_pb2.TableView(table=table.summary(), deal_no=state.deal_no)
    if seat is not None:
        out.my_seat = seat
    m = state.match
    match_view = views.view_state(m, seat) if m is not None else None
    deal_view = match_view.deal if match_view is not None else None
    update = table.match_update() if m is not None else None
    scores = {s.seat: s for s in update.scores} if update is not None else {}
    if update is not None:
        out.rientro_offers.extend(update.rientro_offers)
        if update.HasField("between_deals"):
            out.between_deals.CopyFrom(update.between_deals)
    for number in range(len(state.seats)):
        # The summary's seat infos, made a moment ago in the same job: the same seats.
        seat_view = table_pb2.SeatView(info=out.table.seats[number])
        if number in scores:
            seat_view.score.CopyFrom(scores[number])
        if deal_view is not None and number in deal_view.seats:
            i = deal_view.seats.index(number)
            seat_view.in_deal = True
            seat_view.hand_count = deal_view.hand_counts[i]
            seat_view.opened = deal_view.opened[i]
            seat_view.turns_played = deal_view.turns_played[i]
        out.seats.append(seat_view)
    if match_view is not None:
        out.dealer_seat = match_view.dealer
    current = state.current
    if current is not None and current.step != table_pb2.TURN_PHASE_UNSPECIFIED:
        out.phase = current.step  # type: ignore[assignment]
        out.dealer_seat = current.dealer
    elif deal_view is not None and deal_view.result is None:
        secret = current.private if current is not None else None
        if deal_view.hand is not None and secret is not None and seat is not None:
            # A private deal: the host knows only the hand's public cards; the rest are
            # positions, which the seat reads from its shares (host.table.private_deal).
            out.my_hand.extend(secret.known_hand(deal_view.hand))
            assert state.deal_state is not None
            for round_, position in secret.hand_positions(state.deal_state, seat):
                out.my_positions.add(round=round_, position=position)
        elif deal_view.hand is not None:
            out.my_hand.extend(deal_view.hand)
        for index, meld in enumerate(deal_view.table):
            out.melds.append(wire.table_meld_to_pb(index, meld, deal_view.owners[index]))
        if deal_view.discard_pile:
            out.discard_top = deal_view.discard_pile[-1]
        out.discard_count = len(deal_view.discard_pile)
        out.discard_pile.extend(deal_view.discard_pile)
        out.rebuilds = deal_view.rebuilds
        if deal_view.agreed_discard is not None:
            out.agreed_discard = deal_view.agreed_discard
        if deal_view.drawn is not None:
            out.drawn_from = wire.draw_source_to_pb(deal_view.drawn)
        out.stock_count = deal_view.stock_count
        out.turn_seat = deal_view.turn
        if deal_view.phase is deal.Phase.DRAW:
            out.phase = table_pb2.TURN_PHASE_DRAW
        elif deal_view.phase is deal.Phase.PLAY:
            out.phase = table_pb2.TURN_PHASE_PLAY
            if deal_view.taken_discard is not None:
                out.taken_discard = deal_view.taken_discard
    recorder = current.recorder if current is not None else None
    if recorder is None and update is not None and update.HasField("between_deals"):
        # During the pause the deal that just ended is still what the table shows: a client
        # joining now reads its end (every hand) from its events like everyone else did.
        recorder = state.recorders.get(state.deal_no)
    if current is not None and current.private is not None:
        out.private_transcript.extend(current.private.transcript)
    if recorder is not None:
        out.deal_events.extend(recorder.events)
        for entry in recorder.private_for(seat) if seat is not None else ():
            out.my_private_events.append(deal_pb2.PrivateDealEvent.FromString(entry.event))
            out.my_private_with_event.append(entry.with_event)
    return out
