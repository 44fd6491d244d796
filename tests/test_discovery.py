"""Discovery's pieces that need no multicast: what a host advertises, and what a client lists.

Nothing here sends an mDNS packet; advertising and browsing are tested in
network namespaces (tests/test_lan_netns.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from zeroconf.asyncio import AsyncServiceInfo

from host.edge.server import Host
from host.table.state import TableSettings
from scala40_net import wire
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.net import discovery
from scala40_net.pb import lobby_pb2

pytestmark = pytest.mark.timeout(60)
FP = HostIdentity.generate().fingerprint


def test_a_host_on_loopback_advertises_nowhere_and_a_wildcard_everywhere_but_loopback() -> None:
    assert discovery.advertised_addresses("127.0.0.1:4040") == []
    assert discovery.advertised_addresses("[::1]:4040") == []
    assert discovery.advertised_addresses("localhost:4040") == []
    assert discovery.advertised_addresses("192.168.1.20:4040") == ["192.168.1.20"]
    assert discovery.advertised_addresses("[fd00::5]:4040") == ["fd00::5"]
    assert discovery.advertised_addresses("[fe80::1]:4040") == []  # link-local: no scope
    everywhere = discovery.advertised_addresses("0.0.0.0:4040")
    assert all(":" not in a and not a.startswith("127.") for a in everywhere)
    assert set(everywhere) <= set(discovery.advertised_addresses("[::]:4040"))


def service(properties: dict[str, str], addresses: list[str] | None = None) -> AsyncServiceInfo:
    return AsyncServiceInfo(
        discovery.SERVICE_TYPE,
        f"Casa 0B49.{discovery.SERVICE_TYPE}",
        port=4040,
        properties=properties,
        server="scala40-0b49.local.",
        parsed_addresses=["192.168.1.20"] if addresses is None else addresses,
    )


def test_a_service_is_listed_with_its_txt_record_read_back() -> None:
    found = discovery.found_host(service(discovery.txt_record("Casa", FP, 3)))
    assert found == discovery.FoundHost(
        f"Casa 0B49.{discovery.SERVICE_TYPE}", "Casa", "192.168.1.20", 4040, FP, 3
    )
    assert found is not None and found.target == "192.168.1.20:4040"
    six = discovery.found_host(service(discovery.txt_record("Sei", FP, 0), ["fd00::5"]))
    assert six is not None and six.target == "[fd00::5]:4040"


def test_a_service_without_a_fingerprint_or_an_address_is_not_listed() -> None:
    record = discovery.txt_record("Casa", FP, 1)
    assert discovery.found_host(service({**record, "fp": "not one"})) is None
    assert discovery.found_host(service({k: v for k, v in record.items() if k != "fp"})) is None
    assert discovery.found_host(service(record, [])) is None


def test_what_a_stranger_advertises_cannot_write_to_the_terminal() -> None:
    record = discovery.txt_record("\x1b[2JEvil\u202ehost\n", FP, 1)
    found = discovery.found_host(service({**record, "open": "-7; rm"}))
    assert found is not None
    assert found.name == "[2JEvilhost" and found.open_tables == 0
    assert len(discovery.clean_name("x" * 500)) == discovery.MAX_NAME


async def test_the_open_tables_count_is_the_tables_a_player_can_still_join(
    tmp_path: Path,
) -> None:
    host = Host("127.0.0.1:0", tmp_path, TableSettings())
    await host.start()
    try:
        assert host.advertised == [] and host.registry.open_count() == 0
        lobby = host.registry
        two = await lobby.create_table(
            lobby_pb2.CreateTableRequest(name="two", seats=2),
            wire.ruleset_from_pb(lobby_pb2.CreateTableRequest().ruleset, 2),
        )
        assert lobby.open_count() == 1
        joined = await two.call(
            lambda t: t.join(lobby_pb2.JoinTableRequest(table_id=two.table_id, player_name="A"))
        )
        assert lobby.open_count() == 1  # a seat still free
        await two.call(
            lambda t: t.add_bot(joined.seat, lobby_pb2.AddBotRequest(table_id=two.table_id))
        )
        assert lobby.open_count() == 0  # full
    finally:
        await host.stop(grace=0.2)


def _documented_response() -> bytes:
    """The response PROTOCOL.md "The records as bytes" gives, as its hex dump."""
    protocol = (Path(__file__).parents[1] / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    after = protocol.split("The whole response a host sends", 1)[1]
    dump = after.split("```text\n", 1)[1].split("```", 1)[0]
    return bytes.fromhex(dump)


def test_the_records_protocol_md_shows_as_bytes_are_the_ones_a_host_sends() -> None:
    from zeroconf import DNSOutgoing, const

    fingerprint = "0B49-6407-FCAC-4196-6B1E-6F9B-62A9-0272"
    advertiser = discovery.Advertiser(["192.168.1.5"], 4040, "Sala", fingerprint, lambda: 2)
    info = advertiser._service_info(2)  # the very records start() registers
    response = DNSOutgoing(const._FLAGS_QR_RESPONSE | const._FLAGS_AA)
    response.add_answer_at_time(info.dns_pointer(), 0)
    for record in (info.dns_service(), info.dns_text(), *info.dns_addresses()):
        response.add_additional_answer(record)
    (packet,) = response.packets()
    assert packet == _documented_response()
    assert info.text == bytes.fromhex(
        "0974787476657273 3d31 096e616d653d53616c61 2a66703d"
        + fingerprint.encode().hex()
        + "066f70656e3d32"
    )
