//! Reno as Linux implements it (`net/ipv4/tcp_cong.c`: `tcp_reno_cong_avoid`,
//! `tcp_slow_start`, `tcp_cong_avoid_ai`, `tcp_reno_ssthresh`; ns-3's TcpLinuxReno ports
//! the same). Windows count segments, and an ACK counts for every segment it acknowledges:
//!
//! - only when the flow is cwnd-limited (`tcp_is_cwnd_limited`);
//! - slow start: cwnd = min(cwnd + acked, ssthresh), the rest carried into avoidance;
//! - avoidance: a counter of acknowledged segments; one segment more per cwnd of them;
//! - loss: ssthresh = max(cwnd / 2, 2) segments, whatever `ssthresh_rule` says, and the
//!   counter starts again from 0 (`tcp_init_cwnd_reduction` and `tcp_enter_loss` clear
//!   `snd_cwnd_cnt`), so that the window leaves recovery at ssthresh and grows one segment
//!   per ssthresh segments acknowledged from there.
//!
//! `linux_reno_variant = "ns3"`: ns-3 3.44's port, which differs in three places: ssthresh
//! = max(cwnd / 2, 2 segments) in bytes (a half segment is kept), slow start does not carry
//! the rest into avoidance, and the ACK that ends fast recovery counts every segment it
//! acknowledges cumulatively (ns-3's ProcessAck recomputes segsAcked from the old SND.UNA, so
//! the segments SACKed or duplicate-ACKed during recovery count again). ns-3's counter
//! (`m_cWndCnt`) is not cleared at a loss.
use super::{may_grow, CongestionControl};
use crate::tcp::config::LinuxRenoVariant;
use crate::tcp::{AckInfo, CaState, Tcb};

#[derive(Clone, Debug, Default)]
pub struct LinuxReno {
    /// `snd_cwnd_cnt`: segments acknowledged toward the next increase.
    cnt: u64,
    ns3: bool,
}

impl LinuxReno {
    pub fn new(variant: LinuxRenoVariant) -> Self {
        LinuxReno { cnt: 0, ns3: variant == LinuxRenoVariant::Ns3 }
    }
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
        let mut acked = if self.ns3 && ack.state_before == CaState::Recovery { ack.cum_bytes / mss } else { ack.acked_segs };
        if tcb.cwnd < tcb.ssthresh {
            let to = (tcb.cwnd + acked * mss).min(tcb.ssthresh);
            let used = (to - tcb.cwnd).div_ceil(mss);
            tcb.cwnd = to;
            acked = if self.ns3 { 0 } else { acked - used.min(acked) };
        }
        if acked > 0 {
            // Linux's tcp_cong_avoid_ai with w = cwnd in segments; the increments are whole
            // segments on top of whatever remainder the window has.
            let w = tcb.cwnd_segs();
            if self.cnt >= w {
                self.cnt = 0;
                tcb.cwnd += mss;
            }
            self.cnt += acked;
            if self.cnt >= w {
                let delta = self.cnt / w;
                self.cnt -= delta * w;
                tcb.cwnd += delta * mss;
            }
        }
        tcb.cwnd = tcb.cwnd.min(tcb.max_cwnd);
    }

    fn ssthresh_on_loss(&mut self, tcb: &Tcb) -> u64 {
        if self.ns3 {
            (tcb.cwnd / 2).max(2 * tcb.mss)
        } else {
            // `tcp_init_cwnd_reduction` (and `tcp_enter_loss`): snd_cwnd_cnt = 0. Without
            // this the credit earned at the old window (up to cwnd − 1 segments) exceeds the
            // halved one, and the exit ACK's `tcp_cong_avoid_ai` would add a segment at once.
            self.cnt = 0;
            (tcb.cwnd_segs() / 2).max(2) * tcb.mss
        }
    }

    fn on_timeout(&mut self, _tcb: &mut Tcb) {
        if !self.ns3 {
            self.cnt = 0; // `tcp_enter_loss`: snd_cwnd_cnt = 0 on every timeout
        }
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
        let mut c = LinuxReno::new(LinuxRenoVariant::Linux);
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
        // … and the counter starts again (Linux's tcp_init_cwnd_reduction): at cwnd =
        // ssthresh = 3 the exit ACK of 1 segment adds nothing, 3 segments add one.
        let mut r = Tcb::for_test(1000, 7000);
        c.cnt = 5;
        let ss = c.ssthresh_on_loss(&r);
        assert_eq!((ss, c.cnt), (3000, 0));
        (r.cwnd, r.ssthresh) = (ss, ss);
        c.on_ack(&mut r, &ack_at(0, 1, None, CaState::Open));
        assert_eq!((r.cwnd, c.cnt), (3000, 1));
        c.on_ack(&mut r, &ack_at(0, 2, None, CaState::Open));
        assert_eq!((r.cwnd, c.cnt), (4000, 0));
        c.cnt = 2;
        c.on_timeout(&mut r);
        assert_eq!(c.cnt, 0);
        // ns-3's port: half a segment kept; the exit ACK counts all it acknowledges.
        let mut n = LinuxReno::new(LinuxRenoVariant::Ns3);
        assert_eq!(n.ssthresh_on_loss(&t), 3500);
        let mut u = Tcb::for_test(1000, 5500);
        u.ssthresh = 5500;
        let exit = AckInfo { cum_bytes: 12_000, ..ack_at(0, 1, None, CaState::Recovery) };
        u.grow_on_recovery_exit = true; // state now Open: the exit ACK
        n.on_ack(&mut u, &exit); // 12 segments counted with w = 5: +2, 2 left
        assert_eq!((u.cwnd, n.cnt), (7500, 2));
    }
}
