"""Semi-Markov chain over run classes (``loss/hsmm.rs`` with a state per context): the
joint law of consecutive success runs and loss bursts, of order 1 or variable order."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from burstlab import _core
from burstlab.models._base import _bits, _check_trace, _segments, _trace_interval
from burstlab.models.hsmm import _ChainModel
from burstlab.models.sojourn import _fit_runs, _tail_settings
from burstlab.traces import Trace


def _classes(lengths: npt.NDArray[np.int64], n: int) -> tuple[npt.NDArray[np.int64], list[int]]:
    """Each length's class among up to ``n`` classes of about equal numbers of runs (class
    i holds lengths in [edge i−1, edge i)), and the edges. Edges fall between distinct
    lengths, at the cumulative shares nearest to 1/n, 2/n, …: an atom (many runs of one
    length) is never split, and two targets that pick the same boundary merge classes."""
    v, c = np.unique(lengths, return_counts=True)
    cum = np.cumsum(c)[:-1] / c.sum()  # share of runs ≤ v[i], for a boundary after v[i]
    edges = sorted({int(v[int(np.argmin(np.abs(cum - q))) + 1]) for q in np.arange(1, n) / n}) if cum.size else []
    return np.searchsorted(np.asarray(edges, dtype=np.int64), lengths, side="right").astype(np.int64), edges


class RunChainModel(_ChainModel):
    """Success runs and loss bursts whose lengths depend on the runs before them: a
    semi-Markov chain whose states are classes of run lengths. Success runs are split into
    ``success_classes`` quantile classes and loss bursts into ``burst_classes``; each run's
    class follows from the previous ``order`` classes by the transition frequencies of the
    trace (``order=1``: the last run only), and its length is drawn from the empirical
    law of the trace's runs in that class — for the longest class of each kind spliced to
    a discrete Pareto tail fitted by maximum likelihood (``tail``, ``tail_quantile``,
    ``min_tail`` as :class:`RunLengthModel`), so runs longer than any seen can occur.

    With ``order`` > 1 the chain has variable order, as a context tree (Rissanen; Bühlmann
    & Wyner, "Variable length Markov chains", Ann. Stat. 1999): a context seen fewer than
    ``min_count`` times is replaced by its longest suffix seen at least that often (down to
    order 1), so rare histories do not get noisy rows. In the engine each context is a
    state of ``loss/hsmm.rs`` (losses 0 in success classes, 1 in burst classes).

    It keeps what :class:`RunLengthModel` (independent runs) loses: a long burst followed
    by a cluster of short runs, long success runs that come in calm stretches, the order in
    which TCP meets them (Srinivasan et al. §9, Barsocchi et al. §IV)."""

    kind = "run-chain"
    _fitted_names = ("order_", "contexts_", "jump_", "startprob_", "durations_", "loss_", "edges_", "interval_")

    def __init__(
        self,
        order: int = 1,
        success_classes: int = 4,
        burst_classes: int = 3,
        min_count: int = 10,
        tail: str = "auto",
        tail_quantile: float = 0.9,
        min_tail: int = 20,
    ) -> None:
        for name, v, lo in (("order", order, 1), ("success_classes", success_classes, 1), ("burst_classes", burst_classes, 1), ("min_count", min_count, 1)):
            if not (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= lo):
                raise _core.ParameterError(f"invalid parameter {name} = {v!r}: expected an integer ≥ {lo}")
        if order > 4:
            raise _core.ParameterError(f"invalid parameter order = {order}: expected at most 4 (the states grow as classes^order)")
        self.order = int(order)
        self.success_classes = int(success_classes)
        self.burst_classes = int(burst_classes)
        self.min_count = int(min_count)
        self.tail, self.tail_quantile, self.min_tail = _tail_settings(tail, tail_quantile, min_tail)

    def fit(self, trace: Trace) -> RunChainModel:
        _check_trace(trace, need_loss=True, need_success=True)
        vals, lens = _segments(_bits(trace))
        success = vals == 1
        cls = np.zeros(lens.size, np.int64)
        cls[success], s_edges = _classes(lens[success], self.success_classes)
        b_cls, b_edges = _classes(lens[~success], self.burst_classes)
        ns = len(s_edges) + 1
        cls[~success] = ns + b_cls
        nc = ns + len(b_edges) + 1
        is_success = np.arange(nc) < ns
        laws = []
        for c in range(nc):
            top = c == ns - 1 or c == nc - 1
            laws.append(_fit_runs(lens[cls == c], self.tail if top else "none", self.tail_quantile, self.min_tail))

        # Variable-order contexts: counts of (context → next class) for every context
        # length 1..order; a context's row is that of its longest suffix seen ≥ min_count
        # times (always at least order 1).
        seq = cls.tolist()
        counts: dict[tuple[int, ...], np.ndarray] = {}
        for m in range(1, self.order + 1):
            for i in range(m - 1, len(seq) - 1):
                ctx = tuple(seq[i - m + 1 : i + 1])
                counts.setdefault(ctx, np.zeros(nc))[seq[i + 1]] += 1
        marginal = np.bincount(cls, minlength=nc).astype(float)

        def row(ctx: tuple[int, ...]) -> np.ndarray:
            for m in range(len(ctx), 0, -1):
                c = counts.get(ctx[-m:])
                if c is not None and (c.sum() >= self.min_count or m == 1):
                    r = c * (is_success != is_success[ctx[-1]])
                    if r.sum() > 0:
                        return r / r.sum()
            r = marginal * (is_success != is_success[ctx[-1]])  # a class never left: its kind's opposite, by frequency
            return r / r.sum()

        # States: the contexts of length `order` the trace shows (shorter at its start),
        # closed under the transitions (a backed-off row can lead to an unseen context).
        start_ctxs = [tuple(seq[max(0, i - self.order + 1) : i + 1]) for i in range(len(seq))]
        full = [c for c in start_ctxs if len(c) == self.order] or start_ctxs
        states: dict[tuple[int, ...], int] = {}
        rows: list[np.ndarray] = []
        todo = list(dict.fromkeys(full))
        while todo:
            ctx = todo.pop()
            if ctx in states:
                continue
            states[ctx] = len(states)
            r = row(ctx)
            rows.append(r)
            for nxt in np.flatnonzero(r):
                succ = (ctx + (int(nxt),))[-self.order :]
                if succ not in states:
                    todo.append(succ)
        k = len(states)
        jump = np.zeros((k, k))
        for ctx, i in states.items():
            for nxt in np.flatnonzero(rows[i]):
                jump[i, states[(ctx + (int(nxt),))[-self.order :]]] += rows[i][nxt]
        start = np.zeros(k)
        for ctx in full:
            start[states[ctx]] += 1
        self.order_ = self.order
        self.contexts_ = [list(c) for c in states]
        self.jump_ = (jump / jump.sum(axis=1, keepdims=True)).tolist()
        self.startprob_ = (start / start.sum()).tolist()
        self.durations_ = [laws[c[-1]] for c in states]
        self.loss_ = [0.0 if is_success[c[-1]] else 1.0 for c in states]
        self.edges_ = {"success": s_edges, "burst": b_edges}
        self.interval_ = _trace_interval(trace)
        return self

    def describe(self) -> list[str]:
        """The class edges and how many states the chain has."""
        e: dict[str, Any] = self.edges_
        return [f"order {self.order_}, {len(self.contexts_)} states; success-run classes split at {e['success'] or 'none'}, "
                f"loss-burst classes at {e['burst'] or 'none'} packets"]
