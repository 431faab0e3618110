"""Network engine speed against htsim, side by side (issue 9's speed target: on each of a
single flow, a 10-flow dumbbell and a 4-hop chain, burstlab simulates ≥ 3× htsim's data
packets per CPU-second on the same scenario).

    python benchmarks/network_speed.py                 # 5 rounds of the three scenarios
    python benchmarks/network_speed.py --callgrind     # also instructions per data packet
    python benchmarks/network_speed.py --flows 10,100,1000   # linearity and memory check

It builds what it needs (``cargo build --release -p burstlab-bench --bin network_speed``;
``benchmarks/htsim/build.sh``, which builds htsim from the tarball in
``$BURSTLAB_SHARED/anchors/htsim/`` once, into ``$BURSTLAB_HTSIM_DIR`` or
``/tmp/burstlab-htsim``), copies both into a fresh temporary directory (``fresh_copies``:
the same executable runs up to 12 % slower from some page-cache states), then runs, round
after round, each scenario in htsim and in burstlab one after the other, so that both see
the same load on a shared machine. Each side reports its own CPU time (process CPU
clock): htsim's event loop, burstlab's ``run_network`` (setup and results included).
Packets are data packets sent, all flows, retransmissions included. Ratios are per round
(burstlab's rate / htsim's in the same round): the median and the range over the rounds are
printed. The scenarios and what differs between the two simulators:
``benchmarks/README.md``.

``--callgrind`` counts instructions of whole processes (start-up included) under
valgrind's callgrind, one run each: repeatable where CPU times are noisy.
``--flows N,...`` runs the dumbbell with N flows at constant load per flow (a bottleneck of
N Mb/s, buffer one BDP) for max(10, 1000/N) simulated seconds, in both simulators, and
prints packets per CPU-second, nanoseconds of CPU per packet, peak resident memory (each
program's VmHWM) and that memory per flow; with ``--callgrind`` also instructions per data
packet, counted on shorter runs of the same networks (max(1, 1000/N) simulated seconds:
125,000 to 1.26 million packets, start-up included; 10 simulated seconds of 10,000 flows
would take callgrind most of an hour).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGET = 3.0

# name -> (htsim driver and flags, burstlab flags); T is appended.
SCENARIOS: dict[str, tuple[list[str], list[str]]] = {
    "single": (["htsim_lossy_tcp", "-p", "0.01", "-seed", "1"], ["single", "-p", "0.01", "-seed", "1"]),
    "dumbbell": (["htsim_dumbbell_tcp", "-n", "10", "-bw", "10", "-seed", "1"], ["dumbbell", "-n", "10", "-bw", "10", "-seed", "1"]),
    "chain": (["htsim_chain_tcp", "-p", "0.0025", "-seed", "1"], ["chain", "-p", "0.0025", "-seed", "1"]),
}


def build(prebuilt: Path | None = None) -> tuple[Path, Path]:
    if prebuilt is None:
        subprocess.run(
            ["cargo", "build", "--release", "-q", "-p", "burstlab-bench", "--bin", "network_speed"], cwd=ROOT, check=True
        )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    env = dict(os.environ)
    env.setdefault("BURSTLAB_SHARED", str(ROOT.parent / "shared"))
    out = subprocess.run(
        ["bash", str(ROOT / "benchmarks" / "htsim" / "build.sh")], env=env, check=True, capture_output=True, text=True
    )
    return prebuilt or target / "release" / "network_speed", Path(out.stdout.strip().splitlines()[-1])


def fresh_copies(bl: Path, hdir: Path, into: Path) -> tuple[Path, Path]:
    """Copy burstlab's binary and htsim's drivers into ``into`` and return their new paths:
    both simulators then run from executables just written whole, in the same page-cache
    state. The state an executable's pages are in matters: the same bytes of burstlab's
    binary ran at 84-86 ns per dumbbell packet from the file cargo had linked, after other
    builds had churned the page cache, and at 75-77 ns from a copy made at the same moment
    (until the cache was dropped, when both ran at 75); left to chance, either simulator could
    be measured in the slow state."""
    (into / "htsim").mkdir()
    b = into / bl.name
    shutil.copy2(bl, b)
    for hcmd, _ in SCENARIOS.values():
        shutil.copy2(hdir / hcmd[0], into / "htsim" / hcmd[0])
    return b, into / "htsim"


def run(cmd: list[str]) -> dict[str, Any]:
    """Run one simulator process: its last JSON line (the dumbbell and chain drivers and
    burstlab's binary report their peak resident set, ``maxrss_kb``, from /proc/self's
    VmHWM: getrusage of the child would also count the Python image the fork copied)."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-500:]}")
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if not lines:
        sys.exit(f"error: {' '.join(cmd)} printed no JSON line")
    r: dict[str, Any] = json.loads(lines[-1])
    return r


def callgrind(cmd: list[str]) -> int:
    if shutil.which("valgrind") is None:
        sys.exit("error: --callgrind needs valgrind on PATH")
    p = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd], capture_output=True, text=True
    )
    m = re.search(r"Collected\s*:\s*(\d+)", p.stderr)
    if p.returncode != 0 or m is None:
        sys.exit(f"error: callgrind of {' '.join(cmd)} failed: {p.stderr.strip()[-500:]}")
    return int(m.group(1))


def spread(xs: list[float]) -> str:
    return f"{statistics.median(xs):.3g} [{min(xs):.3g}-{max(xs):.3g}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5, help="rounds of side-by-side runs (default 5)")
    ap.add_argument("-T", "--seconds", type=float, default=100.0, help="simulated seconds per run (default 100)")
    ap.add_argument("--scenarios", default="single,dumbbell,chain", help="comma-separated subset")
    ap.add_argument("--callgrind", action="store_true", help="also count instructions per data packet")
    ap.add_argument("--flows", default="", help="dumbbell linearity check: flow counts, e.g. 10,100,1000")
    ap.add_argument("--json", type=Path, help="write every measurement to this file")
    ap.add_argument(
        "--burstlab", type=Path, help="burstlab's network_speed executable to run instead of building one (before/after)"
    )
    a = ap.parse_args()
    names = [s for s in a.scenarios.split(",") if s]
    for s in names:
        if s not in SCENARIOS:
            sys.exit(f"error: unknown scenario {s!r} (one of {', '.join(SCENARIOS)})")
    if a.burstlab is not None and not a.burstlab.is_file():
        print(f"error: --burstlab {a.burstlab}: no such file", file=sys.stderr)
        sys.exit(2)
    bl, hdir = build(a.burstlab)
    tmp = tempfile.TemporaryDirectory(prefix="burstlab-speed-")
    bl, hdir = fresh_copies(bl, hdir, Path(tmp.name))
    T = ["-T", f"{a.seconds:g}"]
    record: dict[str, Any] = {"rounds": a.rounds, "T": a.seconds, "scenarios": {}}

    if names and a.rounds > 0:
        rows: dict[str, dict[str, list[Any]]] = {s: {"h": [], "b": []} for s in names}
        for _ in range(a.rounds):
            for s in names:
                hcmd, bcmd = SCENARIOS[s]
                rows[s]["h"].append(run([str(hdir / hcmd[0]), *hcmd[1:], *T]))
                rows[s]["b"].append(run([str(bl), *bcmd, *T]))
        print(f"packets per CPU-second, median [range] over {a.rounds} side-by-side rounds, {a.seconds:g} simulated s;")
        print("ratio: burstlab's rate / htsim's in the same round, median [range]; best: fastest run / fastest run")
        print(f"{'scenario':<10} {'htsim pkts':>10} {'htsim pkt/s':>24} {'burstlab pkts':>13} {'burstlab pkt/s':>24} {'ratio':>20} {'best':>5}")
        for s in names:
            h, b = rows[s]["h"], rows[s]["b"]
            hp = [x["loop_cpu_pps"] for x in h]
            bp = [x["loop_cpu_pps"] for x in b]
            ratio = [y / x for x, y in zip(hp, bp)]
            ok = "met" if statistics.median(ratio) >= TARGET else "NOT met"
            print(
                f"{s:<10} {h[0]['packets_sent']:>10} {spread(hp):>24} {b[0]['packets_sent']:>13} {spread(bp):>24} "
                f"{spread(ratio):>20} {max(bp) / max(hp):>5.2f}  (target ≥ {TARGET:g}×: {ok})"
            )
            record["scenarios"][s] = {"htsim": h, "burstlab": b, "ratio": ratio}

    if a.callgrind:
        print("\ninstructions per data packet (callgrind, whole process, one run each)")
        print(f"{'scenario':<10} {'htsim':>8} {'burstlab':>9} {'ratio':>6}")
        for s in names:
            hcmd, bcmd = SCENARIOS[s]
            hh = [str(hdir / hcmd[0]), *hcmd[1:], *T]
            bb = [str(bl), *bcmd, *T]
            hi, bi = callgrind(hh), callgrind(bb)
            hn, bn = run(hh)["packets_sent"], run(bb)["packets_sent"]
            print(f"{s:<10} {hi / hn:>8.0f} {bi / bn:>9.0f} {(hi / hn) / (bi / bn):>6.2f}")
            record["scenarios"].setdefault(s, {})["callgrind"] = {
                "htsim_instructions": hi,
                "htsim_packets": hn,
                "burstlab_instructions": bi,
                "burstlab_packets": bn,
            }

    if a.flows:
        print("\ndumbbell at constant load per flow (N Mb/s bottleneck): CPU per packet, peak RSS (kB per flow)")
        if a.callgrind:
            print("and instructions per data packet (callgrind, max(1, 1000/N) simulated s)")
        cols = f"{'pkt/s':>9} {'ns/pkt':>7} {'MB':>6} {'kB/flow':>7}" + (f" {'instr':>6}" if a.callgrind else "")
        print(f"{'flows':>6} {'T':>5} {'packets':>9} | htsim {cols} | burstlab {cols} | {'ratio':>5}")
        record["flows"] = []
        for n in [int(x) for x in a.flows.split(",")]:
            secs = f"{max(10.0, 1000.0 / n):g}"
            hcmd = [str(hdir / "htsim_dumbbell_tcp"), "-n", str(n), "-bw", str(n)]
            bcmd = [str(bl), "dumbbell", "-n", str(n), "-bw", str(n)]
            row: dict[str, Any] = {"n": n, "T": secs, "htsim": run([*hcmd, "-T", secs]), "burstlab": run([*bcmd, "-T", secs])}
            if a.callgrind:
                cg = f"{max(1.0, 1000.0 / n):g}"
                for side, cmd in (("htsim", hcmd), ("burstlab", bcmd)):
                    row[side]["callgrind"] = {"T": cg, "instructions": callgrind([*cmd, "-T", cg]), "packets": run([*cmd, "-T", cg])["packets_sent"]}

            def cells(r: dict[str, Any]) -> str:
                out = f"{r['loop_cpu_pps']:>9.3g} {1e9 / r['loop_cpu_pps']:>7.0f} {r['maxrss_kb'] / 1024:>6.1f} {r['maxrss_kb'] / n:>7.1f}"
                if "callgrind" in r:
                    out += f" {r['callgrind']['instructions'] / r['callgrind']['packets']:>6.0f}"
                return out

            h, b = row["htsim"], row["burstlab"]
            print(f"{n:>6} {secs:>5} {b['packets_sent']:>9} | htsim {cells(h)} | burstlab {cells(b)} | {b['loop_cpu_pps'] / h['loop_cpu_pps']:>5.2f}")
            record["flows"].append(row)

    if a.json:
        a.json.write_text(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
