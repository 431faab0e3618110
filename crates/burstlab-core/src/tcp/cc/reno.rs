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
            dupacks: 0, dupack_threshold: 3, state: CaState::Open, srtt: None, rttvar: 0, rto: 0, min_rtt: None,
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
}
