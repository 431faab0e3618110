//! Tahoe: fast retransmit without fast recovery (Jacobson 1988; RFC 5681 §3.2 without
//! steps 3-6). On DupThresh duplicate ACKs: ssthresh as for any loss, cwnd = 1 segment
//! (the loss window) and slow start from snd_una, go-back-N, as after a timeout (as in
//! ns-2's Tahoe agent). The sender stays in Loss until `recover` is acknowledged, so
//! the duplicate ACKs of the old window trigger nothing.
use super::{Action, LossRecovery};
use crate::tcp::{CaState, Tcb};

#[derive(Clone, Debug, Default)]
pub struct Tahoe;

impl LossRecovery for Tahoe {
    fn name(&self) -> &'static str {
        "tahoe"
    }

    fn enter(&mut self, tcb: &mut Tcb, ssthresh: u64, _cwnd: u64, _delivered: u64) -> Action {
        tcb.ssthresh = ssthresh;
        tcb.cwnd = tcb.mss;
        tcb.recover = tcb.high_tx;
        tcb.state = CaState::Loss;
        tcb.snd_nxt = tcb.snd_una; // go-back-N: the send loop retransmits snd_una first
        Action::default()
    }

    fn on_ack(&mut self, _tcb: &mut Tcb, _acked: u64, _delivered: u64, _retx_acked: bool) -> Action {
        // Tahoe is never in Recovery.
        Action { exit: true, ..Action::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::recovery::test_tcb;

    #[test]
    fn enter_collapses_to_one_segment() {
        let mut t = test_tcb(10_000, 5, 15);
        let a = { let h = t.half_flight(); Tahoe.enter(&mut t, h, h, 0) };
        assert_eq!((t.cwnd, t.ssthresh, t.state, t.snd_nxt, t.recover), (1000, 5000, CaState::Loss, 5, 15));
        assert!(!a.retransmit_una);
    }
}
