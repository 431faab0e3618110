"""Fidelity report: fit every loss model to a trace, sample a trace of equal length from
each, and compare PRR, μ, run-length means, maxima and the Kolmogorov-Smirnov distance
between run-length distributions (Barsocchi et al. §IV, Fig. 2; Srinivasan et al. §9)."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from burstlab._core import EmptyInputError, ParameterError
from burstlab.io import atomic_write
from burstlab.models import ALL_MODELS, LossModelBase, make_model
from burstlab.stats import RunDistribution, TraceStats
from burstlab.traces import Trace


def ks_distance(a: RunDistribution, b: RunDistribution) -> float | None:
    """sup_l |F_a(l) − F_b(l)| between two run-length distributions (None if one is empty)."""
    if a.n_runs == 0 or b.n_runs == 0:
        return None
    grid = np.union1d(a.lengths, b.lengths)

    def cdf(d: RunDistribution) -> np.ndarray:
        c = d.cdf()
        idx = np.searchsorted(d.lengths, grid, side="right") - 1
        return np.where(idx >= 0, c[np.maximum(idx, 0)], 0.0)

    return float(np.max(np.abs(cdf(a) - cdf(b))))


@dataclass
class FidelityRow:
    model: str
    stats: TraceStats
    ks_burst: float | None
    ks_success: float | None
    params: dict[str, Any] = field(default_factory=dict)
    fit_seconds: float = 0.0
    mean_loss: float | None = None

    def to_dict(self) -> dict[str, Any]:
        s = self.stats
        return {
            "model": self.model,
            "prr": s.prr,
            "mu": s.mu,
            "mean_loss_burst": _nan(s.loss_bursts.mean),
            "max_loss_burst": s.loss_bursts.max,
            "mean_success_run": _nan(s.success_runs.mean),
            "max_success_run": s.success_runs.max,
            "ks_loss_burst": self.ks_burst,
            "ks_success_run": self.ks_success,
            "analytic_mean_loss": self.mean_loss,
            "fit_seconds": round(self.fit_seconds, 4),
            "params": self.params,
        }


def _nan(x: float) -> float | None:
    return None if math.isnan(x) else x


def fit_models(
    trace: Trace,
    models: list[str] | None = None,
    *,
    skipped: list[tuple[str, str]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[dict[str, LossModelBase], dict[str, float]]:
    """Fit the named models (``"all"``: :data:`burstlab.models.ALL_MODELS`) to ``trace``:
    (name → fitted model, name → seconds the fit took), in the order asked.

    With ``skipped`` (a list), a model that cannot be fitted to this trace (a
    :class:`burstlab.ParameterError` or :class:`burstlab.EmptyInputError` from its
    ``fit``: e.g. a burst-length fit on a trace without loss) is left out and
    ``(name, reason)`` appended there instead of failing every model; without it, that
    error is raised. ``progress`` gets one line per model as it is fitted."""
    names: list[str] = []
    for n in models or ["all"]:
        for one in list(ALL_MODELS) if n == "all" else [n]:
            if one not in names:
                names.append(one)
    models_ = {n: make_model(n) for n in names}  # validates every name before any work
    fitted: dict[str, LossModelBase] = {}
    seconds: dict[str, float] = {}
    for i, (name, m) in enumerate(models_.items()):
        if progress is not None:
            progress(f"fitting {name} ({i + 1}/{len(models_)})")
        t0 = time.perf_counter()
        try:
            m.fit(trace)
        except (ParameterError, EmptyInputError) as e:
            if skipped is None:
                raise
            skipped.append((name, str(e)))
            continue
        seconds[name] = time.perf_counter() - t0
        fitted[name] = m
    return fitted, seconds


def fidelity_rows(
    reference: Trace, fitted: dict[str, LossModelBase], seed: int = 1, seconds: dict[str, float] | None = None
) -> tuple[FidelityRow, list[FidelityRow]]:
    """(the reference's own row, one row per fitted model): each model samples a trace as
    long as ``reference`` (model ``i`` with seed ``seed + i``, modulo 2^64), compared by
    its statistics and the KS distances of its run lengths to the reference's."""
    ref = reference.stats(warn=False)
    rows = []
    for i, (name, m) in enumerate(fitted.items()):
        synth = m.sample(len(reference), random_state=(seed + i) % 2**64)
        st = synth.stats(warn=False)
        rows.append(
            FidelityRow(
                name,
                st,
                ks_distance(ref.loss_bursts, st.loss_bursts),
                ks_distance(ref.success_runs, st.success_runs),
                m.to_dict()["fitted"],
                (seconds or {}).get(name, 0.0),
                m.mean_loss(),
            )
        )
    return FidelityRow("trace", ref, 0.0, 0.0), rows


def fidelity(
    trace: Trace,
    models: list[str] | None = None,
    seed: int = 1,
    *,
    skipped: list[tuple[str, str]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[FidelityRow, list[FidelityRow], dict[str, LossModelBase]]:
    """(the trace's own row, one row per model, the fitted models): :func:`fit_models`
    then :func:`fidelity_rows` against the same trace. Model ``i`` (of those fitted)
    samples with seed ``seed + i``."""
    fitted, seconds = fit_models(trace, models, skipped=skipped, progress=progress)
    ref_row, rows = fidelity_rows(trace, fitted, seed, seconds)
    return ref_row, rows, fitted


def best_model(ref: FidelityRow, rows: list[FidelityRow]) -> tuple[FidelityRow, str] | None:
    """The model whose synthetic trace is closest to the trace, and why: the smallest
    worst Kolmogorov-Smirnov distance between the run-length distributions (loss bursts
    and success runs, the shape Barsocchi et al. §IV and Srinivasan et al. §9 judge models
    by), ties broken by the PRR difference. None without rows."""
    if not rows:
        return None

    def worst_ks(r: FidelityRow) -> float:
        ks = [k for k in (r.ks_burst, r.ks_success) if k is not None]
        return max(ks) if ks else math.inf

    def dprr(r: FidelityRow) -> float:
        a, b = r.stats.prr, ref.stats.prr
        return abs(a - b) if a is not None and b is not None else math.inf

    best = min(rows, key=lambda r: (worst_ks(r), dprr(r)))
    parts = []
    if math.isfinite(worst_ks(best)):
        ks = ", ".join(f"{w} {k:.3g}" for w, k in (("loss bursts", best.ks_burst), ("success runs", best.ks_success)) if k is not None)
        parts.append(f"the smallest worst KS distance between run-length distributions ({ks})")
    else:
        parts.append("no run-length distribution to compare (the trace has no loss or no success): the closest PRR")

    def show(x: float | None) -> str:
        return "undefined" if x is None else f"{x:.4g}"

    parts.append(f"PRR {show(best.stats.prr)} vs {show(ref.stats.prr)}, μ {show(best.stats.mu)} vs {show(ref.stats.mu)}")
    return best, "; ".join(parts)


def plot_ccdfs(ref: FidelityRow, rows: list[FidelityRow], out_dir: str | os.PathLike[str], stem: str = "fidelity") -> list[Path]:
    """Overlay run-length CCDFs (loss bursts, success runs) of the trace and every model
    (Barsocchi et al. Fig. 2), log-log; PNGs written atomically. Returns the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for what, label in (("loss_bursts", "loss burst length"), ("success_runs", "success run (error gap) length")):
        fig, ax = plt.subplots(figsize=(7, 5))
        colors = [plt.get_cmap("tab20")(j) for j in range(20)]
        for i, r in enumerate([ref, *rows]):
            d: RunDistribution = getattr(r.stats, what)
            if d.n_runs == 0:
                continue
            style: dict[str, Any] = dict(color="black", lw=2.5) if r is ref else dict(color=colors[(i - 1) % len(colors)], lw=1.2)
            ax.step(d.lengths, d.ccdf(), where="post", label=r.model, **style)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(label + " (packets)")
        ax.set_ylabel("P(L ≥ l)")
        ax.set_title(f"{label} CCDF: trace vs fitted models")
        ax.legend(fontsize=7, ncol=2)
        ax.grid(True, which="both", alpha=0.3)
        path = out / f"{stem}_{what}.png"
        try:
            atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=110))
        finally:
            plt.close(fig)
        paths.append(path)
    return paths
