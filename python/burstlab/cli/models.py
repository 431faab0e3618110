"""``burstlab fit`` (fidelity report of every loss model on a trace) and ``burstlab gen``
(a synthetic trace from a saved model or a loss spec). Results go to stdout, status
lines (progress, notes, files written) to stderr."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from burstlab.cli.options import FORMAT, SEED, SEED_MAX, count


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


@click.command("fit")
@click.argument("trace_file", metavar="TRACE", type=click.Path(exists=True, dir_okay=False))
@click.option("--models", default="all", show_default=True, help="Comma-separated model names, or 'all'.")
@click.option("--format", "fmt", type=FORMAT, default=None, help="Trace format (default: detected).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), default=None, help="Write run-length CCDF overlays here.")
@click.option("--save", "save_dir", type=click.Path(file_okay=False), default=None, help="Write each fitted model as DIR/<name>.json.")
@click.option("--seed", default=1, show_default=True, type=SEED, help=f"Seed of the synthetic samples (0 to {SEED_MAX}).")
def fit_cmd(trace_file: str, models: str, fmt: str | None, as_json: bool, plot_dir: str | None, save_dir: str | None, seed: int) -> None:
    """Fit loss models to TRACE, sample an equal-length trace from each and compare them
    side by side (PRR, μ, mean/max loss burst and success run, KS distances); say which
    fits best and why. A model that cannot be fitted to this trace (e.g. a burst-length
    fit on a trace without loss) is skipped with a note."""
    from burstlab.fidelity import best_model, fidelity, plot_ccdfs
    from burstlab.io import output_dir, read_trace

    names = [m.strip() for m in models.split(",") if m.strip()]
    if not names:
        raise click.BadParameter(f"expected 'all' or comma-separated model names, got {models!r}", param_hint="--models")
    trace = read_trace(trace_file, fmt)
    skipped: list[tuple[str, str]] = []
    progress = None if as_json else (lambda s: click.echo(s, err=True))
    with output_dir(plot_dir), output_dir(save_dir):  # unwritable folders fail before the fits
        ref, rows, fitted = fidelity(trace, names, seed=seed, skipped=skipped, progress=progress)
        if not rows:
            why = "; ".join(f"{n}: {r}" for n, r in skipped)
            from burstlab._core import ParameterError

            raise ParameterError(f"no model could be fitted to {trace_file} ({why})")
        plots = plot_ccdfs(ref, rows, plot_dir, stem=Path(trace_file).name) if plot_dir else []
        if save_dir:
            for name, m in fitted.items():
                m.save(Path(save_dir) / f"{name}.json")
    best = best_model(ref, rows)
    if as_json:
        out = {"trace": trace_file, "length": len(trace), "reference": ref.to_dict(), "models": [r.to_dict() for r in rows]}
        out["skipped"] = [{"model": n, "reason": r} for n, r in skipped]
        out["best"] = None if best is None else {"model": best[0].model, "why": best[1]}
        out["plots"] = [str(p) for p in plots]
        click.echo(json.dumps(out, indent=1))
        return
    cols = ["model", "prr", "mu", "mean_loss_burst", "max_loss_burst", "mean_success_run", "max_success_run", "ks_loss_burst", "ks_success_run"]
    heads = ["model", "PRR", "mu", "burst", "max burst", "run", "max run", "KS burst", "KS run"]
    table = [[_fmt(r.to_dict()[c]) for c in cols] for r in [ref, *rows]]
    widths = [max(len(h), *(len(row[i]) for row in table)) for i, h in enumerate(heads)]
    click.echo(f"{trace_file}: {len(trace)} entries; synthetic traces of equal length, seed {seed}")
    click.echo("  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(heads, widths))))
    for row in table:
        click.echo("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
    if best is not None:
        click.echo(f"best fit: {best[0].model}: {best[1]}")
    click.echo(_FIT_LEGEND)
    for name, reason in skipped:
        click.echo(f"note: skipped {name}: it cannot be fitted to this trace ({reason})", err=True)
    for p in plots:
        click.echo(f"wrote {p}", err=True)


#: Peak memory of ``gen`` per packet: the packed sample (1/8 byte; the writers stream) and
#: a margin for a saved model's own sampler.
_GEN_BYTES_PER_PACKET = 0.25


def _check_room(n: int, out: str) -> None:
    """Refuse, before sampling, an N that cannot fit in memory or on the output's disk
    (a typo such as -n 100000000000 would otherwise run for minutes and then fail)."""
    from burstlab._core import available_memory

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
    from burstlab.lossspec import parse_loss_spec
    from burstlab.models import load_model
    from burstlab.traces import Trace

    path = model[1:] if model.startswith("@") else model
    check_output_path(out)
    _check_room(n, out)
    if model.startswith("@") or os.path.exists(path) or path.lower().endswith(".json"):
        trace = load_model(path).sample(n, random_state=seed)
    else:
        core = parse_loss_spec(model)
        from burstlab._core import BitTrace

        trace = Trace(BitTrace.filled(n, True) if core is None else core.sample(n, seed))
    trace.name = Path(out).name
    write_trace(trace, out, fmt)
    click.echo(f"wrote {n} entries to {out} ({n - trace.bits.count_ones()} lost)", err=True)


COMMANDS = [fit_cmd, gen_cmd]
