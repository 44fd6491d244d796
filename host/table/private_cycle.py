"""A private table's deal cycle: the seats' messages relayed, the deal started, held and ended.

At a private table (docs/PRIVATE_TABLES.md) the deck is dealt by the seats: the host
announces the deal with every seat's signing key, then only relays, journals and checks
their messages (``TableService.SendPrivate``) until every hand's shares and the first
discard are in; then the engine deals the cut deck's positions (``host.table.private_deal``
keeps the stand-in ids). A card becomes public when its owner's share to everyone is in:
the host then puts it where it lies in the engine's state. The move that ends the deal is
held until every seat revealed its per-deal key, then applied again on the opened hands
and scored. A seat the deal needs that stays away past its grace voids the deal (R10.3).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import grpc

from host.edge.errors import Refusal, precondition
from host.journal import journaled
from host.table.outbox import EntryDraft
from host.table.private_deal import HostPrivateDeal, PendingEnd, PrivateRefused
from host.table.scribe import Scribe
from host.table.state import DealInProgress, TableState
from scala40_net import deal, events, match, rules, wire
from scala40_net.actions import Play
from scala40_net.fairdeal.exchange import DealSetup, HostExchange
from scala40_net.fairdeal.record import DealRecorder
from scala40_net.pb import deal_pb2, table_pb2
from scala40_net.private.chain import FaultFound
from scala40_net.private.messages import Envelope, Kind, SharesBody
from scala40_net.private.protocol import DealSetup as PrivateSetup
from scala40_net.private.protocol import Phase

# The host seed of a private deal: there is none (the seats deal); the exchange that holds the
# deal's setup is given this one, never revealed nor used.
_NO_SEED = bytes(32)


def _shuffle_false_why(seat: int) -> str:
    return (
        f"seat {seat}'s shuffle proof does not hold: its deck is not the deck before it "
        "re-encrypted and permuted"
    )


def _refused(why: str) -> Refusal:
    return Refusal(grpc.StatusCode.INVALID_ARGUMENT, "PRIVATE_MESSAGE_REFUSED", why)


class PrivateCycle:
    """The private part of one table's deal cycle (its ``DealCycle`` holds the rest)."""

    def __init__(
        self,
        state: TableState,
        scribe: Scribe,
        end_deal: Callable[[list[events.Event]], None],
    ) -> None:
        self.state = state
        self.scribe = scribe
        self._deadline = scribe.links.deadline
        # The deal cycle's own end of a deal (it holds this part, so it is handed in: this
        # module does not import it back).
        self._end_deal = end_deal

    @property
    def deal(self) -> HostPrivateDeal | None:
        current = self.state.current
        return current.private if current is not None else None

    def in_play(self) -> HostPrivateDeal | None:
        """The private deal being dealt or played now (its messages still due, its turns,
        its reveals); None between deals."""
        current, secret, m = self.state.current, self.deal, self.state.match
        if current is None or secret is None or m is None:
            return None
        if current.step in (
            table_pb2.TURN_PHASE_PRIVATE_DEAL,
            table_pb2.TURN_PHASE_PRIVATE_REVEAL,
        ):
            return secret
        return secret if m.phase is match.MatchPhase.IN_DEAL else None

    def wait_seconds(self) -> float:
        """How long the deal waits for a message it needs: a turn clock and the grace."""
        return float(self.state.turn_seconds + self.state.grace_seconds)

    # --- the announcement ------------------------------------------------------------------

    def announce(self) -> None:
        """A private deal's step 1: the setup, every seat's signing key, no host seed."""
        state = self.state
        m = state.match
        assert m is not None
        state.deal_no += 1
        setup = DealSetup(
            table_id=state.table_id,
            deal_no=state.deal_no,
            dealer=m.dealer,
            seats_in_play=m.seats_in_play,
            deck_size=state.ruleset.deck_size,
            ruleset=wire.ruleset_to_pb(state.preset, state.ruleset),
        )
        keys = {s: state.seats[s].signing_key for s in m.seats_in_play}
        current = DealInProgress(
            HostExchange(setup, _NO_SEED),
            DealRecorder(state.table_id, state.deal_no),
            step=table_pb2.TURN_PHASE_PRIVATE_DEAL,
        )
        current.private = HostPrivateDeal(
            PrivateSetup(
                state.table_id,
                state.deal_no,
                tuple(m.seats_in_play),
                m.dealer,
                state.ruleset.deck_size,
            ),
            keys,
        )
        state.current = current
        announced = current.exchange.announce()
        announced.announced.host_commitment = b""
        announced.announced.private_setup.signing_keys.extend(
            deal_pb2.PrivateSigningKey(seat=s, key=k) for s, k in sorted(keys.items())
        )
        self.scribe.commit(
            EntryDraft(journaled.ANNOUNCE.kind, None, events=[self.scribe.deal_event(announced)])
        )
        self._deadline.arm(self.wait_seconds())

    # --- the messages ----------------------------------------------------------------------

    def send_private(
        self, seat: int, request: table_pb2.SendPrivateRequest
    ) -> table_pb2.SendPrivateResponse:
        """One seat's message: checked, journaled, relayed; what it completes follows."""
        if not self.state.private_cards:
            raise precondition("NOT_PRIVATE", "this table is not a private table")
        secret = self.deal
        if secret is None:
            raise precondition("WRONG_DEAL", "no private deal is being dealt or played now")
        if seat not in secret.setup.seats:
            raise precondition("NOT_IN_DEAL", f"seat {seat} does not play this deal")
        try:
            index, env = secret.receive(seat, bytes(request.envelope))
        except PrivateRefused as refusal:
            raise _refused(str(refusal)) from None
        response = table_pb2.SendPrivateResponse(transcript_seq=index)
        if env is None:
            return response
        relayed = table_pb2.PrivateMessage(
            envelope=request.envelope, seq=index, deal_no=secret.setup.deal_no
        )
        self.scribe.commit(
            EntryDraft(
                journaled.PRIVATE.kind,
                seat,
                request,
                response,
                [(table_pb2.TableEvent(private_message=relayed), {})],
                game=False,
            )
        )
        self._progress(env)
        return response

    def _progress(self, env: Envelope) -> None:
        """What a message taken in completes: the deal's start, a card made public, a
        rebuilt stock ready, the deal's end."""
        current, secret = self.state.current, self.deal
        assert current is not None and secret is not None
        if current.step == table_pb2.TURN_PHASE_PRIVATE_DEAL:
            self._deadline.arm(self.wait_seconds())
            if secret.dealt():
                self._start()
            return
        if current.step == table_pb2.TURN_PHASE_PRIVATE_REVEAL:
            self._deadline.arm(self.wait_seconds())
            if secret.revealed():
                self._finish()
            return
        if env.kind == Kind.SHARES:
            body = env.body()
            assert isinstance(body, SharesBody)
            self._open_public(body)
        if secret.shuffles_due and secret.rebuilt():
            secret.shuffles_due = False

    def _open_public(self, body: SharesBody) -> None:
        """The positions of a SHARES message whose every share is now in: public cards, put
        where they lie in the engine's state (a stand-in id moved to where they stood)."""
        secret, state = self.deal, self.state
        assert secret is not None and state.match is not None and state.match.deal is not None
        dealt = state.match.deal
        for item in body.shares:
            place = (body.round, item.position)
            if place in secret.id_at and secret.owner_opened(place):
                try:
                    dealt, _ = secret.open_place(dealt, place)
                except (FaultFound, PrivateRefused):  # a card no valid deck holds there
                    if self._void_if_a_shuffle_is_false():
                        return
                    raise
        state.match = replace(state.match, deal=dealt)

    def _start(self) -> None:
        """Every hand's shares and the first discard's are in: the engine deals the positions."""
        current, secret = self.state.current, self.deal
        assert current is not None and secret is not None
        try:
            deck = secret.start_deck()
        except FaultFound:  # the first discard opens as no card: only a false deck does that
            if self._void_if_a_shuffle_is_false():
                return
            raise
        engine_events = self.scribe.apply(None, match.StartDeal(tuple(deck)))
        current.step = table_pb2.TURN_PHASE_UNSPECIFIED
        self._deadline.clear()
        out = [self.scribe.engine_event(e) for e in engine_events]
        self.scribe.commit(EntryDraft(journaled.DEAL.kind, None, events=out))

    # --- the turns -------------------------------------------------------------------------

    def before_draw(self, source: int) -> None:
        """A draw from the stock opens its next position to the drawer: there must be one."""
        secret, deal_state = self.deal, self.state.deal_state
        if secret is None or deal_state is None or source != deal_pb2.DRAW_SOURCE_STOCK:
            return
        if secret.shuffles_due:
            raise precondition(
                "SHUFFLE_PENDING",
                "the rebuilt stock is still being shuffled by every seat: draw once it is",
                "R10.1",
            )
        if deal_state.stock:
            secret.last_draw = secret.stock_place(deal_state)

    def check_play_positions(self, seat: int, request: table_pb2.PlayRequest, play: Play) -> None:
        """The play's inline shares taken in, every position it names opened, and every card
        it takes from the hand a card opened, never a stand-in: after a rebuild (R10.1) the
        stand-ins of the new stock's positions are the discards' own ids, so a play naming
        one by its id, its position unopened, would play a card nobody has seen."""
        secret = self.deal
        if secret is None:
            return
        if request.shares:
            self.send_private(seat, table_pb2.SendPrivateRequest(envelope=request.shares))
        for place in request.positions:
            if (place.round, place.position) in secret.id_at:
                raise precondition(
                    "POSITION_NOT_OPENED",
                    f"position {place.position} of deck {place.round} is not opened to "
                    "everyone: send its owner's share first (every other seat's must be in)",
                    "R3",
                )
        hidden = sorted({card for card in play.cards_from_hand() if secret.is_hidden(card)})
        if hidden:
            raise precondition(
                "POSITION_NOT_OPENED",
                f"card id {', '.join(map(str, hidden))} of the play stands for a position of "
                "the hand not opened to everyone: name the card's position "
                "(PlayRequest.positions), its owner's share sent first",
                "R3",
            )

    def check_played(self, seat: int, play: object) -> None:
        """R8.2's exception (S9: every other card of the hand would attach too) is taken at a
        private table only with those cards opened: the host cannot read the others."""
        secret, deal_state = self.deal, self.state.deal_state
        if secret is None or deal_state is None or not isinstance(play, Play):
            return
        discard = play.discard
        mode = deal_state.ruleset.discard_attachable
        if discard is None or mode in (
            rules.DiscardAttachable.FREE,
            rules.DiscardAttachable.AGREED,
        ):
            return
        if deal_state.result is not None:
            return  # a closing discard: the exception was not needed
        i = deal_state.index(seat)
        if mode is rules.DiscardAttachable.CLASSIC and deal_state.opened[i]:
            return
        if not deal.could_attach(deal_state.table, discard):
            return
        if any(secret.is_hidden(c) for c in deal_state.hands[i]):
            last = self.scribe.last_move
            assert last is not None
            self.state.match = last[0]
            raise precondition(
                "DISCARD_ATTACHES",
                f"card id {discard} could be attached to a meld on the table; at a private "
                "table it may be discarded only with every other card of the hand opened",
                "R8.2",
            )

    def moved(self) -> None:
        """A seat moved: a timed-out turn's grace no longer runs."""
        secret = self.deal
        if secret is not None and secret.timed_out:
            secret.timed_out = False
            self._deadline.clear()

    def timed_out(self) -> None:
        """The turn clock ran out: the host cannot play a private seat's turn (it cannot read
        the hand); the seat has its grace period, then the deal is void (R10.3)."""
        secret, current = self.deal, self.state.current
        if secret is None or current is None or current.step != table_pb2.TURN_PHASE_UNSPECIFIED:
            return
        if not secret.timed_out:
            secret.timed_out = True
            self._deadline.arm(float(self.state.grace_seconds))

    # --- the end ---------------------------------------------------------------------------

    def ends(self, engine_events: list[events.Event]) -> bool:
        return self.deal is not None and any(isinstance(e, events.DealEnded) for e in engine_events)

    def hold_end(self, draft: EntryDraft, engine_events: list[events.Event]) -> None:
        """The move that ends the deal: its play is published, its end waits for every
        REVEAL (the hands are scored on their cards, which only the reveals open)."""
        state, current, secret = self.state, self.state.current, self.deal
        assert current is not None and secret is not None
        cut = next(i for i, e in enumerate(engine_events) if isinstance(e, events.DealEnded))
        draft.events = [
            self.scribe.engine_event(e) for e in engine_events[:cut] if wire.is_deal_event(e)
        ]
        due = table_pb2.PrivateRevealDue(deal_no=secret.setup.deal_no)
        draft.events.append((table_pb2.TableEvent(private_reveal_due=due), {}))
        last = self.scribe.last_move
        assert last is not None
        before, seat, action = last
        secret.pending_end = PendingEnd(before, seat, action)
        state.match = before
        current.step = table_pb2.TURN_PHASE_PRIVATE_REVEAL
        self.scribe.commit(draft)
        self._deadline.arm(self.wait_seconds())

    def _finish(self) -> None:
        """Every seat revealed: every hand opened, the ending move applied again and scored."""
        state, current, secret = self.state, self.state.current, self.deal
        assert current is not None and secret is not None and secret.pending_end is not None
        if self._void_if_a_shuffle_is_false():
            return
        pending = secret.pending_end
        before = pending.before
        assert before.deal is not None
        state.match = replace(before, deal=secret.opened_state(before.deal))
        engine_events = self.scribe.apply(pending.seat, pending.action)
        cut = next(i for i, e in enumerate(engine_events) if isinstance(e, events.DealEnded))
        current.step = table_pb2.TURN_PHASE_UNSPECIFIED
        self._deadline.clear()
        out = [self.scribe.engine_event(e) for e in engine_events[cut:] if wire.is_deal_event(e)]
        self.scribe.commit(EntryDraft(journaled.PRIVATE_END.kind, None, events=out))
        self._end_deal([e for e in engine_events if not wire.is_deal_event(e)])

    def void(self, why: str, leaving: list[int], draft: EntryDraft | None = None) -> None:
        """R10.3: the deal is void, no score; the seats ``leaving`` (those it could not go on
        without) leave the match, and the next deal is dealt without them as after any void
        deal. Journaled as the host's own ``PRIVATE_VOID`` step, or as ``draft``."""
        state, current, secret = self.state, self.state.current, self.deal
        assert current is not None and secret is not None and state.match is not None
        if secret.pending_end is not None:
            state.match = secret.pending_end.before
        if state.match.phase is not match.MatchPhase.IN_DEAL:
            # Not dealt yet: the engine deals the positions unseen, so that it counts the
            # void deal as it counts any (R11.5) and passes the deal on (R10.2).
            state.match, _ = match.apply_match(
                state.match, None, match.StartDeal(tuple(range(secret.setup.deck_size)))
            )
        state.match, engine_events = match.void_deal(state.match, f"R10.3: {why}", leaving)
        current.step = table_pb2.TURN_PHASE_UNSPECIFIED
        self._deadline.clear()
        out = [self.scribe.engine_event(e) for e in engine_events if wire.is_deal_event(e)]
        if draft is None:
            draft = EntryDraft(journaled.PRIVATE_VOID.kind, None)
        draft.events = out
        self.scribe.commit(draft)
        self._end_deal([e for e in engine_events if not wire.is_deal_event(e)])

    def deadline_passed(self) -> bool:
        """The deal waited its turn clock and grace for a message (or a timed-out seat its
        grace): void (R10.3). False when no private step was waiting."""
        current, secret = self.state.current, self.deal
        if current is None or secret is None:
            return False
        waiting = current.step in (
            table_pb2.TURN_PHASE_PRIVATE_DEAL,
            table_pb2.TURN_PHASE_PRIVATE_REVEAL,
        )
        if not waiting and not secret.timed_out:
            return False
        late = self.waiting_for()
        seats = ", ".join(f"seat {s}" for s in late) or "a seat"
        self.void(f"{seats} did not send what the deal needed in time", late)
        return True

    def seat_gone(self, seat: int) -> None:
        """A seat is away past its grace (or left the table, or was handed to a host bot):
        if the deal needs it (any deal not over: its key opens every card it has not
        opened), the deal is void (R10.3)."""
        current, secret = self.state.current, self.deal
        if current is None or secret is None or seat not in secret.setup.seats:
            return
        if self.state.seats[seat].stand_in:
            return  # its stand-in holds its keys and plays on (host.table.stand_in)
        if self.state.match is None or self.state.match.phase is match.MatchPhase.OVER:
            return
        self.void(f"seat {seat} is away, and without its key the deal cannot go on", [seat])

    def stand_in_lost(self, seat: int) -> None:
        """The stand-in of ``seat`` cannot sign (the signing key its player handed is gone
        from the host's disk): as a seat gone past its grace, the deal is void (R10.3) and
        the seat leaves the match. Nothing when no deal in play needs it."""
        secret = self.in_play()
        if secret is None or seat not in secret.setup.seats:
            return
        draft = EntryDraft(journaled.STAND_IN_LOST.kind, seat)
        self.void(f"seat {seat}'s stand-in lost the keys its player handed it", [seat], draft)

    def shuffle_checked(self, digest: bytes, holds: bool) -> int | None:
        """The host's check of a relayed shuffle came back: the shuffler whose proof does not
        hold (None when it holds, or when its deal is no longer in play)."""
        secret = self.in_play()
        if secret is None:
            return None
        check = secret.unchecked_shuffles.pop(digest, None)
        return None if check is None or holds else check.seat

    def shuffle_false(self, seat: int) -> None:
        """A seat's shuffle, relayed, does not hold: every seat refuses that deck, and the
        deal cannot go on without a shuffle of that seat's that holds. As for a seat that
        never sent it, the deal is void (R10.3) and the seat leaves the match."""
        secret = self.in_play()
        if secret is None or seat not in secret.setup.seats:
            return
        draft = EntryDraft(journaled.SHUFFLE_FALSE.kind, seat)
        self.void(_shuffle_false_why(seat), [seat], draft)

    def _void_if_a_shuffle_is_false(self) -> bool:
        """Every shuffle proof not checked yet, checked now, in the job: before the deal is
        scored, or when a card opens as no valid deck could have it. One that does not hold
        voids the deal (R10.3); True when it did."""
        secret = self.deal
        assert secret is not None
        seat = secret.check_shuffles()
        if seat is None:
            return False
        self.void(_shuffle_false_why(seat), [seat])
        return True

    def waiting_for(self) -> list[int]:
        """The seats whose message the deal waits for now."""
        current, secret = self.state.current, self.deal
        assert current is not None and secret is not None
        ledger, setup = secret.ledger, secret.setup
        if current.step == table_pb2.TURN_PHASE_PRIVATE_REVEAL:
            return [s for s in setup.seats if s not in ledger.secrets]
        if current.step != table_pb2.TURN_PHASE_PRIVATE_DEAL:
            # A turn: the seat to move, unless it waits on others. A rebuilt stock's shuffle
            # (R10.1) is its shuffler's to send; a card drawn from the stock is read with
            # every other seat's share of it: a seat that withholds one, not the drawer,
            # is the one the deal waits for.
            if secret.shuffles_due:
                return [ledger.next_shuffler]
            deal_state = self.state.deal_state
            if deal_state is None:
                return []
            drawn = secret.drawn
            if drawn is not None and drawn[0] == deal_state.turn:
                withheld = ledger.missing_shares(drawn[1][0], drawn[1][1], deal_state.turn)
                if withheld:
                    return withheld
            return [deal_state.turn]
        if ledger.phase == Phase.KEYS:
            return [s for s in setup.seats if s not in ledger.keys]
        if ledger.phase == Phase.SHUFFLING:
            return [ledger.next_shuffler]
        if ledger.phase == Phase.CUTTING:
            return [setup.cutter]
        missing: set[int] = set()
        for owner, positions in setup.positions.hands.items():
            for position in positions:
                missing.update(ledger.missing_shares(0, position, owner))
        held = ledger.shares.get((0, setup.positions.first_discard), {})
        missing.update(s for s in setup.seats if s not in held)
        return sorted(missing)
