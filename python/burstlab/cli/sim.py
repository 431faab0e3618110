"""``burstlab sim``: one simulated TCP transfer over a lossy link (or a slotted
trace-driven run with ``--trace``)."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import click
import numpy as np

from burstlab import _core
from burstlab.io import FORMATS

_RATE_UNITS = {"": 1.0, "bit": 1.0, "bps": 1.0, "b": 1.0, "k": 1e3, "kbit": 1e3, "kbps": 1e3, "m": 1e6, "mbit": 1e6,
               "mbps": 1e6, "g": 1e9, "gbit": 1e9, "gbps": 1e9}  # fmt: skip
_TIME_UNITS = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "min": 60.0, "m": 60.0, "h": 3600.0}
_SIZE_UNITS = {"": 1, "b": 1, "kb": 1000, "k": 1000, "mb": 1000**2, "m": 1000**2, "gb": 1000**3, "g": 1000**3,
               "kib": 1024, "mib": 1024**2, "gib": 1024**3}  # fmt: skip
_NUM = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z/]*)\s*$")


def _parse(name: str, text: str, units: dict[str, Any], example: str) -> float:
    m = _NUM.match(text)
    unit = m.group(2).lower().replace("/s", "ps") if m else ""
    if not m or unit not in units:
        raise _core.ParameterError(f"invalid parameter {name} = {text!r}: expected a number with a unit, e.g. {example}")
    return float(m.group(1)) * units[unit]


def parse_rate(text: str, name: str = "rate") -> float:
    """``10Mbit``, ``10Mbps``, ``1G``, ``500k``, ``1e7`` → bits/s."""
    return _parse(name, text, _RATE_UNITS, "10Mbit, 1Gbps, 500kbit")


def parse_time(text: str, name: str = "time") -> float:
    """``10ms``, ``100s``, ``2min``, ``0.3`` → seconds."""
    return _parse(name, text, _TIME_UNITS, "10ms, 100s, 0.3")


def parse_size(text: str, name: str = "size") -> int:
    """``5MB``, ``8MB``, ``64KiB``, ``5000000`` → bytes (MB = 10^6)."""
    return int(round(_parse(name, text, _SIZE_UNITS, "5MB, 64KiB, 5000000")))


def _write_series(path: str, series: dict[str, Any]) -> None:
    """Write the series to ``.npz`` (numpy) or ``.csv``, atomically."""
    if not series:
        raise _core.ParameterError("no series recorded")
    p = Path(path)
    d = p.parent if str(p.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{p.name}.", suffix=p.suffix or ".npz")
    os.close(fd)
    try:
        if p.suffix.lower() == ".csv":
            cols = list(series)
            arr = np.column_stack([np.asarray(series[c], dtype=np.float64) for c in cols])
            np.savetxt(tmp, arr, delimiter=",", header=",".join(cols), comments="", fmt="%.9g")
        else:
            with open(tmp, "wb") as f:
                np.savez(f, **series)
        os.replace(tmp, p)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@click.command("sim")
@click.option("--tcp", "variant", default="newreno", show_default=True, type=click.Choice(["tahoe", "reno", "newreno", "sack"]))
@click.option("--rate", default="10Mbit", show_default=True, help="Link capacity, e.g. 10Mbit.")
@click.option("--delay", default="10ms", show_default=True, help="One-way propagation delay.")
@click.option("--buffer", default=100, show_default=True, type=int, help="DropTail buffer (see --buffer-unit).")
@click.option("--buffer-unit", default="packets", show_default=True, type=click.Choice(["packets", "bytes"]))
@click.option("--loss", default="none", show_default=True, help="Loss spec, e.g. bernoulli:p=0.01 or ge:prr=0.9,mu=0.6.")
@click.option("--loss-mode", default="packet", show_default=True, type=click.Choice(["packet", "time"]))
@click.option("--ack-loss", default="none", show_default=True, type=click.Choice(["none", "independent", "sync"]))
@click.option("--duration", default=None, help="Bulk transfer duration (default 100s), or the time limit with --size.")
@click.option("--size", default=None, help="Fixed-size transfer, e.g. 5MB; reports its completion time.")
@click.option("--warmup", default="0s", show_default=True, help="Initial period excluded from the measurement.")
@click.option("--mss", default=1000, show_default=True, type=int)
@click.option("--init-cwnd", default=2, show_default=True, type=int)
@click.option("--max-cwnd", default=None, type=int, help="Maximum window, segments.")
@click.option("--rwnd", default=None, type=int, help="Receiver window, segments.")
@click.option("--delayed-ack/--no-delayed-ack", default=True, show_default=True)
@click.option("--ack-timeout", default="200ms", show_default=True)
@click.option("--rto-min", default="1s", show_default=True)
@click.option("--rto-max", default="60s", show_default=True)
@click.option("--trace", "trace_file", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Slotted trace-driven mode (seed 000 §3.1): this reception trace decides each slot.")  # fmt: skip
@click.option("--format", "trace_format", default=None, type=click.Choice(list(FORMATS)),
              help="Format of the --trace file (default: detected, see docs/traces.md).")  # fmt: skip
@click.option("--slot", default="10ms", show_default=True, help="Slot length with --trace.")
@click.option("--ack-path", default="lossless", show_default=True, type=click.Choice(["lossless", "trace"]))
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--series", "series_out", default=None, help="Write cwnd/ssthresh/srtt/rto/sequence series to OUT (.npz or .csv).")
def sim_cmd(**kw: Any) -> None:
    """Simulate one TCP flow over a lossy link and print goodput and counters."""
    from burstlab.lossspec import parse_loss_spec
    from burstlab.sim import Link, Scenario, TcpConfig, Workload, run, run_trace

    tcp = TcpConfig(
        variant=kw["variant"],
        mss=kw["mss"],
        init_cwnd=kw["init_cwnd"],
        max_cwnd=kw["max_cwnd"],
        rwnd=kw["rwnd"],
        delayed_ack=kw["delayed_ack"],
        ack_timeout=parse_time(kw["ack_timeout"], "ack-timeout"),
        rto_min=parse_time(kw["rto_min"], "rto-min"),
        rto_max=parse_time(kw["rto_max"], "rto-max"),
        rto_initial=max(1.0, parse_time(kw["rto_min"], "rto-min")),
    )
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
