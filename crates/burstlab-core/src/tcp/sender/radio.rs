//! The radio of the slotted mode's `radio` queue discipline (`sim/scenario.rs`
//! [`crate::sim::SenderQueue`]; docs/study.md "The sender's queue"): a TinyOS radio accepts
//! one packet at a time (a second send is refused until the first one's sendDone), so the
//! TCP above it picks its next segment only when the radio is free: a pull model. The
//! sender's send loops ask [`RadioGate::may_send`] before each segment they release (the
//! pacer's seam, `Sender::pace_gate`); a held sender goes on when the engine wakes it at the
//! end of the slot that carries its last packet ([`Sender::radio_placed`],
//! [`Sender::on_radio_wake`]). So after a timeout the next packet the radio takes is
//! snd_una, and no stale copy waits behind it. The retransmissions a sender sends at once (a
//! fast retransmit, a partial ACK's) are not held: one may wait for the slot after the one
//! the radio's packet holds. A paced sender (BBR) waits for both its pacer and its radio:
//! each has its own wake-up, and each wake-up checks that it is its gate's current one.
use super::{Sender, Tx, NO_TIMER};
use crate::time::Nanos;

/// A sender's radio (inactive in every other mode: [`RadioGate::free`] stays 0, so it never
/// holds).
#[derive(Clone, Copy, Debug)]
pub struct RadioGate {
    /// The sender hands its packets to a radio ([`Sender::use_radio`]).
    pub on: bool,
    /// When the radio is free: the end of the slot of its last packet (`Nanos::MAX` from a
    /// transmission until the engine has placed it in its slot; 0: free from the start).
    pub free: Nanos,
    /// A send loop stopped for the radio since the engine last looked.
    held: bool,
    /// The wake-up the engine has scheduled ([`NO_TIMER`]: none).
    sched: Nanos,
}

impl Default for RadioGate {
    fn default() -> Self {
        RadioGate { on: false, free: 0, held: false, sched: NO_TIMER }
    }
}

impl RadioGate {
    /// Whether a segment may go to the radio at `now`; if not, the sender is held.
    #[inline(always)]
    pub fn may_send(&mut self, now: Nanos) -> bool {
        if now < self.free {
            self.held = true;
            return false;
        }
        true
    }

    /// A segment went to the radio: it is busy until the engine places it.
    #[inline(always)]
    pub fn on_sent(&mut self) {
        if self.on {
            self.free = NO_TIMER;
        }
    }
}

impl Sender {
    /// This sender hands its packets to a radio, one at a time (the slotted mode's `radio`).
    pub fn use_radio(&mut self) {
        self.radio = RadioGate { on: true, ..RadioGate::default() };
    }

    /// The engine has placed the sender's last packet in its slot, which ends at `end` (None:
    /// no packet since the last call); returns the time of a wake-up to schedule, if the
    /// sender is held and has none scheduled at or before the radio's next free time.
    pub fn radio_placed(&mut self, end: Option<Nanos>) -> Option<Nanos> {
        let r = &mut self.radio;
        if let Some(e) = end {
            r.free = e;
        }
        debug_assert!(r.free != NO_TIMER, "every packet sent is placed before the engine asks");
        if !r.held {
            return None;
        }
        r.held = false;
        if r.sched <= r.free {
            return None; // an earlier wake-up finds it still busy and asks again
        }
        r.sched = r.free;
        Some(r.free)
    }

    /// The wake-up scheduled for `at` fires: whether it is the sender's current one (a
    /// superseded one is ignored); if so, send what the windows allow (`FULL`: the full
    /// engine's send loop, else the paced plain engine's).
    pub fn on_radio_wake<const FULL: bool>(&mut self, at: Nanos, now: Nanos, out: &mut Vec<Tx>) -> bool {
        if self.radio.sched != at {
            return false;
        }
        self.radio.sched = NO_TIMER;
        if FULL {
            self.send_loop(now, out);
        } else {
            self.send_loop_in::<false, true, false>(now, out);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::TcpConfig;

    const SLOT: Nanos = 10_000_000;

    /// A NewReno sender with an initial window of 4 segments, on a radio.
    fn radio_sender() -> Sender {
        let t = TcpConfig { init_cwnd: 4, ..TcpConfig::default() };
        let mut s = Sender::from_config(&t, None);
        s.use_radio();
        s
    }

    fn segs(out: &[Tx]) -> Vec<u64> {
        out.iter().map(|t| t.seg).collect()
    }

    #[test]
    fn the_radio_takes_one_segment_per_slot() {
        let mut s = radio_sender();
        let mut out = Vec::new();
        // The window allows 4; the radio takes one, the sender is held.
        s.start(0, &mut out);
        assert_eq!(segs(&out), [0]);
        out.clear();
        // The engine puts it in slot 0: the sender is woken at its end, once.
        assert_eq!(s.radio_placed(Some(SLOT)), Some(SLOT));
        assert_eq!(s.radio_placed(None), None, "not held again since");
        // A wake-up for another time is a superseded one: ignored.
        assert!(!s.on_radio_wake::<true>(SLOT / 2, SLOT / 2, &mut out));
        assert!(s.on_radio_wake::<true>(SLOT, SLOT, &mut out));
        assert_eq!(segs(&out), [1]);
        out.clear();
        assert_eq!(s.radio_placed(Some(2 * SLOT)), Some(2 * SLOT));
        // Without a radio the same sender releases its whole window at once.
        let mut plain = Sender::from_config(&TcpConfig { init_cwnd: 4, ..TcpConfig::default() }, None);
        plain.start(0, &mut out);
        assert_eq!(segs(&out), [0, 1, 2, 3]);
    }

    #[test]
    fn after_a_timeout_the_next_packet_is_snd_una() {
        let mut s = radio_sender();
        let mut out = Vec::new();
        // Segments 0, 1, 2 go one slot after the other, each at its wake-up; none is
        // acknowledged.
        s.start(0, &mut out);
        for k in 0..3 {
            assert_eq!(segs(&out), [k]);
            out.clear();
            let end = (k + 1) * SLOT;
            assert_eq!(s.radio_placed(Some(end)), Some(end));
            assert!(s.on_radio_wake::<true>(end, end, &mut out));
        }
        // Segment 3 waits in the radio for a slot that ACKs hold (`ack_path = trace`): it
        // is busy for 200 slots (2 s, beyond the 1-s initial RTO).
        let now = 3 * SLOT;
        assert_eq!(segs(&out), [3]);
        out.clear();
        let free = now + 200 * SLOT;
        s.radio_placed(Some(free));
        // The timeout fires while the radio holds segment 3: go back to snd_una = 0, but
        // nothing goes until the radio is free.
        let rto = s.rto_deadline().expect("a timer running");
        assert!(rto < free);
        s.on_rto(rto, &mut out);
        assert!(out.is_empty(), "the radio is busy: {:?}", segs(&out));
        assert_eq!(s.tcb.snd_nxt, 0);
        assert_eq!(s.radio_placed(None), Some(free));
        assert!(s.on_radio_wake::<true>(free, free, &mut out));
        assert_eq!(segs(&out), [0], "the first packet after the timeout is snd_una");
        assert!(out[0].retx);
    }
}
