"""Trace readers and writers.

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
    the same columns in a Parquet file.

The text formats are parsed in Rust (:func:`burstlab._core.parse_text`); errors name the
file, the 1-based line and the offending text. Every writer writes a temporary file and
renames it, so a failed write never leaves a half-written trace.
"""

from __future__ import annotations

import contextlib
import csv as _csv
import errno
import io as _io
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from burstlab import _core
from burstlab.traces import Trace

FORMATS = ("bits", "string", "seqlist", "ttem", "csv", "parquet")
TEXT_FORMATS = ("bits", "string", "seqlist", "ttem")
OneMeans = Literal["received", "lost"]

#: Barsocchi et al. §II.B / §III: Ttem traces have one entry per 5 ms interval.
TTEM_INTERVAL = 0.005

#: Extensions that decide the format before the content is looked at.
EXTENSIONS = {
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".ttem": "ttem",
    ".bits": "bits",
    ".seq": "seqlist",
    ".seqlist": "seqlist",
}

_SNIFF_BYTES = 1 << 16
_SNIFF_LINES = 200
_EXPECTED_RE = re.compile(rb"^#\s*burstlab seqlist\b.*\bexpected=(\d+)")


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


def detect_format(path: str | os.PathLike[str], head: bytes | None = None) -> str:
    """The format of ``path``: by extension (``EXTENSIONS``), then the Parquet magic, then
    by content (first 64 KiB, up to 200 non-comment lines):

    - a first line that is a comma-separated header of ``seq``/``time``/``received``/``lost`` → ``csv``;
    - most lines a single ``0`` or ``1``, with repeats → ``bits``;
    - most lines made of ``0``/``1`` characters, some longer than one → ``string``;
    - otherwise, a first line whose first field is a non-negative integer → ``seqlist``.

    The parser then reports any line that does not fit the format chosen.

    ``ttem`` looks exactly like ``bits`` and is only chosen by extension or by ``--format``.
    """
    p = Path(path)
    ext = EXTENSIONS.get(p.suffix.lower())
    if ext is not None:
        return ext
    if head is None:
        with open(p, "rb") as f:
            head = f.read(_SNIFF_BYTES)
    if head[:4] == b"PAR1":
        return "parquet"
    nul = head.find(b"\0")
    if nul >= 0:  # no text trace format has NUL bytes: say so instead of quoting the bytes
        raise _core.TraceFormatError(
            f"{p}: binary content (a NUL byte at offset {nul}), not a text trace; give --format if it is one of {', '.join(FORMATS)}"
        )
    lines: list[bytes] = []
    raw = head.split(b"\n")
    if len(head) == _SNIFF_BYTES and len(raw) > 1:
        raw = raw[:-1]  # the last line may be cut
    for line in raw:
        s = line.strip()
        if s and not s.startswith(b"#"):
            lines.append(s)
            if len(lines) >= _SNIFF_LINES:
                break
    if not lines:
        raise _core.EmptyInputError(
            f"{p}: empty file: no trace entries (if it lists received packets, give --expected N: nothing was received)"
        )
    first = lines[0].lower()
    names = {c.strip().strip(b'"') for c in first.split(b",")}
    if names and names <= {b"seq", b"time", b"received", b"lost"}:
        return "csv"
    n = len(lines)
    n_bit = sum(1 for s in lines if s in (b"0", b"1"))
    # A 0/1 string line: only 0, 1 and blanks, and a token longer than one character or
    # at least three tokens ("0 0" is more likely `seq rssi` than a string).
    n_str = sum(
        1
        for s in lines
        if len(s) > 1 and not s.translate(None, b"01 \t\r") and (len(s.split()) > 2 or max(map(len, s.split())) > 1)
    )
    # Mostly single 0/1 lines, with repeats (a received-sequence list has each number
    # once): bits. A stray malformed line is then reported by the parser, with its line.
    if n_bit * 2 > n and (n_bit > 2 or n_bit == n):
        return "bits"
    if n_str and (n_str + n_bit) * 2 > n:
        return "string"
    if re.split(rb"[\s,]+", lines[0])[0].isdigit():
        return "seqlist"
    raise _core.TraceFormatError(
        f"{p}: cannot tell the trace format from the content (first entry {lines[0][:60].decode('utf-8', 'replace')!r}); "
        f"give one of {', '.join(FORMATS)} with --format"
    )


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
    ``drop_beyond``); ``interval`` is the time between entries in seconds (``ttem``:
    5 ms unless given).
    """
    if fmt not in TEXT_FORMATS:
        raise _core.ParameterError(f"invalid parameter format = {fmt!r}: expected one of {', '.join(TEXT_FORMATS)}")
    lost = _check_one_means(one_means)
    _check_interval(interval)
    if expected is not None and expected <= 0:
        raise _core.ParameterError(f"invalid parameter expected = {expected}: expected a positive number of packets sent")
    meta: dict[str, Any] = {"format": fmt}
    if fmt == "seqlist" and expected is None:
        m = _EXPECTED_RE.match(data[:200])
        if m:
            expected = int(m.group(1))
    bits, received, duplicates, dropped, max_seq = _core.parse_text(
        data, fmt, file=name, one_means_lost=lost, expected=expected, drop_beyond=drop_beyond
    )
    if fmt == "seqlist":
        meta.update(expected=len(bits), received=received, duplicates=duplicates, dropped=dropped, max_seq=max_seq)
    if fmt == "ttem" and interval is None:
        interval = TTEM_INTERVAL
    return Trace(bits, interval=interval, name=name, meta=meta)


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
    """Read one trace; the format is detected (:func:`detect_format`) unless ``fmt`` is given.

    Raises :class:`burstlab.TraceFormatError` (file, line, text),
    :class:`burstlab.EmptyInputError` (no entry) or :class:`burstlab.ParameterError`.
    """
    _check_format(fmt)
    _check_one_means(one_means)
    _check_interval(interval)
    p = Path(path)
    label = name or str(p)
    data = p.read_bytes()
    if fmt is None:
        if not data.strip() and expected is not None and p.suffix.lower() not in EXTENSIONS:
            fmt = "seqlist"  # nothing received out of `expected` sent
        else:
            fmt = detect_format(p, data[:_SNIFF_BYTES])
    if fmt == "parquet":
        return _read_table(_read_parquet(p), label, expected=expected, interval=interval, fmt="parquet")
    if fmt == "csv":
        return _read_csv(data, label, expected=expected, interval=interval)
    return parse_trace(
        data, fmt, name=label, one_means=one_means, expected=expected, interval=interval, drop_beyond=drop_beyond
    )


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


# -- tables (CSV, Parquet) ------------------------------------------------------------


def _read_parquet(p: Path) -> dict[str, Any]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(p)
    except Exception as e:  # pyarrow raises its own ArrowInvalid/OSError types
        raise _core.TraceFormatError(f"{p}: not a readable Parquet file: {e}") from None
    cols: dict[str, Any] = {c.lower(): table.column(c).to_numpy() for c in table.column_names}
    md = table.schema.metadata or {}
    if b"burstlab.interval" in md:
        cols["__interval__"] = float(md[b"burstlab.interval"])
    return cols


def _first_bad_row(data: bytes, name: str, header: list[str]) -> None:
    """Find and report the first CSV row that does not parse (line number and text)."""
    text = data.decode("utf-8", "replace")
    lines = text.splitlines()
    for lineno, row in enumerate(_csv.reader(_io.StringIO(text)), 1):
        if lineno == 1 or not row or (len(row) == 1 and not row[0].strip()):
            continue
        line = lines[lineno - 1] if lineno - 1 < len(lines) else ",".join(row)
        if len(row) != len(header):
            raise _core.TraceFormatError(f"{name}:{lineno}: expected {len(header)} fields ({', '.join(header)}): {line!r}")
        for col, v in zip(header, row):
            try:
                x = float(v)
            except ValueError:
                raise _core.TraceFormatError(f"{name}:{lineno}: {col} is not a number: {line!r}") from None
            if col in ("seq", "received", "lost") and x != int(x):
                raise _core.TraceFormatError(f"{name}:{lineno}: {col} is not an integer: {line!r}")


def _read_csv(data: bytes, name: str, *, expected: int | None, interval: float | None) -> Trace:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    if not data.strip():
        raise _core.EmptyInputError(f"{name}: empty file: no header and no trace entries")
    header_line = data.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    header = [h.strip().strip('"').lower() for h in header_line.split(",")]
    unknown = [h for h in header if h not in ("seq", "time", "received", "lost")]
    if unknown or len(set(header)) != len(header):
        raise _core.TraceFormatError(
            f"{name}:1: the header must name distinct columns among seq, time, received, lost: {header_line!r}"
        )
    types = {"seq": pa.int64(), "time": pa.float64(), "received": pa.int64(), "lost": pa.int64()}
    try:
        table = pcsv.read_csv(
            pa.BufferReader(data),
            read_options=pcsv.ReadOptions(column_names=header, skip_rows=1),
            convert_options=pcsv.ConvertOptions(column_types={h: types[h] for h in header}),
        )
    except pa.ArrowInvalid as e:
        _first_bad_row(data, name, header)
        raise _core.TraceFormatError(f"{name}: malformed CSV: {e}") from None
    cols: dict[str, Any] = {}
    for h in header:
        col = table.column(h)
        if col.null_count:
            i = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
            raise _core.TraceFormatError(f"{name}:{i + 2}: empty {h} field")
        cols[h] = col.to_numpy()
    return _read_table(cols, name, expected=expected, interval=interval, fmt="csv", line_offset=2)


def _read_table(
    cols: dict[str, Any],
    name: str,
    *,
    expected: int | None,
    interval: float | None,
    fmt: str,
    line_offset: int = 0,
) -> Trace:
    """Columns → trace. With ``received`` (or ``lost``): one row per entry in file order,
    ``seq`` (optional) must count up by one, ``time`` (optional) gives timestamps. Without
    them but with ``seq``: one row per received packet, like ``seqlist``."""

    def where(i: int) -> str:
        return f"{name}:{i + line_offset}" if line_offset else f"{name}: row {i}"

    meta: dict[str, Any] = {"format": fmt}
    stored_interval = cols.pop("__interval__", None)
    if "received" in cols and "lost" in cols:
        raise _core.TraceFormatError(f"{name}: give either a received or a lost column, not both")
    val_col = "received" if "received" in cols else "lost" if "lost" in cols else None
    if val_col is None:
        if "seq" not in cols:
            raise _core.TraceFormatError(f"{name}: needs a received (or lost) column, or a seq column of received packets")
        seq = np.asarray(cols["seq"])
        if seq.size == 0 and expected is None:
            raise _core.EmptyInputError(f"{name}: empty file: no received packet, and no expected count")
        if seq.size and seq.min() < 0:
            i = int(np.argmax(seq < 0))
            raise _core.TraceFormatError(f"{where(i)}: negative sequence number {int(seq[i])}")
        n = int(expected) if expected is not None else int(seq.max()) + 1
        if seq.size and seq.max() >= n:
            i = int(np.argmax(seq >= n))
            raise _core.TraceFormatError(f"{where(i)}: sequence number {int(seq[i])} is beyond the {n} packets expected")
        bits = np.zeros(n, dtype=np.uint8)
        bits[seq.astype(np.int64)] = 1
        meta.update(expected=n, received=int(bits.sum()), duplicates=int(seq.size - bits.sum()))
        return Trace(bits, interval=interval, name=name, meta=meta)
    vals = np.asarray(cols[val_col])
    if vals.size == 0:
        raise _core.EmptyInputError(f"{name}: empty file: no trace entries")
    bad = (vals != 0) & (vals != 1)
    if bad.any():
        i = int(np.argmax(bad))
        raise _core.TraceFormatError(f"{where(i)}: {val_col} must be 0 or 1, got {vals[i]!r}")
    if "seq" in cols:
        seq = np.asarray(cols["seq"], dtype=np.int64)
        steps = np.diff(seq)
        if steps.size and (steps != 1).any():
            i = int(np.argmax(steps != 1)) + 1
            raise _core.TraceFormatError(
                f"{where(i)}: seq must count up by one per row (got {int(seq[i - 1])} then {int(seq[i])})"
            )
    bits = vals.astype(np.uint8)
    if val_col == "lost":
        bits = 1 - bits
    timestamps = None
    if "time" in cols:
        t = np.asarray(cols["time"], dtype=np.float64)
        if not np.isfinite(t).all():
            i = int(np.argmax(~np.isfinite(t)))
            raise _core.TraceFormatError(f"{where(i)}: time is not a finite number")
        d = np.diff(t)
        if d.size and (d < 0).any():
            i = int(np.argmax(d < 0)) + 1
            raise _core.TraceFormatError(f"{where(i)}: time goes backwards ({t[i - 1]} then {t[i]})")
        if interval is None:
            # A time column that is exactly index × Δ is a slotted trace (what the writer
            # writes for an interval trace): keep it as an interval, not timestamps.
            step = stored_interval if stored_interval is not None else (float(t[1] - t[0]) if t.size > 1 else None)
            if step is not None and step > 0 and t[0] == 0 and np.allclose(t, np.arange(t.size) * step, rtol=1e-12, atol=0):
                interval = step
            else:
                timestamps = t
    elif stored_interval is not None and interval is None:
        interval = stored_interval
    return Trace(bits, interval=interval, timestamps=timestamps, name=name, meta=meta)


# -- writers --------------------------------------------------------------------------


def check_output_path(path: str | os.PathLike[str]) -> Path:
    """Check, before any work is done, that ``path`` can be written as a file: not a
    directory, and its folder either exists (and is a folder) or can be made. Raises
    ``OSError`` naming ``path``."""
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory, expected a file path", str(p))
    parent = p.parent
    for anc in (parent, *parent.parents):
        if anc.exists():
            if not anc.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, f"cannot write there: {anc} is not a directory", str(p))
            if not os.access(anc, os.W_OK | os.X_OK):
                raise PermissionError(errno.EACCES, f"cannot write there: {anc} is not writable", str(p))
            break
    return p


@contextlib.contextmanager
def output_dir(path: str | os.PathLike[str] | None) -> Iterator[Path | None]:
    """Make the output folder ``path`` now, before long work, so that an unwritable place
    fails at once (naming ``path``); if the work then fails and the folder was made here
    and is still empty, remove it again. ``None`` passes through."""
    if path is None:
        yield None
        return
    p = Path(path)
    existed = p.exists()
    if existed and not p.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "is a file, expected a folder", str(p))
    if not existed:
        try:
            p.mkdir(parents=True)
        except OSError as e:
            raise type(e)(e.errno, f"cannot make the folder: {e.strerror}", str(p)) from None
    try:
        yield p
    except BaseException:
        if not existed:
            try:
                p.rmdir()  # only when empty
            except OSError:
                pass
        raise


def atomic_write(path: str | os.PathLike[str], write: Callable[[str], object]) -> None:
    """Write ``path`` through ``write(tmp)`` on a temporary file beside it, then rename:
    a failed write never leaves a half-written file, and an ``OSError`` names ``path``
    (not the temporary file). The temporary name ends in ``path``'s extension
    (``.name.XXXX.tmp.png``), so writers that choose the format by extension
    (matplotlib's ``savefig``) write the right one."""
    p = check_output_path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=f".tmp{p.suffix}", dir=p.parent)
    except OSError as e:
        raise type(e)(e.errno, f"cannot write: {e.strerror}", str(p)) from None
    os.close(fd)
    try:
        write(tmp)
        um = os.umask(0)
        os.umask(um)
        os.chmod(tmp, 0o666 & ~um)  # mkstemp makes 0600; give the file the usual mode
        os.replace(tmp, p)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(e, OSError) and e.strerror:
            raise type(e)(e.errno, f"cannot write: {e.strerror}", str(p)) from None
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_write`)."""
    atomic_write(path, lambda tmp: Path(tmp).write_text(text))


def _bits_text(bits: npt.NDArray[np.uint8], sep: bool) -> bytes:
    chars = bits + np.uint8(ord("0"))
    if not sep:
        return chars.tobytes() + b"\n"
    out = np.empty(2 * bits.size, dtype=np.uint8)
    out[0::2] = chars
    out[1::2] = ord("\n")
    return out.tobytes()


def format_trace(trace: Trace, fmt: str, *, one_means: OneMeans = "received") -> bytes:
    """The bytes of ``trace`` in a text format (see :func:`write_trace`)."""
    lost = _check_one_means(one_means)
    bits = trace.to_numpy()
    if fmt == "bits":
        return _bits_text(1 - bits if lost else bits, True)
    if fmt == "string":
        return _bits_text(1 - bits if lost else bits, False)
    if fmt == "ttem":
        return _bits_text(1 - bits, True)  # Barsocchi et al. §II.B: 1 = bad interval
    if fmt == "seqlist":
        import pyarrow as pa
        import pyarrow.csv as pcsv

        idx = np.flatnonzero(bits)
        sink = pa.BufferOutputStream()
        if idx.size:  # pyarrow formats the integers (a Python join is ~10x slower)
            pcsv.write_csv(pa.table({"seq": idx}), sink, pcsv.WriteOptions(include_header=False))
        return f"# burstlab seqlist: expected={len(trace)}\n".encode() + sink.getvalue().to_pybytes()
    raise _core.ParameterError(f"invalid parameter format = {fmt!r}: expected one of {', '.join(TEXT_FORMATS)}")


def _table_columns(trace: Trace) -> dict[str, Any]:
    cols: dict[str, Any] = {"seq": np.arange(len(trace), dtype=np.int64)}
    t = trace.times()
    if t is not None:
        cols["time"] = t
    cols["received"] = trace.to_numpy().astype(np.int64)
    return cols


def write_trace(
    trace: Trace,
    path: str | os.PathLike[str],
    fmt: str | None = None,
    *,
    one_means: OneMeans = "received",
) -> None:
    """Write ``trace`` atomically; the format comes from ``fmt`` or the extension
    (default ``bits``). CSV and Parquet get columns ``seq, [time,] received``; ``seqlist``
    starts with a ``# burstlab seqlist: expected=N`` comment so trailing losses survive."""
    _check_format(fmt)
    p = Path(path)
    fmt = fmt or EXTENSIONS.get(p.suffix.lower(), "bits")
    if fmt in TEXT_FORMATS:
        data = format_trace(trace, fmt, one_means=one_means)
        atomic_write(p, lambda tmp: Path(tmp).write_bytes(data))
        return
    import pyarrow as pa

    cols = _table_columns(trace)
    if fmt == "csv":
        import pyarrow.csv as pcsv

        table = pa.table(cols)
        atomic_write(p, lambda tmp: pcsv.write_csv(table, tmp, pcsv.WriteOptions(quoting_style="none")))
    else:
        import pyarrow.parquet as pq

        md = {b"burstlab.interval": repr(trace.interval).encode()} if trace.interval is not None else None
        table = pa.table(cols).replace_schema_metadata(md)
        atomic_write(p, lambda tmp: pq.write_table(table, tmp))
