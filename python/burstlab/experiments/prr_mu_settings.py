"""The settings of the PRR/μ study (Srinivasan, Kazandjieva, Jain, Levis, "PRR Is Not
Enough"): the testbeds' timing profiles, the configuration (:class:`StudyConfig`), each
option declared once with its command-line help (:mod:`burstlab.study.settings`), and the
study as the framework runs it (:data:`study`). Light on purpose: ``burstlab study prr-mu
--help`` builds its options from here without loading numpy or the simulator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from burstlab._core import ParameterError
from burstlab.sim.config import VARIANTS, TcpConfig
from burstlab.study.base import UsageError, check_only, claims_line, run_module
from burstlab.study.settings import given, setting
from burstlab._core import available_memory

STUDY = "prr-mu"
CONDITIONS = ("empirical", "independent", "ge")
DATASETS = ("synthetic", "rutgers", "tossim", "starlink", "traces")


@dataclass(frozen=True)
class Profile:
    """Slot length and TCP timers of Srinivasan et al. §3.1-3.2 for one kind of testbed."""

    name: str
    slot: float  # seconds per transmission opportunity
    rto_min: float
    rto_max: float
    ack_timeout: float
    max_cwnd: int = 130  # Srinivasan et al. §3.1: "the maximum congestion window is 130 packets"

    @property
    def link_pps(self) -> float:
        """Link-layer packets per second (Srinivasan et al. §7 footnote 2: 100 Mirage, 500 Roofnet)."""
        return 1.0 / self.slot

    def tcp(self, tcp_profile: str = "tossim") -> dict[str, Any]:
        """Every field of :class:`burstlab.sim.TcpConfig` for this testbed's timers.

        Srinivasan et al. give the slot, the RTO bounds, the ACK timeout and the maximum window.
        ``"tossim"`` (the default) is their TinyOS/TOSSIM NewReno as reconstructed in
        :meth:`burstlab.sim.TcpConfig.tossim` (RFC 793 timer without backoff, the receiver's
        idle ACKs, fast retransmit after a timeout, Slow-but-Steady; ``docs/study.md``);
        ``"rfc"`` is today's RFC behaviour (RFC 6298 timer with backoff, RFC 6582 careful
        NewReno, delayed ACKs). Both: NewReno, 1000-byte segments, initial window 2 (RFC 5681),
        delayed ACK every second segment, initial RTO = the lower bound (Srinivasan et al. scale
        all timers with the slot), 3 duplicate ACKs. Recorded in every row's configuration.
        """
        if tcp_profile == "tossim":
            return asdict(TcpConfig.tossim(ack_timeout=self.ack_timeout, rto_min=self.rto_min, rto_max=self.rto_max, max_cwnd=self.max_cwnd))
        if tcp_profile == "rfc":
            return asdict(TcpConfig(variant="newreno", init_cwnd=2, delayed_ack=True, ack_every=2, rto_initial=self.rto_min, dupack_threshold=3,
                                    ack_timeout=self.ack_timeout, rto_min=self.rto_min, rto_max=self.rto_max, max_cwnd=self.max_cwnd))
        raise ParameterError(f"invalid parameter tcp_profile = {tcp_profile!r}: expected one of {TCP_PROFILES}")


#: TCP profiles of the study: Srinivasan et al.'s TinyOS/TOSSIM NewReno as burstlab reconstructs
#: it (default), or the RFC behaviour of ``burstlab sim``.
TCP_PROFILES = ("tossim", "rfc")


#: Srinivasan et al. §3.1 (Mirage 802.15.4: 10 ms, RTO 1-60 s, ACK timeout 300 ms) and §3.2.2
#: (Roofnet 802.11b at 11 Mb/s: 2 ms, RTO 0.2-12 s, ACK timeout 60 ms).
PROFILES = {
    "mirage": Profile("mirage", 0.010, 1.0, 60.0, 0.300),
    "roofnet": Profile("roofnet", 0.002, 0.2, 12.0, 0.060),
}
#: The profile each named dataset uses unless told otherwise (Rutgers is 802.11 like Roofnet;
#: TOSSIM's noise traces are CC2420/802.15.4 like Mirage).
DEFAULT_PROFILE = {"synthetic": "mirage", "rutgers": "roofnet", "tossim": "mirage", "starlink": "mirage", "traces": "mirage"}


#: ``--quick``: a preview (fewer seeds, links and slots); every verdict is marked "preview: not evidence".
QUICK: dict[str, Any] = {"quick": True, "replicates": 2, "max_links": 24, "n_links": 24, "n_slots": 30_000}


@dataclass(frozen=True)
class StudyConfig:
    """Everything that determines the study's numbers (and the report's wording), each
    option declared once with its command-line help (:mod:`burstlab.study.settings`)."""

    dataset: str = setting("synthetic", "Named input (docs/datasets.md).", choices=("synthetic", "rutgers", "tossim", "starlink"))
    traces_dir: str | None = setting(None, "A folder of trace files instead of a named dataset.", unit="dir", flag="--traces")
    fmt: str | None = setting(None, "Trace format for --traces.", unit="format", flag="--format", none="detected", only=("traces",))
    profile: str | None = setting(None, "Srinivasan et al. timers and slot.", choices=tuple(PROFILES), none="per dataset")
    replicates: int = setting(5, "Seeds per synthetic condition (independent, GE).", min=1, flag="--seeds")
    seed: int = setting(0, "Study seed (synthetic conditions, simulator).", min=0, max=2**32 - 1)
    ack_path: str = setting("lossless", "ACKs: lossless, or through the trace.", choices=("lossless", "trace"))
    sender_queue: str = setting("radio", "How the sender hands its segments to the slotted channel: radio (TinyOS: one packet at a time, the next "
                                         "when its slot ends) or fifo (each waits for its slot in an unbounded queue); docs/study.md "
                                         "\"The sender's queue\".", choices=("radio", "fifo"))  # fmt: skip
    tcp_profile: str = setting("tossim", "TCP: Srinivasan et al.'s TinyOS/TOSSIM NewReno as reconstructed in docs/study.md, or the RFC behaviour of "
                                         "`burstlab sim`.", choices=TCP_PROFILES)  # fmt: skip
    # the congestion control and loss recovery run over the profile's timers and receiver: a
    # name of burstlab.sim.VARIANTS ("newreno": the paper's; "bbr", "cubic", ...: issue 30)
    tcp_variant: str = setting("newreno", "Congestion control and loss recovery over the TCP profile's timers and receiver (newreno: Srinivasan "
                                          "et al.'s; bbr: does burstiness matter to BBR?).", choices=tuple(VARIANTS), flag="--tcp")  # fmt: skip
    rto_backoff_reset: str = setting("sample", "With --tcp-profile rfc: when a backed-off RTO collapses, at a new RTT sample (RFC 6298, Karn) or on any "
                                               "new ACK (ns-3, Linux).", choices=("sample", "new_ack"))  # fmt: skip
    prr_range: tuple[float, float] = setting((0.1, 0.9), "PRR range of the links simulated (Srinivasan et al. Fig. 6).", nargs=2)
    fit_range: tuple[float, float] = setting((0.2, 0.6), "PRR range of the links fitted (intermediate, Srinivasan et al. §7).", nargs=2)
    folds: int = setting(5, "k for the cross-validated fit errors.", min=2)
    chunk: int = 6000  # Srinivasan et al. §8 chunk size for the μ RMS
    n_links: int = setting(60, "Synthetic testbed: number of links.", min=1, flag="--links", only=("synthetic",))
    n_slots: int = setting(100_000, "Synthetic testbed: slots per link.", min=1, max=2**63 - 1, flag="--slots", only=("synthetic",))
    testbed_seed: int = 2009
    max_links: int | None = setting(None, "Only the first N eligible links (by id).", min=1, none="all")
    rutgers_noise: tuple[str, ...] | None = setting(None, "Rutgers: comma-separated noise levels (e.g. dbm0,dbm-5). TOSSIM: comma-separated noise trace "
                                                          "files (any TOSSIM noise trace, one dBm reading per line).", items=str, flag="--noise",
                                                    none="all", only=("rutgers", "tossim"))  # fmt: skip
    tossim_targets: tuple[float, ...] | None = setting(None, "TOSSIM: comma-separated expected PRRs the signal strengths are solved for.", items=float,
                                                       flag="--targets", only=("tossim",))  # fmt: skip
    tossim_signal_dbm: tuple[float, ...] | None = setting(None, "TOSSIM: comma-separated signal strengths in dBm.", items=float, flag="--signal-dbm",
                                                          none="solved for --targets", only=("tossim",))  # fmt: skip
    tossim_segment: int | None = setting(98_304, "TOSSIM: noise samples per derived link (0: the whole file).", min=0, flag="--segment", none_value="0",
                                         only=("tossim",))  # fmt: skip
    tossim_noise_files: tuple[str, ...] | None = None  # any TOSSIM noise traces (default: the shared ones); --noise with --dataset tossim
    timing: str = setting("slots", "--dataset starlink: one probe per slot, or the probes replayed in time on the profile's slot (docs/datasets.md).",
                          choices=("slots", "time"), only=("starlink",))  # fmt: skip
    traces_expected: int | None = setting(None, "--traces seqlist files: packets sent per link (an empty file is then an all-lost link).", min=1,
                                          flag="--expected", only=("traces",))  # fmt: skip
    traces_drop_beyond: bool = setting(False, "--traces seqlist files: drop (and count) sequence numbers ≥ --expected instead of stopping.",
                                       flag="--drop-beyond", only=("traces",))  # fmt: skip
    traces_one_means: str = setting("received", "--traces bits/string files: what a 1 means.", choices=("received", "lost"), flag="--one-means",
                                    only=("traces",))  # fmt: skip
    subsample: int = setting(1, "Keep every K-th entry of every trace (Srinivasan et al. §8, Fig. 14; `burstlab convert --every K` does it to a file).",
                             min=1)  # fmt: skip
    quick: bool = False

    QUICK: ClassVar[dict[str, Any]] = QUICK

    def __post_init__(self) -> None:
        if self.dataset not in DATASETS:
            raise ParameterError(f"invalid parameter dataset = {self.dataset!r}: expected one of {DATASETS}")
        if self.dataset == "traces" and not self.traces_dir:
            raise ParameterError("invalid parameter traces: --traces DIR is required for dataset 'traces'")
        if self.profile is not None and self.profile not in PROFILES:
            raise ParameterError(f"invalid parameter profile = {self.profile!r}: expected one of {sorted(PROFILES)}")
        if self.replicates < 1:
            raise ParameterError(f"invalid parameter seeds = {self.replicates}: expected at least 1")
        if self.tcp_profile not in TCP_PROFILES:
            raise ParameterError(f"invalid parameter tcp_profile = {self.tcp_profile!r}: expected one of {TCP_PROFILES}")
        if self.tcp_variant not in VARIANTS:
            raise ParameterError(f"invalid parameter tcp = {self.tcp_variant!r}: expected one of {', '.join(VARIANTS)}")
        if self.rto_backoff_reset not in ("sample", "new_ack"):
            raise ParameterError(f"invalid parameter rto_backoff_reset = {self.rto_backoff_reset!r}: expected 'sample' or 'new_ack'")
        if self.ack_path not in ("lossless", "trace"):
            raise ParameterError(f"invalid parameter ack_path = {self.ack_path!r}: expected 'lossless' or 'trace'")
        if self.sender_queue not in ("fifo", "radio"):
            raise ParameterError(f"invalid parameter sender_queue = {self.sender_queue!r}: expected 'fifo' or 'radio'")
        for name, (lo, hi) in (("prr_range", self.prr_range), ("fit_range", self.fit_range)):
            if not 0.0 <= lo < hi <= 1.0:
                raise ParameterError(f"invalid parameter {name} = {(lo, hi)}: expected 0 <= low < high <= 1")
        if self.folds < 2:
            raise ParameterError(f"invalid parameter folds = {self.folds}: expected at least 2")
        if not 0 <= self.seed < 2**32:
            raise ParameterError(f"invalid parameter seed = {self.seed}: expected 0 ≤ seed < 2^32")
        if self.subsample < 1:
            raise ParameterError(f"invalid parameter subsample = {self.subsample}: expected keeping every k-th entry, k ≥ 1")
        if self.traces_one_means not in ("received", "lost"):
            raise ParameterError(f"invalid parameter one_means = {self.traces_one_means!r}: expected 'received' or 'lost'")
        if self.traces_expected is not None and self.traces_expected < 1:
            raise ParameterError(f"invalid parameter expected = {self.traces_expected}: expected a positive number of packets sent")
        if self.timing not in ("slots", "time"):
            raise ParameterError(f"invalid parameter timing = {self.timing!r}: expected 'slots' or 'time'")
        if self.max_links is not None and self.max_links < 1:
            raise ParameterError(f"invalid parameter max_links = {self.max_links}: expected at least 1")

    @property
    def profile_name(self) -> str:
        return self.profile or DEFAULT_PROFILE[self.dataset]

    @property
    def prof(self) -> Profile:
        return PROFILES[self.profile_name]

    def tcp(self) -> dict[str, Any]:
        """Keyword arguments of :class:`burstlab.sim.TcpConfig`: the testbed's timers in the
        TCP profile, plus the RTO backoff-reset rule; another ``tcp_variant`` than NewReno
        replaces the congestion control and loss recovery (its pair in ``VARIANTS``)."""
        d = {**self.prof.tcp(self.tcp_profile), "rto_backoff_reset": self.rto_backoff_reset}
        if self.tcp_variant != "newreno":
            d["cc"], d["recovery"] = VARIANTS[self.tcp_variant]
        return d

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["profile"] = self.profile_name
        return d



def _check_memory(n_links: int, n_slots: int) -> None:
    """The synthetic testbed holds every link's packed trace at once (1 bit per slot): refuse,
    naming the options, a size the machine cannot hold."""

    need = n_links * ((n_slots + 63) // 64) * 8
    avail = available_memory()
    if avail is not None and need > avail:
        raise ParameterError(
            f"invalid --slots = {n_slots} with --links = {n_links}: the testbed's packed traces need {need / 1e9:.3g} GB, "
            f"only {avail / 1e9:.3g} GB of memory is available"
        )


class PrrMu:
    """The study as ``burstlab study prr-mu`` runs it (a study of links, not of keyed cells:
    no setup apart from its configuration, no adaptive replication — its conditions are
    the links the input holds)."""

    name = STUDY
    title = "Srinivasan, Kazandjieva, Jain, Levis, \"PRR Is Not Enough\""
    description = (title + ": Srinivasan et al.'s method on every link: PRR, μ, TCP NewReno over the trace, over independent and Gilbert-Elliott "
                   "links with the same PRR (and μ), the differences, μ convergence, the L1 fits (PRR only, second order, 15 terms); writes a "
                   "results store, figures and a report.")  # fmt: skip
    Setup = None
    Config = StudyConfig
    claims = "burstlab.experiments.prr_mu_claims"
    #: The study's module, loaded by name when the study runs (as every registered study's:
    #: the settings stay light for ``burstlab study --help``).
    module = "burstlab.experiments.prr_mu"
    unit = "seeds"
    budget = False

    def configure(self, values: Any, *, quick: bool) -> StudyConfig:
        values = dict(values)
        if values.get("traces_dir") and values.get("dataset"):
            raise UsageError("give either --dataset or --traces, not both")
        ds = values["dataset"] = "traces" if values.get("traces_dir") else (values.get("dataset") or "synthetic")
        check_only(StudyConfig, values, ds, {"traces": "--traces"})
        kw = given(StudyConfig, values)
        if ds == "tossim" and "rutgers_noise" in kw:  # one --noise option: Rutgers levels or TOSSIM noise files
            kw["tossim_noise_files"] = kw.pop("rutgers_noise")
        if quick:
            kw = {**QUICK, **kw}
        if ds == "synthetic":
            n_links, n_slots = kw.get("n_links", StudyConfig.n_links), kw.get("n_slots", StudyConfig.n_slots)
            _check_memory(n_links, n_slots)
        return StudyConfig(**kw)

    def run(self, cfg: StudyConfig, out: str, *, workers: int | None = None, cluster: str | None = None, progress: bool = True,
            log: Callable[[str], None] | None = None, formats: Sequence[str] = ("png",)) -> Any:  # fmt: skip
        return run_module(self.module, cfg, out, workers=workers, cluster=cluster, progress=progress, log=log, formats=formats)

    def default_out(self, cfg: StudyConfig) -> str:
        return f"results/prr-mu-{cfg.dataset}"

    def summary(self, cfg: StudyConfig, res: Any) -> list[str]:
        def e(v: float) -> str:
            return "-" if v != v else f"{100 * v:.2f}"  # NaN: the fit was not made

        lines = [f"{res.ran} simulations run, {res.skipped} reused from the store, {res.elapsed_s:.1f} s"]
        lines += [f"fit error ×1e-2 [{r['group']}]: PRR only {e(r['err_prr'])}, 2nd order {e(r['err_2nd'])}, 15 term {e(r['err_15'])} "
                  f"(CV: {e(r['cv_err_prr'])}, {e(r['cv_err_2nd'])}, {e(r['cv_err_15'])})" for r in res.fig13]  # fmt: skip
        return lines + [f"claims of the paper: {claims_line(res.claims)} (report: claims table)", f"report: {res.report_md.resolve()}",
                        f"report (HTML): {res.report_html.resolve()}"]  # fmt: skip


study = PrrMu()
