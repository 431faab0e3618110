//! TCP: receiver, sender, RTT estimation, SACK scoreboard, congestion control and loss
//! recovery. Sequence numbers count segments (segment `i` carries payload bytes
//! `[i·mss, (i+1)·mss)`); windows are in bytes (cwnd, ssthresh), as in RFC 5681.
//!
//! The connection state shared by congestion control ([`cc::CongestionControl`], ns-3's
//! TcpCongestionOps) and loss recovery ([`recovery::LossRecovery`], ns-3's TcpRecoveryOps)
//! is one struct, [`Tcb`] (ns-3's TcpSocketState).
use crate::time::Nanos;

pub mod cc;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod scoreboard;
pub mod sender;

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

/// The connection state both traits see.
#[derive(Clone, Debug)]
pub struct Tcb {
    /// Sender maximum segment size (payload bytes).
    pub mss: u64,
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
    /// `high_tx` when the last recovery or timeout began (RFC 6582 `recover`).
    pub recover: u64,
    /// Consecutive duplicate ACKs.
    pub dupacks: u32,
    pub dupack_threshold: u32,
    pub state: CaState,
    /// Smoothed RTT and variation (RFC 6298), None before the first sample.
    pub srtt: Option<Nanos>,
    pub rttvar: Nanos,
    /// Current retransmission timeout, backoff included.
    pub rto: Nanos,
    pub min_rtt: Option<Nanos>,
    /// Loss response basis: FlightSize (RFC 5681 eq. 4) or FlightSize less the segments
    /// duplicate ACKs show have left the network (ns-3's BytesInFlight without SACK).
    pub ssthresh_rule: SsthreshRule,
    /// Whether the ACK that ends the Loss state (after a timeout) also grows cwnd
    /// (RFC 5681: every ACK of new data in slow start does; ns-3 does not).
    pub grow_on_loss_exit: bool,
}

/// What ssthresh halves on a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsthreshRule {
    /// RFC 5681 §3.1 eq. (4): FlightSize = highest sent − snd_una.
    FlightSize,
    /// FlightSize − dupacks·SMSS: a pipe estimate in the spirit of RFC 6675 §5, where the
    /// segments the duplicate ACKs stand for have left the network.
    Pipe,
    /// FlightSize − 1·SMSS: the segment deemed lost is not in flight. This is what ns-3
    /// (3.44) computes without SACK: its `BytesInFlight()` at the fast retransmit leaves
    /// out the head segment it has just marked lost (measured in `docs/ns3-reference.md`).
    FlightSizeMinusLost,
}

impl Tcb {
    /// RFC 5681 FlightSize: data sent and not yet acknowledged, bytes.
    #[inline]
    pub fn flight_size(&self) -> u64 {
        (self.high_tx - self.snd_una) * self.mss
    }

    /// The amount a loss response halves: FlightSize, or its pipe estimate.
    #[inline]
    pub fn loss_flight(&self) -> u64 {
        match self.ssthresh_rule {
            SsthreshRule::FlightSize => self.flight_size(),
            SsthreshRule::Pipe => self.flight_size().saturating_sub(self.dupacks as u64 * self.mss),
            SsthreshRule::FlightSizeMinusLost => self.flight_size().saturating_sub(self.mss),
        }
    }

    /// RFC 5681 §3.1 equation (4): max(FlightSize / 2, 2·SMSS) (or the pipe estimate).
    #[inline]
    pub fn half_flight(&self) -> u64 {
        (self.loss_flight() / 2).max(2 * self.mss)
    }
}

/// What congestion control sees on every ACK (new or duplicate).
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    /// Arrival time at the sender.
    pub now: Nanos,
    /// Payload bytes newly acknowledged cumulatively (0 for a duplicate ACK).
    pub acked_bytes: u64,
    /// Segments newly acknowledged cumulatively.
    pub acked_segs: u64,
    /// RTT sample this ACK gave (Karn's rule: none from retransmitted segments).
    pub rtt: Option<Nanos>,
    /// A duplicate ACK.
    pub dup: bool,
    /// Congestion state when the ACK arrived (before recovery processed it).
    pub state_before: CaState,
}
