"""The table screen: commands and keys in, moves to the host out, the view model on screen.

``TableScreen`` owns the full-screen prompt_toolkit application for one
table. Typed commands become planned steps (checked by the engine locally)
or calls to the host; the host's events come back through the link and are
the only thing that changes the view model. A refusal is shown as the host's
sentence and leaves the plan as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any, assert_never

from prompt_toolkit.application import Application
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.layout import Window
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import TextArea

from client import commands as c
from client import keys, render
from client.cardtext import face_label, typed_label
from client.connection import HostRefusal, TableLink, failure_words
from client.fairdeal import FairDealDriver
from client.i18n import Text
from client.layout import build_layout
from client.model import HandOrder, Phase, TableModel
from client.planner import Preview, TurnPlanner, discard_card, hint
from client.private import PrivateDriver
from client.seats import SeatStore
from client.session import NOTICE_READ_SECONDS, LinkState, Notice, NoticeKind, SessionState
from client.tableform import read_rule_changes
from client.theme import STYLE
from scala40_net import refusals
from scala40_net.cards import face
from scala40_net.errors import RuleViolation
from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2

# What ``absent`` sends for each choice (DecideAbsence).
_ABSENCE_CHOICES = {
    "bot": table_pb2.ABSENCE_CHOICE_HAND_TO_BOT,
    "wait": table_pb2.ABSENCE_CHOICE_MORE_TIME,
    "free": table_pb2.ABSENCE_CHOICE_FREE_SEAT,
}


class CommandCompleter(Completer):
    """Command words first; then cards still in the (planned) hand, or meld numbers."""

    def __init__(self, screen: TableScreen) -> None:
        self.screen = screen

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        text = document.text_before_cursor
        if not text.strip() and not complete_event.completion_requested:
            return  # an empty line offers nothing until Tab asks
        words = text.split()
        current = "" if text.endswith(" ") or not words else words[-1]
        done = words if text.endswith(" ") else words[:-1]
        if not done:
            for word in c.command_words(self.screen.text.lang):
                if word.startswith(current.lower()):
                    yield Completion(word + " ", start_position=-len(current), display=word)
            return
        name = c.command_name(done[0])
        if name in ("attach", "swap") and len(done) == 1:
            for meld in self.screen.model.sorted_melds():
                number = str(meld.meld_id)
                if number.startswith(current):
                    cards = render.plain(render.cards_fragments(meld.cards))
                    yield Completion(number + " ", start_position=-len(current), display_meta=cards)
            return
        if "/" in text:
            return  # after the slash come the run lengths (R4.6), not cards
        if name in ("meld", "attach", "swap", "discard"):
            typed = [w.upper() for w in done[1:]]
            offered: set[str] = set()
            for card in render.hand_cards(self.screen.model, self.screen.session):
                label = typed_label(face(card), self.screen.text.lang)
                if card not in self.screen.planner.hand_left(self.screen.model):
                    continue
                if label in offered or typed.count(label) >= self._held(label):
                    continue
                if label.startswith(current.upper()):
                    offered.add(label)
                    yield Completion(
                        label + " ",
                        start_position=-len(current),
                        display=face_label(face(card)),
                    )

    def _held(self, label: str) -> int:
        left = self.screen.planner.hand_left(self.screen.model)
        lang = self.screen.text.lang
        return sum(1 for card in left if typed_label(face(card), lang) == label)


class TableScreen:
    """One table on screen, for a seat or a spectator."""

    def __init__(
        self,
        text: Text,
        link: TableLink | None,
        *,
        session: SessionState | None = None,
        model: TableModel | None = None,
        data_dir: Path | None = None,
        history: History | None = None,
        input: Input | None = None,
        output: Output | None = None,
        on_exit: Callable[[], Coroutine[Any, Any, None]] | None = None,
        start_match: Callable[[], Coroutine[Any, Any, None]] | None = None,
        seat_store: SeatStore | None = None,
        rating_change: Callable[[], Coroutine[Any, Any, tuple[float, float] | None]] | None = None,
    ) -> None:
        self.text = text
        self.link = link
        self.session = session or SessionState()
        self.model = model or TableModel()
        self.planner = TurnPlanner()
        self.data_dir = data_dir
        self.on_exit = on_exit
        self.start_match = start_match
        # The host's word on this seat's rating before and after the match, asked at its end.
        self.rating_change = rating_change
        self._start_pending = False
        self.seat_store = seat_store
        self.fair_deal = FairDealDriver(self, data_dir, seat_store)
        # At a private table: this seat's part in each deal, and the hand it reads.
        self.private = PrivateDriver(self, data_dir)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._preview_key: tuple[int, int] | None = None
        self._preview: Preview | None = None
        self._count_running = False
        self._turn_time_told = 0  # the model's count when the turn countdown last started
        if history is None:
            history = (
                FileHistory(str(data_dir / "history"))
                if data_dir is not None
                else InMemoryHistory()
            )
        self.input_field = TextArea(
            height=1,
            prompt="> ",
            multiline=False,
            wrap_lines=False,
            completer=CommandCompleter(self),
            complete_while_typing=True,
            history=history,
            accept_handler=self._accept,
        )
        self.hand_window: Window | None = None
        self.hand_key_bindings = keys.hand_bindings(self)
        self.app: Application[None] = Application(
            layout=build_layout(self),
            key_bindings=keys.table_bindings(self),
            style=STYLE,
            full_screen=True,
            mouse_support=False,
            input=input,
            output=output,
        )

    # --- queries used by the layout and the keys -------------------------------------

    def word(self, command: str) -> str:
        english, italian = c.COMMAND_WORDS[command]
        return italian if self.text.lang == "it" else english

    def input_focused(self) -> bool:
        return self.app.layout.has_focus(self.input_field)

    def hand_focused(self) -> bool:
        return self.hand_window is not None and self.app.layout.has_focus(self.hand_window)

    def shown_hand(self) -> list[int]:
        return render.hand_cards(self.model, self.session)

    def selected_cards(self) -> list[int]:
        return [card for card in self.shown_hand() if card in self.session.selected]

    def plan_visible(self) -> bool:
        return bool(self.planner) or (
            self.model.my_turn and self.model.phase in (Phase.DRAW, Phase.PLAY)
        )

    def preview(self) -> Preview | None:
        # Rendering asks several times a frame; the engine runs once per change.
        key = (self.model.last_seq, self.planner.revision)
        if key != self._preview_key:
            self._preview_key = key
            self._preview = self.planner.preview(self.model) if self.planner else None
        return self._preview

    # --- events from the host ---------------------------------------------------------

    def on_event(self, event: table_pb2.TableEvent) -> None:
        before = (self.model.turn, self.model.phase)
        was_over = self.model.match_over
        if not self.model.apply(event):
            return
        if self.model.match_over and not was_over and self.model.score_sheet.rows:
            self.session.show_scores = True  # the match's sheet, as read out at its end
        if self.model.match_over and not was_over and self.rating_change is not None:
            self.spawn(self._ask_rating(self.rating_change))
        notice = self.session.notice
        if (self.model.turn, self.model.phase) != before and notice is not None:
            self._clear_once_read(notice)
        self.planner.follow(self.model)
        self.session.selected &= set(self.model.hand)
        if self.model.shown_result is not None and self.hand_focused():
            # The hand is not shown at the end of a deal: Enter there means "ready".
            self.app.layout.focus(self.input_field)
        self.fair_deal.on_event(event)
        self.private.on_event(event)
        told = event.WhichOneof("event") in ("match_update", "snapshot")
        self._follow_rientro(told)
        self._follow_pause(told)
        self._follow_turn_clock()
        if self.model.match_over:
            self._forget_seat()  # nothing left to rejoin
        self.invalidate()

    def _forget_seat(self) -> None:
        if self.seat_store is not None and self.link is not None:
            self.seat_store.forget(self.link.seat.table_id)

    def _follow_rientro(self, told_time_left: bool) -> None:
        """Count down the answer to a buy-back offered to this seat (R11.3).

        The host says how long it still waits, counted from the event that tells
        of the offer (a duration: the two clocks need not agree), so each such
        event, a snapshot after a rejoin included, sets the deadline on this
        machine's own clock.
        """
        me = self.model.my_seat
        if me is None or self.model.my_rientro_fee is None:
            self.session.rientro_deadline = None
            return
        counting = self.session.rientro_deadline is not None
        if told_time_left or not counting:
            left = self.model.rientro_answer_within.get(me, 0.0)
            self.session.rientro_deadline = time.monotonic() + left
        if not counting:
            self.count_down()

    def _follow_pause(self, told_time_left: bool) -> None:
        """Count down the host's pause before the next deal, from the duration it sent."""
        pause = self.model.between_deals
        if pause is None:
            self.session.next_deal_deadline = None
            return
        counting = self.session.next_deal_deadline is not None
        if told_time_left or not counting:
            self.session.next_deal_deadline = time.monotonic() + pause.within
        if not counting:
            self.count_down()

    def _follow_turn_clock(self) -> None:
        """Count down the turn clock of the seat to move, from the duration the host sent with
        the event that started the turn (or with the view)."""
        model = self.model
        if model.turn_time is None:
            self.session.turn_deadline = None
            self._turn_time_told = model.turn_time_told
            return
        if model.turn_time_told != self._turn_time_told:
            self._turn_time_told = model.turn_time_told
            self.session.turn_deadline = time.monotonic() + model.turn_time
            self.count_down()

    def _counting(self) -> bool:
        session = self.session
        return (
            session.rientro_seconds_left() > 0
            or session.next_deal_seconds_left() > 0
            or session.cut_seconds_left() > 0
            or (session.turn_seconds_left() or 0) > 0
        )

    def count_down(self) -> None:
        """Redraw each second while a countdown runs (a buy-back, the pause, the cut)."""
        if not self._count_running:
            self._count_running = True
            self.spawn(self._count_down())

    async def _count_down(self) -> None:
        try:
            while self._counting():
                self.invalidate()
                await asyncio.sleep(1.0)
        finally:
            self._count_running = False
        self.invalidate()

    def on_link(self, connected: bool, attempt: int) -> None:
        self.session.link = LinkState.CONNECTED if connected else LinkState.RECONNECTING
        self.session.reconnect_attempt = attempt
        if connected and self._start_pending and self.start_match is not None:
            # The match starts only once this seat listens, so no fair-deal step is missed.
            self._start_pending = False
            start = self.start_match
            self._send(lambda link: start())
        self.invalidate()

    def _clear_once_read(self, notice: Notice) -> None:
        """The turn moved on: a refusal or error spoke of the table as it was, and would hide
        what to do now ("Your turn: draw …"), so it goes, but not before it could be read
        (NOTICE_READ_SECONDS: one said as a deal began would go unseen). A question stays."""
        if notice.question:
            return
        left = notice.said_at + NOTICE_READ_SECONDS - time.monotonic()
        if left <= 0:
            self.session.clear_notice()
            return

        def clear() -> None:
            if self.session.notice is notice:  # not another said since
                self.session.clear_notice()
                self.invalidate()

        asyncio.get_running_loop().call_later(left, clear)

    def start_when_connected(self) -> None:
        self._start_pending = True

    def invalidate(self) -> None:
        self.app.invalidate()

    # --- the command line ------------------------------------------------------------

    def _accept(self, buffer: Any) -> bool:
        line = buffer.text
        self.session.clear_notice()
        if self.session.cut_prompt and (not line.strip() or line.strip().isdigit()):
            self.fair_deal.answer_cut(line)
            return False
        if not line.strip():
            if self.model.unread_result is not None:
                self.model.read_result()  # the deal that put this seat out: read
            elif self._waited_for():
                self.run(c.ReadyCmd())  # Enter on an empty line: read, ready for the next deal
            return False
        try:
            command = c.parse_command(line, self.text.lang)
        except c.CommandError as error:
            self.say_error(error.key, **error.fields)
            return False  # the line goes to the history: ↑ brings it back to be fixed
        self.run(command)
        return False

    def say_error(self, key: str, **fields: Any) -> None:
        self.session.say(NoticeKind.ERROR, "status_error", reason=self.text(key, **fields))
        self.invalidate()

    def say_refusal(self, refusal: HostRefusal | RuleViolation) -> None:
        words = failure_words(refusal, self.session.host)
        if words is not None:  # the network's or trust's failure, not a rule's: said as such
            detail = refusal.line if isinstance(refusal, HostRefusal) else str(refusal)
            logging.getLogger(__name__).warning("the link to the host: %s", detail)
            self.session.say_failure(words)
            self.model.note(words[0], **words[1])
            self.invalidate()
            return
        if isinstance(refusal, HostRefusal):
            sentence = refusal.message
        else:  # the local engine's, while planning: in the screen's language
            sentence = refusals.localized(refusal, self.text.lang)
        self.session.say(NoticeKind.REFUSAL, "status_refused", reason=sentence)
        self.model.note("log_refused", reason=sentence)  # in full, after the status line moves on
        self.invalidate()

    async def _ask_rating(
        self, asked: Callable[[], Coroutine[Any, Any, tuple[float, float] | None]]
    ) -> None:
        self.model.rating_change = await asked()
        self.invalidate()

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(self._reported(coroutine))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _reported(self, coroutine: Coroutine[Any, Any, None]) -> None:
        # A failure of one background step is shown on the status line; the screen goes on.
        try:
            await coroutine
        except asyncio.CancelledError:
            raise
        except Exception as error:
            logging.getLogger(__name__).exception("background step failed")
            self.session.say(
                NoticeKind.ERROR, "status_error", reason=f"{type(error).__name__}: {error}"
            )
            self.invalidate()

    def run(self, command: c.Command) -> None:
        """Carry out one command (typed or from a key)."""
        self.session.clear_notice()  # the answer to this command replaces the last one
        if not isinstance(command, c.QuitCmd):
            self.session.quit_armed = False
        if not isinstance(command, c.StandInCmd):
            self.session.stand_in_armed = False
        try:
            self._carry_out(command)
        except c.CommandError as error:
            self.say_error(error.key, **error.fields)
        except RuleViolation as refusal:
            self.say_refusal(refusal)
        self.invalidate()

    def _carry_out(self, command: c.Command) -> None:
        """Which method carries out which command: one line each."""
        match command:
            case c.BackCmd():
                self._take_seat_back(command)
            case c.DrawStockCmd():
                self._draw_stock(command)
            case c.DrawDiscardCmd():
                self._draw_discard(command)
            case c.ReturnDiscardCmd():
                self._return_discard(command)
            case c.PlanMeldCmd():
                self._plan_meld(command)
            case c.PlanAttachCmd():
                self._plan_attach(command)
            case c.PlanSwapCmd():
                self._plan_swap(command)
            case c.PlayCmd():
                self._play(command)
            case c.UndoCmd():
                self._undo(command)
            case c.ClearCmd():
                self._clear_plan(command)
            case c.SortCmd():
                self._sort_hand(command)
            case c.HintCmd():
                self._hint(command)
            case c.ChatCmd():
                self._chat(command)
            case c.HelpCmd():
                self._toggle_help(command)
            case c.ReadyCmd():
                self._ready(command)
            case c.NewMatchCmd():
                self._new_match(command)
            case c.ScoresCmd():
                self._toggle_scores(command)
            case c.QuitCmd():
                self.request_quit()
            case c.CutCmd():
                self._cut(command)
            case c.StartCmd():
                self._start(command)
            case c.RientroCmd():
                self._answer_rientro(command)
            case c.AbsentCmd():
                self._decide_absence(command)
            case c.StandInCmd():
                self._stand_in(command)
            case _:
                assert_never(command)

    def _seated(self) -> bool:
        if self.model.is_spectator:
            self.say_error("err_spectator")
            return False
        return True

    def _send(self, call: Callable[[TableLink], Coroutine[Any, Any, Any]]) -> None:
        link = self.link
        if link is None:
            self.say_error("err_not_connected")
            return

        async def sending() -> None:
            try:
                await call(link)
            except HostRefusal as refusal:
                self.say_refusal(refusal)

        self.spawn(sending())

    # --- one method per command (_carry_out says which) ---------------------------

    def _take_seat_back(self, cmd: c.BackCmd) -> None:
        """Take the seat back from the host bot that plays it: a new event stream says so."""
        if not self._seated():
            return
        if not self.model.i_am_away:
            self.say_error("err_not_away")
            return
        if self.link is not None:
            self.link.reopen()
        self.session.say(NoticeKind.INFO, "back_asked")

    def _draw_stock(self, cmd: c.DrawStockCmd) -> None:
        if self._seated():
            self._send(lambda link: link.draw(deal_pb2.DRAW_SOURCE_STOCK))

    def _draw_discard(self, cmd: c.DrawDiscardCmd) -> None:
        if self._seated():
            self._send(lambda link: link.draw(deal_pb2.DRAW_SOURCE_DISCARD))

    def _return_discard(self, cmd: c.ReturnDiscardCmd) -> None:
        if self._seated():
            self._send(lambda link: link.return_discard())

    def _plan_meld(self, cmd: c.PlanMeldCmd) -> None:
        if self._seated():
            self.planner.follow(self.model)
            self.planner.add_meld(self.model, cmd.cards, cmd.split)
            self.session.selected.clear()

    def _plan_attach(self, cmd: c.PlanAttachCmd) -> None:
        if self._seated():
            self.planner.follow(self.model)
            self.planner.add_attach(self.model, cmd.meld, cmd.cards, cmd.split)
            self.session.selected.clear()

    def _plan_swap(self, cmd: c.PlanSwapCmd) -> None:
        if self._seated():
            self.planner.follow(self.model)
            self.planner.add_swap(self.model, cmd.meld, cmd.card)

    def _play(self, cmd: c.PlayCmd) -> None:
        if not self._seated():
            return
        self.planner.follow(self.model)
        card = discard_card(self.model, self.planner, cmd.card)
        operations = self.planner.operations_pb()
        steps = list(self.planner.steps)

        async def play(link: TableLink) -> None:
            # At a private table the hand's cards go by position, opened to everyone first.
            positions = await self.private.positions_for(operations, card)  # type: ignore[arg-type]
            await link.play(operations, card, positions)  # type: ignore[arg-type]
            # Accepted: the plan is now on the table. Keep a plan changed meanwhile.
            if self.planner.steps == steps:
                self.planner.clear()
            self.session.selected.clear()

        self._send(play)

    def _undo(self, cmd: c.UndoCmd) -> None:
        if self.planner.undo() is None:
            raise c.CommandError("err_nothing_to_undo")

    def _clear_plan(self, cmd: c.ClearCmd) -> None:
        self.planner.clear()
        self.session.say(NoticeKind.INFO, "cleared")

    def _sort_hand(self, cmd: c.SortCmd) -> None:
        self.session.hand_order = (
            HandOrder.RANK if self.session.hand_order is HandOrder.SUIT else HandOrder.SUIT
        )

    def _hint(self, cmd: c.HintCmd) -> None:
        if not self._seated():
            return
        self.planner.follow(self.model)
        found = hint(self.model)
        if found is None:
            self.session.say(NoticeKind.INFO, "hint_none")
            return
        text = render.hint_text(found, self.text)
        self.model.note("log_hint", text=text)
        self.session.say(NoticeKind.INFO, "log_hint", text=text)
        if found.playable and not self.planner:
            # A legal play now: put it in the plan, where it can be changed or undone.
            self.planner.adopt(found.operations)

    def _chat(self, cmd: c.ChatCmd) -> None:
        self._send(lambda link: link.chat(cmd.text))

    def _toggle_help(self, cmd: c.HelpCmd) -> None:
        self.session.show_help = not self.session.show_help

    def _waited_for(self) -> bool:
        pause, me = self.model.between_deals, self.model.my_seat
        return pause is not None and me in pause.waiting_for and me not in pause.ready

    def _ready(self, cmd: c.ReadyCmd) -> None:
        if not self._seated():
            return
        if self.model.between_deals is None:
            raise c.CommandError("err_not_between_deals")

        async def ready(link: TableLink) -> None:
            await link.ready()
            self.session.say(NoticeKind.OK, "ready_sent")
            self.invalidate()

        self._send(ready)

    def _new_match(self, cmd: c.NewMatchCmd) -> None:
        """Another match at the same seats (TableService.Rematch): it starts once everyone
        seated has agreed, on this same screen (a local game too: its bots always agree)."""
        if self.model.is_spectator:
            raise c.CommandError("err_no_new_match")
        if not self.model.match_over:
            raise c.CommandError("err_match_not_over")

        rules = None
        if cmd.rules:
            # The rules in force with the ones typed changed: every option is sent, so the
            # next match differs from this one only where the first player said.
            options = ruleset_pb2.RulesetOptions()
            options.CopyFrom(self.model.ruleset)
            options.MergeFrom(read_rule_changes(list(cmd.rules)))
            rules = ruleset_pb2.Ruleset(preset=self.model.preset, options=options)

        async def rematch(link: TableLink) -> None:
            await link.rematch(rules)
            self.session.say(NoticeKind.OK, "rematch_sent")
            self.invalidate()

        self._send(rematch)

    def _toggle_scores(self, cmd: c.ScoresCmd) -> None:
        self.session.show_scores = not self.session.show_scores

    def request_quit(self) -> None:
        """Leave; in the middle of a match only when asked twice in a row (a bot takes the
        seat over, and ``make play`` stops its host)."""
        model = self.model
        playing = (
            model.my_seat is not None
            and model.table_phase == lobby_pb2.TABLE_PHASE_PLAYING
            and not model.match_over
            and not model.seat(model.my_seat).out  # a bust player leaves nothing behind
        )
        if playing and not self.session.quit_armed:
            self.session.quit_armed = True
            self.session.say(NoticeKind.REFUSAL, "quit_confirm", word=self.word("quit"))
            self.invalidate()
            return
        self.quit()

    def _cut(self, cmd: c.CutCmd) -> None:
        self.fair_deal.answer_cut("" if cmd.cut is None else str(cmd.cut))

    def _start(self, cmd: c.StartCmd) -> None:
        if self._seated() and self.start_match is not None:
            start = self.start_match
            self._send(lambda link: start())

    def _decide_absence(self, cmd: c.AbsentCmd) -> None:
        """The first player's decision for an absent seat; the host checks who may decide."""
        if not self._seated():
            return
        if cmd.seat == self.model.my_seat:
            raise c.CommandError("err_absent_self")
        choice = _ABSENCE_CHOICES[cmd.choice]
        name = self.model.name_of(cmd.seat)

        async def decide(link: TableLink) -> None:
            await link.decide_absence(cmd.seat, choice)
            self.session.say(NoticeKind.OK, f"absence_{cmd.choice}_done", name=name)
            self.invalidate()

        self._send(decide)

    def _stand_in(self, cmd: c.StandInCmd) -> None:
        """At a private table, in a match: this seat and its keys to a host bot for good (the
        host can then read the hand), once the player asked twice in a row."""
        if not self._seated():
            return
        model = self.model
        if not model.private_cards or model.table_phase != lobby_pb2.TABLE_PHASE_PLAYING:
            raise c.CommandError("err_stand_in_private")
        if not self.session.stand_in_armed:
            self.session.stand_in_armed = True
            self.session.say(NoticeKind.REFUSAL, "stand_in_confirm", word=self.word("standin"))
            return
        self.session.stand_in_armed = False
        handing = self.private.hand_over()
        if handing is None:
            raise c.CommandError("err_not_connected")
        sent = handing

        async def hand_over(link: TableLink) -> None:
            await sent
            self.session.say(NoticeKind.OK, "stand_in_done")
            self.invalidate()

        self._send(hand_over)

    def offer_absence(self) -> None:
        """The key for the absent-seat decision: the command line, written up to the choice."""
        absent = self.model.absent_seats()
        if not absent:
            self.say_error("err_nobody_absent")
            return
        self.input_field.buffer.text = f"{self.word('absent')} {absent[0]} "
        self.input_field.buffer.cursor_position = len(self.input_field.buffer.text)
        self.app.layout.focus(self.input_field)
        self.session.say(NoticeKind.INFO, "absent_prompt", name=self.model.name_of(absent[0]))

    def _answer_rientro(self, cmd: c.RientroCmd) -> None:
        if not self._seated():
            return
        if self.model.my_rientro_fee is None:
            raise c.CommandError("err_no_rientro")
        buy_back = cmd.buy_back

        async def answer(link: TableLink) -> None:
            await link.answer_rientro(buy_back)
            self.session.say(NoticeKind.OK, "rientro_sent_yes" if buy_back else "rientro_sent_no")
            self.invalidate()

        self._send(answer)

    # --- running ----------------------------------------------------------------------

    def quit(self) -> None:
        if self.link is not None:
            self.link.close()
        if self.app.is_running:
            self.app.exit()

    async def run_async(self) -> None:
        """Run the screen; the event stream runs beside it until the screen closes."""
        follower: asyncio.Task[None] | None = None
        if self.link is not None:
            link = self.link

            async def follow() -> None:
                try:
                    await link.follow(self.on_event, self.on_link)
                except HostRefusal as refusal:
                    self.session.link = LinkState.GIVEN_UP
                    if failure_words(refusal, self.session.host) is None:
                        self._forget_seat()  # the host no longer knows this seat's token
                    self.say_refusal(refusal)

            self.session.link = LinkState.CONNECTING
            follower = asyncio.get_running_loop().create_task(follow())
        try:
            # Exceptions of tasks that are not the screen's (the in-process host's, say) are
            # logged rather than stopping the screen with prompt_toolkit's "press ENTER".
            await self.app.run_async(set_exception_handler=False)
        finally:
            if self.link is not None:
                self.link.close()
            if follower is not None:
                follower.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await follower
            for task in list(self._tasks):
                task.cancel()
            self.private.close()  # its reader, its HEADS clock and its worker thread stop
            if self.on_exit is not None:
                await self.on_exit()
