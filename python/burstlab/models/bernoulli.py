"""Independent losses (``loss/bernoulli.rs``) and Barsocchi et al.'s Table I (a)-(c) fits."""

from __future__ import annotations

import numpy as np

from burstlab import _core
from burstlab.models._base import LossModelBase, NotFittedError, _check_trace, _prob, _trace_interval
from burstlab.traces import Trace


class BernoulliModel(LossModelBase):
    """Independent losses with probability ``p``.

    ``target`` chooses what the fit matches (Barsocchi et al. Table I): ``"fer"`` the frame error
    rate (a), ``"burst"`` the mean loss-burst length 1/(1−p) (b), ``"gap"`` the mean
    success-run (error gap) length 1/p (c).
    """

    kind = "bernoulli"
    _fitted_names = ("p_", "interval_")

    def __init__(self, p: float | None = None, target: str = "fer") -> None:
        self.p = None if p is None else _prob("p", p)
        if target not in ("fer", "burst", "gap"):
            raise _core.ParameterError(f"invalid parameter target = {target!r}: expected 'fer', 'burst' or 'gap'")
        self.target = target

    def fit(self, trace: Trace) -> BernoulliModel:
        _check_trace(trace)
        st = trace.stats(warn=False)
        if self.target == "fer":
            self.p_ = st.lost / st.length
        elif self.target == "burst":
            if st.lost == 0:
                raise _core.ParameterError("invalid parameter trace: no loss burst, so target='burst' is undefined")
            self.p_ = 1.0 - 1.0 / st.loss_bursts.mean
        else:
            if st.delivered == 0:
                raise _core.ParameterError("invalid parameter trace: no success run, so target='gap' is undefined")
            self.p_ = 1.0 / st.success_runs.mean
        self.interval_ = _trace_interval(trace)
        return self

    def _p(self) -> float:
        p = getattr(self, "p_", self.p)
        if p is None:
            raise NotFittedError("BernoulliModel has no p: give p= or call fit")
        return float(p)

    def to_core(self) -> _core.LossModel:
        return _core.LossModel.bernoulli(self._p())

    def score(self, trace: Trace) -> float:
        p = self._p()
        n1 = trace.bits.count_ones()
        n0 = len(trace) - n1
        with np.errstate(divide="ignore"):
            return float((n0 * np.log(p) if n0 else 0.0) + (n1 * np.log1p(-p) if n1 else 0.0))
