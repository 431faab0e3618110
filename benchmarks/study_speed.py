"""Benchmark: every study's ``--quick`` run, from scratch, as a fresh process — its wall and
CPU time, and the share of its CPU spent in the simulator, each against its target
(issue 27, "Speed").

Targets, on 2 cores: every ``--quick`` study ≤ 10 s and ≥ 50 % of its CPU in the
simulator; 2 workers faster than 1; ``prr-mu`` (its default study) first run ≤ 4 s and a
re-run ≤ 1 s as a fresh process.

    python benchmarks/study_speed.py                       # every study, 1 and 2 workers, then prr-mu's re-run
    python benchmarks/study_speed.py --studies tibet hybrid --workers 1
    python benchmarks/study_speed.py --rerun-only          # prr-mu: first run and re-run
    python benchmarks/study_speed.py --repeat 3            # the fastest of 3 fresh runs of each
    python benchmarks/study_speed.py --studies tibet --workers 1 --full tibet=/tmp/tibet-full
    python benchmarks/study_speed.py --agreement QUICK_DIR FULL_DIR  # only compare two finished runs

How it measures. Each run is ``burstlab study NAME --quick --no-progress`` in a fresh
process, in a new output folder. **CPU time** is the user + system time of the whole
process tree — the study, its pool's forkserver and every worker — which is much less
sensitive than the wall time to other work on a shared machine: this script makes itself
the *subreaper* of what it starts (Linux ``PR_SET_CHILD_SUBREAPER``), so the workers, whose
parent (the forkserver) exits without waiting for them, are reaped here and their CPU is
counted (``RUSAGE_CHILDREN``). **In the simulator** is the CPU time inside the simulator's
entry points (``burstlab._core.simulate``, ``simulate_network``, ``simulate_trace``) in
every process of the tree: a ``sitecustomize`` module (on ``PYTHONPATH`` for the run only)
wraps them and appends each call's CPU time to a file. The **wall** time is printed with the
load average before and after the run: on a machine shared with other work, wall times are
inflated by about the load over the cores, so each wall target is also judged on the CPU
time over the cores the run can use (the wall time it would have on an idle machine, at
best), and the verdict says which was met. ``--profile`` adds a cProfile run naming the
costliest functions outside the simulator; ``--phases`` a run of each study in one process
(1 worker) with its CPU time split among the simulator, the simulations' Python set-up, the
figures (drawing; writing the files), the bootstrap intervals, the claims' judging, the
store's inserts, the tables, the report, (hybrid) the model fits, the garbage collector's
runs, the start-up and the rest.
**Core %** is the share in any function of burstlab's Rust core (the simulator's entry
points and the others: trace statistics, loss-model sampling, …), printed beside the
simulator's share and never counted in it. The runs write the command's default figures
(SVG).

How good the preview is. ``--full NAME=DIR`` compares the verdicts of NAME's ``--quick`` run
with those of a full run of the study in DIR (``burstlab study NAME --out DIR``, same code):
over the claims (each claim under each documented setting, calibration checks left out)
that the full run decides (reproduced or contradicted), how many the preview gives the same
verdict, leaves inconclusive, or gives the opposite verdict. ``--keep DIR`` keeps every
run's output folder there.
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import math
import os
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

STUDIES = ("error-models", "tibet", "hybrid", "link-transport", "prr-mu")
TARGET_S, TARGET_SIM, TARGET_PRR_MU_S, TARGET_RERUN_S = 10.0, 0.5, 4.0, 1.0
CORES = 2  # the targets' machine

#: Imported first by every Python process of a run (``PYTHONPATH``): wraps every function of
#: ``burstlab._core``, and writes this process's CPU time inside the simulator's entry points
#: and inside any core function to ``$BURSTLAB_SIM_TIMES.<pid>`` (at most every 0.1 s, and when
#: the process ends: at exit, or through multiprocessing's finalizers in a pool's workers,
#: which end with ``os._exit``).
_SITECUSTOMIZE = """
import os, time
_path = os.environ.get("BURSTLAB_SIM_TIMES")
if _path:
    import atexit, multiprocessing.util, burstlab._core as _core
    _spent = [0.0, 0.0, 0.0]  # simulator, core, last write (monotonic)
    _depth = [0]
    def _write():
        with open(f"{_path}.{os.getpid()}", "w") as f:
            f.write(f"{_spent[0]:.9f} {_spent[1]:.9f}")
        _spent[2] = time.monotonic()
    def _timed(f, sim):
        def call(*a, **k):
            if _depth[0]:  # a core function called from another: counted once
                return f(*a, **k)
            _depth[0] += 1
            t = time.process_time()
            try:
                return f(*a, **k)
            finally:
                _depth[0] -= 1
                dt = time.process_time() - t
                _spent[1] += dt
                if sim:
                    _spent[0] += dt
                if time.monotonic() - _spent[2] > 0.1:
                    _write()
        return call
    for _name in dir(_core):
        _f = getattr(_core, _name)
        if type(_f).__name__ == "builtin_function_or_method":
            setattr(_core, _name, _timed(_f, _name in ("simulate", "simulate_network", "simulate_trace")))
    atexit.register(_write)
    class _Forked:  # in a forked child (a pool's worker): its own counts, written by its finalizers
        pass
    def _after_fork(_):
        _spent[:] = [0.0, 0.0, 0.0]
        multiprocessing.util.Finalize(None, _write, exitpriority=0)
    _forked = _Forked()
    multiprocessing.util.register_after_fork(_forked, _after_fork)
"""


#: ``--phases``: one study's ``--quick`` in this process (1 worker), its CPU time split among
#: the simulator, the simulations' Python set-up, the figures, the bootstrap intervals, the
#: claims' judging, the store's inserts, the tables, the report, hybrid's model fits, the
#: garbage collector, the start-up and the rest (each second counted once: in the innermost of
#: these that was running; the collector's runs after the start-up in their own line).
_PHASES = """
import functools, importlib, sys, time
study, out = sys.argv[1], sys.argv[2]
spent, stack = {}, []
def wrap(module, name, what):
    obj = importlib.import_module(module)
    *path, attr = name.split(".")
    for p in path:
        obj = getattr(obj, p)
    f = getattr(obj, attr)
    @functools.wraps(f)
    def timed(*a, **k):
        t = time.process_time()
        if stack:
            spent[stack[-1][0]] = spent.get(stack[-1][0], 0.0) + t - stack[-1][1]
        stack.append([what, t])
        try:
            return f(*a, **k)
        finally:
            t = time.process_time()
            spent[what] = spent.get(what, 0.0) + t - stack.pop()[1]
            if stack:
                stack[-1][1] = t
    setattr(obj, attr, timed)
from burstlab.cli import main
module = "burstlab.experiments." + study.replace("-", "_")
for name in ("simulate_network", "simulate", "simulate_trace"):
    wrap("burstlab._core", name, "simulator")
for name in ("run_network_seeds", "run_network", "run"):
    if hasattr(importlib.import_module(module), name):
        wrap(module, name, "simulations' Python set-up")
wrap("burstlab.plot", "save_figure", "figures: savefig")
if hasattr(importlib.import_module(module + "_report"), "draw_figures"):
    wrap(module + "_report", "draw_figures", "figures: drawing")
for name, what in (("write_tables", "tables (CSV, store)"), ("write_report", "report (Markdown, HTML)")):
    if hasattr(importlib.import_module(module + "_report"), name):
        wrap(module + "_report", name, what)
for name in ("judge_all", "judge_settings"):
    if hasattr(importlib.import_module(module + "_claims"), name):
        wrap(module + "_claims", name, "claims: judging")
wrap("burstlab.study.estimate", "bootstrap", "bootstrap intervals")
wrap("burstlab.store", "ResultStore.insert_many", "store inserts")
if study == "hybrid":
    wrap("burstlab.experiments.hybrid", "run_fit", "model fits")
import gc
gc_start = [0.0]
def collector(phase, info):  # the garbage collector's runs: a phase of their own, taken out of the phase they interrupt
    t = time.process_time()
    if phase == "start":
        gc_start[0] = t
        if stack:
            spent[stack[-1][0]] = spent.get(stack[-1][0], 0.0) + t - stack[-1][1]
            stack[-1][1] = t
    else:
        spent["garbage collector"] = spent.get("garbage collector", 0.0) + t - gc_start[0]
        if stack:
            stack[-1][1] = t
gc.callbacks.append(collector)
t0 = time.process_time()
main(["study", study, "--quick", "--no-progress", "--workers", "1", "--out", out])
total = time.process_time()
rows = sorted(spent.items(), key=lambda x: -x[1]) + [("start-up (interpreter, burstlab.cli, the study's modules)", t0), ("the rest (heavy imports on first use, the study's own Python)", total - t0 - sum(spent.values()))]
print("; ".join(f"{k} {v:.2f} s" for k, v in rows) + f"; total {total:.2f} s")
"""


def become_subreaper() -> bool:
    """Orphaned descendants (a pool's workers when its forkserver exits) are re-parented to
    this process, which reaps them: their CPU enters ``RUSAGE_CHILDREN``. Linux only."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def reap_all() -> None:
    """Wait for every descendant left (the forkserver and workers end once the study has)."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


@dataclass
class Run:
    wall: float
    cpu: float
    sim: float
    core: float
    load0: float
    load1: float

    @property
    def share(self) -> float:
        return self.sim / self.cpu if self.cpu > 0 else math.nan

    @property
    def core_share(self) -> float:
        return self.core / self.cpu if self.cpu > 0 else math.nan

    @property
    def load(self) -> str:
        return f"{self.load0:.1f}-{self.load1:.1f}" if abs(self.load1 - self.load0) >= 0.05 else f"{self.load0:.1f}"


def run(argv: list[str], env: dict[str, str], tmp: str) -> Run:
    """One fresh ``burstlab`` process (and everything it starts): wall, CPU of the tree, CPU
    in the simulator and in any core function, the load average before and after."""
    times = os.path.join(tmp, f"sim-times-{time.monotonic_ns()}")
    env = {**env, "BURSTLAB_SIM_TIMES": times, "PYTHONPATH": os.pathsep.join(x for x in (tmp, env.get("PYTHONPATH", "")) if x)}
    load0 = os.getloadavg()[0]
    c0, t0 = _children_cpu(), time.perf_counter()
    p = subprocess.run([sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main())", *argv], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
    wall = time.perf_counter() - t0
    reap_all()
    cpu = _children_cpu() - c0
    if p.returncode != 0:
        raise SystemExit(f"error: burstlab {' '.join(argv)} exited with {p.returncode}: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''}")
    sim = core = 0.0
    for fn in os.listdir(tmp):
        if fn.startswith(os.path.basename(times) + "."):
            s, c = (float(x) for x in open(os.path.join(tmp, fn)).read().split())
            sim, core = sim + s, core + c
    return Run(wall, cpu, sim, core, load0, os.getloadavg()[0])


def best(runs: list[Run]) -> Run:
    """The fastest of repeated fresh runs by CPU time (the least disturbed by other work)."""
    return min(runs, key=lambda r: r.cpu)


def judge_time(r: Run, target: float, workers: int) -> str:
    """A wall-time target judged on the wall time; on a loaded machine, where the wall time
    is inflated, on the CPU time of the tree, which bounds the wall time on an idle machine
    (between CPU / cores and CPU, short of waiting on I/O): met when even the upper bound
    is within the target, missed when even the lower one is not, undecided between."""
    cores = min(workers, CORES)
    lo = r.cpu / cores
    if r.wall <= target:
        return f"met ({r.wall:.2f} s wall)"
    if r.cpu <= target:
        return f"met on CPU ({r.cpu:.2f} s CPU; wall {r.wall:.2f} s at load {r.load})"
    if lo <= target:
        return f"undecided under load ({r.wall:.2f} s wall at load {r.load}; idle between {lo:.2f} and {r.cpu:.2f} s)"
    return f"MISSED ({r.wall:.2f} s wall, {r.cpu:.2f} s CPU over {cores} core{'s' if cores > 1 else ''} ≥ {lo:.2f} s)"


@dataclass
class Agreement:
    """The preview's verdicts against a full run's, over the claims the full run decides."""

    decided: int  # decided (reproduced or contradicted) by the full run, and judged by the preview
    same: int
    inconclusive: int  # the preview says inconclusive
    opposite: int
    missing: int  # decided by the full run, not judged by the preview (a setting it does not run)

    def line(self) -> str:
        n = self.decided + self.missing
        return (f"the same verdict on {self.same} of the {n} claims the full run decides ({100 * self.same / max(n, 1):.0f} %); "
                f"{self.inconclusive} inconclusive in the preview, {self.opposite} opposite, {self.missing} not judged by it")  # fmt: skip


def _verdicts(folder: str) -> dict[tuple[str, str], str]:
    """(claim id, setting) -> verdict of a study's ``claims.csv`` (calibration checks left out)."""
    with open(os.path.join(folder, "claims.csv"), newline="") as f:
        return {(r["id"], r["setting"]): r["verdict"] for r in csv.DictReader(f) if r["calibration"] != "true"}


def agreement(quick: str, full: str) -> Agreement:
    """How the verdicts of the ``--quick`` run in folder ``quick`` compare with those of the
    full run in folder ``full``."""
    q, f = _verdicts(quick), _verdicts(full)
    decided = {k: v for k, v in f.items() if v in ("reproduced", "contradicted")}
    judged = [k for k in decided if k in q]
    same = sum(q[k] == decided[k] for k in judged)
    inconclusive = sum(q[k] == "inconclusive" for k in judged)
    return Agreement(len(judged), same, inconclusive, len(judged) - same - inconclusive, len(decided) - len(judged))


def profile_top(argv: list[str], env: dict[str, str], prof: str, n: int = 5) -> list[tuple[str, float]]:
    """The ``n`` functions with the most own time outside the simulator, under cProfile (its
    overhead inflates Python's share: read the ranking, not the seconds)."""
    code = f"import cProfile; from burstlab.cli import main; argv = {argv!r}; cProfile.runctx('main(argv)', globals(), locals(), {prof!r})"
    subprocess.run([sys.executable, "-c", code], check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    reap_all()
    st = pstats.Stats(prof)
    rows = [(f"{os.path.basename(fn)}:{line}({name})", tt) for (fn, line, name), (_cc, _nc, tt, _ct, _callers) in st.stats.items()  # type: ignore[attr-defined]
            if "burstlab._core" not in name]  # fmt: skip
    return sorted(rows, key=lambda x: -x[1])[:n]


def rerun(env: dict[str, str], tmp: str, repeat: int) -> list[str]:
    """prr-mu's default study on 2 workers, from scratch, then again on its store: lines
    against the targets."""
    firsts, reruns = [], []
    for k in range(repeat):
        out = os.path.join(tmp, f"prr-mu-default-{k}")
        argv = ["study", "prr-mu", "--no-progress", "--workers", "2", "--out", out]
        firsts.append(run(argv, env, tmp))
        reruns.append(run(argv, env, tmp))
    f, r = best(firsts), best(reruns)
    lines = [f"prr-mu default study, first run (2 workers): {f.wall:.2f} s wall, {f.cpu:.2f} s CPU, load {f.load}; "
             f"target ≤ {TARGET_PRR_MU_S:g} s: {judge_time(f, TARGET_PRR_MU_S, 2)}",
             f"prr-mu default study, re-run as a fresh process: {r.wall:.2f} s wall, {r.cpu:.2f} s CPU, load {r.load}; "
             f"target ≤ {TARGET_RERUN_S:g} s: {judge_time(r, TARGET_RERUN_S, 2)}"]  # fmt: skip
    for ln in lines:
        print(ln, flush=True)
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--studies", nargs="*", default=list(STUDIES))
    ap.add_argument("--workers", nargs="*", type=int, default=[1, 2])
    ap.add_argument("--repeat", type=int, default=1, help="fresh runs of each; the one with the least CPU is reported")
    ap.add_argument("--profile", action="store_true", help="also a cProfile run of each study: the costliest functions outside the simulator")
    ap.add_argument("--rerun-only", action="store_true", help="only prr-mu's default study: first run and re-run, as fresh processes")
    ap.add_argument("--no-rerun", action="store_true", help="skip prr-mu's default study and its re-run")
    ap.add_argument("--full", nargs="*", default=[], metavar="NAME=DIR",
                    help="compare NAME's --quick verdicts with those of its full run in DIR")
    ap.add_argument("--keep", metavar="DIR", help="keep every run's output folder in DIR (default: a temporary folder)")
    ap.add_argument("--phases", action="store_true", help="also each study's CPU time by phase, in one process with 1 worker")
    ap.add_argument("--study-args", default="", metavar="ARGS", help="more options for every study's --quick run (e.g. '--seeds 10')")
    ap.add_argument("--agreement", nargs=2, metavar=("QUICK_DIR", "FULL_DIR"), help="only compare the verdicts of two finished runs")
    a = ap.parse_args()
    if a.agreement:
        print(agreement(*a.agreement).line())
        return
    full = dict(x.split("=", 1) for x in a.full)
    if not become_subreaper():
        print("warning: not Linux (no PR_SET_CHILD_SUBREAPER): the CPU time of a pool's workers is not counted", file=sys.stderr)
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    print(f"load average at start: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()}); targets are for {CORES} cores")
    verdicts: list[str] = []
    keep = a.keep and os.path.abspath(a.keep)
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "sitecustomize.py"), "w") as f:
            f.write(_SITECUSTOMIZE)
        if not a.rerun_only:
            print(f"{'study':15} {'workers':>7} {'wall s':>7} {'CPU s':>7} {'load':>9} {'sim s':>6} {'sim %':>6} {'core %':>6}")
            for name in a.studies:
                by_w: dict[int, Run] = {}
                for w in a.workers:
                    reps = []
                    for k in range(a.repeat):
                        argv = ["study", name, "--quick", "--no-progress", "--workers", str(w), "--out", os.path.join(keep or tmp, f"{name}-{w}-{k}"),
                                *a.study_args.split()]
                        reps.append(run(argv, env, tmp))
                    r = by_w[w] = best(reps)
                    print(f"{name:15} {w:>7} {r.wall:>7.2f} {r.cpu:>7.2f} {r.load:>9} {r.sim:>6.2f} {100 * r.share:>6.1f} {100 * r.core_share:>6.1f}", flush=True)
                    if a.profile and w == a.workers[0]:
                        argv = ["study", name, "--quick", "--no-progress", "--workers", "1", "--out", os.path.join(tmp, f"{name}-prof")]
                        top = profile_top(argv, env, os.path.join(tmp, f"{name}.prof"))
                        print("    costliest outside the simulator (own time under cProfile): " + "; ".join(f"{n} {t:.1f} s" for n, t in top), flush=True)
                if a.phases:
                    p = subprocess.run([sys.executable, "-c", _PHASES, name, os.path.join(tmp, f"{name}-phases")], env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
                    reap_all()
                    print(f"    CPU by phase (1 worker, one process): {p.stdout.strip().splitlines()[-1] if p.stdout.strip() else 'failed'}", flush=True)
                if name in full:
                    ag = agreement(os.path.join(keep or tmp, f"{name}-{a.workers[0]}-0"), full[name])
                    print(f"    --quick against the full run ({full[name]}): {ag.line()}", flush=True)
                    verdicts.append(f"{name} --quick against its full run: {ag.line()}")
                for w, r in by_w.items():
                    verdicts.append(f"{name} --quick, {w} worker{'s' if w > 1 else ''}: ≤ {TARGET_S:g} s: {judge_time(r, TARGET_S, w)}; "
                                    f"≥ {100 * TARGET_SIM:.0f} % in the simulator: {'met' if r.share >= TARGET_SIM else 'MISSED'} ({100 * r.share:.0f} %)")  # fmt: skip
                if 1 in by_w and 2 in by_w:
                    r1, r2 = by_w[1], by_w[2]
                    verdicts.append(f"{name} --quick, 2 workers faster than 1: {'met' if r2.wall < r1.wall else 'MISSED'} on the wall time ({r2.wall:.2f} s vs {r1.wall:.2f} s, "
                                    f"load {r2.load} / {r1.load}; under load a noisy comparison); the pool costs {r2.cpu - r1.cpu:+.2f} s CPU "
                                    f"({r2.cpu:.2f} s vs {r1.cpu:.2f} s)")  # fmt: skip
        if not a.no_rerun and (a.rerun_only or "prr-mu" in a.studies):
            verdicts += rerun(env, tmp, a.repeat)
    print("\nagainst the targets:")
    for v in verdicts:
        print("  " + v)


if __name__ == "__main__":
    main()
