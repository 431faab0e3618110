"""Peak memory of reading, converting and writing traces, per format (issue 13: "≈ 1 bit per
trace entry end to end": peak ≤ 2× the packed trace plus a constant).

For each format, a trace of N entries (a Gilbert-Elliott trace, PRR ≈ 0.57, 10 ms slots) is
written once, then each operation runs in a fresh Python process whose peak resident set
size (``VmHWM`` of ``/proc/self/status``, Linux) is compared with the same process doing
nothing but importing burstlab and its readers. The excess over that baseline is reported
in units of the packed trace (N / 8 bytes) at N and at N / 10: the slope between the two,
(excess(N) − excess(N/10)) / (packed(N) − packed(N/10)), is the memory per packed byte with
the constant (buffers, batches) taken out; the target is a slope ≤ 2.

Run: ``python benchmarks/trace_memory.py [--n 100000000] [--formats bits,seqlist,...]``
(10^8 entries need ≈ 3.5 GB of disk for the files, in a temporary folder; $TMPDIR).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

FORMATS = ("bits", "string", "seqlist", "ttem", "csv", "parquet")
EXT = {"bits": ".bits", "string": ".txt", "seqlist": ".seq", "ttem": ".ttem", "csv": ".csv", "parquet": ".parquet"}

CHILD = r"""
import sys, json, time
op, fmt, src, dst = sys.argv[1:5]
import numpy, pyarrow, pyarrow.csv, pyarrow.parquet  # the baseline imports these too
from burstlab.io import read_trace, write_trace
from burstlab.stats import trace_stats
t0 = time.perf_counter()
if op == "read":
    t = read_trace(src, fmt)
    n = len(t)
elif op == "stats":
    t = read_trace(src, fmt)
    n = len(t)
    trace_stats(t, warn=False)
elif op == "convert":
    t = read_trace(src, fmt)
    n = len(t)
    write_trace(t, dst, "seqlist" if fmt != "seqlist" else "bits")
elif op == "write":
    t = read_trace(src, "bits")
    n = len(t)
    write_trace(t, dst, fmt)
else:
    n = 0
dt = time.perf_counter() - t0
# VmHWM: this process's own peak (ru_maxrss would include the parent's at fork/exec)
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"maxrss_kib": hwm, "n": n, "seconds": dt}))
"""


def child(op: str, fmt: str, src: str, dst: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, op, fmt, src, dst], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{op} {fmt} failed: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}")
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000_000, help="trace entries")
    ap.add_argument("--formats", default=",".join(FORMATS), help="comma-separated formats")
    ap.add_argument("--ops", default="read,convert,write", help="comma-separated: read, stats, convert, write")
    args = ap.parse_args()
    from burstlab import Trace
    from burstlab._core import LossModel
    from burstlab.io import write_trace

    sizes = (args.n // 10, args.n)
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as d:
        base = child("none", "bits", "", "")["maxrss_kib"] * 1024 / 1e6
        print(f"N = {args.n:.3g} entries (packed {args.n / 8e6:.1f} MB) and N/10; baseline process (imports) {base:.0f} MB")
        print(f"{'op':8} {'format':8} {'file MB':>9} {'peak MB':>9} {'excess MB':>10} {'x packed':>9} {'at N/10':>8} {'slope':>7} {'seconds':>8}  target: slope <= 2")
        traces = {n: Trace(LossModel.gilbert_elliott(0.3, 0.4).sample(n, 1), interval=0.01) for n in sizes}
        for fmt in args.formats.split(","):
            excess: dict[tuple[str, int], float] = {}
            rows = []
            for n in sizes:
                src = Path(d) / f"t{n}{EXT[fmt]}"
                write_trace(traces[n], src, fmt)
                bits = Path(d) / f"t{n}.bits"
                if not bits.exists():
                    write_trace(traces[n], bits, "bits")
                for op in args.ops.split(","):
                    dst = str(Path(d) / f"out-{op}-{fmt}{EXT[fmt] if op == 'write' else '.out'}")
                    r = child(op, fmt, str(bits if op == "write" else src), dst)
                    peak = r["maxrss_kib"] * 1024 / 1e6
                    excess[(op, n)] = peak - base
                    if n == args.n:
                        rows.append((op, src.stat().st_size / 1e6, peak, r["seconds"]))
                    if os.path.exists(dst):
                        os.unlink(dst)
                src.unlink()
            big, small = sizes[1], sizes[0]
            for op, size, peak, secs in rows:
                ex = excess[(op, big)]
                slope = (ex - excess[(op, small)]) / ((big - small) / 8e6)
                print(f"{op:8} {fmt:8} {size:9.1f} {peak:9.0f} {ex:10.1f} {ex / (big / 8e6):9.2f} {excess[(op, small)] / (small / 8e6):8.2f} {slope:7.2f} {secs:8.2f}  "
                      f"{'MET' if slope <= 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
