"""The claims of Srinivasan, Kazandjieva, Jain and Levis ("PRR Is Not Enough"), declared as
data (:mod:`burstlab.study.claims`) and judged over the study's links: a link is one
replicate, and intervals come from a bootstrap over links (or, for the fits, from the
study's own bootstrap of paired fit errors over links).

On the built-in synthetic testbed the claims about the links' own structure (how Gilbert-
Elliott twins compare, how long success runs get) are true by construction — the testbed
was generated with those models and run-length tails — so they are calibration checks
there: shown apart, never counted. On real traces they are findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from burstlab.study.claims import Claim, ClaimSet, Given, Greater, Less, Near, Statistic
from burstlab.study.estimate import Estimate
from burstlab.study.verdict import Verdict, judge_all


def _col(links: Sequence[dict[str, Any]], k: str) -> np.ndarray:
    return np.array([np.nan if r.get(k) is None else float(r[k]) for r in links], float)


def _spearman(x: np.ndarray, y: np.ndarray, axis: int = -1) -> Any:
    """Spearman's rank correlation along ``axis`` (average ranks for ties, as
    ``scipy.stats.spearmanr``: Pearson's correlation of the ranks; NaN without spread or
    with fewer than 3 links). Vectorized: the bootstrap computes every resample at once."""
    from scipy.stats import rankdata

    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.shape[axis] < 3:
        return np.full(np.delete(x.shape, axis % x.ndim), np.nan) if x.ndim > 1 else np.nan
    rx, ry = rankdata(x, axis=axis), rankdata(y, axis=axis)
    rx = rx - rx.mean(axis=axis, keepdims=True)
    ry = ry - ry.mean(axis=axis, keepdims=True)
    den = np.sqrt((rx * rx).sum(axis=axis) * (ry * ry).sum(axis=axis))
    with np.errstate(all="ignore"):
        return np.where(den > 0, (rx * ry).sum(axis=axis) / np.where(den > 0, den, 1.0), np.nan)


def _share_within_10(thr: np.ndarray, ge: np.ndarray, axis: int = -1) -> Any:
    ok = thr > 0
    with np.errstate(all="ignore"):
        near = ok & (np.abs(ge - thr) / np.where(ok, thr, 1.0) <= 0.10)
        n = ok.sum(axis=axis)
        return np.where(n > 0, near.sum(axis=axis) / np.where(n > 0, n, 1), np.nan)


def _share_below(thr: np.ndarray, ge: np.ndarray, axis: int = -1) -> Any:
    return np.mean(ge < thr, axis=axis)


def _share_beyond(runs: np.ndarray, ge_runs: np.ndarray, axis: int = -1) -> Any:
    return np.mean(runs > np.max(ge_runs, axis=axis, keepdims=True), axis=axis)


def samples(links: Sequence[dict[str, Any]], fig13: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per-link columns (every link; the intermediate ones apart) and the fits' gains as
    :class:`~burstlab.study.estimate.Estimate` (cross-validated, bootstrap over links)."""
    inter = [r for r in links if r.get("intermediate")]
    s: dict[str, Any] = {k: _col(links, k) for k in ("throughput_pps", "ge_pps", "max_success_run", "ge_max_success_run")}
    s["mu (intermediate)"], s["diff (intermediate)"] = _col(inter, "mu"), _col(inter, "diff_pct")
    for r in fig13:
        for tag in ("2nd", "15"):
            v, lo, hi = r[f"cv_impr_{tag}_pct"], r[f"cv_impr_{tag}_lo"], r[f"cv_impr_{tag}_hi"]
            s[f"cv gain {tag} {r['group']}"] = Estimate(v, lo, hi, int(r["n_links"]), "bootstrap over links")
    return s


def declare(synthetic: bool, groups: Sequence[str]) -> ClaimSet:
    """The paper's claims the study checks (``groups``: the fitted groups of Fig. 13);
    ``synthetic``: the built-in testbed, where the links' structure is by construction."""
    out = [
        Claim("s6-diff-rises-with-mu", "§6 Figs. 6-10", "the throughput difference against an independent link with the same PRR rises with μ",
              Greater(), Statistic(_spearman, ("mu (intermediate)", "diff (intermediate)"), "Spearman(μ, difference), intermediate links", null=0.0,
                                   vectorized=True),
              conditions="intermediate links (PRR in the fit range)"),
    ]  # fmt: skip
    for g in groups:
        out.append(Claim(f"fig13-mu-improves-fit-{g}", "§7 Fig. 13", "adding μ to PRR (second-order fit) lowers the error of predicting TCP throughput",
                         Greater(), Given(f"cv gain 2nd {g}", "cross-validated gain of the 2nd-order fit over PRR only (%)", null=0.0),
                         conditions=f"{g}, k-fold cross-validated, least-L1 fits"))  # fmt: skip
    out += [
        Claim("s9-ge-twin-misses", "§9.2 Fig. 19", "a Gilbert-Elliott link with the same PRR and μ is within 10 % of the link's throughput for at most about half of the links",
              Less(0.5, reason="§9.2: 12 % of the links on Mirage channel 26, about 50 % on channel 16: at most half"),
              Statistic(_share_within_10, ("throughput_pps", "ge_pps"), "share of links with the GE twin within 10 %", vectorized=True),
              calibration=synthetic),
        Claim("s9-ge-twin-below", "§9.2 Fig. 19", "the Gilbert-Elliott twin gets less throughput than the link for most links",
              Greater(0.5, reason="§9.2: 'most links'"), Statistic(_share_below, ("throughput_pps", "ge_pps"), "share of links with the GE twin below", vectorized=True),
              calibration=synthetic),
        Claim("s9-runs-beyond-ge", "§9.2 Fig. 20", "about half of the links have success runs longer than any Gilbert-Elliott link's",
              Near(0.5, 0.4, 0.6, "§9.2: 'about 50 %' of Mirage channel 26 links: ±10 points"),
              Statistic(_share_beyond, ("max_success_run", "ge_max_success_run"), "share of links with a run beyond the longest GE run", vectorized=True),
              calibration=synthetic),
    ]  # fmt: skip
    return ClaimSet(tuple(out))


def verdicts(synthetic: bool, links: Sequence[dict[str, Any]], fig13: Sequence[dict[str, Any]], preview: bool = False) -> list[Verdict]:
    """Every claim judged on the study's links (marked preview under ``--quick``)."""
    return judge_all(declare(synthetic, [r["group"] for r in fig13]), samples(links, fig13), preview=preview)
