//! NewReno, RFC 6582 §3.2: as Reno on entry and for duplicate ACKs; a partial ACK
//! (one that does not cover `recover`) retransmits the next unacknowledged segment,
//! deflates cwnd by the amount acknowledged and adds back one SMSS if at least one SMSS
//! was acknowledged, staying in recovery; the first partial ACK restarts the timer
//! ("Impatient" variant). A full ACK sets cwnd = ssthresh (option 2 of step 6).
use super::{deflate_and_exit, enter_fast_recovery, inflate_on_dupack, Action, LossRecovery};
use crate::tcp::Tcb;

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    partial_acks: u32,
}

impl LossRecovery for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn enter(&mut self, tcb: &mut Tcb, ssthresh: u64, cwnd: u64, _delivered: u64) -> Action {
        // Steps 2-3 (RFC 6582 §3.2): recover = highest sequence sent.
        self.partial_acks = 0;
        enter_fast_recovery(tcb, ssthresh, cwnd)
    }

    fn on_dupack(&mut self, tcb: &mut Tcb, _delivered: u64) -> Action {
        // Step 4.
        inflate_on_dupack(tcb)
    }

    fn on_ack(&mut self, tcb: &mut Tcb, acked: u64, _delivered: u64, _retx_acked: bool) -> Action {
        if tcb.snd_una >= tcb.recover {
            // Step 6, full acknowledgment: cwnd = ssthresh, exit.
            return deflate_and_exit(tcb);
        }
        // Step 5, partial acknowledgment.
        self.partial_acks += 1;
        tcb.cwnd = tcb.cwnd.saturating_sub(acked);
        if acked >= tcb.mss {
            tcb.cwnd += tcb.mss;
        }
        tcb.cwnd = tcb.cwnd.max(tcb.mss);
        Action { retransmit_una: true, restart_timer: self.partial_acks == 1, exit: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::recovery::test_tcb;

    #[test]
    fn partial_then_full_ack() {
        let mut t = test_tcb(10_000, 5, 15);
        let mut r = NewReno::default();
        { let h = t.half_flight(); r.enter(&mut t, h, h, 0) };
        assert_eq!((t.ssthresh, t.cwnd, t.recover), (5000, 8000, 15));
        for _ in 0..4 {
            r.on_dupack(&mut t, 0);
        }
        assert_eq!(t.cwnd, 12_000);
        t.snd_una = 9; // partial: 4 segments acked
        let a = r.on_ack(&mut t, 4000, 4000, false);
        assert_eq!(a, Action { retransmit_una: true, restart_timer: true, exit: false });
        assert_eq!(t.cwnd, 9000);
        t.snd_una = 10;
        let a = r.on_ack(&mut t, 1000, 1000, false);
        assert!(a.retransmit_una && !a.restart_timer && !a.exit);
        assert_eq!(t.cwnd, 9000);
        t.snd_una = 15;
        let a = r.on_ack(&mut t, 5000, 5000, false);
        assert!(a.exit);
        assert_eq!(t.cwnd, 5000);
    }
}
