"""k-state hidden Markov model (``loss/hmm.rs``), fitted by Baum-Welch (hmmlearn), k by BIC."""

from __future__ import annotations

import hashlib
import math
import warnings
from collections import OrderedDict
from typing import Any

import numpy as np
import numpy.typing as npt

from burstlab import _core
from burstlab.models._base import LossModelBase, NotFittedError, _bits, _check_trace, _trace_interval
from burstlab.traces import Trace


def _categorical_hmm(trans: npt.ArrayLike, start: npt.ArrayLike, loss: npt.ArrayLike) -> Any:
    """A fixed hmmlearn CategoricalHMM over the loss sequence (symbol 1 = lost)."""
    from hmmlearn.hmm import CategoricalHMM

    lp = np.clip(np.asarray(loss, dtype=float), 1e-300, 1 - 1e-16)
    m = CategoricalHMM(n_components=int(lp.size), n_features=2, init_params="", params="")
    m.startprob_ = np.asarray(start, dtype=float)
    m.transmat_ = np.asarray(trans, dtype=float)
    m.emissionprob_ = np.column_stack([1 - lp, lp])
    return m


def _categorical_score(trans: npt.ArrayLike, start: npt.ArrayLike, loss: npt.ArrayLike, lost: npt.NDArray[np.int64]) -> float:
    """Log-likelihood of a 0/1 loss sequence (1 = lost) under a discrete HMM, via hmmlearn."""
    return float(_categorical_hmm(trans, start, loss).score(lost.reshape(-1, 1)))


def _viterbi(trans: npt.ArrayLike, start: npt.ArrayLike, loss: npt.ArrayLike, lost: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The most likely state of every packet (hmmlearn's Viterbi decoder)."""
    return np.asarray(_categorical_hmm(trans, start, loss).predict(lost.reshape(-1, 1)), dtype=np.int64)


def _fit_hmm(trace: Trace, k: int, n_iter: int, random_state: int) -> Any:
    """hmmlearn CategoricalHMM with k states fitted by Baum-Welch to the loss sequence
    (1 = lost). Two starts, the best log-likelihood wins: an informed one (loss
    probabilities spread over (0, 1), sticky states; for k = 2 the bistable chain of the
    trace's transition counts, Srinivasan et al. §5.2) and hmmlearn's random one. EM from a
    symmetric start alone often stalls in a near-Bernoulli optimum on bursty traces."""
    from hmmlearn.hmm import CategoricalHMM

    lost = (1 - _bits(trace).astype(np.int64)).reshape(-1, 1)
    key = (hashlib.sha256(lost.astype(np.uint8).tobytes()).hexdigest(), lost.shape[0], k, n_iter, random_state)
    if key in _FITS:
        _FITS.move_to_end(key)
        return _FITS[key]
    loss = np.linspace(0.02, 0.98, k)
    if k == 2:
        st = trace.stats(warn=False)
        b = min(max(st.b if st.b is not None else 0.1, 1e-3), 1 - 1e-3)
        g = min(max(st.g if st.g is not None else 0.5, 1e-3), 1 - 1e-3)
        trans = np.array([[1 - b, b], [g, 1 - g]])
    else:
        trans = np.full((k, k), 0.1 / (k - 1))
        np.fill_diagonal(trans, 0.9)
    best, best_ll = None, -math.inf
    for informed in (True, False):
        m = CategoricalHMM(
            n_components=k,
            n_features=2,
            n_iter=n_iter,
            tol=1e-2,
            random_state=random_state,
            implementation="scaling",
            init_params="" if informed else "ste",
        )
        if informed:
            m.startprob_ = np.full(k, 1.0 / k)
            m.transmat_ = trans
            m.emissionprob_ = np.column_stack([1 - loss, loss])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.fit(lost)
            ll = m.score(lost)
        if ll > best_ll:
            best, best_ll = m, ll
    _FITS[key] = best
    while len(_FITS) > _FITS_KEPT:
        _FITS.popitem(last=False)
    return best


#: This process's last Baum-Welch fits, by the loss sequence's content and the settings
#: (:func:`_fit_hmm`; the fitted objects are only read). The same fit is asked for more than
#: once: HSMMModel fits the BIC-selected HMM that HMMModel fits, and VDDPModel the 2-state
#: one, on the same trace; EM from the same start gives the same model, so it runs once
#: (Barsocchi et al.'s study fits all three to every trace: a third of its fitting time).
_FITS: OrderedDict[tuple[str, int, int, int, int], Any] = OrderedDict()
_FITS_KEPT = 16


class HMMModel(LossModelBase):
    """k-state hidden Markov model with a loss probability per state, fitted by Baum-Welch
    (hmmlearn's CategoricalHMM). ``n_states="bic"`` tries k = 1..``max_states`` and keeps the
    smallest BIC = −2·logL + p·ln N with p = k(k−1) + (k−1) + k free parameters. Sampling and
    simulation use the Rust Markov-modulated sampler (``loss/hmm.rs``)."""

    kind = "hmm"
    _fitted_names = ("n_states_", "transmat_", "startprob_", "loss_", "bic_", "interval_")

    def __init__(self, n_states: int | str = "bic", max_states: int = 4, n_iter: int = 100, random_state: int = 0) -> None:
        if not (n_states == "bic" or (isinstance(n_states, int) and n_states >= 1)):
            raise _core.ParameterError(f"invalid parameter n_states = {n_states!r}: expected 'bic' or a positive int")
        if not (isinstance(max_states, int) and max_states >= 1):
            raise _core.ParameterError(f"invalid parameter max_states = {max_states!r}: expected a positive int")
        self.n_states = n_states
        self.max_states = max_states
        self.n_iter = int(n_iter)
        self.random_state = int(random_state)

    def fit(self, trace: Trace) -> HMMModel:
        _check_trace(trace)
        n = len(trace)
        ks = range(1, self.max_states + 1) if self.n_states == "bic" else [int(self.n_states)]
        lost = (1 - _bits(trace).astype(np.int64))
        bics: dict[str, float] = {}
        best: tuple[float, Any] | None = None
        for k in ks:
            if k == 1:
                p = float(lost.mean())
                with np.errstate(divide="ignore", invalid="ignore"):
                    ll = float(np.nansum([lost.sum() * np.log(p) if p > 0 else 0.0, (n - lost.sum()) * np.log1p(-p) if p < 1 else 0.0]))
                params = ([[1.0]], [1.0], [p])
            else:
                m = _fit_hmm(trace, k, self.n_iter, self.random_state)
                ll = float(m.score(lost.reshape(-1, 1)))
                params = (m.transmat_.tolist(), m.startprob_.tolist(), m.emissionprob_[:, 1].tolist())
            nparam = k * (k - 1) + (k - 1) + k
            bic = -2 * ll + nparam * math.log(n)
            bics[str(k)] = bic
            if best is None or bic < best[0]:
                best = (bic, (k, params))
        assert best is not None
        k, (tm, sp, ls) = best[1]
        # Renormalise rows (hmmlearn's are float-exact to ~1e-12; Rust checks 1e-6).
        tm = np.asarray(tm, dtype=float)
        tm = tm / tm.sum(axis=1, keepdims=True)
        sp = np.asarray(sp, dtype=float)
        sp = sp / sp.sum()
        order = np.argsort(ls)  # states by increasing loss, for readable output
        self.n_states_ = k
        self.transmat_ = tm[np.ix_(order, order)].tolist()
        self.startprob_ = sp[order].tolist()
        self.loss_ = np.asarray(ls, dtype=float)[order].clip(0, 1).tolist()
        self.bic_ = bics
        self.interval_ = _trace_interval(trace)
        return self

    def to_core(self) -> _core.LossModel:
        if not hasattr(self, "transmat_"):
            raise NotFittedError("HMMModel is not fitted: call fit")
        return _core.LossModel.hmm(self.transmat_, self.startprob_, self.loss_)

    def score(self, trace: Trace) -> float:
        if not hasattr(self, "transmat_"):
            raise NotFittedError("HMMModel is not fitted: call fit")
        lost = 1 - _bits(trace).astype(np.int64)
        return _categorical_score(self.transmat_, self.startprob_, self.loss_, lost)
