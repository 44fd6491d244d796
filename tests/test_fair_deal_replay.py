"""Check 4: whole deals played by the rules engine and the greedy move generator, replayed."""

from __future__ import annotations

import dataclasses
import random

import pytest

from scala40_net.fairdeal.chain import chain_head
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.fairdeal.played import EngineDeal
from scala40_net.fairdeal.record import parse_deal_event
from scala40_net.fairdeal.rehearsal import Rehearsal
from scala40_net.fairdeal.replay import replay_deal
from scala40_net.fairdeal.verify import VerificationFailed, verify_record
from scala40_net.pb import cards_pb2, deal_pb2, ruleset_pb2

IDENTITY = HostIdentity.from_private_bytes(bytes(range(2, 34)))


def engine_deal(
    n: int, seats: tuple[int, ...], preset: int = ruleset_pb2.PRESET_CLASSIC
) -> EngineDeal:
    rng = random.Random(n)
    return EngineDeal(
        table_id=f"engine-{n}",
        deal_no=n + 1,
        seats_in_play=seats,
        dealer=rng.choice(seats),
        identity=IDENTITY,
        preset=preset,
        host_seed=rng.randbytes(32),
        seat_seeds={s: rng.randbytes(32) for s in seats},
    )


@pytest.mark.parametrize("n", range(6))
def test_an_engine_played_deal_verifies_with_the_replay(n: int) -> None:
    seats = ((0, 1), (0, 1, 2, 3), (0, 2, 3, 5))[n % 3]
    rehearsal = engine_deal(
        n, seats, (ruleset_pb2.PRESET_CLASSIC, ruleset_pb2.PRESET_SEMPLICE)[n % 2]
    )
    record = rehearsal.run_engine()
    for seat in (None, *seats):
        mine = rehearsal.recorder.record_for(seat)
        seed = None if seat is None else rehearsal.seats[seat].seed
        verified = verify_record(mine, seat=seat, my_seed=seed, replayer=replay_deal)
        assert verified.replay.startswith("ok, ")
    outcome = parse_deal_event(record.events[-2]).ended.outcome
    assert outcome in (deal_pb2.DEAL_OUTCOME_WENT_OUT, deal_pb2.DEAL_OUTCOME_VOID)


def test_a_meld_the_rules_refuse_is_caught_by_the_replay_only() -> None:
    # Fixed seeds: a deal whose last player holds three cards of three suits and ranks at
    # the end (a deal of random seeds may leave it fewer).
    rng = random.Random(7)
    rehearsal = Rehearsal(
        turns=30,
        identity=IDENTITY,
        host_seed=rng.randbytes(32),
        seat_seeds={s: rng.randbytes(32) for s in (0, 1, 2, 3)},
    )
    record = rehearsal.run().signed
    events = [parse_deal_event(e) for e in record.events]
    kinds = [e.WhichOneof("event") for e in events]
    ended = events[kinds.index("ended")].ended
    index = max(i for i, k in enumerate(kinds) if k == "played")
    seat = events[index].played.seat
    # Three cards the seat still holds at the end, laid in its last turn as a "meld"
    # they do not make (no two share a suit or a rank): the cards add up, the rules do not.
    shown = next(h for h in ended.hands if h.seat == seat)
    cards: list[int] = []
    for card in sorted(shown.cards):
        if all(card % 13 != c % 13 and card % 54 // 13 != c % 54 // 13 for c in cards):
            cards.append(card)
    cards = cards[:3]
    assert len(cards) == 3
    events[index].played.operations.add(new_meld=cards_pb2.NewMeld(cards=cards))
    kept = [c for c in shown.cards if c not in cards]
    del shown.cards[:]
    shown.cards.extend(kept)
    changed = [e.SerializeToString() for e in events]
    head = chain_head(record.table_id, record.deal_no, changed)
    cheated = dataclasses.replace(
        record,
        events=tuple(changed),
        signature=IDENTITY.sign_record(record.table_id, record.deal_no, head),
    )
    verify_record(cheated)  # the cards were the seat's: checks 1-3 pass
    with pytest.raises(VerificationFailed) as caught:
        verify_record(cheated, replayer=replay_deal)
    assert (caught.value.check, caught.value.event_index) == ("replay", index)
