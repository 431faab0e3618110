//! Standard TCP window growth (RFC 5681 §3.1): slow start while cwnd < ssthresh,
//! congestion avoidance above; shared by Tahoe, Reno, NewReno and SACK, which differ
//! only in loss recovery, and the growth rule of Westwood+, TIBET and the Ideal TCP.
//!
//! With `abc` (RFC 3465, appropriate byte counting): slow start adds the bytes an ACK
//! acknowledges (capped at ssthresh, the rest counted toward avoidance), at most L·SMSS per
//! ACK when `abc_limit` = L is given (§2.2; L = 1 in the slow start after a timeout, §2.3;
//! no limit by default, as Linux and ns-3), and congestion avoidance adds one SMSS per cwnd
//! bytes acknowledged (§2.1), so a delayed ACK counts for both its segments.
use super::{may_grow, CongestionControl};
use crate::tcp::config::TcpConfig;
use crate::tcp::{AckInfo, Tcb};

#[derive(Clone, Debug)]
pub struct Reno {
    abc: bool,
    /// RFC 3465 §2.1 `bytes_acked` in congestion avoidance.
    bytes_acked: u64,
    /// RFC 3465 §2.2's L, in segments (`u64::MAX`: no limit).
    limit: u64,
    /// In the slow start that follows a timeout (RFC 3465 §2.3: L = 1 there).
    after_timeout: bool,
}

impl Default for Reno {
    fn default() -> Self {
        Reno::new(false)
    }
}

impl Reno {
    /// Byte counting on or off, with no limit L.
    pub fn new(abc: bool) -> Self {
        Reno { abc, bytes_acked: 0, limit: u64::MAX, after_timeout: false }
    }

    /// As the flow's settings say (`abc`, `abc_limit`).
    pub fn from_config(t: &TcpConfig) -> Self {
        Reno { limit: t.abc_limit.unwrap_or(u64::MAX), ..Reno::new(t.abc) }
    }

    /// RFC 3465 §2.2-2.3: the bytes one ACK may add in slow start.
    #[inline]
    fn cap(&self, mss: u64) -> u64 {
        if self.limit == u64::MAX {
            u64::MAX
        } else if self.after_timeout {
            mss
        } else {
            self.limit.saturating_mul(mss)
        }
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
            // With L (§2.2), what the limit cuts off is not counted anywhere.
            let room = tcb.ssthresh - tcb.cwnd;
            let add = if self.abc { acked.min(room).min(self.cap(tcb.mss)) } else { acked.min(tcb.mss) };
            tcb.cwnd += add;
            acked = if self.abc && (add == room || add == acked) { acked - add } else { 0 };
            if add == room {
                self.after_timeout = false;
            }
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
        self.after_timeout = true;
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

    /// RFC 3465 §2.2: with L = 2 an ACK of four segments adds two in slow start, and the two
    /// cut off are not carried into avoidance; §2.3: after a timeout L = 1 until cwnd reaches
    /// ssthresh. Without a limit the same ACK adds all four.
    #[test]
    fn byte_counting_limit() {
        let limited = |l| Reno::from_config(&TcpConfig { abc: true, abc_limit: l, ..TcpConfig::default() });
        let mut t = tcb(2000, 100_000);
        t.max_cwnd = u64::MAX;
        let mut r = limited(None);
        r.on_ack(&mut t, &ack(4000, CaState::Open));
        assert_eq!(t.cwnd, 6000);
        let mut t = tcb(2000, 100_000);
        t.max_cwnd = u64::MAX;
        let mut r = limited(Some(2));
        r.on_ack(&mut t, &ack(4000, CaState::Open));
        assert_eq!((t.cwnd, r.bytes_acked), (4000, 0));
        r.on_ack(&mut t, &ack(1000, CaState::Open)); // under L: all of it
        assert_eq!(t.cwnd, 5000);
        r.on_timeout(&mut t);
        t.cwnd = 1000;
        t.ssthresh = 3500;
        r.on_ack(&mut t, &ack(3000, CaState::Open)); // §2.3: L = 1 after the timeout
        assert_eq!(t.cwnd, 2000);
        r.on_ack(&mut t, &ack(3000, CaState::Open));
        assert_eq!(t.cwnd, 3000);
        r.on_ack(&mut t, &ack(3000, CaState::Open)); // reaches ssthresh (500 of room), 2500 carried
        assert_eq!((t.cwnd, r.bytes_acked), (3500, 2500));
        t.ssthresh = 100_000; // a later slow start: L = 2 again
        r.on_ack(&mut t, &ack(4000, CaState::Open));
        assert_eq!(t.cwnd, 5500);
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
