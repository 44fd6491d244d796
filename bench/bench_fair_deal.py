"""Fair-deal benchmark: derive and deal one 108-card deck; verify a recorded 4-player deal.

Run with ``make bench`` or ``.venv/bin/python bench/bench_fair_deal.py``.
Targets: derive + deal under 1 ms median; verifying a deal under 50 ms median.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.fairdeal.played import EngineDeal
from scala40_net.fairdeal.rehearsal import Rehearsal
from scala40_net.fairdeal.replay import replay_deal
from scala40_net.fairdeal.spec import Reveal, derive_deal
from scala40_net.fairdeal.verify import verify_record
from scala40_net.pb import ruleset_pb2


def timed(runs: int, work: Callable[[], object]) -> tuple[float, float]:
    """Median and p99 in milliseconds."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        work()
        samples.append(time.perf_counter_ns() - start)
    samples.sort()
    return statistics.median(samples) / 1e6, samples[int(len(samples) * 0.99)] / 1e6


def main() -> None:
    seats = (0, 1, 2, 3)
    reveals = [Reveal(s, os.urandom(32), 57 if s == 3 else 0) for s in seats]
    host_seed = os.urandom(32)

    def derive() -> object:
        return derive_deal(
            host_seed=host_seed, table_id="bench", deal_no=1, dealer=0, cutter=3,
            seats_in_play=seats, deck_size=108, reveals=reveals,
        )  # fmt: skip

    median, p99 = timed(3000, derive)
    print(f"fair deal: derive+shuffle+cut+deal, 108 cards, 4 seats: median {median:.3f} ms, "
          f"p99 {p99:.3f} ms (3000 runs)")  # fmt: skip

    rehearsal = Rehearsal(turns=90, identity=HostIdentity.generate(), choices=1)
    record = rehearsal.run().record_for(1)
    seed = rehearsal.seats[1].seed
    for label, replayer in (("checks 1-3 only", None), ("checks 1-4 with the replay", replay_deal)):
        median, p99 = timed(
            300, lambda r=replayer: verify_record(record, seat=1, my_seed=seed, replayer=r)
        )
        print(f"fair deal: verify a recorded 4-player draw-and-discard deal "
              f"({len(record.events)} events, {rehearsal.rebuilds} rebuild), {label}: "
              f"median {median:.3f} ms, p99 {p99:.3f} ms (300 runs)")  # fmt: skip

    # A deal played to its end by the engine: melds, attaches, swaps and the closing replayed.
    played = EngineDeal(table_id="bench-played", identity=HostIdentity.generate(),
                        preset=ruleset_pb2.PRESET_CLASSIC, host_seed=bytes(32),
                        seat_seeds={s: bytes([s + 1]) * 32 for s in seats})  # fmt: skip
    played_record = played.run_engine()
    mine = played.recorder.record_for(1)
    seed = played.seats[1].seed
    median, p99 = timed(
        300, lambda: verify_record(mine, seat=1, my_seed=seed, replayer=replay_deal)
    )
    print(f"fair deal: verify a 4-player deal played to its end by the engine "
          f"({len(played_record.events)} events), checks 1-4 with the replay: "
          f"median {median:.3f} ms, p99 {p99:.3f} ms (300 runs)")  # fmt: skip


if __name__ == "__main__":
    main()
