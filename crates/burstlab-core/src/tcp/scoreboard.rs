//! Per-segment sender state for the outstanding window [snd_una, high_tx): first send
//! time (RTT samples), whether it was retransmitted (Karn's rule, RFC 6298 §3) and
//! whether the receiver SACKed it (RFC 6675 §2 scoreboard). A ring buffer that grows to
//! the largest window once and is reused, so the per-packet path never allocates. The
//! SACK marks are a bit set beside it, so that RFC 6675's counts over a range of the
//! window (SetPipe's, the send loop's after a timeout) take a popcount per 64 segments.
use crate::time::Nanos;
use std::cell::Cell;
use std::collections::VecDeque;

/// The longest SACK block [`Scoreboard::mark_sacked`] marks whole, without trimming it
/// against the remembered blocks first (its marks span at most three words).
const SHORT_BLOCK: u64 = 128;

/// A word with its `n` lowest bits set (n ≤ 64).
#[inline(always)]
fn low_bits(n: u64) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// A segment on the board: when it was last sent, and whether it was retransmitted, in one
/// word (the flag in the top bit: times stay below 2^63 ns, 292 years), so that the board of
/// a flow costs 8 bytes per segment of its largest window (with 10,000 flows the boards are
/// the largest part of the flows' memory: `docs/validation.md`, "many flows").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SegState(u64);

const RETRANSMITTED: u64 = 1 << 63;

impl SegState {
    #[inline(always)]
    fn new(sent_at: Nanos, retransmitted: bool) -> Self {
        debug_assert!(sent_at < RETRANSMITTED, "a send time below 2^63 ns");
        SegState(sent_at | if retransmitted { RETRANSMITTED } else { 0 })
    }

    /// When the segment was last sent.
    #[inline(always)]
    pub fn sent_at(self) -> Nanos {
        self.0 & !RETRANSMITTED
    }

    /// Whether it was sent more than once (Karn's rule, RFC 6298 §3).
    #[inline(always)]
    pub fn retransmitted(self) -> bool {
        self.0 & RETRANSMITTED != 0
    }
}

/// How much a board's ring of segments grows when full: a quarter more (at least 16
/// entries), not double, so that it ends within 25 % of its flow's largest window rather
/// than up to twice it (it never shrinks; `docs/validation.md`, "many flows").
#[inline(always)]
fn growth(len: usize) -> usize {
    (len / 4).max(16)
}

#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct Scoreboard {
    // Cold: read by the SACK marking, recovery's searches and tests (`Scoreboard::HOT`).
    /// Tests: segments the marking and NextSeg's search have walked (their cost).
    #[cfg(test)]
    walked: Cell<u64>,
    /// The last blocks marked, each wholly SACKed (a segment never loses its mark while it
    /// is on the board), so a block the receiver repeats costs only its new part: slots
    /// 0-3 the most recently marked or grown first (the receiver's three blocks stay there:
    /// RFC 2018 §4 repeats the most recently reported ones), slot 4 the longest above the
    /// base (issue 34: a receiver holding many short blocks above one of 10^6 segments
    /// reported the long one now and then, after the short ones had taken every other slot,
    /// and each report marked it again).
    marked: [(u64, u64); 5],
    /// One past the highest SACKed segment (RFC 6675's "highest SACKed"), or `base`.
    high_sacked: u64,
    /// SACKed segments on the board that were retransmitted ([`Scoreboard::sacked_retransmitted`]),
    /// counted from its first call on (None before: only a flow with ns-3's pipe asks), then
    /// kept by the marks, the retransmissions and the advances (issue 34: a walk over the
    /// window on every ACK hung a run whose window grew to 10^6 segments).
    sacked_retx: Cell<Option<u64>>,
    /// (from, reached): [`Scoreboard::next_retransmission`]'s last search for an unSACKed
    /// segment started at `from` and found every segment of [from, reached) SACKed. A mark
    /// stays while its segment is on the board, so the next search from a point in [from,
    /// reached] starts at `reached` (issue 34: LT-TCP, waiting for a block's reactive FEC,
    /// searched the same 10^6 SACKed segments above its HighRxt on every ACK).
    scan_memo: Cell<(u64, u64)>,
    // Hot: every ACK's advance and every segment sent (the tail, `Scoreboard::HOT`).
    /// Entry `i` is segment `base + i`.
    segs: VecDeque<SegState>,
    /// The SACK marks: bit `seg mod 64·len` is set iff segment `seg`, on the board, is
    /// SACKed (every other bit is clear). Its length in bits is a power of two, at least the
    /// board's.
    bits: Vec<u64>,
    base: u64,
    /// Number of SACKed entries.
    sacked: u64,
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
    /// The bytes every ACK's advance and every segment sent read or write: the struct's
    /// tail, from `segs` (issue 28: the flow's cache footprint; `Sender::HOT`).
    pub const HOT: std::ops::Range<usize> = std::mem::offset_of!(Scoreboard, segs)..std::mem::size_of::<Scoreboard>();

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
        // Only the tags (DupThresh 0: none); the answers stay unread until a new one is set
        // (two stores per advance, not six).
        let (_, lost) = self.lost_memo.get();
        self.lost_memo.set((0, lost));
        let (_, end, high_rxt, pipe) = self.pipe_memo.get();
        self.pipe_memo.set((0, end, high_rxt, pipe));
    }

    /// Room for more segments on a full board ([`growth`]: a quarter more, not double).
    #[cold]
    #[inline(never)]
    fn grow_segs(&mut self) {
        self.segs.reserve_exact(growth(self.segs.len()));
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
        if self.segs.len() == self.segs.capacity() {
            self.grow_segs();
        }
        // Its bit is clear: the segment a modulus below it left the board unmarked.
        self.segs.push_back(SegState::new(now, false));
    }

    #[inline]
    pub fn get(&self, seg: u64) -> Option<&SegState> {
        seg.checked_sub(self.base).and_then(|i| self.segs.get(i as usize))
    }

    /// Segment `seg` is sent again at `now` (nothing if it is not on the board).
    #[inline]
    pub fn note_retransmission(&mut self, seg: u64, now: Nanos) {
        let Some(s) = seg.checked_sub(self.base).and_then(|i| self.segs.get_mut(i as usize)) else {
            return;
        };
        let first = !s.retransmitted();
        *s = SegState::new(now, true);
        if let Some(c) = self.sacked_retx.get() {
            if first && self.sacked_bit(seg) {
                self.sacked_retx.set(Some(c + 1));
            }
        }
    }

    /// Cumulative ACK up to `ack` (exclusive): forget those segments. Returns whether
    /// any of them had been retransmitted, how many had been SACKed before, and when
    /// segment `ack − 1` (the highest acknowledged) was last sent, if it was held.
    #[inline]
    pub fn advance(&mut self, ack: u64) -> (bool, u64, Option<Nanos>) {
        let mut was_sacked = 0;
        let mut newest = None;
        // The popped segments' words ORed together: its top bit says whether one of them
        // was retransmitted (one OR per segment, the flag tested once).
        let mut words = 0;
        if self.base < ack {
            self.forget();
        }
        while self.base < ack {
            let Some(s) = self.segs.pop_front() else {
                // The segments ran out below ack − 1: none of them was ack − 1.
                newest = None;
                self.base = ack;
                break;
            };
            // The last segment popped is ack − 1.
            newest = Some(s);
            if self.sacked > 0 {
                let (w, m) = self.bit(self.base);
                if self.bits[w] & m != 0 {
                    self.bits[w] &= !m;
                    self.sacked -= 1;
                    was_sacked += 1;
                    if s.retransmitted() {
                        self.sacked_retx.set(self.sacked_retx.get().map(|c| c - 1));
                    }
                }
            }
            words |= s.0;
            self.base += 1;
        }
        let retx = SegState(words).retransmitted();
        let newest = newest.map(SegState::sent_at);
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
        // The common case, a block the receiver repeats, grown at its top or not (RFC 2018
        // §4: each ACK repeats the most recently reported blocks, the newest first): a
        // remembered block covers its start, so only what lies above that block's end can be
        // new. The block grown last (slot 0) first, else the one of the others reaching highest.
        let (mut k, mut me) = (usize::MAX, s0);
        let (ms_0, me_0) = self.marked[0];
        if ms_0 <= s0 && me_0 > s0 {
            (k, me) = (0, me_0);
        } else {
            for (i, &(ms_i, me_i)) in self.marked.iter().enumerate().skip(1) {
                if ms_i <= s0 && me_i > me {
                    (k, me) = (i, me_i);
                }
            }
        }
        if k != usize::MAX {
            if e0 <= me {
                return 0; // repeated: wholly marked, and the highest SACKed is at or above `me`
            }
            if e0 - me <= SHORT_BLOCK {
                return self.mark_grown(k, me, e0);
            }
        }
        // A short block is marked whole: setting its two or three words of marks (a popcount
        // counts only the new ones) costs less than trimming it against the remembered
        // blocks, which pays for a long one (the count is the same either way).
        let (s, e) = if e0 - s0 <= SHORT_BLOCK { (s0, e0) } else { self.unmarked_part(s0, e0) };
        let n = if s >= e {
            0
        } else if e - s > SHORT_BLOCK && self.marked.iter().any(|&(ms, me)| ms > s && me < e && ms < me) {
            // (blocks inside a range of two words or less would save nothing)
            self.set_marks_around(s, e)
        } else {
            self.set_marks(s, e)
        };
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

    /// [`Scoreboard::mark_sacked`] for a block whose part below `me` remembered block `k`
    /// covers, and whose part [me, e0) (at most [`SHORT_BLOCK`] segments, within the board)
    /// may be new: [me, e0) is marked and block `k` grows to `e0` (its part below the block's
    /// start is marked too: the two are one run of marks) and moves to slot 0 (from slot 4, a
    /// copy). Slot 4 keeps the longest block.
    #[inline]
    fn mark_grown(&mut self, k: usize, me: u64, e0: u64) -> u64 {
        let n = self.set_marks(me, e0);
        if n > 0 || e0 > self.high_sacked {
            self.sacked += n;
            self.high_sacked = self.high_sacked.max(e0);
            self.forget();
        }
        let ms = self.marked[k].0;
        if k == 0 {
            self.marked[0].1 = e0;
        } else {
            self.to_front(k.min(3), (ms, e0));
        }
        let (ls, le) = self.marked[4];
        if e0 - ms > 64 && e0 - ms > le.saturating_sub(ls.max(self.base)) {
            self.marked[4] = (ms, e0);
        }
        n
    }

    /// Block `b` into slot 0, slots 0..j one place down (slot j's block is dropped: j ≤ 3).
    #[inline(always)]
    fn to_front(&mut self, j: usize, b: (u64, u64)) {
        self.marked.copy_within(0..j, 1);
        self.marked[0] = b;
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

    /// Remember the marked block [s, e): in slot 0, in place of a remembered block of slots
    /// 0-3 it contains (the receiver's block grown since), else of the least recent one; and
    /// in slot 4 if it is longer than that one's part above the base.
    #[inline]
    fn remember(&mut self, s: u64, e: u64) {
        let j = self.marked[..4].iter().position(|&(ms, me)| ms >= s && me <= e).unwrap_or(3);
        self.to_front(j, (s, e));
        let (ls, le) = self.marked[4];
        if e - s > 64 && e - s > le.saturating_sub(ls.max(self.base)) {
            self.marked[4] = (s, e);
        }
    }

    /// [`Scoreboard::set_marks`] for [s, e) with remembered blocks inside it: only the pieces
    /// between them are marked (issue 34: LT-TCP's decoded block joining two long runs of
    /// SACKed segments made one block of them, and marking it walked the upper run again).
    #[cold]
    fn set_marks_around(&mut self, s: u64, e: u64) -> u64 {
        let mut m = self.marked;
        m.sort_unstable();
        let (mut n, mut x) = (0, s);
        for (ms, me) in m {
            if me <= x || ms >= me {
                continue;
            }
            if ms >= e {
                break;
            }
            if ms > x {
                n += self.set_marks(x, ms);
            }
            x = me;
        }
        if x < e {
            n += self.set_marks(x, e);
        }
        n
    }

    /// Set every mark of [s, e), a word at a time (the range is within the board, so within
    /// one turn of the modulus; it may wrap once); returns how many were newly set.
    #[inline(always)]
    fn set_marks(&mut self, s: u64, e: u64) -> u64 {
        let (to, mut below) = self.below.get();
        let mut n = 0;
        let mut x = s;
        while x < e {
            let (k, off, take, mask) = self.span(x, e);
            #[cfg(test)]
            self.walked.set(self.walked.get() + take);
            let new = mask & !self.bits[k];
            self.bits[k] |= mask;
            n += new.count_ones() as u64;
            if let Some(c) = self.sacked_retx.get() {
                self.sacked_retx.set(Some(c + self.retransmitted_among(x, off, new)));
            }
            if x < to {
                below += (new & (low_bits((to - x).min(take)) << off)).count_ones() as u64;
            }
            x += take;
        }
        self.below.set((to, below));
        n
    }

    /// How many of the segments whose bits are set in `bits`, a word of marks where segment
    /// `x`'s bit is `off`, were retransmitted.
    fn retransmitted_among(&self, x: u64, off: u64, mut bits: u64) -> u64 {
        let mut n = 0;
        while bits != 0 {
            let b = bits.trailing_zeros() as u64;
            n += self.segs[(x + b - off - self.base) as usize].retransmitted() as u64;
            bits &= bits - 1;
        }
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
        let answer = self.top_block_lost_below(dupthresh).unwrap_or_else(|| self.walk_lost_below(dupthresh));
        self.lost_memo.set((dupthresh, answer));
        answer
    }

    /// [`Scoreboard::lost_below`] without a walk when a remembered block (wholly marked) ends
    /// at the highest SACKed segment and holds at least `dupthresh` segments on the board:
    /// the `dupthresh`-th SACKed segment from the top is then `dupthresh` below its end. (In
    /// recovery the receiver's newest block grows at the top on most ACKs.)
    #[inline]
    fn top_block_lost_below(&self, dupthresh: u32) -> Option<u64> {
        let (hs, d) = (self.high_sacked, dupthresh as u64);
        self.marked.iter().find(|&&(ms, me)| me == hs && me - ms >= d && me - d >= self.base).map(|&(_, me)| me - d)
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

    /// SACKed segments that were retransmitted (ns-3 3.44's `TcpTxBuffer` keeps such a
    /// segment in its in-flight count until the cumulative ACK passes it).
    /// Counted over the window on the first call, then kept up to date (`sacked_retx`).
    pub fn sacked_retransmitted(&self) -> u64 {
        if let Some(c) = self.sacked_retx.get() {
            return c;
        }
        let c = self.walk_sacked_retransmitted();
        self.sacked_retx.set(Some(c));
        c
    }

    /// [`Scoreboard::sacked_retransmitted`] by a walk over the window.
    fn walk_sacked_retransmitted(&self) -> u64 {
        if self.sacked == 0 {
            return 0;
        }
        (self.base..self.high_sacked).filter(|&s| self.is_sacked(s) && self.segs[(s - self.base) as usize].retransmitted()).count() as u64
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

    /// [`Scoreboard::pipe`] with SACKed segments on the board (`end`: HighData within it):
    /// the remembered answer in line, the count out of line.
    #[inline(always)]
    fn pipe_sacked(&self, end: u64, high_rxt: u64, dupthresh: u32) -> u64 {
        let (t, e, h, answer) = self.pipe_memo.get();
        if t == dupthresh && e == end && h == high_rxt && t != 0 {
            return answer;
        }
        self.walk_pipe_sacked(end, high_rxt, dupthresh)
    }

    /// [`Scoreboard::pipe_sacked`] counted.
    #[inline(never)]
    fn walk_pipe_sacked(&self, end: u64, high_rxt: u64, dupthresh: u32) -> u64 {
        let lost_below = self.lost_below(dupthresh).min(end);
        let above = if lost_below == self.base {
            let sacked = if end >= self.high_sacked() { self.sacked } else { self.sacked_between(self.base, end) };
            (end - self.base) - sacked
        } else {
            // [L, high_sacked) holds dupthresh SACKed segments; above high_sacked none is SACKed.
            (end - lost_below) - dupthresh as u64
        };
        // The segments below HighRxt not SACKed: the count from the base is remembered
        // (`below`), and in recovery HighRxt stays while the marks grow above it.
        let h = high_rxt.min(end);
        let unsacked_below = if h <= self.base {
            0
        } else {
            let (at, c) = self.below.get();
            (h - self.base) - if at == h { c } else { self.sacked_between(self.base, h) }
        };
        let answer = above + unsacked_below;
        self.pipe_memo.set((dupthresh, end, high_rxt, answer));
        answer
    }

    /// RFC 6675 §4 NextSeg rules 1 and 3: the first unSACKed segment at or above
    /// `high_rxt` and below the highest SACKed one, preferring one that IsLost
    /// (rule 1); `allow_rule3` returns a not-lost one when no lost one exists.
    pub fn next_retransmission(&self, high_rxt: u64, dupthresh: u32, allow_rule3: bool) -> Option<u64> {
        let hs = self.high_sacked();
        let from = high_rxt.max(self.base);
        // Rule 1 alone looks no higher than the lost boundary: no segment at or above it
        // IsLost (in recovery, once HighRxt has passed the holes, the send loop asks before
        // each new segment, and every segment from HighRxt to the boundary is SACKed).
        let lost_below = self.lost_below(dupthresh);
        let limit = if allow_rule3 { hs } else { hs.min(lost_below) };
        if from >= limit {
            return None;
        }
        // The first unSACKed segment at or above `from` (below `limit`): from where the last
        // search found none, jumping over blocks marked whole (the one grown last first),
        // else a word of marks at a time.
        let (mf, mr) = self.scan_memo.get();
        let mut seg = if mf <= from && from <= mr { mr } else { from };
        let first_unsacked = loop {
            if seg >= limit {
                break None;
            }
            let (ms_0, me_0) = self.marked[0];
            if ms_0 <= seg && me_0 > seg {
                seg = me_0;
                continue;
            }
            if let Some(me) = self.marked.iter().filter(|&&(ms, me)| ms <= seg && me > seg).map(|&(_, me)| me).max() {
                seg = me;
                continue;
            }
            let (k, off, take, mask) = self.span(seg, limit);
            #[cfg(test)]
            self.walked.set(self.walked.get() + take);
            let clear = !self.bits[k] & mask;
            if clear != 0 {
                break Some(seg + (clear.trailing_zeros() as u64 - off));
            }
            seg += take;
        };
        // (`seg` may lie past `limit`, after a jump over a remembered block: every segment
        // below it is SACKed all the same, and the next search, whose limit the top block's
        // growth has raised by a segment or two, stops there at once)
        self.scan_memo.set((from, first_unsacked.unwrap_or(seg)));
        match first_unsacked {
            Some(s) if s < lost_below => Some(s), // rule 1: the first lost one
            Some(s) if allow_rule3 => Some(s),
            _ => None,
        }
    }
}

#[cfg(test)]
#[path = "scoreboard_tests.rs"]
mod tests;
