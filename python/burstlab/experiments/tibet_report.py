"""Tables, figures and the report of the TIBET study (:mod:`burstlab.experiments.tibet`,
Martignon & Capone).

Outputs under the study folder:

- ``store.duckdb``: table ``runs`` (one row per cell × replicate) and ``cells`` (one row per
  cell: its parameters, goodput mean/sd/95 % CI and the mechanism counters);
- ``cells.csv``, ``claims.csv``, ``sensitivity.csv``, ``summary.json``;
- ``figures/``: ``fig02-fairness-2mbps``, ``fig03-fairness-10mbps``, ``fig04-goodput-2mbps``,
  ``fig05-goodput-10mbps``, ``fig06-goodput-rtt``, ``fig08-correlated-losses``,
  ``fig09-closed-forms``, ``fig11-model-rtt100``, ``fig12-model-rtt400``,
  ``sensitivity-fairness-model``, ``sensitivity-gains`` (PNG; PDF too with ``formats``);
- ``report.md`` and ``report.html`` (the same content).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from burstlab._core import __version__
from burstlab.experiments import tibet_claims as TC
from burstlab.experiments.common import (
    Ratio,
    FigureJob,
    draw_figures,
    img_block,
    mean_ci,
    paired_difference,
    show_param,
    write_json,
    write_report,
    write_tables,
)
from burstlab.experiments.tibet import (
    CCS,
    FAIR_RATES,
    FIG6_P,
    FIG6_RATE,
    FIG8_RATE,
    LABEL,
    MARKOV,
    MODEL_RANGE,
    MODEL_RTTS,
    N_FLOWS,
    PAPER_CCS,
    READING_LABEL,
    READINGS,
    SINGLE_RATES,
    WIRED_RATE,
    WIRELESS_DELAY,
    CellStats,
    Env,
    StudyConfig,
    bernoulli_cell,
    buffer_packets,
    cell_stats,
    closed_form,
    environments,
    fairness_cell,
    fairness_mechanism,
    replicate_seed,
)
from burstlab.store import ResultStore
from burstlab.study import estimate as E
from burstlab.study import provenance, settings
from burstlab.study.blocks import claims_section, preamble, replicates_sentence
from burstlab.study.prose import compare_ratio, direction
from burstlab.study.report import Block
from burstlab.study.verdict import SettingVerdicts, Verdict, claim_rows, tally

#: Figs. 2-3 (issue 11's reading of "very close to the fair share"): each kind within ±10 %.
FAIR_TOL = 0.10
#: Figs. 11-12 (issue 11's reading of "predicts quite well"): within ±20 % of eq. 3.
MODEL_TOL = 0.20

PARAM_LABEL = {
    "reading": "\"one-way RTT is 50 ms\"", "recovery": "loss recovery", "rto_min": "minimum RTO (s)", "buffer_bdp": "buffer (BDP)",
    "rwnd": "receiver window (segments)", "delayed_ack": "delayed ACKs", "init_cwnd": "initial window (segments)", "duration": "run length (s)",
    "start_spread": "Figs. 2-3 start spread (s)", "access_delay": "Figs. 2-3 access delay (ms)", "wireless_rate": "Figs. 11-12 wireless rate (Mb/s)",
    "mss": "MSS (bytes)", "warmup": "warm-up (s)",
}  # fmt: skip
_COLOR = {"reno": "#c44e52", "tibet": "#4c72b0", "ideal": "#55a868", "westwood": "#8172b2", "vegas": "#937860"}


def show(name: str, v: Any) -> str:
    """A parameter value as the tables print it (Mb/s, ms, how the delay is read)."""
    return show_param(name, v, per={"wireless_rate": 1e6, "access_delay": 1e-3}, words={"reading": {"one-way": "50 ms one way", "rtt": "RTT 50 ms"}})


def _mbps(c: CellStats | None, nd: int = 3) -> str:
    """A cell's mean goodput ± its 95 % half-width, Mb/s."""
    if c is None:
        return "–"
    m, h = mean_ci(c.goodput)
    return "–" if not math.isfinite(m) else f"{m / 1e6:.{nd}f} ± {h / 1e6:.{nd}f}" if math.isfinite(h) else f"{m / 1e6:.{nd}f}"


def _pct(v: float, nd: int = 0, sign: bool = False) -> str:
    return "–" if not math.isfinite(v) else f"{100 * v:{'+' if sign else ''}.{nd}f} %"


def _p(p: float) -> str:
    return f"{p:g}"


# --------------------------------------------------------------------------------------
# figures (matplotlib, Agg)
# --------------------------------------------------------------------------------------
def _err(ax: Any, x: Sequence[float], cs: Sequence[CellStats | None], scale: float, **kw: Any) -> None:
    m = [mean_ci(c.goodput) if c is not None else (math.nan, math.nan) for c in cs]
    ax.errorbar(x, [a / scale for a, _ in m], yerr=[0 if not math.isfinite(h) else h / scale for _, h in m], capsize=2, ms=4, **kw)


def fig_fairness(cfg: StudyConfig, env: Env, rate: float, fig_no: int) -> Any:
    """Figs. 2-3: mean goodput per kind against the number of Reno connections, the fair
    share dotted (±10 % shaded); Jain's index below."""
    import matplotlib.pyplot as plt

    fig, (ax, axj) = plt.subplots(2, 1, figsize=(6.2, 5.4), sharex=True, gridspec_kw={"height_ratios": [3, 1.3]})
    fs = env.share(rate) / 1e3
    ks = list(cfg.ks)
    for kind, col, lab in (("reno", _COLOR["reno"], "TCP Reno"), ("tibet", _COLOR["tibet"], "TIBET")):
        pts = [(k, *mean_ci(getattr(c, kind))) for k in ks if (c := env.fair(rate, k)) is not None]
        pts = [(k, m, h) for k, m, h in pts if math.isfinite(m)]
        ax.errorbar([k for k, _, _ in pts], [m / 1e3 for _, m, _ in pts], yerr=[0 if not math.isfinite(h) else h / 1e3 for *_, h in pts],
                    fmt="o-", color=col, capsize=2, ms=4, label=lab)
    ax.axhline(fs, color="k", ls=":", lw=1, label="fair share")
    ax.axhspan(fs * (1 - FAIR_TOL), fs * (1 + FAIR_TOL), color="grey", alpha=0.12, label=f"±{100 * FAIR_TOL:.0f} %")
    ax.set_ylabel("mean goodput per connection (kb/s)")
    ax.set_title(f"Fig. {fig_no}: TIBET fairness towards TCP Reno over a {rate / 1e6:g} Mb/s link ({N_FLOWS} connections)", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    js = [(k, *mean_ci(c.jain)) for k in ks if (c := env.fair(rate, k)) is not None]
    axj.errorbar([k for k, *_ in js], [m for _, m, _ in js], yerr=[0 if not math.isfinite(h) else h for *_, h in js], fmt="s-", color="k", ms=3, capsize=2)
    axj.set_ylabel("Jain's index", fontsize=8)
    axj.set_xlabel(f"number of TCP Reno connections (the other {N_FLOWS} − k run TIBET)")
    axj.set_xticks(ks)
    axj.grid(alpha=0.3)
    fig.subplots_adjust(left=0.12, right=0.97, top=0.93, bottom=0.1, hspace=0.08)
    return fig


def fig_loss(cfg: StudyConfig, env: Env, rate: float, fig_no: int) -> Any:
    """Figs. 4-5: goodput against the loss rate, every TCP; the chosen reading solid (95 %
    CI), the other dashed."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    ps = list(cfg.loss_ps)
    other = next(r for r in READINGS if r != cfg.setup.reading)
    for cc in CCS:
        _err(ax, ps, [env.single(cc, rate, p) for p in ps], 1e6, fmt="o-", color=_COLOR[cc], label=LABEL[cc])
        ys = [c.mean / 1e6 if (c := env.single(cc, rate, p, other)) is not None else np.nan for p in ps]
        ax.plot(ps, ys, ls="--", lw=0.9, color=_COLOR[cc], alpha=0.7)
    ax.plot([], [], "k--", lw=0.9, label=f"dashed: {READING_LABEL[other]}")
    ax.axhline(rate * cfg.setup.mss / (cfg.setup.mss + 40) / 1e6, color="grey", lw=0.6)
    ax.set_xscale("log")
    ax.set_xlabel("packet loss probability")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title(f"Fig. {fig_no}: goodput vs link error rate over a {rate / 1e6:g} Mb/s link, {READING_LABEL[cfg.setup.reading]}", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3, which="both")
    return fig


def _fig_goodput(points: Sequence[Any], x: Sequence[float], cell: Any, xlabel: str, title: str) -> Any:
    """Goodput of every TCP against one coordinate (95 % CI): ``cell(cc, point)``."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for cc in CCS:
        _err(ax, x, [cell(cc, q) for q in points], 1e6, fmt="o-", color=_COLOR[cc], label=LABEL[cc])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return fig


def fig_rtt(cfg: StudyConfig, env: Env) -> Any:
    return _fig_goodput(cfg.rtts, [1e3 * r for r in cfg.rtts], env.rtt, "RTT (ms)",
                        f"Fig. 6: goodput over a {FIG6_RATE / 1e6:g} Mb/s link with increasing RTT, p = {100 * FIG6_P:g} %")  # fmt: skip


def fig_markov(cfg: StudyConfig, env: Env) -> Any:
    g, b, pg = MARKOV
    return _fig_goodput(cfg.p_bads, [100 * p for p in cfg.p_bads], env.markov, "packet error rate in the Bad state (%)",
                        f"Fig. 8: {FIG8_RATE / 1e6:g} Mb/s, two-state Markov channel (Good {g:g} s, Bad {b:g} s, {100 * pg:g} % loss in Good)")  # fmt: skip


def fig_closed_forms(cfg: StudyConfig, env: Env) -> Any:
    """Fig. 9: 1.31/√p (Reno) and 3.4/(p·log2(1/p)) (ideal estimate), MSS = RTT = 1; our
    simulated goodputs of Figs. 11-12 in the same units (goodput·RTT/MSS) as markers."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    p = np.logspace(-4, -1, 200)
    ax.plot(p, 1.31 / np.sqrt(p), color=_COLOR["reno"], label="TCP Reno: 1.31/√p")
    ax.plot(p, 3.4 / (p * np.log2(1 / p)), color=_COLOR["ideal"], label="ideal estimate: 3.4/(p·log2(1/p))")
    ax.axvspan(*MODEL_RANGE, color="grey", alpha=0.08, label="the model's stated range")
    mss = cfg.setup.mss
    for cc, mk in (("reno", "o"), ("ideal", "s")):
        for rtt, fill in zip(MODEL_RTTS, ("full", "none")):
            ys = [c.mean * rtt / (8 * mss) if (c := env.model(cc, rtt, q)) is not None else np.nan for q in cfg.model_ps]
            ax.plot(cfg.model_ps, ys, mk, color=_COLOR[cc], fillstyle=fill, ms=5, label=f"{LABEL[cc]} simulated, RTT {1e3 * rtt:g} ms")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("packet error rate p")
    ax.set_ylabel("goodput (MSS per RTT)")
    ax.set_title("Fig. 9: TCP Reno and a TCP with an ideal estimate, closed forms (MSS = RTT = 1)", fontsize=9)
    ax.legend(fontsize=6.5)
    ax.grid(alpha=0.3, which="both")
    return fig


def fig_model(cfg: StudyConfig, env: Env, rtt: float, fig_no: int) -> Any:
    """Figs. 11-12: the Ideal TCP's simulated goodput against eq. 3 (±20 % shaded), TCP
    Reno against eq. 4, TIBET beside them; the wireless capacity in grey."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    ps = list(cfg.model_ps)
    grid = np.logspace(math.log10(min(ps)), math.log10(max(ps)), 100)
    mss = cfg.setup.mss
    eq3 = np.array([closed_form("ideal", q, rtt, mss) for q in grid]) / 1e6
    eq4 = np.array([closed_form("reno", q, rtt, mss) for q in grid]) / 1e6
    ax.plot(grid, eq3, color=_COLOR["ideal"], lw=1.2, label="model, eq. 3 (Ideal TCP)")
    ax.fill_between(grid, eq3 * (1 - MODEL_TOL), eq3 * (1 + MODEL_TOL), color=_COLOR["ideal"], alpha=0.12)
    ax.plot(grid, eq4, color=_COLOR["reno"], lw=0.9, ls="--", label="eq. 4, 1.31·MSS/(RTT·√p) (Reno)")
    for cc in PAPER_CCS:
        _err(ax, ps, [env.model(cc, rtt, q) for q in ps], 1e6, fmt="o", color=_COLOR[cc], label=f"{LABEL[cc]} simulated")
    ax.axhline(cfg.setup.wireless_rate * mss / (mss + 40) / 1e6, color="grey", lw=0.6, label="wireless capacity (payload)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("packet error rate p on the wireless hop")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title(f"Fig. {fig_no}: analytical model and simulation, RTT = {1e3 * rtt:g} ms", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3, which="both")
    return fig


#: The headline numbers of the sensitivity table: key, label, the criterion or paper value.
HEADLINE = [
    ("fair_2_worst", "Fig. 2: worst |kind ÷ fair share − 1|", f"≤ {FAIR_TOL:g}"),
    ("fair_10_worst", "Fig. 3: worst |kind ÷ fair share − 1|", f"≤ {FAIR_TOL:g}"),
    ("fair_2_jain", "Fig. 2: lowest Jain's index", None),
    ("fair_10_jain", "Fig. 3: lowest Jain's index", None),
    ("loss_tibet_reno_above", "Figs. 4-5: points TIBET > Reno", "all"),
    ("loss_tibet_reno_below", "Figs. 4-5: points TIBET < Reno", "0"),
    ("loss_ideal_tibet_above", "Figs. 4-5: points Ideal > TIBET", "all"),
    ("loss_ideal_tibet_below", "Figs. 4-5: points Ideal < TIBET", "0"),
    ("loss_2_tibet_reno_1e-2", "Fig. 4: TIBET ÷ Reno at p = 10⁻²", None),
    ("loss_10_tibet_reno_1e-2", "Fig. 5: TIBET ÷ Reno at p = 10⁻²", None),
    ("rtt_tibet_reno_above", "Fig. 6: RTTs TIBET > Reno", "all"),
    ("markov_tibet_reno_above", "Fig. 8: points TIBET > Reno", "all"),
    ("model_100_worst", "Fig. 11: worst |Ideal ÷ eq. 3 − 1|", f"≤ {MODEL_TOL:g}"),
    ("model_400_worst", "Fig. 12: worst |Ideal ÷ eq. 3 − 1|", f"≤ {MODEL_TOL:g}"),
    ("model_100_at_max_p", "Fig. 11: Ideal ÷ eq. 3 − 1 at the largest p", "≈ 0"),
    ("model_400_at_max_p", "Fig. 12: Ideal ÷ eq. 3 − 1 at the largest p", "≈ 0"),
]


def _sweeps(pts: Sequence[tuple[str, Any, Env]]) -> dict[str, list[tuple[Any, Env]]]:
    out: dict[str, list[tuple[Any, Env]]] = {}
    for name, v, e in pts:
        out.setdefault(name, []).append((v, e))
    return out


def fig_sensitivity(cfg: StudyConfig, pts: Sequence[tuple[str, Any, Env]], which: str) -> Any:
    """One panel per open parameter: headline numbers against its value (categorical axis,
    the default starred); ``which``: "fairness-model" (relative errors against the
    criteria, dashed) or "gains" (TIBET ÷ Reno at p = 10⁻², Ideal ÷ eq. 3 at p = 10⁻¹)."""
    import matplotlib.pyplot as plt

    sw = _sweeps(pts)
    names = list(sw)
    ncol = 4
    nrow = max(1, math.ceil(len(names) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.3 * ncol, 2.8 * nrow), squeeze=False)
    if which == "fairness-model":
        series = [("fair_2_worst", "Fig. 2 fairness", "#4c72b0"), ("fair_10_worst", "Fig. 3 fairness", "#dd8452"),
                  ("model_100_worst", "Fig. 11 model", "#55a868"), ("model_400_worst", "Fig. 12 model", "#c44e52")]  # fmt: skip
        lines = [(FAIR_TOL, "#4c72b0"), (MODEL_TOL, "#55a868")]
        ylabel = "worst relative error"
    else:
        series = [("loss_2_tibet_reno_1e-2", "TIBET ÷ Reno, 2 Mb/s, 10⁻²", "#4c72b0"), ("loss_10_tibet_reno_1e-2", "TIBET ÷ Reno, 10 Mb/s, 10⁻²", "#dd8452"),
                  ("model_100_at_max_p", "Ideal ÷ eq. 3 − 1, RTT 100 ms, max p", "#55a868"), ("model_400_at_max_p", "Ideal ÷ eq. 3 − 1, RTT 400 ms, max p", "#c44e52")]  # fmt: skip
        lines = [(1.0, "k"), (0.0, "#55a868")]
        ylabel = "ratio / relative error"
    for k, ax in enumerate(axes.flat):
        if k >= len(names):
            ax.axis("off")
            continue
        name = names[k]
        vals = sw[name]
        heads = [e.headline() for _, e in vals]
        x = np.arange(len(vals))
        for key, lab, col in series:
            ax.plot(x, [h.get(key, math.nan) for h in heads], "o-", color=col, ms=3, label=lab)
        for y, col in lines:
            ax.axhline(y, color=col, ls="--", lw=0.7)
        default = getattr(cfg.setup, name)
        ax.set_xticks(x, [show(name, v) + ("*" if v == default else "") for v, _ in vals], fontsize=7)
        ax.set_title(PARAM_LABEL.get(name, name), fontsize=9)
        ax.grid(alpha=0.3)
        if k % ncol == 0:
            ax.set_ylabel(ylabel, fontsize=8)
    axes.flat[0].legend(fontsize=6)
    fig.suptitle(("fairness and model errors" if which == "fairness-model" else "TIBET's gain and the model at high p")
                 + " against each open parameter (* default; dashed: the criteria)", fontsize=10)  # fmt: skip
    fig.subplots_adjust(left=0.06, right=0.99, top=1 - 0.35 / nrow, bottom=0.22 / nrow, hspace=0.45, wspace=0.25)
    return fig


# --------------------------------------------------------------------------------------
# tables and the report
# --------------------------------------------------------------------------------------
CELL_COLUMNS = ["cell", "experiment", "cc", "k_reno", "n_flows", "rate", "one_way", "loss", "p", "p_good", "p_bad", "mean_good", "mean_bad",
                "start_spread", "access_delay", "wired_rate", "recovery", "rto_min", "init_cwnd", "delayed_ack", "mss", "rwnd", "buffer_bdp",
                "duration", "warmup", "n", "goodput_mean_bps", "goodput_sd_bps", "goodput_ci95_bps", "reno_mean_bps", "tibet_mean_bps", "jain_mean",
                "timeouts_per_s", "fast_retransmits_per_s", "channel_loss", "queue_drop", "utilisation", "queue_delay_mean_s"]  # fmt: skip


def cell_rows(stats: dict[str, CellStats]) -> list[dict[str, Any]]:
    rows = []
    for cid, c in sorted(stats.items(), key=lambda kv: kv[0]):
        m, h = mean_ci(c.goodput)
        g = c.goodput[np.isfinite(c.goodput)]
        rows.append({"cell": cid, **c.params, "n": c.n, "goodput_mean_bps": m, "goodput_sd_bps": float(np.std(g, ddof=1)) if len(g) > 1 else math.nan,
                     "goodput_ci95_bps": h, "reno_mean_bps": mean_ci(c.reno)[0], "tibet_mean_bps": mean_ci(c.tibet)[0], "jain_mean": mean_ci(c.jain)[0],
                     "timeouts_per_s": c.timeouts_per_s, "fast_retransmits_per_s": c.fast_retransmits_per_s, "channel_loss": c.channel_loss,
                     "queue_drop": c.queue_drop, "utilisation": c.utilisation, "queue_delay_mean_s": c.queue_delay})  # fmt: skip
    return rows


def sensitivity_rows(pts: Sequence[tuple[str, Any, Env]], base: Env) -> list[dict[str, Any]]:
    """One row per sensitivity point: the parameter, its value and the headline numbers."""
    rows = []
    for name, v, e in [("baseline", None, base), *pts]:
        row: dict[str, Any] = {"parameter": name, "value": show(name, v) if name != "baseline" else "defaults"}
        row.update(e.headline())
        rows.append(row)
    return rows


def write_outputs(cfg: StudyConfig, out: Path, store: ResultStore, runs: Sequence[dict[str, Any]],
                  formats: Sequence[str] = ("png",), progress: bool = False) -> tuple[dict[str, Path], list[dict[str, Any]], Path, Path]:  # fmt: skip
    """Write every table, figure (PNG, and the other ``formats``) and the report; returns
    (figures, claims, md, html)."""
    stats = cell_stats(runs)
    base, pts = environments(cfg, runs)
    vs, svs = TC.verdicts(cfg, base), TC.setting_verdicts(cfg, base)
    cl = claim_rows(vs)
    cl_all = cl + claim_rows([v for sv in svs for v in sv.verdicts])
    write_tables(out, store, cell_rows(stats), CELL_COLUMNS, cl_all, sensitivity_rows(pts, base))
    jobs: list[FigureJob] = []
    jobs.append(("fig02", "fig02-fairness-2mbps", fig_fairness, (cfg, base, FAIR_RATES[0], 2)))
    jobs.append(("fig03", "fig03-fairness-10mbps", fig_fairness, (cfg, base, FAIR_RATES[1], 3)))
    jobs.append(("fig04", "fig04-goodput-2mbps", fig_loss, (cfg, base, SINGLE_RATES[0], 4)))
    jobs.append(("fig05", "fig05-goodput-10mbps", fig_loss, (cfg, base, SINGLE_RATES[1], 5)))
    jobs.append(("fig06", "fig06-goodput-rtt", fig_rtt, (cfg, base)))
    jobs.append(("fig08", "fig08-correlated-losses", fig_markov, (cfg, base)))
    jobs.append(("fig09", "fig09-closed-forms", fig_closed_forms, (cfg, base)))
    jobs.append(("fig11", "fig11-model-rtt100", fig_model, (cfg, base, MODEL_RTTS[0], 11)))
    jobs.append(("fig12", "fig12-model-rtt400", fig_model, (cfg, base, MODEL_RTTS[1], 12)))
    if pts:
        jobs.append(("sensitivity-fairness-model", "sensitivity-fairness-model", fig_sensitivity, (cfg, pts, "fairness-model")))
        jobs.append(("sensitivity-gains", "sensitivity-gains", fig_sensitivity, (cfg, pts, "gains")))
    figs = draw_figures(jobs, out / "figures", formats, progress=progress)

    prov = provenance.cell_study("tibet", cfg, "runs")
    provenance.write(out, prov, store)
    write_json(out / "summary.json", {"config": cfg.to_dict(), "provenance": prov, "burstlab_version": __version__, "n_runs": len(runs), "n_cells": len(stats),
                                      "headline": base.headline(), "tally": asdict(tally(vs)), "claims": cl_all})  # fmt: skip
    blocks = build_report(cfg, out, base, pts, stats, vs, svs, figs, len(runs), "pdf" in formats, prov)
    md, html = write_report(out, blocks, "burstlab: TCP with bandwidth estimation over wireless networks (Martignon & Capone)")
    return figs, cl, md, html


_img = img_block


def _ratio(r: Ratio) -> str:
    return format(r, ".2f") if math.isfinite(r.value) else "–"


def _mech(c: CellStats | None) -> str:
    """Timeouts and fast retransmits per second, channel and queue losses per packet sent."""
    if c is None:
        return "–"
    return f"{c.timeouts_per_s:.2f} / {c.fast_retransmits_per_s:.2f} / {100 * c.channel_loss:.2f} % / {100 * c.queue_drop:.2f} %"


MECH_NOTE = "timeouts/s / fast retransmits/s / channel losses / queue drops (per data packet sent)"


def build_report(cfg: StudyConfig, out: Path, env: Env, pts: Sequence[tuple[str, Any, Env]], stats: dict[str, CellStats], vs: Sequence[Verdict],
                 svs: Sequence[SettingVerdicts], figs: dict[str, Path], n_runs: int, pdf: bool = False, prov: dict[str, Any] | None = None) -> list[Block]:  # fmt: skip
    prov = prov or provenance.cell_study("tibet", cfg, "runs")
    s = cfg.setup
    b: list[Block] = preamble(
        "TCP with bandwidth estimation over wireless networks: Martignon & Capone, checked",
        quick=f"{cfg.seeds} runs of {s.duration:g} s per cell, {cfg.sweep_seeds} per sensitivity point, fewer points per figure, two values per open parameter"
        if cfg.quick else None,
        numbers=replicates_sentence("runs", n_runs, len(stats), cfg.seed, cfg.seeds, cfg.sweep_seeds) + ", [lo, hi] a 95 % interval of a ratio (delta method over paired runs: replicate k uses the same seed — the same loss draws, the same "
                "start times — in every cell).",
        tables=("runs", "cells", "claims"), files=("cells.csv", "claims.csv", "sensitivity.csv", "summary.json"))  # fmt: skip
    b.append(("h2", "Setting: what the paper gives and what we chose"))
    b.append(("ul", [
        f"TCP (ns-2 agents of 2002, not described beyond TIBET's rule): TCP Reno, TIBET (α = 0.99, the sent-packet estimator of §II), the Ideal TCP "
        "(TIBET's rule fed the exact fair share of its path, §V), and beside them Westwood+ and Vegas (α, β, γ = 1, 3, 1); all with the same "
        f"{s.recovery} loss recovery, {s.mss}-byte segments, delayed ACKs {show('delayed_ack', s.delayed_ack)}, initial window {s.init_cwnd}, "
        f"minimum RTO {s.rto_min:g} s, receiver window {show('rwnd', s.rwnd)}.",
        f"\"The one-way RTT is 50 ms\" (§IV.A) is read as **{READING_LABEL[s.reading]}**; Figs. 4-5 also show the other reading (dashed), and Figs. 2-3 "
        "and 8, whose delays the paper does not give, use the same propagation delay.",
        f"Buffers: DropTail, {s.buffer_bdp:g} bandwidth-delay product of the propagation round trip in {s.mss + 40}-byte packets (e.g. "
        f"{buffer_packets(bernoulli_cell(s, 'reno', 2e6, s.one_way, 0.01))} packets at 2 Mb/s, {buffer_packets(bernoulli_cell(s, 'reno', 10e6, s.one_way, 0.01))} at 10 Mb/s).",
        f"Figs. 2-3: {N_FLOWS} bulk connections over their own {1e3 * s.access_delay:g}-ms access hops into one bottleneck (the rest of the one-way "
        f"delay), starting at times uniform in [0, {s.start_spread:g} s]; no random loss.",
        f"Figs. 4-6: Bernoulli loss of data packets on the link (the paper's \"Poisson process\"), ACKs lossless. Fig. 8: continuous-time Markov "
        f"chain, exponential sojourns of mean {MARKOV[0]:g} s (Good) and {MARKOV[1]:g} s (Bad), a Bernoulli trial per packet at the state's rate "
        f"({100 * MARKOV[2]:g} % in Good).",
        f"Figs. 10-12: S — wired ({WIRED_RATE / 1e9:g} Gb/s) — BS — wireless ({s.wireless_rate / 1e6:g} Mb/s, {1e3 * WIRELESS_DELAY:g} ms, packet error rate p) — D; "
        "the wired delay makes the RTT 100 or 400 ms. The paper gives neither capacity.",
        f"Each run: {s.duration:g} s, the first {s.warmup:g} s excluded; goodput = payload delivered in order to the receiver per second.",
        "Every choice is argued in `docs/study-tibet.md`; each open parameter is varied below (Sensitivity).",
    ]))
    b.append(("h2", "The paper's numbers"))
    b.append(("p", "The paper's figures carry no printed values, and its text states each result in words: \"very close to the fair share\" (Figs. 2-3), "
                   "TIBET \"can sustain higher throughput than TCP Reno at all drop rates considered\" (Figs. 4-5), \"with every RTT value\" (Fig. 6), "
                   "\"even in this case\" (Fig. 8), the Ideal TCP higher than TIBET and also collapsing at high error rates (§V), and the model "
                   "\"able to predict quite well ... very accurate when the packet error rate is high\" (Figs. 11-12). Those statements are the published "
                   "results set beside ours below; where a statement needs a number to be checked we use issue 11's (±10 % of the fair share, ±20 % of "
                   "eq. 3) and say so. The only published numbers are the closed forms' coefficients, 1.31 (Reno, after Mathis et al.) and 3.4 (ideal "
                   "estimate), reproduced exactly in Fig. 9."))

    b += claims_section(vs, svs, intervals="Orderings are paired differences of goodput (replicate k sees the same loss draws in every cell), one per point.",
                        setting_intro="**Figs. 4-5's claims under both readings** of \"the one-way RTT is 50 ms\":")

    # Figs. 2-3
    b.append(("h2", "Figs. 2-3: fairness between TIBET and TCP Reno"))
    for rate, key in zip(FAIR_RATES, ("fig02", "fig03")):
        fs = env.share(rate)
        rows = []
        for k in cfg.ks:
            c = env.fair(rate, k)
            if c is None:
                continue
            rm, rh = mean_ci(c.reno)
            tm, th = mean_ci(c.tibet)
            jm, jh = mean_ci(c.jain)
            rows.append([str(k), f"{rm / fs:.3f} ± {rh / fs:.3f}" if math.isfinite(rm) else "–", f"{tm / fs:.3f} ± {th / fs:.3f}" if math.isfinite(tm) else "–",
                         f"{jm:.4f}", f"{100 * c.utilisation:.1f} %", f"{1e3 * c.queue_delay:.1f}", f"{c.timeouts_per_s:.2f}"])  # fmt: skip
        b.append(("p", f"**{rate / 1e6:g} Mb/s** (fair share {fs / 1e3:.1f} kb/s of goodput per connection: the capacity less 40 header bytes per packet, ÷ {N_FLOWS}):"))
        b.append(("table", (["Reno connections k", "TCP Reno ÷ fair share", "TIBET ÷ fair share", "Jain's index", "bottleneck busy", "mean queueing delay (ms)",
                             "timeouts/s (all)"], rows)))  # fmt: skip
        b += _img(figs, out, key, f"Fig. {key[-1]}: {rate / 1e6:g} Mb/s", pdf)

    # Figs. 4-5
    other = next(r for r in READINGS if r != s.reading)
    for rate, key in zip(SINGLE_RATES, ("fig04", "fig05")):
        b.append(("h2", f"Fig. {key[-1]}: goodput vs loss rate, {rate / 1e6:g} Mb/s"))
        rows = []
        for p in cfg.loss_ps:
            cs = {cc: env.single(cc, rate, p) for cc in CCS}
            rows.append([f"{p:g}", *(_mbps(cs[cc]) for cc in CCS), _ratio(env.ratio(cs["tibet"], cs["reno"])), _ratio(env.ratio(cs["ideal"], cs["tibet"])),
                         _ratio(env.ratio(env.single("tibet", rate, p, other), env.single("reno", rate, p, other)))])  # fmt: skip
        b.append(("p", f"Goodput (Mb/s) under the chosen reading ({READING_LABEL[s.reading]}); the last column is TIBET ÷ Reno under the other ({READING_LABEL[other]}):"))
        b.append(("table", (["p", *(LABEL[cc] for cc in CCS), "TIBET ÷ Reno", "Ideal ÷ TIBET", "TIBET ÷ Reno, other reading"], rows)))
        b += _img(figs, out, key, f"Fig. {key[-1]}: {rate / 1e6:g} Mb/s (dashed: the other reading)", pdf)
        b.append(("p", f"Mechanism, {MECH_NOTE}:"))
        b.append(("table", (["p", *(LABEL[cc] for cc in PAPER_CCS)], [[f"{p:g}", *(_mech(env.single(cc, rate, p)) for cc in PAPER_CCS)] for p in cfg.loss_ps])))

    # Fig. 6
    b.append(("h2", f"Fig. 6: goodput vs RTT, {FIG6_RATE / 1e6:g} Mb/s, p = {100 * FIG6_P:g} %"))
    rows = [[f"{1e3 * r:g}", *(_mbps(env.rtt(cc, r)) for cc in CCS), _ratio(env.ratio(env.rtt("tibet", r), env.rtt("reno", r)))] for r in cfg.rtts]
    b.append(("table", (["RTT (ms)", *(LABEL[cc] for cc in CCS), "TIBET ÷ Reno"], rows)))
    b += _img(figs, out, "fig06", "Fig. 6", pdf)

    # Fig. 8
    b.append(("h2", "Fig. 8: correlated losses (two-state Markov channel)"))
    rows = [[f"{100 * pb:g}", *(_mbps(env.markov(cc, pb)) for cc in CCS), _ratio(env.ratio(env.markov("tibet", pb), env.markov("reno", pb)))] for pb in cfg.p_bads]
    b.append(("table", (["loss in Bad (%)", *(LABEL[cc] for cc in CCS), "TIBET ÷ Reno"], rows)))
    b += _img(figs, out, "fig08", "Fig. 8", pdf)

    # Fig. 9
    b.append(("h2", "Fig. 9: the closed forms"))
    rows = []
    for p in (1e-4, 1e-3, 1e-2, 1e-1):
        reno, ideal = 1.31 / math.sqrt(p), 3.4 / (p * math.log2(1 / p))
        rows.append([f"{p:g}", f"{reno:.2f}", f"{ideal:.2f}", f"{ideal / reno:.2f}", "yes" if MODEL_RANGE[0] <= p <= MODEL_RANGE[1] else "no"])
    b.append(("p", "Goodput in MSS per RTT (the paper's Fig. 9 with RTT = MSS = 1), from `burstlab.analytic.tibet_reno` and `tibet_ideal`; the markers "
                   "of the figure are our simulated goodputs of Figs. 11-12 in the same units (goodput × nominal RTT ÷ MSS):"))
    b.append(("table", (["p", "Reno 1.31/√p", "ideal 3.4/(p·log2(1/p))", "ideal ÷ Reno", "in the stated range"], rows)))
    b += _img(figs, out, "fig09", "Fig. 9", pdf)

    # Figs. 11-12
    for rtt, key in zip(MODEL_RTTS, ("fig11", "fig12")):
        b.append(("h2", f"Fig. {key[-2:]}: the model against simulation, RTT {1e3 * rtt:g} ms"))
        rows = []
        for p in cfg.model_ps:
            e, h = env.model_error(rtt, p)
            er, hr = env.model_error(rtt, p, "reno")
            rows.append([f"{p:g}", f"{closed_form('ideal', p, rtt, s.mss) / 1e6:.3f}", _mbps(env.model("ideal", rtt, p)),
                         f"{_pct(e, 0, True)} ± {_pct(h)}" if math.isfinite(h) else _pct(e, 0, True), _mech(env.model("ideal", rtt, p)),
                         f"{closed_form('reno', p, rtt, s.mss) / 1e6:.3f}", _mbps(env.model("reno", rtt, p)), _pct(er, 0, True), _mbps(env.model("tibet", rtt, p))])  # fmt: skip
        b.append(("table", (["p", "eq. 3 (Mb/s)", "Ideal TCP (Mb/s)", "Ideal ÷ eq. 3 − 1", f"Ideal: {MECH_NOTE}", "eq. 4 (Mb/s)", "TCP Reno (Mb/s)",
                             "Reno ÷ eq. 4 − 1", "TIBET (Mb/s)"], rows)))  # fmt: skip
        b += _img(figs, out, key, f"Fig. {key[-2:]}: RTT {1e3 * rtt:g} ms (shaded: eq. 3 ± {100 * MODEL_TOL:.0f} %)", pdf)

    b.append(("h2", "Where ours differ from the paper, and why"))
    b.append(("ul", why(cfg, env, pts)))

    if pts:
        b.append(("h2", "Sensitivity to every open parameter"))
        b.append(("p", f"Each open parameter varied alone, the others at their defaults (`*`), the paper's three TCPs only; every point of a parameter uses the "
                       f"same runs (replicates): the first {cfg.sweep_seeds}, so the default's numbers here can differ from the {cfg.seeds}-run ones above by "
                       "sampling noise. Counts are points where the paired 95 % interval lies above (or below) 0. Full table: "
                       "[`sensitivity.csv`](sensitivity.csv)."))
        head = ["parameter", "value"] + [lab + (f" ({crit})" if crit else "") for _, lab, crit in HEADLINE]
        rows = []
        for name, v, pe in pts:
            hl = pe.headline()
            rows.append([PARAM_LABEL.get(name, name), show(name, v) + ("*" if v == getattr(s, name) else ""),
                         *(_num(k, hl.get(k, math.nan)) for k, _, _ in HEADLINE)])  # fmt: skip
        b.append(("table", (head, rows)))
        b += _img(figs, out, "sensitivity-fairness-model", "fairness and model errors against each open parameter", pdf)
        b += _img(figs, out, "sensitivity-gains", "TIBET's gain and the model at high p against each open parameter", pdf)

    b += provenance.blocks(prov, cli_args(cfg), out)
    return b


def _num(key: str, x: float) -> str:
    if not math.isfinite(x):
        return "–"
    return str(int(x)) if key.endswith(("_above", "_below")) else f"{x:.3f}"


def why(cfg: StudyConfig, env: Env, pts: Sequence[tuple[str, Any, Env]]) -> list[str]:
    """The mechanisms behind the main differences, each with the simulator's evidence."""
    s = cfg.setup
    out: list[str] = []
    # Figs. 2-3
    seeds = [replicate_seed(cfg.seed, k) for k in range(min(cfg.seeds, 4))]
    for rate in FAIR_RATES:
        dev = env.fairness_dev(rate)
        if not dev:
            continue
        k, kind, x, _ = max(dev, key=lambda t: abs(t[2] - 1))
        if not 0 < k < N_FLOWS:
            continue
        c = env.fair(rate, k)
        assert c is not None
        m = fairness_mechanism(fairness_cell(s, rate, k), seeds)
        mr, mt = m["reno"], m["tibet"]
        pipe = env.share(rate) * 2 * s.one_way / (8 * s.mss)
        txt = (f"**Figs. 2-3, {rate / 1e6:g} Mb/s**: the largest departure from the fair share is {LABEL[kind]}'s {x:.3f} at k = {k} (bottleneck busy "
               f"{100 * c.utilisation:.1f} % of the time). Re-running {len(seeds)} of its runs with the window series: TIBET's loss responses set ssthresh "
               f"to {mt['ssthresh']:.1f} segments on average against Reno's {mr['ssthresh']:.1f} — a connection's share of the pipe, fair share × RTT_min, "
               f"is {pipe:.1f} segments — and each TIBET connection had {mt['timeouts_per_s']:.2f} timeouts and {mt['fast_retransmits_per_s']:.2f} fast "
               f"retransmits per second against Reno's {mr['timeouts_per_s']:.2f} and {mr['fast_retransmits_per_s']:.2f}. TCP Reno halves a window that also "
               "holds its part of the queue; TIBET sets Bwe·RTT_min, its measured rate times the propagation round trip, i.e. its share of the pipe "
               "without the queue. ")
        if mt["ssthresh"] < mr["ssthresh"] and mt["timeouts_per_s"] > mr["timeouts_per_s"]:
            txt += ("With a few segments per connection that window is too small for three duplicate ACKs more often than Reno's, so more of "
                    "TIBET's losses end in a retransmission timeout, and the sent-packet estimator then counts the idle time in its intervals.")
        elif mt["ssthresh"] > mr["ssthresh"]:
            txt += "Here the estimate lands above Reno's halved window, and TIBET keeps more than its share."
        out.append(txt)
    # Figs. 4-5: ties at low p
    rate = SINGLE_RATES[0]
    p0 = min(cfg.loss_ps)
    o = env.order_loss("tibet", "reno", rate)
    r, t = env.single("reno", rate, p0), env.single("tibet", rate, p0)
    if r is not None and t is not None and (o.tied or o.below):
        out.append(
            f"**Fig. {4 if rate == 2e6 else 5} at low loss**: TIBET and TCP Reno tie or change places at p = {', '.join(f'{x:g}' for x in o.tied + o.below)}. "
            f"At p = {p0:g} the link, not the channel, limits both: queue drops are {100 * r.queue_drop:.3f} % (Reno) and {100 * t.queue_drop:.3f} % (TIBET) "
            f"of the packets sent against {100 * r.channel_loss:.3f} % channel losses, and after a buffer overflow TIBET's estimate — the rate it was "
            "sending, a full link plus a full buffer — gives the window Reno's halving gives. The paper's claim is about random losses, which "
            "dominate from about 10⁻³ on.")
    # Ideal collapse at high p
    for rate in SINGLE_RATES:
        c = env.single("ideal", rate, max(cfg.loss_ps))
        t = env.single("tibet", rate, max(cfg.loss_ps))
        if c is None or t is None:
            continue
        bdp = buffer_packets(bernoulli_cell(s, "ideal", rate, s.one_way, 0.01)) / s.buffer_bdp
        pmax = max(cfg.loss_ps)
        d = paired_difference_txt(c, t)
        every = 1 / (c.timeouts_per_s + c.fast_retransmits_per_s) if c.timeouts_per_s + c.fast_retransmits_per_s > 0 else math.inf
        out.append(
            f"**The Ideal TCP at p = {pmax:g}, {rate / 1e6:g} Mb/s**: {c.mean / 1e6:.3f} Mb/s against TIBET's {t.mean / 1e6:.3f} ({d}). After three "
            f"duplicate ACKs it sets cwnd = ssthresh = its fair share × RTT_min ≈ {bdp:.0f} packets whatever the loss rate, so the next window carries "
            f"≈ {pmax * bdp:.0f} losses, more than {s.recovery} recovery repairs before the timer expires: {c.timeouts_per_s:.2f} timeouts/s against "
            f"{c.fast_retransmits_per_s:.2f} fast retransmits/s (TIBET: {t.timeouts_per_s:.2f} / {t.fast_retransmits_per_s:.2f}), one loss episode every "
            f"{every:.2f} s against a {1e3 * 2 * s.one_way:g}-ms round trip: the sender waits on backed-off timers (Karn's rule keeps the backoff "
            f"until a segment sent once is acknowledged, and a share {pmax:g} of the retransmissions is lost again). The paper's Ideal TCP collapses "
            "too (§V); how "
            "far depends on the recovery (Sensitivity: `recovery`).")
    # Figs. 11-12
    for rtt in MODEL_RTTS:
        errs = [(p, env.model_error(rtt, p)[0]) for p in cfg.model_ps if MODEL_RANGE[0] <= p <= MODEL_RANGE[1]]
        errs = [(p, e) for p, e in errs if math.isfinite(e)]
        if not errs:
            continue
        cap = s.wireless_rate * s.mss / (s.mss + 40)
        capped = [p for p, _ in errs if closed_form("ideal", p, rtt, s.mss) > cap]
        txt = (f"**Figs. 11-12, RTT {1e3 * rtt:g} ms**: Ideal ÷ eq. 3 − 1 = " + ", ".join(f"{_pct(e, 0, True)} (p = {p:g})" for p, e in errs) + ". ")
        if capped:
            txt += (f"At p ≤ {max(capped):g} eq. 3 exceeds the wireless hop's {cap / 1e6:.2f} Mb/s of payload: no TCP can follow it there, and the "
                    "paper's remark that the model is \"very accurate when the packet error rate is high\" fits a capacity it hit at low p. ")
        over = [(p, e) for p, e in errs if e > MODEL_TOL]
        if over:
            p_over, e_over = max(over, key=lambda t: t[1])
            co = env.model("ideal", rtt, p_over)
            if co is not None:
                txt += (f"Where the simulation exceeds eq. 3 (most at p = {p_over:g}, {_pct(e_over, 0, True)}), the Ideal TCP's losses mostly end in "
                        f"fast retransmits ({co.fast_retransmits_per_s:.2f}/s against {co.timeouts_per_s:.2f} timeouts/s) that resume at cwnd = its share "
                        "of the pipe, while eq. 3 counts log2(1/p) round trips of slow start from one segment per loss. ")
        hi = env.model("ideal", rtt, max(cfg.model_ps))
        if hi is not None and hi.timeouts_per_s + hi.fast_retransmits_per_s > 0:
            txt += (f"At p = {max(cfg.model_ps):g} the simulated Ideal TCP has one loss episode every {1 / (hi.timeouts_per_s + hi.fast_retransmits_per_s):.2f} s "
                    f"({hi.timeouts_per_s:.2f} timeouts/s, {hi.fast_retransmits_per_s:.2f} fast retransmits/s) against a {1e3 * rtt:g}-ms round trip: it "
                    "waits on backed-off timers, the mechanism above, which eq. 3 does not describe. The wireless capacity and the recovery move the "
                    "comparison (Sensitivity: `wireless_rate`, `recovery`).")
        out.append(txt)
    # Westwood+, Vegas
    r10 = [(p, env.single("vegas", 10e6, p), env.single("reno", 10e6, p), env.single("westwood", 10e6, p), env.single("tibet", 10e6, p)) for p in cfg.loss_ps]
    r10 = [x for x in r10 if all(c is not None for c in x[1:])]
    if r10:
        p, v, r, w, t = r10[len(r10) // 2]
        vr = E.ratio(v.goodput, r.goodput)  # type: ignore[union-attr]
        wt = E.ratio(w.goodput, t.goodput)  # type: ignore[union-attr]
        txt = (f"**Westwood+ and Vegas** (not in the paper's figures), at p = {p:g} on 10 Mb/s: "
               + compare_ratio("Vegas's goodput", "Reno's", vr, "higher", "lower") + " " + compare_ratio("Westwood+'s", "TIBET's", wt, "higher", "lower"))
        if direction(vr, 1.0) == 0:
            txt += " Vegas's loss response is Reno's, so random loss rules both the same way."
        out.append(txt + " Westwood+ and TIBET both set ssthresh from a bandwidth estimate instead of halving.")
    return out


def paired_difference_txt(a: CellStats, b: CellStats) -> str:
    d, h = paired_difference(a.goodput, b.goodput)
    if not math.isfinite(d):
        return "–"
    return f"difference {d / 1e6:+.3f} ± {h / 1e6:.3f} Mb/s, paired"


def cli_args(cfg: StudyConfig) -> list[str]:
    """The command-line options that reproduce ``cfg`` (from the settings' declarations,
    :func:`burstlab.study.settings.reproduce_args`)."""
    return settings.reproduce_args(cfg)

