//! Subramanian et al.'s link-layer hybrid ARQ (LL-HARQ, slides 11-12, 16 and Table 1): a
//! frame is cut into k data fragments and sent with proactive FEC fragments (PFEC), sized
//! from an EWMA of the observed fragment loss rate, under an ideal MDS erasure code (any k
//! of the fragments decode the frame). If fewer than k arrive, the receiver reports how
//! many are missing and the sender answers with reactive FEC (RFEC) sized the same way, up
//! to a small attempt limit (1-2); a frame still short of k fragments is dropped.
//!
//! The slides leave the details open; each is a parameter here (`docs/link-layer.md`):
//! - fragment size and header, and the cap on fragments per attempt (an MDS code over
//!   GF(2^8) has n ≤ 255);
//! - the sizing rule ([`Sizing`]): send s fragments so that m more arrive with probability
//!   ≥ `target` when each is lost independently with the estimated rate p̂ (quantile of a
//!   binomial), or s = ⌈m/(1 − p̂)⌉ (enough on average);
//! - the estimator: after each attempt p̂ ← p̂ + g·(lost/sent − p̂), from `initial_loss`;
//! - order on the air: the k data fragments first, then the FEC (systematic code), all in
//!   one attempt after its overhead; only fragments are subject to loss (the per-attempt
//!   overhead, e.g. the preamble and the feedback, is taken to get through);
//! - accounting (Table 1): FEC "wasted" is FEC received but not needed: the surplus beyond
//!   k in the attempt that decodes (charged to that attempt's kind), or all FEC received
//!   for a frame that is dropped.
use super::attempt::{AttemptTiming, LinkStats};
use super::{Channel, Service, Unit};
use crate::rng::Rng;
use crate::time::Nanos;
use crate::Error;

/// How many fragments to send for m to arrive, at estimated fragment loss p̂.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sizing {
    /// The fewest s with P(Binomial(s, 1 − p̂) ≥ m) ≥ target; p̂ is rounded up to a
    /// multiple of 1/256 (a table per level, computed when first needed).
    Quantile { target: f64 },
    /// s = ⌈m / (1 − p̂)⌉: the expected losses covered (decodes about half the time).
    Mean,
}

/// Largest attempt limit and fragments per attempt.
pub const MAX_HARQ_ATTEMPTS: u32 = 16;
pub const MAX_FRAGMENTS: u32 = 1024;
/// Levels of p̂ for the quantile tables.
const LEVELS: usize = 256;

crate::named_enum!(
    /// The sizing rule by name (with `target`, the quantile's, in [`HarqParams`]).
    SizingKind, "sizing" {
        Quantile = "quantile",
        Mean = "mean",
    }
);

crate::params! {
    /// LL-HARQ's settings, declared once (defaults: 2 attempts, 100-byte fragments with a
    /// 4-byte header, n ≤ 255, sized for a 99 % chance of decoding per attempt, EWMA gain 1/8
    /// from p̂ = 0): `HarqParams::PARAMS` gives the `harq:` spec keys, Python's `Harq` fields,
    /// the TOML keys and `docs/parameters.md`.
    pub struct HarqParams {
        harq attempts: u32 [u32] = 2, "", min 1, max MAX_HARQ_ATTEMPTS,
            "Attempts per frame: the first (data + PFEC) and the RFEC rounds (1-2 in LL-HARQ).", "Subramanian et al. slides 11-12";
        harq fragment_bytes: u32 [u32] = 100, "bytes", min 1, max 65_535,
            "Payload bytes per fragment (a code symbol): a frame of B bytes has k = ceil(B / fragment_bytes) data fragments.", "Subramanian et al. slide 11";
        harq fragment_header_bytes: u32 [u32] = 4, "bytes", max 65_535,
            "Header bytes on the air with each fragment (sequence number, code index).", "";
        harq max_fragments: u32 [u32] = 255, "", min 1, max MAX_FRAGMENTS,
            "Most fragments in one attempt (n of the code; an MDS code over GF(2^8) has n <= 255); also caps k.", "";
        harq sizing: SizingKind [choice] = SizingKind::Quantile, "",
            "FEC sizing: quantile (fewest fragments for the missing ones to arrive with probability >= target) or mean (ceil(m / (1 - p)): the expected losses).", "";
        harq target: f64 [real] = 0.99, "", gt 0.0, lt 1.0,
            "Quantile sizing: the probability that an attempt brings the fragments missing.", "";
        harq proactive: bool [bool] = true, "",
            "Send proactive FEC with the data (false: data alone first, FEC only on request).", "Subramanian et al. slide 12";
        harq ewma_gain: f64 [real] = 0.125, "", min 0.0, max 1.0,
            "Gain of the fragment-loss EWMA per attempt (0 keeps the estimate at initial_loss).", "";
        harq initial_loss: f64 [real] = 0.0, "", min 0.0, lt 1.0,
            "The fragment-loss estimate before the first attempt.", "";
    }
    virtual {}
}

#[derive(Clone, Debug, PartialEq)]
pub struct HarqConfig {
    /// Attempts per frame: the first (data + PFEC) and RFEC rounds; 1-2 in LL-HARQ.
    pub attempts: u32,
    /// Payload bytes per fragment (a code symbol); a frame (plus encapsulation) of B bytes
    /// has k = ⌈B / fragment_bytes⌉ data fragments of ⌈B / k⌉ bytes.
    pub fragment_bytes: u32,
    /// Header bytes on the air with each fragment (sequence number, code index).
    pub fragment_header_bytes: u32,
    /// Most fragments sent in one attempt (n of the code); also caps k.
    pub max_fragments: u32,
    pub sizing: Sizing,
    /// Send PFEC with the data (false: data alone first, FEC only on request).
    pub proactive: bool,
    /// EWMA gain g per attempt (0 keeps p̂ at `initial_loss`).
    pub ewma_gain: f64,
    pub initial_loss: f64,
    pub timing: AttemptTiming,
}

impl HarqConfig {
    /// LL-HARQ's defaults ([`HarqParams`]) with `timing`.
    pub fn new(timing: AttemptTiming) -> Self {
        Self::from_params(&HarqParams::default(), timing)
    }

    /// The settings `p` with `timing`.
    pub fn from_params(p: &HarqParams, timing: AttemptTiming) -> Self {
        HarqConfig {
            attempts: p.attempts,
            fragment_bytes: p.fragment_bytes,
            fragment_header_bytes: p.fragment_header_bytes,
            max_fragments: p.max_fragments,
            sizing: match p.sizing {
                SizingKind::Quantile => Sizing::Quantile { target: p.target },
                SizingKind::Mean => Sizing::Mean,
            },
            proactive: p.proactive,
            ewma_gain: p.ewma_gain,
            initial_loss: p.initial_loss,
            timing,
        }
    }

    /// The settings as declared ([`HarqParams`]; `target` the default's under mean sizing).
    pub fn params(&self) -> HarqParams {
        let (sizing, target) = match self.sizing {
            Sizing::Quantile { target } => (SizingKind::Quantile, target),
            Sizing::Mean => (SizingKind::Mean, HarqParams::default().target),
        };
        HarqParams {
            attempts: self.attempts,
            fragment_bytes: self.fragment_bytes,
            fragment_header_bytes: self.fragment_header_bytes,
            max_fragments: self.max_fragments,
            sizing,
            target,
            proactive: self.proactive,
            ewma_gain: self.ewma_gain,
            initial_loss: self.initial_loss,
        }
    }

    /// Every setting within its declared range, and the timing valid.
    pub fn validate(&self) -> crate::Result<()> {
        self.params().check_ranges()?;
        if self.timing.symbol != 0 {
            // a fragment's air time is its bytes at the rate; OFDM's padding of each PPDU to
            // whole symbols has no defined share per fragment
            return Err(Error::param("phy", "erp", "dsss for LL-HARQ (fragments are timed at the DSSS rate)"));
        }
        self.timing.validate()
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Geometry {
    bytes: u32,
    k: u32,
    fragment: u32,
    air: Nanos,
    /// A fragment on the air (payload + fragment header) as the channel sees it.
    unit: Unit,
}

#[derive(Clone, Debug)]
pub struct Harq {
    config: HarqConfig,
    p_hat: f64,
    /// Quantile sizing: `table[level·(N+1) + m]` = fragments to send for m to arrive
    /// (0 = level not computed yet); N = max_fragments.
    table: Vec<u16>,
    /// Scratch for a table level: the binomial pmf.
    pmf: Vec<f64>,
    geometry: Geometry,
    pub stats: LinkStats,
}

impl Harq {
    pub fn new(config: HarqConfig) -> crate::Result<Self> {
        config.validate()?;
        let n = config.max_fragments as usize;
        let table = match config.sizing {
            Sizing::Quantile { .. } => vec![0; (LEVELS + 1) * (n + 1)],
            Sizing::Mean => vec![],
        };
        Ok(Harq {
            p_hat: config.initial_loss,
            stats: LinkStats::new(config.attempts),
            pmf: vec![0.0; n + 1],
            table,
            geometry: Geometry::default(),
            config,
        })
    }

    /// The current fragment loss estimate p̂.
    pub fn loss_estimate(&self) -> f64 {
        self.p_hat
    }

    /// (k, fragment payload bytes, fragment air time) of a frame of `frame_bytes`.
    #[inline]
    pub fn fragments_of(&mut self, frame_bytes: u32) -> (u32, u32, Nanos) {
        if self.geometry.bytes != frame_bytes || self.geometry.k == 0 {
            let c = &self.config;
            let total = frame_bytes as u64 + c.timing.encapsulation_bytes as u64;
            let k = total.div_ceil(c.fragment_bytes as u64).clamp(1, c.max_fragments as u64);
            let fragment = total.div_ceil(k);
            let air = c.timing.payload_time(fragment + c.fragment_header_bytes as u64);
            let unit = Unit::bytes(fragment + c.fragment_header_bytes as u64);
            self.geometry = Geometry { bytes: frame_bytes, k: k as u32, fragment: fragment as u32, air, unit };
        }
        let g = self.geometry;
        (g.k, g.fragment, g.air)
    }

    /// Fragments to send so that `m` (≥ 1) more arrive, at the current p̂ (in [m, N]).
    #[inline]
    pub fn to_send(&mut self, m: u32) -> u32 {
        let n = self.config.max_fragments;
        let s = match self.config.sizing {
            Sizing::Mean => {
                if self.p_hat >= 1.0 {
                    n
                } else {
                    let x = m as f64 / (1.0 - self.p_hat);
                    (x - 1e-9).ceil().min(n as f64) as u32
                }
            }
            Sizing::Quantile { target } => {
                let level = ((self.p_hat * LEVELS as f64).ceil() as usize).min(LEVELS);
                let row = level * (n as usize + 1);
                if self.table[row + m as usize] == 0 {
                    self.fill_level(level, target);
                }
                self.table[row + m as usize] as u32
            }
        };
        s.clamp(m, n)
    }

    /// Table level `level` (p = level/256): for every m, the fewest s ≤ N with
    /// P(Binomial(s, 1 − p) ≥ m) ≥ target (N where none reaches it). The tail grows with
    /// s, so one pass over s = 1..N with the pmf updated in place finds them all: O(N²).
    #[cold]
    fn fill_level(&mut self, level: usize, target: f64) {
        let n = self.config.max_fragments as usize;
        let row = level * (n + 1);
        let p = level as f64 / LEVELS as f64;
        let a = 1.0 - p;
        let out = &mut self.table[row..row + n + 1];
        out.iter_mut().for_each(|x| *x = 0);
        if level == 0 {
            (1..=n).for_each(|m| out[m] = m as u16);
        } else if level < LEVELS {
            let pmf = &mut self.pmf;
            pmf.iter_mut().for_each(|x| *x = 0.0);
            pmf[0] = 1.0;
            for s in 1..=n {
                for j in (1..=s).rev() {
                    pmf[j] = pmf[j] * p + pmf[j - 1] * a;
                }
                pmf[0] *= p;
                let mut tail = 0.0;
                for j in (1..=s).rev() {
                    tail += pmf[j];
                    if out[j] == 0 && tail >= target {
                        out[j] = s as u16;
                    }
                }
            }
        }
        for x in out[1..].iter_mut().filter(|x| **x == 0) {
            *x = n as u16;
        }
        out[0] = 1; // marks the level computed (m = 0 is never asked)
    }

    /// Serve one frame whose service starts at `start`: the first attempt sends the k
    /// data fragments and the PFEC, each later one the RFEC for what is still missing;
    /// every fragment's fate is asked of `ch` for its own interval. Delivered when k
    /// fragments in all have arrived, dropped after the attempt limit.
    #[inline]
    pub fn serve<C: Channel>(&mut self, start: Nanos, frame_bytes: u32, ch: &mut C, rng: &mut Rng) -> Service {
        let (k, frag, air) = self.fragments_of(frame_bytes);
        let unit = self.geometry.unit;
        let timing = self.config.timing;
        let fb = frag as u64;
        let mut t = start;
        let mut have = 0u32;
        let mut attempts = 0u32;
        let (mut pfec_rx, mut rfec_rx) = (0u64, 0u64);
        let delivered = loop {
            let send = if attempts > 0 {
                self.to_send(k - have)
            } else if self.config.proactive {
                self.to_send(k)
            } else {
                k
            };
            let begin = t;
            t += timing.before(attempts, rng);
            t += timing.overhead.draw(rng);
            let mut got = 0u32;
            for i in 0..send {
                let lost = ch.attempt_lost(t, t + air, unit);
                t += air;
                if !lost {
                    got += 1;
                    if attempts == 0 && i >= k {
                        pfec_rx += 1;
                    }
                }
            }
            let fec = &mut self.stats.fec;
            if attempts == 0 {
                fec.data_sent.add(k as u64, fb);
                fec.pfec_sent.add((send - k) as u64, fb);
            } else {
                fec.rfec_sent.add(send as u64, fb);
                rfec_rx += got as u64;
            }
            self.stats.units_sent += send as u64;
            self.stats.units_lost += (send - got) as u64;
            self.p_hat += self.config.ewma_gain * ((send - got) as f64 / send as f64 - self.p_hat);
            have += got;
            attempts += 1;
            let decoded = have >= k;
            self.stats.attempt_time.record(t - begin);
            if decoded {
                let surplus = (have - k) as u64;
                if attempts == 1 {
                    self.stats.fec.pfec_wasted.add(surplus, fb);
                } else {
                    self.stats.fec.rfec_wasted.add(surplus, fb);
                }
                break true;
            }
            if attempts == self.config.attempts {
                self.stats.fec.pfec_wasted.add(pfec_rx, fb);
                self.stats.fec.rfec_wasted.add(rfec_rx, fb);
                break false;
            }
        };
        let s = Service { start, end: t, delivered, attempts };
        self.stats.frame(&s);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::arq::{ArqConfig, LimitCounts};
    use crate::link::layer::{measure, LinkLayerConfig, Measurement};
    use crate::link::wifi::Dcf;
    use crate::link::{LossMode, LossSource};
    use crate::loss::{Bernoulli, EndBehavior, LossModel, Replay};
    use crate::rng::from_seed;
    use crate::time::{NS_PER_MS, NS_PER_US};
    use crate::trace::BitTrace;

    /// pmf of Binomial(n, a).
    fn binom(n: u32, a: f64) -> Vec<f64> {
        let mut pmf = vec![0.0; n as usize + 1];
        pmf[0] = 1.0;
        for s in 1..=n as usize {
            for j in (1..=s).rev() {
                pmf[j] = pmf[j] * (1.0 - a) + pmf[j - 1] * a;
            }
            pmf[0] *= 1.0 - a;
        }
        pmf
    }

    /// P(Binomial(n, a) < m).
    fn below(n: u32, a: f64, m: u32) -> f64 {
        binom(n, a)[..(m.min(n + 1)) as usize].iter().sum()
    }

    fn fixed_p(p: f64, attempts: u32, sizing: Sizing) -> HarqConfig {
        HarqConfig { attempts, sizing, ewma_gain: 0.0, initial_loss: p, ..HarqConfig::new(AttemptTiming::fixed(100 * NS_PER_US)) }
    }

    #[test]
    fn fragments_and_sizing_rules() {
        let mut h = Harq::new(fixed_p(0.25, 2, Sizing::Mean)).unwrap();
        // 1040 bytes in 100-byte fragments: k = 11 of 95 bytes; 40 bytes: one fragment.
        assert_eq!(h.fragments_of(1040).0..=h.fragments_of(1040).1, 11..=95);
        assert_eq!(h.fragments_of(40).0, 1);
        // Mean rule: ⌈m / (1 − p)⌉.
        assert_eq!((h.to_send(11), h.to_send(3), h.to_send(1)), (15, 4, 2));
        // Quantile rule against a brute-force search, on and off the 1/256 grid (p̂ is
        // rounded up to the grid).
        for (p, grid_p) in [(0.25, 0.25), (0.5, 0.5), (0.1, 26.0 / 256.0), (0.0, 0.0), (0.7, 180.0 / 256.0)] {
            for target in [0.9, 0.99] {
                let mut q = Harq::new(fixed_p(p, 2, Sizing::Quantile { target })).unwrap();
                for m in [1u32, 2, 5, 11, 30] {
                    let want = (m..=255).find(|&s| 1.0 - below(s, 1.0 - grid_p, m) >= target).unwrap_or(255);
                    assert_eq!(q.to_send(m), want, "p {p} target {target} m {m}");
                }
            }
        }
        // A rate so high the cap binds: send the cap.
        let mut q = Harq::new(HarqConfig { max_fragments: 20, ..fixed_p(0.9, 2, Sizing::Quantile { target: 0.99 }) }).unwrap();
        assert_eq!(q.to_send(10), 20);
        // k is capped by max_fragments, the fragments then grow.
        assert_eq!(q.fragments_of(4000).0..=q.fragments_of(4000).1, 20..=200);
        for bad in [
            HarqConfig { attempts: 0, ..fixed_p(0.1, 1, Sizing::Mean) },
            HarqConfig { fragment_bytes: 0, ..fixed_p(0.1, 1, Sizing::Mean) },
            HarqConfig { initial_loss: 1.0, ..fixed_p(0.1, 1, Sizing::Mean) },
            fixed_p(0.1, 1, Sizing::Quantile { target: 1.0 }),
            HarqConfig { max_fragments: 5000, ..fixed_p(0.1, 1, Sizing::Mean) },
        ] {
            assert!(Harq::new(bad).is_err());
        }
    }

    /// Runs `frames` frames of 1040 bytes over Bernoulli(p) fragment loss.
    fn run_bernoulli(cfg: HarqConfig, p: f64, frames: u64, seed: u64) -> Measurement {
        measure(&LinkLayerConfig::Harq(cfg), Some(&Bernoulli::new(p).unwrap()), LossMode::Packet, frames, 1040, seed).unwrap()
    }

    #[test]
    fn bernoulli_residual_known_answers() {
        // Fixed p̂ = p (gain 0), so n is the same for every frame. One attempt: residual =
        // P(Binomial(n, 1 − p) < k). Two attempts: Σ_{r<k} P(first brings r)·P(Binomial(s(k−r),
        // 1 − p) < k − r). Within 5 binomial standard errors of 200 000 frames.
        let frames = 200_000u64;
        for p in [0.1, 0.3, 0.5] {
            for sizing in [Sizing::Mean, Sizing::Quantile { target: 0.9 }] {
                let mut h = Harq::new(fixed_p(p, 2, sizing)).unwrap();
                let (k, _, _) = h.fragments_of(1040);
                let n = h.to_send(k);
                let first = binom(n, 1.0 - p);
                let one = below(n, 1.0 - p, k);
                let two: f64 = (0..k).map(|r| first[r as usize] * below(h.to_send(k - r), 1.0 - p, k - r)).sum();
                for (attempts, want) in [(1, one), (2, two)] {
                    let m = run_bernoulli(fixed_p(p, attempts, sizing), p, frames, 21);
                    let got = m.stats.residual_loss_rate().unwrap();
                    let se = (want * (1.0 - want) / frames as f64).sqrt();
                    println!("p {p} {sizing:?} k {k} n {n} attempts {attempts}: residual {got:.5} vs {want:.5}");
                    assert!((got - want).abs() <= 5.0 * se.max(1.0 / frames as f64), "p {p} {sizing:?} {attempts}: {got} vs {want}");
                    // n fragments on every first attempt: k data, n − k PFEC.
                    let fec = m.stats.fec;
                    assert_eq!((fec.data_sent.fragments, fec.pfec_sent.fragments), (k as u64 * frames, (n - k) as u64 * frames));
                    assert!(m.stats.raw_loss_rate().unwrap() > p - 0.01 && m.stats.raw_loss_rate().unwrap() < p + 0.01);
                }
            }
        }
    }

    #[test]
    fn ber_residual_known_answers_and_fragments_beat_frames() {
        // Bit errors at rate BER: a fragment of f bytes + 4 header bytes is lost with
        // q = 1 − (1 − BER)^(8·(f + 4)), far less often than the whole frame. With p̂ fixed
        // at q (gain 0) the residual is the binomial known answer of
        // `bernoulli_residual_known_answers` at q; within 5 standard errors. The same
        // channel costs ARQ a whole frame per loss: p = 1 − (1 − BER)^(8·1040).
        let frames = 200_000u64;
        for ber in [5e-5, 2e-4] {
            let model = crate::loss::BitErrors::new(ber, 1000, 0).unwrap();
            let probe = Harq::new(fixed_p(0.0, 1, Sizing::Mean)).unwrap().fragments_of(1040);
            let q = 1.0 - (1.0 - ber).powi(8 * (probe.1 as i32 + 4));
            let frame = 1.0 - (1.0 - ber).powi(8 * 1040);
            assert!(q < frame / 5.0, "a fragment ({q}) loses far less than a frame ({frame})");
            for sizing in [Sizing::Mean, Sizing::Quantile { target: 0.9 }] {
                let mut h = Harq::new(fixed_p(q, 2, sizing)).unwrap();
                let (k, _, _) = h.fragments_of(1040);
                let n = h.to_send(k);
                let first = binom(n, 1.0 - q);
                let one = below(n, 1.0 - q, k);
                let two: f64 = (0..k).map(|r| first[r as usize] * below(h.to_send(k - r), 1.0 - q, k - r)).sum();
                for (attempts, want) in [(1, one), (2, two)] {
                    let cfg = LinkLayerConfig::Harq(fixed_p(q, attempts, sizing));
                    let m = measure(&cfg, Some(&model), LossMode::Packet, frames, 1040, 23).unwrap();
                    let got = m.stats.residual_loss_rate().unwrap();
                    let raw = m.stats.raw_loss_rate().unwrap();
                    println!("BER {ber:e} {sizing:?} k {k} n {n} attempts {attempts}: fragment loss {raw:.5} / {q:.5}, residual {got:.6} / {want:.6} (frame loss {frame:.4})");
                    let se = (want * (1.0 - want) / frames as f64).sqrt();
                    assert!((got - want).abs() <= 5.0 * se.max(1.0 / frames as f64), "BER {ber} {sizing:?} {attempts}: {got} vs {want}");
                    let se_q = (q * (1.0 - q) / m.stats.units_sent as f64).sqrt();
                    assert!((raw - q).abs() <= 5.0 * se_q, "fragment loss {raw} vs {q}");
                }
            }
        }
    }

    #[test]
    fn pfec_wasted_known_answer() {
        // One attempt, Bernoulli p: D ~ Bin(k, 1 − p) data and F ~ Bin(n − k, 1 − p) PFEC
        // arrive; wasted PFEC = D + F − k when D + F ≥ k, else F (a dropped frame).
        let (p, frames) = (0.3, 200_000u64);
        let cfg = fixed_p(p, 1, Sizing::Quantile { target: 0.9 });
        let mut h = Harq::new(cfg.clone()).unwrap();
        let (k, fbytes, _) = h.fragments_of(1040);
        let n = h.to_send(k);
        let (pd, pf) = (binom(k, 1.0 - p), binom(n - k, 1.0 - p));
        let (mut mean, mut m2) = (0.0, 0.0);
        for d in 0..=k {
            for f in 0..=(n - k) {
                let w = if d + f >= k { (d + f - k) as f64 } else { f as f64 };
                let pr = pd[d as usize] * pf[f as usize];
                mean += w * pr;
                m2 += w * w * pr;
            }
        }
        let m = run_bernoulli(cfg, p, frames, 5);
        let got = m.stats.fec.pfec_wasted.fragments as f64 / frames as f64;
        let se = ((m2 - mean * mean) / frames as f64).sqrt();
        assert!((got - mean).abs() < 5.0 * se, "{got} vs {mean}");
        assert_eq!(m.stats.fec.pfec_wasted.bytes, m.stats.fec.pfec_wasted.fragments * fbytes as u64);
        assert_eq!(m.stats.fec.rfec_sent.fragments, 0);
    }

    #[test]
    fn ewma_tracks_the_fragment_loss_rate() {
        // From p̂ = 0, gain 1/8 per attempt: after 20 000 frames p̂ is within 5 of its
        // stationary standard deviations of p: Var ≈ g/(2 − g)·p(1 − p)/n per attempt.
        for p in [0.05, 0.3] {
            let cfg = HarqConfig::new(AttemptTiming::fixed(NS_PER_MS));
            let m = run_bernoulli(cfg, p, 20_000, 8);
            let est = m.loss_estimate.unwrap();
            let per_attempt = m.stats.units_sent as f64 / m.stats.attempts as f64;
            let sd = (0.125 / 1.875 * p * (1.0 - p) / per_attempt).sqrt();
            assert!((est - p).abs() < 5.0 * sd, "p {p}: p̂ {est} (sd {sd})");
            // PFEC sent grows with the loss rate it was sized for.
            assert!(m.stats.fec.pfec_sent.fragments > 0);
        }
    }

    #[test]
    fn time_mode_a_bad_interval_kills_the_fragments_in_it() {
        // 1 ms slots, [1, 2) ms bad. k = 8 fragments of 0.25 ms, n = 12 (mean rule at
        // p̂ = 1/3), no overhead: fragments 4-7 fall in the bad slot, 8 of 12 arrive: the
        // frame decodes in one attempt with no surplus.
        let trace = BitTrace::from_str01("1011111111").unwrap();
        let replay = Replay::new(trace, Some(NS_PER_MS), EndBehavior::Deliver).unwrap();
        let timing = AttemptTiming { rate_bps: 8_000_000, ..AttemptTiming::fixed(0) };
        let cfg = HarqConfig {
            fragment_bytes: 250,
            fragment_header_bytes: 0,
            sizing: Sizing::Mean,
            ewma_gain: 0.0,
            initial_loss: 1.0 / 3.0,
            ..HarqConfig::new(timing)
        };
        let mut h = Harq::new(cfg).unwrap();
        let mut ch = LossSource::Own { model: Box::new(replay), rng: from_seed(0), mode: LossMode::Time };
        let s = h.serve(0, 2000, &mut ch, &mut from_seed(0));
        assert_eq!(s, Service { start: 0, end: 3 * NS_PER_MS, delivered: true, attempts: 1 });
        assert_eq!((h.stats.units_sent, h.stats.units_lost), (12, 4));
        assert_eq!((h.stats.fec.pfec_sent.fragments, h.stats.fec.pfec_wasted.fragments), (4, 0));
        // A bad period of two slots, [1, 3) ms: fewer than 8 arrive and the RFEC round
        // brings the rest.
        let trace = BitTrace::from_str01("10011111111").unwrap();
        let replay = Replay::new(trace, Some(NS_PER_MS), EndBehavior::Deliver).unwrap();
        let mut ch = LossSource::Own { model: Box::new(replay), rng: from_seed(0), mode: LossMode::Time };
        let s = h.serve(0, 2000, &mut ch, &mut from_seed(0));
        // First attempt: fragments 4-11 ([1, 3) ms) lost, 4 arrive; 4 missing → RFEC
        // ⌈4·3/2⌉ = 6 fragments from 3 ms, all good: decoded with a surplus of 2.
        assert_eq!(s, Service { start: 0, end: 4_500_000, delivered: true, attempts: 2 });
        assert_eq!((h.stats.fec.rfec_sent.fragments, h.stats.fec.rfec_wasted.fragments), (6, 2));
    }

    fn row(name: &str, m: &Measurement) {
        let st = &m.stats;
        println!(
            "{name:>8}: raw {:.4} residual {:.5} mean latency {:>7.1} µs p99 {:>7.1} µs MAC {:.3} Mb/s",
            st.raw_loss_rate().unwrap(),
            st.residual_loss_rate().unwrap(),
            st.latency.mean().unwrap() / 1e3,
            st.latency.quantile_clamped(0.99).unwrap() as f64 / 1e3,
            m.throughput_bps() / 1e6
        );
    }

    /// (ARQ with `attempts` attempts, LL-HARQ with its defaults and `attempts` attempts),
    /// 802.11b timing without backoff, 1040-byte frames. Also checks LL-HARQ's 99th
    /// percentile latency against ARQ with 15 attempts (Subramanian et al.'s LL-ARQ).
    fn arq_and_harq(model: &dyn LossModel, mode: LossMode, attempts: u32, frames: u64) -> (Measurement, Measurement) {
        let dcf = Dcf::b11();
        let arq = |a: u32| {
            let cfg = ArqConfig { limit: a, counts: LimitCounts::Attempts, timing: dcf.timing(false), adapt: None };
            measure(&LinkLayerConfig::Arq(cfg), Some(model), mode, frames, 1040, 3).unwrap()
        };
        let harq = HarqConfig { attempts, ..HarqConfig::new(dcf.timing(false)) };
        let (a, a15) = (arq(attempts), arq(15));
        let h = measure(&LinkLayerConfig::Harq(harq), Some(model), mode, frames, 1040, 3).unwrap();
        row(&format!("ARQ-{attempts}"), &a);
        row("ARQ-15", &a15);
        row(&format!("HARQ-{attempts}"), &h);
        assert!(h.stats.latency.quantile_clamped(0.99) < a15.stats.latency.quantile_clamped(0.99), "p99 latency against ARQ-15");
        (a, h)
    }

    /// `x` exceeds `y` by more than 5 standard errors of the difference of two proportions.
    fn clearly_above(x: f64, y: f64, n: u64) -> bool {
        x - y > 5.0 * ((x * (1.0 - x) + y * (1.0 - y)) / n as f64).sqrt()
    }

    /// Mean latency of `a` exceeds `b`'s by more than 5 standard errors, each standard
    /// deviation bounded by half the range (Popoviciu's inequality).
    fn clearly_slower(a: &Measurement, b: &Measurement) -> bool {
        let se = |m: &Measurement| {
            let l = &m.stats.latency;
            (l.max().unwrap() - l.min().unwrap()) as f64 / 2.0 / (l.count() as f64).sqrt()
        };
        a.stats.latency.mean().unwrap() - b.stats.latency.mean().unwrap() > 5.0 * (se(a).powi(2) + se(b).powi(2)).sqrt()
    }

    #[test]
    fn harq_vs_arq_same_attempts_packet_mode() {
        // Subramanian et al. slides 11 and 16: LL-HARQ with 2 attempts against ARQ with 2.
        // Same raw loss per transmission unit (Bernoulli per ARQ attempt and per HARQ
        // fragment): the residual loss is far lower (p² against a binomial tail), but a
        // first attempt carries the PFEC, so the mean latency is higher here.
        let frames = 100_000;
        for p in [0.1, 0.3, 0.5] {
            println!("Bernoulli {p} per unit, packet mode:");
            let (a, h) = arq_and_harq(&Bernoulli::new(p).unwrap(), LossMode::Packet, 2, frames);
            let (ra, rh) = (a.stats.residual_loss_rate().unwrap(), h.stats.residual_loss_rate().unwrap());
            assert!(clearly_above(ra, rh, frames), "p {p}: HARQ {rh} vs ARQ {ra}");
            assert!(clearly_slower(&h, &a), "p {p}: at equal loss per unit the PFEC costs air time");
        }
    }

    #[test]
    fn harq_beats_arq_on_short_error_bursts_in_time_mode() {
        // Interference as short error events in time (ON/OFF with 2 µs bad periods every
        // 1-5 ms on average, time mode): a 1.2 ms ARQ attempt is hit far more often than a
        // 76 µs fragment, so LL-HARQ with 2 attempts has both the lower residual loss and
        // the lower latency, mean and 99th percentile, as in Subramanian et al. slide 16.
        let frames = 50_000;
        for good in [0.005, 0.002, 0.001] {
            println!("ON/OFF good {good} s, bad 2 µs, time mode:");
            let model = crate::loss::on_off(good, 2e-6, NS_PER_MS).unwrap();
            let (a, h) = arq_and_harq(&model, LossMode::Time, 2, frames);
            let (ra, rh) = (a.stats.residual_loss_rate().unwrap(), h.stats.residual_loss_rate().unwrap());
            assert!(clearly_above(ra, rh, frames), "good {good}: residual HARQ {rh} vs ARQ {ra}");
            assert!(clearly_slower(&a, &h), "good {good}: mean latency");
            assert!(h.stats.latency.quantile_clamped(0.99) < a.stats.latency.quantile_clamped(0.99));
        }
    }

    #[test]
    fn long_bursts_cost_harq_its_latency_advantage() {
        // Bursts longer than a frame (ON/OFF, 2 ms bad every 20 ms on average): a burst
        // takes whole attempts of both, HARQ still ends with less residual loss, but its
        // PFEC makes it slower. docs/link-layer.md discusses the three regimes.
        let frames = 50_000;
        let model = crate::loss::on_off(0.02, 0.002, NS_PER_MS).unwrap();
        println!("ON/OFF good 20 ms, bad 2 ms, time mode:");
        let (a, h) = arq_and_harq(&model, LossMode::Time, 2, frames);
        let (ra, rh) = (a.stats.residual_loss_rate().unwrap(), h.stats.residual_loss_rate().unwrap());
        assert!(clearly_above(ra, rh, frames), "residual HARQ {rh} vs ARQ {ra}");
        assert!(clearly_slower(&h, &a));
    }
}
