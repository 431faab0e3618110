//! The loss process of a link direction: none, its own model and random stream, the
//! forward direction's model shared ("sync": one channel process for data and ACKs,
//! Pentikousis & Badr §3), or a reception trace indexed by slot (Srinivasan et al. §3.1).
use crate::loss::LossModel;
use crate::rng::Rng;
use crate::time::Nanos;
use crate::trace::BitTrace;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossMode {
    /// The n-th packet through the link: `lost_packet`, decided when the packet enters.
    Packet,
    /// In time: `lost_in_transit(start, arrival)`, decided when serialisation starts,
    /// in event order (so `start` never decreases, also across a shared model).
    Time,
}

#[derive(Debug)]
pub enum LossSource {
    None,
    Own { model: Box<dyn LossModel>, rng: Rng, mode: LossMode },
    /// Uses the forward direction's model and stream (only on the reverse direction).
    SharedForward,
    /// Slotted mode: lost iff the trace bit of the packet's slot is 0 (or beyond the end).
    Trace { trace: BitTrace, slot: Nanos },
}

impl LossSource {
    pub fn mode(&self, forward: &LossSource) -> Option<LossMode> {
        match self {
            LossSource::None => None,
            LossSource::Own { mode, .. } => Some(*mode),
            LossSource::SharedForward => forward.mode(&LossSource::None),
            LossSource::Trace { .. } => Some(LossMode::Packet),
        }
    }

    /// Fate of a packet occupying the link during [start, arrive] (true = lost).
    #[inline]
    pub fn decide(&mut self, start: Nanos, arrive: Nanos) -> bool {
        match self {
            LossSource::None => false,
            LossSource::Own { model, rng, mode } => match mode {
                LossMode::Packet => model.lost_packet(rng),
                LossMode::Time => model.lost_in_transit(start, arrive, rng),
            },
            LossSource::SharedForward => unreachable!("shared source decided through the forward one"),
            LossSource::Trace { trace, slot } => {
                let k = (start / *slot) as usize;
                k >= trace.len() || !trace.get(k)
            }
        }
    }
}
