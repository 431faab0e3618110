"""``burstlab stats`` (statistics of packet-reception traces) and ``burstlab convert``.
Results go to stdout, warnings and status lines to stderr."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any

import click

from burstlab import _core
from burstlab.cli.options import DURATION, FORMAT, TRACE_FILE, TRACE_FILES, DatasetFile, count, flatten
from burstlab.cli.tables import print_table

if TYPE_CHECKING:
    from burstlab.stats import TraceStats
    from burstlab.traces import Trace

#: Srinivasan et al. §8 chunk size (burstlab.stats.DEFAULT_CHUNK, without importing numpy here).
DEFAULT_CHUNK = 6000

#: The demo link: Gilbert-Elliott with P(good→bad) = 0.02 and P(bad→good) = 0.3
#: (μ = 0.68, PRR ≈ 0.94), 10 ms between packets.
DEMO_B, DEMO_G, DEMO_INTERVAL = 0.02, 0.3, 0.01


def demo_trace(n: int = 100_000, seed: int = 1) -> Trace:
    """A bursty trace from burstlab's own Rust Gilbert-Elliott model (for a first run)."""
    from burstlab.traces import Trace

    bits = _core.LossModel.gilbert_elliott(DEMO_B, DEMO_G).sample(n, seed)
    return Trace(bits, interval=DEMO_INTERVAL, name=f"demo-ge(b={DEMO_B},g={DEMO_G},seed={seed})")


_TABLE_COLUMNS = [
    ("length", "entries", "d"),
    ("prr", "PRR", ".4f"),
    ("link_class", "class", "s"),
    ("g", "g", ".4f"),
    ("b", "b", ".4f"),
    ("mu", "μ", ".4f"),
    ("mean_loss_burst", "mean burst", ".2f"),
    ("max_loss_burst", "max burst", "d"),
    ("mean_success_run", "mean run", ".2f"),
    ("max_success_run", "max run", "d"),
    ("chunk_rms_mu", "RMS Δμ", ".4f"),
]


def _fmt(v: Any, spec: str) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "undefined" if spec != "d" else "-"
    return format(v, spec)


def _short_names(stats: list[TraceStats]) -> tuple[list[str], str | None]:
    """Names relative to the folder they share (the folder is shown in the title)."""
    names = [s.name or "-" for s in stats]
    if len(names) < 2 or not all(os.path.isabs(n) or os.sep in n for n in names):
        return names, None
    try:
        common = os.path.commonpath(names)
    except ValueError:
        return names, None
    if not common or common in names:
        return names, None
    return [os.path.relpath(n, common) for n in names], common


def _print_table(stats: list[TraceStats], chunk: int) -> None:
    names, common = _short_names(stats)
    title = f"trace statistics (RMS Δμ over chunks of {chunk}; 'undefined' where a trace has no full chunk or μ is undefined)"
    if common:
        title += f"\nin {common}"
    rows = []
    for name, s in zip(names, stats):
        d = s.to_dict(runs=False)
        rows.append([name, *(_fmt(d[k], spec) for k, _, spec in _TABLE_COLUMNS)])
    print_table(["trace", *(head for _, head, _ in _TABLE_COLUMNS)], rows, title=title)


def _report_warnings(caught: list[warnings.WarningMessage], stats: list[TraceStats]) -> None:
    """One line per undefined μ, or a summary when there are many."""
    if len(caught) <= 5:
        for w in caught:
            click.echo(f"warning: {w.message}", err=True)
        return
    reasons: dict[str, int] = {}
    for s in stats:
        if s.mu_undefined:
            reasons[s.mu_undefined] = reasons.get(s.mu_undefined, 0) + 1
    detail = ", ".join(f"{n} where {r}" for r, n in sorted(reasons.items(), key=lambda x: -x[1]))
    click.echo(f"warning: μ is undefined for {len(caught)} of {len(stats)} traces ({detail})", err=True)


def _warn_duplicates(t: Trace) -> None:
    """A sequence list's repeated numbers are counted once: say so (a file of repeated
    numbers is more likely another format than a list of received packets)."""
    d = t.meta.get("duplicates", 0)
    if d:
        click.echo(
            f"warning: {t.name}: {d} line(s) repeat a sequence number already seen (counted once); "
            "if this is not a list of received packets, give the right --format",
            err=True,
        )


def _load(files: tuple[str, ...], fmt: str | None, one_means: str, expected: int | None, interval: float | None, drop_beyond: bool) -> list[Trace]:
    from burstlab.io import iter_trace_files, read_trace

    traces = []
    paths = list(iter_trace_files(files))
    labels = {str(f): f.label for f in files if isinstance(f, DatasetFile)}  # a dataset's files: NAME:PATH
    where = _describe(files)
    if not paths:
        raise _core.EmptyInputError(f"no trace file found in {where}")
    empty: list[str] = []
    for p in paths:
        try:
            t = read_trace(p, fmt, one_means=one_means, expected=expected, interval=interval, drop_beyond=drop_beyond)  # type: ignore[arg-type]
        except _core.EmptyInputError:
            if len(paths) == 1 or os.path.getsize(p) > 0:
                raise  # one file asked for by name, or a file with content but no entry: the error names it
            empty.append(str(p))  # an empty file among many (a link on which nothing was received): skipped, said below
            continue
        if str(p) in labels:
            t.name = labels[str(p)]
        _warn_duplicates(t)
        traces.append(t)
    if empty:
        if not traces:
            raise _core.EmptyInputError(f"every trace file in {where} is empty ({len(empty)} files, e.g. {empty[0]}): give --expected N if they list received packets")
        click.echo(f"warning: skipped {len(empty)} empty file(s) (e.g. {empty[0]}): a list of received packets with no entry has no length; "
                   "give --expected N (the packets sent) to count them as links on which nothing was received", err=True)  # fmt: skip
    return traces


def _describe(files: tuple[str, ...]) -> str:
    """The inputs named in a message: a dataset's files by the dataset's name."""
    names = list(dict.fromkeys(f.label.split(":", 1)[0] if isinstance(f, DatasetFile) else str(f) for f in files))
    return ", ".join(names)


_input_options = [
    click.option("--format", "fmt", type=FORMAT, help="Input format (default: detected)."),
    click.option(
        "--one-means",
        type=click.Choice(["received", "lost"]),
        default="received",
        show_default=True,
        help="Polarity of bits/string input.",
    ),
    click.option("--expected", type=count(1, 2**64 - 1), help="seqlist: number of packets sent (default: max seq + 1)."),
    click.option("--drop-beyond", is_flag=True, help="seqlist: drop (and count) seq ≥ --expected instead of failing."),
    click.option("--interval", type=DURATION, help="Time between entries, e.g. 5ms (a bare number is seconds; ttem default: 5ms)."),
]


def _with_input_options(f: Any) -> Any:
    for opt in reversed(_input_options):
        f = opt(f)
    return f


def with_reading_options(f: Any) -> Any:
    """How to read one trace (``--one-means``, ``--expected``, ``--drop-beyond``,
    ``--interval``; ``--format`` is the command's own), as ``stats`` reads them: one option
    vocabulary for every command that reads a trace (``fit``, ``report``)."""
    for opt in reversed(_input_options[1:]):
        f = opt(f)
    return f


def read_one(path: str, fmt: str | None, one_means: str, expected: int | None, drop_beyond: bool, interval: float | None) -> Trace:
    """One trace read with the options of :func:`with_reading_options`, named after its file."""
    from burstlab.io import read_trace

    t = read_trace(path, fmt, one_means=one_means, expected=expected, interval=interval, drop_beyond=drop_beyond)  # type: ignore[arg-type]
    _warn_duplicates(t)
    if t.name is None:
        t.name = os.path.basename(path)
    return t


@click.command("stats")
@click.argument("files", nargs=-1, type=TRACE_FILES)
@_with_input_options
@click.option("--chunk", type=count(), default=DEFAULT_CHUNK, show_default=True, help="Chunk size of the RMS μ deviation (Srinivasan et al. §8).")
@click.option("--json", "as_json", is_flag=True, help="JSON output (with run-length distributions and μ convergence).")
@click.option("--csv", "as_csv", is_flag=True, help="CSV output, one row per trace.")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), help="Write run-length CCDF and μ-convergence plots here.")
@click.option("--demo", is_flag=True, help="Use a built-in synthetic Gilbert-Elliott trace.")
def stats_cmd(
    files: tuple[str, ...],
    fmt: str | None,
    one_means: str,
    expected: int | None,
    drop_beyond: bool,
    interval: float | None,
    chunk: int,
    as_json: bool,
    as_csv: bool,
    plot_dir: str | None,
    demo: bool,
) -> None:
    """Statistics (PRR, g, b, μ, run lengths, μ convergence) of packet-reception traces.

    FILES may be files, directories (walked) or registered datasets by name (their data
    files; NAME:FILE for one of them; 'burstlab data list'). Without FILES (or with --demo)
    a built-in Gilbert-Elliott trace is used.
    """
    from burstlab.stats import UndefinedMuWarning, trace_stats

    if as_json and as_csv:
        raise click.UsageError("give at most one of --json and --csv")
    traces = [demo_trace()] if demo or not files else _load(flatten(files), fmt, one_means, expected, interval, drop_beyond)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMuWarning)
        stats = [trace_stats(t, chunk=chunk) for t in traces]
    _report_warnings(caught, stats)
    if as_json:
        click.echo(json.dumps([s.to_dict(runs=True) for s in stats], indent=1, allow_nan=False))
    elif as_csv:
        rows = [s.to_dict(runs=False) for s in stats]
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows({k: ("" if v is None else v) for k, v in r.items()} for r in rows)
        sys.stdout.write(buf.getvalue())
    else:
        _print_table(stats, chunk)
    if plot_dir:
        from burstlab.plot import plot_stats

        for p in plot_stats(stats, plot_dir):
            click.echo(f"wrote {p}", err=True)


@click.command("convert")
@click.argument("src", type=TRACE_FILE)
@click.argument("dst", type=click.Path(dir_okay=False))
@_with_input_options
@click.option("--to", "to_fmt", type=FORMAT, help="Output format (default: from DST's extension, else bits).")
@click.option(
    "--to-one-means",
    type=click.Choice(["received", "lost"]),
    default="received",
    show_default=True,
    help="Polarity of bits/string output.",
)
@click.option("--every", type=click.IntRange(min=1), default=1, show_default=True,
              help="Keep only every K-th entry: the link probed K times less often (Srinivasan et al. §8, Fig. 14).")
def convert_cmd(
    src: str,
    dst: str,
    fmt: str | None,
    one_means: str,
    expected: int | None,
    drop_beyond: bool,
    interval: float | None,
    to_fmt: str | None,
    to_one_means: str,
    every: int,
) -> None:
    """Convert a trace from one format to another (streamed: memory about the packed trace;
    written atomically)."""
    from burstlab.io import read_trace, write_trace

    t = read_trace(src, fmt, one_means=one_means, expected=expected, interval=interval, drop_beyond=drop_beyond)  # type: ignore[arg-type]
    _warn_duplicates(t)
    if every > 1:
        from burstlab.datasets import subsample

        t = subsample(t, every)
    write_trace(t, dst, to_fmt, one_means=to_one_means)  # type: ignore[arg-type]
    click.echo(f"wrote {dst} ({len(t)} entries)", err=True)


COMMANDS = [stats_cmd, convert_cmd]
