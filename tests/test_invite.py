"""Invites and addresses as PROTOCOL.md "Invites" says: IPv6, the port's default, the
fingerprint's forms, and the address trust on first use is keyed by."""

from __future__ import annotations

from pathlib import Path

import pytest

from client.session import TrustState
from client.trust import check_fingerprint, remember_fingerprint
from scala40_net import invite
from scala40_net.seat.netbot import parse_address

FP = "0B49-6407-FCAC-4196-6B1E-6F9B-62A9-0272"
OTHER = "1111-2222-3333-4444-5555-6666-7777-8888"


@pytest.mark.parametrize(
    ("text", "host", "port"),
    [
        (f"scala40://192.168.1.5:4040/?fp={FP}", "192.168.1.5", 4040),
        (f"scala40://192.168.1.5/?fp={FP}", "192.168.1.5", 4040),  # the port left out: 4040
        (f"scala40://[fe80::1]:4041/?fp={FP}", "fe80::1", 4041),
        (f"scala40://[fe80::1]/?fp={FP}", "fe80::1", 4040),
        (f"SCALA40://Sala.local:4042?fp={FP}", "sala.local", 4042),  # no slash, any case
        (f"scala40://h:4040/?name=x&fp={FP}", "h", 4040),  # other parameters ignored
    ],
)
def test_an_invite_names_its_host_and_port(text: str, host: str, port: int) -> None:
    place = invite.parse(text)
    assert (place.host, place.port, place.fingerprint) == (host, port, FP)


@pytest.mark.parametrize(
    "written",
    [FP, FP.lower(), FP.replace("-", ""), FP.replace("-", " "), FP.replace("-", ":").lower()],
)
def test_every_written_form_of_a_fingerprint_is_the_same_one(written: str) -> None:
    assert invite.parse(f"scala40://h/?fp={written}").fingerprint == FP


@pytest.mark.parametrize(
    "text",
    [
        "scala40://h:0/?fp=" + FP,  # no port 0: once silently 4040
        "scala40://h:65536/?fp=" + FP,
        "scala40://h/?fp=" + FP[:-1],
        "scala40://h/?fp=" + FP.replace("0", "G"),
        "scala40://h/",
        f"scala40://h/?fp={FP}&fp={OTHER}",  # two fingerprints: which one is pinned?
        "h:0",
        "[::1]:x",
    ],
)
def test_what_is_not_an_invite_or_address_is_refused(text: str) -> None:
    with pytest.raises(invite.InviteError):
        invite.parse(text)


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("192.168.1.5", "192.168.1.5:4040"),
        ("Sala.Local:4041", "sala.local:4041"),
        ("[::1]", "[::1]:4040"),
        ("[::1]:4041", "[::1]:4041"),
        ("fe80::1", "[fe80::1]:4040"),  # a bare IPv6 address: the port is 4040
        (f"scala40://[FE80::1]:4041/?fp={FP}", "[fe80::1]:4041"),
    ],
)
def test_an_address_is_written_one_way(text: str, address: str) -> None:
    assert invite.parse(text).address == address
    assert parse_address(text) == address  # the gRPC target too, IPv6 in brackets


def test_trust_on_first_use_is_keyed_by_host_and_port_as_written_one_way(tmp_path: Path) -> None:
    key = invite.parse("[::1]:4040").address
    assert check_fingerprint(tmp_path, key, FP) == (TrustState.NEW, "")
    assert check_fingerprint(tmp_path, invite.parse("::1").address, OTHER)[0] is TrustState.CHANGED
    # Another port of the same machine is another host (two hosts may share a machine).
    assert check_fingerprint(tmp_path, "[::1]:4041", OTHER)[0] is TrustState.NEW


def test_a_fingerprint_remembered_under_another_case_still_counts(tmp_path: Path) -> None:
    # Written by an older client, which kept the name as typed: no change slips past it.
    remember_fingerprint(tmp_path, "Sala.Local:4040", FP)
    place = invite.parse("sala.local")
    assert check_fingerprint(tmp_path, place.address, OTHER) == (TrustState.CHANGED, FP)


@pytest.mark.parametrize(
    ("written_before", "now"), [("::1:4040", "[::1]:4040"), ("Sala.Local:4040", "sala.local:4040")]
)
def test_seats_held_under_an_older_clients_address_are_still_found(
    tmp_path: Path, written_before: str, now: str
) -> None:
    from client.seats import SeatStore

    SeatStore(tmp_path, written_before).hold("t-1", 2, "secret-token")
    held = SeatStore(tmp_path, now).get("t-1")
    assert held is not None and held.token == "secret-token"
    assert SeatStore(tmp_path, "[::1]:4041").held() == {}  # another port: another host
