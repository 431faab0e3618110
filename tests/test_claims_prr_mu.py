"""The claims of Srinivasan et al. as declared for the PRR/μ study
(burstlab.experiments.prr_mu_claims): each reproduced on links built to show it and
contradicted once its data are flipped; on the synthetic testbed the links' structure is a
calibration check, never counted."""

from __future__ import annotations

import numpy as np
import pytest

from burstlab.experiments import prr_mu_claims as PC
from burstlab.study.estimate import Estimate
from burstlab.study.verdict import judge, judge_all, tally

N = 400  # a share of links within ±10 points needs a few hundred links


def links(flip: str = "") -> tuple[list[dict], list[dict]]:  # type: ignore[type-arg]
    rng = np.random.default_rng(5)
    out = []
    for i in range(N):
        mu = float(rng.uniform(0, 3))
        thr = 10.0 + rng.uniform(0, 5)
        diff = 20 * mu + rng.normal(0, 5)
        ge = thr * (0.6 if i % 4 else 0.95)  # a quarter within 10 %, all below
        run, ge_run = (500 if i % 2 else 50), 100
        if flip == "s6-diff-rises-with-mu":
            diff = -diff
        if flip == "s9-ge-twin-misses":
            ge = thr * 0.97
        if flip == "s9-ge-twin-below":
            ge = thr * 1.5
        if flip == "s9-runs-beyond-ge":
            run = 50
        out.append({"intermediate": True, "mu": mu, "diff_pct": diff, "throughput_pps": thr, "ge_pps": ge, "max_success_run": run, "ge_max_success_run": ge_run})
    gain = (-12.0, -20.0, -4.0) if flip.startswith("fig13") else (12.0, 4.0, 20.0)
    fig13 = [{"group": "ch26", "n_links": N, "cv_impr_2nd_pct": gain[0], "cv_impr_2nd_lo": gain[1], "cv_impr_2nd_hi": gain[2],
              "cv_impr_15_pct": 1.0, "cv_impr_15_lo": -1.0, "cv_impr_15_hi": 3.0}]  # fmt: skip
    return out, fig13


IDS = [c.id for c in PC.declare(False, ["ch26"])]


@pytest.mark.parametrize("cid", IDS)
def test_claim_reproduced_then_contradicted_flipped(cid):  # type: ignore[no-untyped-def]
    c = PC.declare(False, ["ch26"])[cid]
    assert judge(c, PC.samples(*links())).outcome == "reproduced"
    assert judge(c, PC.samples(*links(cid))).outcome == "contradicted"


def test_synthetic_structure_is_calibration():
    real, syn = PC.declare(False, ["ch26"]), PC.declare(True, ["ch26"])
    assert not any(c.calibration for c in real)
    assert {c.id for c in syn if c.calibration} == {"s9-ge-twin-misses", "s9-ge-twin-below", "s9-runs-beyond-ge"}
    t = tally(judge_all(syn, PC.samples(*links())))
    assert t.findings == 2 and sum(t.calibration.values()) == 3


def test_fit_gain_is_the_studys_own_interval():
    s = PC.samples(*links())
    assert s["cv gain 2nd ch26"] == Estimate(12.0, 4.0, 20.0, N, "bootstrap over links")
