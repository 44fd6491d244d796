"""``scala40-verify``: check a deal record file offline (docs/FAIR_DEAL.md).

Exit status 0 with one line starting ``verified:``, or 1 with one line
``FAILED <check> at event <k> (<kind>): <reason>`` naming the failed check.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from scala40_net.fairdeal.record import DealRecord, RecordFormatError
from scala40_net.fairdeal.replay import replay_deal
from scala40_net.fairdeal.verify import VerificationFailed, verify_record
from scala40_net.private.record import verify_private_record


def _seed(text: str) -> bytes:
    try:
        seed = bytes.fromhex(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError("the seed is 64 hex digits") from error
    if len(seed) != 32:
        raise argparse.ArgumentTypeError("the seed is 64 hex digits (32 bytes)")
    return seed


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scala40-verify",
        description="Check that a Scala 40 deal was dealt fairly, from its signed record.",
    )
    parser.add_argument("record", type=Path, help="the deal record file (JSON)")
    parser.add_argument("--seat", type=int, help="your table seat number")
    parser.add_argument("--my-seed", type=_seed, help="your seed for this deal, in hex")
    parser.add_argument("--my-cut", type=int, help="the cut you chose, if you were the cutter")
    parser.add_argument(
        "--host-fingerprint", help="the host fingerprint you remember (XXXX-XXXX-…)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.my_seed is not None and args.seat is None:
        _parser().error("--my-seed needs --seat")
    try:
        record = DealRecord.read(args.record)
    except OSError as error:
        print(f"FAILED chain: cannot read {args.record}: {error.strerror}")
        return 1
    except RecordFormatError as error:
        print(f"FAILED chain: {args.record} is not a deal record: {error}")
        return 1
    if record.private_transcript:
        try:
            print(verify_private_record(record, args.host_fingerprint))
        except VerificationFailed as failure:
            print(failure.line())
            return 1
        return 0
    try:
        verified = verify_record(
            record,
            seat=args.seat,
            my_seed=args.my_seed,
            my_cut=args.my_cut,
            host_fingerprint=args.host_fingerprint,
            replayer=replay_deal,
        )
    except VerificationFailed as failure:
        print(failure.line())
        return 1
    print(verified.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
