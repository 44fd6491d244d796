"""Another match on the table screen, against a real host: F5 or ``new`` at the match's end asks
for it (TableService.Rematch), ``new`` with rules changes them (the first player's say), and
the new match starts on the same screen once everyone agreed."""

from __future__ import annotations

from pathlib import Path

from test_client_host import no_older_screen as no_older_screen
from test_client_host import until
from test_client_turn_clock import a_screen_against_a_bot

from client.i18n import Text
from scala40_net.pb import ruleset_pb2

ONE_DEAL = ruleset_pb2.RulesetOptions(
    match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1, rientro=False
)


async def test_f5_at_the_end_of_a_match_starts_another_at_the_same_seats(tmp_path: Path) -> None:
    """Ada never moves (2 s turns: the host and then a bot play for her) to the end of a
    one-deal match; F5 asks for a rematch, the bot agrees, and the second match starts on
    the same screen, her seat hers again, the standings from zero."""
    async with a_screen_against_a_bot(tmp_path, "again", Text("it"), ONE_DEAL) as (screen, pipe):
        model = screen.model
        await until(lambda: model.match_over, 120)
        assert model.i_am_away  # her turns timed out
        first_deal = model.deal_no
        pipe.send_text("\x1b[15~")  # F5
        await until(lambda: not model.match_over, 30)
        await until(lambda: model.deal_no > first_deal, 30)
        assert not model.i_am_away  # she agreed: the seat is hers again
        started = [e for e in model.log if e.key == "log_match_started"]
        assert len(started) == 2
        assert all(s.total == 0 for s in model.seats.values())


async def test_the_first_player_types_other_rules_for_the_next_match(tmp_path: Path) -> None:
    """'nuova 151 rientro=no' at the match's end: the host takes Ada's new rules (she is the
    first player), the bot agrees, and the next match is one of points busting at 151."""
    async with a_screen_against_a_bot(tmp_path, "rules", Text("it"), ONE_DEAL) as (screen, pipe):
        model = screen.model
        await until(lambda: model.match_over, 120)
        assert model.ruleset.match_mode == ruleset_pb2.MATCH_MODE_DEALS
        pipe.send_text("nuova 151 rientro=no\r")
        await until(lambda: not model.match_over, 30)
        assert model.ruleset.match_mode == ruleset_pb2.MATCH_MODE_POINTS
        assert model.ruleset.bust_at == 151 and not model.ruleset.rientro
        assert model.bust_at == 151  # what the screen's standings and sheet count to
        assert screen.session.notice is None or screen.session.notice.key != "err_new_usage"
