"""Two-state semi-Markov channel with any sojourn laws (``loss/semi_markov.rs``; Pentikousis & Badr §2)."""

from __future__ import annotations

from typing import Any

import numpy as np

from burstlab import _core
from burstlab.models._base import NotFittedError, _check_trace, _pos, _prob, _run_lengths, _TimeModel
from burstlab.models.sojourn import _fit_family
from burstlab.traces import Trace


class SemiMarkovModel(_TimeModel):
    """Two-state semi-Markov channel with arbitrary sojourn laws (Pentikousis & Badr §2). ``good``
    and ``bad`` are law dicts (``{"kind": "pareto", "scale": s, "shape": a}``, ...; seconds).
    ``fit`` takes each loss burst / success run of the trace times the packet interval as a
    bad / good sojourn and fits ``family`` to them by maximum likelihood (losses 0/1)."""

    kind = "semi-markov"
    _fitted_names = ("good_", "bad_", "interval_")

    def __init__(
        self,
        good: dict[str, Any] | None = None,
        bad: dict[str, Any] | None = None,
        loss_good: float = 0.0,
        loss_bad: float = 1.0,
        temporal: bool = False,
        family: str = "lognormal",
        packet_interval: float | None = None,
    ) -> None:
        self.good = good
        self.bad = bad
        self.loss_good = _prob("loss_good", loss_good)
        self.loss_bad = _prob("loss_bad", loss_bad)
        self.temporal = bool(temporal)
        if family not in ("exponential", "deterministic", "lognormal", "pareto", "empirical"):
            raise _core.ParameterError(f"invalid parameter family = {family!r}: expected exponential, deterministic, lognormal, pareto or empirical")
        self.family = family
        self.packet_interval = _pos("packet_interval", packet_interval)

    def fit(self, trace: Trace) -> SemiMarkovModel:
        _check_trace(trace, need_loss=True, need_success=True)
        t = self._fit_interval(trace)
        self.interval_ = t
        self.good_ = _fit_family(self.family, _run_lengths(trace, True).astype(np.float64) * t)
        self.bad_ = _fit_family(self.family, _run_lengths(trace, False).astype(np.float64) * t)
        return self

    def to_core(self) -> _core.LossModel:
        good = getattr(self, "good_", self.good)
        bad = getattr(self, "bad_", self.bad)
        if good is None or bad is None:
            raise NotFittedError("SemiMarkovModel has no good/bad laws: give them or call fit")
        return _core.LossModel.semi_markov(good, bad, self.loss_good, self.loss_bad, self.temporal, self._interval())
