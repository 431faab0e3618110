"""``burstlab report TRACE``: what one trace of a link says about it, and what TCP will do
over it — in one page (Markdown and HTML, with figures).

1. **Burstiness profile** (Srinivasan et al. §5, §8; Barsocchi et al. §IV): PRR, g, b and
   μ = 1 − g − b; μ over growing prefixes and the length after which it stays within
   :data:`MU_BAND` of the whole trace's (does the trace say enough?); the loss-burst and
   success-run distributions against the geometric laws of the same means (what an
   independent or Gilbert-Elliott link would give).
2. **The best model by TCP fidelity** (:func:`burstlab.judge.select`): every family fitted
   on the first half, judged on the second by the same TCP over the trace and over
   synthetic replicates, in slotted and link modes; the best one refitted on the whole
   trace, with its parameters.
3. **Predicted goodput of every TCP variant** on the link the user describes (rate, delay,
   buffer): each variant over the best model inside the engine (losses per packet),
   ``seeds`` runs, mean with a 95 % t-interval; beside it the same TCP over the trace
   itself replayed on that link (mean over as many starts), and the closed forms (Mathis, Padhye; TIBET's
   ideal-estimate model for ``ideal``) at the trace's loss rate and loss-event rate.
"""

from __future__ import annotations

import base64
import json
import math
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from burstlab import _core
from burstlab.analytic import mathis, padhye, tibet_ideal
from burstlab.experiments.common import mean_ci
from burstlab.experiments.prr_mu_report import render_html, render_md
from burstlab.io import atomic_write_text
from burstlab.judge import rotated, select
from burstlab.sim import PROFILES, VARIANTS, Link, Scenario, TcpConfig, Workload, link_layer_config, run
from burstlab.traces import Trace

#: μ has "settled" once every longer prefix's μ is within this of the whole trace's.
MU_BAND = 0.05
#: What ``report`` judges unless told: every family whose fit takes well under a second on
#: 10^5 entries (the Baum-Welch fits — gilbert-elliott's EM, hmm, hsmm, vddp — take several;
#: ``--models all`` adds them).
REPORT_MODELS = ("bernoulli-fer", "bistable", "markov-ct", "semi-markov", "runlength", "run-chain", "run-chain-vo", "bootstrap")


@dataclass(frozen=True)
class UserLink:
    """The link the user describes: capacity (bits/s), one-way delay (s), DropTail buffer
    (packets), a link layer (``link_layer``: a spec such as ``"arq:retry_limit=7"``,
    :func:`burstlab.linklayer.parse_link_layer`; None: none), the run length (s) of each
    prediction and the TCP profile."""

    rate: float = 1e6
    delay: float = 0.02
    buffer: int = 50
    duration: float = 300.0
    profile: str = "rfc"
    link_layer: str | None = None

    def __post_init__(self) -> None:
        for name in ("rate", "delay", "duration"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and (v > 0 or (name == "delay" and v >= 0))):
                raise _core.ParameterError(f"invalid parameter {name} = {v!r}: expected a positive finite number")
        if not (isinstance(self.buffer, int) and self.buffer >= 1):
            raise _core.ParameterError(f"invalid parameter buffer = {self.buffer!r}: expected at least 1 packet")

        if self.profile not in PROFILES:
            raise _core.ParameterError(f"invalid parameter profile = {self.profile!r}: expected one of {', '.join(PROFILES)}")
        link_layer_config(self.link_layer)  # a bad spec fails here, naming itself

    def make(self, loss: Any) -> Any:
        """The :class:`burstlab.sim.Link` with ``loss`` per packet."""
        return Link(rate=self.rate, delay=self.delay, buffer=self.buffer, loss=loss, link_layer=self.link_layer)

    def describe(self) -> str:
        layer = f", link layer {self.link_layer}" if self.link_layer else ""
        return f"{self.rate / 1e6:.4g} Mbit/s, one-way delay {1000 * self.delay:.4g} ms, DropTail buffer {self.buffer} packets{layer}"


@dataclass
class Prediction:
    """One TCP variant on the user's link: goodput (segments/s) over the best model
    (mean, 95 % interval, runs), over the replayed trace, and its settings."""

    variant: str
    runs: list[float]
    mean: float
    ci: tuple[float, float]
    trace_goodput: float
    timeouts: float

    def to_dict(self) -> dict[str, Any]:
        return {"variant": self.variant, "goodput_pps": self.mean, "ci95": list(self.ci), "runs": self.runs,
                "trace_replay_pps": self.trace_goodput, "mean_timeouts": self.timeouts}  # fmt: skip


@dataclass
class LinkReport:
    trace_name: str
    stats: Any  # TraceStats
    settle: int | None
    geometric: dict[str, dict[str, float | None]]
    selection: Any  # burstlab.judge.Selection
    link: UserLink
    predictions: list[Prediction]
    closed_forms: list[dict[str, Any]]
    seconds: dict[str, float] = field(default_factory=dict)

    def _repr_html_(self) -> str:
        """The page itself, figures embedded, in a notebook: the body of the page ``burstlab
        report`` writes, its style scoped to the cell."""
        with tempfile.TemporaryDirectory() as d:
            figs = _figures(self, Path(d))
            page = html_page(blocks(self, figs), f"burstlab report: {self.trace_name}", Path(d))
        style = "".join(re.findall(r"<style>.*?</style>", page, flags=re.S)).replace("body{", ".burstlab-report{")
        body = page[page.index("<body>") + len("<body>") : page.rindex("</body>")]
        body = re.sub(r"<script>.*?</script>", "", body, flags=re.S)
        return f"{style}<div class='burstlab-report'>{body}</div>"

    def to_dict(self) -> dict[str, Any]:
        st = self.stats
        return {
            "trace": self.trace_name,
            "profile": {**st.to_dict(runs=False), "mu_settles_after": self.settle, "mu_band": MU_BAND, "geometric": self.geometric},
            "selection": self.selection.to_dict(),
            "link": asdict(self.link),
            "predictions": [p.to_dict() for p in self.predictions],
            "closed_forms": self.closed_forms,
            "seconds": self.seconds,
        }


def mu_settles(stats: Any, band: float = MU_BAND) -> int | None:
    """The shortest prefix after which μ of every longer prefix (on the stats' grid) stays
    within ``band`` of the whole trace's μ; None if μ is undefined."""
    mu = stats.mu
    if mu is None or not stats.prefix_lengths.size:
        return None
    pm = np.asarray(stats.prefix_mu, dtype=float)
    off = ~(np.abs(pm - mu) <= band)  # NaN (undefined prefix μ) counts as off
    if not off.any():
        return int(stats.prefix_lengths[0])
    last = int(np.flatnonzero(off)[-1])
    return int(stats.prefix_lengths[last + 1]) if last + 1 < stats.prefix_lengths.size else None


def geometric_comparison(dist: Any) -> dict[str, float | None]:
    """A run-length distribution against the geometric law of the same mean: the KS
    distance, the longest run and the share of runs at least 10× the mean, observed and
    geometric."""
    if dist.n_runs == 0:
        return {"mean": None, "ks": None, "max": 0, "p_10x_mean": None, "p_10x_mean_geometric": None}
    m = dist.mean
    q = 1.0 / m  # P(L = l) = q(1−q)^(l−1), l ≥ 1
    lengths = dist.lengths.astype(float)
    geo_cdf = 1.0 - (1.0 - q) ** lengths
    ks = float(np.max(np.abs(dist.cdf() - geo_cdf)))
    cut = 10 * m
    p_obs = float(dist.counts[dist.lengths >= cut].sum() / dist.n_runs)
    p_geo = float((1.0 - q) ** (math.ceil(cut) - 1))
    return {"mean": m, "ks": ks, "max": dist.max, "p_10x_mean": p_obs, "p_10x_mean_geometric": p_geo}


def predict(model: Any, trace: Trace, link: UserLink, variants: Sequence[str], seeds: int, seed: int = 1,
            progress: Callable[[str], None] | None = None) -> list[Prediction]:  # fmt: skip
    """Every variant over ``model`` (in the engine, losses per packet) on ``link``,
    ``seeds`` runs each (seeds ``seed``, ``seed + 1``, ...), and over ``trace`` replayed
    circularly on the same link from ``seeds`` evenly spaced starts (the mean: where TCP
    starts in a bursty trace can change one run's goodput a hundredfold)."""
    out = []

    core = model.to_core()
    replays = [_core.LossModel.replay(t.bits, "wrap", None) for t in rotated(trace, seeds)]
    for v in variants:
        if progress is not None:
            progress(f"predicting {v} on the described link ({seeds} runs)")
        tcp = TcpConfig.profile(link.profile, variant=v)
        runs, tos = [], []
        for s in range(seeds):
            sc = Scenario(tcp=tcp, forward=link.make(core), workload=Workload(duration=link.duration), seed=(seed + s) % 2**64)
            r = run(sc)
            runs.append(float(r.goodput_pps))
            tos.append(r.timeouts)
        over_trace = [run(Scenario(tcp=tcp, forward=link.make(r), workload=Workload(duration=link.duration), seed=seed)).goodput_pps for r in replays]
        mean, half = mean_ci(np.asarray(runs))
        ci = (max(0.0, mean - half), mean + half)  # goodput is never negative
        out.append(Prediction(v, runs, mean, ci, float(np.mean(over_trace)), float(np.mean(tos))))
    return out


def closed_forms(stats: Any, link: UserLink, mss: int = 1000, header: int = 40) -> list[dict[str, Any]]:
    """Mathis, Padhye and TIBET's ideal-estimate model at the trace's packet loss rate and
    at its loss-event rate (loss bursts per packet: a burst is one congestion signal to a
    Reno-style TCP), RTT = 2·delay + a data segment's and an ACK's serialisation; each
    names the regime it is outside of and is capped at the link's capacity. They know no
    link layer: with one, the loss TCP sees is the residual loss after its attempts."""
    rtt = 2 * link.delay + (mss + header) * 8 / link.rate + header * 8 / link.rate
    cap = link.rate / ((mss + header) * 8)
    p_loss = stats.lost / stats.length if stats.length else 0.0
    p_event = stats.loss_bursts.n_runs / stats.length if stats.length else 0.0
    out = []
    for what, p in (("packet loss rate", p_loss), ("loss-event rate", p_event)):
        if not 0 < p < 1:
            continue
        for name, f in (("mathis", lambda p=p: mathis(p, rtt, mss)), ("padhye", lambda p=p: padhye(p, rtt, mss=mss)),
                        ("tibet-ideal", lambda p=p: tibet_ideal(p, rtt, mss))):  # fmt: skip
            try:
                e = f()
            except _core.ParameterError as err:
                out.append({"model": name, "p": p, "p_is": what, "pps": None, "note": str(err)})
                continue
            notes = list(e.outside)
            if e.pps > cap:
                notes.append(f"above the link's capacity of {cap:.4g} segments/s")
            out.append({"model": name, "p": p, "p_is": what, "rtt": rtt, "pps": min(e.pps, cap), "formula_pps": e.pps, "note": "; ".join(notes)})
    return out


def build_report(
    trace: Trace,
    link: UserLink = UserLink(),
    *,
    models: Sequence[str] | None = REPORT_MODELS,
    variants: Sequence[str] | None = None,
    setup: Any = None,
    replicates: int = 6,
    rotations: int = 6,
    seeds: int = 10,
    seed: int = 1,
    progress: Callable[[str], None] | None = None,
) -> LinkReport:
    """Everything the page shows (see the module docstring)."""
    t0 = time.perf_counter()
    secs: dict[str, float] = {}
    st = trace.stats(warn=False)
    geo = {"loss_bursts": geometric_comparison(st.loss_bursts), "success_runs": geometric_comparison(st.success_runs)}
    secs["profile"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    sel = select(trace, "tcp", None if models is None else list(models), setup=setup, replicates=replicates, rotations=rotations, seed=seed,
                 skipped=[], progress=progress)  # fmt: skip
    secs["models"] = time.perf_counter() - t1
    t2 = time.perf_counter()
    preds = predict(sel.best_model, trace, link, list(variants or VARIANTS), seeds, seed, progress) if sel.best_model is not None else []
    secs["predictions"] = time.perf_counter() - t2
    return LinkReport(trace.name or "trace", st, mu_settles(st), geo, sel, link, preds, closed_forms(st, link), secs)


# --------------------------------------------------------------------------- the page
def _f(x: Any, nd: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    if isinstance(x, float):
        return f"{x:.{nd}g}"
    return str(x)


def _pct(x: float) -> str:
    return "–" if not math.isfinite(x) else f"{100 * x:+.1f} %"


def _figures(rep: LinkReport, out: Path) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from burstlab.plot import error_bars, save_figure

    figs: dict[str, Path] = {}
    st = rep.stats
    sel = rep.selection
    # 1. run lengths against the geometric laws, and the best model's sample
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")  # room for every label
    best_st = None
    if sel.best_model is not None:
        best_st = sel.best_model.sample(st.length, random_state=1).stats(warn=False)
    for ax, attr, what in ((axes[0], "loss_bursts", "loss burst"), (axes[1], "success_runs", "success run")):
        d = getattr(st, attr)
        if d.n_runs:
            ax.step(d.lengths, d.ccdf(), where="post", color="black", lw=2, label="trace")
            q = 1.0 / d.mean
            x = np.unique(np.geomspace(1, max(d.max, 2) * 2, 200).astype(int))
            ax.plot(x, (1 - q) ** (x - 1), "--", color="tab:red", label=f"geometric, mean {d.mean:.3g}")
            if best_st is not None and getattr(best_st, attr).n_runs:
                b = getattr(best_st, attr)
                ax.step(b.lengths, b.ccdf(), where="post", color="tab:blue", lw=1, label=f"{sel.best} (sample)")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_ylim(max(0.5 / d.n_runs, 1e-6), 1.5)
            ax.legend(fontsize="small")
        ax.set_xlabel(f"{what} length (entries)")
        ax.set_ylabel("P(L ≥ x)")
        ax.grid(True, which="both", alpha=0.3)
    fig.suptitle("run lengths against the geometric law of the same mean")
    figs["runs"] = save_figure(fig, out, "runs", ("png",))
    plt.close(fig)
    # 2. μ convergence
    fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
    if st.mu is not None:
        ax.plot(st.prefix_lengths.astype(float), st.prefix_mu, color="black", label="μ of the first n entries")
        ax.axhspan(st.mu - MU_BAND, st.mu + MU_BAND, color="tab:green", alpha=0.15, label=f"whole-trace μ ± {MU_BAND}")
        if rep.settle is not None:
            ax.axvline(rep.settle, color="tab:green", ls=":", label=f"settles after {rep.settle:,}")
        ax.legend(fontsize="small")
    else:
        ax.text(0.5, 0.5, f"μ undefined: {st.mu_undefined}", ha="center", transform=ax.transAxes)
    ax.set_xlabel("prefix length n (entries)")
    ax.set_ylabel("μ = 1 − g − b")
    ax.grid(True, alpha=0.3)
    ax.set_title("convergence of μ (Srinivasan et al. §8)")
    figs["mu"] = save_figure(fig, out, "mu_convergence", ("png",))
    plt.close(fig)
    # 3. TCP error per model
    if sel.tcp:
        fig, ax = plt.subplots(figsize=(8, 0.35 * len(sel.tcp[0].verdicts) + 1.5), layout="constrained")
        names = [v.model for v in sel.tcp[0].verdicts][::-1]
        for k, j in enumerate(sel.tcp):
            by = {v.model: v for v in j.verdicts}
            y = np.arange(len(names)) + (k - (len(sel.tcp) - 1) / 2) * 0.3
            e = np.array([100 * by[n].error for n in names])
            lo = np.array([100 * by[n].ci[0] for n in names])
            hi = np.array([100 * by[n].ci[1] for n in names])
            ax.errorbar(e, y, xerr=error_bars(e, lo, hi, floor=-100.0), fmt="o", ms=4, capsize=2, label=j.setup.mode)  # a model's goodput is ≥ 0: error ≥ −100 %
        ax.axvspan(-10, 10, color="tab:green", alpha=0.12)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(np.arange(len(names)), names)
        ax.set_xlabel("TCP goodput error against the trace (%), 95 % CI")
        ax.legend(fontsize="small")
        ax.grid(True, axis="x", alpha=0.3)
        ax.set_title("models judged by the TCP they produce (held-out half)")
        figs["judge"] = save_figure(fig, out, "tcp_judge", ("png",))
        plt.close(fig)
    # 4. predictions
    if rep.predictions:
        fig, ax = plt.subplots(figsize=(10, 4.5), layout="constrained")
        x = np.arange(len(rep.predictions))
        m = np.array([p.mean for p in rep.predictions])
        err = error_bars(m, [p.ci[0] for p in rep.predictions], [p.ci[1] for p in rep.predictions], floor=0.0)  # goodput is never negative
        ax.bar(x, m, yerr=err, capsize=3, color="tab:blue", alpha=0.8, label=f"over {sel.best} (mean, 95 % CI)")
        ax.plot(x, [p.trace_goodput for p in rep.predictions], "kD", ms=5, label="over the trace replayed")
        styles = {"mathis": "--", "padhye": "-.", "tibet-ideal": ":"}
        top = float(np.nanmax(m + err[1])) if len(m) else 1.0
        for cf in rep.closed_forms:
            if cf.get("pps") is not None and cf["p_is"] == "packet loss rate":
                ax.axhline(cf["pps"], ls=styles.get(cf["model"], "-"), color="gray", lw=1, label=f"{cf['model']} (p = {cf['p']:.3g})")
                top = max(top, cf["pps"])
        ax.set_xticks(x, [p.variant for p in rep.predictions], rotation=30, ha="right", rotation_mode="anchor")
        ax.set_ylabel("goodput (segments/s)")
        ax.set_yscale("symlog", linthresh=0.1)  # 0 (a CI clipped at zero) stays on the axis
        ax.set_ylim(0, 2 * top if top > 0 else 1.0)
        fig.legend(fontsize="small", loc="outside right upper")
        ax.grid(True, axis="y", alpha=0.3)
        lk = rep.link
        ax.set_title(f"TCP variants on {lk.describe()} ({lk.profile} profile)", fontsize=9)
        figs["variants"] = save_figure(fig, out, "variants", ("png",))
        plt.close(fig)
    return figs


def blocks(rep: LinkReport, figs: dict[str, Path]) -> list[tuple[str, Any]]:
    """The page as the blocks :func:`burstlab.experiments.prr_mu_report.render_md` /
    ``render_html`` take."""
    st = rep.stats
    sel = rep.selection
    b: list[tuple[str, Any]] = [("h1", f"burstlab report: {rep.trace_name}")]
    iv = f", {_f(1000 * sel.tcp[0].setup.slot, 3)} ms per entry" if sel.tcp and sel.tcp[0].setup.slot else ""
    b.append(("p", f"{st.length:,} entries{iv}; built in {sum(rep.seconds.values()):.1f} s by `burstlab report`."))
    b.append(("h2", "Burstiness profile"))
    rows = [["PRR", _f(st.prr, 4), f"link class {st.link_class}"],
            ["g = P(success | loss)", _f(st.g, 4), "Srinivasan et al. §5.2"],
            ["b = P(loss | success)", _f(st.b, 4), ""],
            ["μ = 1 − g − b", _f(st.mu, 4), st.mu_undefined or ("bursty" if (st.mu or 0) > 0.1 else "close to independent")],
            ["μ settles (±%.2f) after" % MU_BAND, "–" if rep.settle is None else f"{rep.settle:,} entries",
             "the trace may be too short for μ to converge" if rep.settle is None or rep.settle > st.length / 2 else "Srinivasan et al. §8"],
            [f"RMS of μ over {st.chunk}-entry chunks", _f(st.chunk_rms, 3), "§8: 6000-packet chunks are not enough"]]  # fmt: skip
    for key, label in (("loss_bursts", "loss bursts"), ("success_runs", "success runs")):
        gq = rep.geometric[key]
        rows.append([f"{label}: mean / longest", f"{_f(gq['mean'])} / {gq['max']}",
                     f"KS distance to the geometric law of the same mean {_f(gq['ks'], 3)}; runs ≥ 10× the mean: {_f(gq['p_10x_mean'], 3)} "
                     f"(geometric {_f(gq['p_10x_mean_geometric'], 3)})"])  # fmt: skip
    b.append(("table", (["statistic", "value", "note"], rows)))
    for k in ("runs", "mu"):
        if k in figs:
            b.append(("img", (figs[k].name, {"runs": "Loss-burst and success-run CCDFs of the trace, the geometric law of the same mean (what an independent or Gilbert-Elliott link gives) and a sample of the best model",
                                            "mu": "μ of the first n entries against the whole trace's"}[k], False)))  # fmt: skip
    b.append(("h2", "The model TCP agrees with"))
    fr, jr = sel.fit_range, sel.judge_range
    b.append(("p", f"Every family fitted on entries {fr[0]:,}-{fr[1]:,} and judged on {jr[0]:,}-{jr[1]:,}: the same TCP over the held-out part "
                   f"(mean over its starts) and over synthetic replicates of each model; error = (model − trace) / trace with a 95 % interval "
                   f"(`burstlab fit --judge tcp`, `docs/loss-models.md`)."))  # fmt: skip
    for j in sel.tcp:
        b.append(("p", f"{j.setup.mode}: {j.setup.describe()}; the trace: {j.reference.mean:.4g} segments/s."))
    if sel.tcp:
        head = ["model", *[f"TCP error, {j.setup.mode}" for j in sel.tcp], "KS loss bursts", "KS success runs"]
        stat = {r.model: r for r in sel.rows}
        trs = []
        for v0 in sel.tcp[0].verdicts:
            cells = []
            for j in sel.tcp:
                v = next(x for x in j.verdicts if x.model == v0.model)
                cells.append(f"{_pct(v.error)} [{_pct(v.ci[0])}, {_pct(v.ci[1])}]")
            r = stat.get(v0.model)
            trs.append([("**" + v0.model + "**") if v0.model == sel.best else v0.model, *cells, _f(r.ks_burst if r else None), _f(r.ks_success if r else None)])
        order = {n: i for i, n in enumerate(sorted(stat, key=lambda n: max(abs(v.error) for j in sel.tcp for v in j.verdicts if v.model == n)))}
        trs.sort(key=lambda row: order.get(row[0].strip("*"), 0))
        b.append(("table", (head, trs)))
    if "judge" in figs:
        b.append(("img", (figs["judge"].name, "TCP goodput error of every model against the held-out trace, 95 % intervals; the band is ±10 %", False)))
    if sel.best is not None:
        b.append(("p", f"**Best: {sel.best}** — {sel.why}." if sel.separated else
                       f"**No single best model: {len(sel.top_group)} indistinguishable ({', '.join(sel.top_group)}); {sel.best} is used below** — {sel.why}."))  # fmt: skip
        bm = sel.best_model
        lines = bm.describe() if hasattr(bm, "describe") else []
        fitted = bm.to_dict()["fitted"]
        shown = {k: v for k, v in fitted.items() if not (isinstance(v, str) and len(v) > 80)}
        lines.append("parameters (refitted on the whole trace): " + ", ".join(f"`{k}` = {_short(v)}" for k, v in shown.items()))
        b.append(("ul", lines))
    if sel.skipped:
        b.append(("p", "Skipped: " + "; ".join(f"{n} ({r})" for n, r in sel.skipped)))
    b.append(("h2", "Predicted goodput of every TCP variant"))
    lk = rep.link
    b.append(("p", f"On a link of {lk.describe()}, losses per packet from {sel.best} (refitted on the whole trace), TCP profile `{lk.profile}`, "
                   f"{lk.duration:g} s bulk transfers; mean of the runs with a 95 % t-interval (clipped at 0), and the mean over as many runs over "
                   "the trace itself replayed on the link, each from another start."))  # fmt: skip
    if rep.predictions:
        b.append(("table", (["variant", "goodput (segments/s)", "95 % CI", "over the trace replayed", "timeouts per run"],
                            [[p.variant, _f(p.mean, 4), f"[{_f(p.ci[0], 4)}, {_f(p.ci[1], 4)}]", _f(p.trace_goodput, 4), _f(p.timeouts, 3)] for p in rep.predictions])))  # fmt: skip
    if rep.closed_forms:
        b.append(("p", "Closed forms at the trace's loss rates, RTT = 2·delay + serialisation, capped at the link's capacity:"))
        b.append(("table", (["formula", "p", "p is", "goodput (segments/s)", "outside its regime"],
                            [[c["model"], _f(c["p"], 4), c["p_is"], _f(c.get("pps"), 4), c.get("note") or "–"] for c in rep.closed_forms])))  # fmt: skip
    if "variants" in figs:
        b.append(("img", (figs["variants"].name, "Predicted goodput per variant (bars: 95 % CI), over the trace replayed (diamonds), and the closed forms (lines)", False)))
    return b


def _short(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, list) and len(v) > 6:
        return f"[{len(v)} values]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_short(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_short(x) for x in v) + "]"
    return str(v)


#: A script in the page: once every figure has loaded (or failed), the body records how
#: many did (``data-figures``, ``data-figures-broken``); the test reads it in Chromium.
_CHECK_SCRIPT = (
    "<script>window.addEventListener('load',function(){var im=document.images,ok=0;"
    "for(var i=0;i<im.length;i++){if(im[i].complete&&im[i].naturalWidth>0)ok++;}"
    "document.body.setAttribute('data-figures',String(ok));"
    "document.body.setAttribute('data-figures-broken',String(im.length-ok));});</script>"
)


#: The page's tables: prose (names, notes) reads from the left, numbers line up on the right;
#: figures as wide as the text (they are drawn 8-10 inches wide).
_PAGE_STYLE = ("<style>td,th{text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
               "img{max-width:100%}figure{display:block;margin:1em 0}</style>")
#: A cell of numbers only: digits, signs, separators, %, intervals in brackets.
_NUMERIC_CELL = re.compile(r"<td>([−–+\-\d.,eE% \[\]/]*\d[−–+\-\d.,eE% \[\]/]*)</td>")


def md_blocks(bl: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The blocks for Markdown: a ``|`` inside a table cell (``P(success | loss)``) is
    escaped, or it would split the cell."""
    out: list[tuple[str, Any]] = []
    for kind, b in bl:
        if kind == "table":
            head, rows = b
            b = ([h.replace("|", "\\|") for h in head], [[c.replace("|", "\\|") for c in r] for r in rows])
        out.append((kind, b))
    return out


def html_blocks(bl: list[tuple[str, Any]], folder: Path) -> list[tuple[str, Any]]:
    """The blocks for HTML: every figure embedded as a ``data:`` URI, so that the page alone
    (copied, mailed) shows all of them."""
    out: list[tuple[str, Any]] = []
    for kind, b in bl:
        if kind == "img":
            src, alt, pdf = b
            data = base64.b64encode((folder / src).read_bytes()).decode("ascii")
            b = (f"data:image/png;base64,{data}", alt, pdf)
        out.append((kind, b))
    return out


def html_page(bl: list[tuple[str, Any]], title: str, folder: Path) -> str:
    """The self-contained HTML page of ``bl`` (figures read from ``folder``)."""
    html = render_html(html_blocks(bl, folder), title)
    html = _NUMERIC_CELL.sub(r"<td class='n'>\1</td>", html).replace("</head>", _PAGE_STYLE + "</head>", 1)
    return html.replace("</body>", _CHECK_SCRIPT + "</body>")


def write_report(rep: LinkReport, out: str | Path) -> tuple[Path, Path, dict[str, Path]]:
    """``report.md``, ``report.html`` (self-contained: figures embedded), ``report.json``
    and the figures (PNG, which ``report.md`` links) in ``out``."""
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    figs = _figures(rep, d)
    bl = blocks(rep, figs)
    md, page = d / "report.md", d / "report.html"
    atomic_write_text(md, render_md(md_blocks(bl)))
    atomic_write_text(page, html_page(bl, f"burstlab report: {rep.trace_name}", d))
    atomic_write_text(d / "report.json", json.dumps(rep.to_dict(), indent=1, default=_json_default))
    return md, page, figs


def _json_default(o: Any) -> Any:
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return None if not math.isfinite(float(o)) else float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


__all__ = ["MU_BAND", "REPORT_MODELS", "LinkReport", "Prediction", "UserLink", "build_report", "closed_forms", "geometric_comparison",
           "mu_settles", "predict", "write_report"]  # fmt: skip
