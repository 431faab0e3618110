"""Figures of trace statistics (matplotlib, Agg backend): run-length CCDFs on log-log
axes (loss bursts and success runs, Srinivasan et al. Fig. 4/15, Barsocchi et al. Fig. 2) and μ
convergence over growing prefixes (Srinivasan et al. §8, Fig. 17-18). Files are written to a
temporary name and renamed, so a failure never leaves half a figure."""

from __future__ import annotations

import math
import os
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
# Titles at the top of their axes (no figure here has anything above an axes): matplotlib's
# automatic position measures every tick label of the axes to find the same place
# (_update_title_position, a tenth of a study's figure time); the files are the same.
matplotlib.rcParams["axes.titley"] = 1.0
import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402
from matplotlib.ticker import Formatter  # noqa: E402

from burstlab._core import ParameterError
from burstlab.files import atomic_write  # noqa: E402
from burstlab.sim.network import LOG_EVENTS, LOG_KINDS
from burstlab.stats import TraceStats  # noqa: E402

FORMATS = ("png", "pdf")


def _save(fig: Any, path: Path) -> None:
    atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=120, bbox_inches="tight"))


def _label(s: TraceStats, i: int) -> str:
    return s.name or f"trace {i}"


def plot_run_ccdfs(stats: Sequence[TraceStats], path: str | os.PathLike[str], *, title: str | None = None) -> Path:
    """Log-log CCDF P(L ≥ x) of loss-burst and success-run lengths, one line per trace."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, attr, what in ((axes[0], "loss_bursts", "loss burst"), (axes[1], "success_runs", "success run (error gap)")):
        drawn = False
        for i, s in enumerate(stats):
            dist = getattr(s, attr)
            if dist.n_runs:
                ax.step(dist.lengths, dist.ccdf(), where="post", label=_label(s, i))
                drawn = True
        if drawn:
            ax.set_xscale("log")
            ax.set_yscale("log")
        ax.set_xlabel(f"{what} length (entries)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("CCDF  P(L ≥ x)")
    if len(stats) <= 10:
        axes[1].legend(fontsize="small")
    fig.suptitle(title or "run-length CCDFs")
    p = Path(path)
    _save(fig, p)
    plt.close(fig)
    return p


def plot_mu_convergence(stats: Sequence[TraceStats], path: str | os.PathLike[str], *, title: str | None = None) -> Path:
    """μ over growing prefixes of each trace (Srinivasan et al. §8); undefined points are gaps."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for i, s in enumerate(stats):
        if s.prefix_lengths.size:
            ax.plot(s.prefix_lengths.astype(np.float64), s.prefix_mu, label=_label(s, i))
    ax.set_xlabel("prefix length (entries)")
    ax.set_ylabel("μ = 1 − g − b")
    ax.grid(True, alpha=0.3)
    if len(stats) <= 10:
        ax.legend(fontsize="small")
    ax.set_title(title or "convergence of μ")
    p = Path(path)
    _save(fig, p)
    plt.close(fig)
    return p


def plot_stats(stats: Sequence[TraceStats], outdir: str | os.PathLike[str], *, formats: Sequence[str] = FORMATS) -> list[Path]:
    """Both figures for ``stats`` into ``outdir`` (``run_ccdf.*``, ``mu_convergence.*``)."""
    out = Path(outdir)
    files: list[Path] = []
    for ext in formats:
        if ext not in FORMATS:
            raise ParameterError(f"invalid parameter formats: {ext!r} is not one of {', '.join(FORMATS)}")
        files.append(plot_run_ccdfs(stats, out / f"run_ccdf.{ext}"))
        files.append(plot_mu_convergence(stats, out / f"mu_convergence.{ext}"))
    return files


# --------------------------------------------------------------------------------------
# Figures of the PRR/μ study (burstlab.experiments.prr_mu), Srinivasan et al. Figs. 1, 3, 4,
# 6/8, 11, 12, 14-20. They take plain arrays, build a matplotlib Figure without pyplot (so a
# worker process can draw several), use fixed margins (one draw per file, no tight-bbox
# pass: ~3× faster) and leave the dataset to the report that shows them.
# --------------------------------------------------------------------------------------
FloatArray = npt.NDArray[np.float64]
Pair = tuple[str, float, float, FloatArray, FloatArray]  # name, prr, throughput, lengths, counts


def _figure(w: float = 5.5, h: float = 4.0, *, colorbar: bool = False) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h))
    fig.subplots_adjust(left=0.16, right=0.84 if colorbar else 0.96, bottom=0.13, top=0.9)
    return fig, fig.add_subplot()


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _decade_label(x: float, pos: int | None = None) -> str:
    """The label of a decade tick, 10ⁿ in Unicode superscripts (empty between decades)."""
    if not (x > 0 and math.isfinite(x)):
        return ""
    e = math.log10(x)
    if abs(e - round(e)) > 1e-9:
        return ""
    return "10" + str(int(round(e))).translate(_SUPERSCRIPT)


def _log(ax: Any, which: str) -> None:
    """A log axis with decade ticks only: minor ticks (eight per decade, each a label-less
    Tick object) were half the drawing time of a log-log figure. The labels are plain text
    (10ⁿ in superscript digits): matplotlib's own are mathtext, whose parser takes ~0.1-0.2 s
    to build in every process that draws one (issue 12)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    axis = ax.yaxis if which == "y" else ax.xaxis
    (ax.set_yscale if which == "y" else ax.set_xscale)("log")
    axis.set_major_locator(LogLocator(base=10.0, numticks=8))
    axis.set_major_formatter(FuncFormatter(_decade_label))
    axis.set_minor_locator(NullLocator())


def _labels(ax: Any, xlabel: str, ylabel: str, title: str, *, fontsize: float | None = None) -> None:
    """Axis labels and title at fixed positions: matplotlib otherwise measures every tick
    label to place them, a quarter of the drawing time of these small figures."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.xaxis.set_label_coords(0.5, -0.1)
    ax.yaxis.set_label_coords(-0.15, 0.5)  # clear of 4-digit tick labels
    ax.set_title(title, y=1.01, fontsize=fontsize)


_MATH_SUPERSCRIPT = re.compile(r"\^\{(-?[0-9]+)\}")


def plain_math(s: str) -> str:
    """A log axis's tick label as matplotlib writes it in mathtext (``$\\mathdefault{10^{-2}}$``,
    ``$\\mathdefault{6\\times10^{0}}$``, ``$\\mathdefault{0}$``) in plain text with Unicode
    superscripts (``10⁻²``, ``6×10⁰``, ``0``; a minus sign for a negative coefficient);
    anything else is returned as it is."""
    m = re.fullmatch(r"\$\\mathdefault\{(.*)\}\$", s)
    if m is None:
        return s
    body = _MATH_SUPERSCRIPT.sub(lambda e: e.group(1).translate(_SUPERSCRIPT), m.group(1).replace("\\times", "×"))
    if any(c in body for c in "\\{}^$_"):
        return s
    return body.replace("-", "−")


class _PlainMath(Formatter):
    """A tick formatter that gives the labels of the one it wraps (its state, locations and
    settings untouched) as :func:`plain_math` text: mathtext's parser, built in each process
    that draws a label and run on each, was a tenth of a study's figure time."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def set_axis(self, axis: Any) -> None:
        self.axis = axis
        self.inner.set_axis(axis)

    def set_locs(self, locs: Any) -> None:
        self.inner.set_locs(locs)

    def __call__(self, x: float, pos: int | None = None) -> str:
        return plain_math(self.inner(x, pos))

    def format_ticks(self, values: Any) -> list[str]:
        return [plain_math(t) for t in self.inner.format_ticks(values)]

    def format_data(self, value: float) -> str:
        return plain_math(self.inner.format_data(value))

    def format_data_short(self, value: float) -> str:
        return str(self.inner.format_data_short(value))

    def get_offset(self) -> str:
        return plain_math(self.inner.get_offset())

    def fix_minus(self, s: str) -> str:
        return str(self.inner.fix_minus(s))


def plain_log_labels(fig: Any) -> None:
    """Give every log and symlog axis of ``fig`` its tick labels as plain text (:class:`_PlainMath`)
    instead of mathtext; the same numbers at the same places."""
    from matplotlib.ticker import LogFormatterMathtext

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for get, put in ((axis.get_major_formatter, axis.set_major_formatter), (axis.get_minor_formatter, axis.set_minor_formatter)):
                f = get()
                if isinstance(f, LogFormatterMathtext):
                    put(_PlainMath(f))


#: SVG as a study writes it: text as text (not each glyph as a path: ~20 % less time than a
#: PNG and a third smaller; a viewer draws it in its own sans-serif font), no date and fixed
#: element ids (the same figure, the same file).
SVG_RC = {"svg.fonttype": "none", "svg.hashsalt": "burstlab"}


def save_figure(fig: Any, folder: Path, name: str, formats: Sequence[str] = FORMATS) -> Path:
    """Write ``name``.png (and the other ``formats``: ``svg``, ``pdf``) into ``folder``
    atomically; returns the path of the first format's file. Log axes get plain-text tick
    labels (:func:`plain_log_labels`)."""
    folder.mkdir(parents=True, exist_ok=True)
    plain_log_labels(fig)
    for ext in formats:
        # PNG: zlib level 1, a fifth of the PNG time saved for files ~30 % larger
        kw: dict[str, Any] = {"pil_kwargs": {"compress_level": 1}} if ext == "png" else {"metadata": {"Date": None}} if ext == "svg" else {}

        def write(tmp: str, ext: str = ext, kw: dict[str, Any] = kw) -> None:
            with matplotlib.rc_context(SVG_RC if ext == "svg" else {}):
                fig.savefig(tmp, dpi=110, format=ext, **kw)

        atomic_write(folder / f"{name}.{ext}", write)
    return folder / f"{name}.{formats[0] if formats else 'png'}"


def error_bars(value: Any, lo: Any, hi: Any, *, floor: float | None = None, log: bool = False) -> FloatArray:
    """matplotlib's ``yerr``/``xerr`` (2 × N, lengths below and above) of intervals
    [lo, hi] around ``value``: an interval end that is NaN or infinite draws no bar on that
    side; the lower end is clipped at ``floor`` (0 for a goodput, which is never negative)
    and, with ``log`` (a log axis), at the smallest positive value of the data divided by
    10, so that a bar reaching zero or below runs to the bottom of the figure instead of
    to −∞ (which matplotlib draws as a bar over the whole axis or none)."""
    v = np.asarray(value, dtype=float)
    a = np.asarray(lo, dtype=float)
    b = np.asarray(hi, dtype=float)
    if floor is not None:
        a = np.maximum(a, floor)
    if log:
        pos = np.concatenate([x[np.isfinite(x) & (x > 0)] for x in (v, a, b)])
        least = float(pos.min()) / 10 if pos.size else 1e-300
        a = np.where(a > 0, a, least)
    below = np.where(np.isfinite(a) & np.isfinite(v), np.maximum(v - a, 0.0), 0.0)
    above = np.where(np.isfinite(b) & np.isfinite(v), np.maximum(b - v, 0.0), 0.0)
    return np.vstack([below, above])


def _finite(*arrays: FloatArray) -> npt.NDArray[np.bool_]:
    ok = np.ones(arrays[0].shape, dtype=bool)
    for a in arrays:
        ok &= np.isfinite(a)
    return ok


def fig01_prr_cdf(groups: dict[str, FloatArray]) -> Any:
    """Fig. 1: CDF of the PRR of every trace of the input (before any is left out), per
    subgroup and all together."""
    fig, ax = _figure()
    allv = np.sort(np.concatenate([np.asarray(v, dtype=float) for v in groups.values()])) if groups else np.zeros(0)
    if len(groups) > 1:
        for name, v in sorted(groups.items()):
            x = np.sort(np.asarray(v, dtype=float))
            ax.step(x, np.arange(1, x.size + 1) / x.size, where="post", lw=1.0, label=f"{name} ({x.size})")
    if allv.size:
        ax.step(allv, np.arange(1, allv.size + 1) / allv.size, where="post", color="k", lw=1.8, label=f"all ({allv.size})")
    for x0 in (0.1, 0.2, 0.6):  # Srinivasan et al. Fig. 2's poor / intermediate / good bounds
        ax.axvline(x0, color="0.6", lw=0.6, ls=":")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    _labels(ax, "packet reception ratio", "fraction of links", "Reception ratios of the links")
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    return fig


def fig03_throughput_vs_prr(prr: FloatArray, thr: FloatArray, mu: FloatArray) -> Any:
    """Fig. 3: TCP throughput against PRR (colour: μ). A log axis when the throughputs span
    more than 30×, with zero throughputs drawn on the bottom edge (open markers)."""
    fig, ax = _figure(colorbar=True)
    ok = _finite(prr, thr)
    pos = ok & (thr > 0)
    log = bool(pos.any() and thr[pos].max() > 30 * thr[pos].min())
    y = thr.copy()
    if log:
        floor = thr[pos].min() / 2
        zero = ok & (thr <= 0)
        if zero.any():
            ax.scatter(prr[zero], np.full(zero.sum(), floor), marker="v", facecolors="none", edgecolors="k", s=20, label=f"0 packets/s ({int(zero.sum())})")
            ax.legend(fontsize=7, loc="upper left")
        y = np.where(zero, np.nan, thr)
        _log(ax, "y")
    sc = ax.scatter(prr, y, c=mu, cmap="viridis", s=18, vmin=min(-0.1, float(np.nanmin(mu)) if np.isfinite(mu).any() else 0.0), vmax=1.0)
    fig.colorbar(sc, ax=ax, label="μ", fraction=0.05)
    _labels(ax, "PRR", "TCP throughput (packets/s)" + (", log scale" if log else ""), "TCP throughput against reception ratio")
    ax.grid(alpha=0.3)
    return fig


def fig04_burst_cdf(pair: Sequence[Pair], xmax: int = 40) -> Any:
    """Fig. 4: CDF of loss-burst lengths of two links with (nearly) the same PRR and very
    different throughput."""
    fig, ax = _figure()
    for name, prr, thr, lengths, counts in pair:
        cdf = np.cumsum(counts) / max(1.0, float(counts.sum()))
        ax.step(np.concatenate([[0], lengths]), np.concatenate([[0], cdf]), where="post", label=f"{name}: PRR {prr:.2f}, {thr:.3g} pkt/s")
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, 1.02)
    _labels(ax, "loss burst length (packets)", "CDF", "Loss bursts of two links with equal PRR")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    return fig


def fig06_diff_vs_mu(mu: FloatArray, diff: FloatArray, prr: FloatArray, title: str, marks: dict[str, tuple[float, float]] | None = None) -> Any:
    """Figs. 6/8/14: throughput difference to the independent link (%) against μ, PRR in grey
    shades (darker = higher; the lightest shade is still visible on white). The vertical
    range follows the data; a few far outliers are drawn as triangles on the top edge so
    they do not squash the rest. ``marks`` labels points (Fig. 14's links A and B)."""
    fig, ax = _figure(colorbar=True)
    ok = _finite(mu, diff)
    y = diff.copy()
    if ok.any():
        lo, hi = float(diff[ok].min()), float(diff[ok].max())
        q90 = float(np.percentile(diff[ok], 90))
        top = hi
        pad = 0.06 * max(top - lo, 1.0)
        head = pad
        if ok.sum() >= 10 and hi > 3 * max(q90, 1.0) and hi > 100.0:
            top = 1.5 * max(q90, 1.0)
            out = ok & (diff > top)
            ax.scatter(mu[out], np.full(out.sum(), top), marker="^", c="k", s=24, label=f"{int(out.sum())} above {top:.0f} % (up to {hi:.0f} %)")
            y = np.where(out, np.nan, diff)
            pad = 0.06 * max(top - lo, 1.0)
            head = 3 * pad  # room for the legend above the triangles
            ax.legend(fontsize=7, loc="upper left")
        ax.set_ylim(lo - pad, top + head)
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap

    greys = ListedColormap(colormaps["Greys"](np.linspace(0.2, 1.0, 256)))  # PRR 0 is light grey, not white
    sc = ax.scatter(mu, y, c=prr, cmap=greys, vmin=0.0, vmax=1.0, edgecolors="k", linewidths=0.4, s=22)
    fig.colorbar(sc, ax=ax, label="PRR", fraction=0.05)
    for name, (x0, y0) in (marks or {}).items():
        ax.annotate(name, (x0, y0), xytext=(6, 6), textcoords="offset points", fontsize=10, fontweight="bold", color="C3")
    ax.axhline(0, color="k", lw=0.6)
    _labels(ax, "μ", "throughput difference vs independent link (%)", title)
    ax.grid(alpha=0.3)
    return fig


def fig_fit(actual: FloatArray, estimate: FloatArray, title: str) -> Any:
    """Figs. 11/12: a fit's estimate (x) against the simulated throughput (y), with x = y."""
    fig, ax = _figure(4.8, 4.4)
    ax.scatter(estimate, actual, s=16)
    both = np.concatenate([actual, estimate])
    both = both[np.isfinite(both)]
    lo = min(0.0, float(both.min())) if both.size else 0.0
    top = max(1.0, float(both.max()) if both.size else 1.0) * 1.05
    ax.plot([lo, top], [lo, top], "k--", lw=0.8, label="x = y")
    ax.set_xlim(lo, top)
    ax.set_ylim(lo, top)
    _labels(ax, "estimated TCP throughput (packets/s)", "simulated TCP throughput (packets/s)", title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def fig15_success_runs(pair: Sequence[Pair], cap: int = 10) -> Any:
    """Fig. 15: the distribution of success-run lengths of links A and B (similar PRR and μ,
    different throughput), the counts capped at ``cap`` so the rare long runs show."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.0, 3.4))
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.16, top=0.84, wspace=0.18)
    axes = [fig.add_subplot(1, 2, i + 1) for i in range(2)]
    xmax = max((float(p[3].max()) for p in pair if p[3].size), default=1.0) * 1.05
    for ax, (name, prr, thr, lengths, counts), tag in zip(axes, pair, "AB", strict=False):
        ax.vlines(lengths, 0, np.minimum(counts, cap), lw=1.2)
        n_long = int(counts[lengths > 100].sum())
        if lengths.size:
            ax.text(0.97, 0.95, f"{n_long} run{'s' if n_long != 1 else ''} > 100\nlongest {int(lengths.max())}", transform=ax.transAxes, ha="right", va="top", fontsize=8)
        ax.set_xlim(0, xmax)
        ax.set_ylim(0, cap + 0.5)
        ax.set_xlabel("success run length (packets)")
        ax.set_title(f"({tag.lower()}) link {tag}: PRR {prr:.2f}, {thr:.3g} pkt/s", fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"number of runs (capped at {cap})")
    fig.suptitle("Success runs of two links with similar PRR and μ", fontsize=10)
    return fig


def fig16_chunk_rms(mu: FloatArray, rms: FloatArray, chunk: int) -> Any:
    """Fig. 16: RMS deviation of per-chunk μ from the whole-trace μ, against μ."""
    fig, ax = _figure()
    ax.scatter(mu, rms, s=16)
    _labels(ax, "μ of the whole trace", f"RMS of chunk μ − μ (chunks of {chunk})", f"μ over {chunk}-packet chunks")
    ax.grid(alpha=0.3)
    return fig


def fig17_convergence(curves: Sequence[tuple[str, FloatArray, FloatArray]], converge_at: int | None = None, title: str = "Convergence of μ") -> Any:
    """Figs. 17/18: μ of the first n packets against n for representative links, with the
    length after which Srinivasan et al. §8 saw μ level off."""
    fig, ax = _figure()
    for name, n, mu in curves:
        ax.plot(n, mu, lw=1.2, label=name)
    if converge_at:
        ax.axvline(converge_at, color="0.4", lw=0.8, ls="--", label=f"{converge_at:,} packets (§8)")
    _labels(ax, "packets", "μ of the first n packets", title)
    ax.legend(fontsize=6, loc="best")
    ax.grid(alpha=0.3)
    return fig


def fig19_ge_vs_empirical(thr: FloatArray, ge: FloatArray, link_pps: float) -> Any:
    """Fig. 19: Gilbert-Elliott synthetic throughput (y) against the empirical throughput (x)."""
    fig, ax = _figure(4.8, 4.4)
    ax.scatter(thr, ge, s=16)
    both = np.concatenate([thr, ge])
    both = both[np.isfinite(both)]
    top = max(1.0, float(both.max()) if both.size else 1.0) * 1.05
    top = min(top, link_pps) if math.isfinite(link_pps) else top
    ax.plot([0, top], [0, top], "k--", lw=0.8, label="x = y")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    _labels(ax, "empirical-link TCP throughput (packets/s)", "Gilbert-Elliott link TCP throughput (packets/s)", "GE links with the same PRR and μ", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def fig20_longest_runs(runs: FloatArray, ge_runs: FloatArray) -> Any:
    """Fig. 20: the longest success run of each link (x) against the longest its GE links produced (y)."""
    fig, ax = _figure(4.8, 4.4)
    ax.scatter(runs, ge_runs, s=16)
    ok = _finite(runs, ge_runs) & (runs > 0) & (ge_runs > 0)
    if ok.any():
        hi = float(max(runs[ok].max(), ge_runs[ok].max())) * 1.5
        ax.plot([1.0, hi], [1.0, hi], "k--", lw=0.8, label="x = y")
        _log(ax, "x")
        _log(ax, "y")
        ax.legend(fontsize=8)
    _labels(ax, "longest success run, empirical link (packets)", "longest success run, GE links (packets)", "Longest bursts of successes", fontsize=10)
    ax.grid(alpha=0.3)
    return fig


# --------------------------------------------------------------------------------------
# One simulated TCP transfer (``burstlab sim --plot``): the window, the timer and the
# time-sequence plot of what the sender sent, lost and had acknowledged.
# --------------------------------------------------------------------------------------

#: Points a line or a scatter of :func:`fig_transfer` draws at most. The figure is ~800
#: pixels wide: a run's series and per-packet log hold a point per ACK or packet, and
#: drawing them all cost memory and time that grew with the run's length (3000 simulated
#: seconds at 10 Mb/s: 3.5 GB and 14 s for the figure; benchmarks/scale_audit.py).
DRAW_POINTS = 20_000


def _thin_steps(t: FloatArray, ys: Sequence[FloatArray]) -> Any:
    """The samples of step series ``ys`` over sorted times ``t`` to draw: all of them when
    there are at most :data:`DRAW_POINTS`, otherwise, in each of as many equal spans of time
    as keep them under it, the first and the last sample and those where each series is
    lowest and highest (what the pixels of that span show)."""
    if t.size <= DRAW_POINTS:
        return slice(None)
    buckets = DRAW_POINTS // (2 + 2 * len(ys))
    span = float(t[-1] - t[0]) or 1.0
    b = np.minimum(((t - t[0]) * (buckets / span)).astype(np.int64), buckets - 1)
    starts = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
    ends = np.r_[starts[1:], t.size] - 1
    keep = [starts, ends]
    for y in ys:
        order = np.lexsort((y, b))  # by span, then by value (NaN last): each span's range is the same
        keep += [order[starts], order[ends]]
    return np.unique(np.concatenate(keep))


def _thin_points(x: FloatArray, y: FloatArray, cells: tuple[int, int] = (2000, 1000)) -> tuple[FloatArray, FloatArray]:
    """Points of a scatter to draw: all of them when there are at most :data:`DRAW_POINTS`,
    otherwise one per cell of a ``cells`` grid over their range (a marker covers a cell)."""
    if x.size <= DRAW_POINTS:
        return x, y
    cx, cy = cells
    gx = ((x - x.min()) * (cx / (float(np.ptp(x)) or 1.0))).astype(np.int64)
    gy = ((y - y.min()) * (cy / (float(np.ptp(y)) or 1.0))).astype(np.int64)
    _, first = np.unique(gx * (cy + 1) + gy, return_index=True)
    first.sort()
    return x[first], y[first]

def fig_transfer(series: dict[str, Any], mss: int, title: str, log: dict[str, Any] | None = None, flow: int = 0, first_link: int = 0) -> Any:
    """Three panels over time: cwnd and ssthresh (segments), SRTT and RTO (seconds), and the
    time-sequence plot — each data segment the sender put on its first link (``first_link``)
    at its segment number, retransmissions apart, the segments dropped by a buffer or lost
    on a channel anywhere, and the cumulative ACK as it reached the sender. ``series``: a
    run's series (``SimResult.series``, bytes and seconds); ``log``: the network's per-packet
    log (``NetworkResult.log``) with ``flow`` the flow's index; without it the panel shows the
    highest segment sent and the cumulative ACK from the series. A line or scatter of more
    than :data:`DRAW_POINTS` points is thinned to what the pixels show (each span of time's
    first, last, lowest and highest sample; one marker per cell of the panel), so that a
    long run's figure costs what a short one's does."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.0, 9.0))
    fig.subplots_adjust(left=0.11, right=0.97, bottom=0.06, top=0.92, hspace=0.12)
    ax_w, ax_t, ax_s = fig.subplots(3, 1, sharex=True)
    t = np.asarray(series.get("time", []), dtype=np.float64)
    seg = float(mss)
    if t.size:
        cwnd = np.asarray(series["cwnd"], dtype=np.float64) / seg
        ssthresh = np.asarray(series["ssthresh"], dtype=np.float64) / seg
        ssthresh = np.where(np.isfinite(ssthresh), ssthresh, np.nan)
        k = _thin_steps(t, (cwnd, ssthresh))
        ax_w.step(t[k], cwnd[k], where="post", lw=1.0, label="cwnd")
        ax_w.step(t[k], ssthresh[k], where="post", lw=1.0, label="ssthresh")
        srtt = np.asarray(series["srtt"], dtype=np.float64)
        srtt = np.where(srtt > 0, srtt, np.nan)
        rto = np.asarray(series["rto"], dtype=np.float64)
        k = _thin_steps(t, (srtt, rto))
        ax_t.step(t[k], srtt[k], where="post", lw=1.0, label="SRTT")
        ax_t.step(t[k], rto[k], where="post", lw=1.0, label="RTO")
    ax_w.set_ylabel("window (segments)")
    ax_t.set_ylabel("time (s), log scale")
    if t.size:
        _log(ax_t, "y")  # an RTO of seconds beside an SRTT of milliseconds
    if log is not None:
        ev, kind = np.asarray(log["event"]), np.asarray(log["kind"])
        mine = np.asarray(log["flow"]) == flow
        data, acks = mine & (kind == LOG_KINDS.index("data")), mine & (kind == LOG_KINDS.index("ack"))
        link, lt, ls = np.asarray(log["link"]), np.asarray(log["time"]), np.asarray(log["seg"], dtype=np.float64)
        sent = data & (ev == LOG_EVENTS.index("sent")) & (link == first_link)
        retx = sent & np.asarray(log["retx"], dtype=bool)
        new = sent & ~retx
        lost = data & ((ev == LOG_EVENTS.index("dropped")) | (ev == LOG_EVENTS.index("lost")))
        acked = acks & (ev == LOG_EVENTS.index("arrived")) & (link == -1)
        small = int(sent.sum()) < 20_000
        if acked.any():
            at, aseg = lt[acked], ls[acked]
            k = _thin_steps(at, (aseg,))
            ax_s.step(at[k], aseg[k], where="post", lw=0.8, color="C2", label="cumulative ACK", zorder=1)
        ax_s.plot(*_thin_points(lt[new], ls[new]), ls="none", marker="." if small else ",", ms=2, color="C0", label="sent", zorder=2)
        ax_s.plot(*_thin_points(lt[retx], ls[retx]), ls="none", marker=".", ms=3, color="C3", label="retransmitted", zorder=3)
        ax_s.plot(*_thin_points(lt[lost], ls[lost]), ls="none", marker="x", ms=4, color="k", label="dropped or lost", zorder=4)
    elif t.size:
        nxt = np.asarray(series["snd_nxt"], dtype=np.float64) / seg
        una = np.asarray(series["snd_una"], dtype=np.float64) / seg
        k = _thin_steps(t, (nxt, una))
        ax_s.step(t[k], nxt[k], where="post", lw=1.0, label="next segment to send")
        ax_s.step(t[k], una[k], where="post", lw=1.0, label="cumulative ACK")
    ax_s.set_ylabel("segment number")
    ax_s.set_xlabel("time (s)")
    for ax in (ax_w, ax_t, ax_s):
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="upper left")

    fig.suptitle("\n".join(textwrap.wrap(title, 110)), fontsize=9)
    return fig
