"""Every claim of Barsocchi, Oligeri & Potortì as declared for the hybrid study
(burstlab.experiments.hybrid_claims): reproduced in a synthetic world where the paper's
statements hold, contradicted once that claim's data are flipped; on synthetic traces the
statements true by construction are calibration checks, never counted."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from burstlab.experiments import hybrid_claims as HC
from burstlab.experiments.hybrid import StudyConfig
from burstlab.study.claims import Difference, Greater, Mean, Near, Ratio, Statistic
from burstlab.study.verdict import judge, judge_all, tally

CFG = StudyConfig()
T, N = 8, 10


def world() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2)

    def jit(x: Any, n: int = T) -> np.ndarray:
        return np.asarray(x, float) * (1 + 0.01 * rng.standard_normal(n))

    fer = np.linspace(0.02, 0.3, T)
    e = 300 / (1 + 30 * fer)  # convex in the FER
    ratio = {"a": 1000 * (1 - 8 * fer**2) / e, "b": np.full(T, 0.1), "c": np.full(T, 100.0), "d": np.full(T, 1.3)}
    s: dict[str, np.ndarray] = {"fer": fer, "goodput e": jit(e), "late e": jit(np.full(T, 1e-4))}
    for k, r in ratio.items():
        s[f"ratio {k}"] = jit(r)
        s[f"goodput {k}"] = s[f"ratio {k}"] * s["goodput e"]
        s[f"dist {k}"] = HC._dist(s[f"ratio {k}"])
    for f in CFG.padhye_fers:
        s[f"padhye {f:g}"] = jit(np.full(N, 1.0 if f >= 0.15 else 1.3), N)
    for key, v in {"tail_z": 4.0, "bernoulli_tail_z": -3.0, "mean_burst": 3.0, "bernoulli_burst": 1.1, "mean_gap": 30.0, "bernoulli_gap": 10.0,
                   "p_c": 0.03, "fer": 0.1}.items():  # fmt: skip
        s[f"gaps {key}"] = jit(np.full(T, v))
    for v in (15_000, 75_000):
        s[f"sat {v:g}"] = jit(np.full(N, 0.3 + v / 2e5), N)
    s["wifi large"] = jit(np.full(N * T, 100.0), N * T)
    s["wifi small"] = s["wifi large"] * jit(np.ones(N * T), N * T)
    return s


SMP = world()
CLAIMS = list(HC.declare(CFG, None, SMP, synthetic=True)) + [HC.sat_buffer_claim([15_000, 75_000]), HC.wifi_buffer_claim(5, 100)]  # type: ignore[arg-type]


def flip(q: Any, cmp: Any, s: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    s = dict(s)
    if isinstance(q, Mean) and isinstance(cmp, Near):
        s[q.name] = s[q.name] * 2.0
    elif isinstance(q, Mean):
        t = cmp.bind(q)._t()
        s[q.name] = s[q.name] * 0 + (t / 10 if cmp.sign > 0 else 10 * t)
    elif isinstance(q, Difference):
        s[q.a] = s[q.b] - 1.0 * cmp.sign
    elif isinstance(q, Ratio):
        s[q.a] = s[q.b] * 2.0
    elif isinstance(q, Statistic) and q.fn is HC.curvature:  # mirror the curve: convex ↔ concave
        y = s[q.names[1]]
        s[q.names[1]] = 2 * np.mean(y) - y
    elif isinstance(q, Statistic):  # a model as good as the trace
        s[q.names[0]] = s[q.names[0]] * 0 + 1.1
    else:
        raise AssertionError(q)
    return s


def test_declared() -> None:
    ids = {c.id for c in CLAIMS}
    assert ids >= {"fig4-a-twice", "fig4-e-convex", "fig4-a-not-convex", "fig4-c-farthest", "fig4-d-nearest", "s6-none-accurate", "fig3-padhye-high",
                   "fig3-padhye-low", "s2b-late-frames", "s2a-buffer-needed", "s2b-wifi-buffer"}  # fmt: skip
    for c in CLAIMS:
        cmp = c.comparison
        if isinstance(cmp, Near) or (isinstance(cmp, Greater) and cmp.than not in (None, 0.0)):
            assert cmp.reason.strip(), c.id


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim_reproduced_then_contradicted_flipped(claim: Any) -> None:
    v = judge(claim, SMP)
    assert v.outcome == "reproduced", (claim.id, [(p.label, p.estimate, p.outcome) for p in v.parts])
    _, q = claim.measured()[0]
    f = judge(claim, flip(q, claim.comparison, SMP))
    assert f.outcome == "contradicted", (claim.id, [(p.label, p.estimate, p.outcome) for p in f.parts])


def test_synthetic_traces_make_the_trace_statistics_calibration() -> None:
    """On synthetic traces the gap tails and burst/gap lengths are built in: never counted."""
    syn = {c.id for c in HC.declare(CFG, None, SMP, synthetic=True) if c.calibration}  # type: ignore[arg-type]
    real = {c.id for c in HC.declare(CFG, None, SMP, synthetic=False) if c.calibration}  # type: ignore[arg-type]
    assert syn == {"fig2-polynomial-tails", "fig2-bernoulli-geometric", "s5-longer-bursts", "s5-longer-gaps", "s5-c-lower-fer"}
    assert real == {"fig2-bernoulli-geometric"}
    t = tally(judge_all(CLAIMS, SMP))
    assert t.findings == len(CLAIMS) - len(syn) and t.calibration == {"reproduced": len(syn)}


def test_a_model_at_the_edge_is_not_far() -> None:
    """(d) exactly at the 15 % edge of 'a considerable distance' is a tie: inconclusive."""
    s = dict(SMP)
    s["dist d"] = HC.DIST * (1 + 0.05 * np.random.default_rng(0).standard_normal(T))
    assert judge(next(c for c in CLAIMS if c.id == "fig4-d-still-far"), s).outcome == "inconclusive"


def test_curvature_vectorized_is_polyfit_per_resample() -> None:
    """The bootstrap's stacked form of the curvature gives polyfit's answer row by row,
    also where a resample holds only two distinct FERs (polyfit's minimum-norm fit) or one
    (NaN)."""
    rng = np.random.default_rng(7)
    x = np.stack([rng.choice(rng.uniform(0.01, 0.5, size=k), size=9) for k in (1, 2, 3, 5, 9) for _ in range(40)])
    y = rng.uniform(1e4, 1e6, size=x.shape)
    got = HC.curvature(x, y, axis=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # polyfit's RankWarning on the two-FER rows
        want = np.array([HC.curvature(a, b) for a, b in zip(x, y)])
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.isnan(want[:40]).all()
    ok = ~np.isnan(want)
    assert np.allclose(got[ok], want[ok], rtol=1e-9, atol=0)
    assert HC.curvature(x[:, :2], y[:, :2], axis=-1).shape == (200,) and np.isnan(HC.curvature(x[:, :2], y[:, :2], axis=-1)).all()
