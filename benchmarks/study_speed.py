"""Benchmark: every study's ``--quick`` run, from scratch, as a fresh process — its wall and
CPU time, and the share of its CPU spent in the simulator (issue 27, "Speed").

Targets: every ``--quick`` study ≤ 10 s and ≥ 50 % of its CPU in the simulator; 2 workers
faster than 1; ``prr-mu`` (its default study) first run ≤ 4 s and a re-run ≤ 1 s as a
fresh process, on 2 cores.

    python benchmarks/study_speed.py                       # every study, 1 and 2 workers
    python benchmarks/study_speed.py --studies tibet hybrid --workers 1
    python benchmarks/study_speed.py --rerun               # prr-mu: first run and re-run

How it measures. Each run is ``burstlab study NAME --quick --no-progress`` in a fresh
process. CPU time is the child's user + system time (``resource.RUSAGE_CHILDREN``, the
figure ``/usr/bin/time`` prints), which is much less sensitive than the wall time to other
work on a shared machine; the load average is printed beside it. It is given for one
worker only, where the whole study runs in that process: a pool's workers are children of
its forkserver, whose CPU the parent never collects. The simulator's share comes from a second fresh run with one worker
(everything in one process) whose simulator entry points (``burstlab._core.simulate``,
``simulate_network``, ``simulate_trace``) are timed: CPU inside them over the process's CPU.
``--profile`` adds a cProfile run naming the costliest functions outside the simulator.
"""

from __future__ import annotations

import argparse
import os
import pstats
import resource
import subprocess
import sys
import tempfile
import time

STUDIES = ("error-models", "tibet", "hybrid", "link-transport", "prr-mu")
TARGET_S, TARGET_SIM, TARGET_PRR_MU_S, TARGET_RERUN_S = 10.0, 0.5, 4.0, 1.0


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU of the process and its children) of one fresh ``burstlab`` process."""
    c0, t0 = _children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main())", *argv], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    return time.perf_counter() - t0, _children_cpu() - c0


#: A one-worker run with the simulator's entry points timed (CPU time inside each call; the
#: engine runs in the calling thread): everything else the study does is outside.
_TIMED = """
import sys, time
import burstlab._core as core
spent = [0.0]
def timed(f):
    def call(*a, **k):
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            spent[0] += time.process_time() - t
    return call
for name in ("simulate", "simulate_network", "simulate_trace"):
    setattr(core, name, timed(getattr(core, name)))
from burstlab.cli import main
t0 = time.process_time()
rc = main(%r)
print("SIMULATOR", spent[0], time.process_time() - t0, file=sys.stderr)
sys.exit(rc)
"""


def simulator_share(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU in the simulator, CPU of the whole process) of a one-worker run, with the
    simulator's entry points timed (no profiler: its overhead would inflate the Python side)."""
    r = subprocess.run([sys.executable, "-c", _TIMED % (argv,)], check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = [ln for ln in r.stderr.splitlines() if ln.startswith("SIMULATOR ")][-1]
    sim, total = (float(x) for x in line.split()[1:])
    return sim, total


def profile_top(argv: list[str], env: dict[str, str], prof: str, n: int = 5) -> list[tuple[str, float]]:
    """The ``n`` functions with the most cumulative time outside the simulator and the
    framework's own call chain, under cProfile (its overhead inflates Python's share: read
    the ranking, not the seconds)."""
    code = f"import cProfile; from burstlab.cli import main; argv = {argv!r}; cProfile.runctx('main(argv)', globals(), locals(), {prof!r})"
    subprocess.run([sys.executable, "-c", code], check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    st = pstats.Stats(prof)
    rows = [(f"{os.path.basename(fn)}:{line}({name})", tt) for (fn, line, name), (_cc, _nc, tt, _ct, _callers) in st.stats.items()  # type: ignore[attr-defined]
            if "burstlab._core" not in name]  # fmt: skip
    return sorted(rows, key=lambda x: -x[1])[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--studies", nargs="*", default=list(STUDIES))
    ap.add_argument("--workers", nargs="*", type=int, default=[1, 2])
    ap.add_argument("--profile", action="store_true", help="also a cProfile run of each study: the costliest functions outside the simulator")
    ap.add_argument("--rerun", action="store_true", help="prr-mu's default study: first run and re-run, as fresh processes")
    a = ap.parse_args()
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    print(f"load average at start: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")
    with tempfile.TemporaryDirectory() as tmp:
        if a.rerun:
            out = os.path.join(tmp, "prr-mu")
            argv = ["study", "prr-mu", "--no-progress", "--workers", "2", "--out", out]
            w1, c1 = run(argv, env)
            w2, c2 = run(argv, env)
            print(f"prr-mu (default study, 2 workers): first run {w1:.2f} s wall / {c1:.2f} s CPU (target ≤ {TARGET_PRR_MU_S:g} s); "
                  f"re-run {w2:.2f} s wall / {c2:.2f} s CPU (target ≤ {TARGET_RERUN_S:g} s)")  # fmt: skip
            return
        print(f"{'study':15} {'workers':>7} {'wall s':>7} {'CPU s':>7} {'load':>5} {'sim s':>6} {'sim %':>6}")
        for name in a.studies:
            for w in a.workers:
                out = os.path.join(tmp, f"{name}-{w}")
                argv = ["study", name, "--quick", "--no-progress", "--workers", str(w), "--out", out]
                wall, cpu = run(argv, env)
                sim = share = float("nan")
                if w == 1:  # a second fresh run, its simulator calls timed
                    sim, total = simulator_share([*argv[:-1], out + "-timed"], env)
                    share = sim / total
                cpu_s = f"{cpu:>7.2f}" if w == 1 else f"{'n/a':>7}"  # a pool's workers are the forkserver's children: not counted here
                print(f"{name:15} {w:>7} {wall:>7.2f} {cpu_s} {os.getloadavg()[0]:>5.2f} {sim:>6.2f} {100 * share:>6.1f}", flush=True)
                if w == 1 and a.profile:
                    top = profile_top([*argv[:-1], out + "-prof"], env, os.path.join(tmp, f"{name}.prof"))
                    print("    costliest outside the simulator (own time under cProfile): " + "; ".join(f"{n} {t:.1f} s" for n, t in top), flush=True)


if __name__ == "__main__":
    main()
