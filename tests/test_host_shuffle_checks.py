"""The host's shuffle checks (host.table.shuffle_checks): in a worker process that runs only on
CPU nobody else wants, with the right verdicts, and on a thread of the host when no worker can
be had (docs/PRIVATE_TABLES.md "What the host checks")."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

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


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie nobody reaped has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.timeout(60)
def test_the_worker_ends_with_the_host_even_when_the_host_is_killed(tmp_path: Path) -> None:
    # Defect: a host SIGKILLed left its worker (and multiprocessing's resource tracker)
    # running for good: a worker holds both ends of its own task queue, so it never reads an
    # end of file. A day of kill tests left 1,686 of them, every byte of memory taken.
    script = tmp_path / "a_host.py"
    script.write_text(
        "import time\n"
        "from host.table import shuffle_checks\n"
        "if __name__ == '__main__':  # not again in the spawned worker\n"
        "    shuffle_checks.warm_up()\n"
        "    while not shuffle_checks.worker_pids():\n"
        "        time.sleep(0.05)\n"
        "    print(*shuffle_checks.worker_pids(), flush=True)\n"
        "    time.sleep(600)\n"
    )
    host = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            cwd=Path(__file__).parent.parent)  # fmt: skip
    try:
        assert host.stdout is not None
        workers = [int(pid) for pid in host.stdout.readline().split()]
        assert workers and all(alive(pid) for pid in workers)
    finally:
        host.kill()
        host.wait()
    deadline = time.monotonic() + 20
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in workers), f"workers {workers} outlived the host"
