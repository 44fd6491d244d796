"""This seat's part of the fair deal, done without asking the player, and each deal's check.

The fair-deal library's ``SeatExchange`` does the protocol (seed, commitment,
the checks before revealing) and the seat's ``FairDealSteps`` feed it and send
its steps, as for every seat (``scala40_net.seat.fairdeal``); this driver hands
them the host's events, asks the cutter for the cut, and after the deal
fetches the signed record, verifies it with the library (this seat's own
seed and cut included) and saves it under the user's data directory, so
``scala40-verify`` can check it again later.

With a seat store (``client/seats.py``) each seed and cut is kept on disk
before its commitment is sent; a client started again mid-deal takes the
exchange up from the snapshot with the stored seed, sends only the steps the
host has not published yet, and so can still verify the deal with its seed.
A deal that ended while the client was away (its seed still kept, its
``DealSigned`` never seen) is fetched and verified when the snapshot comes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from client.model import FairDealState, Verification
from client.seats import SeatStore
from client.session import NoticeKind
from scala40_net.fairdeal.exchange import ExchangeError, HostMisbehaved, RevealRefused, SeatExchange
from scala40_net.fairdeal.record import DealRecord, RecordFormatError
from scala40_net.fairdeal.replay import replay_deal
from scala40_net.fairdeal.verify import VerificationFailed, verify_record
from scala40_net.pb import deal_pb2, table_pb2
from scala40_net.seat.fairdeal import FairDealSteps, Step
from scala40_net.seat.refusal import HostRefusal
from scala40_net.secretfile import write_secret

if TYPE_CHECKING:
    from client.app import TableScreen

log = logging.getLogger(__name__)

# The host waits 30 s for commitments; a cutter who has not answered by then is cut for at random.
CUT_WAIT_SECONDS = 20.0


def record_path(data_dir: Path, table_id: str, deal_no: int) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in table_id) or "table"
    return data_dir / "records" / safe / f"deal-{deal_no:04d}.json"


class FairDealDriver:
    """Runs one ``SeatExchange`` per deal this seat plays, from the table's event stream."""

    def __init__(
        self, screen: TableScreen, data_dir: Path | None, store: SeatStore | None = None
    ) -> None:
        self.screen = screen
        self.data_dir = data_dir
        self.store = store
        self.steps = FairDealSteps(screen.link.link if screen.link is not None else None)
        self.cut_deal: int | None = None  # the deal whose cut the command line waits for
        self._cut_size = 0  # its deck's size: a cut is from 1 to this less one (R2.2)
        self._cut_private = False  # its cut goes to the private deal's cutter (client/private.py)
        self._cut_timer: asyncio.TimerHandle | None = None
        # The kinds of deal event a snapshot being replayed already holds: steps the host has
        # published are not sent again.
        self._published: set[str] = set()
        # Seeds of deals that ended while this client was away, read from the store.
        self._kept_seeds: dict[int, tuple[bytes, int]] = {}

    @property
    def exchanges(self) -> dict[int, SeatExchange]:
        """This seat's exchange of each deal it plays."""
        return self.steps.exchanges

    @property
    def table_id(self) -> str:
        link = self.screen.link
        return link.seat.table_id if link is not None else self.screen.model.table_id

    # --- events -----------------------------------------------------------------------

    def on_event(self, event: table_pb2.TableEvent) -> None:
        kind = event.WhichOneof("event")
        if kind == "deal":
            self._on_deal_event(deal_pb2.DealEvent.FromString(event.deal.public_event))
        elif kind == "snapshot":
            # After a (re)connect: take up the exchange of the current deal where it stands.
            replayed = [deal_pb2.DealEvent.FromString(raw) for raw in event.snapshot.deal_events]
            self._published = {e.WhichOneof("event") or "" for e in replayed}
            try:
                for deal_event in replayed:
                    self._on_deal_event(deal_event)
            finally:
                self._published = set()
            self._verify_missed(event.snapshot)
        elif kind == "deal_signed":
            self.screen.spawn(self.verify(event.deal_signed.deal_no))

    def _on_deal_event(self, event: deal_pb2.DealEvent) -> None:
        me = self.screen.model.my_seat
        if me is None:
            return
        kind = event.WhichOneof("event")
        try:
            if kind == "announced":
                self._announced(me, event)
                return
            if event.deal_no not in self.exchanges:
                return
            if kind == "commitments":
                self._commitments(event)
            elif kind == "reveals":
                self.steps.on_reveals(event)
            elif kind == "host_seed_revealed":
                self.steps.on_host_seed(event)
        except RevealRefused:
            fd = self.screen.model.deals.get(event.deal_no)
            if fd is not None:
                fd.commitment_mismatch = True
        except HostMisbehaved as misbehaved:
            self._failed(event.deal_no, str(misbehaved))
        except ExchangeError:
            # A step seen twice (a snapshot after a reconnect repeats the deal so far).
            pass

    def _announced(self, me: int, event: deal_pb2.DealEvent) -> None:
        if me not in event.announced.seats_in_play or event.deal_no in self.exchanges:
            return
        if event.announced.HasField("private_setup"):
            return  # a private table's deal is dealt by its seats' messages (client/private.py)
        stored = self.store.seed(self.table_id, event.deal_no) if self.store else None
        if stored is not None:
            self._resume(me, event, *stored)
            return
        if "commitments" in self._published:
            return  # committed by a client run that kept no seed: this seat is left out
        if self.screen.model.i_am_away:
            # A host bot plays the seat (its clock ran out, say, and no rematch waited for
            # it): the bot makes the seat's commitment and reveal (PROTOCOL.md, "The turn
            # clock and absent seats"). A seed of this run's would race the bot's, and the
            # one published would not be this one: the deal is verified as one whose seed
            # the host made.
            return
        exchange = self.steps.take_up(me, event)
        if exchange is None:
            return
        if exchange.is_cutter:
            self.ask_cut(event.deal_no, event.announced.deck_size)
        else:
            self._commit(event.deal_no, exchange, None)

    def ask_cut(self, deal_no: int, deck_size: int, private: bool = False) -> None:
        """The command line waits for this seat's cut (R2.2): a number, or Enter for a random
        one, which is also what CUT_WAIT_SECONDS of silence gives. ``private``: the cut of a
        private deal, asked once its deck is shuffled (client/private.py)."""
        if self.cut_deal == deal_no:
            return
        self.cut_deal, self._cut_size, self._cut_private = deal_no, deck_size, private
        self.screen.session.cut_prompt = True
        if self._cut_timer is not None:
            self._cut_timer.cancel()
        loop = asyncio.get_running_loop()
        self._cut_timer = loop.call_later(CUT_WAIT_SECONDS, self.answer_cut, "")
        self.screen.session.cut_deadline = time.monotonic() + CUT_WAIT_SECONDS
        self.screen.count_down()
        self.screen.invalidate()

    def _resume(self, me: int, event: deal_pb2.DealEvent, seed: bytes, cut: int) -> None:
        """A deal this seat committed to in an earlier run: the same seed and cut again."""
        exchange = self.steps.take_up(me, event, seed)
        if exchange is None:
            return
        exchange.commit(cut if exchange.is_cutter else None)
        if "commitments" in self._published:
            self._mark_done(event.deal_no, "commit")
            return
        self._send_commitment(event.deal_no)

    def answer_cut(self, text: str) -> None:
        """The cutter's answer: a number from 1 to N-1, or nothing for a random cut."""
        deal_no = self.cut_deal
        exchange = self.exchanges.get(deal_no) if deal_no is not None else None
        if deal_no is None or (exchange is None and not self._cut_private):
            self.screen.session.cut_prompt = False
            return
        size = self._cut_size
        words = text.split()
        cut: int | None = None
        if words:
            word = words[-1]
            if not word.isdigit() or not 1 <= int(word) <= size - 1:
                self.screen.say_error("err_cut_number", max=size - 1)
                return
            cut = int(word)
        if self._cut_timer is not None:
            self._cut_timer.cancel()
            self._cut_timer = None
        self.cut_deal = None
        self.screen.session.cut_prompt = False
        self.screen.session.cut_deadline = None
        if self._cut_private:
            self.screen.private.cut(deal_no, cut)
        elif exchange is not None:
            self._commit(deal_no, exchange, cut)
        self.screen.invalidate()

    def _commit(self, deal_no: int, exchange: SeatExchange, cut: int | None) -> None:
        exchange.commit(cut)
        if self.store is not None:  # on disk before the host can hold this seat to it
            self.store.remember_seed(self.table_id, deal_no, exchange.seed, exchange.cut)
        self._send_commitment(deal_no)

    def _send_commitment(self, deal_no: int) -> None:
        self._send_step(deal_no, "commit", lambda: self.steps.send_commitment(deal_no))

    def _commitments(self, event: deal_pb2.DealEvent) -> None:
        reveal = self.steps.reveal_for(event)
        deal_no = event.deal_no
        if "reveals" in self._published:
            self._mark_done(deal_no, "reveal")
            return
        self._send_step(deal_no, "reveal", lambda: self.steps.send_reveal(deal_no, reveal))

    def _send_step(
        self, deal_no: int, step: Step, send: Callable[[], Awaitable[HostRefusal | None]]
    ) -> None:
        """Send this seat's commitment or reveal; the host having it already (from an earlier
        run) counts as sent, any other refusal is told to the player."""
        if self.screen.link is None:
            return

        async def sending() -> None:
            refusal = await send()
            if refusal is not None and not refusal.already_done:  # else sent by an earlier run
                self.screen.say_refusal(refusal)
                return
            self._mark_done(deal_no, step)
            self.screen.invalidate()

        self.screen.spawn(sending())

    def _mark_done(self, deal_no: int, step: Step) -> None:
        fd = self.screen.model.deals.get(deal_no)
        if fd is None:
            return
        if step == "commit":
            fd.committed = True
        else:
            fd.revealed = True

    # --- after the deal ---------------------------------------------------------------

    def _verify_missed(self, view: table_pb2.TableView) -> None:
        """Check every deal whose seed is still kept but that the snapshot shows has ended.

        The snapshot carries the events of a deal still being played only, so any
        other kept deal ended while this client was away: its signature went by.
        """
        model = self.screen.model
        held = self.store.get(self.table_id) if self.store is not None else None
        if held is None or model.my_seat is None:
            return
        playing = view.deal_no if view.deal_events else None
        # Read now: the seat's file goes as soon as the snapshot shows the match is over.
        self._kept_seeds.update(held.deals)
        for deal_no in sorted(held.deals):
            fd = model.deals.setdefault(deal_no, FairDealState(deal_no, self.table_id))
            if deal_no == playing or fd.verification is not None:
                continue  # still being played, or its check already under way
            fd.verification = Verification(None)
            self.screen.spawn(self.verify(deal_no, missed=True))

    def _failed(self, deal_no: int, reason: str) -> None:
        fd = self.screen.model.deals.get(deal_no)
        if fd is not None:
            path = fd.verification.record_path if fd.verification else ""
            fd.verification = Verification(False, reason, path)
        self.screen.invalidate()

    def _my_seed(self, deal_no: int) -> tuple[bytes, int] | None:
        """This seat's seed and cut for a deal: this run's exchange, else the one kept on disk."""
        exchange = self.exchanges.get(deal_no)
        if exchange is not None:
            return exchange.seed, exchange.cut
        return self._kept_seeds.get(deal_no)

    async def verify(self, deal_no: int, *, missed: bool = False) -> None:
        """Fetch the signed record of an ended deal, check it, save it; show the result.

        ``missed``: the deal ended while this client was away; the result also goes in the log.
        """
        model = self.screen.model
        fd = model.deals.get(deal_no)
        link = self.screen.link
        if fd is None or link is None:
            return
        fd.verification = Verification(None)
        self.screen.invalidate()
        try:
            raw = await link.deal_record(deal_no)
            record = DealRecord.from_json(raw)
        except (HostRefusal, RecordFormatError) as error:
            reason = error.message if isinstance(error, HostRefusal) else str(error)
            fd.verification = Verification(False, reason)
            self.screen.invalidate()
            return
        mine = self._my_seed(deal_no)
        if deal_no in self.exchanges and not fd.committed:
            # The host never took this run's commitment (too late, refused): the seat sat the
            # deal out and its seed is rightly not in the mix. Checked as a third party.
            mine = None
        path = self._save(record, deal_no, mine)
        if self.store is not None and path is not None:
            self.store.forget_deal(self.table_id, deal_no)  # the seed now lies beside the record
        session = self.screen.session
        try:
            verified = verify_record(
                record,
                seat=model.my_seat if mine is not None else None,
                my_seed=mine[0] if mine is not None else None,
                my_cut=mine[1] if mine is not None else None,
                host_fingerprint=session.fingerprint or None,
                replayer=replay_deal,  # check 4: the deal replayed through the rules engine
            )
        except VerificationFailed as failure:
            # The screen says which check failed, in the player's words; the detail (the
            # event, the seat, the bytes) goes to the log and is in the saved record.
            log.error("deal %d: %s (record %s)", deal_no, failure.line(), path)
            fd.verification = Verification(False, failure.line(), str(path or ""), failure.check)
            session.say(NoticeKind.ERROR, f"fd_failed_{failure.check}", deal=deal_no)
        else:
            # The seat's commitment a host bot made: one this run sent too late, or none
            # (the seat was away at the announcement).
            by_host = not verified.own_seed_checked and model.my_seat in verified.host_played
            fd.verification = Verification(True, "", str(path or ""), own_by_host=by_host)
        if missed:
            ok = fd.verification.ok
            model.note("log_missed_deal_verified" if ok else "log_missed_deal_failed", deal=deal_no)
        self.screen.invalidate()

    def _save(
        self, record: DealRecord, deal_no: int, mine: tuple[bytes, int] | None
    ) -> Path | None:
        """Keep the record, and this seat's seed beside it (owner-only) for a later check."""
        if self.data_dir is None:
            return None
        path = record_path(self.data_dir, record.table_id, deal_no)
        seat = self.screen.model.my_seat
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            record.write(path)
            if mine is not None and seat is not None:
                seed, cut = mine
                seed_file = path.with_suffix(".seed")
                write_secret(seed_file, f"seat {seat}\nseed {seed.hex()}\ncut {cut}\n".encode())
        except OSError:
            return None
        return path
