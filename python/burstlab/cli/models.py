"""``burstlab fit`` (fidelity report of every loss model on a trace) and ``burstlab gen``
(a synthetic trace from a saved model or a loss spec). Results go to stdout, status
lines (progress, notes, files written) to stderr."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from burstlab._core import BitTrace, available_memory
from burstlab.cli.options import FORMAT, SEED, SEED_MAX, TRACE_FILE, count
from burstlab.cli.stats import read_one, with_reading_options
from burstlab.cli.tables import print_table
from burstlab.lossspec import parse_loss_spec
from burstlab.sim import TcpConfig
from burstlab.units import DURATION, RATE, TIME


def _fmt(x: object) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


_FIT_LEGEND = """\
columns: PRR = packet reception ratio; mu = burstiness 1 - g - b (Srinivasan et al. §5.2; 0 = independent,
  > 0 bursty); burst / max burst = mean / longest loss burst (packets); run / max run = mean / longest
  success run; KS burst / KS run = Kolmogorov-Smirnov distance between the trace's and the model's
  run-length distributions (0 = the same, 1 = disjoint; Barsocchi et al. §IV). The first row is the
  trace itself; each model row is a synthetic trace of the same length sampled from the fitted model."""

_TCP_LEGEND = """\
  TCP <mode> = the model's TCP goodput error against the trace's: (mean over the model's replicates -
  the trace's mean over its starts) / the trace's, with its 95 % confidence interval [lo, hi], in
  percent; the interval holds the trace's own variability (how far TCP over one stretch of the trace
  is from TCP over another as long), not only the runs' spread. Rows are sorted by the worst error
  over the modes; top = in the top group: its interval overlaps the best model's, so the data cannot
  tell the two apart (docs/loss-models.md, "Judging a model by TCP")."""


def _cell(x: float | None, lo: float | None = None, hi: float | None = None) -> str:
    if x is None or x != x:
        return "-"
    if lo is None or hi is None or lo != lo:
        return f"{100 * x:+.1f}%"
    return f"{100 * x:+.1f}% [{100 * lo:+.0f},{100 * hi:+.0f}]"


@click.command("fit")
@click.argument("trace_file", metavar="TRACE", type=TRACE_FILE)
@click.option("--models", default="all", show_default=True, help="Comma-separated model names, or 'all'.")
@click.option("--format", "fmt", type=FORMAT, default=None, help="Trace format (default: detected).")
@click.option("--judge", type=click.Choice(["stats", "tcp"]), default="stats", show_default=True,
              help="Rank the models by their run-length statistics, or by the TCP they produce (same TCP over the trace "
              "and over replicates of each model).")  # fmt: skip
@click.option("--holdout", type=click.FloatRange(0, 1, max_open=True), default=None,
              help="Fraction of the trace (its end) kept out of the fits and used to judge them; 0 judges on the fitted data. "
              "Default: 0.5 with --judge tcp, 0 with stats.")  # fmt: skip
@click.option("--mode", "modes", default="slotted,link", show_default=True,
              help="With --judge tcp: slotted (one opportunity per slot, Srinivasan et al. §3.1), link (losses per packet "
              "on a link), or both.")  # fmt: skip
@click.option("--profile", default="tossim", show_default=True, type=click.Choice(["tossim", "rfc", "ns3", "linux"]),
              help="With --judge tcp: the TCP profile (tossim: the PRR/mu study's NewReno, timers scaled with the slot).")
@click.option("--tcp", "variant", default=None, type=click.Choice(["tahoe", "reno", "newreno", "sack", "westwood", "tibet", "ideal", "vegas", "cubic", "linux-reno", "bbr", "bbr3"]),
              help="With --judge tcp: the TCP variant (default: the profile's).")  # fmt: skip
@click.option("--slot", default=None, type=DURATION, help="Time per trace entry, e.g. 10ms (default: the trace's interval, else 10ms).")
@click.option("--rate", default=None, type=RATE, help="Link mode: capacity, e.g. 2Mbit (default: one segment per slot).")
@click.option("--delay", default=None, type=TIME, help="Link mode: one-way delay, e.g. 20ms (default: half a slot).")
@click.option("--buffer", default=100, show_default=True, type=count(), help="Link mode: DropTail buffer, packets.")
@click.option("--replicates", default=10, show_default=True, type=count(1, 10_000), help="With --judge tcp: synthetic traces per model.")
@click.option("--rotations", default=10, show_default=True, type=count(1, 10_000),
              help="With --judge tcp: TCP runs over the trace, each started at another offset (1: the trace as it is).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), default=None, help="Write run-length CCDF overlays here.")
@click.option("--save", "save_dir", type=click.Path(file_okay=False), default=None, help="Write each fitted model as DIR/<name>.json (fitted on what --holdout leaves).")
@click.option("--seed", default=1, show_default=True, type=SEED, help=f"Seed of the synthetic samples (0 to {SEED_MAX}).")
@with_reading_options
@click.pass_context
def fit_cmd(ctx: click.Context, trace_file: str, models: str, fmt: str | None, judge: str, holdout: float | None, modes: str, profile: str,
            variant: str | None, slot: float | None, rate: float | None, delay: float | None, buffer: int, replicates: int, rotations: int,
            as_json: bool, plot_dir: str | None, save_dir: str | None, seed: int, one_means: str, expected: int | None, drop_beyond: bool,
            interval: float | None) -> None:  # fmt: skip
    """Fit loss models to TRACE, sample synthetic traces from each and compare them side by
    side (PRR, μ, mean/max loss burst and success run, KS distances); say which fits best
    and why. With --judge tcp, also run the same TCP over the trace and over --replicates
    synthetic traces of every model, in slotted and link modes, and rank the models by the
    TCP goodput error (with a 95 % confidence interval), fitting on the first half of the
    trace and judging on the second (--holdout). A model that cannot be fitted to this
    trace (e.g. a burst-length fit on a trace without loss) is skipped with a note."""
    from burstlab.fidelity import plot_ccdfs
    from burstlab.io import output_dir
    from burstlab.judge import MODES, TcpSetup, select
    names = [m.strip() for m in models.split(",") if m.strip()]
    if not names:
        raise click.BadParameter(f"expected 'all' or comma-separated model names, got {models!r}", param_hint="--models")
    mode_list = [m.strip() for m in modes.split(",") if m.strip()]
    if not mode_list or any(m not in MODES for m in mode_list):
        raise click.BadParameter(f"expected slotted, link or slotted,link, got {modes!r}", param_hint="--mode")
    if judge == "stats":
        tcp_only = [o for o in ("modes", "profile", "variant", "slot", "rate", "delay", "buffer", "replicates", "rotations")
                    if ctx.get_parameter_source(o) not in (None, click.core.ParameterSource.DEFAULT)]  # fmt: skip
        if tcp_only:
            opts = ", ".join("--" + {"modes": "mode", "variant": "tcp"}.get(o, o) for o in tcp_only)
            raise click.UsageError(f"{opts}: only --judge tcp runs TCP")
    setup = None
    if judge == "tcp":
        tcp = None
        if profile != "tossim" or variant is not None:
            tcp = TcpConfig.profile(profile, **({} if variant is None else {"variant": variant}))
        setup = TcpSetup(tcp=tcp, slot=slot, rate=rate, delay=delay, buffer=buffer)
    trace = read_one(trace_file, fmt, one_means, expected, drop_beyond, interval)
    skipped: list[tuple[str, str]] = []
    progress = None if as_json else (lambda s: click.echo(s, err=True))
    ho = holdout if holdout is not None else (0.5 if judge == "tcp" else 0.0)
    with output_dir(plot_dir), output_dir(save_dir):  # unwritable folders fail before the fits
        sel = select(trace, judge, names, holdout=ho, modes=mode_list, setup=setup, replicates=replicates, rotations=rotations, seed=seed,
                     refit=False, skipped=skipped, progress=progress)  # fmt: skip
        ref, rows = sel.reference, sel.rows
        plots = plot_ccdfs(ref, rows, plot_dir, stem=Path(trace_file).name) if plot_dir else []
        if save_dir:
            for name, m in sel.models.items():
                m.save(Path(save_dir) / f"{name}.json")
    if as_json:
        out = {"trace": trace_file, **sel.to_dict(), "plots": [str(p) for p in plots]}
        click.echo(json.dumps(out, indent=1))
        return
    cols = ["model", "prr", "mu", "mean_loss_burst", "max_loss_burst", "mean_success_run", "max_success_run", "ks_loss_burst", "ks_success_run"]
    heads = ["model", "PRR", "mu", "burst", "max burst", "run", "max run", "KS burst", "KS run"]
    order = [ref, *rows]
    tcp_cells: dict[str, list[str]] = {}
    if sel.tcp:
        heads_tail = ["top"]
        ranked = [v.model for v in sel.tcp[0].verdicts]
        worst = {n: max(abs(v.error) for j in sel.tcp for v in j.verdicts if v.model == n) for n in ranked}
        order = [ref, *sorted(rows, key=lambda r: (worst.get(r.model, float("inf")), r.model))]
        for j in sel.tcp:
            heads.append(f"TCP {j.setup.mode}")
            tcp_cells.setdefault("trace", []).append(f"{j.reference.mean:.4g} segments/s")
            for v in j.verdicts:
                tcp_cells.setdefault(v.model, []).append(_cell(v.error, *v.ci))
        heads += heads_tail
        tcp_cells["trace"].append("")
        for n in ranked:
            tcp_cells[n].append("yes" if n in sel.top_group else "-")
    table = [[_fmt(r.to_dict()[c]) for c in cols] + tcp_cells.get(r.model, []) for r in order]
    fr, jr = sel.fit_range, sel.judge_range
    where = (f"fitted on entries {fr[0]}-{fr[1]}, judged on {jr[0]}-{jr[1]}" if fr != jr else "fitted and judged on the whole trace")
    click.echo(f"{trace_file}: {len(trace)} entries; {where}; synthetic traces as long as the judged part, seed {seed}")
    for j in sel.tcp:
        click.echo(f"TCP {j.setup.mode}: {j.setup.describe()}; {replicates} replicates per model, {rotations} starts over the trace")
    print_table(heads, table, title="the trace and a synthetic trace of each fitted model")
    for j in sel.tcp:
        sp = j.spread
        if sp is not None:
            click.echo(f"the trace's own variability ({j.setup.mode}): TCP over stretches of {sp.block:,} entries differs by "
                       f"{100 * sp.relative_sd(j.reference.mean):.1f} % (standard deviation of a model's error when the fit is perfect: "
                       f"{len(sp.offsets)} start offsets, {sp.df:.1f} degrees of freedom)")  # fmt: skip
    if sel.best is not None and (sel.separated or not sel.tcp):
        click.echo(f"best fit: {sel.best}: {sel.why}")
    elif sel.best is not None:
        click.echo(f"top group ({len(sel.top_group)} of {len(sel.rows)} models, indistinguishable by TCP on this trace): {', '.join(sel.top_group)}")
        click.echo(f"no single best fit: {sel.best}: {sel.why}")
    click.echo(_FIT_LEGEND)
    if sel.tcp:
        click.echo(_TCP_LEGEND)
    for w in sel.warnings:
        click.echo(f"warning: {w}", err=True)
    for name, reason in skipped:
        click.echo(f"note: skipped {name}: it cannot be fitted to this trace ({reason})", err=True)
    s = sel.seconds
    if "tcp" in s:
        click.echo(f"time: fits {s['fits']:.1f} s, TCP {s['tcp']:.1f} s for {s['tcp_runs']:.0f} runs", err=True)
    for p in plots:
        click.echo(f"wrote {p}", err=True)


#: Peak memory of ``gen`` per packet: the packed sample (1/8 byte; the writers stream) and
#: a margin for a saved model's own sampler.
_GEN_BYTES_PER_PACKET = 0.25


def _check_room(n: int, out: str) -> None:
    """Refuse, before sampling, an N that cannot fit in memory or on the output's disk
    (a typo such as -n 100000000000 would otherwise run for minutes and then fail)."""
    need = n * _GEN_BYTES_PER_PACKET
    avail = available_memory()
    if avail is not None and need > avail:
        raise click.BadParameter(f"{n} packets need about {need / 1e9:.3g} GB of memory, {avail / 1e9:.3g} GB is available", param_hint="-n")
    folder = Path(out).parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    st = os.statvfs(folder)
    if st.f_blocks == 0:
        return  # a pseudo file system (/proc, /sys) reports no size: not a free-space question
    free = st.f_bavail * st.f_frsize
    if 2 * n > free:
        raise click.BadParameter(f"{n} packets need up to {2 * n / 1e9:.3g} GB in {out}, {free / 1e9:.3g} GB is free there", param_hint="-n")


@click.command("gen")
@click.argument("model", metavar="MODEL")
@click.option("-n", "n", required=True, type=count(), help="Number of packets.")
@click.option("-o", "out", required=True, type=click.Path(dir_okay=False), help="Output trace (format from --format or the extension; default one 0/1 per line).")
@click.option("--format", "fmt", type=FORMAT, default=None, help="Output format (default: from the extension, else bits).")
@click.option("--seed", default=1, show_default=True, type=SEED, help=f"Seed (0 to {SEED_MAX}).")
def gen_cmd(model: str, n: int, out: str, fmt: str | None, seed: int) -> None:
    """Write a synthetic trace of N packets from MODEL: a saved model (.json from
    `burstlab fit --save` or `Model.save`) or a loss spec such as ge:prr=0.9,mu=0.6."""
    from burstlab.io import check_output_path, write_trace
    from burstlab.models import load_model
    from burstlab.traces import Trace

    path = model[1:] if model.startswith("@") else model
    check_output_path(out)
    _check_room(n, out)
    if model.startswith("@") or os.path.exists(path) or path.lower().endswith(".json"):
        trace = load_model(path).sample(n, random_state=seed)
    else:
        core = parse_loss_spec(model)

        trace = Trace(BitTrace.filled(n, True) if core is None else core.sample(n, seed))
    trace.name = Path(out).name
    write_trace(trace, out, fmt)
    click.echo(f"wrote {n} entries to {out} ({n - trace.bits.count_ones()} lost)", err=True)


COMMANDS = [fit_cmd, gen_cmd]
