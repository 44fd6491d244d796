"""A commitment that reaches the host too late (real host, 1 s commit timeout): the seat sits
the deal out (FAIR_DEAL.md), and its check of the deal is a third party's, not a false
"VERIFICATION FAILED: your seed is not in the mix" (the seed the host never took is not in
it, rightly)."""

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


async def test_a_seat_whose_commitment_came_too_late_verifies_the_deal_as_a_third_party(
    tmp_path: Path,
) -> None:
    settings = TableSettings(bot_delay=0.0, turn_seconds=2, commit_timeout=1.0)
    host = Host("127.0.0.1:0", tmp_path / "host", settings)
    port = await host.start()
    channel, _ = await open_channel("127.0.0.1", port)
    lobby = LobbyClient(channel)
    try:
        table_id = await lobby.create_table("late", ruleset_pb2.PRESET_CLASSIC, 2, options=ONE_DEAL)
        seat = await lobby.join(table_id, "Ada")
        await lobby.add_bot(seat)
        with create_pipe_input() as pipe:
            screen = await open_table(
                channel,
                seat,
                Text("en"),
                SessionState(host=f"127.0.0.1:{port}"),
                tmp_path,
                start=True,
                input=pipe,
                output=DummyOutput(),
            )
            steps = screen.fair_deal.steps
            send = steps.send_commitment

            async def late(deal_no: int, keep_seed: bool = False) -> object:
                # Past the host's commit timeout: once it has published the commitments (the
                # bot's alone), however late a busy machine runs its deadline.
                await until(lambda: bool(screen.model.deals[deal_no].commitments), 60)
                return await send(deal_no, keep_seed)

            steps.send_commitment = late  # type: ignore[method-assign,assignment]
            running = asyncio.create_task(screen.run_async())
            model = screen.model
            await until(lambda: model.match_over, 120)
            fd = model.deals[1]
            assert model.my_seat in fd.left_out  # the host took no commitment of hers
            await until(lambda: fd.verification is not None and fd.verification.ok is not None, 30)
            assert fd.verification is not None and fd.verification.ok, fd.verification
            screen.quit()
            await asyncio.wait_for(running, 20)
    finally:
        await channel.close()
        await host.stop(grace=0.5)
