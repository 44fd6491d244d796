"""Private-table benchmark: the 4-seat shuffle chain, a hand opened, a draw, the bytes a player
gets; beside an ordinary table's fair deal (derive, shuffle, cut, deal) in the same run.

Run with ``make bench`` or ``.venv/bin/python bench/bench_private.py``. Each seat runs on
its own machine in play, so a step's added time is its critical path: the shuffles one after
another, each proved by its seat and checked by the next (the others check at the same
time); the shares of a card made by the other seats at once and checked by its owner.
Here every part runs on one core of this process, and the critical path is their sum.
Targets (docs/PRIVATE_TABLES.md): ≤ 1.5 s added to a 4-player deal, ≤ 20 ms a draw,
~50 KB a player a deal (what it sends: "Bytes on the wire" there).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

from scala40_net.fairdeal.spec import Reveal, derive_deal
from scala40_net.private.local import long_deal
from scala40_net.private.messages import Ed25519Signer, Envelope
from scala40_net.private.protocol import DealSetup, PrivateSeat

SEATS = (0, 1, 2, 3)
DEALS = 9
#: A long deal's public traffic: draws from the stock, cards laid or discarded by their owner.
DRAWS = 40
PUBLIC_OPENINGS = 60


class Took:
    """A wall-clock time and this process's CPU time, in ms; they add up part by part."""

    def __init__(self, wall: float = 0.0, cpu: float = 0.0) -> None:
        self.wall, self.cpu = wall, cpu

    def __add__(self, other: Took) -> Took:
        return Took(self.wall + other.wall, self.cpu + other.cpu)


def clock(work: Callable[[], object]) -> Took:
    wall, cpu = time.perf_counter_ns(), time.process_time_ns()
    work()
    return Took((time.perf_counter_ns() - wall) / 1e6, (time.process_time_ns() - cpu) / 1e6)


def slowest(items: list[Took]) -> Took:
    return max(items, key=lambda t: t.wall)


def summary(samples: list[Took]) -> str:
    """Median and p99 of the wall-clock times, and the median CPU time beside them."""
    ordered = sorted(t.wall for t in samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    cpu = statistics.median(t.cpu for t in samples)
    return (f"median {statistics.median(ordered):.1f} ms, p99 {p99:.1f} ms, CPU median "
            f"{cpu:.1f} ms ({len(ordered)} runs)")


def seats_for(deal_no: int) -> tuple[DealSetup, dict[int, PrivateSeat], dict[int, bytes]]:
    setup = DealSetup("bench-private", deal_no, SEATS, dealer=0)
    signers = {s: Ed25519Signer() for s in SEATS}
    keys = {s: signers[s].public_key() for s in SEATS}
    return setup, {s: PrivateSeat(setup, s, signers[s], keys) for s in SEATS}, keys


def relay_to(seats: dict[int, PrivateSeat], author: int, message: bytes,
             timed_reader: int | None = None) -> Took:
    """Hand ``message`` to every other seat; the time ``timed_reader`` took to check it."""
    spent = Took()
    for seat, player in seats.items():
        if seat == author:
            continue
        took = clock(lambda p=player: p.receive(message))
        if seat == timed_reader:
            spent = took
    return spent


def shuffle_chain(deal_no: int) -> tuple[Took, Took, dict[int, PrivateSeat], DealSetup]:
    """One deal's keys, four shuffles and the cut: (critical path, one seat's CPU) in ms."""
    setup, seats, _ = seats_for(deal_no)
    order = setup.shuffle_order
    # Keys: every seat makes its own at once, then checks the three others'.
    made_keys = []
    checks = {s: Took() for s in SEATS}
    for seat in SEATS:
        message = b""

        def make(s: int = seat) -> None:
            nonlocal message
            message = seats[s].key_message()

        made_keys.append(clock(make))
        for reader in SEATS:
            if reader != seat:
                checks[reader] += clock(lambda r=reader, m=message: seats[r].receive(m))
    path = slowest(made_keys) + slowest(list(checks.values()))
    cpu_seat_0 = made_keys[0] + checks[0]
    for index, seat in enumerate(order):
        message = b""

        def shuffle(s: int = seat) -> None:
            nonlocal message
            message = seats[s].shuffle_message()

        proved = clock(shuffle)
        reader = order[(index + 1) % len(order)]
        checked = relay_to(seats, seat, message, timed_reader=reader)
        path += proved + checked
        cpu_seat_0 += proved if seat == 0 else checked
    cutter = setup.cutter
    message = seats[cutter].cut_message(31)
    relay_to(seats, cutter, message)
    return path, cpu_seat_0, seats, setup


def overlapped_chain(deal_no: int, pool: ThreadPoolExecutor) -> Took:
    """The same chain, each seat checking the shuffle before its own on a second thread
    while it makes its own (``PrivateSeat.shuffle_after``): the first proof, three
    shuffles-while-checking, and the last shuffle's check (the keys, ≈ 1 ms, not timed)."""
    setup, seats, _ = seats_for(deal_no)
    order = setup.shuffle_order
    for seat in SEATS:
        message = seats[seat].key_message()
        for reader in SEATS:
            if reader != seat:
                seats[reader].receive(message)
    message = b""

    def first() -> None:
        nonlocal message
        message = seats[order[0]].shuffle_message()

    path = clock(first)
    for author, after in pairwise(order):
        for reader in SEATS:
            if reader not in (author, after):
                seats[reader].receive(message)
        incoming = message

        def next_shuffle(s: int = after, m: bytes = incoming) -> None:
            nonlocal message
            message = seats[s].shuffle_after(m, pool)

        path += clock(next_shuffle)
    path += relay_to(seats, order[-1], message, timed_reader=setup.cutter)
    return path


def hand_opening(seats: dict[int, PrivateSeat], setup: DealSetup, owner: int) -> Took:
    """The 13 cards of ``owner``: the slowest other seat's shares, then the owner's check."""
    positions = setup.positions.hands[owner]
    made = []
    messages = []
    for seat in SEATS:
        if seat == owner:
            continue
        message = b""

        def make(s: int = seat) -> None:
            nonlocal message
            message = seats[s].shares_message(0, positions, owner)

        made.append(clock(make))
        messages.append((seat, message))
    checked = Took()
    for seat, message in messages:
        checked += relay_to(seats, seat, message, timed_reader=owner)
    read = clock(lambda: [seats[owner].read_card(0, p) for p in positions])
    return slowest(made) + checked + read


def one_draw(seats: dict[int, PrivateSeat], setup: DealSetup, position: int,
             drawer: int) -> Took:
    made = []
    messages = []
    for seat in SEATS:
        if seat == drawer:
            continue
        message = b""

        def make(s: int = seat) -> None:
            nonlocal message
            message = seats[s].shares_message(0, [position], drawer)

        made.append(clock(make))
        messages.append((seat, message))
    checked = Took()
    for seat, message in messages:
        checked += relay_to(seats, seat, message, timed_reader=drawer)
    return slowest(made) + checked + clock(lambda: seats[drawer].read_card(0, position))


def wire_bytes() -> tuple[dict[int, int], dict[int, int], dict[str, int]]:
    """Bytes each player receives and sends over one long deal, and the size of each message."""
    deal = long_deal(DealSetup("bench-wire", 1, SEATS, dealer=0), DRAWS, PUBLIC_OPENINGS)
    sizes: dict[str, int] = {}
    for message in deal.transcript:
        sizes.setdefault(Envelope.parse(message).kind.name, len(message))
    return deal.received, deal.sent, sizes


def main() -> None:
    load = os.getloadavg()[0]
    print(f"private tables: {os.cpu_count()} cores, load average {load:.1f} at the start; "
          "every proof made and checked")
    reveals = [Reveal(s, os.urandom(32), 57 if s == 3 else 0) for s in SEATS]
    host_seed = os.urandom(32)
    ordinary = [
        clock(lambda: derive_deal(host_seed=host_seed, table_id="bench", deal_no=1, dealer=0,
                                  cutter=3, seats_in_play=SEATS, deck_size=108,
                                  reveals=reveals))
        for _ in range(300)
    ]
    print(f"ordinary table (baseline): fair deal derive+shuffle+cut+deal, 108 cards, "
          f"4 seats: {summary(ordinary)}")
    paths, cpus, hands, draws, overlapped = [], [], [], [], []
    pool = ThreadPoolExecutor(max_workers=1)
    for deal_no in range(DEALS):
        overlapped.append(overlapped_chain(100 + deal_no, pool))
        path, cpu, seats, setup = shuffle_chain(deal_no)
        paths.append(path)
        cpus.append(cpu)
        hands.append(hand_opening(seats, setup, 1))
        for k in range(4):
            draws.append(one_draw(seats, setup, setup.positions.stock[k], SEATS[k]))
    print(f"private: keys + 4-seat shuffle chain (prove + check, in turn) + cut, 108 cards: "
          f"{summary(paths)}; target ≤ 1500 ms added to a 4-player deal")
    print(f"private: the 4 shuffles + cut, each seat checking the shuffle before its own "
          f"while it makes its own (2 threads; the keys not counted): {summary(overlapped)}")
    print(f"private: one seat's CPU for the keys and the chain (1 proof made, 3 checked): "
          f"{summary(cpus)}")
    print(f"private: a 13-card hand opened to its seat (3 seats' shares made at once, "
          f"39 checked): {summary(hands)}")
    print(f"private: a draw (3 shares made at once, checked by the drawer, the card read): "
          f"{summary(draws)}; target ≤ 20 ms, loopback relay not included")
    received, sent, sizes = wire_bytes()
    print(f"private: bytes a player receives over a deal of {DRAWS} draws and "
          f"{PUBLIC_OPENINGS} cards laid or discarded: "
          f"{statistics.median(received.values()) / 1000:.1f} KB (median of 4 seats; it "
          f"sends {statistics.median(sent.values()) / 1000:.1f} KB); target ~50 KB sent "
          "(docs/PRIVATE_TABLES.md \"Bytes on the wire\")")
    print("private: message sizes: " + ", ".join(f"{k} {v} B" for k, v in sizes.items()))


if __name__ == "__main__":
    main()
