//! TCP: receiver, sender, RTT estimation, SACK scoreboard, congestion control and loss
//! recovery. Sequence numbers count segments (segment `i` carries payload bytes
//! `[i·mss, (i+1)·mss)`); windows are in bytes (cwnd, ssthresh), as in RFC 5681.
//!
//! The connection state shared by congestion control ([`cc::CongestionControl`], ns-3's
//! TcpCongestionOps) and loss recovery ([`recovery::LossRecovery`], ns-3's TcpRecoveryOps)
//! is one struct, [`Tcb`] (ns-3's TcpSocketState).
use crate::time::Nanos;

pub mod cc;
pub mod config;
pub mod profiles;
pub mod rate_sample;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod wire;

/// Header bits a packet carries beside its number (the engine packs them in its packet):
/// the IP ECN field (RFC 3168 §5), the TCP ECN flags (§6.1) and LT-TCP's FEC marks.
pub mod pkt_flags {
    /// IP: ECN-capable transport, ECT(0) (set on a TCP flow's data when `ecn` is on).
    pub const ECT: u8 = 1;
    /// IP: congestion experienced (set by a RED queue on an ECT packet instead of a drop).
    pub const CE: u8 = 2;
    /// TCP: congestion window reduced, on the first new data after an ECE response.
    pub const CWR: u8 = 4;
    /// TCP: ECN-Echo, on the receiver's ACKs from a CE arrival until a CWR one.
    pub const ECE: u8 = 8;
    /// LT-TCP: a proactive FEC packet (a parity slot of its block).
    pub const PFEC: u8 = 16;
    /// LT-TCP: a reactive FEC packet for the block that starts at the packet's number.
    pub const RFEC: u8 = 32;
}

/// Congestion state (the names of ns-3's TcpSocketState / Linux's ca_state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// Normal operation (slow start or congestion avoidance).
    Open,
    /// Duplicate ACKs seen, fewer than the threshold.
    Disorder,
    /// Fast recovery (RFC 5681 §3.2, RFC 6582, RFC 6675).
    Recovery,
    /// After a retransmission timeout (or Tahoe's fast retransmit) until `recover` is acked.
    Loss,
}

impl CaState {
    /// Linux's and ns-3's number for the state (`TCP_CA_Open` 0, `TCP_CA_Disorder` 1,
    /// `TCP_CA_Recovery` 3, `TCP_CA_Loss` 4).
    pub fn code(self) -> u8 {
        match self {
            CaState::Open => 0,
            CaState::Disorder => 1,
            CaState::Recovery => 3,
            CaState::Loss => 4,
        }
    }
}

/// The connection state both traits see.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Tcb {
    // Hot: read or written on every ACK of the plain path (`Tcb::HOT`).
    /// Smoothed RTT and variation (RFC 6298), None before the first sample.
    pub srtt: Option<Nanos>,
    pub min_rtt: Option<Nanos>,
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes (u64::MAX = infinite, RFC 5681 §3.1).
    pub ssthresh: u64,
    /// Upper bound on cwnd, bytes (u64::MAX = unbounded; Srinivasan et al. §3.1 uses 130 packets).
    pub max_cwnd: u64,
    /// Oldest unacknowledged segment.
    pub snd_una: u64,
    /// Next segment to send (may be below `high_tx` after a go-back-N timeout).
    pub snd_nxt: u64,
    /// One past the highest segment ever sent.
    pub high_tx: u64,
    /// Sender maximum segment size (payload bytes).
    pub mss: u64,
    pub rttvar: Nanos,
    /// Current retransmission timeout, backoff included.
    pub rto: Nanos,
    /// Consecutive duplicate ACKs.
    pub dupacks: u32,
    pub state: CaState,
    /// Whether the last transmission opportunity was limited by cwnd (not by the receiver
    /// window or the data): Linux's `tcp_is_cwnd_limited`, ns-3's `m_isCwndLimited`.
    pub cwnd_limited: bool,
    // Cold: recovery, timeouts, loss responses, the Ideal-estimate TCP.
    /// `high_tx` when the last recovery or timeout began (RFC 6582 `recover`).
    pub recover: u64,
    /// RFC 6675 pipe, bytes: what the sender counts in flight when it detects a loss and,
    /// with SACK, on every ACK in recovery (FlightSize less SACKed and lost segments, plus
    /// retransmissions). The sender updates it where it is used.
    pub pipe: u64,
    /// RFC 6675 HighRxt, exclusive: one past the highest segment retransmitted in the
    /// current SACK recovery episode.
    pub high_rxt: u64,
    /// The flow's exact fair share of its path, bits/s on the wire, that the Ideal-estimate
    /// TCP uses (Martignon & Capone §V). The engine sets it: the forward link's rate on one
    /// link; capacity less constant-rate cross traffic, divided by the active flows, on a
    /// network path.
    pub fair_share_bps: u64,
    pub dupack_threshold: u32,
    /// Loss response basis: FlightSize (RFC 5681 eq. 4) or FlightSize less the segments
    /// duplicate ACKs show have left the network (ns-3's BytesInFlight without SACK).
    pub ssthresh_rule: SsthreshRule,
    /// Whether the ACK that ends the Loss state (after a timeout) also grows cwnd
    /// (RFC 5681: every ACK of new data in slow start does; ns-3 does not).
    pub grow_on_loss_exit: bool,
    /// Whether the ACK that ends fast recovery, after the recovery set cwnd, also grows it as
    /// any ACK in the Open state (ns-3 and Linux; RFC 5681 §3.2 step 6 only deflates).
    pub grow_on_recovery_exit: bool,
}

crate::named_enum!(
    /// What a loss response reduces (Reno halves it, CUBIC multiplies it by β).
    SsthreshRule, "ssthresh_rule" {
        /// RFC 5681 §3.1 eq. (4): FlightSize = highest sent − snd_una.
        FlightSize = "flightsize",
        /// The RFC 6675 §4 pipe when the loss is detected, the head counted lost: with SACK
        /// from the scoreboard; without, FlightSize − dupacks·SMSS (the duplicate ACKs stand
        /// for segments that have left the network). ns-3 3.44's `BytesInFlight()` with SACK or
        /// with limited transmit on.
        Pipe = "pipe",
        /// FlightSize − 1·SMSS: the segment deemed lost is not in flight. This is what ns-3
        /// (3.44) computes without SACK *and without limited transmit*: its `BytesInFlight()`
        /// at the fast retransmit counts one duplicate ACK as a SACK, leaves out the head it has
        /// just marked lost and adds one segment back (`docs/ns3-reference.md`).
        FlightSizeMinusLost = "flightsize_minus_lost",
        /// cwnd: Linux's `tcp_reno_ssthresh` and CUBIC (`cwnd·β`).
        Cwnd = "cwnd",
        /// Whatever ns-3 3.44's congestion operation computes; resolved per congestion control
        /// when the sender is built (`cc::resolve_ssthresh_rule`): `Pipe` for NewReno-style
        /// growth with SACK or limited transmit on, `FlightSizeMinusLost` with both off, `Cwnd`
        /// for CUBIC and Linux Reno, ns-3's own rule for Vegas.
        Ns3 = "ns3",
    }
);

impl Tcb {
    /// The bytes an ACK of the plain path reads or writes: the head, up to `recover`
    /// (issue 28: the flow's cache footprint; `sender::Sender::HOT`).
    pub const HOT: std::ops::Range<usize> = 0..std::mem::offset_of!(Tcb, recover);

    /// RFC 5681 FlightSize: data sent and not yet acknowledged, bytes.
    #[inline]
    pub fn flight_size(&self) -> u64 {
        (self.high_tx - self.snd_una) * self.mss
    }

    /// The amount a loss response reduces (bytes): FlightSize, the pipe, or cwnd.
    #[inline]
    pub fn loss_flight(&self) -> u64 {
        match self.ssthresh_rule {
            SsthreshRule::FlightSize => self.flight_size(),
            SsthreshRule::Pipe | SsthreshRule::Ns3 => self.pipe,
            SsthreshRule::FlightSizeMinusLost => self.flight_size().saturating_sub(self.mss),
            SsthreshRule::Cwnd => self.cwnd,
        }
    }

    /// RFC 5681 §3.1 equation (4): max(FlightSize / 2, 2·SMSS) (or the rule's basis).
    #[inline]
    pub fn half_flight(&self) -> u64 {
        (self.loss_flight() / 2).max(2 * self.mss)
    }

    /// cwnd in whole segments (at least 1).
    #[inline]
    pub fn cwnd_segs(&self) -> u64 {
        (self.cwnd / self.mss).max(1)
    }

    #[cfg(test)]
    pub(crate) fn for_test(mss: u64, cwnd: u64) -> Tcb {
        Tcb {
            mss, cwnd, ssthresh: u64::MAX, max_cwnd: u64::MAX, snd_una: 0, snd_nxt: 0, high_tx: 0, recover: 0,
            dupacks: 0, dupack_threshold: 3, state: CaState::Open, srtt: None, rttvar: 0, rto: 0, min_rtt: None,
            ssthresh_rule: SsthreshRule::FlightSize, grow_on_loss_exit: true, grow_on_recovery_exit: false, pipe: 0, high_rxt: 0,
            cwnd_limited: true, fair_share_bps: 0,
        }
    }
}

/// What congestion control sees on every ACK (new or duplicate).
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    /// Arrival time at the sender.
    pub now: Nanos,
    /// Payload bytes this ACK delivers: newly acknowledged cumulatively and not SACKed
    /// before (0 for a duplicate ACK; RFC 6937's DeliveredData less this ACK's SACKs).
    pub acked_bytes: u64,
    /// Segments this ACK delivers, as `acked_bytes`.
    pub acked_segs: u64,
    /// Payload bytes newly acknowledged cumulatively, SACKed before or not (the bandwidth
    /// estimators' accounting of duplicate ACKs needs these). For a duplicate ACK that
    /// advances snd_una (`dupack_rule = "ns3"`): the bytes it delivers, cumulatively or by
    /// SACK, less a segment per duplicate ACK before it (ns-3's `PktsAcked` in Disorder).
    pub cum_bytes: u64,
    /// The RTT congestion control sees with this ACK (`TcpConfig::cc_rtt`): the ACK's own
    /// sample (Karn's rule, or RFC 7323 timestamps), or SRTT.
    pub rtt: Option<Nanos>,
    /// A duplicate ACK.
    pub dup: bool,
    /// Congestion state when the ACK arrived (before recovery processed it).
    pub state_before: CaState,
}
