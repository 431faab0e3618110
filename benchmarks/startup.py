"""Start-up cost of the command line (issue 13: ``burstlab sim`` starts in ≤ 0.15 s of CPU).

Runs each command ``--runs`` times in a fresh process and prints the median CPU time
(user + system, from ``getrusage`` of the children) beside two references measured in the
same run: the bare interpreter (``python -c pass``) and ``python -c "import numpy"`` (the
cost ``burstlab sim`` no longer pays). CPU time, not wall time, and the ratio to the numpy
import, so that a loaded machine (other builds) says less about the result; still, measure
on a quiet machine for the absolute figure.

Bytecode is cached as in normal use (a first run of each command writes it, into a
temporary ``PYTHONPYCACHEPREFIX``, so the source tree is left alone and an environment with
``PYTHONDONTWRITEBYTECODE`` does not measure the compiler instead).

``--importtime`` prints the modules ``burstlab sim`` imports, by cumulative import time
(``python -X importtime``), and the heavy libraries it must not import.

Run: ``python benchmarks/startup.py [--runs 15] [--importtime]``
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

#: The aim: CPU seconds for ``burstlab sim`` to simulate 10 ms of a transfer and exit.
TARGET_S = 0.15
#: Libraries a plain ``burstlab sim`` must not import (tests/test_startup.py checks it too).
HEAVY = ("numpy", "scipy", "matplotlib", "duckdb", "pyarrow", "sklearn", "dask", "hmmlearn", "rich", "pandas")

BURSTLAB = [sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main())"]
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
    "burstlab --help": [*BURSTLAB, "--help"],
    "burstlab sim --duration 10ms": [*BURSTLAB, "sim", "--duration", "10ms"],
    "burstlab sim --show-config": [*BURSTLAB, "sim", "--show-config"],
    "burstlab predict --prr 0.9 --rtt 100ms": [*BURSTLAB, "predict", "--prr", "0.9", "--rtt", "100ms"],
}


def cpu_seconds(cmd: list[str], env: dict[str, str]) -> float:
    """CPU time (user + system) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_profile(env: dict[str, str], top: int = 15) -> None:
    """The modules of ``burstlab sim``, by cumulative import time, and the heavy ones present."""
    code = (
        "import sys; from burstlab.cli import main; main(['sim', '--duration', '10ms']); "
        f"print('heavy:', sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    )
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", code], env=env, capture_output=True, text=True, check=True)
    rows = []
    for line in r.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if m:
            rows.append((int(m.group(2)), int(m.group(1)), m.group(4)))
        elif line.startswith("heavy:"):
            print(line)
    print(f"\nmodules imported by 'burstlab sim' (cumulative / own µs, wall clock), top {top}:")
    for cum, own, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cum:>8} {own:>8}  {name}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15, help="runs of each command (the median is printed)")
    ap.add_argument("--importtime", action="store_true", help="also print burstlab sim's imports (python -X importtime)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="burstlab-pycache-") as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1] / "python"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        for cmd in COMMANDS.values():  # write the bytecode once
            cpu_seconds(cmd, env)
        medians = {}
        print(f"{'command':42} {'CPU s (median of ' + str(args.runs) + ')':>24} {'min':>7} {'max':>7}")
        for name, cmd in COMMANDS.items():
            xs = [cpu_seconds(cmd, env) for _ in range(args.runs)]
            medians[name] = statistics.median(xs)
            print(f"{name:42} {medians[name]:24.3f} {min(xs):7.3f} {max(xs):7.3f}")
        sim, numpy = medians["burstlab sim --duration 10ms"], medians["python -c 'import numpy'"]
        print(f"\nburstlab sim: {sim:.3f} s CPU (aim ≤ {TARGET_S} s: {'met' if sim <= TARGET_S else 'NOT met'}); "
              f"{sim / numpy:.2f}× the numpy import alone ({numpy:.3f} s) measured beside it")  # fmt: skip
        load = os.getloadavg()[0]
        if load > (os.cpu_count() or 1):
            print(f"note: load average {load:.1f} on {os.cpu_count()} CPUs: CPU times are inflated; trust the ratio more")
        if args.importtime:
            import_profile(env)


if __name__ == "__main__":
    main()
