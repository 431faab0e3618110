"""Trace readers and writers (auto-detected formats, forced with ``fmt``)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from burstlab import _core
from burstlab.traces import Trace


def read_trace(path: str | os.PathLike[str], fmt: str | None = None) -> Trace:
    """Read a trace of 0/1 entries, one per line (1 = delivered)."""
    p = Path(path)
    data = p.read_bytes()
    if not data.strip():
        raise _core.EmptyInputError(f"{p}: empty file: no trace entries")
    vals = []
    for i, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        s = line.strip()
        if not s:
            continue
        if s not in ("0", "1"):
            raise _core.TraceFormatError(f"{p}:{i}: expected 0 or 1: {s!r}")
        vals.append(int(s))
    return Trace(np.array(vals, dtype=np.uint8), name=str(p))
