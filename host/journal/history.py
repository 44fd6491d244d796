"""The host's history: each finished match kept in the players' file once it is over.

A match is read from its table's journal when the table's task sees it end
(through the journal's own connection, between two jobs), and at every start
from the archived journals whose matches are not kept yet (a host stopped
between a match's end and its keeping loses nothing: a live table's task sees
its match end again when it is played back). Keeping a match is idempotent:
a table played back at a restart ends its matches again without counting
them twice.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

from host.journal import matches
from host.journal.players import PlayerBook
from host.journal.sqlite import SUFFIX, Journal
from scala40_net.pb import lobby_pb2, players_pb2

log = logging.getLogger(__name__)
Found = list[players_pb2.PastMatch]


class History:
    """The finished matches of one data dir."""

    def __init__(self, data_dir: Path, book: PlayerBook) -> None:
        self.data_dir = data_dir
        self.book = book

    @staticmethod
    def read_live(table_id: str, config: lobby_pb2.CreateTableRequest, journal: Journal) -> Found:
        """The finished matches of a live table, from its own journal (on the host's loop,
        between two of the table's jobs: the journal's connection is not shared)."""
        try:
            return matches.past_matches(table_id, config, matches.told_by_journal(journal))
        except (sqlite3.Error, TypeError, ValueError) as error:
            log.warning("the matches of table %s cannot be read: %s", table_id, error)
            return []

    def keep(self, found: Found, finished_ns: int | None = None) -> list[str]:
        """Keep each match of ``found`` not kept yet; the match ids kept now."""
        when = time.time_ns() if finished_ns is None else finished_ns
        kept = []
        for match in found:
            if self.book.recorded(match.match_id):
                continue
            match.finished_unix_ms = when // 1_000_000
            if self.book.record(match, when):
                kept.append(match.match_id)
        return kept

    def catch_up(self) -> list[str]:
        """At start: the matches of every archived journal none of whose matches are kept
        (a host that stopped before keeping them, or one older than the history), dated by
        their file."""
        kept_tables = self.book.recorded_tables()
        kept = []
        for where, path in matches.journals(self.data_dir):
            table_id = path.name.removesuffix(SUFFIX)
            if where != "archive" or table_id in kept_tables:
                continue
            try:
                config, told = matches.told_by_file(path)
                found = matches.past_matches(table_id, config, told)
                finished_ns = path.stat().st_mtime_ns
            except (OSError, sqlite3.Error, TypeError, ValueError) as error:
                log.warning("the matches of %s cannot be read: %s", path, error)
                continue
            kept += self.keep(found, finished_ns)
        return kept

    def listed(self, key_fingerprint: str, limit: int) -> Found:
        return self.book.matches(key_fingerprint, limit)

    def archived_records(self, match: players_pb2.PastMatch) -> list[bytes]:
        """The signed records of an archived match's deals (none while its table is live:
        its task gives them)."""
        path = matches.archived_journal(self.data_dir, match.table_id)
        if path is None:
            return []
        return matches.deal_records(path, [d.deal_no for d in match.deals])
