"""A private table's seat handed by its own player, with its keys, to a host bot: the stand-in.

At a private table the host cannot play a person's seat (it cannot read the hand), so a seat
whose player goes past its grace voids the deal (R10.3). Its player may instead hand the
seat over (``TableService.HandToStandIn``, docs/PRIVATE_TABLES.md "The stand-in"): its
signing key, checked against the one it joined with, and the key of the deal in play,
checked against its ``KEY`` message. The host keeps them owner-only where its own bots keep
theirs (``bot_keys.bot_folder``), with the seat's own messages of the deal from the
transcript, so that the bot (``private_bot.PrivateBotSeat``) takes the deal up from them as
a restarted host bot does; then it marks the seat (``AWAY_REASON_STAND_IN``, journaled as any
seat going away, never the keys). The host can read that hand from then on, and every screen
says so (``SeatInfo.host_bot``). The seat stays the stand-in's: its player coming back would
make two signers of one chain.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import grpc
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.edge.errors import Refusal, precondition
from scala40_net.pb import lobby_pb2, table_pb2
from scala40_net.private.group import GroupError, base_times, scalar_from_bytes
from scala40_net.private.keyfile import save_deal_key
from scala40_net.private.messages import Ed25519Signer, Envelope
from scala40_net.seat.private import key_path, sent_path, write_sent
from scala40_net.secretfile import SecretFileError, private_folder, read_secret, write_secret

if TYPE_CHECKING:
    from host.table.table import Table

log = logging.getLogger(__name__)

#: The handed signing key's file in the seat's bot folder.
SIGNING_KEY = "signing.key"


def _mismatch(sentence: str) -> Refusal:
    return Refusal(grpc.StatusCode.INVALID_ARGUMENT, "KEY_MISMATCH", sentence)


def stand_in_signer(folder: Path) -> Ed25519Signer | None:
    """The signing key handed over for the seat whose bot keeps ``folder``; None when it
    cannot be used (gone, damaged, or readable by others)."""
    try:
        seed = read_secret(folder / SIGNING_KEY)
        return Ed25519Signer(Ed25519PrivateKey.from_private_bytes(seed))
    except (OSError, SecretFileError, ValueError) as exc:
        log.error("the stand-in's signing key in %s cannot be used: %s", folder, exc)
        return None


def refuse_if_stood_in(table: Table, seat: int) -> None:
    """A move or message from a seat's own token once the seat is its stand-in's: refused,
    the stand-in alone signs that seat's chain."""
    if table.state.seats[seat].stand_in:
        raise precondition(
            "STAND_IN",
            f"seat {seat} was handed to a stand-in with its keys: the host's bot plays it "
            "from now on, and only it sends that seat's moves and messages",
        )


def hand_over(
    table: Table, folder: Path, seat: int, request: table_pb2.HandToStandInRequest
) -> table_pb2.HandToStandInResponse:
    """In the table's job: ``seat``'s own player hands it to a stand-in (checked, the keys
    kept in ``folder``, the seat marked); a refusal changes nothing."""
    state = table.state
    if not state.private_cards:
        raise precondition(
            "NOT_PRIVATE",
            "this table is not a private table: an absent seat is handed to a host bot by "
            "the seat that decides absences (DecideAbsence)",
        )
    s = state.seats[seat]
    try:
        key = Ed25519PrivateKey.from_private_bytes(bytes(request.signing_key))
    except ValueError:
        raise _mismatch("the signing key is 32 bytes, an Ed25519 private seed") from None
    signer = Ed25519Signer(key)
    if signer.public_key() != s.signing_key:
        raise _mismatch(
            f"that signing key is not seat {seat}'s: its public key is not the one the seat "
            "joined with (SeatInfo.private_signing_key)"
        )
    if s.stand_in:
        return table_pb2.HandToStandInResponse()  # handed already: answered as then
    m = state.match
    if state.phase != lobby_pb2.TABLE_PHASE_PLAYING or m is None:
        raise precondition(
            "NOT_A_PLAYER", "no match is being played: a seat is handed to a stand-in in a match"
        )
    if seat not in m.seats_in_play:
        raise precondition("NOT_A_PLAYER", f"seat {seat} is out of the match: nothing to play")
    if s.away:
        raise precondition("ALREADY_AWAY", f"a host bot already plays seat {seat}")
    raw_key = bytes(request.signing_key)
    keep: list[tuple[Path, Callable[[Path], object]]] = [
        (folder / SIGNING_KEY, lambda path: write_secret(path, raw_key))
    ]
    secret = table.deals.private.in_play()
    if secret is not None:
        deal_no = secret.setup.deal_no
        if request.deal_no != deal_no:
            raise Refusal(
                grpc.StatusCode.INVALID_ARGUMENT,
                "WRONG_DEAL",
                f"deal {deal_no} is in play, not deal {request.deal_no}: hand over its key",
            )
        public = secret.ledger.keys.get(seat)
        if public is not None:  # before its KEY the stand-in draws the deal's key itself
            try:
                x = scalar_from_bytes(bytes(request.deal_key))
            except GroupError as exc:
                raise _mismatch(f"the deal key does not read: {exc}") from None
            if base_times(x) != public:
                raise _mismatch(
                    f"that deal key is not the one seat {seat} sent in its KEY message of "
                    f"deal {deal_no}"
                )
            own = [e for e in secret.transcript if Envelope.parse(e).author == seat]
            keep.append((key_path(folder, deal_no), lambda path: save_deal_key(path, x)))
            keep.append((sent_path(folder, deal_no), lambda path: write_sent(path, own)))
    _keep(folder, keep)
    table.mark_away(seat, lobby_pb2.AWAY_REASON_STAND_IN)
    return table_pb2.HandToStandInResponse()


def _keep(folder: Path, keep: list[tuple[Path, Callable[[Path], object]]]) -> None:
    """Write each file (owner-only, synced); none is kept when one cannot be written
    (UNAVAILABLE KEYS_NOT_KEPT, the seat still its player's)."""
    written: list[Path] = []
    try:
        private_folder(folder)
        for path, write in keep:
            write(path)
            written.append(path)
    except OSError as exc:
        for path in written:
            with contextlib.suppress(OSError):
                path.unlink()
        log.error("the keys handed to a stand-in could not be kept in %s: %s", folder, exc)
        raise Refusal(
            grpc.StatusCode.UNAVAILABLE,
            "KEYS_NOT_KEPT",
            "the host could not keep the seat's keys on its disk: the seat is still yours",
        ) from None
