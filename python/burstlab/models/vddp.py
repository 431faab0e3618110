"""VDDP, Pentikousis & Badr's temporal four-state model (``loss/vddp.rs``; §2, Fig. 1b)."""

from __future__ import annotations

import numpy as np

from burstlab import _core
from burstlab.models._base import NotFittedError, _bits, _check_trace, _pos, _posf, _prob, _TimeModel
from burstlab.models.hmm import _fit_hmm
from burstlab.traces import Trace


class VDDPModel(_TimeModel):
    """VDDP, the temporal four-state model of Pentikousis & Badr §2 (Fig. 1b), with its residual-
    sojourn memory (implemented in Rust, ``loss/vddp.rs``). Parameters in seconds: main
    sojourn means, ON share ``drop_*`` and mean ON+OFF sub-cycle ``cycle_*`` per main state.

    ``fit`` (a heuristic; Pentikousis & Badr give no estimator): a two-state HMM (hmmlearn) splits
    the trace into main states by Viterbi; the lossier one is B. Main means are the mean
    segment lengths, ``cycle_X`` = time in X / number of loss bursts in X, and
    ``drop_X`` = (lost − bursts) / packets in X: in packet mode an ON period of length x
    loses about x/T + 1 packets, so this ON share reproduces X's packet loss rate.
    """

    kind = "vddp"
    _fitted_names = ("mean_a_", "mean_b_", "drop_a_", "drop_b_", "cycle_a_", "cycle_b_", "interval_")

    def __init__(
        self,
        mean_a: float | None = None,
        mean_b: float | None = None,
        drop_a: float = 0.0,
        drop_b: float = 0.1,
        cycle_a: float = 1.0,
        cycle_b: float = 1.0,
        packet_interval: float | None = None,
        random_state: int = 0,
    ) -> None:
        self.mean_a = _pos("mean_a", mean_a)
        self.mean_b = _pos("mean_b", mean_b)
        self.drop_a = _prob("drop_a", drop_a)
        self.drop_b = _prob("drop_b", drop_b)
        self.cycle_a = _posf("cycle_a", cycle_a)
        self.cycle_b = _posf("cycle_b", cycle_b)
        self.packet_interval = _pos("packet_interval", packet_interval)
        self.random_state = int(random_state)

    def fit(self, trace: Trace) -> VDDPModel:
        _check_trace(trace, need_loss=True, need_success=True)
        t = self._fit_interval(trace)
        self.interval_ = t
        lost = 1 - _bits(trace).astype(np.int64)
        hm = _fit_hmm(trace, 2, 100, self.random_state)
        states = hm.predict(lost.reshape(-1, 1))
        bad = int(np.argmax(hm.emissionprob_[:, 1]))
        in_b = states == bad
        out: dict[str, float] = {}
        for name, mask in (("a", ~in_b), ("b", in_b)):
            n = int(mask.sum())
            # Segments of this main state.
            edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
            n_seg = int((edges == 1).sum())
            out[f"mean_{name}"] = (n / n_seg if n_seg else len(trace)) * t
            # Loss bursts starting inside this state.
            starts = np.flatnonzero(np.diff(np.concatenate([[0], lost])) == 1)
            n_burst = int(mask[starts].sum()) if starts.size else 0
            n_lost = int(lost[mask].sum())
            out[f"cycle_{name}"] = (n / n_burst if n_burst else max(n, 1)) * t
            # In packet mode a packet occupies [nT, (n+1)T), so an ON period of length x
            # loses about x/T + 1 packets: an ON share of (lost − bursts)/n reproduces
            # the packet loss rate (the same shift as the ON/OFF fit).
            out[f"drop_{name}"] = min(max((n_lost - n_burst) / n, 0.0), 1.0) if n else 0.0
        self.mean_a_, self.mean_b_ = float(out["mean_a"]), float(out["mean_b"])
        self.drop_a_, self.drop_b_ = float(out["drop_a"]), float(out["drop_b"])
        self.cycle_a_, self.cycle_b_ = float(out["cycle_a"]), float(out["cycle_b"])
        return self

    def to_core(self) -> _core.LossModel:
        if hasattr(self, "mean_a_"):
            p = (self.mean_a_, self.mean_b_, self.drop_a_, self.drop_b_, self.cycle_a_, self.cycle_b_)
        elif self.mean_a is None or self.mean_b is None:
            raise NotFittedError("VDDPModel has no mean_a/mean_b: give them or call fit")
        else:
            p = (self.mean_a, self.mean_b, self.drop_a, self.drop_b, self.cycle_a, self.cycle_b)
        return _core.LossModel.vddp(*p, self._interval())
