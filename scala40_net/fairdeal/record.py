"""The deal record: the recorder the host feeds as events happen, and the record file it exports.

The file format (docs/FAIR_DEAL.md "Record file") is UTF-8 JSON. Event bytes
are base64 (standard alphabet, padded), keys and hashes lower-case hex. The
header fields repeat what the signed announcement says, for people reading the
file; the verifier checks they agree with it.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from scala40_net.fairdeal.chain import chain_head, chain_start, chain_step
from scala40_net.fairdeal.identity import HostIdentity, fingerprint
from scala40_net.pb import deal_pb2, ruleset_pb2

RECORD_FORMAT = "scala40/deal-record/v1"


class RecordFormatError(ValueError):
    """A file that is not a deal record of this format."""


@dataclass(frozen=True)
class PrivateEntry:
    """A seat's private event, sent with the public event at index ``with_event``."""

    with_event: int
    event: bytes


@dataclass(frozen=True)
class DealRecord:
    """Everything a verifier needs for one deal attempt, and one seat's private data at most."""

    table_id: str
    deal_no: int
    seats_in_play: tuple[int, ...]
    dealer: int
    cutter: int
    deck_size: int
    ruleset: dict[str, Any]
    events: tuple[bytes, ...]
    host_public_key: bytes
    signature: bytes
    private_seat: int | None = None
    private_events: tuple[PrivateEntry, ...] = field(default=())
    #: A private table's deal (docs/PRIVATE_TABLES.md): every signed message of its seats, in
    #: the host's order; empty for an ordinary deal.
    private_transcript: tuple[bytes, ...] = field(default=())

    @property
    def chain_head(self) -> bytes:
        return chain_head(self.table_id, self.deal_no, self.events)

    @property
    def host_fingerprint(self) -> str:
        return fingerprint(self.host_public_key)

    def without_private(self) -> DealRecord:
        return replace(self, private_seat=None, private_events=())

    def to_json(self) -> str:
        document: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "table_id": self.table_id,
            "deal_no": self.deal_no,
            "seats_in_play": list(self.seats_in_play),
            "dealer": self.dealer,
            "cutter": self.cutter,
            "deck_size": self.deck_size,
            "ruleset": self.ruleset,
            "events": [_b64(e) for e in self.events],
            "chain_head": self.chain_head.hex(),
            "host_public_key": self.host_public_key.hex(),
            "host_fingerprint": self.host_fingerprint,
            "signature": self.signature.hex(),
            "private": None,
        }
        if self.private_transcript:
            document["private_deal"] = {"transcript": [m.hex() for m in self.private_transcript]}
        if self.private_seat is not None:
            document["private"] = {
                "seat": self.private_seat,
                "events": [
                    {"with_event": p.with_event, "event": _b64(p.event)}
                    for p in self.private_events
                ],
            }
        return json.dumps(document, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str | bytes) -> DealRecord:
        try:
            document = json.loads(text)
            if not isinstance(document, dict) or document.get("format") != RECORD_FORMAT:
                raise RecordFormatError(f"not a {RECORD_FORMAT} file")
            private = document.get("private")
            private_deal = document.get("private_deal")
            transcript = (
                ()
                if private_deal is None
                else tuple(bytes.fromhex(_typed(m, str)) for m in private_deal["transcript"])
            )
            record = cls(
                table_id=_typed(document["table_id"], str),
                deal_no=_typed(document["deal_no"], int),
                seats_in_play=tuple(_typed(s, int) for s in document["seats_in_play"]),
                dealer=_typed(document["dealer"], int),
                cutter=_typed(document["cutter"], int),
                deck_size=_typed(document["deck_size"], int),
                ruleset=_typed(document["ruleset"], dict),
                events=tuple(_unb64(e) for e in document["events"]),
                host_public_key=bytes.fromhex(document["host_public_key"]),
                signature=bytes.fromhex(document["signature"]),
                private_seat=None if private is None else _typed(private["seat"], int),
                private_events=()
                if private is None
                else tuple(
                    PrivateEntry(_typed(p["with_event"], int), _unb64(p["event"]))
                    for p in private["events"]
                ),
                private_transcript=transcript,
            )
        except RecordFormatError:
            raise
        except (KeyError, TypeError, ValueError, binascii.Error) as error:
            raise RecordFormatError(f"malformed deal record: {error!r}") from error
        return record

    def write(self, path: Path) -> None:
        path.write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> DealRecord:
        return cls.from_json(path.read_text(encoding="utf-8"))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: object) -> bytes:
    return base64.b64decode(_typed(text, str), validate=True)


def _typed(value: Any, kind: type) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RecordFormatError(f"{value!r} is not a {kind.__name__}")
    return value


def ruleset_document(announced: deal_pb2.DealAnnounced) -> dict[str, Any]:
    """The announced ruleset for people: the preset's name and every option set, by field name."""
    ruleset = announced.ruleset
    options: dict[str, Any] = {}
    for option, value in ruleset.options.ListFields():
        enum = option.enum_type
        options[option.name] = enum.values_by_number[value].name if enum is not None else value
    return {"preset": ruleset_pb2.Preset.Name(ruleset.preset), "options": options}


def parse_deal_event(data: bytes) -> deal_pb2.DealEvent:
    """Decode a public event; ``ValueError`` for bytes that are not a ``DealEvent``."""
    event = deal_pb2.DealEvent()
    try:
        event.ParseFromString(data)
    except Exception as error:  # protobuf's DecodeError, whose module ships no type hints
        raise ValueError(f"not a DealEvent: {error}") from error
    return event


def parse_private_event(data: bytes) -> deal_pb2.PrivateDealEvent:
    """Decode a private event; ``ValueError`` for bytes that are not a ``PrivateDealEvent``."""
    event = deal_pb2.PrivateDealEvent()
    try:
        event.ParseFromString(data)
    except Exception as error:  # as above
        raise ValueError(f"not a PrivateDealEvent: {error}") from error
    return event


class DealRecorder:
    """Collects a deal's public event bytes (and each seat's private ones) as the host sends them.

    ``public`` takes the exact bytes broadcast; ``private`` the bytes of a
    ``PrivateDealEvent`` sent to one seat with the latest public event.
    ``finish`` signs the chain head; ``record_for`` exports a file's content.
    """

    def __init__(self, table_id: str, deal_no: int) -> None:
        self.table_id = table_id
        self.deal_no = deal_no
        self.events: list[bytes] = []
        self.head = chain_start(table_id, deal_no)
        self._private: dict[int, list[PrivateEntry]] = {}
        self._signed: DealRecord | None = None
        # A private deal's transcript, set by the host before ``finish``.
        self.private_transcript: tuple[bytes, ...] = ()

    def public(self, event_bytes: bytes) -> bytes:
        """Append one public event; returns the new chain head ``h_k``."""
        if self._signed is not None:
            raise ValueError("the deal record is already signed")
        self.events.append(bytes(event_bytes))
        self.head = chain_step(self.head, event_bytes)
        return self.head

    def private(self, seat: int, event_bytes: bytes) -> None:
        """Note a private event for ``seat``, sent together with the latest public event."""
        if not self.events:
            raise ValueError("a private event goes with a public event")
        entry = PrivateEntry(len(self.events) - 1, bytes(event_bytes))
        self._private.setdefault(seat, []).append(entry)

    def private_for(self, seat: int) -> tuple[PrivateEntry, ...]:
        """``seat``'s private events so far, each with the index of its public event."""
        return tuple(self._private.get(seat, ()))

    def finish(self, identity: HostIdentity) -> DealRecord:
        """Sign ``h_last`` and return the public record (no seat's private data)."""
        if not self.events:
            raise ValueError("an empty deal has no record")
        first = parse_deal_event(self.events[0])
        if first.WhichOneof("event") != "announced":
            raise ValueError("a deal record starts with the announcement")
        announced = first.announced
        self._signed = DealRecord(
            table_id=self.table_id,
            deal_no=self.deal_no,
            seats_in_play=tuple(announced.seats_in_play),
            dealer=announced.dealer_seat,
            cutter=announced.cutter_seat,
            deck_size=announced.deck_size,
            ruleset=ruleset_document(announced),
            events=tuple(self.events),
            host_public_key=identity.public_key,
            signature=identity.sign_record(self.table_id, self.deal_no, self.head),
            private_transcript=self.private_transcript,
        )
        return self._signed

    @property
    def signed(self) -> DealRecord:
        if self._signed is None:
            raise ValueError("the deal record is not signed yet")
        return self._signed

    def record_for(self, seat: int | None) -> DealRecord:
        """The record as ``seat`` may download it: the public record and its own private data.

        A seat that did not play the deal has no private data: it gets the public record
        (``"private": null``, FAIR_DEAL.md "Record file"), as a spectator does.
        """
        if seat is None or seat not in self.signed.seats_in_play:
            return self.signed
        return replace(
            self.signed, private_seat=seat, private_events=tuple(self._private.get(seat, ()))
        )
