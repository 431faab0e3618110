//! The dispatch over link-layer mechanisms: the [`Channel`] adapter over a link's
//! [`LossSource`], the [`LinkLayer`] the engine calls once per frame (ARQ or hybrid ARQ),
//! and [`measure`]: a saturated link without TCP (frames back to back), for Subramanian et
//! al.'s Fig. 1 and 7. What the mechanisms share (attempt timing, statistics) is in
//! `attempt.rs`, re-exported here.
use super::arq::{Arq, ArqConfig};
use super::harq::{Harq, HarqConfig};
pub use super::attempt::{AttemptTiming, Backoff, Count, FecCounters, LinkStats, Span};
use super::{Channel, LossMode, LossSource, Service, Unit};
use crate::loss::LossModel;
use crate::rng::{component_id, stream, Rng};
use crate::time::{Nanos, NS_PER_S};
use crate::Error;

/// A link's loss process decides each unit: `lost_unit` in packet mode (the n-th unit
/// through the hop), `lost_unit_in_transit(start, end)` in time mode (the unit's own
/// interval on the channel, so a bad period kills the attempts that fall in it); models
/// blind to size and rate fall back to `lost_packet` / `lost_in_transit`.
/// `Shared(owner)` is not a process of its own: the engine passes the owning link's
/// source as the channel of a link that shares it.
impl Channel for LossSource {
    #[inline]
    fn attempt_lost(&mut self, start: Nanos, end: Nanos, unit: Unit) -> bool {
        self.decide_unit(start, end, unit)
    }
}


/// A link layer's settings (validated by [`LinkLayerConfig::build`]).
#[derive(Clone, Debug, PartialEq)]
pub enum LinkLayerConfig {
    Arq(ArqConfig),
    Harq(HarqConfig),
}

impl LinkLayerConfig {
    pub fn build(&self) -> crate::Result<LinkLayer> {
        Ok(match self {
            LinkLayerConfig::Arq(c) => LinkLayer::Arq(Arq::new(c.clone())?),
            LinkLayerConfig::Harq(c) => LinkLayer::Harq(Harq::new(c.clone())?),
        })
    }
}

/// A hop's link layer, as the engine holds it: one `serve` per frame at its service start.
#[derive(Clone, Debug)]
pub enum LinkLayer {
    Arq(Arq),
    Harq(Harq),
}

impl LinkLayer {
    /// Serve one frame of `frame_bytes` whose service starts at `start` (the head of the
    /// link's FIFO): see [`Arq::serve`] and [`Harq::serve`].
    #[inline]
    pub fn serve<C: Channel>(&mut self, start: Nanos, frame_bytes: u32, ch: &mut C, rng: &mut Rng) -> Service {
        match self {
            LinkLayer::Arq(a) => a.serve(start, frame_bytes, ch, rng),
            LinkLayer::Harq(h) => h.serve(start, frame_bytes, ch, rng),
        }
    }

    pub fn stats(&self) -> &LinkStats {
        match self {
            LinkLayer::Arq(a) => &a.stats,
            LinkLayer::Harq(h) => &h.stats,
        }
    }

    /// Start the statistics afresh (the engine's warm-up); the state (HARQ's estimate) stays.
    pub fn clear_stats(&mut self) {
        match self {
            LinkLayer::Arq(a) => a.stats.clear(),
            LinkLayer::Harq(h) => h.stats.clear(),
        }
    }

    /// HARQ's current estimate of the fragment loss rate (its EWMA), None for ARQ.
    pub fn loss_estimate(&self) -> Option<f64> {
        match self {
            LinkLayer::Arq(_) => None,
            LinkLayer::Harq(h) => Some(h.loss_estimate()),
        }
    }
}

/// A saturated link measured without TCP.
#[derive(Clone, Debug)]
pub struct Measurement {
    pub stats: LinkStats,
    /// When the last frame's service ended (the first started at 0).
    pub duration: Nanos,
    pub frame_bytes: u32,
    /// HARQ's fragment loss estimate at the end.
    pub loss_estimate: Option<f64>,
}

impl Measurement {
    /// MAC throughput: delivered frames per second (Subramanian et al. Fig. 1a).
    pub fn frames_per_second(&self) -> f64 {
        if self.duration == 0 {
            0.0
        } else {
            self.stats.delivered as f64 * NS_PER_S as f64 / self.duration as f64
        }
    }

    /// MAC throughput in bits per second of frame (network-layer packet) bytes.
    pub fn throughput_bps(&self) -> f64 {
        self.frames_per_second() * self.frame_bytes as f64 * 8.0
    }
}

/// Most frames one measurement serves.
pub const MAX_FRAMES: u64 = 1 << 32;

/// Serve `frames` frames of `frame_bytes` back to back from t = 0 (a saturated link: each
/// starts when the previous one's service ends) through a fresh link layer built from
/// `config`, over a fresh copy of `loss` (None: a lossless channel) in `mode`. The loss
/// process and the link layer draw from their own streams of `seed` ("link.loss",
/// "link.layer").
pub fn measure(
    config: &LinkLayerConfig,
    loss: Option<&dyn LossModel>,
    mode: LossMode,
    frames: u64,
    frame_bytes: u32,
    seed: u64,
) -> crate::Result<Measurement> {
    measure_with(config, loss, mode, frames, frame_bytes, seed, || true)
}

/// Frames served between two calls of `keep_going`.
pub const CHECK_EVERY: u64 = 1 << 20;

/// [`measure`], asking `keep_going` every [`CHECK_EVERY`] frames whether to go on (the
/// Python binding checks for Ctrl-C there); a stop is an error.
pub fn measure_with(
    config: &LinkLayerConfig,
    loss: Option<&dyn LossModel>,
    mode: LossMode,
    frames: u64,
    frame_bytes: u32,
    seed: u64,
    mut keep_going: impl FnMut() -> bool,
) -> crate::Result<Measurement> {
    if frames == 0 || frames > MAX_FRAMES {
        return Err(Error::param("frames", frames, "1 to 2^32 frames"));
    }
    if frame_bytes == 0 {
        return Err(Error::param("frame_bytes", frame_bytes, "a positive frame size in bytes"));
    }
    let mut layer = config.build()?;
    let mut ch = match loss {
        None => LossSource::None,
        Some(m) => {
            let mut model = m.clone_box();
            model.reset();
            LossSource::Own { model, rng: stream(seed, component_id("link.loss")), mode }
        }
    };
    let mut rng = stream(seed, component_id("link.layer"));
    let mut t = 0;
    let mut left = frames;
    while left > 0 {
        if left < frames && !keep_going() {
            return Err(Error::Other("link measurement interrupted".into()));
        }
        let chunk = left.min(CHECK_EVERY);
        for _ in 0..chunk {
            t = layer.serve(t, frame_bytes, &mut ch, &mut rng).end;
        }
        left -= chunk;
    }
    Ok(Measurement { stats: layer.stats().clone(), duration: t, frame_bytes, loss_estimate: layer.loss_estimate() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::{Bernoulli, DeterministicList, EndBehavior, Replay};
    use crate::rng::from_seed;
    use crate::trace::BitTrace;

    const U: Unit = Unit { bits: 8000, mode: None };

    #[test]
    fn loss_source_is_a_channel() {
        // None never loses; Own asks its model per attempt (packet) or for the interval
        // (time); Trace (slotted) looks at the attempt's slot.
        assert!(!LossSource::None.attempt_lost(0, 10, U));
        let mut list =
            LossSource::Own { model: Box::new(DeterministicList::new(&[2, 4], None).unwrap()), rng: from_seed(0), mode: LossMode::Packet };
        let fates: Vec<bool> = (0..5).map(|i| list.attempt_lost(i, i, U)).collect();
        assert_eq!(fates, vec![false, true, false, true, false]);
        let replay = Replay::new(BitTrace::from_str01("101").unwrap(), Some(10), EndBehavior::Deliver).unwrap();
        let mut timed = LossSource::Own { model: Box::new(replay), rng: from_seed(0), mode: LossMode::Time };
        assert_eq!(
            [timed.attempt_lost(0, 5, U), timed.attempt_lost(5, 12, U), timed.attempt_lost(20, 29, U), timed.attempt_lost(25, 40, U)],
            [false, true, false, false]
        );
        let mut slotted = LossSource::Trace { trace: BitTrace::from_str01("10").unwrap(), slot: 10 };
        assert_eq!([slotted.attempt_lost(3, 4, U), slotted.attempt_lost(13, 14, U), slotted.attempt_lost(25, 26, U)], [false, true, true]);
    }

    #[test]
    fn measure_stops_when_asked_and_checks_its_input() {
        let cfg = LinkLayerConfig::Arq(ArqConfig::retries(1, AttemptTiming::fixed(1000)));
        let bern = Bernoulli::new(0.1).unwrap();
        let mut calls = 0;
        let r = measure_with(&cfg, Some(&bern), LossMode::Packet, 3 * CHECK_EVERY, 100, 1, || {
            calls += 1;
            calls < 2
        });
        assert_eq!(r.unwrap_err(), Error::Other("link measurement interrupted".into()));
        assert_eq!(calls, 2);
        assert!(measure(&cfg, None, LossMode::Packet, MAX_FRAMES + 1, 100, 1).is_err());
        assert!(measure(&cfg, None, LossMode::Packet, 10, 0, 1).unwrap_err().to_string().contains("frame_bytes = 0"));
        // The engine's view: a LinkLayer serves and keeps the statistics.
        let mut l = cfg.build().unwrap();
        let s = l.serve(0, 100, &mut LossSource::None, &mut from_seed(0));
        assert_eq!((s.end, s.delivered, s.attempts), (1000, true, 1));
        assert_eq!(l.stats().frames, 1);
        assert_eq!(l.loss_estimate(), None);
        let mut stats = l.stats().clone();
        stats.clear();
        assert_eq!(stats, LinkStats::new(2));
    }
}
