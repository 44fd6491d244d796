"""A seat's participant in a private deal: everything it owes sent without its player."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from scala40_net.private.audit import audit_deal
from scala40_net.private.chain import HOST, Fault, FaultKind
from scala40_net.private.messages import Ed25519Signer, Envelope, Kind
from scala40_net.private.protocol import DealSetup
from scala40_net.seat.private import (
    PrivateParticipant,
    deal_folder,
    fault_sentence,
    key_path,
    read_sent,
    sent_path,
    waiting_sentence,
)

#: ``relay(author, recipient, message)``: what the recipient is handed.
Relay = Callable[[int, int, bytes], list[bytes]]


def honest(author: int, recipient: int, message: bytes) -> list[bytes]:
    return [message]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Table:
    """Participants only, and a relay: what a host does, without a host."""

    def __init__(
        self,
        tmp_path: Path,
        seats: tuple[int, ...] = (0, 1, 2, 3),
        dealer: int = 1,
        deck_size: int = 108,
        relay: Relay = honest,
    ) -> None:
        self.setup = DealSetup("private-participant", 1, seats, dealer, deck_size)
        self.signers = {s: Ed25519Signer.from_seed(bytes([s + 40]) * 32) for s in seats}
        self.keys = {s: self.signers[s].public_key() for s in seats}
        self.tmp_path = tmp_path
        self.clock = Clock()
        self.relay = relay
        self.transcript: list[bytes] = []
        self.views: dict[int, list[bytes]] = {s: [] for s in seats}
        self.faults: dict[int, list[Fault]] = {s: [] for s in seats}
        self.seats: dict[int, PrivateParticipant] = {}
        self.stock = 0  # the next stock position of round 0
        for seat in seats:
            self.seats[seat] = PrivateParticipant.fresh(
                self.setup, seat, self.signers[seat], self.keys, self.folder(seat), clock=self.clock
            )

    def folder(self, seat: int) -> Path:
        return deal_folder(self.tmp_path / f"seat{seat}", self.setup.table_id)

    def post(self, author: int, messages: list[bytes]) -> None:
        """Each message into the transcript and to every other seat; what they send back
        in answer goes out in its turn, until nobody owes anything."""
        queue = [(author, m) for m in messages]
        while queue:
            who, message = queue.pop(0)
            self.transcript.append(message)
            self.views[who].append(message)
            for seat, participant in self.seats.items():
                if seat == who:
                    continue
                for delivered in self.relay(who, seat, message):
                    self.views[seat].append(delivered)
                    step = participant.receive(delivered)
                    if step.fault is not None:
                        self.faults[seat].append(step.fault)
                    queue += [(seat, m) for m in step.sends]

    def start(self) -> None:
        for seat, participant in self.seats.items():
            self.post(seat, participant.start())

    def draw(self, drawer: int) -> None:
        position = self.setup.positions.stock[self.stock]
        self.stock += 1
        for seat, participant in self.seats.items():
            self.post(seat, participant.drawn(drawer, 0, position))

    def end(self) -> None:
        for seat, participant in self.seats.items():
            self.post(seat, participant.deal_over())


def test_a_whole_deal_is_played_by_the_participants_alone(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.start()
    setup = table.setup
    # Keys, four shuffles in R2.3's order, the cut (R2.2), every hand and the first discard:
    # all sent by the participants, nobody asked.
    for seat, participant in table.seats.items():
        assert len(participant.hand()) == 13, seat
        assert participant.unread() == []
        assert participant.waiting_on() == []
    first = table.seats[0].opened(0, setup.positions.first_discard)
    assert first is not None
    table.draw(2)
    assert len(table.seats[2].hand()) == 14
    table.end()
    audit = audit_deal(setup, table.keys, table.transcript)
    for seat, participant in table.seats.items():
        assert sorted(participant.hand()) == sorted(
            audit.dealt.hands[seat] + ([audit.dealt.stock[0]] if seat == 2 else [])
        )
    assert audit.dealt.first_discard == first
    assert all(not faults for faults in table.faults.values())
    codes = {p.table_code for p in table.seats.values()}
    assert codes == {audit.table_code}


def test_the_per_deal_key_is_on_disk_owner_only_before_the_key_is_sent(tmp_path: Path) -> None:
    table = Table(tmp_path, seats=(0, 1), dealer=0, deck_size=54)
    participant = table.seats[0]
    path = key_path(table.folder(0), 1)
    assert not path.exists()
    sent = participant.start()
    assert Envelope.parse(sent[0]).kind == Kind.KEY
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert os.stat(path.parent).st_mode & 0o077 == 0
    assert read_sent(sent_path(table.folder(0), 1)) == sent
    # Before ``start`` a participant sends nothing, whatever it is handed.
    other = table.seats[1]
    assert other.receive(sent[0]).sends == []


def test_a_play_names_the_hands_cards_by_position_and_opens_them(tmp_path: Path) -> None:
    table = Table(tmp_path, seats=(0, 1, 2), dealer=0, deck_size=54)
    table.start()
    mine = table.seats[1]
    hand = mine.hand()
    played = hand[:3]
    places = mine.positions_of(played)
    assert all(p is not None and p[0] == 0 for p in places)
    assert [mine.held[p] for p in places if p is not None] == played
    table.post(1, mine.open_message(places))
    for other in (0, 2):
        assert [table.seats[other].opened(*p) for p in places if p is not None] == played
    assert mine.open_message(places) == []  # opened once
    mine.played(played)
    assert len(mine.hand()) == 10
    mine.took_public(played[0])
    assert mine.positions_of([played[0]]) == [None]
    with pytest.raises(KeyError):
        mine.positions_of([played[1]])


def test_a_seat_that_waits_on_a_withheld_share_sends_heads_and_the_host_is_named(
    tmp_path: Path,
) -> None:
    withheld: list[bytes] = []

    def withholding(author: int, recipient: int, message: bytes) -> list[bytes]:
        env = Envelope.parse(message)
        # Seat 2's shares of seat 0's draw, kept from seat 0.
        if author == 2 and recipient == 0 and env.kind == Kind.SHARES and table.stock:
            withheld.append(message)
            return []
        return [message]

    table = Table(tmp_path, seats=(0, 1, 2), dealer=0, deck_size=54, relay=withholding)
    table.start()
    table.draw(0)
    waiting = table.seats[0]
    assert withheld and waiting.waiting_on() == [2]
    assert waiting.tick() == []  # not yet: it has not waited long
    table.clock.now += 3.5
    heads = waiting.tick()
    assert [Envelope.parse(m).kind for m in heads] == [Kind.HEADS]
    assert waiting.tick() == []  # one a wait
    table.post(0, heads)
    # Seat 2 answers with its own HEADS, whose place in its chain shows the share withheld
    # (and seat 1's answer, which had seen it, too).
    found = {(f.culprit, f.kind) for f in table.faults[0]}
    assert found == {(HOST, FaultKind.MISSING)}
    assert fault_sentence(table.faults[0][0], "en") == (
        "Private table: the host withheld a message, or relayed it out of order."
    )
    assert waiting_sentence([2], "en") == (
        "Private table: waiting for seat 2 or the host: a message due has not come."
    )
    assert "il posto 2 o l'host" in waiting_sentence([2], "it")


def test_two_heads_never_answer_each_other(tmp_path: Path) -> None:
    table = Table(tmp_path, seats=(0, 1, 2), dealer=0, deck_size=54)
    table.start()
    before = len(table.transcript)
    table.post(0, [table.seats[0].private.heads_message()])
    kinds = [Envelope.parse(m).kind for m in table.transcript[before:]]
    assert kinds == [Kind.HEADS] * 3  # the ask and one answer from each other seat


def test_a_rebuilt_stock_is_shuffled_by_every_seat_again_and_drawn_from(tmp_path: Path) -> None:
    table = Table(tmp_path, seats=(0, 1, 2), dealer=0, deck_size=54)
    table.start()
    # Some cards laid in public: the discards a rebuild starts from (R10.1).
    places = table.seats[1].positions_of(table.seats[1].hand()[:4])
    table.post(1, table.seats[1].open_message(places))
    discards = [table.seats[0].opened(*p) for p in places if p is not None]
    for seat, participant in table.seats.items():
        table.post(seat, participant.rebuilt([c for c in discards if c is not None]))
    ledger = table.seats[2].private.ledger
    assert ledger.round == 1 and ledger.phase.value == "playing"
    for seat, participant in table.seats.items():
        table.post(seat, participant.drawn(2, 1, 0))
    assert table.seats[2].held[(1, 0)] in discards
    table.end()
    audit = audit_deal(table.setup, table.keys, table.transcript)
    assert sorted(audit.rebuilt_stocks[0]) == sorted(c for c in discards if c is not None)
    assert all(not faults for faults in table.faults.values())


def test_a_seat_restarted_mid_deal_resumes_from_its_key_and_sends_nothing_twice(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path, seats=(0, 1, 2), dealer=0, deck_size=54)
    table.start()
    table.draw(1)
    hand = sorted(table.seats[2].hand())
    # Seat 2's process dies; back, it has its folder and what the host hands it again.
    taken_in = list(table.views[2])
    del table.seats[2]
    back, sends = PrivateParticipant.resumed(
        table.setup, 2, table.signers[2], table.keys, table.folder(2), taken_in, clock=table.clock
    )
    assert sends == []
    assert sorted(back.hand()) == hand
    table.seats[2] = back
    back.drawn(1, 0, table.setup.positions.stock[0])  # the deal's draws, told again
    table.draw(2)
    assert len(back.hand()) == 14
    table.end()
    audit_deal(table.setup, table.keys, table.transcript)
    assert all(not faults for faults in table.faults.values())


def test_a_message_made_but_never_relayed_is_sent_again_unchanged_after_a_restart(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path, seats=(0, 1, 2), dealer=0, deck_size=54)
    table.start()
    position = table.setup.positions.stock[0]
    lost = table.seats[2].drawn(1, 0, position)  # made and kept, then the process died
    assert [Envelope.parse(m).kind for m in lost] == [Kind.SHARES]
    taken_in = list(table.views[2])
    del table.seats[2]
    back, sends = PrivateParticipant.resumed(
        table.setup, 2, table.signers[2], table.keys, table.folder(2), taken_in, clock=table.clock
    )
    assert sends == lost  # the same bytes: no second message at that place of its chain
    back.drawn(1, 0, position)
    table.seats[2] = back
    table.post(2, sends)
    table.post(0, table.seats[0].drawn(1, 0, position))
    table.post(1, table.seats[1].drawn(1, 0, position))
    table.stock = 1
    assert len(table.seats[1].hand()) == 14
    assert all(not faults for faults in table.faults.values())


def test_a_bad_shuffle_is_named_and_the_seat_after_it_does_not_shuffle(tmp_path: Path) -> None:
    def tampering(author: int, recipient: int, message: bytes) -> list[bytes]:
        env = Envelope.parse(message)
        if env.kind == Kind.SHUFFLE and author == table.setup.shuffle_order[0]:
            return [message[:200] + bytes([message[200] ^ 1]) + message[201:]]
        return [message]

    table = Table(tmp_path, seats=(0, 1, 2), dealer=0, deck_size=54, relay=tampering)
    table.start()
    nxt = table.setup.shuffle_order[1]
    assert [(f.culprit, f.kind) for f in table.faults[nxt]] == [(HOST, FaultKind.ALTERED)]
    assert table.seats[nxt].private.ledger.shuffles == 0
    assert "l'host" in fault_sentence(table.faults[nxt][0], "it")


def test_a_deal_over_while_its_stock_is_rebuilt_is_revealed_and_nothing_more_is_shuffled(
    tmp_path: Path,
) -> None:
    # A player went out with the discard it took while the rebuilt stock was shuffled
    # (R10.1): the seat that had shuffled it first revealed nothing, and the next seats went
    # on shuffling a stock nobody would draw from.
    table = Table(tmp_path, seats=(0, 1, 2), dealer=0, deck_size=54)
    table.start()
    places = table.seats[1].positions_of(table.seats[1].hand()[:4])
    table.post(1, table.seats[1].open_message(places))
    discards = [c for p in places if p is not None and (c := table.seats[0].opened(*p))]
    first = table.setup.shuffle_order[0]
    shuffled = {seat: p.rebuilt(discards) for seat, p in table.seats.items()}
    assert [Envelope.parse(m).kind for m in shuffled[first]] == [Kind.SHUFFLE]
    reveals = {seat: p.deal_over() for seat, p in table.seats.items()}
    for seat, sends in reveals.items():
        assert [Envelope.parse(m).kind for m in sends] == [Kind.REVEAL], seat
    for seat, sends in shuffled.items():  # relayed after the end: nobody shuffles after it
        table.post(seat, sends)
    assert [Envelope.parse(m).kind for m in table.transcript[-1:]] == [Kind.SHUFFLE]
    for seat, sends in reveals.items():
        table.post(seat, sends)
    assert [Envelope.parse(m).kind for m in table.transcript[-4:]] == [
        Kind.SHUFFLE, Kind.REVEAL, Kind.REVEAL, Kind.REVEAL
    ]
    audit = audit_deal(table.setup, table.keys, table.transcript)
    assert sorted(audit.rebuilt_stocks[0]) == sorted(discards)
    assert all(not faults for faults in table.faults.values())
