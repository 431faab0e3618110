"""The :class:`Trace` type: packed reception bits (1 = delivered, 0 = lost) with either a
fixed interval between entries or per-entry timestamps.

Readers and writers for the common formats live in :mod:`burstlab.io`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from burstlab import _core
from burstlab.stats import TraceStats, trace_stats


class Trace:
    """A packet-reception trace.

    Parameters
    ----------
    bits:
        Array-like of 0/1 or bool (1 = delivered), or a packed :class:`burstlab._core.BitTrace`.
    interval:
        Seconds between consecutive entries (a slotted trace), or None.
    timestamps:
        Per-entry times in seconds (non-decreasing), or None. Exclusive with ``interval``.
    name:
        A label (usually the file it came from).
    """

    __slots__ = ("_bits", "interval", "timestamps", "name", "meta")

    def __init__(
        self,
        bits: npt.ArrayLike | _core.BitTrace,
        *,
        interval: float | None = None,
        timestamps: npt.ArrayLike | None = None,
        name: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        if isinstance(bits, _core.BitTrace):
            self._bits = bits
        else:
            arr = np.asarray(bits)
            if arr.ndim != 1:
                raise _core.ParameterError(f"invalid parameter bits: expected a 1-D sequence, got shape {arr.shape}")
            if arr.dtype == np.bool_:
                arr = arr.view(np.uint8)  # same bytes, no copy
            elif arr.size:
                if arr.dtype.kind not in "biuf":
                    raise _core.ParameterError(f"invalid parameter bits: expected 0/1 numbers, got dtype {arr.dtype}")
                lo, hi = arr.min(), arr.max()
                if lo < 0 or hi > 1 or (arr.dtype.kind == "f" and not np.isin(arr, (0, 1)).all()):
                    bad = arr[(arr != 0) & (arr != 1)][0]
                    raise _core.ParameterError(f"invalid parameter bits: entries must be 0 or 1, got {bad!r}")
            self._bits = _core.BitTrace.from_numpy(np.ascontiguousarray(arr, dtype=np.uint8))
        if interval is not None and timestamps is not None:
            raise _core.ParameterError("invalid parameter interval: give either interval or timestamps, not both")
        if interval is not None and not (np.isfinite(interval) and interval > 0):
            raise _core.ParameterError(f"invalid parameter interval = {interval}: expected a positive number of seconds")
        self.interval = None if interval is None else float(interval)
        if timestamps is not None:
            ts = np.ascontiguousarray(timestamps, dtype=np.float64)
            if ts.shape != (len(self._bits),):
                raise _core.ParameterError(
                    f"invalid parameter timestamps: {ts.shape[0] if ts.ndim == 1 else ts.shape} entries for a trace of {len(self._bits)}"
                )
            if ts.size > 1 and np.any(np.diff(ts) < 0):
                i = int(np.argmax(np.diff(ts) < 0)) + 1
                raise _core.ParameterError(f"invalid parameter timestamps: entry {i} ({ts[i]}) is earlier than entry {i - 1} ({ts[i - 1]})")
            self.timestamps: npt.NDArray[np.float64] | None = ts
        else:
            self.timestamps = None
        self.name = name
        self.meta: dict[str, Any] = dict(meta or {})

    # -- construction -------------------------------------------------------------
    @classmethod
    def from_packed(cls, words: npt.NDArray[np.uint64] | npt.NDArray[np.uint8], length: int, **kw: Any) -> Trace:
        """From packed bits, LSB first: uint64 words, or the uint8 output of
        ``np.packbits(b, bitorder="little")`` (bit i of the trace = bit i % 8 of byte i // 8)."""
        arr = np.asarray(words)
        if length < 0:
            raise _core.ParameterError(f"invalid parameter length = {length}: expected a non-negative number of entries")
        if arr.dtype == np.uint8:
            nbytes = -(-length // 8)
            if arr.shape != (nbytes,):
                raise _core.ParameterError(
                    f"invalid parameter words: {arr.size} bytes for {length} bits (expected {nbytes})"
                )
            padded = np.zeros(-(-nbytes // 8) * 8, dtype=np.uint8)
            padded[:nbytes] = arr
            arr = padded.view("<u8")
        return cls(_core.BitTrace.from_words(np.ascontiguousarray(arr, dtype=np.uint64), length), **kw)

    @classmethod
    def from_string(cls, s: str, **kw: Any) -> Trace:
        """From a string of '0'/'1' (1 = delivered)."""
        return cls(_core.BitTrace.from_str01(s), **kw)

    # -- access -------------------------------------------------------------------
    @property
    def bits(self) -> _core.BitTrace:
        """The packed bits (shared, immutable)."""
        return self._bits

    def to_numpy(self) -> npt.NDArray[np.uint8]:
        """One uint8 (0/1) per entry."""
        return self._bits.to_numpy()

    def packed(self) -> npt.NDArray[np.uint64]:
        """The packed words, as ``from_packed`` takes them: a read-only view of the trace's
        own memory (no copy)."""
        return self._bits.words()

    def __len__(self) -> int:
        return len(self._bits)

    def _repr_html_(self) -> str:
        """Its statistics and run-length CCDFs, in a notebook (burstlab.notebook)."""
        from burstlab.notebook import trace_html

        return trace_html(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        if self._bits != other._bits or self.interval != other.interval:
            return False
        if (self.timestamps is None) != (other.timestamps is None):
            return False
        return self.timestamps is None or (other.timestamps is not None and bool(np.array_equal(self.timestamps, other.timestamps)))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        when = f", interval={self.interval}" if self.interval else (", timestamped" if self.timestamps is not None else "")
        name = f", name={self.name!r}" if self.name else ""
        return f"Trace(len={len(self)}, delivered={self._bits.count_ones()}{when}{name})"

    def __getitem__(self, key: slice) -> Trace:
        if not isinstance(key, slice) or key.step not in (None, 1):
            raise TypeError("Trace supports contiguous slices only")
        start, stop, _ = key.indices(len(self))
        stop = max(start, stop)
        ts = None if self.timestamps is None else self.timestamps[start:stop]
        return Trace(self._bits.slice(start, stop), interval=self.interval, timestamps=ts, name=self.name, meta=dict(self.meta))

    def times(self) -> npt.NDArray[np.float64] | None:
        """Per-entry times in seconds: the timestamps, or index × interval, or None."""
        if self.timestamps is not None:
            return self.timestamps
        if self.interval is not None:
            return np.arange(len(self), dtype=np.float64) * self.interval
        return None

    def stats(self, **kw: Any) -> TraceStats:
        """All statistics of this trace (see :func:`burstlab.stats.trace_stats`)."""
        return trace_stats(self, **kw)
