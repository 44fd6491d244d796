"""Known-answer vectors (tests/vectors/fair_deal_v1.json), every value recomputed from the spec."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from scala40_net.fairdeal.chain import chain_start, chain_step, record_message
from scala40_net.fairdeal.identity import HostIdentity, fingerprint, verify_record_signature
from scala40_net.fairdeal.record import DealRecord, parse_deal_event, parse_private_event
from scala40_net.fairdeal.replay import replay_deal
from scala40_net.fairdeal.spec import (
    Reveal,
    Stream,
    cut,
    cutter_seat,
    deal_cards,
    deal_order,
    derive_deal,
    host_commitment,
    rebuild_key,
    rebuild_stock,
    seat_commitment,
)
from scala40_net.fairdeal.verify import verify_record

VECTORS = json.loads((Path(__file__).parent / "vectors" / "fair_deal_v1.json").read_text())
DEALS: list[dict[str, Any]] = VECTORS["deals"]


def test_vectors_cover_two_four_and_six_seats_both_deck_sizes_and_a_derived_cut() -> None:
    shapes = {(len(d["input"]["seats_in_play"]), d["input"]["deck_size"]) for d in DEALS}
    assert {(2, 54), (2, 108), (4, 108), (6, 108)} <= shapes
    assert any(not d["cut_chosen"] for d in DEALS)


@pytest.mark.parametrize("case", DEALS, ids=[d["name"] for d in DEALS])
def test_deal_vector(case: dict[str, Any]) -> None:
    given = case["input"]
    table_id, deal_no, size = given["table_id"], given["deal_no"], given["deck_size"]
    seats, dealer = given["seats_in_play"], given["dealer"]
    host_seed = bytes.fromhex(given["host_seed"])

    assert cutter_seat(dealer, seats) == case["cutter"]
    assert host_commitment(table_id, deal_no, host_seed).hex() == case["host_commitment"]
    reveals = []
    for seat in given["seats"]:
        seed = bytes.fromhex(seat["seed"])
        commitment = seat_commitment(table_id, deal_no, seat["seat"], seed, seat["cut"])
        assert commitment.hex() == seat["commitment"]
        if seat["in_mix"]:
            reveals.append(Reveal(seat["seat"], seed, seat["cut"]))

    derivation = derive_deal(
        host_seed=host_seed,
        table_id=table_id,
        deal_no=deal_no,
        dealer=dealer,
        cutter=case["cutter"],
        seats_in_play=seats,
        deck_size=size,
        reveals=reveals,
    )
    assert derivation.mix_key.hex() == case["mix_key"]
    stream = Stream(derivation.mix_key)
    assert [stream.next_word() for _ in case["stream_words"]] == case["stream_words"]
    assert derivation.shuffled == case["shuffled"]
    assert (derivation.cut, derivation.cut_chosen) == (case["cut"], case["cut_chosen"])
    assert cut(case["shuffled"], case["cut"]) == case["deck"] == derivation.deck
    dealt = deal_cards(case["deck"], dealer, seats)
    assert [{"seat": s, "cards": h} for s, h in dealt.hands.items()] == case["hands"]
    # Dealing order: the first seat after the dealer first (R2.3).
    assert [h["seat"] for h in case["hands"]] == list(deal_order(dealer, seats))
    assert dealt.first_discard == case["first_discard"]
    assert dealt.stock == case["stock"]

    rebuild = case["rebuild"]
    assert rebuild_key(derivation.mix_key, rebuild["rebuild_no"]).hex() == rebuild["rebuild_key"]
    assert (
        rebuild_stock(derivation.mix_key, rebuild["rebuild_no"], rebuild["discard_pile"])
        == (rebuild["stock"])
    )


def test_stream_words_are_the_hmac_blocks_read_big_endian() -> None:
    # Written out with hashlib/hmac directly, as a verifier in another language would.
    import hmac

    case = DEALS[0]
    key = bytes.fromhex(case["mix_key"])
    block0 = hmac.new(key, b"scala40/fair-deal/v1/stream" + bytes(8), hashlib.sha256).digest()
    block1 = hmac.new(key, b"scala40/fair-deal/v1/stream" + (1).to_bytes(8, "big"), "sha256")
    raw = block0 + block1.digest()
    words = [int.from_bytes(raw[i : i + 4], "big") for i in range(0, 64, 4)]
    assert words == case["stream_words"]


def test_derived_cut_is_one_plus_the_next_uniform_after_the_shuffle() -> None:
    case = next(d for d in DEALS if not d["cut_chosen"])
    assert 1 <= case["cut"] <= case["input"]["deck_size"] - 1
    assert case["cutter"] not in {s["seat"] for s in case["input"]["seats"] if s["in_mix"]}


def test_signed_chain_vector() -> None:
    chain = VECTORS["signed_chain"]
    table_id, deal_no = chain["table_id"], chain["deal_no"]
    manual_h0 = hashlib.sha256(
        b"scala40/fair-deal/v1/log"
        + len(table_id).to_bytes(4, "big")
        + table_id.encode()
        + deal_no.to_bytes(4, "big")
    ).hexdigest()
    assert chain_start(table_id, deal_no).hex() == chain["heads"][0] == manual_h0
    for k, event_hex in enumerate(chain["events"], start=1):
        head = chain_step(bytes.fromhex(chain["heads"][k - 1]), bytes.fromhex(event_hex))
        assert head.hex() == chain["heads"][k]
    last = bytes.fromhex(chain["heads"][-1])
    assert record_message(table_id, deal_no, last).hex() == chain["signed_message"]
    identity = HostIdentity.from_private_bytes(bytes.fromhex(chain["ed25519_private_key"]))
    assert identity.public_key.hex() == chain["public_key"]
    assert fingerprint(identity.public_key) == chain["fingerprint"]
    # Ed25519 signatures are deterministic (RFC 8032), so the signature is a known answer too.
    assert identity.sign_record(table_id, deal_no, last).hex() == chain["signature"]
    assert verify_record_signature(
        identity.public_key, table_id, deal_no, last, bytes.fromhex(chain["signature"])
    )


def test_the_committed_vectors_are_what_the_generator_writes() -> None:
    import importlib.util

    path = Path(__file__).parent / "vectors" / "make_fair_deal_v1.py"
    spec = importlib.util.spec_from_file_location("make_fair_deal_v1", path)
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    assert generator.build() == VECTORS


RECORDED: list[dict[str, Any]] = VECTORS["recorded_deals"]


def test_a_recorded_deal_with_a_stock_rebuild_is_in_the_vectors() -> None:
    assert any(case["rebuilds"] for case in RECORDED)


def test_the_vectors_say_their_format() -> None:
    # docs/PROTOCOL.md "Versions": format 2 since hands became an array of {seat, cards}.
    assert VECTORS["format"] == 2
    assert all(isinstance(d["hands"], list) for d in DEALS + RECORDED)


def _played(case: dict[str, Any]) -> list[tuple[int, Any]]:
    events = [parse_deal_event(base64.b64decode(e)) for e in case["record"]["events"]]
    return [(k, e.played) for k, e in enumerate(events) if e.WhichOneof("event") == "played"]


def _numbered_as_documented(case: dict[str, Any]) -> dict[int, dict[int, int]]:
    """The melds' numbers and sizes after each play, from the public events alone.

    docs/PROTOCOL.md "A turn": numbers from 1 in the order melds come onto the table; a
    new meld cut into k runs (its applied split) takes k numbers, an attach cut into k
    runs keeps its number for the lowest and gives the others the next k-1; a swap takes
    none; new_meld_ids lists the numbers the play took, in that order.
    """
    sizes: dict[int, int] = {}
    after: dict[int, dict[int, int]] = {}
    for k, played in _played(case):
        took: list[int] = []
        for op in played.operations:
            kind = op.WhichOneof("operation")
            if kind == "new_meld":
                runs = list(op.new_meld.split) or [len(op.new_meld.cards)]
                assert sum(runs) == len(op.new_meld.cards)
                ids = [len(sizes) + 1 + i for i in range(len(runs))]
            elif kind == "attach":
                grown = sizes[op.attach.meld_id] + len(op.attach.cards)
                runs = list(op.attach.split) or [grown]
                assert sum(runs) == grown
                ids = [op.attach.meld_id] + [len(sizes) + 1 + i for i in range(len(runs) - 1)]
            else:
                assert op.swap_joker.meld_id in sizes
                continue
            sizes.update(zip(ids, runs, strict=True))
            took += ids[1:] if kind == "attach" else ids
        assert list(played.new_meld_ids) == took
        if played.operations:
            after[k] = dict(sizes)
    return after


@pytest.mark.parametrize("case", RECORDED, ids=[d["name"] for d in RECORDED])
def test_meld_numbers_follow_the_documented_rule_through_cut_runs(case: dict[str, Any]) -> None:
    expected = {
        m["event"]: {meld["meld_id"]: len(meld["cards"]) for meld in m["melds"]}
        for m in case["melds_after"]
    }
    assert _numbered_as_documented(case) == expected


def test_a_recorded_deal_cuts_a_run_and_names_the_run_cut_off_later() -> None:
    cut = next(c for c in RECORDED if "cut" in c["name"])
    attaches = [
        (k, op.attach) for k, p in _played(cut) for op in p.operations if op.HasField("attach")
    ]
    k, split_attach = next((k, a) for k, a in attaches if len(a.split) > 1)
    cut_off = {p.new_meld_ids[-1] for j, p in _played(cut) if j == k}
    later = [
        getattr(op, op.WhichOneof("operation")).meld_id
        for j, p in _played(cut)
        if j > k
        for op in p.operations
        if not op.HasField("new_meld")
    ]
    assert split_attach.split and cut_off & set(later)


@pytest.mark.parametrize("case", RECORDED, ids=[d["name"] for d in RECORDED])
def test_recorded_deal_vector(case: dict[str, Any]) -> None:
    record = DealRecord.from_json(json.dumps(case["record"]))
    # The record verifies as the host signed it, with its seat's own private events.
    verify_record(record, host_fingerprint=record.host_fingerprint, replayer=replay_deal)
    heads = [chain_start(record.table_id, record.deal_no)]
    for event_bytes in record.events:
        heads.append(chain_step(heads[-1], event_bytes))
    assert [h.hex() for h in heads] == case["chain_heads"]
    assert heads[-1].hex() == case["record"]["chain_head"]
    assert verify_record_signature(
        record.host_public_key, record.table_id, record.deal_no, heads[-1], record.signature
    )

    announced = parse_deal_event(record.events[0]).announced
    assert announced.host_commitment.hex() == case["host_commitment"]
    assert case["hands"][0]["seat"] == deal_order(announced.dealer_seat, record.seats_in_play)[0]
    dealt = deal_cards(case["deck"], announced.dealer_seat, record.seats_in_play)
    assert [{"seat": s, "cards": h} for s, h in dealt.hands.items()] == case["hands"]
    assert cut(case["shuffled"], case["cut"]) == case["deck"]
    assert (dealt.first_discard, dealt.stock) == (case["first_discard"], case["stock"])

    # The seat's own cards, as it was sent them, are the ones the vector derives.
    private = [parse_private_event(p.event) for p in record.private_events]
    assert record.private_seat == case["private_seat"]
    assert [list(p.hand_dealt.cards) for p in private if p.HasField("hand_dealt")] == [
        case["hand_dealt"]
    ]
    mine = [d["card"] for d in case["stock_draws"] if d["seat"] == record.private_seat]
    assert [p.stock_card_drawn.card for p in private if p.HasField("stock_card_drawn")] == mine
    for rebuild in case["rebuilds"]:
        key = bytes.fromhex(case["mix_key"])
        assert rebuild_key(key, rebuild["rebuild_no"]).hex() == rebuild["rebuild_key"]
        assert (
            rebuild_stock(key, rebuild["rebuild_no"], rebuild["discard_pile"]) == (rebuild["stock"])
        )
        event = parse_deal_event(record.events[rebuild["event"]])
        assert event.stock_rebuilt.stock_count == len(rebuild["stock"])


def test_the_record_options_name_every_ruleset_option() -> None:
    # FAIR_DEAL.md "Record file": a host's record lists every option in force, by field name.
    from scala40_net.pb import ruleset_pb2

    for case in RECORDED:
        names = set(case["record"]["ruleset"]["options"])
        assert names == {f.name for f in ruleset_pb2.RulesetOptions.DESCRIPTOR.fields}


@pytest.mark.parametrize(
    ("laid", "split", "runs"),
    [("3H 4H 5H 6H 7H 8H", (), [3, 3]), ("3H 4H 5H 6H 7H 8H 9H", (3, 4), [3, 4])],
)
def test_a_new_meld_cut_into_k_runs_takes_k_numbers(
    laid: str, split: tuple[int, ...], runs: list[int]
) -> None:
    # The one case no recorded deal may hold: PROTOCOL.md "A turn", RULES.md S5.
    from scala40_net import wire
    from scala40_net.actions import NewMeld, Play
    from scala40_net.deal import Phase, apply
    from scala40_net.events import Played
    from scala40_net.rules import Ruleset
    from scala40_net.scenario import CardPool, position

    state = position(
        Ruleset(max_run=5),
        hands={0: f"{laid} 2C 9D", 1: "3C 4C"},
        table=["QS KS AS"],
        opened=[0],
        turn=0,
        phase=Phase.PLAY,
    )
    cards = [c for c in state.hands[0] if c in CardPool(2).cards(laid)]
    discard = next(c for c in state.hands[0] if c not in cards)
    _, events = apply(state, 0, Play((NewMeld(tuple(cards), None, split),), discard))
    played = next(e for e in events if isinstance(e, Played))
    message = wire.deal_event_to_pb(played, "t", 1).played
    assert list(message.new_meld_ids) == [2 + i for i in range(len(runs))]
    assert list(message.operations[0].new_meld.split) == runs  # filled in when not sent
