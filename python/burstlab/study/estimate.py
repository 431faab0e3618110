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
import hashlib
import json
import math
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
import warnings
from collections.abc import Callable, Sequence
import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from burstlab.io import atomic_write_text
from importlib.metadata import version
from burstlab._core import __version__

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


#: The Student's t quantiles this process has computed, by (n, level): :func:`known_t_quantiles`
#: hands them to the processes that draw a study's figures, which then need not import
#: scipy.special (~0.2 s of CPU in each) for the same numbers.
_T_QUANTILES: dict[tuple[int, float], float] = {}


def t_quantile(n: int, level: float = LEVEL) -> float:
    """Student's t quantile of a two-sided ``level`` interval with n − 1 degrees of freedom
    (``scipy.special.stdtrit``: the same numbers as ``scipy.stats.t.ppf`` without importing
    scipy.stats, ~0.4 s of a study's start). Computed once per (n, level) in a process."""
    key = (int(n), float(level))
    q = _T_QUANTILES.get(key)
    if q is None:
        from scipy.special import stdtrit

        q = _T_QUANTILES[key] = float(stdtrit(max(1, key[0] - 1), 0.5 + key[1] / 2))
    return q


def known_t_quantiles() -> dict[tuple[int, float], float]:
    """The t quantiles this process has computed (for :func:`add_t_quantiles` in another)."""
    return dict(_T_QUANTILES)


def add_t_quantiles(table: dict[tuple[int, float], float]) -> None:
    """Take the t quantiles another process computed (:func:`known_t_quantiles`): the same
    numbers :func:`t_quantile` would compute here, without importing scipy.special."""
    _T_QUANTILES.update(table)


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
    from scipy.special import stdtrit

    h = float(stdtrit(df, 0.5 + level / 2)) * se
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


#: The bootstrap intervals of earlier runs (:func:`bootstrap_cache`): key → Estimate fields.
_CACHE: dict[str, Any] | None = None
_USED: set[str] = set()


@contextmanager
def bootstrap_cache(path: str | Path) -> Iterator[None]:
    """Within the block, :func:`bootstrap` reuses the intervals it computed on earlier runs
    with the same data, statistic and settings (kept in the JSON file ``path``): a study
    re-run on unchanged results recomputes no bootstrap and never imports scipy.stats. The
    file keeps the intervals used in this block only; an unreadable file is ignored."""
    global _CACHE
    path = Path(path)
    try:
        data = json.loads(path.read_text()) if path.is_file() else {}
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    loaded = set(data)
    prev, prev_used = _CACHE, set(_USED)
    _CACHE = data
    _USED.clear()
    try:
        yield
    finally:
        used = {k: data[k] for k in _USED if k in data}
        _CACHE = prev
        _USED.clear()
        _USED.update(prev_used)
        if set(used) != loaded:  # new intervals, or stale ones to drop

            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps(used, sort_keys=True))


@functools.lru_cache(maxsize=1)
def _versions() -> str:


    return f"burstlab {__version__}, scipy {version('scipy')}, numpy {np.__version__}"


def _code_digest(code: types.CodeType) -> str:
    parts = [code.co_code.hex()]
    for c in code.co_consts:
        parts.append(_code_digest(c) if isinstance(c, types.CodeType) else repr(c))
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def _bootstrap_key(statistic: Callable[..., Any], arr: np.ndarray, settings: tuple[Any, ...]) -> str:
    """The identity of a bootstrap: the statistic (its code, constants, closure and
    defaults — a repr holding an address makes a key that never matches, which is safe),
    the data, the settings and the libraries' versions."""
    parts = [getattr(statistic, "__module__", "") or "", getattr(statistic, "__qualname__", repr(statistic))]
    code = getattr(statistic, "__code__", None)
    if isinstance(code, types.CodeType):
        parts.append(_code_digest(code))
    parts += [repr(c.cell_contents) for c in getattr(statistic, "__closure__", None) or ()]
    parts += [repr(getattr(statistic, "__defaults__", None)), repr(settings), repr(arr.shape), _versions()]
    h = hashlib.sha256("\x1f".join(parts).encode())
    h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()


def bootstrap(statistic: Callable[..., Any], samples: Sequence[Sequence[float] | np.ndarray], level: float = LEVEL,
              n_resamples: int = 2000, seed: int = 0, vectorized: bool = False) -> Estimate:  # fmt: skip
    """Any statistic of one or more paired samples (``statistic(*samples) -> float``), with
    a bootstrap interval that resamples replicates jointly (BCa; the percentile interval
    where BCa is undefined, e.g. a statistic constant over resamples). Replicates with a
    NaN in any sample are dropped; the seed makes the interval reproducible.
    ``vectorized``: the statistic takes ``axis`` and computes every resample at once (the
    same resamples, hundreds of times faster than one Python call per resample). Within
    :func:`bootstrap_cache`, an interval computed before on the same data is reused."""
    n = min(len(s) for s in samples)
    arr = np.array([np.asarray(s[:n], float) for s in samples])
    arr = arr[:, np.all(np.isfinite(arr), axis=0)]
    if _CACHE is None:
        return _bootstrap(statistic, arr, level, n_resamples, seed, vectorized)
    key = _bootstrap_key(statistic, arr, (level, n_resamples, seed, vectorized))
    _USED.add(key)
    if key in _CACHE:
        return Estimate(**_CACHE[key])
    e = _bootstrap(statistic, arr, level, n_resamples, seed, vectorized)
    _CACHE[key] = dataclasses.asdict(e)
    return e


def _bootstrap(statistic: Callable[..., Any], arr: np.ndarray, level: float, n_resamples: int, seed: int, vectorized: bool) -> Estimate:
    from scipy.stats import bootstrap as sp_bootstrap

    n = arr.shape[1]
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "bootstrap", level)
    value = float(statistic(*arr, axis=-1) if vectorized else statistic(*arr))
    if n < 2 or not math.isfinite(value):
        return Estimate(value, math.nan, math.nan, n, "bootstrap", level)
    rng = np.random.default_rng(seed)
    for method in ("BCa", "percentile"):
        with np.errstate(all="ignore"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = sp_bootstrap(tuple(arr), statistic, paired=True, vectorized=vectorized, n_resamples=n_resamples,
                                   confidence_level=level, method=method, rng=rng)  # fmt: skip
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if math.isfinite(lo) and math.isfinite(hi):
            return Estimate(value, min(lo, value), max(hi, value), n, f"bootstrap {method}", level)
    return Estimate(value, math.nan, math.nan, n, "bootstrap", level)
