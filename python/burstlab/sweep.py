"""Run independent tasks on all local cores or on a Dask distributed cluster.

``run_tasks(fn, tasks)`` yields ``(task, result)`` pairs as tasks finish (in completion
order, which depends on timing); the caller stores each result immediately. Results never
depend on the worker count or the scheduler: a task carries everything it needs, including
its seeds, which :func:`task_seed` derives from (study seed, link id, condition, replicate)
alone.

Backends:

- ``workers=1``: in this process, one task after another (no pool; easiest to debug).
- ``workers=N>1`` (default: the cores this process may use, :func:`default_workers`): a
  :class:`concurrent.futures.ProcessPoolExecutor` with the ``forkserver`` start method
  (a clean process per worker: forking a process that holds a database connection and a
  progress thread is unsafe). The workers and the forkserver die with the process that
  started them, even when it is killed with SIGKILL (:mod:`burstlab._lifetime`); they
  ignore Ctrl-C, which the caller answers: on any exit other than a normal end the
  pending tasks are cancelled and the workers terminated at once.
- ``cluster="tcp://host:port"``: a ``dask.distributed.Client`` connected to that scheduler;
  the workers must be able to import burstlab.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import os
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import nullcontext
from typing import Any, TypeVar

from burstlab._core import BurstlabError, ParameterError
from burstlab._lifetime import init_worker, interrupts_deferred

T = TypeVar("T")
R = TypeVar("R")


class ClusterError(BurstlabError):
    """A task failed on the Dask cluster (the message names the scheduler, the task and the
    cause; the original exception is chained). The usual cause is a scheduler or worker
    whose Python cannot import burstlab (Dask needs the same software everywhere)."""


def task_seed(study_seed: int, *parts: object) -> int:
    """A 63-bit seed derived from the study seed and the task's identity (e.g. link id,
    condition, replicate): SHA-256 of their text, so it does not depend on task order,
    worker count or Python's hash randomisation."""
    text = "\x1f".join([str(int(study_seed)), *(str(p) for p in parts)])
    return struct.unpack("<Q", hashlib.sha256(text.encode()).digest()[:8])[0] >> 1


def default_workers() -> int:
    """The local cores this process may run on (its CPU affinity, which a container, a
    batch scheduler or ``taskset`` may limit to fewer than ``os.cpu_count()``; all cores
    where affinity is not known; at least 1). The one default for every local pool
    (``burstlab study``, ``burstlab sim --seeds``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


class _PlainProgress:
    """Progress for a stderr that is not a terminal (a log file, a pipe, CI): no animation,
    no control characters — one plain line at each quarter of the work, with its rate and
    the time left at that rate."""

    #: A line also when this long has passed since the last one (a quarter can take minutes).
    EVERY_S = 10.0

    def __init__(self, unit: str = "tasks") -> None:
        self._t0 = self._last = time.perf_counter()
        self._unit = unit

    def __enter__(self) -> _PlainProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def add_task(self, description: str, total: int) -> int:
        self._desc, self._total, self._done, self._next = description, total, 0, 1
        return 0

    def advance(self, _tid: int) -> None:
        self._done += 1
        now = time.perf_counter()
        quarter = self._next <= 4 and self._done * 4 >= self._next * self._total
        if quarter or (now - self._last >= self.EVERY_S and self._done < self._total):
            while self._done * 4 >= self._next * self._total and self._next <= 4:
                self._next += 1
            self._last = now
            t = now - self._t0
            rate = self._done / t if t > 0 else math.inf
            left = (self._total - self._done) / rate if self._done < self._total and rate > 0 else 0.0
            print(f"{self._desc}: {self._done}/{self._total} {self._unit}, {t:.1f} s ({rate:.3g}/s"
                  + (f", ~{left:.0f} s left)" if self._done < self._total else ")"), file=sys.stderr, flush=True)


def progress(total: int, description: str, enabled: bool, unit: str = "tasks") -> Any:
    """The progress display, always on stderr (stdout carries results): a rich bar with the
    rate and the time left when stderr is a terminal, plain lines otherwise (nothing
    animated), nothing when disabled. Use as ``with progress(n, "figures", True) as bar:
    tid = bar.add_task("figures", total=n); bar.advance(tid)`` (``bar`` is None when
    disabled)."""
    if not enabled:
        return nullcontext(None)
    if not sys.stderr.isatty():
        return _PlainProgress(unit)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    from rich.text import Text

    class Rate(ProgressColumn):  # type: ignore[misc]
        def render(self, task: Any) -> Text:
            return Text(f"{task.speed:.3g} {unit}/s" if task.speed else "")

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        Rate(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )


_progress = progress


def iter_progress(items: Iterable[T], total: int, description: str, enabled: bool, unit: str = "items") -> Iterator[T]:
    """``items`` passed through, with :func:`progress` on stderr as they come (``total``: the
    number expected, for the rate and the time left)."""
    with progress(total, description, enabled, unit) as bar:
        tid = bar.add_task(description, total=total) if bar is not None else None
        for x in items:
            yield x
            if bar is not None:
                bar.advance(tid)


def run_tasks(
    fn: Callable[[T], R],
    tasks: Sequence[T],
    *,
    workers: int | None = None,
    cluster: str | None = None,
    progress: bool = True,
    description: str = "tasks",
    max_pending: int | None = None,
    help_while_starting: bool = False,
    unit: str = "tasks",
) -> Iterator[tuple[T, R]]:
    """Run ``fn(task)`` for every task; yield ``(task, result)`` as each finishes.

    ``fn`` must be a module-level (picklable) function. An exception in a task is raised
    here (remaining local tasks are cancelled). ``max_pending`` bounds how many tasks are
    submitted ahead of completion (default: 4 per worker), so a huge task list does not
    sit in memory as pickled futures. ``help_while_starting`` (local pools): until the
    forkserver can fork the pool's workers (it may still be importing what its preload
    names), this process runs tasks itself instead of waiting. ``unit``: what the progress
    counts ("tasks", "figures").
    """
    if workers is not None and workers < 1:
        raise ParameterError(f"invalid parameter workers = {workers}: expected at least 1")
    tasks = list(tasks)
    if not tasks:
        return
    with _progress(len(tasks), description, progress, unit) as bar:
        tid = bar.add_task(description, total=len(tasks)) if bar is not None else None

        def advance() -> None:
            if bar is not None:
                bar.advance(tid)

        if cluster is not None:
            yield from _run_dask(fn, tasks, cluster, advance, max_pending)
        elif (workers or default_workers()) == 1 or len(tasks) == 1:
            for t in tasks:
                r = fn(t)
                advance()
                yield t, r
        else:
            yield from _run_pool(fn, tasks, workers or default_workers(), advance, max_pending, help_while_starting)


def _abandon(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now (Ctrl-C, an error in the caller): cancel what has not started and
    terminate the workers instead of waiting for their tasks."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # CPython: pid → Process
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.terminate()
        except (OSError, ValueError, AttributeError):
            pass
    for p in procs:
        try:
            p.join(timeout=5)
        except (OSError, ValueError, AttributeError, AssertionError):
            pass


def set_forkserver_preload(*modules: str) -> None:
    """What the local pools' forkserver imports when it starts: ``modules`` (to fork workers
    with nothing left to import), always with the guard that makes the forkserver die with
    this process (:mod:`burstlab._lifetime`). Only a forkserver not yet running is affected.
    Also quiets the resource tracker the pools start (:func:`quiet_resource_tracker`)."""
    quiet_resource_tracker()
    multiprocessing.get_context("forkserver").set_forkserver_preload(["__main__", "burstlab._forkserver_guard", *modules])


#: A warnings filter for the resource tracker's report of semaphores left by a killed study.
_TRACKER_FILTER = "ignore:resource_tracker:UserWarning"


def quiet_resource_tracker() -> None:
    """After a SIGKILL of the study, the resource tracker (a process of its own, which
    outlives it only long enough to clean up) removes the pools' semaphores and printed a raw
    two-line ``UserWarning`` ("There appear to be 3 leaked semaphore objects") on the
    caller's terminal: the clean-up is what should happen, so its warning is filtered
    (through ``PYTHONWARNINGS``, which the tracker reads when it starts; set before it does)."""
    have = os.environ.get("PYTHONWARNINGS", "")
    if _TRACKER_FILTER not in have.split(","):
        os.environ["PYTHONWARNINGS"] = ",".join(x for x in (have, _TRACKER_FILTER) if x)


def _nothing() -> None:
    """Does nothing: a process that runs it shows that the forkserver can fork."""


def forkserver_running() -> bool:
    """Whether this process's forkserver is up (started by an earlier pool and still alive):
    a pool then forks its workers at once. CPython's module-level server."""
    from multiprocessing import forkserver

    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if pid is None:
        return False
    try:  # WNOWAIT: a server that died stays for multiprocessing's own check to reap and restart
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
    except (ChildProcessError, OSError, AttributeError):
        return False


def _help_while_starting(fn: Callable[[T], R], it: Iterator[T], advance: Callable[[], None]) -> Iterator[tuple[T, R]]:
    """Run tasks from ``it`` in this process until the forkserver can fork workers: it only
    forks once it has imported its preloads, and the tasks need not wait with it. Another
    thread starts (and joins) a process that does nothing, which returns when the forkserver
    is ready (or failed: the pool then fails on its first submit, with the reason). Returns
    then, or when ``it`` is empty (a short sweep does not wait for the forkserver at all).
    Runs none when the forkserver is already up (:func:`forkserver_running`)."""
    from multiprocessing import forkserver

    if forkserver_running():  # it forks at once: this process would only pay for the tasks' imports and warm-up twice
        return
    # Started from this thread, not from the one below: the forkserver dies with the thread
    # that started it (PR_SET_PDEATHSIG names a thread, :mod:`burstlab._lifetime`), and that
    # one ends as soon as the server can fork — which killed it, so that the pool's first
    # submit started a second one (its imports paid twice) or, if the kill came between the
    # check and the fork, failed with "unexpected EOF".
    forkserver.ensure_running()
    up = threading.Event()

    def start() -> None:
        try:
            p = multiprocessing.get_context("forkserver").Process(target=_nothing, daemon=True)
            p.start()
            p.join()
        except BaseException:  # noqa: BLE001 - the pool's first submit raises it
            pass
        finally:
            up.set()

    threading.Thread(target=start, name="burstlab-forkserver-ready", daemon=True).start()
    end = object()
    while not up.is_set():
        t = next(it, end)
        if t is end:
            return
        r = fn(t)  # type: ignore[arg-type]
        advance()
        yield t, r  # type: ignore[misc]


def _run_pool(fn: Callable[[T], R], tasks: list[T], workers: int, advance: Callable[[], None], max_pending: int | None,
              help_while_starting: bool = False) -> Iterator[tuple[T, R]]:
    from multiprocessing import forkserver

    ctx = multiprocessing.get_context("forkserver")
    fs = getattr(forkserver, "_forkserver", None)  # CPython's module-level server
    preload = list(getattr(fs, "_preload_modules", []) or [])
    if "burstlab._forkserver_guard" not in preload:  # keep what the caller preloads, add the guard
        set_forkserver_preload(*(m for m in preload if m != "__main__"))
    limit = max_pending or 4 * workers
    pool = ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=ctx, initializer=init_worker)
    finished = False
    pending: dict[Future[R], T] = {}
    it = iter(tasks)

    def top_up() -> None:
        """Submit the next tasks until ``limit`` are pending (or none is left)."""
        for t in it:
            with interrupts_deferred():  # a worker it starts gets its preparation data whole
                pending[pool.submit(fn, t)] = t
            if len(pending) >= limit:
                break

    try:
        if help_while_starting:
            yield from _help_while_starting(fn, it, advance)
        top_up()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                t = pending.pop(f)
                r = f.result()
                advance()
                yield t, r
            top_up()
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:
            _abandon(pool)


def _run_dask(fn: Callable[[T], R], tasks: list[T], address: str, advance: Callable[[], None], max_pending: int | None) -> Iterator[tuple[T, R]]:
    from distributed import Client, as_completed

    with Client(address, timeout="30s") as client:
        n = sum(client.nthreads().values()) or 1
        limit = max_pending or 4 * n
        it = iter(tasks)
        futs: dict[Any, T] = {}
        for t in it:
            futs[client.submit(fn, t, pure=False)] = t
            if len(futs) >= limit:
                break
        ac = as_completed(list(futs))
        try:
            for f in ac:
                t = futs.pop(f)
                try:
                    r = f.result()
                except Exception as e:
                    raise ClusterError(f"a task failed on the Dask cluster at {address}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''} "
                                       "(the scheduler and every worker must run a Python that can import burstlab)") from e
                f.release()
                advance()
                yield t, r
                nxt = next(it, None)
                if nxt is not None:
                    nf = client.submit(fn, nxt, pure=False)
                    futs[nf] = nxt
                    ac.add(nf)
        finally:
            for f in futs:
                f.cancel()
