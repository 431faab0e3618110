"""``burstlab fit`` (fidelity report of every loss model on a trace) and ``burstlab gen``
(a synthetic trace from a saved model or a loss spec)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import click
import numpy as np

from burstlab import _core


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
@click.option("-o", "out", required=True, type=click.Path(dir_okay=False), help="Output trace (one 0/1 per line, 1 = delivered).")
@click.option("--seed", default=1, show_default=True, type=int)
def gen_cmd(model: str, n: int, out: str, seed: int) -> None:
    """Write a synthetic trace of N packets from MODEL: a saved model (.json from
    `burstlab fit --save` or `Model.save`) or a loss spec such as ge:prr=0.9,mu=0.6."""
    from burstlab.lossspec import parse_loss_spec

    if seed < 0:
        raise _core.ParameterError(f"invalid parameter seed = {seed}: expected a non-negative integer")
    spec = model if model.startswith("@") or not os.path.exists(model) else "@" + model
    core = parse_loss_spec(spec)
    if core is None:
        bits = np.ones(n, dtype=np.uint8)
    else:
        bits = core.sample(n, seed).to_numpy()
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            if n:
                # One '0'/'1' and a newline per entry.
                buf = np.empty(2 * n, dtype=np.uint8)
                buf[0::2] = bits + ord("0")
                buf[1::2] = ord("\n")
                f.write(buf.tobytes())
        os.replace(tmp, p)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    click.echo(f"wrote {n} entries to {p} ({int(n - bits.sum())} lost)")


COMMANDS = [fit_cmd, gen_cmd]
