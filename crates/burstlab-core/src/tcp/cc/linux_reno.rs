//! Reno as Linux implements it (`net/ipv4/tcp_cong.c`: `tcp_reno_cong_avoid`,
//! `tcp_slow_start`, `tcp_cong_avoid_ai`, `tcp_reno_ssthresh`; ns-3's TcpLinuxReno ports
//! the same). Windows count segments, and an ACK counts for every segment it acknowledges:
//!
//! - only when the flow is cwnd-limited (`tcp_is_cwnd_limited`);
//! - slow start: cwnd = min(cwnd + acked, ssthresh), the rest carried into avoidance;
//! - avoidance: a counter of acknowledged segments; one segment more per cwnd of them;
//! - loss: ssthresh = max(cwnd / 2, 2) segments, whatever `ssthresh_rule` says.
use super::{may_grow, CongestionControl};
use crate::tcp::{AckInfo, Tcb};

#[derive(Clone, Debug, Default)]
pub struct LinuxReno {
    /// `snd_cwnd_cnt`: segments acknowledged toward the next increase.
    cnt: u64,
}

impl CongestionControl for LinuxReno {
    fn name(&self) -> &'static str {
        "linux-reno"
    }

    fn on_ack(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        if !may_grow(tcb, ack) || !tcb.cwnd_limited {
            return;
        }
        let mss = tcb.mss;
        let mut cwnd = tcb.cwnd / mss;
        let mut acked = ack.acked_segs;
        let ssthresh = tcb.ssthresh / mss;
        if cwnd < ssthresh {
            let to = (cwnd + acked).min(ssthresh);
            acked -= to - cwnd;
            cwnd = to;
        }
        if acked > 0 {
            let w = cwnd.max(1);
            if self.cnt >= w {
                self.cnt = 0;
                cwnd += 1;
            }
            self.cnt += acked;
            if self.cnt >= w {
                let delta = self.cnt / w;
                self.cnt -= delta * w;
                cwnd += delta;
            }
        }
        tcb.cwnd = (cwnd * mss).min(tcb.max_cwnd);
    }

    fn ssthresh_on_loss(&mut self, tcb: &Tcb) -> u64 {
        (tcb.cwnd_segs() / 2).max(2) * tcb.mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_util::ack_at;
    use crate::tcp::CaState;

    #[test]
    fn counts_segments_like_linux() {
        let mut t = Tcb::for_test(1000, 4000);
        t.ssthresh = 6000;
        let mut c = LinuxReno::default();
        // Slow start: a delayed ACK of 2 segments adds 2 (reaching ssthresh); from there
        // acknowledged segments go to the counter.
        c.on_ack(&mut t, &ack_at(0, 2, None, CaState::Open));
        assert_eq!(t.cwnd, 6000);
        c.on_ack(&mut t, &ack_at(0, 2, None, CaState::Open));
        assert_eq!((t.cwnd, c.cnt), (6000, 2));
        // Avoidance: 6 segments acknowledged → +1 segment (2 + 2 + 2).
        c.on_ack(&mut t, &ack_at(0, 2, None, CaState::Open));
        assert_eq!((t.cwnd, c.cnt), (6000, 4));
        c.on_ack(&mut t, &ack_at(0, 2, None, CaState::Open));
        assert_eq!((t.cwnd, c.cnt), (7000, 0));
        // Not cwnd-limited: no growth.
        t.cwnd_limited = false;
        c.on_ack(&mut t, &ack_at(0, 2, None, CaState::Open));
        assert_eq!(t.cwnd, 7000);
        // Loss: half the window in segments, not the flight.
        t.snd_una = 0;
        t.high_tx = 30;
        assert_eq!(c.ssthresh_on_loss(&t), 3000);
    }
}
