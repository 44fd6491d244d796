"""TLS with pinned fingerprints: the host's certificate is bound to its deal-signing identity, a
client pins it (an invite) or trusts it on first use and refuses it loudly when it changes."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import grpc
import pytest
from conftest import start_host

from client.main import Options, join_host
from client.trust import TRUST_FILE, check_fingerprint
from host.edge import tls_files
from scala40_net import invite, wire
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.net import tls
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc


async def test_the_right_fingerprint_connects_and_names_the_deal_signer_too(tmp_path: Path) -> None:
    served = await start_host(tmp_path / "host")
    try:
        channel, found = await tls.pinned_channel(
            "127.0.0.1", served.host.port, served.host.identity.fingerprint
        )
        async with channel:
            info = await lobby_pb2_grpc.LobbyServiceStub(channel).GetHostInfo(
                lobby_pb2.GetHostInfoRequest()
            )
        assert found.fingerprint == info.host_fingerprint == served.host.identity.fingerprint
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_a_wrong_fingerprint_is_refused_before_any_call_showing_both(tmp_path: Path) -> None:
    served = await start_host(tmp_path / "host")
    other = HostIdentity.generate().fingerprint
    try:
        with pytest.raises(tls.PinError) as refused:
            await tls.pinned_channel("127.0.0.1", served.host.port, other)
        assert other in str(refused.value)
        assert served.host.identity.fingerprint in str(refused.value)
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_a_channel_pinned_to_another_certificate_cannot_call(tmp_path: Path) -> None:
    """A man in the middle with his own certificate, even one bound to the real identity's
    fingerprint text, gets no handshake: the channel trusts exactly the pinned certificate."""
    served = await start_host(tmp_path / "host")
    try:
        _, forged_pem = tls.make_certificate(HostIdentity.generate())
        forged = tls.HostCertificate(forged_pem, served.host.identity.fingerprint)
        channel = tls.secure_channel(f"127.0.0.1:{served.host.port}", forged, wire.CHANNEL_OPTIONS)
        async with channel:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await lobby_pb2_grpc.LobbyServiceStub(channel).GetHostInfo(
                    lobby_pb2.GetHostInfoRequest(), timeout=5
                )
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


class Impostor(HostIdentity):
    """Signs TLS bindings with one key while naming another's public key."""

    def __init__(self, signer: HostIdentity, named: HostIdentity) -> None:
        self._signer = signer
        self.public_key = named.public_key

    def sign_tls_binding(self, spki: bytes) -> bytes:
        return self._signer.sign_tls_binding(spki)


def test_a_certificate_not_signed_by_the_identity_it_names_is_refused() -> None:
    real, other = HostIdentity.generate(), HostIdentity.generate()
    _, pem = tls.make_certificate(real)
    assert tls.bound_fingerprint(pem) == real.fingerprint
    _, claimed = tls.make_certificate(Impostor(other, real))  # names real, signed by other
    with pytest.raises(tls.PinError, match="not signed by the identity it names"):
        tls.bound_fingerprint(claimed)
    with pytest.raises(tls.PinError, match="not a Scala 40 host's"):
        tls.bound_fingerprint(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")


def test_the_host_keeps_its_certificate_and_makes_a_new_one_for_a_new_identity(
    tmp_path: Path,
) -> None:
    identity = HostIdentity.load_or_create(tmp_path)
    key, cert = tls_files.load_or_create(tmp_path, identity)
    assert (tmp_path / tls_files.KEY_FILE).stat().st_mode & 0o777 == 0o600
    assert tls_files.load_or_create(tmp_path, identity) == (key, cert)
    replaced = HostIdentity.generate()
    _, again = tls_files.load_or_create(tmp_path, replaced)
    assert tls.bound_fingerprint(again) == replaced.fingerprint


def test_invites_carry_the_address_and_the_fingerprint() -> None:
    fp = HostIdentity.generate().fingerprint
    text = invite.make_invite("192.168.1.5", 4040, fp)
    assert text == f"scala40://192.168.1.5:4040/?fp={fp}"
    assert invite.parse(text) == invite.Invite("192.168.1.5", 4040, fp)
    assert invite.parse("scala40://[::1]:4041/?fp=" + fp.lower().replace("-", " ")).host == "::1"
    assert invite.parse("10.0.0.2") == invite.Invite("10.0.0.2", 4040, None)
    for bad in ("scala40://host:4040/", "scala40://host:99999/?fp=" + fp, "host:port"):
        with pytest.raises(invite.InviteError):
            invite.parse(bad)


async def test_trust_on_first_use_refuses_a_changed_fingerprint_showing_old_and_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served = await start_host(tmp_path / "host")
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    key = f"127.0.0.1:{served.host.port}"
    old = HostIdentity.generate().fingerprint
    try:
        check_fingerprint(client_dir, key, old)  # remembered from an earlier visit
        code = await join_host(key, Options("ann", "en"), client_dir)
        assert code == 1
        err = capsys.readouterr().err
        assert old in err and served.host.identity.fingerprint in err
        assert old in (client_dir / TRUST_FILE).read_text()  # not overwritten
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_an_invite_for_another_host_is_refused_before_the_lobby(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served = await start_host(tmp_path / "host")
    other = HostIdentity.generate().fingerprint
    try:
        code = await join_host(
            invite.make_invite("127.0.0.1", served.host.port, other), Options("ann", "en"), tmp_path
        )
        assert code == 1
        err = capsys.readouterr().err
        assert other in err and served.host.identity.fingerprint in err
    finally:
        await served.channel.close()
        with contextlib.suppress(asyncio.CancelledError):
            await served.host.stop(grace=0.5)
