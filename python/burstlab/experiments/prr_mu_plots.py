"""Figures of the PRR/μ study, in the spirit of seed 000 Figs. 3, 4, 6/8, 11, 12, 16, 17, 19
and 20. Each is written as PNG and PDF (matplotlib, Agg backend), atomically (temp file +
rename), and every figure's title carries the dataset label ("synthetic" for the built-in
testbed)."""

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
from matplotlib.figure import Figure  # noqa: E402

FORMATS = ("png", "pdf")


def save(fig: Figure, folder: Path, name: str) -> Path:
    """Write ``name``.png and ``name``.pdf into ``folder`` atomically; returns the PNG path."""
    folder.mkdir(parents=True, exist_ok=True)
    for ext in FORMATS:
        final = folder / f"{name}.{ext}"
        tmp = folder / f".{name}.tmp.{ext}"
        fig.savefig(tmp, dpi=120, bbox_inches="tight", metadata={"CreationDate": None} if ext == "pdf" else None)
        os.replace(tmp, final)
    plt.close(fig)
    return folder / f"{name}.png"


def _arr(rows: Sequence[dict[str, Any]], key: str) -> np.ndarray:
    return np.array([np.nan if r.get(key) is None else float(r[key]) for r in rows], dtype=float)


def fig03_throughput_vs_prr(links: Sequence[dict[str, Any]], label: str) -> Figure:
    """Fig. 3: TCP throughput against PRR (colour: μ)."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    sc = ax.scatter(_arr(links, "prr"), _arr(links, "throughput_pps"), c=_arr(links, "mu"), cmap="viridis", s=18, vmin=-0.1, vmax=1.0)
    fig.colorbar(sc, ax=ax, label="μ")
    ax.set_xlabel("PRR")
    ax.set_ylabel("TCP throughput (packets/s)")
    ax.set_title(f"Throughput vs PRR ({label})")
    ax.grid(alpha=0.3)
    return fig


def fig04_burst_cdf(pair: Sequence[tuple[str, float, float, np.ndarray, np.ndarray]], label: str, xmax: int = 40) -> Figure:
    """Fig. 4: CDF of loss-burst lengths for two links with (nearly) the same PRR and very
    different throughput. ``pair`` holds (name, prr, throughput, lengths, counts)."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for name, prr, thr, lengths, counts in pair:
        cdf = np.cumsum(counts) / max(1, counts.sum())
        ax.step(np.concatenate([[0], lengths]), np.concatenate([[0], cdf]), where="post", label=f"{name}: PRR {prr:.2f}, {thr:.1f} pkt/s")
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("loss burst length (packets)")
    ax.set_ylabel("CDF")
    ax.set_title(f"Loss bursts of two links with equal PRR ({label})")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    return fig


def fig06_diff_vs_mu(links: Sequence[dict[str, Any]], label: str, title: str) -> Figure:
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


def fig_fit(actual: np.ndarray, estimate: np.ndarray, label: str, title: str) -> Figure:
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


def fig16_chunk_rms(links: Sequence[dict[str, Any]], chunk: int, label: str) -> Figure:
    """Fig. 16: RMS deviation of per-chunk μ from the whole-trace μ, against μ."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    ax.scatter(_arr(links, "mu"), _arr(links, "chunk_rms_mu"), s=16)
    ax.set_xlabel("μ of the whole trace")
    ax.set_ylabel(f"RMS of chunk μ − μ (chunks of {chunk})")
    ax.set_title(f"μ over {chunk}-packet chunks ({label})")
    ax.grid(alpha=0.3)
    return fig


def fig17_convergence(curves: Sequence[tuple[str, np.ndarray, np.ndarray]], label: str) -> Figure:
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


def fig19_ge_vs_empirical(links: Sequence[dict[str, Any]], link_pps: float, label: str) -> Figure:
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


def fig20_longest_runs(links: Sequence[dict[str, Any]], label: str) -> Figure:
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
