"""The Rutgers ORBIT noise traces (CRAWDAD rutgers/noise, traceset RSSI; see
the registered dataset ``rutgers-noise``, docs/datasets.md).

Layout: ``data/dbm<noise>/Results_node<TX>_DailyTest_<date>/sdec<RX>``; one file is one
directed link (TX → RX) at one injected-noise level, one line ``seq rssi`` per frame
received. About 301 frames were sent per link (seq 0..300).

Choices (documented in ``docs/traces.md``):

- every trace has ``expected = 301`` entries (seq 0..300), so all links share one length;
- an empty file is a link that received nothing: an all-lost trace, not an error;
- a stray frame with seq ≥ 301 is dropped and counted in ``trace.meta['dropped']``
  (this copy of the data has none, but the original traceset mentions them);
- the trace carries no timing (the files record none): ``interval`` is None.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from burstlab import _core
from burstlab.datasets.fetch import locate
from burstlab.io import parse_trace
from burstlab.traces import Trace

#: Frames sent per link (seq 0..300).
EXPECTED = 301
#: Noise levels (dBm of injected AWGN) present in this copy.
NOISE_LEVELS = (0, -5, -10)

_NODE = re.compile(r"^Results_node(\d+-\d+)_")
_RX = re.compile(r"^sdec(\d+-\d+)$")
_NOISE = re.compile(r"^dbm(-?\d+)$")


def rutgers_root(root: str | Path | None = None) -> Path:
    """The dataset folder (the one holding ``data/``): ``root``, or where the registered
    dataset ``rutgers-noise`` is on this machine (:func:`burstlab.datasets.fetch.locate`)."""
    return Path(root) if root is not None else locate("rutgers-noise").root


def rutgers(root: str | Path | None = None, noise: int | None = None, *, expected: int = EXPECTED) -> Iterator[Trace]:
    """Yield every Rutgers link trace (sorted by noise level, descending, then path).

    ``noise`` selects one level (0, -5 or -10 dBm). Each trace is named
    ``rutgers/dbm<noise>/<tx>-><rx>`` and its ``meta`` holds ``noise_dbm``, ``tx``, ``rx``,
    ``path``, ``expected``, ``received``, ``duplicates``, ``dropped`` (frames with
    seq ≥ ``expected``) and ``max_seq``.
    """
    base = rutgers_root(root) / "data"
    if not base.is_dir():
        raise _core.EmptyInputError(f"{base}: Rutgers data folder not found (pass the folder holding data/dbm<noise>/...)")
    levels: list[tuple[int, Path]] = []
    for d in base.iterdir():
        m = _NOISE.match(d.name)
        if m and d.is_dir():
            levels.append((int(m.group(1)), d))
    if noise is not None:
        levels = [(n, d) for n, d in levels if n == noise]
        if not levels:
            raise _core.ParameterError(f"invalid parameter noise = {noise}: no folder dbm{noise} under {base}")
    for level, d in sorted(levels, key=lambda x: -x[0]):
        for run in sorted(d.iterdir()):
            mt = _NODE.match(run.name)
            if not mt or not run.is_dir():
                continue
            for f in sorted(run.iterdir()):
                mr = _RX.match(f.name)
                if not mr or not f.is_file():
                    continue
                tx, rx = mt.group(1), mr.group(1)
                t = parse_trace(
                    f.read_bytes(),
                    "seqlist",
                    name=f"rutgers/dbm{level}/{tx}->{rx}",
                    expected=expected,
                    drop_beyond=True,
                )
                t.meta.update(noise_dbm=level, tx=tx, rx=rx, path=str(f))
                yield t
