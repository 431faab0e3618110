"""The PRR/μ study of Srinivasan et al. ("PRR is not enough"), from traces to figures.

For each link trace (PRR in ``prr_range``, μ defined):

1. PRR, μ, runs and μ convergence of the trace (:func:`burstlab.stats.trace_stats`);
2. TCP NewReno in slotted trace-driven mode (Srinivasan et al. §3.1; :func:`burstlab.sim.run_trace`)
   over (a) the empirical trace, (b) ``replicates`` independent (Bernoulli) links with the
   same PRR and length (§6), (c) ``replicates`` Gilbert-Elliott links with the same PRR and
   μ (§9.1, g = PRR·(1−μ), b = (1−PRR)·(1−μ));
3. per link: the throughput difference of (a) against the mean of (b), in packets/s and
   percent (Figs. 6/8); (a) against the mean of (c) (Fig. 19); the longest success run of (a)
   against the longest that (c) produced (Fig. 20); chunk-μ RMS and prefix-μ convergence
   (Figs. 16-17);
4. the least-L1 throughput fits of :mod:`burstlab.fits` on the links in ``fit_range``
   (PRR only, second order in PRR and μ, 15 terms; Figs. 11-13), in-sample and k-fold CV.

Every (link, condition, replicate) simulation is one row of the results store
(:class:`burstlab.store.ResultStore`), keyed by the hash of its full configuration; links
are the tasks of :func:`burstlab.sweep.run_tasks`, and a task only runs the rows its link
is still missing, so a killed study resumes where it stopped. All randomness comes from
seeds derived from (study seed, link id, condition, replicate), never from the worker.
"""

from __future__ import annotations

import errno
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from burstlab.experiments import prr_mu_figures as F
from burstlab.experiments import prr_mu_report as R
from burstlab.experiments.common import StudyResult as _StudyResult
from burstlab.sim import TcpConfig, run_trace
from burstlab._core import LossModel, ParameterError
from burstlab.experiments.prr_mu_inputs import (  # noqa: F401  (re-exported: the report, tests and benchmarks read them here)
    CONVERGENCE_LENGTH,
    StudyLink,
    _support_warnings,
    _walk,
    input_warnings,
    load_traces,
    select_links,
)
from burstlab.experiments.prr_mu_settings import (  # noqa: F401  (re-exported)
    CONDITIONS,
    DATASETS,
    DEFAULT_PROFILE,
    PROFILES,
    STUDY,
    TCP_PROFILES,
    Profile,
    StudyConfig,
)
from burstlab.stats import trace_stats
from burstlab.study import provenance
from burstlab.study.commit import commit_in_batches
from burstlab.study.estimate import bootstrap_cache
from burstlab.store import ResultStore, canonical_json, results_version
from burstlab.sweep import run_tasks, set_forkserver_preload, task_seed
from burstlab.traces import Trace


# --------------------------------------------------------------------------------------
# tasks
# --------------------------------------------------------------------------------------
def trace_fingerprint(trace: Trace) -> str:
    """SHA-256 of a trace's bits (packed words and length): part of every row's key."""
    h = hashlib.sha256()
    h.update(str(len(trace)).encode())
    h.update(np.ascontiguousarray(trace.packed(), dtype="<u8").tobytes())
    return h.hexdigest()


@dataclass(frozen=True)
class Item:
    """One simulation of a link: condition × replicate, its seed, its key and configuration."""

    condition: str
    replicate: int
    seed: int
    key: str
    config: str  # canonical JSON


@dataclass(frozen=True)
class LinkTask:
    """What a worker needs for one link (picklable, small: the bits travel packed)."""

    link_id: str
    group: str
    subgroup: str
    synthetic: bool
    words: npt.NDArray[np.uint64]
    length: int
    prr: float
    mu: float
    slot: float
    link_pps: float
    tcp: dict[str, Any]
    ack_path: str
    chunk: int
    items: tuple[Item, ...]
    sender_queue: str


def plan(cfg: StudyConfig, links: Sequence[StudyLink]) -> list[LinkTask]:
    """All link tasks with every (condition, replicate) item and its key.

    An item's configuration is :func:`burstlab.store.canonical_json` of {study, link, condition,
    replicate, seed, slot, profile, tcp, ack_path, chunk, results version}, plus the sender's
    queue unless it is ``fifo`` (so items stored before the choice existed keep their keys, and
    the two choices' results never mix), and its key the SHA-256 of that text
    (= :func:`burstlab.store.config_hash`). The parts shared by every
    item are checked and made canonical once; each item's text is then ``json.dumps`` of plain
    values with sorted keys, the same canonical text at a fraction of the cost (issue 12)."""
    prof = cfg.prof
    tcp = cfg.tcp()
    queue = {} if cfg.sender_queue == "fifo" else {"sender_queue": cfg.sender_queue}
    shared = json.loads(canonical_json({"study": STUDY, "slot": prof.slot, "profile": prof.name, "tcp": tcp, "ack_path": cfg.ack_path,
                                        "chunk": cfg.chunk, "burstlab_version": results_version(), **queue}))
    tasks = []
    for lk in links:
        link = json.loads(canonical_json({"id": lk.link_id, "group": lk.group, "bits_sha256": trace_fingerprint(lk.trace), "length": len(lk.trace)}))
        items = []
        for cond in CONDITIONS:
            for rep in range(1 if cond == "empirical" else cfg.replicates):
                seed = task_seed(cfg.seed, lk.link_id, cond, rep)
                text = json.dumps({**shared, "link": link, "condition": cond, "replicate": rep, "seed": seed}, sort_keys=True, separators=(",", ":"))
                items.append(Item(cond, rep, seed, hashlib.sha256(text.encode()).hexdigest(), text))
        st = lk.stats
        assert st.prr is not None and st.mu is not None  # select_links guarantees both
        tasks.append(
            LinkTask(lk.link_id, lk.group, lk.subgroup, lk.synthetic, lk.trace.packed(), len(lk.trace), st.prr, st.mu,
                     prof.slot, prof.link_pps, tcp, cfg.ack_path, cfg.chunk, tuple(items), cfg.sender_queue)
        )
    return tasks


#: Columns of the ``runs`` table (one row per link × condition × replicate).
RUN_SCHEMA: dict[str, str] = {
    "study": "VARCHAR",
    "link_id": "VARCHAR",
    "group": "VARCHAR",
    "subgroup": "VARCHAR",
    "synthetic": "BOOLEAN",
    "condition": "VARCHAR",
    "replicate": "INTEGER",
    "seed": "BIGINT",
    "length": "BIGINT",
    "slot": "DOUBLE",
    "link_pps": "DOUBLE",
    "prr": "DOUBLE",
    "mu": "DOUBLE",
    "g": "DOUBLE",
    "b": "DOUBLE",
    "max_success_run": "BIGINT",
    "mean_success_run": "DOUBLE",
    "max_loss_burst": "BIGINT",
    "mean_loss_burst": "DOUBLE",
    "chunk_rms_mu": "DOUBLE",
    "throughput_pps": "DOUBLE",
    "goodput_bps": "DOUBLE",
    "packets_sent": "BIGINT",
    "packets_lost": "BIGINT",
    "retransmissions": "BIGINT",
    "fast_retransmits": "BIGINT",
    "timeouts": "BIGINT",
    "sim_duration": "DOUBLE",
    "sim_config_hash": "VARCHAR",
    "note": "VARCHAR",
    "config": "VARCHAR",
}


def condition_trace(task: LinkTask, item: Item) -> Trace:
    """The trace a condition simulates: (a) the link's own bits; (b) Bernoulli with loss
    1 − PRR; (c) Gilbert-Elliott with the link's PRR and μ (Srinivasan et al. §6.2), each sampled in
    Rust from the item's seed, with the link's length."""
    if item.condition == "empirical":
        return Trace.from_packed(task.words, task.length, interval=task.slot)
    if item.condition == "independent":
        return Trace(LossModel.bernoulli(1.0 - task.prr).sample(task.length, item.seed), interval=task.slot)
    if item.condition == "ge":
        return Trace(LossModel.gilbert_elliott_prr_mu(task.prr, task.mu).sample(task.length, item.seed), interval=task.slot)
    raise ParameterError(f"invalid parameter condition = {item.condition!r}: expected one of {CONDITIONS}")


def simulate(trace: Trace, slot: float, tcp: dict[str, Any], ack_path: str, seed: int, sender_queue: str) -> Any:
    """NewReno over ``trace`` in slotted trace-driven mode (Srinivasan et al. §3.1)."""
    return run_trace(trace, slot=slot, tcp=TcpConfig(**tcp), ack_path=ack_path, seed=seed, sender_queue=sender_queue)  # type: ignore[arg-type]


def run_link(task: LinkTask) -> list[dict[str, Any]]:
    """Run every item of one link task; one row per item (the worker function)."""
    rows = []
    for item in task.items:
        base: dict[str, Any] = {
            "key": item.key,
            "study": STUDY,
            "link_id": task.link_id,
            "group": task.group,
            "subgroup": task.subgroup,
            "synthetic": task.synthetic,
            "condition": item.condition,
            "replicate": item.replicate,
            "seed": item.seed,
            "length": task.length,
            "slot": task.slot,
            "link_pps": task.link_pps,
            "config": item.config,
            "note": None,
        }
        try:
            tr = condition_trace(task, item)
        except ParameterError as e:  # e.g. a μ outside what a GE chain with this PRR can have
            rows.append({**base, **{c: None for c in RUN_SCHEMA if c not in base}, "note": f"no trace: {e}"})
            continue
        st = trace_stats(tr, chunk=task.chunk, convergence_points=1, warn=False)
        res = simulate(tr, task.slot, task.tcp, task.ack_path, item.seed, task.sender_queue)
        rows.append(
            {
                **base,
                "prr": st.prr,
                "mu": st.mu,
                "g": st.g,
                "b": st.b,
                "max_success_run": st.success_runs.max,
                "mean_success_run": st.success_runs.mean,
                "max_loss_burst": st.loss_bursts.max,
                "mean_loss_burst": st.loss_bursts.mean,
                "chunk_rms_mu": st.chunk_rms,
                "throughput_pps": float(res.goodput_pps),
                "goodput_bps": float(res.goodput_bps),
                "packets_sent": int(res.packets_sent),
                "packets_lost": int(res.packets_lost),
                "retransmissions": int(res.retransmissions),
                "fast_retransmits": int(res.fast_retransmits),
                "timeouts": int(res.timeouts),
                "sim_duration": float(res.duration),
                "sim_config_hash": str(res.config_hash),
            }
        )
    return rows


def pending_tasks(tasks: Sequence[LinkTask], done: set[str]) -> list[LinkTask]:
    """The tasks with their finished items removed (resume); links with nothing left drop out."""
    out = []
    for t in tasks:
        left = tuple(i for i in t.items if i.key not in done)
        if left:
            out.append(LinkTask(**{**t.__dict__, "items": left}))
    return out


# --------------------------------------------------------------------------------------
# the whole study
# --------------------------------------------------------------------------------------
@dataclass
class StudyResult(_StudyResult):
    """Where the study wrote its outputs, and the tables it computed: every study's result
    (:class:`burstlab.experiments.common.StudyResult`) with the links, Fig. 13's rows and
    each phase's wall time."""

    links: list[dict[str, Any]] = field(default_factory=list)
    fig13: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


#: The study's phases, in order (each is reported as it starts and ends; :class:`StudyResult`
#: keeps their wall times).
PHASES = ("inputs", "simulations", "tables", "fits and figures", "report")

class _Phases:
    """Announce each phase ('[2/5] simulations …') and time it."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self.times: dict[str, float] = {}

    def __call__(self, name: str, what: str = "") -> _Phase:
        return _Phase(self, name, what)


class _Phase:
    def __init__(self, ph: _Phases, name: str, what: str) -> None:
        self.ph, self.name, self.what = ph, name, what

    def __enter__(self) -> _Phase:
        self.t0 = time.perf_counter()
        if self.name != PHASES[0]:  # the first is announced when it is done: bad input is then the only line
            self.ph.say(f"[{PHASES.index(self.name) + 1}/{len(PHASES)}] {self.name}" + (f": {self.what}" if self.what else "") + " …")
        return self

    def __exit__(self, *exc: object) -> None:
        dt = time.perf_counter() - self.t0
        self.ph.times[self.name] = dt
        if exc[0] is None:
            what = f" ({self.what})" if self.name == PHASES[0] and self.what else ""
            self.ph.say(f"[{PHASES.index(self.name) + 1}/{len(PHASES)}] {self.name}{what} done in {dt:.2f} s")


def input_files(cfg: StudyConfig, traces: Sequence[Trace]) -> list[Path]:
    """Every file the study's links were read from: the traces' own files (Rutgers), the
    TOSSIM noise traces, every file of a ``--traces`` folder; none for the synthetic testbed."""
    if cfg.dataset == "synthetic":
        return []
    if cfg.dataset == "traces":
        return _walk(Path(cfg.traces_dir))  # type: ignore[arg-type]
    if cfg.dataset == "tossim":
        if cfg.tossim_noise_files:
            return [Path(f) for f in cfg.tossim_noise_files]
        names = sorted({str(t.meta["noise_file"]) for t in traces if "noise_file" in t.meta})
        root = provenance.dataset_record("tossim-noise")["folder"]
        return [Path(str(root)) / n for n in names]
    return sorted({Path(str(t.meta["path"])) for t in traces if "path" in t.meta})


def study_provenance(cfg: StudyConfig, traces: Sequence[Trace]) -> dict[str, Any]:
    """What produced this run besides its configuration (:mod:`burstlab.study.provenance`)."""
    seeds: dict[str, Any] = {"study seed": cfg.seed, "seeds per synthetic condition": cfg.replicates}
    if cfg.dataset == "synthetic":
        seeds["testbed seed"] = cfg.testbed_seed
    registered = {"rutgers": "rutgers-noise", "starlink": "starlink-ping", "tossim": None if cfg.tossim_noise_files else "tossim-noise"}
    return provenance.collect(STUDY, seeds=seeds, inputs=input_files(cfg, traces), dataset=registered.get(cfg.dataset))


def run_study(
    cfg: StudyConfig,
    out: str | Path,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    formats: Sequence[str] = ("png",),
) -> StudyResult:
    """Run (or resume) the study and write the store, tables, figures and report under ``out``.

    ``formats``: the figure files to write (PNG always, PDF on request). ``log`` receives
    one line per phase start/end and per note (the CLI prints them on stderr)."""
    say = log or (lambda s: None)
    ph = _Phases(say)
    t0 = time.perf_counter()
    out = Path(out)
    local_pool = cluster is None and workers != 1
    bound = slots_bound(cfg)
    if local_pool and not (out / "store.duckdb").exists() and (bound is None or bound >= POOL_MIN_SLOTS):  # a new study: everything is to do
        _start_forkserver()
    # Bad input (a malformed trace, no eligible link, an output path that is a file) fails
    # before anything is written.
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "is a file, expected a folder", str(out))
    info: dict[str, Any] = {}
    notes: list[str] = []
    with ph("inputs", f"{cfg.dataset} traces read, statistics"):
        traces = load_traces(cfg, notes, progress=progress)
        links, excluded = select_links(cfg, traces, info)
        info["warnings"] += _support_warnings(cfg, [lk.stats for lk in links])  # can the data support the study?
        for n in notes:
            say(f"note: {n}")
        for w in info["warnings"]:
            say(f"warning: {w}")
        if not links:
            raise ParameterError(f"invalid parameter dataset = {cfg.dataset!r}: no link has PRR in {cfg.prr_range} with μ defined ({excluded}); "
                                 "--prr-range LOW HIGH widens the range")
        tasks = plan(cfg, links)
        if local_pool and planned_slots(tasks) < POOL_MIN_SLOTS:
            say(f"note: {planned_slots(tasks):,} slots to simulate: the study runs in this process (a pool's start, ~0.7 s of CPU, "
                f"would cost more than it saves below {POOL_MIN_SLOTS:,}; docs/claims.md)")
            workers, local_pool = 1, False
    out.mkdir(parents=True, exist_ok=True)
    keys = [i.key for t in tasks for i in t.items]
    store_path = out / "store.duckdb"
    with ResultStore(store_path, "runs", RUN_SCHEMA) as store:  # (removes the temporary files a killed run left)
        todo = pending_tasks(tasks, store.keys())
        n_todo = sum(len(t.items) for t in todo)
        with ph("simulations", f"{len(links)} links, {len(keys)} simulations, {len(keys) - n_todo} already in {store_path}, {n_todo} to run"):
            if local_pool and n_todo:  # a resumed study with simulations left (a no-op if started above)
                _start_forkserver()
            _simulate_all(cfg, todo, store, workers=workers, cluster=cluster, progress=progress, say=say)

        with ph("tables"):
            runs = _fetch(store, keys)
            links_tab = R.write_tables(cfg, out, store, links, runs)
            info["provenance"] = study_provenance(cfg, traces)
            provenance.write(out, info["provenance"], store)
    with ph("fits and figures", "least-L1 fits with cross-validation and bootstrap, figures (only what changed)"):
        fitted, figs = F.fits_and_figures(cfg, out, links, links_tab, info, workers=workers, progress=progress, formats=formats)
    with ph("report"), bootstrap_cache(out / ".cache" / "bootstrap.json"):  # a re-run on the same links recomputes no interval
        md, html, claims = R.write_report(cfg, out, links, links_tab, runs, excluded, fitted, F.fit_notes(cfg, fitted), figs, notes, info, ph.times)
    return StudyResult(out, store_path, md, html, runs, figs, claims, n_todo, len(keys) - n_todo, time.perf_counter() - t0,
                       links=links_tab, fig13=F.fig13_rows(fitted), timings=dict(ph.times))  # fmt: skip


#: A local pool pays for itself only when there is work to spread: its start costs ~0.7 s of
#: CPU (the forkserver imports numpy, matplotlib and scipy's linear programs; each worker
#: forks) and ~0.4 s of wall time. Below this many simulated slots (:func:`planned_slots`)
#: the study runs in its own process whatever ``--workers`` says, and says so: ``--quick``'s
#: 3.6 million slots simulate in ~0.06 s, and with 2 workers it took 2.10 s against 2.03 s
#: with one (quiet machine; docs/claims.md, "Speed of the studies"). The default study
#: (66 million) keeps its pool. Results never depend on where a task runs.
POOL_MIN_SLOTS = 20_000_000


def planned_slots(tasks: Sequence[LinkTask]) -> int:
    """The slots the study simulates: every item (condition × replicate) of every link, its
    trace's length each."""
    return sum(len(t.items) * t.length for t in tasks)


def slots_bound(cfg: StudyConfig) -> int | None:
    """An upper bound of :func:`planned_slots` known before the inputs are read (the
    synthetic testbed's size), None for other data: the forkserver is started early (to
    import while the inputs are read) only when the pool may be used."""
    if cfg.dataset != "synthetic" or cfg.traces_dir is not None:
        return None
    links = cfg.n_links if cfg.max_links is None else min(cfg.n_links, cfg.max_links)
    runs = sum(1 if c == "empirical" else cfg.replicates for c in CONDITIONS)
    return links * runs * (cfg.n_slots // cfg.subsample + 1)


def _start_forkserver() -> None:
    """Start the forkserver of the local pools now, importing this study (numpy, burstlab)
    and what its fits and figures need (matplotlib, scipy.optimize: ~1 s) while this process
    reads the inputs and then runs the first simulations itself (``help_while_starting``):
    the simulation and figure workers fork from it with nothing left to import, instead of
    each figure worker importing matplotlib and the fit's scipy on the critical path after
    the simulations (issue 12). A new study starts it first thing; a resumed one only if
    simulations are left (a re-run with everything in the store starts no process)."""
    from multiprocessing import forkserver

    set_forkserver_preload("burstlab.experiments.prr_mu", "burstlab.experiments.prr_mu_figures", *FIGURE_MODULES)  # with the dies-with-us guard
    forkserver.ensure_running()


#: What the fits-and-figures workers import (preloaded by the forkserver).
FIGURE_MODULES = ("burstlab.plot", "matplotlib.figure", "matplotlib.backends.backend_agg", "burstlab.fits")


def _simulate_all(cfg: StudyConfig, todo: Sequence[LinkTask], store: ResultStore, *, workers: int | None, cluster: str | None,
                  progress: bool, say: Callable[[str], None]) -> None:
    """Run the pending link tasks and commit their rows in batches
    (:func:`~burstlab.study.commit.commit_in_batches`: a killed study loses at most the
    links of the last second and the ones in flight); "finished …" is said
    only once a link is committed."""

    def committed(task: LinkTask, k: int) -> None:
        if not progress:
            say(f"finished {task.link_id} ({k}/{len(todo)} links)")

    commit_in_batches(run_tasks(run_link, todo, workers=workers, cluster=cluster, progress=progress, description=f"prr-mu {cfg.dataset}: simulations",
                                help_while_starting=True), store, committed=committed)  # fmt: skip


def _fetch(store: ResultStore, keys: Sequence[str]) -> list[dict[str, Any]]:
    return store.rows_with_keys(keys, order_by="r.link_id, r.condition, r.replicate")


