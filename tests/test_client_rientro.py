"""Rientro (R11.3) in the client: the offer in the view model and on screen, and the answer
sent to a real host on 127.0.0.1 where this seat busts and buys back in."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_client_host import Game, legal_discard, until
from test_client_model import started_model

from client import commands as c
from client import render, render_end
from client.app import TableScreen
from client.connection import LobbyClient, open_channel
from client.i18n import Text
from client.main import open_table
from client.model import Phase, TableModel
from client.session import SessionState
from host.edge.server import Host
from host.table.state import TableSettings
from scala40_net.cards import card_text
from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2

pytestmark = pytest.mark.timeout(240)

EN, IT = Text("en"), Text("it")


def busted_update(offers: dict[int, int], totals: dict[int, int]) -> table_pb2.MatchUpdate:
    update = table_pb2.MatchUpdate()
    for seat, total in totals.items():
        update.scores.add(seat=seat, total=total, out=total >= 101)
    for seat, fee in offers.items():
        update.rientro_offers.add(seat=seat, fee=fee)
    return update


def ended_model() -> TableModel:
    model = started_model()
    ended = deal_pb2.DealEnded(outcome=deal_pb2.DEAL_OUTCOME_WENT_OUT, closer_seat=1)
    for seat in range(4):
        ended.hands.add(seat=seat, opened=seat != 0, penalty=0 if seat == 1 else 100)
    model.apply(table_pb2.TableEvent(seq=6, deal=_envelope(ended)))
    return model


def _envelope(ended: deal_pb2.DealEnded) -> table_pb2.DealEventEnvelope:
    public = deal_pb2.DealEvent(table_id="t-1", deal_no=1, ended=ended)
    return table_pb2.DealEventEnvelope(public_event=public.SerializeToString())


def test_an_offer_to_this_seat_is_shown_with_fee_new_total_and_deadline() -> None:
    model = ended_model()
    update = busted_update({0: 10}, {0: 120, 1: 30, 2: 75, 3: 60})
    model.apply(table_pb2.TableEvent(seq=7, match_update=update))
    assert model.my_rientro_fee == 10
    assert model.rientro_total() == 75  # the worst still in
    keys = [e.key for e in model.log]
    assert "log_busted" in keys and "log_rientro_offered" in keys

    session = SessionState(rientro_deadline=time.monotonic() + 25)
    status = render.plain(render.status_lines(model, session, EN, 200)[0])
    assert "10 chips" in status and "total 75" in status
    assert "25 s" in status or "24 s" in status  # the clock runs while the line is made
    assert "rientro yes | no" in status
    panel = render.plain(render.join_lines(render_end.deal_end_lines(model, IT, 80, session)))
    assert "10 fiches" in panel and "diventa 75" in panel and "rientro sì" in panel


async def test_the_countdown_is_the_time_the_host_says_is_left() -> None:
    """The offer's duration counts from the event's arrival on this machine's clock; a snapshot
    (a rejoin) or a later update sets it again, and the offer's end stops it."""
    screen = TableScreen(EN, None, model=ended_model(), output=DummyOutput())
    update = busted_update({0: 10}, {0: 120, 1: 30, 2: 75, 3: 60})
    update.rientro_offers[0].answer_within_ms = 12_000
    screen.on_event(table_pb2.TableEvent(seq=7, match_update=update))
    assert screen.session.rientro_seconds_left() == 12

    view = table_pb2.TableView(my_seat=0, deal_no=1)
    view.rientro_offers.add(seat=0, fee=10, answer_within_ms=4_400)
    for seat, total in ((0, 120), (1, 30), (2, 75), (3, 60)):
        view.seats.add(
            info=lobby_pb2.SeatInfo(seat=seat, taken=True),
            score=table_pb2.SeatScore(seat=seat, total=total, out=total >= 101),
        )
    screen.on_event(table_pb2.TableEvent(seq=7, snapshot=view))
    assert screen.model.my_rientro_fee == 10 and screen.session.rientro_seconds_left() == 4
    assert screen.model.rientro_total() == 75

    screen.on_event(table_pb2.TableEvent(seq=8, match_update=busted_update({}, {0: 60})))
    assert screen.model.my_rientro_fee is None and screen.session.rientro_deadline is None


def test_buying_back_and_retiring_are_logged_and_the_offer_goes() -> None:
    model = ended_model()
    model.apply(
        table_pb2.TableEvent(
            seq=7, match_update=busted_update({0: 10, 2: 10}, {0: 120, 1: 30, 2: 110, 3: 60})
        )
    )
    assert set(model.rientro_offers) == {0, 2}
    after = table_pb2.MatchUpdate()
    after.scores.add(seat=0, total=60, rientri=1, chips=-10)
    after.scores.add(seat=1, total=30)
    after.scores.add(seat=2, total=110, out=True)
    after.scores.add(seat=3, total=60)
    model.apply(table_pb2.TableEvent(seq=8, match_update=after))
    assert model.my_rientro_fee is None and not model.rientro_offers
    me = model.seat(0)
    assert not me.out and me.total == 60 and me.rientri == 1 and me.chips == -10
    keys = [e.key for e in model.log]
    assert "log_bought_back" in keys and "log_retired" in keys


@pytest.mark.parametrize(
    ("line", "buy_back"),
    [
        ("rientro yes", True),
        ("rientro sì", True),
        ("rientro si", True),
        ("rientra", True),
        ("buyback", True),
        ("rientro no", False),
        ("ritirati", False),
        ("retire", False),
    ],
)
def test_the_answer_parses_in_both_languages(line: str, buy_back: bool) -> None:
    assert c.parse_command(line) == c.RientroCmd(buy_back)


def test_a_rientro_without_an_answer_is_explained() -> None:
    with pytest.raises(c.CommandError) as error:
        c.parse_command("rientro forse")
    assert error.value.key == "err_rientro_usage"


# Bots that never open bust with the person in the same deal, and then nobody is offered a
# buy-back (two others must still be in): the test plays matches until one has an offer.
MATCHES_AT_MOST = 8


@pytest.mark.long(20)
async def test_a_busted_person_buys_back_in_on_a_tradizionale_table(tmp_path: Path) -> None:
    """A person who never lays down scores 100 (unopened, R11.1) and busts at bust_at 100."""
    host = Host("127.0.0.1:0", tmp_path / "host", TableSettings(bot_delay=0.0))
    port = await host.start()
    channel, _ = await open_channel("127.0.0.1", port)
    lobby = LobbyClient(channel)
    options = ruleset_pb2.RulesetOptions(bust_at=100, rientro_max=1)
    with create_pipe_input() as pipe:
        try:
            for _ in range(MATCHES_AT_MOST):
                table_id = await lobby.create_table(
                    "rientro", ruleset_pb2.PRESET_TRADIZIONALE, 4, options=options
                )
                seat = await lobby.join(table_id, "Ada")
                for _ in range(3):
                    await lobby.add_bot(seat)
                session = SessionState(host=f"127.0.0.1:{port}")
                screen = await open_table(
                    channel,
                    seat,
                    EN,
                    session,
                    tmp_path,
                    start=True,
                    input=pipe,
                    output=DummyOutput(),
                )
                running = asyncio.create_task(screen.run_async())
                game = Game(screen, pipe, running)
                model = screen.model
                if await _play_until_offered(game):
                    break
                screen.quit()
                await asyncio.wait_for(running, 20)
            assert model.my_rientro_fee is not None, f"no offer in {MATCHES_AT_MOST} matches"
            fee = model.my_rientro_fee
            expected = model.rientro_total()
            assert fee is not None and fee >= 1 and model.seat(seat.seat or 0).out
            # The countdown is the host's: the offer says how long it waits (30 s by default).
            first_left = session.rientro_seconds_left()
            assert 0 < first_left <= 30
            status = render.plain(render.status_lines(model, session, EN, 200)[0])
            assert f"{fee} chips" in status and f"total {expected}" in status

            # Leave and come back while the offer is open: the snapshot brings it back.
            screen.quit()
            await asyncio.wait_for(running, 20)
            session = SessionState(host=f"127.0.0.1:{port}")
            screen = await open_table(
                channel, seat, EN, session, tmp_path, input=pipe, output=DummyOutput()
            )
            running = asyncio.create_task(screen.run_async())
            game = Game(screen, pipe, running)
            model = screen.model
            await until(lambda: model.my_rientro_fee is not None, 20)
            assert model.my_rientro_fee == fee and model.rientro_total() == expected
            assert 0 < session.rientro_seconds_left() <= first_left
            status = render.plain(render.status_lines(model, session, EN, 200)[0])
            assert f"{fee} chips" in status and f"total {expected}" in status

            game.type("rientro sì")
            me = model.seat(seat.seat or 0)
            await until(lambda: me.rientri == 1, 20)
            assert not me.out and me.total == expected and me.chips <= -fee
            assert model.my_rientro_fee is None and session.rientro_deadline is None
            assert any(e.key == "log_bought_back" for e in model.log)
            await until(lambda: model.deal_no >= 2 or model.match_over, 30)
        finally:
            screen.quit()
            await asyncio.wait_for(running, 20)
            await channel.close()
            await host.stop(grace=0.2)


async def _play_until_offered(game: Game) -> bool:
    """Play without laying anything down until the host offers the buy-back (True), or the
    match ends without one (False)."""
    model, session = game.screen.model, game.screen.session
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 150
    while model.my_rientro_fee is None:
        assert loop.time() < deadline, "no buy-back offered in time"
        if model.match_over:
            return False
        await until(
            lambda: (
                session.cut_prompt
                or (model.my_turn and model.phase in (Phase.DRAW, Phase.PLAY))
                or model.my_rientro_fee is not None
                or model.match_over
            ),
            150,
        )
        if session.cut_prompt:
            game.type("")
            await until(lambda: not session.cut_prompt)
        elif model.my_rientro_fee is None and model.my_turn:
            await _draw_and_discard(game)
    return True


async def _draw_and_discard(game: Game) -> None:
    screen, model = game.screen, game.screen.model
    me = model.my_seat
    assert me is not None
    turns = model.turns_played.get(me, 0)
    deal_no = model.deal_no
    if model.phase is Phase.DRAW:
        game.type("draw")
        await until(lambda: model.phase is Phase.PLAY or model.deal_no != deal_no, 20)
    if model.phase is Phase.PLAY and model.my_turn and model.deal_no == deal_no:
        game.type(f"discard {card_text(legal_discard(screen))}")
        await until(
            lambda: (
                model.turns_played.get(me, 0) > turns
                or model.phase is not Phase.PLAY
                or screen.session.notice is not None
            ),
            20,
        )
        notice = screen.session.notice
        assert notice is None or notice.kind.value == "info", notice
