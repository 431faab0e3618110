//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global
//! Internet", IEEE JSAC 13(8), 1995), congestion avoidance as Linux's `tcp_vegas.c` and
//! ns-3's TcpVegas run it. Once per RTT (when the ACKs pass the `snd_nxt` recorded at the
//! start of the cycle), with BaseRTT the smallest RTT ever seen and RTT the smallest of the
//! cycle:
//!
//!   Diff = (Expected − Actual)·BaseRTT = cwnd·(1 − BaseRTT/RTT)   [segments queued]
//!
//! - slow start: if Diff > γ, leave it: cwnd = min(cwnd, cwnd·BaseRTT/RTT + 1) and
//!   ssthresh = min(ssthresh, cwnd − 1); otherwise slow start as RFC 5681;
//! - avoidance: Diff > β: cwnd − 1 (and ssthresh = min(ssthresh, cwnd − 1)); Diff < α:
//!   cwnd + 1; otherwise unchanged; then ssthresh = max(ssthresh, ¾·cwnd);
//! - with fewer than 3 RTT samples in the cycle (a delayed ACK may have inflated them), Reno.
//!
//! Outside the Open state (recovery, loss) Vegas is off and the window grows as Reno's.
//! Thresholds α, β, γ in segments: Brakmo & Peterson's 1, 3, 1 by default; ns-3 3.44's
//! TcpVegas uses 2, 4, 1 (the `ns3` profile). Loss response: RFC 5681 (Linux's
//! `tcp_reno_ssthresh` with `ssthresh_rule = "cwnd"`); with `ssthresh_rule = "ns3"`, ns-3's
//! TcpVegas rule max(min(ssthresh, cwnd − 1), 2) segments.
use super::reno::Reno;
use super::{may_grow, CongestionControl};
use crate::tcp::config::TcpConfig;
use crate::tcp::{AckInfo, CaState, SsthreshRule, Tcb};
use crate::time::Nanos;

#[derive(Clone, Debug)]
pub struct Vegas {
    reno: Reno,
    alpha: u64,
    beta: u64,
    gamma: u64,
    base_rtt: Nanos,
    min_rtt: Nanos,
    cnt_rtt: u32,
    doing: bool,
    beg_snd_nxt: u64,
}

impl Vegas {
    pub fn new(t: &TcpConfig) -> Self {
        Vegas {
            reno: Reno::from_config(t),
            alpha: t.vegas_alpha as u64,
            beta: t.vegas_beta as u64,
            gamma: t.vegas_gamma as u64,
            base_rtt: Nanos::MAX,
            min_rtt: Nanos::MAX,
            cnt_rtt: 0,
            doing: true,
            beg_snd_nxt: 0,
        }
    }

    /// min(ssthresh, cwnd − 1 segment), at least 2 segments.
    fn reduced_ssthresh(tcb: &Tcb) -> u64 {
        tcb.ssthresh.min(tcb.cwnd.saturating_sub(tcb.mss)).max(2 * tcb.mss)
    }

    fn cycle(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        let mss = tcb.mss;
        let mut segs = tcb.cwnd_segs();
        // cwnd·BaseRTT/RTT, truncated as the implementations do.
        let target = (segs as u128 * self.base_rtt as u128 / self.min_rtt.max(1) as u128) as u64;
        let diff = segs.saturating_sub(target);
        if diff > self.gamma && tcb.cwnd < tcb.ssthresh {
            segs = segs.min(target + 1);
            tcb.cwnd = segs * mss;
            tcb.ssthresh = Self::reduced_ssthresh(tcb);
        } else if tcb.cwnd < tcb.ssthresh {
            self.reno.grow(tcb, ack);
        } else if diff > self.beta {
            tcb.cwnd = (segs - 1).max(2) * mss;
            tcb.ssthresh = Self::reduced_ssthresh(tcb);
        } else if diff < self.alpha {
            tcb.cwnd = (segs + 1) * mss;
        }
        tcb.cwnd = tcb.cwnd.min(tcb.max_cwnd);
        tcb.ssthresh = tcb.ssthresh.max(3 * tcb.cwnd / 4);
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_ack(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        if let Some(r) = ack.rtt {
            self.base_rtt = self.base_rtt.min(r);
            self.min_rtt = self.min_rtt.min(r);
            self.cnt_rtt += 1;
        }
        if !self.doing {
            return self.reno.grow(tcb, ack);
        }
        if !may_grow(tcb, ack) {
            return;
        }
        if tcb.snd_una >= self.beg_snd_nxt {
            // A Vegas cycle (one RTT) has ended.
            self.beg_snd_nxt = tcb.snd_nxt;
            if self.cnt_rtt <= 2 {
                self.reno.grow(tcb, ack);
            } else {
                self.cycle(tcb, ack);
            }
            self.cnt_rtt = 0;
            self.min_rtt = Nanos::MAX;
        } else if tcb.cwnd < tcb.ssthresh {
            self.reno.grow(tcb, ack);
        }
    }

    fn ssthresh_on_loss(&mut self, tcb: &Tcb) -> u64 {
        if tcb.ssthresh_rule == SsthreshRule::Ns3 {
            Self::reduced_ssthresh(tcb)
        } else {
            tcb.half_flight()
        }
    }

    fn on_state_change(&mut self, tcb: &mut Tcb, _from: CaState, to: CaState) {
        self.doing = to == CaState::Open;
        if self.doing {
            self.beg_snd_nxt = tcb.snd_nxt;
            self.cnt_rtt = 0;
            self.min_rtt = Nanos::MAX;
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
    use crate::time::NS_PER_MS;

    fn run_cycle(v: &mut Vegas, t: &mut Tcb, rtt_ms: u64) {
        // Three samples in the cycle, then the ACK that ends it.
        for _ in 0..3 {
            v.on_ack(t, &ack_at(0, 0, Some(rtt_ms * NS_PER_MS), CaState::Open));
        }
        t.snd_una = v.beg_snd_nxt;
        t.snd_nxt = t.snd_una + 20;
        v.on_ack(t, &ack_at(0, 1, Some(rtt_ms * NS_PER_MS), CaState::Open));
    }

    /// Avoidance with BaseRTT 100 ms and cwnd 10: RTT 100 ms (Diff 0 < α) +1; RTT 125 ms
    /// (Diff = 11 − ⌊11·0.8⌋ = 3, between α = 1 and β = 3) unchanged; RTT 200 ms (Diff
    /// 11 − 5 = 6 > β) −1 and ssthresh = min(ssthresh, cwnd − 1), then max(·, ¾·cwnd).
    #[test]
    fn avoidance_steps() {
        let mut v = Vegas::new(&TcpConfig::default());
        let mut t = Tcb::for_test(1000, 10_000);
        t.ssthresh = 8000;
        run_cycle(&mut v, &mut t, 100);
        assert_eq!((t.cwnd, t.ssthresh), (11_000, 8250));
        run_cycle(&mut v, &mut t, 125);
        assert_eq!((t.cwnd, t.ssthresh), (11_000, 8250));
        run_cycle(&mut v, &mut t, 200);
        assert_eq!((t.cwnd, t.ssthresh), (10_000, 8250));
        // Loss: RFC 5681 by default, ns-3's min(ssthresh, cwnd − 1) with its rule.
        t.snd_una = 0;
        t.high_tx = 10;
        assert_eq!(v.ssthresh_on_loss(&t), 5000);
        t.ssthresh_rule = SsthreshRule::Ns3;
        assert_eq!(v.ssthresh_on_loss(&t), 8250);
    }

    /// Slow start is left when more than γ segments queue: cwnd 16, BaseRTT 100, RTT 150:
    /// target ⌊16·2/3⌋ = 10, Diff 6 > 1 → cwnd 11, ssthresh max(min(∞, 10), ¾·11) = 10.
    #[test]
    fn leaves_slow_start_on_queueing() {
        let mut v = Vegas::new(&TcpConfig::default());
        let mut t = Tcb::for_test(1000, 16_000);
        v.base_rtt = 100 * NS_PER_MS; // seen in an earlier cycle
        run_cycle(&mut v, &mut t, 150);
        assert_eq!((t.cwnd, t.ssthresh), (11_000, 10_000));
        // Outside Open Vegas is off: Reno growth, no cycles.
        v.on_state_change(&mut t, CaState::Open, CaState::Loss);
        t.cwnd = 1000;
        v.on_ack(&mut t, &ack_at(0, 1, Some(150 * NS_PER_MS), CaState::Loss));
        assert_eq!(t.cwnd, 2000);
    }
}
