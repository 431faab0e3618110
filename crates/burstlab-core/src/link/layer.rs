//! What the link-layer mechanisms share: the [`Channel`] adapter over a link's
//! [`LossSource`], the timing of one transmission attempt ([`AttemptTiming`], with the
//! optional binary exponential [`Backoff`]), per-link statistics ([`LinkStats`]), the
//! [`LinkLayer`] the engine calls once per frame, and [`measure`]: a saturated link
//! without TCP (frames back to back), for Subramanian et al.'s Fig. 1 and 7.
use super::arq::{Arq, ArqConfig};
use super::harq::{Harq, HarqConfig};
use super::hist::LogHist;
use super::{Channel, LossMode, LossSource, Service};
use crate::loss::LossModel;
use crate::rng::{component_id, stream, Rng, RngExt};
use crate::time::{tx_time, Nanos, NS_PER_S};
use crate::Error;

/// A link's loss process decides each attempt: `lost_packet` in packet mode (the n-th
/// attempt through the hop), `lost_in_transit(start, end)` in time mode (the attempt's own
/// interval on the channel, so a bad period kills the attempts that fall in it).
/// `Shared(owner)` is not a process of its own: the engine passes the owning link's
/// source as the channel of a link that shares it.
impl Channel for LossSource {
    #[inline]
    fn attempt_lost(&mut self, start: Nanos, end: Nanos) -> bool {
        self.decide(start, end)
    }
}

/// A duration: fixed, or drawn uniformly in [min, max] (whole nanoseconds) each time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span {
    Fixed(Nanos),
    Uniform { min: Nanos, max: Nanos },
}

impl Span {
    #[inline]
    pub fn draw(&self, rng: &mut Rng) -> Nanos {
        match *self {
            Span::Fixed(d) => d,
            Span::Uniform { min, max } => rng.random_range(min..=max),
        }
    }
}

/// Binary exponential backoff (IEEE 802.11 DCF): before the i-th attempt of a frame
/// (i = 0, 1, …) wait a whole number of slots drawn uniformly from [0, CW_i], with
/// CW_0 = CWmin and CW_{i+1} = min(2·(CW_i + 1) − 1, CWmax); the window starts again
/// at CWmin for each frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    pub cw_min: u32,
    pub cw_max: u32,
    pub slot: Nanos,
}

impl Backoff {
    /// 802.11b (DSSS): CWmin 31, CWmax 1023, 20 µs slots.
    pub const DSSS: Backoff = Backoff { cw_min: 31, cw_max: 1023, slot: 20_000 };

    pub fn new(cw_min: u32, cw_max: u32, slot: Nanos) -> crate::Result<Self> {
        if cw_max > 1 << 20 {
            return Err(Error::param("cw_max", cw_max, "at most 2^20 slots"));
        }
        if cw_min > cw_max {
            return Err(Error::param("cw_min", cw_min, &format!("at most cw_max = {cw_max}")));
        }
        if slot == 0 {
            return Err(Error::param("slot", slot, "a positive slot time"));
        }
        Ok(Backoff { cw_min, cw_max, slot })
    }

    /// CW before the `retry`-th attempt (0 = first).
    #[inline]
    pub fn window(&self, retry: u32) -> u32 {
        let w = ((self.cw_min as u64 + 1) << retry.min(32)) - 1;
        w.min(self.cw_max as u64) as u32
    }

    #[inline]
    pub fn draw(&self, retry: u32, rng: &mut Rng) -> Nanos {
        self.slot * rng.random_range(0..=self.window(retry)) as Nanos
    }

    pub fn mean(&self, retry: u32) -> f64 {
        self.window(retry) as f64 / 2.0 * self.slot as f64
    }
}

/// How long one transmission attempt takes: `idle` (DIFS; the channel is not asked about
/// it), the backoff if any, then the attempt on the channel: `overhead` (preamble, MAC
/// header, SIFS and MAC ACK — or the whole attempt, fixed or uniform in [min, max] as in
/// Subramanian et al. slide 8) followed by the payload at `rate_bps` (0: the payload
/// takes no time of its own). `encapsulation_bytes` (LLC/SNAP) are added to every frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttemptTiming {
    pub idle: Nanos,
    pub overhead: Span,
    pub rate_bps: u64,
    pub encapsulation_bytes: u32,
    pub backoff: Option<Backoff>,
}

/// No duration above an hour is a plausible attempt.
const MAX_SPAN: Nanos = 3600 * NS_PER_S;

impl AttemptTiming {
    /// Every attempt takes exactly `d`.
    pub fn fixed(d: Nanos) -> Self {
        AttemptTiming { idle: 0, overhead: Span::Fixed(d), rate_bps: 0, encapsulation_bytes: 0, backoff: None }
    }

    /// Every attempt takes a time drawn uniformly in [min, max] (Subramanian et al. slide 8).
    pub fn uniform(min: Nanos, max: Nanos) -> Self {
        AttemptTiming { idle: 0, overhead: Span::Uniform { min, max }, rate_bps: 0, encapsulation_bytes: 0, backoff: None }
    }

    pub fn validate(&self) -> crate::Result<()> {
        let check = |name: &str, d: Nanos| {
            if d > MAX_SPAN {
                Err(Error::param(name, d, "at most one hour (in ns)"))
            } else {
                Ok(())
            }
        };
        check("idle", self.idle)?;
        match self.overhead {
            Span::Fixed(d) => check("attempt_time", d)?,
            Span::Uniform { min, max } => {
                check("attempt_time_max", max)?;
                if min > max {
                    return Err(Error::param("attempt_time", min, &format!("at most attempt_time_max = {max} ns")));
                }
            }
        }
        if let Some(b) = self.backoff {
            Backoff::new(b.cw_min, b.cw_max, b.slot)?;
            check("slot", b.slot)?;
        }
        Ok(())
    }

    /// Air time of `bytes` of payload (encapsulation not included).
    #[inline]
    pub fn payload_time(&self, bytes: u64) -> Nanos {
        if self.rate_bps == 0 {
            0
        } else {
            tx_time(bytes, self.rate_bps)
        }
    }

    /// Time before the `retry`-th attempt reaches the channel: idle + backoff.
    #[inline]
    pub fn before(&self, retry: u32, rng: &mut Rng) -> Nanos {
        match &self.backoff {
            None => self.idle,
            Some(b) => self.idle + b.draw(retry, rng),
        }
    }
}

/// Fragments and their payload bytes (HARQ's counters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    pub fragments: u64,
    pub bytes: u64,
}

impl Count {
    #[inline]
    pub fn add(&mut self, fragments: u64, fragment_bytes: u64) {
        self.fragments += fragments;
        self.bytes += fragments * fragment_bytes;
    }
}

/// Subramanian et al. Table 1's FEC accounting (HARQ only; zero for ARQ): data fragments,
/// proactive (PFEC) and reactive (RFEC) FEC fragments sent, and those wasted — received
/// although the frame did not need them (the surplus beyond k at decoding, or everything
/// received for a frame dropped at the attempt limit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FecCounters {
    pub data_sent: Count,
    pub pfec_sent: Count,
    pub rfec_sent: Count,
    pub pfec_wasted: Count,
    pub rfec_wasted: Count,
}

/// Per-link counters and distributions, kept without allocating per frame.
///
/// "Units" are what the channel decides: an ARQ attempt, a HARQ fragment. The raw loss
/// rate is `units_lost / units_sent`, the residual loss rate `dropped / frames`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkStats {
    pub frames: u64,
    pub delivered: u64,
    /// Frames dropped at the attempt limit (residual losses).
    pub dropped: u64,
    /// Transmission attempts (HARQ: rounds), and those that did not get the frame through.
    pub attempts: u64,
    pub failed_attempts: u64,
    pub units_sent: u64,
    pub units_lost: u64,
    /// `attempts_per_frame[a]`: frames served in exactly `a` attempts (index 0 unused).
    pub attempts_per_frame: Vec<u64>,
    /// Duration of each attempt (idle, backoff and channel time; Subramanian et al. Fig. 7a).
    pub attempt_time: LogHist,
    /// Service time of each frame, delivered or dropped (Fig. 7b).
    pub latency: LogHist,
    pub fec: FecCounters,
}

impl LinkStats {
    pub fn new(max_attempts: u32) -> Self {
        LinkStats {
            frames: 0,
            delivered: 0,
            dropped: 0,
            attempts: 0,
            failed_attempts: 0,
            units_sent: 0,
            units_lost: 0,
            attempts_per_frame: vec![0; max_attempts as usize + 1],
            attempt_time: LogHist::new(),
            latency: LogHist::new(),
            fec: FecCounters::default(),
        }
    }

    pub fn clear(&mut self) {
        let n = self.attempts_per_frame.len() as u32 - 1;
        let (mut a, mut l) = (std::mem::take(&mut self.attempt_time), std::mem::take(&mut self.latency));
        a.clear();
        l.clear();
        *self = LinkStats { attempt_time: a, latency: l, ..LinkStats::new(n) };
    }

    /// Count a served frame (its attempts' durations are recorded by the caller).
    #[inline]
    pub(crate) fn frame(&mut self, s: &Service) {
        self.frames += 1;
        self.attempts += s.attempts as u64;
        self.failed_attempts += (s.attempts - s.delivered as u32) as u64;
        self.delivered += s.delivered as u64;
        self.dropped += !s.delivered as u64;
        self.attempts_per_frame[s.attempts as usize] += 1;
        self.latency.record(s.end - s.start);
    }

    pub fn raw_loss_rate(&self) -> Option<f64> {
        (self.units_sent > 0).then(|| self.units_lost as f64 / self.units_sent as f64)
    }

    pub fn residual_loss_rate(&self) -> Option<f64> {
        (self.frames > 0).then(|| self.dropped as f64 / self.frames as f64)
    }

    pub fn mean_attempts(&self) -> Option<f64> {
        (self.frames > 0).then(|| self.attempts as f64 / self.frames as f64)
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

    #[test]
    fn loss_source_is_a_channel() {
        // None never loses; Own asks its model per attempt (packet) or for the interval
        // (time); Trace (slotted) looks at the attempt's slot.
        assert!(!LossSource::None.attempt_lost(0, 10));
        let mut list =
            LossSource::Own { model: Box::new(DeterministicList::new(&[2, 4], None).unwrap()), rng: from_seed(0), mode: LossMode::Packet };
        let fates: Vec<bool> = (0..5).map(|i| list.attempt_lost(i, i)).collect();
        assert_eq!(fates, vec![false, true, false, true, false]);
        let replay = Replay::new(BitTrace::from_str01("101").unwrap(), Some(10), EndBehavior::Deliver).unwrap();
        let mut timed = LossSource::Own { model: Box::new(replay), rng: from_seed(0), mode: LossMode::Time };
        assert_eq!(
            [timed.attempt_lost(0, 5), timed.attempt_lost(5, 12), timed.attempt_lost(20, 29), timed.attempt_lost(25, 40)],
            [false, true, false, false]
        );
        let mut slotted = LossSource::Trace { trace: BitTrace::from_str01("10").unwrap(), slot: 10 };
        assert_eq!([slotted.attempt_lost(3, 4), slotted.attempt_lost(13, 14), slotted.attempt_lost(25, 26)], [false, true, true]);
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
