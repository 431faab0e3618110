"""Figures of trace statistics (matplotlib, Agg backend): run-length CCDFs on log-log
axes (loss bursts and success runs, Srinivasan et al. Fig. 4/15, Barsocchi et al. Fig. 2) and μ
convergence over growing prefixes (Srinivasan et al. §8, Fig. 17-18). Files are written to a
temporary name and renamed, so a failure never leaves half a figure."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

from burstlab.io import atomic_write  # noqa: E402
from burstlab.stats import TraceStats  # noqa: E402

FORMATS = ("png", "pdf")


def _save(fig: Any, path: Path) -> None:
    atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=120, bbox_inches="tight"))


def _label(s: TraceStats, i: int) -> str:
    return s.name or f"trace {i}"


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
    """μ over growing prefixes of each trace (Srinivasan et al. §8); undefined points are gaps."""
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


# --------------------------------------------------------------------------------------
# Figures of the PRR/μ study (burstlab.experiments.prr_mu), in the spirit of Srinivasan et al.
# Figs. 3, 4, 6/8, 11, 12, 16, 17, 19 and 20; every title carries the dataset label
# ("synthetic" for the built-in testbed).
# --------------------------------------------------------------------------------------


def save_figure(fig: Any, folder: Path, name: str) -> Path:
    """Write ``name``.png and ``name``.pdf into ``folder`` atomically, close the figure;
    returns the PNG path."""
    try:
        for ext in FORMATS:
            _save(fig, folder / f"{name}.{ext}")
    finally:
        plt.close(fig)
    return folder / f"{name}.png"


def _arr(rows: Sequence[dict[str, Any]], key: str) -> npt.NDArray[np.float64]:
    return np.array([np.nan if r.get(key) is None else float(r[key]) for r in rows], dtype=float)


def fig03_throughput_vs_prr(links: Sequence[dict[str, Any]], label: str) -> Any:
    """Fig. 3: TCP throughput against PRR (colour: μ)."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    sc = ax.scatter(_arr(links, "prr"), _arr(links, "throughput_pps"), c=_arr(links, "mu"), cmap="viridis", s=18, vmin=-0.1, vmax=1.0)
    fig.colorbar(sc, ax=ax, label="μ")
    ax.set_xlabel("PRR")
    ax.set_ylabel("TCP throughput (packets/s)")
    ax.set_title(f"Throughput vs PRR ({label})")
    ax.grid(alpha=0.3)
    return fig


def fig04_burst_cdf(pair: Sequence[tuple[str, float, float, npt.NDArray[np.float64], npt.NDArray[np.float64]]], label: str, xmax: int = 40) -> Any:
    """Fig. 4: CDF of loss-burst lengths for two links with (nearly) the same PRR and very
    different throughput. ``pair`` holds (name, prr, throughput, lengths, counts)."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for name, prr, thr, lengths, counts in pair:
        cdf = np.cumsum(counts) / max(1, counts.sum())
        ax.step(np.concatenate([[0], lengths]), np.concatenate([[0], cdf]), where="post", label=f"{name}: PRR {prr:.2f}, {thr:.3g} pkt/s")
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("loss burst length (packets)")
    ax.set_ylabel("CDF")
    ax.set_title(f"Loss bursts of two links with equal PRR ({label})")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    return fig


def fig06_diff_vs_mu(links: Sequence[dict[str, Any]], label: str, title: str) -> Any:
    """Figs. 6/8: throughput difference to the independent link (%) against μ, PRR in grey shades."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    sc = ax.scatter(_arr(links, "mu"), _arr(links, "diff_pct"), c=_arr(links, "prr"), cmap="Greys", vmin=0.0, vmax=1.0, edgecolors="k", linewidths=0.4, s=22)
    fig.colorbar(sc, ax=ax, label="PRR")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlabel("μ")
    ax.set_ylabel("throughput difference vs independent link (%)")
    ax.set_title(f"{title} ({label})")
    ax.grid(alpha=0.3)
    return fig


def fig_fit(actual: npt.NDArray[np.float64], estimate: npt.NDArray[np.float64], label: str, title: str) -> Any:
    """Figs. 11/12: a fit's estimate (x) against the observed throughput (y), with x = y."""
    fig, ax = plt.subplots(figsize=(4.8, 4.4))
    ax.scatter(estimate, actual, s=16)
    top = float(np.nanmax(np.concatenate([actual, estimate, [1.0]]))) * 1.05
    ax.plot([0.0, top], [0.0, top], "k--", lw=0.8, label="x = y")
    ax.set_xlim(0.0, top)
    ax.set_ylim(0.0, top)
    ax.set_xlabel("estimated TCP throughput (packets/s)")
    ax.set_ylabel("simulated TCP throughput (packets/s)")
    ax.set_title(f"{title} ({label})", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def fig16_chunk_rms(links: Sequence[dict[str, Any]], chunk: int, label: str) -> Any:
    """Fig. 16: RMS deviation of per-chunk μ from the whole-trace μ, against μ."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    ax.scatter(_arr(links, "mu"), _arr(links, "chunk_rms_mu"), s=16)
    ax.set_xlabel("μ of the whole trace")
    ax.set_ylabel(f"RMS of chunk μ − μ (chunks of {chunk})")
    ax.set_title(f"μ over {chunk}-packet chunks ({label})")
    ax.grid(alpha=0.3)
    return fig


def fig17_convergence(curves: Sequence[tuple[str, npt.NDArray[np.float64], npt.NDArray[np.float64]]], label: str) -> Any:
    """Fig. 17: μ of the first n packets against n for representative links."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for name, n, mu in curves:
        ax.plot(n, mu, lw=1.2, label=name)
    ax.set_xlabel("packets")
    ax.set_ylabel("μ of the first n packets")
    ax.set_title(f"Convergence of μ ({label})")
    ax.legend(fontsize=6, loc="best")
    ax.grid(alpha=0.3)
    return fig


def fig19_ge_vs_empirical(links: Sequence[dict[str, Any]], link_pps: float, label: str) -> Any:
    """Fig. 19: Gilbert-Elliott synthetic throughput (y) against the empirical throughput (x)."""
    fig, ax = plt.subplots(figsize=(4.8, 4.4))
    x, y = _arr(links, "throughput_pps"), _arr(links, "ge_pps")
    ax.scatter(x, y, s=16)
    top = max(1.0, float(np.nanmax(np.concatenate([x, y, [0.0]]))) * 1.05)
    top = min(top, link_pps) if math.isfinite(link_pps) else top
    ax.plot([0, top], [0, top], "k--", lw=0.8, label="x = y")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel("empirical-link TCP throughput (packets/s)")
    ax.set_ylabel("Gilbert-Elliott link TCP throughput (packets/s)")
    ax.set_title(f"GE link with the same PRR and μ ({label})", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def fig20_longest_runs(links: Sequence[dict[str, Any]], label: str) -> Any:
    """Fig. 20: the longest success run of each link (x) against the longest its GE links produced (y)."""
    fig, ax = plt.subplots(figsize=(4.8, 4.4))
    x, y = _arr(links, "max_success_run"), _arr(links, "ge_max_success_run")
    ax.scatter(x, y, s=16)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if ok.any():
        lo = 1.0
        hi = float(max(x[ok].max(), y[ok].max())) * 1.5
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8, label="x = y")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.legend(fontsize=8)
    ax.set_xlabel("longest success run, empirical link (packets)")
    ax.set_ylabel("longest success run, GE links (packets)")
    ax.set_title(f"Longest bursts of successes ({label})", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    return fig
