//! TCP receiver: cumulative ACKs, out-of-order buffering, delayed ACKs (RFC 1122
//! §4.2.3.2, RFC 5681 §4.2) and SACK blocks (RFC 2018).
//!
//! ACK policy (RFC 5681 §4.2): an in-order segment is acknowledged when `ack_every`
//! segments are unacknowledged or when the ACK timer (started by the first of them)
//! expires; an out-of-order or duplicate segment, and one that fills (part of) a gap,
//! is acknowledged at once.
//!
//! Optionally (`ack_on_idle`, the `tossim` profile of the PRR/μ study) the ACK timer
//! measures silence: Srinivasan et al. §3.1, "The ACK timeout on the receiver's side governs
//! how long to wait for a packet before sending an acknowledgement ... so the sender gets
//! up-to-date information when there are a lot of losses". The timer restarts at every
//! arriving segment; when it expires the receiver sends its current ACK (a duplicate
//! when nothing new arrived) and restarts it, once per `ack_timeout` of silence.
use super::config::{RecoveryKind, TcpConfig};
use super::recovery::lt::{Blocks, Hdr, LtRx, RxSymbol};
pub use super::wire::{AckPkt, MAX_SACK_BLOCKS};
use super::wire::Tx;
use crate::time::Nanos;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
pub struct ReceiverConfig {
    pub delayed_ack: bool,
    pub ack_every: u32,
    pub ack_timeout: Nanos,
    pub sack: bool,
    /// Re-acknowledge after every `ack_timeout` without an arriving segment (see the module
    /// documentation; Srinivasan et al. §3.1).
    pub ack_on_idle: bool,
}

/// What the receiver wants after a segment arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxAction {
    /// Send an ACK now: [`Receiver::last_ack`]. (The ACK stays in the receiver, written in
    /// place, and the sender's host reads it there: no copy of it travels through return
    /// values, which cost the engine's ACK path a store-forwarding stall per ACK.)
    Ack,
    /// Start (or keep) the delayed-ACK timer, to expire at this time.
    Delay(Nanos),
}

#[derive(Clone, Debug)]
pub struct Receiver {
    cfg: ReceiverConfig,
    /// Next in-order segment expected; everything below was delivered to the application.
    pub rcv_nxt: u64,
    /// Out-of-order segments held, as maximal runs [start, end) in increasing order, each
    /// above rcv_nxt and apart from the next by a hole (issue 34: a bit per segment made
    /// the edges of a block a walk over every segment of it, and a window of 10^6 held
    /// segments walked them on every SACK).
    runs: VecDeque<(u64, u64)>,
    /// Segments in `runs`.
    ooo_count: u64,
    /// In-order segments not yet acknowledged.
    pending: u32,
    /// Delayed-ACK timer deadline, if running.
    pub delack_deadline: Option<Nanos>,
    /// Recently reported SACK blocks, most recent first.
    recent: [(u64, u64); MAX_SACK_BLOCKS],
    nrecent: usize,
    /// RFC 7323 §4.3 TS.Recent and Last.ACK.sent (in segments).
    ts_recent: Nanos,
    last_ack_sent: u64,
    /// RFC 3168 §6.1.3: set ECE on every ACK (a CE arrived and no CWR since).
    ece: bool,
    /// LT-TCP's decoder and erasure estimate (`recovery/lt.rs`).
    pub lt: Option<LtRx>,
    /// Data segments that arrived carrying data already held (duplicates).
    pub duplicates: u64,
    /// Data segments that arrived (any).
    pub arrivals: u64,
    pub acks_sent: u64,
    /// The last ACK made ([`RxAction::Ack`], [`Receiver::on_delack_timer`]).
    last: AckPkt,
}

impl Receiver {
    pub fn new(cfg: ReceiverConfig) -> Self {
        Receiver {
            cfg,
            rcv_nxt: 0,
            runs: VecDeque::new(), // grows with the first hole (most flows of a many-flow run see few)
            ooo_count: 0,
            pending: 0,
            delack_deadline: None,
            recent: [(0, 0); MAX_SACK_BLOCKS],
            nrecent: 0,
            ts_recent: 0,
            last_ack_sent: 0,
            ece: false,
            lt: None,
            duplicates: 0,
            arrivals: 0,
            acks_sent: 0,
            last: AckPkt::default(),
        }
    }

    /// The ACK the receiver made last (what [`RxAction::Ack`] and a `true` from
    /// [`Receiver::on_delack_timer`] ask to send).
    #[inline(always)]
    pub fn last_ack(&self) -> &AckPkt {
        &self.last
    }

    /// The receiver of a flow with TCP settings `t` (LT-TCP's decoder with `recovery = lt`).
    pub fn from_tcp(t: &TcpConfig) -> Self {
        let mut r = Receiver::new(ReceiverConfig {
            delayed_ack: t.delayed_ack,
            ack_every: t.ack_every,
            ack_timeout: t.ack_timeout,
            sack: t.sack(),
            ack_on_idle: t.ack_on_idle,
        });
        if t.recovery == RecoveryKind::Lt {
            r.lt = Some(LtRx::new(t));
        }
        r
    }

    /// A data packet arrives at `now`: a segment, or with LT-TCP any packet of a block
    /// (`blocks`: what its header says of its block).
    #[inline(always)]
    pub fn on_arrival(&mut self, tx: &Tx, now: Nanos, blocks: Option<&Blocks>) -> RxAction {
        match blocks {
            Some(b) if self.lt.is_some() => self.on_lt(tx, now, b),
            _ => self.on_segment(tx.seg, now),
        }
    }

    /// LT-TCP: a data segment, a PFEC packet (slots of their block) or an RFEC packet (for the
    /// block starting at `tx.seg`). Every new symbol counts for its block; at k the block
    /// decodes and every slot of it is held. Its first transmissions feed the erasure
    /// estimate. FEC for a complete block is wasted (not a duplicate); RFEC packets and
    /// decodes are acknowledged at once.
    #[inline(never)]
    fn on_lt(&mut self, tx: &Tx, now: Nanos, blocks: &Blocks) -> RxAction {
        use super::pkt_flags::RFEC;
        if tx.flags & RFEC == 0 && !tx.retx && tx.seg == self.rcv_nxt && self.ooo_count == 0 {
            if let Some(lt) = self.lt.as_mut() {
                if lt.count_in_order(tx.seg) {
                    return self.next_in_order_alone(now); // the common case, counted
                }
            }
        }
        self.on_lt_other(tx, now, blocks)
    }

    /// [`Receiver::on_new_segment`] for segment `rcv_nxt` when nothing above it is buffered
    /// (`ooo_count == 0`: no run, so the advance passes only this segment).
    #[inline(always)]
    fn next_in_order_alone(&mut self, now: Nanos) -> RxAction {
        debug_assert_eq!(self.ooo_count, 0);
        self.arrivals += 1;
        self.rcv_nxt += 1;
        self.pending += 1;
        let act = if !self.cfg.delayed_ack || self.pending >= self.cfg.ack_every {
            self.make_ack()
        } else {
            RxAction::Delay(*self.delack_deadline.get_or_insert(now + self.cfg.ack_timeout))
        };
        self.after_segment(act, now)
    }

    /// [`Receiver::on_lt`] for every packet but the common in-order one (out of line: the
    /// common path saves and restores fewer registers).
    #[inline(never)]
    fn on_lt_other(&mut self, tx: &Tx, now: Nanos, blocks: &Blocks) -> RxAction {
        use super::pkt_flags::{PFEC, RFEC};
        if tx.flags & RFEC != 0 {
            return self.on_rfec(tx, blocks.starting_at(tx.seg).map(Hdr::of));
        }
        let held = self.holds(tx.seg);
        let lt = self.lt.as_mut().expect("an LT-TCP receiver");
        let block = lt.block_of(tx.seg, blocks);
        if !tx.retx {
            lt.first_arrival_in(tx.seg, block, blocks);
        }
        if held {
            if tx.flags & PFEC == 0 {
                return self.on_segment(tx.seg, now); // a duplicate
            }
            lt.fec_wasted += 1;
            self.arrivals += 1;
            return self.make_ack();
        }
        let act = self.on_new_segment(tx.seg, now);
        let rcv_nxt = self.rcv_nxt;
        let lt = self.lt.as_mut().expect("an LT-TCP receiver");
        let data = block.is_some_and(|b| tx.seg < b.start + b.k as u64);
        match lt.symbol_of(block, data, rcv_nxt) {
            RxSymbol::Decoded { start, end, rebuilt } => self.decoded(start, end, rebuilt),
            _ => act,
        }
    }

    /// LT-TCP: an RFEC packet for `block` (the block starting at its slot, if known): a
    /// symbol of it, acknowledged at once, its number echoed.
    #[inline(never)]
    fn on_rfec(&mut self, tx: &Tx, block: Option<Hdr>) -> RxAction {
        self.arrivals += 1;
        let rcv_nxt = self.rcv_nxt;
        let lt = self.lt.as_mut().expect("an LT-TCP receiver");
        lt.rfec_last = Some(tx.rseq);
        match lt.symbol_of(block, false, rcv_nxt) {
            RxSymbol::Decoded { start, end, rebuilt } => self.decoded(start, end, rebuilt),
            RxSymbol::Useless => {
                lt.fec_wasted += 1;
                self.make_ack()
            }
            RxSymbol::Counted => self.make_ack(),
        }
    }

    /// LT-TCP: a block decoded, its slots [start, end) held (`rebuilt`: some data segment
    /// had not arrived); acknowledged at once.
    fn decoded(&mut self, start: u64, end: u64, rebuilt: bool) -> RxAction {
        self.lt.as_mut().expect("an LT-TCP receiver").decodes += rebuilt as u64;
        self.hold_range(start, end);
        self.make_ack()
    }

    /// Hold every segment of [start, end) (LT-TCP's decoded block, never empty), and report
    /// the block in the next SACK when it sits above a hole.
    fn hold_range(&mut self, start: u64, end: u64) {
        debug_assert!(start < end);
        if start <= self.rcv_nxt && self.rcv_nxt < end {
            // The range fills the hole at rcv_nxt: every segment below `end` is delivered at
            // once (the buffered ones among them leave the runs), and the advance goes on over
            // those buffered from `end` up.
            while let Some(&(s, e)) = self.runs.front() {
                if s >= end {
                    break;
                }
                if e <= end {
                    self.ooo_count -= e - s;
                    self.runs.pop_front();
                } else {
                    self.ooo_count -= end - s;
                    self.runs[0].0 = end;
                    break;
                }
            }
            self.rcv_nxt = end - 1;
            self.advance_in_order();
            self.prune_sack();
            return;
        }
        let a = start.max(self.rcv_nxt + 1);
        if a < end {
            self.hold_span(a, end);
            if self.cfg.sack {
                self.note_sack(end - 1);
            }
        }
    }

    /// Hold [a, b) (a > rcv_nxt, a < b): one run with the runs it meets or touches, which
    /// it replaces; the count grows by the segments none of them held.
    fn hold_span(&mut self, a: u64, b: u64) {
        let i = self.runs.partition_point(|&(_, e)| e < a);
        let (mut lo, mut hi, mut already, mut j) = (a, b, 0, i);
        while let Some(&(s, e)) = self.runs.get(j).filter(|&&(s, _)| s <= b) {
            already += e.min(b).saturating_sub(s.max(a));
            lo = lo.min(s);
            hi = hi.max(e);
            j += 1;
        }
        self.ooo_count += (b - a) - already;
        if i == j {
            self.runs.insert(i, (lo, hi));
        } else {
            self.runs[i] = (lo, hi);
            self.runs.drain(i + 1..j);
        }
    }

    /// Hold segment `seg` (above rcv_nxt, not held): the top run grows by it (the common
    /// case after a loss), or it starts a run above the others, or it joins the runs
    /// around it (a retransmission filling a hole: found by bisection; the runs move by
    /// one place, towards the nearer end of the ring, only when it starts a run or merges two).
    #[inline]
    fn hold_one(&mut self, seg: u64) {
        self.ooo_count += 1;
        match self.runs.back_mut() {
            Some(top) if seg == top.1 => {
                top.1 += 1;
                return;
            }
            Some(top) if seg < top.0 => {}
            _ => {
                self.runs.push_back((seg, seg + 1));
                return;
            }
        }
        let i = self.run_at(seg); // the first run above seg (seg is below the top one)
        let joins_below = i > 0 && self.runs[i - 1].1 == seg;
        let joins_above = self.runs[i].0 == seg + 1;
        match (joins_below, joins_above) {
            (true, true) => {
                self.runs[i - 1].1 = self.runs[i].1;
                self.runs.remove(i);
            }
            (true, false) => self.runs[i - 1].1 = seg + 1,
            (false, true) => self.runs[i].0 = seg,
            (false, false) => self.runs.insert(i, (seg, seg + 1)),
        }
    }

    /// The index of the first run that ends above `seg` (the run holding it, if any).
    #[inline]
    fn run_at(&self, seg: u64) -> usize {
        self.runs.partition_point(|&(_, e)| e <= seg)
    }

    /// Segment rcv_nxt is held: deliver it and the run of buffered segments just above it,
    /// if any (runs are maximal, so at most one starts there).
    #[inline]
    fn advance_in_order(&mut self) {
        self.rcv_nxt += 1;
        if let Some(&(s, e)) = self.runs.front() {
            if s == self.rcv_nxt {
                self.rcv_nxt = e;
                self.ooo_count -= e - s;
                self.runs.pop_front();
            }
        }
    }

    /// Whether segment `seg` is already held (delivered or buffered).
    #[inline]
    pub fn holds(&self, seg: u64) -> bool {
        seg < self.rcv_nxt || (seg > self.rcv_nxt && self.buffers(seg))
    }

    /// Whether segment `seg` (above rcv_nxt) is buffered: in the top run (the common case),
    /// else in the run a bisection finds.
    #[inline]
    fn buffers(&self, seg: u64) -> bool {
        match self.runs.back() {
            None => false,
            Some(&(s, e)) if seg >= s => seg < e,
            Some(_) => self.runs[self.run_at(seg)].0 <= seg,
        }
    }

    /// Number of out-of-order segments buffered.
    pub fn buffered(&self) -> u64 {
        self.ooo_count
    }

    /// A data segment arrives at `now`.
    #[inline(always)]
    pub fn on_segment(&mut self, seg: u64, now: Nanos) -> RxAction {
        let act = self.on_segment_inner(seg, now);
        self.after_segment(act, now)
    }

    /// [`Receiver::on_segment`] for a segment not held yet (`!self.holds(seg)`).
    #[inline]
    fn on_new_segment(&mut self, seg: u64, now: Nanos) -> RxAction {
        self.arrivals += 1;
        let act = self.on_new_segment_inner(seg, now);
        self.after_segment(act, now)
    }

    #[inline(always)]
    fn after_segment(&mut self, act: RxAction, now: Nanos) -> RxAction {
        if !self.cfg.ack_on_idle {
            return act;
        }
        // The ACK timer restarts at every arrival and runs after an immediate ACK too.
        let d = now + self.cfg.ack_timeout;
        self.delack_deadline = Some(d);
        match act {
            RxAction::Delay(_) => RxAction::Delay(d),
            a => a,
        }
    }

    #[inline(never)]
    fn on_segment_inner(&mut self, seg: u64, now: Nanos) -> RxAction {
        self.arrivals += 1;
        if self.holds(seg) {
            // Duplicate: acknowledge at once (RFC 5681 §4.2 out-of-order rule).
            self.duplicates += 1;
            return self.make_ack();
        }
        self.on_new_segment_inner(seg, now)
    }

    /// A segment not held yet arrives (counted in `arrivals` by the caller).
    #[inline(always)]
    fn on_new_segment_inner(&mut self, seg: u64, now: Nanos) -> RxAction {
        if seg == self.rcv_nxt {
            let filled_gap = self.ooo_count > 0;
            self.advance_in_order();
            if filled_gap {
                self.prune_sack();
                return self.make_ack();
            }
            self.pending += 1;
            if !self.cfg.delayed_ack || self.pending >= self.cfg.ack_every {
                return self.make_ack();
            }
            let d = *self.delack_deadline.get_or_insert(now + self.cfg.ack_timeout);
            return RxAction::Delay(d);
        }
        // Out of order, above rcv_nxt: buffer and send an immediate duplicate ACK.
        self.hold_one(seg);
        if self.cfg.sack {
            self.note_sack(seg);
        }
        self.make_ack()
    }

    /// RFC 7323 §4.3: the TSval `tsval` of arriving segment `seg` becomes TS.Recent if the
    /// segment starts at Last.ACK.sent (so a delayed ACK echoes the earliest segment it
    /// acknowledges, and a retransmission that fills a hole echoes its own time). Call
    /// before [`Receiver::on_segment`].
    #[inline]
    pub fn note_tsval(&mut self, seg: u64, tsval: Nanos) {
        if seg == self.last_ack_sent {
            self.ts_recent = tsval;
        }
    }

    /// RFC 3168 §6.1.3: an arriving data packet's header bits (`tcp::pkt_flags`): CWR ends
    /// the ECN-Echo, CE starts it (the same packet may do both). Call before
    /// [`Receiver::on_segment`].
    #[inline]
    pub fn note_ecn(&mut self, flags: u8) {
        use super::pkt_flags::{CE, CWR};
        if flags & CWR != 0 {
            self.ece = false;
        }
        if flags & CE != 0 {
            self.ece = true;
        }
    }

    /// The delayed-ACK timer fires: whether an ACK is still owed (then made:
    /// [`Receiver::last_ack`]). With `ack_on_idle`, the ACK is sent even if nothing is owed
    /// (a duplicate) and the timer restarts at `now + ack_timeout`.
    pub fn on_delack_timer(&mut self, now: Nanos) -> bool {
        self.delack_deadline = None;
        if self.cfg.ack_on_idle {
            self.make_ack();
            self.delack_deadline = Some(now + self.cfg.ack_timeout);
            return true;
        }
        if self.pending == 0 {
            return false;
        }
        self.make_ack();
        true
    }

    /// Make the ACK of the current state ([`Receiver::last_ack`], written field by field in
    /// place).
    #[inline]
    fn make_ack(&mut self) -> RxAction {
        self.pending = 0;
        self.delack_deadline = None;
        self.acks_sent += 1;
        self.last_ack_sent = self.rcv_nxt;
        let a = &mut self.last;
        a.ack = self.rcv_nxt;
        a.tsecr = self.ts_recent;
        a.ece = self.ece;
        if let Some(lt) = &self.lt {
            a.lt_erasure = Some(lt.erasure_ppm);
            a.lt_rfec = lt.rfec_last;
        }
        if self.cfg.sack {
            a.nsack = self.nrecent as u8;
            // The whole array, not a call to memcpy (the entries past `nsack` are never
            // read), a word at a time: `note_sack` has often just stored one end of a block,
            // and a 16-byte load over that 8-byte store waits for it to retire (no
            // store-to-load forwarding). Volatile reads keep the words apart.
            for k in 0..MAX_SACK_BLOCKS {
                // SAFETY: reads of initialised fields of `self`.
                unsafe {
                    a.sack[k].0 = std::ptr::read_volatile(&self.recent[k].0);
                    a.sack[k].1 = std::ptr::read_volatile(&self.recent[k].1);
                }
            }
        }
        RxAction::Ack
    }

    /// The held block containing out-of-order segment `seg` (held): its run.
    #[inline]
    fn block_of(&self, seg: u64) -> (u64, u64) {
        self.runs[self.run_at(seg)]
    }

    /// RFC 2018 §4: the first block reports the block holding the most recent segment;
    /// the others repeat the most recently reported blocks, dropping any it covers. Segment
    /// `seg` is held, above rcv_nxt.
    fn note_sack(&mut self, seg: u64) {
        // The common case after a loss: `seg` is the newest buffered segment and extends the
        // most recently reported block, the top run, which no other reported block touches:
        // the block grows by one, the others stay (what the general rule below gives).
        if self.nrecent > 0 {
            let (s0, e0) = self.recent[0];
            if e0 == seg
                && s0 > self.rcv_nxt
                && self.runs.back() == Some(&(s0, seg + 1))
                && self.recent[1..self.nrecent].iter().all(|&(s, e)| e <= s0 || s > seg)
            {
                self.recent[0].1 = seg + 1;
                return;
            }
        }
        let b = self.block_of(seg);
        let mut out = [(0u64, 0u64); MAX_SACK_BLOCKS];
        out[0] = b;
        let mut n = 1;
        for &(s, e) in &self.recent[..self.nrecent] {
            if n == MAX_SACK_BLOCKS {
                break;
            }
            if e <= b.0 || s >= b.1 {
                out[n] = (s, e);
                n += 1;
            }
        }
        self.recent = out;
        self.nrecent = n;
    }

    /// Drop blocks at or below the cumulative ACK.
    fn prune_sack(&mut self) {
        let mut n = 0;
        for k in 0..self.nrecent {
            let (s, e) = self.recent[k];
            if e > self.rcv_nxt {
                self.recent[n] = (s.max(self.rcv_nxt), e);
                n += 1;
            }
        }
        self.nrecent = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx(delayed: bool, sack: bool) -> Receiver {
        Receiver::new(ReceiverConfig { delayed_ack: delayed, ack_every: 2, ack_timeout: 100, sack, ack_on_idle: false })
    }

    /// The ACK that action `a` of receiver `r` asks to send.
    fn ack_of(r: &Receiver, a: RxAction) -> AckPkt {
        match a {
            RxAction::Ack => *r.last_ack(),
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
        let mut r = Receiver::new(ReceiverConfig { delayed_ack: true, ack_every: 2, ack_timeout: 100, sack: false, ack_on_idle: true });
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
    /// every segment).
    #[test]
    fn sack_blocks_equal_a_naive_receivers() {
        use crate::rng::{stream, RngExt};
        for seed in 0..12u64 {
            let mut g = stream(seed, 8);
            let mut r = rx(false, true);
            let mut n = Naive { rcv_nxt: 0, held: Default::default(), recent: Vec::new() };
            let window = [40u64, 300, 3000][seed as usize % 3];
            for step in 0..6000 {
                let top = r.runs.back().map_or(r.rcv_nxt + 1, |&(_, e)| e);
                match g.random_range(0..10) {
                    0..=4 => {
                        let seg = (top + g.random_range(0..3u64)).min(r.rcv_nxt + window);
                        r.on_segment(seg, step);
                        n.segment(seg);
                    }
                    5 => {
                        let seg = n.held.range(r.rcv_nxt..).find(|&&x| !n.held.contains(&(x - 1)) && x - 1 >= r.rcv_nxt).map_or(r.rcv_nxt, |&x| x - 1);
                        r.on_segment(seg, step);
                        n.segment(seg);
                    }
                    6 | 7 => {
                        let seg = r.rcv_nxt.saturating_sub(2) + g.random_range(0..window);
                        r.on_segment(seg, step);
                        n.segment(seg);
                    }
                    _ => {
                        let start = r.rcv_nxt.saturating_sub(3) + g.random_range(0..window);
                        let end = start + g.random_range(1..window / 4 + 2);
                        r.hold_range(start, end);
                        n.hold_range(start, end);
                    }
                }
                assert_eq!(r.rcv_nxt, n.rcv_nxt, "step {step} seed {seed}");
                assert_eq!(r.buffered(), n.held.len() as u64, "step {step} seed {seed}");
                assert_eq!(&r.recent[..r.nrecent], &n.recent[..], "step {step} seed {seed}");
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
}
