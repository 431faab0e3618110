"""The bad-input contract (docs/errors.md), as checks a fuzzer can call on any input.

Each ``check_*`` function feeds one input to a burstlab entry point and asserts the
contract: the call either returns the result an independent reference parser (written
here, in plain Python, from docs/traces.md) computes, or raises a burstlab error
(``BurstlabError`` and its subclasses, ``MemoryError``, ``OSError`` for files) that names
the file and, where the reference finds a bad line, that line. Any other exception, a
wrong result, or an error where the reference reads the input fine is a
:class:`ContractViolation`.

``tests/test_fuzz.py`` drives these with hypothesis (bounded, in CI);
``benchmarks/fuzz.py`` drives the same checks with a fast random mutator for long runs.
"""

from __future__ import annotations

import io
import math
import os
import re
import tempfile
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from burstlab import BurstlabError, EmptyInputError, ParameterError, TraceFormatError
from burstlab.io import parse_trace, read_mahimahi, read_trace

# The Rust readers' whitespace (u8::is_ascii_whitespace): no vertical tab, unlike bytes.strip().
WS = b" \t\n\r\x0c"
IMPLICIT_FACTOR = 1024  # crates/burstlab-core/src/trace/parse.rs
IMPLICIT_SLACK = 1 << 20
FAR_MAX = 1 << 16


class ContractViolation(AssertionError):
    """An input on which burstlab broke its bad-input contract."""


@dataclass(frozen=True)
class Outcome:
    """What a reader did: ``ok`` with bits (and meta), or an error ``kind`` ("format",
    "empty", "param", "memory", "os") with the 1-based ``line`` it named (None if none)."""

    kind: str
    bits: tuple[int, ...] = ()
    meta: tuple[tuple[str, Any], ...] = ()
    line: int | None = None


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _u64(s: bytes) -> int | None:
    if not 1 <= len(s) <= 20 or not all(48 <= c <= 57 for c in s):
        return None
    v = int(s)
    return v if v < 2**64 else None


# ------------------------------------------------------------------------ input grammars
# (shared by tests/test_fuzz.py and benchmarks/fuzz.py)

LINE_PIECES = {
    "bits": [b"0", b"1", b" 1", b"0\r", b"", b"#c", b"2", b"01", b"1 0", b"x", b"\x00", b"\xff\xfe", b"\t0\t", b"-1"],
    "string": [b"0101", b"11 00", b"", b"# 01x", b"0#1", b"01a1", b"\t1", b"\xc3\xa9", b"0\x0b1", b"1" * 70],
    "seqlist": [b"0", b"7", b"3 -40", b"5,1", b"", b"#", b"# burstlab seqlist: expected=12", b"# burstlab seqlist: expected=0",
                b"18446744073709551615", b"18446744073709551616", b"68719476735", b"-2", b"1.5", b"abc", b"\x00", b"00012", b"4\r", b"9 9"],
    "mahimahi": [b"0", b"1", b"1", b"5", b"5", b"12", b"", b"# c", b"3", b"18446744073709551615", b"99999999999999999999", b"x", b"2 3", b"-1"],
}
LINE_PIECES["ttem"] = LINE_PIECES["bits"]
#: Lines each format reads (inputs made mostly of these exercise the results, not only the errors).
GOOD_PIECES = {
    "bits": [b"0", b"1", b"1", b"0", b"", b"# c", b" 1", b"0\r"],
    "string": [b"0101", b"11 00", b"1", b"", b"# c", b"0" * 40, b"10" * 33],
    "seqlist": [b"0", b"1", b"2", b"3 -40", b"5,1", b"8", b"13", b"", b"# c", b"21 7"],
    "mahimahi": [b"1", b"1", b"2", b"5", b"5", b"8", b"", b"# c"],
}
GOOD_PIECES["ttem"] = GOOD_PIECES["bits"]

CSV_HEADERS = [b"seq,received", b"received", b"lost", b"seq,time,received", b"time,lost", b"seq", b"seq,time", b'"seq","received"', b"seq,received,lost", b"seq,colour", b"", b"SEQ,Received"]
CSV_CELLS = [b"0", b"1", b"2", b"01", b"-1", b"1.0", b"0.5", b"1e0", b"", b" 1", b"nan", b"inf", b"x", b'"1"', b"18446744073709551615", b"18446744073709551616", b"3"]

SPEC_KINDS = ["bernoulli", "ge", "list", "ctmc", "onoff", "semi", "vddp", "runlength", "replay", "none", "nosuch", "@"]
SPEC_PARAMS = ["p", "prr", "mu", "b", "g", "h", "k", "drops", "period", "good", "bad", "pg", "pb", "interval", "a", "da", "db", "ca", "cb",
               "temporal", "success", "burst", "file", "end", "slot"]
SPEC_VALUES = ["0", "1", "0.5", "0.01", "-1", "2", "1e-9", "1e-12", "1e300", "nan", "inf", "", "x", "18446744073709551616", "3/5/9", "4/",
               "exp/0.05", "pareto/0.1/1.5", "pareto/1/-1", "det/0.2", "geom/2", "lognormal/0/1", "geom/0.5", "exp/1e-9", "wrap", "/nonexistent/f"]

NUMBERS = ["0", "1", "-1", "0.5", "1e-300", "1e300", "nan", "inf", "99999999999999999999", "18446744073709551615", "10Mbit", "100ms", "-5ms", "1e12s", "abc", ""]


# ------------------------------------------------------------------------ references


def ref_bits(data: bytes, lost: bool) -> Outcome:
    bits = []
    for i, line in enumerate(_lines(data), 1):
        s = line.strip(WS)
        if not s or s.startswith(b"#"):
            continue
        if s not in (b"0", b"1"):
            return Outcome("format", line=i)
        bits.append(int(s == b"1") ^ int(lost))
    return Outcome("ok", tuple(bits)) if bits else Outcome("empty")


def ref_string(data: bytes, lost: bool) -> Outcome:
    bits = []
    for i, line in enumerate(_lines(data), 1):
        for c in line:
            if c in (48, 49):
                bits.append((c - 48) ^ int(lost))
            elif c == 35:  # '#': a comment to the end of the line
                break
            elif c in WS:
                continue
            else:
                return Outcome("format", line=i)
    return Outcome("ok", tuple(bits)) if bits else Outcome("empty")


def _header_expected(s: bytes) -> int | None:
    try:
        t = s.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not t.startswith("#"):
        return None
    rest = t[1:].lstrip()  # Rust trim_start: Unicode whitespace
    if not rest.startswith("burstlab seqlist") or "expected=" not in rest:
        return None
    digits = ""
    for ch in rest.split("expected=")[1]:
        if not ch.isascii() or not ch.isdigit():
            break
        digits += ch
    if not digits:
        return None
    v = int(digits)
    return v if v < 2**64 else None


def ref_seqs(entries: Sequence[tuple[int, int]], expected: int | None, drop_beyond: bool) -> Outcome:
    """The sequence-list rules on (seq, line) pairs (docs/traces.md "seqlist")."""
    if expected is not None and expected <= 0:
        return Outcome("param")
    got: set[int] = set()
    dup = dropped = 0
    far: list[tuple[int, int]] = []
    lines = 0
    bound = IMPLICIT_SLACK
    kept_max = -1
    max_seq = None
    for seq, line in entries:
        max_seq = seq if max_seq is None else max(max_seq, seq)
        if expected is not None:
            if seq >= expected:
                if drop_beyond:
                    dropped += 1
                    continue
                return Outcome("format", line=line)
        else:
            lines += 1
            bound = min(bound + IMPLICIT_FACTOR, 2**64 - 1)
            if seq >= bound:
                if len(far) >= FAR_MAX:
                    return Outcome("format", line=line)
                far.append((seq, line))
                continue
            kept_max = max(kept_max, seq)
        if seq in got:
            dup += 1
        else:
            got.add(seq)
    if expected is None:
        for seq, line in far:
            if seq >= bound:
                return Outcome("format", line=line)
        top = max([kept_max, *(s for s, _ in far)])
        if top < 0:
            return Outcome("empty")
        n = top + 1
        for seq, _ in far:
            if seq in got:
                dup += 1
            else:
                got.add(seq)
    else:
        n = expected
    if n > 10**8:
        return Outcome("memory")  # the fuzzers keep lengths far below this; a bigger one is a memory question
    bits = np.zeros(n, dtype=np.uint8)
    if got:
        bits[np.fromiter(got, dtype=np.uint64, count=len(got))] = 1
    meta = tuple(sorted({"duplicates": dup, "dropped": dropped, "expected": n, "max_seq": max_seq, "received": len(got)}.items()))
    return Outcome("ok", tuple(bits.tolist()), meta)


def ref_seqlist(data: bytes, expected: int | None, drop_beyond: bool) -> Outcome:
    if expected is not None and expected <= 0:
        return Outcome("param")
    entries: list[tuple[int, int]] = []
    first_content = True
    for i, line in enumerate(_lines(data), 1):
        s = line.strip(WS)
        if not s:
            continue
        if first_content:  # the reader sizes the trace here, from --expected or the header
            first_content = False
            if i == 1 and expected is None:
                expected = _header_expected(s)
                if expected == 0:
                    return Outcome("format", line=1)
            if expected is not None and expected > 10**8:
                return Outcome("memory")
        if s.startswith(b"#"):
            continue
        cut = len(s)
        for j, c in enumerate(s):
            if c in WS or c == 44:
                cut = j
                break
        v = _u64(s[:cut])
        if v is None:
            return Outcome("format", line=i)
        if expected is not None and v >= expected and not drop_beyond:
            return Outcome("format", line=i)  # the reader stops at the first bad line
        entries.append((v, i))
    out = ref_seqs(entries, expected, drop_beyond)
    if out.kind == "ok":
        m = dict(out.meta)
        if m["duplicates"] > m["received"]:  # burstlab.io refuses a list that mostly repeats numbers
            return Outcome("format")
    return out


def ref_mahimahi(data: bytes) -> Outcome:
    times: list[int] = []
    for i, line in enumerate(_lines(data), 1):
        s = line.strip(WS)
        if not s or s.startswith(b"#"):
            continue
        v = _u64(s)
        if v is None or (times and v < times[-1]):
            return Outcome("format", line=i)
        times.append(v)
    if not times:
        return Outcome("empty")
    if times[-1] == 0:
        return Outcome("format")
    return Outcome("ok", tuple(times))


# ------------------------------------------------------------------------ checks


_LINE = re.compile(r"^(?P<file>.*?):(?P<line>\d+): ")


def _observe(fn: Any, name: str) -> Outcome:
    """Run a reader; map its result or contract error to an Outcome (anything else escapes)."""
    try:
        r = fn()
    except TraceFormatError as e:
        msg = str(e)
        if name not in msg:
            raise ContractViolation(f"the error does not name the file {name!r}: {msg}") from e
        m = _LINE.match(msg)
        return Outcome("format", line=int(m.group("line")) if m and m.group("file") == name else None)
    except EmptyInputError as e:
        if name not in str(e):
            raise ContractViolation(f"the error does not name the file {name!r}: {e}") from e
        return Outcome("empty")
    except ParameterError:
        return Outcome("param")
    except MemoryError:
        return Outcome("memory")
    if isinstance(r, np.ndarray):
        return Outcome("ok", tuple(int(x) for x in r))
    meta = tuple(sorted((k, v) for k, v in r.meta.items() if k != "format"))
    return Outcome("ok", tuple(r.to_numpy().tolist()), meta)


def _compare(what: str, data: Any, got: Outcome, want: Outcome) -> None:
    if want.kind == "ok":
        if got.kind != "ok":
            raise ContractViolation(f"{what}: refused input the reference reads ({got.kind}, line {got.line}): {data!r}")
        if got.bits != want.bits:
            raise ContractViolation(f"{what}: misread: {got.bits[:40]}... vs {want.bits[:40]}...: {data!r}")
        if want.meta and got.meta != want.meta:
            raise ContractViolation(f"{what}: wrong meta {got.meta} vs {want.meta}: {data!r}")
        return
    if got.kind == "ok":
        raise ContractViolation(f"{what}: accepted input the reference refuses ({want.kind}, line {want.line}): {data!r}")
    if got.kind != want.kind:
        raise ContractViolation(f"{what}: error kind {got.kind} where the reference says {want.kind}: {data!r}")
    if want.line is not None and got.line != want.line:
        raise ContractViolation(f"{what}: the error names line {got.line}, the bad line is {want.line}: {data!r}")


def check_text(data: bytes, fmt: str, *, lost: bool = False, expected: int | None = None, drop_beyond: bool = False) -> Outcome:
    """One text trace (bits, string, seqlist, ttem) parsed from bytes, against the reference."""
    name = "fuzz.txt"
    got = _observe(
        lambda: parse_trace(data, fmt, name=name, one_means="lost" if lost else "received", expected=expected, drop_beyond=drop_beyond), name
    )
    if fmt == "bits":
        want = ref_bits(data, lost)
    elif fmt == "ttem":
        want = ref_bits(data, True)
    elif fmt == "string":
        want = ref_string(data, lost)
    else:
        want = ref_seqlist(data, expected, drop_beyond)
    if expected is not None and not 0 < expected < 2**64:
        want = Outcome("param")
    if fmt != "seqlist":
        got = Outcome(got.kind, got.bits, (), got.line)
    _compare(f"{fmt} (lost={lost}, expected={expected}, drop_beyond={drop_beyond})", data, got, want)
    return got


def check_file(data: bytes, folder: Path, suffix: str = "") -> Outcome:
    """A file read with format detection: never another exception; a trace it returns has
    the bits the reference of the detected format gives (the detector may choose any format,
    and say so)."""
    p = folder / f"fuzz{suffix}"
    p.write_bytes(data)
    name = str(p)
    try:
        t = read_trace(p)
    except (BurstlabError, MemoryError) as e:
        if name not in str(e):
            raise ContractViolation(f"detect+read: the error does not name the file: {e}") from e
        return Outcome("error")
    fmt = t.meta["format"]
    if fmt in ("bits", "ttem", "string", "seqlist"):
        want = {"bits": ref_bits(data, False), "ttem": ref_bits(data, True), "string": ref_string(data, False)}.get(fmt) or ref_seqlist(data, None, False)
        got = Outcome("ok", tuple(t.to_numpy().tolist()), want.meta if fmt == "seqlist" else ())
        _compare(f"detected {fmt}", data, got, want)
    return Outcome("ok")


def check_mahimahi(data: bytes, folder: Path) -> Outcome:
    p = folder / "fuzz.down"
    p.write_bytes(data)
    got = _observe(lambda: read_mahimahi(p), str(p))
    _compare("mahimahi", data, got, ref_mahimahi(data))
    return got


# -- CSV: the reference reads what is unambiguous (plain numbers), and for anything else
#    only checks that what burstlab accepted means what it says.

_INT = re.compile(rb"^[0-9]+$")
_FLOAT = re.compile(rb"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$")


def ref_csv(data: bytes, expected: int | None) -> Outcome | None:
    """The reference reading of a CSV trace, or None where the text leaves the plain
    grammar (quotes, spaces, signs, special values: left to the semantic check)."""
    if not data.strip():
        return Outcome("empty")
    raw = data.split(b"\n")
    header = raw[0].decode("utf-8", "replace").strip()
    names = [h.strip().strip('"').lower() for h in header.split(",")]
    if not header or any(n not in ("seq", "time", "received", "lost") for n in names) or len(set(names)) != len(names):
        return Outcome("format", line=1)
    if "received" in names and "lost" in names:
        return Outcome("format")
    if expected is not None and expected <= 0:
        return Outcome("param")
    col = {n: j for j, n in enumerate(names)}
    val = "received" if "received" in col else "lost" if "lost" in col else None
    if val is None and "seq" not in col:
        return Outcome("format")
    # row by row, in file order: the first bad line is the one to name
    entries: list[tuple[int, int]] = []
    bits = []
    prev_seq = None
    prev_t = None
    for i, line in enumerate(raw[1:], 2):
        line = line[:-1] if line.endswith(b"\r") else line
        if not line:
            continue
        fields = line.split(b",")
        if len(fields) != len(names):
            return Outcome("format", line=i)
        for n, f in zip(names, fields):
            if not (_FLOAT if n == "time" else _INT).match(f):
                return None
        if "seq" in col:
            sv = int(fields[col["seq"]])
            if sv >= 2**64:
                return Outcome("format", line=i)
        if val is None:
            if expected is not None and sv >= expected:
                return Outcome("format", line=i)
            entries.append((sv, i))
            continue
        v = int(fields[col[val]])
        if v not in (0, 1):
            return Outcome("format", line=i)
        if "seq" in col:
            if prev_seq is not None and sv != prev_seq + 1:
                return Outcome("format", line=i)
            prev_seq = sv
        if "time" in col:
            t = float(fields[col["time"]])
            if not math.isfinite(t) or (prev_t is not None and t < prev_t):
                return Outcome("format", line=i)
            prev_t = t
        bits.append(v ^ (val == "lost"))
    if val is None:
        if not entries and expected is None:
            return Outcome("empty")
        out = ref_seqs(entries, expected, False)
        if out.kind != "ok":
            return out
        m = dict(out.meta)
        return Outcome("ok", out.bits, (("duplicates", m["duplicates"]), ("expected", m["expected"]), ("received", m["received"])))
    if not bits:
        return Outcome("empty")
    return Outcome("ok", tuple(bits))


def check_csv(data: bytes, folder: Path, expected: int | None = None) -> Outcome:
    p = folder / "fuzz.csv"
    p.write_bytes(data)
    name = str(p)
    got = _observe(lambda: read_trace(p, "csv", expected=expected), name)
    want = ref_csv(data, expected)
    if want is None:  # outside the plain grammar: whatever burstlab accepted must mean what it says
        if got.kind == "ok":
            _csv_semantics(data, got)
        return got
    if got.kind == "ok" and want.kind == "ok":
        got = Outcome("ok", got.bits, tuple((k, v) for k, v in got.meta if k in dict(want.meta)) if want.meta else (), None)
    _compare(f"csv (expected={expected})", data, got, want)
    return got


def _csv_semantics(data: bytes, got: Outcome) -> None:
    """An accepted CSV with a received/lost column: one entry per non-blank row, each the
    row's value (read leniently) in the right polarity."""
    raw = data.split(b"\n")
    names = [h.strip().strip('"').lower() for h in raw[0].decode("utf-8", "replace").strip().split(",")]
    val = "received" if "received" in names else "lost" if "lost" in names else None
    if val is None:
        return
    j = names.index(val)
    want = []
    for line in raw[1:]:
        line = line[:-1] if line.endswith(b"\r") else line
        if not line:
            continue
        fields = line.split(b",")
        try:
            v = float(fields[j].strip().strip(b'"'))
        except (ValueError, IndexError):
            return  # quoting beyond this check
        want.append(int(v) ^ (val == "lost"))
    if tuple(want) != got.bits:
        raise ContractViolation(f"csv: accepted and misread: {got.bits[:20]} vs {tuple(want)[:20]}: {data!r}")


# -- Parquet: a table is written from columns; the reference reads the columns directly.


def ref_table(cols: dict[str, np.ndarray], expected: int | None) -> Outcome | None:
    names = list(cols)
    if any(n not in ("seq", "time", "received", "lost") for n in names):
        return Outcome("format")
    if "received" in names and "lost" in names:
        return Outcome("format")
    if expected is not None and expected <= 0:
        return Outcome("param")

    def whole(a: np.ndarray) -> list[int] | int:
        """The sequence numbers, or the first bad row."""
        if a.dtype.kind not in "biuf":
            return -2
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(a.astype(np.float64)) | (a < 0) if a.dtype.kind == "f" else (a < 0)
            if a.dtype.kind == "f":
                bad |= (a != np.floor(a)) | (a >= 2.0**64)
        if bad.any():
            return int(np.argmax(bad))
        return [int(x) for x in a]

    val = "received" if "received" in cols else "lost" if "lost" in cols else None
    if val is None:
        if "seq" not in cols:
            return Outcome("format")
        if len(cols["seq"]) == 0 and expected is None:
            return Outcome("empty")
        s = whole(cols["seq"])
        if isinstance(s, int):
            return Outcome("format")
        if not s and expected is None:
            return Outcome("empty")
        out = ref_seqs([(v, i) for i, v in enumerate(s)], expected, False)
        if out.kind != "ok":
            return Outcome(out.kind)
        m = dict(out.meta)
        return Outcome("ok", out.bits, (("duplicates", m["duplicates"]), ("expected", m["expected"]), ("received", m["received"])))
    v = cols[val]
    if len(v) == 0:
        return Outcome("empty")
    if v.dtype.kind not in "biuf":
        return Outcome("format")
    with np.errstate(invalid="ignore"):
        if ((v != 0) & (v != 1)).any():
            return Outcome("format")
    if len(v) == 0:
        return Outcome("empty")
    if "seq" in cols:
        s = whole(cols["seq"])
        if isinstance(s, int) or any(b != a + 1 for a, b in zip(s, s[1:])):
            return Outcome("format")
    if "time" in cols:
        t = cols["time"]
        if t.dtype.kind not in "iuf":
            return None
        t = t.astype(np.float64)
        if not np.isfinite(t).all() or (np.diff(t) < 0).any():
            return Outcome("format")
    b = v.astype(np.uint8)
    return Outcome("ok", tuple((1 - b if val == "lost" else b).tolist()))


def check_parquet(cols: dict[str, np.ndarray], folder: Path, expected: int | None = None, corrupt: bytes | None = None) -> Outcome:
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = folder / "fuzz.parquet"
    try:
        pq.write_table(pa.table(cols), p)
    except (pa.ArrowException, ValueError, TypeError):
        return Outcome("skip")  # pyarrow cannot write this table: nothing to read
    if corrupt is not None:
        p.write_bytes(corrupt)
    name = str(p)
    got = _observe(lambda: read_trace(p, "parquet", expected=expected), name)
    if corrupt is not None:
        return got  # bytes changed under the format: only the kind of outcome is checked
    want = ref_table(cols, expected)
    if want is None:
        return got
    if got.kind == "ok" and want.kind == "ok":
        got = Outcome("ok", got.bits, tuple((k, v) for k, v in got.meta if k in dict(want.meta)) if want.meta else (), None)
    _compare(f"parquet (expected={expected}) {[(k, v.dtype) for k, v in cols.items()]}", {k: v.tolist()[:20] for k, v in cols.items()}, got, Outcome(want.kind, want.bits, want.meta, None))
    return got


# -- loss specs and command lines


def check_spec(spec: str) -> Outcome:
    """A loss spec parses to a model that samples, or is refused with a burstlab error (or
    an OSError for a replay file)."""
    from burstlab.lossspec import parse_loss_spec

    try:
        m = parse_loss_spec(spec)
    except (BurstlabError, OSError, MemoryError):
        return Outcome("error")
    if m is None:
        return Outcome("ok")
    bits = m.sample(257, 12345)
    if len(bits) != 257:
        raise ContractViolation(f"{spec!r}: sampled {len(bits)} entries, asked 257")
    return Outcome("ok")


def check_cli(argv: list[str]) -> int:
    """A command line exits 0, or 2 with exactly one `error:` line; never 3 (a bug), never a
    traceback."""
    from burstlab.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = os.environ.pop("BURSTLAB_DEBUG", None)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            rc = main(argv)
    finally:
        if old is not None:
            os.environ["BURSTLAB_DEBUG"] = old
    e = err.getvalue()
    if "Traceback" in e or "Traceback" in out.getvalue():
        raise ContractViolation(f"{argv}: a traceback: {e[-500:]}")
    if rc == 2:
        lines = [ln for ln in e.splitlines() if ln.strip()]
        errors = [ln for ln in lines if ln.startswith("error: ")]
        if len(errors) != 1 or not lines[-1].startswith("error: "):
            raise ContractViolation(f"{argv}: exit 2 without exactly one final error line: {e[-500:]}")
    elif rc != 0:
        raise ContractViolation(f"{argv}: exit {rc}: {e[-500:]}")
    return rc


def scratch() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="burstlab-fuzz-")


__all__ = [
    "GOOD_PIECES",
    "CSV_CELLS",
    "CSV_HEADERS",
    "LINE_PIECES",
    "NUMBERS",
    "SPEC_KINDS",
    "SPEC_PARAMS",
    "SPEC_VALUES",
    "ContractViolation",
    "Outcome",
    "check_cli",
    "check_csv",
    "check_file",
    "check_mahimahi",
    "check_parquet",
    "check_spec",
    "check_text",
    "scratch",
]
