"""Player keys: a join proved by a signature over the host's challenge, names held per key
(trust on first use), a seat rejoined with the key, tables open only to invited keys."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, bearer, start_host

from host.edge.errors import error_info
from host.journal.players import FILE_NAME, PlayerBook, free_name
from scala40_net.fairdeal.identity import IdentityError
from scala40_net.pb import lobby_pb2, players_pb2, players_pb2_grpc, table_pb2
from scala40_net.players import (
    KEY_FILE_NAME,
    PlayerKey,
    join_message,
    short_fingerprint,
    weak_key,
)
from scala40_net.seat.proof import add_proof
from scala40_net.seat.refusal import refusal_from_error

# Points of small order, as written on the wire (the sign bit set on some): each is refused.
SMALL_ORDER_KEYS = [
    bytes(32),
    bytes([1]) + bytes(30) + b"\x80",
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"),
    b"\xec" + b"\xff" * 30 + b"\x7f",
    b"\xed" + b"\xff" * 30 + b"\xff",
    b"\xee" + b"\xff" * 30 + b"\x7f",
]


def _small_order(encoded: bytes) -> bool:
    """Whether the point ``encoded`` writes has an order dividing 8 (Edwards arithmetic done
    here, apart from the code under test; y reduced mod p as a lax decoder would)."""
    p = 2**255 - 19
    d = -121665 * pow(121666, p - 2, p) % p
    y = int.from_bytes(encoded, "little")
    sign, y = y >> 255, (y & ((1 << 255) - 1)) % p
    x2 = (y * y - 1) * pow(d * y * y + 1, p - 2, p) % p
    x = pow(x2, (p + 3) // 8, p)
    if (x * x - x2) % p:
        x = x * pow(2, (p - 1) // 4, p) % p
    assert (x * x - x2) % p == 0, "not a point"
    if x & 1 != sign and x:
        x = p - x

    def add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
        t = d * a[0] * b[0] * a[1] * b[1]
        return (
            (a[0] * b[1] + b[0] * a[1]) * pow(1 + t, p - 2, p) % p,
            (a[1] * b[1] + a[0] * b[0]) * pow(1 - t, p - 2, p) % p,
        )

    point = (x, y)
    for _ in range(3):
        point = add(point, point)
    return point == (0, 1)


def test_the_weak_keys_refused_are_exactly_points_of_small_order() -> None:
    assert all(_small_order(k) and weak_key(k) for k in SMALL_ORDER_KEYS)
    for _ in range(20):
        key = PlayerKey.generate().public_key
        assert not weak_key(key) and not _small_order(key)


async def keyed_join(
    served: HostClient, table_id: str, name: str, key: PlayerKey, **fields: object
) -> lobby_pb2.JoinTableResponse:
    request = lobby_pb2.JoinTableRequest(table_id=table_id, player_name=name, **fields)  # type: ignore[arg-type]
    players = players_pb2_grpc.PlayersServiceStub(served.channel)
    assert await add_proof(players, request, key, served.host.identity.fingerprint)
    answer: lobby_pb2.JoinTableResponse = await served.lobby.JoinTable(request)
    return answer


async def refused(call: object) -> tuple[grpc.StatusCode, str, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    info = error_info(caught.value)
    assert info is not None
    return caught.value.code(), info.reason, caught.value.details() or ""


async def seats_of(served: HostClient, table_id: str) -> list[lobby_pb2.SeatInfo]:
    listed = (await served.lobby.ListTables(lobby_pb2.ListTablesRequest())).tables
    (table,) = [t for t in listed if t.table_id == table_id]
    return list(table.seats)


def test_the_key_is_made_once_owner_only_and_a_readable_one_is_refused(tmp_path: Path) -> None:
    key = PlayerKey.load_or_create(tmp_path)
    path = tmp_path / KEY_FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert PlayerKey.load_or_create(tmp_path).public_key == key.public_key
    path.chmod(0o640)
    with pytest.raises(IdentityError, match="chmod 600"):
        PlayerKey.load_or_create(tmp_path)


def test_the_join_message_binds_host_table_name_and_nonce() -> None:
    base = join_message("H", "t", "Ada", b"n")
    assert (
        len(
            {
                base,
                *(
                    join_message(*v)
                    for v in (
                        ("H2", "t", "Ada", b"n"),
                        ("H", "t2", "Ada", b"n"),
                        ("H", "t", "Ad", b"n"),
                        ("H", "t", "Ada", b"m"),
                        ("Ht", "", "Ada", b"n"),
                    )
                ),
            }
        )
        == 6
    )


async def test_a_proved_join_shows_the_keys_fingerprint_and_keeps_it_across_a_restart(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "host"
    ada = PlayerKey.generate()
    first = await start_host(data_dir)
    try:
        table_id = await first.new_table(seats=3)
        await keyed_join(first, table_id, "Ada", ada)
        await first.join(table_id, "Bea")  # no key: still welcome, with no fingerprint
        seats = await seats_of(first, table_id)
        assert [(s.name, s.key_fingerprint) for s in seats[:2]] == [
            ("Ada", ada.fingerprint),
            ("Bea", ""),
        ]
    finally:
        await first.channel.close()
        await first.host.stop(grace=0.5)
    second = await start_host(data_dir)
    try:
        assert (await seats_of(second, table_id))[0].key_fingerprint == ada.fingerprint
        other = await second.new_table(seats=2)
        code, reason, sentence = await refused(
            keyed_join(second, other, "ada", PlayerKey.generate())
        )
        assert (code, reason) == (grpc.StatusCode.ALREADY_EXISTS, "NAME_HELD")
        assert short_fingerprint(ada.fingerprint) in sentence
    finally:
        await second.channel.close()
        await second.host.stop(grace=0.5)


async def test_a_name_held_by_a_key_is_refused_to_others_until_the_owner_frees_it(
    served: HostClient, tmp_path: Path
) -> None:
    ada, eve = PlayerKey.generate(), PlayerKey.generate()
    table_id = await served.new_table(seats=4)
    await keyed_join(served, table_id, "Ada", ada)
    other = await served.new_table(seats=4)
    for attempt in (keyed_join(served, other, "ADA", eve), served.join(other, "Ada")):
        code, reason, _ = await refused(attempt)
        assert (code, reason) == (grpc.StatusCode.ALREADY_EXISTS, "NAME_HELD")
    # Said in the caller's language too.
    request = lobby_pb2.JoinTableRequest(table_id=other, player_name="Ada")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await served.lobby.JoinTable(request, metadata=(("accept-language", "it"),))
    assert "chiave" in refusal_from_error(caught.value).message
    assert (await seats_of(served, other))[0].taken is False  # nothing changed
    said = free_name(served.host.data_dir, "ada")
    assert "is free again" in said and ada.fingerprint in said
    await keyed_join(served, other, "Ada", eve)
    assert "no player key holds" in free_name(served.host.data_dir, "Zed")


async def test_a_proof_is_good_once_and_for_its_own_join_only(served: HostClient) -> None:
    ada = PlayerKey.generate()
    table_id = await served.new_table(seats=4)
    players = players_pb2_grpc.PlayersServiceStub(served.channel)
    request = lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Ada")
    assert await add_proof(players, request, ada, served.host.identity.fingerprint)
    renamed = lobby_pb2.JoinTableRequest()
    renamed.CopyFrom(request)
    renamed.player_name = "Bea"  # signed for Ada
    code, reason, _ = await refused(served.lobby.JoinTable(renamed))
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "BAD_KEY_PROOF")
    # That challenge is spent: the right signature with it no longer works (no replay).
    code, reason, _ = await refused(served.lobby.JoinTable(request))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "STALE_CHALLENGE")
    fresh = await players.GetJoinChallenge(players_pb2.GetJoinChallengeRequest())
    assert len(fresh.nonce) == 32 and fresh.expires_in_seconds == 300
    assert not (await seats_of(served, table_id))[0].taken


async def test_a_seat_is_rejoined_with_the_key_from_another_machine(
    served: HostClient, tmp_path: Path
) -> None:
    ada = PlayerKey.load_or_create(tmp_path / "first machine")
    table_id = await served.new_table(seats=2)
    first = await keyed_join(served, table_id, "Ada", ada)
    await served.lobby.AddBot(
        lobby_pb2.AddBotRequest(table_id=table_id, level=lobby_pb2.BOT_LEVEL_EASY),
        metadata=bearer(first.seat_token),
    )
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=bearer(first.seat_token)
    )
    # The key moved (export, import): the other machine holds the same key, not the token.
    moved = tmp_path / "second machine"
    PlayerKey.from_pem(ada.pem(), "the export").write(moved / KEY_FILE_NAME)
    again = await keyed_join(served, table_id, "Ada", PlayerKey.load_or_create(moved))
    assert again.seat == first.seat and again.seat_token != first.seat_token
    view = await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(again.seat_token))
    assert view.view.my_seat == first.seat
    # Another key, the same name: not that seat.
    code, reason, _ = await refused(keyed_join(served, table_id, "Ada", PlayerKey.generate()))
    assert code == grpc.StatusCode.ALREADY_EXISTS and reason == "NAME_HELD"


async def test_a_table_of_invited_keys_takes_only_them(served: HostClient) -> None:
    ada, bea, eve = PlayerKey.generate(), PlayerKey.generate(), PlayerKey.generate()
    table_id = await served.new_table(
        seats=3, invited_keys=[ada.fingerprint.lower(), bea.fingerprint]
    )
    listed = (await served.lobby.ListTables(lobby_pb2.ListTablesRequest())).tables
    assert [t.invited_only for t in listed if t.table_id == table_id] == [True]
    await keyed_join(served, table_id, "Ada", ada)
    for attempt in (keyed_join(served, table_id, "Eve", eve), served.join(table_id, "Eve")):
        code, reason, _ = await refused(attempt)
        assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_INVITED")
    await keyed_join(served, table_id, "Bea", bea)
    code, reason, _ = await refused(served.new_table(seats=2, invited_keys=["ABCD"]))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")


async def test_a_malformed_proof_or_listing_is_refused_and_changes_nothing(
    served: HostClient,
) -> None:
    table_id = await served.new_table(seats=2)
    players = players_pb2_grpc.PlayersServiceStub(served.channel)
    nonce = (await players.GetJoinChallenge(players_pb2.GetJoinChallengeRequest())).nonce
    for proof in (
        lobby_pb2.PlayerProof(public_key=b"k" * 31, nonce=nonce, signature=b"s" * 64),
        lobby_pb2.PlayerProof(public_key=b"k" * 32, nonce=nonce, signature=b"s" * 63),
    ):
        request = lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Ada", proof=proof)
        code, reason, _ = await refused(served.lobby.JoinTable(request))
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    # A key of small order: a zero "signature" by it holds for some messages (which, depends
    # on the nonce), so such a key is refused before any signature is looked at.
    for weak in SMALL_ORDER_KEYS:
        forged = lobby_pb2.PlayerProof(public_key=weak, nonce=nonce, signature=bytes(64))
        request = lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Ada", proof=forged)
        code, reason, sentence = await refused(served.lobby.JoinTable(request))
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
        assert "small order" in sentence
    forged = lobby_pb2.PlayerProof(
        public_key=PlayerKey.generate().public_key, nonce=nonce, signature=bytes(64)
    )
    request = lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Ada", proof=forged)
    code, reason, _ = await refused(served.lobby.JoinTable(request))
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "BAD_KEY_PROOF")
    assert not any(s.taken for s in await seats_of(served, table_id))
    code, reason, _ = await refused(players.ListMatches(players_pb2.ListMatchesRequest(limit=501)))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert served.host.players.players() == []  # no name was bound by any of them


def test_the_owner_frees_a_name_from_the_command_line(tmp_path: Path) -> None:
    data_dir = tmp_path / "host"
    book = PlayerBook(data_dir)
    ada = PlayerKey.generate()
    book.bind(ada.public_key, "Ada")
    book.close()
    assert stat.S_IMODE((data_dir / FILE_NAME).stat().st_mode) == 0o600
    said = subprocess.run(
        [sys.executable, "-m", "host", "--data-dir", str(data_dir), "--free-name", "ada"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert said.returncode == 0 and ada.fingerprint in said.stdout
    book = PlayerBook(data_dir)
    try:
        assert book.holder("Ada") is None and book.name_of(ada.public_key) == "Ada"
    finally:
        book.close()
