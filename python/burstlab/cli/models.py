"""``burstlab fit`` (fidelity report of every loss model on a trace) and ``burstlab gen``
(a synthetic trace from a saved model or a loss spec)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
import numpy as np



def _fmt(x: object) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


@click.command("fit")
@click.argument("trace_file", metavar="TRACE", type=click.Path(exists=True, dir_okay=False))
@click.option("--models", default="all", show_default=True, help="Comma-separated model names, or 'all'.")
@click.option("--format", "fmt", default=None, help="Trace format (default: auto-detect).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), default=None, help="Write run-length CCDF overlays here.")
@click.option("--save", "save_dir", type=click.Path(file_okay=False), default=None, help="Write each fitted model as DIR/<name>.json.")
@click.option("--seed", default=1, show_default=True, type=int, help="Seed of the synthetic samples.")
def fit_cmd(trace_file: str, models: str, fmt: str | None, as_json: bool, plot_dir: str | None, save_dir: str | None, seed: int) -> None:
    """Fit loss models to TRACE, sample an equal-length trace from each and compare them
    side by side (PRR, μ, mean/max loss burst and success run, KS distances)."""
    from burstlab.fidelity import fidelity, plot_ccdfs
    from burstlab.io import read_trace

    trace = read_trace(trace_file, fmt) if fmt else read_trace(trace_file)
    names = [m.strip() for m in models.split(",") if m.strip()]
    ref, rows, fitted = fidelity(trace, names, seed=seed)
    plots = plot_ccdfs(ref, rows, plot_dir, stem=Path(trace_file).name) if plot_dir else []
    if save_dir:
        for name, m in fitted.items():
            m.save(Path(save_dir) / f"{name}.json")
    if as_json:
        out = {"trace": trace_file, "length": len(trace), "reference": ref.to_dict(), "models": [r.to_dict() for r in rows]}
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
    for p in plots:
        click.echo(f"wrote {p}")


@click.command("gen")
@click.argument("model", metavar="MODEL")
@click.option("-n", "n", required=True, type=click.IntRange(min=0), help="Number of packets.")
@click.option("-o", "out", required=True, type=click.Path(dir_okay=False), help="Output trace (format from --format or the extension; default one 0/1 per line).")
@click.option("--format", "fmt", default=None, help="Output format (see `burstlab convert`).")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(min=0))
def gen_cmd(model: str, n: int, out: str, fmt: str | None, seed: int) -> None:
    """Write a synthetic trace of N packets from MODEL: a saved model (.json from
    `burstlab fit --save` or `Model.save`) or a loss spec such as ge:prr=0.9,mu=0.6."""
    from burstlab.io import write_trace
    from burstlab.lossspec import parse_loss_spec
    from burstlab.models import load_model
    from burstlab.traces import Trace

    path = model[1:] if model.startswith("@") else model
    if model.startswith("@") or os.path.exists(path):
        trace = load_model(path).sample(n, random_state=seed)
    else:
        core = parse_loss_spec(model)
        trace = Trace(np.ones(n, dtype=np.uint8) if core is None else core.sample(n, seed))
    trace.name = Path(out).name
    write_trace(trace, out, fmt)
    click.echo(f"wrote {n} entries to {out} ({n - trace.bits.count_ones()} lost)")


COMMANDS = [fit_cmd, gen_cmd]
