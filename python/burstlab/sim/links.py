"""One link direction (:class:`Link`): capacity, delay, buffer, loss model, queue discipline
(:class:`Red`) and link layer, and the checks of a flow on its first link (the initial window
against what the run can send, the nanosecond clock against the rate).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any, Literal

from burstlab import _core
from burstlab.lossspec import parse_loss_spec
from burstlab.sim.config import _number
from burstlab.sim.params import RED_PARAMS, field_of as _p
from burstlab.sim.aqm import aqm_config as _aqm_config

if TYPE_CHECKING:
    from burstlab.sim.config import TcpConfig


def loss_model(loss: Any) -> _core.LossModel | None:
    """A link's loss as the simulator takes it: a :class:`burstlab._core.LossModel` as it
    is, a fitted or configured :mod:`burstlab.models` model (its ``to_core()``), a loss spec
    string (:func:`burstlab.lossspec.parse_loss_spec`, e.g. ``"ge:prr=0.9,mu=0.6"``), or None."""
    if loss is None or isinstance(loss, _core.LossModel):
        return loss
    if isinstance(loss, str):
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
TIME_MODELS = frozenset({"markov-ct", "on-off", "semi-markov", "semi-markov-on-off", "vddp", "replay-time", "phy"})  # phy: the SNR at a unit's start


class LossModeWarning(UserWarning):
    """``loss_mode="time"`` with a loss model indexed by packets: the run is the packet-mode
    run (the model has no notion of time), which the setting suggests it is not."""


def _check_loss_mode(name: str, model: _core.LossModel | None, mode: str) -> None:
    """Warn when time mode is asked of a per-packet model (a silent misread otherwise)."""
    if mode == "time" and model is not None and model.name not in TIME_MODELS:
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
    """A link's queue discipline as the simulator takes it: ``{"queue": "droptail"}``,
    ``{"queue": "red", "red": {...}}`` or CoDel's and FQ-CoDel's (:func:`burstlab.sim.aqm.aqm_config`)."""
    aqm = _aqm_config(queue)
    if aqm is not None:
        return aqm
    if isinstance(queue, Red):
        red = queue
    elif queue == "red":
        red = Red()
    elif queue == "droptail":
        return {"queue": "droptail"}
    else:
        raise _core.ParameterError(f"invalid parameter queue = {queue!r}: expected 'droptail', 'red', 'codel', 'fq_codel' or a burstlab.sim.Red, Codel or FqCodel")
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
    ``queue``: ``"droptail"`` (default), ``"red"``, ``"codel"``, ``"fq_codel"`` or a :class:`Red`, :class:`Codel` or :class:`FqCodel` with its parameters
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
