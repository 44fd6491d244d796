"""A seat's private deals over its link: each deal's participant fed the table's events, and
what it says sent by ``TableService.SendPrivate`` (on the seat's stream while one is open).

``PrivateDeals`` is what a seat of a private table (the screen, ``scala40-bot``) holds
beside its fair-deal steps: at a deal's announcement with a ``private_setup`` it takes
up the seat's ``PrivateParticipant`` (resumed from its key on disk after a restart, from
the view's ``private_transcript``), hands it every ``private_message`` relayed, every draw
from the stock (``CardDrawn.position``), every rebuilt stock (R10.1, the discard pile but
its top as this seat followed it) and the deal's end, and sends each message it makes, in
order, each sent again unchanged while the host may not have had it. The participant's
work (a shuffle proof takes a tenth of a second) runs on a worker thread, one call at a
time, so the seat's event loop keeps reading its stream meanwhile.

A play names its hand's cards by position: ``open_for_play`` sends the seat's shares of
them to everyone first and returns the positions for ``PlayRequest.positions``.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from scala40_net.pb import deal_pb2, table_pb2
from scala40_net.private.chain import HOST, Fault, FaultKind
from scala40_net.private.group import scalar_bytes
from scala40_net.private.messages import Ed25519Signer, Signer
from scala40_net.private.protocol import DealSetup
from scala40_net.seat.link import resend
from scala40_net.seat.private import (
    HEADS_AFTER,
    PrivateParticipant,
    forget_deals,
    random_cut,
)
from scala40_net.seat.refusal import HostRefusal
from scala40_net.secretfile import read_secret, write_secret

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How the seat's messages reach the host (``GrpcTable.send_private``).
Sender = Callable[[table_pb2.SendPrivateRequest], Awaitable[table_pb2.SendPrivateResponse]]

#: How long a move waits for its hand's cards to be read (the other seats' shares).
HAND_WAIT = 20.0


#: The phases of a deal in play (its messages still due, or its turns).
IN_PLAY = frozenset(
    {
        table_pb2.TURN_PHASE_PRIVATE_DEAL,
        table_pb2.TURN_PHASE_DRAW,
        table_pb2.TURN_PHASE_PLAY,
        table_pb2.TURN_PHASE_PRIVATE_REVEAL,
    }
)


def setup_of(table_id: str, event: deal_pb2.DealEvent) -> tuple[DealSetup, dict[int, bytes]]:
    """A private deal's setup and its seats' signing keys, from its announcement."""
    announced = event.announced
    setup = DealSetup(
        table_id,
        event.deal_no,
        tuple(sorted(announced.seats_in_play)),
        announced.dealer_seat,
        announced.deck_size,
    )
    keys = {k.seat: bytes(k.key) for k in announced.private_setup.signing_keys}
    return setup, keys


def is_private(event: deal_pb2.DealEvent) -> bool:
    return event.WhichOneof("event") == "announced" and event.announced.HasField("private_setup")


def position_pb(place: tuple[int, int]) -> deal_pb2.PrivatePosition:
    return deal_pb2.PrivatePosition(round=place[0], position=place[1])


class PrivateDeals:
    """One seat's part in every private deal of its table."""

    def __init__(
        self,
        table_id: str,
        seat: int,
        signer: Signer,
        send: Sender,
        folder: Path | None,
        *,
        choose_cut: Callable[[int], int | None] = random_cut,
        heads_after: float = HEADS_AFTER,
        on_fault: Callable[[Fault], None] | None = None,
    ) -> None:
        self.table_id = table_id
        self.seat = seat
        self.signer = signer
        self._send = send
        #: Where its per-deal keys and messages are kept (``deal_folder``); None: memory only.
        self.folder = folder
        self._choose_cut = choose_cut
        self.heads_after = heads_after
        self.on_fault = on_fault
        self.current: PrivateParticipant | None = None
        self.deal_no: int | None = None
        self.signing_keys: dict[int, bytes] = {}
        #: The highest place of the current deal's transcript this seat has (relayed or sent).
        self.taken = -1
        #: The place in the current deal's transcript of every envelope relayed to this seat,
        #: by its bytes' digest: one relayed again at another place is the host's replay.
        self.places: dict[bytes, int] = {}
        #: The discard pile as this seat followed it from the deal's events (a rebuild starts
        #: from it but its top).
        self.pile: list[int] = []
        self.refusals: list[str] = []
        self._lock = asyncio.Lock()
        self._changed = asyncio.Condition()
        self._ticker: asyncio.Task[None] | None = None
        #: The seat was handed to a stand-in (``hand_over``): it signs nothing more.
        self.handed = False

    # Inputs from the table.

    async def on_deal_event(self, event: deal_pb2.DealEvent, replaying: bool = False) -> None:
        """A public deal event: a private deal's announcement, a draw, a rebuild, its end.
        ``replaying``: an event of a snapshot, already acted on (only followed)."""
        kind = event.WhichOneof("event")
        if kind == "announced":
            if is_private(event):
                await self._announced(event, (), replaying)
            else:
                self._forget()
            return
        mine = self.current
        if mine is None or event.deal_no != self.deal_no:
            return
        if kind == "started":
            self.pile = [event.started.first_discard]
        elif kind == "drawn":
            drawn = event.drawn
            if drawn.HasField("position"):
                place = drawn.position
                await self._run(lambda: mine.drawn(drawn.seat, place.round, place.position))
            elif drawn.HasField("card") and self.pile:
                self.pile.pop()
        elif kind == "discard_returned":
            self.pile.append(event.discard_returned.card)
        elif kind == "played":
            played = event.played
            if played.HasField("discard"):
                self.pile.append(played.discard)
        elif kind == "stock_rebuilt":
            discards, self.pile = self.pile[:-1], self.pile[-1:]
            number = event.stock_rebuilt.rebuild_no
            await self._run(lambda: mine.rebuilt(discards, number))
        elif kind == "ended":
            self._forget()
            await self._forget_files(event.deal_no + 1)

    async def on_private_message(self, message: table_pb2.PrivateMessage) -> None:
        """A relayed envelope of the current deal, in the host's order."""
        mine = self.current
        if mine is None or message.deal_no != self.deal_no:
            return
        self.taken = max(self.taken, message.seq)
        if not message.envelope:
            return  # this seat's own message: its place in the transcript, without its bytes
        data = bytes(message.envelope)
        await self._run(lambda: self._received(mine, data, message.seq))

    async def on_reveal_due(self, due: table_pb2.PrivateRevealDue) -> None:
        """The deal's last move is played: the seat reveals its per-deal key."""
        mine = self.current
        if mine is not None and due.deal_no == self.deal_no:
            await self._run(mine.deal_over)

    async def on_event(self, event: table_pb2.TableEvent) -> None:
        """One event of the seat's stream, whatever it is (the protocol's are taken)."""
        kind = event.WhichOneof("event")
        if kind == "private_message":
            await self.on_private_message(event.private_message)
        elif kind == "private_reveal_due":
            await self.on_reveal_due(event.private_reveal_due)
        elif kind == "deal":
            await self.on_deal_event(deal_pb2.DealEvent.FromString(event.deal.public_event))
        elif kind == "snapshot":
            await self.on_view(event.snapshot)

    async def on_view(self, view: table_pb2.TableView) -> None:
        """A view of the table (a snapshot, a GetView): a private deal in play is taken up
        from its transcript when this seat has no participant for it (a restart), the one
        it has is handed what it missed, and its hand is the host's (its positions)."""
        announced = _announcement(view)
        if announced is None or view.phase not in IN_PLAY:
            return
        transcript = list(view.private_transcript)
        if self.current is None or self.deal_no != announced.deal_no:
            await self._announced(announced, transcript, replaying=True)
            for raw in view.deal_events[1:]:
                await self.on_deal_event(deal_pb2.DealEvent.FromString(raw), replaying=True)
        else:
            mine = self.current
            for place, data in enumerate(transcript):
                await self._run(lambda d=data, p=place: self._received(mine, d, p))  # type: ignore[misc]
            self.taken = max(self.taken, len(transcript) - 1)
        if self.current is not None:
            # (The pile is followed from the deal's events, never taken from a view: a view
            # asked for may be ahead of the stream, a rebuild in it not yet told.)
            positions = [(p.round, p.position) for p in view.my_positions]
            hand = list(view.my_hand)
            mine = self.current
            await self._call(lambda: mine.keep_only(positions, hand))
            if view.phase == table_pb2.TURN_PHASE_PRIVATE_REVEAL:
                await self._run(mine.deal_over)

    # The seat's moves.

    async def hand(self, wait: float = HAND_WAIT) -> list[int] | None:
        """The seat's hand as cards once every card of it is read (None: no private deal;
        the cards read so far if some are still missing after ``wait`` seconds)."""
        mine = self.current
        if mine is None:
            return None
        async with self._changed:
            try:
                async with asyncio.timeout(wait):  # not wait_for: see SeatStream.ask
                    await self._changed.wait_for(lambda: not mine.unread())
            except TimeoutError:
                log.warning("seat %d: cards of its hand still unread after %g s: %s",
                            self.seat, wait, mine.unread())  # fmt: skip
        return mine.hand()

    def shuffled(self) -> bool:
        """Whether the current deal's decks are all shuffled (no rebuilt stock pending)."""
        mine = self.current
        return mine is not None and mine.shuffled()

    def read_hand(self) -> list[int] | None:
        """The seat's hand as cards when every card of it is read, else None."""
        mine = self.current
        if mine is None or mine.unread():
            return None
        return mine.hand()

    async def open_for_play(self, cards: Iterable[int]) -> list[deal_pb2.PrivatePosition]:
        """The positions of the hand's ``cards`` a play lays or discards, the seat's shares
        of them to everyone sent first (a card not at a position, public, has none)."""
        mine = self.current
        if mine is None:
            return []
        chosen = list(cards)

        def opened() -> tuple[list[tuple[int, int]], list[bytes]]:
            places = [p for p in mine.positions_of(chosen, strict=False) if p is not None]
            return places, mine.open_message(places)

        places, sends = await self._call(opened)
        await self._deliver(sends)
        return [position_pb(p) for p in places]

    async def cut(self, deal_no: int, cut: int | None) -> None:
        """The cutter's player chose ``cut`` (R2.2; None: a random one) for deal ``deal_no``:
        sent once the deck is shuffled (at once when it is)."""
        mine = self.current
        if mine is None or deal_no != self.deal_no:
            return
        chosen = random_cut(mine.setup.deck_size) if cut is None else cut
        await self._run(lambda: mine.cut(chosen))

    @property
    def table_code(self) -> str | None:
        mine = self.current
        return mine.table_code if mine is not None else None

    # Inner workings.

    async def _announced(
        self, event: deal_pb2.DealEvent, transcript: Sequence[bytes], replaying: bool
    ) -> None:
        if self.deal_no == event.deal_no and self.current is not None:
            return
        self._forget()
        setup, keys = setup_of(self.table_id, event)
        self.deal_no, self.signing_keys = event.deal_no, keys
        if self.seat not in setup.seats or self.seat not in keys:
            return
        folder = self.folder

        def join() -> tuple[PrivateParticipant, list[bytes]]:
            if folder is not None:  # the deals before this one ended while the seat was away
                forget_deals(folder, setup.deal_no)
            options: dict[str, Any] = {
                "choose_cut": self._choose_cut,
                "heads_after": self.heads_after,
            }
            if folder is None:
                me = PrivateParticipant.fresh(setup, self.seat, self.signer, keys, None, **options)
                sends = me.start()
                for place, data in enumerate(transcript):
                    sends += self._received(me, data, place)
                return me, sends
            self.places = {_digest(data): place for place, data in enumerate(transcript)}
            return PrivateParticipant.joined(setup, self.seat, self.signer, keys, folder,
                                             transcript, **options)  # fmt: skip

        async with self._lock:
            if self.handed:
                return
            self.current, sends = await asyncio.to_thread(join)
            self.taken = len(transcript) - 1
            await self._deliver(sends)
        self._changed_now()
        if self._ticker is None or self._ticker.done():
            self._ticker = asyncio.create_task(self._tick())

    def _received(self, mine: PrivateParticipant, data: bytes, place: int) -> list[bytes]:
        """One envelope relayed at ``place`` of the transcript, unless the seat has it already
        (its own, or one taken in from a view before the stream relayed it, at that place).
        The same envelope at another place is the host's replay, named."""
        first = self.places.setdefault(_digest(data), place)
        if first != place:
            self._fault(Fault(HOST, FaultKind.REPLAYED, f"the message at place {first} of the "
                              f"transcript relayed again at place {place}"))  # fmt: skip
            return []
        if mine.has(data):
            return []
        step = mine.receive(data)
        if step.fault is not None:
            self._fault(step.fault)
        return step.sends

    def _fault(self, fault: Fault) -> None:
        log.warning("seat %d: private deal %s: %s (%s)", self.seat, self.deal_no,
                    fault.detail, fault.culprit)  # fmt: skip
        if self.on_fault is not None:
            self.on_fault(fault)

    async def hand_over(
        self, call: Callable[[table_pb2.HandToStandInRequest], Awaitable[object]]
    ) -> None:
        """Hand the seat, with its signing key and the current deal's key, to a host bot
        (``TableService.HandToStandIn`` through ``call``): sent once every message this seat
        made was answered (none is being made or sent meanwhile), so that the stand-in signs
        on from the host's transcript. Taken, the seat signs nothing more; refused (raised),
        it goes on as before."""
        signer = self.signer
        if not isinstance(signer, Ed25519Signer):
            raise TypeError("only an Ed25519 signing key can be handed over")
        async with self._lock:
            mine = self.current
            request = table_pb2.HandToStandInRequest(
                context=table_pb2.MoveContext(request_id=uuid.uuid4().hex),
                signing_key=signer.private_bytes(),
            )
            if mine is not None and self.deal_no is not None:
                request.deal_no = self.deal_no
                request.deal_key = scalar_bytes(mine.private.secret)
            await call(request)
            self.handed = True
            self._forget()

    async def _run(self, work: Callable[[], list[bytes]]) -> None:
        """One call of the participant, on the worker thread; what it makes is sent."""
        async with self._lock:
            if self.handed:
                return  # the stand-in signs this seat's messages now
            sends = await asyncio.to_thread(work)
            await self._deliver(sends)
        self._changed_now()

    async def _call(self, work: Callable[[], T]) -> T:
        async with self._lock:
            return await asyncio.to_thread(work)

    async def _deliver(self, sends: list[bytes]) -> None:
        """Each message, in order, until the host has it (the same request id each time)."""
        for envelope in sends:
            if self.handed:
                return  # made before the hand-over, never taken: the stand-in signs instead
            request = table_pb2.SendPrivateRequest(
                context=table_pb2.MoveContext(request_id=uuid.uuid4().hex), envelope=envelope
            )
            try:
                answer = await resend(lambda r=request: self._send(r))  # type: ignore[misc]
            except HostRefusal as refusal:
                self.refusals.append(refusal.line)
                log.warning("seat %d: private message refused: %s", self.seat, refusal.line)
                continue
            self.taken = max(self.taken, answer.transcript_seq)

    def _changed_now(self) -> None:
        async def notify() -> None:
            async with self._changed:
                self._changed.notify_all()

        asyncio.get_running_loop().create_task(notify())

    async def _tick(self) -> None:
        """A ``HEADS`` when the seat has waited on a message due (``PrivateParticipant.tick``)."""
        while self.current is not None:
            await asyncio.sleep(min(1.0, self.heads_after / 2))
            mine = self.current
            if mine is not None:
                await self._run(mine.tick)

    async def _forget_files(self, before: int) -> None:
        """The kept keys and messages of the deals before ``before`` removed (``forget_deals``)."""
        if self.folder is not None:
            await asyncio.to_thread(forget_deals, self.folder, before)

    def _forget(self) -> None:
        if self.current is not None:
            self.current.close()
        self.current, self.deal_no, self.taken, self.pile = None, None, -1, []
        self.places = {}
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    def close(self) -> None:
        self._forget()


def _digest(envelope: bytes) -> bytes:
    return hashlib.sha256(envelope).digest()


def _announcement(view: table_pb2.TableView) -> deal_pb2.DealEvent | None:
    """The current deal's announcement in a view, if it is a private deal's."""
    if not view.deal_events:
        return None
    first = deal_pb2.DealEvent.FromString(view.deal_events[0])
    return first if is_private(first) else None


def signing_key_at(path: Path) -> Ed25519Signer:
    """The seat's signing key for a private table's messages, kept at ``path`` (0600), made
    there on first use: a seat restarted signs its chain on with the same key."""
    if path.exists():
        return Ed25519Signer(Ed25519PrivateKey.from_private_bytes(read_secret(path)))
    key = Ed25519PrivateKey.generate()
    raw = key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    if not write_secret(path, raw, replace=False):  # another start made it first
        return signing_key_at(path)
    return Ed25519Signer(key)
