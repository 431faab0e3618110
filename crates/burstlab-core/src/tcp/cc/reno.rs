//! Standard TCP window growth (RFC 5681 §3.1): slow start while cwnd < ssthresh,
//! congestion avoidance above; shared by Tahoe, Reno, NewReno and SACK, which differ
//! only in loss recovery.
use super::CongestionControl;
use crate::tcp::{AckInfo, CaState, Tcb};

#[derive(Clone, Debug, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_ack(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        // No growth on duplicate ACKs nor on ACKs that arrive during fast recovery
        // (recovery sets the window itself, RFC 5681 §3.2 / RFC 6582 / RFC 6675).
        if ack.acked_bytes == 0 || ack.state_before == CaState::Recovery {
            return;
        }
        if ack.state_before == CaState::Loss && tcb.state != CaState::Loss && !tcb.grow_on_loss_exit {
            return; // the ACK ending the Loss state leaves cwnd alone (ns-3's behaviour)
        }
        if tcb.cwnd < tcb.ssthresh {
            // RFC 5681 §3.1 equation (2): cwnd += min(N, SMSS) per ACK.
            tcb.cwnd += ack.acked_bytes.min(tcb.mss);
        } else {
            // RFC 5681 §3.1 equation (3): cwnd += SMSS·SMSS / cwnd per ACK, at least 1 byte.
            tcb.cwnd += (tcb.mss * tcb.mss / tcb.cwnd).max(1);
        }
        tcb.cwnd = tcb.cwnd.min(tcb.max_cwnd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcb(cwnd: u64, ssthresh: u64) -> Tcb {
        Tcb {
            mss: 1000, cwnd, ssthresh, max_cwnd: 5000, snd_una: 0, snd_nxt: 0, high_tx: 0, recover: 0,
            dupacks: 0, dupack_threshold: 3, state: CaState::Open, srtt: None, rttvar: 0, rto: 0, min_rtt: None, ssthresh_rule: crate::tcp::SsthreshRule::FlightSize, grow_on_loss_exit: true,
        }
    }

    fn ack(bytes: u64, state: CaState) -> AckInfo {
        AckInfo { now: 0, acked_bytes: bytes, acked_segs: bytes / 1000, rtt: None, dup: bytes == 0, state_before: state }
    }

    #[test]
    fn slow_start_then_avoidance_then_cap() {
        let mut t = tcb(2000, 3000);
        let mut r = Reno;
        r.on_ack(&mut t, &ack(2000, CaState::Open)); // +min(2000, 1000)
        assert_eq!(t.cwnd, 3000);
        r.on_ack(&mut t, &ack(2000, CaState::Open)); // CA: +1000·1000/3000 = 333
        assert_eq!(t.cwnd, 3333);
        r.on_ack(&mut t, &ack(0, CaState::Disorder)); // dupack: nothing
        r.on_ack(&mut t, &ack(1000, CaState::Recovery)); // during recovery: nothing
        assert_eq!(t.cwnd, 3333);
        for _ in 0..100 {
            r.on_ack(&mut t, &ack(1000, CaState::Open));
        }
        assert_eq!(t.cwnd, 5000);
    }

    #[test]
    fn loss_exit_growth_is_a_choice() {
        let mut r = Reno;
        // The ACK that ends the Loss state (state already Open when cc sees it).
        let mut t = tcb(1000, 4000);
        r.on_ack(&mut t, &ack(1000, CaState::Loss));
        assert_eq!(t.cwnd, 2000); // RFC 5681: slow start on every ACK of new data
        let mut t = tcb(1000, 4000);
        t.grow_on_loss_exit = false;
        r.on_ack(&mut t, &ack(1000, CaState::Loss));
        assert_eq!(t.cwnd, 1000); // ns-3's behaviour
        t.state = CaState::Loss; // still in Loss: grows either way
        r.on_ack(&mut t, &ack(1000, CaState::Loss));
        assert_eq!(t.cwnd, 2000);
    }

    #[test]
    fn ssthresh_rules() {
        let mut t = tcb(10_000, u64::MAX);
        t.snd_una = 10;
        t.high_tx = 22; // FlightSize 12 segments
        t.dupacks = 3;
        assert_eq!(r_ss(&t), 6000);
        t.ssthresh_rule = crate::tcp::SsthreshRule::Pipe;
        assert_eq!(r_ss(&t), 4500); // (12 − 3) / 2
        t.ssthresh_rule = crate::tcp::SsthreshRule::FlightSizeMinusLost;
        assert_eq!(r_ss(&t), 5500); // (12 − 1) / 2
        t.high_tx = 14;
        assert_eq!(r_ss(&t), 2000); // floor of 2·SMSS
    }

    fn r_ss(t: &Tcb) -> u64 {
        use crate::tcp::cc::CongestionControl;
        Reno.ssthresh_on_loss(t)
    }
}
