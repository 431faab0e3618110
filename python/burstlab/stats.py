"""Trace statistics, computed in Rust on the packed bits (Srinivasan et al. §5.2-5.3, §6.2, §8;
Barsocchi et al. §IV).

Encoding a trace as a bit string (1 = success), ``|xy|`` counts adjacent pairs; then
g = |01| / (|01| + |00|) = P(success | previous loss), b = |10| / (|10| + |11|) =
P(loss | previous success) and the burstiness μ = 1 − g − b.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from burstlab._core import BitTrace, ParameterError
from burstlab._util import json_safe



class TraceLike(Protocol):
    """What the statistics read of a trace: a :class:`burstlab.traces.Trace` (which imports
    this module for ``Trace.stats``, so it is named here by what it offers)."""

    name: str | None

    @property
    def bits(self) -> BitTrace: ...

#: Srinivasan et al. §8 measures μ over chunks of 6000 packets.
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

    def to_dict(self) -> dict[str, Any]:
        return {"lengths": self.lengths.tolist(), "counts": self.counts.tolist(), "mean": json_safe(self.mean), "max": self.max}


LINK_CLASSES = ("very poor", "poor", "intermediate", "good", "very good", "perfect")


def link_class(prr: float, very_good: float | None = None) -> str:
    """Srinivasan et al. Fig. 2: very poor < 10% ≤ poor < 20% ≤ intermediate ≤ 60% < good < 100% =
    perfect. The paper names a "very good" class above 60% without giving its lower bound;
    pass ``very_good`` (e.g. 0.9) to split good links at that PRR (default: no split)."""
    if not (0.0 <= prr <= 1.0):
        raise ParameterError(f"invalid parameter prr = {prr}: expected a probability in [0, 1]")
    if prr >= 1.0:
        return "perfect"
    if prr > 0.6:
        return "very good" if very_good is not None and prr >= very_good else "good"
    if prr >= 0.2:
        return "intermediate"
    if prr >= 0.1:
        return "poor"
    return "very poor"


def ge_from_prr_mu(prr: float, mu: float) -> tuple[float, float]:
    """Srinivasan et al. §6.2: (g, b) = (PRR·(1−μ), (1−PRR)·(1−μ)) from G·b = B·g and μ = 1−g−b."""
    return prr * (1.0 - mu), (1.0 - prr) * (1.0 - mu)


def p_two_successes(prr: float, mu: float) -> float:
    """Srinivasan et al. §6.2: probability of two consecutive successes, G·(1 − b)."""
    _, b = ge_from_prr_mu(prr, mu)
    return prr * (1.0 - b)


@dataclass(frozen=True)
class TraceStats:
    """Statistics of one trace. ``mu``, ``g`` and ``b`` (and what derives from them) are
    None where undefined; ``mu_undefined`` then says why."""

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
    chunk_mu: npt.NDArray[np.float64] = field(repr=False, default_factory=lambda: np.zeros(0))

    @property
    def prr(self) -> float | None:
        return self.delivered / self.length if self.length else None

    @property
    def lost(self) -> int:
        return self.length - self.delivered

    @property
    def g(self) -> float | None:
        """P(success | previous loss) = |01| / (|01| + |00|) (Srinivasan et al. §5.2)."""
        d = self.n01 + self.n00
        return self.n01 / d if d else None

    @property
    def b(self) -> float | None:
        """P(loss | previous success) = |10| / (|10| + |11|) (Srinivasan et al. §5.2)."""
        d = self.n10 + self.n11
        return self.n10 / d if d else None

    @property
    def mu(self) -> float | None:
        """μ = 1 − g − b (Srinivasan et al. §5.2-5.3)."""
        g, b = self.g, self.b
        return None if g is None or b is None else 1.0 - g - b

    @property
    def mu_undefined(self) -> str | None:
        """Why μ is undefined (None when it is defined)."""
        if self.mu is not None:
            return None
        if not self.length:
            return "the trace is empty"
        if self.length == 1:
            return "the trace has a single entry"
        if self.lost == 0:
            return "the trace has no loss"
        if self.delivered == 0:
            return "the trace has no success"
        return "no loss is followed by another entry" if self.g is None else "no success is followed by another entry"

    @property
    def p_success_after_success(self) -> float | None:
        """P(1 | previous 1) = 1 − b."""
        b = self.b
        return None if b is None else 1.0 - b

    @property
    def p_loss_after_loss(self) -> float | None:
        """P(0 | previous 0) = 1 − g."""
        g = self.g
        return None if g is None else 1.0 - g

    @property
    def p_two_successes(self) -> float | None:
        """Empirical probability that two consecutive entries are both delivered: |11| / (len − 1)."""
        pairs = self.n00 + self.n01 + self.n10 + self.n11
        return self.n11 / pairs if pairs else None

    @property
    def p_two_successes_ge(self) -> float | None:
        """Srinivasan et al. §6.2 closed form G·(1 − b) with b from PRR and μ."""
        prr, mu = self.prr, self.mu
        return None if prr is None or mu is None else p_two_successes(prr, mu)

    @property
    def p_two_successes_independent(self) -> float | None:
        """The same for an independent link with this PRR (μ = 0): PRR²."""
        prr = self.prr
        return None if prr is None else prr * prr

    @property
    def ge_closed_form(self) -> tuple[float, float] | None:
        """Srinivasan et al. §6.2: (g, b) = (PRR·(1−μ), (1−PRR)·(1−μ)), None where μ is undefined."""
        prr, mu = self.prr, self.mu
        return None if prr is None or mu is None else ge_from_prr_mu(prr, mu)

    @property
    def link_class(self) -> str | None:
        p = self.prr
        return None if p is None else link_class(p)

    def to_dict(self, runs: bool = True) -> dict[str, Any]:
        cf = self.ge_closed_form
        d: dict[str, Any] = {
            "name": self.name,
            "length": self.length,
            "delivered": self.delivered,
            "lost": self.lost,
            "prr": self.prr,
            "link_class": self.link_class,
            "n00": self.n00,
            "n01": self.n01,
            "n10": self.n10,
            "n11": self.n11,
            "g": self.g,
            "b": self.b,
            "mu": self.mu,
            "mu_undefined": self.mu_undefined,
            "p_success_after_success": self.p_success_after_success,
            "p_loss_after_loss": self.p_loss_after_loss,
            "p_two_successes": self.p_two_successes,
            "p_two_successes_ge": self.p_two_successes_ge,
            "p_two_successes_independent": self.p_two_successes_independent,
            "g_closed_form": None if cf is None else cf[0],
            "b_closed_form": None if cf is None else cf[1],
            "n_loss_bursts": self.loss_bursts.n_runs,
            "mean_loss_burst": json_safe(self.loss_bursts.mean),
            "max_loss_burst": self.loss_bursts.max,
            "n_success_runs": self.success_runs.n_runs,
            "mean_success_run": json_safe(self.success_runs.mean),
            "max_success_run": self.success_runs.max,
            "chunk": self.chunk,
            "chunk_rms_mu": self.chunk_rms,
        }
        if runs:
            d["loss_bursts"] = self.loss_bursts.to_dict()
            d["success_runs"] = self.success_runs.to_dict()
            d["convergence"] = {
                "prefix_lengths": self.prefix_lengths.tolist(),
                "mu": json_safe([float(m) for m in self.prefix_mu]),
                "chunk_mu": json_safe([float(m) for m in self.chunk_mu]),
            }
        return d


def prefix_grid(length: int, points: int = 100) -> npt.NDArray[np.uint64]:
    """Prefix lengths for the μ-convergence curve: ``points`` evenly spaced up to the length
    (Srinivasan et al. §8 uses steps of 1000 up to 100000)."""
    if points <= 0:
        raise ParameterError(f"invalid parameter convergence_points = {points}: expected a positive count")
    if length == 0:
        return np.zeros(0, dtype=np.uint64)
    grid = np.unique(np.linspace(0, length, points + 1)[1:].round().astype(np.uint64))
    return grid


def trace_stats(trace: TraceLike, *, chunk: int = DEFAULT_CHUNK, convergence_points: int = 100, warn: bool = True) -> TraceStats:
    """All statistics of ``trace``, computed in Rust on the packed bits in one fused pass
    (``BitTrace.summary``).

    ``chunk`` is the chunk size of the RMS μ deviation (Srinivasan et al. §8: 6000 packets);
    ``convergence_points`` the number of prefixes of the μ-convergence curve. Warns
    :class:`UndefinedMuWarning` where μ is undefined (all delivered, all lost, < 2 entries).
    """
    if chunk <= 0:
        raise ParameterError(f"invalid parameter chunk = {chunk}: expected a positive chunk size")
    bits = trace.bits
    grid = prefix_grid(len(bits), convergence_points)
    s = bits.summary(chunk, grid)  # every statistic in one pass over the packed words (Rust)
    (zl, zc), (ol, oc) = s["loss_bursts"], s["success_runs"]
    st = TraceStats(
        name=trace.name,
        length=s["length"],
        delivered=s["ones"],
        n00=s["n00"],
        n01=s["n01"],
        n10=s["n10"],
        n11=s["n11"],
        loss_bursts=RunDistribution(zl, zc),
        success_runs=RunDistribution(ol, oc),
        chunk=chunk,
        chunk_rms=s["chunk_rms"],
        prefix_lengths=grid,
        prefix_mu=s["prefix_mu"],
        chunk_mu=s["chunk_mu"],
    )
    if st.mu is None and warn:
        warnings.warn(
            f"μ is undefined for trace {trace.name or '<unnamed>'}: {st.mu_undefined}", UndefinedMuWarning, stacklevel=2
        )
    return st
