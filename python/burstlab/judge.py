"""Judge loss models by the TCP they produce (``burstlab fit --judge tcp``,
``burstlab.judge.select``; it sits above the models and the simulator, which it uses, and
not in :mod:`burstlab.models`, which must not depend on the simulator).

Srinivasan et al. (§9) and Barsocchi et al. (§V) end on the same open problem: a model
with the link's loss rate and burstiness does not give the link's TCP throughput, because
TCP lives on features (the rare very long success runs, how runs follow each other) that
the usual statistics do not weigh. So a model is judged here by what TCP does over it:
the same TCP runs over the trace and over synthetic replicates of every fitted model,
and the model's error is the relative difference of the mean goodputs, with a 95 %
confidence interval.

Two ways to run TCP over a loss process (:class:`TcpSetup`):

- ``"slotted"``: Srinivasan et al.'s trace-driven mode (§3.1, :func:`burstlab.sim.run_trace`):
  one transmission opportunity per slot, the slot's entry decides the data packet. A
  model is sampled to a trace as long as the reference and run the same way.
- ``"link"``: a :class:`burstlab.sim.Link` whose loss process is consulted per packet
  (packet ``n`` through the link gets entry ``n``). The trace is replayed (read
  circularly); each model runs inside the engine, as any ``Link(loss=model)`` does. By
  default the link carries one full segment per slot, and TCP transfers as many segments
  as the trace has delivered entries, so it reads about the whole trace once (a run of
  fixed *duration* would read only the few thousand entries TCP sends in it: where it
  starts would decide the result). Goodput = segments / completion time.

**The trace's own TCP throughput is an average over rotations.** TCP over a lossy link
is chaotic: a single run's goodput over 50,000 slots of a *Bernoulli* channel varies by
15 % (coefficient of variation, tossim NewReno at PRR 0.65) from one seed to the next, and
as much from one starting point in the same trace to another. A single run is therefore
one draw: at PRR 0.65 only 42 % of single runs fall within 10 % of their own mean, so even
the true model would miss most of them. The
reference is the mean over ``rotations`` runs, each over the whole trace started at an
evenly spaced offset (the trace read circularly), and each model's figure the mean over
``replicates`` independent synthetic traces; both spreads enter the interval.
``rotations=1`` gives the single run of the trace as it is.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np

from burstlab import _core
from burstlab.fidelity import best_model, fidelity_rows, fit_models
from burstlab.models import make_model
from burstlab.sim import Link, Scenario, TcpConfig, Workload, run, run_trace
from burstlab.stats import trace_stats
from burstlab.traces import Trace

if TYPE_CHECKING:
    from burstlab.models import LossModelBase

MODES = ("slotted", "link")
#: The slot when neither the setup nor the trace gives one (Srinivasan et al.'s Mirage, §3.1).
DEFAULT_SLOT = 0.01
#: z of a two-sided 95 % interval.
Z95 = 1.959963984540054
#: Start offsets of the half-to-half comparison (:func:`reference_spread`).
SPLITS = 8
#: μ of a part must be known within ± this (95 %) for the part to say what the link is
#: (the band within which ``burstlab report`` calls μ settled).
MU_TOLERANCE = 0.05


@dataclass(frozen=True)
class TcpSetup:
    """How TCP runs over the trace and over every model.

    ``tcp``: a :class:`burstlab.sim.TcpConfig`; None is the ``tossim`` profile (Srinivasan
    et al.'s NewReno, ``docs/study.md``) with its Mirage timers scaled by slot / 10 ms, as
    the paper scales them (Roofnet's 2 ms slots: RTO 0.2-12 s, ACK timeout 60 ms).
    ``slot``: seconds per trace entry (None: the trace's interval, else 10 ms).
    ``mode="link"``: ``rate`` (bits/s; None: one segment of ``mss`` + ``header_bytes`` per
    slot), one-way ``delay`` (None: half a slot), DropTail ``buffer`` (packets) and the
    transfer's ``segments`` (None: the reference trace's delivered entries); ACKs come
    back over a lossless reverse link."""

    mode: Literal["slotted", "link"] = "slotted"
    tcp: TcpConfig | None = None
    slot: float | None = None
    ack_path: Literal["lossless", "trace"] = "lossless"
    rate: float | None = None
    delay: float | None = None
    buffer: int = 100
    segments: int | None = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise _core.ParameterError(f"invalid parameter mode = {self.mode!r}: expected one of {', '.join(MODES)}")
        if self.segments is not None and not (isinstance(self.segments, int) and self.segments >= 1):
            raise _core.ParameterError(f"invalid parameter segments = {self.segments!r}: expected a positive whole number")
        for name in ("slot", "rate", "delay"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v) and (v > 0 or (name == "delay" and v >= 0))):
                raise _core.ParameterError(f"invalid parameter {name} = {v!r}: expected a positive finite number")

    def resolved(self, trace: Trace) -> TcpSetup:
        """This setup with every None that depends on the trace filled in."""
        slot = self.slot or trace.interval or DEFAULT_SLOT
        tcp = self.tcp
        if tcp is None:
            s = slot / DEFAULT_SLOT
            tcp = TcpConfig.tossim(ack_timeout=0.3 * s, rto_min=1.0 * s, rto_max=60.0 * s)
        out = replace(self, slot=slot, tcp=tcp)
        if self.mode == "link":
            rate = self.rate or (tcp.mss + tcp.header_bytes) * 8 / slot
            segments = self.segments or max(1, int(trace.bits.count_ones()))
            out = replace(out, rate=rate, delay=slot / 2 if self.delay is None else self.delay, segments=segments)
        return out

    def describe(self) -> str:
        tcp = self.tcp
        name = "TCP" if tcp is None else f"TCP {tcp.cc}/{tcp.recovery}"
        if self.mode == "slotted":
            return f"{name}, slotted (one opportunity per {_ms(self.slot)} slot, the trace entry decides)"
        return (f"{name} over a link of {_rate(self.rate)}, delay {_ms(self.delay)}, buffer {self.buffer} packets, "
                f"losses per packet, a transfer of {self.segments} segments")

    def goodput(self, loss: Trace | LossModelBase | _core.LossModel, seed: int) -> float:
        """Goodput (segments/s) of one run over a trace (replayed) or a model (sampled to a
        trace in slotted mode, inside the engine in link mode). Needs :meth:`resolved`."""
        assert self.slot is not None and self.tcp is not None
        if self.mode == "slotted":
            if not isinstance(loss, Trace):
                raise _core.ParameterError("slotted mode runs over a trace: sample the model first")
            return float(run_trace(loss, slot=self.slot, tcp=self.tcp, ack_path=self.ack_path, seed=seed).goodput_pps)
        if isinstance(loss, Trace):
            loss = _core.LossModel.replay(loss.bits, "wrap", None)
        link = Link(rate=float(self.rate or 0), delay=float(self.delay or 0), buffer=self.buffer, loss=loss, loss_mode="packet")
        sc = Scenario(tcp=self.tcp, forward=link, workload=Workload(size=int(self.segments or 1) * self.tcp.mss), seed=seed)
        return float(run(sc).goodput_pps)


def _ms(x: float | None) -> str:
    return "?" if x is None else f"{1000 * x:.3g} ms"


def _rate(x: float | None) -> str:
    if x is None:
        return "?"
    return f"{x / 1e6:.3g} Mbit/s" if x >= 1e6 else f"{x / 1e3:.3g} kbit/s"


@dataclass
class TcpSample:
    """Goodputs (segments/s) of several runs, with their mean and its standard error."""

    values: np.ndarray

    @property
    def mean(self) -> float:
        return float(np.mean(self.values)) if self.values.size else math.nan

    @property
    def se(self) -> float:
        n = self.values.size
        return float(np.std(self.values, ddof=1) / math.sqrt(n)) if n > 1 else math.nan

    def to_dict(self) -> dict[str, Any]:
        return {"mean": _num(self.mean), "se": _num(self.se), "runs": [round(float(v), 6) for v in self.values]}


@dataclass
class TcpVerdict:
    """One model's TCP error against the trace: (model mean − trace mean) / trace mean,
    with a 95 % interval from both standard errors (delta method)."""

    model: str
    goodput: TcpSample
    error: float
    ci: tuple[float, float]

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "goodput": self.goodput.to_dict(), "error": _num(self.error), "ci95": [_num(self.ci[0]), _num(self.ci[1])]}


def _num(x: float) -> float | None:
    return None if not math.isfinite(x) else round(float(x), 6)


def relative_error(model: TcpSample, ref: TcpSample, spread: ReferenceSpread | None = None) -> tuple[float, tuple[float, float]]:
    """(M − T)/T and its 95 % interval.

    With ``spread`` (the judge's way, :func:`reference_spread`): Var(M − T) = se_M² +
    ``spread.total`` (the model's Monte-Carlo error and the trace's own half-to-half
    variability, which holds the reference's rotations), divided by T², with a Student t
    quantile on the Welch-Satterthwaite degrees of freedom of the two terms; NaN when a
    term is unknown (one replicate, no spread). Without it, the runs' spreads only:
    Var ≈ se_M²/T² + M²·se_T²/T⁴ (first-order delta method on the ratio of two independent
    means, z quantile), a missing spread counting as 0."""
    m, t = model.mean, ref.mean
    if not (t > 0):
        return math.nan, (math.nan, math.nan)
    e = (m - t) / t
    if spread is not None:
        a, b = model.se**2, spread.total
        if not (math.isfinite(a) and math.isfinite(b)):
            return e, (math.nan, math.nan)
        df = welch_df([(a, model.values.size - 1), (b, spread.df)])
        half = _t975(df) * math.sqrt(a + b) / t
        return e, (e - half, e + half)
    se_m = 0.0 if math.isnan(model.se) else model.se
    se_t = 0.0 if math.isnan(ref.se) else ref.se
    half = Z95 * math.sqrt((se_m / t) ** 2 + (m * se_t / t**2) ** 2)
    return e, (e - half, e + half)


def welch_df(terms: Sequence[tuple[float, float]]) -> float:
    """Welch-Satterthwaite degrees of freedom of a sum of variance estimates, each
    ``(variance, its df)``: (Σv)² / Σ(v²/df); infinite when every term is 0."""
    num = sum(v for v, _ in terms) ** 2
    den = sum(v * v / d for v, d in terms if v > 0)
    return math.inf if den == 0 else num / den


def _t975(df: float) -> float:
    """The 97.5 % Student t quantile (two-sided 95 %); z for infinite df."""
    if not math.isfinite(df):
        return Z95
    from scipy.stats import t as student_t

    return float(student_t.ppf(0.975, df))


def trace_tcp(trace: Trace, setup: TcpSetup, rotations: int = 10, seed: int = 1) -> TcpSample:
    """TCP over the trace, started at ``rotations`` evenly spaced offsets (the trace read
    circularly; offset 0 first). ``setup`` must be resolved."""
    return TcpSample(np.asarray([setup.goodput(t, seed) for t in rotated(trace, rotations)]))


def rotated(trace: Trace, rotations: int) -> list[Trace]:
    """``trace`` read circularly from ``rotations`` evenly spaced offsets (offset 0 first)."""
    if rotations < 1:
        raise _core.ParameterError(f"invalid parameter rotations = {rotations}: expected at least 1")
    n = len(trace)
    bits = trace.to_numpy()
    out = []
    for k in range(rotations):
        off = (k * n) // rotations
        out.append(trace if off == 0 else Trace(np.concatenate([bits[off:], bits[:off]]), interval=trace.interval))
    return out


def model_tcp(model: LossModelBase, n: int, setup: TcpSetup, replicates: int = 10, seed: int = 1) -> TcpSample:
    """TCP over ``replicates`` independent realisations of ``model`` (``n`` entries each in
    slotted mode; the engine's own draws in link mode), seeds ``seed``, ``seed + 1``, ..."""
    if replicates < 1:
        raise _core.ParameterError(f"invalid parameter replicates = {replicates}: expected at least 1")
    out = []
    for r in range(replicates):
        s = (seed + r) % 2**64
        if setup.mode == "slotted":
            out.append(setup.goodput(model.sample(n, random_state=s), s))
        else:
            out.append(setup.goodput(model.to_core(), s))
    return TcpSample(np.asarray(out))


@dataclass
class ReferenceSpread:
    """How far the TCP figure of a stretch as long as the judged part moves from one stretch
    of the trace to the next (:func:`reference_spread`): ``blocks[o, j]`` is TCP (mean over
    the rotations) over block ``j`` of ``block`` entries at start offset ``o``;
    ``variance`` the mean over offsets of the blocks' sample variance, with ``df`` degrees
    of freedom; ``total`` = ``variance`` · ``fit_factor``, what enters every interval."""

    block: int
    offsets: list[int]
    blocks: np.ndarray
    variance: float
    df: float
    fit_factor: float

    @property
    def total(self) -> float:
        return self.variance * self.fit_factor

    def relative_sd(self, reference: float) -> float:
        """√total / the reference's TCP figure: the error no model can be shown to beat."""
        return math.sqrt(self.total) / reference if reference > 0 and math.isfinite(self.total) else math.nan

    def to_dict(self) -> dict[str, Any]:
        return {"block": self.block, "offsets": self.offsets, "blocks": [[round(float(x), 6) for x in row] for row in self.blocks],
                "variance": _num(self.variance), "df": _num(self.df), "fit_factor": _num(self.fit_factor), "total": _num(self.total)}  # fmt: skip


def reference_spread(trace: Trace, judged: int, setup: TcpSetup, *, fit_length: int | None, rotations: int = 10, seed: int = 1,
                     splits: int = SPLITS) -> ReferenceSpread | None:  # fmt: skip
    """The trace's own half-to-half variability of TCP at the judged length
    (``docs/loss-models.md``, "How wide the intervals are").

    ``trace`` (read circularly) is cut into blocks of ``judged`` entries (of ``len(trace) // 2``
    when it does not hold two: in-sample judging, an odd split), at ``splits`` start offsets evenly spaced
    over one block period; TCP runs over every block as over the reference (``rotations``
    starts, ``setup`` resolved per block). The variance of the block figures, averaged over
    the offsets, estimates Var(T) of one stretch of the link; its degrees of freedom are
    those of that average for a short-memory process (:func:`split_df`: 2.85 for two blocks
    at 8 offsets). ``fit_length``: entries the models were fitted on, apart from the judged
    ones (their fit moves as much as a stretch that long: ``fit_factor`` = 1 + judged /
    fit_length); None: fitted on the judged part itself (``fit_factor`` = 1). None when the
    trace holds fewer than two blocks of one entry."""
    n = len(trace)
    block = min(judged, n // 2)  # the halves (one entry shorter for an odd split); in sample, half the judged part
    if block < 1 or n // block < 2:
        return None
    k = n // block
    period = n // k
    offsets = sorted({(i * period) // splits for i in range(splits)})
    bits = trace.to_numpy()
    figs = np.empty((len(offsets), k))
    for a, off in enumerate(offsets):
        rolled = np.roll(bits, -off) if off else bits
        for j in range(k):
            part = Trace(rolled[j * block : (j + 1) * block], interval=trace.interval)
            figs[a, j] = trace_tcp(part, setup.resolved(part), rotations, seed).mean
    var = float(np.mean(np.var(figs, axis=1, ddof=1)))
    fit_factor = 1.0 if fit_length is None else 1.0 + judged / max(fit_length, 1)
    return ReferenceSpread(block, offsets, figs, var, split_df(n, block, offsets), fit_factor)


def split_df(n: int, block: int, offsets: Sequence[int], cells: int = 4000) -> float:
    """Degrees of freedom of the mean over ``offsets`` of the sample variance of the
    ``n // block`` consecutive blocks of a circular series of ``n`` entries, for independent
    entries: the estimate is a quadratic form x'Qx, so df = tr(Q)² / tr(Q²) (for Gaussian
    x: 2·E²/Var). The series is coarsened to at most ``cells`` cells. Two blocks at one
    offset: 1; at 8 evenly spaced offsets: 2.85; at many: 3."""
    k = n // block
    unit = max(1, -(-n // cells), block // 64)
    size, b = max(k, n // unit), max(1, block // unit)
    q = np.zeros((size, size))
    centre = np.eye(k) - 1.0 / k
    for off in offsets:
        a = np.zeros((k, size))
        for j in range(k):
            a[j, (off // unit + j * b + np.arange(b)) % size] = 1.0
        q += a.T @ centre @ a
    return float(np.trace(q) ** 2 / np.sum(q * q))


@dataclass
class TcpJudgement:
    """The trace's TCP figure, its own half-to-half ``spread`` and every model's verdict
    under one setup, best first."""

    setup: TcpSetup
    reference: TcpSample
    verdicts: list[TcpVerdict] = field(default_factory=list)
    spread: ReferenceSpread | None = None

    def to_dict(self) -> dict[str, Any]:
        tcp = self.setup.tcp
        return {
            "mode": self.setup.mode,
            "setup": self.setup.describe(),
            "tcp": None if tcp is None else {"cc": tcp.cc, "recovery": tcp.recovery},
            "trace": self.reference.to_dict(),
            "spread": None if self.spread is None else {**self.spread.to_dict(), "relative_sd": _num(self.spread.relative_sd(self.reference.mean))},
            "models": [v.to_dict() for v in self.verdicts],
        }


def judge_tcp(
    fitted: dict[str, LossModelBase],
    reference: Trace,
    setup: TcpSetup,
    *,
    replicates: int = 10,
    rotations: int = 10,
    seed: int = 1,
    context: Trace | None = None,
    fit_length: int | None = -1,
    splits: int = SPLITS,
    progress: Callable[[str], None] | None = None,
) -> TcpJudgement:
    """Run ``setup``'s TCP over ``reference`` (``rotations`` starts) and over
    ``replicates`` realisations of every model in ``fitted``; verdicts sorted by the
    absolute error. Model ``i`` uses seeds from ``seed + 1000·(i + 1)``.

    The intervals hold the trace's own variability (:func:`reference_spread`), measured on
    ``context`` (the whole trace ``reference`` was cut from; None: ``reference`` alone) with
    ``splits`` start offsets. ``fit_length``: entries the models were fitted on apart from
    ``reference``; None: fitted on ``reference`` itself; -1 (default): as many as
    ``reference`` has (the default half-and-half split)."""
    st = setup.resolved(reference)
    m = len(reference)
    if progress is not None:
        progress(f"TCP over the trace ({st.mode}, {rotations} start{'s' if rotations > 1 else ''}, and its stretches at {splits} offsets)")
    ref = trace_tcp(reference, st, rotations, seed)
    spread = reference_spread(context if context is not None else reference, m, setup, fit_length=m if fit_length == -1 else fit_length,
                              rotations=rotations, seed=seed, splits=splits)  # fmt: skip
    out = TcpJudgement(st, ref, spread=spread)
    for i, (name, mdl) in enumerate(fitted.items()):
        if progress is not None:
            progress(f"TCP over {name} ({st.mode}, {replicates} replicate{'s' if replicates > 1 else ''}; {i + 1}/{len(fitted)})")
        g = model_tcp(mdl, m, st, replicates, (seed + 1000 * (i + 1)) % 2**64)
        e, ci = relative_error(g, ref, spread) if spread is not None else (relative_error(g, ref)[0], (math.nan, math.nan))
        out.verdicts.append(TcpVerdict(name, g, e, ci))
    out.verdicts.sort(key=lambda v: (abs(v.error) if math.isfinite(v.error) else math.inf, v.model))
    return out


def abs_interval(v: TcpVerdict) -> tuple[float, float]:
    """The interval of |error| that ``v.ci`` implies: [0, max |end|] when it holds 0,
    [min |end|, max |end|] otherwise; [0, ∞] when the interval is unknown."""
    lo, hi = v.ci
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return 0.0, math.inf
    if lo <= 0 <= hi:
        return 0.0, max(-lo, hi)
    return min(abs(lo), abs(hi)), max(abs(lo), abs(hi))


@dataclass(frozen=True)
class TopGroup:
    """Models the TCP judgement cannot tell apart from the best (:func:`top_group`):
    ``members`` best first, the ``best`` (smallest worst |error| over the modes), every
    model's worst |error| and the interval of it (``worst``: name → (point, lo, hi))."""

    members: list[str]
    best: str
    worst: dict[str, tuple[float, float, float]]

    @property
    def separated(self) -> bool:
        """True when the data single out one model."""
        return len(self.members) == 1


def top_group(judgements: Sequence[TcpJudgement]) -> TopGroup | None:
    """The best model and every model whose interval of the worst |TCP error| over the
    modes reaches below the best's upper end (the intervals overlap: the data do not
    separate them). The worst |error| over modes has the interval [max of the lower ends,
    max of the upper ends] of the per-mode |error| intervals (:func:`abs_interval`). None
    without verdicts."""
    if not judgements or not judgements[0].verdicts:
        return None
    worst: dict[str, tuple[float, float, float]] = {}
    for name in (v.model for v in judgements[0].verdicts):
        vs = [v for j in judgements for v in j.verdicts if v.model == name]
        pts = [abs(v.error) if math.isfinite(v.error) else math.inf for v in vs]
        ivs = [abs_interval(v) for v in vs]
        worst[name] = (max(pts), max(i[0] for i in ivs), max(i[1] for i in ivs))
    order = sorted(worst, key=lambda n: (worst[n][0], n))
    best = order[0]
    if not math.isfinite(worst[best][0]):
        return TopGroup(order, best, worst)
    cut = worst[best][2]
    return TopGroup([n for n in order if worst[n][1] <= cut], best, worst)


def best_by_tcp(judgements: Sequence[TcpJudgement]) -> tuple[str, str] | None:
    """The model whose worst |TCP error| over the setups is smallest, and why: alone, or
    with the models it cannot be told apart from (:func:`top_group`). None without verdicts."""
    g = top_group(judgements)
    if g is None:
        return None
    best = g.best
    parts = []
    for j in judgements:
        v = next(v for v in j.verdicts if v.model == best)
        parts.append(f"{j.setup.mode}: TCP goodput {v.goodput.mean:.4g} vs the trace's {j.reference.mean:.4g} segments/s, "
                     f"error {100 * v.error:+.1f} % [95 % CI {100 * v.ci[0]:+.1f}, {100 * v.ci[1]:+.1f}]")
    what = "the smallest TCP error" if len(judgements) == 1 else "the smallest worst TCP error over the modes"
    if g.separated:
        return best, f"{what}, and no other model's interval reaches it ({'; '.join(parts)})"
    others = [n for n in g.members if n != best]
    return best, (f"indistinguishable from {', '.join(others)}: their error intervals overlap its own, so the data cannot separate these "
                  f"{len(g.members)} models; {best} has {what} ({'; '.join(parts)})")


@dataclass
class Selection:
    """What :func:`select` found: the statistical rows and TCP judgements of every model
    fitted on ``fit_range`` and judged on ``judge_range`` (entry indices), the best
    model and why, the fitted models and, with ``refit``, the best one refitted on the
    whole trace (``best_model``)."""

    judge: str
    length: int
    fit_range: tuple[int, int]
    judge_range: tuple[int, int]
    reference: Any  # burstlab.fidelity.FidelityRow
    rows: list[Any]  # FidelityRow per model
    tcp: list[TcpJudgement]
    best: str | None
    why: str
    models: dict[str, Any]
    skipped: list[tuple[str, str]]
    best_model: Any = None
    #: Wall seconds of each phase: fits, statistics, TCP runs (and their count), refit.
    seconds: dict[str, float] = field(default_factory=dict)
    #: The models the judgement cannot tell apart, best first (``[best]`` when it can).
    top_group: list[str] = field(default_factory=list)
    #: Whether μ of the fitted and judged parts can be trusted (:func:`mu_convergence`).
    mu: MuConvergence | None = None
    #: What the user must know before reading the ranking (a trace too short, ...).
    warnings: list[str] = field(default_factory=list)

    @property
    def separated(self) -> bool:
        """True when the data single out one model (the top group has one member)."""
        return len(self.top_group) == 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "length": self.length,
            "fit_range": list(self.fit_range),
            "judge_range": list(self.judge_range),
            "reference": self.reference.to_dict(),
            "models": [r.to_dict() for r in self.rows],
            "tcp": [j.to_dict() for j in self.tcp],
            "best": None if self.best is None else {"model": self.best, "why": self.why},
            "top_group": list(self.top_group),
            "separated": self.separated,
            "mu_convergence": None if self.mu is None else self.mu.to_dict(),
            "warnings": list(self.warnings),
            "best_model": None if self.best_model is None else self.best_model.to_dict(),
            "skipped": [{"model": n, "reason": r} for n, r in self.skipped],
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
        }


def split(n: int, holdout: float) -> tuple[tuple[int, int], tuple[int, int]]:
    """(fit range, judge range) of a trace of ``n`` entries: the first 1 − ``holdout``
    to fit, the rest to judge; ``holdout=0``: both the whole trace."""
    if not (isinstance(holdout, (int, float)) and 0 <= holdout < 1):
        raise _core.ParameterError(f"invalid parameter holdout = {holdout!r}: expected a fraction in [0, 1)")
    if holdout == 0:
        return (0, n), (0, n)
    h = int(round(n * (1 - holdout)))
    if h < 1 or h >= n:
        raise _core.ParameterError(f"invalid parameter holdout = {holdout}: a trace of {n} entries leaves nothing to fit or to judge")
    return (0, h), (h, n)


@dataclass(frozen=True)
class MuConvergence:
    """How well μ of a part of ``part`` entries pins the link down (Srinivasan et al. §8:
    μ of 6000-packet chunks strays far from a 100,000-packet trace's; it settles after
    about 40,000 packets on Mirage, 10,000 on Roofnet). ``half_width``: the 95 % half-width
    of μ measured on ``part`` entries; ``needed``: the entries it takes for the half-width
    to fall to :data:`MU_TOLERANCE`; ``chunks``: how many chunks of the trace (of
    ``chunk`` entries) had μ defined."""

    part: int
    mu: float
    half_width: float
    needed: int
    chunk: int
    chunks: int

    @property
    def converged(self) -> bool:
        return self.needed <= self.part

    def to_dict(self) -> dict[str, Any]:
        return {"part": self.part, "mu": _num(self.mu), "half_width": _num(self.half_width), "needed": self.needed, "tolerance": MU_TOLERANCE,
                "chunk": self.chunk, "chunks": self.chunks, "converged": self.converged}  # fmt: skip


def mu_convergence(trace: Trace, part: int, chunks: int = 10) -> MuConvergence | None:
    """Whether ``part`` entries of ``trace`` are enough for μ (None where μ of the trace is
    undefined: no loss or no success).

    μ's variance falls as 1/length for a link whose memory is shorter than the stretch
    measured, so one per-entry variance σ² gives the half-width z·σ/√L of μ over L entries
    and the length σ²·(z / :data:`MU_TOLERANCE`)² it takes to reach the tolerance. σ² is the
    larger of two estimates: batch means (the sample variance of μ over ``chunks`` equal
    chunks of the trace, times the chunk length: Srinivasan et al. §8's chunk comparison,
    which sees memory longer than one packet) and the Markov-chain variance of g and b
    (g(1−g)/|losses| + b(1−b)/|successes|, times the length: the least any link can have)."""
    n = len(trace)
    chunk = max(2, n // chunks)
    st = trace_stats(trace, chunk=chunk, convergence_points=1, warn=False)
    mu, g, b = st.mu, st.g, st.b
    if mu is None or g is None or b is None:
        return None
    per_entry = (g * (1 - g) / max(st.lost, 1) + b * (1 - b) / max(st.delivered, 1)) * n
    cm = np.asarray(st.chunk_mu, dtype=float)
    cm = cm[np.isfinite(cm)]
    if cm.size >= 2:
        per_entry = max(per_entry, float(np.var(cm, ddof=1)) * chunk)
    needed = int(math.ceil(per_entry * (Z95 / MU_TOLERANCE) ** 2))
    return MuConvergence(part, float(mu), Z95 * math.sqrt(per_entry / max(part, 1)), needed, chunk, int(cm.size))


def judge_warnings(sel: Selection, replicates: int) -> list[str]:
    """What makes a :class:`Selection`'s ranking weak, one sentence each."""
    out = []
    mc = sel.mu
    if mc is not None and not mc.converged:
        share = min(sel.fit_range[1] - sel.fit_range[0], sel.judge_range[1] - sel.judge_range[0]) / sel.length
        out.append(f"the trace is too short for its burstiness to converge (Srinivasan et al. §8): μ (the whole trace's: {mc.mu:.3f}) measured "
                   f"on a part of {mc.part:,} entries is known only within ±{mc.half_width:.3f} (95 %); ±{MU_TOLERANCE} needs about {mc.needed:,} entries per part, "
                   f"a trace of about {int(math.ceil(mc.needed / share)):,} entries")  # fmt: skip
    if sel.tcp and replicates < 2:
        out.append("one replicate per model gives no spread: the intervals are unknown and every model stays in the top group; use --replicates 2 or more")
    if any(j.spread is None for j in sel.tcp):
        out.append("the trace is too short to measure its own TCP variability: the intervals are unknown")
    return out


def select(
    trace: Trace,
    judge: str = "tcp",
    models: list[str] | None = None,
    *,
    holdout: float = 0.5,
    modes: Sequence[str] = MODES,
    setup: TcpSetup | None = None,
    replicates: int = 10,
    rotations: int = 10,
    seed: int = 1,
    refit: bool = True,
    skipped: list[tuple[str, str]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> Selection:
    """Fit every model family (``models``; None or ``["all"]``: all of them) on the first
    1 − ``holdout`` of ``trace`` and judge it on the rest, by the TCP it produces
    (``judge="tcp"``: :func:`judge_tcp` in each of ``modes`` with ``setup``'s TCP and
    link, the smallest worst error wins) or by its run-length statistics
    (``judge="stats"``: the smallest worst KS distance, :func:`burstlab.fidelity.best_model`).
    The statistical rows are computed either way. ``holdout=0`` judges on the data the
    models were fitted on (then the bootstrap, which resamples that very data, is not a
    fair contender). A model that cannot be fitted is skipped (``skipped`` receives
    ``(name, reason)``); with ``refit`` the best model is refitted on the whole trace
    (``Selection.best_model``)."""
    if judge not in ("tcp", "stats"):
        raise _core.ParameterError(f"invalid parameter judge = {judge!r}: expected 'tcp' or 'stats'")
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise _core.ParameterError(f"invalid parameter modes = {list(modes)!r}: expected one or more of {', '.join(MODES)}")
    if not isinstance(trace, Trace):
        raise _core.ParameterError(f"invalid parameter trace = {type(trace).__name__}: expected a burstlab.traces.Trace")
    n = len(trace)
    if n == 0:
        raise _core.EmptyInputError("invalid parameter trace: an empty trace cannot be fitted")
    fr, jr = split(n, holdout)
    fit_part, judge_part = trace[fr[0] : fr[1]], trace[jr[0] : jr[1]]
    notes: list[tuple[str, str]] = [] if skipped is None else skipped
    clock = {"start": time.perf_counter()}

    def lap() -> float:
        now = time.perf_counter()
        dt, clock["start"] = now - clock["start"], now
        return dt

    fitted, seconds = fit_models(fit_part, models, skipped=notes, progress=progress)
    if not fitted:
        why = "; ".join(f"{m}: {r}" for m, r in notes)
        raise _core.ParameterError(f"no model could be fitted to {trace.name or 'the trace'} ({why})")
    timing = {"fits": lap()}
    if progress is not None:
        progress(f"statistics of {len(fitted)} synthetic traces")
    ref_row, rows = fidelity_rows(judge_part, fitted, seed, seconds)
    timing["statistics"] = lap()
    judgements: list[TcpJudgement] = []
    if judge == "tcp":
        base = setup or TcpSetup()
        in_sample = fr == jr
        for mode in modes:
            judgements.append(judge_tcp(fitted, judge_part, replace(base, mode=cast(Any, mode)), replicates=replicates, rotations=rotations,
                                        seed=seed, context=trace, fit_length=None if in_sample else fr[1] - fr[0],
                                        progress=progress))  # fmt: skip
        timing["tcp"] = lap()
        timing["tcp_runs"] = float(sum(j.reference.values.size + sum(v.goodput.values.size for v in j.verdicts)
                                       + (0 if j.spread is None else j.spread.blocks.size * rotations) for j in judgements))  # fmt: skip
        b = best_by_tcp(judgements)
        g = top_group(judgements)
        top = [] if g is None else g.members
    else:
        bs = best_model(ref_row, rows)
        b = None if bs is None else (bs[0].model, bs[1])
        top = [] if b is None else [b[0]]
    best, why = (None, "") if b is None else b
    sel = Selection(judge, n, fr, jr, ref_row, rows, judgements, best, why, fitted, notes, seconds=timing, top_group=top)
    sel.mu = mu_convergence(trace, min(fr[1] - fr[0], jr[1] - jr[0]))
    sel.warnings = judge_warnings(sel, replicates)
    if best is not None and refit:
        if fr == (0, n):
            sel.best_model = fitted[best]
        else:
            if progress is not None:
                progress(f"refitting {best} on the whole trace")
            sel.best_model = make_model(best).fit(trace)
            timing["refit"] = lap()
    return sel
