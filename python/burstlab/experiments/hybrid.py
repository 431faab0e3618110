"""The hybrid satellite/Wi-Fi study of Barsocchi, Oligeri and Potortì ("Packet loss in TCP
hybrid wireless networks").

One TCP connection crosses the path of §II: a geostationary satellite link (2 Mb/s, 300 ms,
a 150 kB buffer, Bernoulli frame errors at 10^-5) in series with an 802.11b hop (11 Mb/s,
5.3 Mb/s of MAC capacity, no latency) whose ARQ (retry limit 7) meets a raw channel given as
a trace in time: Ttem, one state per 5 ms interval, each ARQ attempt lost iff its interval
on the air overlaps a bad slot (:func:`burstlab.sim.presets.satellite_wifi`,
``docs/link-layer.md``). Three questions:

- **Fig. 2**: the error-gap (success-run) distribution of a channel trace against a
  Bernoulli trace with the same frame error rate (FER): polynomial against geometric tails.
- **Fig. 3**: Padhye's formula against the median goodput of 10 runs of 2000 s (the first
  200 s discarded) over a Bernoulli channel at FER 2-30 %, the formula fed with the runs'
  mean RTT, RTO and segment error rate.
- **Fig. 4 and Table I**: goodput against the trace's raw FER for (a) Bernoulli with the
  same FER, (b) with the same mean burst length, (c) with the same mean gap length, (d) the
  bistable (Gilbert) model fitting all three, (e) the trace itself; and beside them every
  model burstlab can fit (:data:`burstlab.models.ALL_MODELS` and more), ranked by how close
  its goodput comes to (e). Each model is fitted to the trace's slots and sampled into a
  synthetic Ttem trace that drives the same ARQ, as the paper did.

The paper's ISTI traces are not public: the study runs on any folder of time traces
(``--traces``), on the real traces in ``$BURSTLAB_SHARED/data`` that can serve as raw
channels (``--dataset rutgers``, ``tossim``) and by default on a built-in synthetic set
(:func:`synthetic_channel`), labelled synthetic everywhere.

What the paper leaves open (the TCP variant and timers, the ARQ's retry convention and
backoff, the ACK path, buffers, the synthetic set's tail and burst length) is a field of
:class:`Setup` with a documented default (``docs/study-hybrid.md``); the study re-runs the
Table I conditions and Fig. 3 with each varied alone (``sensitivity``).

Every simulation is one row of the results store (:class:`burstlab.store.ResultStore`),
keyed by the hash of its parameters, replicate and seed; every model fit one row of its
``fits`` table. A task runs only the rows still missing, so a killed study resumes, and
rows never depend on the worker count. Replicate k has the same simulator seed in every
cell; the channel of a model condition is the model sampled with a seed of (trace,
condition, k); the trace condition (e) replays the trace from an offset of k alone.
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from burstlab.linklayer import Arq, Backoff
from burstlab.phy import loss_model as phy_loss_model
from burstlab.sim import Link, TcpConfig, run_network
from burstlab.sim.presets import satellite_wifi
from burstlab._core import BitTrace, BurstlabError, LossModel, ParameterError
from burstlab.analytic import padhye
from burstlab.datasets import rutgers, support
from burstlab.experiments.common import environments as common_environments
from burstlab.experiments.common import Item, by_cell, cell_hash, keyed_items, t95
from burstlab.experiments.common import StudyResult as _StudyResult
from burstlab.experiments.common import sweep_points as _sweep_points
from burstlab.experiments.hybrid_settings import (  # noqa: F401  (re-exported: the report, claims and tests read them here)
    BAD_SNR_DB,
    DATASETS,
    DURATION,
    GOOD_SNR_DB,
    NET_FIELDS,
    PADHYE_FERS,
    QUICK_SENSITIVITY,
    SAT_BUFFER,
    SAT_DELAY,
    SAT_FER,
    SAT_RATE,
    SENSITIVITY,
    SLOT,
    STUDY,
    SYNTH_FERS,
    SYNTH_FIELDS,
    SYNTH_SEED,
    Setup,
    StudyConfig,
)
from burstlab.store import config_hash
from burstlab.sweep import task_seed
from burstlab.traces import Trace
from burstlab.experiments.prr_mu import trace_fingerprint
from burstlab.experiments.prr_mu_inputs import _read_dir
from burstlab.models import LossModelBase, make_model

#: §II.B: "delays due to retransmissions greater than 50 ms in less than 0.1% of packets".
LATE = 0.050

#: Table I: the four models and the real trace, as burstlab's model names.
TABLE1 = {"a": "bernoulli-fer", "b": "bernoulli-burst", "c": "bernoulli-gap", "d": "bistable", "e": "trace"}
TABLE1_TEXT = {
    "a": "Bernoulli, same FER", "b": "Bernoulli, same mean burst length", "c": "Bernoulli, same mean gap length",
    "d": "bistable (Gilbert), same FER, mean burst and gap", "e": "the trace",
}  # fmt: skip
#: Every other model burstlab fits (``burstlab fit --models all`` and the extra families),
#: ranked against (e). ``list`` and ``replay`` are left out: fitted, they are the trace (e).
#: ``bootstrap`` (the trace's stationary block bootstrap) is the model-free reference of
#: ``burstlab fit --judge tcp``: how close resampled stretches of the trace itself come.
MORE_MODELS = ("ge-counts", "gilbert-elliott", "markov-ct", "on-off", "semi-markov", "semi-markov-pareto", "semi-markov-empirical", "vddp", "hmm", "runlength",
               "hsmm", "run-chain", "run-chain-vo", "bootstrap")  # fmt: skip
#: Models trained iteratively (expectation-maximisation with hmmlearn, the semi-Markov
#: chain's Viterbi training): on the first ``fit_slots`` slots.
EM_MODELS = ("gilbert-elliott", "vddp", "hmm", "hsmm")


def condition_label(cond: str) -> str:
    """``"(a) bernoulli-fer"`` for Table I's conditions, the model name otherwise."""
    for k, v in TABLE1.items():
        if v == cond:
            return f"({k}) {v}"
    return cond


# --------------------------------------------------------------------------------------
# the channel traces
# --------------------------------------------------------------------------------------
def _floor_pareto_mean(xm: float, alpha: float) -> float:
    """E[⌊X⌋] for X ~ Pareto(x_m ≥ 1, α > 1): Σ_{l≥1} P(X ≥ l) = ⌊x_m⌋ + x_m^α·ζ(α, ⌊x_m⌋ + 1)
    (Hurwitz zeta), the mean run the run-length sampler draws (``docs/loss-models.md``)."""
    from scipy.special import zeta

    k = math.floor(xm)
    return float(k + xm**alpha * zeta(alpha, k + 1))


def synthetic_burst(fer: float, burst: float, exp: float) -> float:
    """The synthetic set's mean error burst (slots) at ``fer``: ``burst`` at FER 10 %, scaled
    by (odds(fer) / odds(10 %))^``exp`` with odds = FER / (1 − FER), at least 1 slot."""
    return max(1.0, burst * ((fer / (1 - fer)) / (0.1 / 0.9)) ** exp)


def synthetic_model(fer: float, alpha: float, burst: float) -> Any:
    """The generator of one synthetic channel: an alternating renewal process
    (``LossModel.run_length``) of error gaps ⌊Pareto(x_m, α)⌋ — the polynomial tails of
    Barsocchi et al. Fig. 2 — and geometric error bursts of mean ``burst`` slots, x_m solved
    so that the expected FER, E[burst] / (E[burst] + E[gap]), is ``fer``. Returns (model, x_m)."""
    from scipy.optimize import brentq

    if not 0 < fer < 1:
        raise ParameterError(f"invalid parameter fer = {fer}: expected a frame error rate in (0, 1)")
    gap = burst * (1 - fer) / fer
    if gap < _floor_pareto_mean(1.0, alpha):
        raise ParameterError(f"invalid parameter fer = {fer}: with bursts of {burst:g} slots the mean gap {gap:.3g} is shorter than the shortest Pareto({alpha:g}) gaps")
    xm = float(brentq(lambda x: _floor_pareto_mean(x, alpha) - gap, 1.0, max(2.0, gap), xtol=1e-9))
    return LossModel.run_length({"kind": "pareto", "scale": xm, "shape": float(alpha)}, {"kind": "geometric", "mean": float(burst)}), xm


def synthetic_channel(fer: float, alpha: float, burst: float, exp: float, n_slots: int, seed: int, slot: float = SLOT) -> Trace:
    """One trace of the built-in synthetic set (labelled synthetic: name ``synthetic/...``,
    ``meta["synthetic"] = True``): ``n_slots`` slots of ``slot`` seconds from
    :func:`synthetic_model` with the mean burst of :func:`synthetic_burst`, sampled with a
    seed of (``seed``, fer, α, burst, exp)."""
    b = synthetic_burst(fer, burst, exp)
    model, xm = synthetic_model(fer, alpha, b)
    s = task_seed(seed, "hybrid-synthetic", f"{fer:.6g}", f"{alpha:.6g}", f"{burst:.6g}", f"{exp:.6g}")
    meta = {"dataset": "synthetic", "synthetic": True, "target_fer": fer, "alpha": alpha, "burst": b, "xm": xm, "seed": seed}
    return Trace(model.sample(n_slots, s), interval=slot, name=f"synthetic/fer{100 * fer:04.1f}%-a{alpha:g}-b{burst:g}-e{exp:g}", meta=meta)


@dataclass(frozen=True)
class ChannelTrace:
    """One raw channel of the study: its slots (1 = good), interval and statistics."""

    name: str
    fp: str  # SHA-256 of the bits: part of every key
    words: npt.NDArray[np.uint64]
    length: int
    interval: float
    fer: float
    mean_burst: float
    mean_gap: float
    synthetic: bool
    meta: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def trace(self) -> Trace:
        return Trace.from_packed(self.words, self.length, interval=self.interval, name=self.name)


def run_means(bits: Any) -> tuple[float, float, float]:
    """(FER, mean error-burst length, mean error-gap length) of a ``BitTrace`` (1 = good);
    NaN where a run kind is absent."""
    n = len(bits)
    good = bits.count_ones()
    bursts, gaps = bits.run_lengths(False), bits.run_lengths(True)
    return ((n - good) / n if n else math.nan, float(bursts.mean()) if len(bursts) else math.nan, float(gaps.mean()) if len(gaps) else math.nan)


def channel_trace(tr: Trace, slot: float, synthetic: bool) -> ChannelTrace:
    fer, b, g = run_means(tr.bits)
    return ChannelTrace(tr.name or "trace", trace_fingerprint(tr), np.asarray(tr.packed(), dtype=np.uint64), len(tr), float(tr.interval or slot),
                        fer, b, g, synthetic, dict(tr.meta))  # fmt: skip


def _read_traces(cfg: StudyConfig, notes: list[str]) -> list[Trace]:
    if cfg.dataset == "tossim":
        from burstlab.datasets.tossim import tossim

        # One noise reading = one slot; signal strengths solved for the synthetic set's FERs.
        return list(tossim(targets=tuple(round(1 - f, 6) for f in cfg.synth_fers), seed=cfg.synth_seed, interval=cfg.slot, segment=None))
    if cfg.dataset == "rutgers":
        levels = [int(str(x).lower().removeprefix("dbm")) for x in cfg.rutgers_noise] if cfg.rutgers_noise else [None]
        return [t for n in levels for t in rutgers(noise=n)]

    return _read_dir(cfg, notes)  # type: ignore[arg-type]


def select(cfg: StudyConfig, traces: Sequence[ChannelTrace], notes: list[str]) -> list[ChannelTrace]:
    """The traces with a raw FER in ``fer_range`` and both error bursts and gaps; at most
    ``max_traces``, spread evenly over the FERs (every ⌈n/max⌉-th by FER)."""
    lo, hi = cfg.fer_range
    ok = [t for t in traces if lo <= t.fer <= hi and math.isfinite(t.mean_burst) and math.isfinite(t.mean_gap)]
    if len(ok) < len(traces):
        notes.append(f"{len(traces) - len(ok)} of {len(traces)} traces left out: raw FER outside {lo:g}-{hi:g} (or no error burst or gap)")
    ok.sort(key=lambda t: (t.fer, t.name))
    if cfg.max_traces is not None and len(ok) > cfg.max_traces:
        idx = np.unique(np.round(np.linspace(0, len(ok) - 1, cfg.max_traces)).astype(int))
        notes.append(f"{len(idx)} of the {len(ok)} eligible traces kept (--max-traces {cfg.max_traces}), evenly spread over their FERs")
        ok = [ok[i] for i in idx]
    if not ok:
        raise ParameterError(f"invalid parameter traces: no trace has a raw FER in {lo:g}-{hi:g} with error bursts and gaps (--fer-range)")
    return ok


@functools.lru_cache(maxsize=16)
def _load(cfg: StudyConfig, alpha: float, burst: float, exp: float) -> tuple[tuple[ChannelTrace, ...], tuple[str, ...]]:
    notes: list[str] = []
    if cfg.dataset == "synthetic":
        trs = [channel_trace(synthetic_channel(f, alpha, burst, exp, cfg.n_slots, cfg.synth_seed, cfg.slot), cfg.slot, True) for f in cfg.synth_fers]
    else:
        raw = _read_traces(cfg, notes)
        untimed = sum(1 for t in raw if t.interval is None)
        if untimed:
            notes.append(f"{untimed} of {len(raw)} traces carry no timing: one entry = one slot of {1e3 * cfg.slot:g} ms (--slot)")
        trs = [channel_trace(t, cfg.slot, bool(t.meta.get("synthetic", False))) for t in raw]
    kept = select(cfg, trs, notes)
    if cfg.dataset != "synthetic":  # can the data support the study? (burstlab.datasets.support)
        w = support.warn(support.looping([t.length * t.interval for t in kept], cfg.duration, what=f"dataset {cfg.dataset}"))
        notes.extend([f"Warning: {w}"] if w else [])
    return tuple(kept), tuple(notes)


def load_traces(cfg: StudyConfig, setup: Setup | None = None) -> tuple[list[ChannelTrace], list[str]]:
    """The study's raw channels for an environment (the synthetic set depends on its
    ``synth_*`` fields), and notes on what was read and left out."""
    s = setup or cfg.setup
    synth = (float(s.synth_alpha), float(s.synth_burst), float(s.synth_burst_exp)) if cfg.dataset == "synthetic" else (0.0, 0.0, 0.0)
    trs, notes = _load(cfg, *synth)
    return list(trs), list(notes)


# --------------------------------------------------------------------------------------
# cells: one simulated configuration (without its replicate)
# --------------------------------------------------------------------------------------
def net_params(cfg: StudyConfig, s: Setup) -> dict[str, Any]:
    d = {k: getattr(s, k) for k in NET_FIELDS}
    d["rto_min"] = float(d["rto_min"])
    return {**d, "duration": float(cfg.duration), "warmup": float(cfg.warmup)}


def padhye_cell(cfg: StudyConfig, s: Setup, fer: float) -> dict[str, Any]:
    """Fig. 3: a Bernoulli raw channel of ``fer`` in ``slot`` intervals (0: error-free)."""
    return {"experiment": "padhye", "trace": None, "trace_fp": None, "condition": "bernoulli" if fer > 0 else "none", "fer": float(fer),
            "interval": float(cfg.slot), "fit_slots": None, **net_params(cfg, s)}  # fmt: skip


def table1_cell(cfg: StudyConfig, s: Setup, tr: ChannelTrace, cond: str) -> dict[str, Any]:
    """Fig. 4: the trace (``cond="trace"``) or a model fitted to it."""
    return {"experiment": "table1", "trace": tr.name, "trace_fp": tr.fp, "condition": cond, "fer": tr.fer, "interval": tr.interval,
            "fit_slots": cfg.fit_slots if cond in EM_MODELS else None, **net_params(cfg, s)}  # fmt: skip


def cell_id(p: dict[str, Any]) -> str:
    """A cell's short identity (:func:`burstlab.experiments.common.cell_hash`)."""
    return cell_hash(STUDY, p)


def conditions(cfg: StudyConfig, full: bool) -> list[str]:
    """Table I's conditions, and (``full``, at the defaults) every other model."""
    return list(TABLE1.values()) + (list(MORE_MODELS) if full and cfg.all_models else [])


def cells(cfg: StudyConfig, s: Setup, full: bool) -> list[dict[str, Any]]:
    """Every cell of environment ``s``: Fig. 3's FERs (and the error-free path) and Fig. 4's
    conditions on every trace."""
    out = [padhye_cell(cfg, s, f) for f in (0.0, *cfg.padhye_fers)]
    trs, _ = load_traces(cfg, s)
    for tr in trs:
        out += [table1_cell(cfg, s, tr, c) for c in conditions(cfg, full)]
    return out


def sweep_points(cfg: StudyConfig) -> list[tuple[str, Any, Setup]]:
    """(parameter, value, environment) of every sensitivity point; the defaults are the
    ("baseline", None, setup) point. The synthetic set's parameters only with it."""
    return [pt for pt in _sweep_points(cfg) if not (pt[0] in SYNTH_FIELDS and cfg.dataset != "synthetic")]


# --------------------------------------------------------------------------------------
# fits
# --------------------------------------------------------------------------------------
FIT_SCHEMA: dict[str, str] = {"trace": "VARCHAR", "trace_fp": "VARCHAR", "model": "VARCHAR", "fit_slots": "BIGINT", "params": "VARCHAR",
                              "seconds": "DOUBLE", "error": "VARCHAR"}  # fmt: skip


@dataclass(frozen=True)
class FitTask:
    """Fit one model to one trace (picklable: the bits travel packed)."""

    key: str
    trace: str
    trace_fp: str
    model: str
    words: npt.NDArray[np.uint64]
    length: int
    interval: float
    fit_slots: int | None


def fit_key(tr: ChannelTrace, model: str, fit_slots: int | None) -> str:
    return config_hash({"study": STUDY, "fit": model, "trace_fp": tr.fp, "fit_slots": fit_slots, "interval": tr.interval})


def run_fit(task: FitTask) -> dict[str, Any]:
    """The fitted model as ``to_dict`` JSON (or the reason it cannot be fitted)."""
    tr = Trace.from_packed(task.words, task.length, interval=task.interval, name=task.trace)
    if task.fit_slots is not None and len(tr) > task.fit_slots:
        tr = tr[: task.fit_slots]
    t0 = time.perf_counter()
    params, error = None, None
    try:
        params = json.dumps(make_model(task.model).fit(tr).to_dict(), sort_keys=True, allow_nan=False)
    except (BurstlabError, ValueError) as e:
        error = str(e).splitlines()[0]
    return {"key": task.key, "trace": task.trace, "trace_fp": task.trace_fp, "model": task.model, "fit_slots": task.fit_slots,
            "params": params, "seconds": time.perf_counter() - t0, "error": error}  # fmt: skip


#: Fitted in one task on a trace (:func:`group_fits`): HSMM and VDDP start from the HMM's
#: Baum-Welch fits, which a process computes once (``burstlab.models.hmm``).
SHARED_EM = ("hmm", "hsmm", "vddp")


def group_fits(tasks: Sequence[FitTask]) -> list[tuple[FitTask, ...]]:
    """The fit tasks as the pool runs them: the :data:`SHARED_EM` models of a trace (the
    same slots) together, every other fit alone; in the order of ``tasks``."""
    groups: dict[tuple[str, ...], list[FitTask]] = {}
    for t in tasks:
        k = (t.trace_fp, str(t.fit_slots), str(t.interval)) if t.model in SHARED_EM else (t.key,)
        groups.setdefault(k, []).append(t)
    return [tuple(g) for g in groups.values()]


def run_fits(group: tuple[FitTask, ...]) -> list[dict[str, Any]]:
    """:func:`run_fit` of each task of a group (:func:`group_fits`), in one process."""
    return [run_fit(t) for t in group]


def plan_fits(cfg: StudyConfig) -> list[FitTask]:
    """One task per (trace, model) that some cell needs, deduplicated by key."""
    want: dict[str, FitTask] = {}
    for name, _, s in sweep_points(cfg):
        trs, _ = load_traces(cfg, s)
        for tr in trs:
            for c in conditions(cfg, name == "baseline"):
                if c == "trace":
                    continue
                n = cfg.fit_slots if c in EM_MODELS else None
                k = fit_key(tr, c, n)
                want.setdefault(k, FitTask(k, tr.name, tr.fp, c, tr.words, tr.length, tr.interval, n))
    return sorted(want.values(), key=lambda t: (t.trace, t.model))


# --------------------------------------------------------------------------------------
# simulations
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    """One cell's runs (picklable): its parameters, what its channel is, its items."""

    name: str
    cell: str
    params: dict[str, Any]
    model: str | None  # the fitted model (to_dict JSON) of a model condition
    words: npt.NDArray[np.uint64] | None  # the trace (condition "trace")
    length: int
    n_slots: int
    items: tuple[Item, ...]


@functools.lru_cache(maxsize=4096)
def replicate_seed(study_seed: int, k: int) -> int:
    """Replicate k's simulator seed: the same in every cell (common random numbers)."""
    return task_seed(study_seed, STUDY, "replicate", k)


def channel_seed(study_seed: int, p: dict[str, Any], k: int) -> int:
    """The seed that samples replicate k's channel of a model condition (or Fig. 3's
    Bernoulli channel): of the trace, the condition and k, never of the network's settings,
    so every sensitivity point sees the same channels."""
    return task_seed(study_seed, STUDY, "channel", p["trace_fp"] or f"fer={p['fer']:.6g}", p["condition"], k)


#: The golden-ratio offsets of the trace condition: replicate k replays the trace from slot
#: ⌊frac(k·φ)·L⌋, spread over the trace whatever the number of replicates.
PHI = (math.sqrt(5) - 1) / 2


def trace_offset(k: int, length: int) -> int:
    return int(math.floor(((k * PHI) % 1.0) * length))


def items(cfg: StudyConfig, p: dict[str, Any], n: int) -> list[Item]:
    """Replicates 0..n−1 of cell ``p``, keyed by :func:`burstlab.store.config_hash` of
    {study, params, replicate, seed, burstlab version}
    (:func:`burstlab.experiments.common.keyed_items`). A model's channel seed
    (:func:`channel_seed`) follows from the study seed, the trace and condition in ``p``
    and the replicate."""
    return keyed_items(STUDY, cell_id(p), p, [replicate_seed(cfg.seed, k) for k in range(n)])


def plan(cfg: StudyConfig, fits: dict[str, dict[str, Any]]) -> tuple[list[Task], list[str]]:
    """Every simulation the study needs (deduplicated by key) in one task per cell, with
    the fitted models from ``fits`` (fit key → row); and notes on cells left out (a model
    that cannot be fitted to a trace)."""
    want: dict[str, tuple[dict[str, Any], int, ChannelTrace | None]] = {}
    for name, _, s in sweep_points(cfg):
        n = cfg.seeds if name == "baseline" else cfg.sweep_seeds
        trs, _ = load_traces(cfg, s)
        by_fp = {t.fp: t for t in trs}
        for p in cells(cfg, s, name == "baseline"):
            cid = cell_id(p)
            have = want.get(cid)
            want[cid] = (p, max(n, have[1] if have else 0), by_fp.get(p["trace_fp"]) if p["trace_fp"] else None)
    tasks, notes = [], []
    for cid, (p, n, tr) in sorted(want.items(), key=lambda kv: (kv[1][0]["experiment"], str(kv[1][0]["trace"]), kv[1][0]["condition"], kv[0])):
        model = None
        if p["experiment"] == "table1" and p["condition"] != "trace":
            assert tr is not None
            row = fits.get(fit_key(tr, p["condition"], p["fit_slots"]))
            if row is None or row["params"] is None:
                notes.append(f"{p['condition']} on {p['trace']}: not simulated ({row['error'] if row else 'not fitted'})")
                continue
            model = row["params"]
        words = tr.words if tr is not None and p["condition"] == "trace" else None
        tasks.append(Task(f"{p['experiment']}/{p['trace'] or p['fer']}/{p['condition']}/{cid}", cid, p, model, words, tr.length if tr else 0,
                          cfg.n_slots, tuple(items(cfg, p, n))))  # fmt: skip
    return tasks, sorted(set(notes))


def channel_bits(task: Task, k: int, study_seed: int) -> Any:
    """Replicate k's raw channel as a ``BitTrace`` of slots (1 = good), or None (error-free)."""
    p = task.params
    if p["condition"] == "none":
        return None
    if p["condition"] == "trace":
        assert task.words is not None
        bits = BitTrace.from_words(task.words, task.length).to_numpy()
        return BitTrace.from_numpy(np.roll(bits, -trace_offset(k, task.length)))
    seed = channel_seed(study_seed, p, k)
    if p["experiment"] == "padhye":
        return LossModel.bernoulli(p["fer"]).sample(task.n_slots, seed)
    assert task.model is not None
    return LossModelBase.from_dict(json.loads(task.model)).to_core().sample(task.n_slots, seed)


def network(p: dict[str, Any], channel: Any, seed: int) -> Any:
    """The :class:`burstlab.sim.Network` of one run: :func:`burstlab.sim.presets.satellite_wifi`
    (satellite FER 10^-5) with the cell's satellite buffer, its Wi-Fi ARQ over ``channel``
    (a ``LossModel`` in time mode, or None) and, with ``wifi_acks="channel"``, a half-duplex
    Wi-Fi hop whose ACK frames meet the same channel; one bulk TCP flow, series on."""
    tcp = TcpConfig(variant=p["variant"], mss=p["mss"], init_cwnd=2, delayed_ack=p["delayed_ack"], rto_min=p["rto_min"], rwnd=p["rwnd"])  # type: ignore[call-arg]
    rc = "fixed" if p["rate_control"] == "off" else p["rate_control"]
    arq = Arq(retry_limit=p["retry_limit"], counts=p["counts"], backoff=Backoff() if p["backoff"] == "dcf" else None, rate_control=rc)
    wifi = Link(rate=5.3e6, delay=0.0, buffer=p["wifi_buffer"], loss=channel, loss_mode="time", link_layer=arq)
    net = satellite_wifi(fer=SAT_FER, wifi=wifi, tcp=tcp, duration=p["duration"], warmup=p["warmup"], seed=seed, series=True)
    sat, wf = net.hops
    sat = replace(sat, forward=replace(sat.forward, buffer=p["sat_buffer"]))
    if p["wifi_acks"] == "channel":  # one medium for data and ACK frames; an error-free channel has nothing to share
        wf = replace(wf, duplex="half", ack_loss="sync" if channel is not None else "none")
    return replace(net, hops=[sat, wf])


def snr_channel(bits: Any, interval: float) -> Any:
    """The slots of ``bits`` (1 = good) as an SNR trace over 802.11b's curves (wrapping, as the
    replay does): a good slot at GOOD_SNR_DB, a bad one at BAD_SNR_DB (a deep fade that kills
    11 Mb/s frames, as Ttem's bad slot does, and that 1-2 Mb/s survive); each attempt is
    decided at the SNR of its start, at its own rate and size (docs/study-hybrid.md)."""
    a = np.asarray(bits.to_numpy(), dtype=bool)
    starts = np.concatenate(([0], np.flatnonzero(a[1:] != a[:-1]) + 1))
    snr = {"kind": "trace", "times": (starts * interval).tolist(), "db": np.where(a[starts], GOOD_SNR_DB, BAD_SNR_DB).tolist(),
           "end": len(a) * interval, "wrap": True}  # fmt: skip
    return phy_loss_model("cck11", 1076, snr)


def simulate(task: Task, k: int, seed: int, study_seed: int) -> tuple[Any, Any]:
    """Run replicate k of a task's cell: (NetworkResult, the channel's BitTrace or None). With
    rate adaptation the slots are a low or high SNR (:func:`snr_channel`), else replayed as
    lost or not (Ttem)."""
    bits = channel_bits(task, k, study_seed)
    p = task.params
    if bits is None:
        loss = None
    elif p["rate_control"] == "off":
        loss = LossModel.replay(bits, end="wrap", slot=p["interval"])
    else:
        loss = snr_channel(bits, p["interval"])
    return run_network(network(p, loss, seed)), bits


#: Columns of the ``runs`` table: the cell's parameters, then the run's numbers.
RUN_SCHEMA: dict[str, str] = {
    "study": "VARCHAR", "cell": "VARCHAR", "experiment": "VARCHAR", "trace": "VARCHAR", "trace_fp": "VARCHAR", "condition": "VARCHAR",
    "fer": "DOUBLE", "interval": "DOUBLE", "fit_slots": "BIGINT",
    "variant": "VARCHAR", "delayed_ack": "BOOLEAN", "rto_min": "DOUBLE", "rwnd": "INTEGER", "mss": "INTEGER", "retry_limit": "INTEGER",
    "counts": "VARCHAR", "backoff": "VARCHAR", "wifi_buffer": "INTEGER", "sat_buffer": "BIGINT", "wifi_acks": "VARCHAR", "rate_control": "VARCHAR",
    "duration": "DOUBLE", "warmup": "DOUBLE", "replicate": "INTEGER", "seed": "BIGINT",
    "goodput_bps": "DOUBLE", "send_pps": "DOUBLE", "segments_sent": "BIGINT", "segments_lost": "BIGINT", "queue_drops": "BIGINT",
    "timeouts": "BIGINT", "spurious_timeouts": "BIGINT", "fast_retransmits": "BIGINT", "retransmissions": "BIGINT",
    "rtt_mean": "DOUBLE", "rto_mean": "DOUBLE", "rto_median": "DOUBLE", "sat_queue_delay": "DOUBLE", "sat_utilisation": "DOUBLE",
    "wifi_frames": "BIGINT", "wifi_dropped": "BIGINT", "wifi_attempts": "BIGINT", "wifi_failed": "BIGINT", "wifi_late": "BIGINT",
    "wifi_latency_p99": "DOUBLE", "wifi_latency_max": "DOUBLE", "wifi_mean_rate": "DOUBLE", "wifi_low_rate_share": "DOUBLE", "channel_fer": "DOUBLE", "channel_burst": "DOUBLE", "channel_gap": "DOUBLE",
    "events": "BIGINT", "sim_config_hash": "VARCHAR", "config": "VARCHAR",
}  # fmt: skip


def _series_means(f: Any, warmup: float) -> tuple[float, float, float]:
    """Mean smoothed RTT, mean and median RTO over the measured period (one series row per
    ACK and timeout; §V: "the mean RTT, RTO")."""
    s = f.series
    if not s or not len(s["time"]):
        return math.nan, math.nan, math.nan
    keep = np.asarray(s["time"]) >= warmup
    srtt, rto = np.asarray(s["srtt"], float)[keep], np.asarray(s["rto"], float)[keep]
    srtt, rto = srtt[np.isfinite(srtt) & (srtt > 0)], rto[np.isfinite(rto) & (rto > 0)]
    return (float(srtt.mean()) if srtt.size else math.nan, float(rto.mean()) if rto.size else math.nan, float(np.median(rto)) if rto.size else math.nan)


def late_frames(dist: Any, limit: float = LATE) -> int:
    """Frames whose link-layer service took more than ``limit`` seconds (from the latency
    histogram: buckets starting at or above it; a bucket is 0.8 % wide)."""
    return int(np.asarray(dist.counts)[np.asarray(dist.lower) >= limit].sum())


def run_task(task: Task, study_seed: int) -> list[dict[str, Any]]:
    """Run every item of a task; one row per item (the worker function: the study binds
    ``study_seed`` with :func:`functools.partial`, which pickles)."""
    rows = []
    p = task.params
    for it in task.items:
        r, bits = simulate(task, it.replicate, it.seed, study_seed)
        f, sat, wifi = r.flows["flow"], r.links["satellite"], r.links["wifi"]
        ll = wifi.link_layer
        rtt, rto, rto_med = _series_means(f, p["warmup"])
        if bits is not None:  # the slots the run used (after the warm-up, as the counters)
            a, b = int(p["warmup"] / p["interval"]), math.ceil(p["duration"] / p["interval"])
            used = bits.slice(a, min(b, len(bits))) if b <= len(bits) else None
            fer, burst, gap = run_means(used) if used is not None and len(used) else run_means(bits)
        else:
            fer, burst, gap = 0.0, math.nan, math.nan
        rows.append({
            "key": it.key, "study": STUDY, "cell": task.cell, **p, "replicate": it.replicate, "seed": it.seed,
            "goodput_bps": f.goodput_bps, "send_pps": f.packets_sent / f.duration if f.duration > 0 else math.nan,
            "segments_sent": f.packets_sent, "segments_lost": f.packets_lost, "queue_drops": f.queue_drops, "timeouts": f.timeouts,
            "spurious_timeouts": f.spurious_timeouts, "fast_retransmits": f.fast_retransmits, "retransmissions": f.retransmissions,
            "rtt_mean": rtt, "rto_mean": rto, "rto_median": rto_med, "sat_queue_delay": sat.queue_delay_mean, "sat_utilisation": sat.utilisation,
            "wifi_frames": ll.frames, "wifi_dropped": ll.dropped, "wifi_attempts": ll.attempts, "wifi_failed": ll.failed_attempts,
            "wifi_late": late_frames(ll.latency), "wifi_latency_p99": ll.latency.quantiles.get(0.99), "wifi_latency_max": ll.latency.max,
            # the attempts' mean PHY rate and the share sent at 1-2 Mb/s (a fixed hop: 11 Mb/s, none)
            "wifi_mean_rate": sum(x["share"] * x["rate_bps"] for x in ll.rates) if ll.rates else 11e6,
            "wifi_low_rate_share": sum(x["share"] for x in ll.rates if x["rate_bps"] <= 2e6),
            "channel_fer": fer, "channel_burst": burst, "channel_gap": gap, "events": r.events, "sim_config_hash": r.config_hash, "config": it.config,
        })  # fmt: skip
    return rows


# --------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CellStats:
    """One cell over its replicates: goodput (bits/s: mean, sd, 95 % CI, median, range) and
    the means Fig. 3 feeds to Padhye's formula, with the mechanism counters."""

    params: dict[str, Any]
    n: int
    goodput: np.ndarray  # by replicate
    mean: float
    sd: float
    ci: float
    median: float
    lo: float
    hi: float
    seg_loss: float  # segments lost / sent (channel residual + satellite FER + buffer)
    rtt: float
    rto: float
    timeouts: float
    spurious: float  # spurious timeouts per run
    queue_drops: float
    sat_queue_delay: float
    residual: float  # Wi-Fi frames dropped at the ARQ limit / frames
    raw_attempt_loss: float  # failed attempts / attempts
    attempts: float  # per frame
    late: float  # share of Wi-Fi frames served in more than 50 ms
    channel_fer: float
    channel_burst: float
    channel_gap: float
    mean_rate: float = 11e6  # the Wi-Fi attempts' mean PHY rate (bits/s)
    low_rate_share: float = 0.0  # share of Wi-Fi attempts at 1-2 Mb/s


_RESULT_COLUMNS = {"study", "cell", "replicate", "seed", *list(RUN_SCHEMA)[list(RUN_SCHEMA).index("goodput_bps"):]}


def _nanmean(x: Sequence[float]) -> float:
    a = np.asarray([v for v in x if v is not None], dtype=float)
    a = a[np.isfinite(a)]
    return float(a.mean()) if a.size else math.nan


def cell_stats(rows: Sequence[dict[str, Any]]) -> dict[str, CellStats]:
    """Group rows by cell; the statistics of each."""
    out = {}
    for cid, rs in by_cell(rows).items():
        g = np.array([r["goodput_bps"] for r in rs], dtype=float)
        n = len(g)
        sd = float(np.std(g, ddof=1)) if n > 1 else math.nan

        def tot(k: str) -> int:
            return sum(int(r[k]) for r in rs)

        out[cid] = CellStats(
            params={k: rs[0][k] for k in RUN_SCHEMA if k not in _RESULT_COLUMNS}, n=n, goodput=g, mean=float(g.mean()), sd=sd,
            ci=t95(n) * sd / math.sqrt(n) if n > 1 else math.nan, median=float(np.median(g)), lo=float(g.min()), hi=float(g.max()),
            seg_loss=tot("segments_lost") / tot("segments_sent") if tot("segments_sent") else math.nan,
            rtt=_nanmean([r["rtt_mean"] for r in rs]), rto=_nanmean([r["rto_mean"] for r in rs]), timeouts=_nanmean([r["timeouts"] for r in rs]),
            spurious=_nanmean([r["spurious_timeouts"] for r in rs]),            queue_drops=_nanmean([r["queue_drops"] for r in rs]), sat_queue_delay=_nanmean([r["sat_queue_delay"] for r in rs]),
            residual=tot("wifi_dropped") / tot("wifi_frames") if tot("wifi_frames") else math.nan,
            raw_attempt_loss=tot("wifi_failed") / tot("wifi_attempts") if tot("wifi_attempts") else math.nan,
            attempts=tot("wifi_attempts") / tot("wifi_frames") if tot("wifi_frames") else math.nan,
            late=tot("wifi_late") / tot("wifi_frames") if tot("wifi_frames") else math.nan,
            channel_fer=_nanmean([r["channel_fer"] for r in rs]), channel_burst=_nanmean([r["channel_burst"] for r in rs]),
            channel_gap=_nanmean([r["channel_gap"] for r in rs]),
            mean_rate=_nanmean([r.get("wifi_mean_rate", 11e6) for r in rs]), low_rate_share=_nanmean([r.get("wifi_low_rate_share", 0.0) for r in rs]),
        )  # fmt: skip
    return out


def padhye_goodput(c: CellStats, mss: int, delayed_ack: bool, rwnd: int | None) -> tuple[float, Any]:
    """Padhye's formula (the full model, :func:`burstlab.analytic.padhye`) at the cell's mean
    RTT, mean RTO (T0) and segment error rate p (§V), as goodput B·(1 − p)·MSS·8 in bits/s;
    b = 2 with delayed ACKs, else 1; Wmax = the receiver window. NaN when p = 0."""
    p = c.seg_loss
    if not (0 < p < 1 and math.isfinite(c.rtt) and math.isfinite(c.rto)):
        return math.nan, None
    est = padhye(p, c.rtt, c.rto, 2.0 if delayed_ack else 1.0, float(rwnd) if rwnd else None, mss)
    return est.pps * (1 - p) * mss * 8, est


class Env:
    """The cells of one environment, by their experiment coordinates."""

    def __init__(self, cfg: StudyConfig, setup: Setup, stats: dict[str, CellStats]) -> None:
        self.cfg, self.setup, self._stats = cfg, setup, stats
        self.traces, _ = load_traces(cfg, setup)
        self._ids: dict[tuple[Any, ...], str] = {}
        self._heads: dict[str, float] | None = None

    def padhye(self, fer: float) -> CellStats | None:
        k = ("padhye", fer)
        if k not in self._ids:
            self._ids[k] = cell_id(padhye_cell(self.cfg, self.setup, fer))
        return self._stats.get(self._ids[k])

    def table1(self, tr: ChannelTrace, cond: str) -> CellStats | None:
        k = (tr.fp, cond)
        if k not in self._ids:
            self._ids[k] = cell_id(table1_cell(self.cfg, self.setup, tr, cond))
        return self._stats.get(self._ids[k])

    def padhye_row(self, fer: float) -> tuple[CellStats | None, float]:
        """Fig. 3 at one FER: the cell and Padhye's goodput."""
        c = self.padhye(fer)
        if c is None:
            return None, math.nan
        s = self.setup
        return c, padhye_goodput(c, s.mss, s.delayed_ack, s.rwnd)[0]

    def ratios(self, cond: str, ref: str = "trace") -> np.ndarray:
        """Per trace, mean goodput of ``cond`` ÷ that of ``ref`` (NaN where either is missing)."""
        out = []
        for tr in self.traces:
            x, y = self.table1(tr, cond), self.table1(tr, ref)
            out.append(x.mean / y.mean if x is not None and y is not None and y.mean > 0 else math.nan)
        return np.asarray(out, dtype=float)

    def distance(self, cond: str) -> float:
        """How far ``cond``'s goodput is from the trace's: the mean over traces of
        |ln(G_cond / G_trace)| (0: equal; ln 2 = 0.69: a factor of two). Traces where either
        goodput is 0 count as ln(1000)."""
        r = self.ratios(cond)
        r = r[~np.isnan(r)]
        if not r.size:
            return math.nan
        return float(np.mean(np.minimum(np.abs(np.log(np.clip(r, 1e-3, 1e3))), math.log(1e3))))

    def geo_ratio(self, cond: str) -> float:
        """Geometric mean over traces of G_cond / G_trace."""
        r = self.ratios(cond)
        r = r[np.isfinite(r) & (r > 0)]
        return float(np.exp(np.mean(np.log(r)))) if r.size else math.nan

    def ranking(self) -> list[tuple[str, float, float]]:
        """(condition, distance, geometric-mean ratio) of every model simulated on the traces,
        nearest to the trace first."""
        conds = [c for c in conditions(self.cfg, True) if c != "trace"]
        out = [(c, self.distance(c), self.geo_ratio(c)) for c in conds]
        return sorted([x for x in out if math.isfinite(x[1])], key=lambda x: x[1])

    def headline(self) -> dict[str, float]:
        """The numbers the sensitivity tables follow (NaN where the environment lacks the cells)."""
        if self._heads is None:
            self._heads = self._headline()
        return dict(self._heads)

    def _headline(self) -> dict[str, float]:
        d: dict[str, float] = {}
        for k, c in TABLE1.items():
            if c != "trace":
                d[f"{k}_over_e"] = self.geo_ratio(c)
                d[f"dist_{k}"] = self.distance(c)
        es = [self.table1(t, "trace") for t in self.traces]
        d["e_goodput_kbps"] = _nanmean([c.mean / 1e3 for c in es if c is not None])
        f = self.cfg.padhye_fers
        for tag, fer in (("low", f[0]), ("high", f[-1])):
            cell, pg = self.padhye_row(fer)
            d[f"padhye_{tag}"] = cell.median / pg if cell is not None and pg > 0 else math.nan
        return d


def environments(cfg: StudyConfig, runs: Sequence[dict[str, Any]]) -> tuple[Env, list[tuple[str, Any, Env]]]:
    """The baseline environment (every run) and every sensitivity point's, each point along
    a parameter (its default included) on the same first ``sweep_seeds`` replicates."""
    return common_environments(cfg, runs, cell_stats, Env, sweep_points(cfg), ("baseline",))


# --------------------------------------------------------------------------------------
# the whole study
# --------------------------------------------------------------------------------------
@dataclass
class StudyResult(_StudyResult):
    """Where the study wrote its outputs, and what it computed (with the model fits)."""

    fits: list[dict[str, Any]] = field(default_factory=list)


__all__ = ["ChannelTrace", "Env", "Setup", "StudyConfig", "StudyResult", "load_traces", "synthetic_burst", "synthetic_channel", "synthetic_model"]
