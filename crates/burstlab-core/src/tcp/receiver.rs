//! TCP receiver: cumulative ACKs, out-of-order buffering, delayed ACKs (RFC 1122
//! §4.2.3.2, RFC 5681 §4.2) and SACK blocks (RFC 2018).
//!
//! ACK policy (RFC 5681 §4.2): an in-order segment is acknowledged when `ack_every`
//! segments are unacknowledged or when the ACK timer (started by the first of them)
//! expires; an out-of-order or duplicate segment, and one that fills (part of) a gap,
//! is acknowledged at once.
//!
//! Linux's quick-ACK mode (`quickack`, the `linux` profile; `net/ipv4/tcp_input.c`): the
//! receiver acknowledges every in-order segment at once while a counter of quick ACKs lasts;
//! each ACK it sends uses one (`tcp_dec_quickack_mode`). The counter is set to `quickack` at
//! the first data (`tcp_event_data_recv` → `tcp_incr_quickack`: min(TCP_MAX_QUICKACKS = 16,
//! rcv_wnd / (2·rcv_mss)), here min(`quickack`, `rwnd` / 2, or 2 when that is 0)), raised to
//! it again by a segment wholly below the cumulative ACK (`tcp_data_queue`: a retransmission
//! of data held → `tcp_enter_quickack_mode`), and to 2 by the first CE mark since the sender's
//! last CWR (`__tcp_ecn_check_ce`). Out-of-order data does not enter it (Linux ≥ 4.18
//! acknowledges it at once by the rule above instead, then compresses SACKs). Not modelled:
//! the quick ACKs Linux also sends while its receive window grows (`tcp_grow_window` sets the
//! counter to 1 on every segment while `rcv_ssthresh` can grow, which follows receive-buffer
//! autotuning), nor those after a silence longer than the receiver's RTO
//! (`tcp_event_data_recv`).
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
    /// Linux's quick-ACK count (see the module documentation; 0: off). A byte, as Linux's
    /// `icsk_ack.quick`.
    pub quickack: u8,
}

/// What the receiver wants after a segment arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxAction {
    /// Send an ACK now: [`Receiver::last_ack`]. (The ACK stays in the receiver, written in
    /// place, and the sender's host reads it there: no copy of it travels through return
    /// values, which cost the engine's ACK path a store-forwarding stall per ACK.)
    Ack,
    /// Send an ACK now, as `Ack`, and keep the ACK timer running to this time: the `tossim`
    /// profile's idle-ACK receiver (`ack_on_idle`), whose timer restarts at every arrival.
    AckAndTimer(Nanos),
    /// Start (or keep) the delayed-ACK timer, to expire at this time.
    Delay(Nanos),
}

#[derive(Clone, Debug)]
#[repr(C)]
pub struct Receiver {
    // Hot: an in-order segment's arrival and the ACK made for it (`Receiver::HOT`).
    /// Next in-order segment expected; everything below was delivered to the application.
    pub rcv_nxt: u64,
    /// Segments in `runs`.
    ooo_count: u64,
    /// Data segments that arrived (any).
    pub arrivals: u64,
    /// Data segments that arrived carrying data already held (duplicates).
    pub duplicates: u64,
    pub acks_sent: u64,
    last_ack_sent: u64,
    /// Delayed-ACK timer deadline, if running.
    pub delack_deadline: Option<Nanos>,
    nrecent: usize,
    /// In-order segments not yet acknowledged.
    pending: u32,
    /// Quick ACKs left (Linux's `icsk_ack.quick`; see the module documentation).
    quick: u8,
    cfg: ReceiverConfig,
    /// Recently reported SACK blocks, most recent first.
    recent: [(u64, u64); MAX_SACK_BLOCKS],
    /// The last ACK made ([`RxAction::Ack`], [`Receiver::on_delack_timer`]).
    last: AckPkt,
    // Cold: the out-of-order runs, timestamps, ECN, LT-TCP.
    /// Out-of-order segments held, as maximal runs [start, end) in increasing order, each
    /// above rcv_nxt and apart from the next by a hole (issue 34: a bit per segment made
    /// the edges of a block a walk over every segment of it, and a window of 10^6 held
    /// segments walked them on every SACK).
    runs: VecDeque<(u64, u64)>,
    /// RFC 7323 §4.3 TS.Recent and Last.ACK.sent (in segments).
    ts_recent: Nanos,
    /// RFC 3168 §6.1.3: set ECE on every ACK (a CE arrived and no CWR since).
    ece: bool,
    /// LT-TCP's decoder and erasure estimate (`recovery/lt.rs`).
    pub lt: Option<LtRx>,
}

impl Receiver {
    /// The bytes an in-order segment's arrival and the ACK made for it read or write: the
    /// head, up to `runs` (issue 28: the flow's cache footprint).
    pub const HOT: std::ops::Range<usize> = 0..std::mem::offset_of!(Receiver, runs);

    pub fn new(cfg: ReceiverConfig) -> Self {
        Receiver {
            cfg,
            rcv_nxt: 0,
            runs: VecDeque::new(), // grows with the first hole (most flows of a many-flow run see few)
            ooo_count: 0,
            pending: 0,
            quick: cfg.quickack, // tcp_incr_quickack at the first data: nothing acknowledged before it
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
            quickack: quickack_count(t),
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
                    return self.next_in_order_alone::<true>(now); // the common case, counted
                }
            }
        }
        self.on_lt_other(tx, now, blocks)
    }

    /// [`Receiver::on_new_segment`] for segment `rcv_nxt` when nothing above it is buffered
    /// (`ooo_count == 0`: no run, so the advance passes only this segment).
    /// (`FULL`: as [`Receiver::make_ack_in`].)
    #[inline(always)]
    fn next_in_order_alone<const FULL: bool>(&mut self, now: Nanos) -> RxAction {
        debug_assert_eq!(self.ooo_count, 0);
        self.arrivals += 1;
        self.rcv_nxt += 1;
        let act = self.in_order_ack::<FULL>(now);
        self.after_segment(act, now)
    }

    /// An in-order segment that filled no gap: acknowledge it now, or delay the ACK (RFC 5681
    /// §4.2: at least every `ack_every` full-sized segments, within `ack_timeout`).
    #[inline(always)]
    fn in_order_ack<const FULL: bool>(&mut self, now: Nanos) -> RxAction {
        self.pending += 1;
        if !self.cfg.delayed_ack || self.pending >= self.cfg.ack_every || self.quick > 0 {
            self.make_ack_in::<FULL>()
        } else {
            RxAction::Delay(*self.delack_deadline.get_or_insert(now + self.cfg.ack_timeout))
        }
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
        self.on_segment_in::<true>(seg, now)
    }

    /// [`Receiver::on_segment`] in the engine's plain runs (no LT-TCP, timestamps or ECN:
    /// `sim::engine::needs_full`), whose ACKs' fields for them are not written.
    #[inline(always)]
    pub fn on_plain_segment(&mut self, seg: u64, now: Nanos) -> RxAction {
        debug_assert!(self.lt.is_none() && self.ts_recent == 0 && !self.ece);
        self.on_segment_in::<false>(seg, now)
    }

    #[inline(always)]
    fn on_segment_in<const FULL: bool>(&mut self, seg: u64, now: Nanos) -> RxAction {
        if seg == self.rcv_nxt && self.ooo_count == 0 {
            // The common case, in line: the next segment, nothing buffered above it (what
            // `on_segment_inner` does for it: not held, in order, no gap filled).
            return self.next_in_order_alone::<FULL>(now);
        }
        let act = self.on_segment_inner(seg, now);
        self.after_segment(act, now)
    }

    /// [`Receiver::on_segment`] for a segment that is not the next in order, or arrives
    /// with out-of-order data buffered.
    #[inline(never)]
    fn on_segment_inner(&mut self, seg: u64, now: Nanos) -> RxAction {
        // The common case after a loss: the segment just above the top run, which it
        // extends (not held: nothing is held above the top run). RFC 2018 §4: the first
        // block is the one holding it, the top run; when that is already the first block
        // (reported by the last ACK, and no other block reaches it: the blocks are disjoint
        // runs of held segments), it grows by one and the others stay.
        if let Some(top) = self.runs.back_mut() {
            if top.1 == seg {
                top.1 += 1;
                let s = top.0;
                self.ooo_count += 1;
                self.arrivals += 1;
                if self.cfg.sack {
                    if self.nrecent > 0 && self.recent[0] == (s, seg) {
                        debug_assert!(self.recent[1..self.nrecent].iter().all(|&(bs, be)| be <= s || bs > seg));
                        self.recent[0].1 = seg + 1;
                    } else {
                        self.note_sack(seg);
                    }
                }
                return self.make_ack();
            }
        }
        self.on_other_segment(seg, now)
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
            RxAction::Ack | RxAction::AckAndTimer(_) => RxAction::AckAndTimer(d),
        }
    }

    #[inline]
    fn on_other_segment(&mut self, seg: u64, now: Nanos) -> RxAction {
        self.arrivals += 1;
        if self.holds(seg) {
            // Duplicate: acknowledge at once (RFC 5681 §4.2 out-of-order rule). Linux enters
            // quick-ACK mode on data wholly below rcv_nxt (`tcp_data_queue`), not on a
            // duplicate of buffered out-of-order data (`tcp_data_queue_ofo`).
            self.duplicates += 1;
            if seg < self.rcv_nxt {
                self.quick = self.quick.max(self.cfg.quickack);
            }
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
            return self.in_order_ack::<true>(now);
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
            if !self.ece {
                // Linux `__tcp_ecn_check_ce`: tcp_enter_quickack_mode(sk, 2) on the first CE
                // since the last CWR.
                self.quick = self.quick.max(self.cfg.quickack.min(2));
            }
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
        self.make_ack_in::<true>()
    }

    /// [`Receiver::make_ack`]; `FULL = false` in a plain run (no LT-TCP, timestamps or ECN):
    /// the ACK's echo, ECN-Echo and LT-TCP fields keep their defaults, unwritten.
    #[inline(always)]
    fn make_ack_in<const FULL: bool>(&mut self) -> RxAction {
        self.pending = 0;
        self.quick = self.quick.saturating_sub(1); // tcp_dec_quickack_mode: one per ACK sent
        self.delack_deadline = None;
        self.acks_sent += 1;
        self.last_ack_sent = self.rcv_nxt;
        let a = &mut self.last;
        a.ack = self.rcv_nxt;
        if FULL {
            a.tsecr = self.ts_recent;
            a.ece = self.ece;
            if let Some(lt) = &self.lt {
                a.lt_erasure = Some(lt.erasure_ppm);
                a.lt_rfec = lt.rfec_last;
            }
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

/// The receiver's quick-ACK count for flow settings `t`: Linux's `tcp_incr_quickack`,
/// min(`quickack`, rcv_wnd / (2·rcv_mss)) and 2 when that is 0, with the window `rwnd`
/// segments (no bound when none is given; 0 stays off).
pub fn quickack_count(t: &TcpConfig) -> u8 {
    let q = u8::try_from(t.quickack).unwrap_or(u8::MAX); // at most 255 (TcpConfig::PARAMS)
    match t.rwnd {
        Some(w) if q > 0 => q.min(u8::try_from(if w / 2 == 0 { 2 } else { w / 2 }).unwrap_or(u8::MAX)),
        _ => q,
    }
}

#[cfg(test)]
#[path = "receiver_tests.rs"]
mod tests;
