"""Checking the relayed messages: each seat's chain, and that every seat saw the same chains.

A ``ChainChecker`` takes the envelopes in the order the relay delivered them and refuses,
naming who is at fault (``Fault``): bytes that do not read or a signature that fails (the
relay altered it), a message of another table or deal or one already delivered (the relay
replayed it), one that skips its author's next message (the relay withheld or reordered),
two signed messages of one author at one place of its chain (the author equivocated), and
an author's ``seen`` heads that disagree with this checker's (the relay showed seats
different messages), or name messages never delivered here (the relay withheld them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from scala40_net.private.encoding import EncodingError
from scala40_net.private.messages import Envelope, Head, genesis, signature_holds

HOST = "host"


class FaultKind(StrEnum):
    ALTERED = "altered"  # does not read, or its signature fails
    FOREIGN = "foreign"  # another table's or another deal's message
    REPLAYED = "replayed"  # delivered before
    MISSING = "missing"  # withheld, or delivered out of order
    EQUIVOCATED = "equivocated"  # two signed messages at one place of a seat's chain
    DIVERGED = "diverged"  # seats were shown different messages
    INVALID = "invalid"  # well signed, but its content breaks the protocol (a bad proof …)


def seat_name(seat: int) -> str:
    return f"seat {seat}"


@dataclass(frozen=True)
class Fault:
    """Who is at fault (``host`` or ``seat N``), what kind of fault, and a sentence."""

    culprit: str
    kind: FaultKind
    detail: str


class FaultFound(Exception):
    """A message the checker refuses; ``fault`` names who is to blame."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(f"{fault.culprit}: {fault.kind}: {fault.detail}")
        self.fault = fault


def blame(culprit: str, kind: FaultKind, detail: str) -> FaultFound:
    return FaultFound(Fault(culprit, kind, detail))


@dataclass
class ChainChecker:
    """One reader's record of every seat's chain of one deal (``me``: the reading seat)."""

    table_id: str
    deal_no: int
    keys: Mapping[int, bytes]
    #: The digest of the deal's setup as this reader was shown it (``DealSetup.digest``):
    #: every chain starts from it.
    setup: bytes
    me: int | None = None
    chains: dict[int, list[Envelope]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for seat in self.keys:
            self.chains.setdefault(seat, [])

    def heads(self, excluding: int | None = None) -> tuple[Head, ...]:
        """Every other seat's head as held here: what a message written now has seen."""
        return tuple(
            Head(seat, len(chain), chain[-1].digest if chain else genesis_of(self, seat))
            for seat, chain in sorted(self.chains.items())
            if seat != excluding
        )

    def next_place(self, seat: int) -> tuple[int, bytes]:
        """``(seq, prev)`` of ``seat``'s next message."""
        chain = self.chains[seat]
        return len(chain), chain[-1].digest if chain else genesis_of(self, seat)

    def record_own(self, envelope: Envelope) -> None:
        """A message this seat wrote, kept as its own chain (it is not relayed back)."""
        self.chains[envelope.author].append(envelope)

    def accept(self, data: bytes) -> Envelope:
        """Check one relayed envelope and keep it; FaultFound names whoever broke the chain."""
        try:
            env = Envelope.parse(data)
        except EncodingError as exc:
            raise blame(HOST, FaultKind.ALTERED, f"a relayed message does not read: {exc}") from exc
        key = self.keys.get(env.author)
        if key is None:
            # Of this table and deal, but for no seat of it: nobody here signed it, so the
            # relay made or changed it; of another table or deal, the relay brought it in.
            ours = (env.table_id, env.deal_no) == (self.table_id, self.deal_no)
            raise blame(HOST, FaultKind.ALTERED if ours else FaultKind.FOREIGN,
                        f"a message signed for seat {env.author}, which does not sit at "
                        "this deal")
        if not signature_holds(key, env.signed_part(), env.signature):
            raise blame(HOST, FaultKind.ALTERED,
                        f"{seat_name(env.author)}'s message {env.seq} fails its signature")
        if env.table_id != self.table_id or env.deal_no != self.deal_no:
            raise blame(HOST, FaultKind.FOREIGN, f"{seat_name(env.author)}'s message of "
                        f"table {env.table_id!r} deal {env.deal_no} relayed into this deal")
        if env.author == self.me:
            raise blame(HOST, FaultKind.REPLAYED, f"this seat's own message {env.seq} relayed "
                        "back to it")
        chain = self.chains[env.author]
        if env.seq < len(chain):
            held = chain[env.seq]
            if held.digest == env.digest:
                raise blame(HOST, FaultKind.REPLAYED,
                            f"{seat_name(env.author)}'s message {env.seq} delivered again")
            raise blame(seat_name(env.author), FaultKind.EQUIVOCATED,
                        f"{seat_name(env.author)} signed two different messages {env.seq}")
        if env.seq > len(chain):
            raise blame(HOST, FaultKind.MISSING, f"{seat_name(env.author)}'s message {env.seq} "
                        f"came before its message {len(chain)} (withheld or reordered)")
        if not chain and env.prev != genesis_of(self, env.author):
            # Its author started from another setup of the deal: the host announced the deal
            # to it otherwise than to this seat, or relayed a message it should have refused
            # (the host itself, reading what the seat sent it, names the seat instead:
            # host.table.private_deal).
            raise blame(HOST, FaultKind.DIVERGED, f"{seat_name(env.author)} was shown another "
                        "setup of this deal (dealer, deck, seats or keys) than this seat was")
        if env.prev != (chain[-1].digest if chain else genesis_of(self, env.author)):
            raise blame(seat_name(env.author), FaultKind.EQUIVOCATED,
                        f"{seat_name(env.author)}'s message {env.seq} follows another message "
                        f"{env.seq - 1} than the one it signed before")
        self._check_seen(env)
        chain.append(env)
        return env

    def _check_seen(self, env: Envelope) -> None:
        for head in env.seen:
            if head.seat == env.author or head.seat not in self.chains:
                raise blame(seat_name(env.author), FaultKind.INVALID,
                            f"{seat_name(env.author)}'s message {env.seq} names a seat head "
                            f"it may not ({head.seat})")
            held = self.chains[head.seat]
            if head.count > len(held):
                raise blame(HOST, FaultKind.MISSING, f"{seat_name(env.author)} had seen "
                            f"{head.count} messages of {seat_name(head.seat)}, this seat only "
                            f"{len(held)}: the host withheld them")
            mine = held[head.count - 1].digest if head.count else genesis_of(self, head.seat)
            if mine != head.digest:
                whose = "this seat's own" if head.seat == self.me else f"{seat_name(head.seat)}'s"
                raise blame(HOST, FaultKind.DIVERGED, f"{seat_name(env.author)} was shown "
                            f"another {whose} message {head.count - 1} than this seat was")


def genesis_of(checker: ChainChecker, seat: int) -> bytes:
    return genesis(checker.setup, seat)


def who_equivocated(
    views: Mapping[int, list[bytes]], keys: Mapping[int, bytes]
) -> str | None:
    """From every seat's record of what it was relayed: the seat that signed two messages at
    one place of its chain (it is then to blame, not the relay), or None."""
    found: dict[tuple[int, int], bytes] = {}
    for received in views.values():
        for data in received:
            try:
                env = Envelope.parse(data)
            except EncodingError:
                continue
            key = keys.get(env.author)
            if key is None or not signature_holds(key, env.signed_part(), env.signature):
                continue
            place = (env.author, env.seq)
            if place in found and found[place] != env.digest:
                return seat_name(env.author)
            found.setdefault(place, env.digest)
    return None
