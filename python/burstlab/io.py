"""Trace readers and writers, streamed: memory ≈ the packed trace (1 bit per entry) plus
a constant, whatever the format (docs/traces.md "Memory").

Formats (rules and examples in ``docs/traces.md``):

``bits``
    one ``0``/``1`` per line;
``string``
    one ``0``/``1`` string, whitespace (newlines included) allowed anywhere;
``seqlist``
    one line per *received* packet, ``seq [more fields]`` (the Rutgers ORBIT traces);
    ``expected`` = number of packets sent (default: max seq + 1);
``ttem``
    Ttem's time-slot channel trace (Barsocchi et al. §II.B): one entry per interval Δ
    (default 5 ms), 0 = good, 1 = bad; flipped to burstlab's 1 = delivered;
``csv``
    a header naming columns among ``seq``, ``time``, ``received`` (or ``lost``);
``parquet``
    the same columns in a Parquet file;
``probes``, ``ping``
    probe logs (``time sequence rtt`` tables, ``ping`` output) with timestamps, read by
    :mod:`burstlab.probelog` (read only).

Detection of the format (when none is given) is :mod:`burstlab.detect`.

A Mahimahi file (one line per 1500-byte delivery opportunity, in milliseconds) is a
link-capacity trace, not a reception trace: :func:`read_mahimahi` reads it, and the
readers above refuse it by name.

The text formats are parsed and written in Rust (:func:`burstlab._core.parse_file`,
:func:`burstlab._core.write_text`) through a fixed buffer; CSV and Parquet are read and
written in batches (pyarrow) into and out of the packed bits. Errors name the file, the
1-based line (or the row) and the offending text. Every writer writes a temporary file and
renames it, so a failed write never leaves a half-written trace.
"""

from __future__ import annotations

import csv as _csv
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from burstlab import _core, probelog
from burstlab.detect import _SNIFF_BYTES, _columns, _mahimahi_message, _sniff_lines, detect_format
from burstlab.formats import EXTENSIONS, FORMATS, PROBE_FORMATS, TEXT_FORMATS, WRITE_FORMATS
from burstlab.traces import Trace

__all__ = [
    "EXTENSIONS",
    "FORMATS",
    "TEXT_FORMATS",
    "WRITE_FORMATS",
    "atomic_write",
    "atomic_write_text",
    "check_output_path",
    "detect_format",
    "iter_trace_files",
    "output_dir",
    "parse_trace",
    "read_mahimahi",
    "read_trace",
    "remove_stale_temporaries",
    "write_trace",
]

OneMeans = Literal["received", "lost"]

#: Barsocchi et al. §II.B / §III: Ttem traces have one entry per 5 ms interval.
TTEM_INTERVAL = 0.005

#: Rows per batch of the CSV and Parquet readers and writers (memory: a few times this
#: many 8-byte values, a constant).
BATCH_ROWS = 1 << 18



def _check_format(fmt: str | None) -> None:
    if fmt is not None and fmt not in FORMATS:
        raise _core.ParameterError(f"invalid parameter format = {fmt!r}: expected one of {', '.join(FORMATS)}")


def _check_one_means(one_means: str) -> bool:
    if one_means not in ("received", "lost"):
        raise _core.ParameterError(f"invalid parameter one_means = {one_means!r}: expected 'received' or 'lost'")
    return one_means == "lost"


def _check_interval(interval: float | None) -> None:
    if interval is not None and not (np.isfinite(interval) and interval > 0):
        raise _core.ParameterError(f"invalid parameter interval = {interval}: expected a positive number of seconds")


def _check_expected(expected: int | None) -> None:
    if expected is not None and not (isinstance(expected, (int, np.integer)) and 0 < expected < 2**64):
        raise _core.ParameterError(f"invalid parameter expected = {expected}: expected a positive number of packets sent (below 2^64)")


def _text_trace(parsed: tuple[Any, ...], fmt: str, label: str, interval: float | None, detected: bool) -> Trace:
    """A trace from what the Rust text parser returned, with the sequence-list guards:
    a "sequence list" that mostly repeats numbers is a misread (a bits file given
    ``--format seqlist``), and a detected one that repeats numbers in a sorted single
    column is most likely a Mahimahi capacity trace."""
    bits, received, duplicates, dropped, max_seq, sorted_single = parsed
    meta: dict[str, Any] = {"format": fmt}
    if fmt == "seqlist":
        if duplicates > received:
            raise _core.TraceFormatError(
                f"{label}: {duplicates} of its {duplicates + received} sequence numbers repeat one already seen (only {received} distinct): "
                "not a list of received packets; if it holds one 0/1 per line, give --format bits instead of --format seqlist "
                "(a Mahimahi capacity trace is read by burstlab.io.read_mahimahi)"
            )
        if detected and duplicates and sorted_single:
            raise _core.TraceFormatError(_mahimahi_message(label))
        meta.update(expected=len(bits), received=received, duplicates=duplicates, dropped=dropped, max_seq=max_seq)
    if fmt == "ttem" and interval is None:
        interval = TTEM_INTERVAL
    return Trace(bits, interval=interval, name=label, meta=meta)


def parse_trace(
    data: bytes,
    fmt: str,
    *,
    name: str = "<input>",
    one_means: OneMeans = "received",
    expected: int | None = None,
    interval: float | None = None,
    drop_beyond: bool = False,
) -> Trace:
    """A trace from the bytes of a text format (``bits``, ``string``, ``seqlist``, ``ttem``).

    ``one_means`` sets the polarity of ``bits`` and ``string`` (``ttem`` is always 1 = bad);
    ``expected`` is the number of packets sent for ``seqlist`` (a seq ≥ expected is an
    error naming its line, or dropped and counted in ``meta['dropped']`` with
    ``drop_beyond``; without it, a first line ``# burstlab seqlist: expected=N`` gives
    it); ``interval`` is the time between entries in seconds (``ttem``: 5 ms unless given).
    """
    if fmt not in TEXT_FORMATS:
        raise _core.ParameterError(f"invalid parameter format = {fmt!r}: expected one of {', '.join(TEXT_FORMATS)}")
    lost = _check_one_means(one_means)
    _check_interval(interval)
    _check_expected(expected)
    parsed = _core.parse_text(data, fmt, file=name, one_means_lost=lost, expected=expected, drop_beyond=drop_beyond)
    return _text_trace(parsed, fmt, name, interval, detected=False)


def _open_head(p: Path) -> tuple[bytes, int]:
    """The first 64 KiB of ``p`` and its size (``OSError`` naming ``p`` otherwise)."""
    with open(p, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        return f.read(_SNIFF_BYTES), size


def read_trace(
    path: str | os.PathLike[str],
    fmt: str | None = None,
    *,
    one_means: OneMeans = "received",
    expected: int | None = None,
    interval: float | None = None,
    drop_beyond: bool = False,
    name: str | None = None,
) -> Trace:
    """Read one trace, streamed (memory: the packed trace plus a constant); the format is
    detected (:func:`detect_format`) unless ``fmt`` is given.

    Raises :class:`burstlab.TraceFormatError` (file, line, text),
    :class:`burstlab.EmptyInputError` (no entry), :class:`burstlab.ParameterError`, or
    ``MemoryError`` (a trace or an ``expected`` count larger than the memory available).
    """
    _check_format(fmt)
    lost = _check_one_means(one_means)
    _check_interval(interval)
    _check_expected(expected)
    p = Path(path)
    label = name or str(p)
    head, size = _open_head(p)
    detected = fmt is None
    if fmt is None:
        if not head.strip() and size == len(head) and expected is not None and p.suffix.lower() not in EXTENSIONS:
            fmt = "seqlist"  # nothing received out of `expected` sent
        else:
            fmt = detect_format(p, head)
    if fmt == "mahimahi":
        raise _core.TraceFormatError(_mahimahi_message(label))
    if fmt in PROBE_FORMATS:
        trace, _ = (probelog.read_probe_table if fmt == "probes" else probelog.read_ping)(p, name=label)
        return trace
    if fmt == "parquet":
        return _read_table(p, label, "parquet", expected=expected, interval=interval)
    if fmt == "csv":
        if not head.strip() and size == len(head):
            raise _core.EmptyInputError(f"{label}: empty file: no header and no trace entries")
        return _read_table(p, label, "csv", expected=expected, interval=interval)
    try:
        parsed = _core.parse_file(p, fmt, file=label, one_means_lost=lost, expected=expected, drop_beyond=drop_beyond)
    except _core.TraceFormatError as e:
        cols = _columns(_sniff_lines(head)) if fmt in ("bits", "string", "ttem") else None
        if cols is None:
            raise
        # a table read as 0/1 (given --format): say which format reads its columns
        better = "seqlist" if cols == "seqlist" else "seqlist, probes or csv"
        raise _core.TraceFormatError(f"{e}; the file has several columns per line, not 0/1 {fmt}: give --format {better}") from None
    return _text_trace(parsed, fmt, label, interval, detected)


def read_mahimahi(path: str | os.PathLike[str]) -> npt.NDArray[np.uint64]:
    """The delivery opportunities of a Mahimahi link-capacity trace, in milliseconds
    (``uint64``, non-decreasing; a repeated value is several 1500-byte packets in that
    millisecond), as Mahimahi's ``mm-link`` reads the file (Winstein, Sivaraman,
    Balakrishnan, NSDI 2013; docs/traces.md). Blank lines and ``#`` comments are skipped.

    Raises :class:`burstlab.TraceFormatError` naming ``file:line`` and the value (not an
    integer, a timestamp smaller than the one before, every timestamp 0),
    :class:`burstlab.EmptyInputError` (no line) or ``OSError`` naming the path.
    """
    p = Path(path)
    _open_head(p)  # OSError (missing, a directory, unreadable) with the user's path
    return _core.read_mahimahi(p, str(p))


def iter_trace_files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """The files named, with directories walked (sorted; hidden files and folders skipped)."""
    for p in map(Path, paths):
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for f in sorted(files):
                    if not f.startswith("."):
                        yield Path(root) / f
        else:
            yield p


# -- tables (CSV, Parquet), in batches ---------------------------------------------

_COLUMNS = ("seq", "time", "received", "lost")


def _csv_header(p: Path, label: str) -> list[str]:
    with open(p, "rb") as f:
        first = f.readline(_SNIFF_BYTES)
    header_line = first.decode("utf-8", "replace").strip()
    header = [h.strip().strip('"').lower() for h in header_line.split(",")]
    if not header_line or any(h not in _COLUMNS for h in header) or len(set(header)) != len(header):
        raise _core.TraceFormatError(
            f"{label}:1: the header must name distinct columns among seq, time, received, lost: {header_line[:80]!r}"
        )
    return header


def _csv_rows(p: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of the data rows of a CSV file as pyarrow counts them (the
    header and blank lines skipped), streamed."""
    with open(p, "rb") as f:
        f.readline()
        for lineno, raw in enumerate(f, 2):
            text = raw.decode("utf-8", "replace").rstrip("\r\n")
            if text:
                yield lineno, text


def _csv_line_of_row(p: Path, row: int) -> tuple[int, str] | None:
    for i, (lineno, text) in enumerate(_csv_rows(p)):
        if i == row:
            return lineno, text
    return None


def _first_bad_csv_row(p: Path, label: str, header: list[str], expected: int | None = None) -> _core.TraceFormatError | None:
    """The first CSV row, in file order, that breaks any rule of the format (a field that
    does not parse, a value out of its domain, seq not counting up, time going backwards,
    a seq beyond ``expected``), as an error naming its line and text. The streaming reader
    finds problems batch by batch; on its error path this scan names the first one."""
    val = "received" if "received" in header else "lost" if "lost" in header else None
    prev_seq: int | None = None
    prev_t: float | None = None
    for lineno, text in _csv_rows(p):

        def err(why: str) -> _core.TraceFormatError:
            return _core.TraceFormatError(f"{label}:{lineno}: {why}: {text[:80]!r}")

        if "\0" in text:
            return err("a NUL byte: not a CSV text line")
        try:
            fields = next(_csv.reader([text]))
        except _csv.Error as e:
            return err(f"not a CSV row ({e})")
        if len(fields) != len(header):
            return err(f"expected {len(header)} fields ({', '.join(header)})")
        row: dict[str, float | int] = {}
        for col, v in zip(header, fields):
            v = v.strip()
            if not v:
                return err(f"empty {col} field")
            if col == "time":
                try:
                    row[col] = float(v)
                except ValueError:
                    return err("time is not a number")
                continue
            if not (v.isascii() and v.isdigit()):
                try:
                    x = float(v)
                except ValueError:
                    return err(f"{col} is not a number")
                if x < 0 and col == "seq":
                    return err("negative sequence number")
                return err(f"{col} is not a whole number written with digits only")
            row[col] = int(v)
            if col == "seq" and row[col] >= 2**64:
                return err("seq is not a sequence number in 0 .. 2^64-1")
            if col != "seq" and row[col] not in (0, 1):
                return err(f"{col} must be 0 or 1")
        if val is None:
            if expected is not None and "seq" in row and row["seq"] >= expected:
                return err(f"sequence number {row['seq']} is beyond the {expected} packets expected (0..{expected - 1})")
            continue
        if "seq" in row:
            if prev_seq is not None and row["seq"] != prev_seq + 1:
                return err(f"seq must count up by one per row (got {prev_seq} then {row['seq']})")
            prev_seq = int(row["seq"])
        if "time" in row:
            t = float(row["time"])
            if not np.isfinite(t):
                return err("time is not a finite number")
            if prev_t is not None and t < prev_t:
                return err(f"time goes backwards ({prev_t} then {t})")
            prev_t = t
    return None


class _Where:
    """Names a row in messages: ``FILE:LINE`` for CSV (found by a scan, on the error path
    only), ``FILE: row N`` (0-based) for Parquet."""

    def __init__(self, p: Path, label: str, kind: str) -> None:
        self.p, self.label, self.kind = p, label, kind

    def __call__(self, row: int) -> str:
        if self.kind == "csv":
            hit = _csv_line_of_row(self.p, row)
            if hit is not None:
                return f"{self.label}:{hit[0]}"
        return f"{self.label}: row {row}"

    def text(self, row: int) -> str:
        if self.kind == "csv":
            hit = _csv_line_of_row(self.p, row)
            if hit is not None:
                return f": {hit[1][:80]!r}"
        return ""


def _batches(p: Path, label: str, kind: str, header: list[str] | None, expected: int | None = None) -> Iterator[dict[str, npt.NDArray[Any]]]:
    """The table's columns in batches of about ``BATCH_ROWS`` rows (CSV: every value
    parsed by pyarrow with the column's type; a row that does not parse is reported with
    its line)."""
    import pyarrow as pa

    if kind == "parquet":
        import pyarrow.parquet as pq

        try:
            # One row group at a time (pyarrow's iter_batches keeps what it read: its peak
            # grew with the file, ~80× the packed trace): memory is one row group, which the
            # file's writer chose (burstlab writes BATCH_ROWS rows per group).
            pf = pq.ParquetFile(p, buffer_size=1 << 20)
            names = [n.lower() for n in pf.schema_arrow.names]
            for g in range(pf.metadata.num_row_groups):
                for b in pf.read_row_group(g, use_threads=False).to_batches(max_chunksize=BATCH_ROWS):
                    yield {n: b.column(i).to_numpy(zero_copy_only=False) for i, n in enumerate(names)}
            return
        except (pa.ArrowException, OSError, ValueError) as e:
            if isinstance(e, OSError) and e.errno is not None:
                raise
            raise _core.TraceFormatError(f"{label}: not a readable Parquet file: {' '.join(str(e).split())[:200]}") from None
    import pyarrow.csv as pcsv

    assert header is not None
    with open(p, "rb") as f:
        f.readline()
        if not f.read(1):
            return  # a header and nothing else (pyarrow cannot skip a header without a newline)
    types = {"seq": pa.uint64(), "time": pa.float64(), "received": pa.int64(), "lost": pa.int64()}
    try:
        # Small blocks, one thread and the system allocator: pyarrow's default (4 MiB blocks
        # read ahead by threads into mimalloc, which keeps what it had) peaks at ~20× the
        # packed trace on a 10^8-row file; these settings keep it a constant and read faster.
        reader = pcsv.open_csv(
            p,
            read_options=pcsv.ReadOptions(column_names=header, skip_rows=1, block_size=1 << 18, use_threads=False),
            convert_options=pcsv.ConvertOptions(column_types={h: types[h] for h in header}),
            memory_pool=pa.system_memory_pool(),
        )
        for b in reader:
            cols: dict[str, npt.NDArray[Any]] = {}
            for h in header:
                col = b.column(h)
                if col.null_count:
                    raise pa.ArrowInvalid("empty field")
                cols[h] = col.to_numpy(zero_copy_only=False)
            yield cols
    except (pa.ArrowException, ValueError, UnicodeDecodeError) as e:
        bad = _first_bad_csv_row(p, label, header, expected)
        if bad is not None:
            raise bad from None
        raise _core.TraceFormatError(f"{label}: malformed CSV: {' '.join(str(e).split())[:200]}") from None


def _read_table(p: Path, label: str, kind: str, *, expected: int | None, interval: float | None, keep_times: bool = False) -> Trace:
    """A CSV or Parquet table → trace, in batches. With ``received`` (or ``lost``): one
    row per entry in file order, ``seq`` (optional) must count up by one, ``time``
    (optional) gives timestamps, or the interval when it is exactly index × Δ. Without
    them but with ``seq``: one row per received packet, like ``seqlist``."""
    header = _csv_header(p, label) if kind == "csv" else None
    where = _Where(p, label, kind)
    stored_interval = None
    names: list[str] | None = header
    if kind == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            schema = pq.read_schema(p)
        except (pa.ArrowException, OSError, ValueError) as e:
            if isinstance(e, OSError) and e.errno is not None:
                raise
            raise _core.TraceFormatError(f"{label}: not a readable Parquet file: {' '.join(str(e).split())[:200]}") from None
        names = [n.lower() for n in schema.names]
        md = schema.metadata or {}
        if b"burstlab.interval" in md:
            try:
                stored_interval = float(md[b"burstlab.interval"])
            except ValueError:
                stored_interval = None
            if stored_interval is not None and not (np.isfinite(stored_interval) and stored_interval > 0):
                stored_interval = None
        unknown = [n for n in names if n not in _COLUMNS]
        if unknown or len(set(names)) != len(names):
            raise _core.TraceFormatError(f"{label}: the columns must be distinct names among seq, time, received, lost: {schema.names}")
    assert names is not None
    if "received" in names and "lost" in names:
        raise _core.TraceFormatError(f"{label}: give either a received or a lost column, not both")
    val_col = "received" if "received" in names else "lost" if "lost" in names else None
    if val_col is None and "seq" not in names:
        raise _core.TraceFormatError(f"{label}: needs a received (or lost) column, or a seq column of received packets")
    meta: dict[str, Any] = {"format": kind}

    def first_non_sequence(a: npt.NDArray[Any]) -> int | None:
        """The first entry of ``a`` that is not a sequence number (whole, ≥ 0, < 2^64)."""
        if a.dtype.kind == "u":
            return None
        if a.dtype.kind == "i":
            bad = a < 0
        elif a.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                bad = ~np.isfinite(a) | (a != np.floor(a)) | (a < 0) | (a >= 2.0**64)
        elif a.dtype.kind == "b":
            return None
        else:
            return -1
        return int(np.argmax(bad)) if bad.any() else None

    def fail(problems: list[tuple[int, str]], row0: int) -> None:
        """Raise the problem of the earliest row (the first bad line in file order: for CSV,
        the full scan finds it, an earlier batch's rows included)."""
        if problems:
            if kind == "csv" and header is not None:
                bad = _first_bad_csv_row(p, label, header, expected)
                if bad is not None:
                    raise bad
            i, msg = min(problems, key=lambda x: x[0])
            raise _core.TraceFormatError(f"{where(row0 + i)}: {msg}{where.text(row0 + i)}")

    def integers(col: str, a: npt.NDArray[Any], row0: int) -> npt.NDArray[np.uint64]:
        """Column ``col`` as sequence numbers: whole, non-negative, below 2^64."""
        i = first_non_sequence(a)
        if i == -1:
            raise _core.TraceFormatError(f"{label}: {col} must be a column of whole numbers, not {a.dtype}")
        if i is not None:
            fail([(i, f"{col} = {a[i].item()!r} is not a sequence number (a whole number ≥ 0)")], row0)
        return a.astype(np.uint64)

    row0 = 0
    if val_col is None:  # received sequence numbers, like seqlist
        acc = _core.SeqListBuilder(label, expected, False)

        def as_line(e: _core.TraceFormatError) -> _core.TraceFormatError:
            """The builder names rows; a CSV's messages name lines."""
            m = re.match(rf"{re.escape(label)}: row (\d+): (.*)", str(e), flags=re.S)
            if m is None or kind != "csv":
                return e
            if header is not None:
                bad = _first_bad_csv_row(p, label, header, expected)
                if bad is not None:
                    return bad
            return _core.TraceFormatError(f"{where(int(m.group(1)))}: {m.group(2)}")

        for cols in _batches(p, label, kind, header, expected):
            seqs = integers("seq", cols["seq"], row0)
            try:
                acc.add(seqs, row0, rows=True)
            except _core.TraceFormatError as e:
                raise as_line(e) from None
            row0 += len(seqs)
        if row0 == 0 and expected is None:
            raise _core.EmptyInputError(f"{label}: empty file: no received packet, and no expected count")
        try:
            bits, received, duplicates, dropped, max_seq = acc.finish()
        except _core.TraceFormatError as e:
            raise as_line(e) from None
        meta.update(expected=len(bits), received=received, duplicates=duplicates)
        return Trace(bits, interval=interval if interval is not None else stored_interval, name=label, meta=meta)

    builder = _core.BitTraceBuilder()
    next_seq: int | None = None
    t_last: float | None = None
    step: float | None = stored_interval
    slotted = "time" in names and interval is None  # until a time shows otherwise
    times: list[npt.NDArray[np.float64]] = []
    for cols in _batches(p, label, kind, header, expected):
        vals = cols[val_col]
        n = len(vals)
        if vals.dtype.kind not in "biuf":
            raise _core.TraceFormatError(f"{label}: {val_col} must be a column of 0/1 numbers, not {vals.dtype}")
        problems: list[tuple[int, str]] = []
        with np.errstate(invalid="ignore"):
            bad = (vals != 0) & (vals != 1)
        if bad.any():
            i = int(np.argmax(bad))
            problems.append((i, f"{val_col} must be 0 or 1, got {vals[i].item()!r}"))
        if "seq" in cols and n:
            a = cols["seq"]
            first_bad = first_non_sequence(a)
            if first_bad == -1:
                raise _core.TraceFormatError(f"{label}: seq must be a column of whole numbers, not {a.dtype}")
            if first_bad is not None:
                problems.append((first_bad, f"seq = {a[first_bad].item()!r} is not a sequence number (a whole number ≥ 0)"))
                a = a[:first_bad]  # the counting check below stops where the numbers do
            seq = a.astype(np.int64) if a.dtype.kind != "u" else a.astype(np.uint64)
            if seq.size and next_seq is not None and int(seq[0]) != next_seq:
                problems.append((0, f"seq must count up by one per row (got {next_seq - 1} then {int(seq[0])})"))
            steps = np.diff(seq.astype(np.float64)) if seq.dtype.kind == "u" else np.diff(seq)
            if steps.size and (steps != 1).any():
                i = int(np.argmax(steps != 1)) + 1
                problems.append((i, f"seq must count up by one per row (got {int(seq[i - 1])} then {int(seq[i])})"))
            if seq.size:
                next_seq = int(seq[-1]) + 1
        t = None
        if "time" in cols and n:
            if cols["time"].dtype.kind not in "biuf":
                raise _core.TraceFormatError(f"{label}: time must be a column of numbers (seconds), not {cols['time'].dtype}")
            t = np.asarray(cols["time"], dtype=np.float64)
            if not np.isfinite(t).all():
                i = int(np.argmax(~np.isfinite(t)))
                problems.append((i, "time is not a finite number"))
            if t_last is not None and t[0] < t_last:
                problems.append((0, f"time goes backwards ({t_last} then {t[0]})"))
            with np.errstate(invalid="ignore"):  # inf − inf: already reported above
                back = np.diff(t) < 0
            if back.any():
                i = int(np.argmax(back)) + 1
                problems.append((i, f"time goes backwards ({t[i - 1]} then {t[i]})"))
        fail(problems, row0)
        b = vals.astype(np.uint8)
        builder.extend(1 - b if val_col == "lost" else b)
        if t is not None:
            t_last = float(t[-1])
            if keep_times:
                times.append(t)
            elif slotted:
                # A time column that is exactly index × Δ is a slotted trace (what the
                # writer writes for an interval trace): kept as an interval, not timestamps.
                if step is None and row0 == 0 and n > 1:
                    step = float(t[1] - t[0])
                idx = np.arange(row0, row0 + n, dtype=np.float64)
                ok = (
                    step is not None
                    and step > 0
                    and not (row0 == 0 and t[0] != 0)
                    and np.allclose(t, idx * step, rtol=1e-12, atol=0)
                )
                if not ok and (step is not None or n > 1 or row0 > 0):
                    # not slotted: read again keeping the timestamps (a second pass only here)
                    return _read_table(p, label, kind, expected=expected, interval=interval, keep_times=True)
        row0 += n
    if row0 == 0:
        raise _core.EmptyInputError(f"{label}: empty file: no trace entries")
    bits = builder.finish()
    timestamps = None
    if keep_times:
        timestamps = np.concatenate(times) if times else None
    elif slotted and interval is None:
        if step is not None and step > 0:
            interval = step
        elif row0 == 1:
            timestamps = np.array([t_last], dtype=np.float64)  # one time value cannot say the step
    elif interval is None and stored_interval is not None:
        interval = stored_interval
    return Trace(bits, interval=interval, timestamps=timestamps, name=label, meta=meta)


# -- writers --------------------------------------------------------------------------


from burstlab.files import (  # noqa: E402  (re-exported: the safe writing of any output file)
    atomic_write,
    atomic_write_text,
    check_output_path,
    output_dir,
    remove_stale_temporaries,
)


def format_trace(trace: Trace, fmt: str, *, one_means: OneMeans = "received") -> bytes:
    """The bytes of ``trace`` in a text format (see :func:`write_trace`; this one holds the
    whole text in memory)."""
    lost = _check_one_means(one_means)
    if fmt not in TEXT_FORMATS:
        raise _core.ParameterError(f"invalid parameter format = {fmt!r}: expected one of {', '.join(TEXT_FORMATS)}")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d) / "t"
        _core.write_text(trace.bits, tmp, fmt, lost)
        return tmp.read_bytes()


def _table_batches(trace: Trace) -> Iterator[dict[str, npt.NDArray[Any]]]:
    """Columns ``seq, [time,] received`` in batches of ``BATCH_ROWS`` rows, unpacked from
    the packed words one batch at a time."""
    n = len(trace)
    packed = trace.packed().view(np.uint8)  # little-endian words: byte i holds entries 8i..8i+7
    for a in range(0, n, BATCH_ROWS):
        b = min(n, a + BATCH_ROWS)
        received = np.unpackbits(packed[a // 8 : (b + 7) // 8], bitorder="little")[: b - a].astype(np.int64)
        cols: dict[str, npt.NDArray[Any]] = {"seq": np.arange(a, b, dtype=np.int64)}
        if trace.timestamps is not None:
            cols["time"] = trace.timestamps[a:b]
        elif trace.interval is not None:
            cols["time"] = np.arange(a, b, dtype=np.float64) * trace.interval
        cols["received"] = received
        yield cols


def write_trace(
    trace: Trace,
    path: str | os.PathLike[str],
    fmt: str | None = None,
    *,
    one_means: OneMeans = "received",
) -> None:
    """Write ``trace`` atomically and streamed (memory: the packed trace plus a constant);
    the format comes from ``fmt`` or the extension (default ``bits``). CSV and Parquet get
    columns ``seq, [time,] received``; ``seqlist`` starts with a
    ``# burstlab seqlist: expected=N`` comment so trailing losses survive. A full disk is
    an ``OSError`` naming ``path``, and no file is left behind."""
    _check_format(fmt)
    if fmt in PROBE_FORMATS:
        raise _core.ParameterError(f"invalid parameter format = {fmt!r}: probe logs are read, not written; write one of {', '.join(WRITE_FORMATS)}")
    lost = _check_one_means(one_means)
    p = Path(path)
    if len(trace) == 0:  # every reader refuses an empty trace: writing one would not round-trip
        raise _core.EmptyInputError(f"{p}: cannot write an empty trace: a trace file holds at least one entry (what the readers take)")
    fmt = fmt or EXTENSIONS.get(p.suffix.lower(), "bits")
    if fmt in TEXT_FORMATS:
        atomic_write(p, lambda tmp: _core.write_text(trace.bits, tmp, fmt, lost))
        return
    import pyarrow as pa

    fields = [pa.field("seq", pa.int64())]
    if trace.timestamps is not None or trace.interval is not None:
        fields.append(pa.field("time", pa.float64()))
    fields.append(pa.field("received", pa.int64()))
    schema = pa.schema(fields)
    if fmt == "csv":
        import pyarrow.csv as pcsv

        def write_csv(tmp: str) -> None:
            with pcsv.CSVWriter(tmp, schema, write_options=pcsv.WriteOptions(quoting_style="none")) as w:
                for cols in _table_batches(trace):
                    w.write_table(pa.table(cols, schema=schema))

        atomic_write(p, write_csv)
    else:
        import pyarrow.parquet as pq

        if trace.interval is not None:
            schema = schema.with_metadata({b"burstlab.interval": repr(trace.interval).encode()})

        def write_parquet(tmp: str) -> None:
            with pq.ParquetWriter(tmp, schema) as w:
                for cols in _table_batches(trace):
                    w.write_table(pa.table(cols, schema=schema))
                if len(trace) == 0:
                    w.write_table(pa.table({f.name: pa.array([], f.type) for f in schema}, schema=schema))

        atomic_write(p, write_parquet)
