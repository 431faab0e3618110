"""The settings of the link-transport study (Subramanian, Ramakrishnan, Kalyanaraman,
"Experimental Study of Link and Transport Protocols in Interference-Prone WLAN
Environments"): its constants, the open parameters (:class:`Setup`) and the configuration
(:class:`StudyConfig`), each option declared once with its command-line help
(:mod:`burstlab.study.settings`), and the study as the framework runs it (:data:`study`).
Light on purpose: ``burstlab study link-transport --help`` builds its options from here
without loading numpy or the simulator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from burstlab._core import ParameterError
from burstlab.study.base import CellStudy
from burstlab.study.settings import CellStudyConfig, setting

STUDY = "link-transport"
#: Fig. 1's ARQ persistence levels (attempts).
PERSISTENCES = (7, 15, 25)
#: The ORBIT hop with its link-layer ARQ removed (one attempt per frame), at the example noise level only: the
#: reference for "the spurious timeouts come from the link layer" (slides 9-10).
NO_ARQ = 1
#: The link layers and transports of slides 15-18.
LINKS = ("llarq", "llharq")
TCPS = ("sack", "lt-tcp")
HOPS = (1, 4)
LABEL = {"llarq": "LL-ARQ", "llharq": "LL-HARQ", "sack": "TCP-SACK", "lt-tcp": "LT-TCP", "sack-ecn": "TCP-SACK + ECN"}
#: Slides 19-20: the variants of benchmarks/lt_tcp/subramanian.py.
LTCP_VARIANTS: dict[str, dict[str, Any]] = {"sack": {"variant": "sack"}, "sack-ecn": {"variant": "sack", "ecn": True}, "lt-tcp": {"variant": "lt-tcp"}}
#: Table 1: flows on the LL-HARQ link.
TABLE1_FLOWS = 10

UNIFORM_PS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
TABLE1_PS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
LTCP_PS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
LTCP_RTTS = (0.02, 0.05, 0.1, 0.2)
#: Slides 19-20: the RTT of the loss sweep (the benchmark's 50 ms each way).
LTCP_RTT = 0.1
QUICK_GRID: dict[str, tuple[Any, ...]] = {
    "uniform_ps": (0.0, 0.1, 0.3, 0.5),
    "table1_ps": (0.0, 0.1, 0.3, 0.5),
    "ltcp_ps": (0.0, 0.05, 0.3, 0.5),
    "ltcp_rtts": (0.02, 0.1, 0.2),
}
QUICK_DURATION = 40.0


#: What a synthetic error rate is per (``Setup.error_unit``).
ERROR_UNITS = ("unit", "frame", "ber", "snr")
#: The PHY mode whose curve ``error_unit = "snr"`` reads (802.11a QPSK ½, the OFDM rate
#: nearest the simulations' 10 Mb/s).
SNR_MODE = "ofdm12"


def _bad(name: str, value: Any, expected: str) -> ParameterError:
    return ParameterError(f"invalid parameter {name} = {value!r}: expected {expected}")


def _pos(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0


def _nonneg(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


@dataclass(frozen=True)
class Setup:
    """The open parameters: one environment of the study (``docs/study-link-transport.md``
    argues every default).

    ORBIT hop (Figs. 1, 4, 7, slides 9-10): ``attempt_min``, ``attempt_max``: each ARQ
    attempt lasts a time uniform in this range (s; equal: fixed), no backoff (slide 8);
    ``orbit_delay``: its one-way propagation delay (s); ``recovery``: the TCP's loss
    recovery ("sack": the slides' TCP-SACK); ``example_noise``: the noise level (dBm of
    the traces) of Fig. 7 and slides 9-10.
    Simulations (slides 15-18, Table 1): ``link_rate`` (bits/s); ``overhead``: per attempt
    (s) on top of the frame's or fragments' air time (802.11a's DIFS, PLCP, SIFS and ACK,
    ≈ 100 µs); ``hop_delay``: one-way per hop (s);
    ``persistence``: LL-ARQ's attempts (the experiments' default ARQ = 15);
    ``harq_attempts``, ``harq_sizing``, ``harq_target``, ``fragment_bytes``: LL-HARQ
    (:class:`burstlab.linklayer.Harq`); ``error_unit``: what a synthetic error rate is
    per ("unit": each ARQ attempt and each HARQ fragment; "frame": a frame, fragments
    then lose 1 − (1 − p)^(bytes ratio); "ber": a frame, read as independent bit errors
    that the channel applies to every unit at its own size (``ber:``); "snr": a frame,
    read as the constant SNR at which 802.11a's 12 Mb/s curve loses it, every unit then
    lost on that curve at its own size (``phy:``, docs/phy.md)); ``table1_tcp``: the
    transport of Table 1.
    Everywhere: ``buffer``: DropTail buffer of every hop (packets); ``rto_min`` (s);
    ``mss`` (bytes); ``duration`` of every run (s, the slides' 100 s); ``alive_prr``: the
    links whose traces make the raw channels (PRR at the quietest level ≥ this);
    ``trace_mode``: a trace entry lasts ``trace_slot`` seconds and an attempt or fragment
    is lost when its air time meets a lost entry ("time"), or each unit takes the next
    entry ("packet").
    Slides 19-20: ``ltcp_buffer`` (the benchmark's 250 packets behind RED/ECN)."""

    attempt_min: float = setting(0.3e-3, "ORBIT hop: shortest ARQ attempt (uniform law, slide 8).", unit="time")
    attempt_max: float = setting(2.0e-3, "ORBIT hop: longest ARQ attempt.", unit="time")
    orbit_delay: float = setting(0.001, "ORBIT hop: one-way propagation delay.", unit="time")
    recovery: str = setting("sack", "ORBIT hop: the TCP's loss recovery.", choices=("sack", "newreno", "reno", "prr"))
    example_noise: int = setting(-5, "Noise level (dBm) of Fig. 7 and slides 9-10.")
    link_rate: float = setting(10e6, "Simulations: every hop's rate.", unit="rate")
    overhead: float = setting(100e-6, "Simulations: time per link-layer attempt beyond the air time (802.11a DIFS, PLCP, SIFS, ACK).", unit="time")
    hop_delay: float = setting(0.01, "Simulations: one-way delay per hop.", unit="time")
    persistence: int = setting(15, "LL-ARQ: attempts per frame.", min=1, max=255)
    harq_attempts: int = setting(2, "LL-HARQ: attempts (first + reactive FEC rounds).", min=1, max=16)
    harq_sizing: str = setting("quantile", "LL-HARQ: FEC sizing rule.", choices=("quantile", "mean"))
    harq_target: float = setting(0.99, "LL-HARQ: decoding probability the quantile rule aims at.", min=0, max=1)
    fragment_bytes: int = setting(100, "LL-HARQ: fragment payload (bytes).", min=1, max=65_535)
    error_unit: str = setting("unit", "Synthetic error rate per channel unit (ARQ frame, HARQ fragment) or per frame, fragments then by bit errors "
                                      "(frame: the study's conversion; ber: the channel's bit errors per unit; snr: 802.11a 12 Mb/s curve at a "
                                      "constant SNR).", choices=ERROR_UNITS)  # fmt: skip
    table1_tcp: str = setting("sack", "Table 1: the transport of its 10 flows.", choices=TCPS)
    buffer: int = setting(100, "DropTail buffer of every hop (packets).", min=1, max=1_000_000)
    rto_min: float = setting(0.2, "Minimum RTO (Linux's, ns-2's).", unit="time")
    mss: int = setting(1000, "Segment payload (bytes).", min=1, max=65_495)
    duration: float = setting(100.0, "Length of every run (the slides').", unit="time")
    alive_prr: float = setting(0.5, "Trace links making the raw channels: PRR at the quietest level at least this.", min=0, max=1)
    trace_mode: str = setting("time", "Trace replay: each entry lasts --trace-slot and units are lost when their air time meets a lost entry, or one "
                              "entry per unit.", choices=("time", "packet"))  # fmt: skip
    trace_slot: float = setting(1e-3, "Time of one trace entry (--trace-mode time).", unit="time")
    ltcp_buffer: int = setting(250, "Slides 19-20: buffer behind RED (packets).", min=1, max=1_000_000)

    def __post_init__(self) -> None:
        if not (_pos(self.attempt_min) and _pos(self.attempt_max) and self.attempt_min <= self.attempt_max):
            raise _bad("attempt_min/attempt_max", (self.attempt_min, self.attempt_max), "0 < min ≤ max (seconds)")
        for name in ("orbit_delay", "hop_delay", "overhead"):
            if not _nonneg(getattr(self, name)):
                raise _bad(name, getattr(self, name), "a non-negative time")
        if self.recovery not in ("sack", "newreno", "reno", "prr"):
            raise _bad("recovery", self.recovery, "one of sack, newreno, reno, prr")
        if not (isinstance(self.example_noise, int) and not isinstance(self.example_noise, bool)):
            raise _bad("example_noise", self.example_noise, "a noise level in dBm (an integer, e.g. -5)")
        if not (_pos(self.link_rate) and self.link_rate <= 1e11):
            raise _bad("link_rate", self.link_rate, "a positive rate up to 100 Gb/s")
        for name, lo, hi in (("persistence", 1, 255), ("harq_attempts", 1, 16), ("fragment_bytes", 1, 65_535), ("buffer", 1, 1_000_000),
                             ("ltcp_buffer", 1, 1_000_000), ("mss", 1, 65_495)):  # fmt: skip
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise _bad(name, v, f"an integer in [{lo}, {hi}]")
        if self.harq_sizing not in ("quantile", "mean"):
            raise _bad("harq_sizing", self.harq_sizing, "quantile or mean")
        if not (_pos(self.harq_target) and self.harq_target < 1):
            raise _bad("harq_target", self.harq_target, "a probability in (0, 1)")
        if self.error_unit not in ERROR_UNITS:
            raise _bad("error_unit", self.error_unit, ", ".join(ERROR_UNITS))
        if self.table1_tcp not in TCPS:
            raise _bad("table1_tcp", self.table1_tcp, f"one of {', '.join(TCPS)}")
        if not (_pos(self.rto_min) and self.rto_min <= 60):
            raise _bad("rto_min", self.rto_min, "a positive time up to 60 s")
        if not (_pos(self.duration) and self.duration <= 1e5):
            raise _bad("duration", self.duration, "a positive time up to 10^5 s")
        if not (_nonneg(self.alive_prr) and 0 < self.alive_prr <= 1):
            raise _bad("alive_prr", self.alive_prr, "a reception ratio in (0, 1]")
        if self.trace_mode not in ("time", "packet"):
            raise _bad("trace_mode", self.trace_mode, "time or packet")
        if not (_pos(self.trace_slot) and self.trace_slot <= 10):
            raise _bad("trace_slot", self.trace_slot, "a positive time up to 10 s")


#: The one-at-a-time sensitivity sweeps (each includes the default).
SENSITIVITY: dict[str, tuple[Any, ...]] = {
    "attempt_max": (1.0e-3, 2.0e-3, 5.0e-3, 20e-3),
    "orbit_delay": (0.001, 0.01),
    "recovery": ("sack", "newreno"),
    "rto_min": (0.2, 1.0),
    "buffer": (20, 100, 250),
    "persistence": (7, 15, 25),
    "harq_sizing": ("quantile", "mean"),
    "harq_target": (0.9, 0.99),
    "error_unit": ERROR_UNITS,
    "hop_delay": (0.001, 0.01, 0.05),
    "overhead": (0.0, 1e-4),
    "alive_prr": (0.5, 0.9),
    "trace_mode": ("time", "packet"),
    "trace_slot": (0.2e-3, 1e-3, 5e-3),
    "table1_tcp": ("sack", "lt-tcp"),
    "ltcp_buffer": (100, 250),
}
#: ``--quick``: the default and one other value of persistence and trace mode; every value
#: of the error unit, trace slot, attempt time and HARQ sizing (the open parameters whose
#: verdicts the report gives under each setting).
QUICK_SENSITIVITY: dict[str, tuple[Any, ...]] = {
    "persistence": (7, 15),
    "error_unit": SENSITIVITY["error_unit"],
    "trace_mode": ("time", "packet"),
    "trace_slot": SENSITIVITY["trace_slot"],
    "attempt_max": SENSITIVITY["attempt_max"],
    "harq_sizing": SENSITIVITY["harq_sizing"],
}


@dataclass(frozen=True)
class StudyConfig(CellStudyConfig):
    """Everything that determines the study's numbers: the ``setup`` (open parameters),
    ``seeds`` runs per cell at the defaults and ``sweep_seeds`` per cell of every
    sensitivity point, the study ``seed``, the grids (``uniform_ps``: synthetic error rates
    of Figs. 1, 4 and slides 15-18; ``table1_ps``; ``ltcp_ps``, ``ltcp_rtts``: slides
    19-20), ``noise_levels`` (None: every level of the traces), ``traces``: the folder of
    the Rutgers ORBIT traces (None: ``$BURSTLAB_SHARED/data/rutgers-noise``)."""

    setup: Setup = field(default_factory=Setup)
    seeds: int = 10
    sweep_seeds: int = 4
    uniform_ps: tuple[float, ...] = UNIFORM_PS
    table1_ps: tuple[float, ...] = TABLE1_PS
    ltcp_ps: tuple[float, ...] = LTCP_PS
    ltcp_rtts: tuple[float, ...] = LTCP_RTTS
    noise_levels: tuple[int, ...] | None = setting(None, "Noise levels (dBm) of the traces to use, comma-separated (e.g. -10,-5).", none="all", items=int, flag="--noise")
    traces: str | None = setting(None, "Folder of the Rutgers ORBIT noise traces (holding data/dbm<noise>/...).", unit="dir",
                                 none="the registered dataset rutgers-noise, docs/datasets.md")
    sensitivity: tuple[tuple[str, tuple[Any, ...]], ...] = tuple(SENSITIVITY.items())
    budget: int | None = 40

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("uniform_ps", "table1_ps", "ltcp_ps"):
            v = getattr(self, name)
            if not v or not all(isinstance(p, (int, float)) and 0 <= p < 1 for p in v) or 0.0 not in v:
                raise ParameterError(f"invalid parameter {name} = {v}: expected error rates in [0, 1), 0 among them (the lossless reference)")
        if not self.ltcp_rtts or not all(_pos(r) and r <= 10 for r in self.ltcp_rtts):
            raise ParameterError(f"invalid parameter ltcp_rtts = {self.ltcp_rtts}: expected round trips in (0, 10] s")
        if self.noise_levels is not None and not self.noise_levels:
            raise ParameterError("invalid parameter noise_levels = (): expected at least one level")

    #: ``--quick``: 6 runs of 40 s per cell (4 per sweep point), fewer error rates, two values
    #: of persistence and trace mode, every value of the other open parameters the verdicts
    #: are given under (docs/claims.md, "Speed of the studies": with 2 runs per cell and three
    #: parameters the preview judged 41 of the 80 claims the full run decides, 31 alike).
    QUICK: ClassVar[dict[str, Any]] = {"seeds": 6, "sweep_seeds": 4, "quick": True, "budget": None, "sensitivity": tuple(QUICK_SENSITIVITY.items()), **QUICK_GRID}
    QUICK_SETUP: ClassVar[dict[str, Any]] = {"duration": QUICK_DURATION}


class LinkTransport(CellStudy):
    """The study as ``burstlab study link-transport`` runs it."""

    name = STUDY
    title = "Subramanian, Ramakrishnan, Kalyanaraman, \"Experimental Study of Link and Transport Protocols in Interference-Prone WLAN Environments\""
    description = (title + ": ARQ persistence against residual loss, MAC throughput, latency and TCP (Figs. 1, 4, 7, slides 9-10) over raw "
                   "channels from the Rutgers ORBIT noise traces and uniform loss; LL-ARQ vs LL-HARQ under TCP-SACK and LT-TCP on 1 and 4 hops "
                   "(slides 15-18), Table 1, TCP-SACK vs LT-TCP (slides 19-20); every open parameter swept; writes a results store, figures and a "
                   "report with the slides' numbers beside ours.")  # fmt: skip
    Setup = Setup
    Config = StudyConfig
    claims = "burstlab.experiments.link_transport_claims"
    unit = "runs"
    module = "burstlab.experiments.link_transport_study"


study = LinkTransport()


