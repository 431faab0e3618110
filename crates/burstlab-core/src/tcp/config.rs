//! TCP settings of one flow ([`TcpConfig`]): congestion control and loss recovery chosen
//! separately, the timers, the receiver, and the parameters of each algorithm. Defaults are
//! the RFC behaviour (the `rfc` profile of `docs/tcp.md`); `tcp/profiles.rs` holds the `ns3`,
//! `linux` and `tossim` profiles as sets of these parameters. Each parameter is declared once
//! below ([`crate::params!`]); `docs/parameters.md` is generated from the declaration.
use super::rtt::BackoffReset;
use super::SsthreshRule;
use super::rtt::RtoEstimator;
use crate::param::{kinds, Named, Value};
use crate::time::{Nanos, NS_PER_MS, NS_PER_S};
use crate::{Error, Result};

/// RFC 793 §3.7's example gains ("ALPHA ... .8 to .9, BETA ... 1.3 to 2.0"): what
/// `rto_estimator = rfc793` starts from until `rto_alpha` / `rto_beta` say otherwise.
pub const RFC793_ALPHA: f64 = 0.875;
pub const RFC793_BETA: f64 = 2.0;

impl Named for RtoEstimator {
    const NAMES: &'static [&'static str] = &["rfc6298", "rfc793"];
    fn parse(s: &str) -> Result<Self> {
        match s {
            "rfc6298" => Ok(RtoEstimator::Rfc6298),
            "rfc793" => Ok(RtoEstimator::Rfc793 { alpha: RFC793_ALPHA, beta: RFC793_BETA }),
            _ => Err(Error::param("rto_estimator", s, "rfc6298 or rfc793")),
        }
    }
    fn name(&self) -> &'static str {
        match self {
            RtoEstimator::Rfc6298 => "rfc6298",
            RtoEstimator::Rfc793 { .. } => "rfc793",
        }
    }
}

/// `CcKind` from the registry's lines (`tcp/cc/registry.rs`): the names and aliases only
/// (the types and constructors in each line are for `tcp/cc/mod.rs`).
macro_rules! cc_kind {
    ($($(#[$doc:meta])* $v:ident($ty:ty) = $name:literal $(| $alias:literal)*, new |$t:ident| $new:expr;)+) => {
        crate::named_enum!(
            /// Congestion control (`tcp/cc/`; the registry in `tcp/cc/registry.rs`).
            CcKind, "cc" { $($(#[$doc])* $v = $name $(| $alias)*),+ }
        );
    };
}
super::cc::registry::with_registered!(cc_kind);

crate::named_enum!(
    /// Loss recovery (`tcp/recovery/`).
    RecoveryKind, "recovery" {
        Tahoe = "tahoe",
        Reno = "reno",
        NewReno = "newreno" | "new-reno",
        /// RFC 6675 (the receiver sends SACK blocks).
        Sack = "sack",
        /// RFC 6937 Proportional Rate Reduction over RFC 6675's scoreboard (SACK on).
        Prr = "prr",
        /// LT-TCP (Tickoo, Subramanian, Kalyanaraman, Ramakrishnan 2005): erasures repaired by
        /// proactive and reactive FEC over SACK, the window cut only by ECN (SACK and ECN on).
        Lt = "lt" | "lt-tcp" | "lttcp",
    }
);

crate::named_enum!(
    /// The `--tcp NAME` shorthand: the usual (congestion control, loss recovery) pairs.
    Variant, "variant" {
        Tahoe = "tahoe",
        Reno = "reno",
        NewReno = "newreno" | "new-reno",
        Sack = "sack",
        Westwood = "westwood" | "westwood+",
        Tibet = "tibet",
        Ideal = "ideal",
        Vegas = "vegas",
        Cubic = "cubic",
        LinuxReno = "linux-reno" | "linuxreno",
        /// BBR v1 with SACK loss recovery (its window set by BBR, as Linux skips PRR for it).
        Bbr = "bbr",
        /// BBR v3 with SACK loss recovery.
        Bbr3 = "bbr3",
        /// LT-TCP: Reno growth, LT-TCP's loss handling (`recovery/lt.rs`).
        LtTcp = "lt-tcp" | "lttcp" | "lt",
    }
);

impl CcKind {
    /// Whether the algorithm sets a pacing rate of its own
    /// ([`super::cc::CongestionControl::pacing_rate`]), so that `pacing = auto` paces it as
    /// Linux paces BBR (`bbr_init` asks for `SK_PACING_NEEDED`): BBR v1 and v3. None of the
    /// window-based algorithms here does.
    pub fn sets_pacing_rate(self) -> bool {
        matches!(self, CcKind::Bbr | CcKind::Bbr3)
    }
}

impl Variant {
    /// The (congestion control, loss recovery) pair the name stands for. Tahoe, Reno,
    /// NewReno and SACK differ only in recovery; the estimators (Westwood+, TIBET, Ideal)
    /// and Vegas are NewReno with another congestion control, as in their papers' ns-2
    /// agents; CUBIC and Linux Reno run as Linux does, with SACK and PRR.
    pub fn pair(self) -> (CcKind, RecoveryKind) {
        use {CcKind as C, RecoveryKind as R};
        match self {
            Variant::Tahoe => (C::Reno, R::Tahoe),
            Variant::Reno => (C::Reno, R::Reno),
            Variant::NewReno => (C::Reno, R::NewReno),
            Variant::Sack => (C::Reno, R::Sack),
            Variant::Westwood => (C::Westwood, R::NewReno),
            Variant::Tibet => (C::Tibet, R::NewReno),
            Variant::Ideal => (C::Ideal, R::NewReno),
            Variant::Vegas => (C::Vegas, R::NewReno),
            Variant::Cubic => (C::Cubic, R::Prr),
            Variant::LinuxReno => (C::LinuxReno, R::Prr),
            Variant::LtTcp => (C::Reno, R::Lt),
            Variant::Bbr => (C::Bbr, R::Sack),
            Variant::Bbr3 => (C::Bbr3, R::Sack),
        }
    }
}

crate::named_enum!(
    /// Which RTT congestion control sees with each ACK.
    CcRtt, "cc_rtt" {
        /// The ACK's own RTT sample (the papers, Linux); none when the ACK gives none.
        Sample = "sample",
        /// SRTT on every ACK, as ns-3 3.44 passes `m_srtt` to `PktsAcked`.
        Srtt = "srtt",
    }
);

crate::named_enum!(
    /// PRR's reduction bound when pipe ≤ ssthresh (RFC 6937 §3.1).
    PrrBound, "prr_bound" {
        /// Slow-start reduction bound (RFC 6937's recommended default).
        Ssrb = "ssrb",
        /// Conservative reduction bound.
        Crb = "crb",
    }
);

crate::named_enum!(
    /// What a duplicate ACK is outside loss recovery, with SACK (`tcp/sender.rs`; without
    /// SACK every rule is RFC 5681's).
    DupackRule, "dupack_rule" {
        /// RFC 5681 §2: an ACK that does not advance snd_una while data is outstanding; an ACK
        /// that advances it resets DupAcks and returns to Open; RFC 3042's limited transmit
        /// counts FlightSize.
        Rfc5681 = "rfc5681",
        /// RFC 6675 §2 and §5: an ACK that SACKs data not SACKed before, whether or not it
        /// advances snd_una (a cumulative one resets DupAcks first, then counts); outside
        /// recovery new data goes out while cwnd − pipe ≥ 1 SMSS (§5 step 3: limited transmit
        /// governed by the pipe, SACKed segments out of it).
        Rfc6675 = "rfc6675",
        /// ns-3 3.44's TcpSocketBase: as RFC 6675, but an ACK that advances snd_una and SACKs
        /// new data leaves DupAcks as they were before counting it, and keeps the sender in
        /// Disorder, where the window does not grow (`ProcessAck`, `DupAck`).
        Ns3 = "ns3",
    }
);

crate::named_enum!(
    /// What the SACK sender counts in flight (`tcp/scoreboard.rs`, RFC 6675 §4 SetPipe).
    PipeRule, "pipe_rule" {
        /// RFC 6675: a SACKed segment leaves the pipe, retransmitted or not.
        Rfc6675 = "rfc6675",
        /// ns-3 3.44's `TcpTxBuffer::BytesInFlight` (sent − SACKed − lost + retransmitted):
        /// a retransmitted segment stays in flight once SACKed, until the cumulative ACK
        /// passes it or a timeout clears the retransmission marks.
        Ns3 = "ns3",
    }
);

crate::named_enum!(
    /// Which implementation of PRR (`recovery/prr.rs`).
    PrrVariant, "prr_variant" {
        /// RFC 6937: RecoverFS = FlightSize; the slow-start bound adds one MSS on every ACK.
        Rfc = "rfc" | "rfc6937",
        /// ns-3 3.44's TcpPrrRecovery: RecoverFS = the pipe; a duplicate ACK adds one segment
        /// to DeliveredData (also with SACK); the bound's MSS only when the ACK covers
        /// retransmitted data.
        Ns3 = "ns3",
        /// Linux 6.x `tcp_cwnd_reduction`: RecoverFS = cwnd (`prior_cwnd`); the bound's MSS
        /// only when snd_una advances.
        Linux = "linux",
    }
);

crate::named_enum!(
    /// Westwood+'s bandwidth estimator (`cc/westwood.rs`).
    WestwoodVariant, "westwood_variant" {
        /// Mascolo et al. 2004 (and Linux's `tcp_westwood.c`): b = 0.9·b + 0.1·sample from the
        /// first sample on; a duplicate ACK counts one segment and the cumulative ACK after
        /// it only the rest.
        Mascolo = "mascolo" | "paper",
        /// ns-3 3.44's TcpWestwoodPlus: Tustin's filter b = 0.9·b + 0.05·(sample + previous
        /// sample) from zero; a duplicate ACK and a partial ACK count one segment each, the ACK
        /// that ends fast recovery every segment it acknowledges cumulatively.
        Ns3 = "ns3",
    }
);

crate::named_enum!(
    /// Which implementation of Reno with segment counting (`cc/linux_reno.rs`).
    LinuxRenoVariant, "linux_reno_variant" {
        /// Linux 6.x `tcp_reno_cong_avoid` / `tcp_reno_ssthresh`.
        Linux = "linux",
        /// ns-3 3.44's TcpLinuxReno: ssthresh = max(cwnd/2, 2 segments) in bytes (half
        /// segments kept); no slow-start carry-over into avoidance; the ACK that ends fast
        /// recovery counts every segment it acknowledges cumulatively (ns-3's ProcessAck).
        Ns3 = "ns3",
    }
);

crate::named_enum!(
    /// Which packets TIBET's estimator times (Martignon & Capone §II).
    TibetEstimator, "tibet_estimator" {
        /// Lengths and inter-departure times of transmitted packets (the paper's pseudo-code).
        Sent = "sent",
        /// Lengths of acknowledged data and inter-arrival times of ACKs.
        Ack = "ack",
    }
);

crate::named_enum!(
    /// Which form of CUBIC's congestion avoidance (`cc/cubic.rs`).
    CubicVariant, "cubic_variant" {
        /// RFC 9438: W_est grows by α_cubic·(segments acknowledged)/cwnd (by 1 once it reaches
        /// the window before the last reduction) and cwnd takes it at once; cwnd moves toward
        /// the cubic target by (target − cwnd)/cwnd per ACK.
        Rfc = "rfc" | "rfc9438",
        /// Linux 6.x `tcp_cubic.c` (`bictcp_update`): windows in whole segments, the cubic
        /// target turned into "one segment per cnt acknowledged" at most once per jiffy (and,
        /// cwnd unchanged, every HZ/32); the Reno estimate a whole segment more per
        /// ⌊8(1024 + β)/3/(1024 − β)⌋·cwnd/8 acknowledged, which cwnd follows one cnt later; no
        /// switch to α = 1; β and C in Linux's 1/1024 units.
        Linux = "linux",
        /// ns-3 3.44's `TcpCubic` (`cc/cubic_ns3.rs`): Linux's structure without its time
        /// throttles, the cubic term an integer number of segments, at most one segment per
        /// ACK; slow start counts whole ACKs past ssthresh; the ACK that ends fast recovery
        /// counts every segment it acknowledges cumulatively.
        Ns3 = "ns3",
    }
);

crate::named_enum!(
    /// Whose BBR v1 (`cc/bbr.rs`): Linux's `tcp_bbr.c` inside Linux's TCP, or ns-3 3.44's
    /// `TcpBbr` inside ns-3's `TcpSocketBase`, which differ where a loss episode ends.
    BbrVariant, "bbr_variant" {
        /// Linux 6.x: the window saved at a loss is restored when fast recovery or a timeout's
        /// recovery ends (`bbr_set_cwnd_to_recover_or_restore`); a timeout restarts full-pipe
        /// detection and feeds the policer detector (`bbr_set_state`, `bbr_lt_bw_sampling`).
        Linux = "linux",
        /// ns-3 3.44: `TcpSocketBase` sets the window to ssthresh after `TcpBbr` restored it
        /// at the end of fast recovery (BBR's ssthresh: the one-BDP window set on entering
        /// Drain, `TcpBbr::CheckDrain`); nothing restores it when a timeout's recovery ends (no
        /// `CA_EVENT_COMPLETE_CWR` on leaving `CA_LOSS`); a timeout only starts a round
        /// (`TcpBbr::CongestionStateSet`); no policer detector; the window's budget for send
        /// bursts is three one-segment quanta (`TcpBbr::InFlight`), not made even.
        Ns3 = "ns3",
    }
);

crate::named_enum!(
    /// CUBIC's hybrid slow start (Ha & Rhee 2011): ACK-train and delay-increase detection.
    Hystart, "hystart" {
        Off = "off" | "none" | "false",
        /// As Linux 6.x: delay threshold clamp(min RTT / 8, 4 ms, 16 ms), ACK train longer than
        /// half the min RTT.
        Linux = "linux" | "on" | "true",
        /// As ns-3 3.44: delay threshold clamp(min RTT, 4 ms, 1 s), ACK train longer than the
        /// min RTT.
        Ns3 = "ns3",
    }
);

crate::named_enum!(
    /// Who paces the flow's segments (`tcp/sender/pacing.rs`, docs/tcp.md "Pacing").
    Pacing, "pacing" {
        /// Linux with a queue discipline other than fq (its default, fq_codel or pfifo_fast):
        /// only a congestion control that sets its own pacing rate (BBR) is paced, by TCP's
        /// own timer as `internal`; every other flow is sent as the window allows.
        Auto = "auto",
        /// No flow is paced, whatever its congestion control asks.
        Off = "off" | "none" | "false",
        /// TCP's own pacing (Linux `tcp_internal_pacing`, departure times per
        /// `tcp_update_skb_after_send`): bursts of `tcp_tso_autosize` segments (about 1 ms
        /// at the pacing rate, at least `pacing_min_burst`), each starting once the previous
        /// burst's length at the pacing rate has passed.
        Internal = "internal" | "on" | "true",
        /// The fq queue discipline's per-flow rate limit (Linux `sch_fq.c` `fq_dequeue` for
        /// packets without a departure time): a new flow's credit of `fq_initial_quantum`
        /// packets goes out at once, then `fq_quantum` packets per refill, each refill
        /// `fq_quantum` packets' time at the pacing rate after the last.
        Fq = "fq",
    }
);

crate::params! {
    /// TCP settings of one flow. Windows in segments, times in ns. Each setting is declared
    /// here once, with the component that reads it (`tcp` for the shared ones, the congestion
    /// control or recovery by name otherwise), its unit, default, range, help and reference;
    /// `TcpConfig::PARAMS` is the table the Python module, the CLI, TOML scenarios and
    /// `docs/parameters.md` are built from (`crate::param`).
    pub struct TcpConfig {
        tcp cc: CcKind [choice] = CcKind::Reno, "",
            "Congestion control.", "tcp/cc/";
        tcp recovery: RecoveryKind [choice] = RecoveryKind::NewReno, "",
            "Loss recovery (sack and prr turn SACK on; lt is LT-TCP: FEC over SACK, the window cut only by ECN, which it turns on).", "tcp/recovery/";
        /// Payload bytes per segment.
        tcp mss: u64 [u64] = 1000, "bytes", min 1, max u32::MAX / 2,
            "Payload bytes per segment.", "RFC 9293 §3.7.1";
        /// Header bytes added to every data segment on the link (TCP 20 + IP 20), without the
        /// timestamps option (see [`TcpConfig::wire_header_bytes`]).
        /// (At most u32::MAX / 4: with the payload and the options a packet's size fits the
        /// engine's 32-bit field; 2^32 used to wrap to 0 there while the budget counted it.)
        tcp header_bytes: u64 [u64] = 40, "bytes", max u32::MAX / 4,
            "Header bytes of a data segment on the link, options excluded.", "";
        /// Size of an ACK on the link, bytes (without the timestamps option).
        tcp ack_bytes: u64 [u64] = 40, "bytes", max u32::MAX / 4,
            "Bytes of an ACK on the link, options excluded.", "";
        /// Initial window, segments.
        tcp init_cwnd: u64 [u64] = 2, "segments", min 1,
            "Initial window.", "RFC 5681 §3.1";
        /// Maximum congestion window, segments (None = unbounded).
        tcp max_cwnd: Option<u64> [opt_u64] = None, "segments", min 1,
            "Maximum congestion window (unbounded if not given).", "";
        /// Receiver window (or send buffer): segments outstanding at most (None = unbounded).
        receiver rwnd: Option<u64> [opt_u64] = None, "segments", min 1,
            "Receiver window or send buffer: segments outstanding at most (unbounded if not given).", "";
        receiver delayed_ack: bool [bool] = true, "",
            "Delayed ACKs (RFC 1122, RFC 5681 4.2).", "RFC 5681 §4.2";
        receiver ack_every: u32 [u32] = 2, "segments", min 1,
            "With delayed ACKs, acknowledge every this many in-order segments.", "RFC 5681 §4.2";
        receiver ack_timeout: Nanos [time] = 200 * NS_PER_MS, "s",
            "Delayed-ACK timer.", "RFC 5681 §4.2";
        /// Linux's quick-ACK mode (`tcp::receiver`): the receiver acknowledges this many
        /// segments one by one from the first data, and again after data it already held; 0:
        /// off (the RFC receiver).
        receiver quickack: u32 [u32] = 0, "segments", max 255,
            "Quick-ACK mode (Linux): acknowledge each of the first this many segments at once, and this many again after a duplicate (data below the cumulative ACK); at most half the receive window (rwnd); 0 is off.", "Linux tcp_input.c: tcp_incr_quickack, tcp_enter_quickack_mode (TCP_MAX_QUICKACKS = 16)";
        /// Lower bound of RTO. At least 1 ms: Linux runs its retransmission timer in jiffies
        /// (1 ms at HZ = 1000) and takes a route's `rto_min` in milliseconds, so 1 ms is the
        /// smallest RTO a real stack uses; RFC 6298 §2.4 recommends 1 s.
        timers rto_min: Nanos [time] = NS_PER_S, "s", min 0.001,
            "Lower bound of the retransmission timeout (RFC 6298 2.4).", "RFC 6298 §2.4; Linux RTAX_RTO_MIN (ms)";
        timers rto_max: Nanos [time] = 60 * NS_PER_S, "s", min 0.001,
            "Upper bound of the retransmission timeout.", "RFC 6298 §2.5";
        timers rto_initial: Nanos [time] = NS_PER_S, "s", min 0.001,
            "Retransmission timeout before the first RTT sample (RFC 6298 2.1).", "RFC 6298 §2.1";
        /// RFC 6298 clock granularity G (Linux's 200 ms floor on the variance term is G = 200 ms).
        timers clock_granularity: Nanos [time] = 0, "s",
            "RFC 6298 clock granularity G: RTO = SRTT + max(G, 4 RTTVAR).", "RFC 6298 §2.2";
        recovery dupack_threshold: u32 [u32] = 3, "", min 1,
            "Duplicate ACKs that start loss recovery (DupThresh).", "RFC 5681 §3.2; RFC 6675 §2";
        /// RFC 3042 limited transmit.
        recovery limited_transmit: bool [bool] = false, "",
            "RFC 3042 limited transmit.", "RFC 3042";
        /// What a duplicate ACK is with SACK, and what limited transmit counts ([`DupackRule`]).
        recovery dupack_rule: DupackRule [choice] = DupackRule::Rfc5681, "",
            "With SACK, what a duplicate ACK is and what limited transmit counts: RFC 5681's (no advance of snd_una; FlightSize), RFC 6675's (new SACK information, cumulative or not; cwnd - pipe) or ns-3 3.44's (docs/tcp.md).", "RFC 5681 §2; RFC 6675 §2, §5";
        /// What a SACK sender counts in flight ([`PipeRule`]).
        sack pipe_rule: PipeRule [choice] = PipeRule::Rfc6675, "",
            "What a SACK sender counts in flight: RFC 6675's pipe, or ns-3 3.44's (a retransmitted segment stays in it once SACKed).", "RFC 6675 §4";
        /// RACK's rule for retransmissions (RFC 8985 §6.2, as Linux applies it): in SACK fast
        /// recovery, a retransmission is lost again once a segment sent after it is delivered,
        /// and is sent again at once; RFC 6675 alone waits for the retransmission timer.
        rack rack_lost_retransmissions: bool [bool] = false, "",
            "RACK's rule for retransmissions (RFC 8985 §6.2, as Linux applies it): in SACK fast recovery a retransmission is lost again once a segment sent after it is delivered, and is sent again at once (RFC 6675 alone waits for the retransmission timer).", "RFC 8985 §6.2";
        /// The rest of RACK-TLP (RFC 8985, as Linux 6.x applies it; SACK recoveries): in fast
        /// recovery a segment is lost once a segment sent after it is delivered (RACK with no
        /// reordering window: on FIFO paths, one SACKed segment above it, not DupThresh);
        /// outside recovery snd_una is lost once RACK.rtt plus a reordering window (min RTT / 4
        /// while fewer than DupThresh segments are SACKed, else 0) has passed since it was sent
        /// and a segment sent after it is delivered, found on an ACK or by the reordering timer,
        /// which starts fast recovery with fewer than DupThresh duplicate ACKs; and a tail loss
        /// probe 2·SRTT (+ 200 ms with one segment in flight, + 2 ms otherwise) after the last ACK
        /// in Open state: one new segment (or the last one sent again), whose ACK lets RACK find
        /// the tail's losses before the retransmission timer.
        rack rack_tlp: bool [bool] = false, "",
            "The rest of RACK-TLP (RFC 8985, as Linux 6.x): in SACK fast recovery a segment is lost once one sent after it is delivered; outside it snd_una is lost RACK.rtt + min RTT/4 after it was sent once a later segment is delivered (fast recovery with fewer than DupThresh duplicate ACKs, by a reordering timer if no ACK comes); and a tail loss probe 2 SRTT after the last ACK in Open state.", "RFC 8985";
        /// What a loss response halves (RFC 5681 FlightSize by default).
        recovery ssthresh_rule: SsthreshRule [choice] = SsthreshRule::FlightSize, "",
            "What a loss response reduces: RFC 5681 FlightSize, the RFC 6675 pipe, FlightSize - 1 segment, cwnd (Linux), or what ns-3 3.44 computes for this cc.", "RFC 5681 §3.1 eq. (4)";
        /// Whether the ACK ending the post-timeout Loss state grows cwnd (RFC 5681: yes).
        recovery grow_on_loss_exit: bool [bool] = true, "",
            "The ACK that ends the post-timeout Loss state grows cwnd (RFC 5681; ns-3 does not).", "RFC 5681 §3.1";
        /// Whether the ACK that ends fast recovery, after setting cwnd = ssthresh, also grows it
        /// as any ACK in the Open state would (ns-3 and Linux do; RFC 5681 §3.2 step 6 only deflates).
        recovery grow_on_recovery_exit: bool [bool] = false, "",
            "The ACK that ends fast recovery also grows cwnd after deflating it (ns-3, Linux; RFC 5681 only deflates).", "RFC 5681 §3.2 step 6";
        /// When a backed-off RTO collapses back (RFC 6298: on a new RTT sample).
        timers rto_backoff_reset: BackoffReset [choice] = BackoffReset::Sample, "",
            "When a backed-off RTO collapses: on a new RTT sample (RFC 6298, Karn) or on any ACK of new data (ns-3, Linux).", "RFC 6298 §5";
        /// A timeout in fast recovery, before the recovery point, keeps the recovery's
        /// ssthresh (Linux `tcp_enter_loss`: ssthresh is reduced only if it was not already
        /// reduced inside this window); RFC 5681 §3.1 eq. (4) reduces it again (from the
        /// window PRR has brought down, often one segment: ssthresh 2).
        timers rto_keeps_recovery_ssthresh: bool [bool] = false, "",
            "A timeout during fast recovery keeps the recovery's ssthresh (Linux tcp_enter_loss); RFC 5681 reduces it again.", "RFC 5681 §3.1 eq. (4); Linux tcp_enter_loss";
        /// RFC 7323 timestamps: an RTT sample from every ACK of new data (retransmissions
        /// included), 12 more bytes on every segment and ACK.
        tcp timestamps: bool [bool] = false, "",
            "RFC 7323 timestamps: an RTT sample on every ACK of new data, 12 more bytes per packet.", "RFC 7323 §3";
        /// The connection opened with a three-way handshake whose SYN / SYN-ACK exchange gave the
        /// first RTT sample (ns-3 and Linux take it, RFC 6298 §2 allows it): the estimator, the
        /// minimum RTT and the first RTO start from the path's round trip for a small packet.
        /// The handshake's time is not simulated: data still starts at t = 0.
        timers handshake: bool [bool] = false, "",
            "The handshake's SYN/SYN-ACK RTT is the first RTT sample (ns-3, Linux); data still starts at t = 0.", "RFC 6298 §2";
        /// RFC 3465 appropriate byte counting (L unlimited): an ACK counts for every segment it
        /// acknowledges in slow start and in the congestion-avoidance counters.
        tcp abc: bool [bool] = false, "",
            "RFC 3465 byte counting: an ACK counts for every segment it acknowledges (slow start, congestion-avoidance counters).", "RFC 3465";
        /// RFC 3465 §2.2's limit L: with `abc`, one ACK adds at most L·SMSS in slow start, and
        /// §2.3's L = 1 in the slow start that follows a retransmission timeout. None (the
        /// default): no limit, as Linux's `tcp_slow_start` and ns-3 3.44 count; the RFC
        /// recommends 2. Read by the Reno-growth variants and CUBIC.
        tcp abc_limit: Option<u64> [opt_u64] = None, "segments", min 1,
            "RFC 3465 limit L on the segments one ACK adds in slow start (1 after a timeout); unlimited if not given (Linux, ns-3).", "RFC 3465 §2.2-2.3";
        tcp cc_rtt: CcRtt [choice] = CcRtt::Sample, "",
            "RTT congestion control sees: the ACK's sample, or SRTT on every ACK (ns-3 3.44).", "";
        prr prr_bound: PrrBound [choice] = PrrBound::Ssrb, "",
            "PRR reduction bound below ssthresh (RFC 6937): slow-start or conservative.", "RFC 6937 §3.1";
        prr prr_variant: PrrVariant [choice] = PrrVariant::Rfc, "",
            "PRR as RFC 6937, ns-3 3.44 or Linux 6.x implement it (RecoverFS, the bound's extra segment; docs/tcp.md).", "RFC 6937";
        westwood westwood_variant: WestwoodVariant [choice] = WestwoodVariant::Mascolo, "",
            "Westwood+ estimator: Mascolo et al.'s (EWMA 0.9, duplicate ACKs counted once) or ns-3 3.44's (Tustin filter, its ACK counting).", "Mascolo et al. 2004";
        linux_reno linux_reno_variant: LinuxRenoVariant [choice] = LinuxRenoVariant::Linux, "",
            "linux-reno as Linux 6.x or as ns-3 3.44's TcpLinuxReno runs it (docs/tcp.md).", "Linux tcp_cong.c";
        /// Pole of TIBET's two low-pass filters (Martignon & Capone: 0.99).
        tibet tibet_alpha: f64 [real] = 0.99, "", min 0.0, lt 1.0,
            "Pole of TIBET's low-pass filters (Martignon & Capone: 0.99).", "Martignon & Capone §II";
        tibet tibet_estimator: TibetEstimator [choice] = TibetEstimator::Sent, "",
            "TIBET times sent packets (the paper's pseudo-code) or ACKs.", "Martignon & Capone §II";
        /// Vegas thresholds, segments (Brakmo & Peterson: α = 1, β = 3, γ = 1).
        vegas vegas_alpha: u32 [u32] = 1, "segments",
            "Vegas alpha (Brakmo & Peterson: 1).", "Brakmo & Peterson 1995";
        vegas vegas_beta: u32 [u32] = 3, "segments",
            "Vegas beta (Brakmo & Peterson: 3).", "Brakmo & Peterson 1995";
        vegas vegas_gamma: u32 [u32] = 1, "segments",
            "Vegas gamma, slow-start exit (Brakmo & Peterson: 1).", "Brakmo & Peterson 1995";
        /// CUBIC multiplicative decrease β and scaling constant C (RFC 9438 §5: 0.7, 0.4).
        cubic cubic_beta: f64 [real] = 0.7, "", gt 0.0, lt 1.0,
            "CUBIC multiplicative decrease (RFC 9438: 0.7).", "RFC 9438 §4.6";
        cubic cubic_c: f64 [real] = 0.4, "", gt 0.0,
            "CUBIC scaling constant C (RFC 9438: 0.4).", "RFC 9438 §5";
        /// RFC 9438 §4.7 fast convergence.
        cubic cubic_fast_convergence: bool [bool] = true, "",
            "CUBIC fast convergence (RFC 9438 4.7).", "RFC 9438 §4.7";
        /// RFC 9438 §4.3 Reno-friendly region.
        cubic cubic_reno_friendly: bool [bool] = true, "",
            "CUBIC Reno-friendly region (RFC 9438 4.3).", "RFC 9438 §4.3";
        /// RFC 9438's arithmetic or Linux's ([`CubicVariant`]).
        cubic cubic_variant: CubicVariant [choice] = CubicVariant::Rfc, "",
            "CUBIC's avoidance arithmetic: RFC 9438, Linux 6.x tcp_cubic.c (whole segments, its Reno estimate and increment counts) or ns-3 3.44's TcpCubic (docs/tcp.md).", "RFC 9438";
        cubic hystart: Hystart [choice] = Hystart::Linux, "",
            "CUBIC hybrid slow start (Ha & Rhee): off, as Linux 6.x, or as ns-3 3.44.", "Ha & Rhee 2011";
        /// Linux's or ns-3's BBR v1 ([`BbrVariant`]).
        bbr bbr_variant: BbrVariant [choice] = BbrVariant::Linux, "",
            "BBR v1 as Linux 6.x tcp_bbr.c or as ns-3 3.44's TcpBbr runs it: where a loss episode ends, ns-3 sets the window to ssthresh after fast recovery and restores nothing after a timeout; no policer detector; one-segment send quanta (docs/tcp.md).", "Linux tcp_bbr.c";
        // --- pacing (`tcp/sender/pacing.rs`; docs/tcp.md "Pacing") ---
        /// Who paces the flow ([`Pacing`]).
        pacing pacing: Pacing [choice] = Pacing::Auto, "",
            "Pacing: auto (only a congestion control that sets its own rate, e.g. BBR, as Linux without fq), off, internal (Linux TCP's own pacing timer, bursts of about 1 ms) or fq (the fq qdisc's per-flow rate: 10-packet initial quantum, then 2-packet refills).", "Linux tcp_output.c, sch_fq.c";
        /// Linux `net.ipv4.tcp_pacing_ss_ratio`: the default pacing rate in slow start (cwnd
        /// below half of ssthresh) is this percentage of cwnd/SRTT.
        pacing pacing_ss_ratio: u32 [u32] = 200, "%", min 1, max 1000,
            "Pacing rate in slow start (cwnd < ssthresh/2), percent of cwnd/SRTT, for a congestion control that sets no rate of its own (Linux tcp_pacing_ss_ratio).", "Linux tcp_update_pacing_rate";
        /// Linux `net.ipv4.tcp_pacing_ca_ratio`: the default pacing rate otherwise.
        pacing pacing_ca_ratio: u32 [u32] = 120, "%", min 1, max 1000,
            "Pacing rate outside slow start, percent of cwnd/SRTT, for a congestion control that sets no rate of its own (Linux tcp_pacing_ca_ratio).", "Linux tcp_update_pacing_rate";
        /// Linux `sk_pacing_shift`: an internal-pacing burst holds the bytes of 2^-shift s at
        /// the pacing rate (10: about 1 ms), `tcp_tso_autosize`.
        pacing pacing_shift: u32 [u32] = 10, "", max 30,
            "Internal pacing: a burst holds 2^-shift seconds of data at the pacing rate (Linux sk_pacing_shift; 10 is about 1 ms).", "Linux tcp_tso_autosize";
        /// Linux `net.ipv4.tcp_min_tso_segs`: the smallest internal-pacing burst.
        pacing pacing_min_burst: u32 [u32] = 2, "segments", min 1, max 64,
            "Internal pacing: the smallest burst (Linux tcp_min_tso_segs).", "Linux tcp_tso_autosize";
        /// fq's `quantum` (2 MTU): the credit a throttled flow gets back at each refill.
        pacing fq_quantum: u32 [u32] = 2, "packets", min 1, max 1000,
            "fq pacing: the credit a flow gets back at each refill (Linux fq quantum, 2 MTU).", "Linux sch_fq.c";
        /// fq's `initial_quantum` (10 MTU): a new flow's first credit.
        pacing fq_initial_quantum: u32 [u32] = 10, "packets", max 100000,
            "fq pacing: a new flow's first credit, sent at once (Linux fq initial_quantum, 10 MTU).", "Linux sch_fq.c";
        // --- the `tossim` profile of the PRR/μ study (Srinivasan et al. §3.1; docs/study.md) ---
        /// RTO estimator: RFC 6298 (default) or RFC 793 §3.7 (β·SRTT within the bounds); its α
        /// and β are the parameters `rto_alpha` and `rto_beta`.
        timers rto_estimator: super::rtt::RtoEstimator [choice] = super::rtt::RtoEstimator::Rfc6298, "",
            "RTO estimator: RFC 6298, or RFC 793 §3.7 (RTO = clamp(rto_beta·SRTT)).", "RFC 6298 §2; RFC 793 §3.7";
        /// Exponential backoff on a timeout (RFC 6298 §5.5; RFC 793 has none).
        timers rto_backoff: bool [bool] = true, "",
            "Exponential backoff on a timeout (RFC 6298 5.5; RFC 793 has none).", "RFC 6298 §5.5";
        /// The receiver re-acknowledges after every `ack_timeout` without an arriving segment
        /// (Srinivasan et al. §3.1's receiver ACK timeout; `tcp::receiver`).
        receiver ack_on_idle: bool [bool] = false, "",
            "The receiver re-sends its ACK after every ack_timeout without an arriving segment (Srinivasan et al. 3.1).", "Srinivasan et al., PRR Is Not Enough, §3.1";
        /// Duplicate ACKs after a timeout may start fast retransmit (RFC 2581 §3.2, RFC 2582's
        /// base algorithm) instead of RFC 6582's careful check.
        recovery fast_retransmit_after_timeout: bool [bool] = false, "",
            "Duplicate ACKs after a timeout may start fast retransmit (RFC 2581, RFC 2582's base algorithm).", "RFC 2582 §3; RFC 6582 §4";
        /// Restart the retransmission timer on every partial ACK (RFC 2582 §4 "Slow-but-Steady")
        /// instead of the first only ("Impatient", RFC 6582 §3.2 step 5). Outside Rust: the
        /// parameter `partial_ack_timer`, `first` or `every`.
        recovery restart_timer_every_partial_ack: bool [partial_ack_timer] as partial_ack_timer = false, "",
            "Restart the timer on the first partial ACK (RFC 6582 Impatient) or on every one (RFC 2582 Slow-but-Steady).", "RFC 6582 §3.2 step 5; RFC 2582 §4";
        /// RFC 3168 ECN: data segments are ECN-capable (ECT, retransmissions excepted, §6.1.5),
        /// the receiver echoes CE as ECE until CWR, the sender reduces once per window. LT-TCP
        /// turns it on whatever this says ([`TcpConfig::ecn_on`]).
        ecn ecn: bool [bool] = false, "",
            "RFC 3168 ECN: ECN-capable data, the receiver echoes CE until CWR, the sender reduces once per window (a RED queue with red_ecn then marks instead of dropping).", "RFC 3168 §6.1";
        // --- LT-TCP (`recovery = lt`; `recovery/lt.rs`, docs/tcp.md "LT-TCP") ---
        /// Proactive FEC: ⌈N·E⌉ parity packets in each block of N.
        lt lt_pfec: bool [bool] = true, "",
            "LT-TCP proactive FEC: ceil(N*E) parity packets in each block of N.", "Tickoo et al. 2005";
        /// Reactive FEC after SACK shows losses beyond a block's parity.
        lt lt_rfec: bool [bool] = true, "",
            "LT-TCP reactive FEC after SACK shows losses beyond a block's parity.", "Tickoo et al. 2005";
        /// Adaptive segment size: the window holds at least `lt_granularity` packets, segments no
        /// smaller than `lt_mss_min` bytes (`mss` is the largest).
        lt lt_adaptive_mss: bool [bool] = true, "",
            "LT-TCP adaptive segment size: at least lt_granularity packets per window.", "Tickoo et al. 2005";
        lt lt_granularity: u32 [u32] = 10, "packets", min 1,
            "LT-TCP: packets per window the segment size is adapted to keep.", "Tickoo et al. 2005";
        lt lt_mss_min: u64 [u64] = 250, "bytes", min 1,
            "LT-TCP: smallest segment (mss is the largest).", "Tickoo et al. 2005";
        /// Weight of each block's erasure sample in the receiver's EWMA estimate.
        lt lt_erasure_gain: f64 [real] = 0.25, "", gt 0.0, max 1.0,
            "LT-TCP: weight of each block's erasure sample in the receiver's EWMA.", "Tickoo et al. 2005";
        /// The estimate before any sample.
        lt lt_initial_erasure: f64 [real] = 0.0, "", min 0.0,
            "LT-TCP: erasure estimate before any sample.", "";
        /// Ceiling of the estimate used to size FEC (keeps 1/(1 − E) finite).
        lt lt_max_erasure: f64 [real] = 0.75, "", min 0.0, lt 1.0,
            "LT-TCP: ceiling of the estimate FEC is sized with.", "";
        /// Largest block, packets (255: a Reed-Solomon code over GF(2^8)).
        lt lt_max_block: u32 [u32] = 255, "packets", min 2, max 65535,
            "LT-TCP: largest block (255: Reed-Solomon over GF(2^8)).", "Tickoo et al. 2005";
    }
    virtual {
        timers rto_alpha [crate::param::Kind::Real], "",
            "RFC 793's SRTT gain alpha (with rto_estimator rfc793).", "RFC 793 §3.7",
            get |c: &TcpConfig| Value::Real(c.rto_793().0),
            set |c: &mut TcpConfig, v: Value| c.set_rto_793(Some(kinds::real::set("rto_alpha", v)?), None);
        timers rto_beta [crate::param::Kind::Real], "",
            "RFC 793's RTO factor beta (with rto_estimator rfc793).", "RFC 793 §3.7",
            get |c: &TcpConfig| Value::Real(c.rto_793().1),
            set |c: &mut TcpConfig, v: Value| c.set_rto_793(None, Some(kinds::real::set("rto_beta", v)?));
    }
}

/// `SsthreshRule::Ns3` made concrete for congestion control `cc` (ns-3 3.44's
/// `GetSsThresh`): NewReno-style growth halves `BytesInFlight()`, which is the RFC 6675
/// pipe with SACK or with limited transmit on and FlightSize − 1·SMSS with both off
/// (`docs/ns3-reference.md`); TcpLinuxReno and TcpCubic use cwnd; TcpVegas keeps its own
/// rule (`vegas.rs`). Other rules are returned unchanged.
pub fn resolve_ssthresh_rule(rule: SsthreshRule, cc: CcKind, sack: bool, limited_transmit: bool) -> SsthreshRule {
    if rule != SsthreshRule::Ns3 {
        return rule;
    }
    match cc {
        CcKind::Cubic | CcKind::LinuxReno => SsthreshRule::Cwnd,
        CcKind::Vegas => SsthreshRule::Ns3,
        _ if sack || limited_transmit => SsthreshRule::Pipe,
        _ => SsthreshRule::FlightSizeMinusLost,
    }
}

/// The timestamps option on the wire: 10 bytes padded to 12 (RFC 7323 §3).
pub const TIMESTAMP_OPTION_BYTES: u64 = 12;

impl TcpConfig {
    /// The defaults with the `--tcp NAME` pair.
    pub fn variant(v: Variant) -> Self {
        TcpConfig::default().with_variant(v)
    }

    pub fn with_variant(mut self, v: Variant) -> Self {
        (self.cc, self.recovery) = v.pair();
        self
    }

    /// Whether the receiver sends SACK blocks and the sender keeps the RFC 6675 scoreboard.
    pub fn sack(&self) -> bool {
        matches!(self.recovery, RecoveryKind::Sack | RecoveryKind::Prr | RecoveryKind::Lt)
    }

    /// What a loss (or ECN) response reduces, for this congestion control and recovery:
    /// `ssthresh_rule` made concrete ([`resolve_ssthresh_rule`]); with LT-TCP the FlightSize
    /// rules become the RFC 6675 pipe, since LT-TCP's FlightSize also spans the holes its FEC
    /// is repairing, which its window does not count.
    pub fn resolved_ssthresh_rule(&self) -> SsthreshRule {
        let r = resolve_ssthresh_rule(self.ssthresh_rule, self.cc, self.sack(), self.limited_transmit);
        match r {
            SsthreshRule::FlightSize | SsthreshRule::FlightSizeMinusLost if self.recovery == RecoveryKind::Lt => SsthreshRule::Pipe,
            r => r,
        }
    }

    /// [`TcpConfig::dupack_rule`] as it applies: RFC 5681's without SACK.
    pub fn sack_dupacks(&self) -> DupackRule {
        if self.sack() { self.dupack_rule } else { DupackRule::Rfc5681 }
    }

    /// Whether the flow uses ECN (RFC 3168): `ecn`, or LT-TCP, which needs it to tell
    /// congestion from erasures.
    pub fn ecn_on(&self) -> bool {
        self.ecn || self.recovery == RecoveryKind::Lt
    }

    /// Whether the flow's segments are paced (`pacing`, and with `auto` whether the
    /// congestion control sets its own pacing rate).
    pub fn paced(&self) -> bool {
        match self.pacing {
            Pacing::Off => false,
            Pacing::Internal | Pacing::Fq => true,
            Pacing::Auto => self.cc.sets_pacing_rate(),
        }
    }

    /// Header bytes of a data segment on the link, options included.
    pub fn wire_header_bytes(&self) -> u64 {
        self.header_bytes + if self.timestamps { TIMESTAMP_OPTION_BYTES } else { 0 }
    }

    /// Bytes of an ACK on the link, options included (SACK blocks are not counted).
    pub fn wire_ack_bytes(&self) -> u64 {
        self.ack_bytes + if self.timestamps { TIMESTAMP_OPTION_BYTES } else { 0 }
    }

    /// RFC 793's (α, β): the estimator's, or the defaults it starts from under RFC 6298.
    pub fn rto_793(&self) -> (f64, f64) {
        match self.rto_estimator {
            RtoEstimator::Rfc793 { alpha, beta } => (alpha, beta),
            RtoEstimator::Rfc6298 => (RFC793_ALPHA, RFC793_BETA),
        }
    }

    /// Sets RFC 793's α and/or β; they matter (and are kept) only with `rto_estimator = rfc793`.
    fn set_rto_793(&mut self, a: Option<f64>, b: Option<f64>) -> Result<()> {
        if let RtoEstimator::Rfc793 { alpha, beta } = &mut self.rto_estimator {
            *alpha = a.unwrap_or(*alpha);
            *beta = b.unwrap_or(*beta);
        }
        Ok(())
    }

    /// Every declared range (`PARAMS`), then the rules between parameters.
    pub fn validate(&self) -> Result<()> {
        let t = self;
        t.check_ranges()?;
        if t.delayed_ack && t.ack_timeout < 1_000 {
            // a delayed-ACK timer of nanoseconds fires 10^9 times per simulated second: the
            // run would never end (docs/errors.md "Bounds")
            return Err(Error::param("ack_timeout", Value::Time(t.ack_timeout), "at least 1 µs when delayed_ack is on"));
        }
        if t.rto_min > t.rto_max {
            return Err(Error::param("rto_min", Value::Time(t.rto_min), &format!("at most rto_max = {}", Value::Time(t.rto_max))));
        }
        if let RtoEstimator::Rfc793 { alpha, beta } = t.rto_estimator {
            if !(0.0..1.0).contains(&alpha) {
                return Err(Error::param("rto_alpha", alpha, "0 ≤ α < 1 (RFC 793: .8 to .9)"));
            }
            if !(beta.is_finite() && beta >= 1.0) {
                return Err(Error::param("rto_beta", beta, "a finite β ≥ 1 (RFC 793: 1.3 to 2.0)"));
            }
        }
        if let Some(l) = t.abc_limit {
            // L bounds byte counting (RFC 3465 §2.2): without `abc` slow start adds one SMSS per
            // ACK already; Linux's Reno and BBR have no slow start of this kind.
            if !t.abc {
                return Err(Error::param("abc_limit", l, "only with abc = true (RFC 3465 §2.2 limits byte counting)"));
            }
            if matches!(t.cc, CcKind::LinuxReno | CcKind::Bbr | CcKind::Bbr3) {
                return Err(Error::param("abc_limit", l, &format!("a congestion control with RFC 3465 slow start (cc = {} has no limit L)", t.cc.name())));
            }
        }
        if t.vegas_alpha > t.vegas_beta {
            return Err(Error::param("vegas_alpha", t.vegas_alpha, &format!("at most vegas_beta = {}", t.vegas_beta)));
        }
        if !t.cubic_c.is_finite() {
            return Err(Error::param("cubic_c", t.cubic_c, "a finite number"));
        }
        // The floor of LT-TCP's adaptive segments: checked against mss only where it is used
        // (`mss = 1` without LT-TCP blamed --lt-mss-min).
        if t.recovery == RecoveryKind::Lt && t.lt_adaptive_mss && t.lt_mss_min > t.mss {
            return Err(Error::param("lt_mss_min", t.lt_mss_min, &format!("1 to mss = {} bytes", t.mss)));
        }
        if t.lt_initial_erasure > t.lt_max_erasure {
            return Err(Error::param("lt_initial_erasure", t.lt_initial_erasure, &format!("a rate in [0, lt_max_erasure = {}]", t.lt_max_erasure)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `abc_limit` limits byte counting: refused without `abc` and for controllers without
    /// RFC 3465's slow start, with the parameter named.
    #[test]
    fn abc_limit_needs_byte_counting() {
        let ok = TcpConfig { abc: true, abc_limit: Some(2), ..TcpConfig::default() };
        assert!(ok.validate().is_ok());
        let e = TcpConfig { abc_limit: Some(2), ..TcpConfig::default() }.validate().unwrap_err().to_string();
        assert!(e.contains("abc_limit") && e.contains("abc = true"), "{e}");
        let e = TcpConfig { cc: CcKind::LinuxReno, ..ok }.validate().unwrap_err().to_string();
        assert!(e.contains("abc_limit") && e.contains("linux-reno"), "{e}");
    }

    #[test]
    fn names_round_trip_and_aliases() {
        for &n in CcKind::NAMES {
            assert_eq!(CcKind::parse(n).unwrap().name(), n);
        }
        assert_eq!(CcKind::parse("NewReno").unwrap(), CcKind::Reno);
        assert_eq!(CcKind::parse("westwood+").unwrap(), CcKind::Westwood);
        assert_eq!(RecoveryKind::parse("new_reno").unwrap(), RecoveryKind::NewReno);
        let e = CcKind::parse("bbr9").unwrap_err().to_string();
        assert!(e.contains("cc = bbr9") && e.contains("cubic"), "{e}");
        assert_eq!(Variant::parse("sack").unwrap().pair(), (CcKind::Reno, RecoveryKind::Sack));
    }

    /// A packet's size on the wire fits the engine's 32-bit field: 2^32 header bytes used to
    /// be accepted and wrap to 0 there, while the run's budget counted 4 GiB packets (a run
    /// of 10^9 s let through as a few packets ran for hours; fuzz seed 50).
    #[test]
    fn header_and_ack_sizes_are_bounded_so_a_packet_fits_32_bits() {
        for (name, t) in [
            ("header_bytes", TcpConfig { header_bytes: 1 << 32, ..TcpConfig::default() }),
            ("ack_bytes", TcpConfig { ack_bytes: 1 << 32, ..TcpConfig::default() }),
        ] {
            let e = t.validate().unwrap_err().to_string();
            assert!(e.contains(name) && e.contains("4294967296"), "{e}");
        }
        let t = TcpConfig { mss: u32::MAX as u64 / 2, header_bytes: u32::MAX as u64 / 4, ack_bytes: u32::MAX as u64 / 4, timestamps: true, ..TcpConfig::default() };
        assert!(t.validate().is_ok());
        assert!(t.mss + t.wire_header_bytes() <= u32::MAX as u64 && t.wire_ack_bytes() <= u32::MAX as u64);
    }

    #[test]
    fn sack_and_wire_sizes_follow_the_settings() {
        let mut t = TcpConfig::variant(Variant::Cubic);
        assert!(t.sack());
        assert_eq!((t.wire_header_bytes(), t.wire_ack_bytes()), (40, 40));
        t.timestamps = true;
        assert_eq!((t.wire_header_bytes(), t.wire_ack_bytes()), (52, 52));
        assert!(!TcpConfig::variant(Variant::NewReno).sack());
        t.tibet_alpha = 1.0;
        assert!(t.validate().unwrap_err().to_string().contains("tibet_alpha"));
    }
}
