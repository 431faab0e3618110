"""CoDel (RFC 8289) and FQ-CoDel (RFC 8290), a link's queue disciplines that decide at
dequeue from each packet's sojourn time (``Link(queue=Codel(target=0.005))``,
``queue="fq_codel"``; ``docs/simulator.md``, "CoDel and FQ-CoDel"). Their fields, defaults
and help are the core's declarations (``CodelParams`` in ``crates/burstlab-core/src/link/codel.rs``,
``FqParams`` in ``link/fq_codel.rs``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from burstlab import _core
from burstlab.sim.params import CODEL_PARAMS, FQ_CODEL_PARAMS, field_of as _p


@dataclass(frozen=True)
class Codel:
    """CoDel (Nichols, Jacobson et al., RFC 8289): ``target`` (s) the standing queue it keeps,
    ``interval`` (s) how long the sojourn must stay above target before the first drop (and the
    control law's base: drops spaced interval/√count), ``mtu`` (bytes) the backlog at or below
    which it never drops, ``ecn``: ECN-capable packets are marked CE instead of dropped."""

    target: float = _p("target", CODEL_PARAMS)
    interval: float = _p("interval", CODEL_PARAMS)
    mtu: int = _p("mtu", CODEL_PARAMS)
    ecn: bool = _p("ecn", CODEL_PARAMS)


@dataclass(frozen=True)
class FqCodel:
    """FQ-CoDel (Hoeiland-Joergensen et al., RFC 8290): flows hashed into ``flows`` queues, each
    with its own CoDel (``target``, ``interval``, ``mtu``, ``ecn`` as :class:`Codel`), served by
    deficit round robin with ``quantum`` bytes per round, new flows first; on overflow up to
    ``drop_batch`` packets go from the queue with the most bytes."""

    target: float = _p("target", CODEL_PARAMS)
    interval: float = _p("interval", CODEL_PARAMS)
    mtu: int = _p("mtu", CODEL_PARAMS)
    ecn: bool = _p("ecn", CODEL_PARAMS)
    quantum: int = _p("quantum", FQ_CODEL_PARAMS)
    flows: int = _p("flows", FQ_CODEL_PARAMS)
    drop_batch: int = _p("drop_batch", FQ_CODEL_PARAMS)


#: The keys of :class:`Codel` (``codel_target`` in scenario files, ``--codel-target``) and
#: FQ-CoDel's own (``fq_codel_quantum``, ``--fq-codel-quantum``).
CODEL_FIELDS = tuple(f.name for f in fields(Codel))
FQ_CODEL_FIELDS = tuple(f.name for f in fields(FqCodel) if f.name not in CODEL_FIELDS)
#: The queue names (``queue = "codel"``) and their classes.
AQM_QUEUES: dict[str, type] = {"codel": Codel, "fq_codel": FqCodel}


def _convert(prefix: str, name: str, value: Any, spec: dict[str, Any]) -> Any:
    kind = {"bool": bool, "int": int}.get(spec["kind"], float)
    if kind is bool and not isinstance(value, bool):
        raise _core.ParameterError(f"invalid parameter {prefix}{name} = {value!r}: expected true or false")
    try:
        return kind(value)
    except (TypeError, ValueError, OverflowError):
        raise _core.ParameterError(f"invalid parameter {prefix}{name} = {value!r}: expected a number") from None


def aqm_config(queue: Any) -> dict[str, Any] | None:
    """A CoDel or FQ-CoDel queue as the simulator takes it (``{"queue": "codel", "codel":
    {...}}``; FQ-CoDel adds ``"fq_codel": {...}``), or None for anything else."""
    if isinstance(queue, str) and queue in AQM_QUEUES:
        queue = AQM_QUEUES[queue]()
    if not isinstance(queue, (Codel, FqCodel)):
        return None
    values = asdict(queue)
    codel = {k: _convert("codel_", k, values[k], CODEL_PARAMS[k]) for k in CODEL_FIELDS}
    if isinstance(queue, Codel):
        return {"queue": "codel", "codel": codel}
    fq = {k: _convert("fq_codel_", k, values[k], FQ_CODEL_PARAMS[k]) for k in FQ_CODEL_FIELDS}
    return {"queue": "fq_codel", "codel": codel, "fq_codel": fq}
