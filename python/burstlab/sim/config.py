"""A flow's TCP settings: :class:`TcpConfig`, the ``variant`` shorthand and the names of the
congestion controls and loss recoveries. The fields are declared once in the core
(:mod:`burstlab.sim.params`); the profiles are in :mod:`burstlab.sim.profiles`.
"""

from __future__ import annotations

from dataclasses import InitVar, asdict, dataclass, fields
from typing import Any

from burstlab import _core
from burstlab.sim.params import field_of as _p


#: Congestion controls (``TcpConfig.cc``), loss recoveries (``TcpConfig.recovery``).
CONGESTION_CONTROLS = ("reno", "linux-reno", "westwood", "tibet", "ideal", "vegas", "cubic", "bbr", "bbr3")
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
    "bbr": ("bbr", "sack"),
    "bbr3": ("bbr3", "sack"),
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
    quickack: int = _p("quickack")
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
    rto_keeps_recovery_ssthresh: bool = _p("rto_keeps_recovery_ssthresh")
    timestamps: bool = _p("timestamps")
    handshake: bool = _p("handshake")
    abc: bool = _p("abc")
    abc_limit: int | None = _p("abc_limit")
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
    bbr_variant: str = _p("bbr_variant")
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


def _number(name: str, value: Any, kind: type) -> Any:
    """``kind(value)``, or a ParameterError naming the parameter (not a bare ValueError)."""
    try:
        return kind(value)
    except (TypeError, ValueError, OverflowError):
        raise _core.ParameterError(f"invalid parameter {name} = {value!r}: expected a number") from None


def tcp_settings(tcp: TcpConfig) -> dict[str, Any]:
    """The settings the simulator will run for ``tcp``, validated by it (an error names the
    bad field), plus ``ssthresh_rule_resolved``: what ``ssthresh_rule`` means for this cc (and
    recovery), and ``ecn_resolved``: whether the flow uses ECN (``ecn``, or LT-TCP)."""
    return _core.tcp_settings(tcp_dict(tcp))


#: TcpConfig's field names, in order; the types :func:`tcp_dict` copies as they are.
_TCP_FIELDS = tuple(f.name for f in fields(TcpConfig))
_ATOMIC = frozenset({str, int, float, bool, type(None)})


def tcp_dict(tcp: TcpConfig) -> dict[str, Any]:
    """``dataclasses.asdict(tcp)``: a new dict of the fields' values, in order. The fields
    hold numbers, strings and None, which ``asdict`` deep-copies one by one (~70 calls per
    flow, ~0.15 ms of each simulation's set-up in Python); they are immutable, so they are
    copied as they are (anything else, or a subclass, goes through ``asdict``)."""
    if type(tcp) is TcpConfig:
        d = {name: getattr(tcp, name) for name in _TCP_FIELDS}
        if all(type(v) in _ATOMIC for v in d.values()):
            return d
    return asdict(tcp)
