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

import json
import math
from dataclasses import InitVar, asdict, dataclass, field, fields
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from burstlab import _core
from burstlab.sim.params import RED_PARAMS, TCP_PARAMS, field_of as _p

if TYPE_CHECKING:  # numpy is not imported to run a simulation: the series come from Rust as arrays
    import numpy.typing as npt

__all__ = [
    "PROFILES", "TIME_MODELS", "VARIANTS", "Cbr", "ClockResolutionWarning", "Flow", "FlowResult", "Hop", "Link", "LinkResult", "LossModeWarning",
    "Network", "NetworkResult", "OnOff", "Red", "Scenario", "SimResult", "TcpConfig", "Workload", "load_scenario", "loss_model",
    "presets", "run", "run_network", "run_trace", "segments_bound", "tcp_settings",
]  # fmt: skip

#: Congestion controls (``TcpConfig.cc``), loss recoveries (``TcpConfig.recovery``).
CONGESTION_CONTROLS = ("reno", "linux-reno", "westwood", "tibet", "ideal", "vegas", "cubic")
RECOVERIES = ("tahoe", "reno", "newreno", "sack", "prr", "lt")

#: The ``variant`` shorthand (``burstlab sim --tcp NAME``): name -> (cc, recovery).
VARIANTS: dict[str, tuple[str, str]] = {
    "tahoe": ("reno", "tahoe"),
    "reno": ("reno", "reno"),
    "newreno": ("reno", "newreno"),
    "sack": ("reno", "sack"),
    "westwood": ("westwood", "newreno"),
    "tibet": ("tibet", "newreno"),
    "ideal": ("ideal", "newreno"),
    "vegas": ("vegas", "newreno"),
    "cubic": ("cubic", "prr"),
    "linux-reno": ("linux-reno", "prr"),
    "lt-tcp": ("reno", "lt"),
}


@dataclass(frozen=True)
class TcpConfig:
    """TCP settings of one flow. Times in seconds, windows in segments.

    Congestion control (``cc``) and loss recovery (``recovery``) are chosen separately;
    ``TcpConfig(variant="sack")`` is the shorthand for the usual pairs (:data:`VARIANTS`);
    an explicit ``cc`` or ``recovery`` wins over it. Defaults are the RFC behaviour (the
    ``rfc`` profile); :meth:`TcpConfig.profile` gives ns-3 3.44's, a Linux 6.x host's and
    the PRR/μ study's TinyOS sender's (``tossim``, :meth:`TcpConfig.tossim`) settings.
    ``docs/tcp.md`` describes every field and each profile's sources.
    """

    variant: InitVar[str | None] = None
    cc: str = _p("cc")
    recovery: str = _p("recovery")
    mss: int = _p("mss")
    init_cwnd: int = _p("init_cwnd")
    max_cwnd: int | None = _p("max_cwnd")
    rwnd: int | None = _p("rwnd")
    delayed_ack: bool = _p("delayed_ack")
    ack_every: int = _p("ack_every")
    ack_timeout: float = _p("ack_timeout")
    rto_min: float = _p("rto_min")
    rto_max: float = _p("rto_max")
    rto_initial: float = _p("rto_initial")
    dupack_threshold: int = _p("dupack_threshold")
    header_bytes: int = _p("header_bytes")
    ack_bytes: int = _p("ack_bytes")
    limited_transmit: bool = _p("limited_transmit")
    dupack_rule: str = _p("dupack_rule")
    pipe_rule: str = _p("pipe_rule")
    rack_lost_retransmissions: bool = _p("rack_lost_retransmissions")
    rack_tlp: bool = _p("rack_tlp")
    clock_granularity: float = _p("clock_granularity")
    ssthresh_rule: str = _p("ssthresh_rule")
    grow_on_loss_exit: bool = _p("grow_on_loss_exit")
    grow_on_recovery_exit: bool = _p("grow_on_recovery_exit")
    rto_backoff_reset: str = _p("rto_backoff_reset")
    timestamps: bool = _p("timestamps")
    handshake: bool = _p("handshake")
    abc: bool = _p("abc")
    cc_rtt: str = _p("cc_rtt")
    prr_bound: str = _p("prr_bound")
    prr_variant: str = _p("prr_variant")
    westwood_variant: str = _p("westwood_variant")
    linux_reno_variant: str = _p("linux_reno_variant")
    tibet_alpha: float = _p("tibet_alpha")
    tibet_estimator: str = _p("tibet_estimator")
    vegas_alpha: int = _p("vegas_alpha")
    vegas_beta: int = _p("vegas_beta")
    vegas_gamma: int = _p("vegas_gamma")
    cubic_beta: float = _p("cubic_beta")
    cubic_c: float = _p("cubic_c")
    cubic_fast_convergence: bool = _p("cubic_fast_convergence")
    cubic_reno_friendly: bool = _p("cubic_reno_friendly")
    cubic_variant: str = _p("cubic_variant")
    hystart: str = _p("hystart")
    # Pacing (docs/tcp.md, "Pacing").
    pacing: str = _p("pacing")
    pacing_ss_ratio: int = _p("pacing_ss_ratio")
    pacing_ca_ratio: int = _p("pacing_ca_ratio")
    pacing_shift: int = _p("pacing_shift")
    pacing_min_burst: int = _p("pacing_min_burst")
    fq_quantum: int = _p("fq_quantum")
    fq_initial_quantum: int = _p("fq_initial_quantum")
    # The `tossim` profile of the PRR/μ study (Srinivasan et al. §3.1; docs/study.md).
    rto_estimator: str = _p("rto_estimator")
    rto_alpha: float = _p("rto_alpha")
    rto_beta: float = _p("rto_beta")
    rto_backoff: bool = _p("rto_backoff")
    ack_on_idle: bool = _p("ack_on_idle")
    fast_retransmit_after_timeout: bool = _p("fast_retransmit_after_timeout")
    partial_ack_timer: str = _p("partial_ack_timer")
    ecn: bool = _p("ecn")
    # LT-TCP (recovery = "lt"; docs/tcp.md, "LT-TCP").
    lt_pfec: bool = _p("lt_pfec")
    lt_rfec: bool = _p("lt_rfec")
    lt_adaptive_mss: bool = _p("lt_adaptive_mss")
    lt_granularity: int = _p("lt_granularity")
    lt_mss_min: int = _p("lt_mss_min")
    lt_erasure_gain: float = _p("lt_erasure_gain")
    lt_initial_erasure: float = _p("lt_initial_erasure")
    lt_max_erasure: float = _p("lt_max_erasure")
    lt_max_block: int = _p("lt_max_block")

    def __post_init__(self, variant: str | None) -> None:
        if variant is None:
            return
        for name, value in zip(("cc", "recovery"), _variant_pair(variant)):
            if getattr(self, name) == _DEFAULTS[name]:
                object.__setattr__(self, name, value)

    @classmethod
    def profile(cls, name: str, **overrides: Any) -> TcpConfig:
        """Every field as profile ``name`` sets it (:data:`PROFILES`: ``rfc``, ``ns3``,
        ``linux``, ``tossim``), then ``overrides`` (field names, or ``variant``). The core
        resolves the profile (``tcp/profiles.rs``), so Rust, Python, the CLI and TOML agree."""
        return cls(**_core.tcp_profile(name, overrides))

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
        second segment, 3 duplicate ACKs. ``overrides`` replace any field. The same as
        ``TcpConfig.profile("tossim", ...)`` (:data:`PROFILES`).
        """
        return cls.profile("tossim", ack_timeout=ack_timeout, rto_min=rto_min, rto_max=rto_max, max_cwnd=max_cwnd, **overrides)


def _variant_pair(variant: str) -> tuple[str, str]:
    pair = VARIANTS.get(str(variant).lower())
    if pair is None:
        raise _core.ParameterError(f"invalid parameter variant = {variant}: expected one of {', '.join(VARIANTS)}")
    return pair


_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(TcpConfig)}

#: The profiles, as the core holds them (``crates/burstlab-core/src/tcp/profiles.rs``): name ->
#: the values it fixes, then ``computed``: {field: how it follows from the others}, and
#: ``cc_alias``: congestion controls it runs under another name. Sources: ``docs/tcp.md``.
PROFILES: dict[str, dict[str, Any]] = {
    name: {**p["fixed"], **({"computed": p["computed"]} if p["computed"] else {}), **({"cc_alias": p["cc_alias"]} if p["cc_alias"] else {})}
    for name, p in _core.tcp_profiles().items()
}


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


#: Loss models that follow time (``loss_mode="time"`` asks them about the interval a packet
#: occupies the channel); every other model is indexed by packets and treats each packet in
#: time mode as the next one (docs/simulator.md, "Links").
TIME_MODELS = frozenset({"markov-ct", "on-off", "semi-markov", "semi-markov-on-off", "vddp", "replay-time"})


class LossModeWarning(UserWarning):
    """``loss_mode="time"`` with a loss model indexed by packets: the run is the packet-mode
    run (the model has no notion of time), which the setting suggests it is not."""


def _check_loss_mode(name: str, model: _core.LossModel | None, mode: str) -> None:
    """Warn when time mode is asked of a per-packet model (a silent misread otherwise)."""
    if mode == "time" and model is not None and model.name not in TIME_MODELS:
        import warnings

        warnings.warn(
            f"{name}: loss_mode = time with the per-packet model {model.name}: it has no notion of time and decides "
            "each packet in turn, exactly as in packet mode; for a channel that evolves in time use a time model "
            "(ctmc, onoff, semi, vddp, or a trace replayed with a slot), or loss_mode = packet",
            LossModeWarning,
            stacklevel=3,
        )


def segments_bound(rate: float, duration: float, buffer: int, buffer_unit: str, segment_bytes: int) -> int:
    """The most data segments of ``segment_bytes`` on the wire one flow can have sent over a
    link of ``rate`` bits/s in ``duration`` seconds that were not dropped at its entry: what
    the link serialises, what its buffer holds, and the one in service. A window (``init_cwnd``)
    beyond it cannot be sent in the run: its excess is dropped at once."""
    if segment_bytes <= 0:  # mss = 0 (and no header): the simulator's check names it
        return 2**63
    carried = math.ceil(rate * duration / (8 * segment_bytes)) if math.isfinite(rate * duration) else 2**63
    held = buffer if buffer_unit == "packets" else math.ceil(buffer / segment_bytes)
    return min(2**63, carried + held + 1)


#: An initial window never refused: RFC 6928's 10 segments (a window larger than a short
#: transfer costs nothing; `sim --size 1000` refused the default window of 2).
IW_ALWAYS = 10


def _check_init_cwnd(tcp: TcpConfig, bound: int, why: str) -> None:
    """Refuse an initial window beyond what the run can send (it allocated one scoreboard
    entry per segment: 2^32 segments grew to 22.9 GB; 10^9 ran for minutes); up to
    :data:`IW_ALWAYS` segments is always allowed."""
    n = tcp.init_cwnd
    bound = max(bound, IW_ALWAYS)
    if isinstance(n, int) and n > bound:
        raise _core.ParameterError(
            f"invalid parameter init_cwnd = {n}: at most {bound} segments here ({why}): a larger initial window "
            "cannot be sent in this run"
        )


class ClockResolutionWarning(UserWarning):
    """A link so fast that a data packet's serialisation, rounded up to whole nanoseconds
    (the simulator's clock), makes the link noticeably slower than the rate asked for."""


def _check_first_link(where: str, tcp: TcpConfig, rate: float, buffer: int, buffer_unit: str, duration: float | None, size: int | None) -> None:
    """Checks of a flow on its first link (``where``): the initial window against what the
    run can send there (:func:`_check_init_cwnd`; ``rate``, ``buffer`` and a run of
    ``duration`` seconds, or ``size`` bytes to transfer), and a warning when the nanosecond
    clock cannot hold the link's rate (a silent misread otherwise: 10^30 bit/s ran at 8·10^12).
    ``rate`` 0: not known (a link layer or a capacity trace times the frames), only the
    transfer's size bounds the window. Values of the wrong type or out of range are left to
    the simulator's checks, which name them."""
    mss, header = tcp.mss, tcp.header_bytes
    if not (isinstance(mss, int) and isinstance(header, int) and mss > 0 and header >= 0 and buffer >= 0):
        return
    seg = mss + header + (12 if tcp.timestamps else 0)
    if rate >= 1 and math.isfinite(rate):
        tx = math.ceil(seg * 8e9 / int(rate))  # ns, rounded up as the simulator does (time::tx_time)
        if seg * 8e9 / tx < 0.99 * rate:
            import warnings

            warnings.warn(
                f"{where}: rate = {rate:g} bit/s: a {seg}-byte packet takes {seg * 8e9 / rate:.3g} ns, {tx} ns on the "
                f"simulator's clock of whole nanoseconds, so the link runs at {_rate_text(seg * 8e9 / tx)} instead; "
                "larger segments (mss) keep the rate",
                ClockResolutionWarning,
                stacklevel=4,
            )
    bounds = []
    if duration is not None and rate > 0 and duration >= 0:
        bounds.append((segments_bound(rate, duration, buffer, buffer_unit, seg),
                       f"a {_rate_text(rate)} link carries at most that many {seg}-byte packets in {duration:g} s, "
                       "its buffer and the one in service included"))  # fmt: skip
    if isinstance(size, int) and size > 0:
        bounds.append((math.ceil(size / mss), f"a transfer of {size} bytes has that many segments of {mss} bytes"))
    if bounds:
        _check_init_cwnd(tcp, *min(bounds))


def _rate_text(bps: float) -> str:
    for scale, unit in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
        if bps >= scale:
            return f"{bps / scale:.4g} {unit}"
    return f"{bps:.4g} b/s"


@dataclass(frozen=True)
class Red:
    """Random Early Detection (Floyd & Jacobson 1993) with ECN marking (RFC 3168), a link's
    queue discipline (``Link(queue=Red(...))``; ``queue="red"`` takes these defaults, ns-3
    3.44's RedQueueDisc's except ``ecn``). Thresholds of the average queue in the link's
    buffer unit; ``max_p`` the marking probability at ``max_th``; ``weight`` the EWMA's w_q;
    ``gentle``: the probability rises to 1 at 2·max_th instead of jumping; ``wait``: marks
    spaced by at least 1/p_b packets; ``ecn``: ECN-capable packets are marked, not dropped;
    ``hard_drop``: forced marks (above the thresholds) stay drops; ``mean_packet_bytes``:
    the packet whose transmission time counts an idle period (``docs/simulator.md``)."""

    min_th: float = _p("min_th", RED_PARAMS)
    max_th: float = _p("max_th", RED_PARAMS)
    max_p: float = _p("max_p", RED_PARAMS)
    weight: float = _p("weight", RED_PARAMS)
    gentle: bool = _p("gentle", RED_PARAMS)
    wait: bool = _p("wait", RED_PARAMS)
    ecn: bool = _p("ecn", RED_PARAMS)
    hard_drop: bool = _p("hard_drop", RED_PARAMS)
    mean_packet_bytes: int = _p("mean_packet_bytes", RED_PARAMS)


#: The keys of :class:`Red` as link options (scenario files ``red_min_th = 5``, ``burstlab sim
#: --red-min-th 5``).
RED_FIELDS = tuple(f.name for f in fields(Red))


def _queue_config(queue: Any) -> dict[str, Any]:
    """A link's queue discipline as the simulator takes it: ``{"queue": "droptail"}`` or
    ``{"queue": "red", "red": {...}}``."""
    if isinstance(queue, Red):
        red = queue
    elif queue == "red":
        red = Red()
    elif queue == "droptail":
        return {"queue": "droptail"}
    else:
        raise _core.ParameterError(f"invalid parameter queue = {queue!r}: expected 'droptail', 'red' or a burstlab.sim.Red")
    conv = {f.name: (bool if f.type in ("bool", bool) else int if f.type in ("int", int) else float) for f in fields(Red)}
    return {"queue": "red", "red": {k: _number(f"red_{k}", v, conv[k]) for k, v in asdict(red).items()}}


def _queue_fields(queue: Any) -> dict[str, Any]:
    """A link's queue discipline in its configuration: nothing for DropTail (configurations,
    and their hashes, as before RED existed, as for the link layer), else ``queue`` and ``red``."""
    q = _queue_config(queue)
    return {} if q["queue"] == "droptail" else q


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
    ``queue``: ``"droptail"`` (default), ``"red"`` or a :class:`Red` with its parameters
    (RED with ECN marking, checked at entry before the buffer).
    ``link_layer``: a :class:`burstlab.linklayer.Arq` or :class:`~burstlab.linklayer.Harq`
    (or a spec such as ``"arq:retry_limit=7"``, :func:`burstlab.linklayer.parse_link_layer`)
    between the channel and the network layer: it times the link's frames (``rate`` is then
    unused), its attempts meet the loss model (per attempt, or over each attempt's own
    interval in time mode) and a frame is lost only when the attempt limit drops it
    (``docs/link-layer.md``).
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
    queue: Any = "droptail"
    link_layer: Any = None

    def _config(self) -> dict[str, Any]:
        model = loss_model(self.loss)
        out = {
            "rate": _number("rate", self.rate, float),
            "delay": _number("delay", self.delay, float),
            "buffer": _number("buffer", self.buffer, int),
            "buffer_unit": self.buffer_unit,
            "loss": None if model is None else repr(model),
            "loss_mode": self.loss_mode,
            "loss_window": self.loss_window,
            **_queue_fields(self.queue),
        }
        layer = link_layer_config(self.link_layer)
        if layer is not None:  # absent otherwise: configurations (and their hashes) without one are as before
            out["link_layer"] = layer
        return out


def link_layer_config(layer: Any) -> dict[str, Any] | None:
    """A link's ``link_layer`` (Arq, Harq, a spec string or None) as the simulator's dict."""
    if layer is None or (isinstance(layer, str) and layer.strip().lower() == "none"):
        return None  # without importing burstlab.linklayer (numpy): a plain link needs neither
    from burstlab.linklayer import Arq, Harq, parse_link_layer

    if isinstance(layer, (str, dict)):
        layer = parse_link_layer(layer)
        if layer is None:
            return None
    if not isinstance(layer, (Arq, Harq)):
        raise _core.ParameterError(
            f"invalid parameter link_layer: expected burstlab.linklayer.Arq, Harq or a spec string, got {type(layer).__name__}"
        )
    return layer._config()


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


def tcp_settings(tcp: TcpConfig) -> dict[str, Any]:
    """The settings the simulator will run for ``tcp``, validated by it (an error names the
    bad field), plus ``ssthresh_rule_resolved``: what ``ssthresh_rule`` means for this cc (and
    recovery), and ``ecn_resolved``: whether the flow uses ECN (``ecn``, or LT-TCP)."""
    return _core.tcp_settings(asdict(tcp))


def _hash(config: dict[str, Any]) -> str:
    import hashlib

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
    their fate.
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
        "tcp": asdict(tcp),
        "slot": float(slot),
        "ack_path": ack_path,
        "seed": int(seed),
        "series": bool(series),
        "trace_len": len(bits),
        "trace_sha256": hashlib.sha256(bits.words().tobytes()).hexdigest()[:16],
    }
    d = _core.simulate_trace(bits, {**cfg, **run_options(max_events, progress)})
    return SimResult._from_core(d, cfg)


# The network half of the package (hops, flows, results, presets, scenario files), imported
# when first used: a single-link run does not pay for defining it (benchmarks/startup.py).
_NETWORK_NAMES = ("Cbr", "Flow", "FlowResult", "Hop", "LinkResult", "Network", "NetworkResult", "OnOff", "run_network")

if TYPE_CHECKING:
    from burstlab.sim import presets
    from burstlab.sim.network import Cbr, Flow, FlowResult, Hop, LinkResult, Network, NetworkResult, OnOff, run_network
    from burstlab.sim.scenario_file import load_scenario


def __getattr__(name: str) -> Any:
    import importlib

    if name in _NETWORK_NAMES:
        return getattr(importlib.import_module("burstlab.sim.network"), name)
    if name == "presets":
        return importlib.import_module("burstlab.sim.presets")
    if name == "load_scenario":
        return importlib.import_module("burstlab.sim.scenario_file").load_scenario
    raise AttributeError(f"module 'burstlab.sim' has no attribute {name!r}")
