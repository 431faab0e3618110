"""Judge loss models by the TCP they produce (``burstlab fit --judge tcp``,
:func:`burstlab.models.select`).

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
from burstlab.traces import Trace

if TYPE_CHECKING:
    from burstlab.models import LossModelBase
    from burstlab.sim import TcpConfig

MODES = ("slotted", "link")
#: The slot when neither the setup nor the trace gives one (Srinivasan et al.'s Mirage, §3.1).
DEFAULT_SLOT = 0.01
#: z of a two-sided 95 % interval.
Z95 = 1.959963984540054


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
        from burstlab.sim import TcpConfig

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
        from burstlab.sim import Link, Scenario, Workload, run, run_trace

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


def relative_error(model: TcpSample, ref: TcpSample) -> tuple[float, tuple[float, float]]:
    """(M − T)/T and its 95 % interval: Var ≈ se_M²/T² + M²·se_T²/T⁴ (first-order delta
    method on the ratio of two independent means); a missing spread counts as 0."""
    m, t = model.mean, ref.mean
    if not (t > 0):
        return math.nan, (math.nan, math.nan)
    e = (m - t) / t
    se_m = 0.0 if math.isnan(model.se) else model.se
    se_t = 0.0 if math.isnan(ref.se) else ref.se
    half = Z95 * math.sqrt((se_m / t) ** 2 + (m * se_t / t**2) ** 2)
    return e, (e - half, e + half)


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
class TcpJudgement:
    """The trace's TCP figure and every model's verdict under one setup, best first."""

    setup: TcpSetup
    reference: TcpSample
    verdicts: list[TcpVerdict] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        tcp = self.setup.tcp
        return {
            "mode": self.setup.mode,
            "setup": self.setup.describe(),
            "tcp": None if tcp is None else {"cc": tcp.cc, "recovery": tcp.recovery},
            "trace": self.reference.to_dict(),
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
    progress: Callable[[str], None] | None = None,
) -> TcpJudgement:
    """Run ``setup``'s TCP over ``reference`` (``rotations`` starts) and over
    ``replicates`` realisations of every model in ``fitted``; verdicts sorted by the
    absolute error. Model ``i`` uses seeds from ``seed + 1000·(i + 1)``."""
    st = setup.resolved(reference)
    if progress is not None:
        progress(f"TCP over the trace ({st.mode}, {rotations} start{'s' if rotations > 1 else ''})")
    ref = trace_tcp(reference, st, rotations, seed)
    out = TcpJudgement(st, ref)
    for i, (name, m) in enumerate(fitted.items()):
        if progress is not None:
            progress(f"TCP over {name} ({st.mode}, {replicates} replicate{'s' if replicates > 1 else ''}; {i + 1}/{len(fitted)})")
        g = model_tcp(m, len(reference), st, replicates, (seed + 1000 * (i + 1)) % 2**64)
        e, ci = relative_error(g, ref)
        out.verdicts.append(TcpVerdict(name, g, e, ci))
    out.verdicts.sort(key=lambda v: (abs(v.error) if math.isfinite(v.error) else math.inf, v.model))
    return out


def best_by_tcp(judgements: Sequence[TcpJudgement]) -> tuple[str, str] | None:
    """The model whose worst |TCP error| over the setups is smallest, and why (None
    without verdicts)."""
    if not judgements or not judgements[0].verdicts:
        return None
    names = [v.model for v in judgements[0].verdicts]

    def worst(name: str) -> float:
        es = [abs(v.error) for j in judgements for v in j.verdicts if v.model == name]
        return max(es) if es and all(math.isfinite(e) for e in es) else math.inf

    best = min(names, key=lambda n: (worst(n), n))
    parts = []
    for j in judgements:
        v = next(v for v in j.verdicts if v.model == best)
        parts.append(f"{j.setup.mode}: TCP goodput {v.goodput.mean:.4g} vs the trace's {j.reference.mean:.4g} segments/s, "
                     f"error {100 * v.error:+.1f} % [95 % CI {100 * v.ci[0]:+.1f}, {100 * v.ci[1]:+.1f}]")
    what = "the smallest TCP error" if len(judgements) == 1 else "the smallest worst TCP error over the modes"
    return best, f"{what} ({'; '.join(parts)})"


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
    from burstlab.fidelity import best_model, fidelity_rows, fit_models
    from burstlab.models import make_model

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
        for mode in modes:
            judgements.append(judge_tcp(fitted, judge_part, replace(base, mode=cast(Any, mode)), replicates=replicates, rotations=rotations,
                                        seed=seed, progress=progress))  # fmt: skip
        timing["tcp"] = lap()
        timing["tcp_runs"] = float(sum(j.reference.values.size + sum(v.goodput.values.size for v in j.verdicts) for j in judgements))
        b = best_by_tcp(judgements)
    else:
        bs = best_model(ref_row, rows)
        b = None if bs is None else (bs[0].model, bs[1])
    best, why = (None, "") if b is None else b
    sel = Selection(judge, n, fr, jr, ref_row, rows, judgements, best, why, fitted, notes, seconds=timing)
    if best is not None and refit:
        if fr == (0, n):
            sel.best_model = fitted[best]
        else:
            if progress is not None:
                progress(f"refitting {best} on the whole trace")
            sel.best_model = make_model(best).fit(trace)
            timing["refit"] = lap()
    return sel
