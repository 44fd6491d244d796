"""This seat's part in a private table's deals (of the player it asks only the cut), its hand.

At a private table (docs/PRIVATE_TABLES.md) the host names the hand's cards by their
positions in the encrypted deck; the seat reads them from the other seats' shares. The
driver hands the table's events, in order, to the seat's ``PrivateDeals``
(``scala40_net.seat.private_link``: the key kept on disk first, the shuffle, the cut, the
shares of every card another seat is dealt or draws, the reveal at the end), asks the
player for the cut when this seat cuts (R2.2: the fair-deal driver's prompt, once the deck
is shuffled), tells the model the cards read (the hand at the deal's start, a card drawn
from the stock once its shares are in) and the table code, and names a play's cards by
position, the seat's shares of them sent to everyone first. A fault the seat's checks find
is said on the screen, naming the seat or the host.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from client.connection import private_signer
from scala40_net.pb import cards_pb2, deal_pb2, table_pb2
from scala40_net.private.chain import Fault
from scala40_net.private.messages import table_code
from scala40_net.seat.private import deal_folder, fault_sentence, waiting_sentence
from scala40_net.seat.private_link import PrivateDeals, is_private, setup_of

if TYPE_CHECKING:
    from client.app import TableScreen

log = logging.getLogger(__name__)

#: Seconds a missing card may keep the seat waiting before the screen names who it waits on.
SAY_WAITING_AFTER = 8.0

Item = table_pb2.TableEvent | None


def cards_of_play(operations: list[cards_pb2.Operation], discard: int | None) -> list[int]:
    """The cards a play takes from the hand: laid, attached, swapped in, discarded."""
    taken: list[int] = []
    for op in operations:
        which = op.WhichOneof("operation")
        if which == "new_meld":
            taken += op.new_meld.cards
        elif which == "attach":
            taken += op.attach.cards
        elif which == "swap_joker":
            taken.append(op.swap_joker.card)
    if discard is not None:
        taken.append(discard)
    return taken


class PrivateDriver:
    """The seat's ``PrivateDeals``, fed the screen's events in order by one task."""

    def __init__(self, screen: TableScreen, data_dir: Path | None) -> None:
        self.screen = screen
        self.data_dir = data_dir
        self.deals: PrivateDeals | None = None
        self._inbox: asyncio.Queue[Item] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._drawn: tuple[int, int] | None = None  # this seat's draw not yet read
        self._watch: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cut_asked: set[int] = set()  # the deals whose cut the player was asked for

    def _deals(self) -> PrivateDeals | None:
        """Made once the seat and the table are known (a spectator has none)."""
        if self.deals is not None:
            return self.deals
        link, model = self.screen.link, self.screen.model
        if link is None or model.my_seat is None:
            return None
        table_id = link.seat.table_id
        folder = deal_folder(self.data_dir, table_id) if self.data_dir is not None else None
        # The key that signs this seat's messages, the one its join named (kept beside its
        # per-deal keys, so that a screen started again signs its chain on with it).
        signer = private_signer(self.data_dir, table_id)
        self._loop = asyncio.get_running_loop()
        self.deals = PrivateDeals(
            table_id, model.my_seat, signer, link.table.send_private, folder,
            choose_cut=self._ask_cut, on_fault=self._fault,
        )  # fmt: skip
        return self.deals

    # --- the cut ------------------------------------------------------------------------

    def _ask_cut(self, deck_size: int) -> int | None:
        """The deck is shuffled and this seat cuts (R2.2): the player is asked, as at any
        table, and the cut is sent when they answer (``cut``). Called on the participant's
        worker thread whenever the cut is due and not chosen yet: asks once a deal."""
        deals, loop = self.deals, self._loop
        deal_no = deals.deal_no if deals is not None else None
        if deal_no is None or loop is None or deal_no in self._cut_asked:
            return None
        self._cut_asked.add(deal_no)
        loop.call_soon_threadsafe(self.screen.fair_deal.ask_cut, deal_no, deck_size, True)
        return None

    def hand_over(self) -> Coroutine[Any, Any, None] | None:
        """The hand-over of this seat and its keys to a host bot (``PrivateDeals.hand_over``,
        nothing more signed here once the host took them); None before the seat is known."""
        deals, link = self._deals(), self.screen.link
        if deals is None or link is None:
            return None
        return deals.hand_over(link.table.hand_to_stand_in)

    def cut(self, deal_no: int, cut: int | None) -> None:
        """The player's cut for ``deal_no`` (None: a random one), sent once it is due."""
        deals = self.deals
        if deals is not None:
            self.screen.spawn(deals.cut(deal_no, cut))

    # --- events -----------------------------------------------------------------------

    def on_event(self, event: table_pb2.TableEvent) -> None:
        """Every event of the stream, after the model took it: handed on in order."""
        if not self.screen.model.private_cards and not self._concerns_private(event):
            return
        self._inbox.put_nowait(event)
        if self._reader is None or self._reader.done():
            self._reader = asyncio.get_running_loop().create_task(self._read())

    @staticmethod
    def _concerns_private(event: table_pb2.TableEvent) -> bool:
        kind = event.WhichOneof("event")
        if kind in ("private_message", "private_reveal_due"):
            return True
        if kind == "deal":
            return is_private(deal_pb2.DealEvent.FromString(event.deal.public_event))
        if kind == "snapshot":
            return event.snapshot.table.private_cards
        return False

    async def _read(self) -> None:
        while (event := await self._inbox.get()) is not None:
            try:
                await self._take(event)
            except Exception:  # the seat's part must never stop the screen
                log.exception("private table: an event could not be taken")
            self.screen.invalidate()

    async def _take(self, event: table_pb2.TableEvent) -> None:
        self._code_of(event)
        deals = self._deals()
        if deals is None:
            return
        kind = event.WhichOneof("event")
        model = self.screen.model
        if kind == "private_message":
            await deals.on_private_message(event.private_message)
        elif kind == "private_reveal_due":
            await deals.on_reveal_due(event.private_reveal_due)
        elif kind == "deal":
            public = deal_pb2.DealEvent.FromString(event.deal.public_event)
            await deals.on_deal_event(public)
            which = public.WhichOneof("event")
            if which == "started":
                mine = deals.current
                if mine is not None:
                    hand = [mine.held.get((0, p)) for p in mine.setup.positions.hands[mine.me]]
                    model.set_private_hand([c for c in hand if c is not None])
            elif (
                which == "drawn"
                and public.drawn.seat == model.my_seat
                and public.drawn.HasField("position")
            ):
                self._drawn = (public.drawn.position.round, public.drawn.position.position)
        elif kind == "snapshot":
            await deals.on_view(event.snapshot)
            mine = deals.current
            if mine is not None:
                model.set_private_hand(mine.hand())
        model.table_code = deals.table_code or model.table_code
        self._read_draw()
        model.private_waiting = self.waiting_words()
        if self._watch is None or self._watch.done():
            self._watch = asyncio.get_running_loop().create_task(self._watch_waits())

    async def _watch_waits(self) -> None:
        """Now and then, while a deal is in play: who a card the seat waits for is due from."""
        while self.deals is not None and self.deals.current is not None:
            await asyncio.sleep(1.0)
            words = self.waiting_words()
            if words != self.screen.model.private_waiting:
                self.screen.model.private_waiting = words
                self.screen.invalidate()

    def _code_of(self, event: table_pb2.TableEvent) -> None:
        """The table code from a private deal's announcement: a spectator compares it too."""
        raw: list[bytes] = []
        if event.WhichOneof("event") == "deal":
            raw = [event.deal.public_event]
        elif event.WhichOneof("event") == "snapshot" and event.snapshot.deal_events:
            raw = [event.snapshot.deal_events[0]]
        for data in raw:
            announced = deal_pb2.DealEvent.FromString(data)
            if is_private(announced):
                table_id = announced.table_id or self.screen.model.table_id
                _, keys = setup_of(table_id, announced)
                self.screen.model.table_code = table_code(table_id, keys)

    def _read_draw(self) -> None:
        """This seat's card drawn from the stock, once the others' shares are in."""
        deals = self.deals
        if self._drawn is None or deals is None or deals.current is None:
            return
        card = deals.current.held.get(self._drawn)
        if card is not None:
            self._drawn = None
            self.screen.model.private_card_drawn(card)

    def _fault(self, fault: Fault) -> None:
        self.screen.model.private_fault = fault_sentence(fault, self.screen.text.lang)
        self.screen.invalidate()

    def waiting_words(self) -> str | None:
        """Who the seat waits on for a card, once it has waited a while."""
        deals = self.deals
        mine = deals.current if deals is not None else None
        if mine is None or not mine.unread():
            return None
        seats = mine.waiting_on()
        if not seats or not mine.waited(SAY_WAITING_AFTER):
            return None
        return waiting_sentence(seats, self.screen.text.lang)

    # --- the seat's play ----------------------------------------------------------------

    async def positions_for(
        self, operations: list[cards_pb2.Operation], discard: int | None
    ) -> list[deal_pb2.PrivatePosition]:
        """The positions of a play's cards, the seat's shares of them sent to everyone."""
        deals = self._deals()
        if deals is None or deals.current is None:
            return []
        return await deals.open_for_play(cards_of_play(operations, discard))

    def close(self) -> None:
        self._inbox.put_nowait(None)
        if self._reader is not None:
            self._reader.cancel()
        if self._watch is not None:
            self._watch.cancel()
        if self.deals is not None:
            self.deals.close()
