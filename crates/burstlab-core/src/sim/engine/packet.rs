//! What travels through the network: a packet ([`Pkt`]: four words, no enum payload) and
//! the optional per-packet log ([`LogRec`]).
use super::*;
use crate::loss::{FateKey, KeyKind};

/// What a packet is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum PktKind {
    /// A TCP data segment.
    Data,
    /// A TCP ACK.
    Ack,
    /// A CBR datagram.
    #[default]
    Udp,
}

/// An ACK without SACK blocks ([`Pkt::aux`]).
pub const NO_SACK: u32 = u32::MAX;

/// A packet in the network: its flow, where it is on its path (an index into the
/// engine's table of paths), when its flow sent it, and what it carries. Its size on the
/// wire travels beside it ([`InFlight::bytes`](crate::link::InFlight)). Four words, no
/// enum payload: the pipes move it as such (a packet in a pipe takes 64 bytes).
#[derive(Clone, Copy, Debug, Default)]
pub struct Pkt {
    pub flow: u32,
    /// Index in the path table of the link it is on.
    pub pos: u32,
    /// When the flow handed it to the first link of its path.
    pub t0: Nanos,
    /// Data: the segment; ACK: the cumulative ACK; datagram: its number.
    pub num: u64,
    /// [`Pkt::aux`], then [`Pkt::kind`], [`Pkt::retx`] and [`Pkt::flags`] in the upper half.
    pub(super) meta: u64,
}

/// Where [`Pkt::flags`] sit in the packet's meta word (7 bits, 41-47; [`Pkt::rseq`] above).
pub(super) const FLAGS_SHIFT: u32 = 41;

impl Pkt {
    pub fn new(flow: u32, pos: u32, t0: Nanos, kind: PktKind, num: u64, aux: u32, retx: bool) -> Self {
        Pkt { flow, pos, t0, num, meta: aux as u64 | (kind as u64) << 32 | (retx as u64) << 40 }
    }

    /// Data: its payload bytes. ACK: the number of its SACK blocks in its flow's queue of
    /// SACK blocks in flight, or [`NO_SACK`]. ACKs of one flow cross one path of FIFO
    /// links, so they arrive in the order they were sent, and the blocks need not travel
    /// in the links' rings.
    #[inline]
    pub fn aux(&self) -> u32 {
        self.meta as u32
    }

    #[inline]
    pub fn kind(&self) -> PktKind {
        let k = (self.meta >> 32) as u8;
        debug_assert!(k <= PktKind::Udp as u8, "a packet's kind byte is a PktKind");
        // SAFETY: PktKind is `repr(u8)` with the values 0..=2, and bits 32-39 of the meta
        // word are written only by `Pkt::new`, from a PktKind (the flags and the RFEC
        // number sit above them): the byte is one of its values. (A `match` that maps
        // other bytes costs the per-packet path a compare and two conditional moves.)
        unsafe { std::mem::transmute::<u8, PktKind>(k) }
    }

    /// Data: a retransmission.
    #[inline]
    pub fn retx(&self) -> bool {
        self.meta >> 40 & 1 != 0
    }

    /// Header bits (`tcp::pkt_flags`: ECN field, CWR / ECE, LT-TCP's FEC marks).
    #[inline]
    pub fn flags(&self) -> u8 {
        (self.meta >> FLAGS_SHIFT) as u8 & 0x7f
    }

    #[inline]
    pub fn with_flags(mut self, f: u8) -> Self {
        self.meta |= (f as u64) << FLAGS_SHIFT;
        self
    }

    /// LT-TCP: an RFEC packet's number, low 16 bits (the top of the meta word).
    #[inline]
    pub fn rseq(&self) -> u16 {
        (self.meta >> 48) as u16
    }

    #[inline]
    pub fn with_rseq(mut self, r: u16) -> Self {
        self.meta |= (r as u64) << 48;
        self
    }

    /// Its key for a replay keyed by what packets are (`loss/keyed.rs`): a data segment by
    /// its number, an ACK by its cumulative ACK, a datagram by its number.
    #[inline]
    pub(super) fn fate_key(&self) -> FateKey {
        let kind = match self.kind() {
            PktKind::Data => KeyKind::Data,
            PktKind::Ack => KeyKind::Ack,
            PktKind::Udp => KeyKind::Other,
        };
        FateKey { flow: self.flow, kind, num: self.num }
    }

    pub(super) fn log_fields(&self) -> (LogKind, u64, bool) {
        let kind = match self.kind() {
            PktKind::Data => LogKind::Data,
            PktKind::Ack => LogKind::Ack,
            PktKind::Udp => LogKind::Datagram,
        };
        (kind, self.num, self.retx())
    }
}

/// One line of the optional per-packet log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogRec {
    pub t: Nanos,
    pub event: LogEvent,
    pub kind: LogKind,
    pub flow: u32,
    /// The link where it happened (`u32::MAX`: at an end host).
    pub link: u32,
    /// Data: the segment (Delivered: the first delivered); ACK: the cumulative ACK;
    /// datagram: its number.
    pub seg: u64,
    /// Delivered: one past the last segment delivered; otherwise `seg + 1`.
    pub to: u64,
    pub retx: bool,
    /// When the packet's flow sent it.
    pub t0: Nanos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogEvent {
    /// Handed to the first link of its path.
    Sent,
    /// Dropped by the full buffer of `link`.
    Dropped,
    /// Lost by the loss process of `link` (`t` = when it would have arrived).
    Lost,
    /// Reached the end of its path.
    Arrived,
    /// Segments [seg, to) delivered in order to the receiving application.
    Delivered,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    Data,
    Ack,
    Datagram,
}
