"""Rendering: the view model and the session as prompt_toolkit formatted text, one panel a function.

Every function is pure (model, session, text in; fragments out) so each
panel can be tested without a terminal. Styles are class names resolved by
``theme.py``: hearts and diamonds are red, jokers stand out, warnings are loud.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples

from client.cardtext import face_label, typed_label
from client.i18n import Text
from client.model import (
    FairDealState,
    Phase,
    TableMeldState,
    TableModel,
    Verification,
    sort_hand,
)
from client.planner import Hint, Preview
from client.session import LinkState, NoticeKind, SessionState, TrustState
from scala40_net import refusals
from scala40_net.actions import Attach, DrawSource, NewMeld, SwapJoker
from scala40_net.cards import Face, face
from scala40_net.pb import deal_pb2, lobby_pb2
from scala40_net.players import short_fingerprint

Lines = list[StyleAndTextTuples]

_LEFT_OUT_WHY: dict[int, str] = {
    deal_pb2.LEFT_OUT_REASON_NO_COMMITMENT: "why_no_commitment",
    deal_pb2.LEFT_OUT_REASON_NO_REVEAL: "why_no_reveal",
    deal_pb2.LEFT_OUT_REASON_BAD_REVEAL: "why_bad_reveal",
}


# --- cards ------------------------------------------------------------------------------


def face_style(f: Face) -> str:
    if f.suit is None:
        return "class:card.joker"
    return "class:card.red" if f.suit.is_red else "class:card.black"


def card_fragment(card: int, extra: str = "") -> tuple[str, str]:
    f = face(card)
    return (f"{face_style(f)} {extra}".rstrip(), face_label(f))


def cards_fragments(cards: Sequence[int], stands_for: Sequence[Face] = ()) -> StyleAndTextTuples:
    """Cards separated by spaces; a joker in a meld shows the card it stands for (``*8♥``)."""
    out: StyleAndTextTuples = []
    for i, card in enumerate(cards):
        if i:
            out.append(("", " "))
        f = face(card)
        if f.is_joker and i < len(stands_for) and not stands_for[i].is_joker:
            out.append(("class:card.joker", "*" + face_label(stands_for[i])))
        else:
            out.append(card_fragment(card))
    return out


def fragments_width(fragments: StyleAndTextTuples) -> int:
    return sum(len(text) for _, text, *_ in fragments)


def _pad(fragments: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
    gap = width - fragments_width(fragments)
    return [*fragments, ("", " " * gap)] if gap > 0 else fragments


def cut(fragments: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
    """Fragments cut to ``width`` characters (a narrow terminal never wraps a panel line)."""
    out: StyleAndTextTuples = []
    left = width
    for style, text, *_ in fragments:
        if left <= 0:
            break
        piece = text[:left]
        out.append((style, piece))
        left -= len(piece)
    return out


def wrap_fragments(fragments: StyleAndTextTuples, width: int) -> Lines:
    """Fragments wrapped at spaces into lines of at most ``width``, each piece keeping its style."""
    width = max(width, 8)
    lines: Lines = [[]]
    used = 0
    for style, text, *_ in fragments:
        for piece in re.split(r"(\s+)", text):
            if not piece:
                continue
            if piece.isspace():
                if used and used + len(piece) <= width:
                    lines[-1].append((style, piece))
                    used += len(piece)
                continue
            if used and used + len(piece) > width:
                while lines[-1] and lines[-1][-1][1].isspace():
                    lines[-1].pop()
                lines.append([])
                used = 0
            while len(piece) > width:
                lines[-1].append((style, piece[:width]))
                lines.append([])
                piece = piece[width:]
            lines[-1].append((style, piece))
            used += len(piece)
    return lines


def join_lines(lines: Lines) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def plain(fragments: StyleAndTextTuples) -> str:
    """The text of fragments, for tests and logs."""
    return "".join(text for _, text, *_ in fragments)


# --- title and players ------------------------------------------------------------------


def title_line(model: TableModel, session: SessionState, t: Text) -> StyleAndTextTuples:
    name = model.table_name or t("app_title")
    if model.deal_no:
        text = t("table_title", table=name, deal=model.deal_no, dealer=model.name_of(model.dealer))
    else:
        text = t("table_title_waiting", table=name)
    out: StyleAndTextTuples = [("class:title", f" {text} ")]
    if model.private_cards:
        out.append(("class:title.dim", f" [{t('private_table')}]"))
    if model.is_spectator:
        out.append(("class:title.dim", f" [{t('spectator')}]"))
    return out


def private_fragment(model: TableModel, t: Text) -> StyleAndTextTuples:
    """A private table's line: a fault its checks found (loud), a wait on a card, else the
    table code every player compares aloud, and the seats whose hands the host can read."""
    if model.private_fault:
        return [("class:alarm", model.private_fault)]
    if model.private_waiting:
        return [("class:warning", model.private_waiting)]
    out: StyleAndTextTuples = []
    if model.table_code:
        out.append(("", t("private_code", code=model.table_code)))
    readable = [model.name_of(s) for s, state in sorted(model.seats.items()) if state.host_bot]
    if readable:
        if out:
            out.append(("", "  ·  "))
        out.append(("class:warning", t("private_host_reads", names=", ".join(readable))))
    return out


def _score_text(model: TableModel, seat: int, t: Text) -> str:
    state = model.seat(seat)
    if model.bust_at is None:  # totals are deals won (R11.2)
        return t("deals_won", n=state.total)
    return f"{state.total}/{model.bust_at}"


# While this client is not connected it cannot know who else is.
_LINK_DOWN = (LinkState.CONNECTING, LinkState.RECONNECTING)

# Columns of the players panel: marker+name, cards, opened, score; then bust and connection.
_NAME, _CARDS, _OPENED, _SCORE = 25, 10, 12, 10
_NAME_MIN = 10


def _seat_label(model: TableModel, t: Text, seat: int) -> str:
    """A seat's name as its row shows it: "(you)", "(bot)", the dealer's ◆."""
    state = model.seats[seat]
    name = state.name or f"#{seat}"
    if state.key_fingerprint:  # two people of one name are told apart by their keys
        name = f"{name} {short_fingerprint(state.key_fingerprint)}"
    if seat == model.my_seat:
        name = f"{name} ({t('you')})"
    elif state.bot:
        name = f"{name} ({t('bot')})"
    if state.host_bot and model.private_cards:
        name = f"{name} ({t('host_reads_hand')})"
    if model.dealer == seat and model.deal_no:
        name = f"{name} ◆"
    return name


def _name_column(model: TableModel, t: Text) -> int:
    """The name column as wide as the longest name at the table needs (up to _NAME), so the
    row's end (bust, away, the clock, the connection) keeps its room at 80 columns."""
    names = [len(_seat_label(model, t, s)) for s in model.seats if model.seats[s].taken]
    return min(_NAME, max([_NAME_MIN, *names]) + 4)


def players_legend(model: TableModel, t: Text, width: int) -> StyleAndTextTuples:
    """The rule under the players, naming the score column where it is: penalty points
    against the bust limit (R11.1), or deals won (R11.2)."""
    limit = model.bust_at
    score = t("col_deals_won") if limit is None else t("col_penalty", limit=limit)
    start = _name_column(model, t) + _CARDS + _OPENED - 1
    text = "─" * start + f" {score} "
    if len(text) > width:
        text = "─" * max(1, width - len(score) - 2) + f" {score} "
    return [("class:separator", text[:width] + "─" * max(0, width - len(text)))]


# The last seconds of a turn clock are shown as a warning (issue: "a warning in the last 15 s").
CLOCK_WARNING_SECONDS = 15


def _clock_style(seconds: int) -> str:
    return "class:alarm" if seconds <= CLOCK_WARNING_SECONDS else "class:dim"


def player_lines(
    model: TableModel,
    t: Text,
    width: int,
    link: LinkState = LinkState.CONNECTED,
    clock: int | None = None,
) -> Lines:
    """One line per seat: turn marker, name, cards in hand, opened, penalty points against
    the bust limit, bust, away (a host bot plays it), the turn clock of the seat to move
    (``clock``, seconds), connection (unknown while this client reconnects)."""
    lines: Lines = []
    column = _name_column(model, t)
    for seat in sorted(model.seats):
        state = model.seats[seat]
        if not state.taken:
            lines.append([("class:dim", f"   {seat}  {t('seat_free')}")])
            continue
        turn = model.turn == seat
        marker = "▶ " if turn else "  "
        name = _seat_label(model, t, seat)
        line: StyleAndTextTuples = [
            ("class:turn" if turn else "", marker),
            (
                "class:player.me" if seat == model.my_seat else "class:player",
                f"{name[: column - 3]:<{column - 2}}",
            ),
        ]
        if not state.in_deal and model.deal_no:
            line.append(
                ("class:dim", f"{t('not_in_deal')[: _CARDS + _OPENED - 1]:<{_CARDS + _OPENED}}")
            )
        else:
            held = model.hand_count(seat)
            count = t("one_card_in_hand") if held == 1 else t("cards_in_hand", n=held)
            line.append(("", f"{count:<{_CARDS}}"))
            has_opened = model.has_opened(seat)
            opened = t("opened") if has_opened else t("not_opened")
            line.append(("class:ok" if has_opened else "class:dim", f"{opened:<{_OPENED}}"))
        line.append(("class:score", f"{_score_text(model, seat, t):<{_SCORE}}"))
        if state.out:
            line.append(("class:warning", f"{t('gone' if state.gone else 'busted')} "))
        if state.away:
            line.append(("class:warning", f"{t('seat_away')} "))
        if turn and clock is not None:
            line.append((_clock_style(clock), f"⏱ {clock} s "))
        if not state.bot and not state.away:
            if link is LinkState.GIVEN_UP:  # no longer tried: this seat is off, the others unknown
                mine = seat == model.my_seat
                style = "class:warning" if mine else "class:dim"
                conn, dot = (t("disconnected"), "○") if mine else ("?", "●?")
            elif link in _LINK_DOWN and seat != model.my_seat:
                style, conn, dot = "class:dim", t("connection_unknown"), "●?"
            elif seat == model.my_seat and link in _LINK_DOWN:
                style, conn, dot = "class:warning", t("reconnecting"), "●…"
            elif state.connected:
                style, conn, dot = "class:dim", t("connected"), "●"
            else:
                style, conn, dot = "class:warning", t("disconnected"), "○"
            # Where the words do not fit, the dot alone says it (the status line says more).
            room = width - sum(len(f[1]) for f in line)
            line.append((style, f"● {conn}" if len(conn) + 2 <= room else dot))
        lines.append(cut(line, width))
    return lines


# --- the table --------------------------------------------------------------------------


def meld_line(model: TableModel, meld: TableMeldState, t: Text) -> StyleAndTextTuples:
    line: StyleAndTextTuples = [("class:meld.number", f"{meld.meld_id:>2}) ")]
    line += cards_fragments(meld.cards, meld.meld.stands_for)
    who = model.name_of(meld.laid_by)
    line.append(("class:dim", f"  {who[:10]} {meld.points}"))
    return line


def meld_lines(model: TableModel, t: Text, width: int, height: int) -> Lines:
    """The melds on the table, numbered, in as many columns as the width allows."""
    melds = model.sorted_melds()
    if not melds:
        return [[("class:dim", t("no_melds"))]]
    rows = [meld_line(model, m, t) for m in melds]
    col_width = max(fragments_width(r) for r in rows) + 2
    columns = max(1, min(3, width // max(col_width, 1)))
    height = max(1, height)
    if len(rows) > columns * height:
        keep = columns * height - 1
        rest = len(rows) - keep
        rows = [*rows[:keep], [("class:dim", t("more_melds", n=rest))]]
    per_column = -(-len(rows) // columns)
    if columns == 1:
        return [cut(r, width) for r in rows]
    lines: Lines = []
    for i in range(per_column):
        line: StyleAndTextTuples = []
        for c in range(columns):
            k = c * per_column + i
            if k < len(rows):
                line += _pad(cut(rows[k], col_width), col_width)
        lines.append(line)
    return lines


RECENT_DISCARDS = 3


def piles_lines(model: TableModel, t: Text, width: int = 200) -> Lines:
    """The discard pile's top and the few cards under it, the stock, and who last took a card
    from the pile (what a player watches to guess the others' hands): beside the piles when
    it fits, else on a line of its own."""
    top = model.discard_top
    line: StyleAndTextTuples = []
    if top is None:
        line.append(("", t("discard_pile_empty")))
    else:
        text = t("discard_pile", top="\0", n=model.discard_count)
        before, _, after = text.partition("\0")
        line += [("", before), card_fragment(top, "bold"), ("", after)]
        under = model.discard_pile[-1 - RECENT_DISCARDS : -1]
        if under:
            line.append(("class:dim", " " + t("discard_under") + " "))
            line += cards_fragments(list(reversed(under)))
    line.append(("", "   " + t("stock", n=model.stock_count)))
    if model.pile_takes:
        takes = ", ".join(
            f"{model.name_of(seat)} {face_label(face(card))}"
            for seat, card in model.pile_takes[-2:]
        )
        extra: StyleAndTextTuples = [("class:dim", "   " + t("pile_takes", takes=takes))]
        if fragments_width(line) + fragments_width(extra) > width:
            return [cut(line, width), cut(extra, width)]
        line += extra
    return [cut(line, width)]


# --- the hand ---------------------------------------------------------------------------


def hand_cards(model: TableModel, session: SessionState) -> list[int]:
    """The hand in the order shown (the session's choice: by suit or by rank)."""
    return sort_hand(model.hand, session.hand_order)


def hand_lines(
    model: TableModel,
    session: SessionState,
    t: Text,
    width: int,
    planned: set[int],
    focused: bool,
) -> Lines:
    """The hand: selected cards highlighted, the cursor marked when the hand has focus,
    cards already used by the planned play dimmed, the card just drawn underlined."""
    if model.is_spectator:
        return [[("class:dim", t("hand_spectator"))]]
    cards = hand_cards(model, session)
    order = t("sorted_by_suit") if session.hand_order.value == "suit" else t("sorted_by_rank")
    header: StyleAndTextTuples = [
        ("class:panel.title", t("panel_hand")),
        ("class:dim", f" ({len(cards)}, {order})"),
    ]
    if not cards:
        return [header, [("class:dim", t("hand_empty"))]]
    lines: Lines = [header]
    line: StyleAndTextTuples = []
    used = 0
    for i, card in enumerate(cards):
        label = face_label(face(card))
        cell = len(label) + 2
        if used + cell > width and line:
            lines.append(line)
            line, used = [], 0
        style = face_style(face(card))
        if card in planned:
            style = "class:card.planned"
        if card in session.selected:
            style += " class:card.selected"
        if card == model.last_drawn:
            style += " underline"
        cursor = focused and i == session.cursor
        line.append(("class:cursor" if cursor else "", "[" if cursor else " "))
        line.append((style, label))
        line.append(("class:cursor" if cursor else "", "]" if cursor else " "))
        used += cell
    lines.append(line)
    return lines


# --- the plan ---------------------------------------------------------------------------


def _declaration(step_joker: Face | None, other: Sequence[Face], t: Text) -> str:
    if step_joker is None:
        return ""
    if other:
        return "  " + t(
            "plan_joker_choice",
            face=face_label(step_joker),
            other=typed_label(other[0], t.lang),  # what to type: JK(8C) in Italian
        )
    return "  " + t("plan_joker", face=face_label(step_joker))


def plan_lines(preview: Preview | None, t: Text, width: int, height: int = 99) -> Lines:
    """The play being built: each step, the opening total, and what is still illegal and why.

    The summary (the last lines, wrapped: a long reason is never cut) is always shown; when
    the steps do not all fit in ``height``, the latest ones are, under a line that counts
    the others."""
    if preview is None or not preview.steps:
        return [[("class:dim", t("plan_empty"))]]
    summary = wrap_fragments(plan_summary(preview, t), width)
    steps = list(enumerate(preview.steps, start=1))
    lines: Lines = []
    room = max(1, height) - len(summary)
    if len(steps) > room:
        hidden = len(steps) - max(room - 1, 0)
        steps = steps[hidden:]
        if room >= 1:
            lines.append([("class:dim", t("plan_more_steps", n=hidden))])
    for n, step in steps:
        op = step.op
        if isinstance(op, NewMeld):
            head = t("plan_op_meld", n=n, cards="")
        elif isinstance(op, Attach):
            labels = " ".join(face_label(face(c)) for c in op.cards)
            head = t("plan_op_attach", n=n, cards=labels, meld=step.meld_no)
        else:
            head = t("plan_op_swap", n=n, meld=step.meld_no, card=face_label(face(op.card)))
        line: StyleAndTextTuples = [("", head.rstrip() + " ")]
        if step.result is not None:
            line.append(("class:dim", "→ "))
            line += cards_fragments(step.result.cards, step.result.stands_for)
            line.append(("class:dim", f" ({step.result.points})"))
        if isinstance(op, NewMeld | Attach) and op.split:
            runs = "+".join(str(k) for k in op.split)
            line.append(("class:dim", " " + t("plan_runs", runs=runs)))
        line.append(("class:joker.note", _declaration(step.joker_as, step.joker_other, t)))
        if step.joker_was is not None:
            line.append(
                ("class:joker.note", "  " + t("plan_joker_taken", face=face_label(step.joker_was)))
            )
        lines += wrap_fragments(line, width)  # a long step goes on, never loses its end
    lines += summary
    return lines[-max(1, height) :]


def plan_summary(preview: Preview, t: Text) -> StyleAndTextTuples:
    """The opening total so far and whether the play is legal, or why not."""
    summary: StyleAndTextTuples = []
    if preview.opening_total is not None:
        enough = preview.opening_total >= preview.opening_needed
        summary.append(
            (
                "class:ok" if enough else "class:warning",
                t("plan_opening_total", total=preview.opening_total, needed=preview.opening_needed),
            )
        )
        summary.append(("", "  "))
    if not preview.checked:
        summary.append(("class:dim", t("plan_unchecked")))
    elif preview.problem is not None:
        reason = refusals.localized(preview.problem, t.lang)
        summary.append(("class:warning", t("plan_problem", reason=reason)))
    elif preview.ready:
        summary.append(("class:ok", t("plan_ok")))
    return summary


def hint_text(found: Hint, t: Text | None = None) -> str:
    """A proposal in one line: where to draw from, new melds with their points, then attaches
    and swaps, then the discard; and, plainly, when the melds cannot be played now (under the
    opening total, or not this turn)."""
    text = _melds_text(found, t)
    if t is None:
        return text
    advice = []
    if found.draw is DrawSource.DISCARD and found.take is not None:
        advice.append(t("hint_take", card=face_label(face(found.take))))
    elif found.draw is DrawSource.STOCK:
        advice.append(t("hint_draw_stock"))
    if text:
        advice.append(text)
    if found.discard is not None:
        advice.append(t("hint_discard", card=face_label(face(found.discard))))
    return " · ".join(advice)


def _melds_text(found: Hint, t: Text | None) -> str:
    if not found.made and not found.operations:
        return ""
    parts = []
    for meld in found.made:
        labels = []
        for card, stands in zip(meld.cards, meld.stands_for, strict=True):
            labels.append(
                ("*" + face_label(stands)) if face(card).is_joker else face_label(face(card))
            )
        parts.append(" ".join(labels) + f" ({meld.points})")
    for op in found.operations:
        if isinstance(op, Attach):
            parts.append(
                "+" + " ".join(face_label(face(c)) for c in op.cards) + f" → {op.meld + 1}"
            )
        elif isinstance(op, SwapJoker):
            parts.append(f"{face_label(face(op.card))} ⇄ JK {op.meld + 1}")
    total = f" = {found.points}" if found.made else ""
    text = " · ".join(parts) + total
    if t is None or found.playable:
        return text
    if found.taken_discard is not None and found.needed is not None:
        # R3.2: the opening had to hold the card taken, and no opening does.
        taken = face_label(face(found.taken_discard))
        return text + " — " + t("hint_taken_unusable", card=taken, needed=found.needed)
    if found.under_opening:
        return text + " — " + t("hint_under_opening", needed=found.needed)
    return text + " — " + t("hint_not_now")


# --- log and chat -----------------------------------------------------------------------


def log_lines(
    model: TableModel, t: Text, width: int, height: int, scroll: int = 0, chat: bool = True
) -> Lines:
    """The newest log entries that fit, wrapped to the width; ``scroll`` entries back, with a
    last line that says how many newer ones are below (they keep arriving while scrolled)."""
    entries = [e for e in model.log if chat or e.key != "log_chat"]
    end = max(0, len(entries) - scroll)
    if end < len(entries) and height > 1:
        mark: Lines = [[("class:warning", t("log_scrolled", n=len(entries) - end)[:width])]]
        return log_lines(model, t, width, height - 1, scroll, chat) + mark
    lines: Lines = []
    for entry in reversed(entries[:end]):
        style = "class:chat" if entry.key == "log_chat" else "class:log"
        if entry.key in _LOUD_LOG:
            style = "class:warning"
        wrapped = textwrap.wrap(t(entry.key, **entry.as_dict()), max(width, 8)) or [""]
        lines[:0] = [[(style, piece)] for piece in wrapped]
        if len(lines) >= height:
            break
    return lines[-height:] if height > 0 else []


_LOUD_LOG = {
    "log_refused",
    "log_deal_abandoned",
    "log_seat_disconnected",
    "log_busted",
    "log_rientro_offered",
    "log_retired",
    "log_missed_deal_failed",
}


def chat_lines(model: TableModel, width: int, height: int) -> Lines:
    lines: Lines = []
    for line in model.chat[-height:]:
        name = line.name or f"#{line.seat}"
        lines.append(cut([("class:chat.name", f"{name}: "), ("class:chat", line.text)], width))
    return lines


# --- the fair deal and the status line --------------------------------------------------


def fair_deal_fragment(model: TableModel, t: Text) -> StyleAndTextTuples:
    """The fair-deal state of the current deal (or the last one checked), loud when it fails."""
    candidates = sorted(model.deals.values(), key=lambda fd: fd.deal_no, reverse=True)
    out: StyleAndTextTuples = []
    # A failure or an abandoned deal stays on the status line whatever came after it.
    for fd in candidates:
        if fd.verification is not None and fd.verification.ok is False:
            return [("class:alarm", verification_failed(fd.deal_no, fd.verification, t))]
        if fd.abandoned:
            return [("class:alarm", t("fd_abandoned", deal=fd.deal_no))]
        if fd.commitment_mismatch:
            return [("class:alarm", t("fd_commit_mismatch"))]
    if not candidates:
        return out
    fd = candidates[0]
    # Between deals the last checked deal is the news; once a new deal runs, its state is.
    checked = next((d for d in candidates if d.verification is not None), None)
    if not fd.started and checked is not None and checked.deal_no == fd.deal_no - 1:
        fd = checked
    return [fair_deal_state(model, fd, t)]


def verification_failed(deal: int, v: Verification, t: Text) -> str:
    """A failed check of a deal, in the player's words: which check (the English detail is
    in the client's log); a record that could not be had, with its reason."""
    if v.check:
        return t(f"fd_failed_{v.check}", deal=deal)
    return t("fd_failed", deal=deal, reason=v.reason)


def fair_deal_state(model: TableModel, fd: FairDealState, t: Text) -> tuple[str, str]:
    me = model.my_seat
    deal = fd.deal_no
    if me is not None and me in fd.left_out:
        why = t(_LEFT_OUT_WHY.get(fd.left_out[me], "why_unknown"))
        return ("class:alarm", t("fd_my_seed_left_out", why=why))
    others = [s for s in fd.left_out if s != me]
    if others:
        why = t(_LEFT_OUT_WHY.get(fd.left_out[others[0]], "why_unknown"))
        return ("class:warning", t("fd_left_out", name=model.name_of(others[0]), why=why))
    v = fd.verification
    if v is not None:
        if v.ok is None:
            return ("class:dim", t("fd_verifying", deal=deal))
        if v.ok:
            if me is None:
                key = "fd_verified_spectator"
            elif v.own_by_host:
                key = "fd_verified_host_played"  # away at the announcement: no seed of its own
            elif fd.seats_in_play and me not in fd.seats_in_play:
                key = "fd_verified_sat_out"  # no seed of this seat is in a deal it sat out
            else:
                key = "fd_verified"
            return ("class:ok", t(key, deal=deal))
        return ("class:alarm", t("fd_unavailable", deal=deal, reason=v.reason))
    if me is not None and me in fd.reveals:
        return ("class:ok", t("fd_in_mix", deal=deal))
    if fd.revealed:
        return ("class:dim", t("fd_revealed", deal=deal))
    if fd.committed:
        return ("class:dim", t("fd_committed", deal=deal))
    return ("class:dim", t("fd_announced", deal=deal))


def fingerprint_fragment(session: SessionState, t: Text) -> StyleAndTextTuples:
    if not session.fingerprint:
        return []
    if session.trust is TrustState.CHANGED:
        return [
            (
                "class:alarm",
                t("fingerprint_changed", old=session.previous_fingerprint, new=session.fingerprint),
            )
        ]
    key = "fingerprint_new" if session.trust is TrustState.NEW else "fingerprint"
    return [("class:dim", t(key, fp=session.fingerprint))]


def countdown_text(model: TableModel, session: SessionState, t: Text) -> tuple[str, str]:
    """What the pause before the next deal waits for, with the seconds left."""
    pause = model.between_deals
    if pause is None:
        return ("class:dim", t("end_continue"))
    # Drawn before the screen started its clock (a test, a first frame): the host's own figure.
    secs = session.next_deal_seconds_left() if session.next_deal_deadline else round(pause.within)
    me = model.my_seat
    if me is not None and me in pause.waiting_for and me not in pause.ready:
        return ("class:prompt", t("end_press_ready", secs=secs))
    waiting = [model.name_of(s) for s in pause.waiting_for if s not in pause.ready]
    if waiting:
        return ("class:dim", t("end_waiting_for", names=", ".join(waiting), secs=secs))
    return ("class:dim", t("end_next_deal_in", secs=secs))


def what_now(model: TableModel, session: SessionState, t: Text) -> tuple[str, str]:
    """Whose turn it is and what this player may do now."""
    if session.link is LinkState.RECONNECTING:
        return ("class:warning", t("status_reconnecting", n=session.reconnect_attempt))
    if session.link is LinkState.GIVEN_UP:
        return ("class:alarm", t("status_link_given_up"))
    fee = model.my_rientro_fee
    if fee is not None:
        total = model.rientro_total()
        left = session.rientro_seconds_left()
        return ("class:alarm", t("status_rientro_offer", fee=fee, total=total, secs=left))
    if session.cut_prompt and model.fair_deal is not None:
        secs = session.cut_seconds_left()
        return (
            "class:prompt",
            t("status_cut_prompt", max=model.fair_deal.deck_size - 1, secs=secs),
        )
    phase = model.phase
    deal = model.deal_no
    if phase is Phase.MATCH_OVER:
        return ("", t("status_match_over"))
    if phase is Phase.COMMIT:
        return ("class:dim", t("status_wait_commit", deal=deal))
    if phase is Phase.REVEAL:
        return ("class:dim", t("status_wait_reveal", deal=deal))
    if phase is Phase.DEAL_OVER:
        if model.between_deals is not None:
            return countdown_text(model, session, t)
        return ("", t("status_between_deals"))
    if phase is Phase.WAITING:
        if model.table_phase == lobby_pb2.TABLE_PHASE_WAITING:
            return ("", t("status_waiting_players"))
        return ("", t("status_between_deals"))
    if model.i_am_away and phase in (Phase.DRAW, Phase.PLAY):
        return ("class:warning", t("status_you_away"))
    if model.is_spectator:
        return ("", t("status_wait_turn", name=model.name_of(model.turn)))
    absent = model.absent_seats()
    if model.turn in absent:
        # The table waits on a person who is not there: the first player may decide (F4).
        return ("class:warning", t("status_absent_turn", name=model.name_of(model.turn)))
    return _with_clock(_turn_now(model, t), session)


def _with_clock(now: tuple[str, str], session: SessionState) -> tuple[str, str]:
    """What to do now, with the turn clock's seconds when it is this player's own turn."""
    style, text = now
    left = session.turn_seconds_left()
    if style != "class:turn" or left is None:
        return now
    # No-break spaces: a wrapped status line moves the clock whole to the next line.
    clock = f"⏱\u00a0{left}\u00a0s"
    return ("class:alarm" if left <= CLOCK_WARNING_SECONDS else style, f"{text}  {clock}")


def _turn_now(model: TableModel, t: Text) -> tuple[str, str]:
    phase = model.phase
    if model.my_turn and phase is Phase.DRAW:
        if model.discard_barred and model.discard_top is not None:
            # R3.2: the card just put back may not be taken again this turn.
            return (
                "class:turn",
                t("status_draw_after_return", card=face_label(face(model.discard_top))),
            )
        return ("class:turn", t("status_your_draw"))
    if model.my_turn and phase is Phase.PLAY:
        return ("class:turn", t("status_your_play"))
    return ("", t("status_wait_turn", name=model.name_of(model.turn)))


def status_lines(model: TableModel, session: SessionState, t: Text, width: int) -> Lines:
    """Line one: a refusal or error (the host's sentence) or what to do now. Line two: the
    fair-deal state of the deal and the host's fingerprint."""
    notice = session.notice
    if notice is not None:
        fields = dict(notice.fields)
        style = {
            NoticeKind.REFUSAL: "class:refusal",
            NoticeKind.ERROR: "class:refusal",
            NoticeKind.OK: "class:ok",
            NoticeKind.INFO: "",
        }[notice.kind]
        first: StyleAndTextTuples = [(style, t(notice.key, **fields))]
    else:
        first = [what_now(model, session, t)]
    second = private_fragment(model, t) if model.private_cards else fair_deal_fragment(model, t)
    fp = fingerprint_fragment(session, t)
    below: Lines = []
    if fp and second and fragments_width(second) + 5 + fragments_width(fp) > width:
        below = [cut(fp, width)]  # the fingerprint on a line of its own, whole
    elif fp:
        second = [*second, ("", "  ·  "), *fp] if second else fp
    # A long refusal wraps (up to three lines) rather than losing its end at the edge.
    style, text = first[0][0], plain(first)
    wrapped = textwrap.wrap(text, max(width, 8)) or [""]
    if len(wrapped) > STATUS_NOTICE_LINES:
        wrapped = [
            *wrapped[: STATUS_NOTICE_LINES - 1],
            " ".join(wrapped[STATUS_NOTICE_LINES - 1 :]),
        ]
    lines: Lines = [[(style, piece.replace("\u00a0", " "))] for piece in wrapped]
    return [*lines, cut(second, width), *below]


STATUS_NOTICE_LINES = 3


# --- end of deal ------------------------------------------------------------------------


def rientro_lines(model: TableModel, session: SessionState, t: Text, width: int) -> Lines:
    """The buy-back offers (R11.3): this seat's in full and loud, the others' in a line each."""
    lines: Lines = []
    for seat, fee in sorted(model.rientro_offers.items()):
        if seat == model.my_seat:
            text = t(
                "rientro_offer_mine",
                fee=fee,
                chips=model.seat(seat).chips,
                total=model.rientro_total(),
                secs=session.rientro_seconds_left(),
            )
            lines += [[("class:alarm", piece)] for piece in textwrap.wrap(text, max(width, 8))]
        else:
            text = t("rientro_offer_other", name=model.name_of(seat), fee=fee)
            lines.append([("class:warning", text[:width])])
    return lines
