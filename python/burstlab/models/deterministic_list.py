"""Drop the listed packets (``loss/list.rs``; Pentikousis & Badr §2)."""

from __future__ import annotations

import math

import numpy as np

from burstlab import _core
from burstlab.models._base import LossModelBase, NotFittedError, _bits, _check_trace
from burstlab.traces import Trace


class DeterministicListModel(LossModelBase):
    """Drop the listed packets (1-based; Pentikousis & Badr §2), repeating every ``period`` packets.
    ``fit`` takes the trace's loss positions with period = its length (a periodic replay)."""

    kind = "list"
    _fitted_names = ("drops_", "period_")

    def __init__(self, drops: list[int] | None = None, period: int | None = None) -> None:
        if drops is not None:
            bad = [d for d in drops if not (isinstance(d, (int, np.integer)) and d >= 1)]
            if bad:
                raise _core.ParameterError(f"invalid parameter drops = {bad[0]!r}: expected packet numbers counted from 1")
        if period is not None and not (isinstance(period, (int, np.integer)) and period >= 1):
            raise _core.ParameterError(f"invalid parameter period = {period!r}: expected a positive number of packets")
        self.drops = None if drops is None else [int(d) for d in drops]
        self.period = None if period is None else int(period)

    def fit(self, trace: Trace) -> DeterministicListModel:
        _check_trace(trace)
        self.drops_ = (np.flatnonzero(_bits(trace) == 0) + 1).tolist()
        self.period_ = len(trace)
        return self

    def to_core(self) -> _core.LossModel:
        drops = getattr(self, "drops_", self.drops)
        if drops is None:
            raise NotFittedError("DeterministicListModel has no drops: give drops= or call fit")
        period = getattr(self, "period_", self.period)
        if period is not None and period <= 0:
            raise _core.ParameterError(f"invalid parameter period = {period}: expected a positive number of packets")
        return _core.LossModel.deterministic(drops, period)

    def score(self, trace: Trace) -> float:
        """0 if the trace is exactly the model's pattern, −inf otherwise (a point mass)."""
        want = self.to_core().sample(len(trace), 0)
        return 0.0 if want == trace.bits else -math.inf
