"""Alternating run-length model (``loss/runlength.rs``): independent success runs and loss bursts."""

from __future__ import annotations

from typing import Any

from burstlab import _core
from burstlab.models._base import LossModelBase, NotFittedError, _check_trace, _run_lengths, _trace_interval
from burstlab.models.sojourn import _fit_runs, _run_logpmf, _tail_settings
from burstlab.traces import Trace


class RunLengthModel(LossModelBase):
    """Alternating run-length model: success runs and loss bursts drawn independently
    from distributions fitted to the trace's — an empirical body spliced, above the
    ``tail_quantile`` of the runs, to a discrete Pareto tail fitted by maximum likelihood
    (``tail="auto"``: when at least ``min_tail`` runs lie above it; ``"none"``: purely
    empirical; ``"pareto"``: always). It targets the long runs Srinivasan et al. §9 and Barsocchi et al.
    Fig. 2 show Gilbert-Elliott cannot produce."""

    kind = "runlength"
    _fitted_names = ("success_", "burst_", "interval_")

    def __init__(
        self,
        success: dict[str, Any] | None = None,
        burst: dict[str, Any] | None = None,
        tail: str = "auto",
        tail_quantile: float = 0.9,
        min_tail: int = 20,
    ) -> None:
        self.success = success
        self.burst = burst
        self.tail, self.tail_quantile, self.min_tail = _tail_settings(tail, tail_quantile, min_tail)

    def fit(self, trace: Trace) -> RunLengthModel:
        _check_trace(trace, need_loss=True, need_success=True)
        self.success_ = _fit_runs(_run_lengths(trace, True), self.tail, self.tail_quantile, self.min_tail)
        self.burst_ = _fit_runs(_run_lengths(trace, False), self.tail, self.tail_quantile, self.min_tail)
        self.interval_ = _trace_interval(trace)
        return self

    def _laws(self) -> tuple[dict[str, Any], dict[str, Any]]:
        s = getattr(self, "success_", self.success)
        b = getattr(self, "burst_", self.burst)
        if s is None or b is None:
            raise NotFittedError("RunLengthModel has no run laws: give success=/burst= or call fit")
        return s, b

    def to_core(self) -> _core.LossModel:
        return _core.LossModel.run_length(*self._laws())

    def score(self, trace: Trace) -> float:
        """Σ log P(run) over the trace's runs (empirical laws only; the first run is
        scored as a full run)."""
        s, b = self._laws()
        if s.get("kind") != "empirical" or b.get("kind") != "empirical":
            raise NotImplementedError("score is defined for fitted (empirical) run laws only")
        return _run_logpmf(s, _run_lengths(trace, True)) + _run_logpmf(b, _run_lengths(trace, False))
