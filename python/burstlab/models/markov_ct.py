"""Continuous-time two-state Markov chain and its ON/OFF reading (``loss/markov_ct.rs``; Pentikousis & Badr Fig. 1a)."""

from __future__ import annotations

import math

from burstlab import _core
from burstlab.models._base import NotFittedError, _check_trace, _pos, _prob, _TimeModel
from burstlab.traces import Trace


class MarkovCTModel(_TimeModel):
    """Continuous-time two-state Markov chain (Pentikousis & Badr Fig. 1a): exponential good/bad
    sojourns (means in seconds) and a drop probability per state; ``temporal=True`` is the
    ON/OFF reading (every packet in transit during a bad period is lost). TIBET's
    setting (Martignon & Capone §IV.B): ``MarkovCTModel(8.0, 4.0, 0.01, p_bad)``.

    Fit (losses 0 in good, 1 in bad), packet interval T: rate mode samples the chain at
    packet starts, which is exactly a discrete chain with b + g = 1 − e^(−sT),
    π_B = b/(b+g), s = 1/m_G + 1/m_B; with the trace's transition counts this gives
    m_G = 1/(π_B·s), m_B = 1/(π_G·s), exact when μ = 1 − b − g > 0 (μ ≤ 0 is clipped to
    10⁻⁶: the nearest chain, same loss rate). Temporal mode by moments:
    m_B = (mean burst − 1) · T, m_G = (mean gap + 1) · T.
    """

    kind = "markov-ct"
    _fitted_names = ("mean_good_", "mean_bad_", "loss_good_", "loss_bad_", "interval_")

    def __init__(
        self,
        mean_good: float | None = None,
        mean_bad: float | None = None,
        loss_good: float = 0.0,
        loss_bad: float = 1.0,
        temporal: bool = False,
        packet_interval: float | None = None,
    ) -> None:
        self.mean_good = _pos("mean_good", mean_good)
        self.mean_bad = _pos("mean_bad", mean_bad)
        self.loss_good = _prob("loss_good", loss_good)
        self.loss_bad = _prob("loss_bad", loss_bad)
        self.temporal = bool(temporal)
        self.packet_interval = _pos("packet_interval", packet_interval)

    def fit(self, trace: Trace) -> MarkovCTModel:
        _check_trace(trace, need_loss=True, need_success=True)
        st = trace.stats(warn=False)
        t = self._fit_interval(trace)
        self.interval_ = t
        self.loss_good_, self.loss_bad_ = (0.0, 1.0)
        mu = st.mu
        if not self.temporal and mu is not None and st.g and st.b:
            # μ ≤ 0 has no embedding; μ → 0⁺ (sojourns much shorter than T) is the closest
            # chain: it keeps the loss rate π_B and gives near-independent packets.
            s = -math.log(max(mu, 1e-6)) / t
            pb = st.b / (st.b + st.g)
            self.mean_good_ = 1.0 / (pb * s)
            self.mean_bad_ = 1.0 / ((1 - pb) * s)
        else:
            shift = 1.0 if self.temporal else 0.0
            self.mean_bad_ = max(st.loss_bursts.mean - shift, 0.05) * t
            self.mean_good_ = (st.success_runs.mean + shift) * t
        return self

    def _params(self) -> tuple[float, float, float, float]:
        if hasattr(self, "mean_good_"):
            return self.mean_good_, self.mean_bad_, self.loss_good_, self.loss_bad_
        if self.mean_good is None or self.mean_bad is None:
            raise NotFittedError("MarkovCTModel has no mean_good/mean_bad: give them or call fit")
        return self.mean_good, self.mean_bad, self.loss_good, self.loss_bad

    def to_core(self) -> _core.LossModel:
        mg, mb, lg, lb = self._params()
        if self.temporal:
            if (lg, lb) != (0.0, 1.0):
                raise _core.ParameterError(f"invalid parameter loss_bad = {lb}: temporal (ON/OFF) mode drops all in bad (1) and none in good (0)")
            return _core.LossModel.on_off(mg, mb, self._interval())
        return _core.LossModel.markov_ct(mg, mb, lg, lb, self._interval())
