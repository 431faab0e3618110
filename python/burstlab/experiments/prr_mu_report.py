"""Tables and the one-page report of the PRR/μ study (:mod:`burstlab.experiments.prr_mu`);
its fits and figures are :mod:`burstlab.experiments.prr_mu_figures`.

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

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from burstlab._core import __version__
from burstlab._util import json_safe
from burstlab.datasets.registry import get
from burstlab.io import atomic_write_text
from burstlab.experiments import prr_mu_claims
from burstlab.experiments.prr_mu_figures import _f, _fit_rows, equal_prr_spread, fig13_rows
from burstlab.experiments.prr_mu_inputs import CONVERGENCE_LENGTH, StudyLink
from burstlab.experiments.prr_mu_settings import StudyConfig
from burstlab.store import ResultStore
from burstlab.study import provenance
from burstlab.study.blocks import claims_section, preamble
from burstlab.study.report import Block, render_html, render_md, write_csv  # noqa: F401  (re-exported: the other studies and link_report use them)
from burstlab.study.report import replace_table as _replace_table
from burstlab.study.verdict import COLUMNS, claim_rows, tally

# (key, title) of the fits in the order of Srinivasan et al. Fig. 13.
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


def _med(a: np.ndarray) -> float | None:
    return float(np.nanmedian(a)) if np.isfinite(a).any() else None


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

    b: list[Block] = preamble(f"PRR is not enough: the PRR/μ study on the {label}",
                              quick=f"{cfg.replicates} seeds per synthetic condition and fewer, shorter links" if cfg.quick else None)  # fmt: skip
    if cfg.dataset == "synthetic":
        b.append(("p", "**Synthetic data.** Every link below was generated by burstlab's own loss models (the built-in synthetic testbed, "
                       f"{cfg.n_links} links × {cfg.n_slots} slots, testbed seed {cfg.testbed_seed}: Bernoulli, Gilbert-Elliott and heavy-tailed "
                       "success-run links from the run-length model; `burstlab.datasets.synthetic`). No number here is a measurement of a real network."))
    b.append(("p", f"burstlab {__version__}; method of Srinivasan et al. (\"PRR Is Not Enough\"): TCP NewReno in slotted trace-driven mode over each link's "
                   f"trace (a), over {cfg.replicates} independent links with the same PRR and length (b) and over {cfg.replicates} Gilbert-Elliott links with the same PRR and μ (c)."))
    b.append(("ul", [
        f"profile `{prof.name}` (Srinivasan et al. §3.1-3.2): {prof.slot * 1000:g} ms slots ({prof.link_pps:g} link packets/s), RTO {prof.rto_min:g}-{prof.rto_max:g} s, ACK timeout {prof.ack_timeout * 1000:g} ms, max window {prof.max_cwnd} packets; ACK path: {cfg.ack_path}; sender queue: {cfg.sender_queue}",
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
    if cfg.sender_queue != StudyConfig.sender_queue:
        a += ["--sender-queue", cfg.sender_queue]
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
