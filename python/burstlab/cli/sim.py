"""``burstlab sim``: one simulated TCP transfer over a lossy link (or a slotted
trace-driven run with ``--trace``), a list of TCP variants side by side (``--tcp
reno,newreno,sack``), replicated over seeds with 95 % confidence intervals (``--seeds N``)
and plotted (``--plot DIR``); or a network scenario file (:mod:`burstlab.cli.scenario`).

Only what a run needs is imported: numpy for ``--series``, matplotlib for ``--plot``
(``benchmarks/startup.py``)."""

from __future__ import annotations

import json
import os
import re
import textwrap
from collections.abc import Callable
from dataclasses import fields
from functools import partial
from pathlib import Path
from typing import Any

import click

from burstlab import _core
from burstlab._util import json_safe
from burstlab.cli.options import FORMAT, SEED, SEED_MAX, TRACE_FILE, count
from burstlab.cli.runs import check_seeds, default_workers, plot_name, report, run_kw, run_parallel, to_json, write_plot
from burstlab.sim import (
    CONGESTION_CONTROLS,
    PROFILES,
    RECOVERIES,
    VARIANTS,
    Link,
    Red,
    Scenario,
    TcpConfig,
    Workload,
    _queue_config,
    _rate_text,
    run,
    run_trace,
    tcp_settings,
)
from burstlab.lossspec import parse_loss_spec
from burstlab.sim.aqm import CODEL_FIELDS, FQ_CODEL_FIELDS, Codel, FqCodel
from burstlab.sim.params import COMPONENTS, TCP_PARAMS
from burstlab.units import DURATION, RATE, SIZE, TIME

#: How the engine's budget refusal names the option that raises it (the Python API's).
BUDGET_OPTION = "max_events=N"


def _write_series(path: str, series: dict[str, Any]) -> None:
    """Write the series to ``.npz`` (numpy) or ``.csv``, atomically."""
    import numpy as np

    from burstlab.files import atomic_write

    if not series:
        raise _core.ParameterError("no series recorded")

    def write(tmp: str) -> None:
        if Path(path).suffix.lower() != ".npz":  # .csv, or text into stdout, a device or a FIFO
            cols = list(series)
            arr = np.column_stack([np.asarray(series[c], dtype=np.float64) for c in cols])
            np.savetxt(tmp, arr, delimiter=",", header=",".join(cols), comments="", fmt="%.9g")
        else:
            with open(tmp, "wb") as f:
                np.savez(f, **series)

    atomic_write(path, write)


#: Options that only mean something without --trace (the link model) and only with it.
_LINK_ONLY = ("rate", "delay", "buffer", "buffer_unit", "loss", "loss_mode", "ack_loss", "duration", "size", "warmup", "seeds", "link_layer", "log_file",
              "queue", *(f"red_{k}" for k in ("min_th", "max_th", "max_p", "weight", "gentle", "wait", "ecn", "hard_drop",
                                              "mean_packet_bytes")),
              *(f"codel_{k}" for k in ("target", "interval", "mtu", "ecn")), *(f"fq_codel_{k}" for k in ("quantum", "flows", "drop_batch")))  # fmt: skip
_TRACE_ONLY = ("trace_format", "slot", "ack_path", "sender_queue")
#: What goes with a scenario file (the file describes the whole network).
_SCENARIO_OPTIONS = ("scenario", "seed", "seeds", "as_json", "plot_dir", "workers", "log_file", "max_events")


def _given(ctx: click.Context, name: str) -> bool:
    src = ctx.get_parameter_source(name)
    return src is not None and src not in (click.core.ParameterSource.DEFAULT, click.core.ParameterSource.DEFAULT_MAP)


def _opt(name: str) -> str:
    return {"trace_format": "--format", "variant": "--tcp", "plot_dir": "--plot", "series_out": "--series", "as_json": "--json", "log_file": "--log"}.get(
        name, "--" + name.replace("_", "-")
    )


def _check_combination(ctx: click.Context, kw: dict[str, Any]) -> None:
    """An option the chosen mode ignores is a usage error, not a silent no-op."""
    trace_mode = kw["trace_file"] is not None
    wrong = [n for n in (_LINK_ONLY if trace_mode else _TRACE_ONLY) if _given(ctx, n)]
    if wrong:
        opts = ", ".join(_opt(n) for n in wrong)
        why = "only a --trace run uses them"
        if trace_mode:
            why = "the trace decides every slot" + (", so every seed gives the same run" if "seeds" in wrong else "") + \
                  " and the run lasts len(trace) × --slot"  # fmt: skip
        raise click.UsageError(f"{opts} {'has' if len(wrong) == 1 else 'have'} no effect {'with --trace' if trace_mode else 'without --trace'} ({why})")
    if kw["series_out"] is not None and (kw["seeds"] > 1 or len(kw["variant"] or ()) > 1):
        raise click.UsageError("--series writes the series of one run: give one --tcp variant and no --seeds (--plot draws every variant)")


def _check_series_path(path: str) -> None:
    """Check --series before the run: a .npz or .csv file path that can be written, or
    ``-`` (standard output), a character device or a FIFO, which get CSV."""
    from burstlab.files import STDOUT, check_output_path

    special = path == STDOUT or (os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path))
    if not special and Path(path).suffix.lower() not in (".npz", ".csv"):
        raise click.BadParameter(f"{path!r}: expected a file name ending in .npz or .csv", param_hint="--series")
    check_output_path(path)


def _none_or_int(text: str, name: str) -> int | None:
    if text.strip().lower() in ("none", "inf", "unbounded"):
        return None
    try:
        return int(text)
    except ValueError:
        raise _core.ParameterError(f"invalid parameter {name} = {text!r}: expected a whole number of segments or 'none'") from None


class VariantList(click.ParamType):
    """``--tcp``: comma-separated TCP variants, each a name of :data:`burstlab.sim.VARIANTS`
    (``reno``, ``cubic``, ...) or a ``CC/RECOVERY`` pair (``cubic/sack``)."""

    name = "VARIANT[,VARIANT...]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        names = [v.strip().lower() for v in str(value).split(",")]
        out: list[str] = []
        for v in names:
            cc, _, rec = v.partition("/")
            if v in VARIANTS or (rec and cc in CONGESTION_CONTROLS and rec in RECOVERIES):
                if v in out:
                    self.fail(f"{v!r} is given twice", param, ctx)
                out.append(v)
            else:
                self.fail(
                    f"{v!r} is not a variant: expected comma-separated names from {', '.join(VARIANTS)}, or CC/RECOVERY pairs "
                    f"(CC: {', '.join(CONGESTION_CONTROLS)}; RECOVERY: {', '.join(RECOVERIES)})",
                    param,
                    ctx,
                )
        return tuple(out)


def _variants_help() -> str:
    return (
        f"TCP variants to run side by side, comma-separated: {', '.join(VARIANTS)} (each a (--cc, --recovery) pair), or "
        "CC/RECOVERY pairs such as cubic/sack. --cc and --recovery win over it. Default: the profile's (rfc: newreno)."
    )


def _tcp_options(f: Any) -> Any:
    """One option per :class:`burstlab.sim.TcpConfig` field (``--init-cwnd``,
    ``--timestamps/--no-timestamps``, ...), each unset by default: the --profile decides."""
    for fl in reversed(fields(TcpConfig)):
        opt = "--" + fl.name.replace("_", "-")
        meta = fl.metadata
        help_text = meta["help"] + (f" [{meta['unit']}]" if meta.get("unit") else "") + " (default: the profile's)"
        kind = meta["spec"]["kind"]  # the core's declaration (burstlab.sim.params)
        if meta.get("choices"):
            f = click.option(opt, fl.name, default=None, type=click.Choice(list(meta["choices"]), case_sensitive=False), help=help_text)(f)
        elif kind == "bool":
            f = click.option(f"{opt}/--no-{opt[2:]}", fl.name, default=None, help=help_text)(f)
        elif kind == "time":
            f = click.option(opt, fl.name, default=None, type=TIME, help=help_text)(f)
        elif kind == "int?":
            f = click.option(opt, fl.name, default=None, metavar="SEGMENTS|none", help=help_text)(f)  # parsed below
        else:
            f = click.option(opt, fl.name, default=None, type=int if kind == "int" else float, help=help_text)(f)
    return f


#: ``sim --help``'s sections, by component; the first holds the ten options people use first.
#: TCP parameters not listed here are summarised by component in one paragraph (every one
#: with its help under ``--help-all``; docs/parameters.md).
HELP_SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Most used", ("profile", "variant", "rate", "delay", "loss", "link_layer", "duration", "seed", "seeds", "as_json")),
    ("TCP", ("cc", "recovery", "mss", "init_cwnd", "rwnd", "max_cwnd", "delayed_ack", "rto_min", "ecn", "timestamps")),
    ("Link", ("buffer", "buffer_unit", "queue", "red_min_th", "red_max_th", "red_max_p", "red_weight", "red_gentle", "red_wait", "red_ecn",
              "red_hard_drop", "red_mean_packet_bytes", "codel_target", "codel_interval", "codel_mtu", "codel_ecn", "fq_codel_quantum",
              "fq_codel_flows", "fq_codel_drop_batch", "ack_path", "sender_queue")),
    ("Loss", ("loss_mode", "ack_loss", "trace_file", "trace_format", "slot")),
    ("Link layer", ()),  # --link-layer is among the most used
    ("Run and output", ("size", "warmup", "workers", "plot_dir", "log_file", "max_events", "show_config", "series_out", "help_all")),
)  # fmt: skip


def _help_all(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        ctx.meta["burstlab_help_all"] = True
        click.echo(ctx.get_help(), color=ctx.color)
        ctx.exit()


class SimCommand(click.Command):
    """``burstlab sim`` with its options in sections by component (:data:`HELP_SECTIONS`); the
    TCP parameters beyond the common ones are one paragraph per component unless --help-all."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        records = {p.name: p.get_help_record(ctx) for p in self.get_params(ctx)}
        placed = {n for _, names in HELP_SECTIONS for n in names} | {"scenario"}
        for title, names in HELP_SECTIONS:
            rows = [records[n] for n in names if records.get(n)]
            if title == "Run and output":
                rows.append(records["help"]) if records.get("help") else None
            if rows:
                with formatter.section(title):
                    formatter.write_dl([r for r in rows if r])
        rest = [n for n in TCP_PARAMS if n not in placed]
        if ctx.meta.get("burstlab_help_all"):
            by: dict[str, list[str]] = {}
            for n in rest:
                by.setdefault(TCP_PARAMS[n]["component"], []).append(n)
            for comp in [c for c in COMPONENTS if c in by]:
                with formatter.section(f"TCP: {COMPONENTS[comp]}"):
                    formatter.write_dl([r for r in (records.get(n) for n in by[comp]) if r])
        else:
            with formatter.section("Every other TCP parameter (default: the profile's; --help-all, docs/parameters.md)"):
                by = {}
                for n in rest:
                    by.setdefault(TCP_PARAMS[n]["component"], []).append("--" + n.replace("_", "-"))
                width = max(len(c) for c in by) + 2
                for c in [c for c in COMPONENTS if c in by]:
                    text = textwrap.fill(" ".join(by[c]), width=max(formatter.width - formatter.current_indent - width, 30),
                                         break_on_hyphens=False, break_long_words=False)
                    lines = text.splitlines()
                    formatter.write(" " * formatter.current_indent + c.ljust(width) + lines[0] + "\n")
                    for line in lines[1:]:
                        formatter.write(" " * (formatter.current_indent + width) + line + "\n")


def _queue_tables() -> list[tuple[str, Any, tuple[str, ...], str, tuple[str, ...]]]:
    """Each queue discipline's option family: (prefix, class, its fields, name, the --queue
    values it goes with)."""
    return [
        ("red", Red, tuple(f.name for f in fields(Red)), "RED", ("red",)),
        ("codel", Codel, CODEL_FIELDS, "CoDel", ("codel", "fq_codel")),
        ("fq_codel", FqCodel, FQ_CODEL_FIELDS, "FQ-CoDel", ("fq_codel",)),
    ]


def _red_options(f: Any) -> Any:
    """``--queue`` and one option per field of :class:`burstlab.sim.Red` (``--red-min-th``, ...),
    :class:`~burstlab.sim.Codel` (``--codel-target``, also FQ-CoDel's) and FQ-CoDel's own
    (``--fq-codel-quantum``)."""
    for prefix, cls, names, label, queues in reversed(_queue_tables()):
        with_ = " or ".join(f"--queue {q}" for q in queues)
        for fl in reversed([fl for fl in fields(cls) if fl.name in names]):
            key = f"{prefix}_{fl.name}"
            opt = "--" + key.replace("_", "-")
            unit = fl.metadata.get("unit")
            help_text = f"{label}: {fl.metadata['help']}{f' [{unit}]' if unit else ''} (with {with_}; default {fl.default})"
            kind = fl.metadata["spec"]["kind"]
            if kind == "bool":
                f = click.option(f"{opt}/--no-{opt[2:]}", key, default=None, help=help_text)(f)
            elif kind == "time":
                f = click.option(opt, key, default=None, type=TIME, help=help_text)(f)
            else:
                f = click.option(opt, key, default=None, type=int if kind == "int" else float, help=help_text)(f)
    return click.option("--queue", default="droptail", show_default=True, type=click.Choice(["droptail", "red", "codel", "fq_codel"]),
                        help="Queue discipline of the link (both directions): DropTail, RED with ECN marking, "
                        "CoDel or FQ-CoDel (docs/simulator.md).")(f)  # fmt: skip


def _queue_from_options(kw: dict[str, Any]) -> Any:
    """``"droptail"`` or a :class:`burstlab.sim.Red`, :class:`~burstlab.sim.Codel` or
    :class:`~burstlab.sim.FqCodel` from --queue and the options of each."""
    chosen: dict[str, Any] = {}
    for prefix, _cls, names, label, queues in _queue_tables():
        given = {k: kw[f"{prefix}_{k}"] for k in names if kw[f"{prefix}_{k}"] is not None}
        if given and kw["queue"] not in queues:
            need = " or ".join(f"--queue {q}" for q in queues)
            raise click.UsageError(f"{', '.join(_opt(prefix + '_' + k) for k in given)}: {label} parameters need {need}")
        chosen.update(given)
    classes = {prefix: cls for prefix, cls, *_ in _queue_tables()}
    return classes[kw["queue"]](**chosen) if kw["queue"] in classes else "droptail"


def _label(tcp: Any) -> str:
    """A TcpConfig's short name: its variant's, else ``cc/recovery``."""
    for name, pair in VARIANTS.items():
        if pair == (tcp.cc, tcp.recovery):
            return name
    return f"{tcp.cc}/{tcp.recovery}"


def _tcp_configs(kw: dict[str, Any]) -> list[tuple[str, Any]]:
    """The (label, TcpConfig) of each --tcp variant (one, the profile's, without --tcp):
    the profile, the variant, then each option given."""
    given: dict[str, Any] = {}
    for fl in fields(TcpConfig):
        v = kw[fl.name]
        if v is None:
            continue
        if fl.metadata["spec"]["kind"] == "int?":
            v = _none_or_int(v, fl.name.replace("_", "-"))
        elif fl.metadata.get("choices"):
            v = v.lower()
        given[fl.name] = v
    out: list[tuple[str, Any]] = []
    for variant in kw["variant"] or (None,):
        over = dict(given)
        if variant is not None and "/" in variant:
            cc, rec = variant.split("/")
            over.setdefault("cc", cc)
            over.setdefault("recovery", rec)
        elif variant is not None:
            over["variant"] = variant
        tcp = TcpConfig.profile(kw["profile"], **over)
        out.append((_label(tcp) if variant is None else variant, tcp))
    kw["_tcp_given"] = set(given)
    same = [(a, b) for i, (a, ta) in enumerate(out) for b, tb in out[i + 1 :] if ta == tb]
    if same:
        a, b = same[0]
        raise click.UsageError(f"--tcp {a} and {b} are the same TCP here (--cc/--recovery set both): give each variant once")
    return out


def _tcp_source(name: str, value: Any, profile: str, variant: str | None, given: set[str]) -> str:
    """Where a resolved TCP value comes from: an option, --tcp, the profile (fixed, computed
    or an alias) or the declared default."""
    prof = PROFILES[profile]
    alias = prof.get("cc_alias", {})
    if name == "cc" and value in alias.values() and (name in given or variant is not None):
        return f"profile {profile}: runs {'/'.join(k for k, v in alias.items() if v == value)} as {value}"
    if name in given:
        return f"option --{name.replace('_', '-')}"
    if name in ("cc", "recovery") and variant is not None:
        return f"--tcp {variant}"
    if name in prof.get("computed", {}):
        return f"profile {profile}: {prof['computed'][name]}"
    if name in prof:
        return f"profile {profile}"
    return "default"


def _layer_settings(spec: str) -> tuple[dict[str, Any], set[str]]:
    """--show-config's link-layer lines (``burstlab.linklayer.spec_settings``); ``none`` without
    importing burstlab.linklayer, which loads numpy (``sim/links.py`` defers it the same way)."""
    if spec is None or str(spec).strip().lower() in ("", "none"):
        return {}, set()
    from burstlab.linklayer import spec_settings

    return spec_settings(spec)


def _show_config(tcps: list[tuple[str, Any]], kw: dict[str, Any], link: dict[str, Any] | None) -> None:
    """--show-config: the resolved settings, as the simulator validated them, each with where
    its value comes from (an option, --tcp, the profile, or the default)."""
    given: set[str] = kw.get("_tcp_given", set())
    docs = []
    for label, tcp in tcps:
        settings = tcp_settings(tcp)
        variant = label if kw["variant"] else None
        doc: dict[str, Any] = {"profile": kw["profile"], "variant": label, "tcp": settings}
        sources: dict[str, Any] = {"tcp": {k: _tcp_source(k, v, kw["profile"], variant, given) if not k.endswith("_resolved") else "resolved"
                                           for k, v in settings.items()}}  # fmt: skip
        if link is not None:
            doc["link"] = link
            sources["link"] = {k: "option" if k in kw.get("_link_given", set()) else "default" for k in link}
        doc["sources"] = sources
        docs.append(doc)
    if kw["as_json"]:
        click.echo(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2))
        return
    for i, doc in enumerate(docs):
        if len(docs) > 1:
            click.echo(("\n" if i else "") + f"[{doc['variant']}]")
        click.echo(f"profile={doc['profile']}")
        for section in ("tcp", "link"):
            rows = [(f"{section}.{k}={v}", doc["sources"][section][k]) for k, v in doc.get(section, {}).items()]
            width = max((len(a) for a, _ in rows), default=0)
            for a, src in rows:
                click.echo(f"{a.ljust(width)}  # {src}")


def _link_text(kw: dict[str, Any]) -> str:
    wl = f"a transfer of {kw['size']} bytes" if kw["size"] is not None else "bulk transfer"
    dur = kw["duration"] if kw["duration"] is not None else (100.0 if kw["size"] is None else None)
    wl += f" for {dur:g} s" if kw["size"] is None else (f", at most {dur:g} s" if dur is not None else "")
    if kw["warmup"]:
        wl += f", the first {kw['warmup']:g} s not measured"
    unit = "packets" if kw["buffer_unit"] == "packets" else "bytes"
    return (
        f"one link of {_rate_text(kw['rate'])}, {kw['delay'] * 1e3:g} ms one way, buffer {kw['buffer']} {unit}; "
        f"loss {kw['loss']} ({'in time' if kw['loss_mode'] == 'time' else 'per packet'}), ACK loss {kw['ack_loss']}"
        + ("" if kw["link_layer"] in (None, "none") else f", link layer {kw['link_layer']}") + f"; {wl}"
    )


# ----------------------------------------------------------------------------- command


_PARAM_OPTIONS = {"forward.rate": "--rate", "forward.delay": "--delay", "forward.buffer": "--buffer", "rate": "--rate", "delay": "--delay",
                  "buffer": "--buffer", "duration": "--duration", "warmup": "--warmup", "size": "--size", "slot": "--slot", "seed": "--seed"}  # fmt: skip


def _name_options(e: _core.ParameterError) -> _core.ParameterError:
    """A simulator error names the option the user gave (``--init-cwnd``), not the field."""
    m = re.match(r"invalid parameter ([\w.]+)( = |:| )", str(e))
    if not m:
        return e
    name = m.group(1)
    tcp_fields = {f.name for f in fields(TcpConfig)}
    opt = _PARAM_OPTIONS.get(name) or ("--" + name.replace("_", "-") if name in tcp_fields else None)
    if opt is None:
        return e
    return type(e)(f"invalid {opt}{str(e)[len('invalid parameter ') + len(name):]}")


@click.command("sim", cls=SimCommand)
@click.argument("scenario", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--profile", default="rfc", show_default=True, type=click.Choice(["rfc", "ns3", "linux", "tossim"]),
              help="Every TCP setting at once: RFC defaults, ns-3 3.44's defaults, a Linux 6.x host's, or Srinivasan et al.'s "
              "TinyOS/TOSSIM sender of the PRR/mu study (TcpConfig.tossim; docs/tcp.md).")  # fmt: skip
@click.option("--tcp", "variant", default=None, type=VariantList(), help=_variants_help())
@_tcp_options
@click.option("--rate", default="10Mbit", show_default=True, type=RATE, help="Link capacity, e.g. 10Mbit, 1.5Mbps, 1G.")
@click.option("--delay", default="10ms", show_default=True, type=TIME, help="One-way propagation delay, e.g. 10ms.")
@click.option("--buffer", default=100, show_default=True, type=count(0), help="DropTail buffer (see --buffer-unit).")
@click.option("--buffer-unit", default="packets", show_default=True, type=click.Choice(["packets", "bytes"]))
@_red_options
@click.option("--loss", default="none", show_default=True, help="Loss spec, e.g. bernoulli:p=0.01 or ge:prr=0.9,mu=0.6 (docs/loss-models.md).")
@click.option("--loss-mode", default="packet", show_default=True, type=click.Choice(["packet", "time"]),
              help="Ask the loss model per packet, or about the time a packet occupies the channel (time models only).")  # fmt: skip
@click.option("--ack-loss", default="none", show_default=True, type=click.Choice(["none", "independent", "sync"]))
@click.option("--link-layer", default="none", show_default=True,
              help="Link layer on the forward link: arq:retry_limit=7, arq:attempt_time=1ms..20ms, harq:attempts=2 (docs/simulator.md).")
@click.option("--duration", default=None, type=DURATION, help="Bulk transfer duration, e.g. 100s (the default), or the time limit with --size.")
@click.option("--size", default=None, type=SIZE, help="Fixed-size transfer, e.g. 5MB; reports its completion time.")
@click.option("--warmup", default="0s", show_default=True, type=TIME, help="Initial period excluded from the measurement.")
@click.option("--trace", "trace_file", default=None, type=TRACE_FILE,
              help="Slotted trace-driven mode (Srinivasan et al. §3.1): this reception trace decides each slot.")  # fmt: skip
@click.option("--format", "trace_format", default=None, type=FORMAT, help="Format of the --trace file (default: detected, see docs/traces.md).")
@click.option("--slot", default="10ms", show_default=True, type=DURATION, help="Slot length with --trace.")
@click.option("--ack-path", default="lossless", show_default=True, type=click.Choice(["lossless", "trace"]))
@click.option("--sender-queue", default="radio", show_default=True, type=click.Choice(["radio", "fifo"]),
              help="With --trace: how the sender hands its segments to the channel: radio (TinyOS: one packet at a time, the next when "
                   "its slot ends) or fifo (each waits for its slot in an unbounded queue). docs/study.md \"The sender's queue\".")  # fmt: skip
@click.option("--seed", default=1, show_default=True, type=SEED, help=f"Seed of the (first) run (0 to {SEED_MAX}).")
@click.option("--seeds", default=1, show_default=True, type=count(1, 100_000),
              help="Replicates: N runs with seeds --seed, --seed + 1, ...; prints each figure's mean ± 95 % confidence interval.")  # fmt: skip
@click.option("--workers", default=None, type=count(1, 1024), help="Runs at once with --seeds or several --tcp variants [default: the CPUs].")
@click.option("--plot", "plot_dir", default=None, metavar="DIR", type=click.Path(file_okay=False),
              help="Draw cwnd/ssthresh, SRTT/RTO and a time-sequence plot of the first seed's run of each variant into DIR.")  # fmt: skip
@click.option("--log", "log_file", default=None, metavar="FILE.parquet", type=click.Path(dir_okay=False),
              help="Write the per-packet log of the first seed's run (Parquet: time, event, kind, flow, link, seg, ...; one --tcp variant).")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--max-events", default=None, type=count(0),
              help="Work budget of a run in events (≈ packets × hops + timers), estimated before it starts; a run over it is "
                   "refused [default: 2·10^8, ~4-15 s; 0: none].")  # fmt: skip
@click.option("--show-config", is_flag=True, help="Print the resolved settings (TCP and link) and exit without simulating.")
@click.option("--help-all", is_flag=True, expose_value=False, is_eager=True, callback=_help_all,
              help="Show every option, each TCP parameter with its help, and exit.")
@click.option("--series", "series_out", default=None, help="Write cwnd/ssthresh/srtt/rto/sequence series to OUT (.npz or .csv).")
@click.pass_context
def sim_cmd(ctx: click.Context, **kw: Any) -> None:
    """Simulate one TCP flow over a lossy link and print goodput and counters with their
    units: several variants side by side (--tcp reno,newreno,sack), replicated (--seeds N:
    mean ± 95 % confidence interval), drawn (--plot DIR); or, given a SCENARIO file (TOML,
    see docs/simulator.md), a network of hops and flows."""
    try:
        _sim(ctx, kw)
    except _core.ParameterError as e:
        raise _name_options(e) from None
    except _core.BurstlabError as e:
        if BUDGET_OPTION not in str(e):
            raise
        raise type(e)(str(e).replace(BUDGET_OPTION, "--max-events N")) from None


def _sim(ctx: click.Context, kw: dict[str, Any]) -> None:
    workers = kw["workers"] or default_workers()
    if kw["scenario"] is not None:
        from burstlab.cli.scenario import run_file

        extra = [n for n in kw if n not in _SCENARIO_OPTIONS and _given(ctx, n)]
        if extra:
            opts = ", ".join(_opt(n) for n in extra)
            raise click.UsageError(f"{opts}: a scenario file describes the whole network (only --seed, --seeds, --plot, --log, --workers, --max-events and --json go with it)")
        seed = kw["seed"] if _given(ctx, "seed") else None
        return run_file(kw["scenario"], seed, kw["as_json"], seeds=kw["seeds"], plot_dir=kw["plot_dir"], workers=workers, log_file=kw["log_file"],
                        run_kw=run_kw(kw["max_events"], single=kw["seeds"] == 1))  # fmt: skip
    _check_combination(ctx, kw)
    _warn_misleading(ctx, kw)
    if kw["series_out"] is not None:
        _check_series_path(kw["series_out"])
    seeds = check_seeds(kw["seed"], kw["seeds"])
    tcps = _tcp_configs(kw)
    kw["queue"] = _queue_from_options(kw)
    if kw["show_config"]:
        link = None if kw["trace_file"] is not None else {
            "rate": kw["rate"], "delay": kw["delay"], "buffer": kw["buffer"], "buffer_unit": kw["buffer_unit"],
            "loss": kw["loss"], "loss_mode": kw["loss_mode"], "ack_loss": kw["ack_loss"],
        }  # fmt: skip
        layer, layer_given = _layer_settings(kw["link_layer"])  # each setting under its spec key (docs/parameters.md)
        if link is not None:
            link.update({f"link_layer.{k}": v for k, v in layer.items()} if layer else {"link_layer": "none"})
        if link is not None:
            q = _queue_config(kw["queue"])
            link["queue"] = q["queue"]
            for table in ("red", "codel", "fq_codel"):
                link.update({f"{table}_{k}": v for k, v in q.get(table, {}).items()})
            kw["_link_given"] = {k for k in link if _given(ctx, k) or (k == "queue" and _given(ctx, "queue"))}
            kw["_link_given"] |= {f"link_layer.{k}" for k in layer_given}
        return _show_config(tcps, kw, link)

    from burstlab.files import output_dir

    with output_dir(kw["plot_dir"]) as plot_dir:  # an unwritable --plot fails before the runs
        if kw["trace_file"] is not None:
            title, columns, plotted = _run_trace_mode(kw, tcps, seeds, workers, plot_dir is not None)
        else:
            title, columns, plotted = _run_link_mode(kw, tcps, seeds, workers, plot_dir is not None or kw["log_file"] is not None)
        if kw["series_out"] is not None:
            _write_series(kw["series_out"], columns[0][0].series)
        labels = [lab for lab, _ in tcps]
        if kw["as_json"]:
            d: Any = columns[0][0].to_dict() if len(seeds) == 1 and len(tcps) == 1 else to_json(labels, columns, seeds)
            click.echo(json.dumps(json_safe(d), indent=2, default=str))
        else:
            click.echo(report(title, labels, columns, seeds, keep=("completion_time",) if kw["size"] is not None else ()))
        if kw["log_file"] is not None:
            from burstlab.packet_log import write_log

            click.echo(f"wrote {write_log(plotted[0][3], kw['log_file'])} (the per-packet log of seed {seeds[0]})", err=True)
        if plot_dir is not None:
            for (label, tcp), (series, log, first_link, _) in zip(tcps, plotted):
                name = f"sim-{plot_name(label)}"
                p = write_plot(plot_dir, name, f"{label}, seed {seeds[0]}. {title}", series, tcp.mss, log, 0, first_link)
                click.echo(f"wrote {p}", err=True)


def _warn_misleading(ctx: click.Context, kw: dict[str, Any]) -> None:
    """Options that would run but not as they read (burstlab.sim.advice): one warning each;
    several variants with --log is a usage error (the log records one run)."""
    from burstlab.sim.advice import link_layer_ignores_rate, time_model_in_packet_mode

    if kw["trace_file"] is None and (misread := time_model_in_packet_mode(f"--loss {kw['loss']}", kw["loss"], kw["loss_mode"])):
        click.echo(f"warning: {misread.split(': ', 1)[1]}", err=True)
    if _given(ctx, "rate") and kw["trace_file"] is None and kw["link_layer"] is not None and str(kw["link_layer"]).strip().lower() != "none":
        click.echo(f"warning: {link_layer_ignores_rate('--rate', str(kw['link_layer']))}", err=True)
    if kw["log_file"] is not None and len(kw["variant"] or ()) > 1:
        raise click.UsageError("--log records one run: give one --tcp variant")


def _announce(n_runs: int, tcps: list[tuple[str, Any]], seeds: list[int], workers: int) -> None:
    if n_runs > 1:
        click.echo(f"simulating {len(tcps)} variant(s) × {len(seeds)} seed(s) = {n_runs} runs on {min(workers, n_runs)} thread(s)...", err=True)


def _run_link_mode(kw: dict[str, Any], tcps: list[tuple[str, Any]], seeds: list[int], workers: int, plot: bool) -> Any:
    link = Link(rate=kw["rate"], delay=kw["delay"], buffer=kw["buffer"], buffer_unit=kw["buffer_unit"],
                loss=parse_loss_spec(kw["loss"]), loss_mode=kw["loss_mode"], link_layer=kw["link_layer"], queue=kw["queue"])  # fmt: skip
    workload = Workload(duration=kw["duration"], size=kw["size"], warmup=kw["warmup"])
    series = kw["series_out"] is not None

    rkw = run_kw(kw["max_events"], single=len(tcps) * len(seeds) == 1 and not plot)

    def job(tcp: Any, seed: int) -> Any:
        return run(Scenario(tcp=tcp, forward=link, ack_loss=kw["ack_loss"], workload=workload, seed=seed, series=series), **rkw)

    def drawn(tcp: Any) -> Any:
        # the plotted run again through the network engine, for its per-packet log: one hop
        # named as the single-link scenario's, so the same streams and run (presets.single)
        from burstlab.sim import presets, run_network

        net = presets.single(forward=link, tcp=tcp, ack_loss=kw["ack_loss"], size=workload.size, duration=workload.duration,
                             warmup=workload.warmup, seed=seeds[0], series=True, log=True)  # fmt: skip
        r = run_network(net, **run_kw(kw["max_events"], single=False))
        return r.flows[0].series, r.log, 0, r

    jobs: list[Callable[[], Any]] = [partial(job, tcp, seed) for _, tcp in tcps for seed in seeds]
    _announce(len(jobs), tcps, seeds, workers)
    draws: list[Callable[[], Any]] = [partial(drawn, tcp) for _, tcp in tcps] if plot else []
    results = run_parallel(jobs + draws, workers)
    n = len(seeds)
    columns = [results[i * n : (i + 1) * n] for i in range(len(tcps))]
    return f"TCP over {_link_text(kw)}; profile {kw['profile']}", columns, results[len(jobs) :]


def _run_trace_mode(kw: dict[str, Any], tcps: list[tuple[str, Any]], seeds: list[int], workers: int, plot: bool) -> Any:
    from burstlab.io import read_trace

    trace = read_trace(kw["trace_file"], kw["trace_format"])
    series = plot or kw["series_out"] is not None
    rkw = run_kw(kw["max_events"], single=len(tcps) == 1)
    jobs: list[Callable[[], Any]] = [
        partial(run_trace, trace, slot=kw["slot"], tcp=tcp, ack_path=kw["ack_path"], seed=seeds[0], series=series,
                sender_queue=kw["sender_queue"], **rkw)
        for _, tcp in tcps
    ]
    _announce(len(jobs), tcps, seeds, workers)
    results = run_parallel(jobs, workers)
    title = (f"TCP over the trace {kw['trace_file']}: {len(trace)} slots of {kw['slot'] * 1e3:g} ms, one transmission opportunity "
             f"each (Srinivasan et al. §3.1), ACK path {kw['ack_path']}, sender queue {kw['sender_queue']}; profile {kw['profile']}")  # fmt: skip
    return title, [[r] for r in results], [(r.series, None, 0, None) for r in results] if plot else []


COMMANDS = [sim_cmd]
