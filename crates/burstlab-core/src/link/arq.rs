//! Link-layer ARQ, as the IEEE 802.11 MAC does it (Barsocchi et al. §I, §II.B; Subramanian
//! et al. slides 6-8): the head frame is sent, and sent again after each failed attempt,
//! until it gets through or the attempt limit is reached; a frame that exhausts the limit
//! is dropped (a residual loss). The link serves nothing else meanwhile (head-of-line
//! blocking), so one call of [`Arq::serve`] per frame at its service start gives the
//! whole service: O(attempts), no allocation, no event per attempt.
//!
//! The retry limit's meaning is explicit ([`LimitCounts`]). IEEE 802.11's
//! dot11ShortRetryLimit (default 7; dot11LongRetryLimit, default 4, for frames longer than
//! dot11RTSThreshold) is defined in the MIB as "the maximum number of transmission attempts
//! of a frame" before a failure is indicated, so the standard's 7 is 7 attempts (ns-3's
//! `WifiMac::FrameRetryLimit` reads it the same way); Subramanian et al.'s "ARQ = 7, 15,
//! 25" count attempts too ("the residual loss rates (after 15 attempts)"). burstlab's
//! default counts retries: limit R gives R + 1 attempts, the convention of the
//! closed forms (residual loss p^(R+1)).
use super::adapt::{Adaptive, RateAdaptConfig};
use super::attempt::{AttemptTiming, LinkStats, Span};
use super::{Channel, Service, Unit};
use crate::rng::Rng;
use crate::time::Nanos;
use crate::Error;

crate::named_enum!(
    /// How the retry limit counts.
    LimitCounts, "counts" {
        /// Limit R = retransmissions after the first attempt: R + 1 attempts.
        Retries = "retries",
        /// Limit = transmission attempts in all (IEEE 802.11's dot11ShortRetryLimit).
        Attempts = "attempts",
    }
);


/// Largest number of attempts per frame (the attempts histogram has one bin per count).
pub const MAX_ATTEMPTS: u32 = 4096;

crate::params! {
    /// An ARQ hop's own settings: `ArqParams::PARAMS` gives the `arq:` spec keys, Python's
    /// `Arq` fields, the TOML keys and `docs/parameters.md` (the attempt timing's are
    /// `AttemptParams`, the rate adaptation's `RateAdaptParams`).
    pub struct ArqParams {
        arq retry_limit: u32 [u32] = 7, "", max MAX_ATTEMPTS,
            "Retry limit: retransmissions after the first attempt (counts = retries: R + 1 attempts) or attempts in all (counts = attempts).",
            "IEEE 802.11 dot11ShortRetryLimit; Subramanian et al. slide 7";
        arq counts: LimitCounts [choice] = LimitCounts::Retries, "",
            "What retry_limit counts: retries (residual loss p^(R+1) on independent losses) or attempts (IEEE 802.11's dot11ShortRetryLimit, Subramanian et al.'s ARQ = 7, 15, 25).",
            "IEEE 802.11-2016 Annex C (dot11ShortRetryLimit)";
    }
    virtual {}
}

#[derive(Clone, Debug, PartialEq)]
pub struct ArqConfig {
    pub limit: u32,
    pub counts: LimitCounts,
    pub timing: AttemptTiming,
    /// 802.11 rate adaptation (`adapt.rs`): None = every attempt at `timing`'s rate.
    pub adapt: Option<RateAdaptConfig>,
}

impl ArqConfig {
    /// Retry limit R (R + 1 attempts) with the given attempt timing.
    pub fn retries(limit: u32, timing: AttemptTiming) -> Self {
        ArqConfig { limit, counts: LimitCounts::Retries, timing, adapt: None }
    }

    /// The same limit with the attempts' rates chosen by `adapt` (its fastest rate's
    /// timing becomes the hop's nominal one; `backoff` as 802.11's DCF or none).
    pub fn adaptive(limit: u32, counts: LimitCounts, adapt: RateAdaptConfig, backoff: bool) -> Self {
        ArqConfig { limit, counts, timing: adapt.fastest_timing(backoff), adapt: Some(adapt) }
    }

    /// The settings `params` with `timing` (no rate adaptation).
    pub fn from_params(params: &ArqParams, timing: AttemptTiming) -> Self {
        ArqConfig { limit: params.retry_limit, counts: params.counts, timing, adapt: None }
    }

    /// The hop's own settings as declared ([`ArqParams`]).
    pub fn params(&self) -> ArqParams {
        ArqParams { retry_limit: self.limit, counts: self.counts }
    }

    /// Attempts per frame at most (and the settings within their declared ranges).
    pub fn max_attempts(&self) -> crate::Result<u32> {
        let a = match self.counts {
            LimitCounts::Retries => self.limit.checked_add(1),
            LimitCounts::Attempts => Some(self.limit),
        };
        match a {
            Some(a) if (1..=MAX_ATTEMPTS).contains(&a) => self.params().check_ranges().map(|_| a),
            _ => Err(Error::param(
                "retry_limit",
                self.limit,
                &format!("a limit giving 1 to {MAX_ATTEMPTS} attempts (counts = {:?})", self.counts),
            )),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Arq {
    config: ArqConfig,
    max_attempts: u32,
    /// Payload air time and unit (bits on the air) of the last frame size seen (frame
    /// sizes repeat: data, ACKs).
    cached: (u32, Nanos, Unit),
    adaptive: Option<Box<Adaptive>>,
    pub stats: LinkStats,
}

impl Arq {
    pub fn new(config: ArqConfig) -> crate::Result<Self> {
        let max_attempts = config.max_attempts()?;
        config.timing.validate()?;
        let t = &config.timing;
        let cached = (0, t.payload_time(t.encapsulation_bytes as u64), Self::unit_of(t, 0));
        let adaptive = config.adapt.clone().map(Adaptive::new).transpose()?.map(Box::new);
        let mut stats = LinkStats::new(max_attempts);
        if let Some(a) = &adaptive {
            stats.rates = a.rate_counts();
        }
        Ok(Arq { stats, config, max_attempts, cached, adaptive })
    }

    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The frame on the air as the channel sees it: MAC header + FCS, encapsulation and
    /// the frame, in the timing's PHY mode (None: the channel's own).
    fn unit_of(t: &AttemptTiming, frame_bytes: u32) -> Unit {
        Unit { mode: t.mode, ..Unit::bytes(frame_bytes as u64 + t.encapsulation_bytes as u64 + t.header_bytes as u64) }
    }

    #[inline]
    fn payload_time(&mut self, frame_bytes: u32) -> (Nanos, Unit) {
        if self.cached.0 != frame_bytes {
            let t = &self.config.timing;
            self.cached = (frame_bytes, t.payload_time(frame_bytes as u64 + t.encapsulation_bytes as u64), Self::unit_of(t, frame_bytes));
        }
        (self.cached.1, self.cached.2)
    }

    /// Serve one frame whose service starts at `start`: attempt after attempt (each one
    /// idle + backoff, then `overhead + payload` on the channel, whose fate `ch` decides
    /// for that interval) until one gets through or the limit is reached.
    #[inline]
    pub fn serve<C: Channel>(&mut self, start: Nanos, frame_bytes: u32, ch: &mut C, rng: &mut Rng) -> Service {
        if let Some(a) = &mut self.adaptive {
            return a.serve(start, frame_bytes, self.max_attempts, &self.config.timing, ch, rng, &mut self.stats);
        }
        let (payload, unit) = self.payload_time(frame_bytes);
        let timing = self.config.timing;
        let max = self.max_attempts;
        let mut t = start;
        let mut attempts = 0;
        let delivered = if let (Span::Fixed(o), None) = (timing.overhead, timing.backoff) {
            // Every attempt the same length: no draw, one histogram update per frame.
            let (idle, on_air) = (timing.idle, o + payload);
            let delivered = loop {
                let s = t + idle;
                let lost = ch.attempt_lost(s, s + on_air, unit);
                t = s + on_air;
                attempts += 1;
                if !lost || attempts == max {
                    break !lost;
                }
            };
            self.stats.attempt_time.record_n(idle + on_air, attempts as u64);
            delivered
        } else {
            loop {
                let begin = t;
                t += timing.before(attempts, rng);
                let on_air = timing.overhead.draw(rng) + payload;
                let lost = ch.attempt_lost(t, t + on_air, unit);
                t += on_air;
                attempts += 1;
                self.stats.attempt_time.record(t - begin);
                if !lost || attempts == max {
                    break !lost;
                }
            }
        };
        self.stats.units_sent += attempts as u64;
        self.stats.units_lost += (attempts - delivered as u32) as u64;
        let s = Service { start, end: t, delivered, attempts };
        self.stats.frame(&s);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::layer::{measure, Backoff, LinkLayerConfig};
    use crate::link::{LossMode, LossSource};
    use crate::loss::{Bernoulli, EndBehavior, GilbertElliott, LossModel, Replay};
    use crate::rng::from_seed;
    use crate::time::{NS_PER_MS, NS_PER_US};
    use crate::trace::parse::parse_ttem;

    /// A scripted channel: the listed attempt fates in order (then delivered), and the
    /// intervals it was asked about.
    struct Script {
        fates: Vec<bool>,
        asked: Vec<(Nanos, Nanos)>,
    }

    impl Channel for Script {
        fn attempt_lost(&mut self, s: Nanos, e: Nanos, _unit: Unit) -> bool {
            self.asked.push((s, e));
            self.fates.get(self.asked.len() - 1).copied().unwrap_or(false)
        }
    }

    #[test]
    fn limit_conventions() {
        let t = AttemptTiming::fixed(1000);
        assert_eq!(ArqConfig::retries(7, t).max_attempts(), Ok(8));
        assert_eq!(ArqConfig::retries(0, t).max_attempts(), Ok(1));
        let c = ArqConfig { limit: 7, counts: LimitCounts::Attempts, timing: t, adapt: None };
        assert_eq!(c.max_attempts(), Ok(7));
        let zero = ArqConfig { limit: 0, counts: LimitCounts::Attempts, timing: t, adapt: None };
        assert!(zero.max_attempts().unwrap_err().to_string().contains("retry_limit = 0"));
        assert!(ArqConfig::retries(u32::MAX, t).max_attempts().is_err());
        assert!(LimitCounts::parse("tries").unwrap_err().to_string().contains("counts = tries"));
        let bad = ArqConfig::retries(3, AttemptTiming::uniform(10, 5));
        assert!(Arq::new(bad).unwrap_err().to_string().contains("attempt_time = 10"));
    }

    #[test]
    fn serve_fixed_attempts_step_by_step() {
        // 1 ms per attempt, retry limit 2 (3 attempts): lost, lost, delivered.
        let mut a = Arq::new(ArqConfig::retries(2, AttemptTiming::fixed(NS_PER_MS))).unwrap();
        let mut r = from_seed(1);
        let mut ch = Script { fates: vec![true, true, false], asked: vec![] };
        let s = a.serve(5 * NS_PER_MS, 1000, &mut ch, &mut r);
        assert_eq!(s, Service { start: 5 * NS_PER_MS, end: 8 * NS_PER_MS, delivered: true, attempts: 3 });
        assert_eq!(ch.asked, vec![(5_000_000, 6_000_000), (6_000_000, 7_000_000), (7_000_000, 8_000_000)]);
        // Three losses in a row exhaust the limit: dropped after 3 attempts.
        let mut ch = Script { fates: vec![true; 5], asked: vec![] };
        let s = a.serve(8 * NS_PER_MS, 1000, &mut ch, &mut r);
        assert_eq!(s, Service { start: 8 * NS_PER_MS, end: 11 * NS_PER_MS, delivered: false, attempts: 3 });
        let st = &a.stats;
        assert_eq!((st.frames, st.delivered, st.dropped), (2, 1, 1));
        assert_eq!((st.attempts, st.failed_attempts, st.units_sent, st.units_lost), (6, 5, 6, 5));
        assert_eq!(st.attempts_per_frame, vec![0, 0, 0, 2]);
        assert_eq!((st.attempt_time.min(), st.attempt_time.max()), (Some(NS_PER_MS), Some(NS_PER_MS)));
        assert_eq!(st.latency.quantile_clamped(0.5), Some(3 * NS_PER_MS));
        assert_eq!(st.residual_loss_rate(), Some(0.5));
    }

    #[test]
    fn timing_parts_and_backoff_windows() {
        // idle 50 µs, overhead 400 µs, payload (1000 + 8) bytes at 8 Mb/s = 1008 µs.
        let timing = AttemptTiming {
            idle: 50 * NS_PER_US,
            overhead: Span::Fixed(400 * NS_PER_US),
            rate_bps: 8_000_000,
            encapsulation_bytes: 8,
            header_bytes: 0,
            backoff: None,
            symbol: 0,
            mode: None,
        };
        let mut a = Arq::new(ArqConfig::retries(1, timing)).unwrap();
        let mut ch = Script { fates: vec![true], asked: vec![] };
        let s = a.serve(0, 1000, &mut ch, &mut from_seed(0));
        // The channel is asked about the air time only, after the idle part.
        assert_eq!(ch.asked, vec![(50_000, 1_458_000), (1_508_000, 2_916_000)]);
        assert_eq!(s.end, 2_916_000);
        // Binary exponential backoff: 31, 63, …, 1023, then capped.
        let b = Backoff::DSSS;
        let w: Vec<u32> = (0..8).map(|i| b.window(i)).collect();
        assert_eq!(w, vec![31, 63, 127, 255, 511, 1023, 1023, 1023]);
        assert_eq!(b.window(100), 1023);
        assert!(Backoff::new(64, 32, 1).unwrap_err().to_string().contains("cw_min = 64"));
        // Draws are whole slots within the window, with the window's mean.
        let mut r = from_seed(3);
        let n = 200_000;
        let draws: Vec<Nanos> = (0..n).map(|_| b.draw(1, &mut r)).collect();
        assert!(draws.iter().all(|&d| d % b.slot == 0 && d <= 63 * b.slot));
        let mean = draws.iter().sum::<u64>() as f64 / n as f64;
        // Uniform on {0..63} slots: sd = slot·sqrt((64² − 1)/12); 5 standard errors.
        let sd = b.slot as f64 * ((64.0f64 * 64.0 - 1.0) / 12.0).sqrt();
        assert!((mean - b.mean(1)).abs() < 5.0 * sd / (n as f64).sqrt(), "{mean} vs {}", b.mean(1));
    }

    /// Truncated geometric attempts A = min(G, R + 1), G ~ Geometric(1 − p) on {1, 2, …}:
    /// (E[A], Var[A]).
    fn attempts_moments(p: f64, attempts: u32) -> (f64, f64) {
        let (mut m1, mut m2) = (0.0, 0.0);
        for j in 1..=attempts {
            let pj = if j < attempts { p.powi(j as i32 - 1) * (1.0 - p) } else { p.powi(j as i32 - 1) };
            m1 += j as f64 * pj;
            m2 += (j as f64).powi(2) * pj;
        }
        (m1, m2 - m1 * m1)
    }

    #[test]
    fn bernoulli_residual_and_mean_attempts_closed_forms() {
        // Issue 10's grid: residual loss p^(R+1) and mean attempts (1 − p^(R+1))/(1 − p),
        // each within 5 standard errors of N frames.
        let n = 200_000u64;
        println!("   p    R   residual (meas / p^(R+1))        mean attempts (meas / closed form)");
        for p in [0.1, 0.3, 0.5, 0.7] {
            for r in [0u32, 1, 7, 15, 25] {
                let cfg = LinkLayerConfig::Arq(ArqConfig::retries(r, AttemptTiming::fixed(NS_PER_MS)));
                let seed = (p * 10.0) as u64 * 100 + r as u64;
                let m = measure(&cfg, Some(&Bernoulli::new(p).unwrap()), LossMode::Packet, n, 1000, seed).unwrap();
                let st = &m.stats;
                let resid = p.powi(r as i32 + 1);
                let mean_a = (1.0 - resid) / (1.0 - p);
                let (ea, va) = attempts_moments(p, r + 1);
                assert!((ea - mean_a).abs() < 1e-12);
                let got_r = st.residual_loss_rate().unwrap();
                let got_a = st.mean_attempts().unwrap();
                println!("{p:5} {r:4}   {got_r:.6} / {resid:.6}   {got_a:.5} / {mean_a:.5}");
                let se_r = (resid * (1.0 - resid) / n as f64).sqrt();
                assert!((got_r - resid).abs() <= 5.0 * se_r, "p {p} R {r}: residual {got_r} vs {resid}");
                assert!((got_a - mean_a).abs() <= 5.0 * (va / n as f64).sqrt(), "p {p} R {r}: attempts {got_a} vs {mean_a}");
                // The attempts histogram agrees with the counters; latency = attempts × 1 ms.
                let hist_total: u64 = st.attempts_per_frame.iter().enumerate().map(|(a, c)| a as u64 * c).sum();
                assert_eq!(hist_total, st.attempts);
                assert_eq!(st.attempts_per_frame.iter().sum::<u64>(), n);
                // Dropped frames used every attempt.
                assert!(st.attempts_per_frame[r as usize + 1] >= st.dropped);
                assert_eq!(st.latency.sum(), st.attempts * NS_PER_MS);
                assert_eq!(m.duration, st.latency.sum());
            }
        }
    }

    #[test]
    fn ber_residual_depends_on_frame_size_closed_form() {
        // Bit errors at rate BER: an attempt of a frame of B bytes (+ 8 LLC/SNAP + 28 MAC
        // header and FCS, 802.11's) is lost with p_B = 1 − (1 − BER)^(8·(B + 36)), so the
        // residual loss is p_B^(R+1) and the mean attempts (1 − p_B^(R+1))/(1 − p_B): each
        // size its own binomial known answer, within 5 standard errors of N frames.
        let n = 200_000u64;
        let d = crate::link::wifi::Dcf::b11();
        for ber in [2e-5, 1e-4] {
            let model = crate::loss::BitErrors::new(ber, 1000, 0).unwrap();
            for (bytes, r) in [(40u32, 0u32), (1000, 1), (1000, 3), (1460, 3)] {
                let p = 1.0 - (1.0 - ber).powi(8 * (bytes as i32 + 36));
                let resid = p.powi(r as i32 + 1);
                let mean_a = (1.0 - resid) / (1.0 - p);
                let (_, va) = attempts_moments(p, r + 1);
                for mode in [LossMode::Packet, LossMode::Time] {
                    let cfg = LinkLayerConfig::Arq(ArqConfig::retries(r, d.timing(false)));
                    let m = measure(&cfg, Some(&model), mode, n, bytes, 17 + bytes as u64).unwrap();
                    let (got_r, got_a) = (m.stats.residual_loss_rate().unwrap(), m.stats.mean_attempts().unwrap());
                    println!("BER {ber:e} {bytes} B R {r} {mode:?}: raw {:.5} / {p:.5} residual {got_r:.6} / {resid:.6} attempts {got_a:.4} / {mean_a:.4}",
                        m.stats.raw_loss_rate().unwrap());
                    let se_r = (resid * (1.0 - resid) / n as f64).sqrt();
                    assert!((got_r - resid).abs() <= 5.0 * se_r, "BER {ber} {bytes} R {r}: residual {got_r} vs {resid}");
                    assert!((got_a - mean_a).abs() <= 5.0 * (va / n as f64).sqrt(), "BER {ber} {bytes} R {r}: attempts {got_a} vs {mean_a}");
                }
            }
        }
    }

    /// Residual loss and mean attempts of ARQ over a Gilbert-Elliott channel in packet mode
    /// (attempts are consecutive steps of the chain, frames back to back), from the Markov
    /// chain: with P the 2×2 transition matrix, L = P·diag(h_G, h_B) (step and lose) and
    /// S = P·diag(1 − h_G, 1 − h_B) (step and deliver), a frame starting after state row
    /// vector v ends dropped with v·L^A·1 and the state after the frame is v·M with
    /// M = L^A + Σ_{j<A} L^j·S. The long-run residual is w·L^A·1 for w the stationary
    /// law of M, and the mean attempts w·Σ_{j<A} L^j·1.
    fn ge_closed_form(b: f64, g: f64, h: f64, k: f64, attempts: u32) -> (f64, f64) {
        type M = [[f64; 2]; 2];
        let mul = |x: &M, y: &M| -> M {
            let mut z = [[0.0; 2]; 2];
            for i in 0..2 {
                for j in 0..2 {
                    z[i][j] = x[i][0] * y[0][j] + x[i][1] * y[1][j];
                }
            }
            z
        };
        let add = |x: &M, y: &M| -> M { [[x[0][0] + y[0][0], x[0][1] + y[0][1]], [x[1][0] + y[1][0], x[1][1] + y[1][1]]] };
        // State 0 = good, 1 = bad.
        let p: M = [[1.0 - b, b], [g, 1.0 - g]];
        let l = mul(&p, &[[k, 0.0], [0.0, h]]);
        let s = mul(&p, &[[1.0 - k, 0.0], [0.0, 1.0 - h]]);
        let mut lj: M = [[1.0, 0.0], [0.0, 1.0]];
        let mut sum_ls: M = [[0.0; 2]; 2];
        let mut sum_l: M = [[0.0; 2]; 2];
        for _ in 0..attempts {
            sum_ls = add(&sum_ls, &mul(&lj, &s));
            sum_l = add(&sum_l, &lj);
            lj = mul(&lj, &l);
        }
        let m = add(&lj, &sum_ls);
        // Stationary law of the 2-state chain M: w0 = M10 / (M01 + M10).
        let w = [m[1][0] / (m[0][1] + m[1][0]), m[0][1] / (m[0][1] + m[1][0])];
        let row = |x: &M, i: usize| x[i][0] + x[i][1];
        let resid = w[0] * row(&lj, 0) + w[1] * row(&lj, 1);
        let mean_a = w[0] * row(&sum_l, 0) + w[1] * row(&sum_l, 1);
        (resid, mean_a)
    }

    #[test]
    fn gilbert_elliott_residual_from_the_markov_chain() {
        // Bursty raw loss: ARQ retries inside a bad period, so the residual loss is far
        // above p^(R+1) at the same mean loss. Tolerance: 5 standard errors from 100 batch
        // means (frames are correlated through the chain).
        let n = 400_000u64;
        for (b, g, h, k) in [(0.05, 0.3, 1.0, 0.0), (0.1, 0.2, 0.9, 0.05), (0.02, 0.5, 1.0, 0.1)] {
            for r in [0u32, 1, 3, 7] {
                let (resid, mean_a) = ge_closed_form(b, g, h, k, r + 1);
                let model = GilbertElliott::new(b, g, h, k).unwrap();
                let mut arq = Arq::new(ArqConfig::retries(r, AttemptTiming::fixed(1000))).unwrap();
                let mut ch = LossSource::Own { model: Box::new(model.clone()), rng: from_seed(11), mode: LossMode::Packet };
                let mut rng = from_seed(12);
                let mut t = 0;
                let mut dropped = Vec::with_capacity(n as usize);
                let mut attempts = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let s = arq.serve(t, 1000, &mut ch, &mut rng);
                    t = s.end;
                    dropped.push(!s.delivered);
                    attempts.push(s.attempts as f64);
                }
                let got = arq.stats.residual_loss_rate().unwrap();
                println!(
                    "GE b {b} g {g} h {h} k {k} R {r}: residual {got:.5} vs {resid:.5}, attempts {:.4} vs {mean_a:.4}",
                    arq.stats.mean_attempts().unwrap()
                );
                let tol = crate::loss::batch_tolerance(&dropped, 5.0).max(5.0 * (resid * (1.0 - resid) / n as f64).sqrt());
                assert!((got - resid).abs() <= tol, "GE {b} {g} {h} {k} R {r}: residual {got} vs {resid} (± {tol})");
                let mean = arq.stats.mean_attempts().unwrap();
                let bm: Vec<f64> = attempts.chunks(n as usize / 100).map(|c| c.iter().sum::<f64>() / c.len() as f64).collect();
                let mu = bm.iter().sum::<f64>() / 100.0;
                let sd = (bm.iter().map(|x| (x - mu).powi(2)).sum::<f64>() / 99.0).sqrt();
                assert!((mean - mean_a).abs() <= 5.0 * sd / 10.0 + 1e-9, "GE R {r}: attempts {mean} vs {mean_a}");
                if r > 0 {
                    let pl = model.mean_loss().unwrap();
                    assert!(resid > pl.powi(r as i32 + 1), "bursty residual above the independent one");
                }
            }
        }
    }

    #[test]
    fn ttem_bad_interval_kills_the_attempts_in_it() {
        // Barsocchi et al.'s Ttem: channel state per 5 ms interval, 0 = good, 1 = bad (the
        // reader flips it to 1 = delivered). Slots: [0,5) good, [5,10) good, [10,15) bad,
        // [15,20) bad, then good. ARQ attempts of 1.2 ms (a 1000-byte frame at 11 Mb/s,
        // §III), back to back, time mode.
        let trace = parse_ttem(b"0\n0\n1\n1\n0\n0\n0\n0\n", "ch.ttem").unwrap();
        let replay = Replay::new(trace, Some(5 * NS_PER_MS), EndBehavior::Deliver).unwrap();
        let att = 1_200 * NS_PER_US;
        let run = |retries: u32| {
            let mut arq = Arq::new(ArqConfig::retries(retries, AttemptTiming::fixed(att))).unwrap();
            let mut ch = LossSource::Own { model: Box::new(replay.clone()), rng: from_seed(0), mode: LossMode::Time };
            let mut rng = from_seed(0);
            let mut t = 0;
            let mut out = vec![];
            while t < 30 * NS_PER_MS {
                let s = arq.serve(t, 1000, &mut ch, &mut rng);
                out.push(s);
                t = s.end;
            }
            (out, arq.stats)
        };
        // Retry limit 7 (8 attempts of 1.2 ms = 9.6 ms): frames 0-7 end by 9.6 ms; frame 8
        // starts at 9.6 ms, its first attempt [9.6, 10.8) overlaps the bad slot 2, and so do
        // all attempts up to the one starting at 19.2 ms; [20.4, 21.6) is the first clean
        // one, but the 8th attempt starts at 9.6 + 7·1.2 = 18.0 → [18.0, 19.2): lost. The
        // frame is dropped at 19.2 ms; frame 9's first attempt [19.2, 20.4) overlaps slot 3:
        // lost; its second [20.4, 21.6) is delivered.
        let (s7, st7) = run(7);
        assert!(s7[..8].iter().all(|s| s.delivered && s.attempts == 1));
        assert_eq!((s7[8].start, s7[8].end, s7[8].delivered, s7[8].attempts), (9_600_000, 19_200_000, false, 8));
        assert_eq!((s7[9].start, s7[9].end, s7[9].delivered, s7[9].attempts), (19_200_000, 21_600_000, true, 2));
        assert!(s7[10..].iter().all(|s| s.delivered && s.attempts == 1));
        assert_eq!((st7.dropped, st7.units_lost), (1, 9));
        // Retry limit 15 rides through the bad period: frame 8 takes 10 attempts (the 10th
        // is [20.4, 21.6)) and nothing is dropped.
        let (s15, st15) = run(15);
        assert_eq!((s15[8].end, s15[8].delivered, s15[8].attempts), (21_600_000, true, 10));
        assert_eq!((st15.dropped, st15.units_lost), (0, 9));
        // In packet mode the same trace is consumed one entry per attempt instead.
        let mut arq = Arq::new(ArqConfig::retries(0, AttemptTiming::fixed(att))).unwrap();
        let mut ch = LossSource::Own { model: Box::new(replay.clone()), rng: from_seed(0), mode: LossMode::Packet };
        let fates: Vec<bool> = (0..6).map(|i| arq.serve(i * att, 1000, &mut ch, &mut from_seed(0)).delivered).collect();
        assert_eq!(fates, vec![true, true, false, false, true, true]);
    }

    #[test]
    fn uniform_attempt_time_latency() {
        // Subramanian et al. slide 8: each attempt a uniform time in [min, max], no backoff.
        // Mean latency per frame = E[attempts]·(min + max)/2, attempt times within bounds.
        let (lo, hi) = (300 * NS_PER_US, 2_000 * NS_PER_US);
        let cfg = LinkLayerConfig::Arq(ArqConfig::retries(14, AttemptTiming::uniform(lo, hi)));
        let n = 100_000;
        let p = 0.5;
        let m = measure(&cfg, Some(&Bernoulli::new(p).unwrap()), LossMode::Packet, n, 1000, 3).unwrap();
        let st = &m.stats;
        assert!(st.attempt_time.min().unwrap() >= lo && st.attempt_time.max().unwrap() <= hi);
        let (ea, va) = attempts_moments(p, 15);
        let mu = (lo + hi) as f64 / 2.0;
        let var_t = ((hi - lo) as f64).powi(2) / 12.0;
        // Var of a random sum: E[A]·Var[T] + Var[A]·E[T]².
        let sd = (ea * var_t + va * mu * mu).sqrt();
        let got = st.latency.mean().unwrap();
        assert!((got - ea * mu).abs() < 5.0 * sd / (n as f64).sqrt(), "{got} vs {}", ea * mu);
    }

    #[test]
    fn saturated_mac_throughput_does_not_depend_on_the_retry_limit() {
        // Attempts of equal length, no backoff: every attempt is one step of the channel, so
        // a saturated link delivers (1 − raw loss) frames per attempt time whatever the
        // limit — Subramanian et al.'s Fig. 1a rise of MAC throughput with persistence is
        // TCP offering more load when residual losses fall, not a MAC effect.
        let n = 200_000;
        let p = 0.4;
        let want = (1.0 - p) * 1000.0; // frames per second at 1 ms per attempt
        for r in [6, 14, 24] {
            let cfg = LinkLayerConfig::Arq(ArqConfig::retries(r, AttemptTiming::fixed(NS_PER_MS)));
            let m = measure(&cfg, Some(&Bernoulli::new(p).unwrap()), LossMode::Packet, n, 1000, 5).unwrap();
            // Delivered per attempt is a Bernoulli(1 − p) mean over the attempts made.
            let se = (p * (1.0 - p) / m.stats.attempts as f64).sqrt() * 1000.0;
            assert!((m.frames_per_second() - want).abs() < 5.0 * se, "R {r}: {} vs {want}", m.frames_per_second());
        }
    }

    #[test]
    fn higher_retry_limit_lower_residual_higher_latency() {
        // Subramanian et al. Fig. 1 and slide 6: persistence 7 → 15 → 25 (attempts) lowers
        // the residual loss and raises the latency, on a bursty channel (Gilbert-Elliott
        // with mean bursts of 5 attempts, 40 % raw loss) with attempt times uniform in
        // [0.3, 2] ms. Each step must exceed 5 standard errors of the difference.
        let n = 200_000;
        let ge = GilbertElliott::new(0.1333, 0.2, 1.0, 0.0).unwrap();
        let runs: Vec<_> = [7u32, 15, 25]
            .iter()
            .map(|&a| {
                let cfg =
                    ArqConfig { limit: a, counts: LimitCounts::Attempts, timing: AttemptTiming::uniform(300 * NS_PER_US, 2 * NS_PER_MS), adapt: None };
                measure(&LinkLayerConfig::Arq(cfg), Some(&ge), LossMode::Packet, n, 1000, 9).unwrap()
            })
            .collect();
        for (a, m) in [7, 15, 25].iter().zip(&runs) {
            let l = &m.stats.latency;
            println!(
                "{a:>2} attempts: residual {:.5} latency mean {:.3} ms p99.9 {:.2} ms max {:.2} ms, MAC {:.0} frames/s",
                m.stats.residual_loss_rate().unwrap(),
                l.mean().unwrap() / 1e6,
                l.quantile(0.999).unwrap() as f64 / 1e6,
                l.max().unwrap() as f64 / 1e6,
                m.frames_per_second()
            );
        }
        for w in runs.windows(2) {
            let (a, b) = (&w[0].stats, &w[1].stats);
            let (ra, rb) = (a.residual_loss_rate().unwrap(), b.residual_loss_rate().unwrap());
            let se = ((ra * (1.0 - ra) + rb * (1.0 - rb)) / n as f64).sqrt();
            assert!(ra - rb > 5.0 * se, "residual {ra} → {rb}");
            let (la, lb) = (a.latency.mean().unwrap(), b.latency.mean().unwrap());
            assert!(lb > la, "latency {la} → {lb}");
            assert!(b.latency.quantile_clamped(0.999).unwrap() > a.latency.quantile_clamped(0.999).unwrap());
            assert!(b.latency.max().unwrap() > a.latency.max().unwrap());
        }
    }

    #[test]
    fn every_loss_model_in_both_modes() {
        // Each model the simulator offers, per attempt and in time: counters consistent,
        // residual ≤ raw loss for R ≥ 0 on independent or bursty channels alike.
        let ms = NS_PER_MS;
        let models: Vec<Box<dyn LossModel>> = vec![
            Box::new(Bernoulli::new(0.2).unwrap()),
            Box::new(GilbertElliott::new(0.05, 0.3, 1.0, 0.0).unwrap()),
            Box::new(crate::loss::on_off(0.05, 0.01, ms).unwrap()),
            Box::new(crate::loss::markov_ct(0.05, 0.01, 0.01, 0.8, ms).unwrap()),
            Box::new(crate::loss::DeterministicList::new(&[2, 3, 4], Some(10)).unwrap()),
            Box::new(Replay::new(crate::trace::BitTrace::from_str01("1101100111").unwrap(), Some(5 * ms), EndBehavior::Wrap).unwrap()),
        ];
        for m in &models {
            for mode in [LossMode::Packet, LossMode::Time] {
                let cfg = LinkLayerConfig::Arq(ArqConfig::retries(3, AttemptTiming::uniform(ms / 2, 2 * ms)));
                let r = measure(&cfg, Some(m.as_ref()), mode, 20_000, 1000, 1).unwrap();
                let st = &r.stats;
                assert_eq!(st.frames, 20_000);
                assert_eq!(st.delivered + st.dropped, st.frames);
                assert_eq!(st.units_sent, st.attempts);
                assert_eq!(st.units_lost, st.failed_attempts);
                assert_eq!(st.failed_attempts, st.attempts - st.delivered);
                assert!(st.units_lost > 0, "{} {mode:?}: some losses", m.name());
                assert!(st.residual_loss_rate().unwrap() <= st.raw_loss_rate().unwrap(), "{} {mode:?}", m.name());
                // Reproducible from the seed.
                let again = measure(&cfg, Some(m.as_ref()), mode, 20_000, 1000, 1).unwrap();
                assert_eq!(again.stats, r.stats);
            }
        }
        // No loss model: every frame in one attempt.
        let cfg = LinkLayerConfig::Arq(ArqConfig::retries(3, AttemptTiming::fixed(ms)));
        let r = measure(&cfg, None, LossMode::Packet, 100, 1000, 1).unwrap();
        assert_eq!((r.stats.delivered, r.stats.attempts, r.duration), (100, 100, 100 * ms));
        assert!(measure(&cfg, None, LossMode::Packet, 0, 1000, 1).unwrap_err().to_string().contains("frames = 0"));
    }
}
