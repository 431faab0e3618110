"""Trace format detection (docs/traces.md "Detection"): the format of a file from its
extension, then its first 64 KiB. :func:`burstlab.io.read_trace` calls it when no format is
given; it never reads a multi-column file as 0/1 bits, and when it cannot tell, it names the
formats that would read the file."""

from __future__ import annotations

import os
import re
from pathlib import Path

from burstlab import _core, probelog
from burstlab.formats import EXTENSIONS, FORMATS

_SNIFF_BYTES = 1 << 16
_SNIFF_LINES = 200


def _mahimahi_message(label: str) -> str:
    return (
        f"{label}: a Mahimahi link-capacity trace (one line per 1500-byte delivery opportunity, in milliseconds), "
        "not a packet-reception trace: read it with burstlab.io.read_mahimahi (it sets a link's capacity), "
        "or give --format if it really is a reception trace"
    )


def _is_mahimahi(lines: list[bytes]) -> bool:
    """Every line one non-negative integer, never decreasing, with repeats (several
    opportunities in one millisecond) and a value above 1 (so not a bits file)."""
    if len(lines) < 2 or not all(s.isdigit() for s in lines):
        return False
    v = [int(s) for s in lines]
    return all(a <= b for a, b in zip(v, v[1:])) and len(set(v)) < len(v) and v[-1] > 1


def _sniff_lines(head: bytes) -> list[bytes]:
    """The first non-blank, non-comment lines of ``head`` (at most ``_SNIFF_LINES``), stripped."""
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
    return lines


def _is_number(x: bytes) -> bool:
    try:
        float(x)
    except ValueError:
        return False
    return True


def _columns(lines: list[bytes]) -> str | None:
    """``"seqlist"`` for lines of several fields whose first fields are non-negative integers
    in increasing order (received sequence numbers, the rest being e.g. RSSI); the number of
    fields (as text) for another multi-column file; None when the lines can be 0/1 bits or
    strings (one field, or fields that are all lone ``0``/``1`` characters, as the ``string``
    format allows)."""
    split = [re.split(rb"[\s,]+", s) for s in lines]
    multi = [f for f in split if len(f) > 1]
    if not multi or len(multi) * 2 <= len(lines):
        return None
    firsts = [f[0] for f in split]
    numbers = [int(x) for x in firsts] if all(x.isdigit() for x in firsts) else None
    # a string line is only 0/1 characters; a line of several fields with another value in
    # a field, or first fields that count up 0, 1, 2, 3, … (never a 0/1 string), is a table
    other = any(any(x not in (b"0", b"1") and x.translate(None, b"01") for x in f) for f in multi)
    rising = numbers is not None and len(lines) > 2 and all(a < b for a, b in zip(numbers, numbers[1:]))
    if not other and not rising:
        return None
    if numbers is not None and all(a <= b for a, b in zip(numbers, numbers[1:])):
        return "seqlist"  # repeats allowed: a duplicated frame (the parser counts them)
    if numbers is None and not all(_is_number(x) for x in firsts):
        return None  # words, not a table of numbers: the caller's general refusal
    widths = sorted({len(f) for f in multi})
    return str(widths[0]) if len(widths) == 1 else f"{widths[0]}-{widths[-1]}"


def detect_format(path: str | os.PathLike[str], head: bytes | None = None) -> str:
    """The format of ``path``: by extension (``EXTENSIONS``), then the Parquet magic, then
    by content (first 64 KiB, up to 200 non-comment lines):

    - a first line that is a comma-separated header of ``seq``/``time``/``received``/``lost`` → ``csv``;
    - ``ping`` output (a ``PING host`` header, ``64 bytes from …: icmp_seq=N … time=X ms``) → ``ping``;
    - three numeric columns ``time sequence rtt`` (or a header naming them) → ``probes``;
    - every line one integer, never decreasing, with repeats and a value above 1 → ``mahimahi``
      (a link-capacity trace, which the reception-trace readers refuse by name);
    - a multi-column file (lines of several fields, one of them not a lone ``0``/``1``, or
      first fields that count up like sequence numbers) is never read as bits: → ``seqlist``
      when the first fields are non-negative integers in increasing order, else refused,
      naming the formats that read columns (e.g. the Rutgers ``seq rssi`` lines ``0 11``,
      ``1 10``, ``2 7`` are a ``seqlist``);
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
    lines = _sniff_lines(head)
    if not lines:
        raise _core.EmptyInputError(
            f"{p}: empty file: no trace entries (if it lists received packets, give --expected N: nothing was received)"
        )
    first = lines[0].lower()
    names = {c.strip().strip(b'"') for c in first.split(b",")}
    if names and names <= {b"seq", b"time", b"received", b"lost"}:
        return "csv"
    if probelog.looks_like_ping(lines):
        return "ping"
    if probelog.looks_like_table(lines):
        return "probes"
    if _is_mahimahi(lines):
        return "mahimahi"
    columns = _columns(lines)
    if columns is not None:
        if columns == "seqlist":
            return "seqlist"
        raise _core.TraceFormatError(
            f"{p}: a file of {columns} columns (first entry {lines[0][:60].decode('utf-8', 'replace')!r}), not 0/1 bits; "
            "give --format seqlist if its first column is the sequence number of each received packet, "
            "--format probes for 'time sequence rtt' tables, or --format csv for a header naming seq, time, received"
        )
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
