"""The commit-reveal exchange of one deal, host side and seat side, as plain objects.

The host process, every client and the bots drive these objects with the
public ``DealEvent`` messages of FAIR_DEAL.md steps 1-6; transport and
deadlines are theirs. Every step out of order raises ``ExchangeError``; a seat
that finds the host's messages inconsistent with its own raises
``RevealRefused`` or ``HostMisbehaved`` and must show the user why.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from scala40_net.fairdeal.spec import (
    DECK_SIZES,
    DIGEST_BYTES,
    SEED_BYTES,
    Derivation,
    Reveal,
    cut_is_valid,
    cutter_seat,
    derive_deal,
    host_commitment,
    rebuild_stock,
    seat_commitment,
)
from scala40_net.pb import deal_pb2, ruleset_pb2

LeftOutReason = deal_pb2.LeftOutReason
NO_COMMITMENT = deal_pb2.LEFT_OUT_REASON_NO_COMMITMENT
NO_REVEAL = deal_pb2.LEFT_OUT_REASON_NO_REVEAL
BAD_REVEAL = deal_pb2.LEFT_OUT_REASON_BAD_REVEAL


class ExchangeError(Exception):
    """A fair-deal message that is out of order or malformed."""


class RevealRefused(ExchangeError):
    """A seat will not reveal: the published commitments are not the ones it saw or sent."""


class HostMisbehaved(ExchangeError):
    """The host's reveals or seed contradict what this seat sent or was promised."""


def new_seed() -> bytes:
    """A 32-byte seed from the OS CSPRNG (never ``random``)."""
    return secrets.token_bytes(SEED_BYTES)


def random_cut(deck_size: int) -> int:
    """A cut in ``[1, N-1]`` for a cutter who does not type one."""
    return 1 + secrets.randbelow(deck_size - 1)


@dataclass(frozen=True)
class DealSetup:
    """What the host announces about a deal attempt before anyone commits."""

    table_id: str
    deal_no: int
    dealer: int
    seats_in_play: tuple[int, ...]
    deck_size: int
    ruleset: ruleset_pb2.Ruleset = field(default_factory=ruleset_pb2.Ruleset)

    def __post_init__(self) -> None:
        if self.deck_size not in DECK_SIZES:
            raise ExchangeError(f"deck size {self.deck_size} is not 54 or 108")
        if len(self.seats_in_play) < 2 or list(self.seats_in_play) != sorted(
            set(self.seats_in_play)
        ):
            raise ExchangeError("seats in play must be two or more distinct seats, ascending")
        if self.deal_no < 1:
            raise ExchangeError("deal_no counts from 1")

    @property
    def cutter(self) -> int:
        return cutter_seat(self.dealer, self.seats_in_play)


def deal_event(table_id: str, deal_no: int, **event: object) -> deal_pb2.DealEvent:
    """A ``DealEvent`` of this deal holding one event of the oneof, e.g. ``announced=…``."""
    return deal_pb2.DealEvent(table_id=table_id, deal_no=deal_no, **event)  # type: ignore[arg-type]


# --- Host side ------------------------------------------------------------------------


class HostExchange:
    """The host's side of steps 1-6 for one deal attempt.

    Call, in order: ``announce``; ``receive_commitment`` per seat;
    ``publish_commitments`` (when all committed or the deadline passed);
    ``receive_reveal`` per seat; ``publish_reveals`` (likewise); then
    ``derivation`` for the deck and ``rebuilt_stock`` for every R10.1 rebuild;
    finally ``reveal_host_seed`` when the deal ends, is voided or abandoned.
    """

    def __init__(self, setup: DealSetup, host_seed: bytes | None = None) -> None:
        self.setup = setup
        self._host_seed = host_seed if host_seed is not None else new_seed()
        if len(self._host_seed) != SEED_BYTES:
            raise ExchangeError("the host seed is 32 bytes")
        self.host_commitment = host_commitment(setup.table_id, setup.deal_no, self._host_seed)
        self._announced = False
        self._commitments: dict[int, bytes] = {}
        self._host_played: set[int] = set()  # seats whose commitment a host bot made
        self._commitments_published = False
        self._reveals: dict[int, Reveal] = {}
        self._left_out: dict[int, LeftOutReason] = {}
        self._reveals_published = False
        self._derivation: Derivation | None = None
        self._rebuilds = 0
        self._seed_revealed = False

    def _event(self, **event: object) -> deal_pb2.DealEvent:
        return deal_event(self.setup.table_id, self.setup.deal_no, **event)

    def _require(self, condition: bool, message: str) -> None:
        if not condition:
            raise ExchangeError(message)

    def announce(self) -> deal_pb2.DealEvent:
        """Step 1: dealer, cutter, seats in play, deck size, ruleset and ``C_host``."""
        self._require(not self._announced, "the deal is already announced")
        self._announced = True
        s = self.setup
        return self._event(
            announced=deal_pb2.DealAnnounced(
                dealer_seat=s.dealer,
                cutter_seat=s.cutter,
                seats_in_play=s.seats_in_play,
                deck_size=s.deck_size,
                host_commitment=self.host_commitment,
                ruleset=s.ruleset,
            )
        )

    def receive_commitment(self, seat: int, commitment: bytes, host_played: bool = False) -> None:
        """Step 2: a seat's ``C_i``. A seat commits once; a second commitment is refused.

        ``host_played``: a host bot made it (for a bot seat, or a person away), which the
        published commitments say, since that seed is no protection against the host.
        """
        self._require(self._announced, "commitments come after the announcement")
        self._require(not self._commitments_published, "the commitments are already published")
        self._require(seat in self.setup.seats_in_play, f"seat {seat} is not in play")
        self._require(seat not in self._commitments, f"seat {seat} has already committed")
        self._require(len(commitment) == DIGEST_BYTES, "a commitment is 32 bytes")
        self._commitments[seat] = bytes(commitment)
        if host_played:
            self._host_played.add(seat)

    @property
    def awaiting_commitments(self) -> list[int]:
        return [s for s in self.setup.seats_in_play if s not in self._commitments]

    def publish_commitments(self) -> deal_pb2.DealEvent:
        """Step 3: every commitment received; a seat that has not committed by now is left out."""
        self._require(self._announced, "announce the deal first")
        self._require(not self._commitments_published, "the commitments are already published")
        self._commitments_published = True
        for seat in self.awaiting_commitments:
            self._left_out[seat] = NO_COMMITMENT
        return self._event(
            commitments=deal_pb2.CommitmentsPublished(
                commitments=[
                    deal_pb2.SeatCommitment(
                        seat=seat, commitment=c, host_played=seat in self._host_played
                    )
                    for seat, c in sorted(self._commitments.items())
                ],
                host_commitment=self.host_commitment,
            )
        )

    def receive_reveal(self, seat: int, seed: bytes, cut: int) -> LeftOutReason | None:
        """Step 4: check a reveal against ``C_i``; ``None`` when it is in the mix, else why not."""
        self._require(self._commitments_published, "reveals come after the commitments")
        self._require(not self._reveals_published, "the reveals are already published")
        self._require(seat in self._commitments, f"seat {seat} has no commitment to reveal")
        answered = seat in self._reveals or seat in self._left_out
        self._require(not answered, f"seat {seat} has already revealed")
        s = self.setup
        matches = (
            len(seed) == SEED_BYTES
            and 0 <= cut <= 0xFFFF
            and seat_commitment(s.table_id, s.deal_no, seat, seed, cut) == self._commitments[seat]
        )
        valid_cut = cut_is_valid(cut, is_cutter=seat == s.cutter, deck_size=s.deck_size)
        if not (matches and valid_cut):
            self._left_out[seat] = BAD_REVEAL
            return BAD_REVEAL
        self._reveals[seat] = Reveal(seat, bytes(seed), cut)
        return None

    @property
    def committed(self) -> list[int]:
        """The seats whose commitment was received, ascending."""
        return sorted(self._commitments)

    @property
    def revealed(self) -> list[int]:
        """The seats whose reveal is in the mix, ascending."""
        return sorted(self._reveals)

    @property
    def awaiting_reveals(self) -> list[int]:
        return [s for s in self._commitments if s not in self._reveals and s not in self._left_out]

    def publish_reveals(self) -> deal_pb2.DealEvent:
        """Step 4 ends: every valid reveal and every seat left out; the deck is fixed from here."""
        self._require(self._commitments_published, "publish the commitments first")
        self._require(not self._reveals_published, "the reveals are already published")
        self._reveals_published = True
        for seat in self.awaiting_reveals:
            self._left_out[seat] = NO_REVEAL
        s = self.setup
        self._derivation = derive_deal(
            host_seed=self._host_seed,
            table_id=s.table_id,
            deal_no=s.deal_no,
            dealer=s.dealer,
            cutter=s.cutter,
            seats_in_play=s.seats_in_play,
            deck_size=s.deck_size,
            reveals=self._reveals.values(),
        )
        return self._event(
            reveals=deal_pb2.SeedsRevealed(
                reveals=[
                    deal_pb2.SeatReveal(seat=r.seat, seed=r.seed, cut=r.cut)
                    for r in sorted(self._reveals.values(), key=lambda r: r.seat)
                ],
                left_out=[
                    deal_pb2.LeftOutSeat(seat=seat, reason=reason)
                    for seat, reason in sorted(self._left_out.items())
                ],
            )
        )

    @property
    def left_out(self) -> dict[int, LeftOutReason]:
        return dict(self._left_out)

    @property
    def derivation(self) -> Derivation:
        """Step 5: the mix key, the cut deck (top first) and where every card goes."""
        self._require(self._derivation is not None, "the deck is known only after the reveals")
        assert self._derivation is not None
        return self._derivation

    def rebuilt_stock(self, discard_pile: Sequence[int]) -> list[int]:
        """R10.1: the next rebuilt stock (top first) from the discard pile (bottom first)."""
        self._require(not self._seed_revealed, "the deal has ended")
        key = self.derivation.mix_key
        self._rebuilds += 1
        return rebuild_stock(key, self._rebuilds, discard_pile)

    def reveal_host_seed(self) -> deal_pb2.DealEvent:
        """Step 6: ``s_host``, when the deal ended, was voided or abandoned at any step."""
        self._require(self._announced, "nothing to reveal before the announcement")
        self._require(not self._seed_revealed, "the host seed is already revealed")
        self._seed_revealed = True
        return self._event(host_seed_revealed=deal_pb2.HostSeedRevealed(host_seed=self._host_seed))


# --- Seat side ------------------------------------------------------------------------


class SeatExchange:
    """One seat's side of steps 1-6: what an honest client or bot does, and what it refuses.

    ``on_announced`` → ``commit`` → ``on_commitments`` → ``reveal`` →
    ``on_reveals`` → ``on_host_seed``.
    """

    def __init__(self, seat: int, seed: bytes | None = None) -> None:
        self.seat = seat
        self.seed = seed if seed is not None else new_seed()
        if len(self.seed) != SEED_BYTES:
            raise ExchangeError("a seat seed is 32 bytes")
        self.cut = 0
        self.commitment: bytes | None = None
        self._announcement: deal_pb2.DealAnnounced | None = None
        self._table_id = ""
        self._deal_no = 0
        self._commitments_checked = False
        self._revealed = False
        self._reveals: deal_pb2.SeedsRevealed | None = None

    @property
    def announcement(self) -> deal_pb2.DealAnnounced:
        if self._announcement is None:
            raise ExchangeError("no deal has been announced")
        return self._announcement

    @property
    def is_cutter(self) -> bool:
        return self.announcement.cutter_seat == self.seat

    def _same_deal(self, event: deal_pb2.DealEvent) -> None:
        if (event.table_id, event.deal_no) != (self._table_id, self._deal_no):
            raise ExchangeError(
                f"event of table {event.table_id!r} deal {event.deal_no}, "
                f"expected table {self._table_id!r} deal {self._deal_no}"
            )

    def on_announced(self, event: deal_pb2.DealEvent) -> None:
        """Step 1: remember ``C_host`` and who cuts."""
        if self._announcement is not None:
            raise ExchangeError("this deal is already announced")
        if event.WhichOneof("event") != "announced":
            raise ExchangeError("expected the announcement of a deal")
        announced = event.announced
        if len(announced.host_commitment) != DIGEST_BYTES:
            raise ExchangeError("the host commitment is not 32 bytes")
        if announced.deck_size not in DECK_SIZES:
            raise ExchangeError(f"deck size {announced.deck_size} is not 54 or 108")
        if self.seat not in announced.seats_in_play:
            raise ExchangeError(f"seat {self.seat} is not in play in this deal")
        seats = list(announced.seats_in_play)
        expected_cutter = cutter_seat(announced.dealer_seat, seats)
        if announced.cutter_seat != expected_cutter:
            raise HostMisbehaved(
                f"R2.2: the cutter is seat {expected_cutter} (dealer's right), "
                f"the host named seat {announced.cutter_seat}"
            )
        self._announcement = deal_pb2.DealAnnounced()
        self._announcement.CopyFrom(announced)
        self._table_id, self._deal_no = event.table_id, event.deal_no

    def commit(self, cut: int | None = None) -> bytes:
        """Step 2: ``C_i``, only once ``C_host`` is known. The cutter's cut is typed or random."""
        if self._announcement is None:
            raise ExchangeError("a seat commits only after the host has announced C_host")
        if self.commitment is not None:
            raise ExchangeError("this seat has already committed")
        size = self._announcement.deck_size
        if self.is_cutter:
            self.cut = random_cut(size) if cut is None else cut
            if not cut_is_valid(self.cut, is_cutter=True, deck_size=size):
                raise ExchangeError(f"R2.2: the cut is a number from 1 to {size - 1}")
        elif cut not in (None, 0):
            raise ExchangeError("only the player on the dealer's right cuts (R2.2)")
        self.commitment = seat_commitment(
            self._table_id, self._deal_no, self.seat, self.seed, self.cut
        )
        return self.commitment

    def on_commitments(self, event: deal_pb2.DealEvent) -> None:
        """Step 3: check the published set before anything is revealed."""
        self._same_deal(event)
        if event.WhichOneof("event") != "commitments":
            raise ExchangeError("expected the published commitments")
        if self.commitment is None:
            raise RevealRefused("this seat has not committed, so it has nothing to reveal")
        published = event.commitments
        if published.host_commitment != self.announcement.host_commitment:
            raise RevealRefused("C_host differs from the one announced: the host changed its seed")
        seats = [c.seat for c in published.commitments]
        if len(set(seats)) != len(seats):
            raise RevealRefused("a seat appears twice among the published commitments")
        values = [c.commitment for c in published.commitments]
        if len(set(values)) != len(values):
            raise RevealRefused("two seats have the same published commitment")
        mine = [c.commitment for c in published.commitments if c.seat == self.seat]
        if not mine:
            raise RevealRefused("this seat's commitment is missing from the published set")
        if mine[0] != self.commitment:
            raise RevealRefused("this seat's commitment was changed in the published set")
        if any(c.seat not in self.announcement.seats_in_play for c in published.commitments):
            raise RevealRefused("a published commitment belongs to a seat not in play")
        self._commitments_checked = True

    def reveal(self) -> deal_pb2.SeatReveal:
        """Step 4: ``s_i`` and ``cut_i``, only after ``on_commitments`` found them in order."""
        if not self._commitments_checked:
            raise RevealRefused("a seat reveals only after checking the published commitments")
        self._revealed = True
        return deal_pb2.SeatReveal(seat=self.seat, seed=self.seed, cut=self.cut)

    def on_reveals(self, event: deal_pb2.DealEvent) -> LeftOutReason | None:
        """Step 4 ends: ``None`` when this seat's reveal is in the mix, else the stated reason.

        A reveal that reached the host but is listed altered, or as a bad
        reveal, is the host misbehaving.
        """
        self._same_deal(event)
        if event.WhichOneof("event") != "reveals":
            raise ExchangeError("expected the published reveals")
        revealed = event.reveals
        self._reveals = deal_pb2.SeedsRevealed()
        self._reveals.CopyFrom(revealed)
        mine = [r for r in revealed.reveals if r.seat == self.seat]
        left_out = [x.reason for x in revealed.left_out if x.seat == self.seat]
        if len(mine) + len(left_out) != 1:
            raise HostMisbehaved("this seat must be either in the mix or left out, exactly once")
        if mine:
            if (mine[0].seed, mine[0].cut) != (self.seed, self.cut):
                raise HostMisbehaved("this seat's seed or cut was changed in the published reveals")
            return None
        if left_out[0] == BAD_REVEAL and self._revealed:
            raise HostMisbehaved("the host calls this seat's correct reveal a bad one")
        reason: LeftOutReason = left_out[0]
        return reason

    def on_host_seed(self, event: deal_pb2.DealEvent) -> Derivation | None:
        """Step 6: check ``s_host`` against ``C_host``; the derived deal, if it got that far."""
        self._same_deal(event)
        if event.WhichOneof("event") != "host_seed_revealed":
            raise ExchangeError("expected the host seed")
        host_seed = event.host_seed_revealed.host_seed
        announced = self.announcement
        if host_commitment(self._table_id, self._deal_no, host_seed) != announced.host_commitment:
            raise HostMisbehaved("the host seed does not match C_host")
        if self._reveals is None:
            return None
        return derive_deal(
            host_seed=host_seed,
            table_id=self._table_id,
            deal_no=self._deal_no,
            dealer=announced.dealer_seat,
            cutter=announced.cutter_seat,
            seats_in_play=list(announced.seats_in_play),
            deck_size=announced.deck_size,
            reveals=[Reveal(r.seat, r.seed, r.cut) for r in self._reveals.reveals],
        )
