//! One direction of a link: a DropTail queue feeding a serialiser of fixed capacity,
//! then a propagation delay ([`queue::Pipe`]), and the loss process that decides each
//! packet's fate ([`channel::LossSource`]).
//!
//! A link layer between that channel and the packets (802.11 ARQ [`arq`], Subramanian
//! et al.'s hybrid ARQ [`harq`], with 802.11 DCF timing from [`wifi`]) serves one frame at
//! a time: when a frame reaches the head of the link's FIFO, `serve(start, bytes, channel,
//! rng)` returns when its service ends and whether it got through ([`Service`]), asking
//! the [`Channel`] about each transmission attempt. `docs/link-layer.md` describes them.
//!
//! A link's queue discipline ([`red::QueueDisc`]) is DropTail by default, or RED with ECN
//! marking ([`red`]), which the admission consults before the buffer check, or one that
//! decides at dequeue from each packet's sojourn time: CoDel ([`codel`], RFC 8289) and
//! FQ-CoDel ([`fq_codel`], RFC 8290), behind [`aqm::AqmQueue`].
pub mod adapt;
pub mod aqm;
pub mod arq;
pub mod attempt;
pub mod capacity;
pub mod channel;
pub mod codel;
pub mod fq_codel;
pub mod harq;
pub mod minstrel;
pub mod layer;
pub mod queue;
pub mod rate;
pub mod red;
pub mod ring;
pub mod slots;
pub mod wifi;

pub use capacity::Opportunities;
pub use channel::{LossMode, LossSource, LossWindow};
pub use aqm::AqmQueue;
pub use codel::{CodelParams, Queued};
pub use fq_codel::FqParams;
pub use attempt::{AttemptTiming, LinkStats, RateCount};
pub use layer::{LinkLayer, LinkLayerConfig};
pub use queue::{BufferUnit, InFlight, Pipe, Server, Timing};
pub use ring::Ring;
pub use slots::{Mixed, Pool, Pooled, Slots};
pub use red::{QueueDisc, Red, RedParams, Verdict};

pub use crate::loss::Unit;
use crate::time::Nanos;

/// A hop's channel as a link layer sees it: decides one unit on the air (an ARQ attempt's
/// frame, a HARQ fragment) occupying the channel during [start, end] (true = lost), given
/// its bits and PHY mode ([`Unit`]) so that size- and rate-aware loss models (a bit error
/// rate, SNR curves) give each unit its own error probability. Calls come in
/// non-decreasing `start` order. [`LossSource`] implements it (`layer.rs`): per unit in
/// packet mode, for the unit's own interval in time mode.
pub trait Channel {
    fn attempt_lost(&mut self, start: Nanos, end: Nanos, unit: Unit) -> bool;
}

/// What serving one frame took: the link is busy during [start, end]; the frame got
/// through (`delivered`) or was dropped at the attempt limit (a residual loss) after
/// `attempts` attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Service {
    pub start: Nanos,
    pub end: Nanos,
    pub delivered: bool,
    pub attempts: u32,
}
