#!/usr/bin/env python3
"""Bit-identity check of simulation results across a refactoring of the core (issue 28).

Fingerprints every run of a fixed set and compares them with ``benchmarks/bitident_baseline.txt``
(recorded from the tree before the change). A refactoring that is meant to leave results alone
must print ``identical``; a change that moves a result says which runs moved and why, in its commit.

The runs (one line each: name, 64-bit hash of every reading, data packets sent, events):
- from the Rust side (``benchmarks/rust/src/bin/bitident.rs``, built with cargo): the 16 variant
  scenarios × seeds 1-3 at 100 s, the single flow, 10-flow dumbbell and 4-hop chain of the htsim
  comparison at 100 s, 60 random networks from a seeded generator, and the text trace readers
  on 200 generated texts (40 per format, errors included);
- from the Python side: the burstlab half of the ns-3 comparison (``benchmarks/ns3/compare.py``:
  the matched-settings NewReno and ``--profile ns3`` with each congestion control, loss 0-10 %,
  seeds 1-3) and of the Linux comparison (``benchmarks/linux/compare.py``: ``--profile linux``,
  reno and cubic, loss 1-10 %, seeds 1-3, 60 s), run through ``burstlab.sim.run`` so the
  Python conversion of settings is covered as well.

    python benchmarks/bitident.py            # compare with the baseline (exit 1 if a run moved)
    python benchmarks/bitident.py --write    # record the baseline (from an unchanged tree)

The Python half runs the installed extension: rebuild it first (``maturin develop --release``
or ``pip install -e .``) after changing Rust code.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BASELINE = HERE / "bitident_baseline.txt"

LOSSES = [0.0, 0.01, 0.05, 0.1]
SEEDS = [1, 2, 3]
NS3_CCS = ["newreno", "westwood", "vegas", "cubic", "linux-reno"]
LINUX = {"ccs": ["reno", "cubic"], "losses": [0.01, 0.05, 0.1],
         "prm": {"rate": 10e6, "delay": 0.010, "buffer": 100, "mss": 1000, "duration": 60.0}}
# Every reading of a Python SimResult that the comparisons use, and the rest of its counters.
FIELDS = ("goodput_bps", "goodput_pps", "throughput_bps", "packets_sent", "packets_lost", "channel_losses",
          "queue_drops", "retransmissions", "spurious_retransmissions", "fast_retransmits", "timeouts",
          "acks_sent", "acks_lost", "arrived_bytes", "delivered_bytes", "delivered_segments", "ecn_reductions",
          "lost_retransmissions", "loss_probes", "completion_time", "end_time", "events")


def _module(path: Path, name: str) -> Any:
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _word(v: Any) -> str:
    if isinstance(v, float):
        return "nan" if math.isnan(v) else v.hex()  # the float's bits
    return repr(v)


def fingerprint(name: str, res: Any) -> str:
    words = [f"{k}={_word(getattr(res, k))}" for k in FIELDS if hasattr(res, k)]
    h = hashlib.sha256(" ".join(words).encode()).hexdigest()[:16]
    return f"{name} {h} {getattr(res, 'packets_sent', '-')} {getattr(res, 'events', '-')}"


def rust_lines(only: str) -> list[str]:
    build = ["cargo", "build", "--release", "--quiet", "-p", "burstlab-bench", "--bin", "bitident"]
    subprocess.run(build, cwd=ROOT, check=True)
    meta = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    import json

    exe = Path(json.loads(meta)["target_directory"]) / "release" / "bitident"
    out = subprocess.run([str(exe), "--only", only], check=True, capture_output=True, text=True).stdout
    return out.splitlines()


def python_lines(only: str) -> list[str]:
    from burstlab.sim import run

    ns3 = _module(HERE / "ns3" / "compare.py", "bitident_ns3_compare")
    linux = _module(HERE / "linux" / "compare.py", "bitident_linux_compare")
    lines = []
    for p in LOSSES:
        for seed in SEEDS:
            name = f"ns3/issue4/newreno/{p}/{seed}"
            if name.startswith(only):
                lines.append(fingerprint(name, run(ns3.burstlab_scenario(p, seed, {}))))
            for cc in NS3_CCS:
                name = f"ns3/ns3/{cc}/{p}/{seed}"
                if name.startswith(only):
                    lines.append(fingerprint(name, run(ns3.burstlab_scenario(p, seed, {"cc": cc}, profile="ns3"))))
    for cc in LINUX["ccs"]:
        for p in LINUX["losses"]:
            for seed in SEEDS:
                name = f"linux/{cc}/{p}/{seed}"
                if name.startswith(only):
                    d = linux.burstlab_run(cc, p, seed, LINUX["prm"])
                    words = " ".join(f"{k}={_word(d[k])}" for k in sorted(d))
                    lines.append(f"{name} {hashlib.sha256(words.encode()).hexdigest()[:16]} {d['packets_sent']} -")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help=f"record the baseline ({BASELINE.name})")
    ap.add_argument("--only", default="", help="runs whose name starts with this (e.g. random/, ns3/)")
    ap.add_argument("--no-python", action="store_true", help="the Rust half only (no rebuilt extension needed)")
    args = ap.parse_args(argv)
    got = rust_lines(args.only) + ([] if args.no_python else python_lines(args.only))
    if args.write:
        BASELINE.write_text("\n".join(got) + "\n")
        print(f"wrote {len(got)} fingerprints to {BASELINE}")
        return 0
    if not BASELINE.exists():
        print(f"error: {BASELINE}: no baseline (record one with --write on the unchanged tree)", file=sys.stderr)
        return 2
    want = {ln.split()[0]: ln for ln in BASELINE.read_text().splitlines() if ln.strip()}
    moved = [(want.get(ln.split()[0]), ln) for ln in got if want.get(ln.split()[0]) != ln]
    for w, g in moved:
        print(f"moved: want {w}\n        got {g}")
    print(f"{len(got) - len(moved)} of {len(got)} runs identical" + ("" if moved else ": identical"))
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())
