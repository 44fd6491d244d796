"""A crafted ruleset never reaches a table (R12: INVALID_ARGUMENT naming the option and its range),
and one already in a journal, or any exception inside one table, never stops the host."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, start_host

from host.journal.sqlite import SUFFIX, TABLES_FOLDER
from scala40_net.pb import lobby_pb2, ruleset_pb2

CRAFTED = [
    ({"closer_bonus": -(2**31)}, "closer_bonus"),
    ({"bust_at": 100_000}, "bust_at"),
    ({"rientro_fee": 2**31}, "rientro_fee"),
    ({"opening_points": 2**32 - 1}, "opening_points"),
    ({"deals_in_match": 2**32 - 1}, "deals_in_match"),
]


@pytest.mark.parametrize(("options", "named"), CRAFTED)
async def test_an_option_out_of_its_range_is_refused_and_names_it(
    served: HostClient, options: dict[str, int], named: str
) -> None:
    ruleset = ruleset_pb2.Ruleset(options=ruleset_pb2.RulesetOptions(**options))  # type: ignore[arg-type]
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await served.new_table(seats=2, ruleset=ruleset)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert named in refused.value.details()
    listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    assert not listed.tables


async def test_a_journal_holding_a_crafted_ruleset_is_set_aside_and_the_host_starts(
    tmp_path: Path,
) -> None:
    """A journal written before the ranges existed (its config rewritten here to one the
    host now refuses): that table is set aside, the others start."""
    data_dir = tmp_path / "host"
    served = await start_host(data_dir)
    try:
        crafted = await served.new_table(seats=2)
        good = await served.new_table(seats=2)
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    path = data_dir / TABLES_FOLDER / f"{crafted}{SUFFIX}"
    config = lobby_pb2.CreateTableRequest(
        name="crafted",
        seats=2,
        ruleset=ruleset_pb2.Ruleset(
            options=ruleset_pb2.RulesetOptions(closer_bonus=-(2**31), bust_at=100_000)
        ),
    )
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE table_config SET config = ?", (config.SerializeToString(),))
        db.commit()
    served = await start_host(data_dir)
    try:
        listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
        assert [t.table_id for t in listed.tables] == [good]
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await served.join(crafted, "ann")
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND
        assert "damaged" in refused.value.details() and "closer_bonus" in refused.value.details()
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
