"""Committing a sweep's finished tasks to the results store in batches.

One DuckDB commit costs ~15-20 ms (it syncs the write-ahead log). A study that committed
each finished task on its own spent a large share of its time there: tibet's 217 tasks
took ~3 s of commits for ~3 s of simulation, hybrid's ~400 more (issue 27, "Speed"). Here
the tasks finished since the last commit go in one transaction at most every
:data:`FLUSH_EVERY_S` seconds, always whole tasks (a task's rows are all in the store or
none), and whatever is buffered is committed when the sweep ends or stops (an error in a
task, Ctrl-C): a killed study loses at most that second of work and the tasks in flight,
and resumes from the rest.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

#: Finished tasks' rows are committed together at most this often (s). Each commit costs
#: ~6 ms of CPU besides its rows (the insert's planning, the transaction, the log): at 0.25 s,
#: error-models' ``--quick`` committed 28 times (0.31 s of CPU for its 7,528 rows), at 1 s 8
#: times (0.18 s).
FLUSH_EVERY_S = 1.0


class _Store(Protocol):
    def insert_many(self, rows: Sequence[Mapping[str, Any]]) -> None: ...

    def keys(self) -> set[str]: ...


def commit_in_batches(finished: Iterable[tuple[T, list[dict[str, Any]]]], store: _Store, *,
                      committed: Callable[[T, int], None] | None = None, every_s: float = FLUSH_EVERY_S) -> int:  # fmt: skip
    """Insert the rows of each ``(task, rows)`` of ``finished`` into ``store``: the tasks
    finished since the last commit in one transaction, at most every ``every_s`` seconds
    and once more at the end (also when ``finished`` raises: the tasks done are kept).
    ``committed(task, k)`` is called for each task once its rows are committed (k: how many
    tasks are committed by then, from 1). Returns the
    number of tasks."""
    batch: list[dict[str, Any]] = []
    tasks: list[T] = []
    last = time.perf_counter()
    n = done = 0
    # A commit whose outcome is unknown: Ctrl-C arrives when the interpreter next runs
    # Python code, which can be after DuckDB's COMMIT has landed and before the batch is
    # cleared; committing that batch again would break the key's uniqueness (seen as an
    # internal error, exit 3, instead of Ctrl-C's one line).
    unsure = False

    def flush() -> None:
        nonlocal last, done, unsure
        unsure = True
        store.insert_many(batch)
        landed = list(tasks)
        batch.clear()
        tasks.clear()
        unsure = False
        for t in landed:
            done += 1
            if committed is not None:
                committed(t, done)
        last = time.perf_counter()

    try:
        for task, rows in finished:
            batch.extend(rows)
            tasks.append(task)
            n += 1
            if time.perf_counter() - last >= every_s:
                flush()
    finally:
        if tasks:
            if unsure:  # the interrupted commit may have landed: only what it did not hold
                have = store.keys()
                batch[:] = [r for r in batch if r["key"] not in have]
            flush()
    return n
