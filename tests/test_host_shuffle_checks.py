"""The host's shuffle checks (host.table.shuffle_checks): in a worker process that runs only on
CPU nobody else wants, with the right verdicts, and on a thread of the host when no worker can
be had (docs/PRIVATE_TABLES.md "What the host checks")."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys

import pytest

from host.table import shuffle_checks
from scala40_net.private.elgamal import open_deck
from scala40_net.private.group import base_times, random_scalar
from scala40_net.private.proofs import ProofContext
from scala40_net.private.protocol import ShuffleCheck
from scala40_net.private.shuffle import shuffle_deck


def checks() -> tuple[ShuffleCheck, ShuffleCheck]:
    """A shuffle of 8 cards as it was proved, and the same with two cards swapped after."""
    context = ProofContext("table", 1, 2, b"shuffle/test")
    joint = base_times(random_scalar())
    deck = open_deck(range(8))
    out, proof = shuffle_deck(context, joint, deck, random_scalar)
    swapped = (out[1], out[0], *out[2:])
    return (
        ShuffleCheck(2, context, joint, deck, out, proof),
        ShuffleCheck(2, context, joint, deck, swapped, proof),
    )


async def test_the_worker_checks_at_the_lowest_cpu_priority() -> None:
    true, false = checks()
    assert await shuffle_checks.shuffle_holds(true)
    assert not await shuffle_checks.shuffle_holds(false)
    workers = shuffle_checks.worker_pids()
    assert workers and os.getpid() not in workers
    for pid in workers:  # it runs only when a core would otherwise be idle
        assert os.sched_getscheduler(pid) == os.SCHED_IDLE


@pytest.mark.timeout(120)
async def test_a_worker_that_dies_is_replaced_and_none_to_be_had_means_a_thread(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The worker killed: the next check makes a new one. No worker to be had (no process can
    be started): the check runs on a thread of the host, with the same verdicts, and a worker
    is made again once processes start again."""
    true, false = checks()
    assert await shuffle_checks.shuffle_holds(true)
    killed = set(shuffle_checks.worker_pids())
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    multiprocessing.set_executable("/nonexistent/python")
    try:
        assert await shuffle_checks.shuffle_holds(true)
        assert not await shuffle_checks.shuffle_holds(false)
    finally:
        multiprocessing.set_executable(sys.executable)
    assert "checking on a thread" in caplog.text
    assert await shuffle_checks.shuffle_holds(true)
    fresh = shuffle_checks.worker_pids()
    assert fresh and not killed & set(fresh)
