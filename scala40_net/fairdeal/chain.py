"""The hash chain of a deal's public events and the message the host signs ("Signed record")."""

from __future__ import annotations

from collections.abc import Iterable

from scala40_net.fairdeal.spec import be32, lp, sha256, text_bytes

LOG_TAG = b"scala40/fair-deal/v1/log"
RECORD_TAG = b"scala40/fair-deal/v1/record"


def chain_start(table_id: str, deal_no: int) -> bytes:
    """``h_0 = H("…/log" || lp(table_id) || be32(deal_no))``."""
    return sha256(LOG_TAG + lp(text_bytes(table_id)) + be32(deal_no))


def chain_step(previous: bytes, event_bytes: bytes) -> bytes:
    """``h_k = H(0x01 || h_(k-1) || H(0x00 || event_bytes_k))``."""
    return sha256(b"\x01" + previous + sha256(b"\x00" + event_bytes))


def chain_head(table_id: str, deal_no: int, events: Iterable[bytes]) -> bytes:
    """``h_last`` over the exact bytes of every public event, in order."""
    head = chain_start(table_id, deal_no)
    for event_bytes in events:
        head = chain_step(head, event_bytes)
    return head


def record_message(table_id: str, deal_no: int, head: bytes) -> bytes:
    """What the host signs: ``"…/record" || lp(table_id) || be32(deal_no) || h_last``."""
    return RECORD_TAG + lp(text_bytes(table_id)) + be32(deal_no) + head
