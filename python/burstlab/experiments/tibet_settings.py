"""The settings of the TIBET study (Martignon & Capone, "TCP with Bandwidth Estimation over
Wireless Networks"): its constants, the open parameters (:class:`Setup`) and the study's
configuration (:class:`StudyConfig`), each option declared once with its command-line help
(:mod:`burstlab.study.settings`). Light on purpose: ``burstlab study tibet --help`` builds
its options from here without loading numpy or the simulator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from burstlab._core import ParameterError
from burstlab.sim import RECOVERIES
from burstlab.study.base import CellStudy
from burstlab.study.settings import CellStudyConfig, setting

STUDY = "tibet"
#: Congestion controls of the single-flow figures: the paper's three, then two others.
CCS = ("reno", "tibet", "ideal", "westwood", "vegas")
#: The paper's three: run at every sensitivity point.
PAPER_CCS = ("reno", "tibet", "ideal")
LABEL = {"reno": "TCP Reno", "tibet": "TIBET", "ideal": "Ideal TCP", "westwood": "Westwood+", "vegas": "Vegas"}

#: "The one-way RTT is 50 ms" (§IV.A): the one-way propagation delay under each reading.
READINGS: dict[str, float] = {"one-way": 0.05, "rtt": 0.025}
READING_LABEL = {"one-way": "50 ms one way (RTT 100 ms)", "rtt": "RTT 50 ms (25 ms one way)"}

#: Figs. 2-3: connections and bottlenecks; Figs. 4-5 links; Fig. 6; Fig. 8; Figs. 11-12.
N_FLOWS = 10
FAIR_RATES = (2e6, 10e6)
SINGLE_RATES = (2e6, 10e6)
FIG6_RATE, FIG6_P = 10e6, 1e-3
FIG8_RATE = 2e6
#: §IV.B: mean good and bad sojourns (s) and the loss probability in the good state.
MARKOV = (8.0, 4.0, 0.01)
MODEL_RTTS = (0.1, 0.4)
#: §V: the range the paper states eq. 3 for.
MODEL_RANGE = (1e-3, 1e-1)
#: Figs. 11-12: the wireless hop's own one-way delay; the wired hop carries the rest of the RTT.
WIRELESS_DELAY = 0.001
#: Figs. 11-12: the wired hop's capacity, never the bottleneck at any wireless rate swept.
WIRED_RATE = 1e9

LOSS_PS = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1)
RTTS = (0.02, 0.05, 0.1, 0.2, 0.3, 0.4)
P_BADS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
MODEL_PS = (1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 1e-1)
KS = tuple(range(N_FLOWS + 1))
QUICK_GRID: dict[str, tuple[Any, ...]] = {
    "loss_ps": (1e-4, 1e-3, 1e-2, 1e-1),
    "rtts": (0.02, 0.1, 0.4),
    "p_bads": (0.0, 0.25, 0.5),
    "model_ps": (1e-3, 1e-2, 1e-1),
    "ks": (0, 2, 5, 8, 10),
}
#: ``--quick``'s run length: 120 s (not 60 s) — the 300-s runs' fairness and goodput ratios
#: differ from 60-s runs' by more than their intervals (Fig. 3's fair share: 0.89 at 60 s,
#: 1.12 at 300 s), so longer runs are what brings the preview's verdicts nearer the full
#: run's (docs/claims.md, "Speed of the studies").
QUICK_DURATION = 120.0


def _bad(name: str, value: Any, expected: str) -> ParameterError:
    return ParameterError(f"invalid parameter {name} = {value!r}: expected {expected}")


@dataclass(frozen=True)
class Setup:
    """The open parameters: one environment of the study. Each default is argued in
    ``docs/study-tibet.md``.

    ``reading``: how §IV.A's "the one-way RTT is 50 ms" is read ("one-way": 50 ms each way;
    "rtt": a 50 ms round trip), which also sets the propagation delay of Figs. 2-3 and 8;
    ``recovery``: the loss recovery every TCP uses (ns-2's TCP Reno: "reno");
    ``rto_min``: the retransmission timer's floor (s; ns-2 before 2004: 0.2); ``init_cwnd``:
    initial window (segments; ns-2's windowInit_ 1); ``delayed_ack``: ns-2's TCPSink acks
    every segment (False); ``mss``: payload bytes (ns-2's packetSize_ 1000); ``rwnd``:
    receiver window in segments (None: unlimited); ``buffer_bdp``: the DropTail buffer in
    bandwidth-delay products (the paper: 1); ``duration``, ``warmup``: each run's length
    and the start excluded from its goodput (s); ``start_spread``: Figs. 2-3's connections
    start at times uniform in [0, start_spread] (s); ``access_delay``: their access hops'
    one-way delay (s, part of the reading's one-way delay); ``wireless_rate``: the
    wireless hop of Figs. 11-12 (bits/s).
    """

    reading: str = setting("one-way", "\"The one-way RTT is 50 ms\" (Figs. 4-5): 50 ms each way, or a 50-ms round trip; the other is shown too.",
                           choices=("one-way", "rtt"))
    recovery: str = setting("reno", "Loss recovery of every TCP (ns-2's TCP Reno).", choices=("reno", "newreno", "sack", "tahoe", "prr"))
    rto_min: float = setting(0.2, "Minimum RTO (ns-2 before 2004).", unit="time")
    init_cwnd: int = setting(1, "Initial window (segments; ns-2's windowInit_).", min=1)
    delayed_ack: bool = setting(False, "Delayed ACKs (ns-2's TCPSink acks every segment).")
    mss: int = setting(1000, "Segment payload (bytes; ns-2's packetSize_).", min=1)
    rwnd: int | None = setting(None, "Receiver window in segments.", none="unlimited", min=1)
    buffer_bdp: float = setting(1.0, "DropTail buffer in bandwidth-delay products (the paper: 1).", min=0)
    duration: float = setting(300.0, f"Length of every run (--quick: {QUICK_DURATION:g}s).", unit="time")
    warmup: float = setting(20.0, "Start of every run excluded from its goodput.", unit="time")
    start_spread: float = setting(2.0, "Figs. 2-3: connections start at times uniform in [0, this].", unit="time")
    access_delay: float = setting(0.005, "Figs. 2-3: one-way delay of each connection's access hop.", unit="time")
    wireless_rate: float = setting(10e6, "Figs. 11-12: capacity of the wireless hop (not published).", unit="rate")

    def __post_init__(self) -> None:
        def pos(v: Any) -> bool:
            return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0

        if self.reading not in READINGS:
            raise _bad("reading", self.reading, f"one of {', '.join(READINGS)}")
        if self.recovery not in RECOVERIES:
            raise _bad("recovery", self.recovery, f"one of {', '.join(RECOVERIES)}")
        if not pos(self.rto_min):
            raise _bad("rto_min", self.rto_min, "a positive time")
        if not (isinstance(self.init_cwnd, int) and self.init_cwnd >= 1):
            raise _bad("init_cwnd", self.init_cwnd, "at least 1 segment")
        if not (isinstance(self.mss, int) and 1 <= self.mss <= 65_495):
            raise _bad("mss", self.mss, "1..65495 bytes")
        if self.rwnd is not None and not (isinstance(self.rwnd, int) and self.rwnd >= 1):
            raise _bad("rwnd", self.rwnd, "at least 1 segment, or None (unlimited)")
        if not pos(self.buffer_bdp):
            raise _bad("buffer_bdp", self.buffer_bdp, "a positive number of bandwidth-delay products")
        if not (pos(self.duration) and isinstance(self.warmup, (int, float)) and 0 <= self.warmup < self.duration):
            raise _bad("duration", (self.duration, self.warmup), "0 ≤ warm-up < duration")
        if not (math.isfinite(self.start_spread) and 0 <= self.start_spread < self.duration):
            raise _bad("start_spread", self.start_spread, "a non-negative time shorter than the run")
        if not (math.isfinite(self.access_delay) and 0 <= self.access_delay < min(READINGS.values())):
            raise _bad("access_delay", self.access_delay, f"0 ≤ delay < {1e3 * min(READINGS.values()):g} ms (the shorter reading's one-way delay)")
        if not (pos(self.wireless_rate) and self.wireless_rate < WIRED_RATE):
            raise _bad("wireless_rate", self.wireless_rate, f"a positive capacity below the wired hop's {WIRED_RATE / 1e6:g} Mb/s")

    @property
    def one_way(self) -> float:
        """The propagation delay each way of Figs. 2-5 and 8 under the chosen reading."""
        return READINGS[self.reading]


#: The one-at-a-time sensitivity sweeps (each includes the default).
SENSITIVITY: dict[str, tuple[Any, ...]] = {
    "reading": ("one-way", "rtt"),
    "recovery": ("reno", "newreno", "sack"),
    "rto_min": (0.2, 1.0),
    "buffer_bdp": (0.5, 0.98, 1.0, 2.0),
    "rwnd": (20, None),
    "delayed_ack": (False, True),
    "init_cwnd": (1, 2),
    "duration": (100.0, 300.0, 1000.0),
    "start_spread": (0.0, 2.0, 10.0),
    "wireless_rate": (10e6, 50e6, 100e6),
}
#: ``--quick``: the default and one other value of each (the same figures and report).
QUICK_SENSITIVITY: dict[str, tuple[Any, ...]] = {
    "reading": ("one-way", "rtt"),
    "recovery": ("reno", "sack"),
    "rto_min": (0.2, 1.0),
    "buffer_bdp": (1.0, 2.0),
    "rwnd": (20, None),
    "delayed_ack": (False, True),
    "init_cwnd": (1, 2),
    "duration": (60.0, QUICK_DURATION),
    "start_spread": (0.0, 2.0),
    "wireless_rate": (10e6, 50e6),
}


@dataclass(frozen=True)
class StudyConfig(CellStudyConfig):
    """Everything that determines the study's numbers.

    ``seeds``: runs per cell at the defaults; ``sweep_seeds``: per cell of every
    sensitivity point (the paper's three TCPs only); ``seed``: the study seed (replicate
    k's seed is derived from it and k alone); the grids: ``loss_ps`` (Figs. 4-5),
    ``rtts`` (Fig. 6), ``p_bads`` (Fig. 8), ``model_ps`` (Figs. 11-12), ``ks`` (Reno
    connections of Figs. 2-3); ``sweep``: run the sensitivity sweeps; ``budget``: while a
    claim is inconclusive and would likely decide with more runs, add runs per cell at the
    defaults up to this many (None: never; ``--quick``: never).
    """

    setup: Setup = field(default_factory=Setup)
    loss_ps: tuple[float, ...] = LOSS_PS
    rtts: tuple[float, ...] = RTTS
    p_bads: tuple[float, ...] = P_BADS
    model_ps: tuple[float, ...] = MODEL_PS
    ks: tuple[int, ...] = KS
    sensitivity: tuple[tuple[str, tuple[Any, ...]], ...] = tuple(SENSITIVITY.items())
    budget: int | None = 40

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("loss_ps", "model_ps"):
            v = getattr(self, name)
            if not v or not all(0 < p < 1 for p in v):
                raise ParameterError(f"invalid parameter {name} = {v}: expected loss probabilities in (0, 1)")
        if not self.p_bads or not all(0 <= p <= 1 for p in self.p_bads):
            raise ParameterError(f"invalid parameter p_bads = {self.p_bads}: expected probabilities in [0, 1]")
        if not self.rtts or not all(2 * WIRELESS_DELAY < r for r in self.rtts):
            raise ParameterError(f"invalid parameter rtts = {self.rtts}: expected round trips above {2e3 * WIRELESS_DELAY:g} ms")
        if not self.ks or not all(isinstance(k, int) and 0 <= k <= N_FLOWS for k in self.ks):
            raise ParameterError(f"invalid parameter ks = {self.ks}: expected Reno counts 0..{N_FLOWS}")

    #: ``--quick``: 5 runs per cell of 120 s (3 per sweep point), fewer points per figure, the
    #: default and one other value of each open parameter.
    QUICK: ClassVar[dict[str, Any]] = {"seeds": 5, "sweep_seeds": 3, "quick": True, "budget": None, "sensitivity": tuple(QUICK_SENSITIVITY.items()), **QUICK_GRID}
    QUICK_SETUP: ClassVar[dict[str, Any]] = {"duration": QUICK_DURATION}


class Tibet(CellStudy):
    """The study as ``burstlab study tibet`` runs it."""

    name = STUDY
    title = "Martignon & Capone, \"TCP with Bandwidth Estimation over Wireless Networks\""
    description = (title + ": TIBET's fairness towards TCP Reno (Figs. 2-3), goodput against random loss (Figs. 4-5), RTT (Fig. 6) and "
                   "correlated loss (Fig. 8) beside TCP Reno, the Ideal TCP, Westwood+ and Vegas, and the Ideal TCP against the paper's model "
                   "(Figs. 9, 11-12), every open parameter swept; writes a results store, figures and a report with the paper's results beside "
                   "ours and every claim judged.")  # fmt: skip
    Setup = Setup
    Config = StudyConfig
    claims = "burstlab.experiments.tibet_claims"
    unit = "runs"
    module = "burstlab.experiments.tibet_study"


study = Tibet()
