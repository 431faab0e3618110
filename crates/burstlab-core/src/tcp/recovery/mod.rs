//! Loss recovery after duplicate ACKs (ns-3's TcpRecoveryOps): what happens to the
//! window and what is retransmitted between the loss signal and the ACK that ends the
//! episode. Window growth outside recovery is congestion control's job (`cc`).
use super::{CaState, Tcb};

pub mod lt;
pub mod lt_deficit;
pub mod lt_rx;
pub mod newreno;
pub mod prr;
pub mod reno;
pub mod sack;
pub mod tahoe;

pub use lt::Lt;
pub use newreno::NewReno;
pub use prr::Prr;
pub use reno::Reno;
pub use sack::Sack;
pub use tahoe::Tahoe;

/// What the sender must do after a recovery hook.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Action {
    /// Retransmit the segment at snd_una now.
    pub retransmit_una: bool,
    /// Restart the retransmission timer (RFC 6582 §3.2 step 5: first partial ACK).
    pub restart_timer: bool,
    /// Recovery is over (the sender returns to Open).
    pub exit: bool,
}

pub trait LossRecovery {
    fn name(&self) -> &'static str;

    /// DupThresh duplicate ACKs (or, with SACK, IsLost(snd_una)) in Open/Disorder:
    /// `ssthresh` is congestion control's new threshold and `cwnd` the window it wants the
    /// recovery to start from (RFC 5681 §3.2's "ssthresh" before inflation; see
    /// `CongestionControl::cwnd_after_fast_retransmit`). `delivered` is the ACK's RFC 6937
    /// DeliveredData (bytes newly acknowledged or SACKed). Sets cwnd, ssthresh, state and
    /// recover. With SACK `tcb.pipe` holds the RFC 6675 pipe, the head counted lost.
    fn enter(&mut self, tcb: &mut Tcb, ssthresh: u64, cwnd: u64, delivered: u64) -> Action;

    /// A further duplicate ACK while in Recovery.
    fn on_dupack(&mut self, _tcb: &mut Tcb, _delivered: u64) -> Action {
        Action::default()
    }

    /// An ACK that advances snd_una while in Recovery (`tcb.snd_una` already moved);
    /// `retx_acked`: it acknowledges a retransmitted segment.
    fn on_ack(&mut self, tcb: &mut Tcb, acked_bytes: u64, delivered: u64, retx_acked: bool) -> Action;

    /// A segment of `bytes` was sent while in Recovery (PRR counts `prr_out`).
    fn on_transmit(&mut self, _bytes: u64) {}

    /// Whether this recovery uses SACK information (the receiver then sends SACK blocks).
    fn uses_sack(&self) -> bool {
        false
    }
}

/// Fast-recovery entry shared by Reno and NewReno, RFC 5681 §3.2 steps 2-3 (RFC 6582
/// §3.2 steps 2-3 are the same, with `recover` = the highest sequence sent): ssthresh as
/// congestion control computed it, retransmit the lost segment, cwnd = ssthresh (or the
/// window congestion control chose) + DupThresh·SMSS (the segments that have left the
/// network), state Recovery.
pub(crate) fn enter_fast_recovery(tcb: &mut Tcb, ssthresh: u64, cwnd: u64) -> Action {
    tcb.ssthresh = ssthresh;
    tcb.cwnd = cwnd + tcb.dupack_threshold as u64 * tcb.mss;
    tcb.recover = tcb.high_tx;
    tcb.state = CaState::Recovery;
    Action { retransmit_una: true, ..Action::default() }
}

/// RFC 5681 §3.2 step 4 (RFC 6582 §3.2 step 4): each further duplicate ACK in fast
/// recovery inflates cwnd by one SMSS.
pub(crate) fn inflate_on_dupack(tcb: &mut Tcb) -> Action {
    tcb.cwnd += tcb.mss;
    Action::default()
}

/// RFC 5681 §3.2 step 6 (RFC 6582 §3.2 step 6, option 2, on a full acknowledgment):
/// deflate cwnd to ssthresh; recovery is over.
pub(crate) fn deflate_and_exit(tcb: &mut Tcb) -> Action {
    tcb.cwnd = tcb.ssthresh;
    Action { exit: true, ..Action::default() }
}

/// The recovery algorithms, as an enum so calls are direct.
#[derive(Clone, Debug)]
pub enum Recovery {
    Tahoe(Tahoe),
    Reno(Reno),
    NewReno(NewReno),
    Sack(Sack),
    Prr(Prr),
    /// LT-TCP's FEC and the sender state it needs (blocks, estimate).
    Lt(Box<Lt>),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Recovery::Tahoe($c) => $e,
            Recovery::Reno($c) => $e,
            Recovery::NewReno($c) => $e,
            Recovery::Sack($c) => $e,
            Recovery::Prr($c) => $e,
            Recovery::Lt($c) => $e,
        }
    };
}

impl Recovery {
    /// The loss recovery `t.recovery` names, with its parameters from `t`, for a transfer of
    /// `total_bytes` (None: bulk; LT-TCP forms its blocks from the data).
    pub fn from_config(t: &crate::tcp::config::TcpConfig, total_bytes: Option<u64>) -> Recovery {
        use crate::tcp::config::RecoveryKind as K;
        match t.recovery {
            K::Tahoe => Recovery::Tahoe(Tahoe),
            K::Reno => Recovery::Reno(Reno),
            K::NewReno => Recovery::NewReno(NewReno::default()),
            K::Sack => Recovery::Sack(Sack),
            K::Prr => Recovery::Prr(Prr::new(t.prr_bound, t.prr_variant)),
            K::Lt => Recovery::Lt(Box::new(Lt::new(t, total_bytes))),
        }
    }
}

impl LossRecovery for Recovery {
    fn name(&self) -> &'static str {
        dispatch!(self, c => c.name())
    }
    fn enter(&mut self, tcb: &mut Tcb, ssthresh: u64, cwnd: u64, delivered: u64) -> Action {
        dispatch!(self, c => c.enter(tcb, ssthresh, cwnd, delivered))
    }
    fn on_dupack(&mut self, tcb: &mut Tcb, delivered: u64) -> Action {
        dispatch!(self, c => c.on_dupack(tcb, delivered))
    }
    fn on_ack(&mut self, tcb: &mut Tcb, acked_bytes: u64, delivered: u64, retx_acked: bool) -> Action {
        dispatch!(self, c => c.on_ack(tcb, acked_bytes, delivered, retx_acked))
    }
    #[inline]
    fn on_transmit(&mut self, bytes: u64) {
        if let Recovery::Prr(p) = self {
            p.on_transmit(bytes)
        }
    }
    fn uses_sack(&self) -> bool {
        dispatch!(self, c => c.uses_sack())
    }
}

#[cfg(test)]
pub(crate) fn test_tcb(cwnd: u64, una: u64, high: u64) -> Tcb {
    let mut t = Tcb::for_test(1000, cwnd);
    (t.snd_una, t.snd_nxt, t.high_tx, t.dupacks, t.state) = (una, high, high, 3, CaState::Disorder);
    t
}
