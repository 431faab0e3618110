//! Tests of the receiver (`receiver.rs`).
use super::*;

fn rx(delayed: bool, sack: bool) -> Receiver {
    Receiver::new(ReceiverConfig { delayed_ack: delayed, ack_every: 2, ack_timeout: 100, sack, ack_on_idle: false, quickack: 0 })
}

/// The ACK that action `a` of receiver `r` asks to send.
fn ack_of(r: &Receiver, a: RxAction) -> AckPkt {
    match a {
        RxAction::Ack | RxAction::AckAndTimer(_) => *r.last_ack(),
        RxAction::Delay(_) => panic!("expected an ACK, got {a:?}"),
    }
}

/// Segment `seg` arrives at `now`: the ACK it must cause at once.
fn seg_ack(r: &mut Receiver, seg: u64, now: Nanos) -> AckPkt {
    let a = r.on_segment(seg, now);
    ack_of(r, a)
}

#[test]
fn delayed_acks_every_second_segment_or_timer() {
    let mut r = rx(true, false);
    assert_eq!(r.on_segment(0, 10), RxAction::Delay(110));
    assert_eq!(seg_ack(&mut r, 1, 20).ack, 2);
    assert_eq!(r.on_segment(2, 30), RxAction::Delay(130));
    assert!(r.on_delack_timer(130));
    assert_eq!(r.last_ack().ack, 3);
    assert!(!r.on_delack_timer(230));
}

#[test]
fn out_of_order_gap_fill_and_duplicates() {
    let mut r = rx(true, true);
    r.on_segment(0, 0);
    // 1 lost; 2, 3, 5 arrive: immediate duplicate ACKs with SACK blocks.
    let a = seg_ack(&mut r, 2, 1);
    assert_eq!((a.ack, a.nsack, a.sack[0]), (1, 1, (2, 3)));
    let a = seg_ack(&mut r, 3, 2);
    assert_eq!((a.ack, a.nsack, a.sack[0]), (1, 1, (2, 4)));
    let a = seg_ack(&mut r, 5, 3);
    assert_eq!((a.ack, a.nsack), (1, 2));
    assert_eq!(&a.sack[..2], &[(5, 6), (2, 4)]);
    assert_eq!(r.buffered(), 3);
    // 1 fills the first gap: immediate ACK up to 4, block (5,6) remains.
    let a = seg_ack(&mut r, 1, 4);
    assert_eq!((a.ack, a.nsack, a.sack[0]), (4, 1, (5, 6)));
    assert!(r.holds(5) && !r.holds(4) && r.holds(0));
    // A duplicate is counted and acknowledged at once.
    let a = seg_ack(&mut r, 2, 5);
    assert_eq!(a.ack, 4);
    assert_eq!(r.duplicates, 1);
    let a = seg_ack(&mut r, 4, 6);
    assert_eq!((a.ack, a.nsack), (6, 0));
    assert_eq!(r.buffered(), 0);
}

/// RFC 7323 §4.3: a delayed ACK echoes the earlier of its two segments; an
/// out-of-order segment does not replace TS.Recent; the retransmission that fills the
/// hole does.
#[test]
fn timestamp_echo() {
    let mut r = rx(true, false);
    let seg = |r: &mut Receiver, s: u64, ts: u64| {
        r.note_tsval(s, ts);
        r.on_segment(s, ts + 5)
    };
    let seg_ack = |r: &mut Receiver, s: u64, ts: u64| {
        let a = seg(r, s, ts);
        ack_of(r, a)
    };
    assert_eq!(seg(&mut r, 0, 100), RxAction::Delay(205));
    assert_eq!(seg_ack(&mut r, 1, 110).tsecr, 100);
    assert_eq!(seg_ack(&mut r, 3, 130).tsecr, 100); // 2 lost: duplicate ACK
    let a = seg_ack(&mut r, 2, 500); // retransmission of 2 fills the hole
    assert_eq!((a.ack, a.tsecr), (4, 500));
}

#[test]
fn no_delay_acks_every_segment() {
    let mut r = rx(false, false);
    for s in 0..5 {
        assert_eq!(seg_ack(&mut r, s, s).ack, s + 1);
    }
}

/// `ack_on_idle` (Srinivasan et al. §3.1): the timer restarts at every arrival, immediate
/// ACKs included, and every `ack_timeout` of silence produces the current ACK again.
#[test]
fn idle_acks_repeat_while_nothing_arrives() {
    let mut r = Receiver::new(ReceiverConfig { delayed_ack: true, ack_every: 2, ack_timeout: 100, sack: false, ack_on_idle: true, quickack: 0 });
    assert_eq!(r.on_segment(0, 10), RxAction::Delay(110));
    assert_eq!(r.delack_deadline, Some(110));
    // Segment 1 lost, 2 arrives: an immediate duplicate ACK, and the timer restarts.
    assert_eq!(seg_ack(&mut r, 2, 50).ack, 1);
    assert_eq!(r.delack_deadline, Some(150));
    // Silence: the ACK for 1 every 100 ns.
    assert!(r.on_delack_timer(150));
    assert_eq!(r.last_ack().ack, 1);
    assert_eq!(r.delack_deadline, Some(250));
    assert!(r.on_delack_timer(250));
    assert_eq!(r.last_ack().ack, 1);
    assert_eq!(r.acks_sent, 3);
    // An arrival restarts it again.
    assert_eq!(seg_ack(&mut r, 1, 260).ack, 3);
    assert_eq!(r.delack_deadline, Some(360));
}

/// A receiver as RFC 2018 §4 words it: a set of held segments, each SACK's first block
/// the maximal run of held segments around the newest, walked segment by segment, then
/// the earlier blocks it does not cover; blocks trimmed at the cumulative ACK.
struct Naive {
    rcv_nxt: u64,
    held: std::collections::BTreeSet<u64>,
    recent: Vec<(u64, u64)>,
}

impl Naive {
    fn deliver(&mut self) {
        while self.held.remove(&self.rcv_nxt) {
            self.rcv_nxt += 1;
        }
        let r = self.rcv_nxt;
        self.recent = self.recent.iter().filter(|&&(_, e)| e > r).map(|&(s, e)| (s.max(r), e)).collect();
    }
    fn note(&mut self, seg: u64) {
        let (mut lo, mut hi) = (seg, seg + 1);
        while lo - 1 > self.rcv_nxt && self.held.contains(&(lo - 1)) {
            lo -= 1;
        }
        while self.held.contains(&hi) {
            hi += 1;
        }
        let mut out = vec![(lo, hi)];
        out.extend(self.recent.iter().filter(|&&(s, e)| e <= lo || s >= hi).copied());
        out.truncate(MAX_SACK_BLOCKS);
        self.recent = out;
    }
    fn segment(&mut self, seg: u64) {
        if seg < self.rcv_nxt || self.held.contains(&seg) {
            return;
        }
        self.held.insert(seg);
        if seg == self.rcv_nxt {
            self.deliver();
        } else {
            self.note(seg);
        }
    }
    fn hold_range(&mut self, start: u64, end: u64) {
        self.held.extend(start.max(self.rcv_nxt)..end);
        if start <= self.rcv_nxt && self.rcv_nxt < end {
            self.deliver();
        } else if end > self.rcv_nxt + 1 {
            self.note(end - 1);
        }
    }
}

/// Random arrivals (mostly just above the buffered ones, as after a loss; holes filled;
/// anywhere in the window; duplicates) and held ranges (LT-TCP's decoded blocks), in
/// windows of up to 3000 segments: the receiver's cumulative ACK, buffer and SACK blocks
/// equal the naive receiver's after each (the runs give the same blocks as a walk over
/// every segment, and a segment extending the top run grows the first block in place); a
/// receiver without SACK, given the same segments, holds the same.
#[test]
fn sack_blocks_equal_a_naive_receivers() {
    use crate::rng::{stream, RngExt};
    for seed in 0..12u64 {
        let mut g = stream(seed, 8);
        let mut r = rx(false, true);
        let mut plain = rx(false, false);
        let mut n = Naive { rcv_nxt: 0, held: Default::default(), recent: Vec::new() };
        let window = [40u64, 300, 3000][seed as usize % 3];
        for step in 0..6000 {
            let top = r.runs.back().map_or(r.rcv_nxt + 1, |&(_, e)| e);
            match g.random_range(0..10) {
                0..=4 => {
                    let seg = (top + g.random_range(0..3u64)).min(r.rcv_nxt + window);
                    r.on_segment(seg, step);
                    plain.on_plain_segment(seg, step);
                    n.segment(seg);
                }
                5 => {
                    let seg = n.held.range(r.rcv_nxt..).find(|&&x| !n.held.contains(&(x - 1)) && x - 1 >= r.rcv_nxt).map_or(r.rcv_nxt, |&x| x - 1);
                    r.on_segment(seg, step);
                    plain.on_plain_segment(seg, step);
                    n.segment(seg);
                }
                6 | 7 => {
                    let seg = r.rcv_nxt.saturating_sub(2) + g.random_range(0..window);
                    r.on_segment(seg, step);
                    plain.on_plain_segment(seg, step);
                    n.segment(seg);
                }
                _ => {
                    let start = r.rcv_nxt.saturating_sub(3) + g.random_range(0..window);
                    let end = start + g.random_range(1..window / 4 + 2);
                    r.hold_range(start, end);
                    plain.hold_range(start, end);
                    n.hold_range(start, end);
                }
            }
            assert_eq!(r.rcv_nxt, n.rcv_nxt, "step {step} seed {seed}");
            assert_eq!(r.buffered(), n.held.len() as u64, "step {step} seed {seed}");
            assert_eq!(&r.recent[..r.nrecent], &n.recent[..], "step {step} seed {seed}");
            assert_eq!((plain.rcv_nxt, plain.buffered(), plain.nrecent), (n.rcv_nxt, n.held.len() as u64, 0));
        }
    }
}

/// Issue 34: a run of 10^6 held segments that has left the three reported blocks (newer
/// ones above it took their places) is found whole when a segment joins it, as one run
/// (it was a walk over every segment of it).
#[test]
fn a_run_outside_the_reported_blocks_is_found_whole() {
    let mut r = rx(false, true);
    for s in 2..1_000_002 {
        r.on_segment(s, s);
    }
    for s in [1_000_010, 1_000_020, 1_000_030, 1_000_040] {
        r.on_segment(s, s);
    }
    assert!(r.recent[..r.nrecent].iter().all(|&(s, _)| s >= 1_000_010));
    assert_eq!(r.runs.len(), 5);
    r.on_segment(1_000_002, 0);
    assert_eq!(&r.recent[..r.nrecent], &[(2, 1_000_003), (1_000_040, 1_000_041), (1_000_030, 1_000_031)]);
    r.on_segment(1_000_009, 0); // joins the run above, alone
    assert_eq!(r.recent[0], (1_000_009, 1_000_011));
    r.on_segment(0, 0);
    assert_eq!((r.rcv_nxt, r.buffered()), (1, 1_000_001 + 5));
    r.on_segment(1, 0);
    assert_eq!((r.rcv_nxt, r.buffered(), r.runs.len()), (1_000_003, 5, 4));
}

/// A range held above a reported block of 10 000 segments joins it: one block from the
/// reported block's start to the range's end.
#[test]
fn a_held_range_above_a_block_joins_it() {
    let mut r = rx(false, true);
    for s in 2..10_002 {
        r.on_segment(s, s);
    }
    assert_eq!(&r.recent[..r.nrecent], &[(2, 10_002)]);
    r.on_segment(10_010, 0);
    r.hold_range(10_002, 10_008);
    assert_eq!(&r.recent[..r.nrecent], &[(2, 10_008), (10_010, 10_011)]);
    r.hold_range(10_008, 10_010);
    assert_eq!(&r.recent[..r.nrecent], &[(2, 10_011)]);
    assert_eq!(r.block_of(10_005), (2, 10_011));
    r.on_segment(0, 0);
    assert_eq!(r.rcv_nxt, 1);
    r.on_segment(1, 0);
    assert_eq!((r.rcv_nxt, r.nrecent), (10_011, 0));
}

fn linux_rx(quickack: u8) -> Receiver {
    Receiver::new(ReceiverConfig { delayed_ack: true, ack_every: 2, ack_timeout: 100, sack: true, ack_on_idle: false, quickack })
}

/// Whether in-order segment `seg`, arriving at `now`, is acknowledged at once.
fn at_once(r: &mut Receiver, seg: u64, now: Nanos) -> bool {
    matches!(r.on_segment(seg, now), RxAction::Ack)
}

/// Linux's quick-ACK mode (`tcp_incr_quickack` at the first data, `tcp_dec_quickack_mode` per
/// ACK): the first 16 segments are each acknowledged at once, then every second one.
#[test]
fn quickack_acknowledges_the_first_segments_one_by_one() {
    let mut r = linux_rx(16);
    for seg in 0..16 {
        assert!(at_once(&mut r, seg, seg), "segment {seg}");
        assert_eq!(r.last_ack().ack, seg + 1);
    }
    assert_eq!(r.on_segment(16, 16), RxAction::Delay(116));
    assert!(at_once(&mut r, 17, 17));
    assert_eq!((r.last_ack().ack, r.acks_sent), (18, 17));
    // The RFC receiver (quickack 0) delays the second segment's ACK from the start.
    let mut rfc = linux_rx(0);
    assert_eq!(rfc.on_segment(0, 0), RxAction::Delay(100));
    assert!(at_once(&mut rfc, 1, 1));
}

/// Data wholly below the cumulative ACK (a retransmission of what arrived: `tcp_data_queue`)
/// enters quick-ACK mode again; its own ACK uses one of the 16.
#[test]
fn quickack_after_a_duplicate_below_the_cumulative_ack() {
    let mut r = linux_rx(16);
    for seg in 0..16 {
        r.on_segment(seg, seg);
    }
    assert!(matches!(r.on_segment(16, 16), RxAction::Delay(_)));
    assert!(at_once(&mut r, 17, 17)); // every second segment: quick mode is over
    assert!(at_once(&mut r, 3, 18)); // a duplicate: acknowledged at once, 15 quick ACKs left
    assert_eq!((r.last_ack().ack, r.duplicates), (18, 1));
    for seg in 18..33 {
        assert!(at_once(&mut r, seg, seg), "segment {seg}");
    }
    assert!(matches!(r.on_segment(33, 33), RxAction::Delay(_)));
}

/// Out-of-order data does not enter quick-ACK mode (Linux ≥ 4.18): the segments after a
/// filled hole are acknowledged every second one again.
#[test]
fn no_quickack_after_out_of_order_data() {
    let mut r = linux_rx(2);
    assert!(at_once(&mut r, 0, 0) && at_once(&mut r, 1, 1));
    assert!(matches!(r.on_segment(2, 2), RxAction::Delay(_)));
    assert!(at_once(&mut r, 3, 3));
    assert!(at_once(&mut r, 5, 5)); // out of order: a duplicate ACK with SACK, at once
    assert_eq!(r.last_ack().ack, 4);
    assert!(at_once(&mut r, 4, 6)); // fills the hole
    assert_eq!(r.last_ack().ack, 6);
    assert!(matches!(r.on_segment(6, 7), RxAction::Delay(_)));
    // A duplicate of buffered out-of-order data (above the cumulative ACK) does not either.
    assert!(at_once(&mut r, 7, 8));
    assert!(at_once(&mut r, 10, 9) && at_once(&mut r, 10, 10));
    assert!(at_once(&mut r, 8, 11) && at_once(&mut r, 9, 12));
    assert!(matches!(r.on_segment(11, 13), RxAction::Delay(_)));
}

/// The first CE mark since the sender's CWR gives two quick ACKs (`__tcp_ecn_check_ce`:
/// tcp_enter_quickack_mode(sk, 2)); a second CE before the CWR none.
#[test]
fn quickack_after_the_first_ce_mark() {
    use crate::tcp::pkt_flags::{CE, CWR};
    let mut r = linux_rx(1);
    assert!(at_once(&mut r, 0, 0));
    assert!(matches!(r.on_segment(1, 1), RxAction::Delay(_)) && at_once(&mut r, 2, 2));
    r.note_ecn(CE);
    assert!(at_once(&mut r, 3, 3)); // min(2, quickack 1) = 1 quick ACK
    assert!(matches!(r.on_segment(4, 4), RxAction::Delay(_)) && at_once(&mut r, 5, 5));
    let mut r = linux_rx(16);
    for seg in 0..16 {
        r.on_segment(seg, seg);
    }
    r.note_ecn(CE);
    assert!(at_once(&mut r, 16, 16) && at_once(&mut r, 17, 17));
    assert!(r.last_ack().ece);
    r.note_ecn(CE); // still echoing: no new quick ACKs
    assert!(matches!(r.on_segment(18, 18), RxAction::Delay(_)));
    r.note_ecn(CWR);
    r.note_ecn(CE);
    assert!(at_once(&mut r, 19, 19) && at_once(&mut r, 20, 20));
    assert!(matches!(r.on_segment(21, 21), RxAction::Delay(_)));
}

/// `tcp_incr_quickack`: min(quickack, rcv_wnd / (2·rcv_mss)), 2 when that is 0.
#[test]
fn quickack_count_is_bounded_by_half_the_window() {
    use crate::tcp::config::TcpConfig;
    let t = |quickack, rwnd| quickack_count(&TcpConfig { quickack, rwnd, ..TcpConfig::default() });
    assert_eq!((t(16, None), t(16, Some(100)), t(16, Some(10)), t(16, Some(1)), t(16, Some(3))), (16, 16, 5, 2, 1));
    assert_eq!((t(0, None), t(0, Some(10)), t(255, None)), (0, 0, 255));
    let lx = TcpConfig::profile("linux").unwrap();
    assert_eq!(Receiver::from_tcp(&lx).cfg.quickack, 16);
    assert_eq!((TcpConfig::profile("rfc").unwrap().quickack, TcpConfig::profile("ns3").unwrap().quickack), (0, 0));
}
