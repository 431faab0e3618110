"""Trace replay, Barsocchi et al.'s Ttem when time-indexed (``loss/replay.rs``)."""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from burstlab import _core
from burstlab.models._base import LossModelBase, NotFittedError, _check_trace, _pos
from burstlab.traces import Trace


class ReplayModel(LossModelBase):
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

    def fitted_params(self) -> dict[str, Any]:
        d = super().fitted_params()
        if "bits_" in d:
            d["bits_"] = base64.b64encode(np.asarray(d["bits_"].words(), dtype="<u8").tobytes()).decode()
        return d

    def _decode_fitted(self, name: str, value: Any) -> Any:
        if name == "bits_":
            words = np.frombuffer(base64.b64decode(value), dtype="<u8").astype(np.uint64)
            return words  # resolved with length_ in to_core
        return value

    def _bits(self) -> _core.BitTrace:
        b = getattr(self, "bits_", None)
        if b is None:
            raise NotFittedError("ReplayModel has no trace: call fit")
        if isinstance(b, np.ndarray):
            b = _core.BitTrace.from_words(b, int(self.length_))
            self.bits_ = b
        return b

    def sample_interval(self) -> float | None:
        return getattr(self, "slot_", None)

    def to_core(self) -> _core.LossModel:
        return _core.LossModel.replay(self._bits(), self.end, getattr(self, "slot_", self.slot))
