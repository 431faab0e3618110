"""Tables, fits, figures and the one-page report of the PRR/μ study
(:mod:`burstlab.experiments.prr_mu`).

Outputs under the study folder:

- ``store.duckdb``: table ``runs`` (one row per link × condition × replicate, the store),
  tables ``links`` (one row per link) and ``results`` (the links in the fit range, with the
  columns ``group``, ``prr``, ``mu``, ``throughput_pps``, ``link_pps`` that
  ``burstlab fit-throughput`` reads);
- ``links.csv``, ``results.csv``, ``fig13.csv``, ``summary.json``;
- ``figures/figNN-*.png`` (and ``.pdf``), with ``figures/index.json``: a figure whose inputs
  have not changed since it was drawn is not drawn again;
- ``report.md`` and ``report.html`` (the same content), linking all of the above.

Every phase avoids what it does not need: a re-run whose simulations, fits and figures are
all current imports neither matplotlib nor scipy.
"""

from __future__ import annotations

import hashlib
import json
import math
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from burstlab._core import __version__
from burstlab._util import json_safe
from burstlab.datasets.registry import get
from burstlab.io import atomic_write_text
from burstlab.experiments import prr_mu_claims
from burstlab.experiments.prr_mu_inputs import CONVERGENCE_LENGTH, StudyLink
from burstlab.experiments.prr_mu_settings import StudyConfig
from burstlab.store import ResultStore
from burstlab.study import provenance
from burstlab.study.blocks import claims_section
from burstlab.study.report import Block, render_html, render_md, write_csv  # noqa: F401  (re-exported: the other studies and link_report use them)
from burstlab.study.report import replace_table as _replace_table
from burstlab.study.verdict import COLUMNS, PREVIEW, claim_rows, tally
from burstlab.sweep import run_tasks

# (key, title) of the fits in the order of Srinivasan et al. Fig. 13.
#: The package's own directory (the sources of the fits and figures, digested into their cache keys).
_PACKAGE = Path(__file__).parent.parent

FITS = (("prr", "PRR only"), ("fifteen", "PRR and μ, 15 terms"), ("second_order", "PRR and μ, 2nd order"))

#: Srinivasan et al.'s published numbers the report sets beside this run's ("PRR Is Not Enough":
#: §4 and Fig. 3, Fig. 13, §8, §9.2). Mirage = 802.15.4, 10 ms; Roofnet = 802.11b, 2 ms.
PAPER: dict[str, Any] = {
    "thr_prr_030_040": "2-14 (Mirage ch. 26: PRR 0.33 → ~2, PRR 0.35 → > 7; ch. 16: three links at PRR 0.37 → 3, 8, 14)",
    "spread_equal_prr": "> 250 % (ch. 26), up to 320 % (ch. 16), > 200 % (Roofnet)",
    "diff_vs_mu": "rises with μ (Figs. 6-10; the text gives no values)",
    "fig13": {
        "Mirage ch. 26": (3.74, 1.13, 1.91, 69.88, 48.97),
        "Mirage ch. 16": (3.12, 0.0159, 1.30, 99.49, 58.16),
        "Roofnet": (4.30, 1.70, 1.96, 60.41, 54.45),
    },
    "convergence": "μ levels off after ~40,000 packets (Mirage), ~10,000 (Roofnet); 6000-packet chunks are not enough",
    "ge_within_10": "12 % of links (ch. 26), ~50 % (ch. 16)",
    "ge_below": "most links (ch. 26); GE up to 80 % lower (ch. 26, Roofnet), 60 % (ch. 16)",
    "ge_longest": "149 packets over 54 links (ch. 26); ~50 % of links have longer runs, up to 600",
}


RESULT_COLUMNS = ["group", "link_id", "subgroup", "synthetic", "prr", "mu", "throughput_pps", "link_pps", "independent_pps", "ge_pps", "diff_pct"]


def write_tables(cfg: Any, out: Path, store: ResultStore, study_links: Sequence[Any], runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The per-link table (``links.csv``, DuckDB ``links``) and the fit input (``results.csv``,
    DuckDB ``results``); returns the link table."""
    links = link_table(cfg, study_links, runs)
    results = _fit_rows(links)
    write_csv(out / "links.csv", links, list(links[0].keys()))
    write_csv(out / "results.csv", results, RESULT_COLUMNS)
    _replace_table(store, "links", links, list(links[0].keys()))
    _replace_table(store, "results", results, RESULT_COLUMNS)
    return links


def _fit_rows(links: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in links if r["intermediate"] and r["throughput_pps"] is not None]


# --------------------------------------------------------------------------------------
# fits (burstlab.fits, Srinivasan et al. §7), cached by their inputs
# --------------------------------------------------------------------------------------
def _digest(*parts: Any) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(pickle.dumps(p, protocol=4))
    return h.hexdigest()


def _source_digest(module_file: str) -> str:
    return hashlib.sha256(Path(module_file).read_bytes()).hexdigest()[:16]


@dataclass(frozen=True)
class FitTask:
    """The fits of one group, done by a worker (which also draws that group's Figs. 11-12)."""

    group: str
    prr: Any
    mu: Any
    thr: Any
    link_pps: float
    folds: int
    seed: int
    folder: str = ""  # where to draw Figs. 11-12 (nothing if empty)
    formats: tuple[str, ...] = ("png",)


def plan_fits(cfg: Any, out: Path, links: Sequence[dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], list[FitTask], dict[str, str], dict[str, Any]]:
    """Per group (dataset) of fit-range links, either its fits from ``.cache/fits.json`` (kept
    under the hash of the inputs and of ``burstlab/fits.py``, so a re-run does not refit) or a
    :class:`FitTask`. Returns (cached fits by group, tasks, cache key by group, the cache)."""
    fits_src = str(_PACKAGE / "fits.py")
    rows = _fit_rows(links)
    try:
        cache: dict[str, Any] = json.loads((out / ".cache" / "fits.json").read_text())
    except (OSError, ValueError):
        cache = {}
    done: dict[str, dict[str, Any]] = {}
    tasks: list[FitTask] = []
    keys: dict[str, str] = {}
    for g in sorted({r["group"] for r in rows}):
        rs = [r for r in rows if r["group"] == g]
        prr = np.array([r["prr"] for r in rs], dtype=float)
        mu = np.array([r["mu"] for r in rs], dtype=float)
        thr = np.array([r["throughput_pps"] for r in rs], dtype=float)
        link_pps = float(rs[0]["link_pps"])
        keys[g] = _digest(prr, mu, thr, link_pps, cfg.folds, cfg.seed, [k for k, _ in FITS], _source_digest(fits_src))
        if keys[g] in cache:
            done[g] = {**cache[keys[g]], "actual": thr.tolist()}
        else:
            tasks.append(FitTask(g, prr, mu, thr, link_pps, cfg.folds, cfg.seed))
    return done, tasks, keys, cache


def fit_notes(cfg: Any, fitted: dict[str, dict[str, Any]]) -> list[str]:
    lo, hi = cfg.fit_range
    return [f"group {g}: no {dict(FITS)[fs]} fit on the {f['n']} links with PRR {lo:g}-{hi:g}: {why}" for g, f in fitted.items() for fs, why in f["skipped"].items()]


def _fit_figures(g: str, f: dict[str, Any]) -> list[FigureJob]:
    """Figs. 11-12 of one group from its fits (the fits that were made)."""
    act = np.asarray(f["actual"], dtype=float)
    jobs = []
    for key, fs, title in (("fig11", "prr", "Best PRR-only fit"), ("fig12", "second_order", "Best 2nd-order fit in PRR and μ")):
        if fs in f["predicted"]:
            jobs.append(FigureJob(f"{key}-{g}", f"{key}-fit-{'prr' if fs == 'prr' else '2nd-order'}-{g}", "fig_fit",
                                  (act, np.asarray(f["predicted"][fs], dtype=float), f"{title} ({g})"), {},
                                  caption=f"Fig. {key[3:]}: {title.lower()} ({g})"))
    return jobs


def _fit_one(group: str, prr: Any, mu: Any, thr: Any, link_pps: float, folds: int, seed: int) -> dict[str, Any]:
    from burstlab import fits

    row = fits.fig13_row(prr, mu, thr, group=group, link_pps=link_pps, folds=folds, seed=seed, feature_sets=tuple(k for k, _ in FITS))
    pred = {k: row.estimates[k].tolist() for k in ("prr", "second_order") if k in row.estimates}
    d = row.to_dict()
    return json_safe({
        "group": group,
        "n": row.n,
        "link_pps": link_pps,
        "folds": folds,
        "error": d["error"],
        "cv_error": d["cv_error"],
        "gain": d["improvement_pct"],
        "gain_ci": d["improvement_ci95"],
        "cv_gain": d["cv_improvement_pct"],
        "cv_gain_ci": d["cv_improvement_ci95"],
        "skipped": d["skipped"],
        "predicted": pred,
    })


def run_job(job: FitTask | FigureJob) -> tuple[str, str, Any]:
    """The worker function of the fits-and-figures phase: draw a figure, or fit a group and
    draw its Figs. 11-12. Returns (kind, name, result)."""
    if isinstance(job, FigureJob):
        return ("figure", render_figure(job), None)
    f = _fit_one(job.group, job.prr, job.mu, job.thr, job.link_pps, job.folds, job.seed)
    if job.folder:
        for fj in _fit_figures(job.group, {**f, "actual": np.asarray(job.thr).tolist()}):
            render_figure(replace(fj, folder=job.folder, formats=job.formats))
    return ("fit", job.group, f)


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)


def fig13_rows(fitted: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The Fig. 13 table: per group, normalised errors and % improvement over PRR only with
    95 % bootstrap intervals, in sample and k-fold cross-validated (NaN: fit not made)."""
    rows = []
    for group, f in fitted.items():
        e, cv = f["error"], f["cv_error"]
        r: dict[str, Any] = {"group": group, "n_links": f["n"], "link_pps": f["link_pps"], "folds": f["folds"],
                             "err_prr": _num(e["prr"]), "err_15": _num(e["fifteen"]), "err_2nd": _num(e["second_order"])}
        for tag, fs in (("15", "fifteen"), ("2nd", "second_order")):
            r[f"impr_{tag}_pct"] = _num(f["gain"][fs])
            r[f"impr_{tag}_lo"], r[f"impr_{tag}_hi"] = (_num(x) for x in f["gain_ci"][fs])
        r.update({"cv_err_prr": _num(cv["prr"]), "cv_err_15": _num(cv["fifteen"]), "cv_err_2nd": _num(cv["second_order"])})
        for tag, fs in (("15", "fifteen"), ("2nd", "second_order")):
            r[f"cv_impr_{tag}_pct"] = _num(f["cv_gain"][fs])
            r[f"cv_impr_{tag}_lo"], r[f"cv_impr_{tag}_hi"] = (_num(x) for x in f["cv_gain_ci"][fs])
        r["not_made"] = "; ".join(f"{fs}: {why}" for fs, why in f["skipped"].items()) or None
        rows.append(r)
    return rows


# --------------------------------------------------------------------------------------
# summary numbers
# --------------------------------------------------------------------------------------
def _rank(a: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties sharing their mean rank (as Spearman's correlation needs)."""
    _, inv, counts = np.unique(a, return_inverse=True, return_counts=True)
    mean_rank = np.cumsum(counts) - (counts - 1) / 2.0
    return mean_rank[inv]


def spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    """Spearman's rank correlation of the finite pairs (None with fewer than 3, or no spread)."""
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return None
    rx, ry = _rank(x[ok]), _rank(y[ok])
    if rx.std() == 0 or ry.std() == 0:
        return None
    return float(np.corrcoef(rx, ry)[0, 1])


def _f(rows: Sequence[dict[str, Any]], key: str) -> np.ndarray:
    return np.array([np.nan if r.get(key) is None else float(r[key]) for r in rows], dtype=float)


def _med(a: np.ndarray) -> float | None:
    return float(np.nanmedian(a)) if np.isfinite(a).any() else None


def equal_prr_spread(links: Sequence[dict[str, Any]], tol: float = 0.02) -> tuple[float | None, dict[str, Any] | None, dict[str, Any] | None]:
    """The largest throughput difference (%, higher over lower) between two intermediate links
    whose PRRs differ by at most ``tol`` (Srinivasan et al. §4's "within a given reception
    ratio"), and the two links."""
    rows = sorted((r for r in links if r["intermediate"] and r["throughput_pps"] is not None and r["throughput_pps"] > 0), key=lambda r: r["prr"])
    best: tuple[float, dict[str, Any], dict[str, Any]] | None = None
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            if b["prr"] - a["prr"] > tol:
                break
            hi, lo = (a, b) if a["throughput_pps"] >= b["throughput_pps"] else (b, a)
            d = 100.0 * (hi["throughput_pps"] / lo["throughput_pps"] - 1.0)
            if best is None or d > best[0]:
                best = (d, hi, lo)
    return (None, None, None) if best is None else best


def summarise(cfg: Any, links: Sequence[dict[str, Any]], sims: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The study's headline numbers (all computed from the link table)."""
    inter = [r for r in links if r["intermediate"]]
    d = _f(links, "diff_pct")
    di = _f(inter, "diff_pct")
    thr, ge = _f(links, "throughput_pps"), _f(links, "ge_pps")
    ok = np.isfinite(thr) & np.isfinite(ge) & (thr > 0)
    within = float(np.mean(np.abs(ge[ok] - thr[ok]) / thr[ok] <= 0.10)) if ok.any() else None
    below = float(np.mean(ge[ok] < thr[ok])) if ok.any() else None
    runs, ge_runs = _f(links, "max_success_run"), _f(links, "ge_max_success_run")
    ge_longest = float(np.nanmax(ge_runs)) if np.isfinite(ge_runs).any() else None
    beyond = float(np.mean(runs[np.isfinite(runs)] > ge_longest)) if ge_longest is not None else None
    lengths = _f(links, "length")
    emp = [r for r in sims if r["condition"] == "empirical"]
    tmo, dur = _f(emp, "timeouts"), _f(emp, "sim_duration")
    band = [r for r in links if r["prr"] is not None and 0.30 <= r["prr"] <= 0.40 and r["throughput_pps"] is not None]
    bt = _f(band, "throughput_pps")
    spread, hi, lo = equal_prr_spread(links)
    pos = [r for r in links if r["diff_pct"] is not None and math.isfinite(r["diff_pct"]) and r["diff_pct"] > 0]
    return {
        "median_timeouts_per_100s": _med(100.0 * tmo / dur),
        "n_links": len(links),
        "n_intermediate": len(inter),
        "median_length": float(np.median(lengths)) if len(lengths) else None,
        "n_short": sum(1 for r in links if not r["converged"]),
        "median_diff_pct": _med(d),
        "median_diff_pct_intermediate": _med(di),
        "diff_pct_intermediate_p10_p90": [float(x) for x in np.nanpercentile(di, [10, 90])] if np.isfinite(di).any() else None,
        "spearman_diff_mu": spearman(_f(links, "mu"), d),
        "spearman_diff_mu_intermediate": spearman(_f(inter, "mu"), di),
        "thr_prr_030_040": {"n": len(band), "min": float(bt.min()), "median": float(np.median(bt)), "max": float(bt.max())} if len(band) else None,
        "equal_prr_spread_pct": spread,
        "equal_prr_pair": None if hi is None or lo is None else [hi["link_id"], lo["link_id"]],
        "n_positive_diff": len(pos),
        "n_opening_makes_diff": sum(1 for r in pos if r["opening_makes_diff"]),
        "ge_within_10pct": within,
        "ge_below_empirical": below,
        "ge_longest_run_overall": ge_longest,
        "links_with_runs_beyond_ge_longest": beyond,
        "median_chunk_rms_mu": _med(_f(links, "chunk_rms_mu")),
    }


# --------------------------------------------------------------------------------------
# figures: described as jobs, drawn in parallel by worker processes, kept while current
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FigureJob:
    """One figure: the :mod:`burstlab.plot` function, its arguments and where it goes."""

    key: str  # report key, e.g. "fig03"
    stem: str  # file name without extension
    func: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    folder: str = ""
    formats: tuple[str, ...] = ("png",)
    caption: str = ""

    def digest(self, code: str) -> str:
        return _digest(self.func, self.args, sorted(self.kwargs.items()), self.formats, code, __version__)


def render_figure(job: FigureJob) -> str:
    """Draw one figure and write its files (the worker function); returns the stem."""
    from burstlab import plot

    fig = getattr(plot, job.func)(*job.args, **job.kwargs)
    plot.save_figure(fig, Path(job.folder), job.stem, job.formats)
    return job.stem


def pick_pair_ab(links: Sequence[dict[str, Any]], prr_tol: float = 0.05, mu_tol: float = 0.1) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Srinivasan et al. §8's links A and B: two intermediate links with similar PRR and μ
    (within ``prr_tol`` and ``mu_tol``) whose throughputs differ the most; A is the faster."""
    rows = [r for r in links if r["intermediate"] and r["throughput_pps"] is not None and r["throughput_pps"] > 0 and r["mu"] is not None]
    best = None
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            if abs(a["prr"] - b["prr"]) <= prr_tol and abs(a["mu"] - b["mu"]) <= mu_tol:
                hi, lo = (a, b) if a["throughput_pps"] >= b["throughput_pps"] else (b, a)
                ratio = hi["throughput_pps"] / lo["throughput_pps"]
                if best is None or ratio > best[0]:
                    best = (ratio, hi, lo)
    return None if best is None else (best[1], best[2])


def _pair_data(study_links: Sequence[Any], rows: Sequence[dict[str, Any]], attr: str) -> list[tuple[str, float, float, np.ndarray, np.ndarray]]:
    by_id = {lk.link_id: lk for lk in study_links}
    out = []
    for r in rows:
        dist = getattr(by_id[r["link_id"]].stats, attr)
        out.append((r["link_id"], float(r["prr"]), float(r["throughput_pps"]), dist.lengths.astype(float), dist.counts.astype(float)))
    return out


def _representative(links: Sequence[dict[str, Any]], k: int = 5) -> list[dict[str, Any]]:
    """Up to k links spread over μ (quantiles of μ), preferring intermediate links."""
    pool = [r for r in links if r["intermediate"]] or list(links)
    pool = sorted(pool, key=lambda r: (r["mu"], r["link_id"]))
    if len(pool) <= k:
        return pool
    idx = sorted({int(round(q * (len(pool) - 1))) for q in np.linspace(0, 1, k)})
    return [pool[i] for i in idx]


def figure_jobs(cfg: Any, study_links: Sequence[Any], links: Sequence[dict[str, Any]], info: dict[str, Any]) -> tuple[list[FigureJob], dict[str, str], list[str]]:
    """Every figure of the report but the fits' (Figs. 11-12, drawn with the fits) as a job,
    the caption of each, and notes on the figures that could not be drawn (and why)."""
    jobs: list[FigureJob] = []
    alt: dict[str, str] = {}
    notes: list[str] = []
    lo, hi = cfg.fit_range
    inter = [r for r in links if r["intermediate"]]

    def add(key: str, stem: str, func: str, caption: str, *args: Any, **kwargs: Any) -> None:
        jobs.append(FigureJob(key, stem, func, args, kwargs, caption=caption))
        alt[key] = caption

    groups: dict[str, list[float]] = {}
    for sg, p in info.get("all_prr", []):
        groups.setdefault(sg or cfg.dataset, []).append(float(p))
    add("fig01", "fig01-prr-cdf", "fig01_prr_cdf", f"Fig. 1: CDF of the PRR of all {sum(map(len, groups.values()))} traces", {k: np.asarray(v) for k, v in groups.items()})
    add("fig03", "fig03-throughput-vs-prr", "fig03_throughput_vs_prr", "Fig. 3: throughput vs PRR", _f(links, "prr"), _f(links, "throughput_pps"), _f(links, "mu"))
    spread, a, b = equal_prr_spread(links)
    if a is not None and b is not None:
        add("fig04", "fig04-loss-burst-cdf", "fig04_burst_cdf", "Fig. 4: loss bursts of two links with the same PRR", _pair_data(study_links, [a, b], "loss_bursts"))
    ab = pick_pair_ab(links)
    marks = {} if ab is None else {"A": (float(ab[0]["mu"]), float(ab[0]["diff_pct"])), "B": (float(ab[1]["mu"]), float(ab[1]["diff_pct"]))}
    sub = f", traces sub-sampled every {cfg.subsample}" if cfg.subsample > 1 else ""
    add("fig06", "fig06-diff-vs-mu-all", "fig06_diff_vs_mu", f"Fig. 6: throughput difference vs μ, PRR {cfg.prr_range[0]:g}-{cfg.prr_range[1]:g}",
        _f(links, "mu"), _f(links, "diff_pct"), _f(links, "prr"), f"Difference vs μ, PRR {cfg.prr_range[0]:g}-{cfg.prr_range[1]:g}{sub}")
    key8, stem8 = ("fig14", "fig14-diff-vs-mu-subsampled") if cfg.subsample > 1 else ("fig08", "fig08-diff-vs-mu-intermediate")
    cap8 = (f"Fig. 14: throughput difference vs μ of the sub-sampled traces (every {cfg.subsample}), intermediate links, A and B marked" if cfg.subsample > 1
            else "Fig. 8: throughput difference vs μ, intermediate links (A and B of Fig. 15 marked)")
    add(key8, stem8, "fig06_diff_vs_mu", cap8, _f(inter, "mu"), _f(inter, "diff_pct"), _f(inter, "prr"), f"Difference vs μ, PRR {lo:g}-{hi:g}{sub}", marks=marks)
    if ab is not None:
        add("fig15", "fig15-success-runs-a-b", "fig15_success_runs", f"Fig. 15: success runs of links A ({ab[0]['link_id']}) and B ({ab[1]['link_id']})", _pair_data(study_links, list(ab), "success_runs"))
    else:
        notes.append("Fig. 15: no two intermediate links have PRR within 0.05 and μ within 0.1 of each other")
    add("fig16", "fig16-chunk-rms-mu", "fig16_chunk_rms", "Fig. 16: chunk-μ RMS vs μ", _f(links, "mu"), _f(links, "chunk_rms_mu"), cfg.chunk)
    # Fig. 17 (Mirage timescale) or Fig. 18 (Roofnet): only with traces long enough to show μ level off
    conv = CONVERGENCE_LENGTH[cfg.prof.name]
    key, num = ("fig17", 17) if cfg.prof.name == "mirage" else ("fig18", 18)
    by_id = {lk.link_id: lk for lk in study_links}
    long_links = [r for r in links if r["converged"]]
    if long_links:
        curves = []
        for r in _representative(long_links):
            st = by_id[r["link_id"]].stats
            curves.append((f"{r['link_id']} (PRR {r['prr']:.2f})", st.prefix_lengths.astype(float), np.asarray(st.prefix_mu, dtype=float)))
        add(key, f"{key}-mu-convergence", "fig17_convergence", f"Fig. {num}: μ of the first n packets", curves, conv,
            f"Convergence of μ ({'802.15.4, 10 ms' if num == 17 else '802.11, 2 ms'} time scale)")
    else:
        notes.append(f"Fig. {num}: no link has the {conv:,} packets after which Srinivasan et al. §8 saw μ level off on this time scale "
                     f"(the longest has {max(int(r['length']) for r in links):,})")
    add("fig19", "fig19-ge-vs-empirical", "fig19_ge_vs_empirical", "Fig. 19: GE vs empirical throughput", _f(links, "throughput_pps"), _f(links, "ge_pps"), cfg.prof.link_pps)
    add("fig20", "fig20-longest-success-runs", "fig20_longest_runs", "Fig. 20: longest success runs", _f(links, "max_success_run"), _f(links, "ge_max_success_run"))
    return jobs, alt, notes


def fits_and_figures(cfg: Any, out: Path, study_links: Sequence[Any], links: Sequence[dict[str, Any]], info: dict[str, Any], *,
                     workers: int | None = None, progress: bool = False, formats: Sequence[str] = ("png",)) -> tuple[dict[str, dict[str, Any]], dict[str, Path]]:
    """The fits of every group (:func:`plan_fits`) and every figure, on ``workers`` processes
    together: a worker fits a group (scipy's LP) while the others draw (matplotlib), and the
    main process imports neither. Only what changed since the last run is done: fits are
    cached in ``.cache/fits.json``, figures listed with the digest of their inputs in
    ``figures/index.json``. Returns (fits by group, figure key → PNG path); the captions and
    notes on figures not drawn go to ``info["figure_alt"]`` and ``info["figure_notes"]``."""
    folder = out / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    fmts = tuple(dict.fromkeys(["png", *formats]))
    code = _source_digest(str(_PACKAGE / "plot.py"))
    index_path = folder / "index.json"
    try:
        index: dict[str, str] = json.loads(index_path.read_text())
    except (OSError, ValueError):
        index = {}

    def place(j: FigureJob) -> FigureJob:
        return replace(j, folder=str(folder), formats=fmts)

    def current(j: FigureJob) -> bool:
        return index.get(j.stem) == j.digest(code) and all((folder / f"{j.stem}.{e}").exists() for e in fmts)

    fitted, fit_tasks, keys, cache = plan_fits(cfg, out, links)
    jobs, alt, notes = figure_jobs(cfg, study_links, links, info)
    jobs = [place(j) for j in jobs]
    for g, f in fitted.items():
        jobs += [place(j) for j in _fit_figures(g, f)]
    fit_tasks = [replace(t, folder=str(folder), formats=fmts) for t in fit_tasks]
    todo: list[FitTask | FigureJob] = [*fit_tasks, *(j for j in jobs if not current(j))]  # the slow fits first
    n_workers = 1 if len(todo) < 3 else min(len(todo), workers or 2)
    for _, (kind, name, result) in run_tasks(run_job, todo, workers=n_workers, progress=progress, description=f"prr-mu {cfg.dataset}: fits and figures"):
        if kind == "fit":
            fitted[name] = {**result, "actual": next(np.asarray(t.thr).tolist() for t in fit_tasks if t.group == name)}
            cache[keys[name]] = result
            jobs += [place(j) for j in _fit_figures(name, fitted[name])]
    fitted = dict(sorted(fitted.items()))
    (out / ".cache").mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / ".cache" / "fits.json", json.dumps({keys[g]: cache[keys[g]] for g in fitted}, allow_nan=False))
    atomic_write_text(index_path, json.dumps({j.stem: j.digest(code) for j in jobs}, indent=1, sort_keys=True))
    info["figure_alt"] = {**alt, **{j.key: j.caption for j in jobs}}
    info["figure_notes"] = notes
    info["figures_drawn"] = sum(1 for t in todo if isinstance(t, FigureJob)) + sum(2 for _ in fit_tasks)
    return fitted, {j.key: folder / f"{j.stem}.png" for j in jobs}


# --------------------------------------------------------------------------------------
# the report (rendered by burstlab.study.report)
# --------------------------------------------------------------------------------------
def _fmt(v: Any, nd: int = 3) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def _pct(v: Any, nd: int = 0) -> str:
    return "–" if v is None else f"{100 * v:.{nd}f} %"




def dataset_label(cfg: Any) -> str:
    base = "synthetic testbed" if cfg.dataset == "synthetic" else {"rutgers": "Rutgers 802.11 links", "tossim": "TOSSIM-noise-derived links", "starlink": f"Starlink ping probes ({cfg.timing})", "traces": f"traces in {cfg.traces_dir}"}[cfg.dataset]
    return base + (f" (sub-sampled every {cfg.subsample})" if cfg.subsample > 1 else "")


def dataset_notes(cfg: Any, study_links: Sequence[Any]) -> list[str]:
    """What the report must say about where the links came from."""
    notes: list[str] = []
    if cfg.dataset == "tossim":
        sig = [float(lk.trace.meta["signal_dbm"]) for lk in study_links if "signal_dbm" in lk.trace.meta]
        clean = sorted({str(lk.trace.meta.get("cleaning")) for lk in study_links if lk.trace.meta.get("cleaning")})
        files = sorted({str(lk.trace.meta.get("noise_file")) for lk in study_links if lk.trace.meta.get("noise_file")})
        notes.append(
            f"Links derived from TOSSIM noise traces ({', '.join(files)}; `burstlab.datasets.tossim`): each noise sample n becomes one slot, received with "
            "probability PRR(S − n) from the CC2420 curve of TinyOS's CPM model (`tos/lib/tossim/CpmModelC.nc`, `prr_estimate_from_snr`: "
            "(1 − ½·erfc(1.3687·√(|10^(SNR/10) − 0.9187|/2)))^46), drawn with a seeded RNG; the signal strength S of each link is solved so that its "
            f"expected PRR hits a target (S from {min(sig):.2f} to {max(sig):.2f} dBm)." if sig else "Links derived from the TOSSIM noise traces."
        )
        notes.extend(f"Noise file cleaning: {c}." for c in clean)
    elif cfg.dataset == "rutgers":
        notes.append("Rutgers ORBIT 802.11 links (CRAWDAD rutgers/noise, DOI 10.15783/C7B59W; `burstlab.datasets.rutgers`): one trace per directed link and injected-noise level, 301 frames (seq 0..300); the files record no timing, so the slot is the profile's.")
    elif cfg.dataset == "starlink":  # registered dataset (burstlab.datasets.starlink, docs/datasets.md)
        notes.append(f"Starlink ICMP probes ({get('starlink').citation}; licence {get('starlink').licence}): one path, "
                     + ("one probe per slot (the probing order, times dropped)." if cfg.timing == "slots" else "the probes replayed in time, sample and hold on the profile's slot."))
    elif cfg.dataset == "traces":
        notes.append(f"Traces read from `{cfg.traces_dir}`" + (f" as `{cfg.fmt}`" if cfg.fmt else " (format auto-detected)")
                     + (f", {cfg.traces_expected} packets sent each" if cfg.traces_expected else "") + (", 1 = lost" if cfg.traces_one_means == "lost" else "") + ".")
    if cfg.subsample > 1:
        notes.append(f"Every trace was sub-sampled: one entry in {cfg.subsample} is kept (Srinivasan et al. §8 sub-sample Roofnet's 2 ms traces at 10 ms; `burstlab convert --every {cfg.subsample}` does the same to a file).")
    return notes


def subgroup_rows(links: Sequence[dict[str, Any]]) -> list[list[str]]:
    """Per subgroup (synthetic link kind, noise file, noise level): medians of the link table."""
    out = []
    for sg in sorted({r["subgroup"] for r in links}):
        rs = [r for r in links if r["subgroup"] == sg]

        def med(k: str, rs: list[dict[str, Any]] = rs) -> float | None:
            return _med(_f(rs, k))

        out.append([sg or "–", str(len(rs)), _fmt(med("prr"), 2), _fmt(med("mu"), 2), _fmt(med("throughput_pps"), 3), _fmt(med("independent_pps"), 3),
                    _fmt(med("diff_pct"), 1), _fmt(med("ge_pps"), 3), _fmt(med("max_success_run"), 0), _fmt(med("ge_max_success_run"), 0)])
    return out


def _ci(v: Any, lo: Any, hi: Any) -> str:
    if v is None or not math.isfinite(v):
        return "–"
    return f"{v:.1f} [{_fmt(lo, 0)}, {_fmt(hi, 0)}]"


def _tcp_line(cfg: Any) -> str:
    if cfg.tcp_variant != "newreno":
        return (f"TCP `--tcp {cfg.tcp_variant}` over the `{cfg.tcp_profile}` profile's timers and receiver "
                "(the congestion control and loss recovery replaced; Srinivasan et al. ran NewReno)")
    if cfg.tcp_profile == "tossim":
        return ("TCP profile `tossim` (the default; `docs/study.md`): Srinivasan et al.'s TinyOS/TOSSIM NewReno as reconstructed from the paper and the RFCs it cites: "
                "RFC 793's timer (RTO = 2·SRTT within the bounds, no exponential backoff), the receiver re-acknowledges after every ACK timeout without a packet, "
                "those duplicate ACKs start fast retransmit also after a timeout (RFC 2581, RFC 2582), Slow-but-Steady partial ACKs (RFC 2582 §4); `--tcp-profile rfc` gives the RFC 6298/6582 behaviour")
    return (f"TCP profile `rfc`: RFC 6298 timer with exponential backoff (backed-off RTO reset: {cfg.rto_backoff_reset}), RFC 6582 NewReno; "
            "on slotted links this keeps the RTO near its upper bound for long stretches (see `docs/study.md`); the default `--tcp-profile tossim` follows Srinivasan et al.'s stack")


def write_report(cfg: Any, out: Path, study_links: Sequence[Any], links: Sequence[dict[str, Any]], runs: Sequence[dict[str, Any]], excluded: dict[str, int],
                 fitted: dict[str, dict[str, Any]], fit_notes: Sequence[str], figs: dict[str, Path], notes: Sequence[str], info: dict[str, Any],
                 timings: dict[str, float]) -> tuple[Path, Path, list[dict[str, Any]]]:
    """``fig13.csv``, ``claims.csv``, ``summary.json``, ``report.md`` and ``report.html``;
    returns the reports' paths and the judged claims (``claims.csv``'s rows)."""
    fig13 = fig13_rows(fitted)
    write_csv(out / "fig13.csv", fig13, list(fig13[0].keys()) if fig13 else ["group"])
    summary = summarise(cfg, links, runs)
    vs = prr_mu_claims.verdicts(cfg.dataset == "synthetic", links, fig13, preview=cfg.quick)
    claims = claim_rows(vs)
    write_csv(out / "claims.csv", claims, COLUMNS)
    write_json(out / "summary.json", {"config": cfg.to_dict(), "provenance": info.get("provenance"), "burstlab_version": __version__, "excluded": excluded, "summary": json_safe(summary),
                                      "fig13": json_safe(fig13), "tally": json_safe(tally(vs).__dict__), "claims": json_safe(claims), "fit_notes": list(fit_notes),
                                      "input_notes": list(notes), "input_warnings": info.get("warnings", []), "timings_s": {k: round(v, 3) for k, v in timings.items()}})
    blocks = build_report(cfg, links, runs, excluded, summary, fig13, fit_notes, figs, out, [*dataset_notes(cfg, study_links), *notes], info, vs)
    md, html = out / "report.md", out / "report.html"
    atomic_write_text(md, render_md(blocks))
    atomic_write_text(html, render_html(blocks, f"burstlab PRR/μ study: {dataset_label(cfg)}", out))
    return md, html, claims


def paper_rows(cfg: Any, s: dict[str, Any], fig13: Sequence[dict[str, Any]]) -> list[list[str]]:
    """Srinivasan et al.'s published points beside this run's."""
    band = s["thr_prr_030_040"]
    p10_90 = s["diff_pct_intermediate_p10_p90"]
    rows = [
        ["TCP throughput of links with PRR 0.30-0.40 (packets/s)", PAPER["thr_prr_030_040"],
         "no link" if band is None else f"{band['min']:.2f}-{band['max']:.2f}, median {band['median']:.2f} ({band['n']} links)"],
        ["largest throughput difference between two links within 0.02 PRR (intermediate)", PAPER["spread_equal_prr"],
         "–" if s["equal_prr_spread_pct"] is None else f"{s['equal_prr_spread_pct']:.0f} % ({' vs '.join(s['equal_prr_pair'])})"],
        ["difference of a link against its independent twin, intermediate links", PAPER["diff_vs_mu"],
         f"median {_fmt(s['median_diff_pct_intermediate'], 0)} %, 10-90 % of links {'–' if p10_90 is None else f'{p10_90[0]:.0f} to {p10_90[1]:.0f} %'}; Spearman with μ {_fmt(s['spearman_diff_mu_intermediate'], 2)}"],
    ]
    for r in fig13:
        rows.append([f"Fig. 13 ({r['group']}, {r['n_links']} links): error ×10⁻² PRR only / 15 term / 2nd order; gain 15 term / 2nd order",
                     "; ".join(f"{k}: {a} / {b} / {c}; {d} % / {e} %" for k, (a, b, c, d, e) in PAPER["fig13"].items()) + " (in sample)",
                     f"in sample {_fmt(100 * r['err_prr'], 2)} / {_fmt(100 * r['err_15'], 2)} / {_fmt(100 * r['err_2nd'], 2)}; {_fmt(r['impr_15_pct'], 1)} % / {_fmt(r['impr_2nd_pct'], 1)} %; "
                     f"{r['folds']}-fold CV {_fmt(100 * r['cv_err_prr'], 2)} / {_fmt(100 * r['cv_err_15'], 2)} / {_fmt(100 * r['cv_err_2nd'], 2)}; {_fmt(r['cv_impr_15_pct'], 1)} % / {_fmt(r['cv_impr_2nd_pct'], 1)} %"])
    rows += [
        ["convergence of μ", PAPER["convergence"], f"median trace {_fmt(s['median_length'], 0)} packets; {s['n_short']} of {s['n_links']} links shorter than §8's length; median {cfg.chunk}-chunk RMS {_fmt(s['median_chunk_rms_mu'], 3)}"],
        ["GE links within 10 % of the link's throughput", PAPER["ge_within_10"], _pct(s["ge_within_10pct"])],
        ["GE links below the link", PAPER["ge_below"], _pct(s["ge_below_empirical"])],
        ["longest success run of any GE link; links with a longer one", PAPER["ge_longest"], f"{_fmt(s['ge_longest_run_overall'], 0)} packets; {_pct(s['links_with_runs_beyond_ge_longest'])}"],
    ]
    return rows


def build_report(cfg: Any, links: Sequence[dict[str, Any]], runs: Sequence[dict[str, Any]], excluded: dict[str, int], s: dict[str, Any], fig13: Sequence[dict[str, Any]],
                 fit_notes: Sequence[str], figs: dict[str, Path], out: Path, notes: Sequence[str] = (), info: dict[str, Any] | None = None,
                 verdicts: Sequence[Any] = ()) -> list[Block]:  # fmt: skip

    info = info or {}
    prof = cfg.prof
    label = dataset_label(cfg)
    alt: dict[str, str] = info.get("figure_alt", {})
    pdf = (out / "figures").exists() and any((out / "figures").glob("*.pdf"))

    def img(key: str) -> list[Block]:
        return [("img", (str(figs[key].relative_to(out)), alt.get(key, key), pdf and figs[key].with_suffix(".pdf").exists()))] if key in figs else []

    b: list[Block] = [("h1", f"PRR is not enough: the PRR/μ study on the {label}")]
    if cfg.quick:
        b.append(("p", f"**Quick run — {PREVIEW}** (`--quick`): {cfg.replicates} seeds per synthetic condition and fewer, shorter links. Every verdict "
                       "below is a preview; run without `--quick` for the study."))
    if cfg.dataset == "synthetic":
        b.append(("p", "**Synthetic data.** Every link below was generated by burstlab's own loss models (the built-in synthetic testbed, "
                       f"{cfg.n_links} links × {cfg.n_slots} slots, testbed seed {cfg.testbed_seed}: Bernoulli, Gilbert-Elliott and heavy-tailed "
                       "success-run links from the run-length model; `burstlab.datasets.synthetic`). No number here is a measurement of a real network."))
    b.append(("p", f"burstlab {__version__}; method of Srinivasan et al. (\"PRR Is Not Enough\"): TCP NewReno in slotted trace-driven mode over each link's "
                   f"trace (a), over {cfg.replicates} independent links with the same PRR and length (b) and over {cfg.replicates} Gilbert-Elliott links with the same PRR and μ (c)."))
    b.append(("ul", [
        f"profile `{prof.name}` (Srinivasan et al. §3.1-3.2): {prof.slot * 1000:g} ms slots ({prof.link_pps:g} link packets/s), RTO {prof.rto_min:g}-{prof.rto_max:g} s, ACK timeout {prof.ack_timeout * 1000:g} ms, max window {prof.max_cwnd} packets; ACK path: {cfg.ack_path}",
        _tcp_line(cfg),
        f"links simulated: {s['n_links']} with PRR in {cfg.prr_range[0]:g}-{cfg.prr_range[1]:g} and μ defined; {s['n_intermediate']} intermediate (PRR {cfg.fit_range[0]:g}-{cfg.fit_range[1]:g}) go into the fits; median trace length {_fmt(s['median_length'], 0)} packets",
        "left out: " + (", ".join(f"{v} ({k})" for k, v in sorted(excluded.items())) or "none"),
        f"{len(runs)} simulations, study seed {cfg.seed}; results store [`store.duckdb`](store.duckdb) (table `runs`, one row per link × condition × replicate, keyed by the hash of its full configuration), per-link table [`links.csv`](links.csv), fit input [`results.csv`](results.csv) (`burstlab fit-throughput results.csv`), [`summary.json`](summary.json)",
    ]))
    for n in notes:
        b.append(("p", n))
    for w in info.get("warnings", []):
        b.append(("p", f"**Input warning.** {w}"))
    conv = {"mirage": "40,000 packets for 802.15.4 links at 10 ms", "roofnet": "10,000 for 802.11 links at 2 ms"}[prof.name]
    if s["n_short"]:
        b.append(("p", f"**Caveat: {s['n_short']} of {s['n_links']} links are shorter than the length after which μ converges** (Srinivasan et al. §8: {conv}; "
                       "the paper drops its own 3000-packet Roofnet traces for that reason). Their μ, and every fit that uses it, carries that uncertainty "
                       "(column `converged` in `links.csv`)."
                       + (f" μ has not converged at {int(s['median_length']):,} packets, and the chunk-μ RMS (Fig. 16) cannot even be computed with {cfg.chunk}-packet chunks." if s["median_length"] and s["median_length"] < cfg.chunk else "")))

    b.append(("h2", "Srinivasan et al. beside this run"))
    b.append(("p", "Published numbers of \"PRR Is Not Enough\" (Mirage channels 26 and 16: 802.15.4, 10 ms; Roofnet: 802.11b at 11 Mb/s, 2 ms) and the same quantities here. "
                   "The paper's links are real; compare orders of magnitude and trends, not digits."))
    b.append(("table", (["quantity", "Srinivasan et al.", "this run"], paper_rows(cfg, s, fig13))))
    if verdicts:
        b += claims_section(verdicts, intervals="Here a replicate is a link: intervals are bootstraps over the links (the fits' gains: the study's own "
                                                "bootstrap of paired errors over links, cross-validated)."
                            + (" On the synthetic testbed the links' structure is by construction: those claims are calibration checks." if cfg.dataset == "synthetic" else ""))

    b.append(("h2", "Burstiness and TCP throughput (Figs. 1, 3, 4, 6, 8, 14, 15)"))
    b.append(("p", f"Median throughput difference of the link against its independent counterpart: {_fmt(s['median_diff_pct'], 1)} % over all simulated links, "
                   f"{_fmt(s['median_diff_pct_intermediate'], 1)} % over intermediate links. Spearman correlation of that difference with μ: "
                   f"{_fmt(s['spearman_diff_mu'], 2)} (all), {_fmt(s['spearman_diff_mu_intermediate'], 2)} (intermediate); Srinivasan et al. §6 reports that throughput rises with μ."))
    if s["n_opening_makes_diff"]:
        b.append(("p", f"**{s['n_opening_makes_diff']} of the {s['n_positive_diff']} links that beat their independent twins owe all of it to their opening run**: the frames they "
                       "received before their first loss (a TCP flow starts there, and those frames go straight through); after it they deliver no more than the twins. "
                       "On short traces this is most of a \"difference\" (a few frames on a few hundred make +100 %), and it says nothing about burstiness "
                       "(columns `opening_run`, `delivered`, `opening_makes_diff` of `links.csv`)."))
    b.append(("p", f"Retransmission timeouts on the links themselves: median {_fmt(s['median_timeouts_per_100s'], 1)} per 100 s of simulated time."))
    b.append(("p", "Medians per kind of link (throughput in packets/s; runs in packets):"))
    b.append(("table", (["kind", "links", "PRR", "μ", "link", "independent", "difference %", "GE", "longest run", "longest GE run"], subgroup_rows(links))))
    for k in ("fig01", "fig03", "fig04", "fig06", "fig08", "fig14", "fig15"):
        b.extend(img(k))

    b.append(("h2", "Fitting throughput with PRR and μ (Figs. 11-13)"))
    if fig13:
        head = ["group", "links", "PRR only (×10⁻²)", "15 term (×10⁻²)", "2nd order (×10⁻²)", "gain 15 term % [95 % CI]", "gain 2nd order % [95 % CI]",
                f"{cfg.folds}-fold CV: PRR only", "CV 15 term", "CV 2nd order", "CV gain 15 term % [95 % CI]", "CV gain 2nd order % [95 % CI]"]
        rows = [[r["group"], str(r["n_links"]), _fmt(100 * r["err_prr"], 2), _fmt(100 * r["err_15"], 2), _fmt(100 * r["err_2nd"], 2),
                 _ci(r["impr_15_pct"], r["impr_15_lo"], r["impr_15_hi"]), _ci(r["impr_2nd_pct"], r["impr_2nd_lo"], r["impr_2nd_hi"]),
                 _fmt(100 * r["cv_err_prr"], 2), _fmt(100 * r["cv_err_15"], 2), _fmt(100 * r["cv_err_2nd"], 2),
                 _ci(r["cv_impr_15_pct"], r["cv_impr_15_lo"], r["cv_impr_15_hi"]), _ci(r["cv_impr_2nd_pct"], r["cv_impr_2nd_lo"], r["cv_impr_2nd_hi"])] for r in fig13]
        b.append(("p", f"Least-L1 fits (`burstlab.fits`) on the intermediate links; error = mean absolute error normalised by the link packet rate ({prof.link_pps:g}/s), as in Srinivasan et al. Fig. 13. "
                       "A fit is made only with at least 2 links per coefficient, in sample and in every cross-validation training split (an L1 fit passes exactly through as many links as it has "
                       "coefficients, so with fewer it describes nothing); '–' marks a fit not made. The in-sample error flatters the 15-term fit (16 coefficients); the cross-validated columns "
                       "show what carries over to unseen links. [95 % CI]: percentile bootstrap over links of the paired errors, so a reader sees whether μ helps on these data: "
                       "an interval that includes 0 means it may not. Table: [`fig13.csv`](fig13.csv)."))
        b.append(("table", (head, rows)))
    for n in fit_notes:
        b.append(("p", f"No fit: {n}."))
    for k in sorted(x for x in figs if x.startswith(("fig11", "fig12"))):
        b.extend(img(k))

    b.append(("h2", "Convergence of μ (Figs. 16-18)"))
    b.append(("p", f"Median RMS deviation of {cfg.chunk}-packet-chunk μ from the whole-trace μ: {_fmt(s['median_chunk_rms_mu'], 3)} (Srinivasan et al. §8: 6000-packet chunks are not enough for μ to converge)."))
    for k in ("fig16", "fig17", "fig18"):
        b.extend(img(k))

    b.append(("h2", "Gilbert-Elliott links with the same PRR and μ (Figs. 19, 20)"))
    b.append(("p", f"GE links within 10 % of the link's throughput: {_pct(s['ge_within_10pct'])} of links; GE below the link: {_pct(s['ge_below_empirical'])}. "
                   f"The longest success run any GE link produced: {_fmt(s['ge_longest_run_overall'], 0)} packets; "
                   f"{_pct(s['links_with_runs_beyond_ge_longest'])} of the links have a longer one (Srinivasan et al. §9.2: about 50 % of Mirage ch. 26 links)."))
    for k in ("fig19", "fig20"):
        b.extend(img(k))
    for n in info.get("figure_notes", []):
        b.append(("p", f"Not drawn: {n}."))
    if "provenance" in info:
        b += provenance.blocks(info["provenance"], _cli_args(cfg), out)
    return b


def _cli_args(cfg: Any) -> list[str]:
    a = ["--quick"] if cfg.quick else []
    if cfg.dataset == "traces":
        a += ["--traces", str(cfg.traces_dir)] + (["--format", cfg.fmt] if cfg.fmt else [])
        if cfg.traces_expected:
            a += ["--expected", str(cfg.traces_expected)]
        if cfg.traces_drop_beyond:
            a += ["--drop-beyond"]
        if cfg.traces_one_means != "received":
            a += ["--one-means", cfg.traces_one_means]
    else:
        a += ["--dataset", cfg.dataset]
    a += ["--profile", cfg.profile_name, "--tcp-profile", cfg.tcp_profile, "--seeds", str(cfg.replicates), "--seed", str(cfg.seed)]
    if cfg.tcp_variant != "newreno":
        a += ["--tcp", cfg.tcp_variant]
    if cfg.tcp_profile == "rfc":
        a += ["--rto-backoff-reset", cfg.rto_backoff_reset]
    if cfg.dataset == "synthetic":
        a += ["--links", str(cfg.n_links), "--slots", str(cfg.n_slots)]
    if cfg.dataset == "tossim":
        from burstlab.datasets.tossim import DEFAULT_SEGMENT

        if cfg.tossim_noise_files:
            a += ["--noise", ",".join(cfg.tossim_noise_files)]
        if cfg.tossim_signal_dbm:
            a += ["--signal-dbm", ",".join(f"{x:g}" for x in cfg.tossim_signal_dbm)]
        elif cfg.tossim_targets:
            a += ["--targets", ",".join(f"{x:g}" for x in cfg.tossim_targets)]
        if cfg.tossim_segment != DEFAULT_SEGMENT:
            a += ["--segment", str(cfg.tossim_segment or 0)]
    if cfg.dataset == "rutgers" and cfg.rutgers_noise:
        a += ["--noise", ",".join(cfg.rutgers_noise)]
    if cfg.dataset == "starlink" and cfg.timing != "slots":
        a += ["--timing", cfg.timing]
    if cfg.subsample > 1:
        a += ["--subsample", str(cfg.subsample)]
    if tuple(cfg.prr_range) != (0.1, 0.9):
        a += ["--prr-range", f"{cfg.prr_range[0]:g}", f"{cfg.prr_range[1]:g}"]
    if tuple(cfg.fit_range) != (0.2, 0.6):
        a += ["--fit-range", f"{cfg.fit_range[0]:g}", f"{cfg.fit_range[1]:g}"]
    if cfg.folds != 5:
        a += ["--folds", str(cfg.folds)]
    if cfg.ack_path != "lossless":
        a += ["--ack-path", cfg.ack_path]
    if cfg.max_links:
        a += ["--max-links", str(cfg.max_links)]
    return a


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
