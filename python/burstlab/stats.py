"""Trace statistics, computed in Rust on the packed bits (seed 000 §5.2-5.3, §6.2, §8;
seed 001 §IV).

Encoding a trace as a bit string (1 = success), ``|xy|`` counts adjacent pairs; then
g = |01| / (|01| + |00|) = P(success | previous loss), b = |10| / (|10| + |11|) =
P(loss | previous success) and the burstiness μ = 1 − g − b.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from burstlab.traces import Trace

#: Seed 000 §8 measures μ over chunks of 6000 packets.
DEFAULT_CHUNK = 6000


class UndefinedMuWarning(UserWarning):
    """μ is undefined for this trace (no loss, no success, or a single entry)."""


@dataclass(frozen=True)
class RunDistribution:
    """Distribution of run lengths (loss bursts or success runs / error gaps)."""

    lengths: npt.NDArray[np.uint64]
    counts: npt.NDArray[np.uint64]

    @property
    def n_runs(self) -> int:
        return int(self.counts.sum())

    @property
    def mean(self) -> float:
        """Mean run length (NaN if there is no run)."""
        n = self.n_runs
        return float((self.lengths * self.counts).sum() / n) if n else math.nan

    @property
    def max(self) -> int:
        """Longest run (0 if there is none)."""
        return int(self.lengths[-1]) if self.lengths.size else 0

    def pmf(self) -> npt.NDArray[np.float64]:
        n = self.n_runs
        return self.counts / n if n else np.zeros(0)

    def cdf(self) -> npt.NDArray[np.float64]:
        """P(L ≤ lengths[i])."""
        return np.cumsum(self.pmf())

    def ccdf(self) -> npt.NDArray[np.float64]:
        """P(L ≥ lengths[i]) (inclusive, so the log-log plot starts at 1)."""
        p = self.pmf()
        return np.cumsum(p[::-1])[::-1]

    def expand(self) -> npt.NDArray[np.uint64]:
        """All run lengths, sorted (for KS distances)."""
        return np.repeat(self.lengths, self.counts.astype(np.int64))

    def to_dict(self) -> dict[str, Any]:
        return {"lengths": self.lengths.tolist(), "counts": self.counts.tolist(), "mean": _nan_none(self.mean), "max": self.max}


def _nan_none(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def link_class(prr: float) -> str:
    """Seed 000 Fig. 2: very poor < 10% ≤ poor < 20% ≤ intermediate ≤ 60% < good < 100% = perfect."""
    if prr >= 1.0:
        return "perfect"
    if prr > 0.6:
        return "good"
    if prr >= 0.2:
        return "intermediate"
    if prr >= 0.1:
        return "poor"
    return "very poor"


def ge_from_prr_mu(prr: float, mu: float) -> tuple[float, float]:
    """Seed 000 §6.2: (g, b) = (PRR·(1−μ), (1−PRR)·(1−μ)) from G·b = B·g and μ = 1−g−b."""
    return prr * (1.0 - mu), (1.0 - prr) * (1.0 - mu)


def p_two_successes(prr: float, mu: float) -> float:
    """Seed 000 §6.2: probability of two consecutive successes, G·(1 − b)."""
    _, b = ge_from_prr_mu(prr, mu)
    return prr * (1.0 - b)


@dataclass(frozen=True)
class TraceStats:
    """Statistics of one trace. ``mu``, ``g`` and ``b`` are None where undefined."""

    name: str | None
    length: int
    delivered: int
    n00: int
    n01: int
    n10: int
    n11: int
    loss_bursts: RunDistribution
    success_runs: RunDistribution
    chunk: int
    chunk_rms: float | None
    prefix_lengths: npt.NDArray[np.uint64] = field(repr=False)
    prefix_mu: npt.NDArray[np.float64] = field(repr=False)

    @property
    def prr(self) -> float | None:
        return self.delivered / self.length if self.length else None

    @property
    def lost(self) -> int:
        return self.length - self.delivered

    @property
    def g(self) -> float | None:
        """P(success | previous loss) = |01| / (|01| + |00|)."""
        d = self.n01 + self.n00
        return self.n01 / d if d else None

    @property
    def b(self) -> float | None:
        """P(loss | previous success) = |10| / (|10| + |11|)."""
        d = self.n10 + self.n11
        return self.n10 / d if d else None

    @property
    def mu(self) -> float | None:
        """μ = 1 − g − b (seed 000 §5.2)."""
        g, b = self.g, self.b
        return None if g is None or b is None else 1.0 - g - b

    @property
    def p_success_after_success(self) -> float | None:
        b = self.b
        return None if b is None else 1.0 - b

    @property
    def p_loss_after_loss(self) -> float | None:
        g = self.g
        return None if g is None else 1.0 - g

    @property
    def link_class(self) -> str | None:
        p = self.prr
        return None if p is None else link_class(p)

    def to_dict(self, runs: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "length": self.length,
            "delivered": self.delivered,
            "prr": self.prr,
            "link_class": self.link_class,
            "n00": self.n00,
            "n01": self.n01,
            "n10": self.n10,
            "n11": self.n11,
            "g": self.g,
            "b": self.b,
            "mu": self.mu,
            "p_success_after_success": self.p_success_after_success,
            "p_loss_after_loss": self.p_loss_after_loss,
            "mean_loss_burst": _nan_none(self.loss_bursts.mean),
            "max_loss_burst": self.loss_bursts.max,
            "mean_success_run": _nan_none(self.success_runs.mean),
            "max_success_run": self.success_runs.max,
            "chunk": self.chunk,
            "chunk_rms_mu": self.chunk_rms,
        }
        if runs:
            d["loss_bursts"] = self.loss_bursts.to_dict()
            d["success_runs"] = self.success_runs.to_dict()
            d["convergence"] = {
                "prefix_lengths": self.prefix_lengths.tolist(),
                "mu": [None if math.isnan(m) else float(m) for m in self.prefix_mu],
            }
        return d


def prefix_grid(length: int, points: int = 100) -> npt.NDArray[np.uint64]:
    """Prefix lengths for the μ-convergence curve: `points` evenly spaced up to the length
    (seed 000 §8 uses steps of 1000 up to 100000)."""
    if length == 0:
        return np.zeros(0, dtype=np.uint64)
    grid = np.unique(np.linspace(0, length, points + 1)[1:].round().astype(np.uint64))
    return grid


def trace_stats(trace: Trace, *, chunk: int = DEFAULT_CHUNK, convergence_points: int = 100, warn: bool = True) -> TraceStats:
    """All statistics of ``trace``; warns :class:`UndefinedMuWarning` where μ is undefined."""
    if chunk <= 0:
        from burstlab._core import ParameterError

        raise ParameterError(f"invalid parameter chunk = {chunk}: expected a positive chunk size")
    bits = trace.bits
    n00, n01, n10, n11 = bits.transitions()
    zl, zc = bits.run_histogram(False)
    ol, oc = bits.run_histogram(True)
    grid = prefix_grid(len(bits), convergence_points)
    pmu = bits.prefix_mu(grid)
    cm = bits.chunk_mu(chunk)
    st = TraceStats(
        name=trace.name,
        length=len(bits),
        delivered=bits.count_ones(),
        n00=n00,
        n01=n01,
        n10=n10,
        n11=n11,
        loss_bursts=RunDistribution(zl, zc),
        success_runs=RunDistribution(ol, oc),
        chunk=chunk,
        chunk_rms=None,
        prefix_lengths=grid,
        prefix_mu=pmu,
    )
    mu = st.mu
    rms = None
    if mu is not None:
        ok = cm[~np.isnan(cm)]
        rms = float(np.sqrt(np.mean((ok - mu) ** 2))) if ok.size else None
    elif warn:
        why = "it is empty" if not st.length else "it has a single entry" if st.length == 1 else (
            "it has no loss" if st.lost == 0 else "it has no success" if st.delivered == 0 else "a state is never left"
        )
        warnings.warn(f"μ is undefined for trace {trace.name or '<unnamed>'}: {why}", UndefinedMuWarning, stacklevel=2)
    return TraceStats(**{**st.__dict__, "chunk_rms": rms})
