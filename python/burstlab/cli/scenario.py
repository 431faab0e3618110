"""``burstlab sim SCENARIO.toml``: run a network scenario file and print per-flow,
per-link and aggregate results (``--json`` for machine-readable output), over several
seeds with 95 % confidence intervals (``--seeds N``), and draw each TCP flow
(``--plot DIR``)."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import click

from burstlab._util import json_safe
from burstlab.cli.runs import check_seeds, fmt_estimate, plot_name, run_parallel, text_table, write_plot
from burstlab.sim import SimResult, load_scenario, run_network


def _cell(values: list[Any], unit: str = "", scale: float = 1.0, digits: int = 4) -> str:
    """One figure over the runs: the value with its unit, or mean ± 95 % CI with ``(k of N)``
    when only k runs have it (a completion time); ``–`` when none has."""
    from burstlab.replicates import estimate

    have = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not have:
        return "–"
    if len(values) == 1:
        v = values[0]
        return f"{v / scale:.{digits}g}{unit}" if isinstance(v, float) else f"{v}{unit}"
    e = estimate(have)
    assert e.half_width is not None or len(have) == 1
    text = fmt_estimate(e.mean / scale, None if e.half_width is None else e.half_width / scale) + unit
    return text if len(have) == len(values) else f"{text} ({len(have)} of {len(values)})"


def report(results: list[Any]) -> str:
    """The text report of one or more :class:`burstlab.sim.NetworkResult` of one network
    (replicates: every figure is mean ± 95 % confidence interval)."""
    first = results[0]

    def col(getter: Any) -> list[Any]:
        return [getter(r) for r in results]

    flows = []
    for i, f in enumerate(first.flows.values()):
        def fv(key: str, i: int = i) -> list[Any]:
            return col(lambda r: getattr(r.flows[i], key))

        flows.append([f.name, f.kind, _cell(fv("goodput_bps"), " Mb/s", 1e6), _cell(fv("throughput_bps"), " Mb/s", 1e6),
                      _cell(fv("completion_time"), " s"), *(_cell(fv(k)) for k in ("packets_sent", "retransmissions",
                      "fast_retransmits", "timeouts", "spurious_timeouts"))])  # fmt: skip
    links = []
    for i, x in enumerate(first.links.values()):
        def lv(key: str, i: int = i) -> list[Any]:
            return col(lambda r: getattr(r.links[i], key))

        links.append([x.name, _cell(lv("capacity_bps"), " Mb/s", 1e6), _cell(lv("utilisation"), "", 1.0, 3),
                      *(_cell(lv(k)) for k in ("offered", "sent", "queue_drops", "channel_losses")),
                      _cell(lv("queue_delay_p50"), " ms", 1e-3, 3), _cell(lv("queue_delay_p99"), " ms", 1e-3, 3)])  # fmt: skip
    # The active queues' own drops and marks (RED, CoDel, FQ-CoDel), when any link has some.
    aqm = any(x.early_drops or x.ecn_marks for r in results for x in r.links.values())
    if aqm:
        for i, row in enumerate(links):
            row[6:6] = [_cell(col(lambda r, i=i: r.links[i].early_drops)), _cell(col(lambda r, i=i: r.links[i].ecn_marks))]
    layers = []
    for i, x in enumerate(first.links.values()):
        if x.link_layer is None:
            continue

        def ll(get: Any, i: int = i) -> list[Any]:
            return col(lambda r: get(r.links[i].link_layer))

        layers.append([x.name, _cell(ll(lambda s: s.frames)), _cell(ll(lambda s: s.mean_attempts), "", 1.0, 4),
                       _cell(ll(lambda s: s.raw_loss_rate), "", 1.0, 4), _cell(ll(lambda s: s.residual_loss_rate), "", 1.0, 4),
                       _cell(ll(lambda s: s.latency.mean), " ms", 1e-3, 3), _cell(ll(lambda s: s.latency.quantiles.get(0.99)), " ms", 1e-3, 3),
                       _cell(ll(lambda s: s.latency.max), " ms", 1e-3, 3)])  # fmt: skip
    # Rate-adaptive ARQ hops: each rate's share of the attempts and its success ratio.
    rates = []
    for i, x in enumerate(first.links.values()):
        for j, rc in enumerate(x.link_layer.rates if x.link_layer is not None else []):
            share = col(lambda r, i=i, j=j: r.links[i].link_layer.rates[j]["share"])
            ok = col(lambda r, i=i, j=j: (lambda c: c["successes"] / c["attempts"] if c["attempts"] else None)(r.links[i].link_layer.rates[j]))
            rates.append([x.name, rc["mode"], f"{rc['rate_bps'] / 1e6:g} Mb/s", _cell(share, "", 1.0, 3), _cell(ok, "", 1.0, 3)])
    seeds = [r.config["seed"] for r in results]
    out = []
    if len(results) > 1:
        out += [f"mean ± 95 % confidence interval over {len(results)} runs (seeds {seeds[0]}-{seeds[-1]}; Student t, "
                f"{len(results) - 1} degrees of freedom)", ""]  # fmt: skip
    out += [
        "flows",
        text_table(flows, ["flow", "kind", "goodput", "throughput", "completion", "sent", "retx", "fast retx", "timeouts", "spurious RTOs"]),
        "",
        "links",
        text_table(links, ["link", "capacity", "util", "offered", "sent", "queue drops", *(["early drops", "ECN marks"] if aqm else []),
                           "channel losses", "qdelay p50", "qdelay p99"], left=1),  # fmt: skip
        *(["", "link layers", text_table(layers, ["link", "frames", "attempts/frame", "raw loss", "residual loss", "latency mean",
                                                  "latency p99", "latency max"], left=1)] if layers else []),  # fmt: skip
        *(["", "rate adaptation", text_table(rates, ["link", "mode", "rate", "share of attempts", "success ratio"], left=2)] if rates else []),
        "",
        f"aggregate goodput {_cell(col(lambda r: r.aggregate_goodput_bps), ' Mb/s', 1e6)}, Jain's index "
        f"{_cell(col(lambda r: r.jain_index))}, stopped at {_cell(col(lambda r: r.end_time), ' s', 1.0, 6)}, "
        f"{_cell(col(lambda r: r.events))} events",
    ]
    return "\n".join(out)


def _summary(results: list[Any]) -> dict[str, Any]:
    """Each flow's, link's and the aggregate figures: mean, 95 % CI half-width, sd, runs."""
    from burstlab.replicates import estimate

    def est(values: list[Any]) -> Any:
        have = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
        return estimate(have).to_dict() if have else None

    first = results[0]
    flow_keys = (*SimResult._SCALARS, "spurious_timeouts")
    flows = [{"name": f.name, "kind": f.kind, **{k: est([getattr(r.flows[i], k) for r in results]) for k in flow_keys}}
             for i, f in enumerate(first.flows.values())]  # fmt: skip
    def numbers(d: dict[str, Any]) -> list[str]:
        return [k for k, v in d.items() if v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))]

    links = []
    for i, x in enumerate(first.links.values()):
        d = {"name": x.name, **{k: est([getattr(r.links[i], k) for r in results]) for k in numbers(vars(x)) if k != "name"}}
        if x.link_layer is not None:  # its counters and rates (the distributions are in each run's JSON)
            s0 = x.link_layer.summary()
            d["link_layer"] = {k: est([r.links[i].link_layer.summary()[k] for r in results]) for k in numbers(s0)}
        links.append(d)
    return {"flows": flows, "links": links, "aggregate_goodput_bps": est([r.aggregate_goodput_bps for r in results]),
            "jain_index": est([r.jain_index for r in results])}  # fmt: skip


def run_file(path: str, seed: int | None, as_json: bool, seeds: int = 1, plot_dir: str | None = None, workers: int = 1,
             log_file: str | None = None, run_kw: dict[str, Any] | None = None) -> None:  # fmt: skip
    """Run the scenario file at ``path`` (``seed`` overrides its seed; ``seeds`` runs from
    it) and print the results; draw every TCP flow of the first run into ``plot_dir``;
    write the first run's per-packet log to ``log_file`` (Parquet) — with ``log = true`` in
    the file and no ``log_file``, to ``<file name>.log.parquet`` in the current folder.
    ``run_kw``: the budget and progress of the runs (``burstlab.cli.runs.run_kw``)."""
    from burstlab.files import output_dir

    net = load_scenario(path)
    if log_file is None and net.log:
        log_file = f"{Path(path).stem}.log.parquet"
    net = dataclasses.replace(net, log=False)  # only the drawn / logged run records it
    first = net.seed if seed is None else seed
    seed_list = check_seeds(first, seeds)
    with output_dir(plot_dir) as folder:
        rkw = run_kw or {}
        jobs: list[Callable[[], Any]] = [partial(run_network, dataclasses.replace(net, seed=s), **rkw) for s in seed_list]
        if folder is not None or log_file is not None:  # the first seed again, with its series and per-packet log
            quiet = {**rkw, "progress": None}
            jobs.append(partial(run_network, dataclasses.replace(net, seed=seed_list[0], series=True, log=True), **quiet))
        if len(seed_list) > 1:
            click.echo(f"simulating {len(seed_list)} seeds on {min(workers, len(jobs))} thread(s)...", err=True)
        results = run_parallel(jobs, workers)
        runs = results[: len(seed_list)]
        if as_json:
            doc = runs[0].to_dict() if len(runs) == 1 else {"seeds": seed_list, "summary": _summary(runs), "runs": [r.to_dict() for r in runs]}
            click.echo(json.dumps(json_safe(doc), indent=2, default=str))
        else:
            click.echo(report(runs))
        if log_file is not None:
            from burstlab.packet_log import write_log

            click.echo(f"wrote {write_log(results[-1], log_file)} (the per-packet log of seed {seed_list[0]})", err=True)
        if folder is not None:
            drawn = results[-1]
            for i, (f, spec) in enumerate(zip(drawn.flows.values(), net.flows)):
                if f.kind != "tcp" or not spec.path:
                    continue
                first_link = drawn.config["flows"][i]["forward"][0]
                title = f"flow {f.name} of {Path(path).name}, seed {seed_list[0]}"
                p = write_plot(folder, f"flow-{plot_name(f.name)}", title, f.series, spec.tcp.mss, drawn.log, i, first_link)
                click.echo(f"wrote {p}", err=True)
