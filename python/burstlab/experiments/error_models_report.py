"""Tables, figures and the report of the error-model study
(:mod:`burstlab.experiments.error_models`, Pentikousis & Badr).

Outputs under the study folder:

- ``store.duckdb``: table ``runs`` (one row per cell × replicate) and ``cells`` (one row per
  cell: its parameters, completion time mean/sd/95 % CI and the mechanism counters);
- ``cells.csv``, ``claims.csv``, ``sensitivity.csv``, ``summary.json``;
- ``figures/``: ``fig02-connection-times``, ``fig02-subcycle``, ``fig02-equivalence``,
  ``table1``, ``fig03a``, ``fig03b``, ``sensitivity-table1-rate``, ``sensitivity-sync``,
  ``sensitivity-models`` (PNG; PDF too with ``formats``);
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
from burstlab.experiments import error_models_claims as EC
from burstlab.experiments.common import (
    FigureJob,
    draw_figures,
    fixed_layout,
    img_block,
    show_param,
    write_report,
    write_tables,
)
from burstlab.experiments.error_models import (
    ACK_LABEL,
    ACK_MODES,
    ON_OFF,
    PAPER_TABLE1,
    SCOPE,
    VARIANTS,
    CellStats,
    Env,
    Ratio,
    StudyConfig,
    cell_stats,
    environments,
    write_json,
)
from burstlab.experiments.error_models_why import noise_note, why
from burstlab.store import ResultStore
from burstlab.study import estimate as E
from burstlab.study import provenance, settings
from burstlab.study.blocks import claims_section, preamble, replicates_sentence, settings_blocks
from burstlab.study.report import Block
from burstlab.study.verdict import SettingVerdicts, Verdict, claim_rows, tally

#: The units and labels of the open parameters in tables and figures.
PARAM_LABEL = {
    "rate": "capacity (Mb/s)", "buffer": "buffer (packets)", "lan_delay": "LAN one-way delay (ms)", "mss": "MSS (bytes)",
    "delayed_ack": "delayed ACKs", "rto_min": "minimum RTO (s)", "rwnd": "receiver window (segments)", "init_cwnd": "initial window (segments)",
    "cycle": "VDDP sub-cycle (s)", "fig2_ack_loss": "Fig. 2 ACK losses",
}  # fmt: skip


def show(name: str, v: Any) -> str:
    """A parameter value as the tables print it (Mb/s, ms)."""
    return show_param(name, v, per={"rate": 1e6, "lan_delay": 1e-3})


def _fmt(v: Any, nd: int = 1) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    if isinstance(v, Ratio):
        return format(v, f".{nd}f") if math.isfinite(v.value) else "–"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def _pct(v: float) -> str:
    return "–" if not math.isfinite(v) else f"{100 * v:.0f} %"


def _t(c: CellStats | None, nd: int = 1) -> str:
    """A cell's mean completion time ± its 95 % CI half-width."""
    if c is None or not math.isfinite(c.mean):
        return "–"
    s = f"{c.mean:.{nd}f} ± {c.ci:.{nd}f}"
    return s + (f" ({c.incomplete} unfinished)" if c.incomplete else "")


# --------------------------------------------------------------------------------------
# the paper's claims, judged (declared in error_models_claims)
# --------------------------------------------------------------------------------------
def _times(env: Env, v: str, ack: str, delay: float) -> np.ndarray:
    c = env.sync(v, ack, delay)
    return c.times if c is not None else np.array([])


def _fastest(env: Env, ack: str, delay: float) -> str:
    """"reno < tahoe < newreno (tahoe − reno = 1.2 [0.4, 2.0] s)": the order of the mean
    times and the paired difference between the two fastest."""
    means = {v: float(np.nanmean(_times(env, v, ack, delay))) for v in VARIANTS if len(_times(env, v, ack, delay))}
    o = sorted(means, key=means.__getitem__)
    if len(o) < 2:
        return "–"
    d = E.difference(_times(env, o[1], ack, delay), _times(env, o[0], ack, delay))
    return f"{' < '.join(o)} ({o[1]} − {o[0]} = {d:.1f} s)"


# --------------------------------------------------------------------------------------
# figures (matplotlib, Agg)
# --------------------------------------------------------------------------------------
_ACK_COLOR = {"none": "#4c72b0", "sync": "#dd8452", "independent": "#c44e52"}


def fig_sync(env: Env, delay: float, title: str, paper: bool) -> Any:
    """Table 1 / Fig. 3: completion time per variant and ACK mode (95 % CI), the paper's
    Table 1 as black diamonds."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4))
    w = 0.26
    for j, ack in enumerate(ACK_MODES):
        cs = [env.sync(v, ack, delay) for v in VARIANTS]
        x = np.arange(len(VARIANTS)) + (j - 1) * w
        ax.bar(x, [c.mean if c else np.nan for c in cs], w, yerr=[c.ci if c else 0 for c in cs], color=_ACK_COLOR[ack], label=ACK_LABEL[ack], capsize=3)
        if paper:
            ax.plot(x, [PAPER_TABLE1[(v, ack)] for v in VARIANTS], "kD", ms=5, label="Pentikousis & Badr" if j == 0 else None)
    ax.set_xticks(np.arange(len(VARIANTS)), [v.capitalize() if v != "newreno" else "NewReno" for v in VARIANTS])
    ax.set_ylabel("total connection time (s)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return fig


def fig02_times(cfg: StudyConfig, env: Env) -> Any:
    """Fig. 2: rate-based vs temporal connection times per drop rate, one panel per sojourn."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(cfg.sojourns), figsize=(4.2 * len(cfg.sojourns), 4), sharey=True, squeeze=False)
    for ax, m in zip(axes[0], cfg.sojourns):
        for j, (model, col) in enumerate((("rate", "#c44e52"), ("temporal", "#4c72b0"))):
            cs = [env.models(model, m, r) for r in cfg.drops]
            x = np.arange(len(cfg.drops)) + (j - 0.5) * 0.38
            ax.bar(x, [c.mean if c else np.nan for c in cs], 0.38, yerr=[c.ci if c else 0 for c in cs], color=col, capsize=3,
                   label="rate-based" if model == "rate" else f"temporal (VDDP, sub-cycle {cfg.setup.cycle:g} s)")
        for k, r in enumerate(cfg.drops):
            q = env.model_ratio(m, r)
            c = env.models("rate", m, r)
            if c is not None and math.isfinite(q.value):
                ax.annotate(f"{q.value:.1f}×", (k, c.mean + c.ci), ha="center", va="bottom", fontsize=8)
        ax.set_xticks(np.arange(len(cfg.drops)), [f"{100 * r:g} %" for r in cfg.drops])
        ax.set_xlabel("drop rate in state B")
        ax.set_title(f"mean sojourn {m:g} s", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel(f"connection time, {cfg.models_size / 1e6:g} MB (s)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Fig. 2: rate-based vs temporal error models (TCP Tahoe)", fontsize=11)
    return fig


def fig02_subcycle(cfg: StudyConfig, pts: Sequence[tuple[str, Any, Env]]) -> Any:
    """Ratio rate-based ÷ temporal against the VDDP sub-cycle, with the paper's ratios."""
    import matplotlib.pyplot as plt

    cyc = sorted(((v, e) for name, v, e in pts if name == "cycle"), key=lambda t: t[0])
    fig, axes = plt.subplots(1, len(cfg.sojourns), figsize=(4.6 * len(cfg.sojourns), 4), sharey=True, squeeze=False)
    targets = {0.01: 1.0, 0.1: 2.0, 0.5: 7.0}
    for ax, m in zip(axes[0], cfg.sojourns):
        for (r, col) in zip(cfg.drops, ("#55a868", "#dd8452", "#c44e52")):
            rs = [e.model_ratio(m, r) for _, e in cyc]
            x = [v for v, _ in cyc]
            ax.plot(x, [q.value for q in rs], "o-", color=col, label=f"{100 * r:g} %")
            ax.fill_between(x, [q.lo for q in rs], [q.hi for q in rs], color=col, alpha=0.15)
            if m == cfg.sojourns[0] and r in targets:
                ax.axhline(targets[r], color=col, ls="--", lw=0.9)
        rs = [e.model_ratio(m, 0.1, 0.5) for _, e in cyc]
        ax.plot([v for v, _ in cyc], [q.value for q in rs], "s:", color="k", label="rate 10 % ÷ temporal 50 %")
        ax.axvline(cfg.setup.cycle, color="grey", lw=0.6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("VDDP mean ON+OFF sub-cycle (s)")
        ax.set_title(f"mean sojourn {m:g} s" + (" (dashed: the paper's 1×, 2×, 7×)" if m == cfg.sojourns[0] else ""), fontsize=9)
        ax.grid(alpha=0.3, which="both")
    axes[0][0].set_ylabel("rate-based time ÷ temporal time")
    axes[0][0].legend(fontsize=7, title="drop rate in B", title_fontsize=7)
    fig.suptitle("Fig. 2 against the unpublished VDDP sub-cycle", fontsize=11)
    return fig


def fig02_equivalence(cfg: StudyConfig, env: Env) -> Any:
    """Temporal connection time against its drop rate, beside the rate-based 10 % time."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for m, col in zip(cfg.sojourns, ("#4c72b0", "#55a868")):
        rs = sorted(set(cfg.drops) | set(cfg.equivalence_drops))
        cs = [(r, c) for r in rs if (c := env.models("temporal", m, r)) is not None]
        ax.errorbar([100 * r for r, _ in cs], [c.mean for _, c in cs], yerr=[c.ci for _, c in cs], fmt="o-", color=col, capsize=2, label=f"temporal, sojourn {m:g} s")
        ref = env.models("rate", m, 0.1)
        if ref is not None:
            ax.axhspan(ref.mean - ref.ci, ref.mean + ref.ci, color=col, alpha=0.15)
            ax.axhline(ref.mean, color=col, ls="--", lw=0.9, label=f"rate-based 10 %, sojourn {m:g} s")
        eq = env.equivalent_drop(m)
        if math.isfinite(eq):
            ax.axvline(100 * eq, color=col, lw=0.6)
    for x in (44, 50):
        ax.axvline(x, color="k", ls=":", lw=0.8)
    ax.set_xlabel("temporal drop rate in B (% of B's time ON)")
    ax.set_ylabel(f"connection time, {cfg.models_size / 1e6:g} MB (s)")
    ax.set_title("Which temporal drop rate matches rate-based 10 %? (paper: 44-50 %, dotted)", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return fig


def _sweeps(pts: Sequence[tuple[str, Any, Env]]) -> dict[str, list[tuple[Any, Env]]]:
    out: dict[str, list[tuple[Any, Env]]] = {}
    for name, v, e in pts:
        out.setdefault(name, []).append((v, e))
    return out


def fig_sensitivity(cfg: StudyConfig, pts: Sequence[tuple[str, Any, Env]], which: str) -> Any:
    """One panel per open parameter: the headline ratios against its value (categorical
    axis; the default marked), the paper's values dashed."""
    import matplotlib.pyplot as plt

    sw = {k: v for k, v in _sweeps(pts).items() if which == "models" or SCOPE.get(k, "all") == "all"}
    names = list(sw)
    ncol = 4
    nrow = max(1, math.ceil(len(names) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.3 * ncol, 2.8 * nrow), squeeze=False)
    m1 = cfg.sojourns[0]
    series: list[tuple[str, Any, str]]
    if which == "sync":
        series = [(f"{'LAN' if d == 0 else f'{1e3 * d:g} ms'}", (lambda e, d=d: e.sync_ratio("independent", "sync", d)), col)
                  for d, col in zip(cfg.delays, ("#4c72b0", "#dd8452", "#c44e52"))]  # fmt: skip
        lines = [(1.34, "#4c72b0"), (2.0, "#dd8452")]
        ylabel = "not sync ÷ sync"
    else:
        series = [(f"{100 * r:g} %", (lambda e, r=r: e.model_ratio(m1, r)), col) for r, col in zip(cfg.drops, ("#55a868", "#dd8452", "#c44e52"))]
        series.append(("rate 10 % ÷ temp 50 %", lambda e: e.model_ratio(m1, 0.1, 0.5), "k"))
        lines = [(1.0, "#55a868"), (2.0, "#dd8452"), (7.0, "#c44e52")]
        ylabel = f"rate ÷ temporal ({m1:g}-s sojourns)"
    for k, ax in enumerate(axes.flat):
        if k >= len(names):
            ax.axis("off")
            continue
        name = names[k]
        vals = sw[name]
        x = np.arange(len(vals))
        for label, f, col in series:
            rs = [f(e) for _, e in vals]
            ax.errorbar(x, [q.value for q in rs], yerr=[[max(0.0, q.value - q.lo) if math.isfinite(q.lo) else 0 for q in rs], [max(0.0, q.hi - q.value) if math.isfinite(q.hi) else 0 for q in rs]],
                        fmt="o-", color=col, ms=3, capsize=2, label=label)
        for y, col in lines:
            ax.axhline(y, color=col, ls="--", lw=0.7)
        default = getattr(cfg.setup, name)
        ax.set_xticks(x, [show(name, v) + ("*" if v == default else "") for v, _ in vals], fontsize=7)
        ax.set_title(PARAM_LABEL.get(name, name), fontsize=9)
        ax.grid(alpha=0.3)
        if k % ncol == 0:
            ax.set_ylabel(ylabel, fontsize=8)
    axes.flat[0].legend(fontsize=6)
    fig.suptitle(("ACK-loss synchronization" if which == "sync" else "rate-based vs temporal (Fig. 2)") + " against each open parameter (* default; dashed: the paper)", fontsize=10)
    fixed_layout(fig, left=0.75, top=0.65, bottom=0.35, wspace=0.45, hspace=0.6)  # y labels on the first column only
    return fig


def fig_table1_rate(cfg: StudyConfig, pts: Sequence[tuple[str, Any, Env]]) -> Any:
    """Table 1's times against the capacity, with the paper's (dashed): the evidence for the
    default capacity."""
    import matplotlib.pyplot as plt

    vals = sorted((v, e) for name, v, e in pts if name == "rate")
    fig, axes = plt.subplots(1, len(VARIANTS), figsize=(4 * len(VARIANTS), 3.6), sharey=True)
    for ax, var in zip(axes, VARIANTS):
        for ack in ACK_MODES:
            cs = [e.sync(var, ack, 0.0) for _, e in vals]
            ax.errorbar([v / 1e6 for v, _ in vals], [c.mean if c else np.nan for c in cs], yerr=[c.ci if c else 0 for c in cs], fmt="o-", ms=3,
                        color=_ACK_COLOR[ack], capsize=2, label=ACK_LABEL[ack])
            ax.axhline(PAPER_TABLE1[(var, ack)], color=_ACK_COLOR[ack], ls="--", lw=0.8)
        ax.axvline(cfg.setup.rate / 1e6, color="grey", lw=0.6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("channel capacity (Mb/s)")
        ax.set_title(var if var != "newreno" else "NewReno", fontsize=10)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel(f"connection time, {cfg.sync_size / 1e6:g} MB, LAN (s)")
    axes[0].legend(fontsize=7)
    fig.suptitle("Table 1 against the capacity (dashed: the paper's nine times)", fontsize=10)
    return fig


# --------------------------------------------------------------------------------------
# tables and the report
# --------------------------------------------------------------------------------------
CELL_COLUMNS = ["cell", "experiment", "variant", "ack_loss", "added_delay", "model", "mean_good", "mean_bad", "drop", "cycle", "size", "rate", "buffer",
                "lan_delay", "mss", "delayed_ack", "rto_min", "rwnd", "init_cwnd", "n", "incomplete", "mean_s", "sd_s", "ci95_s", "timeouts",
                "spurious_timeouts", "fast_retransmits", "data_loss", "ack_loss_rate", "queue_drops"]  # fmt: skip


def cell_rows(stats: dict[str, CellStats]) -> list[dict[str, Any]]:
    rows = []
    for cid, c in sorted(stats.items(), key=lambda kv: kv[0]):
        rows.append({"cell": cid, **c.params, "n": c.n, "incomplete": c.incomplete, "mean_s": c.mean, "sd_s": c.sd, "ci95_s": c.ci, "timeouts": c.timeouts,
                     "spurious_timeouts": c.spurious_timeouts, "fast_retransmits": c.fast_retransmits, "data_loss": c.data_loss,
                     "ack_loss_rate": c.ack_loss, "queue_drops": c.queue_drops})  # fmt: skip
    return rows


HEADLINE = [
    ("t1_tahoe_none", "Table 1 Tahoe, no lost ACKs (s)", 71.798),
    ("t1_indep_sync", "Table 1 not sync ÷ sync", 1.34),
    ("t1_sync_none", "Table 1 sync ÷ none", 1.035),
    ("f3a_indep_sync", "Fig. 3a not sync ÷ sync", 2.0),
    ("f3b_indep_sync", "Fig. 3b not sync ÷ sync", None),
    ("f3b_sync_none", "Fig. 3b sync ÷ none", None),
    ("f2_1s_0.01", "Fig. 2 1 s, 1 %: rate ÷ temporal", 1.0),
    ("f2_1s_0.1", "Fig. 2 1 s, 10 %", 2.0),
    ("f2_1s_0.5", "Fig. 2 1 s, 50 %", 7.0),
    ("f2_1s_rate10_temp50", "Fig. 2 1 s: rate 10 % ÷ temporal 50 %", 1.0),
    ("f2_10s_rate10_temp50", "Fig. 2 10 s: rate 10 % ÷ temporal 50 %", 1.0),
    ("f2_1s_equiv", "temporal drop ≡ rate 10 % (1 s)", 0.44),
]


def sensitivity_rows(pts: Sequence[tuple[str, Any, Env]], base: Env) -> list[dict[str, Any]]:
    """One row per sensitivity point: the parameter, its value and the headline numbers."""
    rows = []
    for name, v, e in [("baseline", None, base), *pts]:
        h = e.headline()
        row: dict[str, Any] = {"parameter": name, "value": show(name, v) if name != "baseline" else "defaults"}
        for k, _, _ in HEADLINE:
            x = h.get(k, math.nan)
            row[k] = x.value if isinstance(x, Ratio) else x
            if isinstance(x, Ratio):
                row[k + "_lo"], row[k + "_hi"] = x.lo, x.hi
        rows.append(row)
    return rows


def write_outputs(cfg: StudyConfig, out: Path, store: ResultStore, runs: Sequence[dict[str, Any]],
                  formats: Sequence[str] = ("png",), progress: bool = False) -> tuple[dict[str, Path], list[dict[str, Any]], Path, Path]:  # fmt: skip
    """Write every table, figure (PNG, and the other ``formats``) and the report; returns
    (figures, claims, md, html)."""
    stats = cell_stats(runs)
    base, pts = environments(cfg, runs)
    vs = EC.verdicts(cfg, base)
    svs = [sv for name in ("cycle", "fig2_ack_loss") for sv in EC.setting_verdicts(cfg, pts, name)]
    cl = claim_rows(vs) + claim_rows([v for sv in svs for v in sv.verdicts])
    write_tables(out, store, cell_rows(stats), CELL_COLUMNS, cl, sensitivity_rows(pts, base))
    delays = list(cfg.delays)
    jobs: list[FigureJob] = [("fig02", "fig02-connection-times", fig02_times, (cfg, base)), ("fig02-equivalence", "fig02-equivalence", fig02_equivalence, (cfg, base))]
    if any(name == "cycle" for name, _, _ in pts):
        jobs.append(("fig02-subcycle", "fig02-subcycle", fig02_subcycle, (cfg, pts)))
    jobs.append(("table1", "table1", fig_sync, (base, 0.0, f"Table 1: ON/OFF {ON_OFF[0]:g} s / {ON_OFF[1]:g} s, {cfg.sync_size / 1e6:g} MB, LAN", True)))
    for tag, d in zip(("fig03a", "fig03b"), delays[1:]):
        jobs.append((tag, tag, fig_sync, (base, d, f"Fig. 3{tag[-1]}: + {1e3 * d:g} ms per segment each way", False)))
    if any(name == "rate" for name, _, _ in pts):
        jobs.append(("sensitivity-table1-rate", "sensitivity-table1-rate", fig_table1_rate, (cfg, pts)))
    if pts:
        jobs += [("sensitivity-sync", "sensitivity-sync", fig_sensitivity, (cfg, pts, "sync")), ("sensitivity-models", "sensitivity-models", fig_sensitivity, (cfg, pts, "models"))]
    figs = draw_figures(jobs, out / "figures", formats, progress=progress)

    prov = provenance.cell_study("error-models", cfg, "transfers")
    provenance.write(out, prov, store)
    write_json(out / "summary.json", {"config": cfg.to_dict(), "provenance": prov, "burstlab_version": __version__, "n_runs": len(runs), "n_cells": len(stats),
                                      "headline": {k: (v.value if isinstance(v, Ratio) else v) for k, v in base.headline().items()},
                                      "tally": asdict(tally(vs)), "claims": cl})  # fmt: skip
    blocks = build_report(cfg, out, base, pts, stats, vs, svs, figs, len(runs), "pdf" in formats, prov)
    md, html = write_report(out, blocks, "burstlab: error models for TCP simulations (Pentikousis & Badr)")
    return figs, claim_rows(vs), md, html


_img = img_block


def _mech_sync(env: Env, delay: float) -> list[list[str]]:
    """Mechanism table: per variant and ACK mode, timeouts (spurious), fast retransmits,
    segment and ACK loss rates."""
    rows = []
    for v in VARIANTS:
        for a in ACK_MODES:
            c = env.sync(v, a, delay)
            if c is None:
                continue
            rows.append([v, ACK_LABEL[a], _t(c), f"{c.timeouts:.1f} ({c.spurious_timeouts:.1f})", f"{c.fast_retransmits:.1f}",
                         f"{100 * c.data_loss:.2f}", f"{100 * c.ack_loss:.2f}", f"{c.queue_drops:.1f}"])  # fmt: skip
    return rows


MECH_HEAD = ["variant", "ACKs", "time (s)", "timeouts (spurious)", "fast retransmits", "segments lost %", "ACKs lost %", "queue drops"]


def build_report(cfg: StudyConfig, out: Path, env: Env, pts: Sequence[tuple[str, Any, Env]], stats: dict[str, CellStats], vs: Sequence[Verdict],
                 svs: Sequence[SettingVerdicts], figs: dict[str, Path], n_runs: int, pdf: bool = False, prov: dict[str, Any] | None = None) -> list[Block]:  # fmt: skip
    prov = prov or provenance.cell_study("error-models", cfg, "transfers")
    s = cfg.setup
    b: list[Block] = preamble(
        "Error models for TCP simulations: Pentikousis & Badr, checked",
        quick=f"{cfg.seeds} transfers per cell, {cfg.sweep_seeds} per sensitivity point, two values per open parameter" if cfg.quick else None,
        numbers=replicates_sentence("transfers", n_runs, len(stats), cfg.seed, cfg.seeds, cfg.sweep_seeds) + ", [lo, hi] a 95 % interval of a ratio (delta method over paired transfers: replicate k uses the same seed, hence the same channel "
                "trajectory, in every cell).",
        tables=("runs", "cells", "claims"), files=("cells.csv", "claims.csv", "sensitivity.csv", "summary.json"))  # fmt: skip
    b.append(("h2", "Setting: what the paper gives and what we chose"))
    b.append(("ul", [
        f"Topology: one channel hop ({show('rate', s.rate)} Mb/s, {show('lan_delay', s.lan_delay)} ms one way, DropTail {s.buffer} packets) carrying the loss "
        "process in time mode (a segment is lost if a bad/ON period overlaps its serialisation on the channel); Fig. 3 adds a lossless delay hop of 50 or 300 ms "
        "each way in series (VDDP's \"fixed delay to each incoming segment\", so RTT ≈ 100 / 600 ms).",
        f"TCP (x-kernel's BSD-derived stack, not described): MSS {s.mss} B, delayed ACKs {show('delayed_ack', s.delayed_ack)} (every 2nd segment, 200 ms), "
        f"minimum RTO {s.rto_min:g} s (RFC 6298 estimator, Karn's rule, backoff kept until a new sample), initial window {s.init_cwnd}, receiver window "
        f"{show('rwnd', s.rwnd)}, 3 duplicate ACKs; Tahoe, Reno (RFC 5681), NewReno (RFC 6582).",
        f"Transfers: {cfg.models_size / 1e6:g} MB (Fig. 2) and {cfg.sync_size / 1e6:g} MB (Table 1, Fig. 3), MB = 10^6 bytes; each replicate a fresh "
        "connection over a channel started in its stationary state (the paper's \"batches\" are 10 serial transfers).",
        f"Fig. 2: rate-based = continuous-time Markov chain (equal exponential sojourns in A and B), a Bernoulli trial per segment in B; temporal = VDDP with "
        f"the same main sojourns, B ON for a share = drop rate of its time, exponential sub-periods with mean ON+OFF sub-cycle {s.cycle:g} s (not published: swept), "
        f"residual-sojourn memory as §2; ACKs: {ACK_LABEL[s.fig2_ack_loss]} (one channel process for both directions, as the original VDDP).",
        f"Table 1 / Fig. 3: ON/OFF, exponential good {ON_OFF[0]:g} s and bad {ON_OFF[1]:g} s, every segment in a bad period lost; ACKs never lost, lost by the same "
        "process (synchronized) or by an independent copy of it (not synchronized).",
        "Every choice is argued in `docs/study-error-models.md`; each open parameter is varied below (Sensitivity).",
    ]))

    b += claims_section(vs, intervals="Ratios of Fig. 2 use a bootstrap interval (BCa over replicates: completion times have long retransmission-timeout "
                                      "tails), the others the delta method or paired t. Fig. 2's claims under every swept setting: below, with Fig. 2.")
    # Table 1
    b.append(("h2", "Table 1: synchronized ACK losses on a LAN"))
    rows = []
    for v in VARIANTS:
        for a in ACK_MODES:
            c = env.sync(v, a, 0.0)
            p = PAPER_TABLE1[(v, a)]
            diff = 100 * (c.mean - p) / p if c is not None and math.isfinite(c.mean) else math.nan
            rows.append([v, ACK_LABEL[a], f"{p:.1f}", _t(c), _fmt(diff, 0)])
    b.append(("table", (["variant", "ACKs", "paper (s)", "ours (s)", "ours − paper (%)"], rows)))
    rat = []
    for var in (*VARIANTS, None):
        vs = (var,) if var else VARIANTS
        pr = sum(PAPER_TABLE1[(x, "independent")] for x in vs) / sum(PAPER_TABLE1[(x, "sync")] for x in vs)
        ps = sum(PAPER_TABLE1[(x, "sync")] for x in vs) / sum(PAPER_TABLE1[(x, "none")] for x in vs)
        rat.append([var or "pooled", f"{pr:.2f}", format(env.sync_ratio("independent", "sync", 0.0, var), ".2f"), f"{ps:.3f}", format(env.sync_ratio("sync", "none", 0.0, var), ".3f")])
    b.append(("table", (["variant", "paper: not sync ÷ sync", "ours", "paper: sync ÷ none", "ours"], rat)))
    b += _img(figs, out, "table1", "Table 1 (bars: ours, 95 % CI; diamonds: the paper)", pdf)
    b.append(("p", noise_note(cfg, env)))
    b.append(("p", "Mechanism (means per transfer; a spurious timeout fired while the segment it retransmits had arrived or was still on its way — "
                   "i.e. its ACKs, not its data, were lost or late):"))
    b.append(("table", (MECH_HEAD, _mech_sync(env, 0.0))))
    for tag, d in zip(("fig03a", "fig03b"), list(cfg.delays)[1:]):
        b.append(("h2", f"Fig. 3{tag[-1]}: + {1e3 * d:g} ms per segment each way"))
        b.append(("p", "The paper gives Fig. 3 only as a bar chart without numbers; its text's claims are checked above."))
        b += _img(figs, out, tag, f"Fig. 3{tag[-1]}", pdf)
        b.append(("table", (MECH_HEAD, _mech_sync(env, d))))

    # Fig. 2
    b.append(("h2", "Fig. 2: rate-based vs temporal error models"))
    rows = []
    for m in cfg.sojourns:
        for r in cfg.drops:
            ra, te = env.models("rate", m, r), env.models("temporal", m, r)
            rows.append([f"{m:g}", f"{100 * r:g}", _t(ra), _t(te), format(env.model_ratio(m, r), ".2f"),
                         f"{100 * ra.data_loss:.2f} / {100 * te.data_loss:.2f}" if ra and te else "–",
                         f"{ra.timeouts:.1f} / {te.timeouts:.1f}" if ra and te else "–", f"{100 * ra.ack_loss:.2f} / {100 * te.ack_loss:.2f}" if ra and te else "–"])
    b.append(("table", (["sojourn (s)", "drop in B (%)", "rate-based (s)", f"temporal, sub-cycle {s.cycle:g} s (s)", "ratio", "segments lost % (rate / temp)",
                         "timeouts (rate / temp)", "ACKs lost % (rate / temp)"], rows)))
    b.append(("p", "The paper's Fig. 2 has no printed numbers; its text: ≈ 1× at 1 %, > 2× at 10 %, 7× at 50 % (1-s sojourns); rate-based 10 % ≈ temporal 50 % "
                   "for both sojourns and ≈ temporal 44 % for 1-s sojourns. Ours: temporal drop rate equivalent to rate-based 10 %: "
                   + ", ".join(f"{100 * env.equivalent_drop(m):.0f} % ({m:g}-s sojourns)" if math.isfinite(env.equivalent_drop(m)) else f"never ({m:g} s)" for m in cfg.sojourns) + "."))
    b += _img(figs, out, "fig02", "Fig. 2: connection times (ratio rate ÷ temporal above the bars)", pdf)
    b += _img(figs, out, "fig02-equivalence", "Fig. 2: the temporal drop rate equivalent to rate-based 10 %", pdf)
    cyc = sorted(((v, e) for name, v, e in pts if name == "cycle"), key=lambda t: t[0])
    if cyc:
        b.append(("p", "**The unpublished VDDP sub-cycle.** Ratio rate-based ÷ temporal and the equivalent temporal drop rate for every sub-cycle swept "
                       f"({cfg.seeds} transfers per cell; the rate-based cells do not depend on it):"))
        head = ["sub-cycle (s)"] + [f"{m:g} s, {100 * r:g} %" for m in cfg.sojourns for r in cfg.drops] + [f"{m:g} s: ≡ rate 10 %" for m in cfg.sojourns]
        rows = [[f"{v:g}"] + [format(e.model_ratio(m, r), ".2f") for m in cfg.sojourns for r in cfg.drops]
                + [_pct(e.equivalent_drop(m)) for m in cfg.sojourns] for v, e in cyc]  # fmt: skip
        b.append(("table", (head, rows)))
    if svs:
        b += settings_blocks(svs, "**Fig. 2's claims under each documented setting** of the open parameters (the VDDP sub-cycle, Fig. 2's ACK losses):")
    if cyc:
        b += _img(figs, out, "fig02-subcycle", "Fig. 2 against the VDDP sub-cycle", pdf)

    b.append(("h2", "Mechanisms behind the numbers"))
    b.append(("ul", why(cfg, env, pts)))

    # sensitivity
    if pts:
        b.append(("h2", "Sensitivity to every open parameter"))
        b.append(("p", f"Each open parameter varied alone, the others at their defaults (`*`); every point of a parameter uses the same transfers (replicates): the first {cfg.sweep_seeds} "
                       f"(the sub-cycle: {cfg.seeds}), so the default's numbers here can differ from the {cfg.seeds}-transfer ones above by sampling noise. "
                       "Paper values in the header where the paper gives one. Full table: [`sensitivity.csv`](sensitivity.csv)."))
        head = ["parameter", "value"] + [f"{lab}" + (f" (paper {pv:g})" if pv is not None else "") for _, lab, pv in HEADLINE]
        rows = []
        for name, v, e in pts:
            h = e.headline()
            cells_ = []
            for k, _, _ in HEADLINE:
                x = h.get(k, math.nan)
                cells_.append(format(x, ".2f") if isinstance(x, Ratio) else (_pct(x) if k.endswith("equiv") else _fmt(x, 1)))
            rows.append([PARAM_LABEL.get(name, name), show(name, v) + ("*" if v == getattr(s, name) else ""), *cells_])
        b.append(("table", (head, rows)))
        for k, alt in (("sensitivity-table1-rate", "Table 1 against the capacity"), ("sensitivity-sync", "ACK synchronization against each open parameter"),
                       ("sensitivity-models", "Fig. 2 ratios against each open parameter")):
            b += _img(figs, out, k, alt, pdf)

    b += provenance.blocks(prov, cli_args(cfg), out)
    return b


def cli_args(cfg: StudyConfig) -> list[str]:
    """The command-line options that reproduce ``cfg`` (from the settings' declarations,
    :func:`burstlab.study.settings.reproduce_args`)."""
    return settings.reproduce_args(cfg)

