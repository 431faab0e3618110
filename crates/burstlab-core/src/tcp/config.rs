//! TCP settings of one flow ([`TcpConfig`]): congestion control and loss recovery chosen
//! separately, the timers, the receiver, and the parameters of each algorithm. Defaults are
//! the RFC behaviour (the `rfc` profile of `docs/tcp.md`); `python/burstlab/sim.py` holds the
//! `ns3` and `linux` profiles as sets of these fields.
use super::rtt::BackoffReset;
use super::SsthreshRule;
use crate::time::{Nanos, NS_PER_MS, NS_PER_S};
use crate::{Error, Result};

/// A closed set of names, parsed case-insensitively, with aliases.
macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident, $what:literal { $($(#[$vm:meta])* $v:ident = $s:literal $(| $alias:literal)*),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($(#[$vm])* $v),+ }

        impl $name {
            pub const NAMES: &'static [&'static str] = &[$($s),+];

            pub fn parse(s: &str) -> Result<Self> {
                match s.to_ascii_lowercase().replace('_', "-").as_str() {
                    $($s $(| $alias)* => Ok($name::$v),)+
                    _ => Err(Error::param($what, s, &format!("one of {}", Self::NAMES.join(", ")))),
                }
            }

            pub fn name(&self) -> &'static str {
                match self { $($name::$v => $s),+ }
            }
        }
    };
}

named_enum!(
    /// Congestion control (`tcp/cc/`).
    CcKind, "cc" {
        /// RFC 5681 slow start and congestion avoidance (ns-3's TcpNewReno).
        Reno = "reno" | "newreno" | "new-reno",
        /// Linux's `tcp_reno_cong_avoid` / `tcp_reno_ssthresh` (ns-3's TcpLinuxReno).
        LinuxReno = "linux-reno" | "linuxreno",
        /// Westwood+ (Mascolo et al. 2004).
        Westwood = "westwood" | "westwood+" | "westwoodplus" | "westwood-plus",
        /// TIBET (Martignon & Capone §II).
        Tibet = "tibet",
        /// Ideal-estimate TCP (Martignon & Capone §V): TIBET's rule fed with the exact fair share.
        Ideal = "ideal",
        /// Vegas (Brakmo & Peterson 1995).
        Vegas = "vegas",
        /// CUBIC (RFC 9438).
        Cubic = "cubic",
    }
);

named_enum!(
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

named_enum!(
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
        /// LT-TCP: Reno growth, LT-TCP's loss handling (`recovery/lt.rs`).
        LtTcp = "lt-tcp" | "lttcp" | "lt",
    }
);

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
        }
    }
}

named_enum!(
    /// Which RTT congestion control sees with each ACK.
    CcRtt, "cc_rtt" {
        /// The ACK's own RTT sample (the papers, Linux); none when the ACK gives none.
        Sample = "sample",
        /// SRTT on every ACK, as ns-3 3.44 passes `m_srtt` to `PktsAcked`.
        Srtt = "srtt",
    }
);

named_enum!(
    /// PRR's reduction bound when pipe ≤ ssthresh (RFC 6937 §3.1).
    PrrBound, "prr_bound" {
        /// Slow-start reduction bound (RFC 6937's recommended default).
        Ssrb = "ssrb",
        /// Conservative reduction bound.
        Crb = "crb",
    }
);

named_enum!(
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

named_enum!(
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

named_enum!(
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

named_enum!(
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

named_enum!(
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

named_enum!(
    /// Which packets TIBET's estimator times (Martignon & Capone §II).
    TibetEstimator, "tibet_estimator" {
        /// Lengths and inter-departure times of transmitted packets (the paper's pseudo-code).
        Sent = "sent",
        /// Lengths of acknowledged data and inter-arrival times of ACKs.
        Ack = "ack",
    }
);

named_enum!(
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

named_enum!(
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

/// TCP settings of one flow. Windows in segments, times in ns.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    pub cc: CcKind,
    pub recovery: RecoveryKind,
    /// Payload bytes per segment.
    pub mss: u64,
    /// Header bytes added to every data segment on the link (TCP 20 + IP 20), without the
    /// timestamps option (see [`TcpConfig::wire_header_bytes`]).
    pub header_bytes: u64,
    /// Size of an ACK on the link, bytes (without the timestamps option).
    pub ack_bytes: u64,
    /// Initial window, segments.
    pub init_cwnd: u64,
    /// Maximum congestion window, segments (None = unbounded).
    pub max_cwnd: Option<u64>,
    /// Receiver window (or send buffer): segments outstanding at most (None = unbounded).
    pub rwnd: Option<u64>,
    pub delayed_ack: bool,
    pub ack_every: u32,
    pub ack_timeout: Nanos,
    pub rto_min: Nanos,
    pub rto_max: Nanos,
    pub rto_initial: Nanos,
    /// RFC 6298 clock granularity G (Linux's 200 ms floor on the variance term is G = 200 ms).
    pub clock_granularity: Nanos,
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    /// What a duplicate ACK is with SACK, and what limited transmit counts ([`DupackRule`]).
    pub dupack_rule: DupackRule,
    /// What a SACK sender counts in flight ([`PipeRule`]).
    pub pipe_rule: PipeRule,
    /// RACK's rule for retransmissions (RFC 8985 §6.2, as Linux applies it): in SACK fast
    /// recovery, a retransmission is lost again once a segment sent after it is delivered,
    /// and is sent again at once; RFC 6675 alone waits for the retransmission timer.
    pub rack_lost_retransmissions: bool,
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
    pub rack_tlp: bool,
    /// What a loss response halves (RFC 5681 FlightSize by default).
    pub ssthresh_rule: SsthreshRule,
    /// Whether the ACK ending the post-timeout Loss state grows cwnd (RFC 5681: yes).
    pub grow_on_loss_exit: bool,
    /// Whether the ACK that ends fast recovery, after setting cwnd = ssthresh, also grows it
    /// as any ACK in the Open state would (ns-3 and Linux do; RFC 5681 §3.2 step 6 only deflates).
    pub grow_on_recovery_exit: bool,
    /// When a backed-off RTO collapses back (RFC 6298: on a new RTT sample).
    pub rto_backoff_reset: BackoffReset,
    /// RFC 7323 timestamps: an RTT sample from every ACK of new data (retransmissions
    /// included), 12 more bytes on every segment and ACK.
    pub timestamps: bool,
    /// The connection opened with a three-way handshake whose SYN / SYN-ACK exchange gave the
    /// first RTT sample (ns-3 and Linux take it, RFC 6298 §2 allows it): the estimator, the
    /// minimum RTT and the first RTO start from the path's round trip for a small packet.
    /// The handshake's time is not simulated: data still starts at t = 0.
    pub handshake: bool,
    /// RFC 3465 appropriate byte counting (L unlimited): an ACK counts for every segment it
    /// acknowledges in slow start and in the congestion-avoidance counters.
    pub abc: bool,
    pub cc_rtt: CcRtt,
    pub prr_bound: PrrBound,
    pub prr_variant: PrrVariant,
    pub westwood_variant: WestwoodVariant,
    pub linux_reno_variant: LinuxRenoVariant,
    /// Pole of TIBET's two low-pass filters (Martignon & Capone: 0.99).
    pub tibet_alpha: f64,
    pub tibet_estimator: TibetEstimator,
    /// Vegas thresholds, segments (Brakmo & Peterson: α = 1, β = 3, γ = 1).
    pub vegas_alpha: u32,
    pub vegas_beta: u32,
    pub vegas_gamma: u32,
    /// CUBIC multiplicative decrease β and scaling constant C (RFC 9438 §5: 0.7, 0.4).
    pub cubic_beta: f64,
    pub cubic_c: f64,
    /// RFC 9438 §4.7 fast convergence.
    pub cubic_fast_convergence: bool,
    /// RFC 9438 §4.3 Reno-friendly region.
    pub cubic_reno_friendly: bool,
    /// RFC 9438's arithmetic or Linux's ([`CubicVariant`]).
    pub cubic_variant: CubicVariant,
    pub hystart: Hystart,
    // --- the `tossim` profile of the PRR/μ study (Srinivasan et al. §3.1; docs/study.md) ---
    /// RTO estimator: RFC 6298 (default) or RFC 793 §3.7 (β·SRTT within the bounds).
    pub rto_estimator: super::rtt::RtoEstimator,
    /// Exponential backoff on a timeout (RFC 6298 §5.5; RFC 793 has none).
    pub rto_backoff: bool,
    /// The receiver re-acknowledges after every `ack_timeout` without an arriving segment
    /// (Srinivasan et al. §3.1's receiver ACK timeout; `tcp::receiver`).
    pub ack_on_idle: bool,
    /// Duplicate ACKs after a timeout may start fast retransmit (RFC 2581 §3.2, RFC 2582's
    /// base algorithm) instead of RFC 6582's careful check.
    pub fast_retransmit_after_timeout: bool,
    /// Restart the retransmission timer on every partial ACK (RFC 2582 §4 "Slow-but-Steady")
    /// instead of the first only ("Impatient", RFC 6582 §3.2 step 5).
    pub restart_timer_every_partial_ack: bool,
    /// RFC 3168 ECN: data segments are ECN-capable (ECT, retransmissions excepted, §6.1.5),
    /// the receiver echoes CE as ECE until CWR, the sender reduces once per window. LT-TCP
    /// turns it on whatever this says ([`TcpConfig::ecn_on`]).
    pub ecn: bool,
    // --- LT-TCP (`recovery = lt`; `recovery/lt.rs`, docs/tcp.md "LT-TCP") ---
    /// Proactive FEC: ⌈N·E⌉ parity packets in each block of N.
    pub lt_pfec: bool,
    /// Reactive FEC after SACK shows losses beyond a block's parity.
    pub lt_rfec: bool,
    /// Adaptive segment size: the window holds at least `lt_granularity` packets, segments no
    /// smaller than `lt_mss_min` bytes (`mss` is the largest).
    pub lt_adaptive_mss: bool,
    pub lt_granularity: u32,
    pub lt_mss_min: u64,
    /// Weight of each block's erasure sample in the receiver's EWMA estimate.
    pub lt_erasure_gain: f64,
    /// The estimate before any sample.
    pub lt_initial_erasure: f64,
    /// Ceiling of the estimate used to size FEC (keeps 1/(1 − E) finite).
    pub lt_max_erasure: f64,
    /// Largest block, packets (255: a Reed-Solomon code over GF(2^8)).
    pub lt_max_block: u32,
}

/// The timestamps option on the wire: 10 bytes padded to 12 (RFC 7323 §3).
pub const TIMESTAMP_OPTION_BYTES: u64 = 12;

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: CcKind::Reno,
            recovery: RecoveryKind::NewReno,
            mss: 1000,
            header_bytes: 40,
            ack_bytes: 40,
            init_cwnd: 2,
            max_cwnd: None,
            rwnd: None,
            delayed_ack: true,
            ack_every: 2,
            ack_timeout: 200 * NS_PER_MS,
            rto_min: NS_PER_S,
            rto_max: 60 * NS_PER_S,
            rto_initial: NS_PER_S,
            clock_granularity: 0,
            dupack_threshold: 3,
            limited_transmit: false,
            dupack_rule: DupackRule::Rfc5681,
            pipe_rule: PipeRule::Rfc6675,
            rack_lost_retransmissions: false,
            rack_tlp: false,
            ssthresh_rule: SsthreshRule::FlightSize,
            grow_on_loss_exit: true,
            grow_on_recovery_exit: false,
            rto_backoff_reset: BackoffReset::Sample,
            timestamps: false,
            handshake: false,
            abc: false,
            cc_rtt: CcRtt::Sample,
            prr_bound: PrrBound::Ssrb,
            prr_variant: PrrVariant::Rfc,
            westwood_variant: WestwoodVariant::Mascolo,
            linux_reno_variant: LinuxRenoVariant::Linux,
            tibet_alpha: 0.99,
            tibet_estimator: TibetEstimator::Sent,
            vegas_alpha: 1,
            vegas_beta: 3,
            vegas_gamma: 1,
            cubic_beta: 0.7,
            cubic_c: 0.4,
            cubic_fast_convergence: true,
            cubic_reno_friendly: true,
            cubic_variant: CubicVariant::Rfc,
            hystart: Hystart::Linux,
            rto_estimator: super::rtt::RtoEstimator::Rfc6298,
            rto_backoff: true,
            ack_on_idle: false,
            fast_retransmit_after_timeout: false,
            restart_timer_every_partial_ack: false,
            ecn: false,
            lt_pfec: true,
            lt_rfec: true,
            lt_adaptive_mss: true,
            lt_granularity: 10,
            lt_mss_min: 250,
            lt_erasure_gain: 0.25,
            lt_initial_erasure: 0.0,
            lt_max_erasure: 0.75,
            lt_max_block: 255,
        }
    }
}

/// The shortest timer a TCP flow may set: 1 µs ([`TcpConfig::check_times`]).
pub const MIN_TIMER: Nanos = 1_000;

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
    /// `ssthresh_rule` made concrete (`cc::resolve_ssthresh_rule`); with LT-TCP the FlightSize
    /// rules become the RFC 6675 pipe, since LT-TCP's FlightSize also spans the holes its FEC
    /// is repairing, which its window does not count.
    pub fn resolved_ssthresh_rule(&self) -> SsthreshRule {
        let r = super::cc::resolve_ssthresh_rule(self.ssthresh_rule, self.cc, self.sack(), self.limited_transmit);
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

    /// Header bytes of a data segment on the link, options included.
    pub fn wire_header_bytes(&self) -> u64 {
        self.header_bytes + if self.timestamps { TIMESTAMP_OPTION_BYTES } else { 0 }
    }

    /// Bytes of an ACK on the link, options included (SACK blocks are not counted).
    pub fn wire_ack_bytes(&self) -> u64 {
        self.ack_bytes + if self.timestamps { TIMESTAMP_OPTION_BYTES } else { 0 }
    }

    /// The bounds of the timers (docs/errors.md "Bounds"), in one place: every time is under
    /// 10^9 s where it is parsed; a retransmission timer (`rto_min`, `rto_initial`) and the
    /// delayed-ACK timer are at least [`MIN_TIMER`], since a timer of nanoseconds fires
    /// 10^9 times per simulated second and the run never ends.
    pub fn check_times(&self) -> Result<()> {
        let t = self;
        let floor = "at least 1 µs (a timer of nanoseconds fires 10^9 times per simulated second)";
        if t.delayed_ack && t.ack_timeout == 0 {
            return Err(Error::param("ack_timeout", 0, "a positive time when delayed_ack is on"));
        }
        if t.delayed_ack && t.ack_timeout < MIN_TIMER {
            return Err(Error::param("ack_timeout", t.ack_timeout as f64 / 1e9, floor));
        }
        if t.rto_min == 0 || t.rto_min > t.rto_max {
            return Err(Error::param("rto_min", t.rto_min as f64 / 1e9, "0 < rto_min ≤ rto_max"));
        }
        if t.rto_min < MIN_TIMER {
            return Err(Error::param("rto_min", t.rto_min as f64 / 1e9, floor));
        }
        if t.rto_initial == 0 {
            return Err(Error::param("rto_initial", 0, "a positive time"));
        }
        if t.rto_initial < MIN_TIMER {
            return Err(Error::param("rto_initial", t.rto_initial as f64 / 1e9, floor));
        }
        Ok(())
    }

    pub fn validate(&self) -> Result<()> {
        let t = self;
        if t.mss == 0 || t.mss > u32::MAX as u64 / 2 {
            return Err(Error::param("mss", t.mss, "a positive number of bytes"));
        }
        if t.init_cwnd == 0 {
            return Err(Error::param("init_cwnd", t.init_cwnd, "at least 1 segment"));
        }
        if t.max_cwnd == Some(0) {
            return Err(Error::param("max_cwnd", 0, "at least 1 segment or None"));
        }
        if t.rwnd == Some(0) {
            return Err(Error::param("rwnd", 0, "at least 1 segment or None"));
        }
        if t.ack_every == 0 {
            return Err(Error::param("ack_every", 0, "at least 1"));
        }
        t.check_times()?;
        if let super::rtt::RtoEstimator::Rfc793 { alpha, beta } = t.rto_estimator {
            if !(0.0..1.0).contains(&alpha) {
                return Err(Error::param("rto_alpha", alpha, "0 ≤ α < 1 (RFC 793: .8 to .9)"));
            }
            if !(beta.is_finite() && beta >= 1.0) {
                return Err(Error::param("rto_beta", beta, "a finite β ≥ 1 (RFC 793: 1.3 to 2.0)"));
            }
        }
        if t.dupack_threshold == 0 {
            return Err(Error::param("dupack_threshold", 0, "at least 1"));
        }
        if !(0.0..1.0).contains(&t.tibet_alpha) {
            return Err(Error::param("tibet_alpha", t.tibet_alpha, "a filter pole in [0, 1)"));
        }
        if t.vegas_alpha > t.vegas_beta {
            return Err(Error::param("vegas_alpha", t.vegas_alpha, &format!("at most vegas_beta = {}", t.vegas_beta)));
        }
        if !(t.cubic_beta > 0.0 && t.cubic_beta < 1.0) {
            return Err(Error::param("cubic_beta", t.cubic_beta, "a factor in (0, 1)"));
        }
        if !(t.cubic_c > 0.0 && t.cubic_c.is_finite()) {
            return Err(Error::param("cubic_c", t.cubic_c, "a positive number"));
        }
        if t.lt_granularity == 0 {
            return Err(Error::param("lt_granularity", 0, "at least 1 packet per window"));
        }
        // The floor of LT-TCP's adaptive segments: checked against mss only where it is used
        // (`mss = 1` without LT-TCP blamed --lt-mss-min).
        if t.lt_mss_min == 0 || (t.recovery == RecoveryKind::Lt && t.lt_adaptive_mss && t.lt_mss_min > t.mss) {
            return Err(Error::param("lt_mss_min", t.lt_mss_min, &format!("1 to mss = {} bytes", t.mss)));
        }
        if !(t.lt_erasure_gain > 0.0 && t.lt_erasure_gain <= 1.0) {
            return Err(Error::param("lt_erasure_gain", t.lt_erasure_gain, "an EWMA weight in (0, 1]"));
        }
        if !(0.0..1.0).contains(&t.lt_max_erasure) {
            return Err(Error::param("lt_max_erasure", t.lt_max_erasure, "a rate in [0, 1)"));
        }
        if !(0.0..=t.lt_max_erasure).contains(&t.lt_initial_erasure) {
            return Err(Error::param("lt_initial_erasure", t.lt_initial_erasure, &format!("a rate in [0, lt_max_erasure = {}]", t.lt_max_erasure)));
        }
        if !(2..=65535).contains(&t.lt_max_block) {
            return Err(Error::param("lt_max_block", t.lt_max_block, "2 to 65535 packets"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_aliases() {
        for &n in CcKind::NAMES {
            assert_eq!(CcKind::parse(n).unwrap().name(), n);
        }
        assert_eq!(CcKind::parse("NewReno").unwrap(), CcKind::Reno);
        assert_eq!(CcKind::parse("westwood+").unwrap(), CcKind::Westwood);
        assert_eq!(RecoveryKind::parse("new_reno").unwrap(), RecoveryKind::NewReno);
        let e = CcKind::parse("bbr").unwrap_err().to_string();
        assert!(e.contains("cc = bbr") && e.contains("cubic"), "{e}");
        assert_eq!(Variant::parse("sack").unwrap().pair(), (CcKind::Reno, RecoveryKind::Sack));
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
