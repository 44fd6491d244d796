"""The bytes a player receives and sends over a deal, private table against ordinary, of
deals played to their end by four medium bots (``scala40-bot``'s seats) over a real host.

Run with ``.venv/bin/python bench/bench_private_bytes.py [DEALS]`` (8 deals a table;
``make bench`` runs it too). The host runs in this process on 127.0.0.1 (TLS); a 4-seat
private table and a 4-seat ordinary table, the classic rules (two decks, 108 cards), each
seat a ``NetworkSeat`` with a medium bot, as ``scala40-bot`` plays. A deal's bytes are
counted per seat:

- received: every message of the seat's stream between the deal's announcement and the
  next one (the host's events, the relayed private messages), as serialized protobuf;
  of them, the relayed private messages' envelopes alone, and those by kind (the other
  seats' shuffles, their shares, the rest);
- sent: the envelopes the seat signed (the deal's record's transcript, by author). The
  moves' own requests, a few dozen bytes each, are not counted, nor TLS and HTTP/2 framing.

Each deal is printed with its draws from the stock, its plays and its stock rebuilds (its
length), then the medians and the largest, beside the ~50 KB a player a deal that
docs/PRIVATE_TABLES.md "Bytes" discusses.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).parent.parent))

from scala40_net import wire
from scala40_net.bots import make_bot
from scala40_net.fairdeal.record import DealRecord
from scala40_net.net import tls
from scala40_net.pb import deal_pb2, lobby_pb2, lobby_pb2_grpc, ruleset_pb2
from scala40_net.private.messages import Envelope
from scala40_net.seat.netbot import NetworkSeat, SeatLog

DEALS = int(sys.argv[1]) if len(sys.argv) > 1 else 8
SEATS = 4


@dataclass
class Stream:
    """What one seat's stream carried of one deal."""

    received: int = 0
    relayed: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    events: list[deal_pb2.DealEvent] = field(default_factory=list)

    def count(self, kind: str) -> int:
        """The deal's public events of one kind (``drawn``: from the stock only)."""
        return sum(
            1
            for e in self.events
            if e.WhichOneof("event") == kind
            and (kind != "drawn" or e.drawn.source == deal_pb2.DRAW_SOURCE_STOCK)
        )


@dataclass
class DealBytes:
    """One seat's bytes over one deal: its stream's, and the envelopes it signed."""

    deal_no: int
    seat: int
    stream: Stream
    sent: int


def split_by_deal(log: SeatLog) -> dict[int, Stream]:
    """Each deal's stream bytes, its relayed envelopes' bytes and its public events: a
    message is the deal's its deal event or relayed message names, or the last one named
    before it (chat, presence, the match's news)."""
    deals: dict[int, Stream] = {}
    current = 0
    for data, event in zip(log.messages, log.events, strict=True):
        public = None
        if event.HasField("deal"):
            public = deal_pb2.DealEvent.FromString(event.deal.public_event)
            current = public.deal_no
        elif event.HasField("private_message"):
            current = event.private_message.deal_no
        if not current:
            continue
        stream = deals.setdefault(current, Stream())
        stream.received += len(data)
        if event.HasField("private_message") and event.private_message.envelope:
            # (Its own message comes back to a seat empty: only its place in the order.)
            envelope = event.private_message.envelope
            stream.relayed += len(envelope)
            kind = Envelope.parse(envelope).kind.name
            stream.by_kind[kind] = stream.by_kind.get(kind, 0) + len(envelope)
        if public is not None:
            stream.events.append(public)
    return deals


async def play(channel: grpc.aio.Channel, private: bool, folder: Path) -> list[DealBytes]:
    """DEALS deals of four medium bots at a new table, each seat's bytes of each."""
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    rules = ruleset_pb2.Ruleset(options=ruleset_pb2.RulesetOptions(bust_at=1000))
    created = await lobby.CreateTable(
        lobby_pb2.CreateTableRequest(
            name="bytes", seats=SEATS, ruleset=rules, private_cards=private
        )
    )
    seats: list[NetworkSeat] = []
    for n in range(SEATS):
        bot = make_bot("medium", random.Random(n))
        seat = NetworkSeat(channel, created.table_id, bot, log=SeatLog())
        seat.private_dir = folder / f"{created.table_id}-{n}"
        await seat.join(f"medium {n}")
        seats.append(seat)
    stopping = asyncio.Event()
    tasks = [asyncio.create_task(s.play_to_end(stopping)) for s in seats]
    logs = [s.log for s in seats if s.log is not None]
    try:
        await lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=created.table_id), metadata=seats[0].metadata
        )
        # DEALS deals ended at every seat, and the next one announced (its bytes end there),
        # or the match over (R11.1: out at 1000; its last deal is then counted too).
        while not all(len(log.signed) > DEALS for log in logs) and not all(
            t.done() for t in tasks
        ):
            await asyncio.sleep(0.2)
    finally:
        stopping.set()
        for task in tasks:
            task.cancel()
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    failed = [o for o in outcomes if isinstance(o, Exception)]
    if failed:
        raise RuntimeError(f"a seat failed: {failed[0]!r}") from failed[0]
    found = []
    for seat, log in zip(seats, logs, strict=True):
        split = split_by_deal(log)
        for signed in log.signed[:DEALS]:
            sent = 0
            if private:
                record = DealRecord.from_json(await seat.link.deal_record(signed.deal_no))
                sent = sum(len(m) for m in record.private_transcript
                           if Envelope.parse(m).author == seat.seat)  # fmt: skip
            found.append(DealBytes(signed.deal_no, seat.seat, split[signed.deal_no], sent))
    return found


def kb(value: float) -> str:
    return f"{value / 1000:.1f} KB"


def summary(name: str, values: list[int]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return (f"{name:<52} median {kb(statistics.median(values)):>9}  p90 {kb(p90):>9}  "
            f"largest {kb(ordered[-1]):>9}  (n={len(values)})")


async def main() -> None:
    from host.edge.server import Host
    from host.table.state import TableSettings

    with tempfile.TemporaryDirectory() as folder:
        host = Host("127.0.0.1:0", Path(folder) / "host", TableSettings(between_deals=0.0))
        await host.start()
        channel, _ = await tls.pinned_channel("127.0.0.1", host.port, host.identity.fingerprint,
                                              wire.CHANNEL_OPTIONS)  # fmt: skip
        try:
            plain = await play(channel, False, Path(folder))
            private = await play(channel, True, Path(folder))
        finally:
            await channel.close()
            await host.stop(grace=0.5)
    print(f"{DEALS} deals a table, 4 medium bots, two decks (108 cards), over a real host on "
          "127.0.0.1")
    for row in private:
        if row.seat == 0:
            print(f"  private deal {row.deal_no}: {row.stream.count('drawn')} draws from the "
                  f"stock, {row.stream.count('played')} plays, "
                  f"{row.stream.count('stock_rebuilt')} stock rebuilds")

    def each(of: Callable[[DealBytes], int], rows: list[DealBytes]) -> list[int]:
        return [of(row) for row in rows]

    print(summary("ordinary table: a player receives (its stream)",
                  each(lambda r: r.stream.received, plain)))  # fmt: skip
    print(summary("private table: a player receives (its stream)",
                  each(lambda r: r.stream.received, private)))  # fmt: skip
    print(summary("  of it, the relayed private messages",
                  each(lambda r: r.stream.relayed, private)))  # fmt: skip
    for kind in ("SHUFFLE", "SHARES"):
        print(summary(f"    of them, {kind}",
                      [r.stream.by_kind.get(kind, 0) for r in private]))  # fmt: skip
    print(summary("    of them, the rest (KEY, CUT, REVEAL, HEADS)",
                  each(lambda r: r.stream.relayed - r.stream.by_kind.get("SHUFFLE", 0)
                       - r.stream.by_kind.get("SHARES", 0), private)))  # fmt: skip
    print(summary("private table: a player sends (its signed messages)",
                  each(lambda r: r.sent, private)))  # fmt: skip
    print("target ~50 KB a player a deal, sent: docs/PRIVATE_TABLES.md \"Bytes on the wire\"")


if __name__ == "__main__":
    asyncio.run(main())
