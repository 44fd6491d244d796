"""Names at a host: a table's name is checked as a player's is, and a player's name that
looks like another one at the table, or like a bot's, is refused."""

from __future__ import annotations

import grpc
import pytest
from conftest import HostClient
from test_host_limits import refused

from scala40_net.pb import lobby_pb2


@pytest.mark.parametrize(
    "name",
    ["Sala\x1b[2J\x1b[31m", "abc\u202edcba", "nul\x00", "two\nlines", "zero\u200bwidth", "x" * 41],
)
async def test_a_table_name_others_cannot_read_safely_is_refused(
    served: HostClient, name: str
) -> None:
    code, reason, sentence = await refused(
        served.lobby.CreateTable(lobby_pb2.CreateTableRequest(name=name, seats=2))
    )
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert "table name" in sentence
    listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    assert list(listed.tables) == []  # nothing was made


async def test_a_table_name_is_listed_trimmed_with_its_spaces_collapsed(
    served: HostClient,
) -> None:
    await served.lobby.CreateTable(lobby_pb2.CreateTableRequest(name="  Sala   grande ", seats=2))
    listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    assert [t.name for t in listed.tables] == ["Sala grande"]


@pytest.mark.parametrize("name", ["Bоt 1", "B0t 2", "Bot1"])
async def test_a_name_that_looks_like_a_bot_s_is_refused(served: HostClient, name: str) -> None:
    table_id = await served.new_table(seats=2)
    code, reason, _ = await refused(served.join(table_id, name))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")


@pytest.mark.parametrize("look_alike", ["Аnna", "ANNA", "Ánna"])
async def test_nobody_passes_for_another_player_at_the_table(
    served: HostClient, look_alike: str
) -> None:
    table_id = await served.new_table(seats=3)
    await served.join(table_id, "Anna")
    code, reason, _ = await refused(served.join(table_id, look_alike))
    assert (code, reason) == (grpc.StatusCode.ALREADY_EXISTS, "NAME_TAKEN")
    await served.join(table_id, "Anne")  # a name of its own is welcome
