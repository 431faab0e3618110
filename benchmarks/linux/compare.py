#!/usr/bin/env python3
"""burstlab's ``--profile linux`` against a real Linux kernel (issue 11).

Reads the runs of ``linux_reference.py`` (``--linux FILE``, or runs it first with ``--run``,
as root) and simulates the same scenarios with ``TcpConfig.profile("linux", cc=...)``: the
same link (rate, one-way delay, DropTail buffer, Bernoulli loss of data segments only), the
same segment size and duration, one burstlab seed per kernel run. Prints mean goodput per
(cc, p) on both sides, their ratio against the ±15 % target, and the counters (segments
sent, fast-retransmit episodes, timeouts, tail-loss probes) beside them.

    sudo python benchmarks/linux/linux_reference.py --seeds 1-10 --duration 30 --out /tmp/linux.json
    python benchmarks/linux/compare.py --linux /tmp/linux.json [--out benchmarks/linux/results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

TARGET = 0.15


def burstlab_run(cc: str, p: float, seed: int, prm: dict[str, Any], ge: list[float] | None = None) -> dict[str, Any]:
    from burstlab import _core
    from burstlab.sim import Link, Scenario, TcpConfig, Workload, run

    tcp = TcpConfig.profile("linux", cc=cc, mss=int(prm["mss"]))
    if ge:  # the relay's Gilbert-Elliott channel: lost in B
        loss = _core.LossModel.gilbert_elliott(ge[0], ge[1])
    else:
        loss = _core.LossModel.bernoulli(p) if p > 0 else None
    link = Link(rate=float(prm["rate"]), delay=float(prm["delay"]), buffer=int(prm["buffer"]), loss=loss)
    r = run(Scenario(tcp=tcp, forward=link, workload=Workload(duration=float(prm["duration"])), seed=seed))
    return {"cc": cc, "p": p, "seed": seed, **({"ge": ge} if ge else {}), "goodput_bps": r.goodput_bps, "packets_sent": r.packets_sent,
            "retransmissions": r.retransmissions, "fast_retransmits": r.fast_retransmits, "timeouts": r.timeouts,
            "lost_retransmissions": r.lost_retransmissions, "loss_probes": r.loss_probes}


def summarize(linux: list[dict[str, Any]], bl: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    def key(r: dict[str, Any]) -> tuple[str, float, tuple[float, ...]]:
        return (r["cc"], r["p"], tuple(r.get("ge") or ()))

    for cc, p, ge in sorted({key(r) for r in linux}):
        a = [r for r in linux if key(r) == (cc, p, ge)]
        b = [r for r in bl if key(r) == (cc, p, ge)]
        row: dict[str, Any] = {"cc": cc, "p": p, "runs": len(a), **({"ge": list(ge)} if ge else {})}
        for name, rs in (("linux", a), ("burstlab", b)):
            g = [r["goodput_bps"] for r in rs]
            row[f"{name}_goodput_bps"] = statistics.fmean(g)
            row[f"{name}_goodput_sd"] = statistics.stdev(g) if len(g) > 1 else 0.0
            for k in ("packets_sent", "fast_retransmits", "timeouts", "loss_probes", "lost_retransmissions"):
                # the kernel's count of retransmissions lost again: TcpExt.TCPLostRetransmit
                v = [r[k] if k in r else r.get("counters", {}).get("TcpExt.TCPLostRetransmit") for r in rs]
                v = [x for x in v if x is not None]
                row[f"{name}_{k}"] = statistics.fmean(v) if v else float("nan")
        row["ratio"] = row["burstlab_goodput_bps"] / row["linux_goodput_bps"]
        row["within_15pct"] = abs(row["ratio"] - 1) <= TARGET
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--linux", type=Path, required=True, help="linux_reference.py --out file")
    ap.add_argument("--out", type=Path, default=None, help="write the table and every run here (JSON)")
    args = ap.parse_args(argv)
    doc = json.loads(args.linux.read_text())
    prm = doc["params"]
    bl = [burstlab_run(r["cc"], r["p"], r["seed"], prm, r.get("ge")) for r in doc["runs"]]
    rows = summarize(doc["runs"], bl)
    print(f"Linux {doc['kernel']} ({prm['link']} link, kernel loss detection {prm['kernel']}) against burstlab "
          f"--profile linux: {prm['rate'] / 1e6:g} Mb/s, {prm['delay'] * 1e3:g} ms one way, {prm['buffer']}-packet "
          f"DropTail, {prm['mss']}-byte segments, {prm['duration']:g} s runs")
    print(f"{'cc':6} {'p':>5} {'runs':>4} {'Linux Mb/s':>16} {'burstlab Mb/s':>16} {'ratio':>6} {'±15%':>5} | "
          f"{'sent L/b':>13} {'FR L/b':>11} {'RTO L/b':>9} {'lost retx L/b':>13} {'TLP L/b':>9}")
    for r in rows:
        print(f"{r['cc']:6} {r['p']:>5.2f} {r['runs']:>4} {r['linux_goodput_bps'] / 1e6:>8.4f} ±{r['linux_goodput_sd'] / 1e6:<6.4f} "
              f"{r['burstlab_goodput_bps'] / 1e6:>8.4f} ±{r['burstlab_goodput_sd'] / 1e6:<6.4f} {r['ratio']:>6.3f} "
              f"{'yes' if r['within_15pct'] else 'NO':>5} | {r['linux_packets_sent']:>6.0f}/{r['burstlab_packets_sent']:<6.0f} "
              f"{r['linux_fast_retransmits']:>5.0f}/{r['burstlab_fast_retransmits']:<5.0f} "
              f"{r['linux_timeouts']:>4.0f}/{r['burstlab_timeouts']:<4.0f} "
              f"{r['linux_lost_retransmissions']:>6.1f}/{r['burstlab_lost_retransmissions']:<6.1f} "
              f"{r['linux_loss_probes']:>4.0f}/{r['burstlab_loss_probes']:<4.0f}"
              + (f"  Gilbert-Elliott b={r['ge'][0]:g} g={r['ge'][1]:g}" if "ge" in r else ""))
    if args.out is not None:
        from burstlab.io import atomic_write_text

        atomic_write_text(args.out, json.dumps({"linux": doc, "burstlab_runs": bl, "summary": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
