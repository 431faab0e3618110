//! TIBET, Time Intervals based Bandwidth Estimation Technique (Martignon & Capone, "TCP
//! with Bandwidth Estimation over Wireless Networks", §II). The sender estimates the
//! bandwidth it uses as Bwe = L̄ / (T/n): the low-pass filtered packet length over the
//! low-pass filtered interval between packets (eq. (1)), each filter
//! `Av[k] = α·Av[k−1] + (1−α)·sample[k]` with pole α (0.99 by default, the paper's choice).
//!
//! - `tibet_estimator = "sent"` (the paper's pseudo-code, the one its simulations use): on
//!   every packet sent, its length and the time since the previous transmission;
//! - `"ack"`: on every ACK, the data it reports delivered (a duplicate ACK one segment, as
//!   Westwood+ counts them) and the time since the previous ACK.
//!
//! Only after three duplicate ACKs or a timeout: ssthresh = Bwe·RTT_min (eq. (2)); cwnd =
//! ssthresh after three duplicate ACKs (the default of
//! [`CongestionControl::cwnd_after_fast_retransmit`], also when that raises it), 1 segment
//! after a timeout (the sender's timeout step). Growth is Reno's.
//!
//! Open details, recorded in `docs/tcp.md`: lengths are payload bits (so Bwe·RTT_min is a
//! window of payload bytes); every transmission counts, retransmissions included; the two
//! filters start at their first samples (the first interval is that between the first two
//! packets); RTT_min is the smallest RTT sample; ssthresh is at least 2 segments; before the
//! first interval (or while every interval so far is zero) the loss response is RFC 5681's.
use super::reno::Reno;
use super::westwood::AckAccounting;
use super::{bw_window, CongestionControl};
use crate::tcp::config::{TcpConfig, TibetEstimator};
use crate::tcp::{AckInfo, Tcb};
use crate::time::Nanos;

/// The two low-pass filters of the pseudo-code.
#[derive(Clone, Debug)]
pub(crate) struct IntervalEstimator {
    alpha: f64,
    last: Option<Nanos>,
    /// Av_length, bits.
    av_length: f64,
    /// Av_interv, seconds.
    av_interv: f64,
    started: bool,
}

impl IntervalEstimator {
    pub(crate) fn new(alpha: f64) -> Self {
        IntervalEstimator { alpha, last: None, av_length: 0.0, av_interv: 0.0, started: false }
    }

    /// One event (a packet sent, an ACK received) of `bits` at `now`.
    #[inline]
    pub(crate) fn event(&mut self, now: Nanos, bits: f64) {
        if let Some(last) = self.last {
            let interval = (now - last) as f64 * 1e-9;
            if self.started {
                let a = self.alpha;
                self.av_length = a * self.av_length + (1.0 - a) * bits;
                self.av_interv = a * self.av_interv + (1.0 - a) * interval;
            } else {
                (self.av_length, self.av_interv, self.started) = (bits, interval, true);
            }
        }
        self.last = Some(now);
    }

    /// Bwe = Av_length / Av_interv, bits/s (None before the first non-zero interval).
    pub(crate) fn bwe(&self) -> Option<f64> {
        (self.started && self.av_interv > 0.0).then(|| self.av_length / self.av_interv)
    }
}

#[derive(Clone, Debug)]
pub struct Tibet {
    reno: Reno,
    estimator: TibetEstimator,
    est: IntervalEstimator,
    acct: AckAccounting,
}

impl Tibet {
    pub fn new(t: &TcpConfig) -> Self {
        Tibet {
            reno: Reno::from_config(t),
            estimator: t.tibet_estimator,
            est: IntervalEstimator::new(t.tibet_alpha),
            acct: AckAccounting::default(),
        }
    }

    /// The current estimate Bwe, bits/s of payload.
    pub fn bwe(&self) -> Option<f64> {
        self.est.bwe()
    }
}

impl CongestionControl for Tibet {
    fn name(&self) -> &'static str {
        "tibet"
    }

    fn on_ack(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        if self.estimator == TibetEstimator::Ack {
            let bytes = self.acct.delivered(ack, tcb.mss);
            self.est.event(ack.now, 8.0 * bytes as f64);
        }
        self.reno.grow(tcb, ack);
    }

    #[inline]
    fn on_send(&mut self, _tcb: &Tcb, now: Nanos, bytes: u64) {
        if self.estimator == TibetEstimator::Sent {
            self.est.event(now, 8.0 * bytes as f64);
        }
    }

    fn ssthresh_on_loss(&mut self, tcb: &Tcb) -> u64 {
        match (self.est.bwe(), tcb.min_rtt) {
            (Some(bwe), Some(rtt_min)) => bw_window(bwe / 8.0, rtt_min, tcb.mss),
            _ => tcb.half_flight(),
        }
    }

    fn on_timeout(&mut self, tcb: &mut Tcb) {
        self.reno.on_timeout(tcb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_util::ack_at;
    use crate::tcp::CaState;
    use crate::time::NS_PER_MS;

    /// The pseudo-code by hand: packets of 1000 bytes at t = 0, 1, 3 ms, α = 0.5.
    /// Interval samples 1 ms, 2 ms: Av_interv = 1, then 0.5·1 + 0.5·2 = 1.5 ms;
    /// Av_length 8000 bits throughout; Bwe = 8000 / 1.5 ms = 5.333 Mb/s.
    #[test]
    fn sent_packet_estimator_by_hand() {
        let mut c = Tibet::new(&TcpConfig { tibet_alpha: 0.5, ..TcpConfig::default() });
        let t = Tcb::for_test(1000, 10_000);
        c.on_send(&t, 0, 1000);
        assert_eq!(c.bwe(), None);
        c.on_send(&t, NS_PER_MS, 1000);
        assert!((c.bwe().unwrap() - 8e6).abs() < 1e-6);
        c.on_send(&t, 3 * NS_PER_MS, 1000);
        assert!((c.bwe().unwrap() - 8000.0 / 1.5e-3).abs() < 1e-3);
        // ACKs do not feed the sent-packet estimator.
        let mut u = t.clone();
        c.on_ack(&mut u, &ack_at(10 * NS_PER_MS, 1, None, CaState::Open));
        assert!((c.bwe().unwrap() - 8000.0 / 1.5e-3).abs() < 1e-3);
    }

    /// ssthresh = Bwe·RTT_min only on a loss: 8 Mb/s × 10 ms = 10 000 bytes; cwnd = ssthresh
    /// after three duplicate ACKs even when that is above the current window.
    #[test]
    fn loss_response() {
        let mut c = Tibet::new(&TcpConfig::default());
        let mut t = Tcb::for_test(1000, 4000);
        assert_eq!(c.ssthresh_on_loss(&t), t.half_flight()); // no estimate yet
        for i in 0..100 {
            c.on_send(&t, i * NS_PER_MS, 1000); // 1 segment per ms: 8 Mb/s
        }
        t.min_rtt = Some(10 * NS_PER_MS);
        let ss = c.ssthresh_on_loss(&t);
        assert_eq!(ss, 10_000);
        assert_eq!(c.cwnd_after_fast_retransmit(&t, ss), 10_000);
        // The ACK-based estimator: one ACK of 2 segments every 2 ms, also 8 Mb/s.
        let mut a = Tibet::new(&TcpConfig { tibet_estimator: TibetEstimator::Ack, ..TcpConfig::default() });
        for i in 0..100 {
            a.on_send(&t, i * NS_PER_MS, 1000); // ignored by this estimator
        }
        assert_eq!(a.bwe(), None);
        for i in 0..50 {
            a.on_ack(&mut t, &ack_at(2 * i * NS_PER_MS, 2, None, CaState::Open));
        }
        assert!((a.bwe().unwrap() - 8e6).abs() < 1e-3);
    }
}
