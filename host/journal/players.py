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

from scala40_net import names
from scala40_net.fairdeal.identity import fingerprint

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
"""


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
