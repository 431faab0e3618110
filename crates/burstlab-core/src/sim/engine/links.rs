//! The links of the engine: a packet entering a link (RED, the buffer, a link layer), its
//! fate decided by the loss process, and its arrival at the end of the link.
use super::*;

#[repr(C)] // the fields a hop touches first, together (pipe, flags, counters, histogram)
pub(super) struct LinkRt<S: Store> {
    pub(super) pipe: Pipe<Pkt, S>,
    /// Decisions wait for the service start, in event order (time-mode processes).
    pub(super) time_mode: bool,
    /// No loss process (its own or shared): no decision to make.
    pub(super) lossless: bool,
    pub(super) window: LossWindow,
    /// Whose loss process decides (itself, or the owner of a shared one).
    pub(super) owner: usize,
    pub(super) busy: Nanos,
    /// `offered` and `delivered` are filled in when read ([`LinkRt::counters`]): `sent`
    /// counts the packets admitted (until `finish` takes back those not yet served).
    pub(super) c: LinkCounters,
    pub(super) qdelay: LogHistogram,
    pub(super) loss: LossSource,
    /// The queue discipline unless DropTail: RED (`link/red.rs`), consulted at admission, or
    /// a queue that decides at dequeue (CoDel, FQ-CoDel: [`AqmRt`]).
    pub(super) qdisc: Option<Box<Qdisc>>,
    /// Its link layer, if any (boxed: most links have none and stay small).
    pub(super) layer: Option<Box<LayerRt>>,
    pub(super) server: usize,
    pub(super) name: String,
    /// The counters at the warm-up's end (none without a warm-up; boxed: most runs have none).
    pub(super) snap: Option<Box<LinkCounters>>,
}

/// A link's queue discipline other than DropTail.
pub(super) enum Qdisc {
    Red(Red),
    Aqm(AqmRt),
}

/// A link's link layer and its random stream (`link.NAME.layer`: attempt times, backoff).
pub(super) struct LayerRt {
    pub(super) layer: LinkLayer,
    pub(super) rng: Rng,
}

impl<S: Store> LinkRt<S> {
    /// The counters so far: every packet offered was dropped on entry or admitted, and
    /// every admitted one has left the pipe (lost or delivered) or is still in it.
    pub(super) fn counters(&self) -> LinkCounters {
        let c = self.c;
        // Packets in a CoDel or FQ-CoDel queue were offered, not yet admitted to the server.
        let waiting = match self.qdisc.as_deref() {
            Some(Qdisc::Aqm(a)) => a.q.len() as u64,
            _ => 0,
        };
        LinkCounters {
            offered: c.sent + c.queue_drops + waiting,
            delivered: c.sent - self.pipe.len() as u64 - c.channel_losses,
            ..c
        }
    }
}

impl<const LOG: bool, const FULL: bool, const PACE: bool, S: Store> Engine<LOG, FULL, PACE, S> {
    /// The link's next event key: its first undecided entry (time mode) when that comes
    /// no later than its head's arrival, else the head's arrival.
    #[inline]
    pub(super) fn link_key(&self, i: usize) -> Key {
        let l = self.links.at(i);
        let h = l.pipe.head(&self.pool).map_or(NONE, |(t, s)| key(t, s));
        if l.time_mode {
            if let Some((t, s)) = l.pipe.next_undecided(&self.pool) {
                return h.min(key(t, s));
            }
        }
        h
    }

    #[inline]
    pub(super) fn refresh(&mut self, i: usize) {
        let k = self.link_key(i);
        self.tree.set(i, k);
    }

    /// The fate of a packet on link `i` served during [start, sent], arriving at `arrive`:
    /// the loss process of the link's owner (itself, or the link whose process it shares)
    /// over the link's loss window.
    /// `p`'s key serves a replay keyed by what packets are (`loss/keyed.rs`).
    #[inline(always)]
    pub(super) fn decide(&mut self, i: usize, start: Nanos, sent: Nanos, arrive: Nanos, p: &Pkt) -> bool {
        let l = self.links.at_mut(i);
        let end = match l.window {
            LossWindow::Serialisation => sent,
            LossWindow::Transit => arrive,
        };
        let key = || p.fate_key();
        if l.owner == i {
            l.loss.decide_keyed(start, end, key)
        } else {
            let o = l.owner;
            self.links.at_mut(o).loss.decide_keyed(start, end, key)
        }
    }

    #[inline(always)]
    pub(super) fn log_pkt(&mut self, event: LogEvent, link: u32, p: &Pkt) {
        if LOG {
            let (kind, seg, retx) = p.log_fields();
            self.log.push(LogRec { t: self.now, event, kind, flow: p.flow, link, seg, to: seg + 1, retx, t0: p.t0 });
        }
    }

    /// Put a packet of `bytes` on link `li` at the current time.
    #[inline(always)]
    pub(super) fn enter(&mut self, li: usize, mut p: Pkt, bytes: u32) {
        debug_assert_eq!(self.paths[p.pos as usize] as usize, li, "a packet enters the link at its position");
        if FULL && self.links.at(li).qdisc.is_some() {
            if let Some(Qdisc::Aqm(_)) = self.links.at(li).qdisc.as_deref() {
                return self.enter_aqm(li, p, bytes);
            }
            // The packet stays in registers: RED sees only its ECN capability.
            match self.red_verdict(li, p.flags() & ECT != 0) {
                Verdict::Enqueue => {}
                Verdict::Mark => p = p.with_flags(CE),
                Verdict::Drop => return self.lose(li, &p, true),
            }
        }
        let now = self.now;
        let l = self.links.at_mut(li);
        if FULL && l.layer.is_some() {
            return self.enter_layer(li, p, bytes);
        }
        let server = self.servers.at_mut(*self.path_servers.at(p.pos as usize) as usize);
        let Some((start, sent)) = l.pipe.admit(now, bytes, server, &self.pool) else {
            return self.lose(li, &p, true);
        };
        self.admitted(li, p, bytes, start, sent, None)
    }

    /// [`Engine::enter`] on a link with a link layer: the frame's attempts are played out
    /// now, from its service start (the server is FIFO, so the channel is asked in time
    /// order: `Network::validate`); its fate and service end follow from them.
    #[inline(never)]
    pub(super) fn enter_layer(&mut self, li: usize, p: Pkt, bytes: u32) {
        let now = self.now;
        let owner = self.links[li].owner;
        let mut ch = std::mem::replace(&mut self.links[owner].loss, LossSource::None);
        let l = &mut self.links[li];
        let mut lr = l.layer.take().expect("a link layer");
        let mut delivered = true;
        let admitted = l.pipe.admit_layer(now, bytes, &mut self.servers[l.server], &self.pool, |start| {
            let s = lr.layer.serve(start, bytes, &mut ch, &mut lr.rng);
            delivered = s.delivered;
            s.end
        });
        l.layer = Some(lr);
        self.links[owner].loss = ch;
        match admitted {
            None => self.lose(li, &p, true),
            Some((start, sent)) => self.admitted(li, p, bytes, start, sent, Some(!delivered)),
        }
    }

    /// Packet `p` of `bytes` was admitted to link `li`'s pipe: service from `start` to
    /// `sent`; `lost` if its fate is already known (a link layer's), else decided here
    /// (packet mode) or at its service start (time mode).
    #[inline(always)]
    pub(super) fn admitted(&mut self, li: usize, p: Pkt, bytes: u32, start: Nanos, sent: Nanos, lost: Option<bool>) {
        let now = self.now;
        let l = self.links.at_mut(li);
        self.seq += 1;
        let seq = self.seq;
        l.c.sent += 1;
        l.c.bytes_sent += bytes as u64;
        // Busy time within the measured interval (trimmed at the stop in finish()).
        // (A plain run has no warm-up: `needs_full`.)
        if !FULL || now >= self.warmup {
            // sent ≥ start ≥ now ≥ warmup: the whole service is measured.
            l.busy += sent - start;
            l.qdelay.record(start - now);
        } else {
            l.busy += sent.saturating_sub(start.max(self.warmup));
        }
        let arrive = sent + l.pipe.delay;
        let e = InFlight { start, arrive, seq, bytes, lost: false, pkt: p };
        // The link's next event changes only if this packet is its new head, or (time
        // mode) its first undecided entry.
        if l.time_mode {
            let first_undecided = l.pipe.decided() == l.pipe.len();
            l.pipe.push(e, false, &mut self.pool);
            if first_undecided {
                self.refresh(li);
            }
        } else {
            let was_empty = l.pipe.is_empty();
            let lost = match lost {
                Some(lost) => lost,
                None => !l.lossless && self.decide(li, start, sent, arrive, &p),
            };
            self.links.at_mut(li).pipe.push(InFlight { lost, ..e }, true, &mut self.pool);
            if was_empty {
                self.tree.set(li, key(arrive, seq));
                if self.prefetching {
                    self.note_head(li);
                }
            }
        }
    }

    /// The queue discipline's seam: RED (`link/red.rs`) decides on a packet arriving at link
    /// `li` (`ect`: ECN-capable) from the queue it finds; an early drop is a queue drop, a
    /// mark sets CE (both counted here; the caller applies them).
    #[inline(always)]
    pub(super) fn red_verdict(&mut self, li: usize, ect: bool) -> Verdict {
        let now = self.now;
        let l = self.links.at_mut(li);
        let q = l.pipe.backlog(now, &self.pool) as i64 as f64; // (a queue is far below 2^63)
        let q_time = l.pipe.last_start;
        let Some(Qdisc::Red(red)) = l.qdisc.as_deref_mut() else { unreachable!("called for RED links") };
        let v = red.arrival(now, q, q_time, ect);
        match v {
            Verdict::Enqueue => {}
            Verdict::Mark => l.c.ecn_marks += 1,
            Verdict::Drop => l.c.early_drops += 1,
        }
        v
    }

    /// `p` is lost on link `li`: dropped on entry by its full buffer (`by_queue`), or
    /// lost by its loss process. Counted for the link and the packet's flow (an ACK's
    /// loss, either way, as `acks_lost`), and logged.
    #[cold]
    #[inline(never)]
    pub(super) fn lose(&mut self, li: usize, p: &Pkt, by_queue: bool) {
        let c = &mut self.links[li].c;
        let (counter, event) =
            if by_queue { (&mut c.queue_drops, LogEvent::Dropped) } else { (&mut c.channel_losses, LogEvent::Lost) };
        *counter += 1;
        self.log_pkt(event, li as u32, p);
        if FULL && self.sent_before_window(p) {
            return; // its flow counted it as sent before the measured window: its fate is not in it
        }
        let (queue_drops, channel_losses) = match &mut self.flows[p.flow as usize].state {
            FlowState::Tcp(t) if p.kind() == PktKind::Ack => return t.acks_lost += 1,
            FlowState::Tcp(t) => (&mut t.queue_drops, &mut t.channel_losses),
            FlowState::Cbr(c) => (&mut c.queue_drops, &mut c.channel_losses),
        };
        *(if by_queue { queue_drops } else { channel_losses }) += 1;
    }

    /// The next event of link `li` at the current time: a time-mode decision or an arrival.
    /// `AHEAD`: prefetch what the next event will touch (`ahead.rs`).
    #[inline(always)]
    pub(super) fn on_link<const AHEAD: bool>(&mut self, li: usize) {
        let l = self.links.at_mut(li);
        if l.time_mode {
            let head = l.pipe.head(&self.pool).map_or(NONE, |(t, s)| key(t, s));
            if l.pipe.next_undecided(&self.pool).is_some_and(|(t, s)| key(t, s) <= head) {
                return self.decide_time_mode(li);
            }
            let e = l.pipe.pop(&mut self.pool);
            self.refresh(li);
            return self.arrive(li, e);
        }
        let e = l.pipe.pop(&mut self.pool);
        let k = l.pipe.head(&self.pool).map_or(NONE, |(t, s)| key(t, s));
        self.tree.set(li, k);
        if AHEAD {
            self.note_head(li);
            self.ahead();
        }
        self.arrive(li, e)
    }

    /// Time mode: decide the fate of link `li`'s first undecided entry at its service start.
    #[inline(never)]
    pub(super) fn decide_time_mode(&mut self, li: usize) {
        let p = &self.links[li].pipe;
        let e = p.undecided(&self.pool);
        let (s, t, a, pkt) = (e.start, p.sent(e), e.arrive, e.pkt);
        let lost = self.decide(li, s, t, a, &pkt);
        self.links[li].pipe.decide_next(lost, &mut self.pool);
        self.refresh(li);
    }

    /// Packet `e` reaches the far end of link `li`: the next link of its path, or its end host.
    #[inline(always)]
    pub(super) fn arrive(&mut self, li: usize, e: InFlight<Pkt>) {
        let p = e.pkt;
        if e.lost {
            return self.lose(li, &p, false);
        }
        let pos = p.pos + 1;
        let next = *self.paths.at(pos as usize);
        if next != END {
            return self.enter(next as usize, Pkt { pos, ..p }, e.bytes);
        }
        self.log_pkt(LogEvent::Arrived, u32::MAX, &p);
        let f = p.flow as usize;
        match p.kind() {
            PktKind::Data => {
                let (flags, rseq) = if FULL { (p.flags(), p.rseq()) } else { (0, 0) };
                let tx = Tx { seg: p.num, len: p.aux(), retx: p.retx(), ts: p.t0, flags, rseq };
                self.on_data(f, tx, p.t0)
            }
            PktKind::Ack if FULL => self.on_ack(f, p.num, p.aux(), p.flags(), p.rseq()),
            PktKind::Ack => self.on_ack(f, p.num, p.aux(), 0, 0),
            PktKind::Udp => {
                let early = FULL && self.sent_before_window(&p);
                if let FlowState::Cbr(c) = &mut self.flows[f].state {
                    c.delivered += !early as u64;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// What a link and a packet in flight cost: with 10,000 flows the engine holds 20,002
    /// links and ~10^5 packets in flight (`docs/validation.md`, "many flows"); a pooled
    /// pipe holds a list through the pool (three words and two remembered places) or, on a
    /// busy link, a ring (`link/slots.rs`, `Mixed`). The bounds keep them from growing unnoticed.
    #[test]
    fn sizes_of_a_link_and_a_packet_in_flight() {
        let sizes = [
            ("LinkRt, pooled", size_of::<LinkRt<Mixed<InFlight<Pkt>>>>(), 400),
            ("LinkRt, inline", size_of::<LinkRt<Ring<InFlight<Pkt>>>>(), 384),
            ("Pipe, pooled", size_of::<Pipe<Pkt, Mixed<InFlight<Pkt>>>>(), 128),
            ("InFlight<Pkt>", size_of::<InFlight<Pkt>>(), 64),
            ("Pkt", size_of::<Pkt>(), 32),
            ("Server", size_of::<Server>(), 112),
            ("LogHistogram", size_of::<LogHistogram>(), 72),
            ("LinkResult", size_of::<LinkResult>(), 512),
        ];
        eprintln!("{sizes:?}");
        for (what, size, most) in sizes {
            assert!(size <= most, "{what}: {size} bytes, more than {most}");
        }
    }
}
