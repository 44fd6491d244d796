"""One table as the services see it: its seats (lobby), its turns (moves), its views.

Everything here runs inside the table's task (``TableTask.call``); the deals
themselves, with the fair-deal exchange, are ``DealingTable``'s.
"""

from __future__ import annotations

import functools
import secrets

import grpc

from host import auth
from host.errors import Refusal, malformed, not_found, permission_denied, precondition
from host.fanout import Subscriber
from host.table_deal import DealingTable
from host.table_task import DealInProgress, PendingEvents, SeatState, TableSettings, TableTask
from host.views import table_view
from scala40_net import actions, deal, match, wire
from scala40_net.errors import InvalidRuleset
from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2

MAX_NAME = 24
MAX_CHAT = 500

__all__ = ["DealInProgress", "PendingEvents", "SeatState", "Table", "TableSettings", "TableTask"]


class Table(DealingTable):
    """A table: create it with its config, ``start`` its task, ``call`` into it."""

    def _seat_changed(
        self, seat: int
    ) -> tuple[table_pb2.TableEvent, dict[int, deal_pb2.PrivateDealEvent]]:
        return table_pb2.TableEvent(seat_changed=self.seat_info(seat)), {}

    def seat_info(self, seat: int, connected_seats: set[int] | None = None) -> lobby_pb2.SeatInfo:
        s = self.seats[seat]
        if connected_seats is None:
            connected_seats = self.fanout.connected_seats()
        connected = s.is_bot or (s.taken and seat in connected_seats)
        return lobby_pb2.SeatInfo(
            seat=seat, taken=s.taken, name=s.name, bot=s.is_bot, connected=connected
        )

    @functools.cached_property
    def _ruleset_options(self) -> ruleset_pb2.RulesetOptions:
        """The table's options on the wire: its ruleset never changes, so made once."""
        return wire.ruleset_options_to_pb(self.ruleset)

    def summary(self) -> lobby_pb2.TableSummary:
        connected_seats = self.fanout.connected_seats()
        return lobby_pb2.TableSummary(
            table_id=self.table_id,
            name=self.config.name,
            ruleset=self._ruleset_options,  # copied into the summary, never shared
            preset=wire.PRESET_BY_NAME[self.preset],
            seats=[self.seat_info(n, connected_seats) for n in range(len(self.seats))],
            phase=self.phase,
            has_password=self.password_digest is not None,
        )

    def _check_password(self, password: str | None) -> None:
        if self.password_digest is None or self.replay is not None:
            return
        if password is None or not secrets.compare_digest(
            auth.token_digest(password), self.password_digest
        ):
            raise permission_denied(
                "BAD_PASSWORD", "this table needs its password, and that is not it"
            )

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
        name = request.player_name.strip()
        if not 1 <= len(name) <= MAX_NAME:
            raise malformed(f"a player name has 1 to {MAX_NAME} characters")
        self._check_password(request.password if request.HasField("password") else None)
        if self.phase != lobby_pb2.TABLE_PHASE_WAITING:
            raise precondition(
                "MATCH_STARTED", "the match has started: seats can no longer be taken"
            )
        seat = self._free_seat(request.seat if request.HasField("seat") else None)
        token = auth.new_token()
        digest = auth.token_digest(token)
        self.seats[seat] = SeatState(seat, name, True, 0)
        response = lobby_pb2.JoinTableResponse(seat=seat, seat_token=token)
        stored = lobby_pb2.JoinTableResponse(seat=seat)  # the journal never holds the token itself
        kept = lobby_pb2.JoinTableRequest()
        kept.CopyFrom(request)
        kept.ClearField("password")  # nor the table's password
        self._commit(
            "join",
            seat,
            kept,
            stored,
            [self._seat_changed(seat)],
            game=False,
            tokens=((digest, seat),),
        )
        self.tokens.add(digest, auth.Principal(self.table_id, seat))
        return response

    def spectate(self, request: lobby_pb2.SpectateTableRequest) -> lobby_pb2.SpectateTableResponse:
        self._check_password(request.password if request.HasField("password") else None)
        token = auth.new_token()
        digest = auth.token_digest(token)
        self._commit("spectate", None, None, None, [], tokens=((digest, None),))
        self.tokens.add(digest, auth.Principal(self.table_id, None))
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
            "add_bot",
            caller,
            request,
            lobby_pb2.AddBotResponse(seat=seat),
            [self._seat_changed(seat)],
            game=False,
        )
        return lobby_pb2.AddBotResponse(seat=seat)

    def leave(
        self, seat: int, request: lobby_pb2.LeaveTableRequest
    ) -> lobby_pb2.LeaveTableResponse:
        if self.phase == lobby_pb2.TABLE_PHASE_WAITING:
            self.seats[seat] = SeatState(seat)
        else:
            # During a match the seat keeps playing: a bot takes it over.
            self.seats[seat].bot_level = lobby_pb2.BOT_LEVEL_EASY
        self.tokens.remove_seat(self.table_id, seat)
        self._commit(
            "leave", seat, request, None, [self._seat_changed(seat)], game=False, forget_seat=seat
        )
        if self.phase == lobby_pb2.TABLE_PHASE_PLAYING:
            self._start_bot(seat)
        return lobby_pb2.LeaveTableResponse()

    def connection_changed(self, seat: int) -> None:
        """A seat's stream opened or closed: everyone sees who is there."""
        if self.seats[seat].taken:
            self._commit("connection", seat, None, None, [self._seat_changed(seat)], game=False)
            self.pause_without(seat)

    def chat(self, seat: int, request: table_pb2.SendChatRequest) -> table_pb2.SendChatResponse:
        text = request.text.strip()
        if not 1 <= len(text) <= MAX_CHAT:
            raise malformed(f"a chat line has 1 to {MAX_CHAT} characters")
        line = table_pb2.ChatMessage(seat=seat, name=self.seats[seat].name, text=text)
        self._commit(
            "chat", seat, request, None, [(table_pb2.TableEvent(chat=line), {})], game=False
        )
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
        if self.replay is not None:
            first_dealer = self.replay.first_dealer()
        else:
            first_dealer = secrets.choice(players)
        self.match = match.start_match(self.ruleset, players, first_dealer)
        started = table_pb2.MatchStarted(first_dealer_seat=first_dealer, seats=players)
        self._commit(
            "start", seat, request, None, [(table_pb2.TableEvent(match_started=started), {})]
        )
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

    def view(self, seat: int | None) -> table_pb2.TableView:
        """The table as ``seat`` (None: a spectator) sees it, through the engine's view."""
        return table_view(self, seat)

    def subscribe(
        self, seat: int | None, after_seq: int
    ) -> tuple[list[table_pb2.TableEvent], Subscriber]:
        if after_seq > self.fanout.last_seq:
            raise malformed(
                f"after_seq {after_seq} is after the table's last event {self.fanout.last_seq}"
            )

        def snapshot() -> table_pb2.TableEvent:
            return table_pb2.TableEvent(seq=self.fanout.last_seq, snapshot=self.view(seat))

        return self.fanout.subscribe(seat, after_seq, snapshot)
