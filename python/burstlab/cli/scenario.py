"""``burstlab sim SCENARIO.toml``: run a network scenario file and print per-flow,
per-link and aggregate results (``--json`` for machine-readable output)."""

from __future__ import annotations

import json
import math
from typing import Any

import click


def _fmt(x: Any, unit: str = "", scale: float = 1.0, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, float):
        return f"{x / scale:.{digits}g}{unit}"
    return f"{x}{unit}"


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *[line(r) for r in rows]])


def report(r: Any) -> str:
    """The text report of a :class:`burstlab.sim.NetworkResult`."""
    flows = [
        [f.name, f.kind, _fmt(f.goodput_bps, " Mb/s", 1e6), _fmt(f.throughput_bps, " Mb/s", 1e6),
         _fmt(f.completion_time, " s"), str(f.packets_sent), str(f.retransmissions), str(f.fast_retransmits),
         str(f.timeouts), str(f.spurious_timeouts)]
        for f in r.flows.values()
    ]  # fmt: skip
    links = [
        [x.name, _fmt(x.capacity_bps, " Mb/s", 1e6), f"{x.utilisation:.3f}", str(x.offered), str(x.sent), str(x.queue_drops),
         str(x.channel_losses), _fmt(x.queue_delay_p50, " ms", 1e-3, 3), _fmt(x.queue_delay_p99, " ms", 1e-3, 3)]
        for x in r.links.values()
    ]  # fmt: skip
    layers = [
        [x.name, str(s.frames), f"{s.mean_attempts:.3f}", f"{s.raw_loss_rate:.4f}", f"{s.residual_loss_rate:.5f}",
         _fmt(s.latency.mean, " ms", 1e-3, 3), _fmt(s.latency.quantiles.get(0.99), " ms", 1e-3, 3), _fmt(s.latency.max, " ms", 1e-3, 3)]
        for x in r.links.values() if (s := x.link_layer) is not None
    ]  # fmt: skip
    out = [
        "flows",
        _table(flows, ["flow", "kind", "goodput", "throughput", "completion", "sent", "retx", "fast retx", "timeouts", "spurious RTOs"]),
        "",
        "links",
        _table(links, ["link", "capacity", "util", "offered", "sent", "queue drops", "channel losses", "qdelay p50", "qdelay p99"]),
        *(["", "link layers", _table(layers, ["link", "frames", "attempts/frame", "raw loss", "residual loss",
                                              "latency mean", "latency p99", "latency max"])] if layers else []),
        "",
        f"aggregate goodput {_fmt(r.aggregate_goodput_bps, ' Mb/s', 1e6)}, Jain's index {_fmt(r.jain_index)}, "
        f"stopped at {r.end_time:.6g} s, {r.events} events",
    ]
    return "\n".join(out)


def run_file(path: str, seed: int | None, as_json: bool) -> None:
    """Run the scenario file at ``path`` (``seed`` overrides its seed) and print the results."""
    import dataclasses

    from burstlab.sim import load_scenario, run_network

    net = load_scenario(path)
    if seed is not None:
        net = dataclasses.replace(net, seed=seed)
    r = run_network(net)
    if as_json:
        from burstlab._util import json_safe

        click.echo(json.dumps(json_safe(r.to_dict()), indent=2, default=str))
    else:
        click.echo(report(r))
