//! LT-TCP's sender (Subramanian et al. §IV; `recovery/lt.rs`): segments are slots of FEC
//! blocks of adaptive size, with proactive and reactive parity packets.
use super::*;

impl Sender {
    /// [`Sender::seg_len`] and [`Sender::bytes_below`] of LT-TCP's slots, out of line so
    /// that the others inline.
    #[inline(never)]
    pub(super) fn lt_seg_len(&self, seg: u64) -> u64 {
        self.lt_blocks().and_then(|b| b.find(seg)).map_or(self.tcb.mss, |b| b.slot(seg).0 as u64)
    }

    #[inline(never)]
    pub(super) fn lt_bytes_below(&self, n: u64) -> u64 {
        self.lt_blocks().map_or(0, |b| b.bytes_below(n))
    }

    /// LT-TCP's blocks (what each packet's header tells the receiver), if LT-TCP.
    #[inline]
    pub fn lt_blocks(&self) -> Option<&Blocks> {
        match &self.rec {
            Recovery::Lt(l) => Some(&l.blocks),
            _ => None,
        }
    }

    #[inline]
    pub(super) fn lt_mut(&mut self) -> Option<&mut Lt> {
        match &mut self.rec {
            Recovery::Lt(l) => Some(l),
            _ => None,
        }
    }

    /// LT-TCP after an ACK (`recovery/lt.rs`): the blocks acknowledged, the echoed estimate,
    /// the slots newly shown lost, the RFEC packets that have passed.
    #[inline]
    pub(super) fn lt_after_ack(&mut self, a: &AckPkt) {
        let (una, high, thresh) = (self.tcb.snd_una, self.tcb.high_tx, self.tcb.dupack_threshold);
        let Recovery::Lt(l) = &mut self.rec else { unreachable!("LT-TCP's recovery") };
        l.after_ack(&self.board, una, high, thresh, a.lt_erasure.map(|e| e as f64 * 1e-6), a.lt_rfec);
    }

    /// LT-TCP: slot `seg` is about to leave. A new slot past the blocks formed starts a block
    /// (its segment size becomes `Tcb::mss`, the unit of the window; the transfer's size known
    /// once the last block is formed). Its header bits (PFEC for a parity slot) and payload.
    #[inline(always)]
    pub(super) fn lt_slot(&mut self, seg: u64) -> (u8, u64) {
        let Recovery::Lt(l) = &mut self.rec else { unreachable!("LT-TCP's recovery") };
        if seg >= l.blocks.end() {
            self.lt_form_block();
        }
        let Recovery::Lt(l) = &self.rec else { unreachable!("LT-TCP's recovery") };
        let Some(slot) = l.blocks.slot(seg) else { return (0, self.tcb.mss) };
        match slot {
            (len, true) => {
                if seg >= self.tcb.high_tx {
                    self.counters.pfec_sent += 1;
                }
                (crate::tcp::pkt_flags::PFEC, len as u64)
            }
            (len, false) => (0, len as u64),
        }
    }

    /// LT-TCP: form the next block for the current window (once per window).
    #[inline(never)]
    pub(super) fn lt_form_block(&mut self) {
        let Recovery::Lt(l) = &mut self.rec else { unreachable!("LT-TCP's recovery") };
        let cwnd = self.tcb.cwnd.min(self.tcb.max_cwnd);
        if let Some(b) = l.form_block(cwnd) {
            self.tcb.mss = b.seg as u64;
        }
        if l.all_formed() {
            self.total_segs = l.blocks.end();
            self.app_limit = self.app_limit.min(self.total_segs);
        }
    }

    /// LT-TCP outside the post-timeout Loss state: while the pipe (RFC 6675's, plus the RFEC
    /// packets in flight) leaves room for a packet, send (1) the RFEC packets a block needs,
    /// (2) as a last resort the lost slots of blocks whose RFEC have passed (RFC 6675 NextSeg
    /// rule 1), (3) new slots.
    #[inline(always)]
    pub(super) fn lt_send_loop(&mut self, now: Nanos, rwnd_end: u64, out: &mut Vec<Tx>) {
        let thresh = self.tcb.dupack_threshold;
        let mut high_rxt = self.tcb.high_rxt.max(self.tcb.snd_una);
        let Recovery::Lt(l) = &self.rec else { unreachable!("LT-TCP's recovery") };
        let mut pipe = self.board.pipe(self.tcb.high_tx, high_rxt, thresh) + l.rfec_in_flight();
        let cwnd = self.tcb.cwnd.min(self.tcb.max_cwnd);
        while cwnd >= (pipe + 1) * self.tcb.mss && self.pace_gate::<true, true>(now) {
            let Recovery::Lt(l) = &mut self.rec else { unreachable!() };
            if let Some(i) = l.rfec_due(self.tcb.snd_una, self.tcb.high_tx) {
                let (start, len, rseq) = l.rfec_sent(i, self.tcb.high_tx);
                self.counters.rfec_sent += 1;
                self.counters.packets_sent += 1;
                self.cc.on_send(&self.tcb, now, len as u64);
                out.push(Tx { seg: start, len, retx: false, ts: now, flags: crate::tcp::pkt_flags::RFEC, rseq });
                if let Some(p) = self.pacer.as_mut() {
                    p.on_sent(now, len as u64, self.tcb.mss, self.tcb.min_rtt);
                }
                if self.rto_due_at == NO_TIMER {
                    self.rto_due_at = now + self.tcb.rto;
                }
            } else if let Some(s) = l.retransmissions_possible().then(|| self.board.next_retransmission(high_rxt, thresh, false)).flatten().filter(|&s| l.may_retransmit(s)) {
                high_rxt = s + 1;
                self.transmit(s, now, out);
            } else if self.tcb.high_tx < rwnd_end {
                let seg = self.tcb.high_tx;
                self.transmit(seg, now, out);
                self.tcb.snd_nxt = self.tcb.high_tx;
                if self.tcb.high_tx >= self.total_segs {
                    pipe += 1;
                    break;
                }
            } else {
                break;
            }
            pipe += 1;
        }
        self.tcb.high_rxt = high_rxt;
        self.tcb.cwnd_limited = cwnd < (pipe + 1) * self.tcb.mss;
    }
}
