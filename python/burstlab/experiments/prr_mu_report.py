"""Tables, fits, figures and the one-page report of the PRR/μ study
(:mod:`burstlab.experiments.prr_mu`).

Outputs under the study folder:

- ``store.duckdb``: table ``runs`` (one row per link × condition × replicate, the store),
  tables ``links`` (one row per link) and ``results`` (the links in the fit range, with the
  columns ``group``, ``prr``, ``mu``, ``throughput_pps``, ``link_pps`` that
  ``burstlab fit-throughput`` reads);
- ``links.csv``, ``results.csv``, ``fig13.csv``, ``summary.json``;
- ``figures/figNN-*.png`` and ``.pdf``;
- ``report.md`` and ``report.html`` (the same content), linking all of the above.
"""

from __future__ import annotations

import html as htmlmod
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from burstlab import __version__
from burstlab._util import json_safe
from burstlab.io import atomic_write, atomic_write_text
from burstlab.store import ResultStore

# (key, title) of the fits in the order of Srinivasan et al. Fig. 13.
FITS = (("prr", "PRR only"), ("fifteen", "PRR and μ, 15 terms"), ("second_order", "PRR and μ, 2nd order"))


def write_csv(path: Path, rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None) -> None:
    """Write rows as CSV atomically (pyarrow; None/NaN → empty)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    cols = list(columns or (rows[0].keys() if rows else []))
    table = pa.table({c: [json_safe(r.get(c)) for r in rows] for c in cols}) if rows else pa.table({c: pa.array([], pa.string()) for c in cols})
    atomic_write(path, lambda tmp: pacsv.write_csv(table, tmp))


def _replace_table(store: ResultStore, name: str, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> None:
    import pyarrow as pa

    con = store.connection
    t = pa.table({c: [json_safe(r.get(c)) for r in rows] for c in columns})
    con.register("_tmp_tab", t)
    try:
        con.execute("BEGIN TRANSACTION")
        con.execute(f'CREATE OR REPLACE TABLE "{name}" AS SELECT * FROM _tmp_tab')
        con.execute("COMMIT")
    finally:
        con.unregister("_tmp_tab")


# --------------------------------------------------------------------------------------
# fits (burstlab.fits, Srinivasan et al. §7)
# --------------------------------------------------------------------------------------
def fit_group(group: str, rows: Sequence[dict[str, Any]], folds: int, seed: int) -> dict[str, Any]:
    """The three least-L1 fits on one group's links (in-sample and k-fold CV), via
    :func:`burstlab.fits.fig13_row`; errors are mean absolute errors normalised by the link
    packet rate. Also the fitted estimates of the PRR-only and second-order fits (Figs. 11-12)."""
    from burstlab import fits

    prr = np.array([r["prr"] for r in rows], dtype=float)
    mu = np.array([r["mu"] for r in rows], dtype=float)
    thr = np.array([r["throughput_pps"] for r in rows], dtype=float)
    link_pps = float(rows[0]["link_pps"])
    row = fits.fig13_row(prr, mu, thr, group=group, link_pps=link_pps, folds=folds, seed=seed, feature_sets=tuple(k for k, _ in FITS))
    pred = {k: fits.ThroughputFit(k, link_pps).fit(prr, mu, thr).predict(prr, mu) for k in ("prr", "second_order")}
    return {"n": row.n, "link_pps": link_pps, "row": row, "actual": thr, "predicted": pred, "link_ids": [r["link_id"] for r in rows]}


def fig13_rows(fitted: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The Fig. 13 table: per group, normalised errors and % improvement over PRR only,
    in sample and k-fold cross-validated (from :class:`burstlab.fits.Fig13Row`)."""
    rows = []
    for group, f in fitted.items():
        r = f["row"]
        e, cv = r.error, r.cv_error
        rows.append(
            {
                "group": group,
                "n_links": r.n,
                "link_pps": r.link_pps,
                "folds": r.folds,
                "err_prr": e["prr"],
                "err_15": e["fifteen"],
                "err_2nd": e["second_order"],
                "impr_15_pct": r.improvement("fifteen"),
                "impr_2nd_pct": r.improvement("second_order"),
                "cv_err_prr": cv["prr"],
                "cv_err_15": cv["fifteen"],
                "cv_err_2nd": cv["second_order"],
                "cv_impr_15_pct": r.improvement("fifteen", cv=True),
                "cv_impr_2nd_pct": r.improvement("second_order", cv=True),
            }
        )
    return rows


# --------------------------------------------------------------------------------------
# summary numbers
# --------------------------------------------------------------------------------------
def _spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    from scipy.stats import spearmanr

    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return None
    r = spearmanr(x[ok], y[ok]).statistic
    return None if not np.isfinite(r) else float(r)


def _f(rows: Sequence[dict[str, Any]], key: str) -> np.ndarray:
    return np.array([np.nan if r.get(key) is None else float(r[key]) for r in rows], dtype=float)


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
    tmo = _f(emp, "timeouts")
    dur = _f(emp, "sim_duration")
    return {
        "median_timeouts_per_100s": float(np.nanmedian(100.0 * tmo / dur)) if np.isfinite(tmo).any() else None,
        "n_links": len(links),
        "n_intermediate": len(inter),
        "median_length": float(np.median(lengths)) if len(lengths) else None,
        "median_diff_pct": float(np.nanmedian(d)) if np.isfinite(d).any() else None,
        "median_diff_pct_intermediate": float(np.nanmedian(di)) if np.isfinite(di).any() else None,
        "spearman_diff_mu": _spearman(_f(links, "mu"), d),
        "spearman_diff_mu_intermediate": _spearman(_f(inter, "mu"), di),
        "ge_within_10pct": within,
        "ge_below_empirical": below,
        "ge_longest_run_overall": ge_longest,
        "links_with_runs_beyond_ge_longest": beyond,
        "median_chunk_rms_mu": float(np.nanmedian(_f(links, "chunk_rms_mu"))) if np.isfinite(_f(links, "chunk_rms_mu")).any() else None,
    }


# --------------------------------------------------------------------------------------
# the report: one list of blocks rendered to Markdown and to HTML
# --------------------------------------------------------------------------------------
Block = tuple[str, Any]


def _fmt(v: Any, nd: int = 3) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def render_md(blocks: Sequence[Block]) -> str:
    out = []
    for kind, b in blocks:
        if kind == "h1":
            out.append(f"# {b}\n")
        elif kind == "h2":
            out.append(f"## {b}\n")
        elif kind == "p":
            out.append(f"{b}\n")
        elif kind == "ul":
            out.append("\n".join(f"- {x}" for x in b) + "\n")
        elif kind == "table":
            head, rows = b
            out.append("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n" + "\n".join("| " + " | ".join(r) + " |" for r in rows) + "\n")
        elif kind == "img":
            src, alt = b
            out.append(f"![{alt}]({src})  \n[PDF]({src[:-4]}.pdf)\n")
    return "\n".join(out)


def _inline_html(s: str) -> str:
    """Escape, then turn the Markdown links/code used in the report's text into HTML."""
    import re

    e = htmlmod.escape(s)
    e = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r'<a href="\2">\1</a>', e)
    e = re.sub(r"`([^`]+)`", r"<code>\1</code>", e)
    e = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", e)
    return e


def render_html(blocks: Sequence[Block], title: str) -> str:
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>{htmlmod.escape(title)}</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}"
        "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}"
        "img{max-width:32em;display:block}figure{display:inline-block;margin:0.5em}</style></head><body>",
    ]
    for kind, b in blocks:
        if kind in ("h1", "h2"):
            parts.append(f"<{kind}>{_inline_html(b)}</{kind}>")
        elif kind == "p":
            parts.append(f"<p>{_inline_html(b)}</p>")
        elif kind == "ul":
            parts.append("<ul>" + "".join(f"<li>{_inline_html(x)}</li>" for x in b) + "</ul>")
        elif kind == "table":
            head, rows = b
            parts.append("<table><tr>" + "".join(f"<th>{_inline_html(h)}</th>" for h in head) + "</tr>")
            parts.extend("<tr>" + "".join(f"<td>{_inline_html(c)}</td>" for c in r) + "</tr>" for r in rows)
            parts.append("</table>")
        elif kind == "img":
            src, alt = b
            parts.append(f"<figure><img src='{htmlmod.escape(src)}' alt='{htmlmod.escape(alt)}'><figcaption>{_inline_html(alt)} (<a href='{htmlmod.escape(src[:-4])}.pdf'>PDF</a>)</figcaption></figure>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _fig4_pair(cfg: Any, study_links: Sequence[Any], links: Sequence[dict[str, Any]]) -> list[Any] | None:
    """Two links with PRR within 0.02 of each other and the largest throughput ratio."""
    best = None
    rows = sorted((r for r in links if r["throughput_pps"] and r["throughput_pps"] > 0), key=lambda r: r["prr"])
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            if b["prr"] - a["prr"] > 0.02:
                break
            hi, lo = (a, b) if a["throughput_pps"] >= b["throughput_pps"] else (b, a)
            ratio = hi["throughput_pps"] / lo["throughput_pps"]
            if best is None or ratio > best[0]:
                best = (ratio, hi, lo)
    if best is None:
        return None
    by_id = {lk.link_id: lk for lk in study_links}
    out = []
    for r in best[1:]:
        st = by_id[r["link_id"]].stats
        out.append((r["link_id"], r["prr"], r["throughput_pps"], st.loss_bursts.lengths.astype(float), st.loss_bursts.counts.astype(float)))
    return out


def _representative(links: Sequence[dict[str, Any]], k: int = 5) -> list[dict[str, Any]]:
    """Up to k links spread over μ (quantiles of μ), preferring intermediate links."""
    pool = [r for r in links if r["intermediate"]] or list(links)
    pool = sorted(pool, key=lambda r: (r["mu"], r["link_id"]))
    if len(pool) <= k:
        return pool
    idx = sorted({int(round(q * (len(pool) - 1))) for q in np.linspace(0, 1, k)})
    return [pool[i] for i in idx]


def write_outputs(cfg: Any, out: Path, store: ResultStore, study_links: Sequence[Any], runs: Sequence[dict[str, Any]], excluded: dict[str, int]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Path], Path, Path]:
    """Write every table, figure and the report; returns (links, fig13, figures, md, html)."""
    from burstlab import plot as P
    from burstlab.experiments.prr_mu import link_table, write_json

    label = "synthetic testbed" if cfg.dataset == "synthetic" else {"rutgers": "Rutgers 802.11 links", "tossim": "TOSSIM-noise-derived links", "traces": f"traces in {cfg.traces_dir}"}[cfg.dataset]
    links = link_table(cfg, study_links, runs)
    link_cols = list(links[0].keys())
    res_cols = ["group", "link_id", "subgroup", "synthetic", "prr", "mu", "throughput_pps", "link_pps", "independent_pps", "ge_pps", "diff_pct"]
    lo, hi = cfg.fit_range
    results = [r for r in links if r["intermediate"] and r["throughput_pps"] is not None]
    write_csv(out / "links.csv", links, link_cols)
    write_csv(out / "results.csv", results, res_cols)
    _replace_table(store, "links", links, link_cols)
    _replace_table(store, "results", results, res_cols)

    # fits per group (Srinivasan et al. §7): only groups with more links than the 15-term fit has terms
    fitted: dict[str, dict[str, Any]] = {}
    fit_notes: list[str] = []
    for g in sorted({r["group"] for r in results}):
        rows = [r for r in results if r["group"] == g]
        if len(rows) < 2 * cfg.folds or len(rows) <= 16:
            fit_notes.append(f"group {g}: only {len(rows)} links in the fit range {lo:g}-{hi:g}; fits need more than 16 (the 15-term fit has 16 coefficients) and at least {2 * cfg.folds} for {cfg.folds}-fold CV")
            continue
        fitted[g] = fit_group(g, rows, cfg.folds, cfg.seed)
    fig13 = fig13_rows(fitted)
    write_csv(out / "fig13.csv", fig13, list(fig13[0].keys()) if fig13 else ["group"])

    figdir = out / "figures"
    figs: dict[str, Path] = {}
    figs["fig03"] = P.save_figure(P.fig03_throughput_vs_prr(links, label), figdir, "fig03-throughput-vs-prr")
    pair = _fig4_pair(cfg, study_links, links)
    if pair:
        figs["fig04"] = P.save_figure(P.fig04_burst_cdf(pair, label), figdir, "fig04-loss-burst-cdf")
    figs["fig06"] = P.save_figure(P.fig06_diff_vs_mu(links, label, f"Difference vs μ, PRR {cfg.prr_range[0]:g}-{cfg.prr_range[1]:g}"), figdir, "fig06-diff-vs-mu-all")
    figs["fig08"] = P.save_figure(P.fig06_diff_vs_mu([r for r in links if r["intermediate"]], label, f"Difference vs μ, PRR {lo:g}-{hi:g}"), figdir, "fig08-diff-vs-mu-intermediate")
    for g, f in fitted.items():
        act = f["actual"]
        figs[f"fig11-{g}"] = P.save_figure(P.fig_fit(act, f["predicted"]["prr"], f"{label}, {g}", "Best PRR-only fit"), figdir, f"fig11-fit-prr-{g}")
        figs[f"fig12-{g}"] = P.save_figure(P.fig_fit(act, f["predicted"]["second_order"], f"{label}, {g}", "Best 2nd-order fit in PRR and μ"), figdir, f"fig12-fit-2nd-order-{g}")
    figs["fig16"] = P.save_figure(P.fig16_chunk_rms(links, cfg.chunk, label), figdir, "fig16-chunk-rms-mu")
    by_id = {lk.link_id: lk for lk in study_links}
    curves = []
    for r in _representative(links):
        st = by_id[r["link_id"]].stats
        curves.append((f"{r['link_id']} (PRR {r['prr']:.2f})", st.prefix_lengths.astype(float), st.prefix_mu))
    figs["fig17"] = P.save_figure(P.fig17_convergence(curves, label), figdir, "fig17-mu-convergence")
    figs["fig19"] = P.save_figure(P.fig19_ge_vs_empirical(links, cfg.prof.link_pps, label), figdir, "fig19-ge-vs-empirical")
    figs["fig20"] = P.save_figure(P.fig20_longest_runs(links, label), figdir, "fig20-longest-success-runs")

    summary = summarise(cfg, links, runs)
    write_json(out / "summary.json", {"config": cfg.to_dict(), "burstlab_version": __version__, "excluded": excluded, "summary": json_safe(summary), "fig13": json_safe(fig13), "fit_notes": fit_notes})

    blocks = build_report(cfg, label, links, runs, excluded, summary, fig13, fit_notes, figs, out, dataset_notes(cfg, study_links))
    md = out / "report.md"
    html = out / "report.html"
    atomic_write_text(md, render_md(blocks))
    atomic_write_text(html, render_html(blocks, f"burstlab PRR/μ study: {label}"))
    return links, fig13, figs, md, html


def dataset_notes(cfg: Any, study_links: Sequence[Any]) -> list[str]:
    """What the report must say about where the links came from."""
    notes: list[str] = []
    if cfg.dataset == "tossim":
        sig = [float(lk.trace.meta["signal_dbm"]) for lk in study_links if "signal_dbm" in lk.trace.meta]
        clean = sorted({str(lk.trace.meta.get("cleaning")) for lk in study_links if lk.trace.meta.get("cleaning")})
        notes.append(
            "Links derived from the TOSSIM noise traces (`burstlab.datasets.tossim`): each noise sample n becomes one slot, received with "
            "probability PRR(S − n) from the CC2420 curve of TinyOS's CPM model (`tos/lib/tossim/CpmModelC.nc`, `prr_estimate_from_snr`: "
            "(1 − ½·erfc(1.3687·√(|10^(SNR/10) − 0.9187|/2)))^46), drawn with a seeded RNG; the signal strength S of each link is solved so that its "
            f"expected PRR hits a target (S from {min(sig):.2f} to {max(sig):.2f} dBm)." if sig else "Links derived from the TOSSIM noise traces."
        )
        notes.extend(f"Noise file cleaning: {c}." for c in clean)
    elif cfg.dataset == "rutgers":
        notes.append("Rutgers ORBIT 802.11 links (CRAWDAD rutgers/noise, DOI 10.15783/C7B59W; `burstlab.datasets.rutgers`): one trace per directed link and injected-noise level, 301 frames (seq 0..300); the files record no timing, so the slot is the profile's.")
    elif cfg.dataset == "traces":
        notes.append(f"Traces read from `{cfg.traces_dir}`" + (f" as `{cfg.fmt}`." if cfg.fmt else " (format auto-detected)."))
    return notes


def subgroup_rows(links: Sequence[dict[str, Any]]) -> list[list[str]]:
    """Per subgroup (synthetic link kind, noise file, noise level): medians of the link table."""
    out = []
    for sg in sorted({r["subgroup"] for r in links}):
        rs = [r for r in links if r["subgroup"] == sg]
        med = lambda k: float(np.nanmedian(_f(rs, k))) if np.isfinite(_f(rs, k)).any() else None  # noqa: E731
        out.append([sg or "–", str(len(rs)), _fmt(med("prr"), 2), _fmt(med("mu"), 2), _fmt(med("throughput_pps"), 3), _fmt(med("independent_pps"), 3), _fmt(med("diff_pct"), 1), _fmt(med("ge_pps"), 3), _fmt(med("max_success_run"), 0), _fmt(med("ge_max_success_run"), 0)])
    return out


def build_report(cfg: Any, label: str, links: Sequence[dict[str, Any]], runs: Sequence[dict[str, Any]], excluded: dict[str, int], s: dict[str, Any], fig13: Sequence[dict[str, Any]], fit_notes: Sequence[str], figs: dict[str, Path], out: Path, notes: Sequence[str] = ()) -> list[Block]:
    prof = cfg.prof
    b: list[Block] = [("h1", f"PRR is not enough: the PRR/μ study on the {label}")]
    if cfg.dataset == "synthetic":
        b.append(("p", "**Synthetic data.** Every link below was generated by burstlab's own loss models (the built-in synthetic testbed, "
                       f"{cfg.n_links} links × {cfg.n_slots} slots, testbed seed {cfg.testbed_seed}: Bernoulli, Gilbert-Elliott and heavy-tailed "
                       "success-run links from the run-length model; `burstlab.datasets.synthetic`). No number here is a measurement of a real network."))
    b.append(("p", f"burstlab {__version__}; method of Srinivasan et al. (\"PRR is not enough\"): TCP NewReno in slotted trace-driven mode over each link's "
                   f"trace (a), over {cfg.replicates} independent links with the same PRR and length (b) and over {cfg.replicates} Gilbert-Elliott links with the same PRR and μ (c)."))
    b.append(("ul", [
        f"profile `{prof.name}` (Srinivasan et al. §3.1-3.2): {prof.slot * 1000:g} ms slots ({prof.link_pps:g} link packets/s), RTO {prof.rto_min:g}-{prof.rto_max:g} s, ACK timeout {prof.ack_timeout * 1000:g} ms, max window {prof.max_cwnd} packets; ACK path: {cfg.ack_path}; backed-off RTO reset: {cfg.rto_backoff_reset}",
        f"links simulated: {s['n_links']} with PRR in {cfg.prr_range[0]:g}-{cfg.prr_range[1]:g} and μ defined; {s['n_intermediate']} intermediate (PRR {cfg.fit_range[0]:g}-{cfg.fit_range[1]:g}) go into the fits; median trace length {_fmt(s['median_length'], 0)} packets",
        "left out: " + (", ".join(f"{v} ({k})" for k, v in sorted(excluded.items())) or "none"),
        f"{len(runs)} simulations, study seed {cfg.seed}; results store [`store.duckdb`](store.duckdb) (table `runs`, one row per link × condition × replicate, keyed by the hash of its full configuration), per-link table [`links.csv`](links.csv), fit input [`results.csv`](results.csv) (`burstlab fit-throughput results.csv`), [`summary.json`](summary.json)",
    ]))
    for n in notes:
        b.append(("p", n))
    if cfg.dataset == "rutgers":
        b.append(("p", f"**Caveat: these traces are far too short for μ to converge.** Each Rutgers link has about 301 packets; Srinivasan et al. §8 finds that even 6000 packets are not enough (μ levels off only after 10,000-40,000 packets), and it omits its own 3000-packet Roofnet traces for that reason. Every μ here, and every fit that uses μ, carries that uncertainty; the chunk-μ RMS (Fig. 16) cannot even be computed with {cfg.chunk}-packet chunks."))

    b.append(("h2", "Burstiness and TCP throughput (Figs. 3, 4, 6, 8)"))
    b.append(("p", f"Median throughput difference of the link against its independent counterpart: {_fmt(s['median_diff_pct'], 1)} % over all simulated links, "
                   f"{_fmt(s['median_diff_pct_intermediate'], 1)} % over intermediate links. Spearman correlation of that difference with μ: "
                   f"{_fmt(s['spearman_diff_mu'], 2)} (all), {_fmt(s['spearman_diff_mu_intermediate'], 2)} (intermediate); Srinivasan et al. §6 reports that throughput rises with μ."))
    b.append(("p", f"Retransmission timeouts on the links themselves: median {_fmt(s['median_timeouts_per_100s'], 1)} per 100 s of simulated time. "
                   + ("With RFC 6298's exponential backoff and Karn's rule (no RTT sample from an ACK covering a retransmission), a link that loses a "
                    "segment of almost every small window never gets a valid sample, so its RTO climbs to the upper bound and throughput collapses "
                    "(see `docs/study.md`; `--rto-backoff-reset new_ack` resets it on any new ACK, as ns-3 and Linux do)."
                    if cfg.rto_backoff_reset == "sample" else "The backed-off RTO is recomputed on any ACK of new data (ns-3/Linux behaviour).")))
    b.append(("p", "Medians per kind of link (throughput in packets/s; runs in packets):"))
    b.append(("table", (["kind", "links", "PRR", "μ", "link", "independent", "difference %", "GE", "longest run", "longest GE run"], subgroup_rows(links))))
    for k, alt in (("fig03", "Fig. 3: throughput vs PRR"), ("fig04", "Fig. 4: loss bursts of two links with the same PRR"), ("fig06", "Fig. 6: throughput difference vs μ"), ("fig08", "Fig. 8: throughput difference vs μ, intermediate links")):
        if k in figs:
            b.append(("img", (str(figs[k].relative_to(out)), alt)))

    b.append(("h2", "Fitting throughput with PRR and μ (Figs. 11-13)"))
    if fig13:
        head = ["group", "links", "PRR only (×10⁻²)", "15 term (×10⁻²)", "2nd order (×10⁻²)", "% impr. 15 term", "% impr. 2nd order", f"{cfg.folds}-fold CV: PRR only", "CV 15 term", "CV 2nd order", "CV % impr. 15", "CV % impr. 2nd"]
        rows = [[r["group"], str(r["n_links"]), _fmt(100 * r["err_prr"], 2), _fmt(100 * r["err_15"], 2), _fmt(100 * r["err_2nd"], 2), _fmt(r["impr_15_pct"], 1), _fmt(r["impr_2nd_pct"], 1),
                 _fmt(100 * r["cv_err_prr"], 2), _fmt(100 * r["cv_err_15"], 2), _fmt(100 * r["cv_err_2nd"], 2), _fmt(r["cv_impr_15_pct"], 1), _fmt(r["cv_impr_2nd_pct"], 1)] for r in fig13]
        b.append(("p", f"Least-L1 fits (`burstlab.fits`) on the intermediate links; error = mean absolute error normalised by the link packet rate ({prof.link_pps:g}/s), as in Srinivasan et al. Fig. 13. "
                       "The in-sample error flatters the 15-term fit (16 coefficients); the cross-validated columns show what carries over to unseen links. Table: [`fig13.csv`](fig13.csv)."))
        b.append(("table", (head, rows)))
    for n in fit_notes:
        b.append(("p", f"No fit: {n}."))
    for k in sorted(x for x in figs if x.startswith(("fig11", "fig12"))):
        b.append(("img", (str(figs[k].relative_to(out)), ("Fig. 11: PRR-only fit" if k.startswith("fig11") else "Fig. 12: second-order fit") + f" ({k.split('-', 1)[1]})")))

    b.append(("h2", "Convergence of μ (Figs. 16, 17)"))
    b.append(("p", f"Median RMS deviation of {cfg.chunk}-packet-chunk μ from the whole-trace μ: {_fmt(s['median_chunk_rms_mu'], 3)} (Srinivasan et al. §8: 6000-packet chunks are not enough for μ to converge)."))
    for k, alt in (("fig16", "Fig. 16: chunk-μ RMS vs μ"), ("fig17", "Fig. 17: μ of the first n packets")):
        b.append(("img", (str(figs[k].relative_to(out)), alt)))

    b.append(("h2", "Gilbert-Elliott links with the same PRR and μ (Figs. 19, 20)"))
    b.append(("p", f"GE links within 10 % of the link's throughput: {_fmt(None if s['ge_within_10pct'] is None else 100 * s['ge_within_10pct'], 0)} % of links; GE below the link: "
                   f"{_fmt(None if s['ge_below_empirical'] is None else 100 * s['ge_below_empirical'], 0)} %. The longest success run any GE link produced: {_fmt(s['ge_longest_run_overall'], 0)} packets; "
                   f"{_fmt(None if s['links_with_runs_beyond_ge_longest'] is None else 100 * s['links_with_runs_beyond_ge_longest'], 0)} % of the links have a longer one (Srinivasan et al. §9.2: about 50 % of Mirage ch. 26 links)."))
    for k, alt in (("fig19", "Fig. 19: GE vs empirical throughput"), ("fig20", "Fig. 20: longest success runs")):
        b.append(("img", (str(figs[k].relative_to(out)), alt)))
    b.append(("h2", "Reproduce"))
    b.append(("p", "`burstlab study prr-mu " + " ".join(_cli_args(cfg)) + f" --out {out}` (re-running skips every finished simulation; the configuration is in [`summary.json`](summary.json))."))
    return b


def _cli_args(cfg: Any) -> list[str]:
    a = []
    if cfg.dataset == "traces":
        a += ["--traces", str(cfg.traces_dir)] + (["--format", cfg.fmt] if cfg.fmt else [])
    else:
        a += ["--dataset", cfg.dataset]
    a += ["--profile", cfg.profile_name, "--seeds", str(cfg.replicates), "--seed", str(cfg.seed), "--rto-backoff-reset", cfg.rto_backoff_reset]
    if cfg.dataset == "synthetic":
        a += ["--links", str(cfg.n_links), "--slots", str(cfg.n_slots)]
    if cfg.dataset == "tossim":
        from burstlab.datasets.tossim import DEFAULT_SEGMENT

        if cfg.tossim_signal_dbm:
            a += ["--signal-dbm", ",".join(f"{x:g}" for x in cfg.tossim_signal_dbm)]
        elif cfg.tossim_targets:
            a += ["--targets", ",".join(f"{x:g}" for x in cfg.tossim_targets)]
        if cfg.tossim_segment != DEFAULT_SEGMENT:
            a += ["--segment", str(cfg.tossim_segment or 0)]
    if cfg.dataset == "rutgers" and cfg.rutgers_noise:
        a += ["--noise", ",".join(cfg.rutgers_noise)]
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
