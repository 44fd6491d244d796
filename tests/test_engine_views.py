"""Per-seat views: one function redacts events, one redacts states; spectators see no hand."""

from hypothesis import given, settings
from hypothesis import strategies as st

from scala40_net.actions import Draw, DrawSource, Play
from scala40_net.deal import apply, start_deal
from scala40_net.events import CardDrawn, DealStarted
from scala40_net.match import StartDeal, apply_match, start_match
from scala40_net.rules import Ruleset
from scala40_net.views import DealView, MatchView, after_own_draw, view_event, view_state

DECK = tuple(range(108))


def test_views_deal_started_shows_only_the_viewers_hand() -> None:
    state, (started,) = start_deal(Ruleset(), (0, 1, 2), 2, DECK)
    assert isinstance(started, DealStarted)
    mine = view_event(started, 1)
    assert isinstance(mine, DealStarted)
    assert mine.hands == (None, state.hand(1), None)
    assert mine.hand_counts == (13, 13, 13) and mine.first_discard == started.first_discard
    spectator = view_event(started, None)
    assert isinstance(spectator, DealStarted) and spectator.hands == (None, None, None)


def test_views_a_stock_card_is_hidden_from_others_a_discard_is_not() -> None:
    state, _ = start_deal(Ruleset(), (0, 1), 1, DECK)
    after, (drawn,) = apply(state, 0, Draw(DrawSource.STOCK))
    assert view_event(drawn, 0) == drawn
    assert view_event(drawn, 1) == CardDrawn(0, DrawSource.STOCK, None)
    assert view_event(drawn, None) == CardDrawn(0, DrawSource.STOCK, None)
    after, _ = apply(after, 0, Play((), after.hand(0)[0]))
    _, (taken,) = apply(after, 1, Draw(DrawSource.DISCARD))
    assert view_event(taken, 0) == taken


def test_views_state_has_own_hand_counts_table_and_stock_count() -> None:
    state, _ = start_deal(Ruleset(), (0, 1, 2), 2, DECK)
    view = view_state(state, 0)
    assert isinstance(view, DealView)
    assert view.hand == state.hand(0) and view.hand_counts == (13, 13, 13)
    assert view.stock_count == len(state.stock) and view.discard_pile == state.discard_pile
    assert view_state(state, None).hand is None
    assert view_state(state, 7).hand is None
    text = repr(view_state(state, None))
    assert str(state.hand(1)) not in text


def test_views_match_view_embeds_the_same_deal_view() -> None:
    match = start_match(Ruleset(), (0, 1), 0)
    match, events = apply_match(match, None, StartDeal(DECK))
    view = view_state(match, 1)
    assert isinstance(view, MatchView) and view.deal is not None
    assert match.deal is not None and view.deal == view_state(match.deal, 1)
    assert view.deal.hand == match.deal.hand(1)
    assert isinstance(events[0], DealStarted)


@given(
    deck=st.permutations(DECK),
    turns=st.integers(min_value=0, max_value=30),
    source=st.sampled_from([DrawSource.STOCK, DrawSource.DISCARD]),
)
@settings(max_examples=200, deadline=None)
def test_views_the_own_draw_applied_to_a_view_is_the_view_after_it(
    deck: list[int], turns: int, source: DrawSource
) -> None:
    """What a seat that just drew sees needs no new snapshot: its view before the draw and
    the draw's event (as the seat sees it) give the engine's own view after it."""
    state, _ = start_deal(Ruleset(), (0, 1, 2), 2, deck)
    for _ in range(turns):  # turns of stock draws and bare discards, to vary the piles
        seat = state.turn
        state, _ = apply(state, seat, Draw(DrawSource.STOCK))
        state, _ = apply(state, seat, Play((), state.hand(seat)[0]))
        if state.result is not None or not state.stock:
            break
    seat = state.turn
    if state.result is not None or not state.stock:
        return
    before = view_state(state, seat)
    after, (drawn,) = apply(state, seat, Draw(source))
    assert isinstance(drawn, CardDrawn)
    assert after_own_draw(before, view_event(drawn, seat)) == view_state(after, seat)
