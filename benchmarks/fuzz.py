"""The long fuzzing run of the bad-input contract (issue 13): the checks of
``tests/_fuzz.py`` (every reader, the loss-spec parser, command lines) on millions of
random and mutated inputs, driven by a fast mutator instead of hypothesis.

Every input either gives the reference parser's result or a burstlab error naming the file
and line; anything else (another exception, a misread, an error on the wrong line) is a
violation: the input is saved under ``--out`` and counted, and the run goes on. An input
that takes longer than ``--timeout`` seconds stops the run with a traceback of where it
hangs (faulthandler) after saving the input as ``hang-input``.

Run: ``python benchmarks/fuzz.py --inputs 1000000 [--seed 1] [--out fuzz-findings] [--targets text,file,...]``
Prints, per target, the inputs tried, how many were read, refused with a burstlab error,
and violations.
"""

from __future__ import annotations

import argparse
import faulthandler
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import _fuzz as fz  # noqa: E402  (tests/_fuzz.py: the checks and grammars of tests/test_fuzz.py)

#: Share of the inputs per target (the table and command-line checks cost more per input).
WEIGHTS = {"text": 50, "file": 12, "mahimahi": 12, "csv": 12, "parquet": 2, "spec": 10, "cli": 2}


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


def make_input(target: str, r: random.Random, good: Path) -> object:
    """One input for ``target`` (everything the check needs)."""
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


def check(target: str, inp: object, folder: Path) -> str:
    """Run ``target``'s contract check on ``inp``; the outcome's kind."""
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=1_000_000, help="inputs in all (shared by the targets by weight)")
    ap.add_argument("--seed", type=int, default=1, help="random seed")
    ap.add_argument("--out", default="fuzz-findings", help="folder for inputs that broke the contract")
    ap.add_argument("--targets", default=",".join(WEIGHTS), help="comma-separated: " + ", ".join(WEIGHTS))
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds one input may take before the run stops as a hang")
    args = ap.parse_args()
    targets = [t for t in args.targets.split(",") if t]
    weights = [WEIGHTS[t] for t in targets]
    r = random.Random(args.seed)
    out = Path(args.out)
    counts: dict[str, Counter[str]] = {t: Counter() for t in targets}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="burstlab-fuzz-") as d:
        folder = Path(d)
        print(f"scratch folder {folder} (an input that hangs is left there as hang-input)", flush=True)
        good = folder / "good.txt"
        good.write_bytes(b"1\n0\n0\n1\n1\n0\n1\n1\n1\n0\n" * 20)
        for k in range(args.inputs):
            target = r.choices(targets, weights)[0]
            inp = make_input(target, r, good)
            (folder / "hang-input").write_text(repr(inp))
            faulthandler.dump_traceback_later(args.timeout, exit=True)
            try:
                kind = check(target, inp, folder)
                counts[target]["read" if kind == "ok" else "skipped" if kind == "skip" else "refused"] += 1
            except (fz.ContractViolation, Exception) as e:  # noqa: BLE001 - every escape is a finding
                counts[target]["violation"] += 1
                out.mkdir(parents=True, exist_ok=True)
                (out / f"{target}-{k}.txt").write_text(f"{type(e).__name__}: {e}\n\ninput: {inp!r}\n\n{traceback.format_exc()}")
            finally:
                faulthandler.cancel_dump_traceback_later()
            counts[target]["inputs"] += 1
            if (k + 1) % 100_000 == 0:
                print(f"{k + 1} inputs, {time.perf_counter() - t0:.0f} s, violations {sum(c['violation'] for c in counts.values())}", flush=True)
    total = Counter[str]()
    print(f"\n{args.inputs} inputs in {time.perf_counter() - t0:.0f} s (seed {args.seed})")
    print(f"{'target':10} {'inputs':>9} {'read':>9} {'refused':>9} {'skipped':>8} {'violations':>10}")
    for t in targets:
        c = counts[t]
        total.update(c)
        print(f"{t:10} {c['inputs']:9d} {c['read']:9d} {c['refused']:9d} {c['skipped']:8d} {c['violation']:10d}")
    print(f"{'all':10} {total['inputs']:9d} {total['read']:9d} {total['refused']:9d} {total['skipped']:8d} {total['violation']:10d}")
    if total["violation"]:
        print(f"violating inputs saved in {out}/")
        sys.exit(1)


if __name__ == "__main__":
    main()
