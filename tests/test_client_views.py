"""The screen's view of a deal is the engine's: one code path from the wire to the seat's view.

A ``TableModel`` reads each deal event off the wire and carries the engine's
``views.DealView`` across it (``wire.DealEventReader``, ``views.view_at_start``,
``views.after_event``), as the network bot does. Here it follows bot-played
deals under every preset and many options, and after every action it holds
exactly the engine's view for its seat (``views.view_state``), and plans on
exactly the state the bots play on (``views.playable_state``); over a real
host it holds exactly what the host's GetView answers (``screen_view``, in
tests/test_bots_network.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from client.model import TableModel
from client.planner import local_state
from scala40_net import wire
from scala40_net.deal import DealState, Phase
from scala40_net.errors import InvalidRuleset
from scala40_net.events import DealStarted, Event
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2
from scala40_net.rules import (
    PRESETS,
    DiscardAttachable,
    DiscardPickup,
    FirstTurnClose,
    JokerSwap,
    Ruleset,
    preset,
    with_options,
)
from scala40_net.views import DealView, playable_state, view_event, view_state
from tests.test_engine_views import bot_deal

TABLE = "t-views"


def _table_view(rules_name: str, players: int, seat: int | None) -> table_pb2.TableView:
    """The first snapshot of a table whose match has not begun."""
    view = table_pb2.TableView(deal_no=0)
    if seat is not None:
        view.my_seat = seat
    view.table.table_id = TABLE
    view.table.preset = wire.PRESET_BY_NAME[rules_name]
    view.table.phase = lobby_pb2.TABLE_PHASE_PLAYING
    for s in range(players):
        view.seats.add(info=lobby_pb2.SeatInfo(seat=s, taken=True, name=f"p{s}", bot=True))
    return view


class Screen:
    """One seat's (or a spectator's) TableModel, sent what the host would send it."""

    def __init__(self, rules_name: str, rules: Ruleset, players: int, seat: int | None) -> None:
        self.seat = seat
        self.rules = wire.ruleset_to_pb(rules_name, rules)
        self.model = TableModel()
        self.seq = 1
        self.model.apply(
            table_pb2.TableEvent(seq=self.seq, snapshot=_table_view(rules_name, players, seat))
        )

    def send(self, public: deal_pb2.DealEvent, private: deal_pb2.PrivateDealEvent | None) -> None:
        self.seq += 1
        envelope = table_pb2.DealEventEnvelope(public_event=public.SerializeToString())
        if private is not None:
            envelope.private_event.CopyFrom(private)
        assert self.model.apply(table_pb2.TableEvent(seq=self.seq, deal=envelope))

    def announce(self, state: DealState) -> None:
        announced = deal_pb2.DealAnnounced(
            dealer_seat=state.dealer, seats_in_play=state.seats, ruleset=self.rules
        )
        self.send(deal_pb2.DealEvent(table_id=TABLE, deal_no=1, announced=announced), None)

    def hear(self, state: DealState, event: Event) -> None:
        """``event`` on the wire as the host sends it to this seat (``state``: after it)."""
        public = wire.deal_event_to_pb(view_event(event, None), TABLE, 1, state.opened)
        private = None
        if self.seat is not None:
            private = wire.private_event_to_pb(view_event(event, self.seat), self.seat, TABLE, 1)
        self.send(public, private)


OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "discard_pickup": st.sampled_from(list(DiscardPickup)),
        "discard_attachable": st.sampled_from(list(DiscardAttachable)),
        "joker_swap": st.sampled_from(list(JokerSwap)),
        "first_turn_close": st.sampled_from(list(FirstTurnClose)),
        "close_without_discard": st.booleans(),
        "max_run": st.sampled_from([None, 3, 5, 7]),
    },
)


def _followed_on_screen(
    rules_name: str, rules: Ruleset, players: int, seed: int, put_back: float, lazy: bool
) -> int:
    """Every seat's screen and a spectator's follow one bot-played deal; returns its actions."""
    screens = [Screen(rules_name, rules, players, s) for s in (*range(players), None)]
    actions = 0
    for _, state, events in bot_deal(rules, players, seed, put_back, lazy):
        if isinstance(events[0], DealStarted):
            for screen in screens:
                screen.announce(state)
        for screen in screens:
            for event in events:
                screen.hear(state, event)
            assert screen.model.deal == view_state(state, screen.seat), (screen.seat, events)
            me = screen.seat
            if me is not None and state.turn == me and state.phase is Phase.PLAY:
                assert local_state(screen.model) == playable_state(view_state(state, me))
        actions += 1
    return actions


@given(
    seed=st.integers(min_value=0, max_value=2**32),
    players=st.integers(min_value=2, max_value=6),
    name=st.sampled_from(PRESETS),
    options=OPTIONS,
    put_back=st.sampled_from([0.0, 0.3]),
    lazy=st.booleans(),
)
@settings(max_examples=20, deadline=None)
def test_the_screens_view_after_every_event_of_a_deal_is_the_engines(
    seed: int, players: int, name: str, options: dict[str, object], put_back: float, lazy: bool
) -> None:
    try:
        rules = with_options(preset(name, players), **options)
    except InvalidRuleset:
        assume(False)
        raise
    _followed_on_screen(name, rules, players, seed, put_back, lazy)


def test_the_screens_view_is_the_engines_over_fixed_deals_of_every_preset() -> None:
    """The same over fixed deals of every preset, agreed discards among them."""
    for k, name in enumerate(PRESETS * 2):
        players = 2 + k % 5
        rules = preset(name, players)
        if k % 2:
            rules = with_options(rules, discard_attachable=DiscardAttachable.AGREED)
        assert _followed_on_screen(name, rules, players, 500 + k, 0.3, lazy=k % 4 == 0) > 1


def screen_view(stream: Iterable[table_pb2.TableEvent]) -> DealView | None:
    """The deal's view a table screen holds once sent ``stream`` (a seat's messages, in order):
    over a real host, tests/test_bots_network.py checks it is the host's GetView at each move."""
    model = TableModel()
    for event in stream:
        model.apply(event)
    return model.deal
