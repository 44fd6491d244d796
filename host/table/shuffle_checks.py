"""The host's checks of relayed shuffle proofs: in a worker process at the lowest CPU priority.

A private deal's shuffle is relayed as soon as its place, its turn and its input deck hold
(docs/PRIVATE_TABLES.md "What the host checks"): every seat checks the proof itself before it
acts on the deck, so the host's own check is not on anyone's path. It still has to be made:
it names a shuffler whose proof does not hold, and that voids the deal (R10.3) at once rather
than when the seats, which will not go on from a false deck, run out of time. So it runs
after the relay, in a process that takes only CPU nobody else wants (``SCHED_IDLE``, else
nice 19): on a machine busy with the seats' own proofs it waits for them, on an idle one it
runs at once. Each verdict goes back to its table as a job (``Table.shuffle_checked``).
The worker ends with the host, even a host killed (``_end_with``).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from scala40_net.private.protocol import ShuffleCheck

if TYPE_CHECKING:
    from host.table.table import Table

log = logging.getLogger(__name__)

# One pool for every table of the process, made at the first private table.
_pool: ProcessPoolExecutor | None = None
#: How often a worker looks whether its host is still there.
HOST_WATCH_SECONDS = 0.5


def lowest_priority() -> None:
    """The calling process runs only when a core would otherwise be idle (Linux's
    ``SCHED_IDLE``); where that is not to be had, at the lowest nice value."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(19)


def _start_worker(host: int) -> None:
    """Each worker as it starts: the lowest priority, and a watch on its host (its id from
    the host itself: a host killed while its worker starts is no longer the parent here)."""
    lowest_priority()
    threading.Thread(target=_end_with, args=(host,), name="host-watch", daemon=True).start()


def _end_with(host: int) -> None:
    """End this worker once its host process is gone. A host that stops shuts its pool down,
    but one killed (SIGKILL, a crash) cannot, and its worker would wait for tasks for ever:
    it holds both ends of its own task queue, so it never reads an end of file. Orphaned,
    it is the child of another process (init, or a subreaper)."""
    while os.getppid() == host:
        time.sleep(HOST_WATCH_SECONDS)
    os._exit(0)


def _holds(check: ShuffleCheck) -> bool:
    return check.holds()


def _worker_pool() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        # Spawned, not forked: the host's process runs gRPC's threads, which a fork would copy
        # mid-flight. Cores but one: the host's own job loop keeps one.
        _pool = ProcessPoolExecutor(
            max_workers=max(1, (os.cpu_count() or 1) - 1),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(os.getpid(),),
        )
    return _pool


def _drop_pool() -> None:
    """The pool given up (its worker died, or could not start): the next check makes one."""
    global _pool
    pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


def _submit(check: ShuffleCheck | None) -> Future[object]:
    """``check`` (None: nothing, to start the worker) handed to the worker; a pool whose
    worker died is replaced once."""
    for _ in range(2):
        try:
            pool = _worker_pool()
            return pool.submit(os.getpid) if check is None else pool.submit(_holds, check)
        except BrokenProcessPool:
            _drop_pool()
    raise BrokenProcessPool("the shuffle checks' worker died twice at once")


def warm_up() -> None:
    """Start the worker now (a private table is created), not at its first deal's shuffle:
    a new process's start is no work to put on a deal's path. A worker that cannot be had
    now is made at the first check, or the check runs on a thread (``shuffle_holds``)."""
    try:
        _submit(None)
    except Exception as error:
        log.warning("the shuffle checks' worker could not be started (%s)", error)


def worker_pids() -> list[int]:
    """The worker processes' ids (a benchmark reads their CPU time)."""
    processes = getattr(_pool, "_processes", None) or {}
    return [p.pid for p in list(processes.values()) if p.pid]


async def shuffle_holds(check: ShuffleCheck) -> bool:
    """Whether the shuffle's proof holds, checked in the worker process; on a thread of this
    process when the worker cannot be had (it died, or no process can be started)."""
    try:
        return bool(await asyncio.wrap_future(_submit(check)))
    except (BrokenProcessPool, OSError) as error:  # it died, or none could be started
        log.warning("the shuffle checks' worker failed (%s); checking on a thread", error)
        _drop_pool()
        return await asyncio.to_thread(check.holds)


class ShuffleChecks:
    """One table's shuffle checks under way and the verdicts of its deal in play, by the
    envelope's digest."""

    def __init__(self, call_soon: Callable[[Callable[[Table], object]], None]) -> None:
        self._call_soon = call_soon
        self._verdicts: dict[bytes, bool] = {}
        self._running: dict[bytes, asyncio.Task[None]] = {}
        self._handed: set[bytes] = set()  # verdicts queued for the table, not yet taken
        self._deal_no = 0  # the deal whose verdicts are kept

    def watch(self, table: Table) -> None:
        """After every job: each shuffle the table has not found to hold yet is checked, or
        its verdict, found before the table was rebuilt from its journal, handed back."""
        secret = table.deals.private.in_play()
        if secret is None:
            return
        if secret.setup.deal_no != self._deal_no:  # the verdicts kept are one deal's
            self._deal_no = secret.setup.deal_no
            self._verdicts.clear()
        for digest, check in secret.unchecked_shuffles.items():
            if digest in self._verdicts:
                self._hand_back(digest)
            elif digest not in self._running:
                self._running[digest] = asyncio.get_running_loop().create_task(
                    self._check(digest, check), name="shuffle check"
                )

    async def _check(self, digest: bytes, check: ShuffleCheck) -> None:
        try:
            self._verdicts[digest] = await shuffle_holds(check)
        finally:
            del self._running[digest]
        self._hand_back(digest)

    def _hand_back(self, digest: bytes) -> None:
        if digest in self._handed:
            return
        self._handed.add(digest)
        holds = self._verdicts[digest]

        def job(table: Table) -> None:
            self._handed.discard(digest)
            table.shuffle_checked(digest, holds)

        self._call_soon(job)

    async def stop(self) -> None:
        for task in self._running.values():
            task.cancel()
        await asyncio.gather(*self._running.values(), return_exceptions=True)


__all__ = ["ShuffleChecks", "lowest_priority", "shuffle_holds", "warm_up", "worker_pids"]
