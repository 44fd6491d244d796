"""At start the host says which tables it reopened from its data dir, and where each match is."""

from __future__ import annotations

from pathlib import Path

from conftest import bearer, start_host

from host.edge.server import resumed_lines
from scala40_net.pb import lobby_pb2


async def test_the_host_names_at_start_every_table_it_resumed(tmp_path: Path) -> None:
    data_dir = tmp_path / "host"
    first = await start_host(data_dir)
    try:
        assert resumed_lines(first.host) == [f"no table to resume in {data_dir}"]
        waiting = await first.new_table(seats=3)
        await first.join(waiting, "Ada")
        playing = await first.new_table(seats=2)
        ada = await first.join(playing, "Ada")
        await first.lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=playing), metadata=bearer(ada.seat_token)
        )
        await first.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=playing), metadata=bearer(ada.seat_token)
        )
    finally:
        await first.channel.close()
        await first.host.stop(grace=0.5)
    again = await start_host(data_dir)
    try:
        lines = resumed_lines(again.host)
        assert len(lines) == 2, lines
        friday = next(line for line in lines if waiting in line)
        saturday = next(line for line in lines if playing in line)
        assert "waiting for its match to start" in friday
        assert "Ada" in friday
        assert "match resumed at deal 1" in saturday
        assert "Ada" in saturday
    finally:
        await again.channel.close()
        await again.host.stop(grace=0.5)
