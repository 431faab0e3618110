//! Standard TCP window growth (RFC 5681 §3.1): slow start while cwnd < ssthresh,
//! congestion avoidance above; shared by Tahoe, Reno, NewReno and SACK, which differ
//! only in loss recovery, and the growth rule of Westwood+, TIBET and the Ideal TCP.
//!
//! With `abc` (RFC 3465, appropriate byte counting, L unlimited): slow start adds the bytes
//! an ACK acknowledges (capped at ssthresh, the rest counted toward avoidance), and
//! congestion avoidance adds one SMSS per cwnd bytes acknowledged (§2.1), so a delayed ACK
//! counts for both its segments.
use super::{may_grow, CongestionControl};
use crate::tcp::{AckInfo, Tcb};

#[derive(Clone, Debug, Default)]
pub struct Reno {
    abc: bool,
    /// RFC 3465 §2.1 `bytes_acked` in congestion avoidance.
    bytes_acked: u64,
}

impl Reno {
    pub fn new(abc: bool) -> Self {
        Reno { abc, bytes_acked: 0 }
    }

    /// The growth step for one ACK, for the variants that grow as Reno does.
    #[inline]
    pub(crate) fn grow(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        if !may_grow(tcb, ack) {
            return;
        }
        let mut acked = ack.acked_bytes;
        if tcb.cwnd < tcb.ssthresh {
            // RFC 5681 §3.1 equation (2): cwnd += min(N, SMSS) per ACK; with byte counting,
            // RFC 3465 §2.2 with L unlimited, capped at ssthresh (Linux's tcp_slow_start).
            let add = if self.abc { acked.min(tcb.ssthresh - tcb.cwnd) } else { acked.min(tcb.mss) };
            tcb.cwnd += add;
            acked = if self.abc { acked - add } else { 0 };
        }
        if acked > 0 {
            if self.abc {
                // RFC 3465 §2.1: one SMSS per cwnd bytes acknowledged.
                self.bytes_acked += acked;
                if self.bytes_acked >= tcb.cwnd {
                    self.bytes_acked -= tcb.cwnd;
                    tcb.cwnd += tcb.mss;
                }
            } else {
                // RFC 5681 §3.1 equation (3): cwnd += SMSS·SMSS / cwnd per ACK, at least 1 byte.
                tcb.cwnd += (tcb.mss * tcb.mss / tcb.cwnd).max(1);
            }
        }
        tcb.cwnd = tcb.cwnd.min(tcb.max_cwnd);
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    #[inline(always)]
    fn on_ack(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        self.grow(tcb, ack);
    }

    fn on_timeout(&mut self, _tcb: &mut Tcb) {
        self.bytes_acked = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_util::ack_at;
    use crate::tcp::CaState;

    fn tcb(cwnd: u64, ssthresh: u64) -> Tcb {
        let mut t = Tcb::for_test(1000, cwnd);
        t.ssthresh = ssthresh;
        t.max_cwnd = 5000;
        t
    }

    fn ack(bytes: u64, state: CaState) -> AckInfo {
        ack_at(0, bytes / 1000, None, state)
    }

    #[test]
    fn slow_start_then_avoidance_then_cap() {
        let mut t = tcb(2000, 3000);
        let mut r = Reno::default();
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

    /// RFC 3465: a delayed ACK of two segments counts for both, in slow start (capped at
    /// ssthresh, the rest carried into avoidance) and in avoidance (one SMSS per cwnd bytes).
    #[test]
    fn appropriate_byte_counting() {
        let mut t = tcb(2000, 3000);
        t.max_cwnd = u64::MAX;
        let mut r = Reno::new(true);
        r.on_ack(&mut t, &ack(2000, CaState::Open)); // +1000 to ssthresh, 1000 carried over
        assert_eq!((t.cwnd, r.bytes_acked), (3000, 1000));
        r.on_ack(&mut t, &ack(2000, CaState::Open)); // 3000 acked ≥ cwnd: +1 SMSS
        assert_eq!((t.cwnd, r.bytes_acked), (4000, 0));
        for _ in 0..2 {
            r.on_ack(&mut t, &ack(2000, CaState::Open));
        }
        assert_eq!((t.cwnd, r.bytes_acked), (5000, 0)); // one cwnd (4000) acked: +1
    }

    #[test]
    fn loss_exit_growth_is_a_choice() {
        let mut r = Reno::default();
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
        use crate::tcp::SsthreshRule;
        let mut t = tcb(10_000, u64::MAX);
        t.snd_una = 10;
        t.high_tx = 22; // FlightSize 12 segments
        t.pipe = 8000; // as the sender would set it
        assert_eq!(r_ss(&t), 6000);
        t.ssthresh_rule = SsthreshRule::Pipe;
        assert_eq!(r_ss(&t), 4000); // 8 / 2
        t.ssthresh_rule = SsthreshRule::FlightSizeMinusLost;
        assert_eq!(r_ss(&t), 5500); // (12 − 1) / 2
        t.ssthresh_rule = SsthreshRule::Cwnd;
        assert_eq!(r_ss(&t), 5000); // 10 / 2
        t.ssthresh_rule = SsthreshRule::FlightSizeMinusLost;
        t.high_tx = 14;
        assert_eq!(r_ss(&t), 2000); // floor of 2·SMSS
    }

    fn r_ss(t: &Tcb) -> u64 {
        Reno::default().ssthresh_on_loss(t)
    }
}
