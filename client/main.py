"""Entry points: ``scala40 [HOST[:PORT]]`` joins a LAN host; ``scala40-play`` plays 3 bots locally.

``scala40`` with no address lists the hosts the LAN advertises (mDNS/DNS-SD,
``scala40_net.net.discovery``) and opens the lobby of the one chosen.

``scala40-play`` (what ``make play`` runs) starts a host inside this process
on 127.0.0.1 and a free port, creates a ``classic`` table with this player
and the bots, and opens the table screen; leaving the screen stops that host.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from client import history, identity, trust
from client.app import TableScreen
from client.connection import (
    HostRefusal,
    LobbyClient,
    Seat,
    TableLink,
    failure_words,
    open_channel,
    open_insecure_channel,
)
from client.i18n import Text, detect_lang
from client.logfile import CLIENT_LOG, log_to, terminal_kept_clean
from client.seats import SeatStore
from client.session import SessionState, TrustState
from client.trust import check_fingerprint, data_dir, remember_fingerprint
from scala40_net import invite
from scala40_net.fairdeal.identity import IdentityError
from scala40_net.net import discovery, tls
from scala40_net.pb import lobby_pb2, players_pb2, players_pb2_grpc, ruleset_pb2
from scala40_net.players import PlayerKey
from scala40_net.seat.refusal import refusal_from_error

LOCAL_HOST_DIR = "local-host"
LOCAL_BOTS = 3


PRESETS = {
    "classic": ruleset_pb2.PRESET_CLASSIC,
    "tradizionale": ruleset_pb2.PRESET_TRADIZIONALE,
    "semplice": ruleset_pb2.PRESET_SEMPLICE,
}
LEVELS = {
    "easy": lobby_pb2.BOT_LEVEL_EASY,
    "medium": lobby_pb2.BOT_LEVEL_MEDIUM,
    "hard": lobby_pb2.BOT_LEVEL_HARD,
    "expert": lobby_pb2.BOT_LEVEL_EXPERT,
}


@dataclass
class Options:
    name: str
    lang: str | None
    bots: int = LOCAL_BOTS
    preset: str = "classic"
    level: str = "medium"
    bot_delay: float = 0.6
    # The player keys (fingerprints) the tables this client creates are kept to; none: open.
    invited: tuple[str, ...] = ()


def _common(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--name", help="your name at the table (default: your login name)")
    parser.add_argument("--lang", choices=("it", "en"), help="interface language (default: locale)")
    return parser


def default_name() -> str:
    try:
        return getpass.getuser()[:24] or "player"
    except (KeyError, OSError):
        return "player"


async def trust_host(
    lobby: LobbyClient, proved: str | None, session: SessionState, directory: Path, key: str
) -> None:
    """The host's fingerprint, as its TLS certificate proved it (``proved``; None without
    TLS) and as it signs deals: one and the same, compared with the one remembered for
    ``key`` (trust on first use)."""
    info = await lobby.host_info()
    if proved is not None and info.host_fingerprint != proved:
        raise tls.PinError(
            f"the host's TLS certificate names {proved} but it signs deals as "
            f"{info.host_fingerprint}: it is not one host",
            info.host_fingerprint,
            proved,
        )
    session.fingerprint = info.host_fingerprint
    session.trust, session.previous_fingerprint = check_fingerprint(
        directory, key, info.host_fingerprint
    )


# How long the screen asks, at a match's end, for the history to have kept it.
RATING_TRIES, RATING_WAIT = 20, 0.25


async def rating_of(lobby: LobbyClient, table_id: str) -> tuple[float, float] | None:
    """This key's rating before and after the match just over at ``table_id`` (the table's
    newest kept match); None when the host keeps no history or rates no such seat."""
    key = lobby.key
    if key is None:
        return None
    for _ in range(RATING_TRIES):
        try:
            found = await lobby.matches(key.fingerprint)
        except HostRefusal:
            return None  # an older host: no history
        for match in found:
            if match.table_id != table_id:
                continue
            for player in match.players:
                if player.key_fingerprint == key.fingerprint and player.HasField("rating_after"):
                    return player.rating_before, player.rating_after
            return None
        await asyncio.sleep(RATING_WAIT)
    return None


async def open_table(
    channel: grpc.aio.Channel,
    seat: Seat,
    text: Text,
    session: SessionState,
    directory: Path,
    *,
    start: bool = False,
    input: Input | None = None,
    output: Output | None = None,
    store: SeatStore | None = None,
    pin: tls.PinnedHost | None = None,
    key: PlayerKey | None = None,
) -> TableScreen:
    """The table screen for ``seat``; with ``start``, the match starts once the stream is up.

    With ``store`` the seat (its token) and each deal's seed are kept on disk, so a client
    started again can rejoin the table from the lobby. ``pin``: the host the channel is
    pinned to, so that another one at its address is said as such and not waited for.
    """
    lobby = LobbyClient(channel, text.lang)
    keyed = LobbyClient(channel, text.lang, key)
    if store is not None and seat.seat is not None:
        store.hold(seat.table_id, seat.seat, seat.token)
    screen_box: list[TableScreen] = []
    link = TableLink(channel, seat, lambda: screen_box[0].model.last_seq, text.lang, pin)

    async def start_match() -> None:
        await lobby.start_match(seat)

    async def rating_change() -> tuple[float, float] | None:
        return await rating_of(keyed, seat.table_id)

    screen = TableScreen(
        text,
        link,
        session=session,
        data_dir=directory,
        input=input,
        output=output,
        start_match=start_match,
        seat_store=store,
        rating_change=rating_change if key is not None and seat.seat is not None else None,
    )
    screen_box.append(screen)
    if start:
        screen.start_when_connected()
    return screen


async def play_local(
    options: Options,
    directory: Path,
    *,
    input: Input | None = None,
    output: Output | None = None,
    bot_delay: float | None = None,
    ready: asyncio.Future[TableScreen] | None = None,
) -> None:
    """A game against bots on a host inside this process; the host stops with the screen."""
    from host.edge.server import Host  # the host is needed only for a local game
    from host.table.state import TableSettings

    text = Text(detect_lang(options.lang))
    host_dir = directory / LOCAL_HOST_DIR
    host_dir.mkdir(parents=True, exist_ok=True)
    # Each local game starts fresh: the journal of the last one would reopen its old table.
    for stale in host_dir.glob("journal.sqlite3*"):
        stale.unlink()
    log_to(host_dir / "host.log")
    delay = options.bot_delay if bot_delay is None else bot_delay
    host = Host("127.0.0.1:0", host_dir, TableSettings(bot_delay=delay))
    port = await host.start()
    # TLS on loopback too, pinned to the host this process just started: the default path
    # is the secure one.
    channel, proved = await open_channel("127.0.0.1", port, host.identity.fingerprint)
    pin = tls.PinnedHost("127.0.0.1", port, proved)
    try:
        lobby = LobbyClient(
            channel, text.lang, identity.player_key(directory, text), data_dir=directory
        )
        session = SessionState(host=f"127.0.0.1:{port}")
        await trust_host(lobby, proved, session, directory, "local")
        name = options.name
        # One table for the evening: F5 (or "new") at a match's end asks the host for another
        # at the same seats (TableService.Rematch), as at a LAN table; the bots always agree.
        table_id = await lobby.create_table(
            text("local_table_name", name=name), PRESETS[options.preset], options.bots + 1
        )
        seat = await lobby.join(table_id, name)
        for _ in range(options.bots):
            await lobby.add_bot(seat, LEVELS[options.level])
        screen = await open_table(
            channel,
            seat,
            text,
            session,
            directory,
            start=True,
            input=input,
            output=output,
            pin=pin,
            key=lobby.key,
        )
        if ready is not None and not ready.done():
            ready.set_result(screen)
        await screen.run_async()
    finally:
        await channel.close()
        await host.stop(grace=0.5)


def cannot_join(text: Text, shown: str, error: BaseException) -> str:
    """The sentence a failure to reach or trust the host is told with, in the user's
    language; what gRPC or the socket said goes to the log."""
    logging.getLogger(__name__).warning("joining %s: %s", shown, error)
    words = failure_words(error, shown)
    if words is not None:
        key, fields = words
        return text(key, **fields)
    reason = error.message if isinstance(error, HostRefusal) else str(error)
    return text("connect_failed", host=shown, reason=reason)


async def join_host(
    address: str,
    options: Options,
    directory: Path,
    *,
    accept_new_fingerprint: bool = False,
    insecure: bool = False,
) -> int:
    """Connect to a LAN host (an invite pins its fingerprint; an address alone is trusted on
    first use and refused when the host's fingerprint changed, unless the user accepts the
    new one), choose a table in the lobby, play it."""
    text = Text(detect_lang(options.lang))
    try:
        place = invite.parse(address)
    except invite.InviteError as error:
        print(text("connect_failed", host=address, reason=str(error)), file=sys.stderr)
        return 2
    return await _join(
        place,
        options,
        directory,
        shown=address,
        # An invite the user was given says which host they mean, even over a remembered one.
        pin_overrides_memory=place.fingerprint is not None,
        accept_new_fingerprint=accept_new_fingerprint,
        insecure=insecure,
    )


async def find_and_join(
    options: Options,
    directory: Path,
    *,
    accept_new_fingerprint: bool = False,
    interfaces: Sequence[str] | None = None,
    input: Input | None = None,
    output: Output | None = None,
) -> int:
    """No address given: list the hosts the LAN advertises, open the lobby of the one chosen.

    The fingerprint found is pinned like an invite's (the host must prove it over TLS), but
    anyone on the LAN can advertise: where this user remembers another fingerprint for that
    address, it is refused as a changed one is (``--accept-new-fingerprint`` to take it).
    """
    from client.hosts import HostsScreen

    text = Text(detect_lang(options.lang))
    screens: list[HostsScreen] = []
    try:
        async with discovery.Browser(
            interfaces, on_change=lambda: screens[0].changed() if screens else None
        ) as browser:
            known = trust.known_host_names(directory)
            screen = HostsScreen(
                text,
                browser.hosts,
                input=input,
                output=output,
                posing_as=lambda host: trust.posing_as(known, host.name, host.fingerprint),
            )
            screens.append(screen)
            chosen = await screen.run_async()
    except discovery.DiscoveryError as error:
        print(text("hosts_unavailable", reason=str(error)), file=sys.stderr)
        return 1
    if chosen is None:
        return 0
    return await join_found(
        chosen,
        options,
        directory,
        accept_new_fingerprint=accept_new_fingerprint,
        input=input,
        output=output,
    )


async def join_found(
    found: discovery.FoundHost,
    options: Options,
    directory: Path,
    *,
    accept_new_fingerprint: bool = False,
    input: Input | None = None,
    output: Output | None = None,
) -> int:
    """The lobby of a host found on the LAN, its advertised fingerprint pinned; a fingerprint
    remembered for that address that differs wins (refused) unless the user accepts the new
    one."""
    return await _join(
        invite.Invite(found.address, found.port, found.fingerprint),
        options,
        directory,
        shown=f"{found.name} ({found.target})",
        lan_name=found.name,
        pin_overrides_memory=False,
        accept_new_fingerprint=accept_new_fingerprint,
        insecure=False,
        input=input,
        output=output,
    )


async def _join(
    place: invite.Invite,
    options: Options,
    directory: Path,
    *,
    shown: str,
    lan_name: str | None = None,
    pin_overrides_memory: bool,
    accept_new_fingerprint: bool,
    insecure: bool,
    input: Input | None = None,
    output: Output | None = None,
) -> int:
    from client.lobby import LobbyScreen

    text = Text(detect_lang(options.lang))
    key = place.address
    try:
        player = identity.player_key(directory, text)
    except IdentityError as error:
        print(error, file=sys.stderr)
        return 1
    try:
        if insecure:
            print(text("insecure_warning"), file=sys.stderr)
            channel, proved = open_insecure_channel(place.host, place.port), None
        else:
            channel, proved = await open_channel(place.host, place.port, place.fingerprint)
    except (OSError, tls.PinError) as error:
        print(cannot_join(text, shown, error), file=sys.stderr)
        return 1
    try:
        lobby = LobbyClient(channel, text.lang, player, data_dir=directory)
        session = SessionState(host=key)
        try:
            await trust_host(lobby, proved, session, directory, key)
        except (HostRefusal, tls.PinError) as refusal:
            print(cannot_join(text, shown, refusal), file=sys.stderr)
            return 1
        if session.trust is TrustState.CHANGED:
            if not pin_overrides_memory and not accept_new_fingerprint:
                old, new = session.previous_fingerprint, session.fingerprint
                print(text("fingerprint_refused", host=key, old=old, new=new), file=sys.stderr)
                return 1
            # Confirmed by the user, or pinned by an invite they were given: remembered now.
            remember_fingerprint(directory, key, session.fingerprint)
            session.trust = TrustState.KNOWN
        if lan_name is not None:  # the host proved its fingerprint: known by its name from now on
            trust.remember_host_name(directory, lan_name, session.fingerprint)
        store = SeatStore(directory, key)
        lobby_screen = LobbyScreen(
            text,
            lobby,
            session,
            options.name,
            store=store,
            input=input,
            output=output,
            invited=options.invited,
        )
        chosen = await lobby_screen.run_async()
        if chosen is None:
            return 0
        seat, start = chosen
        screen = await open_table(
            channel,
            seat,
            text,
            session,
            directory,
            start=start,
            store=store,
            input=input,
            output=output,
            pin=None if proved is None else tls.PinnedHost(place.host, place.port, proved),
            key=player,
        )
        await screen.run_async()
        return 0
    finally:
        await channel.close()


def identity_main(argv: Sequence[str]) -> int:
    """``scala40 identity [show | export FILE | import FILE [--replace]]``: the player's key
    on this machine."""
    parser = argparse.ArgumentParser(
        prog="scala40 identity",
        description="Your player key: it proves who you are to every host, and takes your "
        "seat back from another machine.",
    )
    parser.add_argument("--lang", choices=("it", "en"), help="interface language")
    steps = parser.add_subparsers(dest="step")
    steps.add_parser("show", help="your key's fingerprint (the default)")
    out = steps.add_parser("export", help="write your key to FILE, to take to another machine")
    out.add_argument("file", type=Path)
    into = steps.add_parser("import", help="use the key of FILE on this machine")
    into.add_argument("file", type=Path)
    into.add_argument("--replace", action="store_true", help="replace this machine's own key")
    args = parser.parse_args(argv)
    text = Text(detect_lang(args.lang))
    directory = data_dir()
    try:
        if args.step == "export":
            print(identity.export_to(directory, args.file, text))
        elif args.step == "import":
            print(identity.import_from(directory, args.file, text, args.replace))
        else:
            print(identity.show(directory, text))
    except IdentityError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


async def _host_channel(
    address: str, directory: Path, text: Text, insecure: bool
) -> grpc.aio.Channel:
    """A channel to the host at ``address`` (an invite pins it; an address alone is compared
    with the fingerprint remembered for it, remembered the first time); OSError or PinError
    when it cannot be trusted or reached."""
    place = invite.parse(address)
    key = f"{place.host}:{place.port}"
    if insecure:
        return open_insecure_channel(place.host, place.port)
    channel, proved = await open_channel(place.host, place.port, place.fingerprint)
    if place.fingerprint is None:
        trust_state, before = check_fingerprint(directory, key, proved)
        if trust_state is TrustState.CHANGED:
            await channel.close()
            raise tls.PinError(
                text("fingerprint_refused", host=key, old=before, new=proved), before, proved
            )
    return channel


def history_main(argv: Sequence[str], standings: bool = False) -> int:
    """``scala40 history INVITE|HOST[:PORT] [--all] [--match ID]`` and ``scala40 standings
    INVITE|HOST[:PORT]``: a host's matches, a past match's score sheet, its leaderboard."""
    prog = "scala40 standings" if standings else "scala40 history"
    parser = argparse.ArgumentParser(
        prog=prog,
        description="The host's leaderboard."
        if standings
        else "Your finished matches at a host, and a match's score sheet.",
    )
    parser.add_argument("address", metavar="INVITE|HOST[:PORT]")
    parser.add_argument("--lang", choices=("it", "en"), help="interface language")
    parser.add_argument("--insecure", action="store_true", help="a host started with --insecure")
    if not standings:
        parser.add_argument("--all", action="store_true", help="every match, not only yours")
        parser.add_argument("--match", metavar="ID", help="the score sheet of that match")
    args = parser.parse_args(argv)
    text = Text(detect_lang(args.lang))
    directory = data_dir()
    width = shutil.get_terminal_size((80, 24)).columns

    async def run() -> list[str]:
        channel = await _host_channel(args.address, directory, text, args.insecure)
        try:
            players = players_pb2_grpc.PlayersServiceStub(channel)
            if standings:
                board = await players.GetStandings(players_pb2.GetStandingsRequest())
                return history.standings_lines(board, text, width, args.address)
            if args.match:
                got = await players.GetMatch(players_pb2.GetMatchRequest(match_id=args.match))
                return history.sheet_lines(got.match, text, width)
            mine = "" if args.all else identity.player_key(directory, text).fingerprint
            listed = await players.ListMatches(
                players_pb2.ListMatchesRequest(key_fingerprint=mine, limit=500)
            )
            lines = history.history_lines(list(listed.matches), text, width, args.address)
            # Each match's id, to ask for its score sheet (--match ID).
            ids = [""] + [f"{m.match_id}  " for m in listed.matches]
            return [f"{i}{line}" for i, line in zip(ids, lines, strict=False)] + lines[len(ids) :]
        finally:
            await channel.close()

    try:
        lines = asyncio.run(run())
    except (IdentityError, invite.InviteError, tls.PinError, OSError) as error:
        print(text("connect_failed", host=args.address, reason=str(error)), file=sys.stderr)
        return 1
    except grpc.aio.AioRpcError as error:
        print(refusal_from_error(error).message, file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``scala40 [INVITE|HOST[:PORT]] [--name NAME] [--lang it|en]``: with no address, the
    hosts the LAN advertises to choose from; ``scala40 identity …``: the player's key."""
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["identity"]:
        return identity_main(given[1:])
    if given[:1] in (["history"], ["standings"]):
        return history_main(given[1:], standings=given[0] == "standings")
    parser = _common(
        argparse.ArgumentParser(prog="scala40", description="Play Scala 40 on a host of your LAN.")
    )
    parser.add_argument(
        "address",
        metavar="INVITE|HOST[:PORT]",
        nargs="?",
        help="the host's invite (scala40://HOST:PORT/?fp=…, which pins its fingerprint), or its "
        "address (its fingerprint is remembered the first time); none: choose among the hosts "
        "found on the LAN",
    )
    parser.add_argument(
        "--accept-new-fingerprint",
        action="store_true",
        help="the host's fingerprint changed and you know why: remember the new one",
    )
    parser.add_argument(
        "--insecure", action="store_true", help="a host started with --insecure (no TLS)"
    )
    parser.add_argument(
        "--invite",
        action="append",
        default=[],
        metavar="FINGERPRINT",
        help="a friend's player key (scala40 identity shows it): the tables you create take "
        "only the keys you invite, and yours; once per friend",
    )
    args = parser.parse_args(given)
    options = Options(args.name or default_name(), args.lang, invited=tuple(args.invite))
    if args.address is None and args.insecure:
        parser.error("--insecure needs the host's address: hosts without TLS are not listed")
    directory = data_dir()
    log_to(directory / CLIENT_LOG)
    with terminal_kept_clean(directory / CLIENT_LOG):
        if args.address is None:
            return asyncio.run(
                find_and_join(
                    options, directory, accept_new_fingerprint=args.accept_new_fingerprint
                )
            )
        return asyncio.run(
            join_host(
                args.address,
                options,
                directory,
                accept_new_fingerprint=args.accept_new_fingerprint,
                insecure=args.insecure,
            )
        )


def play_main(argv: Sequence[str] | None = None) -> int:
    """``scala40-play [--name NAME] [--lang it|en] [--bots N] [--preset P] [--level L]``: what
    ``make play`` runs."""
    parser = _common(
        argparse.ArgumentParser(
            prog="scala40-play", description="Play Scala 40 against bots on this machine."
        )
    )
    parser.add_argument(
        "--bots", type=int, default=LOCAL_BOTS, choices=range(1, 6), help="bots at the table (3)"
    )
    parser.add_argument(
        "--preset", choices=tuple(PRESETS), default="classic", help="the rules (classic)"
    )
    parser.add_argument(
        "--level", choices=tuple(LEVELS), default="medium", help="the bots' level (medium)"
    )
    parser.add_argument(
        "--bot-delay", type=float, default=0.6, help="seconds before each bot move (0.6)"
    )
    args = parser.parse_args(argv)
    options = Options(
        args.name or default_name(), args.lang, args.bots, args.preset, args.level, args.bot_delay
    )
    directory = data_dir()
    try:
        identity.player_key(directory, Text(detect_lang(options.lang)))
    except IdentityError as error:
        print(error, file=sys.stderr)
        return 1
    with terminal_kept_clean(directory / CLIENT_LOG):
        asyncio.run(play_local(options, directory))
    return 0


if __name__ == "__main__":
    sys.exit(main())
