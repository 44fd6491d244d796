"""The host's players: each player key with the name it last used (trust on first use).

One SQLite file in the data dir (``players.sqlite3``, WAL, ``synchronous=FULL``
as the journals), apart from the tables' journals: a key is a player of the
host, not of one table. It holds public keys and names only. A name is bound
to the key that last used it; another key asking for it is refused until the
host's owner frees it (``scala40-host --free-name``), which may be done beside
a running host: every join reads the file again.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from host.journal import ratings
from host.journal.sqlite import _private_file as private_file
from scala40_net import names
from scala40_net.fairdeal.identity import fingerprint
from scala40_net.pb import players_pb2

FILE_NAME = "players.sqlite3"
SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    public_key BLOB PRIMARY KEY,
    name TEXT NOT NULL,
    -- The name's look (scala40_net.names.fold) while the name is bound to this key; NULL once
    -- the host's owner freed it.
    bound TEXT UNIQUE,
    first_ns INTEGER NOT NULL,
    last_ns INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    -- The order the host saw the matches end in: the ratings follow it.
    match_no INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id TEXT UNIQUE NOT NULL,  -- "<table_id>/<n>", a table's n-th match
    table_id TEXT NOT NULL,
    finished_ns INTEGER NOT NULL,
    summary BLOB NOT NULL           -- the PastMatch, each player's ratings in it
);
CREATE TABLE IF NOT EXISTS standings (
    player TEXT PRIMARY KEY,        -- "key:<fingerprint>" or "bot:<level>" (host.journal.ratings)
    name TEXT NOT NULL,             -- the name it last played under
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    matches INTEGER NOT NULL,
    wins INTEGER NOT NULL,          -- matches it ended first in (ties included)
    deals_played INTEGER NOT NULL,  -- deals it played to a scored end
    deals_opened INTEGER NOT NULL,
    penalty_points INTEGER NOT NULL,
    closed_in_hand INTEGER NOT NULL -- chiusure in mano (R9.3)
);
CREATE TABLE IF NOT EXISTS match_keys (
    match_id TEXT NOT NULL,
    key_fingerprint TEXT NOT NULL,  -- a player key that played the match
    PRIMARY KEY (key_fingerprint, match_id)
);
"""


@dataclass(frozen=True)
class Standing:
    """One line of the leaderboard: who, their rating, their results at this host."""

    player: str  # "key:<fingerprint>" or "bot:<level>"
    name: str
    skill: ratings.Skill
    matches: int
    wins: int
    deals_played: int
    deals_opened: int
    penalty_points: int
    closed_in_hand: int


@dataclass(frozen=True)
class Player:
    public_key: bytes
    name: str
    bound: bool

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)


class NameBound(Exception):
    """The name is bound to another key at this host."""

    def __init__(self, name: str, holder: bytes) -> None:
        super().__init__(name)
        self.name = name
        self.holder = holder


class PlayerBook:
    """The players' file of one data dir; thread-safe (one connection, one lock)."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / FILE_NAME
        private_file(self.path)  # names and keys are nobody else's: 0600, as the journals
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def holder(self, name: str) -> bytes | None:
        """The key ``name`` (or a name that looks like it) is bound to, if any."""
        with self._lock:
            row = self._db.execute(
                "SELECT public_key FROM players WHERE bound = ?", (names.fold(name),)
            ).fetchone()
        return None if row is None else bytes(row[0])

    def bind(self, public_key: bytes, name: str) -> None:
        """``name`` is the key's from now on (its former name is free); NameBound when another
        key holds it."""
        look, now = names.fold(name), time.time_ns()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute(
                    "SELECT public_key FROM players WHERE bound = ?", (look,)
                ).fetchone()
                if row is not None and bytes(row[0]) != public_key:
                    raise NameBound(name, bytes(row[0]))
                self._db.execute(
                    "INSERT INTO players (public_key, name, bound, first_ns, last_ns) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (public_key) DO UPDATE SET "
                    "name = excluded.name, bound = excluded.bound, last_ns = excluded.last_ns",
                    (public_key, name, look, now, now),
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def free(self, name: str) -> Player | None:
        """Unbind ``name`` from its key (the key stays known, with no name bound); the player
        it was bound to, or None when no key held it."""
        look = names.fold(name)
        with self._lock:
            row = self._db.execute(
                "SELECT public_key, name FROM players WHERE bound = ?", (look,)
            ).fetchone()
            if row is None:
                return None
            self._db.execute("UPDATE players SET bound = NULL WHERE bound = ?", (look,))
        return Player(bytes(row[0]), str(row[1]), False)

    def players(self) -> list[Player]:
        """Every key the host knows, by the name it last used."""
        with self._lock:
            rows = self._db.execute(
                "SELECT public_key, name, bound FROM players ORDER BY name, public_key"
            ).fetchall()
        return [Player(bytes(k), str(n), b is not None) for k, n, b in rows]

    def name_of(self, public_key: bytes) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT name FROM players WHERE public_key = ?", (public_key,)
            ).fetchone()
        return None if row is None else str(row[0])

    # --- The finished matches (host.journal.history) --------------------------------------

    def recorded_tables(self) -> set[str]:
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT table_id FROM matches").fetchall()
        return {str(r[0]) for r in rows}

    def recorded(self, match_id: str) -> bool:
        with self._lock:
            row = self._db.execute(
                "SELECT 1 FROM matches WHERE match_id = ?", (match_id,)
            ).fetchone()
        return row is not None

    def _skills(self) -> dict[str, ratings.Skill]:
        rows = self._db.execute("SELECT player, mu, sigma FROM standings").fetchall()
        return {str(p): ratings.Skill(float(mu), float(sigma)) for p, mu, sigma in rows}

    def _rated(self, match: players_pb2.PastMatch) -> None:
        """Rate the match (inside the keeping's transaction): each rated seat's rating before
        and after goes into ``match``, and the standings take its results."""
        skills = self._skills()
        after = ratings.rate(match, skills)
        for player in match.players:
            who = ratings.rated_as(player)
            if who is None or who not in after:
                continue
            player.rating_before = skills.get(who, ratings.Skill()).ordinal
            player.rating_after = after[who].ordinal
        seen: set[str] = set()
        for player in match.players:
            who = ratings.rated_as(player)
            if who is None or who not in after:
                continue
            name = player.name if player.key_fingerprint else ratings.bot_name(player.bot_level)
            first = who not in seen  # a level of several bots plays one match, not several
            seen.add(who)
            self._db.execute(
                "INSERT INTO standings VALUES (?, ?, ?, ?, 0, 0, 0, 0, 0, 0) "
                "ON CONFLICT (player) DO NOTHING",
                (who, name, ratings.MU, ratings.SIGMA),
            )
            self._db.execute(
                "UPDATE standings SET name = ?, mu = ?, sigma = ?, matches = matches + ?, "
                "wins = wins + ?, deals_played = deals_played + ?, "
                "deals_opened = deals_opened + ?, penalty_points = penalty_points + ?, "
                "closed_in_hand = closed_in_hand + ? WHERE player = ?",
                (
                    name,
                    after[who].mu,
                    after[who].sigma,
                    int(first),
                    int(first and player.place == 1),
                    player.deals_played,
                    player.deals_opened,
                    player.penalty_points,
                    player.closed_in_hand,
                    who,
                ),
            )

    def standings(self) -> list[Standing]:
        """Everyone rated at this host, best rating first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT player, name, mu, sigma, matches, wins, deals_played, deals_opened, "
                "penalty_points, closed_in_hand FROM standings"
            ).fetchall()
        found = [
            Standing(
                str(r[0]), str(r[1]), ratings.Skill(float(r[2]), float(r[3])), *map(int, r[4:])
            )
            for r in rows
        ]
        return sorted(found, key=lambda s: (-s.skill.ordinal, s.name, s.player))

    def record(self, match: players_pb2.PastMatch, finished_ns: int) -> bool:
        """Keep ``match`` (once: False when it was kept already), rated: the ratings before
        and after are written into it."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if self._db.execute(
                    "SELECT 1 FROM matches WHERE match_id = ?", (match.match_id,)
                ).fetchone():
                    self._db.execute("ROLLBACK")
                    return False
                self._rated(match)
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO matches (match_id, table_id, finished_ns, summary) "
                    "VALUES (?, ?, ?, ?)",
                    (match.match_id, match.table_id, finished_ns, match.SerializeToString()),
                )
                new = cursor.rowcount == 1
                if new:
                    self._db.executemany(
                        "INSERT OR IGNORE INTO match_keys (match_id, key_fingerprint) "
                        "VALUES (?, ?)",
                        [
                            (match.match_id, p.key_fingerprint)
                            for p in match.players
                            if p.key_fingerprint
                        ],
                    )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return new

    def matches(self, key_fingerprint: str = "", limit: int = 50) -> list[players_pb2.PastMatch]:
        """The matches kept, newest first; only those ``key_fingerprint`` played, when given."""
        with self._lock:
            if key_fingerprint:
                rows = self._db.execute(
                    "SELECT summary FROM matches JOIN match_keys USING (match_id) "
                    "WHERE key_fingerprint = ? ORDER BY match_no DESC LIMIT ?",
                    (key_fingerprint, limit),
                ).fetchall()
            else:
                rows = self._db.execute(
                    "SELECT summary FROM matches ORDER BY match_no DESC LIMIT ?", (limit,)
                ).fetchall()
        return [players_pb2.PastMatch.FromString(bytes(r[0])) for r in rows]

    def match(self, match_id: str) -> players_pb2.PastMatch | None:
        with self._lock:
            row = self._db.execute(
                "SELECT summary FROM matches WHERE match_id = ?", (match_id,)
            ).fetchone()
        return None if row is None else players_pb2.PastMatch.FromString(bytes(row[0]))


def free_name(data_dir: Path, name: str) -> str:
    """The host owner's ``--free-name``: what was done, in a sentence."""
    book = PlayerBook(data_dir)
    try:
        freed = book.free(name)
    finally:
        with contextlib.suppress(sqlite3.Error):
            book.close()
    if freed is None:
        return f"no player key holds the name {name!r} at this host"
    return f"the name {freed.name!r} is free again (it was bound to the key {freed.fingerprint})"
