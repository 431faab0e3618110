"""The fits and figures of the PRR/μ study (:mod:`burstlab.experiments.prr_mu`), split from
its report (:mod:`burstlab.experiments.prr_mu_report`): the least-L1 fits of each group
(Srinivasan et al. §7) and every figure, described as jobs, run together on worker
processes and kept while their inputs are current (``.cache/fits.json``,
``figures/index.json``).
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
from burstlab.io import atomic_write_text
from burstlab.experiments.prr_mu_inputs import CONVERGENCE_LENGTH
from burstlab.sweep import run_tasks

#: The package's own directory (the sources of the fits and figures, digested into their cache keys).
_PACKAGE = Path(__file__).parent.parent

FITS = (("prr", "PRR only"), ("fifteen", "PRR and μ, 15 terms"), ("second_order", "PRR and μ, 2nd order"))


def _fit_rows(links: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in links if r["intermediate"] and r["throughput_pps"] is not None]


def _f(rows: Sequence[dict[str, Any]], key: str) -> np.ndarray:
    return np.array([np.nan if r.get(key) is None else float(r[key]) for r in rows], dtype=float)


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
    ``figures/index.json``. Returns (fits by group, figure key → path of the first format's file); the captions and
    notes on figures not drawn go to ``info["figure_alt"]`` and ``info["figure_notes"]``."""
    folder = out / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    fmts = tuple(dict.fromkeys(formats or ("png",)))  # the report shows the first
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
    return fitted, {j.key: folder / f"{j.stem}.{fmts[0]}" for j in jobs}
