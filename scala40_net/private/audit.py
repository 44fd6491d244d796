"""The offline audit of a private deal: every signature, chain, proof and share; then its cards.

Given the deal's setup, every seat's signing key and the whole relayed transcript (every
envelope, in the host's order, the per-deal keys revealed at its end), ``audit_deal``
checks it as a seat would have and, with every per-deal key, opens every position: the
cut deck (hands, first discard and stock as the engine deals them) and each rebuilt stock,
for replay through the engine. A fault raises ``FaultFound`` naming whoever is to blame.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scala40_net.fairdeal.spec import DealtCards, deal_cards
from scala40_net.private.chain import (
    HOST,
    ChainChecker,
    FaultFound,
    FaultKind,
    blame,
    seat_name,
    who_equivocated,
)
from scala40_net.private.messages import Envelope, table_code
from scala40_net.private.protocol import DealLedger, DealSetup


@dataclass(frozen=True)
class DealAudit:
    """What a checked private deal dealt: the cut deck's cards, where they went, each rebuild."""

    deck: tuple[int, ...]
    dealt: DealtCards
    rebuilt_stocks: tuple[tuple[int, ...], ...]
    #: Every card opened during the deal (all shares but perhaps its owner's were sent):
    #: ``(round, position) -> card``.
    opened: dict[tuple[int, int], int]
    table_code: str


def audit_deal(
    setup: DealSetup, signing_keys: Mapping[int, bytes], transcript: Sequence[bytes]
) -> DealAudit:
    """Check the whole deal and open it (FaultFound names who broke it)."""
    checker = ChainChecker(
        setup.table_id, setup.deal_no, signing_keys, setup.digest(signing_keys)
    )
    ledger = DealLedger(setup)
    for data in transcript:
        ledger.apply(checker.accept(data))
    if not ledger.dealt:  # (a rebuilt stock's shuffles may stop at the deal's end, R10.1)
        raise blame(HOST, FaultKind.MISSING, f"the transcript stops in the {ledger.phase} step")
    unrevealed = [s for s in setup.seats if s not in ledger.secrets]
    if unrevealed:
        names = ", ".join(seat_name(s) for s in unrevealed)
        raise blame(seat_name(unrevealed[0]), FaultKind.MISSING,
                    f"no per-deal key revealed by {names}: the deal cannot be audited")
    decks = [
        tuple(ledger.open_card(r, p) for p in range(len(ledger.decks[r])))
        for r in range(len(ledger.decks))
    ]
    opened = {
        place: decks[place[0]][place[1]]
        for place, held in ledger.shares.items()
        if len(held) >= len(setup.seats) - 1
    }
    return DealAudit(
        deck=decks[0],
        dealt=deal_cards(decks[0], setup.dealer, setup.seats),
        rebuilt_stocks=tuple(decks[1:]),
        opened=opened,
        table_code=table_code(setup.table_id, dict(signing_keys)),
    )


def audit_views(
    setup: DealSetup, signing_keys: Mapping[int, bytes], views: Mapping[int, Sequence[bytes]]
) -> None:
    """Check what each seat was relayed, as that seat (FaultFound). A divergence found is the
    relay's unless some seat signed two messages at one place of its chain: then that seat's.
    A seat's view is every message it took in, its own among them, in its order."""
    for seat, received in sorted(views.items()):
        checker = ChainChecker(
            setup.table_id, setup.deal_no, signing_keys, setup.digest(signing_keys), me=seat
        )
        ledger = DealLedger(setup)
        for data in received:
            try:
                env = Envelope.parse(data)
                if env.author == seat:
                    checker.record_own(env)  # its own message, as it wrote it
                else:
                    env = checker.accept(data)
                ledger.apply(env, own=env.author == seat)
            except FaultFound as found:
                if found.fault.kind in (FaultKind.DIVERGED, FaultKind.INVALID,
                                        FaultKind.EQUIVOCATED):
                    signer = who_equivocated({s: list(v) for s, v in views.items()},
                                             signing_keys)
                    if signer is not None:
                        raise blame(signer, FaultKind.EQUIVOCATED, f"{signer} signed two "
                                    f"different messages at one place of its chain; "
                                    f"{seat_name(seat)} was shown one of them") from found
                raise
