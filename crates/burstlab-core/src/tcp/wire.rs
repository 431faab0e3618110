//! What travels between a flow's two end hosts: a data segment as the sender hands it to
//! the link ([`Tx`]) and an acknowledgment on its way back ([`AckPkt`]). Shared by
//! `sender` and `receiver` (neither imports the other).
use crate::time::Nanos;

/// A segment handed to the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tx {
    pub seg: u64,
    pub len: u32,
    pub retx: bool,
    /// Send time, the segment's RFC 7323 TSval.
    pub ts: Nanos,
    /// Header bits (`tcp::pkt_flags`): CWR, LT-TCP's FEC marks; the engine adds ECT, the
    /// network CE.
    pub flags: u8,
    /// LT-TCP: an RFEC packet's number, low 16 bits (0 otherwise).
    pub rseq: u16,
}

/// Maximum SACK blocks per ACK (RFC 2018 §3: 3 when timestamps are also in use).
pub const MAX_SACK_BLOCKS: usize = 3;

/// An acknowledgment as it travels on the reverse path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckPkt {
    /// Next segment expected (cumulative).
    pub ack: u64,
    /// SACK blocks [start, end), most recent first (RFC 2018 §4).
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    pub nsack: u8,
    /// RFC 7323 TSecr: the TSval (send time) the receiver echoes (used with timestamps on).
    pub tsecr: Nanos,
    /// RFC 3168 §6.1.3 ECN-Echo.
    pub ece: bool,
    /// LT-TCP: the receiver's erasure estimate in millionths, and the number (low 16 bits)
    /// of the last RFEC packet it received (a TCP option of its ACKs).
    pub lt_erasure: Option<u32>,
    pub lt_rfec: Option<u16>,
}
