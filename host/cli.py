"""``scala40-host``: run a Scala 40 host on ADDR:PORT with its data in DIR."""

from __future__ import annotations

import argparse
import asyncio
import logging
import resource
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

import platformdirs

from host.edge.server import START_PROBLEMS, Host, serve
from host.journal import matches, players
from host.table.state import TableSettings
from scala40_net.wire import DEFAULT_PORT


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="scala40-host", description="Run a Scala 40 host (gRPC).")
    parser.add_argument(
        "--listen",
        default=f"0.0.0.0:{DEFAULT_PORT}",
        help=f"address and port to listen on (default 0.0.0.0:{DEFAULT_PORT}, every interface: "
        f"the LAN can join; 127.0.0.1:{DEFAULT_PORT} for this machine only)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(platformdirs.user_data_dir("scala40-host")),
        help="where the journal and the host identity key live (created 0700)",
    )
    parser.add_argument(
        "--commit-timeout",
        type=float,
        default=30.0,
        help="seconds a seat has to commit its seed before each deal (default 30)",
    )
    parser.add_argument(
        "--reveal-timeout",
        type=float,
        default=30.0,
        help="seconds a seat has to reveal its seed (default 30)",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.6,
        help="seconds a bot waits before each move, so people can follow (default 0.6)",
    )
    parser.add_argument(
        "--insecure",
        action="store_true",
        help="no TLS (for tools like grpcurl without certificates): everything, seat tokens "
        "included, travels in clear; a warning is printed at start",
    )
    parser.add_argument(
        "--no-advertise",
        action="store_true",
        help="do not advertise this host on the LAN (mDNS/DNS-SD): players then join by its "
        "address or invite only (a host on loopback never advertises)",
    )
    parser.add_argument(
        "--name",
        default=socket.gethostname(),
        help="the host's name in the players' list of LAN hosts (default: this machine's name)",
    )
    parser.add_argument(
        "--list-matches",
        action="store_true",
        help="print a line per match in the data dir (live and archived) and exit",
    )
    parser.add_argument(
        "--export-records",
        type=Path,
        metavar="DIR",
        help="write every signed deal record of the data dir to DIR (for scala40-verify) and exit",
    )
    parser.add_argument(
        "--free-name",
        metavar="NAME",
        help="free a player's name held by their key at this host (trust on first use), so "
        "that another key may take it, and exit (the host may be running)",
    )
    parser.add_argument(
        "--between-deals",
        type=float,
        default=20.0,
        help="seconds the host waits after a deal for the people at a table to say ready, "
        "when the table does not set its own (default 20; 0: no pause)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    return parser


def _more_open_files() -> None:
    """Every table keeps its journal open: raise the soft limit on open files to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 8192 if hard == resource.RLIM_INFINITY else min(hard, 8192)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.free_name is not None:
        print(players.free_name(args.data_dir, args.free_name))
        return 0
    if args.list_matches or args.export_records is not None:
        return _report(args.data_dir, args.list_matches, args.export_records)
    _more_open_files()
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    settings = TableSettings(
        commit_timeout=args.commit_timeout,
        reveal_timeout=args.reveal_timeout,
        bot_delay=args.bot_delay,
        between_deals=args.between_deals,
    )
    host = Host(
        args.listen,
        args.data_dir,
        settings,
        insecure=args.insecure,
        advertise=not args.no_advertise,
        name=args.name,
    )
    try:
        asyncio.run(serve(host))
    except START_PROBLEMS as error:
        print(f"scala40-host: {error}", file=sys.stderr)
        return 1
    return 0


def _report(data_dir: Path, listing: bool, export_to: Path | None) -> int:
    """The host owner's read-only commands: they never need the host stopped."""
    if listing:
        lines = matches.list_matches(data_dir)
        print("\n".join(lines) if lines else f"no matches in {data_dir}")
    if export_to is not None:
        written = matches.export_records(data_dir, export_to)
        print(f"{len(written)} deal record(s) written to {export_to}")
    return 0
