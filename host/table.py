"""One table as the services see it: its seats (lobby), its turns (moves), its views.

Everything here runs inside the table's task (``TableTask.call``); the deals
themselves, with the fair-deal exchange, are ``DealingTable``'s, and the state
and the way a change is recorded ``TableCore``'s.
"""

from __future__ import annotations

import functools
import unicodedata

import grpc

from host import auth
from host.errors import Refusal, malformed, not_found, permission_denied, precondition
from host.journal import Extras
from host.limits import SPECTATORS_PER_TABLE
from host.outbox import EntryDraft
from host.table_core import SeatState
from host.table_deal import DealingTable
from scala40_net import actions, deal, match, wire
from scala40_net.cards import face
from scala40_net.errors import InvalidRuleset
from scala40_net.melds import face_points
from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2

MAX_NAME = 24
MAX_CHAT = 500


class Table(DealingTable):
    """A table: create it with its config, ``start`` its task, ``call`` into it."""

    def _seat_changed(
        self, seat: int
    ) -> tuple[table_pb2.TableEvent, dict[int, deal_pb2.PrivateDealEvent]]:
        info = self.seat_info(seat)
        self.seats[seat].told_connected = info.connected
        return table_pb2.TableEvent(seat_changed=info), {}

    def seat_info(self, seat: int, connected_seats: set[int] | None = None) -> lobby_pb2.SeatInfo:
        s = self.seats[seat]
        if connected_seats is None:
            connected_seats = self.presence.connected_seats()
        connected = s.is_bot or (s.taken and seat in connected_seats)
        return lobby_pb2.SeatInfo(
            seat=seat,
            taken=s.taken,
            name=s.name,
            bot=s.is_bot,
            connected=connected,
            away=s.away,  # type: ignore[arg-type]
            decides_absences=seat == self.decider(),
        )

    def decider(self) -> int | None:
        """The seat that may decide for absent ones (DecideAbsence): the first person who
        joined and is still at the table."""
        return next(
            (
                n
                for n in self.joined
                if self.seats[n].taken and self.seats[n].away != lobby_pb2.AWAY_REASON_LEFT
            ),
            None,
        )

    @functools.cached_property
    def _ruleset_options(self) -> ruleset_pb2.RulesetOptions:
        """The table's options on the wire: its ruleset never changes, so made once."""
        return wire.ruleset_options_to_pb(self.ruleset)

    def summary(self) -> lobby_pb2.TableSummary:
        connected_seats = self.presence.connected_seats()
        return lobby_pb2.TableSummary(
            table_id=self.table_id,
            name=self.config.name,
            ruleset=self._ruleset_options,  # copied into the summary, never shared
            preset=wire.PRESET_BY_NAME[self.preset],
            seats=[self.seat_info(n, connected_seats) for n in range(len(self.seats))],
            phase=self.phase,
            has_password=self.password is not None,
            turn_seconds=self.turn_seconds,
            grace_seconds=self.grace_seconds,
        )

    def _player_name(self, given: str) -> str:
        """A name others will read: printable text, trimmed, unique at the table; "Bot …"
        names are the host's bots'."""
        name = " ".join(given.split())
        if not 1 <= len(name) <= MAX_NAME:
            raise malformed(f"a player name has 1 to {MAX_NAME} characters")
        # Control characters (ESC sequences, NUL) and format ones (the bidirectional
        # overrides that make a name read backwards) have no place in a name.
        if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in name):
            raise malformed("a player name is printable text only: no control characters")
        if name.casefold().startswith("bot ") or name.casefold() == "bot":
            raise malformed('names starting with "Bot" are for the host\'s bots')
        if any(s.taken and s.name.casefold() == name.casefold() for s in self.seats):
            raise Refusal(
                grpc.StatusCode.ALREADY_EXISTS,
                "NAME_TAKEN",
                f"somebody at this table is called {name} already: choose another name",
            )
        return name

    def free_seat(self, caller: int, seat: int) -> None:
        """Before the match: the table's first player frees a seat someone took (a squatter)."""
        if caller != self.decider():
            raise permission_denied(
                "NOT_THE_DECIDER", "only the first person who joined this table frees seats"
            )
        if self.phase != lobby_pb2.TABLE_PHASE_WAITING:
            raise precondition("MATCH_STARTED", "the match has started: its seats stay")
        if seat >= len(self.seats) or not self.seats[seat].taken or seat == caller:
            raise malformed(f"seat {seat} is not another player's seat at this table")
        self.seats[seat] = SeatState(seat)
        if seat in self.joined:
            self.joined.remove(seat)
        freed = lobby_pb2.SeatInfo(seat=seat)
        self._commit(
            EntryDraft(
                "free_seat",
                caller,
                freed,
                events=[self._seat_changed(seat)],
                game=False,
                extras=Extras(forget_seat=seat),
            )
        )
        self.outbox.after_commit(lambda: self.tokens.remove_seat(self.table_id, seat))

    def _free_seat(self, wanted: int | None) -> int:
        if wanted is not None:
            if wanted >= len(self.seats):
                raise not_found(
                    "NO_SUCH_SEAT", f"this table has seats 0..{len(self.seats) - 1}, not {wanted}"
                )
            if self.seats[wanted].taken:
                raise Refusal(
                    grpc.StatusCode.ALREADY_EXISTS, "SEAT_TAKEN", f"seat {wanted} is taken"
                )
            return wanted
        free = next((s.number for s in self.seats if not s.taken), None)
        if free is None:
            raise Refusal(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "TABLE_FULL",
                "every seat of this table is taken",
            )
        return free

    def join(self, request: lobby_pb2.JoinTableRequest) -> lobby_pb2.JoinTableResponse:
        name = self._player_name(request.player_name)
        if self.phase != lobby_pb2.TABLE_PHASE_WAITING:
            raise precondition(
                "MATCH_STARTED", "the match has started: seats can no longer be taken"
            )
        seat = self._free_seat(request.seat if request.HasField("seat") else None)
        token = auth.new_token()
        digest = auth.token_digest(token)
        self.seats[seat] = SeatState(seat, name, True, 0)
        self.joined.append(seat)
        response = lobby_pb2.JoinTableResponse(seat=seat, seat_token=token)
        stored = lobby_pb2.JoinTableResponse(seat=seat)  # the journal never holds the token itself
        kept = lobby_pb2.JoinTableRequest()
        kept.CopyFrom(request)
        kept.ClearField("password")  # nor the table's password
        self._commit(
            EntryDraft(
                "join",
                seat,
                kept,
                stored,
                [self._seat_changed(seat)],
                game=False,
                extras=Extras(tokens=((digest, seat),)),
            )
        )
        principal = auth.Principal(self.table_id, seat)
        self.outbox.after_commit(lambda: self.tokens.add(digest, principal))
        return response

    def spectate(self, request: lobby_pb2.SpectateTableRequest) -> lobby_pb2.SpectateTableResponse:
        if self.spectators >= SPECTATORS_PER_TABLE:
            raise Refusal(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "TOO_MANY_SPECTATORS",
                f"this table has its {SPECTATORS_PER_TABLE} spectators already",
            )
        self.spectators += 1
        token = auth.new_token()
        digest = auth.token_digest(token)
        self._commit(EntryDraft("spectate", None, extras=Extras(tokens=((digest, None),))))
        principal = auth.Principal(self.table_id, None)
        self.outbox.after_commit(lambda: self.tokens.add(digest, principal))
        return lobby_pb2.SpectateTableResponse(spectator_token=token)

    def add_bot(self, caller: int, request: lobby_pb2.AddBotRequest) -> lobby_pb2.AddBotResponse:
        if self.phase != lobby_pb2.TABLE_PHASE_WAITING:
            raise precondition("MATCH_STARTED", "bots are seated before the match starts")
        if request.level not in lobby_pb2.BotLevel.values():
            raise malformed(f"bot level {request.level} is not a known level")
        seat = self._free_seat(request.seat if request.HasField("seat") else None)
        level = request.level or lobby_pb2.BOT_LEVEL_MEDIUM
        self.seats[seat] = SeatState(seat, f"Bot {seat}", True, level)
        self._commit(
            EntryDraft(
                "add_bot",
                caller,
                request,
                lobby_pb2.AddBotResponse(seat=seat),
                [self._seat_changed(seat)],
                game=False,
            )
        )
        return lobby_pb2.AddBotResponse(seat=seat)

    def leave(
        self, seat: int, request: lobby_pb2.LeaveTableRequest
    ) -> lobby_pb2.LeaveTableResponse:
        if self.phase == lobby_pb2.TABLE_PHASE_WAITING:
            self.seats[seat] = SeatState(seat)
            if seat in self.joined:
                self.joined.remove(seat)
        else:
            # During a match the seat keeps playing, and keeps its score: a host bot plays
            # it to the end of the match.
            self.seats[seat].away = lobby_pb2.AWAY_REASON_LEFT
        self._commit(
            EntryDraft(
                "leave",
                seat,
                request,
                events=[self._seat_changed(seat)],
                game=False,
                extras=Extras(forget_seat=seat),
            )
        )
        self.outbox.after_commit(lambda: self.tokens.remove_seat(self.table_id, seat))
        if self.phase == lobby_pb2.TABLE_PHASE_PLAYING:
            self._start_bot(seat)
        return lobby_pb2.LeaveTableResponse()

    def connection_changed(self, seat: int) -> None:
        """A seat's streams opened or closed: everyone sees who is there, when that changed (a
        seat with two streams is connected while either is open). Played back, every
        journaled entry is made again, whatever the streams of the moment."""
        s = self.seats[seat]
        if not s.taken:
            return
        connected = s.is_bot or seat in self.presence.connected_seats()
        if self.replaying or connected != s.told_connected:
            self._commit(
                EntryDraft("connection", seat, events=[self._seat_changed(seat)], game=False)
            )
        self.pause_without(seat)

    def mark_away(self, seat: int, reason: int) -> None:
        """A host bot plays ``seat`` for its player from now on, until the player is back."""
        s = self.seats[seat]
        if self.phase != lobby_pb2.TABLE_PHASE_PLAYING or not s.taken or s.is_bot:
            raise precondition(
                "NOT_A_PLAYER", f"seat {seat} has no player in a match to stand in for"
            )
        if s.away:
            raise precondition("ALREADY_AWAY", f"a host bot already plays seat {seat}")
        s.away = reason
        said = lobby_pb2.SeatInfo(seat=seat, away=reason)  # type: ignore[arg-type]
        self._commit(EntryDraft("away", seat, said, events=[self._seat_changed(seat)], game=False))
        self._start_bot(seat)

    def mark_back(self, seat: int) -> None:
        """The player of ``seat`` plays it again (the host bot stops at its next step)."""
        s = self.seats[seat]
        if not s.away or s.away == lobby_pb2.AWAY_REASON_LEFT:
            raise precondition(
                "NOT_AWAY", f"seat {seat} is not played by a host bot for its player"
            )
        s.away = 0
        self._commit(EntryDraft("back", seat, events=[self._seat_changed(seat)], game=False))

    def may_hand_back(self, seat: int) -> bool:
        """Whether the player may take ``seat`` back now: at a turn boundary (not between its
        draw and its discard), and not while a fair-deal exchange the host bot took part in
        for it is still open (the bot holds that seed)."""
        current, state = self.current, self.deal_state
        if current is not None and current.step != table_pb2.TURN_PHASE_UNSPECIFIED:
            return False
        return not (
            state is not None
            and not state.is_over
            and state.turn == seat
            and state.phase is not deal.Phase.DRAW
        )

    def chat(self, seat: int, request: table_pb2.SendChatRequest) -> table_pb2.SendChatResponse:
        text = request.text.strip()
        if not 1 <= len(text) <= MAX_CHAT:
            raise malformed(f"a chat line has 1 to {MAX_CHAT} characters")
        line = table_pb2.ChatMessage(seat=seat, name=self.seats[seat].name, text=text)
        chat = table_pb2.TableEvent(chat=line)
        self._commit(EntryDraft("chat", seat, request, events=[(chat, {})], game=False))
        return table_pb2.SendChatResponse()

    def start_match(
        self, seat: int, request: lobby_pb2.StartMatchRequest
    ) -> lobby_pb2.StartMatchResponse:
        if self.phase != lobby_pb2.TABLE_PHASE_WAITING:
            raise precondition("MATCH_STARTED", "the match has already started")
        players = [s.number for s in self.seats if s.taken]
        try:
            self.ruleset.check_players(len(players))
        except InvalidRuleset as error:
            raise precondition(
                "NOT_ENOUGH_PLAYERS",
                str(error).partition(": ")[2] or str(error),
                str(error).partition(":")[0],
            ) from None
        self.phase = lobby_pb2.TABLE_PHASE_PLAYING
        # R2.1: the first dealer is drawn at random by the host, announced before any commitment.
        first_dealer = self.randomness.first_dealer(players)
        self.match = match.start_match(self.ruleset, players, first_dealer)
        started = table_pb2.MatchStarted(first_dealer_seat=first_dealer, seats=players)
        started_event = table_pb2.TableEvent(match_started=started)
        self._commit(EntryDraft("start", seat, request, events=[(started_event, {})]))
        for s in players:
            if self.seats[s].is_bot:
                self._start_bot(s)
        self._announce_deal()
        return lobby_pb2.StartMatchResponse()

    def _check_fresh(self, context: table_pb2.MoveContext) -> None:
        if context.last_seen_seq > self.seq:
            raise malformed(
                f"last_seen_seq {context.last_seen_seq} is after the table's last event {self.seq}"
            )
        if context.last_seen_seq < self.last_game_seq:
            raise precondition(
                "STALE_VIEW",
                f"the table changed after event {context.last_seen_seq} "
                f"(now at {self.last_game_seq}): "
                "catch up on the events and decide again",
            )

    def _turn_state(self, seat: int) -> deal.DealState:
        state = self.deal_state
        if self.match is None or self.match.phase is not match.MatchPhase.IN_DEAL or state is None:
            raise precondition("NO_DEAL", "no deal is being played now", "R3")
        if seat not in state.seats:
            raise precondition("NOT_IN_DEAL", f"seat {seat} does not play this deal", "R3")
        if state.turn != seat:
            raise precondition(
                "NOT_YOUR_TURN", f"it is seat {state.turn}'s turn, not seat {seat}'s", "R3"
            )
        return state

    def draw(self, seat: int, request: table_pb2.DrawRequest) -> table_pb2.DrawResponse:
        repeated = self._repeat(seat, "draw", request.context)
        if repeated is not None:
            return table_pb2.DrawResponse.FromString(repeated)
        try:
            source = wire.draw_source_from_pb(request.source)
        except wire.WireError as error:
            raise malformed(str(error)) from None
        self._turn_state(seat)
        self._check_fresh(request.context)
        engine_events = self._apply(seat, actions.Draw(source))
        assert self.deal_state is not None
        response = table_pb2.DrawResponse(card=self.deal_state.hand(seat)[-1])
        self._publish_engine_events(
            "draw", seat, request, response, request.context.request_id, engine_events
        )
        return response

    def return_discard(
        self, seat: int, request: table_pb2.ReturnDiscardRequest
    ) -> table_pb2.ReturnDiscardResponse:
        repeated = self._repeat(seat, "return_discard", request.context)
        if repeated is not None:
            return table_pb2.ReturnDiscardResponse.FromString(repeated)
        self._turn_state(seat)
        self._check_fresh(request.context)
        engine_events = self._apply(seat, actions.ReturnDiscard())
        response = table_pb2.ReturnDiscardResponse()
        self._publish_engine_events(
            "return_discard", seat, request, response, request.context.request_id, engine_events
        )
        return response

    def play(self, seat: int, request: table_pb2.PlayRequest) -> table_pb2.PlayResponse:
        repeated = self._repeat(seat, "play", request.context)
        if repeated is not None:
            return table_pb2.PlayResponse.FromString(repeated)
        try:
            play = wire.play_from_pb(
                request.operations,
                request.discard if request.HasField("discard") else None,
                self.ruleset.decks,
            )
        except wire.WireError as error:
            raise malformed(str(error)) from None
        self._turn_state(seat)
        self._check_fresh(request.context)
        engine_events = self._apply(seat, play)
        response = table_pb2.PlayResponse()
        self._publish_engine_events(
            "play", seat, request, response, request.context.request_id, engine_events
        )
        return response

    def play_timed_out_turn(self) -> None:
        """The turn clock ran out: the host plays the turn as a cautious player would (draw
        from the stock, or put back a taken discard, which draws from it; lay nothing;
        discard the costliest card the rules allow), marks the moves by_host, and a host bot
        plays the seat until its player is back."""
        state = self.deal_state
        if (
            self.match is None
            or state is None
            or state.phase not in (deal.Phase.DRAW, deal.Phase.PLAY)
        ):
            raise precondition("NO_TURN", "no turn is being played now", "R3")
        seat = state.turn
        self.moving_for_seat = True
        try:
            if state.phase is deal.Phase.DRAW:
                drawn = self._apply(seat, actions.Draw(actions.DrawSource.STOCK))
                self._publish_engine_events("timeout_draw", seat, None, None, None, drawn)
            elif state.taken_discard is not None:
                back = self._apply(seat, actions.ReturnDiscard())
                self._publish_engine_events("timeout_return", seat, None, None, None, back)
            state = self.deal_state
            assert state is not None
            hand = state.hand(seat)
            for card in sorted(hand, key=lambda c: (-face_points(face(c)), -c)):
                try:
                    played = self._apply(seat, actions.Play((), card))
                except Refusal:  # a discard the rules bar (R3.3, R8.2): the next costliest
                    continue
                self._publish_engine_events("timeout_play", seat, None, None, None, played)
                break
        finally:
            self.moving_for_seat = False
        if not self.seats[seat].away:
            self.mark_away(seat, lobby_pb2.AWAY_REASON_TIMED_OUT)
