"""The lobby screen: a host's tables to join or watch, and a short form to create one.

The form asks one question at a time on the bottom line (name, rules, seats,
bots, password), so it works the same with the keyboard alone and in tests.
The screen ends with the seat taken (and whether the match should start as
soon as this client listens), or with nothing when the player leaves. A
table where this user still holds a seat (``client/seats.py``) is marked
"rejoin" and chosen first: Enter sits down again with the kept token.
"""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import grpc
from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, Dimension, HSplit, Layout, Window
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import TextArea

from client import history, tableform
from client.connection import HostRefusal, LobbyClient, Seat
from client.i18n import Text
from client.layout import PanelControl
from client.render import fingerprint_fragment, fragments_width, join_lines
from client.seats import HeldSeat, SeatStore
from client.session import SessionState
from client.tableform import NewTable
from client.theme import STYLE
from scala40_net.pb import lobby_pb2, players_pb2, ruleset_pb2
from scala40_net.players import short_fingerprint

PRESETS = {
    "classic": ruleset_pb2.PRESET_CLASSIC,
    "classica": ruleset_pb2.PRESET_CLASSIC,
    "tradizionale": ruleset_pb2.PRESET_TRADIZIONALE,
    "semplice": ruleset_pb2.PRESET_SEMPLICE,
}
_PRESET_KEY = {
    ruleset_pb2.PRESET_UNSPECIFIED: "preset_classic",
    ruleset_pb2.PRESET_CLASSIC: "preset_classic",
    ruleset_pb2.PRESET_TRADIZIONALE: "preset_tradizionale",
    ruleset_pb2.PRESET_SEMPLICE: "preset_semplice",
}
_PRESET_CHOICES = ("preset_classic", "preset_tradizionale", "preset_semplice")
_PHASE_KEY = {
    lobby_pb2.TABLE_PHASE_WAITING: "lobby_phase_waiting",
    lobby_pb2.TABLE_PHASE_PLAYING: "lobby_phase_playing",
    lobby_pb2.TABLE_PHASE_FINISHED: "lobby_phase_finished",
}
LEVELS = {
    "easy": lobby_pb2.BOT_LEVEL_EASY,
    "facile": lobby_pb2.BOT_LEVEL_EASY,
    "medium": lobby_pb2.BOT_LEVEL_MEDIUM,
    "medio": lobby_pb2.BOT_LEVEL_MEDIUM,
    "hard": lobby_pb2.BOT_LEVEL_HARD,
    "difficile": lobby_pb2.BOT_LEVEL_HARD,
    "expert": lobby_pb2.BOT_LEVEL_EXPERT,
    "esperto": lobby_pb2.BOT_LEVEL_EXPERT,
}
REFRESH_SECONDS = 2.0
# The matches the history page lists: the most a host lists at once (PROTOCOL.md, History).
HISTORY_LISTED = 500

Choice = tuple[Seat, bool]


@dataclass
class Question:
    """One question of a form: its label, a default, and what to do with the answer."""

    label: str
    default: str
    answer: Callable[[str], None]
    secret: bool = False  # typed hidden (a password)


def table_row(table: lobby_pb2.TableSummary, t: Text, held: HeldSeat | None = None) -> str:
    taken = sum(1 for s in table.seats if s.taken)
    seats = f"{taken}/{len(table.seats)}"
    phase = t(_PHASE_KEY.get(table.phase, "lobby_phase_waiting"))
    if table.has_password:
        phase += f" · {t('lobby_locked')}"
    if table.invited_only:
        phase += f" · {t('lobby_invited_only')}"
    if table.private_cards:
        phase += f" · {t('lobby_private')}"
        readable = [s.name or f"#{s.seat}" for s in table.seats if s.taken and s.host_bot]
        if readable:
            phase += f" · {t('lobby_host_reads', names=', '.join(readable))}"
    if held is not None:
        phase += f" · {t('lobby_rejoin', seat=held.seat)}"
    preset = t(_PRESET_KEY.get(table.preset, "preset_classic"))
    row = t("lobby_row", name=table.name, preset=preset, seats=seats, phase=phase)
    # The id is what scala40-bot --table needs.
    return f"{row}  · id {table.table_id}"


def people_line(table: lobby_pb2.TableSummary, t: Text) -> str | None:
    """Who sits at ``table``, each person with their key's short fingerprint (so two Adas
    are told apart); None when nobody there joined with a key (the row says enough)."""
    taken = [s for s in table.seats if s.taken]
    if not any(s.key_fingerprint for s in taken):
        return None
    people = ", ".join(
        f"{s.name} {short_fingerprint(s.key_fingerprint)}" if s.key_fingerprint else s.name
        for s in taken
    )
    return t("lobby_people", people=people)


class LobbyScreen:
    """The tables of one host; ``run_async`` returns the seat taken, or None."""

    def __init__(
        self,
        text: Text,
        lobby: LobbyClient,
        session: SessionState,
        player_name: str,
        *,
        input: Input | None = None,
        output: Output | None = None,
        store: SeatStore | None = None,
        invited: tuple[str, ...] = (),
    ) -> None:
        self.text = text
        self.lobby = lobby
        # The keys a table created here is kept to (the player's own added): none, open.
        self.invited = invited
        self.session = session
        self.player_name = player_name
        self.store = store
        self.held: dict[str, HeldSeat] = store.held() if store is not None else {}
        self.listed = False  # True once the host's first list has arrived
        self.tables: list[lobby_pb2.TableSummary] = []
        self.cursor = 0
        self.error = ""
        self.questions: list[Question] = []
        # What the list shows: the tables, or the host's history (a match's score sheet) or
        # its standings (client.history).
        self.page = "tables"
        self.past: list[players_pb2.PastMatch] = []
        self.past_cursor = 0
        # The first line shown of a page longer than the screen (the history's matches, a
        # sheet's or the standings' lines), and how many rows it had when last drawn (what
        # PgUp/PgDn move by).
        self.page_top = 0
        self.page_rows = 1
        self.sheet: players_pb2.PastMatch | None = None
        self.board: players_pb2.GetStandingsResponse | None = None
        self.field = TextArea(
            height=1,
            multiline=False,
            accept_handler=self._answer,
            password=Condition(lambda: bool(self.questions) and self.questions[0].secret),
        )
        self.list_window = Window(
            PanelControl(self._draw_tables, focusable=True, key_bindings=self._list_keys())
        )
        self.app: Application[Choice | None] = Application(
            layout=self._layout(),
            key_bindings=self._app_keys(),
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
        )

    # --- drawing ----------------------------------------------------------------------

    def _draw_page(self, width: int, height: int) -> StyleAndTextTuples:
        t, host = self.text, self.session.host
        if self.page == "standings":
            board = self.board or players_pb2.GetStandingsResponse()
            drawn = history.standings_lines(board, t, width, host)
            return self._scrolled([[("", x)] for x in drawn], 2, height, width)
        if self.page == "sheet" and self.sheet is not None:
            drawn = history.sheet_lines(self.sheet, t, width)
            return self._scrolled([[("", x)] for x in drawn], 2, height, width)
        drawn = history.history_lines(self.past, t, width - 2, host)
        lines: list[StyleAndTextTuples] = [[("class:panel.title", f" {drawn[0]}")]]
        for i, line in enumerate(drawn[1:]):
            chosen = self.past and i == self.past_cursor
            lines.append([("class:lobby.selected" if chosen else "", f" {line} ")])
        return self._scrolled(lines, 1, height, width, self.past_cursor)

    def _scrolled(
        self,
        lines: list[StyleAndTextTuples],
        fixed: int,
        height: int,
        width: int,
        cursor: int | None = None,
    ) -> StyleAndTextTuples:
        """The ``fixed`` lines on top (a title, a header), then as many of the rest as fit
        from ``page_top`` (keeping ``cursor`` shown), with a line saying how many more are
        above or below."""
        body = lines[fixed:]
        rows = max(height - fixed, 1)
        start, end = history.view(
            len(body), rows, self.page_top if cursor is None else cursor, self.page_top
        )
        self.page_top, self.page_rows = start, rows
        shown = lines[:fixed]
        if start > 0:
            shown.append([("class:dim", f" {self.text('history_above', n=start)}"[:width])])
        shown += body[start:end]
        if end < len(body):
            more = self.text("history_below", n=len(body) - end)
            shown.append([("class:dim", f" {more}"[:width])])
        return join_lines(shown)

    def _draw_tables(self, width: int, height: int) -> StyleAndTextTuples:
        t = self.text
        if self.page != "tables":
            return self._draw_page(width, height)
        if not self.tables:
            return [("class:dim", t("lobby_none"))]
        lines: list[StyleAndTextTuples] = []
        for i, table in enumerate(self.tables):
            style = "class:lobby.selected" if i == self.cursor else ""
            row = table_row(table, t, self.held.get(table.table_id))
            lines.append([(style, f" {row[: width - 2]} ")])
            people = people_line(table, t) if i == self.cursor else None
            if people is not None:
                lines.append([("class:dim", f"   {people[: width - 4]}")])
        return join_lines(lines)

    def _draw_title(self, width: int, height: int) -> StyleAndTextTuples:
        title: StyleAndTextTuples = [
            ("class:title", f" {self.text('lobby_title', host=self.session.host)} ")
        ]
        fp = fingerprint_fragment(self.session, self.text)
        if fp and fragments_width(title) + 2 + fragments_width(fp) > width:
            return join_lines([title, [("", " "), *fp]])  # the fingerprint whole, below
        return [*title, ("", "  "), *fp]

    def _draw_footer(self, width: int, height: int) -> StyleAndTextTuples:
        """The error, the question or the keys: wrapped, so a long answer is never cut."""
        lines: list[StyleAndTextTuples] = []
        for style, text, *_ in self._footer():
            for piece in textwrap.wrap(text, max(width - 1, 8)):
                lines.append([(style, piece)])
        return join_lines(lines)

    def _footer(self) -> StyleAndTextTuples:
        line: StyleAndTextTuples = []
        if self.error:
            line.append(("class:refusal", self.text("lobby_error", reason=self.error) + "  "))
        if self.questions:
            q = self.questions[0]
            line.append(("class:prompt", f"{q.label} [{q.default}]"))
        elif self.page != "tables" and not self.error:
            keys = {"history": "history_keys", "sheet": "sheet_keys"}.get(
                self.page, "standings_keys"
            )
            line.append(("class:dim", self.text(keys)))
        elif self._cursor_held() is not None and not self.error:
            table = self.tables[self.cursor]
            line.append(("class:prompt", self.text("lobby_rejoin_hint", name=table.name)))
        elif not self.error:
            line.append(("class:dim", self.text("lobby_keys")))
        return line

    def _cursor_held(self) -> HeldSeat | None:
        if not self.tables:
            return None
        return self.held.get(self.tables[self.cursor].table_id)

    def _layout(self) -> Layout:
        return Layout(
            HSplit(
                [
                    Window(
                        PanelControl(self._draw_title),
                        height=Dimension(min=1, max=2),
                        dont_extend_height=True,
                    ),
                    Window(height=1, char="─", style="class:separator"),
                    self.list_window,
                    Window(height=1, char="─", style="class:separator"),
                    Window(
                        PanelControl(self._draw_footer),
                        height=Dimension(min=1, max=6),
                        dont_extend_height=True,
                    ),
                    ConditionalContainer(
                        self.field, filter=Condition(lambda: bool(self.questions))
                    ),
                ]
            ),
            focused_element=self.list_window,
        )

    # --- keys -------------------------------------------------------------------------

    def _app_keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("c-c")
        @kb.add("c-q")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result=None)

        @kb.add("escape", filter=Condition(lambda: bool(self.questions)), eager=True)
        def _cancel(event: KeyPressEvent) -> None:
            self.questions.clear()
            event.app.layout.focus(self.list_window)

        return kb

    def _list_keys(self) -> KeyBindings:
        kb = KeyBindings()
        tables = Condition(lambda: self.page == "tables")
        matches = Condition(lambda: self.page == "history")
        read = Condition(lambda: self.page in ("sheet", "standings"))
        elsewhere = Condition(lambda: self.page != "tables" and not self.questions)

        @kb.add("up", filter=tables)
        def _up(event: KeyPressEvent) -> None:
            self.cursor = max(self.cursor - 1, 0)

        @kb.add("down", filter=tables)
        def _down(event: KeyPressEvent) -> None:
            self.cursor = min(self.cursor + 1, max(len(self.tables) - 1, 0))

        @kb.add("enter", filter=tables)
        def _join(event: KeyPressEvent) -> None:
            self._enter_table(spectate=False)

        @kb.add("s", filter=tables)
        def _spectate(event: KeyPressEvent) -> None:
            self._enter_table(spectate=True)

        @kb.add("n", filter=tables)
        def _new(event: KeyPressEvent) -> None:
            self._new_table_form()

        @kb.add("r", filter=tables)
        def _refresh(event: KeyPressEvent) -> None:
            self._spawn(self.refresh())

        @kb.add("q", filter=tables)
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result=None)

        @kb.add("h", filter=tables)
        def _history(event: KeyPressEvent) -> None:
            self._spawn(self.show_history())

        @kb.add("l", filter=tables)
        def _standings(event: KeyPressEvent) -> None:
            self._spawn(self.show_standings())

        @kb.add("up", filter=matches)
        def _past_up(event: KeyPressEvent) -> None:
            self.past_cursor = max(self.past_cursor - 1, 0)

        @kb.add("down", filter=matches)
        def _past_down(event: KeyPressEvent) -> None:
            self.past_cursor = min(self.past_cursor + 1, max(len(self.past) - 1, 0))

        @kb.add("pageup", filter=matches)
        def _past_page_up(event: KeyPressEvent) -> None:
            self.past_cursor = max(self.past_cursor - self.page_rows, 0)

        @kb.add("pagedown", filter=matches)
        def _past_page_down(event: KeyPressEvent) -> None:
            last = max(len(self.past) - 1, 0)
            self.past_cursor = min(self.past_cursor + self.page_rows, last)

        @kb.add("home", filter=matches)
        def _past_first(event: KeyPressEvent) -> None:
            self.past_cursor = 0

        @kb.add("end", filter=matches)
        def _past_last(event: KeyPressEvent) -> None:
            self.past_cursor = max(len(self.past) - 1, 0)

        # A sheet or the standings: the arrows and PgUp/PgDn scroll them (drawing keeps the
        # scroll within the lines).
        @kb.add("up", filter=read)
        def _line_up(event: KeyPressEvent) -> None:
            self.page_top = max(self.page_top - 1, 0)

        @kb.add("down", filter=read)
        def _line_down(event: KeyPressEvent) -> None:
            self.page_top += 1

        @kb.add("pageup", filter=read)
        def _page_up(event: KeyPressEvent) -> None:
            self.page_top = max(self.page_top - self.page_rows, 0)

        @kb.add("pagedown", filter=read)
        def _page_down(event: KeyPressEvent) -> None:
            self.page_top += self.page_rows

        @kb.add("enter", filter=matches)
        def _sheet(event: KeyPressEvent) -> None:
            if self.past:
                self.sheet, self.page, self.page_top = self.past[self.past_cursor], "sheet", 0

        @kb.add("escape", filter=elsewhere, eager=True)
        @kb.add("q", filter=elsewhere)
        def _back(event: KeyPressEvent) -> None:
            self.error = ""
            self.page = "history" if self.page == "sheet" else "tables"
            self.page_top = 0  # the history shows its cursor's match again

        return kb

    async def show_history(self) -> None:
        """This player's finished matches at the host (every match, for a client without a
        key), newest first."""
        key = self.lobby.key
        try:
            self.past = await self.lobby.matches(
                "" if key is None else key.fingerprint, HISTORY_LISTED
            )
        except HostRefusal as refusal:
            self.error = self._history_refused(refusal)
        else:
            self.past_cursor, self.page, self.error, self.page_top = 0, "history", "", 0
        self.app.invalidate()

    def _history_refused(self, refusal: HostRefusal) -> str:
        """What to say when the host gives no history: an older host has none to give."""
        if refusal.code == grpc.StatusCode.UNIMPLEMENTED:
            return self.text("history_not_served")
        return refusal.message

    async def show_standings(self) -> None:
        try:
            self.board = await self.lobby.standings()
        except HostRefusal as refusal:
            self.error = self._history_refused(refusal)
        else:
            self.page, self.error, self.page_top = "standings", "", 0
        self.app.invalidate()

    # --- questions --------------------------------------------------------------------

    def _ask(self, questions: list[Question]) -> None:
        self.error = ""
        self.questions = questions
        self.field.text = ""  # the default is shown beside the question; Enter takes it
        if questions:
            self.app.layout.focus(self.field)

    def _answer(self, buffer: object) -> bool:
        """One answer; the line is cleared after each, a wrong one is named and asked again."""
        if not self.questions:
            return False
        question = self.questions.pop(0)
        value = self.field.text.strip() or question.default
        try:
            question.answer(value)
        except ValueError as error:
            self.questions.insert(0, question)
            self.error = str(error)
            return False
        self.error = ""
        if not self.questions:
            self.app.layout.focus(self.list_window)
        return False

    def _new_table_form(self) -> None:
        t = self.text
        form = NewTable(name=t("local_table_name", name=self.player_name)[:40])

        def name(value: str) -> None:
            form.name = value[:40]

        presets = " | ".join(t(key).split(" ")[0] for key in _PRESET_CHOICES)

        def preset(value: str) -> None:
            if value.lower() not in PRESETS:
                raise ValueError(presets)
            form.preset = PRESETS[value.lower()]

        levels = t("lobby_levels")

        def level(value: str) -> None:
            if value.lower() not in LEVELS:
                raise ValueError(levels)
            form.level = LEVELS[value.lower()]
            # The same level plays for a person while they are away.
            form.settings.stand_in_level = form.level

        def seats(value: str) -> None:
            if not value.isdigit() or not 2 <= int(value) <= 6:
                raise ValueError("2-6")
            form.seats = int(value)
            # The rest of the form shows this preset's values for this many players.
            match.default = tableform.match_default(form)
            rientro.default = tableform.yes_no(form.rules().rientro, t.lang)

        def bots(value: str) -> None:
            if not value.isdigit() or not 0 <= int(value) <= form.seats - 1:
                raise ValueError(f"0-{form.seats - 1}")
            form.bots = int(value)

        def read_match(value: str) -> None:
            tableform.read_match(form, value)

        def read_rientro(value: str) -> None:
            form.options.rientro = tableform.read_yes_no(value)

        def turn(value: str) -> None:
            form.settings.turn_seconds = tableform.read_seconds(value, 10, 600, zero=True)

        def grace(value: str) -> None:
            form.settings.grace_seconds = tableform.read_seconds(value, 1, 600)

        def pause(value: str) -> None:
            form.settings.between_deals_seconds = tableform.read_seconds(value, 0, 600)

        def other(value: str) -> None:
            tableform.read_rule_options(form, value)

        def private(value: str) -> None:
            # docs/PRIVATE_TABLES.md: every seat shuffles, nobody but a card's owner reads it.
            form.settings.private_cards = tableform.read_yes_no(value)

        def password(value: str) -> None:
            form.password = "" if value == "-" else value
            if not asks_invites:
                self._spawn(self._create(form))

        anyone = t("lobby_invited_anyone")

        def invited(value: str) -> None:
            try:
                form.invited = tableform.read_invited(value, anyone)
            except tableform.TooManyInvited:
                most = tableform.MOST_INVITED - 1
                raise ValueError(t("lobby_invited_too_many", most=most)) from None
            except ValueError:
                raise ValueError(t("lobby_invited_wrong")) from None
            self._spawn(self._create(form))

        # Only a player with a key can keep a table to invited keys (their own among them);
        # keys given on the command line (--invite) have answered the question already.
        asks_invites = self.lobby is not None and self.lobby.key is not None and not self.invited

        match = Question(t("lobby_field_match"), tableform.match_default(form), read_match)
        rientro = Question(
            t("lobby_field_rientro"), tableform.yes_no(form.rules().rientro, t.lang), read_rientro
        )
        self._ask(
            [
                Question(t("lobby_field_name"), form.name, name),
                Question(f"{t('lobby_field_preset')} ({presets})", presets.split(" ")[0], preset),
                Question(t("lobby_field_seats"), str(form.seats), seats),
                Question(t("lobby_field_bots"), str(form.bots), bots),
                Question(f"{t('lobby_field_level')} ({levels})", levels.split(" | ")[1], level),
                match,
                rientro,
                Question(t("lobby_field_turn"), str(tableform.TURN_SECONDS), turn),
                Question(t("lobby_field_grace"), str(tableform.GRACE_SECONDS), grace),
                Question(t("lobby_field_pause"), str(tableform.PAUSE_SECONDS), pause),
                Question(t("lobby_field_rules"), "-", other),
                Question(t("lobby_field_private"), tableform.yes_no(False, t.lang), private),
                Question(t("lobby_field_password"), "-", password, secret=True),
                *([Question(t("lobby_field_invited"), anyone, invited)] if asks_invites else []),
            ]
        )

    def _enter_table(self, spectate: bool) -> None:
        if not self.tables:
            return
        table = self.tables[self.cursor]
        held = self.held.get(table.table_id)
        if held is not None and not spectate:
            # The seat is still ours: the kept token sits down again, no join, no password.
            self.app.exit(result=(Seat(table.table_id, held.seat, held.token), False))
            return

        def go(password: str) -> None:
            self._spawn(self._take(table.table_id, spectate, password or None))

        if table.has_password:
            self._ask([Question(self.text("lobby_password_prompt"), "", go, secret=True)])
        else:
            go("")

    # --- host calls -------------------------------------------------------------------

    def _spawn(self, coroutine: object) -> None:
        asyncio.get_running_loop().create_task(coroutine)  # type: ignore[arg-type]

    async def refresh(self) -> None:
        try:
            self.tables = await self.lobby.tables()
        except HostRefusal as refusal:
            self.error = refusal.message
        else:
            self._drop_stale_seats()
            if not self.listed:
                self.listed = True
                # Offer the rejoin first: the cursor starts on a table where a seat is held.
                held_at = [i for i, t in enumerate(self.tables) if t.table_id in self.held]
                self.cursor = held_at[0] if held_at else self.cursor
        self.cursor = min(self.cursor, max(len(self.tables) - 1, 0))
        self.app.invalidate()

    def _drop_stale_seats(self) -> None:
        """Seats at tables the host no longer has, or whose match is over, are forgotten."""
        live = {t.table_id for t in self.tables if t.phase != lobby_pb2.TABLE_PHASE_FINISHED}
        for table_id in [k for k in self.held if k not in live]:
            del self.held[table_id]
            if self.store is not None:
                self.store.forget(table_id)

    async def _take(self, table_id: str, spectate: bool, password: str | None) -> None:
        try:
            if spectate:
                seat = await self.lobby.spectate(table_id, password)
            else:
                seat = await self.lobby.join(table_id, self.player_name, password)
        except HostRefusal as refusal:
            self.error = refusal.message
            self.app.invalidate()
            return
        self.app.exit(result=(seat, False))

    async def _create(self, form: NewTable) -> None:
        key = self.lobby.key
        invited = form.invited or list(self.invited)
        if invited and key is not None:
            form.settings.invited_keys[:] = [
                key.fingerprint,
                *(fp for fp in invited if fp != key.fingerprint),
            ]
        try:
            table_id = await self.lobby.create_table(
                form.name,
                form.preset,
                form.seats,
                form.password or None,
                form.options,
                form.settings,
            )
            seat = await self.lobby.join(table_id, self.player_name, form.password or None)
            for _ in range(form.bots):
                await self.lobby.add_bot(seat, form.level)
        except HostRefusal as refusal:
            self.error = refusal.message
            self.app.invalidate()
            return
        # A table the bots fill starts at once; otherwise it waits for people and "start".
        self.app.exit(result=(seat, form.bots + 1 == form.seats))

    async def run_async(self) -> Choice | None:
        async def keep_fresh() -> None:
            while True:
                await self.refresh()
                await asyncio.sleep(REFRESH_SECONDS)

        refresher = asyncio.get_running_loop().create_task(keep_fresh())
        try:
            return await self.app.run_async()
        finally:
            refresher.cancel()
