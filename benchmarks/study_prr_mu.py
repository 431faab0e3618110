"""Benchmark: the default PRR/μ study (built-in synthetic testbed, 60 links × 100,000 slots,
5 seeds per synthetic condition) from scratch on N local workers.

Target (issue 6): the study itself in under 2 minutes on 2 cores.

    python benchmarks/study_prr_mu.py [--workers 2] [--links 60] [--slots 100000] [--seeds 5]
"""

from __future__ import annotations

import argparse
import tempfile
import time

from burstlab.experiments.prr_mu import StudyConfig, run_study

TARGET_S = 120.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--links", type=int, default=60)
    ap.add_argument("--slots", type=int, default=100_000)
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    cfg = StudyConfig(dataset="synthetic", n_links=a.links, n_slots=a.slots, replicates=a.seeds)
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        res = run_study(cfg, d, workers=a.workers, progress=False)
        dt = time.perf_counter() - t0
    n = len(res.runs)
    slots = sum(int(r["length"]) for r in res.runs)
    print(f"study prr-mu (synthetic, {a.links} links x {a.slots} slots, {a.seeds} seeds): {n} simulations, {slots:.3g} slots "
          f"in {dt:.1f} s on {a.workers} workers ({slots / dt:.3g} slots/s); target < {TARGET_S:.0f} s on 2 cores: "
          f"{'met' if dt < TARGET_S else 'MISSED'}")


if __name__ == "__main__":
    main()
