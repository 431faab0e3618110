"""The garbage collector's thresholds for a study's processes (the study's own, its pool's
forkserver and, by inheritance, the workers it forks).

CPython runs its cyclic collector after every 700 net allocations of container objects,
and a full collection, which walks every object of the process (numpy's, scipy's and
matplotlib's modules included: about a million), whenever the old generations have grown
by a quarter. A study allocates hundreds of thousands of short-lived containers (a dict
per stored row, a dozen artists per plotted point), so on error-models' ``--quick`` the
collector took 0.44 s of a 7.5 s CPU time (gc callbacks, load ~8) — more than its store
or its simulations' Python set-up — and freed almost nothing that reference counting
would not have. With a young generation of 20,000 it ran 19 times and took 0.10 s.
Collections still happen (no cycle is kept for long: a young generation holds at most
20,000 new containers, a few MB); no result depends on when they run.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: (young, middle, old) thresholds: see the module's docstring.
THRESHOLDS = (20_000, 20, 20)


def tune() -> None:
    """Set the thresholds of :data:`THRESHOLDS` for this process (and the processes it forks)."""
    gc.set_threshold(*THRESHOLDS)


@contextmanager
def tuned() -> Iterator[None]:
    """Within the block, :data:`THRESHOLDS`; the caller's thresholds again after it (a study
    run from a notebook leaves its collector as it found it)."""
    before = gc.get_threshold()
    tune()
    try:
        yield
    finally:
        gc.set_threshold(*before)
