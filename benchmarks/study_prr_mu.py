"""Benchmark: the default PRR/μ study (built-in synthetic testbed, 60 links × 100,000 slots,
5 seeds per synthetic condition) from scratch on N local workers, then again with every
simulation, fit and figure already done (the re-run).

Targets (issue 12): the whole study in ≤ 4 s wall on 2 cores, the re-run in ≤ 2 s.

    python benchmarks/study_prr_mu.py [--workers 2] [--links 60] [--slots 100000] [--seeds 5] [--pdf] [--repeat 1]
    python benchmarks/study_prr_mu.py --workers 1      # everything in this process: its CPU time is all the work
    perf stat -e task-clock python benchmarks/study_prr_mu.py   # the CPU time of every process (forkserver, workers)

Prints, for each run, the wall time of every phase, the CPU time of this process and the load
average. Each of the ``--repeat`` runs is a fresh process (the study's forkserver, which
imports numpy, matplotlib and scipy while the first simulations run, is part of what is
measured). On a machine shared with other work the wall times are noisy; with `--workers 1`
the CPU time covers the whole study (simulations, fits and figures run in this process) and is
much less sensitive to the load. `docs/study.md` ("Speed") has the measurements and how a
loaded machine was made to approximate an idle one.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

from burstlab.experiments.prr_mu import StudyConfig, run_study

TARGET_S = 4.0
TARGET_RERUN_S = 2.0


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def _run(cfg: StudyConfig, out: str, workers: int, formats: tuple[str, ...]) -> tuple[float, float, dict[str, float], int]:
    c0 = _cpu()
    t0 = time.perf_counter()
    res = run_study(cfg, out, workers=workers, progress=False, formats=formats)
    return time.perf_counter() - t0, _cpu() - c0, res.timings, len(res.runs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--links", type=int, default=60)
    ap.add_argument("--slots", type=int, default=100_000)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--pdf", action="store_true", help="also write PDF figures")
    ap.add_argument("--repeat", type=int, default=1, help="fresh runs (each followed by a re-run)")
    a = ap.parse_args()
    if a.repeat > 1:  # each run in a fresh process: a forkserver left running would flatter the next one
        one = ["--workers", str(a.workers), "--links", str(a.links), "--slots", str(a.slots), "--seeds", str(a.seeds), *(["--pdf"] if a.pdf else [])]
        for _ in range(a.repeat):
            subprocess.run([sys.executable, __file__, *one], check=True)
        return
    cfg = StudyConfig(dataset="synthetic", n_links=a.links, n_slots=a.slots, replicates=a.seeds)
    formats = ("png", "pdf") if a.pdf else ("png",)
    with tempfile.TemporaryDirectory() as d:
        for label, target in (("first run", TARGET_S), ("re-run", TARGET_RERUN_S)):
            load = os.getloadavg()[0]
            dt, cpu, phases, n = _run(cfg, d, a.workers, formats)
            ph = ", ".join(f"{k} {v:.2f}" for k, v in phases.items())
            print(f"study prr-mu {label} (synthetic, {a.links} links x {a.slots} slots, {a.seeds} seeds, {n} simulations, "
                  f"{'+'.join(formats)}): {dt:.2f} s wall on {a.workers} workers [{ph}]; CPU {cpu:.2f} s in this process{' (all of it)' if a.workers == 1 else ''}; "
                  f"load average {load:.1f}; target ≤ {target:.0f} s on 2 cores: {'met' if dt <= target else 'MISSED'}", flush=True)


if __name__ == "__main__":
    main()
