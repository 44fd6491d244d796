"""The client against a real host on 127.0.0.1 (ephemeral port), driven by typed keys.

The application runs on a pipe input with ``DummyOutput``; what it shows is
read from its view model and status line. The host is the real one, inside
the test's event loop, with its bots answering at once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from conftest import until as wait_until
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from client.app import TableScreen
from client.fairdeal import record_path
from client.main import Options, play_local
from client.model import Phase
from client.planner import local_state
from client.session import LinkState, NoticeKind
from scala40_net import deal, movegen
from scala40_net.cards import card_text
from scala40_net.errors import RuleViolation

pytestmark = pytest.mark.timeout(180)


async def until(condition: Callable[[], bool], seconds: float = 20.0) -> None:
    """Wait for ``condition``; a timeout says what the screen showed."""
    await wait_until(condition, seconds, explain=_debug_state)


# The screen a timed-out ``until`` describes: the one the running test set, cleared after it
# (an older test's screen would describe another table).
_DEBUG: list[TableScreen] = []


@pytest.fixture(autouse=True)
def no_older_screen() -> Iterator[None]:
    """After each test, no screen to describe (a module that sets ``_DEBUG`` imports this)."""
    yield
    _DEBUG.clear()


def _debug_state() -> str:
    if not _DEBUG:
        return ""
    screen = _DEBUG[0]
    m = screen.model
    return (
        f"phase={m.phase} turn={m.turn} me={m.my_seat} hand={len(m.hand)} seq={m.last_seq} "
        f"turns={m.turns_played} notice={screen.session.notice} plan={screen.planner.steps} "
        f"link={screen.session.link} log="
        + " | ".join(screen.text(e.key, **e.as_dict()) for e in m.log[-14:])
    )


def refusal_shown(screen: TableScreen) -> bool:
    notice = screen.session.notice
    return notice is not None and notice.kind is NoticeKind.REFUSAL


def legal_discard(screen: TableScreen) -> int:
    """A discard the engine accepts after the planned steps (the test's choice, not the UI's)."""
    model = screen.model
    state = local_state(model)
    assert state is not None and model.my_seat is not None
    for card in screen.planner.hand_left(model):
        try:
            deal.apply(state, model.my_seat, screen.planner.play(card))
        except RuleViolation:
            continue
        return card
    raise AssertionError("no legal discard after the planned play")


class Game:
    def __init__(self, screen: TableScreen, pipe: PipeInput, task: asyncio.Task[None]) -> None:
        self.screen = screen
        self.pipe = pipe
        self.task = task

    def type(self, line: str) -> None:
        self.pipe.send_text(line + "\r")


@pytest.fixture
async def game(tmp_path: Path) -> AsyncIterator[Game]:
    """``make play``'s own path (a host in this process) with one bot, on a pipe input."""
    with create_pipe_input() as pipe:
        ready: asyncio.Future[TableScreen] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(
            play_local(
                Options("Ada", "en", bots=1),
                tmp_path,
                input=pipe,
                output=DummyOutput(),
                bot_delay=0.0,
                ready=ready,
            )
        )
        screen = await asyncio.wait_for(ready, 20)
        _DEBUG[:] = [screen]
        yield Game(screen, pipe, task)
        if not task.done():
            screen.quit()
        await asyncio.wait_for(task, 20)


async def dealt(game: Game) -> None:
    """Wait for the first deal; when this seat is the cutter, it types a cut."""
    model, session = game.screen.model, game.screen.session
    await until(lambda: session.cut_prompt or len(model.hand) in (13, 14))
    if session.cut_prompt:
        game.type("17")
        await until(lambda: not session.cut_prompt)
        assert game.screen.fair_deal.exchanges[1].cut == 17
    await until(lambda: len(model.hand) in (13, 14))


async def test_join_play_a_whole_deal_see_a_refusal_and_quit(game: Game, tmp_path: Path) -> None:
    screen, model = game.screen, game.screen.model
    await dealt(game)
    assert screen.session.link is LinkState.CONNECTED
    assert screen.session.fingerprint and screen.session.trust.value == "new"

    first = model.deals[1]
    refused = False
    while not first.ended:
        await until(lambda: model.my_turn or first.ended, 30)
        if first.ended:
            break
        if model.phase is Phase.DRAW:
            if not refused:
                # A discard before drawing: the host refuses it, naming the rule.
                before = list(model.hand)
                game.type(f"discard {card_text(model.hand[0])}")
                await until(lambda: screen.session.notice is not None)
                notice = screen.session.notice
                assert notice is not None and notice.kind is NoticeKind.REFUSAL
                reason = dict(notice.fields)["reason"]
                assert str(reason).startswith("R3")
                assert model.hand == before  # nothing changed
                refused = True
            game.type("draw")
            await until(lambda: model.phase is Phase.PLAY or first.ended)
            continue
        me = model.my_seat
        turns = model.turns_played.get(me, 0)
        game.type("hint")  # the engine's search proposes a legal play, planned at once
        await until(lambda: screen.session.notice is not None)
        discard = legal_discard(screen)
        game.type(f"discard {card_text(discard)}")
        await until(
            lambda n=turns, me=me: (  # type: ignore[misc]
                model.turns_played.get(me, 0) > n or first.ended or refusal_shown(screen)
            )
        )
        notice = screen.session.notice
        assert notice is None or notice.kind is not NoticeKind.REFUSAL, notice

    assert refused
    ended = [e for e in model.log if e.key in ("log_deal_ended_out", "log_deal_ended_in_hand")]
    assert ended and ended[0].as_dict()["deal"] == 1
    # The deal is checked by the fair-deal library with this seat's own seed, and saved.
    fd = model.deals[1]
    await until(lambda: fd.verification is not None and fd.verification.ok is not None, 30)
    assert fd.verification is not None and fd.verification.ok, fd.verification
    saved = record_path(tmp_path, model.table_id, 1)
    assert saved.exists() and json.loads(saved.read_text())["deal_no"] == 1
    assert saved.with_suffix(".seed").exists()

    game.type("quit")  # the match goes on: leaving is asked to be confirmed
    await until(lambda: screen.session.quit_armed)
    assert not game.task.done()
    game.type("quit")
    await asyncio.wait_for(game.task, 20)


async def test_a_planned_opening_below_40_is_refused_by_the_host_and_kept(game: Game) -> None:
    screen, model = game.screen, game.screen.model
    await dealt(game)
    await until(lambda: model.my_turn and model.phase is Phase.DRAW, 30)
    game.type("draw")
    await until(lambda: model.phase is Phase.PLAY)
    found = movegen.greedy_melds(model.hand)
    if not found:
        # No meld in this hand: the host's refusal of a second draw shows the same path.
        game.type("draw")
        await until(lambda: refusal_shown(screen))
        notice = screen.session.notice
        assert notice is not None and str(dict(notice.fields)["reason"]).startswith("R3")
        return
    meld = found[-1]
    # One meld alone rarely reaches 40; if it does, the host accepts it and that is fine too.
    words = " ".join(
        f"JK({meld.joker_as})" if card_text(c) == "JK" else card_text(c) for c in meld.cards
    )
    game.type(f"meld {words}")
    await until(lambda: bool(screen.planner.steps))
    preview = screen.preview()
    assert preview is not None
    discard = next(c for c in screen.planner.hand_left(model) if c != model.taken_discard)
    steps = list(screen.planner.steps)
    me = model.my_seat
    turns = model.turns_played.get(me, 0)
    game.type(f"discard {card_text(discard)}")
    await until(lambda: screen.session.notice is not None or model.turns_played.get(me, 0) > turns)
    if preview.problem is not None and preview.problem.rule == "R5.1":
        notice = screen.session.notice
        assert notice is not None and notice.kind is NoticeKind.REFUSAL
        assert "R5.1" in str(dict(notice.fields)["reason"])
        assert screen.planner.steps == steps  # nothing lost from the plan
    else:
        assert model.turns_played.get(me, 0) > turns


async def test_a_lost_connection_comes_back_and_resumes_after_the_last_event(
    tmp_path: Path,
) -> None:
    from client.connection import LobbyClient, open_channel
    from client.i18n import Text
    from client.main import open_table
    from client.session import SessionState
    from host.edge.server import Host
    from host.table.state import TableSettings
    from scala40_net.pb import ruleset_pb2

    settings = TableSettings(bot_delay=0.0)
    host = Host("127.0.0.1:0", tmp_path / "host", settings)
    port = await host.start()
    channel, _ = await open_channel("127.0.0.1", port)
    lobby = LobbyClient(channel)
    table_id = await lobby.create_table("resume", ruleset_pb2.PRESET_CLASSIC, 2)
    seat = await lobby.join(table_id, "Ada")
    await lobby.add_bot(seat)
    with create_pipe_input() as pipe:
        session = SessionState(host=f"127.0.0.1:{port}")
        screen = await open_table(
            channel,
            seat,
            Text("en"),
            session,
            tmp_path,
            start=True,
            input=pipe,
            output=DummyOutput(),
        )
        running = asyncio.create_task(screen.run_async())
        game = Game(screen, pipe, running)
        model = screen.model
        await dealt(game)
        await until(lambda: model.my_turn and model.phase is Phase.DRAW, 30)
        hand, seen = list(model.hand), model.last_seq

        await host.stop(grace=0.2)  # the stream breaks
        await until(lambda: session.link is LinkState.RECONNECTING)
        restarted = Host(f"127.0.0.1:{port}", tmp_path / "host", settings)
        await restarted.start()  # the same data: the journal brings the table back
        try:
            await until(lambda: session.link is LinkState.CONNECTED, 30)
            assert model.last_seq >= seen and sorted(model.hand) == sorted(hand)
            game.type("draw")  # the seat token still works: the game goes on
            await until(lambda: len(model.hand) == len(hand) + 1, 20)
        finally:
            screen.quit()
            await asyncio.wait_for(running, 20)
            await channel.close()
            await restarted.stop(grace=0.2)
