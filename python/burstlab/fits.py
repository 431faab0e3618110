"""Least-L1 fits of TCP throughput on link metrics (Srinivasan et al. §7, Figs. 11-13).

Srinivasan et al. fit the TCP throughput of each link to heuristic expressions in its packet
reception ratio (PRR) and burstiness μ by minimising the L1 norm of the error ("more robust
to outliers" than least squares), and reports the mean absolute error normalised by the
link-layer packet rate (100 packets/s for Mirage, 500 for Roofnet) and the improvement of
the PRR-and-μ fits over the PRR-only fit (Fig. 13).

The L1 fit is solved exactly as a linear program with HiGHS
(:func:`scipy.optimize.linprog`): minimise Σ (u_i + v_i) subject to X·β + u − v = y,
u, v ≥ 0, β free. No hand-written optimiser.

Feature sets (names as the CLI takes them):

``prr``
    1/√(1−PRR), PRR, PRR², constant (Srinivasan et al. §7: a·1/√(1−PRR) + b·PRR + c·PRR² + d).
``second_order``
    PRR, PRR², μ, μ², PRR·μ, constant (Srinivasan et al. §7: a·PRR + b·PRR² + c·μ + d·μ² + e·PRR·μ + f).
``fifteen``
    the paper's 15 terms, the three PRR terms P = (1/√(1−PRR), PRR, PRR²), the three μ terms
    M = (1/√(1−μ), μ, μ²) and their nine products P_i·M_j, **plus a constant** (16
    coefficients). Srinivasan et al. count 15 terms and do not say whether a constant was added; we
    add it so that the 15-term fit contains both the PRR-only and the second-order fit (its
    in-sample error can then never exceed theirs, and the improvement column means what it
    says). ``fifteen_noconst`` is the literal 15-term expression without it.

In-sample errors flatter big feature sets (the 15-term fit has 16 coefficients; Srinivasan et al.'s
Mirage channel 16 fit reaches an error of 1.6·10⁻⁴ that way), so :func:`fig13_table` also
reports the k-fold cross-validated error: each fold is predicted by a fit on the others and
the absolute errors of all held-out rows are averaged.

**Enough links per coefficient.** An optimal L1 fit with k coefficients is a vertex of the LP:
it passes exactly through (at least) k of its training links. With n ≤ k links it interpolates
them and its error is 0 by construction; with n = 2k at least half the residuals are free to
say something. A feature set is therefore fitted only when it has at least
:data:`MIN_LINKS_PER_COEF` = 2 links per coefficient, in sample *and* in every
cross-validation training split (:func:`min_links`: 10 links for PRR only, 15 for the second
order, 40 for the 15-term fit with 5 folds); otherwise its row says why it was not made.

**How sure is a gain?** Each error is a mean over links, so the improvement of a PRR-and-μ fit
over PRR only comes with a 95 % percentile bootstrap interval (:func:`gain_interval`): the
links are resampled with replacement and the ratio of the two fits' summed absolute errors
(in sample, or the held-out errors of the cross-validation) recomputed, pairing each link's
two errors. It measures how much the gain depends on which links happened to be measured,
with the fits held fixed.
"""

from __future__ import annotations

import csv as _csv
import io as _io
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.optimize import linprog

from burstlab._core import EmptyInputError, ParameterError

FloatArray = npt.NDArray[np.float64]

#: Feature-set names in the order of Srinivasan et al. Fig. 13 (PRR only, 15 term, 2nd order).
FEATURE_SETS = ("prr", "fifteen", "second_order", "fifteen_noconst")

#: Link-layer packet rates Srinivasan et al. normalise by (§7 footnote 2).
LINK_PPS = {"mirage": 100.0, "roofnet": 500.0}

#: Links per coefficient a fit needs, in sample and in every cross-validation training split
#: (see the module docstring).
MIN_LINKS_PER_COEF = 2

#: Bootstrap resamples of the gain intervals.
N_BOOT = 2000


# --------------------------------------------------------------------------- features


def _as_array(name: str, x: Any) -> FloatArray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise ParameterError(f"invalid {name}: expected a one-dimensional array, got shape {a.shape}")
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        i = int(bad[0])
        raise ParameterError(f"invalid {name}[{i}] = {float(a[i])!r}: expected a finite number ({bad.size} such rows)")
    return a


def _below_one(name: str, a: FloatArray) -> None:
    bad = np.flatnonzero(a >= 1.0)
    if bad.size:
        i = int(bad[0])
        raise ParameterError(
            f"invalid {name}[{i}] = {float(a[i])!r}: the feature 1/sqrt(1-{name}) needs {name} < 1 ({bad.size} such rows)"
        )


def features(prr: Any, mu: Any, feature_set: str) -> tuple[FloatArray, list[str]]:
    """The design matrix of a feature set (see the module docstring) and its column names."""
    if feature_set not in FEATURE_SETS:
        raise ParameterError(f"invalid feature set {feature_set!r}: expected one of {', '.join(FEATURE_SETS)}")
    r = _as_array("prr", prr)
    m = _as_array("mu", mu)
    if r.shape != m.shape:
        raise ParameterError(f"invalid input: prr has {r.size} rows but mu has {m.size}")
    one = np.ones_like(r)
    if feature_set == "second_order":
        cols = [r, r * r, m, m * m, r * m, one]
        names = ["PRR", "PRR^2", "mu", "mu^2", "PRR*mu", "1"]
        return np.column_stack(cols), names
    _below_one("prr", r)
    pt = [1.0 / np.sqrt(1.0 - r), r, r * r]
    pn = ["1/sqrt(1-PRR)", "PRR", "PRR^2"]
    if feature_set == "prr":
        return np.column_stack(pt + [one]), pn + ["1"]
    _below_one("mu", m)
    mt = [1.0 / np.sqrt(1.0 - m), m, m * m]
    mn = ["1/sqrt(1-mu)", "mu", "mu^2"]
    cols = pt + mt + [a * b for a in pt for b in mt]
    names = pn + mn + [f"{a}*{b}" for a in pn for b in mn]
    if feature_set == "fifteen":
        cols.append(one)
        names.append("1")
    return np.column_stack(cols), names


# --------------------------------------------------------------------------- the L1 LP


@dataclass(frozen=True)
class L1Solution:
    """The exact least-absolute-error solution of X·β ≈ y."""

    coef: FloatArray
    objective: float  # Σ |y − X·β|

    @property
    def n_coef(self) -> int:
        return int(self.coef.size)


def l1_fit(X: Any, y: Any) -> L1Solution:
    """Minimise Σ |y_i − (X·β)_i| over β, exactly, as the linear program
    min Σ (u_i + v_i)  s.t.  X·β + u − v = y,  u, v ≥ 0,  β free  (HiGHS).

    Columns are scaled to unit max-abs before solving and the coefficients scaled back (an
    exact reparametrisation that keeps HiGHS's tolerances meaningful when a column such as
    1/√(1−PRR) is large)."""
    A = np.asarray(X, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if A.ndim != 2 or b.ndim != 1 or A.shape[0] != b.size:
        raise ParameterError(f"invalid L1 fit input: X has shape {A.shape}, y has shape {b.shape}")
    n, k = A.shape
    if n == 0:
        raise EmptyInputError("invalid L1 fit input: no rows")
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(b))):
        raise ParameterError("invalid L1 fit input: X and y must be finite")
    scale = np.max(np.abs(A), axis=0)
    scale[scale == 0.0] = 1.0
    As = A / scale
    eye = sp.identity(n, format="csr")
    A_eq = sp.hstack([sp.csr_matrix(As), eye, -eye], format="csr")
    c = np.concatenate([np.zeros(k), np.ones(2 * n)])
    bounds = [(None, None)] * k + [(0.0, None)] * (2 * n)
    res = linprog(c, A_eq=A_eq, b_eq=b, bounds=bounds, method="highs")
    if res.status != 0 or res.x is None:  # cannot happen for finite data: feasible and bounded by 0
        raise RuntimeError(f"L1 fit: HiGHS did not solve the LP: {res.message}")
    coef = res.x[:k] / scale
    obj = float(np.abs(b - A @ coef).sum())
    return L1Solution(coef=coef, objective=obj)


def normalised_mae(y: Any, yhat: Any, link_pps: float) -> float:
    """Srinivasan et al. §7 footnote 2: mean absolute error over the links, normalised by the
    link-layer packet rate (100 packets/s for Mirage, 500 for Roofnet)."""
    lp = float(link_pps)
    if not (math.isfinite(lp) and lp > 0):
        raise ParameterError(f"invalid link_pps = {link_pps!r}: expected a positive packet rate")
    a = np.asarray(y, dtype=np.float64)
    b = np.asarray(yhat, dtype=np.float64)
    if a.size == 0:
        raise EmptyInputError("normalised_mae: no rows")
    return float(np.mean(np.abs(a - b)) / lp)


# --------------------------------------------------------------------------- the estimator


class ThroughputFit:
    """Least-L1 fit of throughput (packets/s) on a feature set of PRR and μ (Srinivasan et al. §7).

    Settings: ``features`` (a name in :data:`FEATURE_SETS`), ``link_pps`` (the normaliser).
    Fitted: ``coef_``, ``feature_names_``, ``n_samples_``, ``l1_`` (Σ|error|), ``mae_``
    (packets/s), ``nmae_`` (``mae_ / link_pps``)."""

    def __init__(self, features: str = "prr", link_pps: float = 100.0) -> None:
        self.features = features
        self.link_pps = link_pps

    def fit(self, prr: Any, mu: Any, throughput: Any) -> ThroughputFit:
        X, names = features(prr, mu, self.features)
        y = _as_array("throughput", throughput)
        if y.size != X.shape[0]:
            raise ParameterError(f"invalid input: throughput has {y.size} rows but prr has {X.shape[0]}")
        sol = l1_fit(X, y)
        self.coef_ = sol.coef
        self.feature_names_ = names
        self.n_samples_ = int(y.size)
        self.l1_ = sol.objective
        self.mae_ = sol.objective / y.size
        self.nmae_ = normalised_mae(y, X @ sol.coef, self.link_pps)
        return self

    def predict(self, prr: Any, mu: Any) -> FloatArray:
        if not hasattr(self, "coef_"):
            raise ParameterError("ThroughputFit.predict: call fit() first")
        X, _ = features(prr, mu, self.features)
        return np.asarray(X @ self.coef_, dtype=np.float64)

    def expression(self, digits: int = 4) -> str:
        """The fitted expression as text, e.g. ``12.3*PRR + -4.5*PRR^2 + 0.7``."""
        return " + ".join(f"{c:.{digits}g}*{n}" if n != "1" else f"{c:.{digits}g}" for c, n in zip(self.coef_, self.feature_names_, strict=True))


def n_coef(feature_set: str) -> int:
    """How many coefficients a feature set has."""
    return features([0.5], [0.5], feature_set)[0].shape[1]


def kfold(n: int, folds: int, seed: int = 0) -> list[npt.NDArray[np.int64]]:
    """The held-out index sets of a shuffled k-fold split of ``n`` rows: a seeded permutation
    (numpy PCG64) cut into ``folds`` nearly equal parts (sizes differ by at most one)."""
    if not (isinstance(folds, int | np.integer) and folds >= 2):
        raise ParameterError(f"invalid folds = {folds!r}: expected an integer ≥ 2")
    if n < folds:
        raise ParameterError(f"invalid folds = {folds}: only {n} rows to split")
    perm = np.random.default_rng(seed).permutation(n)
    return [np.sort(part) for part in np.array_split(perm, int(folds))]


def min_links(feature_set: str, folds: int | None = None) -> int:
    """The fewest links a feature set is fitted on: :data:`MIN_LINKS_PER_COEF` per coefficient,
    and with ``folds``-fold cross-validation as many in the smallest training split
    (n − ⌈n/folds⌉)."""
    need = MIN_LINKS_PER_COEF * n_coef(feature_set)
    if folds is None:
        return need
    if not (isinstance(folds, int | np.integer) and folds >= 2):
        raise ParameterError(f"invalid folds = {folds!r}: expected an integer ≥ 2")
    n = need
    while n - -(-n // folds) < need:
        n += 1
    return n


def cross_validated_errors(
    prr: Any,
    mu: Any,
    throughput: Any,
    feature_set: str,
    folds: int = 5,
    seed: int = 0,
) -> FloatArray | None:
    """Per row, the absolute error of the k-fold cross-validated prediction (packets/s): each
    fold (:func:`kfold`) is predicted by the L1 fit on the others. None when the smallest
    training split has fewer than :func:`min_links` rows (the fit would say nothing)."""
    r = _as_array("prr", prr)
    m = _as_array("mu", mu)
    y = _as_array("throughput", throughput)
    n = y.size
    parts = kfold(n, folds, seed)
    if n - max(p.size for p in parts) < min_links(feature_set):
        return None
    err = np.empty(n)
    for test in parts:
        train = np.setdiff1d(np.arange(n), test, assume_unique=True)
        f = ThroughputFit(feature_set).fit(r[train], m[train], y[train])
        err[test] = np.abs(y[test] - f.predict(r[test], m[test]))
    return err


def cross_validated_nmae(
    prr: Any,
    mu: Any,
    throughput: Any,
    feature_set: str,
    link_pps: float = 100.0,
    folds: int = 5,
    seed: int = 0,
) -> float:
    """k-fold cross-validated normalised MAE: the mean of :func:`cross_validated_errors`
    divided by ``link_pps``; NaN when a training split has too few rows (:func:`min_links`)."""
    err = cross_validated_errors(prr, mu, throughput, feature_set, folds, seed)
    if err is None:
        return math.nan
    return normalised_mae(err, np.zeros(err.size), link_pps)


def gain_interval(base_err: Any, err: Any, *, level: float = 0.95, n_boot: int = N_BOOT, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the improvement 100·(1 − Σerr/Σbase_err) (%) over
    links resampled with replacement, each link keeping its pair of errors (the module
    docstring). NaN, NaN when there is nothing to resample."""
    a = np.asarray(base_err, dtype=np.float64)
    b = np.asarray(err, dtype=np.float64)
    if a.shape != b.shape or a.size < 2:
        return (math.nan, math.nan)
    idx = np.random.default_rng(seed).integers(0, a.size, size=(int(n_boot), a.size))
    sa, sb = a[idx].sum(axis=1), b[idx].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(sa > 0, 100.0 * (1.0 - sb / sa), np.nan)
    g = g[np.isfinite(g)]
    if g.size == 0:
        return (math.nan, math.nan)
    q = 100.0 * (1.0 - level) / 2.0
    lo, hi = np.percentile(g, [q, 100.0 - q])
    return (float(lo), float(hi))


# --------------------------------------------------------------------------- Fig. 13


@dataclass(frozen=True)
class Fig13Row:
    """One row of Srinivasan et al. Fig. 13: normalised MAE of each fit, in sample and k-fold
    cross-validated, the improvement of each PRR-and-μ fit over the PRR-only fit (%) with its
    bootstrap interval, and the fits not made for want of links (``skipped``: reason)."""

    group: str
    n: int
    link_pps: float
    folds: int
    error: dict[str, float]
    cv_error: dict[str, float]
    coef: dict[str, list[float]]
    skipped: dict[str, str] = field(default_factory=dict)
    residuals: dict[str, FloatArray] = field(default_factory=dict, repr=False)
    cv_residuals: dict[str, FloatArray] = field(default_factory=dict, repr=False)
    seed: int = 0
    estimates: dict[str, FloatArray] = field(default_factory=dict, repr=False)  # in-sample fitted values

    def underdetermined(self) -> list[str]:
        """The feature sets not fitted because the group has too few links for them."""
        return list(self.skipped)

    def improvement(self, fs: str, cv: bool = False) -> float:
        e = self.cv_error if cv else self.error
        base = e["prr"]
        if not (math.isfinite(base) and math.isfinite(e[fs])) or base == 0.0:
            return math.nan
        return 100.0 * (base - e[fs]) / base

    def improvement_interval(self, fs: str, cv: bool = False) -> tuple[float, float]:
        """95 % bootstrap interval of :meth:`improvement` (:func:`gain_interval`)."""
        res = self.cv_residuals if cv else self.residuals
        if fs not in res or "prr" not in res:
            return (math.nan, math.nan)
        return gain_interval(res["prr"], res[fs], seed=self.seed)

    def to_dict(self) -> dict[str, Any]:
        fss = [f for f in self.error if f != "prr"]
        return {
            "group": self.group,
            "n": self.n,
            "link_pps": self.link_pps,
            "folds": self.folds,
            "error": dict(self.error),
            "cv_error": dict(self.cv_error),
            "improvement_pct": {f: self.improvement(f) for f in fss},
            "improvement_ci95": {f: list(self.improvement_interval(f)) for f in fss},
            "cv_improvement_pct": {f: self.improvement(f, cv=True) for f in fss},
            "cv_improvement_ci95": {f: list(self.improvement_interval(f, cv=True)) for f in fss},
            "coef": {k: list(v) for k, v in self.coef.items()},
            "skipped": dict(self.skipped),
        }


def fig13_row(
    prr: Any,
    mu: Any,
    throughput: Any,
    group: str = "all",
    link_pps: float = 100.0,
    folds: int = 5,
    seed: int = 0,
    feature_sets: Sequence[str] = ("prr", "fifteen", "second_order"),
) -> Fig13Row:
    """Fit every feature set that has enough links (:func:`min_links`) to one group's links
    and compute its Fig. 13 row; the others are listed in ``skipped`` with the reason."""
    if "prr" not in feature_sets:
        raise ParameterError("fig13_row: the feature sets must include 'prr' (the baseline)")
    r = _as_array("prr", prr)
    m = _as_array("mu", mu)
    y = _as_array("throughput", throughput)
    if y.size == 0:
        raise EmptyInputError(f"group {group!r}: no rows to fit")
    if not (isinstance(folds, int | np.integer) and folds >= 2):
        raise ParameterError(f"invalid folds = {folds!r}: expected an integer ≥ 2")
    cv_ok = y.size >= folds
    err: dict[str, float] = {}
    cv: dict[str, float] = {}
    coef: dict[str, list[float]] = {}
    skipped: dict[str, str] = {}
    res: dict[str, FloatArray] = {}
    cv_res: dict[str, FloatArray] = {}
    est: dict[str, FloatArray] = {}
    for fs in feature_sets:
        need = min_links(fs, folds if cv_ok else None)
        if y.size < need:
            k = n_coef(fs)
            skipped[fs] = (f"{k} coefficients need at least {need} links ({MIN_LINKS_PER_COEF} per coefficient"
                           + (f" in every {folds}-fold training split" if cv_ok else "") + f"), the group has {y.size}")
            err[fs] = cv[fs] = math.nan
            coef[fs] = []
            continue
        f = ThroughputFit(fs, link_pps).fit(r, m, y)
        err[fs] = f.nmae_
        coef[fs] = [float(c) for c in f.coef_]
        est[fs] = f.predict(r, m)
        res[fs] = np.abs(y - est[fs])
        e = cross_validated_errors(r, m, y, fs, folds, seed) if cv_ok else None
        cv[fs] = math.nan if e is None else normalised_mae(e, np.zeros(e.size), link_pps)
        if e is not None:
            cv_res[fs] = e
    return Fig13Row(group=group, n=int(y.size), link_pps=float(link_pps), folds=folds, error=err, cv_error=cv, coef=coef,
                    skipped=skipped, residuals=res, cv_residuals=cv_res, seed=seed, estimates=est)


def fig13_table(
    prr: Any,
    mu: Any,
    throughput: Any,
    groups: Any = None,
    link_pps: Any = 100.0,
    folds: int = 5,
    seed: int = 0,
    feature_sets: Sequence[str] = ("prr", "fifteen", "second_order"),
) -> list[Fig13Row]:
    """Srinivasan et al. Fig. 13: one row per group (e.g. testbed), each fitted separately.

    ``link_pps`` is one number or one per row (it must then be constant within a group)."""
    r = _as_array("prr", prr)
    m = _as_array("mu", mu)
    y = _as_array("throughput", throughput)
    if not (r.size == m.size == y.size):
        raise ParameterError(f"invalid input: prr, mu, throughput have {r.size}, {m.size}, {y.size} rows")
    if y.size == 0:
        raise EmptyInputError("fig13_table: no rows")
    g = np.full(y.size, "all", dtype=object) if groups is None else np.asarray(groups, dtype=object).astype(str)
    if g.size != y.size:
        raise ParameterError(f"invalid groups: {g.size} entries for {y.size} rows")
    lp = np.broadcast_to(np.asarray(link_pps, dtype=np.float64), y.shape)
    rows = []
    for name in dict.fromkeys(g.tolist()):  # first-appearance order
        sel = g == name
        rates = np.unique(lp[sel])
        if rates.size != 1:
            raise ParameterError(f"group {name!r}: link_pps is not constant within the group ({rates.tolist()})")
        rows.append(fig13_row(r[sel], m[sel], y[sel], str(name), float(rates[0]), folds, seed, feature_sets))
    return rows


_LABEL = {"prr": "PRR only", "fifteen": "15 term", "second_order": "2nd order", "fifteen_noconst": "15 (no const)"}


def format_fig13(rows: Sequence[Fig13Row]) -> str:
    """The Fig. 13 layout as text: estimation error (×10⁻²) per fit, % improvement over PRR
    only, then the same from k-fold cross-validation, each improvement with its 95 %
    bootstrap interval; fits not made for want of links are '-' and explained below."""
    if not rows:
        return "(no rows)"
    fss = list(rows[0].error)
    others = [f for f in fss if f != "prr"]
    gw = max(8, *(len(r.group) for r in rows))
    iw = 24
    head1 = f"{'':{gw}} {'':>5}  {'in-sample error (x1e-2)':^{12 * len(fss)}}  {'% improvement [95% CI]':^{iw * len(others)}}"
    head2 = f"{'group':{gw}} {'n':>5}  " + "".join(f"{_LABEL[f]:>12}" for f in fss) + "  " + "".join(f"{_LABEL[f]:>{iw}}" for f in others)

    def num(v: float, fmt: str) -> str:
        return format(v, fmt) if math.isfinite(v) else "-"

    def line(r: Fig13Row, cv: bool) -> str:
        e = r.cv_error if cv else r.error
        cells = []
        for f in others:
            lo, hi = r.improvement_interval(f, cv)
            g = r.improvement(f, cv)
            cells.append(f"{num(g, '.1f')}% [{num(lo, '.0f')}, {num(hi, '.0f')}]" if math.isfinite(g) else "-")
        return f"{r.group:{gw}} {r.n:>5}  " + "".join(f"{num(100 * e[f], '.4g'):>12}" for f in fss) + "  " + "".join(f"{c:>{iw}}" for c in cells)

    out = [head1, head2]
    out += [line(r, False) for r in rows]
    out.append("")
    out.append(f"{'':{gw}} {'':>5}  {f'{rows[0].folds}-fold cross-validated error (x1e-2)':^{12 * len(fss)}}  {'% improvement [95% CI]':^{iw * len(others)}}")
    out.append(head2)
    out += [line(r, True) for r in rows]
    out.append("")
    for r in rows:
        for fs, why in r.skipped.items():
            out.append(f"note: {r.group}: no {_LABEL[fs]} fit: {why}")
    out.append("error = mean |throughput - fit| / link-layer packets per second (Srinivasan et al. §7); fits are least-L1 (HiGHS LP),")
    out.append(f"made only with {MIN_LINKS_PER_COEF} links per coefficient (in every cross-validation training split too).")
    out.append("The in-sample error flatters the larger fits; the cross-validated error is each held-out fold predicted by a fit on the rest.")
    out.append("[95% CI]: percentile bootstrap over links of the paired errors (fits held fixed).")
    return "\n".join(out)


# --------------------------------------------------------------------------- results tables


REQUIRED_COLUMNS = ("prr", "mu", "throughput_pps")


def read_results(path: str | os.PathLike[str]) -> dict[str, npt.NDArray[Any]]:
    """Read a results table (CSV, Parquet, or a DuckDB file with a table ``results``) into
    columns. Requires ``prr``, ``mu``, ``throughput_pps``; keeps ``group`` and ``link_pps``
    when present. Errors name the file and the column or row."""
    p = os.fspath(path)
    kind = _sniff(p)
    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            table = pq.read_table(p)
        elif kind == "duckdb":
            import duckdb

            con = duckdb.connect(p, read_only=True)
            try:
                names = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
                if "results" not in names:
                    raise ParameterError(f"{p}: DuckDB file has no table 'results' (tables: {sorted(names)})")
                table = con.sql("SELECT * FROM results").to_arrow_table()
            finally:
                con.close()
        else:
            import pyarrow.csv as pcsv

            with open(p, "rb") as fh:
                raw = fh.read()
            if not raw.strip():
                raise EmptyInputError(f"{p}: empty file: expected a CSV header naming {', '.join(REQUIRED_COLUMNS)} and rows")
            if b"\0" in raw[:65536]:
                raise ParameterError(f"{p}: binary content (a NUL byte at offset {raw.find(bytes(1))}), not a CSV, Parquet or DuckDB results file")
            try:
                table = pcsv.read_csv(p)
            except Exception:
                _first_bad_csv_line(p, raw)
                raise
    except (ParameterError, EmptyInputError):
        raise
    except (OSError, ValueError) as e:
        raise ParameterError(f"{p}: cannot read as {kind}: {e}") from None
    except Exception as e:  # pyarrow / duckdb raise their own error types on malformed files
        raise ParameterError(f"{p}: cannot read as {kind}: {type(e).__name__}: {e}") from None
    cols = set(table.column_names)
    missing = [c for c in REQUIRED_COLUMNS if c not in cols]
    if missing:
        raise ParameterError(f"{p}: missing column(s) {missing}; found {sorted(cols)}")
    if table.num_rows == 0:
        raise EmptyInputError(f"{p}: the results table has no rows")
    out: dict[str, npt.NDArray[Any]] = {}
    for c in (*REQUIRED_COLUMNS, "link_pps"):
        if c not in cols:
            continue
        col = table.column(c)
        try:
            a = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
        except (TypeError, ValueError):
            vals = col.to_pylist()
            for i, v in enumerate(vals):
                try:
                    float(v)
                except (TypeError, ValueError):
                    raise ParameterError(f"{_where(p, kind, i)}: column {c} = {v!r} is not a number") from None
            raise ParameterError(f"{p}: column {c} is not numeric ({col.type})") from None
        out[c] = a
    _check_values(p, kind, out)
    if "group" in cols:
        out["group"] = np.asarray([str(v) for v in table.column("group").to_pylist()], dtype=object)
    return out


#: Domain of each results column; NaN is allowed where a value can be undefined (μ of a
#: trace without loss or success, Srinivasan et al. §5.3) and such rows are left out of the fit.
_DOMAINS = {
    "prr": (0.0, 1.0, False, "a reception ratio in [0, 1]"),
    "mu": (-1.0, 1.0, True, "μ in [-1, 1] (or empty/NaN where undefined)"),
    # a measured rate: never negative, and below 10^12 packets/s (12 Pbit/s of 1500-byte
    # packets, beyond any link); a file of such values is a misread, not data to fit
    "throughput_pps": (0.0, 1e12, False, "a packet rate in [0, 10^12] packets/s"),
    "link_pps": (0.0, 1e12, False, "a positive packet rate up to 10^12 packets/s"),
}


def _check_values(path: str, kind: str, cols: dict[str, npt.NDArray[Any]]) -> None:
    """A value outside its column's domain is an error naming the row (the CSV line)."""
    for c, a in cols.items():
        lo, hi, nan_ok, what = _DOMAINS[c]
        bad = ~((a >= lo) & (a <= hi) & np.isfinite(a)) & ~(nan_ok & np.isnan(a))
        if c == "link_pps":
            bad |= a == 0
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ParameterError(f"{_where(path, kind, i)}: {c} = {float(a[i])!r}: expected {what}")


def _where(path: str, kind: str, i: int) -> str:
    """``FILE:LINE`` of data row ``i`` of a CSV (blank lines skipped, as pyarrow does), else
    ``FILE: row N`` (1-based)."""
    if kind == "csv":
        try:
            with open(path, "rb") as fh:
                lines = [n for n, ln in enumerate(fh.read().split(b"\n"), 1) if ln.strip()]
            return f"{path}:{lines[i + 1]}"
        except (OSError, IndexError):
            pass
    return f"{path}: row {i + 1}"


def _first_bad_csv_line(path: str, raw: bytes) -> None:
    """Report the first CSV line whose field count differs from the header's."""
    rows = _csv.reader(_io.StringIO(raw.decode("utf-8", "replace")))
    try:
        header = next(rows, None)
        for row in rows:
            if header is not None and row and len(row) != len(header):
                shown = " ".join(",".join(row).splitlines())[:80]
                raise ParameterError(
                    f"{path}:{rows.line_num}: expected {len(header)} fields ({','.join(header)[:60]}), got {len(row)}: {shown!r}"
                )
    except _csv.Error:
        return  # not CSV at all: the reader's own message says so


def _sniff(path: str) -> str:
    low = path.lower()
    if low.endswith((".parquet", ".pq")):
        return "parquet"
    if low.endswith((".duckdb", ".ddb", ".db")):
        return "duckdb"
    if low.endswith((".csv", ".tsv", ".txt")):
        return "csv"
    with open(path, "rb") as fh:
        head = fh.read(16)
    if head[:4] == b"PAR1":
        return "parquet"
    if head[8:12] == b"DUCK":
        return "duckdb"
    return "csv"


__all__ = [
    "FEATURE_SETS",
    "LINK_PPS",
    "REQUIRED_COLUMNS",
    "Fig13Row",
    "L1Solution",
    "ThroughputFit",
    "cross_validated_errors",
    "cross_validated_nmae",
    "features",
    "gain_interval",
    "kfold",
    "min_links",
    "fig13_row",
    "fig13_table",
    "format_fig13",
    "l1_fit",
    "n_coef",
    "normalised_mae",
    "read_results",
]
