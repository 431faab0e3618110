"""The TCP simulator: describe a scenario with dataclasses, run it in Rust.

>>> from burstlab.sim import Scenario, Link, TcpConfig, Workload, run
>>> res = run(Scenario(tcp=TcpConfig(variant="newreno"), forward=Link(rate=10e6, delay=0.01),
...                    workload=Workload(duration=5.0), seed=1))
>>> res.goodput_bps > 8e6
True

Units: seconds, bits/s, bytes; segments for windows. ``run_trace`` is the slotted
trace-driven mode of Srinivasan et al. §3.1. See ``docs/simulator.md`` for the model and for what
each counter means.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from burstlab import _core

__all__ = [
    "Cbr", "Flow", "FlowResult", "Hop", "Link", "LinkResult", "Network", "NetworkResult", "OnOff", "Scenario",
    "SimResult", "TcpConfig", "Workload", "load_scenario", "loss_model", "presets", "run", "run_network", "run_trace",
]  # fmt: skip

VARIANTS = ("tahoe", "reno", "newreno", "sack")


@dataclass(frozen=True)
class TcpConfig:
    """TCP settings. Times in seconds, windows in segments.

    ``header_bytes`` (40) is added to every data segment on the link and ``ack_bytes``
    (40) is an ACK's size; ``limited_transmit`` turns on RFC 3042; ``clock_granularity``
    is RFC 6298's G. Two choices where implementations differ (defaults follow the
    RFCs): ``ssthresh_rule`` ``"flightsize"`` halves RFC 5681's FlightSize on a loss,
    ``"pipe"`` halves FlightSize less the segments duplicate ACKs show have left (RFC 6675's
    idea), ``"flightsize_minus_lost"`` halves FlightSize less the one segment deemed lost (what
    ns-3 3.44 computes without SACK); ``grow_on_loss_exit=False`` leaves cwnd alone on the ACK that ends
    the post-timeout Loss state (as ns-3 does). ``rto_backoff_reset`` ``"sample"`` keeps a
    backed-off RTO until a new RTT sample (RFC 6298 §5, Karn), ``"new_ack"`` recomputes it
    from SRTT/RTTVAR on any ACK of new data (as ns-3 and Linux do).

    The ``tossim`` profile of the PRR/μ study (:meth:`TcpConfig.tossim`; Srinivasan et al.
    §3.1, ``docs/study.md``) adds five settings, off by default: ``rto_estimator="rfc793"``
    computes RTO = clamp(``rto_beta``·SRTT, ``rto_min``, ``rto_max``) with
    SRTT ← ``rto_alpha``·SRTT + (1 − ``rto_alpha``)·RTT (RFC 793 §3.7) instead of RFC 6298;
    ``rto_backoff=False`` leaves RTO unchanged on a timeout (RFC 793 has no backoff);
    ``ack_on_idle=True`` makes the receiver send its current ACK after every ``ack_timeout``
    without an arriving segment (duplicates included), not only to end a delayed ACK;
    ``fast_retransmit_after_timeout=True`` lets duplicate ACKs after a timeout start fast
    retransmit (RFC 2581, RFC 2582's base algorithm) instead of RFC 6582's careful check;
    ``partial_ack_timer="every"`` restarts the timer on every partial ACK (RFC 2582 §4
    "Slow-but-Steady") instead of the first only ("first", "Impatient").
    """

    variant: str = "newreno"
    mss: int = 1000
    init_cwnd: int = 2
    max_cwnd: int | None = None
    rwnd: int | None = None
    delayed_ack: bool = True
    ack_every: int = 2
    ack_timeout: float = 0.2
    rto_min: float = 1.0
    rto_max: float = 60.0
    rto_initial: float = 1.0
    dupack_threshold: int = 3
    header_bytes: int = 40
    ack_bytes: int = 40
    limited_transmit: bool = False
    clock_granularity: float = 0.0
    ssthresh_rule: Literal["flightsize", "pipe", "flightsize_minus_lost"] = "flightsize"
    grow_on_loss_exit: bool = True
    rto_backoff_reset: Literal["sample", "new_ack"] = "sample"
    rto_estimator: Literal["rfc6298", "rfc793"] = "rfc6298"
    rto_alpha: float = 0.875
    rto_beta: float = 2.0
    rto_backoff: bool = True
    ack_on_idle: bool = False
    fast_retransmit_after_timeout: bool = False
    partial_ack_timer: Literal["first", "every"] = "first"

    @classmethod
    def tossim(
        cls,
        *,
        ack_timeout: float = 0.300,
        rto_min: float = 1.0,
        rto_max: float = 60.0,
        max_cwnd: int | None = 130,
        **overrides: Any,
    ) -> TcpConfig:
        """NewReno as Srinivasan et al. ("PRR Is Not Enough", §3.1) ran it on TinyOS/TOSSIM,
        reconstructed from what the paper says and the documents it cites (``docs/study.md``
        gives the reasoning and the measured effect of each setting). The defaults are the
        paper's Mirage timers (10 ms slots): ACK timeout 300 ms, RTO 1-60 s, window ≤ 130;
        its Roofnet timers are ``ack_timeout=0.06, rto_min=0.2, rto_max=12``.

        - ``rto_estimator="rfc793"``, ``rto_backoff=False``: RFC 793 §3.7's timer (cited by
          the paper), RTO = min(UBOUND, max(LBOUND, β·SRTT)) with "UBOUND ... (e.g.,
          1 minute), LBOUND ... (e.g., 1 second)" — the paper's bounds — and no exponential
          backoff (which RFC 793 does not have);
        - ``ack_on_idle=True``: §3.1's receiver ACK timeout, which "governs how long to wait
          for a packet before sending an acknowledgement ... so the sender gets up-to-date
          information when there are a lot of losses": every ACK timeout of silence sends
          the current (duplicate) ACK; three of them (0.9 s; 180 ms with Roofnet's 60 ms)
          come just before the minimum RTO (1 s; 200 ms);
        - ``fast_retransmit_after_timeout=True``: those duplicate ACKs start fast retransmit
          even after a timeout (RFC 2581 §3.2 and RFC 2582's base algorithm, both cited;
          RFC 2582 also describes "careful" variants against it, which RFC 3782 made the
          standard);
        - ``partial_ack_timer="every"``: RFC 2582 §4's Slow-but-Steady variant, so a long
          recovery that keeps making progress is not cut short by the 1 s timer.

        Everything else is the RFC default: NewReno, initial window 2, delayed ACKs every
        second segment, 3 duplicate ACKs. ``overrides`` replace any field.
        """
        fields: dict[str, Any] = {
            "variant": "newreno",
            "init_cwnd": 2,
            "max_cwnd": max_cwnd,
            "delayed_ack": True,
            "ack_every": 2,
            "ack_timeout": ack_timeout,
            "rto_min": rto_min,
            "rto_max": rto_max,
            "rto_initial": rto_min,
            "dupack_threshold": 3,
            "rto_estimator": "rfc793",
            "rto_alpha": 0.875,
            "rto_beta": 2.0,
            "rto_backoff": False,
            "ack_on_idle": True,
            "fast_retransmit_after_timeout": True,
            "partial_ack_timer": "every",
        }
        fields.update(overrides)
        return cls(**fields)


def _number(name: str, value: Any, kind: type) -> Any:
    """``kind(value)``, or a ParameterError naming the parameter (not a bare ValueError)."""
    try:
        return kind(value)
    except (TypeError, ValueError, OverflowError):
        raise _core.ParameterError(f"invalid parameter {name} = {value!r}: expected a number") from None


def loss_model(loss: Any) -> _core.LossModel | None:
    """A link's loss as the simulator takes it: a :class:`burstlab._core.LossModel` as it
    is, a fitted or configured :mod:`burstlab.models` model (its ``to_core()``), a loss spec
    string (:func:`burstlab.lossspec.parse_loss_spec`, e.g. ``"ge:prr=0.9,mu=0.6"``), or None."""
    if loss is None or isinstance(loss, _core.LossModel):
        return loss
    if isinstance(loss, str):
        from burstlab.lossspec import parse_loss_spec

        return parse_loss_spec(loss)
    to_core = getattr(loss, "to_core", None)
    if callable(to_core):
        return to_core()
    raise _core.ParameterError(
        f"invalid parameter loss = {loss!r}: expected a burstlab._core.LossModel, a burstlab.models model or a loss spec string"
    )


@dataclass(frozen=True)
class Link:
    """One link direction: capacity (bits/s), one-way delay (s), DropTail buffer and a
    loss model, consulted per packet (``"packet"``) or in time (``"time"``).

    ``loss``: a :class:`burstlab._core.LossModel`, a :mod:`burstlab.models` model, or a
    loss spec string such as ``"ge:prr=0.9,mu=0.6"`` (see :func:`loss_model`).
    ``loss_window`` (time mode): the loss process is asked about the interval the packet
    occupies this link's channel, its ``"serialisation"`` (default), or its whole
    ``"transit"`` including the propagation delay (burstlab's behaviour before networks:
    a long delay then raises the loss rate).
    ``capacity`` (networks only): a time-varying capacity instead of ``rate``, as a
    Mahimahi delivery-opportunity trace — a file path, or an array of millisecond
    timestamps; each opportunity carries ``opportunity_bytes`` (1500, an IP MTU); the trace
    loops with the period of its last timestamp.
    """

    rate: float = 10e6
    delay: float = 0.010
    buffer: int = 100
    buffer_unit: Literal["packets", "bytes"] = "packets"
    loss: Any = None
    loss_mode: Literal["packet", "time"] = "packet"
    loss_window: Literal["serialisation", "transit"] = "serialisation"
    capacity: Any = None
    opportunity_bytes: int = 1500

    def _config(self) -> dict[str, Any]:
        model = loss_model(self.loss)
        return {
            "rate": _number("rate", self.rate, float),
            "delay": _number("delay", self.delay, float),
            "buffer": _number("buffer", self.buffer, int),
            "buffer_unit": self.buffer_unit,
            "loss": None if model is None else repr(model),
            "loss_mode": self.loss_mode,
            "loss_window": self.loss_window,
        }


@dataclass(frozen=True)
class Workload:
    """Bulk transfer for ``duration`` seconds (100 s if neither ``duration`` nor
    ``size`` is given), or a fixed-size transfer of ``size`` bytes (``duration`` is then
    its time limit; one simulated day if None). The first ``warmup`` seconds are
    excluded from the measurement."""

    duration: float | None = None
    size: int | None = None
    warmup: float = 0.0


def _workload(w: Workload) -> dict[str, Any]:
    duration = 100.0 if w.duration is None and w.size is None else w.duration
    return {
        "duration": None if duration is None else _number("duration", duration, float),
        "size": w.size,
        "warmup": _number("warmup", w.warmup, float),
    }


@dataclass(frozen=True)
class Scenario:
    """A complete simulation: TCP, the forward link, the reverse link (None = the
    forward link's rate, delay and buffer, lossless), how ACK losses relate to the
    forward path, the workload and the seed."""

    tcp: TcpConfig = field(default_factory=TcpConfig)
    forward: Link = field(default_factory=Link)
    reverse: Link | None = None
    ack_loss: Literal["none", "independent", "sync"] = "none"
    workload: Workload = field(default_factory=Workload)
    seed: int = 1
    series: bool = False

    def config(self) -> dict[str, Any]:
        """The full configuration as plain data (what ``config_hash`` hashes)."""
        return {
            "mode": "links",
            "tcp": asdict(self.tcp),
            "forward": self.forward._config(),
            "reverse": None if self.reverse is None else self.reverse._config(),
            "ack_loss": self.ack_loss,
            "workload": _workload(self.workload),
            "seed": int(self.seed),
            "series": bool(self.series),
        }


def _hash(config: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]


@dataclass
class SimResult:
    """Result of one run. Rates are per measured second (after the warm-up)."""

    goodput_bps: float
    goodput_pps: float
    throughput_bps: float
    duration: float
    packets_sent: int
    packets_lost: int
    retransmissions: int
    spurious_retransmissions: int
    fast_retransmits: int
    timeouts: int
    completion_time: float | None
    config: dict[str, Any]
    config_hash: str
    series: dict[str, npt.NDArray[Any]] = field(default_factory=dict)
    channel_losses: int = 0
    queue_drops: int = 0
    acks_sent: int = 0
    acks_lost: int = 0
    delivered_bytes: int = 0
    delivered_segments: int = 0
    events: int = 0

    _SCALARS = (
        "goodput_bps", "goodput_pps", "throughput_bps", "duration", "packets_sent", "packets_lost",
        "retransmissions", "spurious_retransmissions", "fast_retransmits", "timeouts", "completion_time",
        "channel_losses", "queue_drops", "acks_sent", "acks_lost", "delivered_bytes", "delivered_segments", "events",
    )  # fmt: skip

    @classmethod
    def _from_core(cls, d: dict[str, Any], config: dict[str, Any], config_hash: str | None = None, **extra: Any) -> Any:
        kw = {k: d[k] for k in cls._SCALARS}
        series = {k: np.asarray(v) for k, v in d["series"].items()}
        h = _hash(config) if config_hash is None else config_hash
        return cls(config=config, config_hash=h, series=series, **kw, **extra)

    def to_dict(self, series: bool = False) -> dict[str, Any]:
        """Numbers, configuration and its hash (and the series as lists if asked)."""
        out: dict[str, Any] = {k: getattr(self, k) for k in self._SCALARS}
        out["config"] = self.config
        out["config_hash"] = self.config_hash
        if series:
            out["series"] = {k: v.tolist() for k, v in self.series.items()}
        return out


def run(scenario: Scenario) -> SimResult:
    """Simulate one scenario (in Rust, GIL released)."""
    if not isinstance(scenario, Scenario):
        raise _core.ParameterError(f"invalid parameter scenario: expected a burstlab.sim.Scenario, got {type(scenario).__name__}")
    for which, link in (("forward", scenario.forward), ("reverse", scenario.reverse)):
        if link is not None and link.capacity is not None:
            raise _core.ParameterError(
                f"invalid parameter {which}.capacity: a time-varying capacity needs a network (burstlab.sim.Network)"
            )
    cfg = scenario.config()
    core_cfg = dict(cfg)
    core_cfg["forward"] = {k: v for k, v in cfg["forward"].items() if k != "loss"}
    if cfg["reverse"] is not None:
        core_cfg["reverse"] = {k: v for k, v in cfg["reverse"].items() if k != "loss"}
    rev_loss = None if scenario.reverse is None else loss_model(scenario.reverse.loss)
    d = _core.simulate(core_cfg, loss_model(scenario.forward.loss), rev_loss)
    return SimResult._from_core(d, cfg)


def run_trace(
    trace: Any,
    slot: float = 0.01,
    tcp: TcpConfig | None = None,
    ack_path: Literal["lossless", "trace"] = "lossless",
    seed: int = 1,
    series: bool = False,
) -> SimResult:
    """Slotted trace-driven run (Srinivasan et al. §3.1): one transmission opportunity per slot,
    the trace entry of the slot (1 = delivered) decides the data packet's fate; the run
    lasts ``len(trace) * slot`` seconds.

    ``trace``: a :class:`burstlab.Trace`, a :class:`burstlab._core.BitTrace` or an
    array of 0/1. ``ack_path="lossless"``: each ACK arrives at the end of the slot in
    which it is sent (the slot in which the data arrived); ``"trace"``: ACKs take
    transmission opportunities on the same channel and their slot's entry decides
    their fate.
    """
    from burstlab.traces import Trace

    if isinstance(trace, Trace):
        bits = trace.bits
    elif isinstance(trace, _core.BitTrace):
        bits = trace
    else:
        bits = Trace(trace).bits
    tcp = tcp if tcp is not None else TcpConfig()
    cfg = {
        "mode": "trace",
        "tcp": asdict(tcp),
        "slot": float(slot),
        "ack_path": ack_path,
        "seed": int(seed),
        "series": bool(series),
        "trace_len": len(bits),
        "trace_sha256": hashlib.sha256(bits.words().tobytes()).hexdigest()[:16],
    }
    d = _core.simulate_trace(bits, cfg)
    return SimResult._from_core(d, cfg)


# The network half of the package: hops, flows, results, presets, scenario files.
from burstlab.sim.network import (  # noqa: E402
    Cbr,
    Flow,
    FlowResult,
    Hop,
    LinkResult,
    Network,
    NetworkResult,
    OnOff,
    run_network,
)
from burstlab.sim import presets  # noqa: E402
from burstlab.sim.scenario_file import load_scenario  # noqa: E402
