"""The host's commit log: the jobs of every table ready at one moment made durable by one fsync.

The log is a folder of the data dir (``commit-log/``) holding one or two files,
each a run of records appended and ``fdatasync``'ed once each. A record is one
batch of the writer: the jobs of several tables (each its table's id, the number
of its first entry, and its entries with everything they write), or the voids
of jobs the log held whose table's own commit then failed. Its header carries
the batch's number (one more than the record before it), its length and a
CRC-32 of all of it; a record that does not read whole (a torn tail: the host
died in the write, before its fsync returned, so nothing of it was acknowledged)
ends the file, and what follows it is never read. The folder and its files are
readable only by the host's user: a record holds what its jobs write into the
table files, host secrets included (each deal's host seed, the host bots' seeds).

Each file grows by chunks given to it beforehand (``posix_fallocate``), so that a
full disk is met when a chunk is asked for, before a batch is written, never in
the middle of one; the last ``RESERVE_BYTES`` of the file's space are kept for
voids, which must be written whatever the disk's state. The space past the last
record reads as zeros, which is no record.

The table files (``host.journal.sqlite``) are written with ``synchronous=NORMAL``
once the log holds their jobs: WAL with NORMAL cannot corrupt a database, it can
only lose its last commits on power loss, and the log has them. A checkpoint of
the log (``Writers``) starts a new file, makes every table file written since
durable (an fsync of its write-ahead log), then removes the older file; at
start, ``read_log`` gives the jobs the files hold, to be written into each
table's file past its last entry before the tables are played back.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LOG_FOLDER = "commit-log"
# The record's header: magic, kind, batch number, payload length, CRC-32 (of the header's
# first four fields and the payload).
_HEADER = struct.Struct("<4sBQII")
MAGIC = b"S40L"
JOBS, VOIDS = 1, 2
# What a file is given at a time, and what is kept of it for voids.
CHUNK_BYTES = 1024 * 1024
RESERVE_BYTES = 16 * 1024
# Past this size, the writer starts a new file and checkpoints the older one.
CHECKPOINT_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class LoggedJob:
    """One table's job as the log holds it."""

    table_id: str
    first_entry: int  # the entry number of its first entry (also its job number)
    # Its entries as plain values (None, int, bytes, str, lists): ``host.journal.sqlite``'s
    # ``logged_entry`` and ``entry_from_log`` make them from its entries and back.
    entries: Sequence[Any]


@dataclass(frozen=True)
class Void:
    """A job of the log that its table's file did not take: entries from ``first_entry`` on
    are not the table's (its next job, if any, is written in their place)."""

    table_id: str
    first_entry: int


# --- The records' payload: a small typed encoding of None, int, bytes, str and lists. --------

_INT = struct.Struct("<q")
_LEN = struct.Struct("<I")


def _pack(value: object, out: bytearray) -> None:
    if value is None:
        out += b"N"
    elif isinstance(value, bool):
        raise TypeError("no booleans in the log")
    elif isinstance(value, int):
        out += b"I"
        out += _INT.pack(value)
    elif isinstance(value, bytes):
        out += b"B"
        out += _LEN.pack(len(value))
        out += value
    elif isinstance(value, str):
        encoded = value.encode("utf-8")
        out += b"S"
        out += _LEN.pack(len(encoded))
        out += encoded
    elif isinstance(value, (list, tuple)):
        out += b"L"
        out += _LEN.pack(len(value))
        for item in value:
            _pack(item, out)
    else:
        raise TypeError(f"cannot log a {type(value).__name__}")


def _unpack(data: bytes, at: int) -> tuple[object, int]:
    tag = data[at : at + 1]
    at += 1
    if tag == b"N":
        return None, at
    if tag == b"I":
        return _INT.unpack_from(data, at)[0], at + _INT.size
    if tag in (b"B", b"S", b"L"):
        (size,) = _LEN.unpack_from(data, at)
        at += _LEN.size
        if tag == b"L":
            items = []
            for _ in range(size):
                item, at = _unpack(data, at)
                items.append(item)
            return items, at
        if at + size > len(data):
            raise ValueError("a value runs past its record")
        raw = bytes(data[at : at + size])
        return (raw if tag == b"B" else raw.decode("utf-8")), at + size
    raise ValueError(f"unknown tag {tag!r}")


def encode_jobs(jobs: Sequence[LoggedJob]) -> bytes:
    out = bytearray()
    _pack([[j.table_id, j.first_entry, list(j.entries)] for j in jobs], out)
    return bytes(out)


def encode_voids(voids: Sequence[Void]) -> bytes:
    out = bytearray()
    _pack([[v.table_id, v.first_entry] for v in voids], out)
    return bytes(out)


def _decode(kind: int, payload: bytes) -> list[LoggedJob] | list[Void]:
    value, end = _unpack(payload, 0)
    if end != len(payload) or not isinstance(value, list):
        raise ValueError("a record's payload is not one list")
    if kind == JOBS:
        return [LoggedJob(t, n, entries) for t, n, entries in value]
    return [Void(t, n) for t, n in value]


def record(kind: int, batch_no: int, payload: bytes) -> bytes:
    """One record as it is written: header, then payload."""
    head = struct.pack("<4sBQI", MAGIC, kind, batch_no, len(payload))
    return head + struct.pack("<I", zlib.crc32(payload, zlib.crc32(head))) + payload


# --- Reading back -----------------------------------------------------------------------------


@dataclass(frozen=True)
class LogRecord:
    batch_no: int
    items: list[LoggedJob] | list[Void]


def _records(data: bytes) -> Iterator[LogRecord]:
    """The whole records at the start of ``data``, up to the first that does not read whole."""
    at = 0
    while at + _HEADER.size <= len(data):
        magic, kind, batch_no, size, crc = _HEADER.unpack_from(data, at)
        body = at + _HEADER.size
        if magic != MAGIC or kind not in (JOBS, VOIDS) or body + size > len(data):
            return
        payload = data[body : body + size]
        if zlib.crc32(payload, zlib.crc32(data[at : at + _HEADER.size - 4])) != crc:
            return
        try:
            items = _decode(kind, payload)
        except (ValueError, TypeError, struct.error, UnicodeDecodeError):
            return
        yield LogRecord(batch_no, items)
        at = body + size


def log_files(folder: Path) -> list[Path]:
    """The log's files, oldest first (their names are their numbers)."""
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.iterdir() if p.name.isdigit()), key=lambda p: int(p.name))


def read_log(folder: Path) -> dict[str, list[LoggedJob]]:
    """Each table's jobs in the log, in order, voided ones left out.

    A torn record ends its file. Across files and within one, the batch numbers
    only grow: a record numbered at or below the one before it is left out (never
    written by a writer that went on after it, so never acknowledged).
    """
    jobs: dict[str, list[LoggedJob]] = {}
    last_batch = -1
    for path in log_files(folder):
        for found in _records(path.read_bytes()):
            if found.batch_no <= last_batch:
                break
            last_batch = found.batch_no
            for item in found.items:
                kept = [j for j in jobs.get(item.table_id, []) if j.first_entry < item.first_entry]
                if isinstance(item, LoggedJob):
                    kept.append(item)
                jobs[item.table_id] = kept
    return {table_id: kept for table_id, kept in jobs.items() if kept}


def last_batch_no(folder: Path) -> int:
    """The number of the log's last whole record (0 when it has none)."""
    last = 0
    for path in log_files(folder):
        for found in _records(path.read_bytes()):
            if found.batch_no <= last:
                break
            last = found.batch_no
    return last


# --- Writing ----------------------------------------------------------------------------------


class LogFile:
    """One file of the log, written at its end by the writer thread alone."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        self.end = 0  # where the next record goes
        self._given = 0  # the space given to the file so far
        self.broken: str | None = None  # a failed write that could not be undone
        try:
            self._give(CHUNK_BYTES)
            os.fsync(self._fd)
        except OSError:
            self.close()
            raise

    def _give(self, size: int) -> None:
        os.posix_fallocate(self._fd, self._given, size)
        self._given += size

    def append(self, data: bytes, *, reserve: bool = True) -> None:
        """Write ``data`` after the last record and fdatasync it; on an ``OSError`` the file
        is as it was (its space given again as zeros). ``reserve``: leave ``RESERVE_BYTES``
        of given space after it (a void may take them)."""
        if self.broken is not None:
            raise OSError(f"the commit log cannot be written ({self.broken})")
        needed = self.end + len(data) + (RESERVE_BYTES if reserve else 0)
        if needed > self._given:
            self._give(max(CHUNK_BYTES, needed - self._given))
        try:
            written = os.pwrite(self._fd, data, self.end)
            if written != len(data):
                raise OSError(f"a short write ({written} of {len(data)} bytes)")
            os.fdatasync(self._fd)
        except OSError:
            self._undo(len(data))
            raise
        self.end += len(data)

    def _undo(self, size: int) -> None:
        """Zeros over a record that failed, so that no later read finds it whole."""
        try:
            os.pwrite(self._fd, b"\0" * size, self.end)
            os.fdatasync(self._fd)
        except OSError as error:
            self.broken = str(error)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def sync_folder(folder: Path) -> None:
    """Make the folder's names (a file made or removed) durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
