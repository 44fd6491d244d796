"""Key bindings of the table screen, grouped by concern: application, focus, hand, log.

The command line keeps prompt_toolkit's own editing keys (history on ↑/↓,
completion on Tab), and every printable key: the table's own keys are
function and control keys, so none takes the first letter of a typed command.
The hand is a second focusable panel: Tab from an empty command line moves
there, where single keys do the common path of a turn (select cards, lay
them, attach, discard, draw).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent, merge_key_bindings

from client.commands import (
    CardSpec,
    DrawDiscardCmd,
    DrawStockCmd,
    NewMatchCmd,
    PlanMeldCmd,
    PlayCmd,
    SortCmd,
    UndoCmd,
)
from scala40_net.cards import face

if TYPE_CHECKING:
    from prompt_toolkit.key_binding import KeyBindingsBase

    from client.app import TableScreen


def application_bindings(screen: TableScreen) -> KeyBindings:
    """Leave, help: always available."""
    kb = KeyBindings()

    @kb.add("c-q")
    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        screen.request_quit()

    @kb.add("f1")
    def _help(event: KeyPressEvent) -> None:
        screen.session.show_help = not screen.session.show_help

    @kb.add("f2")
    def _scores(event: KeyPressEvent) -> None:
        screen.session.show_scores = not screen.session.show_scores

    @kb.add("f3")
    def _melds(event: KeyPressEvent) -> None:
        screen.session.show_melds = not screen.session.show_melds

    @kb.add("f4")
    def _absent(event: KeyPressEvent) -> None:
        screen.offer_absence()

    # Not a letter: a key the command line shares would take the first letter of a word
    # typed there ('n' of 'nuova'). The table's own keys are function and control keys.
    offered = Condition(lambda: screen.model.match_over and not screen.model.is_spectator)

    @kb.add("f5", filter=offered)
    def _new_match(event: KeyPressEvent) -> None:
        screen.run(NewMatchCmd())

    session = screen.session

    @kb.add(
        "escape",
        filter=Condition(lambda: session.show_help or session.show_scores or session.show_melds),
        eager=True,
    )
    def _close_help(event: KeyPressEvent) -> None:
        session.show_help = session.show_scores = session.show_melds = False

    return kb


def log_bindings(screen: TableScreen) -> KeyBindings:
    """Scroll the log back and forth."""
    kb = KeyBindings()

    @kb.add("pageup")
    def _back(event: KeyPressEvent) -> None:
        screen.session.log_scroll = min(screen.session.log_scroll + 3, len(screen.model.log))

    @kb.add("pagedown")
    def _forward(event: KeyPressEvent) -> None:
        screen.session.log_scroll = max(screen.session.log_scroll - 3, 0)

    # End on an empty command line, while the log is scrolled back: its newest entries again.
    scrolled = Condition(
        lambda: screen.session.log_scroll > 0 and not screen.input_field.buffer.text
    )

    @kb.add("end", filter=scrolled)
    def _newest(event: KeyPressEvent) -> None:
        screen.session.log_scroll = 0

    return kb


def focus_bindings(screen: TableScreen) -> KeyBindings:
    """Tab moves between the command line (when it is empty) and the hand."""
    kb = KeyBindings()
    input_empty = Condition(
        lambda: screen.input_focused() and not screen.input_field.buffer.text.strip()
    )

    @kb.add("tab", filter=input_empty)
    def _to_hand(event: KeyPressEvent) -> None:
        if not screen.model.is_spectator and screen.hand_window is not None:
            event.app.layout.focus(screen.hand_window)

    @kb.add("tab", filter=Condition(screen.hand_focused))
    @kb.add("escape", filter=Condition(screen.hand_focused))
    def _to_input(event: KeyPressEvent) -> None:
        event.app.layout.focus(screen.input_field)

    return kb


def hand_bindings(screen: TableScreen) -> KeyBindings:
    """Keys of the hand panel: move, select, and the common moves of a turn."""
    kb = KeyBindings()

    def cards() -> list[int]:
        return screen.shown_hand()

    def under_cursor() -> int | None:
        shown = cards()
        if not shown:
            return None
        screen.session.cursor = min(screen.session.cursor, len(shown) - 1)
        return shown[screen.session.cursor]

    @kb.add("left")
    @kb.add("h")
    def _left(event: KeyPressEvent) -> None:
        screen.session.cursor = max(screen.session.cursor - 1, 0)

    @kb.add("right")
    @kb.add("l")
    def _right(event: KeyPressEvent) -> None:
        screen.session.cursor = min(screen.session.cursor + 1, max(len(cards()) - 1, 0))

    cutting = Condition(lambda: screen.session.cut_prompt)

    def _cut_digit(event: KeyPressEvent) -> None:
        # The cut is typed on the command line, wherever the focus was.
        event.app.layout.focus(screen.input_field)
        screen.input_field.buffer.insert_text(event.data)

    for digit in "0123456789":
        kb.add(digit, filter=cutting)(_cut_digit)

    @kb.add("home")
    def _first(event: KeyPressEvent) -> None:
        screen.session.cursor = 0

    @kb.add("end")
    def _last(event: KeyPressEvent) -> None:
        screen.session.cursor = max(len(cards()) - 1, 0)

    @kb.add("space")
    def _select(event: KeyPressEvent) -> None:
        card = under_cursor()
        if card is None:
            return
        selected = screen.session.selected
        selected.symmetric_difference_update({card})
        screen.session.cursor = min(screen.session.cursor + 1, max(len(cards()) - 1, 0))

    @kb.add("enter")
    @kb.add("c")
    def _meld(event: KeyPressEvent) -> None:
        chosen = screen.selected_cards()
        if not chosen:
            screen.say_error("err_no_selection")
            return
        screen.run(PlanMeldCmd(tuple(CardSpec(face(c)) for c in chosen)))

    @kb.add("a")
    def _attach(event: KeyPressEvent) -> None:
        # The meld number is the one thing missing: leave it to the command line.
        chosen = screen.selected_cards() or [c for c in [under_cursor()] if c is not None]
        labels = " ".join(str(face(c)) for c in chosen)
        buffer = screen.input_field.buffer
        buffer.text = f"{screen.word('attach')}  {labels}"
        buffer.cursor_position = len(screen.word("attach")) + 1
        event.app.layout.focus(screen.input_field)

    @kb.add("d")
    def _discard(event: KeyPressEvent) -> None:
        card = under_cursor()
        if card is not None:
            screen.run(PlayCmd(face(card)))

    @kb.add("p")
    def _draw(event: KeyPressEvent) -> None:
        screen.run(DrawStockCmd())

    @kb.add("t")
    def _take(event: KeyPressEvent) -> None:
        screen.run(DrawDiscardCmd())

    @kb.add("u")
    def _undo(event: KeyPressEvent) -> None:
        screen.run(UndoCmd())

    @kb.add("o")
    def _sort(event: KeyPressEvent) -> None:
        screen.run(SortCmd())

    return kb


def table_bindings(screen: TableScreen) -> KeyBindingsBase:
    """Every binding of the table screen that is not the hand panel's own."""
    return merge_key_bindings(
        [application_bindings(screen), log_bindings(screen), focus_bindings(screen)]
    )
