//! Proportional Rate Reduction (RFC 6937) over RFC 6675's SACK scoreboard: loss detection,
//! pipe and NextSeg are RFC 6675's (`sack.rs`, the sender's SACK send loop); PRR decides
//! how much may be sent on each ACK of the recovery, so that the window comes down to
//! ssthresh smoothly instead of in one step, and the segments sent during recovery track
//! the data delivered:
//!
//! ```text
//! on entry:       prr_delivered = prr_out = 0; RecoverFS = FlightSize
//! on every ACK:   prr_delivered += DeliveredData
//!   pipe > ssthresh:  sndcnt = ⌈prr_delivered·ssthresh / RecoverFS⌉ − prr_out      (PRR)
//!   otherwise:        limit = max(prr_delivered − prr_out, DeliveredData) + MSS    (SSRB)
//!                     limit = prr_delivered − prr_out                              (CRB)
//!                     sndcnt = min(ssthresh − pipe, limit)
//!   cwnd = pipe + sndcnt
//! on every transmission in recovery: prr_out += bytes
//! at the end of recovery: cwnd = ssthresh
//! ```
//!
//! As Linux and ns-3 do, sndcnt is at least one segment until the first retransmission
//! is out, so the fast retransmit always goes (RFC 6937 §3 leaves it to the
//! implementation). Where implementations differ (`TcpConfig::prr_variant`):
//!
//! | | RecoverFS | DeliveredData of a duplicate ACK | the bound's + MSS |
//! |---|---|---|---|
//! | `rfc` (RFC 6937) | FlightSize | bytes it SACKs | always |
//! | `ns3` (ns-3 3.44 `TcpPrrRecovery`) | pipe at entry | + 1 segment (while prr_delivered < RecoverFS) | if it acknowledges retransmitted data |
//! | `linux` (Linux 6.x `tcp_cwnd_reduction`) | cwnd at entry (`prior_cwnd`) | bytes it SACKs | if snd_una advances |
//!
//! ns-3's extra segment per duplicate ACK counts the SACKed segment twice, so its PRR sends
//! about one segment per duplicate ACK while pipe > ssthresh (measured in
//! `docs/ns3-reference.md`).
use super::sack::enter_sack_recovery;
use super::{Action, LossRecovery};
use crate::tcp::config::{PrrBound, PrrVariant};
use crate::tcp::Tcb;

#[derive(Clone, Debug)]
pub struct Prr {
    bound: PrrBound,
    variant: PrrVariant,
    prr_delivered: u64,
    prr_out: u64,
    recover_fs: u64,
}

/// What one ACK brings to PRR.
#[derive(Clone, Copy, Debug)]
struct Ack {
    delivered: u64,
    dup: bool,
    una_advanced: bool,
    retx_acked: bool,
}

impl Prr {
    pub fn new(bound: PrrBound, variant: PrrVariant) -> Self {
        Prr { bound, variant, prr_delivered: 0, prr_out: 0, recover_fs: 1 }
    }

    /// RFC 6937 §3.1 on one ACK; `tcb.pipe` is the pipe after this ACK's scoreboard update.
    fn step(&mut self, tcb: &mut Tcb, a: Ack) {
        let (pipe, ssthresh, mss) = (tcb.pipe, tcb.ssthresh, tcb.mss);
        let mut delivered = a.delivered;
        if self.variant == PrrVariant::Ns3 {
            if a.dup && self.prr_delivered < self.recover_fs {
                delivered += mss;
            }
            if delivered == 0 {
                return;
            }
        }
        self.prr_delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // Proportional rate reduction.
            let due = (self.prr_delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128);
            (due as u64).saturating_sub(self.prr_out)
        } else {
            let spent = self.prr_delivered.saturating_sub(self.prr_out);
            let limit = match self.bound {
                PrrBound::Crb => spent,
                PrrBound::Ssrb => {
                    let extra = match self.variant {
                        PrrVariant::Rfc => true,
                        PrrVariant::Ns3 => a.retx_acked,
                        PrrVariant::Linux => a.una_advanced,
                    };
                    spent.max(delivered) + if extra { mss } else { 0 }
                }
            };
            (ssthresh - pipe).min(limit)
        };
        // Force the fast retransmit upon entering recovery (Linux, ns-3).
        let sndcnt = sndcnt.max(if self.prr_out > 0 { 0 } else { mss });
        tcb.cwnd = pipe + sndcnt;
    }
}

impl LossRecovery for Prr {
    fn name(&self) -> &'static str {
        "prr"
    }

    fn enter(&mut self, tcb: &mut Tcb, ssthresh: u64, _cwnd: u64, delivered: u64) -> Action {
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.recover_fs = match self.variant {
            PrrVariant::Rfc => tcb.flight_size(),
            PrrVariant::Ns3 => tcb.pipe,
            PrrVariant::Linux => tcb.cwnd,
        }
        .max(1);
        let act = enter_sack_recovery(tcb, ssthresh);
        self.step(tcb, Ack { delivered, dup: true, una_advanced: false, retx_acked: false });
        act
    }

    fn on_dupack(&mut self, tcb: &mut Tcb, delivered: u64) -> Action {
        self.step(tcb, Ack { delivered, dup: true, una_advanced: false, retx_acked: false });
        Action::default()
    }

    fn on_ack(&mut self, tcb: &mut Tcb, _acked: u64, delivered: u64, retx_acked: bool) -> Action {
        if tcb.snd_una >= tcb.recover {
            // RFC 6937 §3: at the end of recovery cwnd = ssthresh; RFC 6675 step (A).
            tcb.cwnd = tcb.ssthresh;
            return Action { exit: true, ..Action::default() };
        }
        tcb.high_rxt = tcb.high_rxt.max(tcb.snd_una);
        self.step(tcb, Ack { delivered, dup: false, una_advanced: true, retx_acked });
        // RFC 6298 §5.3: restart the timer on an ACK of new data.
        Action { restart_timer: true, ..Action::default() }
    }

    #[inline]
    fn on_transmit(&mut self, bytes: u64) {
        self.prr_out += bytes;
    }

    fn uses_sack(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::recovery::test_tcb;

    /// FlightSize 20 segments, one loss, ssthresh 10 (Reno's half): each ACK SACKs one
    /// segment (DeliveredData 1 segment) and, while pipe > ssthresh, PRR lets out
    /// ⌈delivered·10/20⌉ − sent: one segment for every two delivered (RFC 6937 §3, §5).
    #[test]
    fn proportional_phase_sends_half() {
        let mut p = Prr::new(PrrBound::Ssrb, PrrVariant::Rfc);
        let mut t = test_tcb(20_000, 0, 20);
        t.pipe = 16_000; // 20 − 3 SACKed − 1 lost
        let a = p.enter(&mut t, 10_000, 10_000, 1000);
        assert!(a.retransmit_una);
        // prr_delivered 1000: ⌈1000·10000/20000⌉ − 0 = 500 bytes, forced up to one segment.
        assert_eq!(t.cwnd, 17_000);
        p.on_transmit(1000); // the fast retransmit
        let mut sent = 1000;
        for k in 2..=6u64 {
            t.pipe = 17_000 - k * 1000; // one more SACKed, nothing new sent counted here
            p.on_dupack(&mut t, 1000);
            let allowed = t.cwnd - t.pipe;
            // ⌈k·1000·½⌉ − sent so far.
            assert_eq!(allowed, (k * 500).saturating_sub(sent), "ACK {k}");
            p.on_transmit(allowed);
            sent += allowed;
        }
        assert_eq!(sent, 3000); // 6 segments delivered → 3 sent
    }

    /// Below ssthresh the slow-start reduction bound catches up by at most DeliveredData
    /// + 1 MSS per ACK; the conservative bound by what was delivered and not yet sent.
    #[test]
    fn reduction_bounds_below_ssthresh() {
        let mut p = Prr::new(PrrBound::Ssrb, PrrVariant::Rfc);
        let mut t = test_tcb(20_000, 0, 20);
        t.pipe = 4000;
        p.enter(&mut t, 10_000, 10_000, 1000);
        // limit = max(1000 − 0, 1000) + 1000 = 2000, ssthresh − pipe = 6000 → 2000.
        assert_eq!(t.cwnd, 6000);
        let mut c = Prr::new(PrrBound::Crb, PrrVariant::Rfc);
        let mut u = test_tcb(20_000, 0, 20);
        u.pipe = 4000;
        c.enter(&mut u, 10_000, 10_000, 1000);
        assert_eq!(u.cwnd, 5000); // limit 1000
        // Exit: cwnd = ssthresh.
        u.snd_una = 20;
        assert!(c.on_ack(&mut u, 20_000, 20_000, false).exit);
        assert_eq!(u.cwnd, 10_000);
    }
}
