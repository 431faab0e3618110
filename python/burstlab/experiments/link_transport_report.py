"""Tables, figures and the report of the link- and transport-protocol study
(:mod:`burstlab.experiments.link_transport`, Subramanian, Ramakrishnan and Kalyanaraman).

Outputs under the study folder:

- ``store.duckdb``: table ``runs`` (one row per cell × replicate) and ``cells`` (one row per
  cell: its parameters and the means of its numbers);
- ``cells.csv``, ``claims.csv``, ``sensitivity.csv``, ``table1.csv``, ``summary.json``;
- ``figures/``: ``fig1-mac-throughput-residual``, ``fig4-loss-goodput``,
  ``fig7-link-latency``, ``slide9-rto-srtt-cwnd``, ``slide10-spurious-timeout``,
  ``slides15-18-trace``, ``slides15-18-synthetic``, ``table1-ll-harq``,
  ``slides19-20-sack-lt-tcp``, ``sensitivity`` (PNG; PDF too with ``formats``);
- ``report.md`` and ``report.html`` (the same content).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from burstlab._core import __version__
from burstlab.experiments.common import FigureJob, draw_figures, fixed_layout, img_block, mean_ci, show_param, write_json, write_report, write_tables
from burstlab.experiments.link_transport import (
    HOPS,
    LABEL,
    LINKS,
    LTCP_RTT,
    LTCP_VARIANTS,
    PERSISTENCES,
    TABLE1_FLOWS,
    TCPS,
    ARRAYS,
    CellStats,
    Env,
    Example,
    StudyConfig,
    cell_stats,
    environments,
    example_run,
    orbit_cell,
    replicate_seed,
)
from burstlab.experiments import link_transport_claims as LC
from burstlab.experiments.link_transport_claims import COLLAPSE_RESIDUAL, COLLAPSE_SHARE, LINEAR_TOL, ZERO_RESIDUAL
from burstlab.experiments.prr_mu_report import Block, write_csv
from burstlab.study import settings
from burstlab.study.blocks import claims_section, preamble, replicates_sentence
from burstlab.study.verdict import SettingVerdicts, Verdict, claim_rows
from burstlab.store import ResultStore

#: Table 1 of the slides, verbatim: error rate → (goodput, throughput, residual loss %,
#: average latency ms, PFEC sent, RFEC sent, PFEC wasted, RFEC wasted), rates in Mb/s.
TABLE1: dict[float, tuple[float, ...]] = {
    0.0: (9.96, 9.99, 0.00, 10.97, 0.02, 0.00, 0.02, 0.00),
    0.1: (8.05, 9.98, 0.00, 13.83, 1.48, 0.39, 0.61, 0.26),
    0.2: (6.71, 9.99, 0.00, 13.26, 2.90, 0.36, 1.04, 0.23),
    0.3: (5.61, 9.99, 0.00, 13.80, 3.77, 0.59, 1.03, 0.33),
    0.4: (4.58, 9.98, 0.00, 14.67, 4.60, 0.80, 1.02, 0.38),
    0.5: (3.59, 9.99, 0.00, 15.05, 5.40, 0.98, 1.00, 0.39),
}
TABLE1_ROWS = ("Goodput (Mb/s)", "Throughput (Mb/s)", "Residual loss rate (%)", "Avg. latency (ms)", "PFEC sent (Mb/s)", "RFEC sent (Mb/s)",
               "PFEC wasted (Mb/s)", "RFEC wasted (Mb/s)")  # fmt: skip
_COLOR = {7: "#4c72b0", 15: "#dd8452", 25: "#55a868", "llarq": "#c44e52", "llharq": "#4c72b0", "sack": "#c44e52", "lt-tcp": "#55a868",
          "sack-ecn": "#8172b2"}  # fmt: skip

PARAM_LABEL = {
    "attempt_max": "ARQ attempt time max (ms)", "attempt_min": "ARQ attempt time min (ms)", "orbit_delay": "ORBIT hop delay (ms)",
    "recovery": "TCP loss recovery (ORBIT hop)", "rto_min": "minimum RTO (s)", "buffer": "buffer (packets)", "persistence": "LL-ARQ attempts",
    "harq_sizing": "LL-HARQ FEC sizing", "harq_target": "LL-HARQ decoding target", "error_unit": "synthetic error rate read per",
    "hop_delay": "hop delay (ms)", "overhead": "per-attempt overhead (µs)", "alive_prr": "trace links: PRR at quietest ≥",
    "table1_tcp": "Table 1 transport", "ltcp_buffer": "slides 19-20 buffer (packets)", "link_rate": "link rate (Mb/s)",
    "harq_attempts": "LL-HARQ attempts", "fragment_bytes": "LL-HARQ fragment (bytes)", "example_noise": "example noise (dBm)",
    "mss": "MSS (bytes)", "duration": "run length (s)", "trace_mode": "trace replay", "trace_slot": "trace entry (ms)",
}  # fmt: skip


#: The units the tables print parameters in (``show_param``).
_PER = {"attempt_max": 1e-3, "attempt_min": 1e-3, "orbit_delay": 1e-3, "hop_delay": 1e-3, "trace_slot": 1e-3, "overhead": 1e-6, "link_rate": 1e6}


def show(name: str, v: Any) -> str:
    return show_param(name, v, _PER)


def _ch(ch: tuple[str, Any]) -> str:
    return f"dbm{ch[1]}" if ch[0] == "orbit" else f"{100 * ch[1]:g} %"


def _pm(c: CellStats | None, k: str = "goodput_bps", scale: float = 1e-6, nd: int = 3) -> str:
    if c is None:
        return "–"
    m, h = c.ci(k)
    if not math.isfinite(m):
        return "–"
    return f"{m * scale:.{nd}f} ± {h * scale:.{nd}f}" if math.isfinite(h) else f"{m * scale:.{nd}f}"


def _pct(v: float, nd: int = 1) -> str:
    return "–" if not math.isfinite(v) else f"{100 * v:.{nd}f} %"


# --------------------------------------------------------------------------------------
# figures (matplotlib, Agg)
# --------------------------------------------------------------------------------------
def _err(ax: Any, x: Sequence[float], cs: Sequence[CellStats | None], k: str, scale: float, **kw: Any) -> None:
    m = [c.ci(k) if c is not None else (math.nan, math.nan) for c in cs]
    ax.errorbar(x, [a * scale for a, _ in m], yerr=[0 if not math.isfinite(h) else h * scale for _, h in m], capsize=2, ms=4, **kw)


def _axes(env: Env) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    return [ch for ch in env.channels if ch[0] == "orbit"], [ch for ch in env.channels if ch[0] == "uniform"]


def _xs(chs: Sequence[tuple[str, Any]]) -> list[float]:
    return [float(ch[1]) if ch[0] == "orbit" else 100 * float(ch[1]) for ch in chs]


def fig1(env: Env) -> Any:
    """Fig. 1: MAC throughput (a) and residual loss (b) against noise level (top) and uniform
    raw loss (bottom), ARQ persistence 7, 15, 25."""
    import matplotlib.pyplot as plt

    orb, uni = _axes(env)
    fig, axes = plt.subplots(2, 2, figsize=(9.6, 6.6))
    for row, chs, xl in ((0, orb, "injected noise level (Rutgers ORBIT traces, dBm setting)"), (1, uni, "uniform raw loss per attempt (%)")):
        for r in PERSISTENCES:
            cs = [env.orbit(ch, r) for ch in chs]
            _err(axes[row, 0], _xs(chs), cs, "mac_bps", 1e-6, fmt="o-", color=_COLOR[r], label=f"ARQ = {r}")
            _err(axes[row, 1], _xs(chs), cs, "residual_loss", 100, fmt="o-", color=_COLOR[r], label=f"ARQ = {r}")
        axes[row, 0].set_ylabel("MAC throughput (Mb/s)")
        axes[row, 1].set_ylabel("residual loss rate (%)")
        for ax in axes[row]:
            ax.set_xlabel(xl, fontsize=8)
            ax.grid(alpha=0.3)
    axes[0, 1].set_yscale("symlog", linthresh=0.01)
    axes[1, 1].set_yscale("symlog", linthresh=0.01)
    axes[0, 0].legend(fontsize=7)
    axes[0, 0].set_title("(a) MAC throughput", fontsize=9)
    axes[0, 1].set_title("(b) residual loss rate", fontsize=9)
    fig.suptitle("Fig. 1: MAC throughput and residual loss for ARQ persistence 7, 15, 25 (one TCP-SACK flow)", fontsize=10)
    fixed_layout(fig, top=0.65, bottom=0.55, hspace=0.6)
    return fig


def fig4(env: Env) -> Any:
    """Fig. 4: raw and residual loss (a) and TCP goodput (b) against noise (ARQ = 15);
    (c) goodput ÷ lossless against residual loss, every ORBIT-hop cell."""
    import matplotlib.pyplot as plt

    orb, uni = _axes(env)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.0))
    cs = [env.orbit(ch, 15) for ch in orb]
    _err(axes[0], _xs(orb), cs, "raw_loss", 100, fmt="s-", color="k", label="raw (per attempt)")
    _err(axes[0], _xs(orb), cs, "residual_loss", 100, fmt="o-", color="#c44e52", label="residual (after 15 attempts)")
    axes[0].set_ylabel("loss rate (%)")
    axes[0].legend(fontsize=7)
    _err(axes[1], _xs(orb), cs, "goodput_bps", 1e-6, fmt="o-", color="#4c72b0", label="TCP goodput")
    axes[1].set_ylabel("TCP goodput (Mb/s)")
    for ax in axes[:2]:
        ax.set_xlabel("injected noise level (dBm setting)", fontsize=8)
        ax.grid(alpha=0.3)
    ref = env.value(env.orbit(("uniform", 0.0), 15))
    for r in PERSISTENCES:
        for kind, mk in (("orbit", "s"), ("uniform", "o")):
            pts = [(env.value(c, "residual_loss"), env.value(c) / ref) for ch in env.channels if ch[0] == kind and (c := env.orbit(ch, r)) is not None]
            axes[2].plot([100 * max(x, 1e-4) for x, _ in pts], [y for _, y in pts], mk, color=_COLOR[r], ms=4,
                         label=f"ARQ = {r}, {'traces' if kind == 'orbit' else 'uniform'}")  # fmt: skip
    axes[2].axvline(100 * COLLAPSE_RESIDUAL, color="grey", ls="--", lw=0.8, label="5 % residual")
    axes[2].set_xscale("log")
    axes[2].set_xlabel("residual loss rate (%)")
    axes[2].set_ylabel("TCP goodput ÷ lossless")
    axes[2].legend(fontsize=6)
    axes[2].grid(alpha=0.3, which="both")
    fig.suptitle("Fig. 4: loss rates and TCP performance with increasing interference", fontsize=10)
    fixed_layout(fig, top=0.4)
    return fig


def _hist(ax: Any, d: Any, scale: float, xlabel: str) -> None:
    if d.count:
        edges = np.append(d.lower, d.lower[-1] + d.width[-1]) * scale
        ax.stairs(d.counts / (d.count * d.width * scale), edges, fill=True, color="#4c72b0")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("density (per unit of x)", fontsize=8)
    ax.grid(alpha=0.3)


def fig7(ex: Example) -> Any:
    """Fig. 7: per-attempt time (a), total latency per frame (b), attempts per frame (c)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    st = ex.stats
    _hist(axes[0], st.attempt_time, 1e6, "time per ARQ attempt (µs)")
    _hist(axes[1], st.latency, 1e3, "total link latency per frame (ms)")
    axes[1].set_yscale("log")
    h = np.asarray(st.attempts_per_frame, float)
    axes[2].bar(np.arange(len(h)), h / max(1.0, h.sum()), color="#4c72b0")
    axes[2].set_yscale("log")
    axes[2].set_xlabel("ARQ attempts per frame")
    axes[2].grid(alpha=0.3)
    axes[2].set_ylabel("share of frames", fontsize=8)
    fig.suptitle(f"Fig. 7: link-layer latencies at dbm{ex.params['noise_dbm']} (ARQ = {ex.params['persistence']}, one run)", fontsize=10)
    fixed_layout(fig, top=0.4)
    return fig


def slide9(ex: Example) -> Any:
    """Slide 9: RTO, SRTT and cwnd over time."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(8, 7), sharex=True)
    t = ex.series["time"]  # values change at events: steps, not ramps, through a stall
    axes[0].plot(t, ex.series["rto"], color="#c44e52", lw=0.8, drawstyle="steps-post")
    axes[0].set_yscale("log")
    axes[0].set_ylabel("RTO (s)")
    axes[1].plot(t, ex.series["srtt"], color="#4c72b0", lw=0.8, drawstyle="steps-post")
    axes[1].set_ylabel("SRTT (s)")
    axes[2].plot(t, ex.series["cwnd"] / ex.params["mss"], color="#55a868", lw=0.8, drawstyle="steps-post")
    axes[2].set_ylabel("cwnd (segments)")
    axes[2].set_xlabel("time (s)")
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.suptitle(f"Slide 9: TCP dynamics at dbm{ex.params['noise_dbm']}, ARQ = {ex.params['persistence']}: {ex.timeouts} timeouts, "
                 f"{ex.spurious} spurious", fontsize=10)  # fmt: skip
    fixed_layout(fig, top=0.4, bottom=0.5, hspace=0.15)
    return fig


def slide10(ex: Example, env: Env) -> Any:
    """Slide 10: time-sequence plot around a segment sent three times (a); spurious
    timeouts per run against noise and persistence (b)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    lg = ex.log
    ax = axes[0]
    if ex.thrice is not None:
        sent = (lg["event"] == 0) & (lg["kind"] == 0) & (lg["link"] == 0)
        ts = np.sort(lg["time"][sent & (lg["seg"] == ex.thrice)])
        lo, hi = ts[0] - 0.05, ts[-1] + 0.1
        w = sent & (lg["time"] >= lo) & (lg["time"] <= hi)
        ax.plot(lg["time"][w & ~lg["retx"]], lg["seg"][w & ~lg["retx"]], ".", ms=3, color="#4c72b0", label="sent")
        ax.plot(lg["time"][w & lg["retx"]], lg["seg"][w & lg["retx"]], "x", ms=5, color="#c44e52", label="retransmitted")
        arr = (lg["event"] == 3) & (lg["kind"] == 0) & (lg["time"] >= lo) & (lg["time"] <= hi)
        ax.plot(lg["time"][arr], lg["seg"][arr], "+", ms=4, color="#55a868", label="arrived at the receiver")
        for k, t0 in enumerate(ts[:3]):
            ax.annotate(f"#{k + 1}", (t0, ex.thrice), fontsize=7)
        ax.set_title(f"(a) segment {ex.thrice} sent {len(ts)} times", fontsize=9)
        ax.legend(fontsize=7)
    else:
        ax.set_title("(a) no segment was sent three times in this run", fontsize=9)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("segment number")
    ax.grid(alpha=0.3)
    orb = [ch for ch in env.channels if ch[0] == "orbit"]
    x = np.arange(len(orb))
    for k, r in enumerate(PERSISTENCES):
        sp = [env.value(env.orbit(ch, r), "spurious_timeouts") for ch in orb]
        tt = [env.value(env.orbit(ch, r), "timeouts") for ch in orb]
        axes[1].bar(x + (k - 1) * 0.27, tt, 0.27, color=_COLOR[r], alpha=0.35)
        axes[1].bar(x + (k - 1) * 0.27, sp, 0.27, color=_COLOR[r], label=f"ARQ = {r}: spurious (solid) of all (light)")
    axes[1].set_xticks(x, [_ch(ch) for ch in orb])
    axes[1].set_ylabel("timeouts per run")
    axes[1].set_title("(b) timeouts and spurious timeouts", fontsize=9)
    axes[1].legend(fontsize=7)
    axes[1].grid(alpha=0.3)
    fig.suptitle("Slide 10: spurious timeouts", fontsize=10)
    fixed_layout(fig, top=0.7)
    return fig


def slides15_18(env: Env, kind: str) -> Any:
    """Slides 15-18: transport goodput, per-hop link delay and timeouts; rows 1 and 4 hops;
    LL-ARQ and LL-HARQ under TCP-SACK and LT-TCP."""
    import matplotlib.pyplot as plt

    orb, uni = _axes(env)
    chs = orb if kind == "trace" else uni
    fig, axes = plt.subplots(2, 3, figsize=(13, 6.6))
    for row, h in enumerate(HOPS):
        for link in LINKS:
            for tcp in TCPS:
                cs = [env.lltx(ch, link, tcp, h) for ch in chs]
                kw = {"fmt": "o-" if tcp == "lt-tcp" else "s--", "color": _COLOR[link], "label": f"{LABEL[tcp]} + {LABEL[link]}"}
                _err(axes[row, 0], _xs(chs), cs, "goodput_bps", 1e-6, **kw)
                _err(axes[row, 1], _xs(chs), cs, "latency_mean", 1e3, **kw)
                _err(axes[row, 2], _xs(chs), cs, "timeouts", 1, **kw)
        axes[row, 0].set_ylabel(f"{h} hop{'s' if h > 1 else ''}: goodput (Mb/s)")
        axes[row, 1].set_ylabel("link delay per hop (ms)")
        axes[row, 2].set_ylabel("timeouts per run")
        for ax in axes[row]:
            ax.grid(alpha=0.3)
            ax.set_xlabel("noise level (dBm setting)" if kind == "trace" else "uniform error rate (%)", fontsize=8)
    axes[0, 1].set_yscale("log")
    axes[1, 1].set_yscale("log")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(f"Slides 15-18: LL-ARQ vs LL-HARQ under TCP-SACK and LT-TCP, {'trace-driven' if kind == 'trace' else 'synthetic'}", fontsize=10)
    fixed_layout(fig, top=0.4, hspace=0.6)
    return fig


def table1_fig(env: Env, cfg: StudyConfig) -> Any:
    """Table 1 as a figure: each quantity, the slides' (dashed) and ours (95 % CI)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    ps = [p for p in cfg.table1_ps]
    cs = [env.table1(p) for p in ps]
    x = [100 * p for p in ps]
    pp = [p for p in ps if p in TABLE1]
    for ax, keys in ((axes[0], (("goodput_bps", 0, "goodput"), ("link_bps", 1, "throughput"))),
                     (axes[2], (("pfec_sent_bps", 4, "PFEC sent"), ("rfec_sent_bps", 5, "RFEC sent"), ("pfec_wasted_bps", 6, "PFEC wasted"),
                                ("rfec_wasted_bps", 7, "RFEC wasted")))):  # fmt: skip
        for k, (col, i, lab) in enumerate(keys):
            c = f"C{k}"
            _err(ax, x, cs, col, 1e-6, fmt="o-", color=c, label=f"{lab} (ours)")
            ax.plot([100 * p for p in pp], [TABLE1[p][i] for p in pp], "x--", color=c, lw=0.8, label=f"{lab} (Table 1)")
        ax.set_ylabel("Mb/s")
    lat = [1e3 * (env.value(c, "latency_mean") + env.value(c, "queue_delay_mean")) for c in cs]
    axes[1].plot(x, lat, "o-", color="C0", label="avg. latency (ours: queue + link)")
    axes[1].plot([100 * p for p in pp], [TABLE1[p][3] for p in pp], "x--", color="C0", lw=0.8, label="avg. latency (Table 1)")
    axes[1].set_ylabel("ms")
    for ax in axes:
        ax.set_xlabel("error rate (%)")
        ax.legend(fontsize=6)
        ax.grid(alpha=0.3)
    fig.suptitle(f"Table 1: LL-HARQ, {TABLE1_FLOWS} flows on one link", fontsize=10)
    fixed_layout(fig, top=0.4)
    return fig


def slides19_20(env: Env, cfg: StudyConfig) -> Any:
    """Slides 19-20: goodput against uniform loss (RTT 100 ms) and against RTT (0 and 10 %)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for v in LTCP_VARIANTS:
        _err(axes[0], [100 * p for p in cfg.ltcp_ps], [env.ltcp(v, p) for p in cfg.ltcp_ps], "goodput_bps", 1e-6, fmt="o-", color=_COLOR[v], label=LABEL[v])
        for p, ls in ((0.0, ":"), (0.1, "-")):
            _err(axes[1], [1e3 * r for r in cfg.ltcp_rtts], [env.ltcp(v, p, r) for r in cfg.ltcp_rtts], "goodput_bps", 1e-6, fmt="o" + ls, color=_COLOR[v],
                 label=f"{LABEL[v]}, {100 * p:g} % loss")  # fmt: skip
    axes[0].set_xlabel("uniform packet loss rate (%)")
    axes[0].set_title(f"(a) RTT {1e3 * LTCP_RTT:g} ms", fontsize=9)
    axes[1].set_xlabel("RTT (ms)")
    axes[1].set_yscale("log")
    axes[1].set_title("(b) against RTT", fontsize=9)
    for ax in axes:
        ax.set_ylabel("goodput (Mb/s)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Slides 19-20: TCP-SACK vs LT-TCP, 10 Mb/s, 1 flow, RED/ECN", fontsize=10)
    fixed_layout(fig, top=0.7)
    return fig


#: The headline numbers of the sensitivity table: key, label.
HEADLINE = [
    ("residual_R7", "residual loss, ARQ 7 (example noise)"), ("residual_R15", "residual loss, ARQ 15"), ("residual_R25", "residual loss, ARQ 25"),
    ("goodput_R15", "TCP goodput, ARQ 15 (Mb/s)"), ("latency_p99_R15", "link latency p99, ARQ 15 (ms)"), ("spurious_R15", "spurious timeouts per run, ARQ 15"),
    ("harq_arq_1hop", "LL-HARQ ÷ LL-ARQ goodput, LT-TCP, 1 hop"), ("harq_arq_4hop", "LL-HARQ ÷ LL-ARQ goodput, LT-TCP, 4 hops"),
    ("sack_4hop", "TCP-SACK + LL-HARQ, 4 hops (Mb/s)"), ("lt_4hop", "LT-TCP + LL-HARQ, 4 hops (Mb/s)"),
    ("table1_goodput", "Table 1 goodput (Mb/s)"), ("table1_latency", "Table 1 latency (ms)"), ("lt_share_30", "LT-TCP share at 30 % (slides 19-20)"),
]  # fmt: skip


def fig_sensitivity(cfg: StudyConfig, pts: Sequence[tuple[str, Any, Env]]) -> Any:
    """One panel per open parameter: a few headline numbers against its value."""
    import matplotlib.pyplot as plt

    sw: dict[str, list[tuple[Any, Env]]] = {}
    for name, v, e in pts:
        sw.setdefault(name, []).append((v, e))
    names = list(sw)
    ncol = 4
    nrow = max(1, math.ceil(len(names) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.3 * ncol, 2.8 * nrow), squeeze=False)
    series = [("goodput_R15", "TCP goodput ARQ 15 (Mb/s)"), ("harq_arq_1hop", "HARQ ÷ ARQ, 1 hop"), ("harq_arq_4hop", "HARQ ÷ ARQ, 4 hops"),
              ("table1_goodput", "Table 1 goodput at 30 % (Mb/s)"), ("lt_share_30", "LT-TCP share at 30 %")]  # fmt: skip
    for k, ax in enumerate(axes.flat):
        if k >= len(names):
            ax.axis("off")
            continue
        name = names[k]
        heads = [e.headline() for _, e in sw[name]]
        x = np.arange(len(heads))
        for j, (key, lab) in enumerate(series):
            ax.plot(x, [h.get(key, math.nan) for h in heads], "o-", color=f"C{j}", ms=3, label=lab)
        default = getattr(cfg.setup, name)
        ax.set_xticks(x, [show(name, v) + ("*" if v == default else "") for v, _ in sw[name]], fontsize=7)
        ax.set_title(PARAM_LABEL.get(name, name), fontsize=9)
        ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=6)
    fig.suptitle("headline numbers against each open parameter (* default)", fontsize=10)
    fixed_layout(fig, left=0.55, top=0.65, bottom=0.35, wspace=0.5, hspace=0.6)
    return fig


# --------------------------------------------------------------------------------------
# tables and the report
# --------------------------------------------------------------------------------------
CELL_COLUMNS = ["cell", "experiment", "channel", "noise_dbm", "p", "persistence", "link", "tcp", "hops", "flows", "rtt", "attempt_min", "attempt_max",
                "delay", "link_rate", "overhead", "harq_attempts", "harq_sizing", "harq_target", "fragment_bytes", "error_unit", "recovery", "buffer",
                "rto_min", "mss", "duration", "alive_prr", "trace_mode", "trace_slot", "trace_digest", "n", *(f"{k}_mean" for k in ARRAYS), "goodput_ci95_bps"]  # fmt: skip


def cell_rows(stats: dict[str, CellStats]) -> list[dict[str, Any]]:
    rows = []
    for cid, c in sorted(stats.items()):
        row = {"cell": cid, **{k: c.params.get(k) for k in CELL_COLUMNS if k in c.params}, "n": c.n}
        row.update({f"{k}_mean": mean_ci(c.a[k])[0] for k in ARRAYS})
        row["goodput_ci95_bps"] = c.ci()[1]
        rows.append(row)
    return rows


def table1_rows(env: Env, cfg: StudyConfig) -> list[dict[str, Any]]:
    """Table 1, ours beside the slides', one row per quantity and error rate."""
    keys = ("goodput_bps", "link_bps", "residual_loss", None, "pfec_sent_bps", "rfec_sent_bps", "pfec_wasted_bps", "rfec_wasted_bps")
    rows = []
    for p in cfg.table1_ps:
        c = env.table1(p)
        for i, (name, k) in enumerate(zip(TABLE1_ROWS, keys)):
            if c is None:
                ours = math.nan
            elif k is None:
                ours = 1e3 * (env.value(c, "latency_mean") + env.value(c, "queue_delay_mean"))
            else:
                ours = env.value(c, k) * (100 if k == "residual_loss" else 1e-6)
            rows.append({"error_rate": p, "quantity": name, "paper": TABLE1[p][i] if p in TABLE1 else None, "ours": ours})
    return rows


def sensitivity_rows(pts: Sequence[tuple[str, Any, Env]], base: Env) -> list[dict[str, Any]]:
    rows = []
    for name, v, e in [("baseline", None, base), *pts]:
        rows.append({"parameter": name, "value": show(name, v) if name != "baseline" else "defaults", **e.headline()})
    return rows


def write_outputs(cfg: StudyConfig, out: Path, store: ResultStore, runs: Sequence[dict[str, Any]],
                  formats: Sequence[str] = ("png",), progress: bool = False) -> tuple[dict[str, Path], list[dict[str, Any]], Path, Path]:  # fmt: skip
    """Write every table, figure and the report; returns (figures, claims, md, html)."""
    stats = cell_stats(runs)
    base, pts = environments(cfg, runs)
    s = cfg.setup
    ex_cell = orbit_cell(s, ("orbit", s.example_noise), 15, base.tc)
    ex = example_run(ex_cell, replicate_seed(cfg.seed, 0))
    vs, svs = LC.verdicts(cfg, base, TABLE1), LC.setting_verdicts(cfg, base, pts, TABLE1, show)
    cl = claim_rows(vs)
    write_tables(out, store, cell_rows(stats), CELL_COLUMNS, cl + claim_rows([v for sv in svs for v in sv.verdicts]), sensitivity_rows(pts, base))
    write_csv(out / "table1.csv", table1_rows(base, cfg), ["error_rate", "quantity", "paper", "ours"])
    jobs: list[FigureJob] = []
    jobs.append(("fig1", "fig1-mac-throughput-residual", fig1, (base,)))
    jobs.append(("fig4", "fig4-loss-goodput", fig4, (base,)))
    jobs.append(("fig7", "fig7-link-latency", fig7, (ex,)))
    jobs.append(("slide9", "slide9-rto-srtt-cwnd", slide9, (ex,)))
    jobs.append(("slide10", "slide10-spurious-timeout", slide10, (ex, base)))
    jobs.append(("slides15-18-trace", "slides15-18-trace", slides15_18, (base, "trace")))
    jobs.append(("slides15-18-synthetic", "slides15-18-synthetic", slides15_18, (base, "synthetic")))
    jobs.append(("table1", "table1-ll-harq", table1_fig, (base, cfg)))
    jobs.append(("slides19-20", "slides19-20-sack-lt-tcp", slides19_20, (base, cfg)))
    if pts:
        jobs.append(("sensitivity", "sensitivity", fig_sensitivity, (cfg, pts)))
    figs = draw_figures(jobs, out / "figures", formats, progress=progress)
    write_json(out / "summary.json", {"config": cfg.to_dict(), "burstlab_version": __version__, "n_runs": len(runs), "n_cells": len(stats),
                                      "trace_links": len(base.tc.links), "trace_digest": base.tc.digest, "headline": base.headline(), "claims": cl})  # fmt: skip
    blocks = build_report(cfg, out, base, pts, ex, vs, svs, figs, len(runs), len(stats), "pdf" in formats)
    md, html = write_report(out, blocks, "burstlab: link and transport protocols in interference-prone WLANs (Subramanian et al.)")
    return figs, cl, md, html


def build_report(cfg: StudyConfig, out: Path, env: Env, pts: Sequence[tuple[str, Any, Env]], ex: Example, vs: Sequence[Verdict],
                 svs: Sequence[SettingVerdicts], figs: dict[str, Path], n_runs: int, n_cells: int, pdf: bool = False) -> list[Block]:  # fmt: skip
    s = cfg.setup
    tc = env.tc
    b: list[Block] = preamble(
        "Link and transport protocols in interference-prone WLANs: Subramanian, Ramakrishnan & Kalyanaraman, reproduced",
        quick=f"{cfg.seeds} runs of {s.duration:g} s per cell, {cfg.sweep_seeds} per sensitivity point, fewer error rates, two values of three open parameters"
        if cfg.quick else None,
        numbers=replicates_sentence("runs", n_runs, n_cells, cfg.seed, cfg.seeds, cfg.sweep_seeds) + " (Student t). Replicate k uses the same seed — the same "
                "channel — in every cell.",
        tables=("runs", "cells"), files=("cells.csv", "claims.csv", "table1.csv", "sensitivity.csv", "summary.json"))  # fmt: skip
    b.append(("h2", "Setting: what the slides give and what we chose"))
    lv = ", ".join(f"dbm{x}: {_pct(tc.raw_loss(x))}" for x in env.levels)
    b.append(("ul", [
        f"Raw channels from the Rutgers ORBIT noise traces ({tc.root}): the {len(tc.links)} links with PRR ≥ {s.alive_prr:g} at the quietest level, "
        f"followed across the noise levels (raw loss {lv}); per replicate their traces are concatenated in a seeded random order (the same at every "
        "level) and replayed " + (f"in time, one entry per {1e3 * s.trace_slot:g} ms: an ARQ attempt or LL-HARQ fragment is lost when its air time "
        "meets a lost entry" if s.trace_mode == "time" else "one entry per channel unit (ARQ attempt or LL-HARQ fragment)") + ". The paper's levels "
        "(-40 to -25 dBm) are not those of the traces; the uniform-loss axis (0-50 % per attempt) spans the paper's raw-loss range.",
        f"ORBIT hop (Figs. 1, 4, 7, slides 9-10): one {s.recovery.upper() if s.recovery == 'sack' else s.recovery} flow, ARQ of 7, 15 or 25 attempts, each "
        f"attempt uniform in [{1e3 * s.attempt_min:g}, {1e3 * s.attempt_max:g}] ms, no backoff (slide 8), {1e3 * s.orbit_delay:g} ms one way, "
        f"{s.buffer}-packet DropTail buffer, RTO ≥ {s.rto_min:g} s.",
        f"Simulations (slides 15-18, Table 1): hops of {s.link_rate / 1e6:g} Mb/s, {1e3 * s.hop_delay:g} ms one way, {s.buffer}-packet buffers; LL-ARQ "
        f"{s.persistence} attempts; LL-HARQ {s.harq_attempts} attempts, {s.fragment_bytes}-byte fragments, FEC sized by the {s.harq_sizing} rule"
        f"{f' (target {s.harq_target:g})' if s.harq_sizing == 'quantile' else ''}; synthetic error rate per {s.error_unit}; "
        f"Table 1 with {TABLE1_FLOWS} {LABEL[s.table1_tcp]} flows.",
        f"Slides 19-20: the network of `benchmarks/lt_tcp/subramanian.py` (10 Mb/s, RED/ECN, {s.ltcp_buffer}-packet buffer, Bernoulli loss of data "
        f"packets), RTT {1e3 * LTCP_RTT:g} ms for the loss sweep.",
        f"Every run {s.duration:g} s (the slides' 100 s), goodput over the whole run. Every choice is argued in `docs/study-link-transport.md`.",
    ]))  # fmt: skip
    b += claims_section(vs, svs, intervals=("A comparison of two cells of one network is a paired difference (replicate k sees the same channel in every "
                                            "cell); a share of the lossless goodput is a ratio of means (delta method); a share of timeouts and the "
                                            "distance from a straight line are bootstrapped over replicates. \"Collapse\": below "
                                            f"{100 * COLLAPSE_SHARE:.0f} % of the lossless goodput; \"zero\" residual loss: below {100 * ZERO_RESIDUAL:g} %; "
                                            f"\"linear\": within {LINEAR_TOL:g} of the least-squares line through (0, 1). The slides' RTO trace (slide 9) and "
                                            "segment sent three times (slide 10) are single runs: our example run is shown beside them as an illustration, "
                                            "and the mechanism they illustrate is judged through the share of spurious timeouts."),
                        setting_intro="**Verdicts under each documented setting** of the open parameters the slides leave unstated (each point on the "
                                      f"first {cfg.sweep_seeds} replicates; the claims whose cells the sweep runs):")  # fmt: skip

    orb = [ch for ch in env.channels if ch[0] == "orbit"]
    b.append(("h2", "Fig. 1: ARQ persistence, MAC throughput and residual loss"))
    rows = [[_ch(ch), *(f"{_pm(env.orbit(ch, r), 'mac_bps', 1e-6, 2)} / {_pm(env.orbit(ch, r), 'residual_loss', 100, 3)}" for r in PERSISTENCES)] for ch in env.channels]
    b.append(("table", (["channel", *(f"ARQ {r}: MAC Mb/s / residual %" for r in PERSISTENCES)], rows)))
    b += img_block(figs, out, "fig1", "Fig. 1", pdf)
    b.append(("h2", "Fig. 4: raw vs residual loss and TCP goodput against noise (ARQ = 15)"))
    rows = [[_ch(ch), _pm(env.orbit(ch, 15), "raw_loss", 100, 2), _pm(env.orbit(ch, 15), "residual_loss", 100, 3), _pm(env.orbit(ch, 15)),
             _pm(env.orbit(ch, 15), "timeouts", 1, 1), _pm(env.orbit(ch, 15), "spurious_timeouts", 1, 1)] for ch in env.channels]  # fmt: skip
    b.append(("table", (["channel", "raw loss %", "residual loss %", "TCP goodput Mb/s", "timeouts", "spurious timeouts"], rows)))
    b += img_block(figs, out, "fig4", "Fig. 4", pdf)
    b.append(("h2", f"Fig. 7 and slides 9-10: latency and TCP's timer at dbm{s.example_noise}"))
    st = ex.stats
    b.append(("p", f"One run (replicate 0, ARQ = 15) re-simulated with its series and per-packet log: {st.frames} frames, {st.attempts / max(1, st.frames):.2f} "
                   f"attempts per frame, attempt time mean {1e6 * (st.attempt_time.mean or 0):.0f} µs, frame latency mean {1e3 * (st.latency.mean or 0):.2f} ms, "
                   f"p99 {1e3 * (st.latency.quantiles.get(0.99) or 0):.1f} ms, max {1e3 * (st.latency.max or 0):.1f} ms; {ex.timeouts} timeouts, "
                   f"{ex.spurious} of them spurious."))
    b += img_block(figs, out, "fig7", "Fig. 7", pdf)
    b += img_block(figs, out, "slide9", "Slide 9", pdf)
    b += img_block(figs, out, "slide10", "Slide 10", pdf)
    b.append(("h2", "Slides 15-18: LL-ARQ vs LL-HARQ under TCP-SACK and LT-TCP"))
    head = ["channel", "hops", *(f"{LABEL[t]} + {LABEL[l]}" for l in LINKS for t in TCPS)]
    rows = []
    for h in HOPS:
        for ch in env.channels:
            rows.append([_ch(ch), str(h), *(f"{_pm(c)} ({1e3 * env.value(c, 'latency_mean'):.2f} ms, {env.value(c, 'timeouts'):.1f} TO, "
                                            f"{_pct(env.value(c, 'residual_loss'), 2)})" if (c := env.lltx(ch, l, t, h)) is not None else "–"
                                            for l in LINKS for t in TCPS)])  # fmt: skip
    b.append(("p", "Transport goodput (Mb/s) with, in brackets, the mean link delay per hop, timeouts per run and end-to-end residual loss:"))
    b.append(("table", (head, rows)))
    b += img_block(figs, out, "slides15-18-trace", "Slides 15-18, trace-driven", pdf)
    b += img_block(figs, out, "slides15-18-synthetic", "Slides 15-18, synthetic", pdf)
    b.append(("h2", f"Table 1: LL-HARQ, {TABLE1_FLOWS} flows on one link"))
    t1 = table1_rows(env, cfg)
    rows = []
    for name in TABLE1_ROWS:
        rows.append([name, *(f"{r['paper']:.2f} / {r['ours']:.2f}" if r["paper"] is not None else f"– / {r['ours']:.2f}"
                             for p in cfg.table1_ps for r in t1 if r["error_rate"] == p and r["quantity"] == name)])  # fmt: skip
    b.append(("p", "Each cell: the slides' value / ours (mean over the runs). Our latency is the mean queueing delay plus the link-layer service "
                   "time of a frame; throughput is what the link put on the air (data and FEC fragments)."))
    b.append(("table", (["parameter", *(f"{100 * p:g} %" for p in cfg.table1_ps)], rows)))
    b += img_block(figs, out, "table1", "Table 1", pdf)
    b.append(("h2", "Slides 19-20: TCP-SACK vs LT-TCP"))
    rows = [[f"{100 * p:g} %", *(_pm(env.ltcp(v, p)) for v in LTCP_VARIANTS)] for p in cfg.ltcp_ps]
    b.append(("table", (["loss", *(f"{LABEL[v]} (Mb/s)" for v in LTCP_VARIANTS)], rows)))
    rows = [[f"{1e3 * r:g}", *(_pm(env.ltcp(v, p, r)) for p in (0.0, 0.1) for v in LTCP_VARIANTS)] for r in cfg.ltcp_rtts]
    b.append(("table", (["RTT (ms)", *(f"{LABEL[v]}, {100 * p:g} %" for p in (0.0, 0.1) for v in LTCP_VARIANTS)], rows)))
    b += img_block(figs, out, "slides19-20", "Slides 19-20", pdf)
    b.append(("h2", "Where ours differ, and why"))
    b.append(("ul", why(cfg, env, vs)))
    if pts:
        b.append(("h2", "Sensitivity to the open parameters"))
        b.append(("p", f"Each open parameter varied alone (`*`: default), on the first {cfg.sweep_seeds} replicates; a sensitivity point runs the cells "
                       "its headline numbers need. Full table: [`sensitivity.csv`](sensitivity.csv)."))
        rows = []
        for name, v, e in pts:
            hl = e.headline()
            rows.append([PARAM_LABEL.get(name, name), show(name, v) + ("*" if v == getattr(s, name) else ""),
                         *("–" if not math.isfinite(hl.get(k, math.nan)) else f"{hl[k]:.3g}" for k, _ in HEADLINE)])  # fmt: skip
        b.append(("table", (["parameter", "value", *(lab for _, lab in HEADLINE)], rows)))
        b += img_block(figs, out, "sensitivity", "Sensitivity", pdf)
    b.append(("h2", "Reproduce"))
    b.append(("p", f"`burstlab study link-transport {' '.join(settings.reproduce_args(cfg))} --out {out}` (re-running skips every finished run; the "
                   "configuration is in [`summary.json`](summary.json))."))
    return b


def why(cfg: StudyConfig, env: Env, vs: Sequence[Verdict]) -> list[str]:
    """The mechanisms behind the differences, with the simulator's evidence."""
    s = cfg.setup
    out: list[str] = []
    if vs and all(v.outcome == "reproduced" for v in vs if not v.claim.calibration):
        out.append("Every claim checked is reproduced.")
    ex = ("orbit", s.example_noise)
    a, c = env.orbit(ex, 7), env.orbit(ex, 25)
    verdict = {v.claim.id: v.outcome for v in vs}
    if a is not None and c is not None and verdict.get("slide6-goodput-falls") == "contradicted":  # explains that contradiction only
        out.append(f"**Persistence and MAC throughput.** With no backoff and one attempt-time law, a busy ARQ link delivers (1 − raw loss) frames per "
                   f"attempt time whatever its limit; MAC throughput differs between persistence levels only through the load TCP offers. At dbm{s.example_noise} "
                   f"TCP got {env.value(a) / 1e6:.2f} Mb/s with ARQ 7 and {env.value(c) / 1e6:.2f} with ARQ 25, with {env.value(a, 'timeouts'):.1f} and "
                   f"{env.value(c, 'timeouts'):.1f} timeouts per run: fewer residual losses keep the window open, longer retry chains (p99 "
                   f"{1e3 * env.value(a, 'latency_p99'):.1f} vs {1e3 * env.value(c, 'latency_p99'):.1f} ms) stretch the RTT. The slides' lowered goodput "
                   f"at higher persistence needs retry chains long against TCP's timer; ours stay far below the {s.rto_min:g}-s RTO floor, so a residual "
                   "loss (a window cut, often a timeout) costs more than the delay of retrying; longer attempts (`attempt_max`) move towards the slides.")  # fmt: skip
    tr = [(ch, env.lltx(ch, "llharq", "lt-tcp", 1), env.lltx(ch, "llarq", "lt-tcp", 1)) for ch in env.channels if ch[0] == "orbit"]
    worse = [(ch, x, y) for ch, x, y in tr if x is not None and y is not None and env.value(x) < env.value(y)]
    if worse:
        ch, x, y = worse[-1]
        if s.trace_mode == "time":
            txt = (f"A trace entry covers {1e3 * s.trace_slot:g} ms, about a whole frame attempt, so a lost entry kills every fragment on the air in "
                   "it: LL-HARQ's losses come in blocks of a frame's worth of fragments, which FEC sized for independent losses cannot repair "
                   "(docs/link-layer.md: against bursts as long as a frame FEC does not help within the burst), while each LL-ARQ attempt meets one "
                   "or two entries and retries until a good stretch comes. Shorter entries (`trace_slot`) break the blocks up: see Sensitivity.")
        else:
            txt = ("Each unit takes the next trace entry, so a dead link's run of 301 lost entries kills ≈ 301 fragments (about 15 frames' worth) in "
                   f"a row: LL-HARQ's {s.harq_attempts} attempts cannot outlast it, where LL-ARQ's {s.persistence} attempts of a whole frame each "
                   "sometimes can.")
        out.append(f"**LL-HARQ on the traces.** At {_ch(ch)} LL-HARQ gets {env.value(x) / 1e6:.2f} Mb/s against LL-ARQ's {env.value(y) / 1e6:.2f}, residual "
                   f"{_pct(env.value(x, 'residual_loss'), 2)} against {_pct(env.value(y, 'residual_loss'), 2)}. " + txt)
    u = [ch for ch in env.channels if ch[0] == "uniform" and ch[1] > 0]
    if u:
        hi = max(u)
        hx, hy = env.lltx(hi, "llharq", "lt-tcp", 1), env.lltx(hi, "llarq", "lt-tcp", 1)
        if hx is not None and hy is not None:
            x, y = hx, hy
            out.append(f"**Synthetic loss per unit.** At {_ch(hi)} per unit (an LL-ARQ frame or an LL-HARQ fragment: the default `error_unit`), LL-HARQ "
                       f"carries {env.value(x) / 1e6:.2f} Mb/s against LL-ARQ's {env.value(y) / 1e6:.2f}, link delay {1e3 * env.value(x, 'latency_mean'):.2f} "
                       f"vs {1e3 * env.value(y, 'latency_mean'):.2f} ms: the FEC costs air time in proportion to the loss ({env.value(x, 'pfec_sent_bps') / 1e6:.2f} "
                       f"Mb/s of PFEC), while ARQ's retries cost a frame and one per-attempt overhead each. Read per frame (`error_unit = frame`, independent bit errors), "
                       "a fragment's loss is ~10 times smaller: see Sensitivity and the verdicts under each `error_unit`.")
    t = env.table1(0.3) if 0.3 in cfg.table1_ps else None
    if t is not None:
        out.append(f"**Table 1.** At 30 % we measure PFEC {env.value(t, 'pfec_sent_bps') / 1e6:.2f} Mb/s (slides 3.77) and RFEC "
                   f"{env.value(t, 'rfec_sent_bps') / 1e6:.2f} (0.59): the quantile rule sizes PFEC for a 99 % chance of decoding in one attempt, so "
                   "it sends more proactive FEC and asks for less reactive FEC than the slides' scheme, whose PFEC ratios match the mean losses at the "
                   "error rate plus 10 points (docs/link-layer.md); `harq_sizing = mean` is the other end (Sensitivity). Our latency is queueing "
                   f"({1e3 * env.value(t, 'queue_delay_mean'):.1f} ms mean) plus service: it follows the buffer, which the slides do not give.")
    lt = [env.ltcp("lt-tcp", p) for p in (0.0, 0.45, 0.5)]
    if all(c is not None for c in lt) and 0.5 in cfg.ltcp_ps:
        out.append(f"**LT-TCP at 45-50 %** keeps {env.value(lt[1]) / env.value(lt[0]):.2f} and {env.value(lt[2]) / env.value(lt[0]):.2f} of its lossless "
                   "goodput (the slides: linear to 50 %). Runs are bimodal: the first window carries no parity (the erasure estimate starts at 0) and a run "
                   "whose first blocks fail stalls on backed-off timers (docs/validation.md, LT-TCP).")
    return out
