//! LT-TCP's receiver (`lt.rs` is the sender): the symbols each block has received, the
//! ideal decoder (any k of a block's symbols rebuild its data) and the erasure estimate the
//! receiver echoes on its ACKs (Tickoo, Subramanian, Kalyanaraman, Ramakrishnan, "LT-TCP:
//! End-to-End Framework to Improve TCP Performance over Networks with Lossy Channels";
//! the patents: "receiving a signal comprising a loss estimate parameter"). The estimate is
//! an EWMA of per-block samples: the share of a block's first transmissions that did not
//! arrive, known when a later block's first transmission arrives (paths being FIFO).
use super::lt::{Blocks, Hdr};
use crate::tcp::config::TcpConfig;
use std::collections::VecDeque;

/// The receiver's LT-TCP state: the symbols each block has received, the decoder (ideal:
/// any k symbols), and the erasure estimate it echoes.
#[derive(Clone, Debug)]
pub struct LtRx {
    gain: f64,
    /// The EWMA of the per-block erasure samples, and in millionths as the ACKs carry it.
    pub erasure: f64,
    pub erasure_ppm: u32,
    /// Blocks with symbols received and not yet wholly below rcv_nxt, by start.
    blocks: VecDeque<RxBlock>,
    /// The block whose first transmissions are arriving now (what the packets' headers say
    /// of it, [`LtRx::block_of`]), and how many of them have arrived.
    cur: Hdr,
    arrived: u32,
    /// Blocks recovered by decoding (a missing data segment rebuilt), and FEC packets that
    /// arrived for a block already complete.
    pub decodes: u64,
    pub fec_wasted: u64,
    pub samples: u64,
    /// The number (low 16 bits) of the last RFEC packet received, echoed on ACKs.
    pub rfec_last: Option<u16>,
}

#[derive(Clone, Copy, Debug)]
struct RxBlock {
    start: u64,
    n: u32,
    k: u32,
    /// Symbols received, and how many of them are data segments.
    got: u32,
    data: u32,
    done: bool,
}

/// What an arriving packet did to its block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxSymbol {
    /// A new symbol; the block is not decodable yet (or it was the last data segment).
    Counted,
    /// The block now holds k symbols: slots [start, end) are all recovered (`rebuilt`: some
    /// data segment had not arrived).
    Decoded { start: u64, end: u64, rebuilt: bool },
    /// The block was already complete (or unknown): the packet is wasted.
    Useless,
}

impl LtRx {
    pub fn new(t: &TcpConfig) -> Self {
        LtRx {
            gain: t.lt_erasure_gain,
            erasure: t.lt_initial_erasure,
            erasure_ppm: (t.lt_initial_erasure * 1e6).round() as u32,
            blocks: VecDeque::with_capacity(8),
            cur: Hdr { start: 0, n: 0, k: 0 },
            arrived: 0,
            decodes: 0,
            fec_wasted: 0,
            samples: 0,
            rfec_last: None,
        }
    }

    fn sample(&mut self, n: u32, arrived: u32) {
        if n > 0 {
            let e = 1.0 - arrived.min(n) as f64 / n as f64;
            self.erasure += self.gain * (e - self.erasure);
            self.erasure_ppm = (self.erasure * 1e6).round() as u32;
            self.samples += 1;
        }
    }

    /// The first transmission of slot `s` (data or PFEC) arrived: per-block erasure samples.
    /// Every block whose slots all come before `s` is complete as far as first transmissions
    /// go (FIFO paths): its sample is the share that did not arrive; blocks of which nothing
    /// arrived are samples of 1.
    pub fn first_arrival(&mut self, s: u64, blocks: &Blocks) {
        self.first_arrival_in(s, blocks.find(s).map(Hdr::of), blocks);
    }

    /// [`LtRx::first_arrival`] with the block of `s` already found.
    #[inline]
    pub fn first_arrival_in(&mut self, s: u64, block: Option<Hdr>, blocks: &Blocks) {
        if s >= self.cur.end() {
            self.next_block(block, blocks);
        }
        if s >= self.cur.start {
            self.arrived += 1;
        }
    }

    /// The first transmissions of a later block than the current one are arriving: the
    /// current block's sample, and those of the blocks skipped whole.
    #[inline(never)]
    fn next_block(&mut self, block: Option<Hdr>, blocks: &Blocks) {
        let (end, n, arrived) = (self.cur.end(), self.cur.n, self.arrived);
        self.sample(n, arrived);
        let Some(b) = block else { return };
        let mut x = end;
        while x < b.start {
            let Some(skipped) = blocks.find(x) else { break };
            self.sample(skipped.n, 0);
            x = skipped.end();
        }
        self.cur = b;
        self.arrived = 0;
    }

    /// The header of the block holding slot `s`: the one whose first transmissions are
    /// arriving (most packets: the receiver's copy, so that the sender's list is not
    /// searched), else the sender's. A block never changes once formed; the copy may outlive
    /// the sender's, which forgets a block once it is acknowledged whole, but then it lies
    /// below the receiver's in-order point and counts for nothing either way
    /// ([`LtRx::symbol_of`]).
    #[inline]
    pub fn block_of(&self, s: u64, blocks: &Blocks) -> Option<Hdr> {
        let c = self.cur;
        if c.start <= s && s < c.end() {
            Some(c)
        } else {
            blocks.find(s).map(Hdr::of)
        }
    }

    /// A new symbol of the block holding slot `s` (or starting at `s`, for an RFEC packet)
    /// arrived, the receiver's in-order point being `rcv_nxt`.
    pub fn symbol(&mut self, s: u64, rfec: bool, blocks: &Blocks, rcv_nxt: u64) -> RxSymbol {
        let b = if rfec { blocks.starting_at(s) } else { blocks.find(s) }.map(Hdr::of);
        self.symbol_of(b, !rfec && b.is_some_and(|b| s < b.start + b.k as u64), rcv_nxt)
    }

    /// Most arrivals, decided before anything changes: the in-order first transmission of
    /// slot `s` (the receiver holds nothing beyond it) of the block arriving now, not its
    /// last slot, that block's record the only one kept and not completed by it. Then
    /// counted as [`LtRx::first_arrival_in`] and [`LtRx::symbol_of`] would count it (an
    /// arrival for the block's sample, a symbol; no decode, nothing to forget), and true;
    /// else nothing is done (false).
    #[inline(always)]
    pub fn count_in_order(&mut self, s: u64) -> bool {
        let c = self.cur;
        if !(c.start <= s && s + 1 < c.end()) || self.blocks.len() != 1 {
            return false;
        }
        let Some(rb) = self.blocks.front_mut() else { return false };
        if rb.start != c.start || rb.done || rb.got + 1 >= rb.k {
            return false;
        }
        rb.got += 1;
        rb.data += (s < c.start + c.k as u64) as u32;
        self.arrived += 1;
        true
    }

    /// The receiver's record of block `b`, inserted in start order if it has none yet.
    fn rx_block(&mut self, b: Hdr) -> &mut RxBlock {
        let i = match self.blocks.back() {
            Some(x) if x.start <= b.start => self.blocks.len() - (x.start == b.start) as usize,
            _ => self.blocks.partition_point(|x| x.start < b.start),
        };
        if self.blocks.get(i).is_none_or(|x| x.start != b.start) {
            self.blocks.insert(i, RxBlock { start: b.start, n: b.n, k: b.k, got: 0, data: 0, done: false });
        }
        &mut self.blocks[i]
    }

    /// A new symbol of block `b` (None: unknown) arrived, a data segment or not.
    #[inline]
    pub fn symbol_of(&mut self, b: Option<Hdr>, data: bool, rcv_nxt: u64) -> RxSymbol {
        while self.blocks.front().is_some_and(|b| b.start + b.n as u64 <= rcv_nxt) {
            self.blocks.pop_front();
        }
        let Some(b) = b.filter(|b| b.end() > rcv_nxt) else { return RxSymbol::Useless };
        let rb = match self.blocks.back_mut() {
            Some(x) if x.start == b.start => x, // the newest block: most symbols are of it
            _ => self.rx_block(b),
        };
        if rb.done {
            return RxSymbol::Useless;
        }
        rb.got += 1;
        rb.data += data as u32;
        if rb.got < rb.k {
            return RxSymbol::Counted;
        }
        rb.done = true;
        RxSymbol::Decoded { start: rb.start, end: rb.start + rb.n as u64, rebuilt: rb.data < rb.k }
    }
}
