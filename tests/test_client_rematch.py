"""Another match on the table screen, against a real host: F5 or ``new`` at the match's end asks
for it (TableService.Rematch), ``new`` with rules changes them (the first player's say), and
the new match starts on the same screen once everyone agreed."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_client_host import no_older_screen as no_older_screen
from test_client_host import until
from test_client_turn_clock import a_screen_against_a_bot, cut_when_asked

from client import render
from client.connection import LobbyClient, open_channel
from client.i18n import Text
from client.main import open_table
from client.session import SessionState
from host.edge.server import Host
from host.table.state import TableSettings
from scala40_net.bots import make_bot
from scala40_net.fairdeal.spec import seat_commitment
from scala40_net.pb import ruleset_pb2, table_pb2
from scala40_net.seat.netbot import NetworkSeat, SeatLog

ONE_DEAL = ruleset_pb2.RulesetOptions(
    match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1, rientro=False
)


async def test_f5_at_the_end_of_a_match_starts_another_at_the_same_seats(tmp_path: Path) -> None:
    """Ada never moves (2 s turns: the host and then a bot play for her) to the end of a
    one-deal match; F5 asks for a rematch, the bot agrees, and the second match starts on
    the same screen, her seat hers again, the standings from zero."""
    async with a_screen_against_a_bot(tmp_path, "again", Text("it"), ONE_DEAL) as (screen, pipe):
        model = screen.model
        await until(lambda: model.match_over, 120)
        assert model.i_am_away  # her turns timed out
        first_deal = model.deal_no
        pipe.send_text("\x1b[15~")  # F5
        await until(lambda: not model.match_over, 30)
        await until(lambda: model.deal_no > first_deal, 30)
        # She agreed: the seat is hers again (told by its own event, which may come after
        # the new deal's first one).
        await until(lambda: not model.i_am_away, 30)
        started = [e for e in model.log if e.key == "log_match_started"]
        assert len(started) == 2
        assert all(s.total == 0 for s in model.seats.values())


async def test_the_first_player_types_other_rules_for_the_next_match(tmp_path: Path) -> None:
    """'nuova 151 rientro=no' at the match's end: the host takes Ada's new rules (she is the
    first player), the bot agrees, and the next match is one of points busting at 151."""
    async with a_screen_against_a_bot(tmp_path, "rules", Text("it"), ONE_DEAL) as (screen, pipe):
        model = screen.model
        await until(lambda: model.match_over, 120)
        assert model.ruleset.match_mode == ruleset_pb2.MATCH_MODE_DEALS
        pipe.send_text("nuova 151 rientro=no\r")
        await until(lambda: not model.match_over, 30)
        assert model.ruleset.match_mode == ruleset_pb2.MATCH_MODE_POINTS
        assert model.ruleset.bust_at == 151 and not model.ruleset.rientro
        assert model.bust_at == 151  # what the screen's standings and sheet count to
        assert screen.session.notice is None or screen.session.notice.key != "err_new_usage"


async def test_a_rematch_without_the_away_player_commits_for_her_seat_by_its_stand_in(
    tmp_path: Path,
) -> None:
    """FAIR_DEAL.md step 3, at a rematch's first deal: Ada never moves (2 s turns), so her seat
    is played by a host bot at the match's end; Bea agrees to another match, which starts in
    her Rematch call without waiting for Ada's seat, its stand-in going on. The stand-in makes
    the seat's commitment (PROTOCOL.md, "The turn clock and absent seats"): Ada's screen,
    connected all along, sends none of its own, finds every commitment published with no
    warning, and verifies the deal as one whose seed the host made."""
    host = Host("127.0.0.1:0", tmp_path / "host", TableSettings(bot_delay=0.0, turn_seconds=2))
    port = await host.start()
    channel, _ = await open_channel("127.0.0.1", port)
    try:
        lobby = LobbyClient(channel)
        table_id = await lobby.create_table(
            "again", ruleset_pb2.PRESET_CLASSIC, 2, options=ONE_DEAL
        )
        seat = await lobby.join(table_id, "Ada")
        bea = NetworkSeat(channel, table_id, make_bot("medium", random.Random(2)), log=SeatLog())
        await bea.join("Bea")
        bea_playing = asyncio.create_task(bea.play_match())
        with create_pipe_input() as pipe:
            screen = await open_table(
                channel, seat, Text("en"), SessionState(host=f"127.0.0.1:{port}"), tmp_path,
                start=True, input=pipe, output=DummyOutput(),
            )  # fmt: skip
            running = asyncio.create_task(screen.run_async())
            cutting = asyncio.create_task(cut_when_asked(screen, pipe))
            try:
                model = screen.model
                await until(lambda: model.match_over, 120)
                await asyncio.wait_for(bea_playing, 30)
                assert model.i_am_away  # her turns timed out
                last_deal = model.deal_no
                bea_playing = asyncio.create_task(bea.play_match())
                await bea.tables.Rematch(
                    table_pb2.RematchRequest(context=bea.link.context()), metadata=bea.metadata
                )
                await until(lambda: not model.match_over and model.deal_no > last_deal, 30)
                first = model.deal_no
                await until(
                    lambda: (
                        (fd := model.deals.get(first)) is not None
                        and fd.verification is not None
                        and fd.verification.ok is not None
                    ),
                    120,
                )
                fd = model.deals[first]
                assert model.i_am_away  # the stand-in plays her seat in the new match
                assert not fd.commitment_mismatch
                assert first not in screen.fair_deal.exchanges  # no seed of her own sent
                assert fd.verification is not None and fd.verification.ok, fd.verification
                assert fd.verification.own_by_host
                # Every seat's commitment is published: Bea's her own, Ada's her stand-in's.
                assert set(fd.commitments) == set(fd.seats_in_play) == {seat.seat, bea.seat}
                assert bea.log is not None
                bea_seed, bea_cut = bea.log.seeds[first]
                assert fd.commitments[bea.seat] == seat_commitment(
                    table_id, first, bea.seat, bea_seed, bea_cut
                )
                line = "".join(t for _, t, *_ in render.fair_deal_fragment(model, Text("en")))
                assert "WARNING" not in line, line
            finally:
                cutting.cancel()
                bea_playing.cancel()
                screen.quit()
                await asyncio.wait_for(running, 20)
    finally:
        await channel.close()
        await host.stop(grace=0.5)
