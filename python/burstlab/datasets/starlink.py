"""The Starlink ping probes (registered dataset ``starlink-ping``, docs/datasets.md): one
reception trace with timestamps, read by :func:`burstlab.probelog.read_probe_table`.

Timing (``timing``, docs/datasets.md "Starlink: slots or time"):

``"slots"``
    one probe = one slot of the study's profile (the probing order kept, the times dropped):
    36,000 slots, PRR 0.975, μ 0.041.
``"time"``
    the probes replayed in time on the profile's slot (:func:`burstlab.probelog.slots_in_time`,
    sample and hold): a slot takes the outcome of the latest probe at or before it. At 10 ms,
    9,658 s become 965,801 slots, each probe held for ~15 of them (median gap 0.149 s), so runs
    stretch and μ rises to 0.98: a property of the probing rate, not of the link; and the 837
    gaps of ~5 s (each one ends with a lost probe, i.e. the prober's reply timeout) hold the
    state before them (PRR 0.959).
"""

from __future__ import annotations

import os

from burstlab._core import ParameterError
from burstlab.datasets.fetch import locate
from burstlab.probelog import read_probe_table, slots_in_time
from burstlab.traces import Trace

#: The probe file inside the dataset folder.
FILE = "no-isl-ping-gw-seattle-230911-170535-0.1s-60min.txt"
#: How the probes map to the study's slots.
TIMINGS = ("slots", "time")


def starlink(timing: str = "slots", slot: float = 0.010, data: str | os.PathLike[str] | None = None) -> list[Trace]:
    """The Starlink path as one trace (a list, like the other datasets), mapped to slots of
    ``slot`` seconds as ``timing`` says (module docstring). ``meta`` holds ``timing``, the
    probe counts and, for ``"time"``, the slots."""
    if timing not in TIMINGS:
        raise ParameterError(f"invalid parameter timing = {timing!r}: expected one of {', '.join(TIMINGS)}")
    local = locate("starlink-ping", data)
    trace, _ = read_probe_table(local.path(FILE), name="starlink/seattle")
    if timing == "time":
        return [slots_in_time(trace, slot)]
    return [Trace(trace.bits, interval=slot, name=trace.name, meta={**trace.meta, "timing": "slots"})]
