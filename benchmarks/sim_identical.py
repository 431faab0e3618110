"""Are `burstlab sim --json` results bit-identical across a refactoring?

A dozen varied runs (every profile, several congestion controls and recoveries, ARQ and
LL-HARQ, RED with ECN, a lossy reverse path, LT-TCP, a fixed-size transfer). Save the outputs
before a change, check them after:

    python benchmarks/sim_identical.py --save /tmp/sim-before.json
    # ... change the code, rebuild (pip install -e .) ...
    python benchmarks/sim_identical.py --check /tmp/sim-before.json

`--check` compares every number of every run exactly (floats as printed, i.e. to the last bit
of their shortest repr) and the resolved configuration as a dict (key order aside), prints the
first differences and exits 1 if any run differs. The runs take about 10 s in all.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Any

#: name -> arguments of `burstlab sim` (each also gets --json).
RUNS: dict[str, list[str]] = {
    "rfc-newreno-bernoulli": ["--duration", "20s", "--loss", "bernoulli:p=0.01"],
    "rfc-sack-ge": ["--tcp", "sack", "--duration", "20s", "--loss", "ge:prr=0.97,mu=0.6"],
    "rfc-tahoe": ["--tcp", "tahoe", "--duration", "20s", "--loss", "bernoulli:p=0.02", "--seed", "7"],
    "rfc-westwood": ["--tcp", "westwood", "--duration", "20s", "--loss", "bernoulli:p=0.005"],
    "rfc-tibet": ["--tcp", "tibet", "--duration", "20s", "--loss", "bernoulli:p=0.005"],
    "rfc-vegas": ["--tcp", "vegas", "--duration", "20s", "--loss", "bernoulli:p=0.002", "--delay", "40ms"],
    "rfc-lt-tcp": ["--tcp", "lt-tcp", "--duration", "20s", "--loss", "bernoulli:p=0.05"],
    "ns3-cubic": ["--profile", "ns3", "--duration", "20s", "--loss", "bernoulli:p=0.005"],
    "ns3-newreno": ["--profile", "ns3", "--tcp", "newreno", "--duration", "20s", "--loss", "bernoulli:p=0.01"],
    "linux-cubic": ["--profile", "linux", "--duration", "20s", "--loss", "ge:prr=0.99,mu=0.4"],
    "linux-reno-prr": ["--profile", "linux", "--cc", "reno", "--duration", "20s", "--loss", "bernoulli:p=0.01"],
    "tossim": ["--profile", "tossim", "--rate", "250kbit", "--delay", "5ms", "--duration", "60s", "--loss", "bernoulli:p=0.1"],
    "arq": ["--duration", "20s", "--loss", "bernoulli:p=0.2", "--link-layer", "arq:retry_limit=4"],
    "harq": ["--tcp", "sack", "--duration", "20s", "--loss", "bernoulli:p=0.2", "--link-layer", "harq:attempts=2"],
    "red-ecn": ["--tcp", "newreno", "--ecn", "--queue", "red", "--rate", "5Mbit", "--duration", "20s"],
    "size-cubic": ["--tcp", "cubic", "--size", "2MB", "--loss", "bernoulli:p=0.01", "--seed", "3"],
}


def run(args: list[str]) -> Any:
    out = subprocess.run(["burstlab", "sim", *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1:] or [f"exit {out.returncode}"]}
    return json.loads(out.stdout)


def diff(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}.{k}: only in one" for k in sorted(set(a) ^ set(b))]
        for k in sorted(set(a) & set(b)):
            out += diff(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in diff(x, y, f"{path}[{i}]")]
    return [] if a == b and type(a) is type(b) else [f"{path}: {a!r} != {b!r}"]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", metavar="FILE")
    g.add_argument("--check", metavar="FILE")
    a = p.parse_args()
    results = {name: run(args) for name, args in RUNS.items()}
    if a.save:
        with open(a.save, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        print(f"saved {len(results)} runs to {a.save}")
        return 0
    with open(a.check) as f:
        before = json.load(f)
    bad = 0
    for name, now in results.items():
        d = diff(before.get(name), now)
        if d:
            bad += 1
            print(f"{name}: {len(d)} differences, e.g. " + "; ".join(d[:3]))
    print(f"{len(results) - bad} of {len(results)} runs identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
