"""Every duration a table accepts has a range, and no refusal names a file of the host.

A pause between deals of 4,294,968 s overflowed the uint32 milliseconds it is
told in; CreateTable now refuses it, and a journal written before the ranges
plays back with its durations held to them.
"""

from __future__ import annotations

import grpc
import pytest
from conftest import HostClient
from test_host_table_memory import config, new_task

from host.edge.errors import Refusal
from host.journal.memory import MemoryJournal
from host.table.durations import DURATIONS
from scala40_net.pb import lobby_pb2


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("between_deals_seconds", 4_294_968),
        ("between_deals_seconds", 601),
        ("turn_seconds", 1),
        ("turn_seconds", 601),
        ("grace_seconds", 0),
        ("grace_seconds", 2**32 - 1),
    ],
)
async def test_a_duration_out_of_its_range_is_refused_and_makes_no_table(
    served: HostClient, field: str, value: int
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await served.new_table(seats=2, **{field: value})
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field in refused.value.details()
    assert DURATIONS[field].text in refused.value.details()
    listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    assert not listed.tables


@pytest.mark.parametrize(
    ("field", "value"), [("between_deals_seconds", 0), ("between_deals_seconds", 600)]
)
async def test_the_ends_of_a_range_are_accepted(served: HostClient, field: str, value: int) -> None:
    assert await served.new_table(seats=2, **{field: value})


async def test_an_older_journals_durations_are_held_to_their_ranges() -> None:
    table = config(2)
    table.between_deals_seconds = 4_294_968
    table.turn_seconds = 100_000
    table.grace_seconds = 0
    task = new_task(MemoryJournal(), table, bots=False)
    assert task.table.deals.between_deals.seconds == 600
    assert task.table.state.turn_seconds == 600
    assert task.table.state.grace_seconds == 1
    # The longest pause still fits the milliseconds it is told in (uint32).
    assert task.table.deals.between_deals.to_pb(600).next_deal_within_ms < 2**32


@pytest.mark.parametrize(
    "sentence",
    [
        "this table is damaged: its journal /srv/scala40/tables/t1.sqlite3 cannot be read",
        "OSError: [Errno 24] Too many open files: '/home/host/.local/share/scala40/tables/x'",
        "sqlite3.OperationalError on C:\\scala40\\tables\\t1.sqlite3",
        "cannot read ~/scala40/host.lock",
    ],
)
def test_no_refusal_names_a_file_of_the_host(sentence: str) -> None:
    refusal = Refusal(grpc.StatusCode.UNAVAILABLE, "TABLE_DAMAGED", sentence)
    status = refusal.to_status()
    said = status.details + repr(status.trailing_metadata)
    for part in ("/srv", "/home", "scala40/tables", "C:\\", "t1.sqlite3", "host.lock"):
        assert part not in said and part not in refusal.message
