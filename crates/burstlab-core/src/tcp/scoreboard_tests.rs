//! Tests of the scoreboard (`scoreboard.rs`).
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
    b.note_retransmission(3, 3); // sent again at its first time
    b.mark_sacked(4, 5);
    assert_eq!(b.advance(3), (false, 0, Some(2)));
    assert_eq!(b.advance(3), (false, 0, None));
    assert_eq!(b.advance(5), (true, 1, Some(4)));
    assert_eq!(b.advance(12), (false, 0, None)); // 10 and 11 were never sent
    assert_eq!((b.base(), b.end()), (12, 12));
}

/// `lost_below`'s remembered answer, and the kept count of SACKed retransmitted segments,
/// are the walks' after every change of the board: random SACK blocks, cumulative ACKs, new
/// segments and retransmissions (of SACKed segments too), each followed by queries at
/// several DupThresh.
#[test]
fn remembered_lost_boundary_follows_the_board() {
    use crate::rng::{stream, RngExt};
    let mut g = stream(12, 3);
    let mut b = board(30);
    b.sacked_retransmitted(); // counted from here on
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
                b.note_retransmission(s, s);
            }
        }
        for t in [1u32, 3, 1, 2, 3] {
            let want = if b.sacked_count() < t as u64 { b.base() } else { b.walk_lost_below(t) };
            assert_eq!(b.lost_below(t), want, "dupthresh {t}");
        }
        assert_eq!(b.sacked_retransmitted(), b.walk_sacked_retransmitted());
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
    /// RFC 6675 §4 SetPipe over [base, end) with HighRxt `hr`, segment by segment.
    fn pipe(&self, hr: u64, t: u32) -> u64 {
        let lost = |s: u64| self.sacked.range(s + 1..).count() >= t as usize;
        (self.base..self.end).filter(|s| !self.sacked.contains(s)).map(|s| (!lost(s)) as u64 + (s < hr) as u64).sum()
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
        let mut kept = 0u64;
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
            // A HighRxt that stays or creeps up, as a sender's does while it waits: the
            // search resumes where the last one stopped.
            kept = kept.max(b.base()) + g.random_range(0..3u64);
            assert_eq!(b.next_retransmission(kept, 3, true), n.first_unsacked(kept.max(b.base())), "kept {kept} seed {seed}");
            // SetPipe, with that HighRxt (its count from the base remembered between ACKs)
            // and a random one.
            for t in [1u32, 3] {
                for hr in [kept, b.base() + g.random_range(0..=(b.end() - b.base()) + 1)] {
                    assert_eq!(b.pipe(b.end(), hr, t), n.pipe(hr, t), "pipe HighRxt {hr} dupthresh {t} seed {seed}");
                }
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
    // The grown block is in slot 0, in place of the most recent block it contains; the
    // older one moved down; slot 4 holds the longest.
    assert_eq!(&b.marked[..2], &[(5, 96_500), (10, 90_001)]);
    assert_eq!(b.marked[4], (5, 96_500));
    assert!(!b.marked.contains(&(95_000, 96_000)));
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

/// Issue 34: a receiver that holds many short blocks above one of 10^6 segments reports the
/// long one now and then, after the short ones have filled the four recent slots; marking it
/// again costs only what it gained (the longest block keeps a slot), and a block that joins
/// remembered ones is marked only between them.
#[test]
fn a_long_block_reported_after_short_ones_costs_only_its_growth() {
    let mut b = board(1_000_200);
    assert_eq!(b.mark_sacked(10, 1_000_000), 999_990);
    for k in 0..6 {
        let s = 1_000_010 + 20 * k;
        assert_eq!(b.mark_sacked(s, s + 5), 5);
    }
    let before = b.walked.get();
    assert_eq!(b.mark_sacked(10, 1_000_002), 2);
    assert!(b.walked.get() - before <= 64, "walked {}", b.walked.get() - before);
    // [1_000_002, 1_000_010) joins the long block to the short one above it.
    let before = b.walked.get();
    assert_eq!(b.mark_sacked(10, 1_000_015), 8);
    assert!(b.walked.get() - before <= 128, "walked {}", b.walked.get() - before);
    assert_eq!(b.sacked_count(), 999_990 + 30 + 2 + 8);
}

/// Issue 34: NextSeg's search from a HighRxt that stays (LT-TCP waiting for a block's RFEC)
/// resumes where the last one stopped instead of walking the same SACKed segments again.
#[test]
fn next_seg_search_resumes_where_it_stopped() {
    let mut b = board(600_000);
    for s in (2..500_002).step_by(1000) {
        b.mark_sacked(s, s + 1000); // [2, 500 002) SACKed in short blocks, none of them remembered whole
    }
    b.mark_sacked(500_010, 500_011);
    let before = b.walked.get();
    assert_eq!(b.next_retransmission(2, 3, true), Some(500_002));
    assert!(b.walked.get() - before > 400_000); // the first search walks the SACKed segments
    let before = b.walked.get();
    assert_eq!(b.next_retransmission(2, 3, true), Some(500_002));
    assert_eq!(b.next_retransmission(7, 3, true), Some(500_002));
    assert!(b.walked.get() - before <= 2 * 64, "walked {}", b.walked.get() - before);
    // The hole fills: the search goes on from there.
    b.mark_sacked(500_002, 500_004);
    assert_eq!(b.next_retransmission(7, 3, true), Some(500_004));
    assert!(b.walked.get() - before <= 3 * 64, "walked {}", b.walked.get() - before);
    // Below where the last search started: a new one (it must not skip holes).
    assert_eq!(b.next_retransmission(0, 3, true), Some(0));
}

/// The lost boundary read off the top block, without a walk, is the walk's: a block ending
/// at the highest SACKed segment with DupThresh segments on the board; not when a hole
/// below the top leaves it fewer, or the cumulative ACK has taken part of it.
#[test]
fn the_top_block_gives_the_lost_boundary() {
    let mut b = board(40);
    b.mark_sacked(10, 12);
    b.mark_sacked(14, 20);
    assert_eq!(b.top_block_lost_below(3), Some(17));
    assert_eq!(b.walk_lost_below(3), 17);
    b.mark_sacked(14, 21); // the receiver's block grown at the top
    assert_eq!((b.top_block_lost_below(3), b.lost_below(3)), (Some(18), 18));
    b.mark_sacked(22, 24); // a new top block of 2: the 3rd SACKed from the top is 20
    assert_eq!((b.top_block_lost_below(3), b.walk_lost_below(3), b.lost_below(3)), (None, 20, 20));
    assert_eq!(b.top_block_lost_below(2), Some(22));
    b.advance(23); // the top block's segment 22 acknowledged: 1 left on the board
    assert_eq!((b.top_block_lost_below(2), b.lost_below(1)), (None, 23));
}

/// A short block (at most `SHORT_BLOCK` segments) is marked whole, over remembered blocks:
/// its count, the count from the base and the retransmitted SACKed count are those of its
/// new segments only, as when it was first trimmed against the remembered blocks.
#[test]
fn a_short_block_over_remembered_ones_counts_only_its_new_segments() {
    let mut b = board(400);
    b.note_retransmission(12, 500);
    b.note_retransmission(30, 500);
    assert_eq!(b.sacked_retransmitted(), 0);
    assert_eq!(b.mark_sacked(10, 20), 10);
    assert_eq!(b.mark_sacked(25, 28), 3);
    assert_eq!(b.sacked_between(0, 15), 5); // the count from the base, remembered
    assert_eq!(b.sacked_retransmitted(), 1); // 12
    // Spans both remembered blocks and the holes around them: 5 + 5 + 2 + 10 new.
    assert_eq!(b.mark_sacked(5, 40), 22);
    assert_eq!(b.sacked_count(), 35);
    assert_eq!(b.sacked_between(0, 15), 10);
    assert_eq!(b.sacked_retransmitted(), 2); // 12 and 30
    // Repeated whole: nothing new; a long block (above SHORT_BLOCK) is trimmed as before.
    assert_eq!(b.mark_sacked(5, 40), 0);
    assert_eq!(b.mark_sacked(5, 40 + SHORT_BLOCK), SHORT_BLOCK);
    assert_eq!((b.sacked_count(), b.high_sacked()), (35 + SHORT_BLOCK, 40 + SHORT_BLOCK));
}

/// A segment's state is one word, its send time and retransmission flag read back as
/// written; the board's ring ends within a quarter (or 16 entries) of the largest window it
/// held, not up to twice it (the boards of 10,000 flows are megabytes: `docs/validation.md`).
#[test]
fn a_segment_is_one_word_and_the_board_grows_by_a_quarter() {
    assert_eq!(std::mem::size_of::<SegState>(), 8);
    let s = SegState::new((1 << 62) + 5, true);
    assert_eq!((s.sent_at(), s.retransmitted()), ((1 << 62) + 5, true));
    assert_eq!((SegState::new(7, false).sent_at(), SegState::new(7, false).retransmitted()), (7, false));
    for most in [1u64, 17, 100, 1000, 5000] {
        let mut b = Scoreboard::with_capacity(16);
        for seg in 0..most {
            b.push(seg, seg * 10);
        }
        let cap = b.segs.capacity() as u64;
        assert!(cap >= most && cap <= (most + most / 4).max(16) + 16, "{most} segments held in a ring of {cap}");
        b.note_retransmission(most / 2, 3);
        assert_eq!((b.get(most / 2).unwrap().sent_at(), b.get(most / 2).unwrap().retransmitted()), (3, true));
        let last = b.get(most - 1).copied().unwrap();
        assert_eq!((last.sent_at(), last.retransmitted()), if most == 1 { (3, true) } else { ((most - 1) * 10, false) });
    }
}
