//! CoDel and FQ-CoDel links in the engine (`link/codel.rs`, `link/fq_codel.rs`): a packet
//! entering such a link waits in its queue, and a dequeue event (a timer) hands the link's
//! transmitter the next packet the queue chooses when the transmitter frees up
//! (`docs/simulator.md`, "CoDel and FQ-CoDel": why these links, and only these, have an event
//! per packet). The rest of the packet's way (service, pipe, loss process) is the links'.
use super::*;

/// A CoDel or FQ-CoDel link: its packets wait in `q` and go to the server one at a time, at
/// a dequeue event (a timer) when the server frees up (`docs/simulator.md`, "CoDel and
/// FQ-CoDel": the order in which they leave depends on later arrivals).
pub(super) struct AqmRt {
    pub(super) q: AqmQueue<Pkt>,
    /// A dequeue event is scheduled.
    pub(super) pending: bool,
    /// Dropped packets, handed out after each enqueue or dequeue (kept: no allocation).
    pub(super) drops: Vec<Queued<Pkt>>,
}

/// What follows a packet's entry to a CoDel or FQ-CoDel link.
pub(super) enum AqmNext {
    /// The server is idle: dequeue now.
    Now,
    /// Schedule a dequeue when the server frees up.
    At(Nanos),
    /// A dequeue is already scheduled.
    Pending,
}

/// A CoDel or FQ-CoDel link's side of its packets' entry and dequeue (`Engine::enter_aqm`,
/// `Engine::aqm_dequeue`).
impl<S: Store> LinkRt<S> {
    fn aqm(&mut self) -> &mut AqmRt {
        match self.qdisc.as_deref_mut() {
            Some(Qdisc::Aqm(a)) => a,
            _ => unreachable!("called for CoDel and FQ-CoDel links"),
        }
    }

    /// Packet `p` of `bytes` enters at `now`, the link's server `server`.
    fn aqm_enqueue(&mut self, server: &Server, now: Nanos, p: Pkt, bytes: u32) -> AqmNext {
        let free_at = server.free_at();
        let (buffer, unit) = (self.pipe.buffer, self.pipe.unit);
        let a = self.aqm();
        a.drops.clear();
        let idle = !a.pending && free_at <= now;
        // FQ-CoDel's flow: the flow and whether it is data or ACKs (RFC 8290 §4.1.1's 5-tuple).
        let key = (p.flow as u64) << 2 | p.kind() as u64;
        let q = Queued { pkt: p, bytes, enq: now, ect: p.flags() & ECT != 0 };
        a.q.enqueue(key, q, buffer, unit, idle, &mut a.drops);
        if idle {
            AqmNext::Now
        } else if a.pending {
            AqmNext::Pending
        } else {
            a.pending = true;
            AqmNext::At(free_at)
        }
    }

    /// The `k`-th packet the last enqueue or dequeue dropped.
    fn aqm_drop(&mut self, k: usize) -> Option<Pkt> {
        self.aqm().drops.get(k).map(|d| d.pkt)
    }

    /// The dequeue at `now` (CoDel's drops left in `drops`, counted as early drops): the
    /// packet sent (CE set if marked), its size, service start and end.
    fn aqm_take(&mut self, server: &mut Server, now: Nanos, warmup: Nanos) -> Option<(Pkt, u32, Nanos, Nanos)> {
        let a = self.aqm();
        a.pending = false;
        a.drops.clear();
        let out = a.q.dequeue(now, &mut a.drops);
        self.c.early_drops += self.aqm().drops.len() as u64;
        let d = out?;
        let mut p = d.q.pkt;
        if d.ce {
            p = p.with_flags(CE);
            self.c.ecn_marks += 1;
        }
        let (start, sent) = server.serve(now, d.q.bytes);
        debug_assert_eq!(start, now, "a CoDel link's server is its own and free at a dequeue");
        self.c.sent += 1;
        self.c.bytes_sent += d.q.bytes as u64;
        if d.q.enq >= warmup {
            self.qdelay.record(start - d.q.enq); // the sojourn time
        }
        self.busy += sent.saturating_sub(start.max(warmup));
        Some((p, d.q.bytes, start, sent))
    }

    /// Put the dequeued packet in the pipe: (the pipe was empty, packets still wait: a
    /// dequeue is now pending at its service end).
    fn aqm_push(&mut self, e: InFlight<Pkt>, pool: &mut S::Pool) -> (bool, bool) {
        let was_empty = self.pipe.is_empty();
        self.pipe.push_started(e, true, pool);
        let a = self.aqm();
        a.pending = !a.q.is_empty();
        (was_empty, a.pending)
    }
}

impl<const LOG: bool, const FULL: bool, const PACE: bool, S: Store> Engine<LOG, FULL, PACE, S> {
    /// Packet `p` of `bytes` enters CoDel or FQ-CoDel link `li`: it waits in the link's queue
    /// (or, the server idle, goes to service at once), and a dequeue event is scheduled for
    /// when the server frees up if none is. Overflow drops are queue drops. (The work is in
    /// [`LinkRt`]'s methods, compiled once for each way of storing the pipes' entries rather
    /// than for each of the engine's instantiations.)
    #[cold]
    #[inline(never)]
    pub(super) fn enter_aqm(&mut self, li: usize, p: Pkt, bytes: u32) {
        let sv = self.links[li].server;
        let next = self.links[li].aqm_enqueue(&self.servers[sv], self.now, p, bytes);
        self.aqm_lose_drops(li);
        match next {
            AqmNext::Now => self.aqm_dequeue(li),
            AqmNext::At(t) => self.push_timer(t, Timer::Dequeue(li as u32)),
            AqmNext::Pending => {}
        }
    }

    /// The packets the queue of link `li` just dropped are lost (queue drops).
    fn aqm_lose_drops(&mut self, li: usize) {
        let mut k = 0;
        while let Some(p) = self.links[li].aqm_drop(k) {
            self.lose(li, &p, true);
            k += 1;
        }
    }

    /// The server of CoDel or FQ-CoDel link `li` is free: the queue's dequeue (which may drop
    /// or mark: early drops, ECN marks) hands it the next packet, whose service starts now;
    /// the next dequeue is at its service end if packets wait.
    #[cold]
    #[inline(never)]
    pub(super) fn aqm_dequeue(&mut self, li: usize) {
        let sv = self.links[li].server;
        let out = self.links[li].aqm_take(&mut self.servers[sv], self.now, self.warmup);
        self.aqm_lose_drops(li);
        let Some((p, bytes, start, sent)) = out else { return };
        self.seq += 1;
        let seq = self.seq;
        let l = &self.links[li];
        let arrive = sent + l.pipe.delay;
        let lost = !l.lossless && self.decide(li, start, sent, arrive, &p);
        let (was_empty, more) = self.links[li].aqm_push(InFlight { start, arrive, seq, bytes, lost, pkt: p }, &mut self.pool);
        if was_empty {
            self.tree.set(li, key(arrive, seq));
        }
        if more {
            self.push_timer(sent, Timer::Dequeue(li as u32));
        }
    }

}
