"""``burstlab report``: one page about a link from one trace (``burstlab.link_report``).
The summary goes to stdout, progress and the files written to stderr."""

from __future__ import annotations

import json
from pathlib import Path

import click

from burstlab.cli.options import FORMAT, SEED, SEED_MAX, TRACE_FILE, count
from burstlab.cli.stats import read_one, with_reading_options
from burstlab.cli.tables import print_table
from burstlab.sim import VARIANTS
from burstlab.units import DURATION, RATE, TIME


@click.command("report")
@click.argument("trace_file", metavar="TRACE", type=TRACE_FILE)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None, help="Folder of the page (default: report-<TRACE name>).")
@click.option("--format", "fmt", type=FORMAT, default=None, help="Trace format (default: detected).")
@click.option("--rate", default="1Mbit", show_default=True, type=RATE, help="The link's capacity.")
@click.option("--delay", default="20ms", show_default=True, type=TIME, help="The link's one-way delay.")
@click.option("--buffer", default=50, show_default=True, type=count(), help="The link's DropTail buffer, packets.")
@click.option("--link-layer", default="none", show_default=True,
              help="The link's link layer: arq:retry_limit=7, arq:attempt_time=1ms..20ms, harq:attempts=2 (docs/link-layer.md).")
@click.option("--duration", default="300s", show_default=True, type=DURATION, help="Length of each predicted transfer.")
@click.option("--profile", default="rfc", show_default=True, type=click.Choice(["rfc", "ns3", "linux", "tossim"]),
              help="TCP profile of the predictions (docs/tcp.md).")
@click.option("--tcp", "variants", default="all", show_default=True, help="Comma-separated TCP variants to predict, or 'all'.")
@click.option("--models", default="default", show_default=True,
              help="Model families to judge: 'default' (those that fit in well under a second), 'all', or names.")
@click.option("--slot", default=None, type=DURATION, help="Time per trace entry for the TCP judge, e.g. 10ms (default: the trace's interval, else 10ms).")
@click.option("--replicates", default=6, show_default=True, type=count(2, 10_000), help="Synthetic traces per model in the TCP judge.")
@click.option("--rotations", default=6, show_default=True, type=count(1, 10_000), help="TCP starts over the held-out trace.")
@click.option("--seeds", default=10, show_default=True, type=count(2, 10_000), help="Runs per predicted variant.")
@click.option("--seed", default=1, show_default=True, type=SEED, help=f"Seed (0 to {SEED_MAX}).")
@click.option("--json", "as_json", is_flag=True, help="Print the report's numbers as JSON instead of the summary.")
@with_reading_options
def report_cmd(trace_file: str, out_dir: str | None, fmt: str | None, rate: float, delay: float, buffer: int, link_layer: str, duration: float, profile: str,
               variants: str, models: str, slot: float | None, replicates: int, rotations: int, seeds: int, seed: int, as_json: bool,
               one_means: str, expected: int | None, drop_beyond: bool, interval: float | None) -> None:  # fmt: skip
    """From one trace of a link: its burstiness profile (PRR, μ and its convergence, run
    lengths against the geometric), the loss model TCP agrees with best (every family fitted
    on the first half, judged by TCP on the second) with its parameters, and the goodput
    every TCP variant should get on the link described by --rate, --delay, --buffer and
    --link-layer, with
    confidence intervals and the closed forms beside them. Writes report.html (figures
    embedded: the page alone shows them), report.md (beside the figures as PNG) and
    report.json to --out."""
    from burstlab.io import output_dir
    from burstlab.judge import TcpSetup
    from burstlab.link_report import REPORT_MODELS, UserLink, build_report, write_report

    link = UserLink(rate=float(rate), delay=float(delay), buffer=buffer, duration=float(duration), profile=profile,
                    link_layer=None if link_layer.strip().lower() == "none" else link_layer)  # fmt: skip
    vs = list(VARIANTS) if variants.strip() == "all" else [v.strip() for v in variants.split(",") if v.strip()]
    bad = [v for v in vs if v not in VARIANTS]
    if bad or not vs:
        raise click.BadParameter(f"expected 'all' or names from {', '.join(VARIANTS)}, got {variants!r}", param_hint="--tcp")
    names = list(REPORT_MODELS) if models.strip() == "default" else [m.strip() for m in models.split(",") if m.strip()]
    if not names:
        raise click.BadParameter(f"expected 'default', 'all' or model names, got {models!r}", param_hint="--models")
    from burstlab.models import make_model

    for n in names:
        if n != "all":
            make_model(n)  # an unknown name fails before any work
    setup = TcpSetup(slot=slot)
    out = Path(out_dir) if out_dir is not None else Path(f"report-{Path(trace_file).name}")
    trace = read_one(trace_file, fmt, one_means, expected, drop_beyond, interval)
    progress = None if as_json else (lambda s: click.echo(s, err=True))
    with output_dir(out):
        rep = build_report(trace, link, models=names, variants=vs, setup=setup, replicates=replicates, rotations=rotations, seeds=seeds,
                           seed=seed, progress=progress)  # fmt: skip
        md, page, figs = write_report(rep, out)
    if as_json:
        click.echo(json.dumps(json.loads((out / "report.json").read_text()), indent=1))
        return
    st, sel = rep.stats, rep.selection
    mu = "undefined" if st.mu is None else f"{st.mu:.3f}"
    click.echo(f"{trace_file}: {st.length} entries, PRR {st.prr:.3f}, mu {mu}"
               + ("" if rep.settle is None else f" (settles after {rep.settle} entries)"))  # fmt: skip
    if sel.best is not None:
        click.echo(f"best model by TCP: {sel.best}: {sel.why}")
    if rep.predictions:
        click.echo(f"the link: {rep.link.describe()}, TCP profile {rep.link.profile}")
        print_table(["variant", "goodput (segments/s)", "95 % CI", "over the trace replayed", "timeouts per run"],
                    [[p.variant, f"{p.mean:.4g}", f"[{p.ci[0]:.4g}, {p.ci[1]:.4g}]", f"{p.trace_goodput:.4g}", f"{p.timeouts:.3g}"] for p in rep.predictions],
                    title=f"predicted goodput, {len(rep.predictions[0].runs)} runs each")  # fmt: skip
    for name, reason in sel.skipped:
        click.echo(f"note: skipped {name}: it cannot be fitted to this trace ({reason})", err=True)
    click.echo(f"wrote {page}, {md} and {len(figs)} figures ({sum(rep.seconds.values()):.1f} s)", err=True)


COMMANDS = [report_cmd]
