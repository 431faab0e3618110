//! Per-segment sender state for the outstanding window [snd_una, high_tx): first send
//! time (RTT samples), whether it was retransmitted (Karn's rule, RFC 6298 §3) and
//! whether the receiver SACKed it (RFC 6675 §2 scoreboard). A ring buffer that grows to
//! the largest window once and is reused, so the per-packet path never allocates.
use crate::time::Nanos;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, Default)]
pub struct SegState {
    pub sent_at: Nanos,
    pub retransmitted: bool,
    pub sacked: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Entry `i` is segment `base + i`.
    segs: VecDeque<SegState>,
    base: u64,
    /// Number of SACKed entries.
    sacked: u64,
    /// One past the highest SACKed segment (RFC 6675's "highest SACKed"), or `base`.
    high_sacked: u64,
}

impl Scoreboard {
    pub fn with_capacity(n: usize) -> Self {
        Scoreboard { segs: VecDeque::with_capacity(n), ..Default::default() }
    }

    #[inline]
    pub fn base(&self) -> u64 {
        self.base
    }
    #[inline]
    pub fn end(&self) -> u64 {
        self.base + self.segs.len() as u64
    }
    #[inline]
    pub fn sacked_count(&self) -> u64 {
        self.sacked
    }
    #[inline]
    pub fn high_sacked(&self) -> u64 {
        self.high_sacked.max(self.base)
    }

    /// A new segment (its number must be `end()`).
    #[inline]
    pub fn push(&mut self, seg: u64, now: Nanos) {
        debug_assert_eq!(seg, self.end());
        self.segs.push_back(SegState { sent_at: now, retransmitted: false, sacked: false });
    }

    #[inline]
    pub fn get(&self, seg: u64) -> Option<&SegState> {
        seg.checked_sub(self.base).and_then(|i| self.segs.get(i as usize))
    }

    #[inline]
    pub fn get_mut(&mut self, seg: u64) -> Option<&mut SegState> {
        seg.checked_sub(self.base).and_then(|i| self.segs.get_mut(i as usize))
    }

    /// Cumulative ACK up to `ack` (exclusive): forget those segments. Returns whether
    /// any of them had been retransmitted, and how many had been SACKed before.
    #[inline]
    pub fn advance(&mut self, ack: u64) -> (bool, u64) {
        let mut retx = false;
        let mut was_sacked = 0;
        while self.base < ack {
            if let Some(s) = self.segs.pop_front() {
                if s.sacked {
                    self.sacked -= 1;
                    was_sacked += 1;
                }
                retx |= s.retransmitted;
            }
            self.base += 1;
        }
        (retx, was_sacked)
    }

    /// Mark [start, end) SACKed (RFC 2018 block); returns how many segments were newly SACKed.
    pub fn mark_sacked(&mut self, start: u64, end: u64) -> u64 {
        let s = start.max(self.base);
        let e = end.min(self.end());
        let mut n = 0;
        for seg in s..e {
            let st = &mut self.segs[(seg - self.base) as usize];
            if !st.sacked {
                st.sacked = true;
                n += 1;
            }
        }
        self.sacked += n;
        if e > s && e > self.high_sacked {
            self.high_sacked = e;
        }
        n
    }

    /// SACKed segments in [from, to).
    pub fn sacked_between(&self, from: u64, to: u64) -> u64 {
        if self.sacked == 0 {
            return 0;
        }
        (from.max(self.base)..to.min(self.end()).min(self.high_sacked())).filter(|&s| self.segs[(s - self.base) as usize].sacked).count() as u64
    }

    /// SACKed segments above `seg` (exclusive) in the window.
    pub fn sacked_above(&self, seg: u64) -> u64 {
        let from = (seg + 1).max(self.base);
        (from..self.high_sacked().max(from)).filter(|&s| self.get(s).is_some_and(|x| x.sacked)).count() as u64
    }

    /// RFC 6675 §4 IsLost(seg): at least DupThresh segments above it are SACKed (with
    /// equal-sized segments "DupThresh discontiguous SACKed sequences" or "more than
    /// (DupThresh − 1)·SMSS bytes SACKed" both reduce to this).
    pub fn is_lost(&self, seg: u64, dupthresh: u32) -> bool {
        self.get(seg).is_some_and(|x| !x.sacked) && self.sacked_above(seg) >= dupthresh as u64
    }

    /// RFC 6675 §4 SetPipe: segments in [base, high_tx) not SACKed count once if not
    /// lost and once more if at or below HighRxt (`high_rxt` is exclusive).
    pub fn pipe(&self, high_tx: u64, high_rxt: u64, dupthresh: u32) -> u64 {
        let mut pipe = 0;
        let mut above = 0u64; // SACKed segments above the current one
        let end = high_tx.min(self.end());
        for seg in (self.base..end).rev() {
            let st = &self.segs[(seg - self.base) as usize];
            if st.sacked {
                above += 1;
                continue;
            }
            if above < dupthresh as u64 {
                pipe += 1;
            }
            if seg < high_rxt {
                pipe += 1;
            }
        }
        pipe
    }

    /// RFC 6675 §4 NextSeg rules 1 and 3: the first unSACKed segment at or above
    /// `high_rxt` and below the highest SACKed one, preferring one that IsLost
    /// (rule 1); `allow_rule3` returns a not-lost one when no lost one exists.
    pub fn next_retransmission(&self, high_rxt: u64, dupthresh: u32, allow_rule3: bool) -> Option<u64> {
        let hs = self.high_sacked();
        let from = high_rxt.max(self.base);
        if from >= hs {
            return None;
        }
        // SACKed segments in [from, hs).
        let mut above: u64 = (from..hs).filter(|&s| self.segs[(s - self.base) as usize].sacked).count() as u64;
        let mut first_unsacked = None;
        for seg in from..hs {
            let st = &self.segs[(seg - self.base) as usize];
            if st.sacked {
                above -= 1;
                continue;
            }
            if above >= dupthresh as u64 {
                return Some(seg);
            }
            if first_unsacked.is_none() {
                first_unsacked = Some(seg);
            }
        }
        if allow_rule3 {
            first_unsacked
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::with_capacity(16);
        for s in 0..n {
            b.push(s, s);
        }
        b
    }

    #[test]
    fn sack_islost_pipe_nextseg() {
        // 10 segments out, 0 and 1 lost, 2..=5 SACKed.
        let mut b = board(10);
        assert_eq!(b.mark_sacked(2, 6), 4);
        assert_eq!(b.mark_sacked(3, 5), 0);
        assert_eq!(b.sacked_count(), 4);
        assert_eq!(b.high_sacked(), 6);
        assert!(b.is_lost(0, 3) && b.is_lost(1, 3));
        assert!(!b.is_lost(2, 3)); // SACKed
        assert!(!b.is_lost(6, 3)); // nothing SACKed above
        // pipe: 0, 1 lost (0), 2..5 SACKed (0), 6..9 in flight (4).
        assert_eq!(b.pipe(10, 0, 3), 4);
        // After retransmitting 0 (HighRxt = 1): +1.
        assert_eq!(b.pipe(10, 1, 3), 5);
        assert_eq!(b.next_retransmission(0, 3, false), Some(0));
        assert_eq!(b.next_retransmission(1, 3, false), Some(1));
        assert_eq!(b.next_retransmission(2, 3, false), None);
        b.advance(2);
        assert_eq!((b.base(), b.sacked_count()), (2, 4));
        b.advance(6);
        assert_eq!((b.base(), b.sacked_count(), b.end()), (6, 0, 10));
    }

    #[test]
    fn rule3_when_nothing_is_lost() {
        let mut b = board(6);
        b.mark_sacked(1, 2); // one SACKed segment: 0 is not yet lost
        assert_eq!(b.next_retransmission(0, 3, false), None);
        assert_eq!(b.next_retransmission(0, 3, true), Some(0));
    }
}
