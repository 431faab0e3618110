"""The long fuzzing run of the bad-input contract (issues 13 and 34): the checks of
``tests/_fuzz.py`` (every reader, the loss-spec parser, command lines) and of
``tests/_fuzz_sim.py`` (``sim`` over every flag, TOML scenario files, the Python API,
output paths into device files, FIFOs, symbolic links, read-only folders and a full disk)
on millions of random and mutated inputs, driven by a fast mutator instead of hypothesis.

Every input either gives the reference's result (or a result whose counters agree with each
other), or a burstlab error naming the file and line; anything else is a violation: another
exception, a misread, an error on the wrong line, a traceback, exit 3, wrong counters, a
memory error that was not a refusal made before the allocation, a clobbered non-regular
file, a temporary file left behind. The inputs run in a worker process under a 4 GiB
address-space cap (``RLIMIT_AS``); a worker that aborts (a Rust abort, a signal) or hangs
longer than ``--timeout`` seconds on one input is recorded as an ``abort`` or a ``hang``
of that input, which is saved, and a new worker goes on from the next input. Each input is
drawn from its own seed (``SEED:INDEX``), so any one can be replayed alone.

Run: ``python benchmarks/fuzz.py --inputs 1000000 [--seed 1] [--out fuzz-findings] [--targets text,file,...] [--jobs 2]``
Prints, per target, the inputs tried, how many were read (a result), refused with a burstlab
error, skipped, stopped (a run the user gave no work budget, ``--max-events 0``, that was
still running after ``_fuzz_sim.UNLIMITED_WALL_S`` seconds and ended at a Ctrl-C: the run
asked for, whose only contract is progress and Ctrl-C), and the violations, aborts, hangs.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import _fuzz as fz  # noqa: E402  (tests/_fuzz.py: the checks and grammars of tests/test_fuzz.py)
import _fuzz_sim as fs  # noqa: E402  (tests/_fuzz_sim.py: the simulator's and the writers' checks)

#: Share of the inputs per target (the table, command-line and simulator checks cost more
#: per input: a simulation of up to 2 simulated seconds, or a refusal).
WEIGHTS = {"text": 50, "file": 12, "mahimahi": 12, "csv": 12, "parquet": 2, "spec": 10, "cli": 2,
           "sim": 20, "toml": 10, "api": 10, "paths": 5}  # fmt: skip

#: The address-space cap of a worker (issue 34: every case within 4 GiB).
CAP_BYTES = 4 << 30


def mutate(r: random.Random, b: bytes) -> bytes:
    out = bytearray(b)
    for _ in range(r.randint(0, 4)):
        op = r.randrange(4)
        i = r.randint(0, len(out))
        if op == 0:
            out[i:i] = bytes(r.randrange(256) for _ in range(r.randint(1, 3)))
        elif op == 1 and out:
            del out[min(i, len(out) - 1)]
        elif op == 2 and out:
            out[min(i, len(out) - 1)] = r.randrange(256)
        elif op == 3 and out:
            j = r.randint(i, len(out))
            out[j:j] = out[i:j]
    return bytes(out)


def text_input(r: random.Random, fmt: str) -> bytes:
    k = r.randrange(5)
    if k == 0:
        return bytes(r.randrange(256) for _ in range(r.randint(0, 200)))
    pieces = fz.GOOD_PIECES[fmt] if k >= 3 else fz.LINE_PIECES[fmt]
    text = b"\n".join(r.choice(pieces) for _ in range(r.randint(0, 40))) + b"\n"
    return mutate(r, text) if k in (2, 4) else text


def csv_input(r: random.Random) -> bytes:
    header = r.choice(fz.CSV_HEADERS)
    names = header.lower().replace(b'"', b"").split(b",")
    rows = []
    good = r.random() < 0.5
    for k in range(r.randint(0, 25)):
        if good:
            cells = [str(k).encode() if n == b"seq" else str(k * 0.25).encode() if n == b"time" else r.choice([b"0", b"1"]) for n in names]
            if r.random() < 0.1:
                cells[r.randrange(len(cells))] = r.choice(fz.CSV_CELLS)
        else:
            cells = [r.choice(fz.CSV_CELLS) for _ in range(max(1, len(names) + r.choice([0, 0, 0, -1, 1])))]
        rows.append(b",".join(cells))
        if r.random() < 0.06:
            rows.append(b"")
    text = header + b"\n" + b"\n".join(rows) + b"\n"
    return mutate(r, text) if r.random() < 0.3 else text


def table_input(r: random.Random) -> dict:  # type: ignore[type-arg]
    import numpy as np

    n = r.randint(0, 30)
    names = r.sample(["seq", "time", "received", "lost", "other"], r.randint(1, 3))
    cols = {}
    for name in names:
        kind = r.choice(["int", "uint", "float01", "float", "bool", "time", "arange"])
        if kind == "arange" or (name == "seq" and r.random() < 0.5):
            a = np.arange(n, dtype=np.int64) + r.choice([0, 0, 3])
        elif kind == "int":
            a = np.array([r.randint(-3, 3) for _ in range(n)], dtype=np.int64)
        elif kind == "uint":
            a = np.array([r.randrange(2**64) for _ in range(n)], dtype=np.uint64)
        elif kind == "float01":
            a = np.array([r.choice([0.0, 1.0]) for _ in range(n)], dtype=np.float64)
        elif kind == "float":
            a = np.array([r.choice([0.0, 1.0, 0.5, 1.5, -1.0, float("nan"), float("inf"), 1e30]) for _ in range(n)], dtype=np.float64)
        elif kind == "bool":
            a = np.array([r.random() < 0.5 for _ in range(n)], dtype=bool)
        else:
            a = np.cumsum(np.array([r.choice([0.0, 0.25, 0.1, -0.5]) for _ in range(n)], dtype=np.float64))
        cols[name] = a
    return cols


def spec_input(r: random.Random) -> str:
    if r.random() < 0.1:
        return "".join(chr(r.randrange(32, 0x250)) for _ in range(r.randint(0, 30)))
    params = ",".join(f"{r.choice(fz.SPEC_PARAMS)}={r.choice(fz.SPEC_VALUES)}" for _ in range(r.randint(0, 6)))
    return r.choice(fz.SPEC_KINDS) + r.choice([":", ":", ""]) + params


def cli_input(r: random.Random, good: Path) -> list[str]:
    cmd = r.choice(["predict", "gen", "stats", "sim"])
    opts = {"predict": ["--prr", "--p", "--mu", "--rtt", "--mss", "--t0", "--b", "--wmax", "--mathis-c"], "gen": ["-n", "--seed"],
            "stats": ["--chunk", "--expected", "--interval", "--one-means"],
            "sim": ["--rate", "--delay", "--seed", "--mss", "--buffer", "--loss", "--init-cwnd", "--warmup", "--loss-mode"]}[cmd]
    argv = [cmd]
    if cmd == "gen":
        argv += [spec_input(r), "-o", str(good.with_name("gen-out.txt")), "-n", "50"]
    if cmd == "stats":
        argv += [str(good)]
    for _ in range(r.randint(0, 4)):
        o = r.choice(opts)
        argv += [o, spec_input(r) if o == "--loss" else r.choice(["packet", "time", "x"]) if o == "--loss-mode" else r.choice(fz.NUMBERS)]
    if cmd == "sim":  # seconds of simulated time at most
        argv += ["--duration", r.choice(["0.05s", "2ms", "-1s", "1e12s", "0"])]  # 0.05 s: 5e7 packets at most (1 per ns)
    if cmd == "gen":  # a huge -n must be refused, not run
        for i, a in enumerate(argv[:-1]):
            if a == "-n" and argv[i + 1].isdigit() and 1000 < int(argv[i + 1]) < 10**12:
                argv[i + 1] = "1000"
    if cmd == "predict" and "--rtt" not in argv:
        argv += ["--rtt", "100ms"]
    return argv


class Scratch:
    """What the inputs refer to: a small trace, a Mahimahi trace, the special output places."""

    def __init__(self, folder: Path, fx: fs.PathFixtures) -> None:
        self.folder = folder
        self.good = folder / "good.txt"
        self.good.write_bytes(b"1\n0\n0\n1\n1\n0\n1\n1\n1\n0\n" * 20)
        self.trace = folder / "small.bits"
        self.trace.write_text("1\n0\n" * 150)
        self.capacity = folder / "cap.trace"
        self.capacity.write_text("\n".join(str(i) for i in range(0, 1000, 2)) + "\n")
        self.fx = fx


def make_input(target: str, r: random.Random, sc: Scratch) -> object:
    """One input for ``target`` (everything the check needs)."""
    good = sc.good
    if target == "sim":
        return fs.sim_argv(r, sc.trace)
    if target == "toml":
        return fs.scenario_toml(r, sc.capacity)
    if target == "api":
        return fs.api_call(r)
    if target == "paths":
        return fs.path_case(r, sc.fx)
    if target == "text":
        fmt = r.choice(["bits", "string", "seqlist", "ttem"])
        expected = r.choice([None, None, r.randint(-2, 3000), 10**18, 2**64 - 1, 2**64]) if fmt == "seqlist" else None
        return (text_input(r, fmt), fmt, r.random() < 0.5, expected, r.random() < 0.5)
    if target == "file":
        return (text_input(r, r.choice(list(fz.LINE_PIECES))), r.choice(["", ".txt", ".bits", ".seq", ".ttem"]))
    if target == "mahimahi":
        return text_input(r, "mahimahi")
    if target == "csv":
        return (csv_input(r), r.choice([None, None, r.randint(1, 40)]))
    if target == "parquet":
        return (table_input(r), r.choice([None, None, r.randint(1, 80)]))
    if target == "spec":
        return spec_input(r)
    return cli_input(r, good)


def check(target: str, inp: object, sc: Scratch) -> str:
    """Run ``target``'s contract check on ``inp``; the outcome's kind."""
    folder = sc.folder
    if target == "sim":
        return fs.check_sim_cli(inp)  # type: ignore[arg-type]
    if target == "toml":
        return fs.check_scenario(inp, folder)  # type: ignore[arg-type]
    if target == "api":
        return fs.check_api(*inp, folder)  # type: ignore[misc]
    if target == "paths":
        return fs.check_path(*inp, sc.fx)  # type: ignore[misc]
    if target == "text":
        data, fmt, lost, expected, drop = inp  # type: ignore[misc]
        return fz.check_text(data, fmt, lost=lost, expected=expected, drop_beyond=drop).kind
    if target == "file":
        data, suffix = inp  # type: ignore[misc]
        return fz.check_file(data, folder, suffix).kind
    if target == "mahimahi":
        return fz.check_mahimahi(inp, folder).kind  # type: ignore[arg-type]
    if target == "csv":
        data, expected = inp  # type: ignore[misc]
        return fz.check_csv(data, folder, expected).kind
    if target == "parquet":
        cols, expected = inp  # type: ignore[misc]
        return fz.check_parquet(cols, folder, expected).kind
    if target == "spec":
        return fz.check_spec(inp).kind  # type: ignore[arg-type]
    return "ok" if fz.check_cli(inp) == 0 else "error"  # type: ignore[arg-type]


def _draw(seed: int, k: int, targets: list[str], weights: list[int], sc: Scratch) -> tuple[str, object]:
    r = random.Random(f"{seed}:{k}")
    target = r.choices(targets, weights)[0]
    return target, make_input(target, r, sc)


def worker(args: argparse.Namespace, targets: list[str], weights: list[int]) -> None:
    """Run inputs ``args.start`` .. ``args.stop`` - 1, logging ``S k`` before and ``E k target
    kind`` after each to ``args.log`` (line-buffered: what a crash leaves tells which input)."""
    import warnings

    warnings.simplefilter("ignore")  # the inputs' warnings (clock resolution, loss mode) are expected
    out = Path(args.out)
    with open(args.log, "a", buffering=1) as log, tempfile.TemporaryDirectory(prefix="burstlab-fuzz-") as d:
        folder = Path(d)
        log.write(f"D {folder}\n")  # what the supervisor cleans up if this worker dies
        with fs.path_fixtures(folder) as fx:
            sc = Scratch(folder, fx)
            for k in range(args.start, args.stop):
                target, inp = _draw(args.seed, k, targets, weights, sc)
                log.write(f"S {k}\n")
                faulthandler.dump_traceback_later(args.timeout, exit=True)
                try:
                    kind = check(target, inp, sc)
                    kind = {"ok": "read", "skip": "skipped", "stopped": "stopped"}.get(kind, "refused")
                except (fz.ContractViolation, Exception) as e:  # noqa: BLE001 - every escape is a finding
                    kind = "memory-cap" if "memory-cap" in str(e) else "violation"
                    out.mkdir(parents=True, exist_ok=True)
                    (out / f"{target}-{k}.txt").write_text(f"{type(e).__name__}: {e}\n\ninput: {inp!r}\n\n{traceback.format_exc()}")
                finally:
                    faulthandler.cancel_dump_traceback_later()
                log.write(f"E {k} {target} {kind}\n")


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))
    os.setpgrp()  # its own process group: a kill of the worker takes its children


def _supervise(args: argparse.Namespace, start: int, stop: int, log: Path, errlog: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, __file__, "--worker", "--seed", str(args.seed), "--start", str(start), "--stop", str(stop), "--log", str(log),
           "--out", args.out, "--targets", args.targets, "--timeout", str(args.timeout)]  # fmt: skip
    with open(errlog, "ab") as err:
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL, preexec_fn=_cap)


def _clean_after(log: Path) -> None:
    """Unmount and remove the scratch folders a dead worker left (``D folder`` lines)."""
    import shutil

    with contextlib.suppress(FileNotFoundError), open(log) as f:
        folders = [line.split(None, 1)[1].strip() for line in f if line.startswith("D ")]
    for d in folders:
        for m in ("ro", "full"):
            subprocess.run(["umount", "-l", os.path.join(d, "paths", m)], capture_output=True)
        shutil.rmtree(d, ignore_errors=True)


def _last(log: Path) -> tuple[int | None, set[int]]:
    """The input a worker started last without finishing, and the finished ones."""
    started: int | None = None
    done: set[int] = set()
    with contextlib.suppress(FileNotFoundError), open(log) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0] == "S":
                started = int(parts[1])
            elif len(parts) >= 4 and parts[0] == "E":
                done.add(int(parts[1]))
    return (started if started is not None and started not in done else None), done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=1_000_000, help="inputs in all (shared by the targets by weight)")
    ap.add_argument("--seed", type=int, default=1, help="random seed")
    ap.add_argument("--out", default="fuzz-findings", help="folder for inputs that broke the contract")
    ap.add_argument("--targets", default=",".join(WEIGHTS), help="comma-separated: " + ", ".join(WEIGHTS))
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds one input may take before it counts as a hang (default 30)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes at once (default 1)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--stop", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--log", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    targets = [t for t in args.targets.split(",") if t]
    weights = [WEIGHTS[t] for t in targets]
    if args.worker:
        return worker(args, targets, weights)
    out = Path(args.out)
    t0 = time.perf_counter()
    counts: dict[str, Counter[str]] = {t: Counter() for t in targets}
    with tempfile.TemporaryDirectory(prefix="burstlab-fuzz-run-") as d:
        work = Path(d)
        # one range of inputs per job; a worker that dies is restarted after the input it died on
        step = -(-args.inputs // max(1, args.jobs))
        ranges = [(a, min(args.inputs, a + step)) for a in range(0, args.inputs, step)]
        logs = [work / f"log{i}.txt" for i in range(len(ranges))]
        errs = {i: work / f"stderr{i}-{a}.txt" for i, (a, b) in enumerate(ranges)}  # per worker start
        running = {i: _supervise(args, a, b, logs[i], errs[i]) for i, (a, b) in enumerate(ranges)}
        next_report = 300
        while running:
            time.sleep(0.5)
            for i, p in list(running.items()):
                rc = p.poll()
                if rc is None:
                    continue
                del running[i]
                _clean_after(logs[i])
                died, done = _last(logs[i])
                if died is not None:  # an abort, a signal, a hang (faulthandler exits 1)
                    tail = errs[i].read_text(errors="replace")[-4000:] if errs[i].exists() else ""
                    kind = "hang" if "Timeout" in tail else "abort"
                    with sc_scratch() as sc:
                        target, inp = _draw(args.seed, died, targets, weights, sc)
                    out.mkdir(parents=True, exist_ok=True)
                    (out / f"{target}-{died}-{kind}.txt").write_text(f"{kind} (worker exit {rc})\n\ninput: {inp!r}\n\n{tail}")
                    with open(logs[i], "a") as f:
                        f.write(f"E {died} {target} {kind}\n")
                    rest = (died + 1, ranges[i][1])
                    if rest[0] < rest[1]:
                        ranges[i] = rest
                        errs[i] = work / f"stderr{i}-{rest[0]}.txt"
                        running[i] = _supervise(args, rest[0], rest[1], logs[i], errs[i])
            if time.perf_counter() - t0 > next_report:  # progress every 5 minutes
                finished = sum(len(_last(lg)[1]) for lg in logs)
                print(f"{finished} inputs, {time.perf_counter() - t0:.0f} s", flush=True)
                next_report += 300
        for lg in logs:
            with open(lg) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 4 and parts[0] == "E":
                        counts[parts[2]][parts[3]] += 1
                        counts[parts[2]]["inputs"] += 1
    bad = ("violation", "abort", "hang", "memory-cap")
    total = Counter[str]()
    print(f"\n{args.inputs} inputs in {time.perf_counter() - t0:.0f} s (seed {args.seed}, {args.jobs} worker(s), each under a 4 GiB cap)")
    print(f"{'target':10} {'inputs':>9} {'read':>9} {'refused':>9} {'skipped':>8} {'stopped':>8} " + " ".join(f"{b:>10}" for b in bad))
    for t in targets:
        c = counts[t]
        total.update(c)
        print(f"{t:10} {c['inputs']:9d} {c['read']:9d} {c['refused']:9d} {c['skipped']:8d} {c['stopped']:8d} " + " ".join(f"{c[b]:10d}" for b in bad))
    print(f"{'all':10} {total['inputs']:9d} {total['read']:9d} {total['refused']:9d} {total['skipped']:8d} {total['stopped']:8d} " + " ".join(f"{total[b]:10d}" for b in bad))
    if any(total[b] for b in bad):
        print(f"violating inputs saved in {out}/")
        sys.exit(1)


@contextlib.contextmanager
def sc_scratch():  # type: ignore[no-untyped-def]
    """A scratch set to redraw an input by its index (the inputs name its paths)."""
    with tempfile.TemporaryDirectory(prefix="burstlab-fuzz-") as d:
        folder = Path(d)
        (folder / "paths").mkdir()
        fx = fs.PathFixtures(folder / "paths", None, folder / "paths" / "fifo", folder / "paths" / "link.bits", folder / "paths" / "dangling.bits",
                             folder / "paths" / "linkdir", None, None, [])  # fmt: skip
        yield Scratch(folder, fx)


if __name__ == "__main__":
    main()
