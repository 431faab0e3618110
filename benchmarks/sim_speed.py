"""Simulator speed through the Python API: one bulk NewReno flow at 1% Bernoulli loss
(the ns-3 comparison scenario: 10 Mb/s, 10 ms one-way, 100-packet DropTail, 1000-byte
segments, 100 s), in simulated data packets per wall-clock second.

    python benchmarks/sim_speed.py            # burstlab only
    python benchmarks/sim_speed.py --ns3      # also ns-3's simulation-loop rate, same scenario

Target: ≥ 5·10^6 data packets per second on one core and ≥ 100× ns-3. ``--ns3``
imports ``benchmarks/ns3/ns3_reference.py`` (the ns-3 harness) when it is present and
``import ns`` works, and runs its ``run_one(p, seed, params)`` on the same scenario.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

from burstlab import _core
from burstlab.sim import Link, Scenario, TcpConfig, Workload, run

TARGET_PPS = 5e6
TARGET_RATIO = 100.0


def scenario(seed: int, p: float, duration: float) -> Scenario:
    return Scenario(
        tcp=TcpConfig(variant="newreno"),
        forward=Link(rate=10e6, delay=0.010, buffer=100, loss=_core.LossModel.bernoulli(p)),
        workload=Workload(duration=duration),
        seed=seed,
    )


def burstlab_rate(seeds: int, p: float, duration: float) -> dict[str, Any]:
    run(scenario(1, p, duration))  # warm-up
    packets = 0
    t0 = time.perf_counter()
    for s in range(1, seeds + 1):
        packets += run(scenario(s, p, duration)).packets_sent
    wall = time.perf_counter() - t0
    return {"runs": seeds, "packets_sent": packets, "wall_s": wall, "packets_per_wall_s": packets / wall}


def ns3_rate(seeds: int, p: float, duration: float) -> dict[str, Any] | None:
    path = Path(__file__).resolve().parent / "ns3" / "ns3_reference.py"
    if not path.exists():
        print(f"ns-3: {path} not present (the ns-3 harness lives in benchmarks/ns3/)", file=sys.stderr)
        return None
    spec = importlib.util.spec_from_file_location("ns3_reference", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["ns3_reference"] = mod
    try:
        spec.loader.exec_module(mod)
        runs = [mod.run_one(p, s, {"duration": duration}) for s in range(1, seeds + 1)]
    except ImportError as e:
        print(f"ns-3: not available ({e})", file=sys.stderr)
        return None
    packets = sum(r["packets_sent"] for r in runs)
    wall = sum(r["run_wall_s"] for r in runs)
    return {"runs": seeds, "packets_sent": packets, "wall_s": wall, "packets_per_wall_s": packets / wall}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--p", type=float, default=0.01)
    ap.add_argument("--duration", type=float, default=100.0)
    ap.add_argument("--ns3", action="store_true", help="also measure ns-3 on the same scenario")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    bl = burstlab_rate(a.seeds, a.p, a.duration)
    out: dict[str, Any] = {"scenario": {"p": a.p, "duration": a.duration, "rate": 10e6, "delay": 0.01, "buffer": 100}, "burstlab": bl}
    print(f"burstlab: {bl['packets_per_wall_s']:.3e} data packets per wall-second "
          f"({bl['packets_sent']} packets in {bl['wall_s']:.3f} s; target ≥ {TARGET_PPS:.0e}: "
          f"{'met' if bl['packets_per_wall_s'] >= TARGET_PPS else 'NOT met'})")  # fmt: skip
    if a.ns3:
        ns = ns3_rate(min(a.seeds, 3), a.p, a.duration)
        out["ns3"] = ns
        if ns is not None:
            ratio = bl["packets_per_wall_s"] / ns["packets_per_wall_s"]
            out["ratio"] = ratio
            print(f"ns-3:     {ns['packets_per_wall_s']:.3e} data packets per wall-second of Simulator.Run()")
            print(f"ratio:    {ratio:.0f}× (target ≥ {TARGET_RATIO:.0f}×: {'met' if ratio >= TARGET_RATIO else 'NOT met'})")
    if a.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
