"""Hidden semi-Markov model (``loss/hsmm.rs``): the HMM's regimes with the trace's own,
long-tailed regime durations instead of geometric ones."""

from __future__ import annotations

from typing import Any

import numpy as np

from burstlab import _core
from burstlab.models._base import LossModelBase, NotFittedError, _bits, _check_trace, _segments, _trace_interval
from burstlab.models.hmm import HMMModel, _viterbi
from burstlab.models.sojourn import _fit_runs, _tail_settings
from burstlab.traces import Trace


def _jump_matrix(seq: np.ndarray, k: int, allowed: np.ndarray, fallback: np.ndarray) -> list[list[float]]:
    """Transition frequencies between consecutive entries of ``seq`` (states 0..k−1); a
    state never left in ``seq`` (it only ends it) jumps with the ``fallback`` weights,
    restricted to the states ``allowed[i]`` permits (a boolean k×k mask)."""
    counts = np.zeros((k, k))
    np.add.at(counts, (seq[:-1], seq[1:]), 1.0)
    rows = []
    for i in range(k):
        row = counts[i] * allowed[i]
        if row.sum() == 0:
            row = fallback * allowed[i]
        if row.sum() == 0:
            row = allowed[i].astype(float)
        rows.append((row / row.sum()).tolist())
    return rows


class _ChainModel(LossModelBase):
    """A family that runs on ``loss/hsmm.rs``: fitted ``jump_``, ``startprob_``,
    ``durations_`` and ``loss_``."""

    jump_: list[list[float]]
    startprob_: list[float]
    durations_: list[dict[str, Any]]
    loss_: list[float]

    def to_core(self) -> _core.LossModel:
        if not hasattr(self, "jump_"):
            raise NotFittedError(f"{type(self).__name__} is not fitted: call fit")
        return _core.LossModel.hsmm(self.jump_, self.startprob_, self.durations_, self.loss_)


class HSMMModel(_ChainModel):
    """Hidden semi-Markov model over packets: hidden regimes (say quiet and interfered
    periods), each lasting a whole number of packets drawn from its own duration law and
    losing each packet in it independently with its own probability; then the next regime
    from a jump matrix. An HMM (:class:`HMMModel`) has the same regimes with geometric
    durations only, which cannot hold the rare very long quiet periods TCP lives on
    (Srinivasan et al. §9).

    ``fit`` (Viterbi training, one pass): the k-state HMM fitted by Baum-Welch (hmmlearn;
    k by BIC up to ``max_states`` or ``n_states``), its Viterbi path cut into regime
    segments; per regime the loss probability is the share of lost packets in its
    segments and the duration law the empirical law of its segment lengths, spliced above
    the ``tail_quantile`` to a discrete Pareto tail fitted by maximum likelihood
    (``tail``, ``min_tail`` as :class:`RunLengthModel`); the jump matrix counts which regime
    follows which. Regimes the Viterbi path never visits are dropped. Sampling and
    simulation: ``loss/hsmm.rs``."""

    kind = "hsmm"
    _fitted_names = ("n_states_", "jump_", "startprob_", "durations_", "loss_", "interval_")

    def __init__(
        self,
        n_states: int | str = "bic",
        max_states: int = 4,
        tail: str = "auto",
        tail_quantile: float = 0.9,
        min_tail: int = 20,
        n_iter: int = 100,
        random_state: int = 0,
    ) -> None:
        HMMModel(n_states, max_states, n_iter, random_state)  # validates the shared settings
        self.n_states = n_states
        self.max_states = max_states
        self.tail, self.tail_quantile, self.min_tail = _tail_settings(tail, tail_quantile, min_tail)
        self.n_iter = int(n_iter)
        self.random_state = int(random_state)

    def fit(self, trace: Trace) -> HSMMModel:
        _check_trace(trace)
        hm = HMMModel(self.n_states, self.max_states, self.n_iter, self.random_state).fit(trace)
        lost = 1 - _bits(trace).astype(np.int64)
        if hm.n_states_ > 1:
            path = _viterbi(hm.transmat_, hm.startprob_, hm.loss_, lost)
        else:
            path = np.zeros(lost.size, np.int64)
        vals, lens = _segments(path)
        used = np.unique(vals)
        vals = np.searchsorted(used, vals)  # renumber the visited regimes 0..k−1
        path = np.searchsorted(used, path)
        k = int(used.size)
        share = np.bincount(path, minlength=k).astype(float) / path.size
        self.n_states_ = k
        self.loss_ = [float(lost[path == s].mean()) for s in range(k)]
        self.durations_ = [_fit_runs(lens[vals == s], self.tail, self.tail_quantile, self.min_tail) for s in range(k)]
        self.jump_ = _jump_matrix(vals, k, ~np.eye(k, dtype=bool) if k > 1 else np.ones((1, 1), bool), share)
        self.startprob_ = share.tolist()
        self.interval_ = _trace_interval(trace)
        return self

    def describe(self) -> list[str]:
        """One line per regime: loss probability, time share, mean and longest duration."""
        out = []
        for s in range(self.n_states_):
            law: dict[str, Any] = self.durations_[s]
            v, w = np.asarray(law["values"]), np.asarray(law["weights"])
            tail = f", Pareto tail above {law['tail_scale']:.0f} (shape {law['tail_shape']:.2f})" if law.get("tail_prob") else ""
            out.append(f"regime {s}: loss {self.loss_[s]:.3f}, {100 * self.startprob_[s]:.1f} % of the time, "
                       f"durations mean {float((v * w).sum() / w.sum()):.1f}, longest {v.max():.0f} packets{tail}")
        return out
