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

import hashlib
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from burstlab import __version__
from burstlab._core import LossModel, ParameterError
from burstlab.stats import TraceStats, trace_stats
from burstlab.store import ResultStore, canonical_json, config_hash
from burstlab.sweep import run_tasks, task_seed
from burstlab.traces import Trace

STUDY = "prr-mu"
CONDITIONS = ("empirical", "independent", "ge")
DATASETS = ("synthetic", "rutgers", "tossim", "traces")


@dataclass(frozen=True)
class Profile:
    """Slot length and TCP timers of Srinivasan et al. §3.1-3.2 for one kind of testbed."""

    name: str
    slot: float  # seconds per transmission opportunity
    rto_min: float
    rto_max: float
    ack_timeout: float
    max_cwnd: int = 130  # Srinivasan et al. §3.1: "the maximum congestion window is 130 packets"

    @property
    def link_pps(self) -> float:
        """Link-layer packets per second (Srinivasan et al. §7 footnote 2: 100 Mirage, 500 Roofnet)."""
        return 1.0 / self.slot

    def tcp(self) -> dict[str, Any]:
        """Keyword arguments of :class:`burstlab.sim.TcpConfig` for this profile.

        Srinivasan et al. give the slot, the RTO bounds, the ACK timeout and the maximum window; the
        rest are RFC defaults (RFC 5681 initial window 2, delayed ACK every 2nd segment,
        RFC 6298 initial RTO = the lower bound, since Srinivasan et al. scale all timers with the
        slot), 1000-byte segments, 3 duplicate ACKs. Recorded in every row's configuration.
        """
        return {
            "variant": "newreno",
            "mss": 1000,
            "init_cwnd": 2,
            "max_cwnd": self.max_cwnd,
            "rwnd": None,
            "delayed_ack": True,
            "ack_every": 2,
            "ack_timeout": self.ack_timeout,
            "rto_min": self.rto_min,
            "rto_max": self.rto_max,
            "rto_initial": self.rto_min,
            "dupack_threshold": 3,
        }


#: Srinivasan et al. §3.1 (Mirage 802.15.4: 10 ms, RTO 1-60 s, ACK timeout 300 ms) and §3.2.2
#: (Roofnet 802.11b at 11 Mb/s: 2 ms, RTO 0.2-12 s, ACK timeout 60 ms).
PROFILES = {
    "mirage": Profile("mirage", 0.010, 1.0, 60.0, 0.300),
    "roofnet": Profile("roofnet", 0.002, 0.2, 12.0, 0.060),
}
#: The profile each named dataset uses unless told otherwise (Rutgers is 802.11 like Roofnet;
#: TOSSIM's noise traces are CC2420/802.15.4 like Mirage).
DEFAULT_PROFILE = {"synthetic": "mirage", "rutgers": "roofnet", "tossim": "mirage", "traces": "mirage"}


@dataclass(frozen=True)
class StudyConfig:
    """Everything that determines the study's numbers (and the report's wording)."""

    dataset: str = "synthetic"
    traces_dir: str | None = None
    fmt: str | None = None
    profile: str | None = None  # None: DEFAULT_PROFILE[dataset]
    replicates: int = 5  # seeds per synthetic condition (b) and (c)
    seed: int = 0  # the study seed (synthetic conditions, simulator)
    ack_path: str = "lossless"
    # RFC 6298 §5 + Karn ("sample", the simulator's default) or ns-3/Linux ("new_ack"): when a
    # backed-off RTO returns to SRTT + 4·RTTVAR; Srinivasan et al. do not say (docs/study.md)
    rto_backoff_reset: str = "sample"
    prr_range: tuple[float, float] = (0.1, 0.9)  # links simulated (Srinivasan et al. Fig. 6)
    fit_range: tuple[float, float] = (0.2, 0.6)  # links fitted (intermediate, Srinivasan et al. §7)
    folds: int = 5
    chunk: int = 6000  # Srinivasan et al. §8 chunk size for the μ RMS
    # synthetic testbed
    n_links: int = 60
    n_slots: int = 100_000
    testbed_seed: int = 2009
    # subset (tests, quick looks): the first max_links eligible links in link-id order
    max_links: int | None = None
    # rutgers
    rutgers_noise: tuple[str, ...] | None = None
    # tossim
    tossim_targets: tuple[float, ...] | None = None
    tossim_signal_dbm: tuple[float, ...] | None = None
    tossim_segment: int | None = 98_304

    def __post_init__(self) -> None:
        if self.dataset not in DATASETS:
            raise ParameterError(f"invalid parameter dataset = {self.dataset!r}: expected one of {DATASETS}")
        if self.dataset == "traces" and not self.traces_dir:
            raise ParameterError("invalid parameter traces: --traces DIR is required for dataset 'traces'")
        if self.profile is not None and self.profile not in PROFILES:
            raise ParameterError(f"invalid parameter profile = {self.profile!r}: expected one of {sorted(PROFILES)}")
        if self.replicates < 1:
            raise ParameterError(f"invalid parameter seeds = {self.replicates}: expected at least 1")
        if self.rto_backoff_reset not in ("sample", "new_ack"):
            raise ParameterError(f"invalid parameter rto_backoff_reset = {self.rto_backoff_reset!r}: expected 'sample' or 'new_ack'")
        if self.ack_path not in ("lossless", "trace"):
            raise ParameterError(f"invalid parameter ack_path = {self.ack_path!r}: expected 'lossless' or 'trace'")
        for name, (lo, hi) in (("prr_range", self.prr_range), ("fit_range", self.fit_range)):
            if not 0.0 <= lo < hi <= 1.0:
                raise ParameterError(f"invalid parameter {name} = {(lo, hi)}: expected 0 <= low < high <= 1")
        if self.folds < 2:
            raise ParameterError(f"invalid parameter folds = {self.folds}: expected at least 2")
        if not 0 <= self.seed < 2**32:
            raise ParameterError(f"invalid parameter seed = {self.seed}: expected 0 ≤ seed < 2^32")
        if self.max_links is not None and self.max_links < 1:
            raise ParameterError(f"invalid parameter max_links = {self.max_links}: expected at least 1")

    @property
    def profile_name(self) -> str:
        return self.profile or DEFAULT_PROFILE[self.dataset]

    @property
    def prof(self) -> Profile:
        return PROFILES[self.profile_name]

    def tcp(self) -> dict[str, Any]:
        """Keyword arguments of :class:`burstlab.sim.TcpConfig`: the profile's plus the RTO
        backoff rule."""
        return {**self.prof.tcp(), "rto_backoff_reset": self.rto_backoff_reset}

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["profile"] = self.profile_name
        return d


@dataclass(frozen=True)
class StudyLink:
    """One link of the study: its trace and where it came from."""

    link_id: str
    group: str
    subgroup: str
    trace: Trace
    synthetic: bool
    stats: TraceStats = field(repr=False)


# --------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------
def _read_dir(cfg: StudyConfig) -> list[Trace]:
    from burstlab.io import read_trace

    root = Path(cfg.traces_dir or ".")
    if not root.is_dir():
        raise FileNotFoundError(f"--traces {root}: not a directory")
    files = sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))
    if not files:
        raise ParameterError(f"invalid parameter traces = {root}: no files found")
    out = []
    for p in files:
        tr = read_trace(p, cfg.fmt) if cfg.fmt else read_trace(p)
        out.append(Trace(tr.bits, interval=tr.interval, timestamps=tr.timestamps, name=str(p.relative_to(root)), meta=dict(tr.meta)))
    return out


def _rutgers(cfg: StudyConfig) -> list[Trace]:
    """The Rutgers 802.11 links (``burstlab.datasets.rutgers``), optionally some noise levels."""
    from burstlab.datasets import rutgers

    if not cfg.rutgers_noise:
        return list(rutgers())
    out: list[Trace] = []
    for level in cfg.rutgers_noise:
        try:
            n = int(str(level).lower().removeprefix("dbm"))
        except ValueError:
            raise ParameterError(f"invalid parameter noise = {level!r}: expected a noise level such as 0, -5, dbm-10") from None
        out.extend(rutgers(noise=n))
    return out


def _subgroup(cfg: StudyConfig, tr: Trace) -> str:
    m = tr.meta
    if cfg.dataset == "synthetic":
        return str(m.get("kind", "synthetic"))
    if cfg.dataset == "tossim":
        return str(m.get("noise_file", "tossim")).removesuffix(".txt")
    if cfg.dataset == "rutgers":
        if "noise_dbm" in m:
            return f"noise {m['noise_dbm']} dBm"
    return ""


def load_traces(cfg: StudyConfig) -> list[Trace]:
    """All traces of the configured input, before any filtering."""
    if cfg.dataset == "synthetic":
        from burstlab.datasets.synthetic import synthetic_testbed

        return synthetic_testbed(cfg.n_links, cfg.n_slots, cfg.testbed_seed, cfg.prof.slot)
    if cfg.dataset == "tossim":
        from burstlab.datasets.tossim import DEFAULT_TARGETS, tossim

        return list(
            tossim(
                targets=cfg.tossim_targets or DEFAULT_TARGETS,
                signal_dbm=cfg.tossim_signal_dbm,
                seed=cfg.seed,
                interval=cfg.prof.slot,
                segment=cfg.tossim_segment,
            )
        )
    if cfg.dataset == "rutgers":
        return _rutgers(cfg)
    return _read_dir(cfg)


def select_links(cfg: StudyConfig, traces: Sequence[Trace]) -> tuple[list[StudyLink], dict[str, int]]:
    """The links the study simulates (PRR in ``prr_range`` and μ defined) and, for the report,
    how many traces were left out and why."""
    lo, hi = cfg.prr_range
    excluded: dict[str, int] = {}
    links: list[StudyLink] = []
    seen: set[str] = set()
    group = {"synthetic": "synthetic", "rutgers": "rutgers", "tossim": "tossim", "traces": "traces"}[cfg.dataset]
    for i, tr in enumerate(traces):
        st = trace_stats(tr, chunk=cfg.chunk, warn=False)
        why = None
        if st.length == 0:
            why = "empty"
        elif st.prr is None or not (lo <= st.prr <= hi):
            why = f"PRR outside {lo:g}-{hi:g}"
        elif st.mu is None:
            why = "μ undefined"
        if why:
            excluded[why] = excluded.get(why, 0) + 1
            continue
        lid = tr.name or f"link-{i:05d}"
        if lid in seen:
            raise ParameterError(f"invalid parameter traces: two links are both named {lid!r}")
        seen.add(lid)
        links.append(StudyLink(lid, group, _subgroup(cfg, tr), tr, bool(tr.meta.get("synthetic", cfg.dataset == "synthetic")), st))
    links.sort(key=lambda lk: lk.link_id)
    if cfg.max_links is not None and len(links) > cfg.max_links:
        excluded[f"beyond max_links={cfg.max_links}"] = len(links) - cfg.max_links
        links = links[: cfg.max_links]
    return links, excluded


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


def plan(cfg: StudyConfig, links: Sequence[StudyLink]) -> list[LinkTask]:
    """All link tasks with every (condition, replicate) item and its key."""
    prof = cfg.prof
    tcp = cfg.tcp()
    tasks = []
    for lk in links:
        fp = trace_fingerprint(lk.trace)
        items = []
        for cond in CONDITIONS:
            for rep in range(1 if cond == "empirical" else cfg.replicates):
                seed = task_seed(cfg.seed, lk.link_id, cond, rep)
                conf = {
                    "study": STUDY,
                    "link": {"id": lk.link_id, "group": lk.group, "bits_sha256": fp, "length": len(lk.trace)},
                    "condition": cond,
                    "replicate": rep,
                    "seed": seed,
                    "slot": prof.slot,
                    "profile": prof.name,
                    "tcp": tcp,
                    "ack_path": cfg.ack_path,
                    "chunk": cfg.chunk,
                    "burstlab_version": __version__,
                }
                items.append(Item(cond, rep, seed, config_hash(conf), canonical_json(conf)))
        st = lk.stats
        assert st.prr is not None and st.mu is not None  # select_links guarantees both
        tasks.append(
            LinkTask(lk.link_id, lk.group, lk.subgroup, lk.synthetic, lk.trace.packed(), len(lk.trace), st.prr, st.mu,
                     prof.slot, prof.link_pps, tcp, cfg.ack_path, cfg.chunk, tuple(items))
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


def simulate(trace: Trace, slot: float, tcp: dict[str, Any], ack_path: str, seed: int) -> Any:
    """NewReno over ``trace`` in slotted trace-driven mode (Srinivasan et al. §3.1)."""
    from burstlab.sim import TcpConfig, run_trace

    return run_trace(trace, slot=slot, tcp=TcpConfig(**tcp), ack_path=ack_path, seed=seed)  # type: ignore[arg-type]


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
        res = simulate(tr, task.slot, task.tcp, task.ack_path, item.seed)
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
class StudyResult:
    """Where the study wrote its outputs, and the tables it computed."""

    out: Path
    store_path: Path
    report_md: Path
    report_html: Path
    runs: list[dict[str, Any]]
    links: list[dict[str, Any]]
    fig13: list[dict[str, Any]]
    figures: dict[str, Path]
    ran: int
    skipped: int
    elapsed_s: float


def run_study(
    cfg: StudyConfig,
    out: str | Path,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> StudyResult:
    """Run (or resume) the study and write the store, tables, figures and report under ``out``."""
    say = log or (lambda s: None)
    t0 = time.perf_counter()
    out = Path(out)
    # Bad input (a malformed trace, no eligible link) fails before anything is written.
    traces = load_traces(cfg)
    links, excluded = select_links(cfg, traces)
    if not links:
        raise ParameterError(f"invalid parameter dataset = {cfg.dataset!r}: no link has PRR in {cfg.prr_range} with μ defined ({excluded})")
    tasks = plan(cfg, links)
    out.mkdir(parents=True, exist_ok=True)
    keys = [i.key for t in tasks for i in t.items]
    store_path = out / "store.duckdb"
    with ResultStore(store_path, "runs", RUN_SCHEMA) as store:
        # the store's lock is ours: temporary files a killed run left are nobody's now
        from burstlab.io import remove_stale_temporaries

        remove_stale_temporaries(out)
        todo = pending_tasks(tasks, store.keys())
        n_todo = sum(len(t.items) for t in todo)
        say(f"{len(links)} links, {len(keys)} simulations: {len(keys) - n_todo} already in {store_path}, {n_todo} to run")
        for k, (task, rows) in enumerate(run_tasks(run_link, todo, workers=workers, cluster=cluster, progress=progress, description=f"prr-mu {cfg.dataset}"), 1):
            store.insert_many(rows)  # one transaction per finished link
            if not progress:
                say(f"finished {task.link_id} ({k}/{len(todo)} links)")
        runs = _fetch(store, keys)
        from burstlab.experiments.prr_mu_report import write_outputs

        links_tab, fig13, figures, md, html = write_outputs(cfg, out, store, links, runs, excluded)
    return StudyResult(out, store_path, md, html, runs, links_tab, fig13, figures, n_todo, len(keys) - n_todo, time.perf_counter() - t0)


def _fetch(store: ResultStore, keys: Sequence[str]) -> list[dict[str, Any]]:
    import pyarrow as pa

    con = store.connection
    con.register("_want", pa.table({"key": list(keys)}))
    try:
        cur = con.execute('SELECT r.* FROM runs r JOIN _want w USING ("key") ORDER BY r.link_id, r.condition, r.replicate')
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r)) for r in cur.fetchall()]
    finally:
        con.unregister("_want")
    if len(rows) != len(keys):
        raise RuntimeError(f"the store holds {len(rows)} of the study's {len(keys)} rows after the run")
    return rows


def link_table(cfg: StudyConfig, links: Sequence[StudyLink], runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per link: its statistics and the per-condition throughputs and differences."""
    by: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in runs:
        by.setdefault(r["link_id"], {}).setdefault(r["condition"], []).append(r)
    lo, hi = cfg.fit_range
    out = []
    for lk in links:
        c = by[lk.link_id]
        (emp,) = c["empirical"]
        ind = [r["throughput_pps"] for r in c.get("independent", []) if r["throughput_pps"] is not None]
        ge = [r for r in c.get("ge", []) if r["throughput_pps"] is not None]
        ind_m = float(np.mean(ind)) if ind else math.nan
        ge_m = float(np.mean([r["throughput_pps"] for r in ge])) if ge else math.nan
        thr = emp["throughput_pps"]
        ge_max = max((r["max_success_run"] for r in ge), default=None)
        st = lk.stats
        out.append(
            {
                "link_id": lk.link_id,
                "group": lk.group,
                "subgroup": lk.subgroup,
                "synthetic": lk.synthetic,
                "length": st.length,
                "prr": st.prr,
                "mu": st.mu,
                "g": st.g,
                "b": st.b,
                "link_pps": cfg.prof.link_pps,
                "throughput_pps": thr,
                "independent_pps": ind_m,
                "independent_pps_sd": float(np.std(ind, ddof=1)) if len(ind) > 1 else math.nan,
                "ge_pps": ge_m,
                "ge_pps_sd": float(np.std([r["throughput_pps"] for r in ge], ddof=1)) if len(ge) > 1 else math.nan,
                "diff_pps": thr - ind_m,
                "diff_pct": 100.0 * (thr - ind_m) / ind_m if ind_m > 0 else math.nan,
                "ge_diff_pct": 100.0 * (ge_m - thr) / thr if thr > 0 else math.nan,
                "max_success_run": st.success_runs.max,
                "ge_max_success_run": ge_max,
                "max_loss_burst": st.loss_bursts.max,
                "chunk_rms_mu": st.chunk_rms,
                "intermediate": bool(lo <= (st.prr or 0.0) <= hi),
                "ge_note": "; ".join(r["note"] for r in c.get("ge", []) if r["note"]) or None,
            }
        )
    return out


def write_json(path: Path, obj: Any) -> None:
    """Write JSON atomically (temp file + rename)."""
    from burstlab.io import atomic_write_text

    atomic_write_text(path, json.dumps(obj, indent=2, default=_json_default, allow_nan=False))


def _json_default(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(type(o).__name__)
