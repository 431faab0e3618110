"""Estimates with their uncertainty, from replicate samples.

A *sample* is a 1-D array of one measured number per replicate (NaN: the replicate has
no value, e.g. a transfer that did not finish). Studies run replicate k of every cell
with the same seed (common random numbers), so two samples of the same length are
*paired*: their differences and ratios are computed replicate by replicate, and a pair
with a NaN on either side is dropped.

Every interval is a two-sided confidence interval at ``level`` (95 % by default):
Student's t for means and paired differences, the delta method for ratios of means
(with the pairing entering through the covariance), and a bootstrap
(:func:`scipy.stats.bootstrap`, BCa, resampling replicates jointly) for any other
statistic.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    """A number computed from ``n`` replicates, with its confidence interval [lo, hi]
    (NaN bounds: no interval — fewer than two usable replicates, or a degenerate sample)."""

    value: float
    lo: float
    hi: float
    n: int
    method: str = "t"
    level: float = LEVEL

    @property
    def has_interval(self) -> bool:
        return math.isfinite(self.lo) and math.isfinite(self.hi) and self.n >= 2

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2 if self.has_interval else math.nan

    def __format__(self, spec: str) -> str:
        if not math.isfinite(self.value):
            return "–"
        spec = spec or ".3g"
        if not self.has_interval:
            return f"{self.value:{spec}} (no interval, n = {self.n})"
        return f"{self.value:{spec}} [{self.lo:{spec}}, {self.hi:{spec}}]"


NAN = Estimate(math.nan, math.nan, math.nan, 0)


@functools.lru_cache(maxsize=1024)
def t_quantile(n: int, level: float = LEVEL) -> float:
    """Student's t quantile of a two-sided ``level`` interval with n − 1 degrees of freedom."""
    from scipy.stats import t

    return float(t.ppf(0.5 + level / 2, max(1, n - 1)))


def _finite(x: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(x, float)
    return a[np.isfinite(a)]


def _paired(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The replicates both samples have (the first min(len) replicates, NaN pairs dropped)."""
    n = min(len(x), len(y))
    a, b = np.asarray(x[:n], float), np.asarray(y[:n], float)
    ok = np.isfinite(a) & np.isfinite(b)
    return a[ok], b[ok]


def mean(x: Sequence[float] | np.ndarray, level: float = LEVEL) -> Estimate:
    """Mean of the finite values with its Student-t interval."""
    a = _finite(x)
    n = len(a)
    if n == 0:
        return NAN
    m = float(np.mean(a))
    if n == 1:
        return Estimate(m, math.nan, math.nan, 1)
    h = t_quantile(n, level) * float(np.std(a, ddof=1)) / math.sqrt(n)
    return Estimate(m, m - h, m + h, n, "t", level)


def difference(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, paired: bool = True, level: float = LEVEL) -> Estimate:
    """mean(x) − mean(y): paired (the mean of per-replicate differences, Student's t) or
    independent (Welch's t interval)."""
    if paired:
        a, b = _paired(x, y)
        e = mean(a - b, level)
        return Estimate(e.value, e.lo, e.hi, e.n, "paired t", level)
    a, b = _finite(x), _finite(y)
    if len(a) < 2 or len(b) < 2:
        d = float(np.mean(a) - np.mean(b)) if len(a) and len(b) else math.nan
        return Estimate(d, math.nan, math.nan, min(len(a), len(b)), "Welch t", level)
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)) if se > 0 else 1.0
    from scipy.stats import t

    h = float(t.ppf(0.5 + level / 2, df)) * se
    d = float(np.mean(a) - np.mean(b))
    return Estimate(d, d - h, d + h, min(len(a), len(b)), "Welch t", level)


def ratio(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, paired: bool = True, level: float = LEVEL) -> Estimate:
    """mean(x) ÷ mean(y) with a delta-method interval:
    var R ≈ R²·(s²ₓ/(n·x̄²) + s²ᵧ/(n·ȳ²) − 2·sₓᵧ/(n·x̄·ȳ)); the covariance term only when
    the samples are paired (common random numbers)."""
    if paired:
        a, b = _paired(x, y)
    else:
        a, b = _finite(x), _finite(y)
    n = min(len(a), len(b))
    if n == 0 or np.mean(b) <= 0:
        return Estimate(math.nan, math.nan, math.nan, n, "delta", level)
    mx, my = float(np.mean(a)), float(np.mean(b))
    r = mx / my
    if n < 2 or len(a) < 2 or len(b) < 2:
        return Estimate(r, math.nan, math.nan, n, "delta", level)
    vx, vy = float(np.var(a, ddof=1)), float(np.var(b, ddof=1))
    var = r * r * (vx / (len(a) * mx * mx) + vy / (len(b) * my * my)) if mx != 0 else r * r * vy / (len(b) * my * my)
    if paired and mx != 0:
        var -= r * r * 2 * float(np.cov(a, b, ddof=1)[0, 1]) / (n * mx * my)
    h = t_quantile(n, level) * math.sqrt(max(var, 0.0))
    return Estimate(r, r - h, r + h, n, "delta", level)


def bootstrap(statistic: Callable[..., Any], samples: Sequence[Sequence[float] | np.ndarray], level: float = LEVEL,
              n_resamples: int = 2000, seed: int = 0, vectorized: bool = False) -> Estimate:  # fmt: skip
    """Any statistic of one or more paired samples (``statistic(*samples) -> float``), with
    a bootstrap interval that resamples replicates jointly (BCa; the percentile interval
    where BCa is undefined, e.g. a statistic constant over resamples). Replicates with a
    NaN in any sample are dropped; the seed makes the interval reproducible.
    ``vectorized``: the statistic takes ``axis`` and computes every resample at once (the
    same resamples, hundreds of times faster than one Python call per resample)."""
    from scipy.stats import bootstrap as sp_bootstrap

    n = min(len(s) for s in samples)
    arr = np.array([np.asarray(s[:n], float) for s in samples])
    arr = arr[:, np.all(np.isfinite(arr), axis=0)]
    n = arr.shape[1]
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "bootstrap", level)
    value = float(statistic(*arr, axis=-1) if vectorized else statistic(*arr))
    if n < 2 or not math.isfinite(value):
        return Estimate(value, math.nan, math.nan, n, "bootstrap", level)
    rng = np.random.default_rng(seed)
    for method in ("BCa", "percentile"):
        with np.errstate(all="ignore"):
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = sp_bootstrap(tuple(arr), statistic, paired=True, vectorized=vectorized, n_resamples=n_resamples,
                                   confidence_level=level, method=method, rng=rng)  # fmt: skip
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if math.isfinite(lo) and math.isfinite(hi):
            return Estimate(value, min(lo, value), max(hi, value), n, f"bootstrap {method}", level)
    return Estimate(value, math.nan, math.nan, n, "bootstrap", level)
