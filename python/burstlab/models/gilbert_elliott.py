"""Gilbert-Elliott per packet (``loss/gilbert_elliott.rs``): Srinivasan et al. §5.2, Barsocchi et al. Table I (d), EM."""

from __future__ import annotations

import math

import numpy as np

from burstlab import _core
from burstlab.models._base import LossModelBase, NotFittedError, _bits, _check_trace, _prob, _trace_interval
from burstlab.models.hmm import _categorical_score, _fit_hmm
from burstlab.traces import Trace


class GilbertElliottModel(LossModelBase):
    """Gilbert-Elliott per packet: P(G→B) = b, P(B→G) = g, loss probability ``h_loss`` in
    B and ``k_loss`` in G (Srinivasan et al. §5.2; netem ``loss gemodel p r 1-h 1-k`` with p = b,
    r = g, 1-h = h_loss, 1-k = k_loss).

    ``method``: ``"bistable"`` (Barsocchi et al. Table I (d): g = 1/mean burst, b = 1/mean gap;
    h_loss = 1, k_loss = 0, so FER = b/(b+g) and both run means match), ``"counts"``
    (Srinivasan et al. §5.2 transition counts g = |01|/(|01|+|00|), b = |10|/(|10|+|11|), the
    maximum-likelihood bistable chain), or ``"em"`` (all four parameters by Baum-Welch,
    hmmlearn, two hidden states; the state with more loss is B).
    """

    kind = "gilbert-elliott"
    _fitted_names = ("b_", "g_", "h_loss_", "k_loss_", "interval_")

    def __init__(
        self,
        b: float | None = None,
        g: float | None = None,
        h_loss: float = 1.0,
        k_loss: float = 0.0,
        method: str = "bistable",
        n_iter: int = 200,
        random_state: int = 0,
    ) -> None:
        self.b = None if b is None else _prob("b", b)
        self.g = None if g is None else _prob("g", g)
        self.h_loss = _prob("h_loss", h_loss)
        self.k_loss = _prob("k_loss", k_loss)
        if method not in ("bistable", "counts", "em"):
            raise _core.ParameterError(f"invalid parameter method = {method!r}: expected 'bistable', 'counts' or 'em'")
        self.method = method
        self.n_iter = int(n_iter)
        self.random_state = int(random_state)

    @classmethod
    def from_prr_mu(cls, prr: float, mu: float) -> GilbertElliottModel:
        """Srinivasan et al. §6.2: g = PRR·(1−μ), b = (1−PRR)·(1−μ)."""
        _prob("prr", prr)
        if not (math.isfinite(mu) and mu <= 1):
            raise _core.ParameterError(f"invalid parameter mu = {mu}: expected a value ≤ 1")
        g, b = prr * (1 - mu), (1 - prr) * (1 - mu)
        if not (0 <= g <= 1 and 0 <= b <= 1):
            raise _core.ParameterError(f"invalid parameter mu = {mu}: g = {g} or b = {b} falls outside [0, 1] for PRR = {prr}")
        return cls(b=b, g=g)

    def fit(self, trace: Trace) -> GilbertElliottModel:
        _check_trace(trace, need_loss=True, need_success=True)
        st = trace.stats(warn=False)
        self.interval_ = _trace_interval(trace)
        if self.method == "bistable":
            self.g_, self.b_ = 1.0 / st.loss_bursts.mean, 1.0 / st.success_runs.mean
            self.h_loss_, self.k_loss_ = 1.0, 0.0
        elif self.method == "counts":
            if st.g is None or st.b is None:
                raise _core.ParameterError("invalid parameter trace: g or b is undefined for it (too short)")
            self.g_, self.b_ = st.g, st.b
            self.h_loss_, self.k_loss_ = 1.0, 0.0
        else:
            hm = _fit_hmm(trace, 2, self.n_iter, self.random_state)
            loss = hm.emissionprob_[:, 1]
            bad = int(np.argmax(loss))
            good = 1 - bad
            self.b_ = float(hm.transmat_[good, bad])
            self.g_ = float(hm.transmat_[bad, good])
            self.h_loss_, self.k_loss_ = float(loss[bad]), float(loss[good])
        return self

    def _params(self) -> tuple[float, float, float, float]:
        if hasattr(self, "b_"):
            return self.b_, self.g_, self.h_loss_, self.k_loss_
        if self.b is None or self.g is None:
            raise NotFittedError("GilbertElliottModel has no b/g: give them or call fit")
        return self.b, self.g, self.h_loss, self.k_loss

    def to_core(self) -> _core.LossModel:
        return _core.LossModel.gilbert_elliott(*self._params())

    def score(self, trace: Trace) -> float:
        b, g, h, k = self._params()
        s = b + g
        pb = b / s if s > 0 else 0.0
        lost = 1 - _bits(trace).astype(np.int64)
        return _categorical_score([[1 - b, b], [g, 1 - g]], [1 - pb, pb], [k, h], lost)
