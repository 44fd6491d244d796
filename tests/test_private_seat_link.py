"""A seat's private deals over its link: fed the table's events, sending by SendPrivate."""

from __future__ import annotations

import asyncio
from pathlib import Path

from conftest import until

from scala40_net.pb import deal_pb2, table_pb2
from scala40_net.private.audit import audit_deal
from scala40_net.private.chain import Fault
from scala40_net.private.messages import Ed25519Signer, Envelope, Kind
from scala40_net.private.protocol import DealSetup
from scala40_net.seat.private_link import PrivateDeals

TABLE = "private-link"


class Relay:
    """What the host does with private messages: a transcript in its order, each message
    relayed to every other seat, in that order, as the seat's stream would."""

    def __init__(self) -> None:
        self.transcript: list[bytes] = []
        self.inboxes: dict[int, asyncio.Queue[table_pb2.PrivateMessage | deal_pb2.DealEvent]] = {}
        self.seats: dict[int, PrivateDeals] = {}
        self.readers: list[asyncio.Task[None]] = []
        self.lost: set[int] = set()  # seats whose messages the host never gets (a dead seat)

    def sender(self, seat: int):  # type: ignore[no-untyped-def]
        async def send(request: table_pb2.SendPrivateRequest) -> table_pb2.SendPrivateResponse:
            if seat in self.lost:
                return table_pb2.SendPrivateResponse(transcript_seq=0)
            data = bytes(request.envelope)
            if data in self.transcript:  # sent again: answered as the first time
                return table_pb2.SendPrivateResponse(transcript_seq=self.transcript.index(data))
            place = len(self.transcript)
            self.transcript.append(data)
            message = table_pb2.PrivateMessage(envelope=data, seq=place, deal_no=1)
            for other, inbox in self.inboxes.items():
                if other != seat:
                    inbox.put_nowait(message)
            return table_pb2.SendPrivateResponse(transcript_seq=place)

        return send

    def sit(self, seat: int, deals: PrivateDeals) -> None:
        self.seats[seat] = deals
        inbox = self.inboxes[seat] = asyncio.Queue()

        async def read() -> None:
            while True:
                item = await inbox.get()
                if isinstance(item, table_pb2.PrivateMessage):
                    await deals.on_private_message(item)
                else:
                    await deals.on_deal_event(item)

        self.readers.append(asyncio.create_task(read()))

    def publish(self, event: deal_pb2.DealEvent) -> None:
        for inbox in self.inboxes.values():
            inbox.put_nowait(event)

    async def quiet(self) -> None:
        """Until every inbox is empty and stays so."""
        for _ in range(3):
            while any(not q.empty() for q in self.inboxes.values()):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)

    def stop(self) -> None:
        for task in self.readers:
            task.cancel()
        for deals in self.seats.values():
            deals.close()


def announced(setup: DealSetup, keys: dict[int, bytes]) -> deal_pb2.DealEvent:
    event = deal_pb2.DealEvent(deal_no=setup.deal_no)
    event.announced.dealer_seat = setup.dealer
    event.announced.seats_in_play.extend(setup.seats)
    event.announced.deck_size = setup.deck_size
    for seat in sorted(keys):
        event.announced.private_setup.signing_keys.add(seat=seat, key=keys[seat])
    return event


def drawn(setup: DealSetup, seat: int, position: int) -> deal_pb2.DealEvent:
    event = deal_pb2.DealEvent(deal_no=setup.deal_no)
    event.drawn.seat = seat
    event.drawn.source = deal_pb2.DRAW_SOURCE_STOCK
    event.drawn.position.round = 0
    event.drawn.position.position = position
    return event


def three(tmp_path: Path) -> tuple[DealSetup, dict[int, Ed25519Signer], dict[int, bytes]]:
    setup = DealSetup(TABLE, 1, (0, 1, 2), dealer=2, deck_size=54)
    signers = {s: Ed25519Signer.from_seed(bytes([s + 90]) * 32) for s in setup.seats}
    return setup, signers, {s: signers[s].public_key() for s in setup.seats}


async def play_a_deal(tmp_path: Path) -> None:
    setup, signers, keys = three(tmp_path)
    relay = Relay()
    faults: list[Fault] = []
    for seat in setup.seats:
        relay.sit(
            seat,
            PrivateDeals(
                TABLE,
                seat,
                signers[seat],
                relay.sender(seat),
                tmp_path / f"seat{seat}",
                on_fault=faults.append,
            ),
        )
    try:
        relay.publish(announced(setup, keys))
        hands = {}
        for seat, deals in relay.seats.items():
            await until(lambda d=deals: d.current is not None, 30)  # type: ignore[misc]
            hand = await deals.hand(wait=60)
            assert hand is not None and len(hand) == 13
            hands[seat] = hand
        codes = {deals.table_code for deals in relay.seats.values()}
        assert len(codes) == 1 and None not in codes
        # A draw from the stock: the others' shares go to the drawer at once.
        relay.publish(drawn(setup, 1, setup.positions.stock[0]))
        await relay.quiet()
        assert relay.seats[1].current is not None
        await until(lambda: len(relay.seats[1].current.hand()) == 14, 30)  # type: ignore[union-attr]
        # A play: its cards named by position, the owner's shares to everyone sent first.
        card = hands[0][0]
        positions = await relay.seats[0].open_for_play([card])
        assert [(p.round, p.position) for p in positions] == [(0, setup.positions.hands[0][0])]
        await relay.quiet()
        opened = relay.seats[2].current.opened(0, setup.positions.hands[0][0])  # type: ignore[union-attr]
        assert opened == card
        # The deal ends: every seat reveals, and the transcript audits.
        for deals in relay.seats.values():
            await deals.on_reveal_due(table_pb2.PrivateRevealDue(deal_no=1))
        await relay.quiet()
        audit = audit_deal(setup, keys, relay.transcript)
        assert sorted(audit.dealt.hands[2]) == sorted(hands[2])
        assert faults == []
        # Ended: nothing resumes the deal, so its key and messages are not kept on disk.
        for seat in setup.seats:
            assert kept(tmp_path / f"seat{seat}") == ["1.key", "1.sent"]
        relay.publish(ended(setup))
        await relay.quiet()
        for seat in setup.seats:
            assert kept(tmp_path / f"seat{seat}") == []
    finally:
        relay.stop()


def kept(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def ended(setup: DealSetup) -> deal_pb2.DealEvent:
    event = deal_pb2.DealEvent(deal_no=setup.deal_no)
    event.ended.outcome = deal_pb2.DEAL_OUTCOME_WENT_OUT
    return event


def test_seats_play_a_private_deal_over_their_links(tmp_path: Path) -> None:
    asyncio.run(play_a_deal(tmp_path))


async def resume_a_seat(tmp_path: Path) -> None:
    setup, signers, keys = three(tmp_path)
    relay = Relay()
    for seat in setup.seats:
        relay.sit(
            seat,
            PrivateDeals(TABLE, seat, signers[seat], relay.sender(seat), tmp_path / f"seat{seat}"),
        )
    try:
        relay.publish(announced(setup, keys))
        await until(lambda: relay.seats[2].current is not None, 30)
        hand = await relay.seats[2].hand(wait=60)
        await relay.quiet()
        # Seat 2's process dies; seat 0 then draws, and seat 2's share is owed to it.
        relay.lost.add(2)
        relay.seats[2].close()
        relay.readers[2].cancel()
        del relay.inboxes[2]
        relay.publish(drawn(setup, 0, setup.positions.stock[0]))
        await relay.quiet()
        assert relay.seats[0].current is not None
        assert relay.seats[0].current.unread() == [(0, setup.positions.stock[0])]
        # Back: its key from disk, the deal from the view's transcript and events.
        relay.lost.discard(2)
        back = PrivateDeals(TABLE, 2, signers[2], relay.sender(2), tmp_path / "seat2")
        relay.sit(2, back)
        view = table_pb2.TableView(deal_no=1, phase=table_pb2.TURN_PHASE_DRAW)
        view.deal_events.append(announced(setup, keys).SerializeToString())
        view.deal_events.append(drawn(setup, 0, setup.positions.stock[0]).SerializeToString())
        view.private_transcript.extend(relay.transcript)
        view.my_positions.extend(
            deal_pb2.PrivatePosition(round=0, position=p) for p in setup.positions.hands[2]
        )
        await back.on_view(view)
        assert back.current is not None and sorted(back.current.hand()) == sorted(hand or [])
        await relay.quiet()
        await until(lambda: relay.seats[0].current.unread() == [], 30)  # type: ignore[union-attr]
        kinds = [Envelope.parse(m).kind for m in relay.transcript if Envelope.parse(m).author == 2]
        assert kinds.count(Kind.KEY) == 1 and kinds.count(Kind.SHUFFLE) == 1
    finally:
        relay.stop()


def test_a_seat_back_from_a_restart_takes_up_its_deal_from_the_view(tmp_path: Path) -> None:
    asyncio.run(resume_a_seat(tmp_path))


async def forget_a_deal_missed(tmp_path: Path) -> None:
    setup, signers, keys = three(tmp_path)
    folder = tmp_path / "seat0"
    folder.mkdir(mode=0o700)
    # A seat that was away when deal 1 ended; its signing key and a file not a deal's stay.
    for name in ("1.key", "1.sent", "signing.key", "notes.txt"):
        (folder / name).write_bytes(b"x")
    relay = Relay()
    for seat in setup.seats:
        relay.sit(seat, PrivateDeals(TABLE, seat, signers[seat], relay.sender(seat),
                                     tmp_path / f"seat{seat}"))  # fmt: skip
    try:
        second = DealSetup(TABLE, 2, setup.seats, dealer=0, deck_size=54)
        relay.publish(announced(second, keys))
        await until(lambda: relay.seats[0].current is not None, 30)
        await until(lambda: "2.key" in kept(folder), 30)
        assert kept(folder) == ["2.key", "2.sent", "notes.txt", "signing.key"]
    finally:
        relay.stop()


def test_a_deal_ended_while_the_seat_was_away_is_forgotten_at_the_next(tmp_path: Path) -> None:
    """Its key and messages go when the next deal is announced; other files stay."""
    asyncio.run(forget_a_deal_missed(tmp_path))
