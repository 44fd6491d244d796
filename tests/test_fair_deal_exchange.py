"""Message order of the commit-reveal exchange (FAIR_DEAL.md steps 1-6), host and seat side."""

from __future__ import annotations

import pytest

from scala40_net.fairdeal.exchange import (
    BAD_REVEAL,
    NO_COMMITMENT,
    NO_REVEAL,
    DealSetup,
    ExchangeError,
    HostExchange,
    HostMisbehaved,
    RevealRefused,
    SeatExchange,
)
from scala40_net.fairdeal.spec import seat_commitment
from scala40_net.pb import deal_pb2

SETUP = DealSetup(table_id="t1", deal_no=4, dealer=1, seats_in_play=(0, 1, 2, 3), deck_size=108)


def announced_pair() -> tuple[HostExchange, dict[int, SeatExchange], deal_pb2.DealEvent]:
    host = HostExchange(SETUP)
    seats = {s: SeatExchange(s) for s in SETUP.seats_in_play}
    announced = host.announce()
    for seat in seats.values():
        seat.on_announced(announced)
    return host, seats, announced


def committed() -> tuple[HostExchange, dict[int, SeatExchange], deal_pb2.DealEvent]:
    host, seats, _ = announced_pair()
    for s, seat in seats.items():
        host.receive_commitment(s, seat.commit())
    return host, seats, host.publish_commitments()


def test_the_cutter_is_the_dealers_right_and_cuts_between_1_and_n_minus_1() -> None:
    _, seats, announced = announced_pair()
    assert announced.announced.cutter_seat == 0
    assert seats[0].is_cutter
    with pytest.raises(ExchangeError, match="1 to 107"):
        seats[0].commit(cut=108)
    with pytest.raises(ExchangeError, match="only the player on the dealer's right"):
        seats[2].commit(cut=5)
    seats[0].commit(cut=33)
    assert seats[0].cut == 33


def test_a_seat_does_not_commit_before_it_has_c_host() -> None:
    with pytest.raises(ExchangeError, match="only after the host has announced C_host"):
        SeatExchange(2).commit()


def test_a_seat_refuses_an_announcement_naming_the_wrong_cutter() -> None:
    announced = HostExchange(SETUP).announce()
    announced.announced.cutter_seat = 2
    with pytest.raises(HostMisbehaved, match=r"R2\.2"):
        SeatExchange(3).on_announced(announced)


def test_a_seat_reveals_only_after_checking_the_published_commitments() -> None:
    _, seats, _ = committed()
    with pytest.raises(RevealRefused, match="only after checking"):
        seats[2].reveal()


def test_a_seat_refuses_to_reveal_when_its_commitment_is_missing() -> None:
    _, seats, published = committed()
    del published.commitments.commitments[2]
    with pytest.raises(RevealRefused, match="missing"):
        seats[2].on_commitments(published)
    with pytest.raises(RevealRefused):
        seats[2].reveal()


def test_a_seat_refuses_to_reveal_when_its_commitment_was_changed() -> None:
    _, seats, published = committed()
    published.commitments.commitments[1].commitment = bytes(32)
    with pytest.raises(RevealRefused, match="changed"):
        seats[1].on_commitments(published)


def test_a_seat_refuses_to_reveal_when_a_seat_is_listed_twice() -> None:
    _, seats, published = committed()
    extra = published.commitments.commitments.add()
    extra.CopyFrom(published.commitments.commitments[3])
    with pytest.raises(RevealRefused, match="twice"):
        seats[0].on_commitments(published)


def test_a_seat_refuses_to_reveal_when_c_host_changed() -> None:
    _, seats, published = committed()
    published.commitments.host_commitment = bytes(32)
    with pytest.raises(RevealRefused, match="C_host differs"):
        seats[3].on_commitments(published)


def test_a_seat_refuses_commitments_of_another_deal() -> None:
    _, seats, published = committed()
    published.deal_no = 5
    with pytest.raises(ExchangeError, match="deal 5"):
        seats[3].on_commitments(published)


def test_host_takes_commitments_only_after_announcing_and_once_per_seat() -> None:
    host = HostExchange(SETUP)
    with pytest.raises(ExchangeError):
        host.receive_commitment(0, bytes(32))
    host.announce()
    host.receive_commitment(0, bytes(32))
    with pytest.raises(ExchangeError, match="already committed"):
        host.receive_commitment(0, bytes(range(32)))
    with pytest.raises(ExchangeError, match="not in play"):
        host.receive_commitment(7, bytes(32))
    with pytest.raises(ExchangeError, match="after the commitments"):
        host.receive_reveal(0, bytes(32), 0)


def test_deadline_leaves_out_who_did_not_commit_or_reveal_and_a_wrong_reveal() -> None:
    host, seats, _ = announced_pair()
    for s in (0, 1, 2):
        host.receive_commitment(s, seats[s].commit(cut=10 if s == 0 else None))
    assert host.awaiting_commitments == [3]
    published = host.publish_commitments()
    for s in (0, 1, 2):
        seats[s].on_commitments(published)
    wrong = seats[1].reveal()
    assert host.receive_reveal(1, bytes(32), wrong.cut) == BAD_REVEAL
    assert host.receive_reveal(2, seats[2].seed, seats[2].cut) is None
    assert host.awaiting_reveals == [0]
    revealed = host.publish_reveals()
    assert [r.seat for r in revealed.reveals.reveals] == [2]
    assert {x.seat: x.reason for x in revealed.reveals.left_out} == {
        0: NO_REVEAL,
        1: BAD_REVEAL,
        3: NO_COMMITMENT,
    }
    # The cutter (seat 0) is left out: the cut is derived from the stream.
    assert not host.derivation.cut_chosen
    assert seats[2].on_reveals(revealed) is None
    assert seats[0].on_reveals(revealed) == NO_REVEAL


def test_host_leaves_out_a_cut_that_is_not_the_seats_to_make() -> None:
    # Seat 2 is not the cutter: a cut it committed to is still a bad reveal.
    seed = bytes(range(32))
    host = HostExchange(SETUP)
    host.announce()
    host.receive_commitment(2, seat_commitment("t1", 4, 2, seed, 9))
    host.publish_commitments()
    assert host.receive_reveal(2, seed, 9) == BAD_REVEAL


def test_seat_catches_the_host_changing_its_reveal_or_seed() -> None:
    host, seats, published = committed()
    for s, seat in seats.items():
        seat.on_commitments(published)
        reveal = seat.reveal()
        host.receive_reveal(s, reveal.seed, reveal.cut)
    revealed = host.publish_reveals()
    altered = deal_pb2.DealEvent()
    altered.CopyFrom(revealed)
    altered.reveals.reveals[1].seed = bytes(32)
    with pytest.raises(HostMisbehaved, match="changed"):
        seats[1].on_reveals(altered)
    dropped = deal_pb2.DealEvent()
    dropped.CopyFrom(revealed)
    del dropped.reveals.reveals[2]
    dropped.reveals.left_out.add(seat=2, reason=BAD_REVEAL)
    with pytest.raises(HostMisbehaved, match="correct reveal"):
        seats[2].on_reveals(dropped)
    assert seats[3].on_reveals(revealed) is None
    seed_event = host.reveal_host_seed()
    derivation = seats[3].on_host_seed(seed_event)
    assert derivation is not None and derivation.deck == host.derivation.deck
    seed_event.host_seed_revealed.host_seed = bytes(32)
    with pytest.raises(HostMisbehaved, match="C_host"):
        seats[0].on_host_seed(seed_event)


def test_every_deal_attempt_ends_with_the_host_seed_even_when_abandoned_early() -> None:
    host, _, _ = announced_pair()
    seed_event = host.reveal_host_seed()
    assert len(seed_event.host_seed_revealed.host_seed) == 32
    with pytest.raises(ExchangeError):
        host.reveal_host_seed()


def test_seeds_come_from_the_os_and_differ() -> None:
    assert len({SeatExchange(0).seed for _ in range(20)}) == 20
    assert len({HostExchange(SETUP).host_commitment for _ in range(20)}) == 20
