"""The table screen's layout, built from one small function per panel and ``Condition`` filters.

Narrow terminals (80x24) stack everything in one column with a short log;
from 100 columns the log and the chat move to a side column and the table
gets the rest. Each panel renders at the width and height it is actually
given, so a resize only re-renders; nothing is laid out in advance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.formatted_text import StyleAndTextTuples, to_formatted_text
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.key_binding import KeyBindingsBase
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.widgets import Frame

from client import render, render_end

if TYPE_CHECKING:
    from client.app import TableScreen

WIDE = 112  # from this many columns the log and chat get a side column (the table keeps 73)
SIDE_WIDTH = 38


class PanelControl(UIControl):
    """A read-only panel drawn by ``draw(width, height)`` at the size it is given."""

    def __init__(
        self,
        draw: Callable[[int, int], StyleAndTextTuples],
        focusable: bool = False,
        key_bindings: KeyBindingsBase | None = None,
    ) -> None:
        self.draw = draw
        self.focusable = focusable
        self.key_bindings = key_bindings

    def _lines(self, width: int, height: int) -> list[StyleAndTextTuples]:
        fragments = to_formatted_text(self.draw(max(width, 1), max(height, 1)))
        return list(split_lines(fragments))

    def preferred_width(self, max_available_width: int) -> int | None:
        return None

    def preferred_height(
        self,
        width: int,
        max_available_height: int,
        wrap_lines: bool,
        get_line_prefix: object,
    ) -> int | None:
        return len(self._lines(width, max_available_height))

    def create_content(self, width: int, height: int) -> UIContent:
        lines = self._lines(width, height)
        return UIContent(
            get_line=lambda i: lines[i] if i < len(lines) else [],
            line_count=len(lines),
            show_cursor=False,
        )

    def is_focusable(self) -> bool:
        return self.focusable

    def get_key_bindings(self) -> KeyBindingsBase | None:
        return self.key_bindings


def is_wide() -> bool:
    return get_app().output.get_size().columns >= WIDE


def _panel(draw: Callable[[int, int], StyleAndTextTuples], **window: object) -> Window:
    return Window(PanelControl(draw), **window)  # type: ignore[arg-type]


def title_bar(screen: TableScreen) -> Window:
    return _panel(
        lambda w, h: render.title_line(screen.model, screen.session, screen.text),
        height=1,
        style="class:title",
    )


def players_panel(screen: TableScreen) -> Window:
    return _panel(
        lambda w, h: render.join_lines(
            render.player_lines(
                screen.model,
                screen.text,
                w,
                screen.session.link,
                screen.session.turn_seconds_left(),
            )
        ),
        # Every seat always has its row: the table and the log give way first.
        height=lambda: Dimension.exact(max(1, len(screen.model.seats))),
    )


def players_legend(screen: TableScreen) -> Window:
    return _panel(
        lambda w, h: render.players_legend(screen.model, screen.text, w),
        height=1,
    )


def separator() -> Window:
    return Window(height=1, char="─", style="class:separator")


def table_panel(screen: TableScreen) -> Window:
    """The melds on the table; at the end of a deal, every hand and the verification instead."""

    def lines(width: int, height: int) -> render.Lines:
        model = screen.model
        if model.shown_result is not None:
            return render_end.deal_end_lines(model, screen.text, width, screen.session, height)
        return render.meld_lines(model, screen.text, width, height)

    def rows() -> Dimension:
        # In one column the log below gets what the table does not need (a 100x32 screen
        # had empty table rows and a four-line log); beside a side column, all of it.
        if is_wide():
            return Dimension(min=1, weight=1)
        width = get_app().output.get_size().columns
        need = max(1, len(lines(width, 1000)))
        return Dimension(min=1, preferred=need, max=need)

    return _panel(lambda w, h: render.join_lines(lines(w, h)), height=rows)


def deal_running(screen: TableScreen) -> Filter:
    """False while the end of a deal is shown: its panel then gets the piles' and hand's rows."""
    model = screen.model
    return Condition(lambda: model.shown_result is None)


def piles_bar(screen: TableScreen) -> ConditionalContainer:
    def rows() -> Dimension:
        columns = get_app().output.get_size().columns
        width = columns - SIDE_WIDTH - 1 if is_wide() else columns
        return Dimension.exact(len(render.piles_lines(screen.model, screen.text, width)))

    return ConditionalContainer(
        _panel(
            lambda w, h: render.join_lines(render.piles_lines(screen.model, screen.text, w)),
            height=rows,
        ),
        filter=deal_running(screen),
    )


def hand_panel(screen: TableScreen) -> ConditionalContainer:
    def draw(width: int, height: int) -> StyleAndTextTuples:
        planned = screen.planner.used_cards(screen.model) if screen.planner else set()
        return render.join_lines(
            render.hand_lines(
                screen.model, screen.session, screen.text, width, planned, screen.hand_focused()
            )
        )

    control = PanelControl(draw, focusable=True, key_bindings=screen.hand_key_bindings)
    window = Window(control, height=Dimension(min=1, max=4), dont_extend_height=True)
    screen.hand_window = window
    return ConditionalContainer(window, filter=deal_running(screen))


PLAN_ROWS = 6


def plan_panel(screen: TableScreen) -> ConditionalContainer:
    """The plan gets the rows it needs (up to PLAN_ROWS) before the table and the log do, and
    its summary line is always the last one shown."""
    shown: Filter = Condition(lambda: not screen.model.is_spectator and screen.plan_visible())

    def rows() -> Dimension:
        columns = get_app().output.get_size().columns
        width = columns - SIDE_WIDTH - 1 if is_wide() else columns
        need = len(render.plan_lines(screen.preview(), screen.text, width))
        return Dimension.exact(max(1, min(PLAN_ROWS, need)))

    return ConditionalContainer(
        _panel(
            lambda w, h: render.join_lines(render.plan_lines(screen.preview(), screen.text, w, h)),
            height=rows,
        ),
        filter=shown,
    )


def log_panel(screen: TableScreen, chat: bool) -> Window:
    return _panel(
        lambda w, h: render.join_lines(
            render.log_lines(screen.model, screen.text, w, h, screen.session.log_scroll, chat=chat)
        ),
        height=Dimension(min=1, weight=1),
    )


def chat_panel(screen: TableScreen) -> Window:
    return _panel(
        lambda w, h: render.join_lines(render.chat_lines(screen.model, w, h)),
        height=Dimension(min=1, weight=1),
    )


def side_column(screen: TableScreen) -> ConditionalContainer:
    t = screen.text
    return ConditionalContainer(
        VSplit(
            [
                Window(width=1, char="│", style="class:separator"),
                HSplit(
                    [
                        Frame(log_panel(screen, chat=False), title=t("panel_log")),
                        Frame(
                            chat_panel(screen), title=t("panel_chat"), height=Dimension(weight=1)
                        ),
                    ],
                    width=SIDE_WIDTH,
                ),
            ]
        ),
        filter=Condition(is_wide),
    )


def narrow_log(screen: TableScreen) -> ConditionalContainer:
    return ConditionalContainer(
        HSplit(
            [
                separator(),
                Window(
                    PanelControl(_narrow_log_draw(screen)),
                    height=Dimension(min=1, preferred=1, weight=1),
                ),
            ]
        ),
        filter=~Condition(is_wide),
    )


def _narrow_log_draw(screen: TableScreen) -> Callable[[int, int], StyleAndTextTuples]:
    def draw(width: int, height: int) -> StyleAndTextTuples:
        return render.join_lines(
            render.log_lines(screen.model, screen.text, width, height, screen.session.log_scroll)
        )

    return draw


def status_bar(screen: TableScreen) -> Window:
    return _panel(
        lambda w, h: render.join_lines(
            render.status_lines(screen.model, screen.session, screen.text, w)
        ),
        height=Dimension(min=2, max=render.STATUS_NOTICE_LINES + 2),
        dont_extend_height=True,
    )


def _popup(body: Window, title: str, shown: Callable[[], bool]) -> Float:
    """A panel over the table while ``shown``. Left and right pinned: as wide as the screen (a
    Float with neither is only as wide as its content's preferred width, which a PanelControl
    leaves unset)."""
    return Float(
        ConditionalContainer(Frame(body, title=title, style="bg:#1c1c1c"), filter=Condition(shown)),
        top=1,
        left=0,
        right=0,
    )


def help_float(screen: TableScreen) -> Float:
    t = screen.text
    body = _panel(
        lambda w, h: [("", t("help_text")), ("class:dim", "\n\n" + t("help_close"))],
    )
    return _popup(body, t("panel_help"), lambda: screen.session.show_help)


def scores_float(screen: TableScreen) -> Float:
    """The score sheet over the table, as wide as the screen allows."""
    t = screen.text
    body = _panel(
        lambda w, h: [
            *render.join_lines(render_end.score_sheet_lines(screen.model, t, w)),
            ("class:dim", "\n" + t("sheet_close")),
        ],
    )
    return _popup(body, t("panel_scores"), lambda: screen.session.show_scores)


def melds_float(screen: TableScreen) -> Float:
    """Every meld on the table, when the table panel has no room for them all (F3)."""
    t = screen.text
    body = _panel(
        lambda w, h: [
            *render.join_lines(render.meld_lines(screen.model, t, w, max(h - 1, 1))),
            ("class:dim", "\n" + t("melds_close")),
        ],
    )
    return _popup(body, t("panel_melds"), lambda: screen.session.show_melds)


def build_layout(screen: TableScreen) -> Layout:
    main_column = HSplit(
        [
            players_panel(screen),
            players_legend(screen),
            table_panel(screen),
            ConditionalContainer(separator(), filter=deal_running(screen)),
            piles_bar(screen),
            hand_panel(screen),
            plan_panel(screen),
            narrow_log(screen),
        ]
    )
    body = HSplit(
        [
            title_bar(screen),
            VSplit([main_column, side_column(screen)]),
            separator(),
            status_bar(screen),
            screen.input_field,
        ]
    )
    root = FloatContainer(
        body,
        floats=[
            Float(
                xcursor=True,
                ycursor=True,
                content=CompletionsMenu(max_height=8, scroll_offset=1),
            ),
            help_float(screen),
            scores_float(screen),
            melds_float(screen),
        ],
    )
    return Layout(root, focused_element=screen.input_field)
