"""Fuzzing the bad-input contract (docs/errors.md; issue 13): every reader, the loss-spec
parser and the command lines get random and mutated inputs, and each must give the
reference parser's result or a burstlab error naming the file and line (tests/_fuzz.py).

Bounded for CI: ``BURSTLAB_FUZZ_EXAMPLES`` examples per property (default 150). The long
run (10^6 inputs and more) is ``python benchmarks/fuzz.py`` (benchmarks/README.md)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _fuzz import (
    CSV_CELLS,
    CSV_HEADERS,
    GOOD_PIECES,
    LINE_PIECES,
    NUMBERS,
    SPEC_KINDS,
    SPEC_PARAMS,
    SPEC_VALUES,
    check_cli,
    check_csv,
    check_file,
    check_mahimahi,
    check_parquet,
    check_spec,
    check_text,
    scratch,
)

EXAMPLES = int(os.environ.get("BURSTLAB_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

# -------------------------------------------------------------------- input grammars


def lines_of(fmt: str, pieces: dict[str, list[bytes]] = LINE_PIECES) -> st.SearchStrategy[bytes]:
    return st.lists(st.sampled_from(pieces[fmt]), max_size=40).map(lambda ls: b"\n".join(ls) + b"\n")


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[bytes]) -> bytes:
    """A grammar text with a few byte edits (insert, delete, replace, duplicate a span)."""
    b = bytearray(draw(base))
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["ins", "del", "rep", "dup"]))
        i = draw(st.integers(0, len(b)))
        if op == "ins":
            b[i:i] = draw(st.binary(min_size=1, max_size=3))
        elif op == "del" and b:
            del b[min(i, len(b) - 1)]
        elif op == "rep" and b:
            b[min(i, len(b) - 1)] = draw(st.integers(0, 255))
        elif op == "dup" and b:
            j = draw(st.integers(i, len(b)))
            b[j:j] = b[i:j]
    return bytes(b)


def text_inputs(fmt: str) -> st.SearchStrategy[bytes]:
    good = lines_of(fmt, GOOD_PIECES)
    return st.one_of(st.binary(max_size=200), lines_of(fmt), good, mutated(good), mutated(lines_of(fmt)))


EXPECTED = st.one_of(st.none(), st.integers(-2, 3000), st.sampled_from([10**18, 2**64 - 1, 2**64]))


# -------------------------------------------------------------------- readers


@pytest.mark.parametrize("fmt", ["bits", "string", "seqlist", "ttem"])
def test_text_readers_keep_the_contract(fmt: str) -> None:
    @FUZZ
    @given(data=text_inputs(fmt), lost=st.booleans(), expected=EXPECTED, drop=st.booleans())
    def run(data: bytes, lost: bool, expected: int | None, drop: bool) -> None:
        check_text(data, fmt, lost=lost, expected=expected if fmt == "seqlist" else None, drop_beyond=drop)

    run()


def test_detection_and_reading_keep_the_contract() -> None:
    with scratch() as d:
        folder = Path(d)

        @FUZZ
        @given(data=st.one_of(*(text_inputs(f) for f in LINE_PIECES)), suffix=st.sampled_from(["", ".txt", ".bits", ".seq", ".ttem"]))
        def run(data: bytes, suffix: str) -> None:
            check_file(data, folder, suffix)

        run()


def test_mahimahi_reader_keeps_the_contract() -> None:
    with scratch() as d:
        folder = Path(d)

        @FUZZ
        @given(data=text_inputs("mahimahi"))
        def run(data: bytes) -> None:
            check_mahimahi(data, folder)

        run()


@st.composite
def csv_texts(draw: st.DrawFn) -> bytes:
    header = draw(st.sampled_from(CSV_HEADERS))
    ncol = max(1, len(header.split(b",")))
    rows = []
    good = draw(st.booleans())
    for k in range(draw(st.integers(0, 25))):
        if good:  # mostly well-formed: seq counting up, 0/1 values, increasing time
            cells = []
            for name in header.lower().replace(b'"', b"").split(b","):
                cells.append(str(k).encode() if name == b"seq" else str(k * 0.25).encode() if name == b"time" else draw(st.sampled_from([b"0", b"1"])))
            if draw(st.integers(0, 9)) == 0:
                cells[draw(st.integers(0, len(cells) - 1))] = draw(st.sampled_from(CSV_CELLS))
        else:
            cells = [draw(st.sampled_from(CSV_CELLS)) for _ in range(draw(st.sampled_from([ncol, ncol, ncol, ncol - 1, ncol + 1])))]
        rows.append(b",".join(cells))
        if draw(st.integers(0, 15)) == 0:
            rows.append(b"")
    return header + b"\n" + b"\n".join(rows) + (b"\n" if draw(st.booleans()) else b"")


def test_csv_reader_keeps_the_contract() -> None:
    with scratch() as d:
        folder = Path(d)

        @FUZZ
        @given(data=st.one_of(csv_texts(), mutated(csv_texts()), st.binary(max_size=120)), expected=st.one_of(st.none(), st.integers(1, 40)))
        def run(data: bytes, expected: int | None) -> None:
            check_csv(data, folder, expected)

        run()


COLUMN_KINDS = ["int", "uint", "float01", "float", "bool", "str", "time"]


@st.composite
def tables(draw: st.DrawFn) -> dict[str, np.ndarray]:
    n = draw(st.integers(0, 30))
    names = draw(st.lists(st.sampled_from(["seq", "time", "received", "lost", "other"]), min_size=1, max_size=3, unique=True))
    cols: dict[str, np.ndarray] = {}
    for name in names:
        kind = draw(st.sampled_from(COLUMN_KINDS))
        if name == "seq" and draw(st.booleans()):
            a = np.arange(n, dtype=np.int64) + draw(st.sampled_from([0, 0, 0, 3]))
            if draw(st.booleans()):
                a = np.sort(draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))).astype(np.int64) if n else a
        elif kind == "int":
            a = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=np.int64)
        elif kind == "uint":
            a = np.array(draw(st.lists(st.integers(0, 2**64 - 1), min_size=n, max_size=n)), dtype=np.uint64)
        elif kind == "float01":
            a = np.array(draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n)), dtype=np.float64)
        elif kind == "float":
            a = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 0.5, 1.5, 2.7, -1.0, np.nan, np.inf, 1e30]), min_size=n, max_size=n)), dtype=np.float64)
        elif kind == "bool":
            a = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
        elif kind == "str":
            a = np.array(draw(st.lists(st.sampled_from(["0", "1", "x"]), min_size=n, max_size=n)), dtype=object)
        else:
            a = np.cumsum(np.array(draw(st.lists(st.sampled_from([0.0, 0.25, 0.1, -0.5]), min_size=n, max_size=n)), dtype=np.float64))
        cols[name] = a
    return cols


def test_parquet_reader_keeps_the_contract() -> None:
    with scratch() as d:
        folder = Path(d)

        @FUZZ
        @given(cols=tables(), expected=st.one_of(st.none(), st.integers(1, 80)), corrupt=st.one_of(st.none(), st.tuples(st.integers(0, 2000), st.binary(min_size=1, max_size=4))))
        def run(cols: dict[str, np.ndarray], expected: int | None, corrupt: tuple[int, bytes] | None) -> None:
            if corrupt is None:
                check_parquet(cols, folder, expected)
                return
            import pyarrow as pa
            import pyarrow.parquet as pq

            buf = pa.BufferOutputStream()
            try:
                pq.write_table(pa.table(cols), buf)
            except (pa.ArrowException, ValueError, TypeError):
                return
            raw = bytearray(buf.getvalue().to_pybytes())
            i, b = corrupt
            i %= len(raw)
            raw[i : i + len(b)] = b
            check_parquet(cols, folder, expected, corrupt=bytes(raw))

        run()


# -------------------------------------------------------------------- loss specs and CLI


@st.composite
def specs(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(SPEC_KINDS))
    params = draw(st.lists(st.tuples(st.sampled_from(SPEC_PARAMS), st.sampled_from(SPEC_VALUES)), max_size=7))
    sep = draw(st.sampled_from([":", ":", ":", ""]))
    return kind + sep + ",".join(f"{k}={v}" for k, v in params)


def test_loss_spec_parser_keeps_the_contract() -> None:
    @FUZZ
    @given(spec=st.one_of(specs(), st.text(max_size=40)))
    def run(spec: str) -> None:
        check_spec(spec)

    run()


@st.composite
def command_lines(draw: st.DrawFn, good: str) -> list[str]:
    cmd = draw(st.sampled_from(["predict", "gen", "stats", "sim"]))
    opts: dict[str, list[str]] = {
        "predict": ["--prr", "--p", "--mu", "--rtt", "--mss", "--t0", "--b", "--wmax", "--mathis-c"],
        "gen": ["-n", "--seed"],
        "stats": ["--chunk", "--expected", "--interval", "--one-means"],
        "sim": ["--rate", "--delay", "--duration", "--seed", "--mss", "--buffer", "--loss", "--init-cwnd", "--seeds", "--tcp", "--warmup"],
    }
    argv = [cmd]
    if cmd == "gen":
        argv += [draw(specs()), "-o", str(Path(good).with_name("gen-out.txt"))]
    if cmd == "stats":
        argv += [good]
    for o in draw(st.lists(st.sampled_from(opts[cmd]), max_size=4)):
        argv += [o, draw(st.sampled_from(NUMBERS)) if o != "--loss" else draw(specs())]
    if cmd == "gen" and "-n" not in argv:
        argv += ["-n", "50"]
    if cmd == "gen" and "-n" in argv:  # keep the work small: a huge -n must be refused, not run
        i = argv.index("-n") + 1
        if argv[i].lstrip("-").isdigit() and 1000 < int(argv[i]) < 10**12:
            argv[i] = "1000"
    if cmd == "sim":  # seconds of simulated time at most
        argv += ["--duration", draw(st.sampled_from(["0.2s", "0.05s", "-1s", "1e12s", "0"]))]
    if cmd == "predict" and "--rtt" not in argv:
        argv += ["--rtt", "100ms"]
    return argv


def test_command_lines_keep_the_contract(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_bytes(b"1\n0\n0\n1\n1\n0\n1\n1\n1\n0\n" * 50)

    @settings(max_examples=max(20, EXAMPLES // 3), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(argv=command_lines(str(good)))
    def run(argv: list[str]) -> None:
        check_cli(argv)

    run()
