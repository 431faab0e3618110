"""The settings of the error-model study (Pentikousis & Badr, "Error Modeling for TCP
Simulations"): its constants, the open parameters (:class:`Setup`) and the study's
configuration (:class:`StudyConfig`), each option declared once with its command-line help
(:mod:`burstlab.study.settings`). Light on purpose: ``burstlab study error-models --help``
builds its options from here without loading numpy or the simulator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from burstlab._core import ParameterError
from burstlab.study.base import CellStudy
from burstlab.study.settings import CellStudyConfig, setting

STUDY = "error-models"
VARIANTS = ("tahoe", "reno", "newreno")
ACK_MODES = ("none", "sync", "independent")
ACK_LABEL = {"none": "no lost ACKs", "sync": "synchronized", "independent": "not synchronized"}
MODELS = ("rate", "temporal")

#: §3: the ON/OFF channel of Table 1 and Fig. 3, mean good and bad periods (seconds).
ON_OFF = (1.8, 0.2)

#: Pentikousis & Badr Table 1: total connection time (s) of an 8-MB transfer on a LAN,
#: averages of 10 batches.
PAPER_TABLE1: dict[tuple[str, str], float] = {
    ("tahoe", "none"): 71.798, ("reno", "none"): 69.800, ("newreno", "none"): 70.649,
    ("tahoe", "sync"): 72.765, ("reno", "sync"): 71.704, ("newreno", "sync"): 75.286,
    ("tahoe", "independent"): 97.277, ("reno", "independent"): 97.887, ("newreno", "independent"): 100.079,
}  # fmt: skip

#: The delay-only hop of Fig. 3 (VDDP's "delaying"): fast and deep enough never to queue
#: or drop, so the added delay is a pure propagation delay in each direction.
DELAY_HOP: dict[str, Any] = {"rate": 1e9, "buffer": 100_000}


@dataclass(frozen=True)
class Setup:
    """The open parameters: one environment of the study. Pentikousis & Badr give none of
    these; each default is argued in ``docs/study-error-models.md``.

    ``rate``: the channel's capacity ("a low bandwidth environment", bits/s); ``buffer``:
    its DropTail queue (packets; ns-2's default limit); ``lan_delay``: its one-way
    propagation delay (the LAN of Table 1); ``mss``: segment payload (bytes, Ethernet);
    ``delayed_ack``, ``rto_min``, ``init_cwnd``: the BSD-derived x-kernel TCP's (RFC 1122
    delayed ACKs, 1-s minimum RTO, one-segment initial window); ``rwnd``: receiver window
    in segments (None: unlimited, §3 "sufficiently large"); ``cycle``: VDDP's mean ON+OFF
    sub-cycle in each main state (s); ``fig2_ack_loss``: how Fig. 2's models treat ACKs
    ("sync": one channel process for both directions, as the original VDDP, §3).
    """

    rate: float = setting(1.5e6, "Channel capacity: the paper's unstated 'low bandwidth environment'.", unit="rate")
    buffer: int = setting(50, "Channel DropTail buffer (packets; ns-2's default).", min=1)
    lan_delay: float = setting(0.0005, "Channel one-way propagation delay (the LAN).", unit="time")
    mss: int = setting(1460, "Segment payload (bytes; Ethernet).", min=1)
    delayed_ack: bool = setting(True, "Delayed ACKs (every 2nd segment, 200 ms).")
    rto_min: float = setting(1.0, "Minimum RTO (BSD's, RFC 6298's).", unit="time")
    rwnd: int | None = setting(None, "Receiver window in segments (the paper's 'sufficiently large').", none="unlimited", min=1)
    init_cwnd: int = setting(1, "Initial window (segments; BSD's 1).", min=1)
    cycle: float = setting(1.0, "VDDP mean ON+OFF sub-cycle of Fig. 2's temporal model (not published).", unit="time")
    fig2_ack_loss: str = setting("sync", "ACK losses of Fig. 2's models.", choices=ACK_MODES)

    def __post_init__(self) -> None:
        def bad(name: str, value: Any, expected: str) -> ParameterError:
            return ParameterError(f"invalid parameter {name} = {value!r}: expected {expected}")

        if not (isinstance(self.rate, (int, float)) and math.isfinite(self.rate) and self.rate > 0):
            raise bad("rate", self.rate, "a positive capacity in bits/s")
        if not (isinstance(self.buffer, int) and self.buffer >= 1):
            raise bad("buffer", self.buffer, "at least 1 packet")
        if not (math.isfinite(self.lan_delay) and self.lan_delay >= 0):
            raise bad("lan_delay", self.lan_delay, "a non-negative time")
        if not (isinstance(self.mss, int) and 1 <= self.mss <= 65_495):
            raise bad("mss", self.mss, "1..65495 bytes")
        if not (math.isfinite(self.rto_min) and self.rto_min > 0):
            raise bad("rto_min", self.rto_min, "a positive time")
        if self.rwnd is not None and not (isinstance(self.rwnd, int) and self.rwnd >= 1):
            raise bad("rwnd", self.rwnd, "at least 1 segment, or None (unlimited)")
        if not (isinstance(self.init_cwnd, int) and self.init_cwnd >= 1):
            raise bad("init_cwnd", self.init_cwnd, "at least 1 segment")
        if not (math.isfinite(self.cycle) and self.cycle > 0):
            raise bad("cycle", self.cycle, "a positive time")
        if self.fig2_ack_loss not in ACK_MODES:
            raise bad("fig2_ack_loss", self.fig2_ack_loss, f"one of {', '.join(ACK_MODES)}")


#: What each open parameter changes: every cell, only Fig. 2's, or only the temporal ones.
SCOPE = {"cycle": "temporal", "fig2_ack_loss": "models"}

#: The one-at-a-time sensitivity sweeps (each includes the default).
SENSITIVITY: dict[str, tuple[Any, ...]] = {
    "rate": (1e6, 1.5e6, 2e6, 3e6, 5e6, 10e6),
    "buffer": (10, 25, 50, 100, 200),
    "lan_delay": (0.0001, 0.0005, 0.002, 0.005),
    "mss": (536, 1460),
    "delayed_ack": (False, True),
    "rto_min": (0.2, 0.5, 1.0),
    "rwnd": (11, 44, None),
    "init_cwnd": (1, 2),
    "cycle": (0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0),
    "fig2_ack_loss": ("none", "sync", "independent"),
}
#: ``--quick``: the default and one other value of each (the same figures and report), and
#: every value of the two open parameters Fig. 2's verdicts are given under (the VDDP
#: sub-cycle and the ACK path): they cost ~10 % more simulation and let the preview judge
#: 95 claims instead of 55.
QUICK_SENSITIVITY: dict[str, tuple[Any, ...]] = {
    "rate": (1.5e6, 5e6),
    "buffer": (10, 50),
    "lan_delay": (0.0005, 0.005),
    "mss": (536, 1460),
    "delayed_ack": (False, True),
    "rto_min": (0.2, 1.0),
    "rwnd": (11, None),
    "init_cwnd": (1, 2),
    "cycle": SENSITIVITY["cycle"],
    "fig2_ack_loss": SENSITIVITY["fig2_ack_loss"],
}
#: Points run with ``seeds`` transfers per cell (the others with ``sweep_seeds``): the
#: defaults, and the VDDP sub-cycle, the one open parameter Fig. 2's comparison hinges on.
FULL_SEEDS = ("baseline", "cycle")

#: Temporal drop rates for the equivalence of §2 ("a rate-based 10 % ≈ a temporal 44-50 %").
EQUIVALENCE_DROPS = (0.2, 0.3, 0.4, 0.44, 0.5, 0.6, 0.7, 0.8, 0.9)
QUICK_EQUIVALENCE_DROPS = (0.3, 0.5, 0.7)


@dataclass(frozen=True)
class StudyConfig(CellStudyConfig):
    """Everything that determines the study's numbers.

    ``seeds``: transfers per cell at the defaults and along the VDDP sub-cycle (the paper:
    10 batches); ``sweep_seeds``: per cell of every other sensitivity point; ``seed``: the study seed (replicate k's seed is
    derived from it and k alone); ``delays``: the added one-way delays (Table 1, Fig. 3a,
    Fig. 3b); ``sojourns``, ``drops``: Fig. 2's main-state means and B drop rates;
    ``sync_size``, ``models_size``: bytes per transfer (8 MB, 5 MB; MB = 10^6 as everywhere
    in burstlab); ``sweep``: run the sensitivity sweeps; ``budget``: while a claim is
    inconclusive and would likely decide with more transfers, add transfers per cell at the
    defaults (and along the sub-cycle) up to this many (None: never; ``--quick``: never).
    """

    setup: Setup = field(default_factory=Setup)
    seeds: int = 100
    sweep_seeds: int = 20
    delays: tuple[float, ...] = (0.0, 0.05, 0.3)
    sojourns: tuple[float, ...] = (1.0, 10.0)
    drops: tuple[float, ...] = (0.01, 0.1, 0.5)
    equivalence_drops: tuple[float, ...] = EQUIVALENCE_DROPS
    sync_size: int = setting(8_000_000, "Table 1 / Fig. 3 transfer size (MB = 10^6; 8MiB for 2^20).", unit="size", flag="--size")
    models_size: int = setting(5_000_000, "Fig. 2 transfer size.", unit="size", flag="--fig2-size")
    sensitivity: tuple[tuple[str, tuple[Any, ...]], ...] = tuple(SENSITIVITY.items())
    budget: int | None = 400

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("sync_size", "models_size"):
            v = getattr(self, name)
            if not (isinstance(v, int) and v >= 1):
                raise ParameterError(f"invalid parameter {name} = {v!r}: expected at least 1 byte")
        if 0.0 not in self.delays:
            raise ParameterError(f"invalid parameter delays = {self.delays}: Table 1 needs 0 (the LAN)")
        if 0.1 not in self.drops or 0.5 not in self.drops:
            raise ParameterError(f"invalid parameter drops = {self.drops}: the equivalence of §2 needs 0.1 and 0.5")

    #: ``--quick``: 40 transfers per cell, 8 per sweep point, the default and one other value
    #: of each open parameter (with 3 and 2 the preview left 40 of the 55 claims it judged
    #: inconclusive that the full run decides; docs/claims.md, "Speed of the studies").
    QUICK: ClassVar[dict[str, Any]] = {"seeds": 40, "sweep_seeds": 8, "quick": True, "budget": None, "equivalence_drops": QUICK_EQUIVALENCE_DROPS,
                                       "sensitivity": tuple(QUICK_SENSITIVITY.items())}  # fmt: skip


class ErrorModels(CellStudy):
    """The study as ``burstlab study error-models`` runs it."""

    name = "error-models"
    title = "Pentikousis & Badr, \"Error Modeling for TCP Simulations\""
    description = (title + ": rate-based vs temporal (VDDP) error models (Fig. 2) and synchronized vs not synchronized ACK losses (Table 1, "
                   "Fig. 3), every open parameter swept; writes a results store, figures and a report with the paper's numbers beside ours and "
                   "every claim judged.")  # fmt: skip
    Setup = Setup
    Config = StudyConfig
    claims = "burstlab.experiments.error_models_claims"
    unit = "transfers"
    module = "burstlab.experiments.error_models_study"


study = ErrorModels()
