"""Who sits at a table: joining, spectating, leaving, bots seated, seats freed, away and back.

Each seat's news is one ``seat_changed`` event made from ``seat_info``; a
seat token opens a seat only once the job that handed it out is durable.
"""

from __future__ import annotations

from collections.abc import Callable

import grpc
from google.protobuf.message import Message

from host.edge import auth
from host.edge.errors import Refusal, malformed, not_found, permission_denied, precondition
from host.edge.limits import SPECTATORS_PER_TABLE
from host.journal import journaled
from host.journal.sqlite import Extras
from host.table.bot_keys import host_bot_signer
from host.table.outbox import EntryDraft
from host.table.scribe import MadeEvent, Scribe
from host.table.state import SeatState, TableState
from scala40_net import names
from scala40_net.fairdeal.identity import fingerprint
from scala40_net.pb import lobby_pb2, table_pb2
from scala40_net.players import weak_key

MAX_NAME = 24


def checked_name(given: str, what: str, longest: int) -> str:
    """A name people will read (a player's, a table's): printable, 1 to ``longest``
    characters, its spaces collapsed; refused INVALID_ARGUMENT otherwise."""
    try:
        return names.check_name(given, what, longest)
    except names.BadName as bad:
        raise malformed(str(bad)) from None


class Seating:
    """The seats of one table and the people and bots on them."""

    def __init__(self, state: TableState, scribe: Scribe) -> None:
        self.state = state
        self.scribe = scribe

    def seat_info(self, seat: int, connected_seats: set[int] | None = None) -> lobby_pb2.SeatInfo:
        s = self.state.seats[seat]
        if connected_seats is None:
            connected_seats = self.scribe.links.presence.connected_seats()
        connected = s.is_bot or (s.taken and seat in connected_seats)
        return lobby_pb2.SeatInfo(
            seat=seat,
            taken=s.taken,
            name=s.name,
            bot=s.is_bot,
            connected=connected,
            away=s.away,  # type: ignore[arg-type]
            decides_absences=seat == self.decider(),
            key_fingerprint=fingerprint(s.key) if s.key else "",
            private_signing_key=s.signing_key,
            host_bot=s.host_reads and self.state.private_cards,
        )

    def seat_changed(self, seat: int) -> MadeEvent:
        info = self.seat_info(seat)
        self.state.seats[seat].told_connected = info.connected
        return table_pb2.TableEvent(seat_changed=info), {}

    def decider(self) -> int | None:
        """The seat that may decide for absent ones (DecideAbsence): the first person who
        joined and is still at the table."""
        seats = self.state.seats
        return next(
            (
                n
                for n in self.state.joined
                if seats[n].taken
                and seats[n].away != lobby_pb2.AWAY_REASON_LEFT
                and not seats[n].stand_in
            ),
            None,
        )

    def _player_name(self, given: str) -> str:
        """A name others will read (``checked_name``), unique at the table as it looks;
        "Bot …" names are the host's bots'."""
        name = checked_name(given, "a player name", MAX_NAME)
        if names.is_bots(name):
            raise malformed('names starting with "Bot" are for the host\'s bots')
        look = names.fold(name)
        if any(s.taken and names.fold(s.name) == look for s in self.state.seats):
            raise Refusal(
                grpc.StatusCode.ALREADY_EXISTS,
                "NAME_TAKEN",
                f"somebody at this table is called {name} already (or looks it): "
                "choose another name",
            )
        return name

    def free_seat(self, caller: int, seat: int) -> None:
        """Before the match: the table's first player frees a seat someone took (a squatter)."""
        state = self.state
        if caller != self.decider():
            raise permission_denied(
                "NOT_THE_DECIDER", "only the first person who joined this table frees seats"
            )
        if state.phase != lobby_pb2.TABLE_PHASE_WAITING:
            raise precondition("MATCH_STARTED", "the match has started: its seats stay")
        if seat >= len(state.seats) or not state.seats[seat].taken or seat == caller:
            raise malformed(f"seat {seat} is not another player's seat at this table")
        state.seats[seat] = SeatState(seat)
        if seat in state.joined:
            state.joined.remove(seat)
        self._given_up(journaled.FREE_SEAT, caller, lobby_pb2.SeatInfo(seat=seat), seat)

    def _given_up(self, kind: journaled.Journaled, caller: int, said: Message, seat: int) -> None:
        """Journal that ``seat`` was given up (left, or freed by ``caller``): everyone sees
        it, and its tokens no longer open anything once that is durable."""
        self.scribe.commit(
            EntryDraft(
                kind.kind,
                caller,
                said,
                events=[self.seat_changed(seat)],
                game=False,
                extras=Extras(forget_seat=seat),
            )
        )
        tokens, table_id = self.scribe.links.tokens, self.state.table_id
        self.scribe.after_commit(lambda: tokens.remove_seat(table_id, seat))

    def _hand_out(self, digest: bytes, seat: int | None) -> None:
        """The token opens its seat (or the table, for a spectator) once its job is durable."""
        tokens, principal = self.scribe.links.tokens, auth.Principal(self.state.table_id, seat)
        self.scribe.after_commit(lambda: tokens.add(digest, principal))

    def _open_seat(self, wanted: int | None) -> int:
        seats = self.state.seats
        if wanted is not None:
            if wanted >= len(seats):
                raise not_found(
                    "NO_SUCH_SEAT", f"this table has seats 0..{len(seats) - 1}, not {wanted}"
                )
            if seats[wanted].taken:
                raise Refusal(
                    grpc.StatusCode.ALREADY_EXISTS, "SEAT_TAKEN", f"seat {wanted} is taken"
                )
            return wanted
        free = next((s.number for s in seats if not s.taken), None)
        if free is None:
            raise Refusal(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "TABLE_FULL",
                "every seat of this table is taken",
            )
        return free

    def holds(self, key: bytes) -> int | None:
        """The seat a person joined with ``key``, if any (a seat left during the match no
        longer counts: a bot plays it to the end)."""
        return next(
            (
                s.number
                for s in self.state.seats
                if s.taken and s.key == key and s.away != lobby_pb2.AWAY_REASON_LEFT
            ),
            None,
        )

    def _invited(self, key: bytes) -> None:
        invited = self.state.config.invited_keys
        if invited and (not key or fingerprint(key) not in invited):
            raise permission_denied(
                "NOT_INVITED",
                "this table is open only to the player keys invited to it"
                + ("" if key else ", and this join carries no player key"),
            )

    def _rejoin(self, kept: lobby_pb2.JoinTableRequest, seat: int) -> lobby_pb2.JoinTableResponse:
        """The key's own seat, from wherever the key is: a new token for it (the old ones
        still open it); the seat is taken back by opening a stream with it, as after a
        disconnection."""
        token = auth.new_token()
        digest = auth.token_digest(token)
        self.scribe.commit(
            EntryDraft(
                journaled.JOIN.kind,
                seat,
                kept,
                lobby_pb2.JoinTableResponse(seat=seat),
                game=False,
                extras=Extras(tokens=((digest, seat),)),
            )
        )
        self._hand_out(digest, seat)
        return lobby_pb2.JoinTableResponse(seat=seat, seat_token=token)

    def join(self, request: lobby_pb2.JoinTableRequest) -> lobby_pb2.JoinTableResponse:
        state = self.state
        key = bytes(request.proof.public_key) if request.HasField("proof") else b""
        kept = lobby_pb2.JoinTableRequest()
        kept.CopyFrom(request)
        kept.ClearField("password")  # the journal never holds the table's password
        own = self.holds(key) if key else None
        if own is not None:
            return self._rejoin(kept, own)
        self._invited(key)
        name = self._player_name(request.player_name)
        if state.phase != lobby_pb2.TABLE_PHASE_WAITING:
            raise precondition(
                "MATCH_STARTED", "the match has started: seats can no longer be taken"
            )
        signing_key = self._signing_key(request, key)
        seat = self._open_seat(request.seat if request.HasField("seat") else None)
        token = auth.new_token()
        digest = auth.token_digest(token)
        state.seats[seat] = SeatState(seat, name, True, 0, key=key, signing_key=signing_key)
        state.joined.append(seat)
        response = lobby_pb2.JoinTableResponse(seat=seat, seat_token=token)
        stored = lobby_pb2.JoinTableResponse(seat=seat)  # the journal never holds the token itself
        self.scribe.commit(
            EntryDraft(
                journaled.JOIN.kind,
                seat,
                kept,
                stored,
                [self.seat_changed(seat)],
                game=False,
                extras=Extras(tokens=((digest, seat),)),
            )
        )
        self._hand_out(digest, seat)
        return response

    def _signing_key(self, request: lobby_pb2.JoinTableRequest, player_key: bytes) -> bytes:
        """At a private table, the key the seat signs its private messages with: the join's
        own, or its player key (docs/PROTOCOL.md "Private tables"); elsewhere none."""
        if not self.state.private_cards:
            return b""
        key = bytes(request.private_signing_key) or player_key
        if not key:
            raise precondition(
                "SIGNING_KEY_NEEDED",
                "a private table needs a signing key for the seat (private_signing_key) "
                "or a join with a player key",
            )
        if weak_key(key):
            raise malformed("the private signing key is no Ed25519 key that can sign")
        return key

    def spectate(self, request: lobby_pb2.SpectateTableRequest) -> lobby_pb2.SpectateTableResponse:
        if self.state.spectators >= SPECTATORS_PER_TABLE:
            raise Refusal(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "TOO_MANY_SPECTATORS",
                f"this table has its {SPECTATORS_PER_TABLE} spectators already",
            )
        self.state.spectators += 1
        token = auth.new_token()
        digest = auth.token_digest(token)
        self.scribe.commit(
            EntryDraft(journaled.SPECTATE.kind, None, extras=Extras(tokens=((digest, None),)))
        )
        self._hand_out(digest, None)
        return lobby_pb2.SpectateTableResponse(spectator_token=token)

    def add_bot(self, caller: int, request: lobby_pb2.AddBotRequest) -> lobby_pb2.AddBotResponse:
        state = self.state
        if state.phase != lobby_pb2.TABLE_PHASE_WAITING:
            raise precondition("MATCH_STARTED", "bots are seated before the match starts")
        if request.level not in lobby_pb2.BotLevel.values():
            raise malformed(f"bot level {request.level} is not a known level")
        seat = self._open_seat(request.seat if request.HasField("seat") else None)
        level = request.level or lobby_pb2.BOT_LEVEL_MEDIUM
        state.seats[seat] = SeatState(seat, f"Bot {seat}", True, level)
        if state.private_cards:
            # Its keys are the host's (derived from its identity, the same at every start):
            # the lobby says the host can read this seat's hand (SeatInfo.host_bot).
            signer = host_bot_signer(self.scribe.links.identity, state.table_id, seat)
            state.seats[seat].signing_key = signer.public_key()
        self.scribe.commit(
            EntryDraft(
                journaled.ADD_BOT.kind,
                caller,
                request,
                lobby_pb2.AddBotResponse(seat=seat),
                [self.seat_changed(seat)],
                game=False,
            )
        )
        return lobby_pb2.AddBotResponse(seat=seat)

    def leave(
        self, seat: int, request: lobby_pb2.LeaveTableRequest
    ) -> lobby_pb2.LeaveTableResponse:
        state = self.state
        if state.phase == lobby_pb2.TABLE_PHASE_WAITING:
            state.seats[seat] = SeatState(seat)
            if seat in state.joined:
                state.joined.remove(seat)
        else:
            # During a match the seat keeps playing, and keeps its score: a host bot plays
            # it to the end of the match.
            state.seats[seat].away = lobby_pb2.AWAY_REASON_LEFT
        self._given_up(journaled.LEAVE, seat, request, seat)
        if state.phase == lobby_pb2.TABLE_PHASE_PLAYING:
            self.scribe.start_bot(seat)
        return lobby_pb2.LeaveTableResponse()

    def connection_changed(self, seat: int) -> None:
        """A seat's streams opened or closed: everyone sees who is there, when that changed (a
        seat with two streams is connected while either is open)."""
        s = self.state.seats[seat]
        if not s.taken:
            return
        connected = s.is_bot or seat in self.scribe.links.presence.connected_seats()
        if connected != s.told_connected:
            self.tell_connection(seat)

    def tell_connection(self, seat: int) -> None:
        """Everyone is told whether ``seat`` is connected (played back: as the journal says
        it was told, whatever the streams of the moment)."""
        self.scribe.commit(
            EntryDraft(
                journaled.CONNECTION.kind, seat, events=[self.seat_changed(seat)], game=False
            )
        )

    def mark_away(
        self, seat: int, reason: int, rematch: Callable[[EntryDraft], bool] | None = None
    ) -> None:
        """A host bot plays ``seat`` for its player from now on, until the player is back.

        After a match (a seat handed over while a rematch is being agreed) the stand-in
        agrees for the seat: ``rematch`` starts the next match in the same entry when it
        was the last seat waited for, and says whether it did."""
        s = self.state.seats[seat]
        phases = (lobby_pb2.TABLE_PHASE_PLAYING, lobby_pb2.TABLE_PHASE_FINISHED)
        if self.state.phase not in phases or not s.taken or s.is_bot:
            raise precondition(
                "NOT_A_PLAYER", f"seat {seat} has no player in a match to stand in for"
            )
        if s.away:
            raise precondition("ALREADY_AWAY", f"a host bot already plays seat {seat}")
        s.away = reason
        if reason == lobby_pb2.AWAY_REASON_STAND_IN:
            s.stand_in = True
        said = lobby_pb2.SeatInfo(seat=seat, away=reason)  # type: ignore[arg-type]
        draft = EntryDraft(
            journaled.AWAY.kind, seat, said, events=[self.seat_changed(seat)], game=False
        )
        if rematch is not None and rematch(draft):
            return  # the new match seated its host bots, this one among them
        self.scribe.commit(draft)
        if self.state.phase == lobby_pb2.TABLE_PHASE_PLAYING:
            self.scribe.start_bot(seat)

    def mark_back(self, seat: int) -> None:
        """The player of ``seat`` plays it again (the host bot stops at its next step)."""
        s = self.state.seats[seat]
        if not s.away or s.away == lobby_pb2.AWAY_REASON_LEFT or s.stand_in:
            raise precondition(
                "NOT_AWAY", f"seat {seat} is not played by a host bot for its player"
            )
        s.away = 0
        self.scribe.commit(
            EntryDraft(journaled.BACK.kind, seat, events=[self.seat_changed(seat)], game=False)
        )
