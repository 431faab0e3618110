//! The TCP end hosts: the glue between the engine and a flow's [`Sender`] and [`Receiver`]
//! (segments handed to the path, ACKs built and read, the retransmission and delayed-ACK
//! timers, completion, the handshake's first RTT sample).
use super::*;

/// A TCP flow's end hosts and bookkeeping.
#[repr(C)]
pub(super) struct TcpFlow {
    // The layout is the flow's cache footprint (issue 28; the flow starts on a cache line):
    // an ACK's arrival reads and writes the first line (`TcpFlow::ACK_HOST`) and the
    // sender's hot span (`TcpFlow::SENDER_HOT`), a data segment's arrival the fields after
    // the first line and the receiver's hot head (`TcpFlow::DATA_HOT`).
    /// The sender's ACK path in a plain run, chosen at construction by its rules: `None`
    /// for the default rules in an unpaced run ([`Sender::on_ack_std`], compiled into the
    /// engine's loop), else a pointer to the path with its rules ([`Sender::plain_ack_path`]:
    /// the default rules as constants, or its profile's).
    pub(super) ack_path: Option<AckPath>,
    /// The retransmission timer scheduled in the heap, [`NO_TIMER`] if none.
    pub(super) rto_sched: Nanos,
    /// The ACKs in flight that carry SACK blocks or (with timestamps) a TSecr, oldest
    /// first, by number.
    pub(super) sacks: VecDeque<(u64, AckPkt)>,
    /// [`FlowRt::fwd0`] and [`FlowRt::rev0`], read here by the ACK and the data path.
    pub(super) fwd0: u32,
    pub(super) data_bytes_hdr: u32,
    pub(super) mss: u32,
    /// RFC 3168: the flow's new data is ECN-capable (ECT).
    pub(super) ect: u8,
    pub(super) rev0: u32,
    pub(super) ack_bytes: u32,
    pub(super) next_sack: u32,
    pub(super) arrived_bytes: u64,
    /// [`Sender::total_segs`] of a plain run's sender (it changes only with LT-TCP, which
    /// runs in the full engine), read here by the data path (one cache line less per
    /// segment).
    pub(super) total_segs: u64,
    pub(super) delack_sched: Option<Nanos>,
    /// Timeouts not yet known to be spurious or not: (segment, when).
    pub(super) pending_rto: VecDeque<(u64, Nanos)>,
    /// Duplicates of copies sent during the measured interval.
    pub(super) spurious_retx: u64,
    pub(super) receiver: Receiver,
    // Cold: completion, counters, options, snapshots, series, fair share.
    pub(super) completion: Option<Nanos>,
    pub(super) channel_losses: u64,
    pub(super) queue_drops: u64,
    pub(super) acks_lost: u64,
    pub(super) spurious_timeouts: u64,
    /// The counters at the warm-up's end (none without a warm-up), and the time series if
    /// recorded: boxed, so that a flow without them (most of them) does not hold their room.
    pub(super) snapshot: Option<Box<Counters>>,
    pub(super) series: Option<Box<Series>>,
    /// The flow's fair share of its path, bits/s, as of the last `recompute_shares`
    /// (read it through `Engine::fair_share_bps`).
    pub(super) fair_share_bps: f64,
    /// RFC 7323 timestamps: every ACK carries its TSecr through `sacks`.
    pub(super) timestamps: bool,
    /// The Ideal-estimate TCP (Martignon & Capone §V): the sender's `Tcb::fair_share_bps`
    /// is set from the engine's fair share before each ACK and timeout.
    pub(super) needs_share: bool,
    pub(super) sender: Sender,
}

impl TcpFlow {
    /// The bytes a data segment's arrival at the receiver reads or writes (the head: the
    /// host's fields and the receiver's hot head).
    pub(super) const DATA_HOT: std::ops::Range<usize> =
        std::mem::offset_of!(TcpFlow, rev0)..std::mem::offset_of!(TcpFlow, receiver) + Receiver::HOT.end;
    /// The host's fields an ACK's arrival reads or writes (with the sender's hot span,
    /// `TcpFlow::SENDER_HOT`).
    pub(super) const ACK_HOST: std::ops::Range<usize> = 0..std::mem::offset_of!(TcpFlow, rev0);
    /// The sender's hot span ([`Sender::HOT`]) within the flow.
    pub(super) const SENDER_HOT: std::ops::Range<usize> =
        std::mem::offset_of!(TcpFlow, sender) + Sender::HOT.start..std::mem::offset_of!(TcpFlow, sender) + Sender::HOT.end;
}

/// What handing a TCP flow's segments to its path needs of the flow ([`Engine::flush`]).
#[derive(Clone, Copy)]
pub(super) struct Outbound {
    pub(super) hdr: u32,
    pub(super) mss: u32,
    pub(super) ect: u8,
    /// A retransmission timer to schedule ([`rto_due`]).
    pub(super) rto: Option<Nanos>,
}

impl Outbound {
    #[inline(always)]
    pub(super) fn of(t: &mut TcpFlow) -> Self {
        Outbound { hdr: t.data_bytes_hdr, mss: t.mss, ect: t.ect, rto: rto_due(t) }
    }
}

/// The sender's retransmission deadline, if the flow has no timer scheduled at or before
/// it (then counted as scheduled: the caller pushes the timer).
#[inline(always)]
pub(super) fn rto_due(t: &mut TcpFlow) -> Option<Nanos> {
    // (A stopped timer is NO_TIMER, later than any scheduled one.)
    let d = t.sender.rto_timer();
    if d < t.rto_sched {
        t.rto_sched = d;
        return Some(d);
    }
    None
}

// Congestion control, loss recovery and every sender option come from TcpConfig.
pub(super) fn make_sender(t: &TcpConfig, size: Option<u64>) -> Sender {
    Sender::from_config(t, size)
}

impl<const LOG: bool, const FULL: bool, const PACE: bool, S: Store> Engine<LOG, FULL, PACE, S> {
    /// Hand flow `f`'s pending segments to the first link of its path.
    #[inline]
    pub(super) fn flush_tx(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        let pos = fl.fwd0;
        let out = Outbound::of(fl.tcp());
        self.flush(f, pos, out);
    }

    /// [`Engine::flush_tx`] with what it needs of the flow, taken while the caller held it
    /// (one lookup of the flow per ACK, not three).
    #[inline(always)]
    pub(super) fn flush(&mut self, f: usize, pos: u32, out: Outbound) {
        let Outbound { hdr, mss, ect, rto } = out;
        let first = *self.paths.at(pos as usize) as usize;
        let now = self.now;
        let sent = self.txbuf.len();
        for k in 0..sent {
            let tx = *self.txbuf.at(k);
            let mut p = Pkt::new(f as u32, pos, now, PktKind::Data, tx.seg, tx.len, tx.retx);
            if FULL {
                // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
                let flags = tx.flags | if tx.retx { 0 } else { ect };
                p = p.with_flags(flags).with_rseq(tx.rseq);
            }
            self.log_pkt(LogEvent::Sent, first as u32, &p);
            self.enter(first, p, hdr - (mss - tx.len));
        }
        self.txbuf.clear();
        if let Some(d) = rto {
            self.push_timer(d, Timer::Rto(f as u32));
        }
        if FULL || PACE {
            if self.flows.at_mut(f).tcp().sender.radio.on {
                self.radio_placed(f, first, sent > 0);
            }
            if let Some(d) = self.flows.at_mut(f).tcp().sender.pace_due() {
                // A paced sender held by its pacer: one timer for its next burst.
                self.set_pace(f, d);
            }
        }
    }

    /// Flow `f`'s radio (the slotted mode's `radio` queue, `tcp/sender/radio.rs`): it is free
    /// when the slot of the last packet it put on link `first` ends (`sent`: it put one
    /// there just now); a held sender is woken then (its pacing slot). Out of the paced
    /// flows' way.
    #[cold]
    #[inline(never)]
    fn radio_placed(&mut self, f: usize, first: usize, sent: bool) {
        let end = sent.then(|| {
            let p = &self.links.at(first).pipe;
            let e = p.get(&self.pool, p.len() - 1).expect("the packet just put on the link");
            p.sent(e)
        });
        if let Some(d) = self.flows.at_mut(f).tcp().sender.radio_placed(end) {
            self.set_pace(f, d);
        }
    }

    /// Flow `f`'s receiver sends the ACK it made last ([`Receiver::last_ack`]).
    pub(super) fn send_ack(&mut self, f: usize) {
        let fl = self.flows.at_mut(f);
        let pos = fl.rev0;
        let t = fl.tcp();
        let bytes = t.ack_bytes;
        let p = Self::ack_packet(t, f, pos, self.now);
        self.send(p, bytes);
    }

    /// The packet of flow `f`'s last ACK, leaving at `now` on the path at `pos` (its SACK
    /// blocks, or with timestamps its echo, wait in the flow's queue).
    #[inline(always)]
    pub(super) fn ack_packet(t: &mut TcpFlow, f: usize, pos: u32, now: Nanos) -> Pkt {
        let a = t.receiver.last_ack();
        let mut flags = if FULL && a.ece { ECE } else { 0 };
        let mut rseq = 0;
        let ack = a.ack;
        let sack = if a.nsack == 0 && !(FULL && t.timestamps) {
            // LT-TCP's option on an ACK without SACK blocks travels in the packet: its
            // erasure estimate in the SACK-queue field (flag PFEC), the echoed RFEC number in
            // the RFEC-number field (flag RFEC).
            if let Some(e) = a.lt_erasure.filter(|_| FULL) {
                flags |= PFEC;
                if let Some(r) = a.lt_rfec {
                    (flags, rseq) = (flags | RFEC, r);
                }
                e
            } else {
                NO_SACK
            }
        } else {
            let id = t.next_sack;
            t.next_sack = if id == NO_SACK - 1 { 0 } else { id + 1 };
            t.sacks.push_back((id as u64, *a));
            id
        };
        let mut p = Pkt::new(f as u32, pos, now, PktKind::Ack, ack, sack, false);
        if FULL {
            p = p.with_flags(flags).with_rseq(rseq);
        }
        p
    }

    /// Hand packet `p` of `bytes` to the first link of its path.
    #[inline(always)]
    pub(super) fn send(&mut self, p: Pkt, bytes: u32) {
        let first = *self.paths.at(p.pos as usize) as usize;
        self.log_pkt(LogEvent::Sent, first as u32, &p);
        self.enter(first, p, bytes);
    }

    #[inline]
    pub(super) fn sync_rto(&mut self, f: usize) {
        if let Some(d) = rto_due(self.flows[f].tcp()) {
            self.push_timer(d, Timer::Rto(f as u32));
        }
    }

    #[inline]
    pub(super) fn sync_delack(&mut self, f: usize, d: Nanos) {
        let t = self.flows[f].tcp();
        if t.delack_sched.is_none_or_gt(d) {
            t.delack_sched = Some(d);
            self.push_timer(d, Timer::DelAck(f as u32));
        }
    }

    /// An ACK reaches flow `f`'s sender: its cumulative ACK, and its SACK blocks from the
    /// flow's queue (dropping those of earlier ACKs that were lost on the way). An ACK
    /// without a queue entry is written into the engine's `ack_in` field by field (not built
    /// and copied whole: the sender reads a few of its fields).
    #[inline(always)]
    pub(super) fn on_ack(&mut self, f: usize, ack: u64, sack: u32, flags: u8, rseq: u16) {
        let now = self.now;
        if FULL && self.flows.at_mut(f).tcp_of_packet().needs_share {
            self.set_share(f);
        }
        let t = self.flows.at_mut(f).tcp_of_packet();
        let pos = t.fwd0;
        let ece = flags & ECE != 0;
        if !FULL && sack == NO_SACK {
            self.ack_in.ack = ack; // the other fields keep their defaults in a plain run
            match t.ack_path {
                Some(path) => path(&mut t.sender, &self.ack_in, now, &mut self.txbuf),
                None if !PACE => t.sender.on_ack_std::<PACE>(&self.ack_in, now, &mut self.txbuf),
                None => unreachable!("a paced run gives every flow its ACK path's pointer"),
            }
        } else if flags & PFEC != 0 || sack == NO_SACK {
            let a = &mut self.ack_in;
            a.ack = ack;
            a.ece = ece;
            (a.lt_erasure, a.lt_rfec) = if flags & PFEC != 0 {
                (Some(sack), (flags & RFEC != 0).then_some(rseq))
            } else {
                (None, None)
            };
            t.sender.on_ack(&self.ack_in, now, &mut self.txbuf);
        } else {
            while t.sacks.front().expect("an ACK's SACK blocks wait in its flow's queue").0 != sack as u64 {
                t.sacks.pop_front();
            }
            let (_, a) = t.sacks.front().expect("found above");
            if FULL {
                t.sender.on_ack_in::<true, PACE, false>(a, now, &mut self.txbuf);
            } else {
                match t.ack_path {
                    Some(path) => path(&mut t.sender, a, now, &mut self.txbuf),
                    // (out of line: ACKs with SACK blocks are the rarer ones)
                    None => t.sender.on_ack_in::<false, PACE, true>(a, now, &mut self.txbuf),
                }
            }
            t.sacks.pop_front();
        }
        let out = Outbound::of(t);
        self.record(f);
        self.flush(f, pos, out);
    }

    /// A data segment reaches flow `f`'s receiver.
    #[inline(always)]
    pub(super) fn on_data(&mut self, f: usize, tx: Tx, t0: Nanos) {
        let (now, warmup) = (self.now, self.warmup);
        let fl = self.flows.at_mut(f);
        let t = fl.tcp_of_packet();
        let rev = t.rev0;
        t.arrived_bytes += tx.len as u64;
        let dups = t.receiver.duplicates;
        // A pending timeout for this segment was spurious if this copy, the first to
        // arrive, was sent before it fired. (An LT-TCP RFEC packet is no copy of a segment.)
        if !t.pending_rto.is_empty() && tx.flags & RFEC == 0 {
            t.spurious_timeouts += settle_timeouts(&mut t.pending_rto, tx.seg, t0);
        }
        let before = t.receiver.rcv_nxt;
        if FULL {
            if t.timestamps {
                t.receiver.note_tsval(tx.seg, tx.ts); // RFC 7323 TS.Recent
            }
            if tx.flags & (CE | CWR) != 0 {
                t.receiver.note_ecn(tx.flags); // RFC 3168 §6.1.3
            }
        }
        let act = if FULL { t.receiver.on_arrival(&tx, now, t.sender.lt_blocks()) } else { t.receiver.on_plain_segment(tx.seg, now) };
        let after = t.receiver.rcv_nxt;
        // A copy of data the receiver already held: spurious if sent in the measured interval.
        if t.receiver.duplicates > dups && (!FULL || t0 >= warmup) {
            t.spurious_retx += 1;
        }
        debug_assert!(FULL || t.total_segs == t.sender.total_segs());
        let done = after >= if FULL { t.sender.total_segs() } else { t.total_segs };
        if LOG && after > before {
            self.log.push(LogRec {
                t: now,
                event: LogEvent::Delivered,
                kind: LogKind::Data,
                flow: f as u32,
                link: u32::MAX,
                seg: before,
                to: after,
                retx: tx.retx,
                t0,
            });
        }
        match act {
            RxAction::Ack => {
                let (p, bytes) = (Self::ack_packet(t, f, rev, now), t.ack_bytes);
                self.send(p, bytes);
            }
            RxAction::AckAndTimer(d) => self.ack_keeping_timer(f, d),
            RxAction::Delay(d) => self.sync_delack(f, d),
        }
        if done {
            self.completed(f);
        }
    }

    /// tossim: an idle-ACK receiver sends its ACK and keeps its timer running, to `d`. Out of
    /// the loop's way (the common path's copy of a packet's entry to a link is not repeated
    /// in the loop for it).
    #[cold]
    #[inline(never)]
    pub(super) fn ack_keeping_timer(&mut self, f: usize, d: Nanos) {
        self.send_ack(f);
        self.sync_delack(f, d);
    }

    /// Flow `f`'s receiver holds the whole transfer.
    #[cold]
    pub(super) fn completed(&mut self, f: usize) {
        let now = self.now;
        let t = self.flows[f].tcp();
        if t.completion.is_none() {
            t.completion = Some(now);
            if self.flows[f].spec.on_off.is_none() {
                self.finite_open -= 1;
                self.shares_stale = true;
                if self.stop_on_completion && self.finite_open == 0 {
                    self.stopped_at = Some(now);
                    self.stop_before = 0; // the loop ends after this event
                }
            }
        }
    }

    pub(super) fn on_rto(&mut self, f: usize, at: Nanos) {
        let (now, warmup) = (self.now, self.warmup);
        let t = self.flows[f].tcp();
        if t.rto_sched != at {
            return; // superseded by an earlier entry
        }
        t.rto_sched = NO_TIMER;
        match t.sender.rto_deadline() {
            None => {}
            Some(d) if d > at => self.sync_rto(f),
            Some(_) => {
                let seg = t.sender.tcb.snd_una;
                // (A tail loss probe or RACK's reordering timer is no timeout.)
                if seg < t.sender.tcb.high_tx && now >= warmup && t.sender.timer_is_rto() {
                    if t.receiver.holds(seg) {
                        t.spurious_timeouts += 1;
                    } else {
                        // Sorted by (segment, time): snd_una and the clock never go back.
                        debug_assert!(t.pending_rto.back().is_none_or(|&b| b <= (seg, now)));
                        t.pending_rto.push_back((seg, now));
                    }
                }
                if t.needs_share {
                    self.set_share(f);
                }
                let t = self.flows[f].tcp();
                t.sender.on_rto(now, &mut self.txbuf);
                self.record(f);
                self.flush_tx(f);
            }
        }
    }

    /// Flow `f`'s pacing timer for `at` fires: its sender sends what the pacer now allows.
    pub(super) fn on_pace(&mut self, f: usize, at: Nanos) {
        let now = self.now;
        // (the paced plain build's send loop only in that engine: an engine without paced
        // flows never fires a pacing timer, and keeps the full loop's one copy)
        let sender = &mut self.flows[f].tcp().sender;
        // A radio's wake-up: the sender hands over its next segment, if any; the radio's state
        // goes back to the engine whatever it sent (`flush`). (A paced radio sender's pacer has
        // wake-ups of its own, told apart by their times: each gate knows its current one.)
        if sender.radio.on && sender.on_radio_wake::<FULL>(at, now, &mut self.txbuf) {
            if !self.txbuf.is_empty() {
                self.record(f); // (a series row where the wake-up sent, as a pacer's does)
            }
            self.flush_tx(f);
            return;
        }
        let sender = &mut self.flows[f].tcp().sender;
        let sent = if PACE && !FULL { sender.on_pace_timer_plain(at, now, &mut self.txbuf) } else { sender.on_pace_timer(at, now, &mut self.txbuf) };
        if sent {
            self.record(f);
            self.flush_tx(f);
        }
    }

    pub(super) fn on_delack(&mut self, f: usize, at: Nanos) {
        let t = self.flows[f].tcp();
        if t.delack_sched != Some(at) {
            return;
        }
        t.delack_sched = None;
        match t.receiver.delack_deadline {
            None => {}
            Some(d) if d > at => self.sync_delack(f, d),
            Some(_) => {
                let now = self.now;
                if t.receiver.on_delack_timer(now) {
                    self.send_ack(f);
                }
                // tossim: an idle-ACK receiver re-arms its timer (ReceiverConfig::ack_on_idle).
                if let Some(d) = self.flows[f].tcp().receiver.delack_deadline {
                    self.sync_delack(f, d);
                }
            }
        }
    }
}


/// The first copy of segment `seg`, sent at `t0`, has arrived: the pending timeouts of
/// `seg` are settled (removed), and those that fired after `t0` were spurious (counted).
///
/// `pending` is sorted by (segment, time) (each entry is (snd_una, now) at a timeout), so
/// the segment's entries are one run found by binary search: O(log n) per arriving copy.
/// On a link that keeps stale copies queued (a slotted FIFO without RTO backoff), timeouts
/// of one segment pile up while its retransmission waits; scanning them at every arrival
/// made such runs quadratic (8·10^6 slots took 46 s instead of 1).
fn settle_timeouts(pending: &mut VecDeque<(u64, Nanos)>, seg: u64, t0: Nanos) -> u64 {
    let (Some(&(first, _)), Some(&(last, _))) = (pending.front(), pending.back()) else {
        return 0;
    };
    if seg < first || seg > last {
        return 0;
    }
    let lo = pending.partition_point(|&(s, _)| s < seg);
    let late = pending.partition_point(|&(s, at)| s < seg || (s == seg && at <= t0));
    let hi = pending.partition_point(|&(s, _)| s <= seg);
    pending.drain(lo..hi);
    (hi - late) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// What the binary search replaces: scan every pending timeout.
    fn settle_by_scan(pending: &mut VecDeque<(u64, Nanos)>, seg: u64, t0: Nanos) -> u64 {
        let before = pending.len();
        pending.retain(|&(s, at)| s != seg || at <= t0);
        let spurious = (before - pending.len()) as u64;
        pending.retain(|&(s, _)| s != seg);
        spurious
    }

    #[test]
    fn a_copy_sent_before_a_timeout_makes_it_spurious() {
        // Timeouts of segment 5 at 10, 20 and 30 ns, of segment 7 at 40 ns.
        let mut p: VecDeque<(u64, Nanos)> = [(5, 10), (5, 20), (5, 30), (7, 40)].into();
        assert_eq!(settle_timeouts(&mut p, 6, 0), 0); // no timeout of segment 6
        assert_eq!(p.len(), 4);
        // The arriving copy of 5 was sent at 20: the timeout at 30 fired while it was on its
        // way (spurious); those at 10 and 20 came before it was sent (not spurious).
        assert_eq!(settle_timeouts(&mut p, 5, 20), 1);
        assert_eq!(p, VecDeque::from([(7, 40)]));
        assert_eq!(settle_timeouts(&mut p, 8, 0), 0); // above every pending segment
        assert_eq!(settle_timeouts(&mut p, 7, 39), 1);
        assert!(p.is_empty());
        assert_eq!(settle_timeouts(&mut p, 7, 0), 0);
    }

    #[test]
    fn settles_as_the_scan_does() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
        for _ in 0..2000 {
            // Sorted as the engine pushes them: (snd_una, now), neither ever going back.
            let (mut seg, mut now) = (rng.random_range(0..4u64), 0);
            let mut pending = VecDeque::new();
            for _ in 0..rng.random_range(0..12) {
                seg += rng.random_range(0..2u64);
                now += rng.random_range(0..3u64);
                pending.push_back((seg, now));
            }
            let mut want = pending.clone();
            for _ in 0..6 {
                let (s, t0) = (rng.random_range(0..seg + 2), rng.random_range(0..now + 2));
                assert_eq!(settle_timeouts(&mut pending, s, t0), settle_by_scan(&mut want, s, t0));
                assert_eq!(pending, want);
            }
        }
    }
}
