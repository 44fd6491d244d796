"""The host's ledger leaves a share to one seat unchecked until the host needs it
(docs/PRIVATE_TABLES.md, "What the host checks"): the recipient checks it anyway, and the host
reads it only when its place is opened to everyone, or at the deal's end, when the author's
revealed key makes the share itself."""

from __future__ import annotations

import pytest
from test_private_deal import dealt, forged_shares, small_deal

from scala40_net.private.chain import FaultFound, FaultKind
from scala40_net.private.local import LocalDeal
from scala40_net.private.messages import EVERYONE, Envelope
from scala40_net.private.protocol import DealLedger


def host_ledger(deal: LocalDeal) -> DealLedger:
    """A reader with no seat, as the host is, fed the transcript so far."""
    ledger = DealLedger(deal.setup, defer_shares=True)
    for data in deal.transcript:
        ledger.apply(Envelope.parse(data))
    return ledger


def test_a_share_to_one_seat_is_checked_by_the_host_only_when_its_place_is_opened() -> None:
    deal = dealt(small_deal())
    position = deal.setup.positions.hands[2][0]
    ledger = host_ledger(deal)
    bad = forged_shares(deal, 0, 2, position, "share")
    # R3: the share opens the card to seat 2 only; seat 2 checks it and names seat 0...
    with pytest.raises(FaultFound):
        deal.seats[2].receive(bad)
    # ...and the host takes it unchecked (it reads nothing of it yet).
    ledger.apply(Envelope.parse(bad))
    assert ledger.missing_shares(0, position, 2) == [1]
    ledger.apply(Envelope.parse(deal.seats[1].shares_message(0, [position], 2)))
    opening = deal.seats[2].shares_message(0, [position], EVERYONE)
    ledger.apply(Envelope.parse(opening))
    # Opened to everyone, the card is read only once seat 0's share holds: it does not.
    with pytest.raises(FaultFound) as found:
        ledger.open_card(0, position)
    assert (found.value.fault.culprit, found.value.fault.kind) == ("seat 0", FaultKind.INVALID)
    assert "seat 0's share of position" in str(found.value)


def test_a_right_share_left_unchecked_opens_the_card_its_recipient_reads() -> None:
    deal = dealt(small_deal())
    position = deal.setup.positions.hands[2][0]
    for author in (0, 1):
        deal.post(author, deal.seats[author].shares_message(0, [position], 2))
    card = deal.seats[2].read_card(0, position)
    deal.post(2, deal.seats[2].shares_message(0, [position], EVERYONE))
    ledger = host_ledger(deal)
    assert ledger.unchecked == {(0, position, 0), (0, position, 1)}
    assert ledger.open_card(0, position) == card
    assert not ledger.unchecked  # each checked once, then held as any share


def test_a_share_left_unchecked_is_made_again_from_its_authors_revealed_key() -> None:
    deal = dealt(small_deal())
    position = deal.setup.positions.hands[2][0]
    bad = forged_shares(deal, 0, 2, position, "key")
    ledger = host_ledger(deal)
    ledger.apply(Envelope.parse(bad))
    ledger.apply(Envelope.parse(deal.seats[1].shares_message(0, [position], 2)))
    reveals = [Envelope.parse(deal.seats[seat].reveal_message()) for seat in deal.setup.seats]
    clean = host_ledger(deal)  # no share of the place: every key opens it
    for env in reveals:
        ledger.apply(env)
        clean.apply(env)
    # Every key revealed: the card is the one the keys open, whatever seat 0's share said.
    assert ledger.open_card(0, position) == clean.open_card(0, position)


def test_the_host_refuses_an_opening_whose_unchecked_share_does_not_hold() -> None:
    """The host takes seat 0's bad share to seat 2 (seat 2 names seat 0 at once); when seat 2
    opens the card to everyone, the host refuses that opening, naming seat 0's share, and
    takes nothing of it."""
    from host.table.private_deal import HostPrivateDeal, PrivateRefused

    deal = dealt(small_deal())
    host = HostPrivateDeal(deal.setup, deal.signing_keys)
    for data in deal.transcript:
        host.receive(Envelope.parse(data).author, data)
    position = deal.setup.positions.hands[2][0]
    host.receive(0, forged_shares(deal, 0, 2, position, "share"))
    host.receive(1, deal.seats[1].shares_message(0, [position], 2))
    opening = deal.seats[2].shares_message(0, [position], EVERYONE)
    with pytest.raises(PrivateRefused, match="seat 0's share of position"):
        host.receive(2, opening)
    assert not host.owner_opened((0, position))
    assert len(host.checker.chains[2]) == sum(
        Envelope.parse(d).author == 2 for d in deal.transcript
    )


def test_a_seat_checks_its_own_shares_at_once_and_another_seats_when_it_reads_them() -> None:
    """Seat 1 takes seat 0's bad share to seat 2 unchecked (it is seat 2's to check, and
    seat 2 names seat 0 at once), but a bad share to itself is named on arrival; when seat 2
    opens the card to everyone, seat 1 reads it only once seat 0's share holds: it names
    seat 0 then (docs/PRIVATE_TABLES.md "What a seat checks")."""
    deal = dealt(small_deal())
    theirs = deal.setup.positions.hands[2][0]
    mine = deal.setup.positions.hands[1][0]
    reader = deal.seats[1]
    bad_to_them = forged_shares(deal, 0, 2, theirs, "share")
    reader.receive(bad_to_them)
    assert (0, theirs, 0) in reader.ledger.unchecked
    with pytest.raises(FaultFound) as at_once:
        reader.receive(forged_shares(deal, 0, 1, mine, "share"))
    assert at_once.value.fault.culprit == "seat 0"
    reader.shares_message(0, [theirs], 2)  # its own share to seat 2, taken in as it is made
    opening = deal.seats[2].shares_message(0, [theirs], EVERYONE)
    reader.receive(opening)
    with pytest.raises(FaultFound) as on_reading:
        reader.ledger.open_card(0, theirs)
    assert (on_reading.value.fault.culprit, on_reading.value.fault.kind) == (
        "seat 0",
        FaultKind.INVALID,
    )
