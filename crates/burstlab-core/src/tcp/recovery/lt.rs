//! LT-TCP, loss-tolerant TCP (Tickoo, Subramanian, Kalyanaraman, Ramakrishnan, "LT-TCP:
//! End-to-End Framework to Improve TCP Performance over Networks with Lossy Channels",
//! IWQoS 2005; Subramanian, Ramakrishnan, Kalyanaraman, "Experimental Study of Link and
//! Transport Protocols in Interference-Prone WLAN Environments"): TCP SACK whose window is
//! cut only by ECN, with erasures repaired by forward error correction.
//!
//! - **ECN-only window reduction**: holes shown by SACK or duplicate ACKs never reduce cwnd
//!   or ssthresh (the sender never enters fast recovery); an ECN-Echo does (RFC 3168, as for
//!   any ECN-capable TCP, `tcp/sender.rs`), and so does a timeout, the last resort.
//! - **Blocks**: each window of N packets is a block of k data segments and P = ⌈N·E⌉
//!   proactive FEC (PFEC) packets, E the erasure estimate (the patents' claims: "the number
//!   of proactive FEC packets ... based on the estimated packet erasure rate", the block
//!   size set to the window). The code is ideal: any k of a block's symbols (its data
//!   segments, its PFEC packets, reactive FEC, retransmissions) decode its data.
//! - **Erasure estimate**: the receiver measures, per block, the share of the block's first
//!   transmissions that did not arrive (known when a later block's first transmission
//!   arrives, paths being FIFO), keeps an EWMA of these per-window samples and echoes it on
//!   its ACKs (the patents: "receiving a signal comprising a loss estimate parameter");
//!   the receiver's side (decoder and estimate) is `lt_rx.rs`.
//! - **Reactive FEC** (RFEC): when SACK shows (RFC 6675 IsLost) h lost packets in a block,
//!   beyond its P parity ones, the sender sends ⌈(h − P)/(1 − E)⌉ RFEC packets for it in all
//!   ("based on the hole size and the estimated packet erasure rate"), ahead of new data,
//!   within the window (they count in the pipe until a later packet is acknowledged).
//! - **Last resort**: a block still undecoded once its RFEC have passed has its lost packets
//!   retransmitted by RFC 6675's NextSeg (each a symbol of the block); timeouts as in TCP.
//! - **Adaptive segment size**: a block's segments are max(`mss_min`, min(`mss`, cwnd /
//!   `granularity`)) bytes, so a small window still holds `granularity` packets and FEC has
//!   granularity ("MSS adapted to a minimum granularity of the congestion window"). The
//!   sequence space counts packets (slots: data or PFEC), each block records its segment
//!   size, and the window is counted in packets of the current size (as ns-2's cwnd in
//!   packets was): `Tcb::mss` is the current block's segment size.
//!
//! Every detail the publications leave open is a `TcpConfig::lt_*` parameter; the choices
//! are in `docs/tcp.md` ("LT-TCP").
use super::{Action, LossRecovery};
use crate::tcp::config::TcpConfig;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::Tcb;
use super::lt_deficit::{needs_rfec, threshold, Deficit};
pub use super::lt_rx::{LtRx, RxSymbol};
use std::collections::VecDeque;

/// LT-TCP's parameters (`TcpConfig::lt_*`).
#[derive(Clone, Debug, PartialEq)]
pub struct LtParams {
    pub pfec: bool,
    pub rfec: bool,
    pub adaptive_mss: bool,
    pub granularity: u32,
    pub mss_min: u64,
    pub mss_max: u64,
    pub gain: f64,
    pub initial_erasure: f64,
    pub max_erasure: f64,
    pub max_block: u32,
}

impl LtParams {
    pub fn from_config(t: &TcpConfig) -> Self {
        LtParams {
            pfec: t.lt_pfec,
            rfec: t.lt_rfec,
            adaptive_mss: t.lt_adaptive_mss,
            granularity: t.lt_granularity,
            mss_min: t.lt_mss_min,
            mss_max: t.mss,
            gain: t.lt_erasure_gain,
            initial_erasure: t.lt_initial_erasure,
            max_erasure: t.lt_max_erasure,
            max_block: t.lt_max_block,
        }
    }
}

/// One block: slots [start, start + n), the first k data segments of `seg` bytes (the last
/// of the transfer `last_len`), then n − k PFEC packets of `seg` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub start: u64,
    pub n: u32,
    pub k: u32,
    pub seg: u32,
    pub last_len: u32,
    /// Application bytes before the block.
    pub data0: u64,
    /// Application segments before the block.
    pub segs0: u64,
    /// Sender: RFEC packets sent for the block, and those not yet known to have passed.
    rfec_sent: u32,
    rfec_out: u32,
    /// Sender: slots of the block SACK has shown lost (RFC 6675 IsLost).
    lost: u32,
}

impl Block {
    #[inline]
    pub fn end(&self) -> u64 {
        self.start + self.n as u64
    }

    /// Application bytes in the block's first `j` data slots (j ≤ k).
    #[inline]
    fn data_in(&self, j: u64) -> u64 {
        if j == 0 {
            0
        } else if j < self.k as u64 {
            j * self.seg as u64
        } else {
            (self.k as u64 - 1) * self.seg as u64 + self.last_len as u64
        }
    }

    /// Payload bytes of slot `s` of this block, and whether it is a PFEC packet.
    #[inline]
    pub fn slot(&self, s: u64) -> (u32, bool) {
        let j = s - self.start;
        if j + 1 < self.k as u64 {
            (self.seg, false)
        } else if j + 1 == self.k as u64 {
            (self.last_len, false)
        } else {
            (self.seg, true)
        }
    }
}

/// What a packet's header tells the receiver of its block ([`Blocks`]): its first slot, its
/// size N and its number of data segments k.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hdr {
    pub start: u64,
    pub n: u32,
    pub k: u32,
}

impl Hdr {
    #[inline]
    pub fn of(b: &Block) -> Hdr {
        Hdr { start: b.start, n: b.n, k: b.k }
    }

    #[inline]
    pub fn end(&self) -> u64 {
        self.start + self.n as u64
    }
}

/// The blocks of a flow in sequence order, from the oldest not yet acknowledged: the
/// sender's record of what it formed, and what each packet's header tells the receiver
/// (its block's start, size and data count).
#[derive(Clone, Debug, Default)]
pub struct Blocks {
    q: VecDeque<Block>,
    /// Application bytes and segments before the first block kept.
    base_bytes: u64,
    base_segs: u64,
    /// One past the last slot formed; application bytes and segments assigned so far.
    end: u64,
    data_next: u64,
    segs_next: u64,
    /// A copy of the newest block (None once every block is acknowledged): its layout
    /// answers [`Blocks::slot`] for the new slots the sender sends without reading the
    /// deque (the copy's sender counters are stale; only its layout is read).
    newest: Option<Block>,
}

impl Blocks {
    /// The block holding slot `s`.
    #[inline]
    pub fn find(&self, s: u64) -> Option<&Block> {
        self.locate(s).map(|(_, b)| b)
    }

    /// The index of the block holding slot `s`.
    #[inline]
    fn find_index(&self, s: u64) -> Option<usize> {
        self.locate(s).map(|(i, _)| i)
    }

    /// Most look-ups are of the newest block (the sender's new slots) or the oldest (the
    /// receiver's, the sender's acknowledgments): those first, by reference, then a search.
    #[inline(always)]
    fn locate(&self, s: u64) -> Option<(usize, &Block)> {
        let last = self.q.back()?;
        if s >= last.start {
            return (s < last.end()).then_some((self.q.len() - 1, last));
        }
        let first = self.q.front()?;
        if first.start <= s && s < first.end() {
            return Some((0, first));
        }
        let i = self.q.partition_point(|b| b.end() <= s);
        self.q.get(i).filter(|b| b.start <= s).map(|b| (i, b))
    }

    /// Payload bytes of slot `s` and whether it is a PFEC packet (`s` within the blocks).
    #[inline(always)]
    pub fn slot(&self, s: u64) -> Option<(u32, bool)> {
        match &self.newest {
            Some(b) if s >= b.start && s < self.end => Some(b.slot(s)),
            _ => self.find(s).map(|b| b.slot(s)),
        }
    }

    /// The block that starts at slot `s` (an RFEC packet names its block so).
    #[inline]
    pub fn starting_at(&self, s: u64) -> Option<&Block> {
        self.find(s).filter(|b| b.start == s)
    }

    /// One past the last slot formed.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// Application bytes in slots [0, s) (s at or above the oldest block kept).
    pub fn bytes_below(&self, s: u64) -> u64 {
        match self.find(s) {
            Some(b) => b.data0 + b.data_in((s - b.start).min(b.k as u64)),
            None if self.q.front().is_some_and(|b| s < b.start) => self.base_bytes,
            None => self.data_next,
        }
    }

    /// Application segments in slots [0, s).
    pub fn segments_below(&self, s: u64) -> u64 {
        match self.find(s) {
            Some(b) => b.segs0 + (s - b.start).min(b.k as u64),
            None if self.q.front().is_some_and(|b| s < b.start) => self.base_segs,
            None => self.segs_next,
        }
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

/// The sender's LT-TCP state (the `lt` loss recovery).
#[derive(Clone, Debug)]
pub struct Lt {
    pub p: LtParams,
    pub blocks: Blocks,
    /// The receiver's estimate, as last echoed.
    pub erasure: f64,
    /// Application bytes to send in all (None: bulk).
    total_bytes: Option<u64>,
    /// Slots below this have been checked for IsLost.
    scan: u64,
    /// RFEC packets in flight (in the pipe): (number, its block's start, the first slot sent
    /// after it), in the order sent.
    rfec_out: VecDeque<(u64, u64, u64)>,
    /// The next RFEC packet's number (its low 16 bits travel in the packet, and the receiver
    /// echoes the last it received).
    rfec_next: u64,
    /// Some block has lost more than its parity (RFEC may be due, or last-resort
    /// retransmissions): false spares the send loop the look.
    deficit: bool,
    /// The blocks that have lost more than their parity, in sequence order (blocks cross it
    /// in that order: slots are counted lost upwards from `scan`), with the estimate above
    /// which each needs an RFEC packet: the send loop's look costs O(log n), not a scan of
    /// every block in the window (issue 34; `lt_deficit.rs`).
    over: Deficit,
}

impl Lt {
    pub fn new(t: &TcpConfig, total_bytes: Option<u64>) -> Self {
        let p = LtParams::from_config(t);
        Lt {
            erasure: p.initial_erasure,
            p,
            blocks: Blocks::default(),
            total_bytes,
            scan: 0,
            rfec_out: VecDeque::new(),
            rfec_next: 0,
            deficit: false,
            over: Deficit::default(),
        }
    }

    /// The estimate FEC is sized with.
    #[inline]
    fn e(&self) -> f64 {
        self.erasure.clamp(0.0, self.p.max_erasure)
    }

    /// Form the next block at slot `blocks.end` for a window of `cwnd` bytes: its segment
    /// size, N = the window in packets (≤ max_block), P = ⌈N·E⌉ PFEC (< N), k = N − P data
    /// segments, fewer at the end of a transfer (P then ⌈k·E/(1 − E)⌉, the same code rate).
    /// None when the application has no more data.
    pub fn form_block(&mut self, cwnd: u64) -> Option<Block> {
        let b = &mut self.blocks;
        let left = self.total_bytes.map_or(u64::MAX, |t| t.saturating_sub(b.data_next));
        if left == 0 {
            return None;
        }
        let p = &self.p;
        let seg = if p.adaptive_mss { (cwnd / p.granularity as u64).clamp(p.mss_min, p.mss_max) } else { p.mss_max };
        let n = (cwnd / seg).clamp(1, p.max_block as u64);
        let e = if p.pfec { self.erasure.clamp(0.0, p.max_erasure) } else { 0.0 };
        let mut parity = ((n as f64 * e).ceil() as u64).min(n - 1);
        let mut k = n - parity;
        let segs_left = left.div_ceil(seg);
        let mut last_len = seg;
        if segs_left <= k {
            k = segs_left;
            last_len = left - (k - 1) * seg;
            parity = ((k as f64 * e / (1.0 - e)).ceil() as u64).min(p.max_block as u64 - k);
        }
        let blk = Block {
            start: b.end,
            n: (k + parity) as u32,
            k: k as u32,
            seg: seg as u32,
            last_len: last_len as u32,
            data0: b.data_next,
            segs0: b.segs_next,
            rfec_sent: 0,
            rfec_out: 0,
            lost: 0,
        };
        b.end = blk.end();
        b.data_next += blk.data_in(k);
        b.segs_next += k;
        b.q.push_back(blk);
        b.newest = Some(blk);
        Some(blk)
    }

    /// Whether the last block has taken the last application byte.
    pub fn all_formed(&self) -> bool {
        self.total_bytes.is_some_and(|t| self.blocks.data_next >= t)
    }

    /// After an ACK: forget the blocks wholly acknowledged, adopt the receiver's estimate,
    /// count the slots newly shown lost (RFC 6675 IsLost: below the DupThresh-th SACKed slot
    /// from the top) in their blocks, and take out of the pipe the RFEC packets a later slot's
    /// acknowledgment shows have passed.
    #[inline]
    pub fn after_ack(&mut self, board: &Scoreboard, snd_una: u64, high_tx: u64, dupthresh: u32, erasure: Option<f64>, rfec_echo: Option<u16>) {
        if let Some(e) = erasure {
            self.erasure = e;
        }
        // Most ACKs acknowledge no whole block, show no slot newly lost and find no RFEC
        // packet in flight: then only the scan point moves.
        // So do most ACKs that move the lost boundary past SACKed slots only (after a loss,
        // each SACK extends the block above the hole by one): no slot newly lost, so no
        // block's count and no deficit changes (`deficit` is set whenever a count passes
        // its block's parity, and cleared only when none has).
        let lost_below = board.lost_below(dupthresh);
        if self.blocks.q.front().is_some_and(|f| f.end() > snd_una) && self.rfec_out.is_empty() {
            let s = self.scan.max(snd_una);
            if s >= lost_below || (lost_below == s + 1 && !board.is_unsacked(s)) {
                self.scan = self.scan.max(lost_below);
                return;
            }
        }
        self.after_ack_blocks(board, snd_una, high_tx, lost_below, rfec_echo);
    }

    /// [`Lt::after_ack`] when blocks are acknowledged whole, slots newly shown lost or RFEC
    /// packets in flight.
    #[inline(never)]
    fn after_ack_blocks(&mut self, board: &Scoreboard, snd_una: u64, high_tx: u64, lost_below: u64, rfec_echo: Option<u16>) {
        let b = &mut self.blocks;
        let mut popped = false;
        while let Some(f) = b.q.front() {
            if f.end() > snd_una {
                break;
            }
            popped = true;
            b.base_bytes = f.data0 + f.data_in(f.k as u64);
            b.base_segs = f.segs0 + f.k as u64;
            b.q.pop_front();
            if b.q.is_empty() {
                b.newest = None;
            }
        }
        if popped {
            let first = b.q.front().map_or(u64::MAX, |f| f.start);
            self.over.pop_below(first);
        }
        let mut s = self.scan.max(snd_una);
        if s < lost_below {
            let mut i = b.find_index(s).unwrap_or(0);
            while s < lost_below {
                while i < b.q.len() && b.q[i].end() <= s {
                    i += 1;
                }
                let Some(blk) = b.q.get_mut(i) else { break };
                let stop = lost_below.min(blk.end());
                let before = blk.lost;
                for x in s.max(blk.start)..stop {
                    if board.is_unsacked(x) {
                        blk.lost += 1;
                    }
                }
                let parity = blk.n - blk.k;
                let over = blk.lost > parity;
                if over && blk.lost != before {
                    let theta = threshold(blk.lost - parity, blk.rfec_sent);
                    if before > parity {
                        self.over.set(blk.start, theta);
                    } else {
                        self.over.push(blk.start, theta);
                    }
                }
                self.deficit |= over;
                s = stop;
            }
        }
        self.scan = self.scan.max(lost_below);
        if !self.rfec_out.is_empty() {
            // An RFEC packet has passed (arrived or been lost; paths are FIFO) when the receiver
            // echoes it or a later one, or acknowledges a slot sent after it; when everything
            // sent is acknowledged none can repair anything.
            let slot = if snd_una >= high_tx { u64::MAX } else { board.high_sacked().max(snd_una) };
            let echoed = rfec_echo.filter(|_| self.rfec_next > 0).map(|r| {
                let n = self.rfec_next - 1;
                n - (n as u16).wrapping_sub(r) as u64
            });
            while let Some(&(n, start, mark)) = self.rfec_out.front() {
                if !(echoed.is_some_and(|e| n <= e) || slot > mark) {
                    break;
                }
                self.rfec_out.pop_front();
                if let Some(i) = b.find_index(start) {
                    b.q[i].rfec_out -= 1;
                }
            }
            if popped {
                let first = b.q.front().map_or(u64::MAX, |f| f.start);
                self.rfec_out.retain(|&(_, s, _)| s >= first); // blocks acknowledged whole
            }
        }
    }

    /// RFEC packets in flight.
    #[inline]
    pub fn rfec_in_flight(&self) -> u64 {
        self.rfec_out.len() as u64
    }

    /// The first block that needs an RFEC packet now: ⌈(lost − P)/(1 − E)⌉ in all, while some
    /// of what it has sent is unacknowledged (`snd_una`, `high_tx`).
    #[inline]
    pub fn rfec_due(&mut self, snd_una: u64, high_tx: u64) -> Option<usize> {
        if !self.p.rfec || !self.deficit {
            return None;
        }
        self.rfec_due_in_deficit(snd_una, high_tx)
    }

    /// [`Lt::rfec_due`] once some block has lost more than its parity.
    #[inline(never)]
    fn rfec_due_in_deficit(&mut self, snd_una: u64, high_tx: u64) -> Option<usize> {
        if self.over.is_empty() {
            self.deficit = false;
            return None;
        }
        if high_tx <= snd_una {
            return None; // nothing outstanding: no block has sent what it holds unacknowledged
        }
        // The first such block in sequence order (the others have not lost more than their
        // parity), still outstanding.
        let e = self.e();
        let mut from = 0;
        while let Some((j, start)) = self.over.first_needing(e, from) {
            if let Some(i) = self.blocks.find_index(start) {
                let b = &self.blocks.q[i];
                debug_assert!(b.lost > b.n - b.k && needs_rfec(b.lost - (b.n - b.k), b.rfec_sent, e));
                if snd_una < b.end().min(high_tx) {
                    return Some(i);
                }
            }
            from = j + 1;
        }
        None
    }

    /// An RFEC packet for block `i` leaves, before slot `high_tx`: (its block's start, size,
    /// the low 16 bits of its number).
    pub fn rfec_sent(&mut self, i: usize, high_tx: u64) -> (u64, u32, u16) {
        let b = &mut self.blocks.q[i];
        b.rfec_sent += 1;
        b.rfec_out += 1;
        if b.lost > b.n - b.k {
            self.over.set(b.start, threshold(b.lost - (b.n - b.k), b.rfec_sent));
        }
        let n = self.rfec_next;
        self.rfec_next += 1;
        self.rfec_out.push_back((n, b.start, high_tx));
        (b.start, b.seg, n as u16)
    }

    /// Whether any lost slot may be due a last-resort retransmission (a block lost more than
    /// its parity, or RFEC is off).
    #[inline]
    pub fn retransmissions_possible(&self) -> bool {
        !self.p.rfec || self.deficit
    }

    /// Whether lost slot `s` may be retransmitted (the last resort): its block's RFEC have
    /// passed without decoding it (or RFEC is off).
    pub fn may_retransmit(&self, s: u64) -> bool {
        !self.p.rfec || self.blocks.find(s).is_some_and(|b| b.rfec_sent > 0 && b.rfec_out == 0)
    }

    /// A timeout: RFEC packets in flight are deemed lost with everything else.
    pub fn on_timeout(&mut self) {
        for b in self.blocks.q.iter_mut() {
            b.rfec_out = 0;
        }
        self.rfec_out.clear();
    }
}

impl LossRecovery for Lt {
    fn name(&self) -> &'static str {
        "lt"
    }

    /// LT-TCP never enters fast recovery (the sender does not call this): erasures do not
    /// reduce the window.
    fn enter(&mut self, _tcb: &mut Tcb, _ssthresh: u64, _cwnd: u64, _delivered: u64) -> Action {
        Action::default()
    }

    fn on_ack(&mut self, _tcb: &mut Tcb, _acked: u64, _delivered: u64, _retx_acked: bool) -> Action {
        Action { exit: true, ..Action::default() }
    }

    fn uses_sack(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lt(total: Option<u64>) -> Lt {
        Lt::new(&TcpConfig { recovery: crate::tcp::config::RecoveryKind::Lt, ..TcpConfig::default() }, total)
    }

    /// Blocks: N = cwnd / segment, P = ⌈N·E⌉, adaptive segments below 10 packets, the end of
    /// a transfer, and the byte and segment counts below any slot.
    #[test]
    fn block_formation_and_sequence_space() {
        let mut l = lt(Some(25_500));
        l.erasure = 0.2;
        let b = l.form_block(20_000).unwrap(); // 20 packets of 1000: P = 4, k = 16
        assert_eq!((b.start, b.n, b.k, b.seg, b.data0), (0, 20, 16, 1000, 0));
        assert_eq!(b.slot(15), (1000, false));
        assert_eq!(b.slot(16), (1000, true));
        let b = l.form_block(5_000).unwrap(); // small window: 10 packets of 500, P = 2, k = 8
        assert_eq!((b.start, b.n, b.k, b.seg, b.data0), (20, 10, 8, 500, 16_000));
        // 5 500 bytes left: 6 segments of 1000 would fit 8, so k = 6 (the last 500 bytes), P = ⌈6·0.2/0.8⌉ = 2.
        let b = l.form_block(20_000).unwrap();
        assert_eq!((b.start, b.n, b.k, b.seg, b.last_len, b.data0), (30, 8, 6, 1000, 500, 20_000));
        assert_eq!(b.slot(35), (500, false));
        assert!(l.all_formed() && l.form_block(20_000).is_none());
        let bl = &l.blocks;
        assert_eq!((bl.bytes_below(0), bl.bytes_below(16), bl.bytes_below(19), bl.bytes_below(20)), (0, 16_000, 16_000, 16_000));
        assert_eq!((bl.bytes_below(25), bl.bytes_below(30), bl.bytes_below(36), bl.bytes_below(38)), (18_500, 20_000, 25_500, 25_500));
        assert_eq!((bl.segments_below(25), bl.segments_below(38)), (21, 30));
        assert_eq!(bl.starting_at(20).map(|b| b.k), Some(8));
        assert!(bl.starting_at(21).is_none());
        // The estimate is capped; no PFEC when off; the block never exceeds max_block.
        let mut l = lt(None);
        l.erasure = 0.99;
        let b = l.form_block(1_000_000).unwrap();
        assert_eq!((b.n, b.n - b.k), (255, (255.0f64 * 0.75).ceil() as u32));
        l.p.pfec = false;
        assert_eq!(l.form_block(1_000_000).unwrap().k, 255);
    }

    /// The decoder: any k symbols of a block decode it; later symbols are wasted.
    #[test]
    fn ideal_erasure_decoder() {
        let mut l = lt(None);
        l.erasure = 0.2;
        l.form_block(10_000).unwrap(); // slots 0..10, k = 8
        let mut rx = LtRx::new(&TcpConfig::default());
        for s in [0, 1, 2, 4, 5, 6, 7] {
            assert_eq!(rx.symbol(s, false, &l.blocks, 0), RxSymbol::Counted);
        }
        // Slot 3 lost: the first PFEC packet (slot 8) is the 8th symbol.
        assert_eq!(rx.symbol(8, false, &l.blocks, 0), RxSymbol::Decoded { start: 0, end: 10, rebuilt: true });
        assert_eq!(rx.symbol(9, false, &l.blocks, 0), RxSymbol::Useless);
        assert_eq!(rx.symbol(0, true, &l.blocks, 10), RxSymbol::Useless);
        // An RFEC packet counts as a symbol of the block it names.
        l.form_block(10_000).unwrap(); // slots 10..20
        for s in 10..16 {
            rx.symbol(s, false, &l.blocks, 0);
        }
        assert_eq!(rx.symbol(10, true, &l.blocks, 0), RxSymbol::Counted);
        assert_eq!(rx.symbol(10, true, &l.blocks, 0), RxSymbol::Decoded { start: 10, end: 20, rebuilt: true });
    }

    /// The receiver's estimate: per block, the share of first transmissions that did not
    /// arrive, known when the next block's first packet arrives; skipped blocks count 1.
    #[test]
    fn erasure_samples_per_block() {
        let mut l = lt(None);
        for _ in 0..4 {
            l.form_block(10_000).unwrap(); // blocks of 10 slots (E = 0: no PFEC)
        }
        let t = TcpConfig { lt_erasure_gain: 0.5, ..TcpConfig::default() };
        let mut rx = LtRx::new(&t);
        for s in [0, 1, 2, 3, 4, 5, 6, 7] {
            rx.first_arrival(s, &l.blocks); // block 0: 2 of 10 lost
        }
        assert_eq!((rx.samples, rx.erasure), (0, 0.0));
        rx.first_arrival(10, &l.blocks);
        assert_eq!(rx.samples, 1);
        assert!((rx.erasure - 0.1).abs() < 1e-12, "{}", rx.erasure); // 0 + 0.5·(0.2 − 0)
        rx.first_arrival(35, &l.blocks); // block 1: 1 of 10 arrived (0.9); block 2: nothing (1)
        assert_eq!(rx.samples, 3);
        assert!((rx.erasure - (0.5 * 0.5 * 0.1 + 0.5 * 0.5 * 0.9 + 0.5)).abs() < 1e-12, "{}", rx.erasure);
    }

    /// The receiver's copy of the block whose first transmissions are arriving answers as
    /// the sender's list does, for every slot of every block; after the sender forgets a
    /// block acknowledged whole, a symbol of it counts for nothing with or without the copy.
    #[test]
    fn current_block_copy_answers_as_the_list() {
        let mut l = lt(None);
        l.erasure = 0.2;
        for w in [10_000, 4_000, 20_000, 7_000] {
            l.form_block(w).unwrap();
        }
        let mut rx = LtRx::new(&TcpConfig::default());
        let end = l.blocks.end();
        for s in 0..end {
            rx.first_arrival(s, &l.blocks);
            for q in 0..end + 3 {
                assert_eq!(rx.block_of(q, &l.blocks), l.blocks.find(q).map(Hdr::of), "slot {q} after {s}");
            }
        }
        // The sender's look-up of a slot's layout (a copy of the newest block first) answers
        // as the list, and nothing once every block is acknowledged.
        for q in 0..end + 3 {
            assert_eq!(l.blocks.slot(q), l.blocks.find(q).map(|b| b.slot(q)), "slot {q}");
        }
        // The sender forgets block 0 (acknowledged whole: rcv_nxt is past it).
        let first = *l.blocks.find(0).unwrap();
        let mut rx = LtRx::new(&TcpConfig::default());
        rx.first_arrival(1, &l.blocks);
        let board = crate::tcp::scoreboard::Scoreboard::default();
        l.after_ack(&board, first.end(), first.end(), 3, None, None);
        assert!(l.blocks.find(1).is_none());
        assert_eq!(rx.block_of(1, &l.blocks), Some(Hdr::of(&first)));
        let copy = rx.block_of(1, &l.blocks);
        assert_eq!(rx.symbol_of(copy, true, first.end()), RxSymbol::Useless);
        assert_eq!(rx.symbol_of(None, true, first.end()), RxSymbol::Useless);
        let end = l.blocks.end();
        l.after_ack(&board, end, end, 3, None, None);
        assert_eq!(l.blocks.len(), 0);
        assert_eq!((l.blocks.slot(end - 1), l.blocks.slot(0)), (None, None));
    }

    /// The block `rfec_due` names is the first, in sequence order, of all blocks in the window
    /// that needs an RFEC packet (a scan of every block, as RFEC's rule reads), while the
    /// board slides under random losses, SACKs, RFEC packets sent and passed, and timeouts:
    /// the list of blocks over their parity follows the blocks.
    #[test]
    fn rfec_due_is_the_first_block_in_need() {
        use crate::rng::{stream, RngExt};
        use crate::tcp::scoreboard::Scoreboard;
        for seed in 0..8u64 {
            let mut g = stream(seed, 9);
            let mut l = lt(None);
            l.erasure = [0.0, 0.05, 0.2, 0.5][seed as usize % 4];
            let mut board = Scoreboard::with_capacity(16);
            let (mut snd_una, mut high_tx) = (0u64, 0u64);
            let loss = [0.02, 0.1, 0.3, 0.6][seed as usize / 2 % 4];
            for _ in 0..3000 {
                match g.random_range(0..8) {
                    0 | 1 => {
                        // A block formed and sent; each of its slots arrives (SACKed) or not.
                        let b = l.form_block(g.random_range(2..40u64) * 1000).unwrap();
                        for s in b.start..b.end() {
                            board.push(s, 0);
                            if g.random_range(0.0..1.0) >= loss {
                                board.mark_sacked(s, s + 1);
                            }
                        }
                        high_tx = b.end();
                    }
                    2 => {
                        // A hole repaired: the cumulative ACK moves to the next hole.
                        let mut a = snd_una + 1;
                        while a < high_tx && board.is_sacked(a) {
                            a += 1;
                        }
                        snd_una = a.min(high_tx);
                        board.advance(snd_una);
                    }
                    3 => {
                        if let Some(i) = l.rfec_due(snd_una, high_tx) {
                            l.rfec_sent(i, high_tx);
                        }
                    }
                    4 => l.on_timeout(),
                    _ => {}
                }
                let echo = (l.rfec_next > 0 && g.random_range(0..3) == 0).then(|| (l.rfec_next - 1) as u16);
                l.after_ack(&board, snd_una, high_tx, 3, None, echo);
                let e = l.e();
                let want = l.blocks.q.iter().position(|b| {
                    let parity = b.n - b.k;
                    snd_una < b.end().min(high_tx) && b.lost > parity && (((b.lost - parity) as f64 / (1.0 - e)).ceil() as u32) > b.rfec_sent
                });
                let over: Vec<u64> = l.blocks.q.iter().filter(|b| b.lost > b.n - b.k).map(|b| b.start).collect();
                assert_eq!(l.over.starts(), &over[..], "seed {seed}");
                assert_eq!(l.rfec_due(snd_una, high_tx), want, "seed {seed}");
            }
        }
    }
}
