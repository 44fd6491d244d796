"""One table: its state record and the parts it holds, and the match's turns played at it.

A table is composed: ``state`` (``host.table.state``) is what it is, its
``scribe`` the one way a change is recorded, ``seating`` who sits where and
``deals`` the deal cycle (fair deal, rebuilds, deal end, pause, rientro).
The table itself starts the match and plays its turns (draw, play, put back
a taken discard, a timed-out turn), and answers the services and the host's
bots with the methods they call. Everything here runs inside the table's task
(``TableTask.call``) and never awaits.
"""

from __future__ import annotations

import functools

from host.edge.errors import malformed, permission_denied, precondition
from host.edge.rulesets import bad_ruleset, table_ruleset
from host.journal import journaled
from host.table.deal_cycle import DealCycle
from host.table.links import TableLinks
from host.table.outbox import EntryDraft
from host.table.scribe import Scribe
from host.table.seating import Seating
from host.table.state import DealInProgress, SeatState, TableState
from scala40_net import actions, deal, events, match, wire
from scala40_net.bots.medium import bare_discard
from scala40_net.errors import InvalidRuleset
from scala40_net.pb import lobby_pb2, ruleset_pb2, table_pb2

MAX_CHAT = 500


class Table:
    """A table: create it with its config, ``start`` its task, ``call`` into it."""

    state: TableState
    links: TableLinks
    scribe: Scribe
    seating: Seating
    deals: DealCycle

    def __init__(self, state: TableState, links: TableLinks) -> None:
        self.state = state
        self.links = links
        self.scribe = Scribe(self.state, self.links)
        self.seating = Seating(self.state, self.scribe)
        self.deals = DealCycle(self.state, self.scribe)

    # --- What the host's bots read of the table (host.table.bots) ---------------------------------

    @property
    def seats(self) -> list[SeatState]:
        return self.state.seats

    @property
    def current(self) -> DealInProgress | None:
        return self.state.current

    @property
    def match(self) -> match.MatchState | None:
        return self.state.match

    @property
    def seq(self) -> int:
        return self.state.seq

    @property
    def bot_seeds(self) -> dict[tuple[int, int], tuple[bytes, int]]:
        return self.state.bot_seeds

    @property
    def deal_state(self) -> deal.DealState | None:
        return self.state.deal_state

    # --- Seating (host.table.seating) -------------------------------------------------------------

    @journaled.JOIN.accepts
    def join(self, request: lobby_pb2.JoinTableRequest) -> lobby_pb2.JoinTableResponse:
        return self.seating.join(request)

    @journaled.SPECTATE.accepts
    def spectate(self, request: lobby_pb2.SpectateTableRequest) -> lobby_pb2.SpectateTableResponse:
        return self.seating.spectate(request)

    @journaled.ADD_BOT.accepts
    def add_bot(self, caller: int, request: lobby_pb2.AddBotRequest) -> lobby_pb2.AddBotResponse:
        return self.seating.add_bot(caller, request)

    @journaled.LEAVE.accepts
    def leave(
        self, seat: int, request: lobby_pb2.LeaveTableRequest
    ) -> lobby_pb2.LeaveTableResponse:
        response = self.seating.leave(seat, request)
        self.deals.private.seat_gone(seat)  # a private deal cannot go on without its key
        return response

    def free_seat(self, caller: int, seat: int) -> None:
        self.seating.free_seat(caller, seat)

    @journaled.FREE_SEAT.accepts
    def _seat_freed(self, caller: int, freed: lobby_pb2.SeatInfo) -> None:
        self.seating.free_seat(caller, freed.seat)

    def mark_away(self, seat: int, reason: int) -> None:
        self.seating.mark_away(seat, reason, self._rematch_if_agreed)
        self.deals.private.seat_gone(seat)

    @journaled.AWAY.accepts
    def _marked_away(self, seat: int, said: lobby_pb2.SeatInfo) -> None:
        self.seating.mark_away(seat, said.away, self._rematch_if_agreed)
        self.deals.private.seat_gone(seat)

    @journaled.BACK.accepts
    def mark_back(self, seat: int) -> None:
        self.seating.mark_back(seat)

    @journaled.STAND_IN_LOST.accepts
    def stand_in_lost(self, seat: int) -> None:
        self.deals.private.stand_in_lost(seat)

    def shuffle_checked(self, digest: bytes, holds: bool) -> None:
        """The verdict of the host's check of a relayed shuffle (host.table.shuffle_checks)."""
        seat = self.deals.private.shuffle_checked(digest, holds)
        if seat is not None:
            self.shuffle_false(seat)

    @journaled.SHUFFLE_FALSE.accepts
    def shuffle_false(self, seat: int) -> None:
        self.deals.private.shuffle_false(seat)

    def decider(self) -> int | None:
        return self.seating.decider()

    def seat_info(self, seat: int, connected_seats: set[int] | None = None) -> lobby_pb2.SeatInfo:
        return self.seating.seat_info(seat, connected_seats)

    def connection_changed(self, seat: int) -> None:
        """A seat's streams opened or closed: everyone is told, when that changed, and a
        pause between deals no longer waits for a person who has gone."""
        self.seating.connection_changed(seat)
        self.deals.pause_without(seat)

    @journaled.CONNECTION.accepts
    def _connection_told(self, seat: int) -> None:
        """Played back, as the journal says it was told (whatever the streams of the moment),
        and with no pause ended by it: the journal's next entry says when the deal came."""
        self.seating.tell_connection(seat)

    # --- The deal cycle (host.table.deal_cycle) ---------------------------------------------------

    @journaled.COMMIT.accepts
    def commit_seed(
        self,
        seat: int,
        request: table_pb2.CommitSeedRequest,
        bot_seed: tuple[bytes, int] | None = None,
    ) -> table_pb2.CommitSeedResponse:
        return self.deals.commit_seed(seat, request, bot_seed)

    @journaled.REVEAL.accepts
    def reveal_seed(
        self, seat: int, request: table_pb2.RevealSeedRequest
    ) -> table_pb2.RevealSeedResponse:
        return self.deals.reveal_seed(seat, request)

    @journaled.PRIVATE.accepts
    def send_private(
        self, seat: int, request: table_pb2.SendPrivateRequest
    ) -> table_pb2.SendPrivateResponse:
        return self.deals.private.send_private(seat, request)

    @journaled.READY.accepts
    def ready(self, seat: int, request: table_pb2.ReadyRequest) -> table_pb2.ReadyResponse:
        return self.deals.ready(seat, request)

    def answer_rientro(
        self, seat: int, buy_back: bool, request: table_pb2.AnswerRientroRequest | None = None
    ) -> table_pb2.AnswerRientroResponse:
        return self.deals.answer_rientro(seat, buy_back, request)

    @journaled.RIENTRO.accepts
    def _rientro_answered(
        self, seat: int, request: table_pb2.AnswerRientroRequest
    ) -> table_pb2.AnswerRientroResponse:
        return self.deals.answer_rientro(seat, request.buy_back, request)

    def deadline_passed(self) -> None:
        self.deals.deadline_passed()

    @journaled.accept_all(*journaled.DEADLINE_STEPS)
    def _deadline_step(self) -> None:
        """Played back: the deadline passed where one of its steps is the first of a job."""
        self.links.deadline.clear()
        self.deals.deadline_passed()

    def resume(self) -> None:
        self.deals.resume()

    def match_update(self) -> table_pb2.MatchUpdate:
        return self.deals.match_update()

    def deal_record(self, seat: int | None, deal_no: int) -> bytes:
        return self.deals.deal_record(seat, deal_no)

    # --- The table as the lobby lists it ----------------------------------------------------

    @functools.cached_property
    def _ruleset_options(self) -> ruleset_pb2.RulesetOptions:
        """The table's options on the wire: made once, and again when a rematch changes them."""
        return wire.ruleset_options_to_pb(self.state.ruleset)

    def summary(self) -> lobby_pb2.TableSummary:
        state = self.state
        connected_seats = self.links.presence.connected_seats()
        return lobby_pb2.TableSummary(
            table_id=state.table_id,
            name=state.config.name,
            ruleset=self._ruleset_options,  # copied into the summary, never shared
            preset=wire.PRESET_BY_NAME[state.preset],
            seats=[self.seating.seat_info(n, connected_seats) for n in range(len(state.seats))],
            phase=state.phase,  # type: ignore[arg-type]
            has_password=state.password is not None,
            invited_only=bool(state.config.invited_keys),
            private_cards=state.private_cards,
            turn_seconds=state.turn_seconds,
            grace_seconds=state.grace_seconds,
        )

    def may_hand_back(self, seat: int) -> bool:
        """Whether the player may take ``seat`` back now: at a turn boundary (not between its
        draw and its discard), and not while a fair-deal exchange the host bot took part in
        for it is still open (the bot holds that seed)."""
        current, deal_state = self.state.current, self.state.deal_state
        if current is not None and current.step != table_pb2.TURN_PHASE_UNSPECIFIED:
            return False
        return not (
            deal_state is not None
            and not deal_state.is_over
            and deal_state.turn == seat
            and deal_state.phase is not deal.Phase.DRAW
        )

    # --- The match and its turns ------------------------------------------------------------

    @journaled.CHAT.accepts
    def chat(self, seat: int, request: table_pb2.SendChatRequest) -> table_pb2.SendChatResponse:
        text = request.text.strip()
        if not 1 <= len(text) <= MAX_CHAT:
            raise malformed(f"a chat line has 1 to {MAX_CHAT} characters")
        line = table_pb2.ChatMessage(seat=seat, name=self.state.seats[seat].name, text=text)
        chat = table_pb2.TableEvent(chat=line)
        self.scribe.commit(
            EntryDraft(journaled.CHAT.kind, seat, request, events=[(chat, {})], game=False)
        )
        return table_pb2.SendChatResponse()

    def start_match_asked(
        self, seat: int, request: lobby_pb2.StartMatchRequest
    ) -> lobby_pb2.StartMatchResponse:
        """A seated player asks to start the match: only the table's first player (the first
        person who joined and is still seated, ``decider``) may, so a stranger who takes a
        free seat cannot start a friend's table early. (A journal's start is played back
        by ``start_match`` as it was accepted.)"""
        if self.state.phase == lobby_pb2.TABLE_PHASE_WAITING and seat != self.decider():
            raise permission_denied(
                "NOT_THE_DECIDER", "only the first person who joined this table starts its match"
            )
        return self.start_match(seat, request)

    @journaled.START.accepts
    def start_match(
        self, seat: int, request: lobby_pb2.StartMatchRequest
    ) -> lobby_pb2.StartMatchResponse:
        state = self.state
        if state.phase != lobby_pb2.TABLE_PHASE_WAITING:
            raise precondition("MATCH_STARTED", "the match has already started")
        players = [s.number for s in state.seats if s.taken]
        try:
            state.ruleset.check_players(len(players))
        except InvalidRuleset as error:
            raise precondition(
                "NOT_ENOUGH_PLAYERS",
                str(error).partition(": ")[2] or str(error),
                str(error).partition(":")[0],
            ) from None
        self._begin_match(EntryDraft(journaled.START.kind, seat, request))
        return lobby_pb2.StartMatchResponse()

    def _begin_match(self, draft: EntryDraft) -> None:
        """A match of every seat taken: its first dealer, its start journaled as ``draft``
        (with the match_started event first), the host bots seated, the first deal announced."""
        state = self.state
        players = [s.number for s in state.seats if s.taken]
        state.phase = lobby_pb2.TABLE_PHASE_PLAYING
        # R2.1: the first dealer is drawn at random by the host, announced before any commitment.
        first_dealer = self.links.choices.first_dealer(players)
        state.match = match.start_match(state.ruleset, players, first_dealer)
        started = table_pb2.MatchStarted(
            first_dealer_seat=first_dealer, seats=players, ruleset=self._ruleset_options
        )
        draft.events.insert(0, (table_pb2.TableEvent(match_started=started), {}))
        self.scribe.commit(draft)
        for s in state.bot_seats():
            self.scribe.start_bot(s)
        self.deals.announce_deal()

    # --- Another match at the same seats ----------------------------------------------------

    def _rematch_waits_for(self) -> list[int]:
        """The people's seats that have not agreed yet. A seat a host bot plays has no one
        there to agree: its stand-in agrees as a host bot does (and a seat whose player
        left has no say)."""
        return [
            s.number
            for s in self.state.seats
            if s.taken and not s.played_by_host and s.number not in self.state.rematch_agreed
        ]

    def _change_rules(self, seat: int, rules: ruleset_pb2.Ruleset) -> None:
        """The first player's new rules for the next match; every agreement so far is void."""
        state = self.state
        if seat != self.seating.decider():
            raise permission_denied(
                "NOT_THE_DECIDER",
                "only the first player at the table changes the rules of a rematch",
            )
        ruleset = table_ruleset(rules, len(state.seats))
        try:
            ruleset.check_players(sum(1 for s in state.seats if s.taken))
        except InvalidRuleset as error:
            raise bad_ruleset(error) from None
        # A new config, not the old one changed: the task rebuilds a table from the config
        # it was created with (its journal plays this change back).
        config = lobby_pb2.CreateTableRequest()
        config.CopyFrom(state.config)
        config.ruleset.CopyFrom(rules)
        state.config, state.ruleset = config, ruleset
        self.__dict__.pop("_ruleset_options", None)
        state.rematch_agreed.clear()

    @journaled.REMATCH.accepts
    def rematch(self, seat: int, request: table_pb2.RematchRequest) -> table_pb2.RematchResponse:
        """After the match: the seat agrees to another with the same seats (and, from the first
        player, maybe other rules); the last agreement starts it."""
        response = table_pb2.RematchResponse()
        if self.scribe.repeat(seat, journaled.REMATCH, request.context) is not None:
            return response
        state = self.state
        if state.phase != lobby_pb2.TABLE_PHASE_FINISHED:
            raise precondition(
                "MATCH_NOT_OVER", "another match can be agreed once this one is over"
            )
        if state.seats[seat].away == lobby_pb2.AWAY_REASON_LEFT:
            raise precondition("LEFT_TABLE", f"seat {seat}'s player has left the table")
        if request.HasField("rules"):
            self._change_rules(seat, request.rules)
        state.rematch_agreed.add(seat)
        draft = EntryDraft(
            journaled.REMATCH.kind,
            seat,
            request,
            response,
            request_id=request.context.request_id,
            game=False,
        )
        if not self._rematch_if_agreed(draft):
            update = table_pb2.RematchUpdate(
                agreed_seats=sorted(state.rematch_agreed),
                waiting_for_seats=self._rematch_waits_for(),
                ruleset=self._ruleset_options,
            )
            draft.events.append((table_pb2.TableEvent(rematch=update), {}))
            self.scribe.commit(draft)
        return response

    def _rematch_if_agreed(self, draft: EntryDraft) -> bool:
        """After a match, once someone agreed and nobody is waited for: the next match
        starts, journaled as ``draft``. False (nothing done, nothing committed) otherwise."""
        state = self.state
        if (
            state.phase != lobby_pb2.TABLE_PHASE_FINISHED
            or not state.rematch_agreed
            or self._rematch_waits_for()
        ):
            return False
        # Who agreed is here: a seat a host bot played for its player is theirs again. A
        # seat whose stand-in agreed for it stays the stand-in's until its player comes
        # back (a new stream), as during a match; a seat whose player left, for good.
        for s in sorted(state.rematch_agreed):
            if state.seats[s].away:
                state.seats[s].away = 0
                draft.events.append(self.seating.seat_changed(s))
        state.rematch_agreed.clear()
        draft.game = True
        self._begin_match(draft)
        return True

    def _check_fresh(self, context: table_pb2.MoveContext) -> None:
        state = self.state
        if context.last_seen_seq > state.seq:
            raise malformed(
                f"last_seen_seq {context.last_seen_seq} is after the table's last event {state.seq}"
            )
        if context.last_seen_seq < state.last_game_seq:
            raise precondition(
                "STALE_VIEW",
                f"the table changed after event {context.last_seen_seq} "
                f"(now at {state.last_game_seq}): "
                "read the table again (GetView) and decide again",
            )

    def _turn_state(self, seat: int) -> deal.DealState:
        m, deal_state = self.state.match, self.state.deal_state
        current = self.state.current
        if current is not None and current.step != table_pb2.TURN_PHASE_UNSPECIFIED:
            raise precondition("NO_DEAL", "no deal is being played now", "R3")
        if m is None or m.phase is not match.MatchPhase.IN_DEAL or deal_state is None:
            raise precondition("NO_DEAL", "no deal is being played now", "R3")
        if seat not in deal_state.seats:
            raise precondition("NOT_IN_DEAL", f"seat {seat} does not play this deal", "R3")
        if deal_state.turn != seat:
            raise precondition(
                "NOT_YOUR_TURN", f"it is seat {deal_state.turn}'s turn, not seat {seat}'s", "R3"
            )
        return deal_state

    @journaled.DRAW.accepts
    def draw(self, seat: int, request: table_pb2.DrawRequest) -> table_pb2.DrawResponse:
        repeated = self.scribe.repeat(seat, journaled.DRAW, request.context)
        if repeated is not None:
            return table_pb2.DrawResponse.FromString(repeated)
        try:
            source = wire.draw_source_from_pb(request.source)
        except wire.WireError as error:
            raise malformed(str(error)) from None
        self._turn_state(seat)
        self._check_fresh(request.context)
        private = self.deals.private
        private.before_draw(request.source)
        engine_events = self.scribe.apply(seat, actions.Draw(source))
        deal_state = self.state.deal_state
        assert deal_state is not None
        response = table_pb2.DrawResponse(card=deal_state.hand(seat)[-1])
        secret = private.deal
        if secret is not None and source is actions.DrawSource.STOCK:
            # The host does not know the card: the position drawn is what the seat reads.
            response.card = 0
            response.position.round, response.position.position = secret.place_of[
                deal_state.hand(seat)[-1]
            ]
        self._moved(journaled.DRAW, seat, request, response, engine_events)
        return response

    @journaled.RETURN_DISCARD.accepts
    def return_discard(
        self, seat: int, request: table_pb2.ReturnDiscardRequest
    ) -> table_pb2.ReturnDiscardResponse:
        repeated = self.scribe.repeat(seat, journaled.RETURN_DISCARD, request.context)
        if repeated is not None:
            return table_pb2.ReturnDiscardResponse.FromString(repeated)
        self._turn_state(seat)
        self._check_fresh(request.context)
        engine_events = self.scribe.apply(seat, actions.ReturnDiscard())
        response = table_pb2.ReturnDiscardResponse()
        self._moved(journaled.RETURN_DISCARD, seat, request, response, engine_events)
        return response

    @journaled.PLAY.accepts
    def play(self, seat: int, request: table_pb2.PlayRequest) -> table_pb2.PlayResponse:
        repeated = self.scribe.repeat(seat, journaled.PLAY, request.context)
        if repeated is not None:
            return table_pb2.PlayResponse.FromString(repeated)
        try:
            play = wire.play_from_pb(
                request.operations,
                request.discard if request.HasField("discard") else None,
                self.state.ruleset.decks,
            )
        except wire.WireError as error:
            raise malformed(str(error)) from None
        self._turn_state(seat)
        self._check_fresh(request.context)
        self.deals.private.check_play_positions(seat, request, play)
        engine_events = self.scribe.apply(seat, play)
        self.deals.private.check_played(seat, play)
        response = table_pb2.PlayResponse()
        self._moved(journaled.PLAY, seat, request, response, engine_events)
        return response

    def _moved(
        self,
        kind: journaled.Journaled,
        seat: int,
        request: table_pb2.DrawRequest | table_pb2.PlayRequest | table_pb2.ReturnDiscardRequest,
        response: table_pb2.DrawResponse | table_pb2.PlayResponse | table_pb2.ReturnDiscardResponse,
        engine_events: list[events.Event],
    ) -> None:
        """A seat's accepted move: journaled with its request id, then what it leads to."""
        draft = EntryDraft(
            kind.kind, seat, request, response, request_id=request.context.request_id
        )
        self.deals.after_move(draft, engine_events)

    @journaled.accept_all(journaled.TIMEOUT_DRAW, journaled.TIMEOUT_RETURN, journaled.TIMEOUT_PLAY)
    def play_timed_out_turn(self) -> None:
        """The turn clock ran out: the host plays the turn as a cautious player would (draw
        from the stock, or put back a taken discard, which draws from it; lay nothing;
        discard as the medium bot discards: never a joker while another card may go, and
        rather a card the next player cannot use), marks the moves by_host, and a host bot
        plays the seat until its player is back. Played back, the discard is the journal's
        (an older host discarded the costliest card)."""
        state = self.state
        if state.private_cards:
            self.deals.private.timed_out()
            return
        deal_state = state.deal_state
        if (
            state.match is None
            or deal_state is None
            or deal_state.phase not in (deal.Phase.DRAW, deal.Phase.PLAY)
        ):
            raise precondition("NO_TURN", "no turn is being played now", "R3")
        seat = deal_state.turn
        apply, after_move = self.scribe.apply, self.deals.after_move
        state.moving_for_seat = True
        try:
            if deal_state.phase is deal.Phase.DRAW:
                drawn = apply(seat, actions.Draw(actions.DrawSource.STOCK))
                after_move(EntryDraft(journaled.TIMEOUT_DRAW.kind, seat), drawn)
            elif deal_state.taken_discard is not None:
                back = apply(seat, actions.ReturnDiscard())
                after_move(EntryDraft(journaled.TIMEOUT_RETURN.kind, seat), back)
            deal_state = state.deal_state
            assert deal_state is not None
            discard = bare_discard(deal_state)
            if discard is not None:
                discard = self.links.choices.timed_out_discard(discard)
                played = apply(seat, actions.Play((), discard))
                after_move(EntryDraft(journaled.TIMEOUT_PLAY.kind, seat), played)
        finally:
            state.moving_for_seat = False
        if not state.seats[seat].away:
            self.seating.mark_away(seat, lobby_pb2.AWAY_REASON_TIMED_OUT)
