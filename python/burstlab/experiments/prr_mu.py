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
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from burstlab._core import BurstlabError, EmptyInputError, LossModel, ParameterError, TraceFormatError
from burstlab.datasets import rutgers, subsample, support
from burstlab.datasets.registry import get
from burstlab.datasets.starlink import starlink
from burstlab.datasets.synthetic import synthetic_testbed
from burstlab.experiments import prr_mu_report as R
from burstlab.io import EXTENSIONS, atomic_write_text, detect_format, read_trace
from burstlab.sim import VARIANTS, TcpConfig, run_trace
from burstlab.stats import TraceStats, trace_stats
from burstlab.study import provenance
from burstlab.store import ResultStore, canonical_json, results_version
from burstlab.sweep import run_tasks, set_forkserver_preload, task_seed
from burstlab.traces import Trace

STUDY = "prr-mu"
CONDITIONS = ("empirical", "independent", "ge")
DATASETS = ("synthetic", "rutgers", "tossim", "starlink", "traces")


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

    def tcp(self, tcp_profile: str = "tossim") -> dict[str, Any]:
        """Every field of :class:`burstlab.sim.TcpConfig` for this testbed's timers.

        Srinivasan et al. give the slot, the RTO bounds, the ACK timeout and the maximum window.
        ``"tossim"`` (the default) is their TinyOS/TOSSIM NewReno as reconstructed in
        :meth:`burstlab.sim.TcpConfig.tossim` (RFC 793 timer without backoff, the receiver's
        idle ACKs, fast retransmit after a timeout, Slow-but-Steady; ``docs/study.md``);
        ``"rfc"`` is today's RFC behaviour (RFC 6298 timer with backoff, RFC 6582 careful
        NewReno, delayed ACKs). Both: NewReno, 1000-byte segments, initial window 2 (RFC 5681),
        delayed ACK every second segment, initial RTO = the lower bound (Srinivasan et al. scale
        all timers with the slot), 3 duplicate ACKs. Recorded in every row's configuration.
        """
        if tcp_profile == "tossim":
            return asdict(TcpConfig.tossim(ack_timeout=self.ack_timeout, rto_min=self.rto_min, rto_max=self.rto_max, max_cwnd=self.max_cwnd))
        if tcp_profile == "rfc":
            return asdict(TcpConfig(variant="newreno", init_cwnd=2, delayed_ack=True, ack_every=2, rto_initial=self.rto_min, dupack_threshold=3,
                                    ack_timeout=self.ack_timeout, rto_min=self.rto_min, rto_max=self.rto_max, max_cwnd=self.max_cwnd))
        raise ParameterError(f"invalid parameter tcp_profile = {tcp_profile!r}: expected one of {TCP_PROFILES}")


#: TCP profiles of the study: Srinivasan et al.'s TinyOS/TOSSIM NewReno as burstlab reconstructs
#: it (default), or the RFC behaviour of ``burstlab sim``.
TCP_PROFILES = ("tossim", "rfc")


#: Srinivasan et al. §3.1 (Mirage 802.15.4: 10 ms, RTO 1-60 s, ACK timeout 300 ms) and §3.2.2
#: (Roofnet 802.11b at 11 Mb/s: 2 ms, RTO 0.2-12 s, ACK timeout 60 ms).
PROFILES = {
    "mirage": Profile("mirage", 0.010, 1.0, 60.0, 0.300),
    "roofnet": Profile("roofnet", 0.002, 0.2, 12.0, 0.060),
}
#: The profile each named dataset uses unless told otherwise (Rutgers is 802.11 like Roofnet;
#: TOSSIM's noise traces are CC2420/802.15.4 like Mirage).
DEFAULT_PROFILE = {"synthetic": "mirage", "rutgers": "roofnet", "tossim": "mirage", "starlink": "mirage", "traces": "mirage"}


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
    # TCP: Srinivasan et al.'s TOSSIM NewReno as reconstructed ("tossim") or RFC ("rfc")
    tcp_profile: str = "tossim"
    # the congestion control and loss recovery run over the profile's timers and receiver: a
    # name of burstlab.sim.VARIANTS ("newreno": the paper's; "bbr", "cubic", ...: issue 30)
    tcp_variant: str = "newreno"
    # RFC 6298 §5 + Karn ("sample", the simulator's default) or ns-3/Linux ("new_ack"): when a
    # backed-off RTO returns to SRTT + 4·RTTVAR (only matters with backoff, i.e. "rfc")
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
    tossim_noise_files: tuple[str, ...] | None = None  # any TOSSIM noise traces (default: the shared ones)
    # starlink: one probe per slot ("slots") or the probes replayed in time ("time"); docs/datasets.md
    timing: str = "slots"
    # --traces DIR: how to read the files (burstlab.io.read_trace)
    traces_expected: int | None = None  # seqlist: packets sent (an empty file is then an all-lost link)
    traces_drop_beyond: bool = False  # seqlist: drop (and count) seq ≥ expected instead of failing
    traces_one_means: str = "received"  # bits/string polarity
    # every trace keeps only every k-th entry before anything else (Srinivasan et al. §8, Fig. 14)
    subsample: int = 1
    # ``--quick``: a preview (fewer seeds, links and slots); every verdict is marked "preview: not evidence"
    quick: bool = False

    def __post_init__(self) -> None:
        if self.dataset not in DATASETS:
            raise ParameterError(f"invalid parameter dataset = {self.dataset!r}: expected one of {DATASETS}")
        if self.dataset == "traces" and not self.traces_dir:
            raise ParameterError("invalid parameter traces: --traces DIR is required for dataset 'traces'")
        if self.profile is not None and self.profile not in PROFILES:
            raise ParameterError(f"invalid parameter profile = {self.profile!r}: expected one of {sorted(PROFILES)}")
        if self.replicates < 1:
            raise ParameterError(f"invalid parameter seeds = {self.replicates}: expected at least 1")
        if self.tcp_profile not in TCP_PROFILES:
            raise ParameterError(f"invalid parameter tcp_profile = {self.tcp_profile!r}: expected one of {TCP_PROFILES}")
        if self.tcp_variant not in VARIANTS:
            raise ParameterError(f"invalid parameter tcp = {self.tcp_variant!r}: expected one of {', '.join(VARIANTS)}")
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
        if self.subsample < 1:
            raise ParameterError(f"invalid parameter subsample = {self.subsample}: expected keeping every k-th entry, k ≥ 1")
        if self.traces_one_means not in ("received", "lost"):
            raise ParameterError(f"invalid parameter one_means = {self.traces_one_means!r}: expected 'received' or 'lost'")
        if self.traces_expected is not None and self.traces_expected < 1:
            raise ParameterError(f"invalid parameter expected = {self.traces_expected}: expected a positive number of packets sent")
        if self.timing not in ("slots", "time"):
            raise ParameterError(f"invalid parameter timing = {self.timing!r}: expected 'slots' or 'time'")
        if self.max_links is not None and self.max_links < 1:
            raise ParameterError(f"invalid parameter max_links = {self.max_links}: expected at least 1")

    @property
    def profile_name(self) -> str:
        return self.profile or DEFAULT_PROFILE[self.dataset]

    @property
    def prof(self) -> Profile:
        return PROFILES[self.profile_name]

    def tcp(self) -> dict[str, Any]:
        """Keyword arguments of :class:`burstlab.sim.TcpConfig`: the testbed's timers in the
        TCP profile, plus the RTO backoff-reset rule; another ``tcp_variant`` than NewReno
        replaces the congestion control and loss recovery (its pair in ``VARIANTS``)."""
        d = {**self.prof.tcp(self.tcp_profile), "rto_backoff_reset": self.rto_backoff_reset}
        if self.tcp_variant != "newreno":
            d["cc"], d["recovery"] = VARIANTS[self.tcp_variant]
        return d

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
def _walk(root: Path) -> list[Path]:
    """Every file under ``root`` (sorted; hidden names skipped), following symbolic links to
    folders once each (a link back up the tree is not followed twice)."""
    seen: set[str] = set()
    out: list[Path] = []
    for top, dirs, files in os.walk(root, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out.extend(Path(top) / f for f in sorted(files) if not f.startswith("."))
    return out


#: Extensions of files that sit beside traces and are never traces.
NOT_TRACES = {".md", ".rst", ".html", ".htm", ".pdf", ".png", ".jpg", ".jpeg", ".svg", ".json", ".yaml", ".yml", ".toml", ".py", ".sh", ".gz", ".zip", ".tar"}


def _looks_like_a_trace(p: Path) -> bool:
    """Whether the content sniffing of :func:`burstlab.io.detect_format` recognises a trace
    format in ``p`` (then a line that does not parse is a malformed trace, not a README)."""
    try:
        detect_format(p)
    except (BurstlabError, OSError, UnicodeDecodeError):
        return False
    return True


def _read_dir(cfg: StudyConfig, notes: list[str]) -> list[Trace]:
    """The traces in ``cfg.traces_dir``. A file that is not a trace (a README, a figure: its
    extension says so, or no trace format can be recognised in it) is skipped with a note; so
    is an empty file without ``--expected`` (nothing says how many packets were sent). A trace
    that does not parse (a trace extension, or content recognised as a trace) is an error."""
    root = Path(cfg.traces_dir or ".")
    if not root.is_dir():
        raise FileNotFoundError(f"--traces {root}: not a directory")
    files = _walk(root)
    if not files:
        raise ParameterError(f"invalid parameter traces = {root}: no files found")
    out = []
    for p in files:
        rel = str(p.relative_to(root))
        try:
            tr = read_trace(p, cfg.fmt, one_means=cfg.traces_one_means, expected=cfg.traces_expected, drop_beyond=cfg.traces_drop_beyond)  # type: ignore[arg-type]
        except EmptyInputError:
            if p.stat().st_size and p.read_bytes().strip():
                notes.append(f"skipped {rel}: no trace entries (only comments)")
            else:
                notes.append(f"skipped {rel}: empty (an all-lost link? give --expected N, the packets sent, to count it)")
            continue
        except (TraceFormatError, UnicodeDecodeError) as e:
            if p.suffix.lower() in EXTENSIONS or (p.suffix.lower() not in NOT_TRACES and _looks_like_a_trace(p)):
                raise  # a trace with a bad line: an error naming it (docs/errors.md)
            notes.append(f"skipped {rel}: not a trace ({str(e).splitlines()[0].replace(str(p), rel)})")
            continue
        out.append(Trace(tr.bits, interval=tr.interval, timestamps=tr.timestamps, name=rel, meta=dict(tr.meta)))
    if not out:
        raise ParameterError(f"invalid parameter traces = {root}: none of its {len(files)} files is a trace ({'; '.join(notes[:3])})")
    return out


def _rutgers(cfg: StudyConfig) -> list[Trace]:
    """The Rutgers 802.11 links (``burstlab.datasets.rutgers``), optionally some noise levels."""
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


def load_traces(cfg: StudyConfig, notes: list[str] | None = None) -> list[Trace]:
    """All traces of the configured input, before any filtering (sub-sampled when
    ``cfg.subsample`` > 1). What was skipped while reading is appended to ``notes``."""
    notes = [] if notes is None else notes
    if cfg.dataset == "synthetic":
        traces = synthetic_testbed(cfg.n_links, cfg.n_slots, cfg.testbed_seed, cfg.prof.slot)
    elif cfg.dataset == "tossim":
        from burstlab.datasets.tossim import DEFAULT_TARGETS, tossim

        traces = list(
            tossim(
                targets=cfg.tossim_targets or DEFAULT_TARGETS,
                signal_dbm=cfg.tossim_signal_dbm,
                seed=cfg.seed,
                interval=cfg.prof.slot,
                segment=cfg.tossim_segment,
                noise_files=cfg.tossim_noise_files,
            )
        )
    elif cfg.dataset == "rutgers":
        traces = _rutgers(cfg)
    # -- registered datasets (burstlab.datasets, docs/datasets.md): probe logs, and the timing
    # each dataset's registry entry gives, said in the report
    elif cfg.dataset == "starlink":
        traces = starlink(timing=cfg.timing, slot=cfg.prof.slot)
    else:
        traces = _read_dir(cfg, notes)
    if cfg.dataset in ("rutgers", "tossim", "starlink"):
        t = get(cfg.dataset).timing
        how = f", --timing {cfg.timing}" if cfg.dataset == "starlink" else ""
        notes.append(f"timing: profile {cfg.profile_name} (slot {cfg.prof.slot:g} s{how}); the dataset's timing: {t.note}")
    # -- end registered datasets
    if cfg.subsample > 1:
        traces = [subsample(t, cfg.subsample) for t in traces]
    return traces


#: Srinivasan et al. §8: μ levels off after about 40,000 packets on Mirage (802.15.4, 10 ms)
#: and 10,000 on Roofnet (802.11b, 2 ms); by profile.
CONVERGENCE_LENGTH = {"mirage": 40_000, "roofnet": 10_000}


def _support_warnings(cfg: StudyConfig, stats: Sequence[TraceStats]) -> list[str]:
    """Where the data cannot support the study (burstlab.datasets.support), for the links selected: too short for
    μ to converge, too few links in the fit range for the k-fold fits. Real data only: the
    synthetic testbed is as long as --slots asks."""
    if cfg.dataset == "synthetic":
        return []
    flo, fhi = cfg.fit_range
    fitted = sum(1 for st in stats if st.prr is not None and flo <= st.prr <= fhi)
    found = (
        support.mu_convergence([st.length for st in stats], CONVERGENCE_LENGTH[cfg.prof.name], dataset=cfg.dataset, profile=cfg.prof.name),
        support.too_few_links(fitted, cfg.folds, what=f"the L1 fits ({cfg.folds}-fold cross-validation over links with PRR in {flo:g}-{fhi:g})"),
    )
    return [w for w in found if w]


def input_warnings(traces: Sequence[Trace], stats: Sequence[TraceStats], fmt: str | None, user_files: bool = True) -> list[str]:
    """What looks like a misread input, with the reason and the option that fixes it:
    traces with almost no reception (a 0/1 *loss* indicator read as reception; with
    ``user_files``, also links that received nothing, in case ``--expected`` is wrong) and
    sequence lists where most entries were dropped (another format read as a list)."""
    out = []
    low = [(t, st.prr) for t, st in zip(traces, stats, strict=True) if st.prr is not None and st.length >= 100 and st.prr < 0.01]
    flipped = [(t, p) for t, p in low if t.meta.get("format") in ("bits", "string") and p > 0]  # 0/1 files with a few 1s
    if flipped:
        ex = ", ".join(f"{t.name} (PRR {p:.3f})" for t, p in flipped[:3])
        out.append(f"{len(flipped)} of {len(traces)} 0/1 traces receive almost nothing, e.g. {ex}. If 1 marks a *lost* packet in these files, "
                   "read them with --one-means lost (PRR becomes 1 − PRR); if the links really are that bad, ignore this.")
    dead = [(t, p) for t, p in low if not any(t is f for f, _ in flipped)]
    if dead and user_files:
        ex = ", ".join(f"{t.name} (PRR {p:.3f})" for t, p in dead[:3])
        out.append(f"{len(dead)} of {len(traces)} traces receive (almost) nothing, e.g. {ex}"
                   + (" (sequence lists: is --expected the number of packets sent?)" if any(t.meta.get("format") == "seqlist" for t, _ in dead) else "") + ".")
    dropped = []
    for t in traces:
        m = t.meta
        read = int(m.get("received", 0)) + int(m.get("duplicates", 0)) + int(m.get("dropped", 0))
        bad = int(m.get("duplicates", 0)) + int(m.get("dropped", 0))
        if read >= 10 and bad > read // 2:
            dropped.append(f"{t.name}: {bad:,} of its {read:,} entries ({m.get('duplicates', 0):,} duplicates)")
    if dropped:
        out.append(f"{len(dropped)} of {len(traces)} traces read as sequence lists lost most of their entries as duplicates or beyond the packets sent, "
                   f"e.g. {'; '.join(dropped[:3])}: are they 0/1 traces? Give --format bits (or string)" + ("" if fmt is None else f" instead of --format {fmt}") + ".")
    return out


def select_links(cfg: StudyConfig, traces: Sequence[Trace], info: dict[str, Any] | None = None) -> tuple[list[StudyLink], dict[str, int]]:
    """The links the study simulates (PRR in ``prr_range`` and μ defined) and, for the report,
    how many traces were left out and why. ``info`` (if given) receives ``"all_prr"`` (subgroup,
    PRR of every trace: Fig. 1) and ``"warnings"`` (:func:`input_warnings`)."""
    lo, hi = cfg.prr_range
    excluded: dict[str, int] = {}
    links: list[StudyLink] = []
    seen: set[str] = set()
    group = {"synthetic": "synthetic", "rutgers": "rutgers", "tossim": "tossim", "starlink": "starlink", "traces": "traces"}[cfg.dataset]
    all_stats = [trace_stats(tr, chunk=cfg.chunk, warn=False) for tr in traces]
    if info is not None:
        info["all_prr"] = [(_subgroup(cfg, tr), st.prr) for tr, st in zip(traces, all_stats, strict=True) if st.prr is not None]
        info["warnings"] = input_warnings(traces, all_stats, cfg.fmt, user_files=cfg.dataset == "traces")
        if cfg.dataset == "traces" and cfg.profile is None:  # the timing is not in most trace files: say which was assumed
            p = PROFILES[cfg.profile_name]
            info["warnings"].append(f"--traces without --profile: the links are timed as profile {cfg.profile_name} ({1e3 * p.slot:g}-ms slots, "
                                    f"{p.link_pps:g} packets/s, Srinivasan et al.'s 802.15.4 Mirage); traces from an 802.11 testbed at 2 ms "
                                    "(e.g. Rutgers ORBIT, Roofnet) need --profile roofnet")
    for i, (tr, st) in enumerate(zip(traces, all_stats, strict=True)):
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
    """All link tasks with every (condition, replicate) item and its key.

    An item's configuration is :func:`burstlab.store.canonical_json` of {study, link, condition,
    replicate, seed, slot, profile, tcp, ack_path, chunk, results version} and its key the
    SHA-256 of that text (= :func:`burstlab.store.config_hash`). The parts shared by every
    item are checked and made canonical once; each item's text is then ``json.dumps`` of plain
    values with sorted keys, the same canonical text at a fraction of the cost (issue 12)."""
    prof = cfg.prof
    tcp = cfg.tcp()
    shared = json.loads(canonical_json({"study": STUDY, "slot": prof.slot, "profile": prof.name, "tcp": tcp, "ack_path": cfg.ack_path,
                                        "chunk": cfg.chunk, "burstlab_version": results_version()}))
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
    timings: dict[str, float] = field(default_factory=dict)
    claims: list[dict[str, Any]] = field(default_factory=list)


#: The study's phases, in order (each is reported as it starts and ends; :class:`StudyResult`
#: keeps their wall times).
PHASES = ("inputs", "simulations", "tables", "fits and figures", "report")

#: Finished links' rows are committed together at most this often (s): one DuckDB commit
#: costs ~20 ms, one per link was a fifth of the whole study (issue 12).
FLUSH_EVERY_S = 0.25


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
    if local_pool and not (out / "store.duckdb").exists():  # a new study: everything is to do
        _start_forkserver()
    # Bad input (a malformed trace, no eligible link, an output path that is a file) fails
    # before anything is written.
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "is a file, expected a folder", str(out))
    info: dict[str, Any] = {}
    notes: list[str] = []
    with ph("inputs", f"{cfg.dataset} traces read, statistics"):
        traces = load_traces(cfg, notes)
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
        fitted, figs = R.fits_and_figures(cfg, out, links, links_tab, info, workers=workers, progress=progress, formats=formats)
    with ph("report"):
        md, html, claims = R.write_report(cfg, out, links, links_tab, runs, excluded, fitted, R.fit_notes(cfg, fitted), figs, notes, info, ph.times)
    return StudyResult(out, store_path, md, html, runs, links_tab, R.fig13_rows(fitted), figs, n_todo, len(keys) - n_todo,
                       time.perf_counter() - t0, dict(ph.times), claims)


def _start_forkserver() -> None:
    """Start the forkserver of the local pools now, importing this study (numpy, burstlab)
    and what its fits and figures need (matplotlib, scipy.optimize: ~1 s) while this process
    reads the inputs and then runs the first simulations itself (``help_while_starting``):
    the simulation and figure workers fork from it with nothing left to import, instead of
    each figure worker importing matplotlib and the fit's scipy on the critical path after
    the simulations (issue 12). A new study starts it first thing; a resumed one only if
    simulations are left (a re-run with everything in the store starts no process)."""
    from multiprocessing import forkserver

    set_forkserver_preload("burstlab.experiments.prr_mu", "burstlab.experiments.prr_mu_report", *FIGURE_MODULES)  # with the dies-with-us guard
    forkserver.ensure_running()


#: What the fits-and-figures workers import (preloaded by the forkserver).
FIGURE_MODULES = ("burstlab.plot", "matplotlib.figure", "matplotlib.backends.backend_agg", "burstlab.fits")


def _simulate_all(cfg: StudyConfig, todo: Sequence[LinkTask], store: ResultStore, *, workers: int | None, cluster: str | None,
                  progress: bool, say: Callable[[str], None]) -> None:
    """Run the pending link tasks and commit their rows: every :data:`FLUSH_EVERY_S` the
    links finished since the last commit go in one transaction (a killed study loses at most
    those and the ones in flight), and "finished …" is said only once a link is committed."""
    batch: list[dict[str, Any]] = []
    names: list[str] = []
    last = time.perf_counter()
    k = 0

    def flush() -> None:
        nonlocal last, k
        store.insert_many(batch)
        for name in names:
            k += 1
            if not progress:
                say(f"finished {name} ({k}/{len(todo)} links)")
        batch.clear()
        names.clear()
        last = time.perf_counter()

    for task, rows in run_tasks(run_link, todo, workers=workers, cluster=cluster, progress=progress, description=f"prr-mu {cfg.dataset}: simulations",
                                help_while_starting=True):
        batch.extend(rows)
        names.append(task.link_id)
        if time.perf_counter() - last >= FLUSH_EVERY_S:
            flush()
    if batch:
        flush()


def _fetch(store: ResultStore, keys: Sequence[str]) -> list[dict[str, Any]]:
    return store.rows_with_keys(keys, order_by="r.link_id, r.condition, r.replicate")


def link_table(cfg: StudyConfig, links: Sequence[StudyLink], runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per link: its statistics and the per-condition throughputs and differences."""
    by: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in runs:
        by.setdefault(r["link_id"], {}).setdefault(r["condition"], []).append(r)
    lo, hi = cfg.fit_range
    conv = CONVERGENCE_LENGTH[cfg.prof.name]
    out = []
    for lk in links:
        c = by[lk.link_id]
        (emp,) = c["empirical"]
        bits = lk.trace.to_numpy()
        opening = int(np.argmin(bits)) if bits.size and bits.min() == 0 else int(bits.size)
        delivered = round(emp["throughput_pps"] * emp["sim_duration"]) if emp["throughput_pps"] is not None else None
        ind_deliv = [r["throughput_pps"] * r["sim_duration"] for r in c.get("independent", []) if r["throughput_pps"] is not None]
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
                # Srinivasan et al. §8: shorter than the length after which μ levels off
                "converged": bool(st.length >= conv),
                # received frames before the first loss, and whether they alone make the link
                # beat its independent twins (its later data is no more than theirs)
                "opening_run": opening,
                "delivered": delivered,
                "opening_makes_diff": bool(delivered is not None and ind_deliv and delivered > float(np.mean(ind_deliv)) >= delivered - min(opening, delivered)),
                "ge_note": "; ".join(r["note"] for r in c.get("ge", []) if r["note"]) or None,
            }
        )
    return out


def write_json(path: Path, obj: Any) -> None:
    """Write JSON atomically (temp file + rename)."""
    atomic_write_text(path, json.dumps(obj, indent=2, default=_json_default, allow_nan=False))


def _json_default(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(type(o).__name__)
