//! Per-segment sender state for the outstanding window [snd_una, high_tx): first send
//! time (RTT samples), whether it was retransmitted (Karn's rule, RFC 6298 §3) and
//! whether the receiver SACKed it (RFC 6675 §2 scoreboard). A ring buffer that grows to
//! the largest window once and is reused, so the per-packet path never allocates. The
//! SACK marks are a bit set beside it, so that RFC 6675's counts over a range of the
//! window (SetPipe's, the send loop's after a timeout) take a popcount per 64 segments.
use crate::time::Nanos;
use std::cell::Cell;
use std::collections::VecDeque;

/// A word with its `n` lowest bits set (n ≤ 64).
#[inline(always)]
fn low_bits(n: u64) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct SegState {
    pub sent_at: Nanos,
    pub retransmitted: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Entry `i` is segment `base + i`.
    segs: VecDeque<SegState>,
    /// The SACK marks: bit `seg mod 64·len` is set iff segment `seg`, on the board, is
    /// SACKed (every other bit is clear). Its length in bits is a power of two, at least the
    /// board's.
    bits: Vec<u64>,
    base: u64,
    /// Number of SACKed entries.
    sacked: u64,
    /// One past the highest SACKed segment (RFC 6675's "highest SACKed"), or `base`.
    high_sacked: u64,
    /// The last blocks marked, each wholly SACKed (a segment never loses its mark while it
    /// is on the board), so a block the receiver repeats costs only its new part.
    marked: [(u64, u64); 4],
    next_marked: usize,
    /// SACKed segments in [base, to): (to, count), `to` ≥ base, kept by the marks and the
    /// advances, so that a count from the base (SetPipe's over [snd_una, HighRxt)) costs only
    /// how far its end moved since the last one, not the window (issue 34: HighRxt 10^6
    /// segments above snd_una made every ACK count them).
    below: Cell<(u64, u64)>,
    /// [`Scoreboard::lost_below`]'s last walk, (DupThresh, answer); DupThresh 0: none since
    /// the marks or the base last changed. The send loops and LT-TCP ask it several times
    /// per ACK; the answer changes only when a segment is SACKed or acknowledged.
    lost_memo: Cell<(u32, u64)>,
    /// [`Scoreboard::pipe_sacked`]'s last answer, (DupThresh, HighData, HighRxt, pipe);
    /// DupThresh 0: none. Cleared with `lost_memo`: a flow whose congestion control reads
    /// the delivery rate (BBR) asks for the same pipe twice per ACK in recovery (its sample's
    /// in-flight count, then the send loop).
    pipe_memo: Cell<(u32, u64, u64, u64)>,
}

impl Scoreboard {
    pub fn with_capacity(n: usize) -> Self {
        Scoreboard {
            segs: VecDeque::with_capacity(n),
            bits: vec![0; n.max(64).next_power_of_two() / 64],
            ..Default::default()
        }
    }

    /// The bit of segment `seg`: (word, mask).
    #[inline(always)]
    fn bit(&self, seg: u64) -> (usize, u64) {
        let i = seg as usize & (self.bits.len() * 64 - 1);
        (i >> 6, 1 << (i & 63))
    }

    /// The piece of [x, to) (x < to, within the board) in segment x's word of marks:
    /// (word, x's bit in it, segments, their mask).
    #[inline(always)]
    fn span(&self, x: u64, to: u64) -> (usize, u64, u64, u64) {
        let i = x & (self.bits.len() as u64 * 64 - 1);
        let off = i & 63;
        let take = (64 - off).min(to - x);
        ((i >> 6) as usize, off, take, low_bits(take) << off)
    }

    /// Whether segment `seg`, on the board, is SACKed.
    #[inline]
    fn sacked_bit(&self, seg: u64) -> bool {
        let (w, m) = self.bit(seg);
        self.bits[w] & m != 0
    }

    #[inline]
    fn set_sacked_bit(&mut self, seg: u64) {
        let (w, m) = self.bit(seg);
        self.bits[w] |= m;
    }

    /// The marks or the base change: the memos no longer hold.
    #[inline(always)]
    fn forget(&self) {
        self.lost_memo.set((0, 0));
        self.pipe_memo.set((0, 0, 0, 0));
    }

    /// Room for a board twice as long (the marks re-laid for the new modulus).
    #[cold]
    fn grow_bits(&mut self) {
        let old = std::mem::take(&mut self.bits);
        let old_bits = old.len() as u64 * 64;
        self.bits = vec![0; (old.len() * 2).max(1)];
        for seg in self.base..self.end() {
            let i = seg % old_bits.max(1);
            if !old.is_empty() && old[(i / 64) as usize] >> (i % 64) & 1 != 0 {
                self.set_sacked_bit(seg);
            }
        }
    }

    /// Whether segment `seg` is on the board and SACKed.
    #[inline]
    pub fn is_sacked(&self, seg: u64) -> bool {
        seg >= self.base && seg < self.end() && self.sacked_bit(seg)
    }

    /// Whether segment `seg` is on the board and not SACKed.
    #[inline]
    pub fn is_unsacked(&self, seg: u64) -> bool {
        seg >= self.base && seg < self.end() && !self.sacked_bit(seg)
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
        if self.segs.len() >= self.bits.len() * 64 {
            self.grow_bits();
        }
        // Its bit is clear: the segment a modulus below it left the board unmarked.
        self.segs.push_back(SegState { sent_at: now, retransmitted: false });
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
    /// any of them had been retransmitted, how many had been SACKed before, and when
    /// segment `ack − 1` (the highest acknowledged) was last sent, if it was held.
    #[inline]
    pub fn advance(&mut self, ack: u64) -> (bool, u64, Option<Nanos>) {
        let mut retx = false;
        let mut was_sacked = 0;
        let mut newest = None;
        if self.base < ack {
            self.forget();
        }
        while self.base < ack {
            let popped = self.segs.pop_front();
            // The last segment popped is ack − 1, unless the segments ran out before it.
            newest = popped.map(|s| s.sent_at);
            if let Some(s) = popped {
                if self.sacked > 0 {
                    let (w, m) = self.bit(self.base);
                    if self.bits[w] & m != 0 {
                        self.bits[w] &= !m;
                        self.sacked -= 1;
                        was_sacked += 1;
                    }
                }
                retx |= s.retransmitted;
            }
            self.base += 1;
        }
        let (to, c) = self.below.get();
        // Every segment forgotten was below `ack`; if `to` is above it, they were all counted.
        self.below.set(if to <= self.base { (self.base, 0) } else { (to, c - was_sacked) });
        (retx, was_sacked, newest)
    }

    /// Mark [start, end) SACKed (RFC 2018 block); returns how many segments were newly SACKed.
    /// Only the part of the block no remembered block covers is marked (a receiver repeats
    /// its blocks on every ACK, each grown by what arrived since: the cost is that of the new
    /// data, not of the block; issue 34's fuzzer found a 0.05 s run at 10^9 packets/s whose
    /// one block grew to 10^6 segments and was re-marked on every ACK). The marks are set a
    /// word at a time and counted by popcount; the block is remembered in `marked` (also
    /// for `next_retransmission`).
    pub fn mark_sacked(&mut self, start: u64, end: u64) -> u64 {
        let s0 = start.max(self.base);
        let e0 = end.min(self.end());
        if e0 <= s0 {
            return 0;
        }
        let (s, e) = self.unmarked_part(s0, e0);
        let n = if s < e { self.set_marks(s, e) } else { 0 };
        let raised = e0 > self.high_sacked;
        if n > 0 || raised {
            // the lost boundary and the pipe read the marks and the highest SACKed segment
            self.sacked += n;
            self.high_sacked = self.high_sacked.max(e0);
            self.forget();
        }
        self.remember(s0, e0);
        n
    }

    /// [s, e) less what the remembered blocks cover at its ends (each remembered block is
    /// wholly marked on the board: a segment keeps its mark while it is on the board, and
    /// segment numbers are never reused). Empty (s ≥ e) when they cover all of it.
    #[inline]
    fn unmarked_part(&self, mut s: u64, mut e: u64) -> (u64, u64) {
        loop {
            let (s1, e1) = (s, e);
            for &(ms, me) in &self.marked {
                if ms <= s && me > s {
                    s = me; // covers its start
                } else if ms < e && me >= e && ms > s {
                    e = ms; // covers its end
                }
            }
            if s >= e || (s, e) == (s1, e1) {
                return (s, e);
            }
        }
    }

    /// Remember the marked block [s, e): in the slot of a remembered block it contains (the
    /// receiver's block grown since), else in the oldest slot.
    #[inline]
    fn remember(&mut self, s: u64, e: u64) {
        match self.marked.iter().position(|&(ms, me)| ms >= s && me <= e) {
            Some(k) => self.marked[k] = (s, e),
            None => {
                self.marked[self.next_marked] = (s, e);
                self.next_marked = (self.next_marked + 1) % self.marked.len();
            }
        }
    }

    /// Set every mark of [s, e), a word at a time (the range is within the board, so within
    /// one turn of the modulus; it may wrap once); returns how many were newly set.
    fn set_marks(&mut self, s: u64, e: u64) -> u64 {
        let (to, mut below) = self.below.get();
        let mut n = 0;
        let mut x = s;
        while x < e {
            let (k, off, take, mask) = self.span(x, e);
            let w = &mut self.bits[k];
            let new = mask & !*w;
            n += new.count_ones() as u64;
            if x < to {
                below += (new & (low_bits((to - x).min(take)) << off)).count_ones() as u64;
            }
            *w |= mask;
            x += take;
        }
        self.below.set((to, below));
        n
    }

    /// SACKed segments in [from, to).
    pub fn sacked_between(&self, from: u64, to: u64) -> u64 {
        if self.sacked == 0 {
            return 0;
        }
        let (x, to) = (from.max(self.base), to.min(self.end()).min(self.high_sacked()));
        if x >= to {
            return 0;
        }
        if x > self.base {
            return self.count_marks(x, to);
        }
        if to == self.high_sacked() {
            return self.sacked; // every SACKed segment is below the highest SACKed one's end
        }
        // From the base: the remembered count, moved to `to` (or counted afresh when that is
        // nearer).
        let (at, c) = self.below.get();
        if to >= at {
            let c = c + self.count_marks(at, to);
            self.below.set((to, c));
            c
        } else if at - to <= to - self.base {
            c - self.count_marks(to, at)
        } else {
            self.count_marks(self.base, to)
        }
    }

    /// SACKed segments in [x, to) (on the board), a popcount per word of the marks (the
    /// range is within the board, so within one turn of the modulus; it may wrap once).
    fn count_marks(&self, mut x: u64, to: u64) -> u64 {
        let mut n = 0;
        while x < to {
            let (k, _, take, mask) = self.span(x, to);
            n += (self.bits[k] & mask).count_ones() as u64;
            x += take;
        }
        n
    }

    /// The lowest segment that has fewer than `dupthresh` SACKed segments above it: every
    /// unSACKed segment below it is lost by RFC 6675 §4 IsLost (with equal-sized segments
    /// "DupThresh discontiguous SACKed sequences" or "more than (DupThresh − 1)·SMSS bytes
    /// SACKed" both reduce to DupThresh SACKed segments above). `base` when fewer than
    /// `dupthresh` are SACKed. Found by walking down from the highest SACKed segment, so it
    /// costs the distance to the `dupthresh`-th SACKed segment from the top.
    #[inline]
    pub fn lost_below(&self, dupthresh: u32) -> u64 {
        if self.sacked < dupthresh as u64 || dupthresh == 0 {
            return self.base;
        }
        let (t, answer) = self.lost_memo.get();
        if t == dupthresh {
            return answer;
        }
        let answer = self.walk_lost_below(dupthresh);
        self.lost_memo.set((dupthresh, answer));
        answer
    }

    /// [`Scoreboard::lost_below`]'s walk down from the highest SACKed segment, a word of
    /// marks at a time (a popcount per word; the word holding the `dupthresh`-th mark is then
    /// walked down its set bits).
    fn walk_lost_below(&self, dupthresh: u32) -> u64 {
        let nbits = self.bits.len() as u64 * 64;
        let mut found = 0u32;
        let mut top = self.high_sacked(); // segments [base, top) still to walk
        while top > self.base {
            let i = (top - 1) & (nbits - 1);
            let off = i & 63; // the bit of segment top − 1 in its word
            let take = (off + 1).min(top - self.base);
            let low = off + 1 - take; // the bit of segment top − take
            let mask = low_bits(take) << low;
            let mut w = self.bits[(i >> 6) as usize] & mask;
            let c = w.count_ones();
            if found + c >= dupthresh {
                loop {
                    let hb = 63 - w.leading_zeros() as u64;
                    found += 1;
                    if found == dupthresh {
                        return top - take + (hb - low);
                    }
                    w &= !(1u64 << hb);
                }
            }
            found += c;
            top -= take;
        }
        self.base
    }

    /// SACKed segments above `seg` (exclusive) in the window.
    pub fn sacked_above(&self, seg: u64) -> u64 {
        let from = (seg + 1).max(self.base);
        self.sacked_between(from, self.high_sacked().max(from))
    }

    /// RFC 6675 §4 IsLost(seg).
    #[inline]
    pub fn is_lost(&self, seg: u64, dupthresh: u32) -> bool {
        self.is_unsacked(seg) && seg < self.lost_below(dupthresh)
    }

    /// Unsacked segments in [from, to) (within the window).
    #[inline]
    fn unsacked_between(&self, from: u64, to: u64) -> u64 {
        let (from, to) = (from.max(self.base), to.min(self.end()));
        if from >= to {
            return 0;
        }
        (to - from) - self.sacked_between(from, to)
    }

    /// SACKed segments that were retransmitted (ns-3 3.44's `TcpTxBuffer` keeps such a
    /// segment in its in-flight count until the cumulative ACK passes it).
    pub fn sacked_retransmitted(&self) -> u64 {
        if self.sacked == 0 {
            return 0;
        }
        (self.base..self.high_sacked).filter(|&s| self.is_sacked(s) && self.segs[(s - self.base) as usize].retransmitted).count() as u64
    }

    /// RFC 6675 §4 SetPipe: segments in [base, high_tx) not SACKed count once if not
    /// lost and once more if below HighRxt (`high_rxt` is exclusive). With L =
    /// [`Scoreboard::lost_below`]: the unSACKed segments at or above L, plus those below
    /// HighRxt (the walk is over the region above L, which holds exactly DupThresh SACKed
    /// segments, and over [base, HighRxt), the holes being repaired).
    #[inline]
    pub fn pipe(&self, high_tx: u64, high_rxt: u64, dupthresh: u32) -> u64 {
        let end = high_tx.min(self.end());
        if self.sacked == 0 {
            // Nothing SACKed, nothing lost: every segment counts once, those below HighRxt twice.
            return (end - self.base) + high_rxt.min(end).saturating_sub(self.base);
        }
        self.pipe_sacked(end, high_rxt, dupthresh)
    }

    /// [`Scoreboard::pipe`] with SACKed segments on the board (`end`: HighData within it).
    fn pipe_sacked(&self, end: u64, high_rxt: u64, dupthresh: u32) -> u64 {
        let (t, e, h, answer) = self.pipe_memo.get();
        if t == dupthresh && e == end && h == high_rxt && t != 0 {
            return answer;
        }
        let answer = self.walk_pipe_sacked(end, high_rxt, dupthresh);
        self.pipe_memo.set((dupthresh, end, high_rxt, answer));
        answer
    }

    /// [`Scoreboard::pipe_sacked`] counted.
    fn walk_pipe_sacked(&self, end: u64, high_rxt: u64, dupthresh: u32) -> u64 {
        let lost_below = self.lost_below(dupthresh).min(end);
        let above = if lost_below == self.base {
            let sacked = if end >= self.high_sacked() { self.sacked } else { self.sacked_between(self.base, end) };
            (end - self.base) - sacked
        } else {
            // [L, high_sacked) holds dupthresh SACKed segments; above high_sacked none is SACKed.
            (end - lost_below) - dupthresh as u64
        };
        above + self.unsacked_between(self.base, high_rxt.min(end))
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
        // The first unSACKed segment at or above `from`, jumping over blocks marked whole,
        // else a word of marks at a time.
        let mut seg = from;
        let first_unsacked = loop {
            if seg >= hs {
                break None;
            }
            if let Some(me) = self.marked.iter().filter(|&&(ms, me)| ms <= seg && me > seg).map(|&(_, me)| me).max() {
                seg = me;
                continue;
            }
            let (k, off, take, mask) = self.span(seg, hs);
            let clear = !self.bits[k] & mask;
            if clear != 0 {
                break Some(seg + (clear.trailing_zeros() as u64 - off));
            }
            seg += take;
        };
        match first_unsacked {
            Some(s) if s < self.lost_below(dupthresh) => Some(s), // rule 1: the first lost one
            Some(s) if allow_rule3 => Some(s),
            _ => None,
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

    /// `advance` reports the retransmissions and SACKed segments it forgets and the send time
    /// of the highest acknowledged segment (Karn's sample, RFC 6298 §3), none when the ACK
    /// goes beyond what was sent or forgets nothing.
    #[test]
    fn advance_reports_the_newest_send_time() {
        let mut b = board(10); // segment s sent at time s
        b.get_mut(3).unwrap().retransmitted = true;
        b.mark_sacked(4, 5);
        assert_eq!(b.advance(3), (false, 0, Some(2)));
        assert_eq!(b.advance(3), (false, 0, None));
        assert_eq!(b.advance(5), (true, 1, Some(4)));
        assert_eq!(b.advance(12), (false, 0, None)); // 10 and 11 were never sent
        assert_eq!((b.base(), b.end()), (12, 12));
    }

    /// `lost_below`'s remembered answer is the walk's after every change of the board:
    /// random SACK blocks, cumulative ACKs, new segments and retransmissions marked through
    /// `get_mut`,
    /// each followed by queries at several DupThresh.
    #[test]
    fn remembered_lost_boundary_follows_the_board() {
        use crate::rng::{stream, RngExt};
        let mut g = stream(12, 3);
        let mut b = board(30);
        for _ in 0..3000 {
            match g.random_range(0..4) {
                0 => {
                    let s = b.base() + g.random_range(0..30u64);
                    b.mark_sacked(s, s + g.random_range(1..5u64));
                }
                1 => {
                    let a = b.base() + g.random_range(0..3u64);
                    b.advance(a);
                }
                2 => {
                    let e = b.end();
                    b.push(e, e);
                }
                _ => {
                    // A retransmission's mark (no SACK mark changes).
                    let s = b.base() + g.random_range(0..30u64);
                    if let Some(st) = b.get_mut(s) {
                        st.retransmitted = true;
                    }
                }
            }
            for t in [1u32, 3, 1, 2, 3] {
                let want = if b.sacked_count() < t as u64 { b.base() } else { b.walk_lost_below(t) };
                assert_eq!(b.lost_below(t), want, "dupthresh {t}");
            }
        }
    }

    /// The queries against their definitions (RFC 6675 §4), walked segment by segment, on
    /// random scoreboards.
    #[test]
    fn fast_queries_match_the_definitions() {
        use crate::rng::{stream, RngExt};
        let mut g = stream(11, 3);
        for _ in 0..2000 {
            let n = g.random_range(1..40u64);
            let mut b = board(n);
            b.advance(g.random_range(0..3u64).min(n - 1));
            let mut want = std::collections::BTreeSet::new();
            for _ in 0..g.random_range(0..8) {
                let s = g.random_range(0..n);
                let e = s + g.random_range(1..6u64);
                let fresh = (s.max(b.base())..e.min(b.end())).filter(|x| want.insert(*x)).count() as u64;
                assert_eq!(b.mark_sacked(s, e), fresh, "newly SACKed in [{s}, {e})");
            }
            for s in b.base()..b.end() {
                assert_eq!(b.is_sacked(s), want.contains(&s), "segment {s}");
            }
            assert_eq!(b.sacked_count(), want.len() as u64);
            let t = g.random_range(1..5u32);
            let sacked = |s: u64| b.is_sacked(s);
            let above = |s: u64| ((s + 1)..b.end()).filter(|&x| sacked(x)).count() as u64;
            let lost = |s: u64| !sacked(s) && above(s) >= t as u64;
            for s in b.base()..b.end() {
                assert_eq!(b.is_lost(s, t), lost(s), "is_lost({s}) t {t}");
                assert_eq!(b.sacked_above(s), above(s));
            }
            let hr = g.random_range(0..n + 2);
            let pipe: u64 = (b.base()..b.end()).filter(|&s| !sacked(s)).map(|s| (!lost(s)) as u64 + (s < hr) as u64).sum();
            assert_eq!(b.pipe(b.end(), hr, t), pipe, "pipe hr {hr} t {t}");
            let from = hr.max(b.base());
            let hs = b.high_sacked();
            let r1 = (from..hs).find(|&s| !sacked(s) && lost(s));
            // NextSeg rule 1 as the code defines it: the first unSACKed segment, if it is lost.
            let first = (from..hs).find(|&s| !sacked(s));
            assert_eq!(b.next_retransmission(hr, t, false), first.filter(|&s| lost(s)));
            assert!(r1.is_none() || first.is_some());
            assert_eq!(b.next_retransmission(hr, t, true), first);
        }
    }

    /// The marks' bit set against a set of SACKed segments while the board slides and grows
    /// past its initial size (and its modulus wraps): counts over random ranges.
    #[test]
    fn marks_follow_a_sliding_growing_board() {
        use crate::rng::{stream, RngExt};
        let mut g = stream(13, 3);
        let mut b = Scoreboard::default();
        let mut want = std::collections::BTreeSet::new();
        for step in 0..20_000u64 {
            let window = if step < 10_000 { 40 } else { 300 }; // then grows to ~300
            match g.random_range(0..6) {
                0 | 1 if b.end() - b.base() < window => {
                    let e = b.end();
                    b.push(e, e);
                }
                2 if b.end() > b.base() => {
                    let s = b.base() + g.random_range(0..b.end() - b.base());
                    let e = s + g.random_range(1..10u64);
                    let fresh = (s..e.min(b.end())).filter(|x| want.insert(*x)).count() as u64;
                    assert_eq!(b.mark_sacked(s, e), fresh);
                }
                3 => {
                    let a = b.base() + g.random_range(0..4u64).min(b.end() - b.base());
                    let gone = want.range(..a).count() as u64;
                    assert_eq!(b.advance(a).1, gone);
                    want.retain(|&x| x >= a);
                }
                _ => {
                    let (lo, hi) = (b.base().saturating_sub(3), b.end() + 3);
                    let (x, y) = (g.random_range(lo..=hi), g.random_range(lo..=hi));
                    let (x, y) = (x.min(y), x.max(y));
                    let n = want.range(x..y).count() as u64;
                    assert_eq!(b.sacked_between(x, y), n, "[{x}, {y}) on [{}, {})", b.base(), b.end());
                    assert_eq!(b.is_sacked(x), want.contains(&x));
                    assert_eq!(b.is_unsacked(x), x >= b.base() && x < b.end() && !want.contains(&x));
                }
            }
            assert_eq!(b.sacked_count(), want.len() as u64);
        }
        assert!(b.bits.len() * 64 >= 300, "the board grew past its first modulus");
    }

    /// The scoreboard of RFC 6675 §2 as a plain set of SACKed segments, each query walked
    /// segment by segment: the reference the incremental marking is checked against.
    struct Naive {
        base: u64,
        end: u64,
        sacked: std::collections::BTreeSet<u64>,
        high_sacked: u64,
    }

    impl Naive {
        fn mark(&mut self, s: u64, e: u64) -> u64 {
            let (s, e) = (s.max(self.base), e.min(self.end));
            if s < e {
                self.high_sacked = self.high_sacked.max(e);
            }
            (s..e).filter(|&x| self.sacked.insert(x)).count() as u64
        }
        fn advance(&mut self, ack: u64) -> u64 {
            let gone = self.sacked.range(..ack).count() as u64;
            self.sacked.retain(|&x| x >= ack);
            self.base = self.base.max(ack);
            self.end = self.end.max(self.base);
            gone
        }
        fn lost_below(&self, t: u32) -> u64 {
            self.sacked.iter().rev().nth(t as usize - 1).copied().unwrap_or(self.base)
        }
        fn first_unsacked(&self, from: u64) -> Option<u64> {
            (from.max(self.base)..self.high_sacked.max(self.base)).find(|x| !self.sacked.contains(x))
        }
    }

    /// Random SACK sequences as a receiver sends them (RFC 2018 §4: up to 3 blocks per ACK,
    /// the newest first, each repeated and grown on later ACKs, blocks merging as holes
    /// fill), with arbitrary blocks, cumulative ACKs and new segments between them: every
    /// mark, count and query of the incremental board equals the naive one's.
    #[test]
    fn incremental_marks_equal_naive_marking() {
        use crate::rng::{stream, RngExt};
        for seed in 0..12u64 {
            let mut g = stream(seed, 7);
            let mut b = Scoreboard::with_capacity(16);
            let mut n = Naive { base: 0, end: 0, sacked: Default::default(), high_sacked: 0 };
            // The receiver's blocks, most recent first.
            let mut blocks: Vec<(u64, u64)> = Vec::new();
            let window = [40u64, 300, 3000][seed as usize % 3];
            for _ in 0..4000 {
                match g.random_range(0..10) {
                    0..=2 => {
                        for _ in 0..g.random_range(1..20) {
                            if b.end() - b.base() < window {
                                let e = b.end();
                                b.push(e, e);
                                n.end = e + 1;
                            }
                        }
                    }
                    3..=6 if b.end() > b.base() => {
                        // An ACK: the newest block grown (or a new one above a hole), the
                        // others repeated.
                        let top = blocks.iter().map(|&(_, e)| e).max().unwrap_or(b.base() + 1);
                        if blocks.is_empty() || g.random_range(0..6) == 0 {
                            let s = top + g.random_range(0..5u64);
                            blocks.insert(0, (s, s + 1));
                        } else {
                            let k = g.random_range(0..blocks.len());
                            let (s, e) = blocks.remove(k);
                            let e = e + g.random_range(1..(window / 8).max(2));
                            // It swallows the blocks it reaches.
                            blocks.retain(|&(bs, be)| be < s || bs > e);
                            blocks.insert(0, (s, e));
                        }
                        blocks.truncate(MAX_SACK);
                        for &(s, e) in &blocks {
                            assert_eq!(b.mark_sacked(s, e), n.mark(s, e), "block [{s}, {e}) seed {seed}");
                        }
                    }
                    7 if b.end() > b.base() => {
                        let s = b.base() + g.random_range(0..b.end() - b.base());
                        let e = s + g.random_range(1..window / 4 + 2);
                        assert_eq!(b.mark_sacked(s, e), n.mark(s, e), "block [{s}, {e}) seed {seed}");
                    }
                    8 => {
                        let a = b.base() + g.random_range(0..=(b.end() - b.base()).min(window / 10 + 2));
                        assert_eq!(b.advance(a).1, n.advance(a));
                        blocks.retain(|&(_, e)| e > a);
                    }
                    _ => {}
                }
                assert_eq!(b.sacked_count(), n.sacked.len() as u64, "seed {seed}");
                assert_eq!(b.high_sacked(), n.high_sacked.max(n.base));
                for s in b.base()..b.end() {
                    assert_eq!(b.is_sacked(s), n.sacked.contains(&s), "segment {s} seed {seed}");
                }
                // Counts from the base (SetPipe's), their end moving up and down.
                for _ in 0..3 {
                    let y = b.base() + g.random_range(0..=(b.end() - b.base()) + 2);
                    assert_eq!(b.sacked_between(b.base(), y), n.sacked.range(..y).count() as u64, "[base, {y}) seed {seed}");
                }
                for t in [1u32, 2, 3, 5] {
                    assert_eq!(b.lost_below(t), n.lost_below(t), "dupthresh {t} seed {seed}");
                    let hr = b.base() + g.random_range(0..=(b.end() - b.base()));
                    let first = n.first_unsacked(hr);
                    assert_eq!(b.next_retransmission(hr, t, true), first, "from {hr} seed {seed}");
                    assert_eq!(b.next_retransmission(hr, t, false), first.filter(|&s| s < n.lost_below(t)));
                }
            }
        }
    }

    /// SACK blocks per ACK in the test above (RFC 2018 §3 with timestamps).
    const MAX_SACK: usize = 3;

    /// A block repeated and grown by one segment is marked only where it grew; a block that
    /// remembered blocks cover at both ends only in between; one they cover whole not at all.
    #[test]
    fn only_the_unmarked_part_of_a_block_is_marked() {
        let mut b = board(100_000);
        assert_eq!(b.mark_sacked(10, 90_000), 89_990);
        assert_eq!(b.unmarked_part(10, 90_001), (90_000, 90_001));
        assert_eq!(b.mark_sacked(10, 90_001), 1);
        assert_eq!(b.unmarked_part(10, 90_001), (90_001, 90_001));
        assert_eq!(b.mark_sacked(10, 90_001), 0);
        assert_eq!(b.mark_sacked(95_000, 96_000), 1000);
        assert_eq!(b.unmarked_part(10, 95_500), (90_001, 95_000));
        assert_eq!(b.mark_sacked(5, 96_500), 5 + 4999 + 500);
        // The grown block took the slot of the one it contains; the other stays remembered.
        assert!(b.marked.contains(&(5, 96_500)) && b.marked.contains(&(95_000, 96_000)));
        assert!(!b.marked.contains(&(10, 90_001)));
        let (s, e) = b.unmarked_part(20, 96_000);
        assert!(s >= e, "[{s}, {e})");
        assert_eq!(b.sacked_count(), 96_495);
    }

    #[test]
    fn rule3_when_nothing_is_lost() {
        let mut b = board(6);
        b.mark_sacked(1, 2); // one SACKed segment: 0 is not yet lost
        assert_eq!(b.next_retransmission(0, 3, false), None);
        assert_eq!(b.next_retransmission(0, 3, true), Some(0));
    }
}
