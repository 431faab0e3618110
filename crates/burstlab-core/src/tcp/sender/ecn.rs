//! The sender's ECN response (RFC 3168 §6.1.2): one window reduction per window of data on
//! an ECN-Echo, and CWR on the first new segment after any reduction.
use super::*;

impl Sender {
    /// RFC 3168 §6.1.2, an ACK with ECN-Echo outside loss recovery: it does not grow cwnd;
    /// if it acknowledges the first segment sent after the last reduction (the receiver echoes
    /// CE until that segment's CWR reaches it), it is treated as a loss: ssthresh and cwnd
    /// reduced as congestion control and the recovery's entry would, without retransmission
    /// or inflation, once per window of data. At a window of one segment the timer is
    /// restarted and nothing new is sent until it fires. (`state_before`: the state when the
    /// ACK arrived; an ECN-Echo in or into loss recovery is the recovery's.)
    #[cold]
    #[inline(never)]
    pub(super) fn on_ece(&mut self, state_before: CaState, cwnd_at_ack: u64, now: Nanos) {
        let open = |s: CaState| matches!(s, CaState::Open | CaState::Disorder);
        if !(self.cfg.ecn && open(state_before) && open(self.tcb.state)) {
            return;
        }
        self.tcb.cwnd = cwnd_at_ack; // no growth from an ECN-Echo ACK
        if self.tcb.snd_una <= self.cwr_until {
            return;
        }
        if self.tcb.ssthresh_rule == SsthreshRule::Pipe {
            self.update_pipe(false);
        }
        let ss = self.cc.ssthresh_on_loss(&self.tcb);
        let base = self.cc.cwnd_after_fast_retransmit(&self.tcb, ss);
        self.tcb.ssthresh = ss;
        if cwnd_at_ack <= self.tcb.mss {
            self.ecn_hold = true;
            self.rto_due_at = now + self.tcb.rto;
        } else {
            self.tcb.cwnd = base.min(cwnd_at_ack).max(self.tcb.mss);
        }
        self.counters.ecn_reductions += 1;
        self.window_reduced();
    }

    /// A window reduction (ECN response, fast retransmit, timeout): the next new data segment
    /// carries CWR (RFC 3168 §6.1.2, as Linux queues it on every reduction) and this window
    /// is not reduced again.
    #[inline]
    pub(super) fn window_reduced(&mut self) {
        if self.cfg.ecn {
            self.cwr_until = self.tcb.high_tx;
            self.send_cwr = true;
        }
    }
}
