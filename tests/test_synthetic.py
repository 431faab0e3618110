"""The built-in synthetic testbed: deterministic, labelled, spread of PRR and burstiness."""

from __future__ import annotations

import numpy as np
import pytest

from burstlab import ParameterError
from burstlab.datasets.synthetic import heavy_tailed_model, synthetic_testbed, link_models
from burstlab.stats import trace_stats


def test_testbed_is_deterministic_and_labelled() -> None:
    a = synthetic_testbed(12, 5000)
    b = synthetic_testbed(12, 5000)
    assert a == b and [t.name for t in a] == [t.name for t in b]
    assert all(t.meta["synthetic"] and t.name.startswith("synthetic/") for t in a)
    assert synthetic_testbed(12, 5000, seed=1) != a


def test_population_mix() -> None:
    links = link_models(60)
    kinds = [lk.kind for lk in links]
    # DEFAULT_MIX (0.20, 0.45, 0.35) of 60 links: 12, 27, 21
    assert (kinds.count("bernoulli"), kinds.count("ge"), kinds.count("heavy")) == (12, 27, 21)
    prr = np.array([lk.target_prr for lk in links])
    assert prr.min() >= 0.1 and prr.max() <= 0.9
    assert 0.55 <= np.mean((prr >= 0.2) & (prr <= 0.6)) <= 0.9


def test_heavy_tailed_links_have_long_success_runs() -> None:
    from burstlab._core import LossModel
    from burstlab.traces import Trace

    n = 100_000
    st = trace_stats(Trace(heavy_tailed_model(0.4, 1.4, 2.0).sample(n, 5)), warn=False)
    assert st.prr == pytest.approx(0.4, abs=0.08)
    ge = trace_stats(Trace(LossModel.gilbert_elliott_prr_mu(st.prr, st.mu).sample(n, 5)), warn=False)
    # the point of these links (Srinivasan et al. §9.2): runs far longer than a GE chain with the same PRR and μ makes
    assert st.success_runs.max > 3 * ge.success_runs.max
    with pytest.raises(ParameterError, match="alpha"):
        heavy_tailed_model(0.5, 0.9, 1.0)
