//! Reno fast retransmit / fast recovery, RFC 5681 §3.2: on the DupThresh-th duplicate
//! ACK retransmit, ssthresh = max(FlightSize/2, 2·SMSS), cwnd = ssthresh + 3·SMSS;
//! inflate by SMSS per further duplicate ACK; the first ACK of new data deflates
//! cwnd to ssthresh and ends recovery (even a partial ACK).
use super::{deflate_and_exit, enter_fast_recovery, inflate_on_dupack, Action, LossRecovery};
use crate::tcp::Tcb;

#[derive(Clone, Debug, Default)]
pub struct Reno;

impl LossRecovery for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn enter(&mut self, tcb: &mut Tcb, ssthresh: u64, cwnd: u64, _delivered: u64) -> Action {
        // RFC 5681 §3.2 steps 2-3.
        enter_fast_recovery(tcb, ssthresh, cwnd)
    }

    fn on_dupack(&mut self, tcb: &mut Tcb, _delivered: u64) -> Action {
        // Step 4: each further duplicate ACK: cwnd += SMSS.
        inflate_on_dupack(tcb)
    }

    fn on_ack(&mut self, tcb: &mut Tcb, _acked: u64, _delivered: u64, _retx_acked: bool) -> Action {
        // Step 6: deflate the window, on any ACK of new data (a partial one too).
        deflate_and_exit(tcb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::recovery::test_tcb;

    #[test]
    fn inflate_then_deflate() {
        let mut t = test_tcb(10_000, 5, 15);
        let a = { let h = t.half_flight(); Reno.enter(&mut t, h, h, 0) };
        assert!(a.retransmit_una);
        assert_eq!((t.ssthresh, t.cwnd, t.recover), (5000, 8000, 15));
        Reno.on_dupack(&mut t, 0);
        assert_eq!(t.cwnd, 9000);
        t.snd_una = 7; // a partial ACK still ends Reno's recovery
        let a = Reno.on_ack(&mut t, 2000, 2000, false);
        assert!(a.exit);
        assert_eq!(t.cwnd, 5000);
    }
}
