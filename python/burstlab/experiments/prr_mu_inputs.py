"""The inputs of the PRR/μ study (Srinivasan, Kazandjieva, Jain, Levis, "PRR Is Not
Enough"): the link traces of each dataset or folder, read once, and the links the study
simulates (PRR in range, μ defined, at most ``max_links``), with warnings on inputs the
method cannot support.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from burstlab._core import ParameterError
from burstlab.experiments.prr_mu_settings import PROFILES, StudyConfig
from burstlab.stats import TraceStats, trace_stats
from burstlab.sweep import iter_progress
from burstlab.traces import Trace
from burstlab._core import BurstlabError
from burstlab.io import detect_format
from burstlab._core import EmptyInputError, TraceFormatError
from burstlab.io import EXTENSIONS, read_trace
from burstlab.datasets import rutgers
from burstlab.datasets.fetch import locate
from burstlab.datasets.synthetic import synthetic_testbed
from burstlab.datasets.starlink import starlink
from burstlab.datasets.registry import get
from burstlab.datasets import subsample
from burstlab.datasets import support


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


def _tossim_links(cfg: StudyConfig) -> int:
    """How many links :func:`burstlab.datasets.tossim.tossim` will derive (for the progress's
    rate and time left): segments per noise file (its lines counted, not parsed) × strengths."""
    from burstlab.datasets.tossim import DEFAULT_TARGETS, FILES

    paths = [Path(f) for f in cfg.tossim_noise_files] if cfg.tossim_noise_files else [locate("tossim-noise").root / f"{n}.txt" for n in FILES]
    k = len(cfg.tossim_signal_dbm or cfg.tossim_targets or DEFAULT_TARGETS)
    total = 0
    for p in paths:
        n = p.read_bytes().count(b"\n") if p.is_file() else 0
        seg = cfg.tossim_segment
        total += k * (1 if seg is None or (cfg.tossim_noise_files and seg > n) else max(n // seg, 0))
    return total


def load_traces(cfg: StudyConfig, notes: list[str] | None = None, progress: bool = False) -> list[Trace]:
    """All traces of the configured input, before any filtering (sub-sampled when
    ``cfg.subsample`` > 1). What was skipped while reading is appended to ``notes``.
    ``progress``: show the reading of a derived dataset (TOSSIM: seconds) on stderr."""
    notes = [] if notes is None else notes
    if cfg.dataset == "synthetic":

        traces = synthetic_testbed(cfg.n_links, cfg.n_slots, cfg.testbed_seed, cfg.prof.slot)
    elif cfg.dataset == "tossim":
        from burstlab.datasets.tossim import DEFAULT_TARGETS, tossim

        links = tossim(
            targets=cfg.tossim_targets or DEFAULT_TARGETS,
            signal_dbm=cfg.tossim_signal_dbm,
            seed=cfg.seed,
            interval=cfg.prof.slot,
            segment=cfg.tossim_segment,
            noise_files=cfg.tossim_noise_files,
        )
        traces = list(iter_progress(links, _tossim_links(cfg), "tossim links derived", progress, unit="links") if progress else links)
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

