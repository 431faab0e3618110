#!/usr/bin/env python3
"""Subramanian, Ramakrishnan, Kalyanaraman, "Experimental Study of Link and Transport
Protocols in Interference-Prone WLAN Environments", the TCP SACK against LT-TCP slides
(after Tickoo et al., "LT-TCP: End-to-End Framework to Improve TCP Performance over Networks
with Lossy Channels", Figs. 1 and 4): goodput of one flow against a uniform loss rate of
0-50 % at 10 Mb/s, RTT 100 ms, from burstlab's simulation (the fast check is
``cargo test -p burstlab-core --release subramanian``).

    python benchmarks/lt_tcp/subramanian.py [--seeds 10] [--duration 100] \\
        [--out docs/img/lt_tcp_subramanian.png] [--table FILE.md] [--abc]

Scenario (``burstlab.experiments.link_transport.slides19_scenario``, which ``burstlab study
link-transport`` runs for its slides 19-20; ``crates/burstlab-core/tests/system/lt_tcp.rs``,
``subramanian``): 10 Mb/s, 50 ms each way, a RED queue with ns-2's and ns-3's defaults (thresholds 5 and 15 packets, w_q
0.002, max_p 0.02, gentle) marking ECN-capable packets, a 250-packet buffer; Bernoulli loss of
every data packet (ACKs not lost); 1000-byte segments, RFC defaults otherwise (delayed ACKs,
initial window 2, RTO ≥ 1 s); 100 s, as the slides' runs. TCP SACK (RFC 6675) without ECN
(the slides' "TCP-SACK"), TCP SACK with ECN, and LT-TCP (``--tcp lt-tcp``, its defaults).
Prints mean goodput ± standard error over the seeds and each variant's share of its own
lossless goodput; ``--abc`` turns RFC 3465 byte counting on for all three.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

PS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
#: The variants of the slides' comparison (their TCP settings: burstlab.experiments.link_transport.LTCP_VARIANTS).
VARIANTS = {"sack": "TCP SACK", "sack-ecn": "TCP SACK + ECN", "lt-tcp": "LT-TCP"}


def goodput(name: str, p: float, seeds: int, duration: float, abc: bool) -> tuple[float, float, dict[str, float]]:
    from burstlab.experiments.link_transport import slides19_scenario  # the study's network (burstlab study link-transport)
    from burstlab.sim import run

    g, extra = [], {"timeouts": 0.0, "pfec": 0.0, "rfec": 0.0, "retx": 0.0, "ecn": 0.0}
    for seed in range(1, seeds + 1):
        r = run(slides19_scenario(name, p, seed, duration=duration, abc=abc))
        g.append(r.goodput_bps)
        for k, v in (("timeouts", r.timeouts), ("pfec", r.pfec_sent), ("rfec", r.rfec_sent), ("retx", r.retransmissions),
                     ("ecn", r.ecn_reductions)):  # fmt: skip
            extra[k] += v / seeds
    se = statistics.stdev(g) / math.sqrt(len(g)) if len(g) > 1 else 0.0
    return statistics.fmean(g), se, extra


def draw(res: dict[tuple[str, float], tuple[float, float, dict[str, float]]], args: argparse.Namespace) -> None:
    """Goodput against the loss rate, ± 2 standard errors, into ``args.out`` (a PNG)."""
    import matplotlib.pyplot as plt

    from burstlab import plot as P  # the Agg backend

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for v, label in VARIANTS.items():
        m = [res[(v, p)][0] / 1e6 for p in PS]
        e = [2 * res[(v, p)][1] / 1e6 for p in PS]
        ax.errorbar([100 * p for p in PS], m, yerr=e, marker="o", ms=3, capsize=2, label=label)
    ax.set_xlabel("uniform packet loss rate (%)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title(f"10 Mb/s, RTT 100 ms, RED/ECN; {args.seeds} seeds × {args.duration:.0f} s" + (", ABC" if args.abc else ""))
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    P.save_figure(fig, args.out.parent, args.out.stem, ["png"])
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", type=float, default=100.0, help="simulated seconds per run")
    ap.add_argument("--abc", action="store_true", help="RFC 3465 byte counting for every variant")
    ap.add_argument("--out", type=Path, default=None, help="PNG of goodput against loss rate")
    ap.add_argument("--table", type=Path, default=None, help="Markdown table of every point")
    args = ap.parse_args(argv)
    res = {(v, p): goodput(v, p, args.seeds, args.duration, args.abc) for v in VARIANTS for p in PS}
    head = "| loss | " + " | ".join(f"{VARIANTS[v]}, Mb/s (share)" for v in VARIANTS) + " | LT-TCP PFEC / RFEC / retx / timeouts per run |"
    lines = [head, "|" + "---|" * (len(VARIANTS) + 2)]
    for p in PS:
        cells = []
        for v in VARIANTS:
            m, se, _ = res[(v, p)]
            cells.append(f"{m / 1e6:.3f} ± {se / 1e6:.3f} ({m / res[(v, 0.0)][0]:.0%})")
        x = res[("lt-tcp", p)][2]
        lines.append(f"| {p:.0%} | " + " | ".join(cells) + f" | {x['pfec']:.0f} / {x['rfec']:.0f} / {x['retx']:.0f} / {x['timeouts']:.1f} |")
    print("\n".join(lines))
    if args.table is not None:
        from burstlab.io import atomic_write_text

        atomic_write_text(args.table, "\n".join(lines) + "\n")
    if args.out is not None:
        draw(res, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
