"""A private deal's record: each draw from the stock names the stock's next place (R2.3, R10.1)."""

from __future__ import annotations

import pytest

from scala40_net.fairdeal.verify import VerificationFailed
from scala40_net.pb import deal_pb2
from scala40_net.private.protocol import DealSetup
from scala40_net.private.record import check_draw_places

SETUP = DealSetup("record", 1, (0, 1), dealer=1, deck_size=108)
STOCK = SETUP.positions.stock


def stock_draw(seat: int, place: tuple[int, int] | None) -> deal_pb2.DealEvent:
    event = deal_pb2.DealEvent(deal_no=1)
    event.drawn.seat = seat
    event.drawn.source = deal_pb2.DRAW_SOURCE_STOCK
    if place is not None:
        event.drawn.position.round, event.drawn.position.position = place
    return event


def discard_draw(seat: int, card: int) -> deal_pb2.DealEvent:
    event = deal_pb2.DealEvent(deal_no=1)
    event.drawn.seat = seat
    event.drawn.source = deal_pb2.DRAW_SOURCE_DISCARD
    event.drawn.card = card
    return event


def rebuilt() -> deal_pb2.DealEvent:
    event = deal_pb2.DealEvent(deal_no=1)
    event.stock_rebuilt.rebuild_no = 1
    return event


def honest() -> list[deal_pb2.DealEvent]:
    """Two draws from the dealt stock, a discard taken, a rebuild, two draws from it."""
    return [
        deal_pb2.DealEvent(deal_no=1),  # stands for the announcement: not a draw
        stock_draw(0, (0, STOCK[0])),
        discard_draw(1, 7),
        stock_draw(0, (0, STOCK[1])),
        rebuilt(),
        stock_draw(1, (1, 0)),
        stock_draw(0, (1, 1)),
    ]


def test_draws_in_the_stocks_order_pass() -> None:
    check_draw_places(SETUP, honest())


@pytest.mark.parametrize(
    ("index", "place", "said"),
    [
        (1, (0, STOCK[1]), f"{STOCK[1]} of deck 0; the stock's next is position {STOCK[0]}"),
        (3, (0, STOCK[0]), f"the stock's next is position {STOCK[1]} of deck 0"),
        (5, (0, STOCK[2]), "the stock's next is position 0 of deck 1"),  # the old stock
        (6, (1, 5), "was given position 5 of deck 1; the stock's next is position 1 of deck 1"),
        (1, None, "names no place"),
    ],
)
def test_a_draw_that_names_another_place_fails_the_draw_check(
    index: int, place: tuple[int, int] | None, said: str
) -> None:
    """The host chose which encrypted card the drawer opened: any place but the stock's next
    gives it another card than the rules did, so the record fails, naming the event."""
    events = honest()
    events[index] = stock_draw(events[index].drawn.seat, place)
    with pytest.raises(VerificationFailed) as failed:
        check_draw_places(SETUP, events)
    assert failed.value.check == "draw" and failed.value.event_index == index
    assert said in failed.value.reason


def test_a_stock_drawn_past_its_end_fails() -> None:
    events = [stock_draw(i % 2, (0, place)) for i, place in enumerate(STOCK)]
    check_draw_places(SETUP, events)
    with pytest.raises(VerificationFailed, match="already drawn out"):
        check_draw_places(SETUP, [*events, stock_draw(0, (0, 0))])
