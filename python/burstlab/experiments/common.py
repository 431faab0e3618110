"""What the simulation studies share (:mod:`~burstlab.experiments.error_models`,
:mod:`~burstlab.experiments.tibet`): cells keyed by their parameters, tasks of items that
resume from the store, paired statistics over replicates with common random numbers, and
atomic JSON.

A *cell* is one simulated configuration (a dict of plain values); an *item* is one cell
with one replicate, keyed by :func:`burstlab.store.config_hash` of {study, params,
replicate, seed, burstlab version, ...}: a killed study resumes from the rows it has, and
the rows never depend on the worker count.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from burstlab import __version__
from burstlab.store import canonical_json


@dataclass(frozen=True)
class Item:
    """One simulation: a cell, its replicate, seed, key and configuration."""

    cell: str
    params: dict[str, Any]
    replicate: int
    seed: int
    key: str
    config: str


@dataclass(frozen=True)
class Task:
    """A group of simulations run by one worker call (one environment × one experiment
    group): its items."""

    name: str
    items: tuple[Item, ...]


def cell_hash(study: str, p: dict[str, Any]) -> str:
    """A short identity of a cell: SHA-256 of its parameters' canonical JSON (they are plain
    values — str, int, float, bool, None — so ``json.dumps`` with sorted keys is canonical)."""
    text = json.dumps({"study": study, "cell": p}, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def keyed_items(study: str, cid: str, p: dict[str, Any], seeds: Sequence[int], extra: dict[str, Any] | None = None) -> list[Item]:
    """Replicates 0..len(seeds)−1 of cell ``p`` (id ``cid``), replicate k with ``seeds[k]``.
    Each key is :func:`burstlab.store.config_hash` of {study, params, replicate, seed,
    burstlab version, and ``extra``}; the parameters are checked once (``canonical_json``),
    then each replicate's text is ``json.dumps`` of plain values, which is the same
    canonical text at a fraction of the cost."""
    extra = extra or {}
    if any(k >= "replicate" or k in ("burstlab_version", "params") for k in extra):
        raise ValueError(f"extra keys must sort before 'replicate' and not shadow the item's own: {sorted(extra)}")
    canonical_json(p)  # plain, finite, JSON-serialisable, or a ParameterError
    # Sorted keys: burstlab_version, <extra>, params | replicate, seed, study.
    head = json.dumps({"burstlab_version": __version__, **extra, "params": p}, sort_keys=True, separators=(",", ":"))[:-1]
    out = []
    for k, seed in enumerate(seeds):
        text = f'{head},"replicate":{k},"seed":{seed},"study":"{study}"}}'
        out.append(Item(cid, p, k, seed, hashlib.sha256(text.encode()).hexdigest(), text))
    return out


def pending(tasks: Sequence[Task], done: set[str]) -> list[Task]:
    """The tasks with their finished items removed (resume)."""
    out = []
    for t in tasks:
        left = tuple(i for i in t.items if i.key not in done)
        if left:
            out.append(Task(t.name, left))
    return out


@functools.lru_cache(maxsize=1024)
def t95(n: int) -> float:
    """Student's t quantile for a two-sided 95 % interval with n − 1 degrees of freedom."""
    from scipy.stats import t

    return float(t.ppf(0.975, max(1, n - 1)))


def mean_ci(x: np.ndarray) -> tuple[float, float]:
    """Mean of the finite values and its 95 % Student-t half-width (NaN with fewer than two)."""
    x = np.asarray(x, float)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return math.nan, math.nan
    if len(x) == 1:
        return float(x[0]), math.nan
    return float(np.mean(x)), t95(len(x)) * float(np.std(x, ddof=1)) / math.sqrt(len(x))


@dataclass(frozen=True)
class Ratio:
    """mean(x) / mean(y) over paired replicates, with a delta-method 95 % interval
    (var R ≈ R²·(s²ₓ/(n·x̄²) + s²ᵧ/(n·ȳ²) − 2·sₓᵧ/(n·x̄·ȳ)); the pairing — common random
    numbers — enters through the covariance)."""

    value: float
    lo: float
    hi: float
    n: int

    def __format__(self, spec: str) -> str:
        if not math.isfinite(self.value):
            return "–"
        spec = spec or ".2f"
        return f"{self.value:{spec}} [{self.lo:{spec}}, {self.hi:{spec}}]"


NAN_RATIO = Ratio(math.nan, math.nan, math.nan, 0)


def paired_ratio(x: np.ndarray, y: np.ndarray) -> Ratio:
    """Ratio of means of two cells (arrays by replicate; pairs with a NaN dropped)."""
    n_all = min(len(x), len(y))
    x, y = np.asarray(x[:n_all], float), np.asarray(y[:n_all], float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    n = len(x)
    if n < 2 or np.mean(y) <= 0:
        return Ratio(math.nan, math.nan, math.nan, n)
    mx, my = float(np.mean(x)), float(np.mean(y))
    r = mx / my
    c = np.cov(x, y, ddof=1)
    var = r * r * (c[0, 0] / (n * mx * mx) + c[1, 1] / (n * my * my) - 2 * c[0, 1] / (n * mx * my))
    h = t95(n) * math.sqrt(max(var, 0.0))
    return Ratio(r, r - h, r + h, n)


def paired_difference(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """mean(x − y) over paired replicates and its 95 % CI half-width."""
    n_all = min(len(x), len(y))
    d = np.asarray(x[:n_all], float) - np.asarray(y[:n_all], float)
    d = d[np.isfinite(d)]
    if len(d) < 2:
        return math.nan, math.nan
    return float(np.mean(d)), t95(len(d)) * float(np.std(d, ddof=1)) / math.sqrt(len(d))


def write_json(path: Path, obj: Any) -> None:
    """Write JSON atomically (NaN → null)."""
    from burstlab._util import json_safe
    from burstlab.io import atomic_write_text

    atomic_write_text(path, json.dumps(json_safe(obj), indent=2, allow_nan=False, default=str))
