//! SACK-based loss recovery, RFC 6675 §5: on entry ssthresh = cwnd = congestion
//! control's threshold, RecoveryPoint = HighData; while in recovery the sender
//! transmits whenever cwnd − pipe ≥ 1 SMSS, choosing segments by NextSeg (§4) from the
//! scoreboard ([`crate::tcp::scoreboard`]); recovery ends when an ACK covers
//! RecoveryPoint. The scoreboard walk itself lives in the sender, which owns the board.
use super::{Action, LossRecovery};
use crate::tcp::{CaState, Tcb};

#[derive(Clone, Debug, Default)]
pub struct Sack {
    /// RFC 6675 HighRxt, exclusive: one past the highest segment retransmitted in this
    /// recovery episode.
    pub high_rxt: u64,
}

impl LossRecovery for Sack {
    fn name(&self) -> &'static str {
        "sack"
    }

    fn enter(&mut self, tcb: &mut Tcb, ssthresh: u64) -> Action {
        // §5 step 4.1-4.2: RecoveryPoint = HighData; cwnd = ssthresh.
        tcb.recover = tcb.high_tx;
        tcb.ssthresh = ssthresh;
        tcb.cwnd = ssthresh;
        tcb.state = CaState::Recovery;
        // §5 step 4.3: retransmit the first segment presumed dropped (HighACK + 1) whatever
        // the pipe, and set HighRxt to it; step 4.4 (send while cwnd − pipe ≥ SMSS)
        // follows in the sender's loop.
        self.high_rxt = tcb.snd_una + 1;
        Action { retransmit_una: true, ..Action::default() }
    }

    fn on_ack(&mut self, tcb: &mut Tcb, _acked: u64) -> Action {
        // §5 step (A): an ACK covering RecoveryPoint ends recovery.
        if tcb.snd_una >= tcb.recover {
            return Action { exit: true, ..Action::default() };
        }
        self.high_rxt = self.high_rxt.max(tcb.snd_una);
        Action::default()
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
        let mut s = Sack::default();
        { let h = t.half_flight(); s.enter(&mut t, h) };
        assert_eq!((t.cwnd, t.ssthresh, t.recover, s.high_rxt), (5000, 5000, 15, 6));
        t.snd_una = 8;
        assert!(!s.on_ack(&mut t, 3000).exit);
        t.snd_una = 15;
        assert!(s.on_ack(&mut t, 7000).exit);
    }
}
