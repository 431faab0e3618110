#!/usr/bin/env python3
"""burstlab's dumbbell against ns-3 3.44 (issue 9's validation): N TCP NewReno flows, each
from its own source over an access link into one bottleneck, per-flow and aggregate
goodput side by side.

    python benchmarks/ns3/dumbbell.py                      # 2 and 10 Mb/s, 10 flows, 300 s
    python benchmarks/ns3/dumbbell.py --rates 2e6 --duration 100 --out /tmp/d.json

It runs burstlab in this interpreter and ns-3 in the optional ns-3 environment
(``bash benchmarks/ns3/setup.sh``; ``--ns3-python`` or ``NS3_PYTHON`` to point elsewhere),
whose interpreter runs this same file with ``--ns3-side``.

The topology, identical on both sides: source k —(access link: 100 Mb/s, ``--access-delay``,
a queue that never fills)— router R1 —(bottleneck: ``--rate``, ``--delay``, DropTail of one
bandwidth-delay product at the round-trip propagation delay, in packets of mss + 42 bytes)—
router R2, where the N receivers (ns-3: PacketSinks on R2) are; ACKs return over the same
links. ns-3: point-to-point links, their device DropTail queues only (the traffic-control
queue discs are removed), ``TcpNewReno`` with classic recovery, SACK, timestamps and limited
transmit off, initial window 2, delayed ACK 2 / 200 ms, minimum and initial RTO 1 s, socket
buffers of 64 MiB (no receiver-window limit), flow k starting at a time drawn uniformly in [0,
``--start-jitter``) from the seed, the same on both sides (without it both simulators are
deterministic — there is no loss process — and which flow wins at the DropTail bottleneck
is a phase effect of the exact timing). burstlab: the `dumbbell` preset with the wire sizes of ns-3 (42-byte headers and
ACKs: TCP 20 + IPv4 20 + PPP 2), its clock granularity (1 ms) and its ssthresh arithmetic
(``flightsize_minus_lost``, as ``compare.py``). Target: per-flow and aggregate goodput
within ±10 % (docs/validation.md).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

DEFAULTS: dict[str, Any] = {
    "flows": 10,
    "delay": 0.020,  # bottleneck one-way, s
    "access_delay": 0.005,  # s
    "access_rate": 100e6,  # bits/s
    "mss": 1000,
    "duration": 300.0,
    "init_cwnd": 2,
    "ack_every": 2,
    "ack_timeout": 0.2,
    "rto_min": 1.0,
    "rto_initial": 1.0,
    "start_jitter": 1.0,  # s: flow k starts at U(0, jitter), the same draw on both sides
}
HEADER = 42  # PPP 2 + IPv4 20 + TCP 20
TOLERANCE = 0.10


def starts(seed: int, prm: dict[str, Any]) -> list[float]:
    """Each flow's start, uniform in [0, start_jitter) from the seed: the same on both sides.
    Without it both simulators are deterministic (no loss process) and which flow wins at
    the DropTail bottleneck is a phase effect of the exact timing, different in each."""
    import random

    g = random.Random(seed)
    return [round(g.uniform(0, prm["start_jitter"]), 6) for _ in range(int(prm["flows"]))]


def bdp_packets(rate: float, prm: dict[str, Any]) -> int:
    rtt = 2 * (prm["delay"] + prm["access_delay"])
    return max(2, math.ceil(rate * rtt / 8 / (prm["mss"] + HEADER)))


# --------------------------------------------------------------------------- ns-3 side


def ns3_run(rate: float, seed: int, prm: dict[str, Any]) -> dict[str, Any]:
    from ns import ns  # type: ignore[import-not-found]

    ns.Config.Reset()
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(int(seed))
    sd = ns.Config.SetDefault
    sd("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TcpNewReno.GetTypeId()))
    sd("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TcpClassicRecovery.GetTypeId()))
    sd("ns3::TcpSocketBase::Sack", ns.BooleanValue(False))
    sd("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    sd("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(False))
    sd("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(prm["rto_min"])))
    sd("ns3::RttEstimator::InitialEstimation", ns.TimeValue(ns.Seconds(prm["rto_initial"])))
    sd("ns3::TcpSocket::SegmentSize", ns.UintegerValue(prm["mss"]))
    sd("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(prm["init_cwnd"]))
    sd("ns3::TcpSocket::DelAckCount", ns.UintegerValue(prm["ack_every"]))
    sd("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(prm["ack_timeout"])))
    sd("ns3::TcpSocket::SndBufSize", ns.UintegerValue(64 * 1024 * 1024))
    sd("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(64 * 1024 * 1024))

    n = int(prm["flows"])
    routers = ns.NodeContainer()
    routers.Create(2)
    sources = ns.NodeContainer()
    sources.Create(n)
    stack = ns.InternetStackHelper()
    stack.Install(routers)
    stack.Install(sources)

    def p2p(rate_bps: float, delay: float, buffer: int) -> Any:
        h = ns.PointToPointHelper()
        h.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(f"{int(round(rate_bps))}bps")))
        h.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(delay)))
        h.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue(f"{buffer}p"))
        return h

    addr = ns.Ipv4AddressHelper()
    tc = ns.TrafficControlHelper()
    bott = p2p(rate, prm["delay"], bdp_packets(rate, prm)).Install(routers.Get(0), routers.Get(1))
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    bott_if = addr.Assign(bott)
    tc.Uninstall(bott)
    for k in range(n):
        acc = p2p(prm["access_rate"], prm["access_delay"], 100_000).Install(sources.Get(k), routers.Get(0))
        addr.SetBase(ns.Ipv4Address(f"10.1.{k}.0"), ns.Ipv4Mask("255.255.255.0"))
        addr.Assign(acc)
        tc.Uninstall(acc)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    sinks = []
    for k in range(n):
        port = 50000 + k
        sh = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        app = sh.Install(routers.Get(1))
        app.Start(ns.Seconds(0.0))
        sinks.append(app.Get(0))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(bott_if.GetAddress(1), port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(prm["mss"]))
        bulk.Install(sources.Get(k)).Start(ns.Seconds(starts(seed, prm)[k]))

    ns.Simulator.Stop(ns.Seconds(prm["duration"]))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0
    goodputs = [int(s.GetObject[ns.PacketSink]().GetTotalRx()) * 8.0 / prm["duration"] for s in sinks]
    ns.Simulator.Destroy()
    return {"rate": rate, "seed": seed, "goodput_bps": goodputs, "wall_s": wall}


# --------------------------------------------------------------------------- burstlab side


def burstlab_run(rate: float, seed: int, prm: dict[str, Any]) -> dict[str, Any]:
    from burstlab.sim import Link, TcpConfig, presets, run_network

    tcp = TcpConfig(variant="newreno", mss=prm["mss"], init_cwnd=prm["init_cwnd"], delayed_ack=prm["ack_every"] > 1,
                    ack_every=prm["ack_every"], ack_timeout=prm["ack_timeout"], rto_min=prm["rto_min"],
                    rto_initial=prm["rto_initial"], rto_max=60.0, header_bytes=HEADER, ack_bytes=HEADER,
                    clock_granularity=0.001, ssthresh_rule="flightsize_minus_lost")  # fmt: skip
    net = presets.dumbbell(
        int(prm["flows"]),
        Link(rate=rate, delay=prm["delay"], buffer=bdp_packets(rate, prm)),
        access_delay=prm["access_delay"],
        access_rate=prm["access_rate"],
        tcp=tcp,
        duration=prm["duration"],
        seed=seed,
    )
    import dataclasses

    net = dataclasses.replace(net, flows=[dataclasses.replace(f, start=s) for f, s in zip(net.flows, starts(seed, prm))])
    t0 = time.perf_counter()
    r = run_network(net)
    wall = time.perf_counter() - t0
    # Bytes over the whole run, as ns-3's PacketSink counts them (not over each flow's own life).
    gp = [f.delivered_bytes * 8.0 / prm["duration"] for f in r.flows.values()]
    return {"rate": rate, "seed": seed, "goodput_bps": gp, "wall_s": wall}


# --------------------------------------------------------------------------- comparison


def summarise(ns3: list[dict[str, Any]], bl: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per rate: mean per-flow goodput (over seeds) on both sides, their ratios, the aggregate
    ratio, Jain's index on both sides, and whether every ratio is within the tolerance."""
    out = []
    for rate in sorted({r["rate"] for r in ns3}):
        a = [r["goodput_bps"] for r in ns3 if r["rate"] == rate]
        b = [r["goodput_bps"] for r in bl if r["rate"] == rate]
        n = len(a[0])
        fa = [sum(x[k] for x in a) / len(a) for k in range(n)]
        fb = [sum(x[k] for x in b) / len(b) for k in range(n)]
        ratios = [y / x for x, y in zip(fa, fb)]
        jain = lambda xs: sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))  # noqa: E731
        agg = sum(fb) / sum(fa)
        out.append({
            "rate": rate, "seeds": len(a), "ns3_aggregate_bps": sum(fa), "burstlab_aggregate_bps": sum(fb),
            "aggregate_ratio": agg, "flow_ratios": ratios, "ns3_jain": jain(fa), "burstlab_jain": jain(fb),
            "within": all(abs(r - 1) <= TOLERANCE for r in [*ratios, agg]),
        })  # fmt: skip
    return out


def default_ns3_python() -> Path:
    env = os.environ.get("NS3_PYTHON")
    return Path(env) if env else HERE / ".venv" / "bin" / "python"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rates", default="2e6,10e6", help="bottleneck rates, bits/s (default 2e6,10e6)")
    ap.add_argument("--seeds", type=int, default=20, help="seeds 1..N on each side (default 20)")
    ap.add_argument("--flows", type=int, default=DEFAULTS["flows"])
    ap.add_argument("--duration", type=float, default=DEFAULTS["duration"])
    ap.add_argument("--start-jitter", type=float, default=DEFAULTS["start_jitter"], help="flow starts uniform in [0, J) s")
    ap.add_argument("--ns3-python", type=Path, default=None, help="interpreter of the ns-3 environment")
    ap.add_argument("--ns3-side", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=None, help="write the comparison to this JSON file")
    args = ap.parse_args(argv)
    prm = {**DEFAULTS, "flows": args.flows, "duration": args.duration, "start_jitter": args.start_jitter}
    rates = [float(x) for x in args.rates.split(",") if x.strip()]
    seeds = list(range(1, args.seeds + 1))
    if args.ns3_side:
        for rate in rates:
            for s in seeds:
                print(json.dumps(ns3_run(rate, s, prm)), flush=True)
        return 0
    py = args.ns3_python or default_ns3_python()
    if not py.exists():
        print(f"error: no ns-3 environment at {py} (bash benchmarks/ns3/setup.sh, or --ns3-python)", file=sys.stderr)
        return 2
    cmd = [str(py), str(Path(__file__).resolve()), "--ns3-side", "--rates", args.rates, "--seeds", str(args.seeds),
           "--flows", str(args.flows), "--duration", str(args.duration), "--start-jitter", str(args.start_jitter)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"error: the ns-3 side failed:\n{proc.stderr[-3000:]}", file=sys.stderr)
        return 2
    ns3 = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    bl = [burstlab_run(rate, s, prm) for rate in rates for s in seeds]
    rows = summarise(ns3, bl)
    for r in rows:
        fr = ", ".join(f"{x:.3f}" for x in r["flow_ratios"])
        print(f"{r['rate'] / 1e6:g} Mb/s, {r['seeds']} seeds: aggregate ns-3 {r['ns3_aggregate_bps'] / 1e6:.4f} Mb/s, "
              f"burstlab {r['burstlab_aggregate_bps'] / 1e6:.4f} Mb/s (ratio {r['aggregate_ratio']:.3f}); "
              f"Jain ns-3 {r['ns3_jain']:.4f}, burstlab {r['burstlab_jain']:.4f}; per-flow ratios {fr}; "
              f"within ±{TOLERANCE:.0%}: {'yes' if r['within'] else 'NO'}")  # fmt: skip
    ns3_wall = sum(r["wall_s"] for r in ns3)
    bl_wall = sum(r["wall_s"] for r in bl)
    print(f"simulation loop wall time: ns-3 {ns3_wall:.1f} s, burstlab {bl_wall:.2f} s ({ns3_wall / bl_wall:.0f}×)")
    if args.out is not None:
        tmp = args.out.with_name(args.out.name + ".tmp")
        tmp.write_text(json.dumps({"params": prm, "rates": rates, "comparison": rows, "ns3": ns3, "burstlab": bl}, indent=1))
        os.replace(tmp, args.out)
    return 0 if all(r["within"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
