"""``burstlab sim``: one simulated TCP transfer over a lossy link (or a slotted
trace-driven run with ``--trace``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import numpy as np

from burstlab import _core
from burstlab.io import FORMATS
from burstlab.units import parse_rate, parse_size, parse_time


def _write_series(path: str, series: dict[str, Any]) -> None:
    """Write the series to ``.npz`` (numpy) or ``.csv``, atomically."""
    from burstlab.io import atomic_write

    if not series:
        raise _core.ParameterError("no series recorded")

    def write(tmp: str) -> None:
        if Path(path).suffix.lower() == ".csv":
            cols = list(series)
            arr = np.column_stack([np.asarray(series[c], dtype=np.float64) for c in cols])
            np.savetxt(tmp, arr, delimiter=",", header=",".join(cols), comments="", fmt="%.9g")
        else:
            with open(tmp, "wb") as f:
                np.savez(f, **series)

    atomic_write(path, write)


#: Options that only mean something without --trace (the link model) and only with it.
_LINK_ONLY = ("rate", "delay", "buffer", "buffer_unit", "loss", "loss_mode", "ack_loss", "duration", "size", "warmup", "link_layer")
_TRACE_ONLY = ("trace_format", "slot", "ack_path")


def _given(ctx: click.Context, name: str) -> bool:
    src = ctx.get_parameter_source(name)
    return src is not None and src not in (click.core.ParameterSource.DEFAULT, click.core.ParameterSource.DEFAULT_MAP)


def _opt(name: str) -> str:
    return "--" + name.replace("_", "-").replace("trace-format", "format")


def _check_combination(ctx: click.Context, kw: dict[str, Any]) -> None:
    """An option the chosen mode ignores is a usage error, not a silent no-op."""
    trace_mode = kw["trace_file"] is not None
    wrong = [n for n in (_LINK_ONLY if trace_mode else _TRACE_ONLY) if _given(ctx, n)]
    if wrong:
        opts = ", ".join(_opt(n) for n in wrong)
        why = "the trace decides every slot and the run lasts len(trace) × --slot" if trace_mode else "only a --trace run uses them"
        raise click.UsageError(f"{opts} {'has' if len(wrong) == 1 else 'have'} no effect {'with --trace' if trace_mode else 'without --trace'} ({why})")


def _check_series_path(path: str) -> None:
    """Check --series before the run: a .npz or .csv file path that can be written."""
    from burstlab.io import check_output_path

    if Path(path).suffix.lower() not in (".npz", ".csv"):
        raise click.BadParameter(f"{path!r}: expected a file name ending in .npz or .csv", param_hint="--series")
    check_output_path(path)


def _none_or_int(text: str, name: str) -> int | None:
    if text.strip().lower() in ("none", "inf", "unbounded"):
        return None
    try:
        return int(text)
    except ValueError:
        raise _core.ParameterError(f"invalid parameter {name} = {text!r}: expected a whole number of segments or 'none'") from None


def _tcp_options(f: Any) -> Any:
    """One option per :class:`burstlab.sim.TcpConfig` field (``--init-cwnd``,
    ``--timestamps/--no-timestamps``, ...), each unset by default: the --profile decides."""
    from dataclasses import fields

    from burstlab.sim import TcpConfig

    for fl in reversed(fields(TcpConfig)):
        opt = "--" + fl.name.replace("_", "-")
        meta = fl.metadata
        help_text = meta["help"] + (f" [{meta['unit']}]" if meta.get("unit") else "") + " (default: the profile's)"
        if meta.get("choices"):
            f = click.option(opt, fl.name, default=None, type=click.Choice(list(meta["choices"]), case_sensitive=False), help=help_text)(f)
        elif fl.type in ("bool", bool):
            f = click.option(f"{opt}/--no-{opt[2:]}", fl.name, default=None, help=help_text)(f)
        elif meta.get("unit") == "s" or fl.name in ("max_cwnd", "rwnd"):
            f = click.option(opt, fl.name, default=None, metavar="TEXT", help=help_text)(f)  # parsed below
        else:
            kind = int if "int" in str(fl.type) else float
            f = click.option(opt, fl.name, default=None, type=kind, help=help_text)(f)
    return f


def _tcp_from_options(kw: dict[str, Any]) -> Any:
    """The TcpConfig the options ask for: the profile, the --tcp pair, then each option given."""
    from dataclasses import fields

    from burstlab.sim import TcpConfig

    given: dict[str, Any] = {}
    for fl in fields(TcpConfig):
        v = kw[fl.name]
        if v is None:
            continue
        if fl.metadata.get("unit") == "s":
            v = parse_time(v, fl.name.replace("_", "-"))
        elif fl.name in ("max_cwnd", "rwnd"):
            v = _none_or_int(v, fl.name.replace("_", "-"))
        elif fl.metadata.get("choices"):
            v = v.lower()
        given[fl.name] = v
    if kw["variant"] is not None:
        given["variant"] = kw["variant"]
    return TcpConfig.profile(kw["profile"], **given)


def _show_config(tcp: Any, kw: dict[str, Any], link: dict[str, Any] | None) -> None:
    """--show-config: the resolved settings, as the simulator validated them."""
    from burstlab.sim import tcp_settings

    doc: dict[str, Any] = {"profile": kw["profile"], "tcp": tcp_settings(tcp)}
    if link is not None:
        doc["link"] = link
    if kw["as_json"]:
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo(f"profile={doc['profile']}")
    for section in ("tcp", "link"):
        for k, v in doc.get(section, {}).items():
            click.echo(f"{section}.{k}={v}")


@click.command("sim")
@click.argument("scenario", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--profile", default="rfc", show_default=True, type=click.Choice(["rfc", "ns3", "linux", "tossim"]),
              help="Every TCP setting at once: RFC defaults, ns-3 3.44's defaults, a Linux 6.x host's, or the PRR/mu "
              "study's TinyOS sender (docs/tcp.md).")
@click.option("--tcp", "variant", default=None, type=click.Choice(["tahoe", "reno", "newreno", "sack", "westwood", "tibet", "ideal", "vegas", "cubic", "linux-reno"]),
              help="Shorthand for a (--cc, --recovery) pair; --cc and --recovery win over it. Default: the profile's (rfc: newreno).")
@_tcp_options
@click.option("--rate", default="10Mbit", show_default=True, help="Link capacity, e.g. 10Mbit.")
@click.option("--delay", default="10ms", show_default=True, help="One-way propagation delay.")
@click.option("--buffer", default=100, show_default=True, type=int, help="DropTail buffer (see --buffer-unit).")
@click.option("--buffer-unit", default="packets", show_default=True, type=click.Choice(["packets", "bytes"]))
@click.option("--loss", default="none", show_default=True, help="Loss spec, e.g. bernoulli:p=0.01 or ge:prr=0.9,mu=0.6.")
@click.option("--loss-mode", default="packet", show_default=True, type=click.Choice(["packet", "time"]))
@click.option("--ack-loss", default="none", show_default=True, type=click.Choice(["none", "independent", "sync"]))
@click.option("--link-layer", default="none", show_default=True,
              help="Link layer on the forward link: arq:retry_limit=7, arq:attempt_time=1ms..20ms, harq:attempts=2 (docs/link-layer.md).")
@click.option("--duration", default=None, help="Bulk transfer duration (default 100s), or the time limit with --size.")
@click.option("--size", default=None, help="Fixed-size transfer, e.g. 5MB; reports its completion time.")
@click.option("--warmup", default="0s", show_default=True, help="Initial period excluded from the measurement.")
@click.option("--trace", "trace_file", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Slotted trace-driven mode (Srinivasan et al. §3.1): this reception trace decides each slot.")  # fmt: skip
@click.option("--format", "trace_format", default=None, type=click.Choice(list(FORMATS)),
              help="Format of the --trace file (default: detected, see docs/traces.md).")  # fmt: skip
@click.option("--slot", default="10ms", show_default=True, help="Slot length with --trace.")
@click.option("--ack-path", default="lossless", show_default=True, type=click.Choice(["lossless", "trace"]))
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, 2**64 - 1))
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--show-config", is_flag=True, help="Print the resolved settings (TCP and link) and exit without simulating.")
@click.option("--series", "series_out", default=None, help="Write cwnd/ssthresh/srtt/rto/sequence series to OUT (.npz or .csv).")
@click.pass_context
def sim_cmd(ctx: click.Context, **kw: Any) -> None:
    """Simulate one TCP flow over a lossy link and print goodput and counters; or, given a
    SCENARIO file (TOML, see docs/simulator.md), a network of hops and flows."""
    from burstlab.lossspec import parse_loss_spec
    from burstlab.sim import Link, Scenario, Workload, link_layer_config, run, run_trace

    if kw["scenario"] is not None:
        from burstlab.cli.scenario import run_file

        extra = [n for n in kw if n not in ("scenario", "seed", "as_json") and _given(ctx, n)]
        if extra:
            opts = ", ".join(_opt(n) for n in extra)
            raise click.UsageError(f"{opts}: a scenario file describes the whole network (only --seed and --json go with it)")
        return run_file(kw["scenario"], kw["seed"] if _given(ctx, "seed") else None, kw["as_json"])
    _check_combination(ctx, kw)
    if kw["series_out"] is not None:
        _check_series_path(kw["series_out"])

    tcp = _tcp_from_options(kw)
    if kw["show_config"]:
        link = None if kw["trace_file"] is not None else {
            "rate": parse_rate(kw["rate"], "rate"), "delay": parse_time(kw["delay"], "delay"), "buffer": kw["buffer"],
            "buffer_unit": kw["buffer_unit"], "loss": kw["loss"], "loss_mode": kw["loss_mode"], "ack_loss": kw["ack_loss"],
            "link_layer": link_layer_config(kw["link_layer"]),
        }  # fmt: skip
        return _show_config(tcp, kw, link)
    series = kw["series_out"] is not None
    if kw["trace_file"] is not None:
        from burstlab.io import read_trace

        trace = read_trace(kw["trace_file"], kw["trace_format"])
        res = run_trace(trace, slot=parse_time(kw["slot"], "slot"), tcp=tcp, ack_path=kw["ack_path"], seed=kw["seed"], series=series)
    else:
        size = None if kw["size"] is None else parse_size(kw["size"], "size")
        duration = None if kw["duration"] is None else parse_time(kw["duration"], "duration")
        link = Link(
            rate=parse_rate(kw["rate"], "rate"),
            delay=parse_time(kw["delay"], "delay"),
            buffer=kw["buffer"],
            buffer_unit=kw["buffer_unit"],
            loss=parse_loss_spec(kw["loss"]),
            loss_mode=kw["loss_mode"],
            link_layer=kw["link_layer"],
        )
        sc = Scenario(
            tcp=tcp,
            forward=link,
            ack_loss=kw["ack_loss"],
            workload=Workload(duration=duration, size=size, warmup=parse_time(kw["warmup"], "warmup")),
            seed=kw["seed"],
            series=series,
        )
        res = run(sc)
    if series:
        _write_series(kw["series_out"], res.series)
    d = res.to_dict()
    if kw["as_json"]:
        click.echo(json.dumps(d, indent=2, default=str))
    else:
        for k, v in d.items():
            if k != "config":
                click.echo(f"{k}={v}")


COMMANDS = [sim_cmd]
