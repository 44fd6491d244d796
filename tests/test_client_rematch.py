"""Another match on the table screen, against a real host: 'n' at the match's end asks for it
(TableService.Rematch), and the new match starts on the same screen once everyone agreed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_client_host import until

from client.connection import LobbyClient, open_channel
from client.i18n import Text
from client.main import open_table
from client.session import SessionState
from host.edge.server import Host
from host.table.state import TableSettings
from scala40_net.pb import ruleset_pb2

ONE_DEAL = ruleset_pb2.RulesetOptions(
    match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1, rientro=False
)


async def test_n_at_the_end_of_a_match_starts_another_at_the_same_seats(tmp_path: Path) -> None:
    """Ada never moves (2 s turns: the host and then a bot play for her) to the end of a
    one-deal match; 'n' asks for a rematch, the bot agrees, and the second match starts on
    the same screen, her seat hers again, the standings from zero."""
    host = Host("127.0.0.1:0", tmp_path / "host", TableSettings(bot_delay=0.0, turn_seconds=2))
    port = await host.start()
    channel, _ = await open_channel("127.0.0.1", port)
    lobby = LobbyClient(channel)
    try:
        table_id = await lobby.create_table(
            "again", ruleset_pb2.PRESET_CLASSIC, 2, options=ONE_DEAL
        )
        seat = await lobby.join(table_id, "Ada")
        await lobby.add_bot(seat)
        with create_pipe_input() as pipe:
            screen = await open_table(
                channel,
                seat,
                Text("it"),
                SessionState(host=f"127.0.0.1:{port}"),
                tmp_path,
                start=True,
                input=pipe,
                output=DummyOutput(),
            )
            running = asyncio.create_task(screen.run_async())
            model = screen.model
            await until(lambda: model.match_over, 120)
            assert model.i_am_away  # her turns timed out
            first_deal = model.deal_no
            pipe.send_text("n")
            await until(lambda: not model.match_over, 30)
            await until(lambda: model.deal_no > first_deal, 30)
            assert not model.i_am_away  # she agreed: the seat is hers again
            started = [e for e in model.log if e.key == "log_match_started"]
            assert len(started) == 2
            assert all(s.total == 0 for s in model.seats.values())
            screen.quit()
            await asyncio.wait_for(running, 20)
    finally:
        await channel.close()
        await host.stop(grace=0.5)
