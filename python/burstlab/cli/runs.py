"""Batches of simulations and their results as text, shared by ``burstlab sim`` and scenario
files (:mod:`burstlab.cli.scenario`): threads that run the batch with progress and Ctrl-C,
seeds, plots, the figures table (mean ± 95 % confidence interval), JSON."""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from burstlab.cli.options import SEED_MAX
from burstlab.sweep import default_workers  # noqa: F401  (re-exported: the one default, for burstlab sim --seeds)

# ----------------------------------------------------------------------------- runs


class _RunsProgress:
    """Plain progress lines on stderr for a batch of runs (nothing animated, no library to
    import): none while the batch has taken under 2 s, then one at most every 5 s with the
    runs done, the rate and the time left at that rate (issue 32: no long silence after
    "simulating … runs")."""

    FIRST_S, EVERY_S = 2.0, 5.0

    def __init__(self, total: int) -> None:
        self._time = time.monotonic
        self.total, self._t0, self._last = total, time.monotonic(), -math.inf

    def __call__(self, done: int) -> None:
        now = self._time() - self._t0
        if self.total <= 1 or now < self.FIRST_S or now - self._last < self.EVERY_S or done >= self.total:
            return
        self._last = now
        rate = done / now
        left = f", about {(self.total - done) / rate:.0f} s left" if done else ""
        click.echo(f"{done}/{self.total} runs done, {now:.0f} s ({rate:.2g} runs/s{left})", err=True)


def run_parallel(jobs: Sequence[Callable[[], Any]], workers: int) -> list[Any]:
    """Run ``jobs`` (each a simulation, which releases the GIL) on ``workers`` threads; the
    results in job order. The first job (in job order) that fails stops the others from
    starting and its error is raised. The threads are daemons and the caller waits for them
    in short steps, so Ctrl-C ends the command at once (exit 130) instead of after the runs
    under way; while it waits, a batch that takes over 2 s reports its progress on stderr."""
    show = _RunsProgress(len(jobs))
    if workers <= 1 or len(jobs) <= 1:
        out = []
        for j in jobs:
            out.append(j())
            show(len(out))
        return out

    results: list[Any] = [None] * len(jobs)
    errors: dict[int, BaseException] = {}
    pending = iter(range(len(jobs)))
    lock = threading.Lock()
    finished = [0]

    def work() -> None:
        while not errors:
            with lock:
                i = next(pending, None)
            if i is None:
                return
            try:
                results[i] = jobs[i]()
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                errors[i] = e
            with lock:
                finished[0] += 1

    threads = [threading.Thread(target=work, daemon=True, name=f"burstlab-sim-{k}") for k in range(min(workers, len(jobs)))]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.1)
            show(finished[0])
    if errors:
        raise errors[min(errors)]
    return results


def check_seeds(seed: int, seeds: int) -> list[int]:
    """``seeds`` consecutive seeds from ``seed``, all within 0 .. 2^64 − 1."""
    if seed + seeds - 1 > SEED_MAX:
        raise click.BadParameter(f"{seeds} seeds from --seed {seed} pass 2^64 − 1 (the largest seed)", param_hint="--seeds")
    return [seed + k for k in range(seeds)]


def plot_name(label: str) -> str:
    """``label`` as a file name (``cubic/sack`` -> ``cubic-sack``)."""
    return re.sub(r"[^A-Za-z0-9_.+-]+", "-", label)


def write_plot(folder: Path, name: str, title: str, series: dict[str, Any], mss: int, log: dict[str, Any] | None = None,
               flow: int = 0, first_link: int = 0) -> Path:  # fmt: skip
    """One transfer's figure (:func:`burstlab.plot.fig_transfer`) as ``folder/name.png``."""
    from burstlab.plot import fig_transfer, save_figure

    fig = fig_transfer(series, mss, title, log=log, flow=flow, first_link=first_link)
    return save_figure(fig, folder, name, formats=("png",))


# ----------------------------------------------------------------------------- table

#: The figures of a run, in the order printed: (SimResult field, label, unit kind). Unit
#: kinds "rate" and "bytes" are scaled to the row's largest value; the others are as is.
FIGURES: tuple[tuple[str, str, str], ...] = (
    ("goodput_bps", "goodput", "rate"),
    ("goodput_pps", "goodput", "segments/s"),
    ("throughput_bps", "throughput (with retransmissions)", "rate"),
    ("completion_time", "completion time", "s"),
    ("delivered_bytes", "delivered", "bytes"),
    ("delivered_segments", "delivered", "segments"),
    ("packets_sent", "data packets sent", "packets"),
    ("retransmissions", "retransmissions", "packets"),
    ("spurious_retransmissions", "  spurious (copy had arrived)", "packets"),
    ("lost_retransmissions", "  lost again, resent before the timer (RACK)", "packets"),
    ("loss_probes", "tail loss probes (RACK-TLP)", "packets"),
    ("fast_retransmits", "fast retransmits", "events"),
    ("timeouts", "retransmission timeouts", "events"),
    ("packets_lost", "data packets lost", "packets"),
    ("channel_losses", "  lost on the channel", "packets"),
    ("queue_drops", "  dropped by the buffer", "packets"),
    ("acks_sent", "ACKs sent", "packets"),
    ("acks_lost", "ACKs lost", "packets"),
    ("duration", "measured time", "s"),
    ("events", "simulator events", "events"),
)
_SCALES = {"rate": ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s"), (1.0, "b/s")), "bytes": ((1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "bytes"))}


def scale_for(kind: str, values: Sequence[float]) -> tuple[float, str]:
    """(divisor, unit) for a row of ``kind`` whose largest value is in ``values``."""
    if kind not in _SCALES:
        return 1.0, kind
    top = max((abs(v) for v in values), default=0.0)
    for div, unit in _SCALES[kind]:
        if top >= div:
            return div, unit
    return _SCALES[kind][-1]


def fmt_value(x: float, integer: bool = False) -> str:
    """One figure of one run: a whole count as is, anything else to 4 significant digits."""
    if integer and float(x).is_integer():
        return str(int(x))
    return f"{x:.4g}" if abs(x) < 1e6 or not float(x).is_integer() else f"{x:.0f}"


def fmt_estimate(mean: float, half: float | None) -> str:
    """``mean ± half-width``, both rounded to the half-width's second significant digit."""
    if half is None:
        return fmt_value(mean)
    if not math.isfinite(half) or half <= 1e-9 * abs(mean):  # identical runs (up to rounding)
        return f"{fmt_value(mean)} ± {0 if math.isfinite(half) else half:g}"
    decimals = min(9, max(0, 1 - math.floor(math.log10(half))))
    return f"{mean:.{decimals}f} ± {half:.{decimals}f}"


def text_table(rows: list[list[str]], header: list[str], left: int = 2) -> str:
    """The first ``left`` columns left-aligned, the others right-aligned, a rule under the header."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(r: list[str]) -> str:
        return "  ".join(c.rjust(w) if i >= left else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *[line(r) for r in rows]])


def figure_rows(columns: list[list[Any]], figures: Sequence[tuple[str, str, str]] = FIGURES, keep: Sequence[str] = ()) -> tuple[list[list[str]], list[str]]:
    """The table rows of ``figures`` for each column's runs (one result, or replicates:
    mean ± 95 % CI), and footnotes. A figure no run has (a bulk transfer's completion time)
    is left out unless it is in ``keep``; runs where it is missing are counted."""
    from burstlab.replicates import estimate

    rows: list[list[str]] = []
    notes: list[str] = []
    for key, label, kind in figures:
        per_col = [[getattr(r, key) for r in runs] for runs in columns]
        if all(v is None for vals in per_col for v in vals) and key not in keep:
            continue
        ests = [estimate([v for v in vals if v is not None]) if any(v is not None for v in vals) else None for vals in per_col]
        div, unit = scale_for(kind, [e.mean for e in ests if e is not None])
        integer = kind in ("packets", "events", "segments") or (kind == "bytes" and div == 1.0)
        cells = []
        for e, vals in zip(ests, per_col):
            if e is None:
                cells.append("not reached")
                continue
            cell = fmt_value(e.mean / div, integer) if e.half_width is None else fmt_estimate(e.mean / div, e.half_width / div)
            missing = sum(v is None for v in vals)
            if missing:
                cell += f" ({len(vals) - missing} of {len(vals)})"
            cells.append(cell)
        rows.append([label, unit, *cells])
        if key == "completion_time" and any(v is None for vals in per_col for v in vals):
            notes.append("completion time: 'not reached' = the transfer did not complete within the time limit (--duration); "
                         "(k of N) = the mean over the k runs that did")  # fmt: skip
    return rows, notes


def report(title: str, labels: list[str], columns: list[list[Any]], seeds: list[int], keep: Sequence[str] = ()) -> str:
    """The text report: title, what the cells are, the table, footnotes."""
    rows, notes = figure_rows(columns, keep=keep)
    n = len(seeds)
    if n > 1:
        what = f"mean ± 95 % confidence interval over {n} runs per column (seeds {seeds[0]}-{seeds[-1]}; Student t, {n - 1} degrees of freedom)"
    else:
        what = f"one run per column (seed {seeds[0]}); --seeds N gives mean ± 95 % confidence intervals"
    out = [title, what, "", text_table(rows, ["figure", "unit", *labels])]
    return "\n".join(out + ([""] + notes if notes else []))


def to_json(labels: list[str], columns: list[list[Any]], seeds: list[int]) -> dict[str, Any]:
    """Every run, and each figure's mean, 95 % CI half-width and sd per variant."""
    from burstlab.replicates import estimate

    summary = []
    for label, runs in zip(labels, columns):
        figs = {}
        for key, _, _ in FIGURES:
            vals = [getattr(r, key) for r in runs if getattr(r, key) is not None]
            figs[key] = estimate(vals).to_dict() if vals else None
        summary.append({"tcp": label, "runs": len(runs), "figures": figs})
    runs_out = [{"tcp": label, "seed": s, **r.to_dict()} for label, runs in zip(labels, columns) for s, r in zip(seeds, runs)]
    return {"seeds": seeds, "summary": summary, "runs": runs_out}


def run_kw(max_events: int | None, single: bool) -> dict[str, Any]:
    """The budget and progress arguments of the simulations a command runs: ``--max-events``,
    and (for a single run, whose progress is not interleaved with others') a line of progress
    on stderr each second once the run has taken 2 s (docs/simulator.md "Long runs")."""
    t0 = time.monotonic()

    def show(now: float, end: float, events: int) -> None:
        spent = time.monotonic() - t0
        if spent < 2.0 or end <= 0:
            return
        done = min(1.0, now / end)
        left = f", about {spent * (1 - done) / done:.0f} s left" if done > 0 else ""
        click.echo(f"simulated {now:.6g} of {end:.6g} s ({100 * done:.0f} %, {events:.3g} events, {spent:.0f} s{left})", err=True)

    return {"max_events": max_events, "progress": show if single else None}
