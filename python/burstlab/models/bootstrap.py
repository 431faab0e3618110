"""Stationary block bootstrap of the trace (``loss/bootstrap.rs``; Politis & Romano 1994):
the model-free reference the TCP judge sets the fitted models against."""

from __future__ import annotations

from burstlab import _core
from burstlab.models._base import _check_trace, _StoredTraceModel, _trace_interval
from burstlab.traces import Trace

#: ``mean_block="auto"``: blocks of this share of the trace on average (at least
#: :data:`MIN_AUTO_BLOCK` packets), so a resample is a shuffle of about 1/share pieces.
AUTO_BLOCK_SHARE = 0.05
MIN_AUTO_BLOCK = 200


class BlockBootstrapModel(_StoredTraceModel):
    """Stationary block bootstrap of the fitted trace: blocks that start at uniformly drawn
    entries and last a geometric number of packets with mean ``mean_block``, read
    circularly (Politis & Romano, "The Stationary Bootstrap", JASA 1994). Everything the
    trace holds at scales below the block length — run lengths, the order of consecutive
    runs, the rare long success runs — is resampled as it is, with no model in between:
    it is the reference a model is measured against, not an explanation of the channel.

    ``mean_block="auto"``: :data:`AUTO_BLOCK_SHARE` of the trace (at least
    :data:`MIN_AUTO_BLOCK` packets) — long against TCP's time scales (retransmission
    timeouts of about 100 slots, windows of up to 130 packets) so TCP sees the trace's own
    dependence, short enough that a resample is a shuffle of about 20 pieces rather than
    the trace again. ``docs/loss-models.md`` shows the TCP error against the block length."""

    kind = "bootstrap"
    _fitted_names = ("bits_", "length_", "mean_block_", "interval_")

    def __init__(self, mean_block: float | str = "auto") -> None:
        if not (mean_block == "auto" or (isinstance(mean_block, (int, float)) and not isinstance(mean_block, bool) and mean_block >= 1)):
            raise _core.ParameterError(f"invalid parameter mean_block = {mean_block!r}: expected 'auto' or a mean block length ≥ 1 packet")
        self.mean_block = mean_block

    def fit(self, trace: Trace) -> BlockBootstrapModel:
        _check_trace(trace)
        self.bits_ = trace.bits
        self.length_ = len(trace)
        if self.mean_block == "auto":
            self.mean_block_ = float(max(MIN_AUTO_BLOCK, AUTO_BLOCK_SHARE * len(trace)))
        else:
            self.mean_block_ = float(self.mean_block)
        self.interval_ = _trace_interval(trace)
        return self

    def to_core(self) -> _core.LossModel:
        bits = self._bits()
        return _core.LossModel.bootstrap(bits, float(self.mean_block_))
