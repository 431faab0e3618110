"""Worker functions for tests/test_sweep.py (module-level, so the process pool and Dask can
import them by name)."""

from __future__ import annotations

import os

from burstlab._core import LossModel
from burstlab.stats import trace_stats
from burstlab.traces import Trace


def ge_stats(task: tuple[str, float, float, int, int]) -> dict[str, object]:
    """Sample a Gilbert-Elliott trace (PRR, μ, n, seed) in Rust and return its statistics and
    the worker's pid (to show which process ran it)."""
    name, prr, mu, n, seed = task
    st = trace_stats(Trace(LossModel.gilbert_elliott_prr_mu(prr, mu).sample(n, seed)), warn=False)
    return {"name": name, "prr": st.prr, "mu": st.mu, "max_run": st.success_runs.max, "pid": os.getpid()}


def fail_on(task: int) -> int:
    if task == 3:
        raise ValueError("task 3 fails")
    return task * task


def line_figure(n: int, title: str) -> object:
    """A small matplotlib figure (for the figures drawn on a pool's workers)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot(range(n), [k * k for k in range(n)])
    ax.set_title(title)
    return fig


def pid(_task: int) -> int:
    """The process that ran the task."""
    return os.getpid()


def gc_thresholds(_task: int) -> tuple[int, ...]:
    """The garbage collector's thresholds of the process that runs the task."""
    import gc

    return tuple(gc.get_threshold())
