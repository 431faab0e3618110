#!/usr/bin/env python3
"""burstlab against ns-3 (issue 4): goodput under Bernoulli loss, and simulation speed.

Runs ``ns3_reference.py`` in the optional ns-3 environment (a subprocess with that
environment's interpreter, ``bash benchmarks/ns3/setup.sh`` makes it) and ``burstlab.sim.run``
in this interpreter on the same scenario, prints a table and writes ``benchmarks/ns3/results.json``:

    .venv/bin/python benchmarks/ns3/compare.py            # p = 0, 1, 5, 10 %, seeds 1-10
    .venv/bin/python benchmarks/ns3/compare.py --quick    # seeds 1-3, shorter speed run

Goodput half: for each p, the mean goodput over the seeds of each simulator, their ratio
(burstlab / ns-3) and whether it lies within the issue's +-10 % band.

Speed half: one bulk NewReno flow at 1 % loss (``--speed-duration`` simulated seconds, seed 1).
ns-3's figure is data segments sent per wall-second of ``Simulator::Run()`` alone (import and
setup excluded); burstlab's is ``packets_sent`` per wall-second of ``burstlab.sim.run`` (the
best of ``--speed-repeats``). Targets: burstlab >= 5e6 packets/s on one core and >= 100x ns-3.

Matching the two models (see docs/validation.md, "Against ns-3"):

- ns-3 puts 20 B TCP + 20 B IPv4 + 2 B PPP around each segment (timestamps off), so a data
  packet is ``mss + 42`` bytes on the wire and a pure ACK 42 bytes; burstlab's
  ``TcpConfig.header_bytes`` / ``ack_bytes`` are set to the same (if this burstlab has no such
  settings, its link rate is scaled by ``mss / (mss + 42)`` instead, so a payload-only
  packet takes as long as ns-3's);
- ns-3's ssthresh on a fast retransmit, (FlightSize - 1 SMSS) / 2 (it does not halve RFC 5681's
  FlightSize): burstlab's ``ssthresh_rule="flightsize_minus_lost"`` when it has that rule and
  ns-3 runs its stock NewReno (``--ssthresh pipe``); ``--burstlab-ssthresh-rule flightsize``
  runs burstlab's RFC default instead (against ``--ssthresh flightsize`` for ns-3 with the RFC
  rule too);
- initial window, delayed ACK (count and timeout), minimum and initial RTO, duplicate-ACK
  threshold, no limited transmit (RFC 3042 off on both), RFC 6298 clock granularity = ns-3's
  ``TcpSocketBase::ClockGranularity`` (1 ms), maximum RTO 60 s (ns-3's hard-coded cap), no
  receiver-window limit (ns-3's socket buffers are 64 MiB);
- the buffer counts packets waiting behind the one being serialised on both;
- losses only on the data path; the reverse path has the forward rate, delay and buffer.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ns3_reference as ref  # noqa: E402  (the scenario's defaults and header accounting)

TARGET_RATIO = 0.10  # goodput within +-10 % of ns-3's (issue 4)
TARGET_PPS = 5e6  # burstlab data packets per wall-second on one core (issue 4)
TARGET_SPEEDUP = 100.0  # burstlab / ns-3 packets per wall-second (issue 4)
CLOCK_GRANULARITY = 0.001  # s: ns-3's TcpSocketBase::ClockGranularity default
RTO_MAX = 60.0  # s: ns-3's TcpSocketBase::ReTxTimeout caps the backed-off RTO at 60 s
NS3_SSTHRESH_RULE = "flightsize_minus_lost"  # burstlab's name for ns-3's ssthresh arithmetic


# --------------------------------------------------------------------------- ns-3 side


def default_ns3_python() -> Path:
    return HERE / ".venv" / "bin" / "python"


def run_ns3(python: Path, losses: list[float], seeds: list[int], params: dict[str, Any],
            duration: float | None = None, profile: str = "issue4") -> dict[str, Any]:
    """Run ns3_reference.py in the ns-3 environment; returns its JSON document."""
    if not python.exists():
        raise SystemExit(f"error: no ns-3 environment at {python} (run bash benchmarks/ns3/setup.sh "
                         "or pass --ns3-python)")
    prm = dict(params)
    if duration is not None:
        prm["duration"] = duration
    out = HERE / f".ns3-{os.getpid()}.json.tmp"
    cmd = [str(python), str(HERE / "ns3_reference.py"),
           "--loss", ",".join(repr(p) for p in losses),
           "--seeds", ",".join(str(s) for s in seeds), "--profile", profile]
    for k, v in prm.items():
        if v is not None:  # None: ns-3's own default (--profile ns3)
            cmd += [f"--{k.replace('_', '-')}", _arg(v)]
    shown = " ".join([os.path.relpath(cmd[0]), os.path.relpath(cmd[1])] + cmd[2:])
    cmd += ["--out", str(out)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0 or not out.exists():
            tail = "\n".join(proc.stderr.splitlines()[-20:])
            raise SystemExit(f"error: ns-3 run failed (exit {proc.returncode}):\n{tail}")
        doc: dict[str, Any] = json.loads(out.read_text())
    finally:
        out.unlink(missing_ok=True)
    doc["command"] = shown
    return doc


def run_ns3_cached(python: Path, losses: list[float], seeds: list[int], params: dict[str, Any],
                   profile: str, cache: Path | None) -> dict[str, Any]:
    """run_ns3, reusing an earlier identical run stored under ``cache`` (a directory)."""
    if cache is None:
        return run_ns3(python, losses, seeds, params, profile=profile)
    import hashlib

    key = hashlib.sha256(json.dumps([losses, seeds, params, profile], sort_keys=True).encode()).hexdigest()[:16]
    path = cache / f"ns3-{params.get('cc', 'newreno')}-{key}.json"
    if path.exists():
        doc: dict[str, Any] = json.loads(path.read_text())
        return doc
    doc = run_ns3(python, losses, seeds, params, profile=profile)
    cache.mkdir(parents=True, exist_ok=True)
    from burstlab.io import atomic_write_text

    atomic_write_text(path, json.dumps(doc) + "\n")
    return doc


def _arg(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    return repr(v) if isinstance(v, float) else str(v)


# ----------------------------------------------------------------------- burstlab side


def burstlab_scenario(p: float, seed: int, params: dict[str, Any],
                      duration: float | None = None,
                      extra_tcp: dict[str, Any] | None = None, profile: str = "issue4") -> Any:
    """The burstlab Scenario matching ns3_reference.py's run for (p, seed).

    ``profile="ns3"``: ns-3 runs with its own defaults and burstlab with
    ``TcpConfig.profile("ns3", cc=..., mss=...)`` (issue 11); ``"issue4"``: the fixed settings
    matched one by one below. ``extra_tcp``: further ``TcpConfig`` settings, for experiments.
    """
    from burstlab import _core
    from burstlab.sim import Link, Scenario, TcpConfig, Workload

    prm = {**ref.DEFAULTS, **params}
    if profile == "ns3":
        cc = "reno" if prm["cc"] == "newreno" else prm["cc"]
        tcp = TcpConfig.profile("ns3", cc=cc, mss=int(prm["mss"]), **(extra_tcp or {}))
        loss = _core.LossModel.bernoulli(float(p)) if p > 0 else None
        link = Link(rate=float(prm["rate"]), delay=float(prm["delay"]), buffer=int(prm["buffer"]),
                    buffer_unit="packets", loss=loss, loss_mode="packet")
        return Scenario(tcp=tcp, forward=link, reverse=None, ack_loss="none",
                        workload=Workload(duration=float(duration or prm["duration"]), warmup=0.0),
                        seed=int(seed), series=False)
    wire = ref.header_bytes(bool(prm["timestamps"]))
    tcp_fields = {f.name for f in dataclasses.fields(TcpConfig)}
    tcp_kw: dict[str, Any] = dict(
        variant="newreno",
        mss=int(prm["mss"]),
        init_cwnd=int(prm["init_cwnd"]),
        max_cwnd=None,
        rwnd=None,
        delayed_ack=int(prm["ack_every"]) > 1,
        ack_every=max(1, int(prm["ack_every"])),
        ack_timeout=float(prm["ack_timeout"]),
        rto_min=float(prm["rto_min"]),
        rto_max=RTO_MAX,
        rto_initial=float(prm["rto_initial"]),
        dupack_threshold=int(prm["dupack_threshold"]),
    )
    rate = float(prm["rate"])
    # Optional settings of this burstlab (not in the API contract): use them when present.
    optional = {
        "header_bytes": wire,
        "ack_bytes": wire,
        "limited_transmit": bool(prm["limited_transmit"]),
        "clock_granularity": CLOCK_GRANULARITY,
    }
    tcp_kw.update({k: v for k, v in optional.items() if k in tcp_fields})
    # ns-3 3.44's NewReno without SACK sets ssthresh = (FlightSize - 1 SMSS) / 2 on a fast
    # retransmit (docs/ns3-reference.md); burstlab names that rule "flightsize_minus_lost".
    # Matched like the header sizes when this burstlab has it and ns-3 runs its stock NewReno.
    if prm["ssthresh"] == "pipe" and _accepts(TcpConfig, "ssthresh_rule", NS3_SSTHRESH_RULE):
        tcp_kw["ssthresh_rule"] = NS3_SSTHRESH_RULE
    for k, v in (extra_tcp or {}).items():
        if k not in tcp_fields:
            raise SystemExit(f"error: this burstlab's TcpConfig has no setting {k!r}")
        tcp_kw[k] = v
    if "header_bytes" not in tcp_fields:
        # Payload-only links: slow the link so a segment takes as long as ns-3's mss + 42 bytes.
        rate *= prm["mss"] / (prm["mss"] + wire)
    loss = _core.LossModel.bernoulli(float(p)) if p > 0 else None
    link = Link(rate=rate, delay=float(prm["delay"]), buffer=int(prm["buffer"]),
                buffer_unit="packets", loss=loss, loss_mode="packet")
    return Scenario(tcp=TcpConfig(**tcp_kw), forward=link, reverse=None, ack_loss="none",
                    workload=Workload(duration=float(duration or prm["duration"]), warmup=0.0),
                    seed=int(seed), series=False)


def _accepts(cls: Any, name: str, value: Any) -> bool:
    """Whether this burstlab's ``cls`` takes ``name=value`` (the field's annotation says
    only ``str``: its choices are checked when the object is made)."""
    if name not in {f.name for f in dataclasses.fields(cls)}:
        return False
    try:
        cls(**{name: value})
    except Exception:  # noqa: BLE001 - an older burstlab without the choice
        return False
    return True


_FIELDS = ("goodput_bps", "packets_sent", "retransmissions", "fast_retransmits", "timeouts",
           "spurious_retransmissions", "channel_losses", "queue_drops")


def run_burstlab(losses: list[float], seeds: list[int], params: dict[str, Any],
                 extra_tcp: dict[str, Any] | None = None, profile: str = "issue4") -> list[dict[str, Any]]:
    from burstlab.sim import run

    runs = []
    for p in losses:
        for seed in seeds:
            sc = burstlab_scenario(p, seed, params, extra_tcp=extra_tcp, profile=profile)
            t0 = time.perf_counter()
            res = run(sc)
            wall = time.perf_counter() - t0
            d = {"p": p, "seed": seed, "run_wall_s": wall}
            d.update({k: getattr(res, k) for k in _FIELDS if hasattr(res, k)})
            d["config_hash"] = res.config_hash
            runs.append(d)
    return runs


def bl_tcp_config(params: dict[str, Any], extra_tcp: dict[str, Any], profile: str = "issue4") -> dict[str, Any]:
    """The full TcpConfig burstlab ran with (as plain data)."""
    tcp: dict[str, Any] = burstlab_scenario(0.0, 1, params, extra_tcp=extra_tcp, profile=profile).config()["tcp"]
    return tcp


def burstlab_speed(params: dict[str, Any], duration: float, repeats: int, p: float = 0.01,
                   seed: int = 1, profile: str = "issue4") -> dict[str, Any]:
    from burstlab.sim import run

    sc = burstlab_scenario(p, seed, params, duration=duration, profile=profile)
    run(sc)  # warm-up (page-in, allocator)
    walls = []
    res = None
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        res = run(sc)
        walls.append(time.perf_counter() - t0)
    assert res is not None
    best = min(walls)
    return {"p": p, "seed": seed, "duration": duration, "packets_sent": int(res.packets_sent),
            "wall_s": walls, "best_wall_s": best, "packets_per_wall_s": res.packets_sent / best}


# ------------------------------------------------------------------------------ report


def summarize(ns3_runs: list[dict[str, Any]], bl_runs: list[dict[str, Any]],
              losses: list[float]) -> list[dict[str, Any]]:
    rows = []
    for p in losses:
        a = [r for r in ns3_runs if r["p"] == p]
        b = [r for r in bl_runs if r["p"] == p]
        row: dict[str, Any] = {"p": p, "seeds": len(a)}
        for name, rs in (("ns3", a), ("burstlab", b)):
            g = [r["goodput_bps"] for r in rs]
            row[f"{name}_goodput_bps"] = statistics.fmean(g) if g else math.nan
            row[f"{name}_goodput_sd"] = statistics.stdev(g) if len(g) > 1 else 0.0
            for k in ("packets_sent", "retransmissions", "fast_retransmits", "timeouts"):
                vals = [r[k] for r in rs if k in r]
                row[f"{name}_{k}"] = statistics.fmean(vals) if vals else math.nan
        ratio = row["burstlab_goodput_bps"] / row["ns3_goodput_bps"] if row["ns3_goodput_bps"] else math.nan
        row["ratio"] = ratio
        row["within_10pct"] = bool(abs(ratio - 1.0) <= TARGET_RATIO)
        rows.append(row)
    return rows


def print_table(rows: list[dict[str, Any]], file: Any = sys.stdout) -> None:
    print(f"{'p':>5} {'seeds':>5} {'ns-3 Mb/s':>16} {'burstlab Mb/s':>16} {'ratio':>6} "
          f"{'±10%':>5} | {'sent ns3/bl':>13} {'retx ns3/bl':>13} {'FR ns3/bl':>11} "
          f"{'RTO ns3/bl':>11}", file=file)
    for r in rows:
        def pair(k: str) -> str:
            return f"{r['ns3_' + k]:.0f}/{r['burstlab_' + k]:.0f}"
        print(f"{r['p']:>5.2f} {r['seeds']:>5d} "
              f"{r['ns3_goodput_bps'] / 1e6:>8.4f} ±{r['ns3_goodput_sd'] / 1e6:<6.4f} "
              f"{r['burstlab_goodput_bps'] / 1e6:>8.4f} ±{r['burstlab_goodput_sd'] / 1e6:<6.4f} "
              f"{r['ratio']:>6.3f} {'yes' if r['within_10pct'] else 'NO':>5} | "
              f"{pair('packets_sent'):>13} {pair('retransmissions'):>13} "
              f"{pair('fast_retransmits'):>11} {pair('timeouts'):>11}", file=file)


def _parse_losses(text: str) -> list[float]:
    out = [float(x) for x in text.split(",") if x.strip()]
    for p in out:
        if not 0.0 <= p < 1.0:
            raise argparse.ArgumentTypeError(f"--loss: {p} is not a probability in [0, 1)")
    return out


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loss", type=_parse_losses, default=[0.0, 0.01, 0.05, 0.1],
                    help="Bernoulli loss probabilities (default 0,0.01,0.05,0.1)")
    ap.add_argument("--seeds", default=None, help="seeds, e.g. 1-10 (default 1-10; 1-3 with --quick)")
    ap.add_argument("--quick", action="store_true",
                    help="seeds 1-3 and a 200 s speed run (for a fast check)")
    ap.add_argument("--no-goodput", action="store_true", help="skip the goodput comparison")
    ap.add_argument("--no-speed", action="store_true", help="skip the speed comparison")
    ap.add_argument("--speed-duration", type=float, default=None,
                    help="simulated seconds of the speed run (default 1000; 200 with --quick)")
    ap.add_argument("--speed-repeats", type=int, default=5, help="burstlab timing repeats (best)")
    ap.add_argument("--profile", choices=("issue4", "ns3"), default="issue4",
                    help="issue4: NewReno with the settings matched one by one (default); ns3: both "
                    "simulators with ns-3 3.44's defaults (burstlab's TcpConfig.profile('ns3'), issue 11)")
    ap.add_argument("--cc", default=None,
                    help="comma-separated congestion controls (burstlab names: newreno, westwood, vegas, "
                    "cubic, linux-reno; default newreno)")
    ap.add_argument("--ns3-cache", type=Path, default=None,
                    help="directory to keep ns-3 runs in and reuse them when the same runs are asked again")
    ap.add_argument("--ns3-python", type=Path, default=default_ns3_python(),
                    help="interpreter of the ns-3 environment (default benchmarks/ns3/.venv)")
    ap.add_argument("--out", type=Path, default=HERE / "results.json",
                    help="results file (default benchmarks/ns3/results.json)")
    # The scenario: the same options and defaults as ns3_reference.py.
    ap.add_argument("--rate", type=float, default=None, help="bits/s")
    ap.add_argument("--delay", type=float, default=None, help="one-way, s")
    ap.add_argument("--buffer", type=int, default=None, help="packets")
    ap.add_argument("--mss", type=int, default=None, help="bytes")
    ap.add_argument("--duration", type=float, default=None, help="s")
    ap.add_argument("--init-cwnd", type=int, default=None)
    ap.add_argument("--ack-every", type=int, default=None)
    ap.add_argument("--ack-timeout", type=float, default=None)
    ap.add_argument("--rto-min", type=float, default=None)
    ap.add_argument("--rto-initial", type=float, default=None)
    ap.add_argument("--dupack-threshold", type=int, default=None)
    ap.add_argument("--flightsize-discount", type=int,
                    default=None,
                    help="ns-3 side, with --ssthresh flightsize: ssthresh = (FlightSize - k) / 2")
    ap.add_argument("--burstlab-ssthresh-rule", default=None,
                    help="burstlab side only: TcpConfig.ssthresh_rule, e.g. flightsize, pipe, "
                    "flightsize_minus_lost (default: burstlab's own)")
    ap.add_argument("--burstlab-grow-on-loss-exit", type=ref._bool, default=None,
                    help="burstlab side only: TcpConfig.grow_on_loss_exit, on/off (default: "
                    "burstlab's own)")
    ap.add_argument("--burstlab-tcp", action="append", default=[], metavar="NAME=VALUE",
                    help="burstlab side only: any further TcpConfig setting, e.g. "
                    "rto_backoff_reset=new_ack (value parsed as JSON, else a string); repeatable")
    ap.add_argument("--ssthresh", choices=("pipe", "flightsize"), default=None,
                    help="ns-3 side only: its own NewReno (pipe, default) or the diagnostic "
                    "subclass with RFC 5681's FlightSize / 2 (see ns3_reference.py)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    base = {**ref.DEFAULTS, **(ref.NS3_DEFAULTS_PROFILE if args.profile == "ns3" else {})}
    params = {k: (getattr(args, k) if getattr(args, k, None) is not None else v) for k, v in base.items()}
    seeds = ref._parse_seeds(args.seeds or ("1-3" if args.quick else "1-10"))
    speed_duration = args.speed_duration or (200.0 if args.quick else 1000.0)
    ccs = [c.strip() for c in (args.cc or "newreno").split(",") if c.strip()]
    for c in ccs:
        if c not in ref.NS3_CC:
            raise SystemExit(f"error: --cc: {c!r} is not one of {', '.join(ref.NS3_CC)}")
    doc: dict[str, Any] = {
        "issue": 11 if args.profile == "ns3" else 4,
        "argv": sys.argv[1:] if argv is None else argv,
        "host": platform.node(),
        "python": platform.python_version(),
        "profile": args.profile,
        "params": params,
        "header_bytes": ref.header_bytes(bool(ref.effective(params)["timestamps"])),
        "losses": args.loss,
        "seeds": seeds,
    }
    extra_tcp: dict[str, Any] = {}
    if args.burstlab_ssthresh_rule is not None:
        extra_tcp["ssthresh_rule"] = args.burstlab_ssthresh_rule
    if args.burstlab_grow_on_loss_exit is not None:
        extra_tcp["grow_on_loss_exit"] = bool(args.burstlab_grow_on_loss_exit)
    for item in args.burstlab_tcp:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise SystemExit(f"error: --burstlab-tcp: expected NAME=VALUE, got {item!r}")
        try:
            extra_tcp[name.strip()] = json.loads(text)
        except json.JSONDecodeError:
            extra_tcp[name.strip()] = text
    doc["burstlab_tcp_overrides"] = extra_tcp
    for c in ccs:  # fail early on a bad setting
        burstlab_scenario(0.0, 1, {**params, "cc": c}, extra_tcp=extra_tcp, profile=args.profile)
    ok = True  # goodput within the band at every p
    if not args.no_goodput:
        doc["by_cc"] = {}
        for c in ccs:
            prm = {**params, "cc": c}
            t0 = time.perf_counter()
            ns3 = run_ns3_cached(args.ns3_python, args.loss, seeds, prm, args.profile, args.ns3_cache)
            print(f"ns-3 {c}: {len(ns3['runs'])} runs in {time.perf_counter() - t0:.1f} s "
                  f"(import {ns3['import_s']:.1f} s)", file=sys.stderr)
            t0 = time.perf_counter()
            bl = run_burstlab(args.loss, seeds, prm, extra_tcp, profile=args.profile)
            print(f"burstlab {c}: {len(bl)} runs in {time.perf_counter() - t0:.2f} s", file=sys.stderr)
            rows = summarize(ns3["runs"], bl, args.loss)
            print(f"\n{c} ({ref.NS3_CC[c]}), profile {args.profile}: goodput, {params['rate'] / 1e6:g} Mb/s, "
                  f"{params['delay'] * 1e3:g} ms, {params['buffer']}-packet DropTail, {params['mss']}-byte "
                  f"segments, {params['duration']:g} s, seeds {seeds[0]}..{seeds[-1]} (mean ± sd over seeds)")
            print_table(rows)
            ok &= all(r["within_10pct"] for r in rows)
            doc["by_cc"][c] = {
                "ns3": {k: ns3[k] for k in ("ns3_version", "import_s", "command", "runs")},
                "burstlab": {"runs": bl, "tcp": bl_tcp_config(prm, extra_tcp, args.profile)},
                "goodput": rows,
            }
        first = doc["by_cc"][ccs[0]]
        doc["ns3"], doc["burstlab"], doc["goodput"] = first["ns3"], first["burstlab"], first["goodput"]
    if not args.no_speed:
        prm = {**params, "cc": ccs[0]}
        ns3s = run_ns3(args.ns3_python, [0.01], [1], prm, duration=speed_duration, profile=args.profile)
        r3 = ns3s["runs"][0]
        bls = burstlab_speed(prm, speed_duration, args.speed_repeats, profile=args.profile)
        speedup = bls["packets_per_wall_s"] / r3["packets_per_wall_s"]
        doc["speed"] = {
            "scenario": f"one bulk NewReno flow, p = 0.01, {speed_duration:g} s simulated, seed 1",
            "ns3": {"packets_sent": r3["packets_sent"], "run_wall_s": r3["run_wall_s"],
                    "packets_per_wall_s": r3["packets_per_wall_s"], "import_s": ns3s["import_s"]},
            "burstlab": bls,
            "speedup": speedup,
            "target_pps": TARGET_PPS,
            "target_speedup": TARGET_SPEEDUP,
        }
        print(f"\nSpeed, one bulk NewReno flow at 1% loss, {speed_duration:g} s simulated:")
        print(f"  ns-3     {r3['packets_per_wall_s']:>14,.0f} data packets / wall-s "
              f"({r3['packets_sent']} packets in {r3['run_wall_s']:.3f} s of Simulator::Run; "
              f"import {ns3s['import_s']:.1f} s)")
        print(f"  burstlab {bls['packets_per_wall_s']:>14,.0f} data packets / wall-s "
              f"({bls['packets_sent']} packets in {bls['best_wall_s'] * 1e3:.2f} ms, best of "
              f"{len(bls['wall_s'])})   target >= {TARGET_PPS:,.0f}: "
              f"{'met' if bls['packets_per_wall_s'] >= TARGET_PPS else 'NOT met'}")
        print(f"  ratio    {speedup:>14,.1f} x   target >= {TARGET_SPEEDUP:g}x: "
              f"{'met' if speedup >= TARGET_SPEEDUP else 'NOT met'}")
    from burstlab.io import atomic_write_text

    atomic_write_text(args.out, json.dumps(doc, indent=1) + "\n")
    print(f"\nwrote {args.out}", file=sys.stderr)
    if not args.no_goodput:
        print("goodput within ±10% at every p: " + ("yes" if ok else "NO"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
