"""The end of a deal on screen: every hand and how its penalty was counted, the score sheet,
the standings at the end of the match, under the countdown to the next deal.

Pure functions like ``render.py``, drawn with its public pieces (it never imports this
module): model, session and text in, fragments out.
"""

from __future__ import annotations

import textwrap

from prompt_toolkit.formatted_text import StyleAndTextTuples

from client.i18n import Text
from client.model import (
    DealResult,
    HandOrder,
    SeatResult,
    TableModel,
    card_text,
    cards_text,
    sort_hand,
)
from client.render import (
    Lines,
    cards_fragments,
    countdown_text,
    cut,
    fair_deal_state,
    fragments_width,
    rientro_lines,
)
from client.session import SessionState
from scala40_net.cards import face
from scala40_net.events import JokerSwapped, MeldLaid
from scala40_net.melds import face_points
from scala40_net.pb import deal_pb2, ruleset_pb2

ACE = 1


def penalty_note(model: TableModel, result: DealResult, hand: SeatResult, t: Text) -> str:
    """How a hand's penalty was counted, when it is not simply the cards' values (R9.3-R9.5)."""
    # R9.3: a chiusura in mano doubles only where the ruleset says so.
    rules = model.ruleset
    doubles = rules.closing_in_hand_double if rules.HasField("closing_in_hand_double") else True
    in_hand = result.closed_in_one_turn and doubles
    unopened = model.ruleset.unopened_penalty
    if not hand.opened and unopened == ruleset_pb2.UNOPENED_PENALTY_DOUBLE:
        return t("why_unopened_double")
    if not hand.opened and unopened != ruleset_pb2.UNOPENED_PENALTY_HAND:
        return t("why_unopened")
    # R9.4: whether an ace counted 1 depends on lone_ace (and, at_99, on the total before
    # the deal): the host's penalty says it, an ace's 10 points less.
    plain = sum(face_points(face(c)) for c in hand.cards)
    has_ace = any(not face(c).is_joker and face(c).rank == ACE for c in hand.cards)
    if has_ace and hand.penalty == (plain - 10) * (2 if in_hand else 1):
        if len(hand.cards) > 1:  # lone_ace=single: the hand's one ace
            return t("why_one_ace_double") if in_hand else t("why_one_ace")
        return t("why_lone_ace_double") if in_hand else t("why_lone_ace")
    if in_hand:
        return t("why_in_hand_double")
    return ""


def _total_text(model: TableModel, seat: int, t: Text) -> str:
    total = model.seat(seat).total
    limit = model.bust_at
    if limit is None:
        return t("end_deals_won", n=total)
    return t("end_total_of", total=total, limit=limit)


def closing_play_text(model: TableModel, t: Text) -> str:
    """The closer's last play in words: its melds, attaches and swaps, then its discard."""
    play = model.closing_play
    if play is None:
        return ""
    parts: list[str] = []
    for op in play.operations:
        if isinstance(op, MeldLaid):
            parts.append(t("end_play_meld", cards=cards_text(op.cards)))
        elif isinstance(op, JokerSwapped):
            parts.append(t("end_play_swap", card=card_text(op.card), meld=op.meld + 1))
        else:
            parts.append(t("end_play_attach", cards=cards_text(op.cards), meld=op.meld + 1))
    if play.discard is not None:
        parts.append(t("end_play_discard", card=card_text(play.discard)))
    return t("end_last_play", play=" · ".join(parts)) if parts else ""


def hand_lines(
    model: TableModel,
    result: DealResult,
    hand: SeatResult,
    t: Text,
    width: int,
    order: HandOrder = HandOrder.SUIT,
) -> Lines:
    """A seat's line: its cards (in the hand's order), the penalty and how it was counted,
    the new total; the closer's, its last play. When it does not fit, the cards go on a
    line of their own below, so the figures are never cut."""
    name = model.name_of(hand.seat)
    state = model.seat(hand.seat)
    tail: StyleAndTextTuples = [("class:dim", "  " + _total_text(model, hand.seat, t))]
    if state.out:
        tail.append(("class:warning", " " + t("gone" if state.gone else "busted")))
    if result.closer == hand.seat:
        key = "end_went_out_in_hand" if result.closed_in_one_turn else "end_went_out"
        lines = [cut([("class:ok", t(key, name=name, penalty=hand.penalty)), *tail], width)]
        last = closing_play_text(model, t) if model.closing_play is not None else ""
        if last and model.closing_play is not None and model.closing_play.seat == hand.seat:
            lines += [[("class:dim", piece)] for piece in textwrap.wrap(last, max(width, 8))]
        return lines
    figures: StyleAndTextTuples = [("class:score", f"→ {hand.penalty}")]
    note = penalty_note(model, result, hand, t)
    if note:
        figures.append(("class:dim", f" ({note})"))
    shown = (
        cards_fragments(sort_hand(list(hand.cards), order)) if hand.cards else [("class:dim", "—")]
    )
    line: StyleAndTextTuples = [("", f"{name}: "), *shown, ("", " "), *figures, *tail]
    if fragments_width(line) <= width:
        return [line]
    return [
        cut([("", f"{name} "), *figures, *tail], width),
        cut([("", "   "), *shown], width),
    ]


def deal_end_lines(
    model: TableModel,
    t: Text,
    width: int,
    session: SessionState | None = None,
    height: int | None = None,
) -> Lines:
    """Every hand shown with its penalty and how it was counted, each total against the bust
    limit, the deal's verification, and the countdown (or the standings, at the match end).

    In fewer than ``height`` rows the standings go on one wrapped line and the deal's
    verification gives way, so the last line, what to do next, is always shown."""
    lines = _deal_end_lines(model, t, width, session, compact=False)
    if height is not None and len(lines) > height:
        lines = _deal_end_lines(model, t, width, session, compact=True)
    return lines


def _deal_end_lines(
    model: TableModel, t: Text, width: int, session: SessionState | None, compact: bool
) -> Lines:
    result = model.shown_result
    if result is None:
        return []
    session = session or SessionState()
    lines: Lines = [[("class:panel.title", t("panel_deal_end", deal=result.deal_no))]]
    lines += rientro_lines(model, session, t, width)  # first: it waits for an answer
    if result.outcome == deal_pb2.DEAL_OUTCOME_VOID:
        # The engine's reason is an English sentence; its rule number says which void it is.
        key = "end_void_no_stock" if result.void_reason.startswith("R10.1") else "log_deal_void"
        lines.append([("class:warning", t(key, deal=result.deal_no))])
    elif result.outcome == deal_pb2.DEAL_OUTCOME_ABANDONED:
        lines.append([("class:alarm", t("fd_abandoned", deal=result.deal_no))])
    if result.void_reason and t.lang == "en":
        lines.append([("class:dim", result.void_reason)])
    for hand in result.hands:
        lines += hand_lines(model, result, hand, t, width, session.hand_order)
    fd = model.deals.get(result.deal_no)
    if fd is not None and not compact:
        lines.append(cut([fair_deal_state(model, fd, t)], width))
        if fd.verification is not None and fd.verification.record_path:
            path = fd.verification.record_path
            saved = textwrap.wrap(t("fd_record_saved", path=path), max(width, 8))
            lines += [[("class:dim", piece)] for piece in saved]
    if model.match_over:
        lines += standings_lines(model, t, width, compact)
        if model.rating_change is not None:
            before, after = model.rating_change
            said = t("match_rating", before=f"{before:.1f}", after=f"{after:.1f}")
            lines.append(cut([("class:score", said)], width))
        key = "end_new_match" if model.is_spectator else "end_rematch"
        lines += [[("class:dim", piece)] for piece in textwrap.wrap(t(key), max(width, 8))]
    else:
        if result is model.result:
            style, text = countdown_text(model, session, t)
        else:  # the next deal goes on without this seat
            style, text = "class:prompt", t("end_out_read")
        lines += [[(style, piece)] for piece in textwrap.wrap(text, max(width, 8))]
    return lines


def standings_lines(model: TableModel, t: Text, width: int, compact: bool = False) -> Lines:
    """The match's final order: winners first, then by total (fewest points or most deals),
    then the busted, who went out last first (R11.1); ``compact``: the places one after the
    other on wrapped lines."""
    by_deals = model.bust_at is None
    seats = [s for s in sorted(model.seats.values(), key=lambda s: s.seat) if s.taken]
    sheet = model.score_sheet
    seats.sort(
        key=lambda s: (
            s.seat not in model.winners,
            s.out,
            -sheet.busted_in(s.seat) if s.out else 0,
            -s.total if by_deals else s.total,
        )
    )
    names = ", ".join(model.name_of(s) for s in model.winners)
    lines: Lines = [[("class:ok", t("log_match_over", names=names))]]
    if compact:
        rows = [
            t("standing_row", place=n, name=model.name_of(s.seat), total=s.total)
            for n, s in enumerate(seats, start=1)
        ]
        return lines + [[("", piece)] for piece in textwrap.wrap(" · ".join(rows), width)]
    for place, state in enumerate(seats, start=1):
        lines.append(
            cut(
                [
                    (
                        "",
                        t(
                            "standing_row",
                            place=place,
                            name=model.name_of(state.seat),
                            total=_total_text(model, state.seat, t),
                        ),
                    )
                ],
                width,
            )
        )
    return lines


def score_sheet_lines(model: TableModel, t: Text, width: int) -> Lines:
    """One row per deal, one column per player: the deal's penalty and the running total."""
    seats = [s.seat for s in sorted(model.seats.values(), key=lambda s: s.seat) if s.taken]
    if not seats:
        return [[("class:dim", t("sheet_empty"))]]
    column = max(9, min(16, (width - 6) // max(len(seats), 1)))
    head: StyleAndTextTuples = [("class:panel.title", f"{t('sheet_deal'):<6}")]
    for seat in seats:
        head.append(("class:panel.title", f"{model.name_of(seat)[: column - 1]:>{column}}"))
    lines: Lines = [cut(head, width)]
    limit = model.bust_at
    for row in model.score_sheet.rows:
        line: StyleAndTextTuples = [("", f"{row.deal_no:<6}")]
        for seat in seats:
            if row.void:
                cell = t("sheet_void")
            elif row.closer == seat:
                cell = f"✔ {row.totals.get(seat, 0)}"
            elif seat in row.penalties:
                cell = f"+{row.penalties[seat]} {row.totals.get(seat, 0)}"
            else:
                cell = "—"
            style = "class:warning" if seat in row.out else ""
            line.append((style, f"{cell:>{column}}"))
        lines.append(cut(line, width))
    if not model.score_sheet.rows:
        lines.append([("class:dim", t("sheet_empty"))])
    total: StyleAndTextTuples = [("class:score", f"{t('sheet_total'):<6}")]
    for seat in seats:
        total.append(("class:score", f"{model.seat(seat).total:>{column}}"))
    lines.append(cut(total, width))
    if limit is not None:
        lines.append([("class:dim", t("sheet_legend", limit=limit)[:width])])
    else:
        lines.append([("class:dim", t("sheet_legend_deals")[:width])])
    return lines
