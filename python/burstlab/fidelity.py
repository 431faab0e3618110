"""Fidelity report: fit every loss model to a trace, sample a trace of equal length from
each, and compare PRR, μ, run-length means, maxima and the Kolmogorov-Smirnov distance
between run-length distributions (Barsocchi et al. §IV, Fig. 2; Srinivasan et al. §9)."""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

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


def fidelity(trace: Trace, models: list[str] | None = None, seed: int = 1) -> tuple[FidelityRow, list[FidelityRow], dict[str, LossModelBase]]:
    """(the trace's own row, one row per model, the fitted models)."""
    names: list[str] = []
    for n in models or ["all"]:
        for one in list(ALL_MODELS) if n == "all" else [n]:
            if one not in names:
                names.append(one)
    fitted = {n: make_model(n) for n in names}  # validates every name before any work
    ref = trace.stats(warn=False)
    ref_row = FidelityRow("trace", ref, 0.0, 0.0)
    rows = []
    for i, (name, m) in enumerate(fitted.items()):
        t0 = time.perf_counter()
        m.fit(trace)
        dt = time.perf_counter() - t0
        synth = m.sample(len(trace), random_state=seed + i)
        st = synth.stats(warn=False)
        rows.append(
            FidelityRow(
                name,
                st,
                ks_distance(ref.loss_bursts, st.loss_bursts),
                ks_distance(ref.success_runs, st.success_runs),
                m.to_dict()["fitted"],
                dt,
                m.mean_loss(),
            )
        )
    return ref_row, rows, fitted


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
