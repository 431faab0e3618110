"""Sojourn and run-length laws fitted to samples (the dicts ``loss/sojourn.rs`` draws from):
parametric families by maximum likelihood, and the empirical body with a discrete Pareto tail."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from burstlab import _core


def _fit_family(family: str, x: npt.NDArray[np.float64]) -> dict[str, Any]:
    """A sojourn law (dict for ``_core``) fitted to positive samples ``x`` by maximum likelihood."""
    if family == "exponential":
        return {"kind": "exponential", "mean": float(x.mean())}
    if family == "deterministic":
        return {"kind": "deterministic", "value": float(x.mean())}
    if family == "lognormal":
        lx = np.log(x)
        return {"kind": "lognormal", "mu": float(lx.mean()), "sigma": float(lx.std())}
    if family == "pareto":
        xm = float(x.min())
        s = float(np.log(x / xm).sum())
        shape = len(x) / s if s > 0 else 1e6
        return {"kind": "pareto", "scale": xm, "shape": float(shape)}
    if family == "empirical":
        v, c = np.unique(x, return_counts=True)
        return {"kind": "empirical", "values": v.tolist(), "weights": c.astype(float).tolist()}
    raise _core.ParameterError(f"invalid parameter family = {family!r}: expected exponential, deterministic, lognormal, pareto or empirical")


def _tail_settings(tail: str, tail_quantile: float, min_tail: int) -> tuple[str, float, int]:
    """The tail settings of :func:`_fit_runs` (``tail``, ``tail_quantile``, ``min_tail``),
    checked, each error naming its parameter."""
    if tail not in ("auto", "none", "pareto"):
        raise _core.ParameterError(f"invalid parameter tail = {tail!r}: expected 'auto', 'none' or 'pareto'")
    if not (isinstance(tail_quantile, (int, float)) and 0 < tail_quantile < 1):
        raise _core.ParameterError(f"invalid parameter tail_quantile = {tail_quantile!r}: expected a value in (0, 1)")
    if not (isinstance(min_tail, (int, np.integer)) and min_tail >= 1):
        raise _core.ParameterError(f"invalid parameter min_tail = {min_tail!r}: expected a positive whole number of runs")
    return tail, float(tail_quantile), int(min_tail)


def _fit_runs(x: npt.NDArray[np.int64], tail: str, tail_quantile: float, min_tail: int) -> dict[str, Any]:
    """Empirical run-length law up to the threshold t (the ``tail_quantile`` of the runs),
    spliced above it to a discrete Pareto tail P(L ≥ l | L > t) = (u/l)^α, u = t + 1,
    fitted by exact maximum likelihood (scipy). The tail holds the runs strictly above t:
    an atom at the quantile (many runs of exactly t packets) stays in the body."""
    from scipy.optimize import minimize_scalar

    x = np.asarray(x, dtype=np.int64)
    u = int(np.quantile(x, tail_quantile)) + 1 if x.size else 2
    u = max(u, 2)
    tail_x = x[x >= u]
    use_tail = tail == "pareto" or (tail == "auto" and tail_x.size >= min_tail)
    if not use_tail or tail_x.size == 0 or tail_x.size == x.size:
        v, c = np.unique(x, return_counts=True)
        return {"kind": "empirical", "values": v.astype(float).tolist(), "weights": c.astype(float).tolist()}
    body = x[x < u]
    v, c = np.unique(body, return_counts=True)
    lt = tail_x.astype(float)

    def nll(a: float) -> float:
        pm = (u / lt) ** a - (u / (lt + 1)) ** a
        return -float(np.log(np.maximum(pm, 1e-300)).sum())

    res = minimize_scalar(nll, bounds=(0.05, 20.0), method="bounded")
    return {
        "kind": "empirical",
        "values": v.astype(float).tolist(),
        "weights": c.astype(float).tolist(),
        "tail_prob": tail_x.size / x.size,
        "tail_scale": float(u),
        "tail_shape": float(res.x),
    }


def _run_logpmf(law: dict[str, Any], x: npt.NDArray[np.int64]) -> float:
    values = np.asarray(law["values"], dtype=float)
    w = np.asarray(law["weights"], dtype=float)
    w = w / w.sum()
    tp = float(law.get("tail_prob") or 0.0)
    pm = np.zeros(x.size)
    idx = np.searchsorted(values, x)
    ok = (idx < values.size) & (values[np.minimum(idx, values.size - 1)] == x)
    pm[ok] = (1 - tp) * w[idx[ok]]
    if tp > 0:
        u, a = float(law["tail_scale"]), float(law["tail_shape"])
        t = x >= u
        pm[t] += tp * ((u / x[t]) ** a - (u / (x[t] + 1.0)) ** a)
    with np.errstate(divide="ignore"):
        return float(np.log(pm).sum())
