"""The per-packet log of a network run (``Network(log=True)``, ``burstlab sim --log FILE``)
as a table: one row per packet event, written as Parquet (pyarrow), readable by pandas,
Polars, DuckDB or pyarrow.

Columns (docs/simulator.md, "Per-packet log"): ``time`` (s), ``event`` (sent, dropped,
lost, arrived, delivered), ``kind`` (data, ack, datagram), ``flow`` and ``link`` (names;
``link`` is null at an end host), ``seg`` (data: segment number; ack: cumulative ACK;
datagram: its number), ``to`` (delivered: one past the last segment), ``retx`` (a
retransmission) and ``sent_time`` (s, when its flow sent it). ``event``, ``kind``, ``flow``
and ``link`` are dictionary-encoded strings, so a long log stays small."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from burstlab.files import atomic_write
from burstlab.sim.network import LOG_EVENTS, LOG_KINDS


def log_table(result: Any) -> Any:
    """The log of ``result`` (a :class:`burstlab.sim.NetworkResult` run with ``log=True``)
    as a ``pyarrow.Table``."""
    import numpy as np
    import pyarrow as pa

    log = result.log
    if log is None:
        raise ValueError("this run recorded no per-packet log: run it with Network(log=True)")
    flows = [str(n) for n in result.flows.keys()]
    links = [str(n) for n in result.links.keys()]

    def names(codes: Any, values: list[str] | tuple[str, ...], null_below_zero: bool = False) -> Any:
        idx = np.asarray(codes, dtype=np.int64)
        mask = idx < 0 if null_below_zero else None
        return pa.DictionaryArray.from_arrays(pa.array(np.where(idx < 0, 0, idx).astype(np.int32), mask=mask), pa.array(list(values), pa.string()))

    return pa.table({
        "time": pa.array(log["time"], pa.float64()),
        "event": names(log["event"], LOG_EVENTS),
        "kind": names(log["kind"], LOG_KINDS),
        "flow": names(log["flow"], flows),
        "link": names(log["link"], links, null_below_zero=True),
        "seg": pa.array(log["seg"], pa.uint64()),
        "to": pa.array(log["to"], pa.uint64()),
        "retx": pa.array(log["retx"], pa.bool_()),
        "sent_time": pa.array(log["sent_time"], pa.float64()),
    })  # fmt: skip


def write_log(result: Any, path: str | Path) -> Path:
    """Write the log of ``result`` to ``path`` as Parquet, atomically (a failure leaves no
    half-written file); returns the path."""
    import pyarrow.parquet as pq

    table = log_table(result)
    p = Path(path)
    atomic_write(p, lambda tmp: pq.write_table(table, tmp, compression="zstd"))
    return p


__all__ = ["log_table", "write_log"]
