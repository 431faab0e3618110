"""Figures of trace statistics (matplotlib, Agg backend): run-length CCDFs on log-log
axes (loss bursts and success runs, seed 000 Fig. 4/15, seed 001 Fig. 2) and μ
convergence over growing prefixes (seed 000 §8, Fig. 17-18). Files are written to a
temporary name and renamed, so a failure never leaves half a figure."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from burstlab.stats import TraceStats  # noqa: E402

FORMATS = ("png", "pdf")


def _save(fig: Any, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=120, bbox_inches="tight")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _label(s: TraceStats, i: int) -> str:
    return s.name or f"trace {i}"


def slug(name: str) -> str:
    """A file-name-safe version of a trace name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "trace"


def plot_run_ccdfs(stats: Sequence[TraceStats], path: str | os.PathLike[str], *, title: str | None = None) -> Path:
    """Log-log CCDF P(L ≥ x) of loss-burst and success-run lengths, one line per trace."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, attr, what in ((axes[0], "loss_bursts", "loss burst"), (axes[1], "success_runs", "success run (error gap)")):
        drawn = False
        for i, s in enumerate(stats):
            dist = getattr(s, attr)
            if dist.n_runs:
                ax.step(dist.lengths, dist.ccdf(), where="post", label=_label(s, i))
                drawn = True
        if drawn:
            ax.set_xscale("log")
            ax.set_yscale("log")
        ax.set_xlabel(f"{what} length (entries)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("CCDF  P(L ≥ x)")
    if len(stats) <= 10:
        axes[1].legend(fontsize="small")
    fig.suptitle(title or "run-length CCDFs")
    p = Path(path)
    _save(fig, p)
    plt.close(fig)
    return p


def plot_mu_convergence(stats: Sequence[TraceStats], path: str | os.PathLike[str], *, title: str | None = None) -> Path:
    """μ over growing prefixes of each trace (seed 000 §8); undefined points are gaps."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, s in enumerate(stats):
        if s.prefix_lengths.size:
            ax.plot(s.prefix_lengths.astype(np.float64), s.prefix_mu, label=_label(s, i))
    ax.set_xlabel("prefix length (entries)")
    ax.set_ylabel("μ = 1 − g − b")
    ax.grid(True, alpha=0.3)
    if len(stats) <= 10:
        ax.legend(fontsize="small")
    ax.set_title(title or "convergence of μ")
    p = Path(path)
    _save(fig, p)
    plt.close(fig)
    return p


def plot_stats(stats: Sequence[TraceStats], outdir: str | os.PathLike[str], *, formats: Sequence[str] = FORMATS) -> list[Path]:
    """Both figures for ``stats`` into ``outdir`` (``run_ccdf.*``, ``mu_convergence.*``)."""
    out = Path(outdir)
    files: list[Path] = []
    for ext in formats:
        if ext not in FORMATS:
            from burstlab._core import ParameterError

            raise ParameterError(f"invalid parameter formats: {ext!r} is not one of {', '.join(FORMATS)}")
        files.append(plot_run_ccdfs(stats, out / f"run_ccdf.{ext}"))
        files.append(plot_mu_convergence(stats, out / f"mu_convergence.{ext}"))
    return files
