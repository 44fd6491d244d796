"""Write tests/vectors/fair_deal_v1.json, the known answers of docs/FAIR_DEAL.md.

Run from the repository root: ``.venv/bin/python tests/vectors/make_fair_deal_v1.py``.
Every input is fixed (seeds are SHA-256 of a label), so the file only changes
when the specification does; tests/test_fair_deal_vectors.py recomputes it.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from scala40_net import wire
from scala40_net.fairdeal.chain import chain_start, chain_step, record_message
from scala40_net.fairdeal.identity import HostIdentity, fingerprint
from scala40_net.fairdeal.record import parse_deal_event, parse_private_event
from scala40_net.fairdeal.spec import (
    Reveal,
    Stream,
    cutter_seat,
    derive_deal,
    host_commitment,
    rebuild_key,
    rebuild_stock,
    seat_commitment,
    sha256,
)
from scala40_net.pb import deal_pb2

OUT = Path(__file__).with_name("fair_deal_v1.json")
# A real deal with a stock rebuild, recorded once by record_deal_with_rebuild.py.
# A real deal with runs cut by an attach (R4.6), by record_deal_with_cut_runs.py.
RECORDED = [
    ("a real 2-seat, 1-deck deal with a stock rebuild", "recorded_deal_rebuild.json"),
    ("a real 2-seat, 2-deck deal with runs cut (max_run 5)", "recorded_deal_cut_runs.json"),
]
# The file's shape (docs/PROTOCOL.md "Versions"): 2 since hands became an array; a new
# shape is a new number, and the change log says how long the older file is kept.
FORMAT = 2
STREAM_WORDS = 16


def label_seed(label: str) -> bytes:
    return sha256(label.encode("ascii"))


CASES: list[dict[str, Any]] = [
    # name, table, deal_no, deck size, table seats in play, dealer, cut of the cutter,
    # seats whose reveal is left out, rebuild discard pile (bottom first)
    {
        "name": "2 seats, 1 deck",
        "table_id": "t-2p-1d",
        "deal_no": 1,
        "deck_size": 54,
        "seats_in_play": [0, 1],
        "dealer": 0,
        "cut": 17,
        "left_out": [],
    },
    {
        "name": "2 seats, 2 decks",
        "table_id": "t-2p-2d",
        "deal_no": 2,
        "deck_size": 108,
        "seats_in_play": [0, 1],
        "dealer": 1,
        "cut": 54,
        "left_out": [],
    },
    {
        "name": "4 seats, 2 decks",
        "table_id": "t-4p",
        "deal_no": 7,
        "deck_size": 108,
        "seats_in_play": [0, 1, 2, 3],
        "dealer": 2,
        "cut": 1,
        "left_out": [],
    },
    {
        "name": "6 seats, 2 decks",
        "table_id": "t-6p",
        "deal_no": 12,
        "deck_size": 108,
        "seats_in_play": [0, 1, 2, 3, 4, 5],
        "dealer": 5,
        "cut": 107,
        "left_out": [],
    },
    {
        "name": "4 of 6 seats, cutter and one more left out: derived cut",
        "table_id": "t-derived",
        "deal_no": 3,
        "deck_size": 108,
        "seats_in_play": [0, 2, 3, 5],
        "dealer": 0,
        "cut": 40,
        "left_out": [5, 2],
    },
]


def build_case(case: dict[str, Any]) -> dict[str, Any]:
    table_id, deal_no, size = case["table_id"], case["deal_no"], case["deck_size"]
    seats, dealer = case["seats_in_play"], case["dealer"]
    cutter = cutter_seat(dealer, seats)
    host_seed = label_seed(f"{table_id}/host")
    seat_values = []
    reveals = []
    for seat in seats:
        seed = label_seed(f"{table_id}/seat{seat}")
        cut = case["cut"] if seat == cutter else 0
        seat_values.append(
            {
                "seat": seat,
                "seed": seed.hex(),
                "cut": cut,
                "commitment": seat_commitment(table_id, deal_no, seat, seed, cut).hex(),
                "in_mix": seat not in case["left_out"],
            }
        )
        if seat not in case["left_out"]:
            reveals.append(Reveal(seat, seed, cut))
    derivation = derive_deal(
        host_seed=host_seed,
        table_id=table_id,
        deal_no=deal_no,
        dealer=dealer,
        cutter=cutter,
        seats_in_play=seats,
        deck_size=size,
        reveals=reveals,
    )
    stream = Stream(derivation.mix_key)
    words = [stream.next_word() for _ in range(STREAM_WORDS)]
    # A discard pile as play might leave it: the first discard, then the stock's first 30 cards.
    pile = [derivation.dealt.first_discard, *derivation.dealt.stock[:30]]
    return {
        "name": case["name"],
        "input": {
            "table_id": table_id,
            "deal_no": deal_no,
            "deck_size": size,
            "seats_in_play": seats,
            "dealer": dealer,
            "host_seed": host_seed.hex(),
            "seats": seat_values,
        },
        "cutter": cutter,
        "host_commitment": host_commitment(table_id, deal_no, host_seed).hex(),
        "mix_key": derivation.mix_key.hex(),
        "stream_words": words,
        "shuffled": derivation.shuffled,
        "cut": derivation.cut,
        "cut_chosen": derivation.cut_chosen,
        "deck": derivation.deck,
        # An array in dealing order: JSON readers (JavaScript's among them) need not keep the
        # order of an object's keys, and reorder integer-like ones.
        "hands": [{"seat": seat, "cards": hand} for seat, hand in derivation.dealt.hands.items()],
        "first_discard": derivation.dealt.first_discard,
        "stock": derivation.dealt.stock,
        "rebuild": {
            "rebuild_no": 1,
            "discard_pile": pile,
            "rebuild_key": rebuild_key(derivation.mix_key, 1).hex(),
            "stock": rebuild_stock(derivation.mix_key, 1, pile),
        },
    }


def build_recorded(name: str, file_name: str) -> dict[str, Any]:
    """The known answers of a recorded deal: everything derived from its public events.

    The record is kept as the host wrote it (``record``); the answers follow the
    deal event by event, so a verifier can find the first place it disagrees.
    """
    record = json.loads(Path(__file__).with_name(file_name).read_text(encoding="utf-8"))
    table_id, deal_no = record["table_id"], record["deal_no"]
    raw = [base64.b64decode(e) for e in record["events"]]
    events = [parse_deal_event(e) for e in raw]
    announced = events[0].announced
    revealed = next(e.reveals for e in events if e.WhichOneof("event") == "reveals")
    host_seed = next(
        e.host_seed_revealed.host_seed
        for e in events
        if e.WhichOneof("event") == "host_seed_revealed"
    )
    seats = list(announced.seats_in_play)
    derivation = derive_deal(
        host_seed=host_seed,
        table_id=table_id,
        deal_no=deal_no,
        dealer=announced.dealer_seat,
        cutter=announced.cutter_seat,
        seats_in_play=seats,
        deck_size=announced.deck_size,
        reveals=[Reveal(r.seat, r.seed, r.cut) for r in revealed.reveals],
    )
    heads = [chain_start(table_id, deal_no)]
    for event_bytes in raw:
        heads.append(chain_step(heads[-1], event_bytes))
    # Follow the stock and the discard pile (bottom first) through the deal.
    stock = list(derivation.dealt.stock)
    pile = [derivation.dealt.first_discard]
    stock_draws: list[dict[str, int]] = []
    rebuilds: list[dict[str, Any]] = []
    for k, event in enumerate(events):
        kind = event.WhichOneof("event")
        if kind == "drawn" and event.drawn.source == deal_pb2.DRAW_SOURCE_STOCK:
            stock_draws.append({"event": k, "seat": event.drawn.seat, "card": stock.pop(0)})
        elif kind == "drawn":
            pile.pop()
        elif kind == "discard_returned":
            pile.append(event.discard_returned.card)
        elif kind == "played" and event.played.HasField("discard"):
            pile.append(event.played.discard)
        elif kind == "stock_rebuilt":
            r = event.stock_rebuilt.rebuild_no
            stock = rebuild_stock(derivation.mix_key, r, pile)
            rebuilds.append(
                {
                    "event": k,
                    "rebuild_no": r,
                    "discard_pile": list(pile),
                    "rebuild_key": rebuild_key(derivation.mix_key, r).hex(),
                    "stock": list(stock),
                }
            )
            pile = pile[-1:]
    # The melds on the table by number after every play, as the engine reads the events
    # (cut runs included: R4.6, docs/PROTOCOL.md "A turn").
    reader = wire.DealEventReader()
    melds_after: list[dict[str, Any]] = []
    for k, event in enumerate(events):
        reader.read(event)
        if event.WhichOneof("event") == "played" and event.played.operations:
            table = [{"meld_id": i + 1, "cards": list(m.cards)} for i, m in enumerate(reader.table)]
            melds_after.append({"event": k, "melds": table})
    private = record["private"]
    hand_dealt = next(
        list(p.hand_dealt.cards)
        for p in (parse_private_event(base64.b64decode(e["event"])) for e in private["events"])
        if p.WhichOneof("event") == "hand_dealt"
    )
    return {
        "name": name,
        "record": record,
        "host_commitment": announced.host_commitment.hex(),
        "mix_key": derivation.mix_key.hex(),
        "shuffled": derivation.shuffled,
        "cut": derivation.cut,
        "cut_chosen": derivation.cut_chosen,
        "deck": derivation.deck,
        "hands": [{"seat": seat, "cards": hand} for seat, hand in derivation.dealt.hands.items()],
        "first_discard": derivation.dealt.first_discard,
        "stock": derivation.dealt.stock,
        "private_seat": private["seat"],
        "hand_dealt": hand_dealt,
        "stock_draws": stock_draws,
        "rebuilds": rebuilds,
        "melds_after": melds_after,
        "chain_heads": [h.hex() for h in heads],
    }


def build_signed_chain() -> dict[str, Any]:
    """A chain over three arbitrary event byte strings, signed by a fixed Ed25519 key."""
    table_id, deal_no = "t-4p", 7
    private_key = label_seed("host identity")
    identity = HostIdentity.from_private_bytes(private_key)
    events = [b"", b"\x00\x01\x02", "scala40 é".encode()]
    heads = [chain_start(table_id, deal_no)]
    for event_bytes in events:
        heads.append(chain_step(heads[-1], event_bytes))
    message = record_message(table_id, deal_no, heads[-1])
    return {
        "table_id": table_id,
        "deal_no": deal_no,
        "events": [e.hex() for e in events],
        "heads": [h.hex() for h in heads],
        "ed25519_private_key": private_key.hex(),
        "public_key": identity.public_key.hex(),
        "fingerprint": fingerprint(identity.public_key),
        "signed_message": message.hex(),
        "signature": identity.sign_record(table_id, deal_no, heads[-1]).hex(),
    }


def build() -> dict[str, Any]:
    return {
        "version": "scala40/fair-deal/v1",
        "format": FORMAT,
        "about": "Known answers of docs/FAIR_DEAL.md; see its section 'Test vectors'.",
        "deals": [build_case(case) for case in CASES],
        "recorded_deals": [build_recorded(name, file_name) for name, file_name in RECORDED],
        "signed_chain": build_signed_chain(),
    }


def main() -> None:
    OUT.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
