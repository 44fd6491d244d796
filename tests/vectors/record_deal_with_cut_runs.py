"""Record a real deal whose runs are cut (R4.6): tests/vectors/recorded_deal_cut_runs.json.

Run from the repository root: ``.venv/bin/python tests/vectors/record_deal_with_cut_runs.py``.
As record_deal_with_rebuild.py, but under the tradizionale preset (``max_run`` 5), until
a deal has an attach that grew a sequence past five cards and cut it into runs, so that
the record shows the numbers the cut-off runs took (``Played.new_meld_ids``) and a later
move naming one of them. Made once and committed; make_fair_deal_v1.py derives the
known answers (the melds on the table, by number, after every play) from it.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scala40_net.fairdeal.record import DealRecord, parse_deal_event
from scala40_net.pb import ruleset_pb2
from tests.vectors.record_deal_with_rebuild import record_one

OUT = Path(__file__).with_name("recorded_deal_cut_runs.json")
TRADIZIONALE_TWO = ruleset_pb2.Ruleset(
    preset=ruleset_pb2.PRESET_TRADIZIONALE,
    # Rientro needs a match to points (R11.3); a match of deals is shorter to record.
    options=ruleset_pb2.RulesetOptions(
        max_players=2, match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=9, rientro=False
    ),
)


def cut_ids(record: DealRecord) -> set[int]:
    """The meld numbers runs cut off by an attach took in this deal."""
    found: set[int] = set()
    for raw in record.events:
        event = parse_deal_event(raw)
        if event.WhichOneof("event") != "played":
            continue
        ids = list(event.played.new_meld_ids)
        for op in event.played.operations:
            if op.WhichOneof("operation") == "new_meld":
                ids = ids[max(1, len(op.new_meld.split)) :]
            elif op.WhichOneof("operation") == "attach" and op.attach.split:
                found.update(ids[: len(op.attach.split) - 1])
                ids = ids[len(op.attach.split) - 1 :]
    return found


def has_cut_run_named_later(record: DealRecord) -> bool:
    """An attach was cut, and a later move names a run it cut off."""
    cut = cut_ids(record)
    if not cut:
        return False
    for raw in record.events:
        event = parse_deal_event(raw)
        if event.WhichOneof("event") == "played":
            for op in event.played.operations:
                kind = op.WhichOneof("operation")
                if kind in ("attach", "swap_joker") and getattr(op, kind).meld_id in cut:
                    return True
    return False


async def main() -> None:
    for wanted in (has_cut_run_named_later, lambda r: bool(cut_ids(r))):
        for attempt in range(15):
            with tempfile.TemporaryDirectory() as folder:
                found = await record_one(Path(folder) / "host", TRADIZIONALE_TWO, wanted)
            if found is not None:
                json.loads(found)  # a JSON document, written exactly as the host sent it
                OUT.write_bytes(found)
                print(f"wrote {OUT} (match {attempt + 1}, {wanted.__name__})")
                return
    raise SystemExit("no deal with a cut run in 30 matches")


if __name__ == "__main__":
    asyncio.run(main())
