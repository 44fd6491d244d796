"""Host identity, the recorder and the record file, and honest records that verify."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest

from scala40_net.fairdeal.chain import chain_head
from scala40_net.fairdeal.identity import HostIdentity, IdentityError, verify_record_signature
from scala40_net.fairdeal.record import DealRecord, RecordFormatError
from scala40_net.fairdeal.rehearsal import Rehearsal
from scala40_net.fairdeal.verify import VerificationFailed, verify_record


def test_identity_is_created_once_owner_only_and_reloaded(tmp_path: Path) -> None:
    data = tmp_path / "host-data"
    first = HostIdentity.load_or_create(data)
    key_file = next(data.iterdir())
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    again = HostIdentity.load_or_create(data)
    assert again.public_key == first.public_key
    assert re.fullmatch(r"([0-9A-F]{4}-){7}[0-9A-F]{4}", first.fingerprint)


def test_identity_file_others_can_read_is_refused(tmp_path: Path) -> None:
    HostIdentity.load_or_create(tmp_path)
    key_file = next(tmp_path.iterdir())
    key_file.chmod(0o644)
    with pytest.raises(IdentityError, match="chmod 600"):
        HostIdentity.load_or_create(tmp_path)


def test_recorder_chains_every_public_event_and_signs_the_head() -> None:
    recorder = Rehearsal(turns=10).run()
    record = recorder.signed
    assert record.chain_head == chain_head(record.table_id, record.deal_no, recorder.events)
    assert verify_record_signature(
        record.host_public_key, record.table_id, record.deal_no, recorder.head, record.signature
    )
    assert record.private_seat is None and not record.private_events


def test_record_file_round_trips_and_holds_one_seats_private_data(tmp_path: Path) -> None:
    recorder = Rehearsal(turns=30).run()
    mine = recorder.record_for(2)
    assert mine.private_seat == 2 and mine.private_events
    mine.write(tmp_path / "deal.json")
    assert DealRecord.read(tmp_path / "deal.json") == mine
    assert mine.without_private() == recorder.signed


def test_a_seat_that_sat_the_deal_out_gets_the_public_record() -> None:
    # FAIR_DEAL.md "Record file": "private" is null for a seat that was not in play (busted,
    # or seated after the deal began), as for a spectator: it has no private data to carry.
    recorder = Rehearsal(turns=10, seats_in_play=(0, 2, 3)).run()
    sat_out = recorder.record_for(1)
    assert sat_out == recorder.signed and sat_out.private_seat is None
    assert '"private": null' in sat_out.to_json()
    assert recorder.record_for(2).private_seat == 2


def test_a_file_that_is_not_a_record_is_refused() -> None:
    with pytest.raises(RecordFormatError):
        DealRecord.from_json('{"format": "something else"}')
    with pytest.raises(RecordFormatError):
        DealRecord.from_json('{"format": "scala40/deal-record/v1", "table_id": 3}')


@pytest.mark.parametrize(
    ("seats", "dealer", "deck_size", "turns"),
    [
        ((0, 1), 1, 54, 60),
        ((0, 1), 0, 108, 130),
        ((0, 1, 2, 3), 2, 108, 70),
        (tuple(range(6)), 5, 108, 45),
    ],
)
def test_honest_deal_verifies_for_every_seat(
    seats: tuple[int, ...], dealer: int, deck_size: int, turns: int
) -> None:
    rehearsal = Rehearsal(seats_in_play=seats, dealer=dealer, deck_size=deck_size, turns=turns)
    recorder = rehearsal.run()
    assert rehearsal.rebuilds >= 1
    public = verify_record(recorder.signed)
    assert public.line().startswith("verified: ")
    assert public.rebuilds == rehearsal.rebuilds
    for seat in seats:
        verified = verify_record(
            recorder.record_for(seat),
            seat=seat,
            my_seed=rehearsal.seats[seat].seed,
            my_cut=rehearsal.seats[seat].cut,
        )
        assert verified.own_seed_checked
        assert verified.own_cards_checked >= 13


def test_a_seat_left_out_and_a_derived_cut_verify_and_are_shown() -> None:
    rehearsal = Rehearsal(seats_in_play=(0, 2, 3, 5), dealer=0, silent_seats=frozenset({5}))
    verified = verify_record(rehearsal.run().signed)
    assert not verified.cut_chosen
    assert "seat 5 no commitment" in verified.line()


def test_a_deal_abandoned_before_dealing_verifies() -> None:
    rehearsal = Rehearsal()
    rehearsal.broadcast(rehearsal.host.announce())
    rehearsal.broadcast(rehearsal.host.reveal_host_seed())
    verified = verify_record(rehearsal.recorder.finish(rehearsal.identity))
    assert "abandoned before the deal" in verified.line()


def test_own_seed_not_in_the_mix_is_named() -> None:
    rehearsal = Rehearsal(turns=5)
    record = rehearsal.run().record_for(1)
    with pytest.raises(VerificationFailed) as failure:
        verify_record(record, seat=1, my_seed=bytes(32))
    assert (failure.value.check, failure.value.kind) == ("mix", "reveals")
