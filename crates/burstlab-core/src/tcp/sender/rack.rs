//! RACK-TLP (RFC 8985, as Linux 6.x applies it): lost retransmissions found by time order in
//! SACK fast recovery, the reordering timer and the tail loss probe.
use super::*;

/// The retransmissions of the current SACK fast recovery, for RACK's rule (RFC 8985 §6.2):
/// a segment is lost once a segment sent after it has been delivered (and a reordering
/// window has passed: none here, as Linux's RACK without reordering seen in recovery).
#[derive(Clone, Debug, Default)]
pub(super) struct RackRetx {
    /// Retransmissions in flight, in the order sent: (segment, when).
    pub(super) out: VecDeque<(u64, Nanos)>,
    /// `out` in runs of one segment: (segment, entries). Only the last of a run can be the
    /// segment's latest transmission, so [`Sender::rack_latest_delivered`] reads one entry
    /// per run (issue 34's fuzzer: at 1 bit/s each timeout resent snd_una into `out`, 10^6
    /// entries of one segment read on every ACK).
    pub(super) runs: VecDeque<(u64, usize)>,
    /// Retransmissions found lost again, to be sent again before anything else.
    pub(super) resend: VecDeque<u64>,
    /// `rack_tlp` outside recovery: the latest segment delivered (send time, segment) and
    /// RACK.rtt, the time from its sending to its delivery (RFC 8985 §6.2 step 2).
    pub(super) latest: Option<(Nanos, u64)>,
    pub(super) rtt: Nanos,
    /// Which timer the sender's one deadline (`Sender::rto_deadline`, what the engine
    /// schedules) stands for, and the retransmission timer's own while another is armed.
    pub(super) timer: RackTimer,
    pub(super) rto_at: Option<Nanos>,
    /// A tail loss probe is outstanding until snd_una passes this (one per tail, §7.3).
    pub(super) tlp_high: Option<u64>,
}

/// What [`RackRetx::timer`] is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum RackTimer {
    #[default]
    Rto,
    /// A tail loss probe (RFC 8985 §7.2).
    Probe,
    /// RACK's reordering timer (§6.3): snd_una will be lost then.
    Reo,
}

impl RackRetx {
    /// A retransmission of `seg` at `t` (after every other in `out`).
    pub(super) fn push_out(&mut self, seg: u64, t: Nanos) {
        self.out.push_back((seg, t));
        match self.runs.back_mut() {
            Some((s, n)) if *s == seg => *n += 1,
            _ => self.runs.push_back((seg, 1)),
        }
    }

    /// Forget the oldest retransmission in `out`.
    fn pop_out(&mut self) {
        self.out.pop_front();
        if let Some((_, n)) = self.runs.front_mut() {
            *n -= 1;
            if *n == 0 {
                self.runs.pop_front();
            }
        }
    }

    /// The newest entry of each run of `out`, in the order sent.
    fn run_ends(&self) -> impl Iterator<Item = (u64, Nanos)> + '_ {
        self.runs.iter().scan(0usize, |i, &(_, n)| {
            *i += n;
            Some(self.out[*i - 1])
        })
    }

    /// Forget every retransmission (the recovery ended).
    pub(super) fn clear_out(&mut self) {
        self.out.clear();
        self.runs.clear();
    }
}

impl Sender {
    /// RACK (RFC 8985 §6.2), before `a` updates the board: the latest (send time, segment)
    /// among the segments `a` delivers (newly SACKed or acknowledged), leaving out a
    /// retransmission delivered sooner than the minimum RTT after it was sent (its
    /// original must have arrived: Linux's `tcp_rack_advance`). Bounded work per ACK: first
    /// transmissions go out in sequence order and arrive in it on a FIFO path, so the
    /// latest one delivered is the top of a block (or the cumulative ACK) above what was
    /// delivered before; a retransmission delivered is one of this recovery's, in `out`.
    #[inline(never)]
    pub(super) fn rack_latest_delivered(&self, a: &AckPkt, now: Nanos) -> Option<(Nanos, u64)> {
        let min_rtt = self.tcb.min_rtt.unwrap_or(0);
        let board = &self.board;
        let seen = |seg: u64, t: Nanos, retx: bool| (!retx || now.saturating_sub(t) >= min_rtt).then_some((t, seg));
        let mut latest: Option<(Nanos, u64)> = None;
        let tops = a.sack[..a.nsack as usize].iter().map(|&(_, e)| e).chain(std::iter::once(a.ack));
        for e in tops {
            let top = e.min(board.end()).wrapping_sub(1);
            if e > board.high_sacked() && board.is_unsacked(top) {
                if let Some(st) = board.get(top) {
                    latest = latest.max(seen(top, st.sent_at(), st.retransmitted()));
                }
            }
        }
        let delivered = |seg: u64| seg < a.ack || a.sack[..a.nsack as usize].iter().any(|&(s, e)| s <= seg && seg < e);
        // An older entry of a run is not its segment's latest transmission (`sent_at`, which
        // only moves forward, differs), so it is never counted: the runs' last entries only.
        for (seg, t) in self.rack.as_ref().into_iter().flat_map(|r| r.run_ends()) {
            if board.is_unsacked(seg) && delivered(seg) && board.get(seg).is_some_and(|st| st.sent_at() == t) {
                latest = latest.max(seen(seg, t, true));
            }
        }
        latest
    }

    /// RACK: every retransmission of this recovery sent before `latest` (send time, then
    /// segment) and not delivered by the ACK up to `ack` is lost again: it goes to the
    /// front of the send queue. Retransmissions are kept in the order sent, so the walk
    /// stops at the first one sent after `latest`.
    #[inline(never)]
    pub(super) fn rack_detect(&mut self, ack: u64, latest: (Nanos, u64)) {
        let Some(r) = self.rack.as_mut() else { return };
        while let Some(&(seg, t)) = r.out.front() {
            if seg < ack || self.board.is_sacked(seg) {
                r.pop_out(); // delivered
            } else if (t, seg) < latest {
                r.pop_out();
                r.resend.push_back(seg);
                self.counters.lost_retransmissions += 1;
            } else {
                break;
            }
        }
    }

    /// RACK: retransmissions found lost again and not yet sent again (they are not in
    /// flight, although RFC 6675's pipe counts every segment below HighRxt as a
    /// retransmission in flight).
    #[inline]
    pub(super) fn rack_pending(&self) -> u64 {
        let Some(r) = self.rack.as_ref() else { return 0 };
        r.resend.iter().filter(|&&s| self.board.is_unsacked(s)).count() as u64
    }

    /// RACK: the next retransmission found lost again that is still outstanding.
    #[inline]
    pub(super) fn rack_next_resend(&mut self) -> Option<u64> {
        let r = self.rack.as_mut()?;
        std::iter::from_fn(|| r.resend.pop_front()).find(|&s| self.board.is_unsacked(s))
    }

    /// Whether the engine's timer of this sender is its retransmission timer (not a tail
    /// loss probe or RACK's reordering timer, `rack_tlp`).
    pub fn timer_is_rto(&self) -> bool {
        self.rack.as_ref().is_none_or(|r| r.timer == RackTimer::Rto)
    }

    /// RACK-TLP: the retransmission timer's own deadline back in `rto_due_at` (the ACK
    /// then restarts or keeps it as RFC 6298 says; [`Sender::rack_arm`] puts an earlier
    /// probe or reordering deadline in front again).
    #[inline]
    pub(super) fn rack_restore_rto(&mut self) {
        if let Some(r) = self.rack.as_mut() {
            if r.timer != RackTimer::Rto {
                r.timer = RackTimer::Rto;
                self.rto_due_at = r.rto_at.unwrap_or(NO_TIMER);
            }
        }
    }

    /// RACK (RFC 8985 §6.2 steps 1-2) outside recovery, before `a` updates the board: the
    /// latest segment it delivers, and RACK.rtt.
    pub(super) fn rack_advance(&mut self, a: &AckPkt, now: Nanos) {
        if let Some(l) = self.rack_latest_delivered(a, now) {
            let r = self.rack.as_mut().expect("RACK state");
            if r.latest.is_none_or(|x| l > x) {
                r.latest = Some(l);
                r.rtt = now - l.0;
            }
        }
    }

    /// RACK outside recovery (§6.2 step 5): when snd_una is lost — unSACKed, sent before the
    /// latest segment delivered, RACK.rtt plus the reordering window after it was sent (the
    /// window min RTT / 4 while fewer than DupThresh segments are SACKed, else 0: Linux's
    /// `tcp_rack_reo_wnd` without reordering seen). None: nothing says it is lost.
    pub(super) fn rack_una_lost_at(&self) -> Option<Nanos> {
        let r = self.rack.as_ref()?;
        let una = self.tcb.snd_una;
        if una >= self.tcb.high_tx || !self.board.is_unsacked(una) {
            return None;
        }
        let sent = self.board.get(una)?.sent_at();
        // (Sent in the same instant: in sequence order, as Linux's tcp_rack_sent_after.)
        if (sent, una) >= r.latest? {
            return None;
        }
        let reo = if self.board.sacked_count() >= self.tcb.dupack_threshold as u64 { 0 } else { self.tcb.min_rtt.unwrap_or(0) / 4 };
        Some(sent + r.rtt + reo)
    }

    /// Whether RACK finds snd_una lost at `now` ([`Sender::rack_una_lost_at`]).
    #[inline]
    pub(super) fn rack_una_lost(&self, now: Nanos) -> bool {
        self.rack_una_lost_at().is_some_and(|t| t <= now)
    }

    /// After an ACK, RACK-TLP's timers (RFC 8985 §6.3, §7.2): the reordering timer while
    /// snd_una will be lost by time, else in Open state with data in flight and no probe
    /// outstanding a tail loss probe 2·SRTT on (+ 200 ms with one segment in flight, Linux's
    /// TCP_RTO_MIN for a delayed ACK; + 2 ms otherwise, TCP_TIMEOUT_MIN), either only if
    /// earlier than the retransmission timer.
    pub(super) fn rack_arm(&mut self, now: Nanos) {
        let (una, high) = (self.tcb.snd_una, self.tcb.high_tx);
        let rto = self.rto_due_at;
        let state = self.tcb.state;
        let reo = if matches!(state, CaState::Open | CaState::Disorder) { self.rack_una_lost_at() } else { None };
        let srtt = self.tcb.srtt;
        let Some(r) = self.rack.as_mut() else { return };
        if r.tlp_high.is_some_and(|h| una >= h) {
            r.tlp_high = None;
        }
        let early = if let Some(t) = reo {
            Some((t.max(now), RackTimer::Reo))
        } else if state == CaState::Open && una < high && r.tlp_high.is_none() {
            srtt.map(|s| {
                let extra = if high - una == 1 { 200 * crate::time::NS_PER_MS } else { 2 * crate::time::NS_PER_MS };
                (now + 2 * s + extra, RackTimer::Probe)
            })
        } else {
            None
        };
        if let Some((t, kind)) = early {
            if rto != NO_TIMER && t < rto {
                (r.timer, r.rto_at) = (kind, Some(rto));
                self.rto_due_at = t;
            }
        }
    }

    /// The tail loss probe (RFC 8985 §7.3, Linux's `tcp_send_loss_probe`): a new segment if
    /// the receiver's window allows (whatever cwnd says), else the last one sent again; then
    /// the retransmission timer from now.
    pub(super) fn send_loss_probe(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        let (una, high) = (self.tcb.snd_una, self.tcb.high_tx);
        if una >= high || self.tcb.state != CaState::Open {
            return; // (acknowledged meanwhile; the restored timer stands)
        }
        if high < self.rwnd_end() {
            self.transmit(high, now, out);
            self.tcb.snd_nxt = self.tcb.high_tx;
        } else if self.board.is_unsacked(high - 1) {
            self.transmit(high - 1, now, out);
        } else {
            return;
        }
        self.counters.loss_probes += 1;
        let r = self.rack.as_mut().expect("RACK state");
        r.tlp_high = Some(self.tcb.high_tx);
        self.rto_due_at = now + self.tcb.rto;
    }

    /// RACK on any ACK outside recovery (an ACK that advances snd_una to a hole too, not
    /// only a duplicate): snd_una lost by time starts fast recovery before new data goes out
    /// (so the retransmission leads the burst), as a duplicate ACK would. Whether it did.
    pub(super) fn rack_check_entry(&mut self, sacked: u64, now: Nanos, out: &mut Vec<Tx>) -> bool {
        let enter = matches!(self.tcb.state, CaState::Open | CaState::Disorder)
            && self.tcb.snd_una >= self.tcb.recover
            && self.rack_una_lost(now);
        if enter {
            self.fast_retransmit(sacked * self.tcb.mss, now, out);
        }
        enter
    }

    /// RACK's reordering timer fires (§6.3): snd_una lost now starts fast recovery.
    pub(super) fn on_reo_timeout(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        if self.rack_check_entry(0, now, out) {
            self.send_loop(now, out);
        }
        self.rack_arm(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs follow `out` as entries are pushed and popped: each run's last entry is the
    /// newest entry of that segment before the next other segment's.
    #[test]
    fn runs_follow_the_retransmissions() {
        use crate::rng::{stream, RngExt};
        let mut g = stream(3, 4);
        let mut r = RackRetx::default();
        let mut t = 0;
        for _ in 0..5000 {
            if g.random_range(0..3) > 0 {
                t += g.random_range(0..3u64);
                r.push_out(g.random_range(0..4u64), t);
            } else if !r.out.is_empty() {
                r.pop_out();
            }
            let flat: Vec<(u64, Nanos)> = r.out.iter().enumerate().filter(|&(i, e)| r.out.get(i + 1).is_none_or(|n| n.0 != e.0)).map(|(_, &e)| e).collect();
            assert_eq!(r.run_ends().collect::<Vec<_>>(), flat);
            assert_eq!(r.runs.iter().map(|&(_, n)| n).sum::<usize>(), r.out.len());
        }
        r.clear_out();
        assert!(r.runs.is_empty() && r.out.is_empty());
    }
}
