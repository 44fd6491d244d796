"""Seats held at LAN hosts, kept on disk so a restarted client can sit down again and verify.

One file per host and table under ``<data dir>/seats/``, readable by this
user alone (0600, in 0700 folders), holds the seat token, the seat number and,
for each deal not yet verified, this seat's fair-deal seed and cut. The seed
is written before its commitment is sent, so a client that stops at any point
can still reveal it and check the deal with it. A deal's entry goes once its
record is checked (the seed is saved beside the record then); the whole file
goes when the match ends or the host no longer knows the seat.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from scala40_net.secretfile import private_folder, write_secret

SEATS_DIR = "seats"


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text) or "_"


def _older_folder(seats: Path, host: str) -> Path | None:
    """The folder an older client kept this host's seats in, if there is one: it wrote an
    IPv6 host without brackets and a name as typed (``Invite.address`` writes one way)."""
    names = {_safe(host).lower()}
    if host.startswith("["):
        address, _, port = host[1:].partition("]:")
        names.add(_safe(f"{address}:{port}").lower())
    if not seats.is_dir():
        return None
    return next((p for p in sorted(seats.iterdir()) if p.name.lower() in names), None)


@dataclass
class HeldSeat:
    """A seat this user holds at a table of a host, and its unfinished deals' seeds and cuts."""

    table_id: str
    seat: int
    token: str
    deals: dict[int, tuple[bytes, int]] = field(default_factory=dict)

    def to_json(self) -> str:
        deals = {str(n): {"seed": s.hex(), "cut": c} for n, (s, c) in sorted(self.deals.items())}
        body = {
            "table_id": self.table_id,
            "seat": self.seat,
            "token": self.token,
            "deals": deals,
        }
        return json.dumps(body, indent=1, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> HeldSeat:
        body = json.loads(text)
        deals = {
            int(n): (bytes.fromhex(d["seed"]), int(d["cut"])) for n, d in body["deals"].items()
        }
        return cls(str(body["table_id"]), int(body["seat"]), str(body["token"]), deals)


class SeatStore:
    """The seats held at one host (``host:port``)."""

    def __init__(self, data_dir: Path, host: str) -> None:
        self.folder = data_dir / SEATS_DIR / _safe(host)
        if not self.folder.exists():
            self.folder = _older_folder(data_dir / SEATS_DIR, host) or self.folder

    def _path(self, table_id: str) -> Path:
        return self.folder / f"{_safe(table_id)}.json"

    def held(self) -> dict[str, HeldSeat]:
        """Every seat held at this host, by table id (an unreadable file is skipped)."""
        seats: dict[str, HeldSeat] = {}
        for path in sorted(self.folder.glob("*.json")) if self.folder.is_dir() else ():
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                held = HeldSeat.from_json(path.read_text(encoding="utf-8"))
                seats[held.table_id] = held
        return seats

    def get(self, table_id: str) -> HeldSeat | None:
        try:
            return HeldSeat.from_json(self._path(table_id).read_text(encoding="utf-8"))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def hold(self, table_id: str, seat: int, token: str) -> None:
        """Remember a seat just taken (a seat already held keeps its deals' seeds)."""
        held = self.get(table_id)
        if held is None or held.token != token:
            held = HeldSeat(table_id, seat, token)
        held.seat = seat
        self._write(held)

    def remember_seed(self, table_id: str, deal_no: int, seed: bytes, cut: int) -> None:
        held = self.get(table_id)
        if held is not None:
            held.deals[deal_no] = (seed, cut)
            self._write(held)

    def seed(self, table_id: str, deal_no: int) -> tuple[bytes, int] | None:
        held = self.get(table_id)
        return held.deals.get(deal_no) if held is not None else None

    def forget_deal(self, table_id: str, deal_no: int) -> None:
        held = self.get(table_id)
        if held is not None and deal_no in held.deals:
            del held.deals[deal_no]
            self._write(held)

    def forget(self, table_id: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._path(table_id).unlink()

    def _write(self, held: HeldSeat) -> None:
        """Write the file whole and owner-only: a new file replaces the old in one step."""
        private_folder(self.folder)
        with contextlib.suppress(OSError):
            private_folder(self.folder.parent, tighten=True)
            private_folder(self.folder, tighten=True)
        write_secret(self._path(held.table_id), held.to_json().encode("utf-8"))
