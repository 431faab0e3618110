"""The settings of the hybrid satellite/Wi-Fi study (Barsocchi, Oligeri and Potortì, "Packet
loss in TCP hybrid wireless networks"): the paper's numbers, the open parameters
(:class:`Setup`) and the configuration (:class:`StudyConfig`), each option declared once
with its command-line help (:mod:`burstlab.study.settings`), and the study as the
framework runs it (:data:`study`). Light on purpose: ``burstlab study hybrid --help``
builds its options from here without loading numpy or the simulator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from burstlab._core import ParameterError
from burstlab.study.base import CellStudy
from burstlab.study.settings import CellStudyConfig, setting
from burstlab.sim import VARIANTS
from burstlab.study.base import UsageError, check_only

STUDY = "hybrid"
DATASETS = ("synthetic", "rutgers", "tossim", "traces")

# -- the paper's numbers (§II, §III, §V) --------------------------------------------------
SAT_RATE = 2e6  # §II.A: "a 2 Mb/s link"
SAT_DELAY = 0.300  # §II.A: "any latency not smaller than 300 ms"
SAT_FER = 1e-5  # §II.A: "a satellite channel with a FER of 10^-5"
SAT_BUFFER = 150_000  # §II.A: C·RTT = 2 Mb/s · 0.6 s = 150 kB
SLOT = 0.005  # §II.B, §III: Ttem's 5 ms intervals
DURATION, WARMUP, RUNS = 2000.0, 200.0, 10  # §V: "10 instances ... for 2000 seconds, discarded the first 200"
#: §V, Fig. 3: "frame error rates ranging from 2% to 30%".
PADHYE_FERS = (0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.25, 0.3)
#: Traces a study on real data takes unless ``max_traces`` is given (spread evenly over their FERs).
REAL_TRACES = 8


#: The Wi-Fi hop's rate adaptation (``Setup.rate_control``): "off" is the paper's fixed 11 Mb/s.
RATE_CONTROLS = ("off", "arf", "aarf", "minstrel")
#: With rate adaptation the Ttem slots become an SNR trace (802.11b curves, docs/phy.md): a good
#: slot at GOOD_SNR_DB (no rate loses a frame), a bad one at BAD_SNR_DB, where 11 Mb/s loses every
#: 1 076-byte frame as Ttem's bad slot does, 5.5 Mb/s 59 %, 2 Mb/s 0.2 % and 1 Mb/s none.
GOOD_SNR_DB, BAD_SNR_DB = 25.0, 3.0


# --------------------------------------------------------------------------------------
# the open parameters
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Setup:
    """The open parameters: one environment of the study (defaults argued in
    ``docs/study-hybrid.md``).

    TCP (ns-2.29's, not described by the paper): ``variant`` (Reno, the variant Padhye's
    formula describes), ``delayed_ack`` (ns-2's TCPSink: off), ``rto_min`` (ns-2: 1 s),
    ``rwnd`` (segments; None: unlimited, so that the C·RTT buffer can fill the link, §II.A),
    ``mss`` (bytes: the 1000-byte packets of §II.B). Wi-Fi ARQ: ``retry_limit`` (§I: 7),
    ``counts`` ("attempts": the standard's dot11ShortRetryLimit; "retries": R + 1 attempts),
    ``backoff`` ("dcf": 802.11b's binary exponential backoff; "none"). ``wifi_buffer``
    (packets; §II.B: any buffer above four packets), ``sat_buffer`` (bytes; §II.A: C·RTT),
    ``wifi_acks`` ("lossless": the TCP ACKs cross the Wi-Fi hop on an error-free twin;
    "channel": a half-duplex hop whose ACK frames share the data's raw channel and ARQ).
    The built-in synthetic set: ``synth_alpha`` (Pareto shape of the error gaps),
    ``synth_burst`` (mean error-burst length at FER 10 %, slots) and ``synth_burst_exp`` (how
    the mean burst follows the FER: ∝ (FER odds)^exp, 0 = the same at every FER; 0.5 splits
    the FER's change evenly between bursts and gaps on a log scale).
    """

    variant: str = setting("reno", "TCP variant (Padhye's formula describes Reno).", choices=("tahoe", "reno", "newreno", "sack"), flag="--tcp")
    delayed_ack: bool = setting(False, "Delayed ACKs (ns-2's TCPSink has none).")
    rto_min: float = setting(1.0, "Minimum RTO (ns-2.29's).", unit="time")
    rwnd: int | None = setting(None, "Receiver window in segments.", none="unlimited", min=1)
    mss: int = setting(1000, "Segment payload (bytes; the paper's 1000-byte packets).", min=1, max=65_495)
    retry_limit: int = setting(7, "802.11 ARQ retry limit (the paper's 7).", min=1, max=255)
    counts: str = setting("attempts", "What the retry limit counts: attempts (dot11ShortRetryLimit) or retries after the first attempt.",
                          choices=("attempts", "retries"))
    backoff: str = setting("dcf", "802.11b binary exponential backoff between attempts.", choices=("dcf", "none"))
    wifi_buffer: int = setting(100, "Wi-Fi interface queue (packets).", min=1)
    sat_buffer: int = setting(SAT_BUFFER, "Satellite router buffer (bytes; C·RTT).", unit="size")
    wifi_acks: str = setting("lossless", "TCP ACKs over the Wi-Fi hop: error-free, or as frames on the same half-duplex channel and ARQ.",
                             choices=("lossless", "channel"))
    rate_control: str = setting("off", "802.11 rate adaptation on the Wi-Fi hop: off (every attempt at 11 Mb/s, the paper's), or ARF / AARF / Minstrel "
                                "over 802.11b's rates, a bad slot then a deep fade that 1-2 Mb/s survive.", choices=RATE_CONTROLS)
    synth_alpha: float = setting(1.5, "Synthetic set: Pareto shape of the error gaps.", flag="--synthetic-alpha", only=("synthetic",))
    synth_burst: float = setting(2.0, "Synthetic set: mean error burst at FER 10 % (slots).", flag="--synthetic-burst", only=("synthetic",))
    synth_burst_exp: float = setting(0.5, "Synthetic set: mean burst ∝ (FER odds)^exp (0: the same at every FER).", flag="--synthetic-burst-exp",
                                     only=("synthetic",))

    def __post_init__(self) -> None:
        def bad(name: str, value: Any, expected: str) -> ParameterError:
            return ParameterError(f"invalid parameter {name} = {value!r}: expected {expected}")


        if self.variant not in VARIANTS:
            raise bad("variant", self.variant, f"one of {', '.join(VARIANTS)}")
        if not (isinstance(self.rto_min, (int, float)) and math.isfinite(self.rto_min) and self.rto_min > 0):
            raise bad("rto_min", self.rto_min, "a positive time")
        if self.rwnd is not None and not (isinstance(self.rwnd, int) and self.rwnd >= 1):
            raise bad("rwnd", self.rwnd, "at least 1 segment, or None (unlimited)")
        if not (isinstance(self.mss, int) and 1 <= self.mss <= 65_495):
            raise bad("mss", self.mss, "1..65495 bytes")
        if not (isinstance(self.retry_limit, int) and 1 <= self.retry_limit <= 255):
            raise bad("retry_limit", self.retry_limit, "1..255")
        if self.counts not in ("attempts", "retries"):
            raise bad("counts", self.counts, "'attempts' or 'retries'")
        if self.backoff not in ("dcf", "none"):
            raise bad("backoff", self.backoff, "'dcf' or 'none'")
        if not (isinstance(self.wifi_buffer, int) and self.wifi_buffer >= 1):
            raise bad("wifi_buffer", self.wifi_buffer, "at least 1 packet")
        if not (isinstance(self.sat_buffer, int) and self.sat_buffer >= 1040):
            raise bad("sat_buffer", self.sat_buffer, "at least one 1040-byte packet")
        if self.wifi_acks not in ("lossless", "channel"):
            raise bad("wifi_acks", self.wifi_acks, "'lossless' or 'channel'")
        if self.rate_control not in RATE_CONTROLS:
            raise bad("rate_control", self.rate_control, ", ".join(RATE_CONTROLS))
        if not (isinstance(self.synth_alpha, (int, float)) and 1 < self.synth_alpha < 100):
            raise bad("synth_alpha", self.synth_alpha, "a Pareto shape above 1 (a finite mean gap)")
        if not (isinstance(self.synth_burst, (int, float)) and 1 <= self.synth_burst < 1e6):
            raise bad("synth_burst", self.synth_burst, "a mean burst length of at least 1 slot")
        if not (isinstance(self.synth_burst_exp, (int, float)) and 0 <= self.synth_burst_exp <= 1):
            raise bad("synth_burst_exp", self.synth_burst_exp, "an exponent in [0, 1]")


#: Fields that shape the synthetic traces, not the network (they change only (e) and the fits).
SYNTH_FIELDS = ("synth_alpha", "synth_burst", "synth_burst_exp")
#: The network's fields (every cell records them).
NET_FIELDS = tuple(f.name for f in fields(Setup) if f.name not in SYNTH_FIELDS)

#: The one-at-a-time sensitivity sweeps (each includes the default).
SENSITIVITY: dict[str, tuple[Any, ...]] = {
    "variant": ("tahoe", "reno", "newreno", "sack"),
    "delayed_ack": (False, True),
    "rto_min": (0.2, 1.0),
    "rwnd": (20, 64, None),
    "retry_limit": (1, 4, 7, 15),
    "counts": ("attempts", "retries"),
    "backoff": ("none", "dcf"),
    "wifi_buffer": (5, 100),
    "sat_buffer": (15_000, 75_000, 150_000, 300_000),
    "wifi_acks": ("lossless", "channel"),
    "rate_control": ("off", "arf", "minstrel"),
    "synth_alpha": (1.2, 1.5, 2.5),
    "synth_burst": (1.5, 2.0, 4.0),
    "synth_burst_exp": (0.0, 0.5, 1.0),
}
#: ``--quick``: the default and one other value of each.
QUICK_SENSITIVITY: dict[str, tuple[Any, ...]] = {
    "variant": ("reno", "newreno"),
    "delayed_ack": (False, True),
    "rto_min": (0.2, 1.0),
    "rwnd": (20, None),
    "retry_limit": (4, 7),
    "counts": ("attempts", "retries"),
    "backoff": ("none", "dcf"),
    "wifi_buffer": (5, 100),
    "sat_buffer": (15_000, 150_000),
    "wifi_acks": ("lossless", "channel"),
    "rate_control": ("off", "minstrel"),
    "synth_alpha": (1.5, 2.5),
    "synth_burst": (2.0, 4.0),
    "synth_burst_exp": (0.0, 0.5),
}
#: The built-in synthetic set's target FERs (Fig. 3's range, 2-30 %) and its fixed seed.
SYNTH_FERS = (0.02, 0.05, 0.08, 0.12, 0.16, 0.2, 0.25, 0.3)
SYNTH_SEED = 2006


@dataclass(frozen=True)
class StudyConfig(CellStudyConfig):
    """Everything that determines the study's numbers.

    ``seeds``: runs per cell at the defaults (the paper: 10); ``sweep_seeds``: per cell
    of every sensitivity point; ``seed``: the study seed; ``duration``/``warmup``: each run
    (§V: 2000 s, the first 200 discarded); ``slot``: the channel interval of traces that do not
    carry one (Ttem's 5 ms); ``padhye_fers``: Fig. 3's Bernoulli FERs; ``dataset`` and the
    trace options as ``burstlab study prr-mu``'s; ``fer_range``, ``max_traces``: which traces
    (their raw FER; at most this many, spread evenly over the FERs); ``synth_fers``,
    ``synth_seed``: the built-in synthetic set; ``fit_slots``: EM fits use the first so many
    slots of a trace; ``all_models``: also every other model burstlab fits (not only Table I).
    """

    setup: Setup = field(default_factory=Setup)
    seeds: int = setting(RUNS, "Runs per cell at the defaults (the paper's 10).", min=2, flag="--runs")
    sweep_seeds: int = 5
    sensitivity: tuple[tuple[str, tuple[Any, ...]], ...] = tuple(SENSITIVITY.items())
    budget: int | None = 40
    duration: float = setting(DURATION, "Run length (the paper's).", unit="time")
    warmup: float = setting(WARMUP, "Discarded start of each run (the paper's).", unit="time")
    slot: float = setting(SLOT, "Channel interval of traces without timing (Ttem's 5 ms).", unit="time")
    padhye_fers: tuple[float, ...] = PADHYE_FERS
    dataset: str = setting("synthetic", "Raw channels: the built-in synthetic set, the Rutgers 802.11 links, or links derived from the TOSSIM noise "
                                        "traces.", choices=("synthetic", "rutgers", "tossim"))  # fmt: skip
    traces_dir: str | None = setting(None, "A folder of raw channel traces in time (e.g. Ttem files) instead of --dataset.", unit="dir", flag="--traces")
    fmt: str | None = setting(None, "Trace format for --traces (.ttem = Ttem, 1 = bad).", unit="format", flag="--format", none="detected", only=("traces",))
    traces_one_means: str = setting("received", "--traces bits/string files: what a 1 means.", choices=("received", "lost"), flag="--one-means",
                                    only=("traces",))  # fmt: skip
    traces_expected: int | None = setting(None, "--traces seqlist files: frames sent per trace.", min=1, flag="--expected", only=("traces",))
    traces_drop_beyond: bool = False
    rutgers_noise: tuple[str, ...] | None = setting(None, "--dataset rutgers: comma-separated noise levels (e.g. dbm0,dbm-5).", items=str, flag="--noise",
                                                    none="all", only=("rutgers",))  # fmt: skip
    fer_range: tuple[float, float] = setting((0.01, 0.5), "Raw FER range of the traces used.", nargs=2)
    max_traces: int | None = setting(None, "At most this many traces, spread evenly over their FERs.", min=1, none=f"{REAL_TRACES} for real data, all synthetic ones")
    synth_fers: tuple[float, ...] = SYNTH_FERS
    synth_seed: int = SYNTH_SEED
    fit_slots: int = setting(100_000, "Iterative fits (EM: Gilbert-Elliott, VDDP, HMM; Viterbi: HSMM) use the first N slots of a trace.", min=100)
    all_models: bool = setting(True, "Every model burstlab fits beside Table I's (a)-(d) (--table1-only: only those).", flag="--all-models/--table1-only")

    def __post_init__(self) -> None:
        super().__post_init__()
        if not (math.isfinite(self.duration) and math.isfinite(self.warmup) and 0 <= self.warmup < self.duration):
            raise ParameterError(f"invalid parameter duration = {self.duration!r} / warmup = {self.warmup!r}: expected 0 ≤ warmup < duration")
        if not (math.isfinite(self.slot) and self.slot > 0):
            raise ParameterError(f"invalid parameter slot = {self.slot!r}: expected a positive time")
        for name in ("padhye_fers", "synth_fers"):
            v = getattr(self, name)
            if not v or any(not (0 < f < 1) for f in v):
                raise ParameterError(f"invalid parameter {name.replace('_', '-')} = {v}: expected frame error rates in (0, 1)")
        if self.dataset not in DATASETS:
            raise ParameterError(f"invalid parameter dataset = {self.dataset!r}: expected one of {DATASETS}")
        if self.dataset == "traces" and not self.traces_dir:
            raise ParameterError("invalid parameter traces: --traces DIR is required for dataset 'traces'")
        lo, hi = self.fer_range
        if not 0.0 <= lo < hi <= 1.0:
            raise ParameterError(f"invalid parameter fer-range = {self.fer_range}: expected 0 ≤ low < high ≤ 1")
        if self.max_traces is not None and self.max_traces < 1:
            raise ParameterError(f"invalid parameter max-traces = {self.max_traces}: expected at least 1")
        if not (isinstance(self.fit_slots, int) and self.fit_slots >= 100):
            raise ParameterError(f"invalid parameter fit-slots = {self.fit_slots!r}: expected at least 100")

    #: ``--quick``: runs of 300 s (60 s discarded), 2 per cell, 3 synthetic traces and 4
    #: Bernoulli FERs, EM fits on 10,000 slots, the default and one other value of each open
    #: parameter.
    QUICK: ClassVar[dict[str, Any]] = {"seeds": 2, "sweep_seeds": 2, "quick": True, "budget": None, "duration": 300.0, "warmup": 60.0,
                                       "padhye_fers": (0.02, 0.1, 0.2, 0.3), "synth_fers": (0.05, 0.15, 0.3), "fit_slots": 10_000, "max_traces": 3,
                                       "sensitivity": tuple(QUICK_SENSITIVITY.items())}  # fmt: skip

    @property
    def n_slots(self) -> int:
        """Slots of channel a run needs (a synthetic trace's length)."""
        return math.ceil(self.duration / self.slot)



class Hybrid(CellStudy):
    """The study as ``burstlab study hybrid`` runs it: ``--traces DIR`` is the input
    "traces"; real data takes at most :data:`REAL_TRACES` traces unless told."""

    name = STUDY
    title = "Barsocchi, Oligeri, Potortì, \"Packet loss in TCP hybrid wireless networks\""
    description = (title + ": TCP over a satellite link and an 802.11 hop whose ARQ meets a raw channel trace in time (Ttem). Fig. 2 (error gaps), "
                   "Fig. 3 (Padhye vs simulation), Fig. 4 and Table I (goodput for Bernoulli and bistable models against the trace, and every model "
                   "burstlab fits, ranked), every open parameter swept; writes a results store, figures and a report.")  # fmt: skip
    Setup = Setup
    Config = StudyConfig
    claims = "burstlab.experiments.hybrid_claims"
    unit = "runs"
    module = "burstlab.experiments.hybrid_study"
    #: hmmlearn (~0.6 s with scikit-learn): imported once by the forkserver, not by each worker that fits an HMM.
    preload = ("hmmlearn.hmm",)

    def configure(self, values: Any, *, quick: bool) -> StudyConfig:

        values = dict(values)
        if values.get("traces_dir") and values.get("dataset"):
            raise UsageError("give either --dataset or --traces, not both")
        ds = values["dataset"] = "traces" if values.get("traces_dir") else (values.get("dataset") or "synthetic")
        names = {"traces": "--traces"}
        check_only(Setup, values, ds, names)
        check_only(StudyConfig, values, ds, names)
        if values.get("max_traces") is None and ds != "synthetic":
            values["max_traces"] = REAL_TRACES
        return super().configure(values, quick=quick)  # type: ignore[no-any-return]

    def default_out(self, cfg: StudyConfig) -> str:
        return f"results/hybrid-{cfg.dataset}"

    def summary(self, cfg: StudyConfig, res: Any) -> list[str]:
        lines = super().summary(cfg, res)
        if cfg.dataset == "synthetic":
            lines[1] = lines[1].replace(" (report:", " (on synthetic traces) (report:")
        return lines


study = Hybrid()

