"""The wireless link layer: IEEE 802.11 ARQ (Barsocchi et al., Subramanian et al.), Subramanian
et al.'s hybrid ARQ with FEC (LL-HARQ), and 802.11 DCF timing.

>>> from burstlab.linklayer import Arq, measure, wifi_timing
>>> round(wifi_timing(1000, llc_snap_bytes=0).capacity_bps / 1e6, 1)   # Barsocchi et al. §II.B
5.3
>>> from burstlab._core import LossModel
>>> m = measure(Arq(retry_limit=7, timing=0.001), LossModel.bernoulli(0.5), frames=100_000)
>>> abs(m.residual_loss_rate - 0.5 ** 8) < 0.002
True

A link layer serves one frame at a time: attempts (ARQ) or rounds of fragments (HARQ) until
the frame gets through or the attempt limit drops it (a residual loss). Each attempt's fate
comes from the hop's loss model, per attempt (``mode="packet"``) or for the attempt's own
interval on the channel (``mode="time"``, e.g. Barsocchi et al.'s Ttem trace through
``LossModel.replay(trace, slot=0.005)``). :func:`measure` runs a saturated link without TCP
(Subramanian et al. Fig. 1 and 7). Units: seconds, bits/s, bytes. ``docs/link-layer.md``
describes the model and every choice the papers leave open.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from burstlab import _core
from burstlab.sim.params import ARQ_PARAMS, ATTEMPT_PARAMS, DCF_PARAMS, HARQ_PARAMS, RATE_PARAMS, field_of

__all__ = [
    "ARQ_PARAMS", "ATTEMPT_PARAMS", "Arq", "Backoff", "DCF_PARAMS", "Dcf", "Distribution", "HARQ_PARAMS", "Harq", "LinkLayerStats",
    "LinkMeasurement", "RATE_PARAMS", "WifiTiming", "layer_settings", "measure", "parse_link_layer", "spec_settings",
    "wifi_timing",
]  # fmt: skip

#: Quantiles reported for the per-attempt time and the per-frame latency.
QUANTILES = (0.5, 0.9, 0.99, 0.999)


@dataclass(frozen=True)
class Dcf:
    """IEEE 802.11 DCF timing parameters; the defaults are 802.11b (DSSS) at 11 Mb/s with
    the long preamble, Barsocchi et al.'s channel.

    Every field is declared once in the core (:data:`DCF_PARAMS`, ``docs/parameters.md``):
    ``preamble`` ``"long"`` (192 µs of PLCP preamble and header) or ``"short"`` (96 µs);
    ``ack_rate`` (0 or None = ``rate``) is the MAC ACK's rate; ``mac_overhead_bytes`` the data
    frame's MAC header and FCS (24 + 4), ``ack_bytes`` the ACK frame (14), ``llc_snap_bytes``
    the LLC/SNAP header added to each network-layer packet (8; 0 to count the MSDU alone).
    ``difs`` = ``sifs`` + 2 ``slot`` in the standard. ``phy="erp"``: 802.11g ERP-OFDM at ``rate``
    (6, 9, 12, 18, 24, 36, 48 or 54 Mb/s): a 20-µs PLCP, the PSDU in whole 4-µs symbols, a
    6-µs signal extension, CWmin 15, the ACK at the highest of 6, 12, 24 Mb/s at or below
    ``rate`` (``ack_rate`` None); ``Dcf(rate=24e6, phy="erp")``.
    """

    rate: float = field_of("rate", DCF_PARAMS)
    preamble: Literal["long", "short"] = field_of("preamble", DCF_PARAMS)
    ack_rate: float | None = field_of("ack_rate", DCF_PARAMS)
    slot: float = field_of("slot", DCF_PARAMS)
    sifs: float = field_of("sifs", DCF_PARAMS)
    difs: float = field_of("difs", DCF_PARAMS)
    mac_overhead_bytes: int = field_of("mac_overhead_bytes", DCF_PARAMS)
    ack_bytes: int = field_of("ack_bytes", DCF_PARAMS)
    llc_snap_bytes: int = field_of("llc_snap_bytes", DCF_PARAMS)
    cw_min: int = field_of("cw_min", DCF_PARAMS)
    cw_max: int = field_of("cw_max", DCF_PARAMS)
    phy: Literal["dsss", "erp"] = field_of("phy", DCF_PARAMS)


@dataclass(frozen=True)
class Backoff:
    """Binary exponential backoff (802.11 DCF): before the i-th attempt of a frame, a
    uniform whole number of slots in [0, CW_i], CW_0 = ``cw_min``, doubling (+1) per retry
    up to ``cw_max``. Defaults: 802.11b (the :class:`Dcf`'s declaration)."""

    cw_min: int = field_of("cw_min", DCF_PARAMS)
    cw_max: int = field_of("cw_max", DCF_PARAMS)
    slot: float = field_of("slot", DCF_PARAMS)


Timing = Dcf | float | tuple[float, float]


def _timing(timing: Timing, rate: float | None, backoff: Backoff | None) -> dict[str, Any]:
    if isinstance(timing, Dcf):
        out: dict[str, Any] = {"dcf": asdict(timing)}
        if rate is not None:
            out["rate"] = rate
    elif isinstance(timing, tuple):
        out = {"attempt_time": timing[0], "attempt_time_max": timing[1], "rate": rate}
    else:
        out = {"attempt_time": timing, "rate": rate}
    out["backoff"] = None if backoff is None else asdict(backoff)
    return out


@dataclass(frozen=True)
class Arq:
    """Link-layer ARQ as in IEEE 802.11: a frame is retried until it gets through or the
    limit is reached, then dropped.

    ``counts="retries"`` (default): ``retry_limit`` R allows R + 1 attempts (residual loss
    p^(R+1) on independent losses). ``counts="attempts"``: ``retry_limit`` is the number of
    attempts, which is what IEEE 802.11's dot11ShortRetryLimit (default 7) and Subramanian et
    al.'s "ARQ = 7, 15, 25" count.

    ``timing``: a :class:`Dcf` (802.11 timing from the frame size; the default), a fixed
    time per attempt in seconds, or a ``(min, max)`` pair: each attempt uniform in [min, max]
    (Subramanian et al. slide 8). With a number or a pair, ``rate`` (bits/s) adds the
    frame's air time to each attempt. ``backoff``: None (default; Subramanian et al.'s driver
    had none) or a :class:`Backoff`.

    ``rate_control``: ``"fixed"`` (default: every attempt at the timing's rate) or 802.11
    rate adaptation over ``rate_set`` (``"b"``: 802.11b's 1, 2, 5.5 and 11 Mb/s; ``"g"``:
    802.11g's ERP-OFDM 6-54 Mb/s; ``"bg"``: both), choosing each attempt's rate from
    the outcomes seen: ``"arf"``, ``"aarf"`` or ``"minstrel"`` (ns-3's ``ArfWifiManager``,
    ``AarfWifiManager``, ``MinstrelWifiManager``). Each attempt then takes its rate's DCF
    air time (``timing`` must be a :class:`Dcf`) and SNR-driven loss decides it at its rate
    and size; each ACK at the highest basic rate at or below the data rate, the basic rates
    being ``ack_rates`` (``"basic"``: 1 and 2 Mb/s, ERP 6, 12, 24; ``"mandatory"``: every
    mandatory rate, as ns-3's ad hoc stations); the link results count attempts and successes
    per rate (``rates``). The
    controllers' settings (``arf_*``, ``minstrel_*``; ns-3's defaults) are declared in the
    core (:data:`RATE_PARAMS`, ``docs/parameters.md``).
    """

    retry_limit: int = field_of("retry_limit", ARQ_PARAMS)
    counts: Literal["retries", "attempts"] = field_of("counts", ARQ_PARAMS)
    timing: Timing = field(default_factory=Dcf)
    rate: float | None = None
    backoff: Backoff | None = None
    rate_control: str = field_of("rate_control", RATE_PARAMS)
    rate_set: str = field_of("rate_set", RATE_PARAMS)
    ack_rates: str = field_of("ack_rates", RATE_PARAMS)
    arf_success: int = field_of("arf_success", RATE_PARAMS)
    arf_timer: int = field_of("arf_timer", RATE_PARAMS)
    minstrel_update: float = field_of("minstrel_update", RATE_PARAMS)
    minstrel_ewma: int = field_of("minstrel_ewma", RATE_PARAMS)
    minstrel_look_around: int = field_of("minstrel_look_around", RATE_PARAMS)
    minstrel_columns: int = field_of("minstrel_columns", RATE_PARAMS)

    def _config(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": "arq",
            "retry_limit": self.retry_limit,
            "counts": self.counts,
            "timing": _timing(self.timing, self.rate, self.backoff),
        }
        if self.rate_control != "fixed":  # a fixed-rate hop's config (and its cache keys) unchanged
            out.update({k: getattr(self, k) for k in RATE_PARAMS})
        return out


@dataclass(frozen=True)
class Harq:
    """Subramanian et al.'s link-layer hybrid ARQ (LL-HARQ): a frame is cut into k data
    fragments of at most ``fragment_bytes`` (each sent with ``fragment_header_bytes``) and
    sent with proactive FEC (PFEC) under an ideal erasure code (any k fragments decode);
    missing fragments are asked for as reactive FEC (RFEC), up to ``attempts`` attempts.

    FEC is sized from p̂, an EWMA (gain ``ewma_gain`` per attempt, from ``initial_loss``) of
    the fragment loss rate: ``sizing="quantile"`` sends the fewest fragments for the missing
    ones to arrive with probability ≥ ``target`` if each is lost with p̂; ``"mean"`` sends
    ⌈m / (1 − p̂)⌉. ``max_fragments`` caps the fragments per attempt (n of the code).
    ``proactive=False`` sends data alone first. ``timing``, ``rate`` and ``backoff`` as for
    :class:`Arq`; a fragment's air time is its bytes at the DCF's (or ``rate``'s) rate.
    """

    attempts: int = field_of("attempts", HARQ_PARAMS)
    fragment_bytes: int = field_of("fragment_bytes", HARQ_PARAMS)
    fragment_header_bytes: int = field_of("fragment_header_bytes", HARQ_PARAMS)
    max_fragments: int = field_of("max_fragments", HARQ_PARAMS)
    sizing: Literal["quantile", "mean"] = field_of("sizing", HARQ_PARAMS)
    target: float = field_of("target", HARQ_PARAMS)
    proactive: bool = field_of("proactive", HARQ_PARAMS)
    ewma_gain: float = field_of("ewma_gain", HARQ_PARAMS)
    initial_loss: float = field_of("initial_loss", HARQ_PARAMS)
    timing: Timing = field(default_factory=Dcf)
    rate: float | None = None
    backoff: Backoff | None = None

    def _config(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k not in ("timing", "rate", "backoff")}
        out["kind"] = "harq"
        out["timing"] = _timing(self.timing, self.rate, self.backoff)
        return out


@dataclass(frozen=True)
class WifiTiming:
    """One 802.11 DCF attempt, in seconds: DIFS, mean backoff (CWmin/2 slots), the data
    frame (PLCP + MAC header + LLC/SNAP + packet + FCS), SIFS, the MAC ACK; ``attempt`` is
    DIFS + data + SIFS + ACK (no backoff); ``capacity_bps`` the saturated MAC capacity in
    bits/s of packets (one per attempt plus mean backoff, no errors or collisions)."""

    packet_bytes: int
    difs: float
    mean_backoff: float
    data: float
    sifs: float
    ack: float
    attempt: float
    capacity_bps: float


def wifi_timing(packet_bytes: int = 1000, dcf: Dcf | None = None, **overrides: Any) -> WifiTiming:
    """802.11 DCF timing of a ``packet_bytes`` packet for ``dcf`` (default :class:`Dcf`,
    802.11b 11 Mb/s long preamble), with any :class:`Dcf` field overridden by keyword."""
    d = asdict(dcf if dcf is not None else Dcf())
    unknown = set(overrides) - set(d)
    if unknown:
        raise _core.ParameterError(f"invalid parameter {sorted(unknown)[0]}: expected one of {sorted(d)}")
    d.update(overrides)
    t = _core.wifi_timing(d, packet_bytes)
    return WifiTiming(packet_bytes=packet_bytes, **t)


@dataclass(frozen=True)
class Distribution:
    """A distribution of durations (seconds) from a log-linear histogram: exact count,
    mean, min and max; ``quantiles`` {q: value} by nearest rank, each within 0.8 % (bucket
    midpoints); the histogram as bucket lower edges, widths and counts."""

    count: int
    mean: float | None
    min: float | None
    max: float | None
    quantiles: dict[float, float | None]
    lower: npt.NDArray[np.float64]
    width: npt.NDArray[np.float64]
    counts: npt.NDArray[np.uint64]


@dataclass
class LinkLayerStats:
    """What a link layer did: frames served, delivered and dropped at the attempt limit
    (residual losses), attempts (HARQ: rounds) and those that failed, the units the channel
    decided (ARQ attempts, HARQ fragments) and lost. ``attempts_per_frame[a]`` counts frames
    served in ``a`` attempts (Subramanian et al. Fig. 7c); ``attempt_time`` (7a) and
    ``latency`` (service time per frame, 7b) are distributions in seconds. ``fec`` (HARQ):
    ``{name: (fragments, bytes)}`` for data_sent, pfec_sent, rfec_sent, pfec_wasted,
    rfec_wasted (Table 1). ``rates`` (an ARQ hop with ``rate_control``; empty at a fixed
    rate): per rate, slowest first, ``{"mode", "rate_bps", "attempts", "successes",
    "share"}`` (share = its attempts / all attempts)."""

    frames: int
    delivered: int
    dropped: int
    attempts: int
    failed_attempts: int
    units_sent: int
    units_lost: int
    attempts_per_frame: npt.NDArray[np.uint64]
    attempt_time: Distribution
    latency: Distribution
    fec: dict[str, tuple[int, int]]
    rates: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def _from_core(cls, d: dict[str, Any], **extra: Any) -> Any:
        d = dict(d)
        attempt_time, latency = Distribution(**d.pop("attempt_time")), Distribution(**d.pop("latency"))
        return cls(attempt_time=attempt_time, latency=latency, **d, **extra)

    @property
    def raw_loss_rate(self) -> float:
        return self.units_lost / self.units_sent if self.units_sent else 0.0

    @property
    def residual_loss_rate(self) -> float:
        return self.dropped / self.frames if self.frames else 0.0

    @property
    def mean_attempts(self) -> float:
        return self.attempts / self.frames if self.frames else 0.0

    def summary(self) -> dict[str, Any]:
        """The numbers as plain data (JSON-ready): counters, rates, the distributions' mean,
        quantiles and maximum (seconds), FEC counters."""
        out: dict[str, Any] = {k: getattr(self, k) for k in ("frames", "delivered", "dropped", "attempts", "failed_attempts", "units_sent", "units_lost")}
        out.update(raw_loss_rate=self.raw_loss_rate, residual_loss_rate=self.residual_loss_rate, mean_attempts=self.mean_attempts)
        for name, dist in (("attempt_time", self.attempt_time), ("latency", self.latency)):
            out[name] = {"mean": dist.mean, "max": dist.max, **{f"p{100 * q:g}": v for q, v in dist.quantiles.items()}}
        out["attempts_per_frame"] = [int(x) for x in self.attempts_per_frame]
        out["fec"] = {k: list(v) for k, v in self.fec.items()}
        if self.rates:
            out["rates"] = [dict(r) for r in self.rates]
        return out


@dataclass
class LinkMeasurement(LinkLayerStats):
    """A saturated link (frames back to back) measured without TCP (:func:`measure`).

    ``frames_per_second`` is the MAC throughput (delivered frames per second, Subramanian et
    al. Fig. 1a), ``throughput_bps`` the same in bits/s of frame bytes; the rest as
    :class:`LinkLayerStats`.
    """

    layer: dict[str, Any] = field(default_factory=dict)
    mode: str = "packet"
    frame_bytes: int = 0
    seed: int = 0
    duration: float = 0.0
    frames_per_second: float = 0.0
    throughput_bps: float = 0.0
    loss_estimate: float | None = None

    def fec_rates_bps(self) -> dict[str, float]:
        """Table 1's FEC rows: each counter's fragment bytes per second of the run, in bits/s."""
        return {k: b * 8 / self.duration if self.duration > 0 else 0.0 for k, (_, b) in self.fec.items()}


def measure(
    layer: Arq | Harq,
    loss: _core.LossModel | None = None,
    mode: Literal["packet", "time"] = "packet",
    frames: int = 100_000,
    frame_bytes: int = 1040,
    seed: int = 1,
) -> LinkMeasurement:
    """Serve ``frames`` frames of ``frame_bytes`` back to back through ``layer`` over a fresh
    copy of ``loss`` (None: lossless), consulted per attempt (``"packet"``) or for each
    attempt's interval (``"time"``). Runs in Rust with the GIL released; Ctrl-C stops it."""
    if not isinstance(layer, (Arq, Harq)):
        raise _core.ParameterError(f"invalid parameter layer: expected burstlab.linklayer.Arq or Harq, got {type(layer).__name__}")
    for name, value, low, high in (("frames", frames, 1, 2**32), ("frame_bytes", frame_bytes, 1, 2**32 - 1), ("seed", seed, 0, 2**64 - 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
            raise _core.ParameterError(f"invalid parameter {name} = {value!r}: expected an integer in [{low}, {high}]")
    cfg = layer._config()
    d = _core.link_measure(cfg, loss, mode, frames, frame_bytes, seed, list(QUANTILES))
    return LinkMeasurement._from_core(d, layer=cfg, mode=mode, frame_bytes=frame_bytes, seed=seed)



def _whole(key: str, text: str) -> int:
    """A whole number from a link-layer spec: ``7``, or ``1e9`` (integral, in exponent form)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not x.is_integer():
        raise _core.ParameterError(f"{key} = {text!r}: expected a whole number")
    return int(x)


def _spec_value(key: str, spec: dict[str, Any], v: Any) -> Any:
    """A spec or TOML value for the declared parameter ``spec``, by its kind: times and rates
    with units (``1ms``, ``2Mbit``), whole numbers, true/false, one of the choices."""
    from burstlab.units import parse_rate, parse_time

    if not isinstance(v, str):  # a TOML number or bool: the core checks its type and range
        return v
    kind = spec["kind"]
    if kind == "time":
        return parse_time(v, key)
    if kind == "float" and spec["unit"] == "bit/s":
        return parse_rate(v, key)
    if kind == "int":
        return _whole(key, v)
    if kind == "bool":
        if v.lower() not in ("true", "false"):
            raise _core.ParameterError(f"{key} = {v!r}: expected true or false")
        return v.lower() == "true"
    if kind == "choice":
        # The core's rule for a named choice (param::same_name): ASCII case and '-' against
        # '_' do not matter; the canonical name is passed on.
        canonical = {c.lower().replace("-", "_"): c for c in spec["choices"]}
        c = canonical.get(v.lower().replace("-", "_"))
        if c is None:
            raise _core.ParameterError(f"invalid parameter {key} = {v}: expected one of {', '.join(spec['choices'])}")
        return c
    try:
        return float(v)
    except ValueError:
        raise _core.ParameterError(f"{key} = {v!r}: expected a number") from None


#: The DCF settings the backoff takes (:class:`Backoff`'s fields).
_BACKOFF_KEYS = ("cw_min", "cw_max", "slot")


def _spec_keys(kind: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """A link layer's spec keys: key -> (the table it belongs to, its declaration)."""
    own = {"arq": {**ARQ_PARAMS, **RATE_PARAMS}, "harq": HARQ_PARAMS}[kind]
    return {
        **{k: ("own", p) for k, p in own.items()},
        **{k: ("attempt", p) for k, p in ATTEMPT_PARAMS.items()},
        **{f"dcf_{k}": ("dcf", p) for k, p in DCF_PARAMS.items()},
    }


def parse_link_layer(spec: str | dict[str, Any]) -> Arq | Harq | None:
    """A link layer from a spec (``burstlab sim --link-layer``, scenario files):
    ``"arq"``, ``"arq:retry_limit=7,counts=attempts"``, ``"arq:attempt_time=1ms..20ms"``
    (uniform, Subramanian et al. slide 8), ``"arq:attempt_time=2ms,rate=11Mbit"``,
    ``"harq:attempts=2,fragment_bytes=100,backoff=dcf"``, ``"arq:rate_control=minstrel"``
    (802.11 rate adaptation: ``fixed``, ``arf``, ``aarf``, ``minstrel``); ``"none"``: no link
    layer. A dict ``{"kind": "arq", ...}`` (a TOML table) takes the same keys. The keys are
    the core's declarations (``docs/parameters.md``, "Link layer"): :data:`ARQ_PARAMS` and
    :data:`RATE_PARAMS` or :data:`HARQ_PARAMS`, :data:`ATTEMPT_PARAMS`, and
    :data:`DCF_PARAMS` with ``dcf_`` in front (``dcf_rate=2Mbit``). Without ``attempt_time``
    the timing is the 802.11 DCF's (:class:`Dcf`); ``backoff=dcf`` adds its binary
    exponential backoff."""
    if isinstance(spec, dict):
        params = {str(k): v for k, v in spec.items()}
        kind = str(params.pop("kind", ""))
    else:
        text = spec.strip()
        if text.lower() in ("", "none"):
            return None
        kind, _, body = text.partition(":")
        params = {}
        for item in filter(None, (x.strip() for x in body.split(","))):
            k, eq, v = item.partition("=")
            if not eq:
                raise _core.ParameterError(f"invalid link layer {spec!r}: {item!r} is not key=value")
            params[k.strip()] = v.strip()
    label = repr(spec)
    kind = kind.strip().lower()
    cls: type[Arq] | type[Harq]
    if kind == "arq":
        cls = Arq
    elif kind == "harq":
        cls = Harq
    else:
        raise _core.ParameterError(f"invalid link layer {label}: expected arq or harq (e.g. arq:retry_limit=7)")
    keys = _spec_keys(kind)
    got: dict[str, dict[str, Any]] = {"own": {}, "attempt": {}, "dcf": {}}
    for k, v in params.items():
        try:
            if k not in keys:
                raise _core.ParameterError(f"unknown key {k!r} (keys: {', '.join(sorted(keys))})")
            table, decl = keys[k]
            if k == "attempt_time" and isinstance(v, str) and ".." in v:  # min..max: uniform
                lo, _, hi = v.partition("..")
                got["attempt"]["attempt_time"], got["attempt"]["attempt_time_max"] = (_spec_value(k, decl, lo), _spec_value(k, decl, hi))
            else:
                got[table][decl["name"]] = _spec_value(k, decl, v)
        except _core.ParameterError as e:
            raise _core.ParameterError(f"invalid link layer {label}: {e}") from None
        except ValueError as e:
            raise _core.ParameterError(f"invalid link layer {label}: {k} = {v!r}: {e}") from None
    kw: dict[str, Any] = dict(got["own"])
    attempt, dcf = got["attempt"], got["dcf"]
    if "attempt_time" in attempt:
        bad = sorted(set(dcf) - set(_BACKOFF_KEYS))
        if bad:
            names = ", ".join(f"dcf_{k}" for k in bad)
            raise _core.ParameterError(f"invalid link layer {label}: {names} {'goes' if len(bad) == 1 else 'go'} with the DCF timing, not with attempt_time")
        a, hi = attempt["attempt_time"], attempt.get("attempt_time_max")
        kw["timing"] = (a, hi) if hi else a
    elif "attempt_time_max" in attempt or "rate" in attempt:
        raise _core.ParameterError(f"invalid link layer {label}: attempt_time_max and rate go with attempt_time")
    elif dcf:
        kw["timing"] = Dcf(**dcf)
    if set(dcf) & set(_BACKOFF_KEYS) and attempt.get("backoff") != "dcf" and "attempt_time" in attempt:
        raise _core.ParameterError(f"invalid link layer {label}: dcf_cw_min, dcf_cw_max and dcf_slot with attempt_time go with backoff=dcf")
    if "rate" in attempt:
        kw["rate"] = attempt["rate"]
    if attempt.get("backoff") == "dcf":
        kw["backoff"] = Backoff(**{k: dcf[k] for k in _BACKOFF_KEYS if k in dcf})
    try:
        layer = cls(**kw)
        _core.check_link_layer(layer._config())  # every value checked by name now
    except _core.ParameterError as e:
        raise _core.ParameterError(f"invalid link layer {label}: {e}") from None
    except TypeError as e:
        raise _core.ParameterError(f"invalid link layer {label}: {e}") from None
    return layer


def layer_settings(layer: Arq | Harq) -> dict[str, Any]:
    """A link layer's settings under their spec keys (``burstlab sim --show-config``): its own,
    the attempt model's (or the DCF's, as ``dcf_`` keys) and the backoff."""
    own = {"arq": {**ARQ_PARAMS, **RATE_PARAMS}, "harq": HARQ_PARAMS}["arq" if isinstance(layer, Arq) else "harq"]
    out: dict[str, Any] = {"kind": "arq" if isinstance(layer, Arq) else "harq"}
    out.update({k: getattr(layer, k) for k in own})
    if isinstance(layer.timing, Dcf):
        out.update({f"dcf_{k}": v for k, v in asdict(layer.timing).items()})
    else:
        lo, hi = layer.timing if isinstance(layer.timing, tuple) else (layer.timing, 0.0)
        out.update(attempt_time=lo, attempt_time_max=hi, rate=layer.rate or 0.0)
    out["backoff"] = "none" if layer.backoff is None else "dcf"
    if layer.backoff is not None:
        out.update({f"dcf_{k}": v for k, v in asdict(layer.backoff).items()})
    return out


def spec_settings(spec: str | dict[str, Any] | None) -> tuple[dict[str, Any], set[str]]:
    """``burstlab sim --show-config``'s view of a link-layer spec: every setting under its spec
    key (:func:`layer_settings`; empty for ``none``) and the keys the spec gave."""
    layer = parse_link_layer(spec) if isinstance(spec, (str, dict)) else spec
    if layer is None:
        return {}, set()
    given = set(spec) if isinstance(spec, dict) else {x.partition("=")[0].strip() for x in str(spec).partition(":")[2].split(",") if "=" in x}
    if "attempt_time" in given:
        given.add("attempt_time_max")
    return layer_settings(layer), given | {"kind"}
