"""Trace loading and Python-level statistics throughput (issue 2).

Reads a 10^7-line ``bits`` file and a 10^7-entry ``seqlist`` (parsed in Rust), and runs
``trace_stats`` on a 10^8-entry trace end to end. Targets: 10^7-line text files load in
well under a second (≥ 2e7 lines/s); the end-to-end statistics stay within a few times the
Rust kernels of ``cargo bench -p burstlab-bench --bench trace_stats``.

Run: ``python benchmarks/trace_io.py``
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path


from burstlab import Trace
from burstlab._core import LossModel
from burstlab.io import read_trace, write_trace
from burstlab.stats import trace_stats


def best(f, reps: int = 3) -> float:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return min(out)


def main() -> None:
    n = 10_000_000
    t = Trace(LossModel.gilbert_elliott(0.3, 0.4).sample(n, 1))
    with tempfile.TemporaryDirectory() as d:
        for fmt in ("bits", "seqlist"):
            p = Path(d) / f"t.{fmt}"
            write_trace(t, p, fmt)
            lines = sum(1 for _ in open(p, "rb"))
            s = best(lambda: read_trace(p, fmt))
            rate = lines / s
            print(f"read {fmt:8s}: {lines} lines in {s:.3f} s = {rate:.3e} lines/s  (target >= 2e7)  {'MET' if rate >= 2e7 else 'MISSED'}")
    big = Trace(LossModel.gilbert_elliott(0.3, 0.4).sample(100_000_000, 2))
    s = best(lambda: trace_stats(big))
    print(f"trace_stats on 1e8 entries (all statistics, from Python): {s:.3f} s = {1e8 / s:.3e} entries/s")


if __name__ == "__main__":
    main()
