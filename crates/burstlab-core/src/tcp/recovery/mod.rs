//! Loss recovery after duplicate ACKs (ns-3's TcpRecoveryOps): what happens to the
//! window and what is retransmitted between the loss signal and the ACK that ends the
//! episode. Window growth outside recovery is congestion control's job (`cc`).
use super::{CaState, Tcb};

pub mod newreno;
pub mod reno;
pub mod sack;
pub mod tahoe;

pub use newreno::NewReno;
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
    /// `ssthresh` is congestion control's new threshold. Sets cwnd, ssthresh, state and
    /// recover.
    fn enter(&mut self, tcb: &mut Tcb, ssthresh: u64) -> Action;

    /// A further duplicate ACK while in Recovery.
    fn on_dupack(&mut self, _tcb: &mut Tcb) -> Action {
        Action::default()
    }

    /// An ACK that advances snd_una while in Recovery (`tcb.snd_una` already moved).
    fn on_ack(&mut self, tcb: &mut Tcb, acked_bytes: u64) -> Action;

    /// Whether this recovery uses SACK information (the receiver then sends SACK blocks).
    fn uses_sack(&self) -> bool {
        false
    }
}

/// Fast-recovery entry shared by Reno and NewReno, RFC 5681 §3.2 steps 2-3 (RFC 6582
/// §3.2 steps 2-3 are the same, with `recover` = the highest sequence sent): ssthresh as
/// congestion control computed it, retransmit the lost segment, cwnd = ssthresh +
/// DupThresh·SMSS (the segments that have left the network), state Recovery.
pub(crate) fn enter_fast_recovery(tcb: &mut Tcb, ssthresh: u64) -> Action {
    tcb.ssthresh = ssthresh;
    tcb.cwnd = ssthresh + tcb.dupack_threshold as u64 * tcb.mss;
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
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Recovery::Tahoe($c) => $e,
            Recovery::Reno($c) => $e,
            Recovery::NewReno($c) => $e,
            Recovery::Sack($c) => $e,
        }
    };
}

impl LossRecovery for Recovery {
    fn name(&self) -> &'static str {
        dispatch!(self, c => c.name())
    }
    fn enter(&mut self, tcb: &mut Tcb, ssthresh: u64) -> Action {
        dispatch!(self, c => c.enter(tcb, ssthresh))
    }
    fn on_dupack(&mut self, tcb: &mut Tcb) -> Action {
        dispatch!(self, c => c.on_dupack(tcb))
    }
    fn on_ack(&mut self, tcb: &mut Tcb, acked_bytes: u64) -> Action {
        dispatch!(self, c => c.on_ack(tcb, acked_bytes))
    }
    fn uses_sack(&self) -> bool {
        dispatch!(self, c => c.uses_sack())
    }
}

#[cfg(test)]
pub(crate) fn test_tcb(cwnd: u64, una: u64, high: u64) -> Tcb {
    Tcb {
        mss: 1000, cwnd, ssthresh: u64::MAX, max_cwnd: u64::MAX, snd_una: una, snd_nxt: high, high_tx: high,
        recover: 0, dupacks: 3, dupack_threshold: 3, state: super::CaState::Disorder, srtt: None, rttvar: 0,
        rto: 0, min_rtt: None, ssthresh_rule: crate::tcp::SsthreshRule::FlightSize, grow_on_loss_exit: true,
    }
}
