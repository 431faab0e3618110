//! The loss process of a link direction: none, its own model and random stream, another
//! link's model shared ("sync": one channel process for data and ACKs,
//! Pentikousis & Badr §3), or a reception trace indexed by slot (Srinivasan et al. §3.1).
use crate::loss::{Bernoulli, FateKey, KeyedReplay, LossModel, Unit};
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

/// Which interval a time-mode loss process is asked about for a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LossWindow {
    /// The packet's service on this hop's channel, [start, end of serialisation]: a
    /// channel's state matters while the packet is on the air, not while it propagates.
    #[default]
    Serialisation,
    /// Its whole transit, [start of serialisation, arrival] (burstlab before networks):
    /// a long propagation delay then raises the loss rate (a 300 ms delay turns a 10 %
    /// ON/OFF bad-time share into ~24 % loss).
    Transit,
}

impl LossWindow {
    pub fn parse(s: &str) -> crate::Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "serialisation" | "serialization" | "service" => Ok(LossWindow::Serialisation),
            "transit" => Ok(LossWindow::Transit),
            _ => Err(crate::Error::param("loss_window", s, "serialisation or transit")),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            LossWindow::Serialisation => "serialisation",
            LossWindow::Transit => "transit",
        }
    }
}

#[derive(Debug)]
pub enum LossSource {
    None,
    Own { model: Box<dyn LossModel>, rng: Rng, mode: LossMode },
    /// Its own Bernoulli model ([`LossSource::own`]): decided as `Own` would (a Bernoulli
    /// draw in every mode), without a call through the model's vtable per packet.
    Bernoulli { model: Bernoulli, rng: Rng, mode: LossMode },
    /// Uses another link's model and stream (one channel process for several links,
    /// Pentikousis & Badr's synchronized losses): the index of the owning link.
    Shared(usize),
    /// Slotted mode: lost iff the trace bit of the packet's slot is 0 (or beyond the end).
    Trace { trace: BitTrace, slot: Nanos },
    /// A replay keyed by what each packet is (`loss/keyed.rs`): decided with the packet's
    /// key ([`LossSource::decide_keyed`]), at admission.
    Keyed(Box<KeyedReplay>),
}

impl LossSource {
    /// A link's own process: `model` and its stream `rng`, decided per `mode`.
    pub fn own(model: Box<dyn LossModel>, rng: Rng, mode: LossMode) -> Self {
        match model.as_bernoulli() {
            Some(b) => LossSource::Bernoulli { model: b.clone(), rng, mode },
            None => LossSource::Own { model, rng, mode },
        }
    }

    /// The mode of an owned process (None for no process; a shared one asks its owner).
    pub fn mode(&self) -> Option<LossMode> {
        match self {
            LossSource::None | LossSource::Shared(_) => None,
            LossSource::Own { mode, .. } | LossSource::Bernoulli { mode, .. } => Some(*mode),
            LossSource::Trace { .. } | LossSource::Keyed(_) => Some(LossMode::Packet),
        }
    }

    /// Fate of a packet occupying the link during [start, arrive] (true = lost).
    #[inline]
    pub fn decide(&mut self, start: Nanos, arrive: Nanos) -> bool {
        match self {
            LossSource::None => false,
            // Bernoulli's lost_packet, lost_in_transit and lost_unit are all one draw.
            LossSource::Bernoulli { model, rng, .. } => model.draw(rng),
            LossSource::Own { model, rng, mode } => match mode {
                LossMode::Packet => model.lost_packet(rng),
                LossMode::Time => model.lost_in_transit(start, arrive, rng),
            },
            LossSource::Shared(_) => unreachable!("a shared source is decided through its owner"),
            LossSource::Trace { trace, slot } => {
                let k = (start / *slot) as usize;
                k >= trace.len() || !trace.get(k)
            }
            // asked without a key (a link layer's attempt): unmatched, delivered
            LossSource::Keyed(r) => r.lost_packet(&mut crate::rng::from_seed(0)),
        }
    }

    /// [`LossSource::decide`] for a packet whose key `key()` gives: a keyed replay decides
    /// from the key, any other source exactly as `decide` does (the key is not computed).
    /// (Bernoulli's one draw in line here: `decide` as a whole is left to the compiler, which
    /// calls it out of line.)
    #[inline(always)]
    pub fn decide_keyed(&mut self, start: Nanos, arrive: Nanos, key: impl FnOnce() -> FateKey) -> bool {
        match self {
            LossSource::Bernoulli { model, rng, .. } => model.draw(rng),
            LossSource::Keyed(r) => r.decide(key()),
            _ => self.decide(start, arrive),
        }
    }

    /// [`LossSource::decide`] for a link layer's unit of known size and PHY mode: a size-
    /// or rate-aware model decides from them ([`LossModel::lost_unit`]), any other model
    /// exactly as `decide` does.
    #[inline]
    pub fn decide_unit(&mut self, start: Nanos, end: Nanos, unit: Unit) -> bool {
        match self {
            LossSource::Own { model, rng, mode } => match mode {
                LossMode::Packet => model.lost_unit(unit, rng),
                LossMode::Time => model.lost_unit_in_transit(start, end, unit, rng),
            },
            _ => self.decide(start, end),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::{Bernoulli, GilbertElliott};
    use crate::rng::from_seed;

    /// A Bernoulli model is drawn inline (`LossSource::Bernoulli`) with the very decisions the
    /// model gives through its trait object, in every mode and for a link layer's units.
    #[test]
    fn bernoulli_inline_decides_as_the_model() {
        for mode in [LossMode::Packet, LossMode::Time] {
            for p in [0.0, 0.013, 0.5, 1.0] {
                let m = || Box::new(Bernoulli::new(p).unwrap()) as Box<dyn LossModel>;
                let mut inline = LossSource::own(m(), from_seed(7), mode);
                assert!(matches!(inline, LossSource::Bernoulli { .. }));
                let mut boxed = LossSource::Own { model: m(), rng: from_seed(7), mode };
                assert_eq!(inline.mode(), Some(mode));
                let unit = Unit { bits: 8000, mode: None };
                for k in 0..2000u64 {
                    let (a, b) = if k % 3 == 0 {
                        (inline.decide_unit(k, k + 5, unit), boxed.decide_unit(k, k + 5, unit))
                    } else {
                        (inline.decide(k, k + 5), boxed.decide(k, k + 5))
                    };
                    assert_eq!(a, b, "p={p} {mode:?} draw {k}");
                }
            }
        }
        // Any other model stays behind its trait object.
        let ge = GilbertElliott::new(0.1, 0.3, 0.0, 1.0).unwrap();
        assert!(matches!(LossSource::own(Box::new(ge), from_seed(1), LossMode::Packet), LossSource::Own { .. }));
    }
}
