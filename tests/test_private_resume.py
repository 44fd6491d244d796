"""A seat of a private deal restarted mid-deal goes on with its per-deal key from disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scala40_net.private.audit import audit_deal
from scala40_net.private.chain import HOST, FaultFound, FaultKind
from scala40_net.private.keyfile import DealKeyError, load_deal_key, save_deal_key
from scala40_net.private.local import LocalDeal
from scala40_net.private.messages import Ed25519Signer
from scala40_net.private.protocol import DealSetup, PrivateSeat


def three_seats() -> tuple[LocalDeal, dict[int, Ed25519Signer]]:
    setup = DealSetup("private-resume", 2, (0, 1, 2), dealer=1, deck_size=54)
    signers = {s: Ed25519Signer.from_seed(bytes([s + 7]) * 32) for s in setup.seats}
    return LocalDeal(setup, signers), signers


def test_the_per_deal_key_is_kept_owner_only_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "private" / "t" / "2.key"
    save_deal_key(path, 123456789)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert os.stat(path.parent).st_mode & 0o077 == 0
    assert load_deal_key(path) == 123456789


def test_a_key_file_others_may_read_or_that_holds_no_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "k.key"
    save_deal_key(path, 5)
    path.chmod(0o644)
    with pytest.raises(DealKeyError, match="0600"):
        load_deal_key(path)
    path.chmod(0o600)
    path.write_bytes(b"short")
    with pytest.raises(DealKeyError, match="no per-deal key"):
        load_deal_key(path)


def test_a_seat_killed_mid_deal_resumes_with_its_key_from_disk(tmp_path: Path) -> None:
    deal, signers = three_seats()
    setup = deal.setup
    key_path = tmp_path / "deal.key"
    save_deal_key(key_path, deal.seats[2].secret)  # before its key message is sent
    deal.exchange_keys()
    deal.shuffle_all()
    deal.cut(9)
    hands = deal.deal_hands()
    # Seat 2's process dies; it comes back with its key file and the deal's messages.
    taken_in = list(deal.views[2])
    del deal.seats[2]
    back = PrivateSeat.resumed(setup, 2, signers[2], deal.signing_keys,
                               load_deal_key(key_path), taken_in)
    deal.seats[2] = back
    assert [back.read_card(0, p) for p in setup.positions.hands[2]] == hands[2]
    drawn = deal.draw(2)
    deal.first_discard()
    deal.reveal_all()
    audit = audit_deal(setup, deal.signing_keys, deal.transcript)
    assert audit.dealt.stock[0] == drawn


def test_a_resumed_seat_refuses_its_own_message_handed_back_altered() -> None:
    deal, signers = three_seats()
    deal.exchange_keys()
    own = deal.views[2][2]
    altered = list(deal.views[2])
    altered[2] = own[:-1] + bytes([own[-1] ^ 1])
    with pytest.raises(FaultFound) as found:
        PrivateSeat.resumed(deal.setup, 2, signers[2], deal.signing_keys,
                            deal.seats[2].secret, altered)
    assert (found.value.fault.culprit, found.value.fault.kind) == (HOST, FaultKind.ALTERED)


def test_a_resumed_seat_with_another_key_than_it_sent_is_refused() -> None:
    deal, signers = three_seats()
    deal.exchange_keys()
    with pytest.raises(ValueError, match="not the one"):
        PrivateSeat.resumed(deal.setup, 2, signers[2], deal.signing_keys,
                            deal.seats[2].secret + 1, list(deal.views[2]))
