//! ns-3 3.44's `TcpCubic` congestion avoidance (`cubic_variant = "ns3"`; `tcp-cubic.cc`'s
//! `IncreaseWindow`, `Update`, `GetSsThresh`, `CubicReset`), the counterpart of Linux's
//! `bictcp_update` ([`super::cubic::LinuxCubic`]) that ns-3 ported without its time
//! throttles and with its own arithmetic:
//!
//! - windows in whole segments (`GetCwndInSegments`); the epoch starts at the first ACK in
//!   avoidance after a reduction: K = ((W_max − cwnd)/C)^(1/3) in seconds (0 and origin =
//!   cwnd when cwnd ≥ W_max), the Reno estimate `tcp_cwnd` = cwnd, its ACK count reset;
//! - on every ACK in avoidance: t = now + min RTT − epoch; Δ = ⌊C·|t − K|³⌋ segments (an
//!   integer: 0 while |t − K| < 1.36 s with C = 0.4), target = origin ∓ Δ; cnt = cwnd /
//!   (target − cwnd) if the target is above cwnd, else 100·cwnd; at most 20 before the first
//!   loss; the Reno estimate grows a segment per ⌊15·cwnd/8⌋ segments acknowledged (15 =
//!   ⌊8(1024 + 1024β)/3/(1024 − 1024β)⌋) and caps cnt at cwnd / (tcp_cwnd − cwnd); cnt ≥ 2;
//! - the ACK's segments go to a counter; once it reaches cnt, cwnd grows by one segment and
//!   the counter loses cnt (one segment per ACK at most, the rest carried);
//! - on a loss: W_max = ⌊cwnd·(1 + β)/2⌋ (fast convergence, cwnd below the previous W_max) or
//!   cwnd, the epoch ends, ssthresh = max(⌊cwnd·β⌋, 2) segments; on a timeout (`CubicReset`)
//!   the origin, K, the Reno estimate and its count are cleared, W_max and the counter kept.
//!
//! Slow start, HyStart and the minimum RTT are [`super::cubic::Cubic`]'s (`hystart = "ns3"`),
//! which counts the segments an ACK acknowledges without stopping at ssthresh, as `TcpCubic`
//! does. Which segments an ACK counts is the socket's (`TcpSocketBase::ProcessAck`): at the
//! end of fast recovery, every segment it acknowledges cumulatively.
use super::cubic_update::{cnt_toward, reno_estimate_cnt};
use crate::tcp::Tcb;
use crate::time::Nanos;

#[derive(Clone, Debug, Default)]
pub struct Ns3Cubic {
    c: f64,
    beta: f64,
    /// `8·(1024 + 1024β)/3/(1024 − 1024β)` in integer arithmetic (15 for β = 0.7).
    scale: u64,
    cwnd_cnt: u64,
    last_max_cwnd: u64,
    origin: u64,
    k: f64,
    pub(crate) epoch_start: Option<Nanos>,
    ack_cnt: u64,
    tcp_cwnd: u64,
}

impl Ns3Cubic {
    pub fn new(beta: f64, c: f64) -> Self {
        let scale = (8.0 * (1024.0 + beta * 1024.0) / 3.0 / (1024.0 - beta * 1024.0)) as u64;
        Ns3Cubic { c, beta, scale, ..Ns3Cubic::default() }
    }

    /// `Update`: the segments to acknowledge per one-segment increment.
    fn update(&mut self, cwnd: u64, acked: u64, now: Nanos, delay_min: Nanos, friendly: bool) -> u64 {
        self.ack_cnt += acked;
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    (self.k, self.origin) = (0.0, cwnd);
                } else {
                    self.k = ((self.last_max_cwnd - cwnd) as f64 / self.c).cbrt();
                    self.origin = self.last_max_cwnd;
                }
                now
            }
        };
        let dmin = if delay_min == Nanos::MAX { 0 } else { delay_min };
        let t = (now + dmin - epoch) as f64 * 1e-9;
        let delta = (self.c * (t - self.k).abs().powi(3)) as u64;
        let target = if t < self.k { self.origin.saturating_sub(delta) } else { self.origin + delta };
        let mut cnt = cnt_toward(target, cwnd, self.last_max_cwnd == 0);
        if friendly {
            cnt = reno_estimate_cnt(cnt, cwnd, self.scale, &mut self.ack_cnt, &mut self.tcp_cwnd);
        }
        cnt.max(2)
    }

    /// `IncreaseWindow` in avoidance: `acked` segments.
    pub fn congestion_avoidance(&mut self, tcb: &mut Tcb, now: Nanos, acked: u64, friendly: bool, delay_min: Nanos) {
        let cwnd = tcb.cwnd / tcb.mss;
        self.cwnd_cnt += acked;
        let cnt = self.update(cwnd, acked, now, delay_min, friendly);
        if self.cwnd_cnt >= cnt {
            tcb.cwnd += tcb.mss;
            self.cwnd_cnt -= cnt;
        }
    }

    /// `GetSsThresh`.
    pub fn ssthresh_on_loss(&mut self, tcb: &Tcb, fast_convergence: bool) -> u64 {
        let cwnd = tcb.cwnd / tcb.mss;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && fast_convergence {
            (cwnd as f64 * (1.0 + self.beta) / 2.0) as u64
        } else {
            cwnd
        };
        self.epoch_start = None;
        ((cwnd as f64 * self.beta) as u64).max(2) * tcb.mss
    }

    /// `CubicReset` (entering the Loss state).
    pub fn reset(&mut self) {
        (self.origin, self.k, self.ack_cnt, self.tcp_cwnd) = (0, 0.0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    /// Known answers from ns-3's formulas by hand (β = 0.7, C = 0.4, min RTT 20 ms).
    #[test]
    fn ns3_tcp_cubic_arithmetic() {
        let mss = 1000;
        let mut c = Ns3Cubic::new(0.7, 0.4);
        assert_eq!(c.scale, 15); // ⌊8·1740.8/3/307.2⌋
        let mut t = Tcb::for_test(mss, 10 * mss);
        // A loss at 10 segments: W_max 10, ssthresh ⌊7.0⌋ = 7 segments.
        assert_eq!(c.ssthresh_on_loss(&t, true), 7 * mss);
        assert_eq!((c.last_max_cwnd, c.epoch_start), (10, None));
        // Avoidance from 7: K = ∛(3/0.4) = 1.957 s; at t = 20 ms, Δ = ⌊0.4·1.937³⌋ = 2, target
        // 8, cnt = 7/(8 − 7) = 7; the Reno estimate (7, one segment per ⌊7·15/8⌋ = 13
        // acknowledged) does not lower it. Six ACKs of a segment: nothing; the seventh: +1.
        t.cwnd = 7 * mss;
        let dmin = 20 * NS_PER_MS;
        for i in 0..6 {
            c.congestion_avoidance(&mut t, i * NS_PER_MS, 1, true, dmin);
            assert_eq!(t.cwnd, 7 * mss, "ACK {i}");
        }
        assert!((c.k - 1.957).abs() < 1e-3 && c.origin == 10);
        c.congestion_avoidance(&mut t, 6 * NS_PER_MS, 1, true, dmin);
        assert_eq!((t.cwnd, c.cwnd_cnt), (8 * mss, 0));
        // At 8 the target (8) is not above cwnd: cnt = 800 unless the Reno estimate leads.
        // An ACK of 20 segments (the end of a recovery): the estimate gains one segment
        // (27 acknowledged > 15), not above cwnd; cnt 800, no growth.
        c.congestion_avoidance(&mut t, 7 * NS_PER_MS, 20, true, dmin);
        assert_eq!((t.cwnd, c.tcp_cwnd), (8 * mss, 8));
        // A second loss below W_max: fast convergence W_max = ⌊8·1.7/2⌋ = 6, ssthresh ⌊5.6⌋ = 5.
        assert_eq!(c.ssthresh_on_loss(&t, true), 5 * mss);
        assert_eq!(c.last_max_cwnd, 6);
        // At most one segment per ACK: from 5 with W_max 6, K = ∛2.5 = 1.357 s, Δ = ⌊0.4·1.337³⌋
        // = 0, target 6, cnt = 5; an ACK of 12 segments: +1 (counter 20 + 12 − 5 = 27 left).
        t.cwnd = 5 * mss;
        c.congestion_avoidance(&mut t, 100 * NS_PER_MS, 12, true, dmin);
        assert_eq!((t.cwnd, c.cwnd_cnt), (6 * mss, 27));
        // A timeout (CubicReset) clears the origin, K and the Reno estimate, keeps W_max and
        // the counter; before the first loss cnt is at most 20.
        c.reset();
        assert_eq!((c.origin, c.k, c.tcp_cwnd, c.last_max_cwnd, c.cwnd_cnt), (0, 0.0, 0, 6, 27));
        let mut fresh = Ns3Cubic::new(0.7, 0.4);
        assert_eq!(fresh.update(10, 1, 0, dmin, false), 20); // ns-3's CntClamp
    }
}
