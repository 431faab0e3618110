#!/usr/bin/env python3
"""LL-ARQ against LL-HARQ (Subramanian et al., slides 15-18) under each reading of the
synthetic error rate (``error_unit``: unit, frame, ber, snr; docs/study-link-transport.md):
the study's own cells (one SACK flow over one or four hops, 10 Mb/s, 100 s) run through its
``network`` and ``run_item`` functions, ``--seeds`` replicates each; goodput mean ± 95 % t
interval, the HARQ/ARQ ratio, raw unit loss and residual loss per hop.

    python benchmarks/link_transport_error_unit.py [--ps 0.1,0.3,0.5] [--seeds 3] [--hops 1] [--tcp sack]
"""
from __future__ import annotations

import argparse
import math

import numpy as np
from scipy import stats

from burstlab.experiments import link_transport as lt


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ps", default="0.1,0.3,0.5")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--hops", type=int, default=1)
    ap.add_argument("--tcp", default="sack")
    ap.add_argument("--units", default=",".join(lt.ERROR_UNITS))
    ap.add_argument("--duration", type=float, default=100.0)
    a = ap.parse_args()
    print("| error unit | p | LL-ARQ Mb/s | LL-HARQ Mb/s | HARQ/ARQ | unit loss ARQ / HARQ | residual ARQ / HARQ |")
    print("|---|---|---|---|---|---|---|")
    for unit in a.units.split(","):
        s = lt.Setup(error_unit=unit, duration=a.duration)
        for p in (float(x) for x in a.ps.split(",")):
            out = {}
            for link in lt.LINKS:
                cell = lt.lltx_cell(s, ("uniform", p), link, a.tcp, a.hops)
                rows = []
                for k in range(a.seeds):
                    from burstlab.sim import run_network

                    r = run_network(lt.network(cell, lt.replicate_seed(lt.StudyConfig().seed, k)))
                    g = sum(f.goodput_bps for f in r.flows.values() if f.kind == "tcp")
                    rows.append((g, lt.link_numbers(cell, r)))
                g = np.array([x[0] for x in rows]) / 1e6
                half = stats.t.ppf(0.975, len(g) - 1) * g.std(ddof=1) / math.sqrt(len(g)) if len(g) > 1 else float("nan")
                out[link] = (g.mean(), half, np.mean([x[1]["raw_loss"] for x in rows]), np.mean([x[1]["residual_loss"] for x in rows]))
            (ga, ha, ra, sa), (gh, hh, rh, sh) = out["llarq"], out["llharq"]
            print(f"| {unit} | {p:g} | {ga:.2f} ± {ha:.2f} | {gh:.2f} ± {hh:.2f} | {gh / ga:.2f} | {ra:.3f} / {rh:.3f} | {sa:.4f} / {sh:.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
