"""The keys the host holds for its own bots at a private table, and where their deals are kept.

A host bot's signing key is derived from the host's identity (``HostIdentity.derived_secret``):
the same at every start, so the seat's ``SeatInfo`` played back from the journal is the same,
and no file of its own can be lost. Its per-deal keys and messages are kept beside its
table's journal, as a client keeps its own.
"""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.private.messages import Ed25519Signer

BOT_KEY_PURPOSE = b"private-table host bot signing key"


def host_bot_signer(identity: HostIdentity, table_id: str, seat: int) -> Ed25519Signer:
    """The key the host's bot on ``seat`` of ``table_id`` signs its private messages with."""
    purpose = BOT_KEY_PURPOSE + b"|" + table_id.encode() + b"|" + str(seat).encode()
    return Ed25519Signer(Ed25519PrivateKey.from_private_bytes(identity.derived_secret(purpose)))


def bot_folder(journal: Path, seat: int) -> Path:
    """Where the bot on ``seat`` keeps its per-deal keys and messages: beside its table's
    journal (``<table>.bots/<seat>``)."""
    return journal.with_suffix(".bots") / str(seat)
