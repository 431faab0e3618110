//! What the link-layer mechanisms (`arq`, `harq`, `wifi`) share: the timing of one
//! transmission attempt ([`AttemptTiming`], with the optional binary exponential
//! [`Backoff`]) and the per-link statistics ([`LinkStats`], with HARQ's FEC counters).
//! The dispatch over mechanisms ([`super::layer::LinkLayer`]) is in `layer.rs`.
use crate::hist::Durations;
use super::Service;
use crate::rng::{Rng, RngExt};
use crate::time::{tx_time, Nanos, NS_PER_S};
use crate::Error;

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

crate::named_enum!(
    /// Whether attempts wait a binary exponential backoff (the spec key `backoff`).
    BackoffKind, "backoff" {
        None = "none",
        Dcf = "dcf",
    }
);

crate::params! {
    /// The attempt model of a link layer (ARQ and LL-HARQ alike) when it is not the 802.11
    /// DCF's (`wifi::DcfParams`): a fixed or uniform time per attempt, optionally plus the
    /// frame's air time at a rate, and the backoff. `AttemptParams::PARAMS` gives the spec
    /// and TOML keys and `docs/parameters.md`.
    pub struct AttemptParams {
        attempt attempt_time: Nanos [time] = 0, "s", max 3600.0,
            "A time per attempt instead of the 802.11 DCF timing (0 and no attempt_time_max: the DCF's).", "Subramanian et al. slide 8";
        attempt attempt_time_max: Nanos [time] = 0, "s", max 3600.0,
            "With attempt_time: each attempt uniform in [attempt_time, attempt_time_max] (0: every attempt attempt_time).", "Subramanian et al. slide 8";
        attempt rate: f64 [real] = 0.0, "bit/s", min 0.0, max 1e15,
            "With attempt_time: the PHY rate whose air time for the frame adds to each attempt (0: none).", "";
        attempt backoff: BackoffKind [choice] = BackoffKind::None, "",
            "Binary exponential backoff before each attempt: none (Subramanian et al.'s driver had none) or dcf (CWmin, CWmax and slot of the DCF settings).", "IEEE 802.11-2016 §10.3.3";
    }
    virtual {}
}

impl AttemptParams {
    /// Whether these settings give an attempt time of their own (else the DCF's timing).
    pub fn is_timed(&self) -> bool {
        self.attempt_time > 0 || self.attempt_time_max > 0 || self.rate > 0.0
    }

    /// The fixed (or uniform) attempt timing these settings give, without backoff.
    pub fn timing(&self) -> crate::Result<AttemptTiming> {
        self.check_ranges()?;
        let mut t = if self.attempt_time_max > 0 {
            if self.attempt_time > self.attempt_time_max {
                return Err(Error::param("attempt_time", self.attempt_time as f64 / 1e9, &format!("at most attempt_time_max = {} s", self.attempt_time_max as f64 / 1e9)));
            }
            AttemptTiming::uniform(self.attempt_time, self.attempt_time_max)
        } else {
            AttemptTiming::fixed(self.attempt_time)
        };
        t.rate_bps = self.rate.round() as u64;
        t.validate()?;
        Ok(t)
    }
}

/// How long one transmission attempt takes: `idle` (DIFS; the channel is not asked about
/// it), the backoff if any, then the attempt on the channel: `overhead` (preamble, MAC
/// header, SIFS and MAC ACK — or the whole attempt, fixed or uniform in [min, max] as in
/// Subramanian et al. slide 8) followed by the payload at `rate_bps` (0: the payload
/// takes no time of its own). `encapsulation_bytes` (LLC/SNAP) are added to every frame.
/// `header_bytes` (802.11: MAC header + FCS, 28) travel with every ARQ attempt's frame:
/// their air time is part of `overhead`, and they count toward the frame's bits where
/// the channel's loss depends on its size (a bit error rate, SNR curves). An OFDM PHY
/// (`symbol` > 0, 802.11g ERP-OFDM) sends its data field in whole symbols: the payload's time
/// is then that of the whole PSDU (header bytes included) — SERVICE 16 bits + PSDU + tail 6
/// bits padded to whole `symbol`s of rate × symbol bits (IEEE 802.11-2016 Eq. 17-29) — and
/// `overhead` holds the PLCP, the signal extension, SIFS and the ACK without the header.
/// `mode`: the PHY mode every attempt is sent in (the unit carries it to size- and rate-aware
/// loss; None: the channel's own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttemptTiming {
    pub idle: Nanos,
    pub overhead: Span,
    pub rate_bps: u64,
    pub encapsulation_bytes: u32,
    pub header_bytes: u32,
    pub backoff: Option<Backoff>,
    pub symbol: Nanos,
    pub mode: Option<&'static crate::phy::PhyMode>,
}

/// No duration above an hour is a plausible attempt.
const MAX_SPAN: Nanos = 3600 * NS_PER_S;

impl AttemptTiming {
    /// Every attempt takes exactly `d`.
    pub fn fixed(d: Nanos) -> Self {
        AttemptTiming { idle: 0, overhead: Span::Fixed(d), rate_bps: 0, encapsulation_bytes: 0, header_bytes: 0, backoff: None, symbol: 0, mode: None }
    }

    /// Every attempt takes a time drawn uniformly in [min, max] (Subramanian et al. slide 8).
    pub fn uniform(min: Nanos, max: Nanos) -> Self {
        AttemptTiming { idle: 0, overhead: Span::Uniform { min, max }, rate_bps: 0, encapsulation_bytes: 0, header_bytes: 0, backoff: None, symbol: 0, mode: None }
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

    /// Air time of `bytes` of payload (encapsulation not included); OFDM: of the whole data
    /// field carrying them and the header bytes, in whole symbols.
    #[inline]
    pub fn payload_time(&self, bytes: u64) -> Nanos {
        if self.rate_bps == 0 {
            0
        } else if self.symbol == 0 {
            tx_time(bytes, self.rate_bps)
        } else {
            ofdm_data_time(bytes + self.header_bytes as u64, self.rate_bps, self.symbol)
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

/// An OFDM PPDU's data field carrying a PSDU of `bytes` at `rate_bps`: SERVICE (16 bits),
/// the PSDU and the tail (6 bits) in whole symbols of N_DBPS = rate × `symbol` bits (IEEE
/// 802.11-2016 §17.4.3, Eq. 17-29).
#[inline]
pub fn ofdm_data_time(bytes: u64, rate_bps: u64, symbol: Nanos) -> Nanos {
    let ndbps = (rate_bps as u128 * symbol as u128 / NS_PER_S as u128).max(1) as u64;
    (16 + 8 * bytes + 6).div_ceil(ndbps) * symbol
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

/// One rate's attempts on a rate-adaptive hop (`adapt.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateCount {
    /// The PHY mode's name (`dsss1`, `dsss2`, `cck5.5`, `cck11`) and its data rate.
    pub mode: &'static str,
    pub rate_bps: u64,
    pub attempts: u64,
    pub successes: u64,
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
    pub attempt_time: Durations,
    /// Service time of each frame, delivered or dropped (Fig. 7b).
    pub latency: Durations,
    pub fec: FecCounters,
    /// Per-rate attempts and successes of a rate-adaptive ARQ hop, slowest rate first
    /// (empty at a fixed rate).
    pub rates: Vec<RateCount>,
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
            attempt_time: Durations::new(),
            latency: Durations::new(),
            fec: FecCounters::default(),
            rates: Vec::new(),
        }
    }

    pub fn clear(&mut self) {
        let n = self.attempts_per_frame.len() as u32 - 1;
        let (mut a, mut l) = (std::mem::take(&mut self.attempt_time), std::mem::take(&mut self.latency));
        a.clear();
        l.clear();
        let mut rates = std::mem::take(&mut self.rates);
        for r in &mut rates {
            (r.attempts, r.successes) = (0, 0);
        }
        *self = LinkStats { attempt_time: a, latency: l, rates, ..LinkStats::new(n) };
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
