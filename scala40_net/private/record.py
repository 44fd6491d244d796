"""A private deal's record checked offline: the host's signature, the seats' audit, the replay.

A private table's deal record (FAIR_DEAL.md "Record file", with ``private_deal``) holds the
signed chain of public events, whose announcement carries every seat's signing key, and
the transcript of the seats' messages. ``verify_private_record`` checks the host's
signature over the chain, runs ``audit.audit_deal`` over the transcript (every signature,
chain, proof and share; every per-deal key revealed), checks that every draw from the stock
named the stock's next place (``check_draw_places``), and replays the deal through the
engine on the cards the audit opens (``fairdeal.replay.replay_cards``).
"""

from __future__ import annotations

from collections.abc import Sequence

from scala40_net.fairdeal.identity import fingerprint, verify_record_signature
from scala40_net.fairdeal.record import DealRecord, parse_deal_event
from scala40_net.fairdeal.replay import replay_cards
from scala40_net.fairdeal.verify import VerificationFailed
from scala40_net.pb import deal_pb2
from scala40_net.private.audit import audit_deal
from scala40_net.private.chain import FaultFound, FaultKind
from scala40_net.private.protocol import DealSetup

#: The reason a private deal is void for a seat gone (R10.3): its cards cannot be opened.
GONE_RULE = "R10.3"


def setup_of(announced: deal_pb2.DealEvent) -> tuple[DealSetup, dict[int, bytes]]:
    """The deal's setup and every seat's signing key, from its signed announcement."""
    a = announced.announced
    setup = DealSetup(
        announced.table_id, announced.deal_no, tuple(a.seats_in_play), a.dealer_seat,
        a.deck_size,
    )
    return setup, {k.seat: bytes(k.key) for k in a.private_setup.signing_keys}


def check_draw_places(setup: DealSetup, events: Sequence[deal_pb2.DealEvent]) -> None:
    """Each draw from the stock names the stock's next place, the one whose card the replay
    draws: the dealt deck's stock positions in order (R2.3), then each rebuilt stock's
    (R10.1) from its first. Another place would open another card to the drawer than the
    one the rules gave it (VerificationFailed names the event)."""
    round_, drawn = 0, 0
    stock = setup.positions.stock
    for index, event in enumerate(events):
        kind = event.WhichOneof("event")
        if kind == "stock_rebuilt":
            round_, drawn = round_ + 1, 0
            continue
        if kind != "drawn" or event.drawn.source != deal_pb2.DRAW_SOURCE_STOCK:
            continue
        if round_ == 0 and drawn >= len(stock):
            raise VerificationFailed("draw", index, kind, "a draw from a stock already drawn out")
        expected = (round_, stock[drawn] if round_ == 0 else drawn)
        drawn += 1
        if not event.drawn.HasField("position"):
            raise VerificationFailed("draw", index, kind, "a draw from the stock names no place")
        named = (event.drawn.position.round, event.drawn.position.position)
        if named != expected:
            raise VerificationFailed(
                "draw", index, kind,
                f"seat {event.drawn.seat} was given position {named[1]} of deck {named[0]}; "
                f"the stock's next is position {expected[1]} of deck {expected[0]}",
            )


def verify_private_record(record: DealRecord, host_fingerprint: str | None = None) -> str:
    """The one-line summary of a checked private deal; VerificationFailed names what failed."""
    actual = fingerprint(record.host_public_key) if len(record.host_public_key) == 32 else "?"
    if host_fingerprint is not None and actual != host_fingerprint.upper():
        raise VerificationFailed(
            "signature", None, None,
            f"signed by host {actual}, but the host you know is {host_fingerprint}",
        )
    if not verify_record_signature(
        record.host_public_key, record.table_id, record.deal_no, record.chain_head,
        record.signature,
    ):
        raise VerificationFailed(
            "signature", None, None, "the host's signature does not match the chain of events"
        )
    try:
        events = [parse_deal_event(e) for e in record.events]
    except ValueError as error:
        raise VerificationFailed("chain", None, None, str(error)) from error
    if not events or events[0].WhichOneof("event") != "announced":
        raise VerificationFailed("chain", 0, None, "the deal does not start with its setup")
    if not events[0].announced.HasField("private_setup"):
        raise VerificationFailed("private", 0, "announced", "the deal is not a private deal")
    setup, keys = setup_of(events[0])
    ended = [e.ended for e in events if e.WhichOneof("event") == "ended"]
    gone = bool(ended) and ended[0].void_reason.startswith(GONE_RULE)
    try:
        audit = audit_deal(setup, keys, record.private_transcript)
    except FaultFound as found:
        if gone and found.fault.kind is FaultKind.MISSING:
            return (
                f"verified: table {record.table_id} deal {record.deal_no}, private, void "
                f"({ended[0].void_reason}); its messages check, its cards are not opened"
            )
        false_shuffle = f"{GONE_RULE}: {found.fault.culprit}'s shuffle proof does not hold"
        if gone and ended[0].void_reason.startswith(false_shuffle):
            # The host relays a shuffle before its own check of the proof, and voids the deal
            # when it fails (docs/PRIVATE_TABLES.md "What the host checks"): the audit finds
            # the same shuffle false, and nothing after it was needed.
            return (
                f"verified: table {record.table_id} deal {record.deal_no}, private, void "
                f"({ended[0].void_reason}); the audit finds that shuffle false too, its cards "
                "are not opened"
            )
        raise VerificationFailed(
            "private", None, None,
            f"{found.fault.culprit}: {found.fault.kind}: {found.fault.detail}",
        ) from found
    check_draw_places(setup, events)
    stocks = audit.rebuilt_stocks

    def rebuilt(r: int, pile: Sequence[int]) -> Sequence[int]:
        if r > len(stocks):
            raise VerificationFailed("rebuild", None, None, f"rebuild {r} was never shuffled")
        return stocks[r - 1]

    replay = replay_cards(record, events, audit.deck, rebuilt)
    outcome = deal_pb2.DealOutcome.Name(ended[0].outcome) if ended else "not ended"
    return (
        f"verified: table {record.table_id} deal {record.deal_no}, private, "
        f"{len(setup.seats)} seats, table code {audit.table_code}, "
        f"{len(record.private_transcript)} messages, {len(audit.opened)} cards opened in play, "
        f"{len(stocks)} stock rebuilds, "
        f"{outcome.removeprefix('DEAL_OUTCOME_').lower()}, replay {replay}"
    )
