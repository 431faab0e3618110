//! Trace replay. Packet-indexed: packet n gets entry n of the trace. Time-indexed (Ttem,
//! Barsocchi et al. §III-IV): entry i describes the channel during the slot [i·S, (i+1)·S) and
//! a packet in transit during [start, end) is lost iff any slot it overlaps is bad
//! (a zero-length packet: the slot containing `start`). Bits: 1 = good, 0 = lost/bad
//! (Ttem files use the opposite polarity; convert when reading them).
//!
//! What happens past the end of the trace is an explicit choice ([`EndBehavior`]).
use super::{check_pos_ns, LossModel};
use crate::rng::Rng;
use crate::time::Nanos;
use crate::trace::BitTrace;
use crate::Error;

use super::spec::{gt, loss_param, LossKind, LossModelSpec, SpecDefault};

/// `replay:file=PATH[,end=wrap,slot=0.005]`.
pub const SPEC: LossModelSpec = LossModelSpec {
    name: "replay",
    aliases: &[],
    help: "Replays a trace: per packet, or time-indexed in slots (Ttem).",
    reference: "Barsocchi et al., Packet Loss in TCP Hybrid Wireless Networks (Ttem)",
    forms: &[&["file", "end", "slot"]],
    params: &[
        loss_param("replay", "file", LossKind::Path, "", SpecDefault::Required, None, None, "The trace file (any format burstlab reads).", ""),
        loss_param("replay", "end", LossKind::Choice(&["wrap", "deliver", "drop", "hold"]), "", SpecDefault::Is("wrap"), None, None, "After the trace's end: start again, deliver, drop, or hold the last entry.", ""),
        loss_param("replay", "slot", LossKind::Real, "s", SpecDefault::Absent, gt(0.0), None, "Time-indexed: each entry covers this long (left out: one entry per packet).", "Barsocchi et al. (Ttem)"),
    ],
};

crate::named_enum!(
    /// What a replayed trace does after its last entry (the spec key `end`).
    EndBehavior, "end" {
        /// Start over from the first entry (a periodic channel).
        Wrap = "wrap",
        /// Everything after the end is delivered.
        Deliver = "deliver",
        /// Everything after the end is lost.
        Drop = "drop",
        /// The last entry repeats forever.
        HoldLast = "hold",
    }
);

#[derive(Clone, Debug)]
pub struct Replay {
    bits: BitTrace,
    /// Time-indexed slot length (ns); None = packet-indexed only (time mode then treats each
    /// call as the next packet).
    slot: Option<Nanos>,
    end: EndBehavior,
    n: u64,
}

impl Replay {
    pub fn new(bits: BitTrace, slot: Option<Nanos>, end: EndBehavior) -> crate::Result<Self> {
        if bits.is_empty() {
            return Err(Error::param("trace", "an empty trace", "at least one entry to replay"));
        }
        if let Some(s) = slot {
            check_pos_ns("slot", s)?;
        }
        Ok(Replay { bits, slot, end, n: 0 })
    }

    pub fn end_behavior(&self) -> EndBehavior {
        self.end
    }

    pub fn slot(&self) -> Option<Nanos> {
        self.slot
    }

    pub fn bits(&self) -> &BitTrace {
        &self.bits
    }

    /// Entry i (true = delivered), after the end as chosen.
    #[inline]
    fn good(&self, i: u64) -> bool {
        let len = self.bits.len() as u64;
        if i < len {
            return self.bits.get(i as usize);
        }
        match self.end {
            EndBehavior::Wrap => self.bits.get((i % len) as usize),
            EndBehavior::Deliver => true,
            EndBehavior::Drop => false,
            EndBehavior::HoldLast => self.bits.get(len as usize - 1),
        }
    }
}

impl Replay {
    /// Are entries first..=last all good (after the end as chosen)? Counts whole words.
    fn all_good(&self, first: u64, last: u64) -> bool {
        let len = self.bits.len() as u64;
        let ones_in = |a: u64, b: u64| self.bits.count_ones_range(a as usize, b as usize) == b - a; // [a, b)
        if last < len {
            return ones_in(first, last + 1);
        }
        match self.end {
            EndBehavior::Wrap => {
                if last - first + 1 >= len {
                    return self.bits.count_ones() == len;
                }
                let (a, b) = (first % len, last % len);
                if a <= b {
                    ones_in(a, b + 1)
                } else {
                    ones_in(a, len) && ones_in(0, b + 1)
                }
            }
            EndBehavior::Deliver => first >= len || ones_in(first, len),
            EndBehavior::Drop => false,
            EndBehavior::HoldLast => (first >= len || ones_in(first, len)) && self.bits.get(len as usize - 1),
        }
    }
}

impl LossModel for Replay {
    fn name(&self) -> &'static str {
        if self.slot.is_some() {
            "replay-time"
        } else {
            "replay"
        }
    }

    fn lost_packet(&mut self, _rng: &mut Rng) -> bool {
        let i = self.n;
        self.n += 1;
        !self.good(i)
    }

    fn lost_in_transit(&mut self, start: Nanos, end: Nanos, rng: &mut Rng) -> bool {
        let Some(slot) = self.slot else {
            return self.lost_packet(rng);
        };
        let first = start / slot;
        // Slots overlapping [start, end): first ..= (end − 1) / slot.
        let last = if end > start { (end - 1) / slot } else { first };
        !self.all_good(first, last)
    }

    fn reset(&mut self) {
        self.n = 0;
    }

    /// Long-run loss: the trace's loss fraction when wrapping, 0/1 for deliver/drop, the
    /// last entry for hold.
    fn mean_loss(&self) -> Option<f64> {
        let len = self.bits.len() as f64;
        Some(match self.end {
            EndBehavior::Wrap => (len - self.bits.count_ones() as f64) / len,
            EndBehavior::Deliver => 0.0,
            EndBehavior::Drop => 1.0,
            EndBehavior::HoldLast => !self.bits.get(self.bits.len() - 1) as u8 as f64,
        })
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }

    /// Copies whole words while inside the trace.
    fn sample_into(&mut self, n: usize, _rng: &mut Rng, out: &mut BitTrace) {
        let mut left = n as u64;
        let len = self.bits.len() as u64;
        while left > 0 {
            if self.n < len {
                let k = (len - self.n).min(left).min(64);
                out.push_word(self.bits.bits_at(self.n as usize, k as usize), k as usize);
                self.n += k;
                left -= k;
            } else if self.end == EndBehavior::Wrap {
                let k = (len - self.n % len).min(left).min(64);
                out.push_word(self.bits.bits_at((self.n % len) as usize, k as usize), k as usize);
                self.n += k;
                left -= k;
            } else {
                let v = self.good(self.n);
                let mut w = super::fill::BitWriter::new(out);
                w.push_run(v, left);
                w.finish();
                self.n += left;
                left = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;

    fn tr() -> BitTrace {
        BitTrace::from_str01("1101001111").unwrap()
    }

    #[test]
    fn packet_replay_each_end_behavior() {
        let mut r = from_seed(0);
        let cases = [
            (EndBehavior::Wrap, "1101001111110100111111"),
            (EndBehavior::Deliver, "1101001111111111111111"),
            (EndBehavior::Drop, "1101001111000000000000"),
            (EndBehavior::HoldLast, "1101001111111111111111"),
        ];
        for (end, want) in cases {
            let mut m = Replay::new(tr(), None, end).unwrap();
            let mut t = BitTrace::new();
            m.sample_into(22, &mut r, &mut t);
            assert_eq!(t, BitTrace::from_str01(want).unwrap(), "{end:?}");
            // The per-packet path agrees.
            m.reset();
            let slow: Vec<bool> = (0..22).map(|_| !m.lost_packet(&mut r)).collect();
            assert_eq!(BitTrace::from_bools(slow), t);
        }
        let mut m = Replay::new(BitTrace::from_str01("10").unwrap(), None, EndBehavior::HoldLast).unwrap();
        assert!(!m.lost_packet(&mut r));
        assert!(m.lost_packet(&mut r));
        assert!(m.lost_packet(&mut r));
    }

    #[test]
    fn time_replay_overlaps_slots() {
        let mut r = from_seed(0);
        // Ttem: 5 ms slots.
        let ms = crate::time::NS_PER_MS;
        let mut m = Replay::new(tr(), Some(5 * ms), EndBehavior::Deliver).unwrap();
        assert!(!m.lost_in_transit(0, 10 * ms, &mut r)); // slots 0, 1 good
        assert!(m.lost_in_transit(9 * ms, 11 * ms, &mut r)); // slots 1, 2: 2 is bad
        assert!(!m.lost_in_transit(15 * ms, 15 * ms, &mut r)); // zero-length in slot 3
        assert!(m.lost_in_transit(20 * ms, 20 * ms, &mut r)); // slot 4 bad
        assert!(!m.lost_in_transit(100 * ms, 200 * ms, &mut r)); // past the end: delivered
        let mut w = Replay::new(tr(), Some(5 * ms), EndBehavior::Wrap).unwrap();
        assert!(w.lost_in_transit(60 * ms, 61 * ms, &mut r)); // slot 12 = slot 2
        assert!(w.lost_in_transit(0, 1000 * ms, &mut r));
        // Every span against the slot-by-slot definition, for every end behaviour.
        for end in [EndBehavior::Wrap, EndBehavior::Deliver, EndBehavior::Drop, EndBehavior::HoldLast] {
            let mut m = Replay::new(BitTrace::from_str01("1110111111011").unwrap(), Some(ms), end).unwrap();
            for a in 0..40u64 {
                for len in 0..30u64 {
                    let (s, e) = (a * ms + 3, a * ms + 3 + len * ms / 2);
                    let last = if e > s { (e - 1) / ms } else { s / ms };
                    let naive = (s / ms..=last).any(|i| !m.good(i));
                    assert_eq!(m.all_good(s / ms, last), !naive, "{end:?} {a} {len}");
                }
            }
            m.reset();
        }
        assert_eq!(w.mean_loss(), Some(0.3));
    }

    #[test]
    fn rejects_empty_trace_and_bad_end() {
        assert!(Replay::new(BitTrace::new(), None, EndBehavior::Wrap).unwrap_err().to_string().contains("trace ="));
        assert!(EndBehavior::parse("loop").unwrap_err().to_string().contains("end ="));
    }
}
