"""Real datasets: the registry (:mod:`burstlab.datasets.registry`: origin pinned to a commit,
files with size and SHA-256, licence, citation, what each can support), where they are on
this machine or how to download them (:mod:`burstlab.datasets.fetch`: :func:`locate`,
:func:`fetch`), whether they can support a study (:mod:`burstlab.datasets.support`), and one
reader module per dataset (e.g. :mod:`burstlab.datasets.rutgers_noise`, re-exported as
:func:`burstlab.datasets.rutgers`). Data is never looked for relative to the working directory
(docs/datasets.md).
"""

from __future__ import annotations

from burstlab._core import ParameterError
from burstlab.traces import Trace


def subsample(trace: Trace, every: int, offset: int = 0) -> Trace:
    """Keep entries ``offset, offset + every, offset + 2·every, …`` of ``trace``: the trace
    of the same link probed ``every`` times less often (Srinivasan et al. §8, Fig. 14:
    Roofnet's 2 ms traces sub-sampled at 10 ms). The interval (or the timestamps) follow;
    ``meta["subsampled"]`` records ``every`` (times the trace's own, if it had one)."""
    if not (isinstance(every, int) and every >= 1):
        raise ParameterError(f"invalid parameter every = {every!r}: expected an integer ≥ 1")
    if not (isinstance(offset, int) and 0 <= offset < every):
        raise ParameterError(f"invalid parameter offset = {offset!r}: expected 0 ≤ offset < every = {every}")
    if every == 1:
        return trace
    bits = trace.to_numpy()[offset::every]
    ts = None if trace.timestamps is None else trace.timestamps[offset::every]
    iv = None if trace.interval is None else trace.interval * every
    meta = {**trace.meta, "subsampled": every * int(trace.meta.get("subsampled", 1))}
    return Trace(bits, interval=None if ts is not None else iv, timestamps=ts, name=trace.name, meta=meta)


from burstlab.datasets.fetch import DatasetError, LocalDataset, fetch, locate  # noqa: E402
from burstlab.datasets.rutgers_noise import rutgers  # noqa: E402

__all__ = ["DatasetError", "LocalDataset", "fetch", "locate", "rutgers", "subsample"]
