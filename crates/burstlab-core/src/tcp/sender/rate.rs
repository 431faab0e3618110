//! The sender's two hooks into delivery-rate estimation (`tcp/rate_sample.rs`): a record per
//! transmission, a sample per ACK handed to congestion control. Present only when the
//! congestion control asks for samples (BBR); other flows carry an empty `Option`.
use super::super::rate_sample::RateSampler;
use super::super::wire::AckPkt;
use super::super::recovery::LossRecovery;
use super::super::CaState;
use super::Sender;
use crate::tcp::cc::CongestionControl;
use crate::time::Nanos;

impl Sender {
    /// The sampler a sender with congestion control `cc` keeps (None: no samples wanted).
    pub(super) fn rate_sampler_for(cc: &crate::tcp::cc::Cc) -> Option<Box<RateSampler>> {
        cc.wants_rate_samples().then(Box::default)
    }

    /// Segment `seg` is handed to the link (before the sender's counts include it).
    #[inline]
    pub(super) fn rate_on_send(&mut self, seg: u64, now: Nanos, retx: bool) {
        let t = &self.tcb;
        let inflight = t.high_tx.saturating_sub(t.snd_una).saturating_sub(self.board.sacked_count());
        let lost = self.counters.retransmissions + retx as u64;
        if let Some(r) = self.rate.as_deref_mut() {
            r.on_send(seg, now, inflight, lost, retx);
        }
    }

    /// Segments in flight after an ACK (Linux's `tcp_packets_in_flight`): after a timeout
    /// what was resent since and not SACKed; in recovery the RFC 6675 pipe; otherwise what was
    /// sent and neither acknowledged nor SACKed.
    fn rate_inflight(&mut self) -> u64 {
        let t = &self.tcb;
        match t.state {
            CaState::Loss => (t.snd_nxt - t.snd_una).saturating_sub(self.board.sacked_between(t.snd_una, t.snd_nxt)),
            CaState::Recovery => {
                self.update_pipe(false);
                self.tcb.pipe / self.tcb.mss.max(1)
            }
            _ => t.high_tx.saturating_sub(t.snd_una).saturating_sub(self.board.sacked_count()),
        }
    }

    /// An ACK `a` was processed (snd_una was `una_before`): sample the delivery rate and give
    /// the sample to congestion control, before the sender transmits in response.
    #[inline(never)]
    pub(super) fn rate_on_ack(&mut self, a: &AckPkt, una_before: u64, now: Nanos) {
        let inflight = self.rate_inflight();
        // Linux's `tcp_rate_check_app_limited`: nothing more to send and room in the window.
        let app_limited = self.tcb.snd_nxt >= self.rwnd_end() && (inflight + 1) * self.tcb.mss <= self.tcb.cwnd;
        let blocks = if self.rec.uses_sack() { &a.sack[..a.nsack as usize] } else { &[][..] };
        let (una, sacked, lost, min_rtt) = (self.tcb.snd_una, self.board.sacked_count(), self.counters.retransmissions, self.tcb.min_rtt);
        let Some(r) = self.rate.as_deref_mut() else { return };
        if app_limited {
            r.mark_app_limited(inflight);
        }
        let rs = r.on_ack(now, (una_before, una), sacked, blocks, lost, inflight, min_rtt);
        self.cc.on_rate_sample(&mut self.tcb, &rs);
    }
}
