"""Running a simulation in Rust: :func:`run` (a :class:`~burstlab.sim.Scenario`),
:func:`run_trace` (the slotted trace-driven mode of Srinivasan et al. §3.1), their result
(:class:`SimResult`) and the options every entry point shares (:func:`run_options`).

(``runner``, not ``run``: a submodule named like the function :func:`burstlab.sim.run` would be
shadowed by it, so that ``import burstlab.sim.run as m`` gave the function.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from burstlab import _core
from burstlab.sim.config import TcpConfig, tcp_dict
from burstlab.sim.links import _check_first_link, _check_init_cwnd, _check_loss_mode, loss_model
from burstlab.sim.scenario import Scenario

if TYPE_CHECKING:  # numpy is not imported to run a simulation: the series come from Rust as arrays
    import numpy.typing as npt


def _hash(config: dict[str, Any]) -> str:
    """A configuration's hash: :func:`_hash_text` of its JSON text with sorted keys."""
    return _hash_text(json.dumps(config, sort_keys=True))


def _hash_text(text: str) -> str:
    """The hash of a configuration's JSON text (SHA-256, its first 16 hex digits): the one
    place the hash's format is written (``run_network_seeds`` hashes texts it assembles)."""
    import hashlib  # OpenSSL's bindings, 2 ms: `burstlab --help` does not hash

    return hashlib.sha256(text.encode()).hexdigest()[:16]


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
    ecn_reductions: int = 0
    lost_retransmissions: int = 0
    loss_probes: int = 0
    pfec_sent: int = 0
    rfec_sent: int = 0
    fec_decodes: int = 0
    fec_wasted: int = 0

    _SCALARS = (
        "goodput_bps", "goodput_pps", "throughput_bps", "duration", "packets_sent", "packets_lost",
        "retransmissions", "spurious_retransmissions", "fast_retransmits", "timeouts", "completion_time",
        "channel_losses", "queue_drops", "acks_sent", "acks_lost", "delivered_bytes", "delivered_segments", "events",
        "ecn_reductions", "lost_retransmissions", "loss_probes", "pfec_sent", "rfec_sent", "fec_decodes", "fec_wasted",
    )  # fmt: skip

    @classmethod
    def _from_core(cls, d: dict[str, Any], config: dict[str, Any], config_hash: str | None = None, **extra: Any) -> Any:
        kw = {k: d[k] for k in cls._SCALARS}
        series = dict(d["series"])  # numpy arrays made in Rust
        h = _hash(config) if config_hash is None else config_hash
        return cls(config=config, config_hash=h, series=series, **kw, **extra)

    def _repr_html_(self) -> str:  # a notebook's display (burstlab.notebook)
        from burstlab.notebook import sim_result_html

        return sim_result_html(self)

    def to_dict(self, series: bool = False) -> dict[str, Any]:
        """Numbers, configuration and its hash (and the series as lists if asked)."""
        out: dict[str, Any] = {k: getattr(self, k) for k in self._SCALARS}
        out["config"] = self.config
        out["config_hash"] = self.config_hash
        if series:
            out["series"] = {k: v.tolist() for k, v in self.series.items()}
        return out


#: A run's progress callback: ``progress(simulated_s, end_s, events)``, about once a second.
Progress = Callable[[float, float, int], object]


def run_options(max_events: int | None, progress: Progress | None, option: str = "max_events=N") -> dict[str, Any]:
    """The keys every simulation entry point passes the engine beside its configuration (not
    part of the configuration or its hash): the work budget checked before the run (events ≈
    packets × hops + timers; ``None``: 2·10^8, ``0``: none; a run over it is refused naming
    the estimate and ``option``) and the progress callback. Ctrl-C stops any run within a
    few milliseconds (``KeyboardInterrupt``). docs/simulator.md "Long runs"."""
    if max_events is not None and (isinstance(max_events, bool) or not isinstance(max_events, int) or max_events < 0):
        raise _core.ParameterError(f"invalid parameter max_events = {max_events!r}: expected a whole number of events ≥ 0 (0: no budget)")
    if progress is not None and not callable(progress):
        raise _core.ParameterError(f"invalid parameter progress = {progress!r}: expected a callable (simulated_s, end_s, events)")
    return {"max_events": max_events, "max_events_option": option, "progress": progress}


def run(scenario: Scenario, *, max_events: int | None = None, progress: Progress | None = None) -> SimResult:
    """Simulate one scenario (in Rust, GIL released). ``max_events``, ``progress``:
    :func:`run_options`."""
    if not isinstance(scenario, Scenario):
        raise _core.ParameterError(f"invalid parameter scenario: expected a burstlab.sim.Scenario, got {type(scenario).__name__}")
    for which, link in (("forward", scenario.forward), ("reverse", scenario.reverse)):
        if link is not None and link.capacity is not None:
            raise _core.ParameterError(
                f"invalid parameter {which}.capacity: a time-varying capacity needs a network (burstlab.sim.Network)"
            )
    cfg = scenario.config()
    fwd, wl = cfg["forward"], cfg["workload"]
    rate = 0.0 if "link_layer" in fwd else fwd["rate"]  # a link layer times its frames itself (rate unused)
    _check_first_link("forward", scenario.tcp, rate, fwd["buffer"], fwd["buffer_unit"], wl["duration"], wl["size"])
    core_cfg = dict(cfg)
    core_cfg["forward"] = {k: v for k, v in cfg["forward"].items() if k != "loss"}
    if cfg["reverse"] is not None:
        core_cfg["reverse"] = {k: v for k, v in cfg["reverse"].items() if k != "loss"}
    fwd_loss = loss_model(scenario.forward.loss)
    rev_loss = None if scenario.reverse is None else loss_model(scenario.reverse.loss)
    _check_loss_mode("forward", fwd_loss, scenario.forward.loss_mode)
    if scenario.reverse is not None:
        _check_loss_mode("reverse", rev_loss, scenario.reverse.loss_mode)
    core_cfg.update(run_options(max_events, progress))
    d = _core.simulate(core_cfg, fwd_loss, rev_loss)
    return SimResult._from_core(d, cfg)


def run_trace(
    trace: Any,
    slot: float = 0.01,
    tcp: TcpConfig | None = None,
    ack_path: Literal["lossless", "trace"] = "lossless",
    seed: int = 1,
    series: bool = False,
    *,
    sender_queue: Literal["fifo", "radio"] = "radio",
    max_events: int | None = None,
    progress: Progress | None = None,
) -> SimResult:
    """Slotted trace-driven run (Srinivasan et al. §3.1): one transmission opportunity per slot,
    the trace entry of the slot (1 = delivered) decides the data packet's fate; the run
    lasts ``len(trace) * slot`` seconds.

    ``trace``: a :class:`burstlab.Trace`, a :class:`burstlab._core.BitTrace` or an
    array of 0/1. ``ack_path="lossless"``: each ACK arrives at the end of the slot in
    which it is sent (the slot in which the data arrived); ``"trace"``: ACKs take
    transmission opportunities on the same channel and their slot's entry decides
    their fate. ``sender_queue``: how the sender hands its segments to the channel (a detail the
    paper leaves open; docs/study.md "The sender's queue"): ``"radio"`` (default), a TinyOS
    radio holding one packet, the sender picking its next segment when the slot of the last
    has ended; ``"fifo"``, every segment it releases waits for its slot in an unbounded queue
    (burstlab's behaviour before the choice existed).
    """
    import hashlib

    from burstlab.traces import Trace

    if isinstance(trace, Trace):
        bits = trace.bits
    elif isinstance(trace, _core.BitTrace):
        bits = trace
    else:
        bits = Trace(trace).bits
    tcp = tcp if tcp is not None else TcpConfig()
    if len(bits):  # an empty trace is the simulator's error to name
        _check_init_cwnd(tcp, len(bits), f"the trace has {len(bits)} slots, one transmission opportunity each")
    cfg = {
        "mode": "trace",
        "tcp": tcp_dict(tcp),
        "slot": float(slot),
        "ack_path": ack_path,
        "sender_queue": sender_queue,
        "seed": int(seed),
        "series": bool(series),
        "trace_len": len(bits),
        "trace_sha256": hashlib.sha256(bits.words().tobytes()).hexdigest()[:16],
    }
    d = _core.simulate_trace(bits, {**cfg, **run_options(max_events, progress)})
    return SimResult._from_core(d, cfg)
