"""Trace replay, Barsocchi et al.'s Ttem when time-indexed (``loss/replay.rs``)."""

from __future__ import annotations

from burstlab import _core
from burstlab.models._base import _check_trace, _pos, _StoredTraceModel
from burstlab.traces import Trace


class ReplayModel(_StoredTraceModel):
    """Trace replay (Barsocchi et al.'s Ttem when time-indexed). ``end``: what follows the end of
    the trace — ``"wrap"``, ``"deliver"``, ``"drop"`` or ``"hold"`` (last entry forever).
    ``slot`` (seconds) makes it time-indexed; ``fit`` stores the trace and takes its interval."""

    kind = "replay"
    _fitted_names = ("bits_", "length_", "slot_")

    def __init__(self, end: str = "wrap", slot: float | None = None) -> None:
        if end not in ("wrap", "deliver", "drop", "hold"):
            raise _core.ParameterError(f"invalid parameter end = {end!r}: expected wrap, deliver, drop or hold")
        self.end = end
        self.slot = _pos("slot", slot)

    def fit(self, trace: Trace) -> ReplayModel:
        _check_trace(trace)
        self.bits_ = trace.bits
        self.length_ = len(trace)
        self.slot_ = self.slot or trace.interval
        return self

    def sample_interval(self) -> float | None:
        return getattr(self, "slot_", None)

    def to_core(self) -> _core.LossModel:
        return _core.LossModel.replay(self._bits(), self.end, getattr(self, "slot_", self.slot))
