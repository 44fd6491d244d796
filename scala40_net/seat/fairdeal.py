"""One seat's steps of each deal's fair deal (FAIR_DEAL.md), for every kind of seat.

``FairDealSteps`` keeps the seat's ``SeatExchange`` of each deal it plays,
feeds it the deal's events (the library does the protocol and its checks:
``RevealRefused`` before revealing to a host that changed a commitment,
``HostMisbehaved`` after), and sends the two steps that are the seat's, its
commitment and its reveal, through the seat's link. A step is kept until the
host has answered it: one lost with the connection is sent again, with its
request id, while its step is still open (``send_unanswered``). What a seat
does around the steps is its own: the screen asks its player for the cut and
keeps the seed on disk first, a bot commits at once.
"""

from __future__ import annotations

from typing import Literal

from scala40_net.fairdeal.exchange import SeatExchange
from scala40_net.pb import deal_pb2, table_pb2
from scala40_net.seat.link import SeatLink
from scala40_net.seat.refusal import HostRefusal
from scala40_net.seat.stream import RECONNECT_CODES

# This seat's two sends in each deal's exchange.
Step = Literal["commit", "reveal"]
StepRequest = table_pb2.CommitSeedRequest | table_pb2.RevealSeedRequest

# The table's phase in which each step is open.
OPEN_IN: dict[Step, int] = {
    "commit": table_pb2.TURN_PHASE_COMMIT,
    "reveal": table_pb2.TURN_PHASE_REVEAL,
}


class FairDealSteps:
    """A seat's exchanges, deal by deal, and its steps not yet answered by the host."""

    def __init__(self, link: SeatLink | None) -> None:
        self.link = link  # None: a seat that cannot send (a screen without a host)
        self.exchanges: dict[int, SeatExchange] = {}
        self.unanswered: dict[tuple[Step, int], StepRequest] = {}

    def take_up(
        self, seat: int, announced: deal_pb2.DealEvent, seed: bytes | None = None
    ) -> SeatExchange | None:
        """``seat``'s exchange of the announced deal, with a fresh seed or the ``seed`` kept
        from an earlier run; None when the seat sits the deal out or has its exchange."""
        deal_no = announced.deal_no
        if seat not in announced.announced.seats_in_play or deal_no in self.exchanges:
            return None
        mine = self.exchanges[deal_no] = SeatExchange(seat, seed)
        mine.on_announced(announced)
        return mine

    async def send_commitment(self, deal_no: int, keep_seed: bool = False) -> HostRefusal | None:
        """Step 2: the commitment already made (the cutter's with its cut), else one to a
        random cut; None once the host has it. ``keep_seed``: the seed and cut go to the
        host too, which keeps its own bots' (a restart commits again to the same ones)."""
        mine = self.exchanges[deal_no]
        commitment = mine.commitment if mine.commitment is not None else mine.commit()
        kept = (mine.seed, mine.cut) if keep_seed else None
        return await self._send("commit", deal_no, self._link.commitment(deal_no, commitment), kept)

    def reveal_for(self, commitments: deal_pb2.DealEvent) -> deal_pb2.SeatReveal:
        """Step 3, after the published commitments have been checked (``RevealRefused``):
        the seat's seed and cut. The host has the commitment: it is no longer sent again."""
        mine = self.exchanges[commitments.deal_no]
        mine.on_commitments(commitments)
        self.unanswered.pop(("commit", commitments.deal_no), None)
        return mine.reveal()

    async def send_reveal(self, deal_no: int, reveal: deal_pb2.SeatReveal) -> HostRefusal | None:
        """The reveal of ``reveal_for``; None once the host has it."""
        request = self._link.reveal(deal_no, reveal.seed, reveal.cut)
        return await self._send("reveal", deal_no, request)

    def on_reveals(self, event: deal_pb2.DealEvent) -> None:
        """The published reveals, checked (``HostMisbehaved``): the host has this seat's."""
        self.unanswered.pop(("reveal", event.deal_no), None)
        self.exchanges[event.deal_no].on_reveals(event)

    def on_host_seed(self, event: deal_pb2.DealEvent) -> None:
        """The host's seed, checked against its commitment: the exchange is over."""
        self.exchanges[event.deal_no].on_host_seed(event)

    def forget_before(self, deal_no: int) -> None:
        """Drop the exchanges of deals before ``deal_no`` and their unanswered steps."""
        self.exchanges = {n: x for n, x in self.exchanges.items() if n >= deal_no}
        self.unanswered = {k: r for k, r in self.unanswered.items() if k[1] >= deal_no}

    async def send_unanswered(self, view: table_pb2.TableView) -> list[HostRefusal]:
        """After a reconnect: the steps the host may not have, sent again with their request
        ids while their step is still open (a retry the host already has gets the same
        answer); the others are too late and dropped. Returns the refusals."""
        refusals = []
        for (step, deal_no), request in list(self.unanswered.items()):
            if deal_no == view.deal_no and OPEN_IN[step] == view.phase:
                refusal = await self._send(step, deal_no, request)
                if refusal is not None:
                    refusals.append(refusal)
            elif deal_no <= view.deal_no:
                del self.unanswered[(step, deal_no)]
        return refusals

    @property
    def _link(self) -> SeatLink:
        if self.link is None:
            raise RuntimeError("this seat has no link to send its fair-deal steps by")
        return self.link

    async def _send(
        self,
        step: Step,
        deal_no: int,
        request: StepRequest,
        kept: tuple[bytes, int] | None = None,
    ) -> HostRefusal | None:
        """One step, kept until the host answers; the refusal, if any (one lost with the
        connection stays kept, to be sent again)."""
        self.unanswered[(step, deal_no)] = request
        try:
            if isinstance(request, table_pb2.CommitSeedRequest):
                await self._link.commit_seed(request, kept)
            else:
                await self._link.reveal_seed(request)
        except HostRefusal as refusal:
            if refusal.code not in RECONNECT_CODES:
                self.unanswered.pop((step, deal_no), None)
            return refusal
        self.unanswered.pop((step, deal_no), None)
        return None
