#!/usr/bin/env python3
"""Martignon & Capone, "TCP with Bandwidth Estimation over Wireless Networks", Figs. 4-6:
goodput of one TCP Reno, TIBET or Ideal-estimate flow over a lossy link, from burstlab's
simulation (issue 11; the fast checks are ``cargo test -p burstlab-core --release martignon``).

    python benchmarks/tcp_variants/martignon_capone.py [--seeds 10] [--duration 300] \\
        [--out docs/img/martignon_capone.png] [--table docs/martignon_capone.md]

Scenario (``crates/burstlab-core/tests/system/papers.rs``): 2 or 10 Mb/s, 50 ms one way (Figs.
4-5) or 10 Mb/s with RTT 20-400 ms at p = 10⁻³ (Fig. 6); a DropTail buffer of one
bandwidth-delay product; Bernoulli loss of data packets; 1000-byte segments, no delayed ACK,
initial window 1, RTO floor 0.2 s (ns-2's timers before its 2004 change), Reno's recovery
for all three; the first 20 s excluded. Prints the mean goodput (± standard error over the
seeds) and draws the three panels.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

CCS = ("reno", "tibet", "ideal")
LABEL = {"reno": "TCP Reno", "tibet": "TIBET", "ideal": "Ideal TCP"}


def goodput(cc: str, rate: float, one_way: float, p: float, seeds: int, duration: float) -> tuple[float, float]:
    from burstlab import _core
    from burstlab.sim import Link, Scenario, TcpConfig, Workload, run

    bdp = max(1, round(rate * 2 * one_way / (8 * 1040)))
    tcp = TcpConfig(cc=cc, recovery="reno", init_cwnd=1, delayed_ack=False, rto_min=0.2)
    g = []
    for seed in range(1, seeds + 1):
        link = Link(rate=rate, delay=one_way, buffer=bdp, loss=_core.LossModel.bernoulli(p))
        r = run(Scenario(tcp=tcp, forward=link, workload=Workload(duration=duration, warmup=20.0), seed=seed))
        g.append(r.goodput_bps)
    return statistics.fmean(g), statistics.stdev(g) / math.sqrt(len(g)) if len(g) > 1 else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", type=float, default=300.0, help="simulated seconds per run (20 s warm-up)")
    ap.add_argument("--out", type=Path, default=None, help="PNG of the three panels")
    ap.add_argument("--table", type=Path, default=None, help="Markdown table of every point")
    args = ap.parse_args(argv)
    ps = [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1]
    rtts = [0.02, 0.05, 0.1, 0.2, 0.4]
    res: dict[tuple[str, float, float, float], tuple[float, float]] = {}
    for cc in CCS:
        for rate in (2e6, 10e6):
            for p in ps:
                res[(cc, rate, 0.05, p)] = goodput(cc, rate, 0.05, p, args.seeds, args.duration)
        for rtt in rtts:
            res[(cc, 10e6, rtt / 2, 1e-3)] = goodput(cc, 10e6, rtt / 2, 1e-3, args.seeds, args.duration)
    lines = ["| figure | link | one way | p | TCP Reno, Mb/s | TIBET, Mb/s | Ideal TCP, Mb/s | order |",
             "|---|---|---|---|---|---|---|---|"]
    rows = [("Fig. 4" if rate == 2e6 else "Fig. 5", rate, 0.05, p) for rate in (2e6, 10e6) for p in ps]
    rows += [("Fig. 6", 10e6, rtt / 2, 1e-3) for rtt in rtts]
    for fig, rate, ow, p in rows:
        v = [res[(cc, rate, ow, p)] for cc in CCS]

        def rel(a: tuple[float, float], b: tuple[float, float]) -> str:
            z = (a[0] - b[0]) / max(1.0, math.hypot(a[1], b[1]))
            return ">" if z > 3 else ("<" if z < -3 else "≈")

        order = f"Ideal {rel(v[2], v[1])} TIBET {rel(v[1], v[0])} Reno"
        cells = " | ".join(f"{m / 1e6:.4f} ± {s / 1e6:.4f}" for m, s in v)
        lines.append(f"| {fig} | {rate / 1e6:g} Mb/s | {ow * 1e3:g} ms | {p:g} | {cells} | {order} |")
    text = "\n".join(lines)
    print(text)
    if args.table is not None:
        args.table.write_text(text + "\n")
    if args.out is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 3, figsize=(13, 4))
        for ax, rate, title in ((axes[0], 2e6, "Fig. 4: 2 Mb/s, 50 ms one way"), (axes[1], 10e6, "Fig. 5: 10 Mb/s, 50 ms one way")):
            for cc in CCS:
                m = [res[(cc, rate, 0.05, p)][0] / 1e6 for p in ps]
                ax.plot(ps, m, marker="o", label=LABEL[cc])
            ax.set_xscale("log")
            ax.set_xlabel("packet loss probability")
            ax.set_ylabel("goodput, Mb/s")
            ax.set_title(title)
            ax.grid(True, alpha=0.3)
            ax.legend()
        ax = axes[2]
        for cc in CCS:
            ax.plot([r * 1e3 for r in rtts], [res[(cc, 10e6, r / 2, 1e-3)][0] / 1e6 for r in rtts], marker="o", label=LABEL[cc])
        ax.set_xlabel("RTT, ms")
        ax.set_ylabel("goodput, Mb/s")
        ax.set_title("Fig. 6: 10 Mb/s, p = 0.1 %")
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.suptitle(f"burstlab: Martignon & Capone's single-flow scenarios ({args.seeds} seeds × {args.duration:g} s)")
        fig.tight_layout()
        fig.savefig(args.out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
