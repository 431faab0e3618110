//! Loss models behind one trait, used by the simulator per packet (the n-th packet
//! through a link) or in time (is a packet occupying the channel during [start, end] lost).
//!
//! A model does not own its randomness: the caller passes the component's stream
//! ([`crate::rng::stream`]). An independent ACK path is a clone of the model with its own
//! stream; a synchronized ACK path shares the model instance (the same channel process).
use crate::rng::Rng;
use crate::time::Nanos;
use crate::trace::BitTrace;

pub mod ber;
pub mod bernoulli;
pub mod bootstrap;
pub mod fill;
pub mod gilbert_elliott;
pub mod hmm;
pub mod hsmm;
pub mod keyed;
pub mod list;
pub mod markov_ct;
pub mod phy;
pub mod registry;
pub mod replay;
pub mod runlength;
pub mod semi_markov;
pub mod sojourn;
pub mod spec;
pub mod vddp;

pub use ber::BitErrors;
pub use bernoulli::Bernoulli;
pub use bootstrap::BlockBootstrap;
pub use gilbert_elliott::GilbertElliott;
pub use hmm::MarkovModulated;
pub use hsmm::SemiMarkovChain;
pub use keyed::{FateKey, KeyKind, KeyedReplay, TxCounter};
pub use list::DeterministicList;
pub use markov_ct::{markov_ct, on_off};
pub use phy::{Fading, PhyChannel, Snr};
pub use replay::{EndBehavior, Replay};
pub use runlength::RunLength;
pub use semi_markov::{SemiMarkov, TimeMode};
pub use sojourn::Sojourn;
pub use vddp::Vddp;

/// One unit a link layer puts on the air (an ARQ attempt's frame, a HARQ fragment): its
/// bits (MAC header, body and FCS: the PSDU; HARQ: fragment and fragment header) and the
/// PHY mode it is sent in (None: the hop's own). Size- and rate-aware models (a bit error
/// rate, the PHY curves) decide from them; the others ignore them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unit {
    pub bits: u32,
    pub mode: Option<&'static crate::phy::PhyMode>,
}

impl Unit {
    /// A unit of `bytes` bytes in the hop's own PHY mode.
    #[inline]
    pub fn bytes(bytes: u64) -> Self {
        Unit { bits: (bytes.saturating_mul(8)).min(u32::MAX as u64) as u32, mode: None }
    }
}

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

    /// Per-unit mode for a unit of known size and PHY mode (a link layer's attempt or
    /// fragment). Models whose loss does not depend on them decide it as the next packet,
    /// so a per-unit model gives the same results whether or not the size is passed.
    fn lost_unit(&mut self, _unit: Unit, rng: &mut Rng) -> bool {
        self.lost_packet(rng)
    }

    /// Time mode for a unit of known size and PHY mode occupying [start, end].
    fn lost_unit_in_transit(&mut self, start: Nanos, end: Nanos, _unit: Unit, rng: &mut Rng) -> bool {
        self.lost_in_transit(start, end, rng)
    }

    /// Back to the initial state (a fresh run).
    fn reset(&mut self);

    /// Stationary (long-run) packet loss probability, where the model has one.
    fn mean_loss(&self) -> Option<f64>;

    /// Time models: long-run fraction of time during which a zero-length packet would be
    /// lost (temporal models: time in a dropping state). None for packet-indexed models.
    fn time_loss_fraction(&self) -> Option<f64> {
        None
    }

    fn clone_box(&self) -> Box<dyn LossModel>;

    /// A replay keyed by what each packet is ([`keyed::KeyedReplay`]): the simulator then
    /// asks it with each packet's key instead of calling `lost_packet`.
    fn as_keyed(&self) -> Option<&keyed::KeyedReplay> {
        None
    }

    /// The model as a [`Bernoulli`] one, if it is: the engine then draws its losses inline
    /// ([`crate::link::LossSource::own`]).
    fn as_bernoulli(&self) -> Option<&Bernoulli> {
        None
    }

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

/// A positive, finite parameter (a mean, a duration).
pub(crate) fn check_pos(name: &str, x: f64) -> crate::Result<f64> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(crate::Error::param(name, x, "a positive finite number"))
    }
}

/// A positive duration in nanoseconds (packet interval, replay slot).
pub(crate) fn check_pos_ns(name: &str, x: Nanos) -> crate::Result<Nanos> {
    if x > 0 {
        Ok(x)
    } else {
        Err(crate::Error::param(name, x, "a positive duration in nanoseconds"))
    }
}

/// The shortest typical sojourn (seconds) a time model accepts: burstlab's clock counts
/// whole nanoseconds (a draw is rounded, at least 1 ns), so a law whose draws are a few
/// nanoseconds would be distorted (a mean of 10^-12 s would become 1 ns periods and a
/// silent 0 % or 100 % loss), and a channel that changes a million times per packet
/// costs a million draws per packet. 1 µs keeps the rounding error below 0.1 %.
pub const MIN_SOJOURN_SECS: f64 = 1e-6;

/// A sojourn law of a time model, in seconds, at the scale the clock resolves.
pub(crate) fn check_time_law(name: &str, law: &sojourn::Sojourn) -> crate::Result<()> {
    let t = law.typical();
    if !(t >= MIN_SOJOURN_SECS) {
        return Err(crate::Error::param(
            name,
            format!("{t:e} s (typical sojourn)"),
            "sojourns of at least 1 µs: time is counted in whole nanoseconds, so shorter ones cannot be represented \
             (a channel that fast is independent loss at packet scale: use bernoulli with the long-run loss rate)",
        ));
    }
    Ok(())
}

/// A probability parameter in [0, 1].
pub(crate) fn check_prob(name: &str, p: f64) -> crate::Result<f64> {
    if p.is_finite() && (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(crate::Error::param(name, p, "a probability in [0, 1]"))
    }
}

/// Test helper: a tolerance for the mean of correlated 0/1 samples, from batch means —
/// `z` standard errors, where the standard error is the spread of 100 batch means over
/// √100 (valid when batches are much longer than the correlation time).
#[cfg(test)]
pub(crate) fn batch_tolerance(xs: &[bool], z: f64) -> f64 {
    let k = 100;
    let m = xs.len() / k;
    let means: Vec<f64> = (0..k).map(|i| xs[i * m..(i + 1) * m].iter().filter(|&&x| x).count() as f64 / m as f64).collect();
    let mu = means.iter().sum::<f64>() / k as f64;
    let var = means.iter().map(|x| (x - mu).powi(2)).sum::<f64>() / (k - 1) as f64;
    z * (var / k as f64).sqrt()
}
