"""Readers for probe logs: a reception trace *with timestamps* from active probing
(docs/traces.md "Probe logs").

``probes``
    a table, one probe per line: ``time sequence rtt`` (tab, space or comma separated;
    an optional header line naming ``time``, ``seq``/``sequence``, ``rtt``/``rtt_ms``),
    time in seconds (Unix time or relative), RTT in milliseconds, ``-1`` = no reply (lost).
    This is what ``ping``/``irtt`` loggers write, e.g. the Starlink probes of
    clarkzjw/mmsys24-starlink-livestreaming-data (registered dataset ``starlink-ping``).
``ping``
    the text ``ping`` prints (iputils or BSD): ``64 bytes from HOST: icmp_seq=N ttl=T time=X ms``
    per reply, optionally prefixed by ``[UNIX-TIME]`` (``ping -D``); ``no answer yet for
    icmp_seq=N`` (``ping -O``) and ``Request timeout for icmp_seq N`` (BSD) mark losses; the
    summary line ``N packets transmitted`` gives the number sent.

Rules (both formats): entry ``k`` of the trace is sequence number ``first + k``; 1 = a reply,
0 = no reply. A sequence number never logged (a gap) is a lost probe, counted in
``meta["unlogged"]``. A sequence number that goes backwards or repeats is an error naming
the line. Timestamps are seconds from the first probe (``meta["t0"]`` holds the first
probe's own time); a probe without a time of its own (a gap, or ``ping`` without ``-D``)
gets one interpolated linearly between its neighbours, or, with no time at all in the file,
the trace has no timestamps and ``meta["interval"]`` is None. ``meta["rtt_ms"]`` is not kept
(a trace is bits); :func:`read_probe_table` returns the RTTs too.
"""

from __future__ import annotations

import math
import os
import re
from array import array
from pathlib import Path

import numpy as np
import numpy.typing as npt

from burstlab import _core
from burstlab.traces import Trace

#: Lines of ``ping`` output (iputils and BSD).
_REPLY = re.compile(rb"^(?:\[(?P<t>\d+(?:\.\d+)?)\]\s*)?\d+ bytes from .*?icmp_seq=(?P<seq>\d+)\b.*?time[=<](?P<rtt>[\d.]+)\s*ms")
_NOANSWER = re.compile(rb"^(?:\[(?P<t>\d+(?:\.\d+)?)\]\s*)?no answer yet for icmp_seq=(?P<seq>\d+)")
_TIMEOUT = re.compile(rb"^(?:\[(?P<t>\d+(?:\.\d+)?)\]\s*)?Request timeout for icmp_seq (?P<seq>\d+)")
_SUMMARY = re.compile(rb"^(?P<n>\d+) packets transmitted")
_PING_HEADER = re.compile(rb"^PING \S+")
_TABLE_NAMES = {b"time": "time", b"timestamp": "time", b"seq": "seq", b"sequence": "seq", b"rtt": "rtt", b"rtt_ms": "rtt"}
_SPLIT = re.compile(rb"[\s,]+")


def looks_like_ping(lines: list[bytes]) -> bool:
    """Some line is a ``ping`` reply, loss or header line."""
    return any(_REPLY.match(s) or _NOANSWER.match(s) or _TIMEOUT.match(s) or _PING_HEADER.match(s) for s in lines)


def table_header(line: bytes) -> list[str] | None:
    """The column names of a probe-table header line (``time,seq,rtt`` in any order), or None."""
    names = [_TABLE_NAMES.get(c.strip().strip(b'"').lower()) for c in _SPLIT.split(line.strip()) if c]
    if len(names) == 3 and None not in names and sorted(names) == ["rtt", "seq", "time"]:  # type: ignore[type-var]
        return names  # type: ignore[return-value]
    return None


def looks_like_table(lines: list[bytes]) -> bool:
    """Three numeric columns ``time seq rtt``: a time with a decimal point (or a large
    integer), an integer sequence number, and an RTT (a number, ``-1`` = lost), on every
    line sniffed (after an optional header)."""
    if lines and table_header(lines[0]):
        return True
    if not lines:
        return False
    for s in lines:
        f = [x for x in _SPLIT.split(s) if x]
        if len(f) != 3 or not f[1].isdigit():
            return False
        try:
            t, rtt = float(f[0]), float(f[2])
        except ValueError:
            return False
        if not (b"." in f[0] or t >= 1e6) or not (rtt >= 0 or rtt == -1) or not math.isfinite(t):
            return False
    return True


def _bad(label: str, lineno: int, text: bytes, why: str) -> _core.TraceFormatError:
    shown = text[:80].decode("utf-8", "replace")
    return _core.TraceFormatError(f"{label}:{lineno}: {why} (line {shown!r})")


def read_probe_table(path: str | os.PathLike[str], *, name: str | None = None) -> tuple[Trace, npt.NDArray[np.float64]]:
    """A ``probes`` table as a trace with timestamps, and the RTTs in ms (NaN where lost),
    one per trace entry. Errors name the file, the 1-based line and its text."""
    p = Path(path)
    label = name or str(p)
    times, seqs, rtts = array("d"), array("q"), array("d")
    order = ["time", "seq", "rtt"]
    first = True
    with open(p, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            s = raw.strip()
            if not s or s.startswith(b"#"):
                continue
            if first:  # an optional header line naming the columns, in any order
                first = False
                header = table_header(s)
                if header is not None:
                    order = header
                    continue
            f = [x for x in _SPLIT.split(s) if x]
            if len(f) != 3:
                raise _bad(label, lineno, s, f"expected 3 fields (time, sequence, RTT in ms; -1 = lost), got {len(f)}")
            v = dict(zip(order, f))
            try:
                t = float(v["time"])
                rtt = float(v["rtt"])
                seq = int(v["seq"])
            except ValueError:
                raise _bad(label, lineno, s, "not a number where time, sequence and RTT are expected") from None
            if not math.isfinite(t) or not math.isfinite(rtt) or seq < 0:
                raise _bad(label, lineno, s, "time and RTT must be finite numbers and the sequence number non-negative")
            if rtt < 0 and rtt != -1:
                raise _bad(label, lineno, s, f"RTT {v['rtt'].decode()} ms: expected a non-negative RTT or -1 (lost)")
            if seqs and seq <= seqs[-1]:
                raise _bad(label, lineno, s, f"sequence number {seq} after {seqs[-1]}: expected increasing sequence numbers")
            if times and t < times[-1]:
                raise _bad(label, lineno, s, f"time {t} is earlier than the line before ({times[-1]})")
            times.append(t)
            seqs.append(seq)
            rtts.append(math.nan if rtt == -1 else rtt)
    if not seqs:
        raise _core.EmptyInputError(f"{label}: no probes (expected lines 'time sequence rtt')")
    return _assemble(label, np.frombuffer(seqs, np.int64), np.frombuffer(times, np.float64), np.frombuffer(rtts, np.float64), None, "probes")


def read_ping(path: str | os.PathLike[str], *, name: str | None = None) -> tuple[Trace, npt.NDArray[np.float64]]:
    """``ping`` output as a trace (timestamps when ``ping -D`` wrote them) and the RTTs in ms."""
    p = Path(path)
    label = name or str(p)
    seqs, times, rtts = array("q"), array("d"), array("d")
    sent: int | None = None
    with open(p, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            s = raw.strip()
            m = _REPLY.match(s)
            lost = False
            if m is None:
                m = _NOANSWER.match(s) or _TIMEOUT.match(s)
                lost = m is not None
            if m is None:
                ms = _SUMMARY.match(s)
                if ms:
                    sent = int(ms.group("n"))
                continue
            if b"(DUP!)" in s:  # a duplicate reply: the probe was delivered once already
                continue
            seq = int(m.group("seq"))
            if seqs and seq < seqs[-1]:
                raise _bad(label, lineno, s, f"icmp_seq={seq} after {seqs[-1]}: expected increasing sequence numbers")
            t = m.group("t")
            if seqs and seq == seqs[-1]:
                if lost:  # 'no answer yet' repeated for the same probe
                    continue
                if not math.isnan(rtts[-1]):
                    raise _bad(label, lineno, s, f"icmp_seq={seq} answered twice without (DUP!)")
                rtts[-1] = float(m.group("rtt"))  # a late reply after 'no answer yet'
                times[-1] = float(t) if t is not None else math.nan
                continue
            seqs.append(seq)
            # a loss is reported when ping gives up waiting, not when the probe left: no time of its own
            times.append(float(t) if t is not None and not lost else math.nan)
            rtts.append(math.nan if lost else float(m.group("rtt")))
    if not seqs:
        raise _core.EmptyInputError(f"{label}: no ping replies or losses found (expected lines like '64 bytes from HOST: icmp_seq=1 ttl=54 time=44.5 ms')")
    return _assemble(label, np.frombuffer(seqs, np.int64), np.frombuffer(times, np.float64), np.frombuffer(rtts, np.float64), sent, "ping")


def _assemble(
    label: str, seqs: npt.NDArray[np.int64], times: npt.NDArray[np.float64], rtts: npt.NDArray[np.float64], sent: int | None, fmt: str
) -> tuple[Trace, npt.NDArray[np.float64]]:
    """Place each logged probe at ``seq - first`` (gaps = unlogged, lost), interpolate the
    missing times, build the trace."""
    first = int(seqs[0])
    if sent is not None:
        # ping numbers its probes from 1 (iputils) or 0 (BSD): with the number sent known,
        # probes before the first and after the last one logged were lost too
        first = 0 if first == 0 else 1
    n = max(int(seqs[-1]) - first + 1, sent or 0)
    idx = seqs - first
    bits = np.zeros(n, np.uint8)
    rtt_all = np.full(n, np.nan)
    rtt_all[idx] = rtts
    bits[idx] = ~np.isnan(rtts)
    t_all = np.full(n, np.nan)
    t_all[idx] = times
    known = ~np.isnan(t_all)
    meta: dict[str, object] = {"format": fmt, "probes": n, "lost": int(n - bits.sum()), "unlogged": int(n - len(seqs)), "first_seq": first}
    ts = None
    if known.any():
        k = np.flatnonzero(known)
        if len(k) == 1:
            ts = None
        else:
            ts = np.interp(np.arange(n), k, t_all[k])  # linear between neighbours, held at the ends
            back = np.flatnonzero(np.diff(ts) < 0)
            if len(back):
                i = int(back[0]) + 1
                raise _core.TraceFormatError(f"{label}: probe {first + i} has time {ts[i]} before probe {first + i - 1}'s {ts[i - 1]}: expected times in probe order")
            meta["t0"] = float(ts[0])
            ts = ts - ts[0]
            gaps = np.diff(ts)
            meta["median_gap_s"] = float(np.median(gaps)) if len(gaps) else None
            meta["span_s"] = float(ts[-1])
    return Trace(bits, timestamps=ts, name=label, meta=meta), rtt_all


def slots_in_time(trace: Trace, slot: float) -> Trace:
    """A timestamped trace replayed in time on a grid of ``slot`` seconds: slot ``k`` (time
    ``k·slot``) takes the outcome of the latest probe at or before that time (sample and
    hold), so a gap between probes lasts as long in slots as it did in time. The result has
    ``interval = slot`` (docs/traces.md "Probe logs")."""
    if trace.timestamps is None:
        raise _core.ParameterError(f"trace {trace.name or '<unnamed>'} has no timestamps: it cannot be replayed in time")
    if not (slot > 0 and math.isfinite(slot)):
        raise _core.ParameterError(f"invalid parameter slot = {slot}: expected a positive number of seconds")
    # integer nanoseconds (the engine's time), so that a probe exactly on a slot boundary is
    # on it whatever the binary rounding of the seconds
    ts = np.round((trace.timestamps - trace.timestamps[0]) * 1e9).astype(np.int64)
    step = int(round(slot * 1e9))
    n = int(ts[-1] // step) + 1
    k = np.searchsorted(ts, np.arange(n, dtype=np.int64) * step, side="right") - 1
    bits = trace.to_numpy()[k]
    return Trace(bits, interval=slot, name=trace.name, meta={**trace.meta, "timing": "time", "slot": slot, "slots": n})
