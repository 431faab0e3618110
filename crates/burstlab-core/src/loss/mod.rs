//! Loss models behind one trait, used by the simulator per packet (the n-th packet
//! through a link) or in time (is a packet occupying the channel during [start, end] lost).
//!
//! A model does not own its randomness: the caller passes the component's stream
//! ([`crate::rng::stream`]). An independent ACK path is a clone of the model with its own
//! stream; a synchronized ACK path shares the model instance (the same channel process).
use crate::rng::Rng;
use crate::time::Nanos;
use crate::trace::BitTrace;

pub mod bernoulli;
pub mod gilbert_elliott;
pub mod list;

pub use bernoulli::Bernoulli;
pub use gilbert_elliott::GilbertElliott;
pub use list::DropList;

pub trait LossModel: Send + std::fmt::Debug {
    /// Short name, e.g. "bernoulli".
    fn name(&self) -> &'static str;

    /// Per-packet mode: the fate of the next packet (true = lost).
    fn lost_packet(&mut self, rng: &mut Rng) -> bool;

    /// Time mode: is a packet that occupies the channel during [start, end] lost?
    /// The engine calls in event order, so `start` never decreases between calls.
    /// Models without a notion of time treat each call as the next packet.
    fn lost_in_transit(&mut self, _start: Nanos, _end: Nanos, rng: &mut Rng) -> bool {
        self.lost_packet(rng)
    }

    /// Back to the initial state (a fresh run).
    fn reset(&mut self);

    /// Stationary (long-run) packet loss probability, where the model has one.
    fn mean_loss(&self) -> Option<f64>;

    fn clone_box(&self) -> Box<dyn LossModel>;

    /// Sample `n` packets into a trace (1 = delivered). Models override this with
    /// faster run- or word-level samplers; the result must equal `n` calls of
    /// `lost_packet` in distribution.
    fn sample_into(&mut self, n: usize, rng: &mut Rng, out: &mut BitTrace) {
        for _ in 0..n {
            out.push(!self.lost_packet(rng));
        }
    }
}

impl Clone for Box<dyn LossModel> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// A probability parameter in [0, 1].
pub(crate) fn check_prob(name: &str, p: f64) -> crate::Result<f64> {
    if p.is_finite() && (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(crate::Error::param(name, p, "a probability in [0, 1]"))
    }
}
