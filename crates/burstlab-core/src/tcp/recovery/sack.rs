//! SACK-based loss recovery, RFC 6675 §5: on entry ssthresh = cwnd = congestion
//! control's threshold, RecoveryPoint = HighData; while in recovery the sender
//! transmits whenever cwnd − pipe ≥ 1 SMSS, choosing segments by NextSeg (§4) from the
//! scoreboard ([`crate::tcp::scoreboard`]); recovery ends when an ACK covers
//! RecoveryPoint. The scoreboard walk itself lives in the sender, which owns the board;
//! HighRxt is `Tcb::high_rxt`.
use super::{Action, LossRecovery};
use crate::tcp::{CaState, Tcb};

#[derive(Clone, Debug, Default)]
pub struct Sack;

/// RFC 6675 §5 steps 4.1 and 4.3, shared with PRR: RecoveryPoint = HighData, state
/// Recovery, retransmit the first segment presumed dropped (HighACK + 1) whatever the
/// pipe, HighRxt = that segment.
pub(crate) fn enter_sack_recovery(tcb: &mut Tcb, ssthresh: u64) -> Action {
    tcb.recover = tcb.high_tx;
    tcb.ssthresh = ssthresh;
    tcb.state = CaState::Recovery;
    tcb.high_rxt = tcb.snd_una + 1;
    Action { retransmit_una: true, ..Action::default() }
}

impl LossRecovery for Sack {
    fn name(&self) -> &'static str {
        "sack"
    }

    fn enter(&mut self, tcb: &mut Tcb, ssthresh: u64, cwnd: u64, _delivered: u64) -> Action {
        // §5 step 4.2: cwnd = ssthresh (or the lower window congestion control chose);
        // step 4.4 (send while cwnd − pipe ≥ SMSS) follows in the sender's loop.
        tcb.cwnd = cwnd;
        enter_sack_recovery(tcb, ssthresh)
    }

    fn on_ack(&mut self, tcb: &mut Tcb, _acked: u64, _delivered: u64, _retx_acked: bool) -> Action {
        // §5 step (A): an ACK covering RecoveryPoint ends recovery.
        if tcb.snd_una >= tcb.recover {
            return Action { exit: true, ..Action::default() };
        }
        tcb.high_rxt = tcb.high_rxt.max(tcb.snd_una);
        // RFC 6298 §5.3: restart the timer on an ACK of new data (as Linux does in recovery).
        Action { restart_timer: true, ..Action::default() }
    }

    fn uses_sack(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::recovery::test_tcb;

    #[test]
    fn enter_and_exit() {
        let mut t = test_tcb(10_000, 5, 15);
        let mut s = Sack;
        {
            let h = t.half_flight();
            s.enter(&mut t, h, h, 0)
        };
        assert_eq!((t.cwnd, t.ssthresh, t.recover, t.high_rxt), (5000, 5000, 15, 6));
        t.snd_una = 8;
        assert!(!s.on_ack(&mut t, 3000, 3000, false).exit);
        t.snd_una = 15;
        assert!(s.on_ack(&mut t, 7000, 7000, false).exit);
    }
}
