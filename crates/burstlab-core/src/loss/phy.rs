//! A radio channel as a loss model: frames of a fixed PHY mode and length, lost with the
//! probability the PHY error-rate curves give at the SNR of the moment ([`crate::phy`]);
//! the SNR comes from a constant, fading, shadowing, a two-state (good/bad SNR) chain or a
//! trace ([`Snr`]). So burstiness (the SNR's dynamics) and size/rate dependence (the curve)
//! compose: the same SNR trace loses more 1 500-byte frames at 11 Mb/s than 100-byte ones at
//! 1 Mb/s (docs/phy.md).
//!
//! Time: in time mode a frame sees the SNR at the start of its transmission; in packet mode
//! packet n is at n · `interval`. Between frames the SNR process moves by the elapsed time
//! exactly (fading blocks are redrawn when a frame falls in a new block; shadowing is an
//! AR(1) Gauss-Markov process in dB updated over the gap), so frames that never happen cost
//! no draws.
use super::{LossModel, Unit};
use crate::phy::{ErrorModel, PerTable, PhyMode};
use crate::rng::{uniform, Rng};
use crate::time::Nanos;
use crate::Error;
use rand_distr::{Distribution, StandardNormal};

/// Small-scale fading of the received power, redrawn once per coherence block.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fading {
    None,
    /// Rayleigh: power gain exponential with mean 1 (no line of sight).
    Rayleigh,
    /// Ricean with K-factor `k` (line-of-sight power ÷ scattered power), mean power 1.
    Ricean { k: f64 },
}

/// Where the SNR (dB) comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Snr {
    /// Mean SNR with optional block fading (`coherence` ns per block) and log-normal
    /// shadowing (standard deviation `sigma_db`, correlation time `tau`).
    Process { mean_db: f64, fading: Fading, coherence: Nanos, sigma_db: f64, tau: Nanos },
    /// Two states with their own SNR (a bad state as a low SNR), exponential sojourns of
    /// mean `mean_good` / `mean_bad` ns: Gilbert-Elliott in time, at the PHY.
    TwoState { good_db: f64, bad_db: f64, mean_good: Nanos, mean_bad: Nanos },
    /// Measured SNR (dB) held from each time (ns, increasing from 0) to the next, the last
    /// until `end` (ns, after the last time); from `end` on the trace starts again (`wrap`)
    /// or holds its last value.
    Trace { times: Vec<Nanos>, db: Vec<f64>, end: Nanos, wrap: bool },
}

#[derive(Clone, Debug)]
struct State {
    /// Time of the last frame (ns).
    now: Nanos,
    /// Fading block index and its linear power gain.
    block: u64,
    gain: f64,
    /// Shadowing offset (dB).
    shadow_db: f64,
    /// Two-state: in the bad state, and when the current sojourn ends.
    bad: bool,
    until: Nanos,
    /// Trace cursor.
    cursor: usize,
    started: bool,
}

impl State {
    fn new() -> Self {
        State { now: 0, block: u64::MAX, gain: 1.0, shadow_db: 0.0, bad: false, until: 0, cursor: 0, started: false }
    }
}

/// Frames of one PHY mode and length over an SNR process.
#[derive(Clone, Debug)]
pub struct PhyChannel {
    snr: Snr,
    table: PerTable,
    bits: f64,
    /// Packet mode: seconds between packets, in ns.
    interval: Nanos,
    /// Packets decided in packet mode (their time is n · interval).
    n: u64,
    state: State,
    /// Tables of the other PHY modes units were sent in (built when first needed), and the
    /// last unit asked about: (unit, table index (0 = own, i = others[i − 1]), data bits).
    others: Vec<PerTable>,
    last_unit: (Unit, usize, f64),
}

fn draw_gain(f: Fading, rng: &mut Rng) -> f64 {
    match f {
        Fading::None => 1.0,
        // −ln U is exponential with mean 1
        Fading::Rayleigh => -(1.0 - uniform(rng)).ln(),
        Fading::Ricean { k } => {
            // h = √(K/(K+1)) + √(1/(K+1))·CN(0,1): E|h|² = 1
            let s = (1.0 / (2.0 * (k + 1.0))).sqrt();
            let x: f64 = StandardNormal.sample(rng);
            let y: f64 = StandardNormal.sample(rng);
            let re = (k / (k + 1.0)).sqrt() + s * x;
            let im = s * y;
            re * re + im * im
        }
    }
}

fn exp_draw(mean: Nanos, rng: &mut Rng) -> Nanos {
    ((-(1.0 - uniform(rng)).ln()) * mean as f64).round().max(1.0) as Nanos
}

impl PhyChannel {
    /// Frames of `psdu_bytes` in `mode` under `model`'s curves; `interval` (ns) places
    /// packet n at n · interval in packet mode.
    pub fn new(snr: Snr, mode: &PhyMode, model: ErrorModel, psdu_bytes: u32, interval: Nanos) -> crate::Result<Self> {
        match &snr {
            Snr::Process { mean_db, fading, coherence, sigma_db, tau } => {
                if !mean_db.is_finite() || mean_db.abs() > 200.0 {
                    return Err(Error::param("snr", mean_db, "a mean SNR in dB within ±200"));
                }
                if let Fading::Ricean { k } = fading {
                    if !(k.is_finite() && *k >= 0.0) {
                        return Err(Error::param("k", k, "a Ricean K-factor ≥ 0"));
                    }
                }
                if *fading != Fading::None && *coherence == 0 {
                    return Err(Error::param("coherence", 0, "a positive coherence time (ns) for fading"));
                }
                if !(sigma_db.is_finite() && (0.0..=30.0).contains(sigma_db)) {
                    return Err(Error::param("sigma", sigma_db, "a shadowing standard deviation in dB in [0, 30]"));
                }
                if *sigma_db > 0.0 && *tau == 0 {
                    return Err(Error::param("tau", 0, "a positive shadowing correlation time (ns)"));
                }
            }
            Snr::TwoState { good_db, bad_db, mean_good, mean_bad } => {
                for (n, v) in [("good", good_db), ("bad", bad_db)] {
                    if !v.is_finite() || v.abs() > 200.0 {
                        return Err(Error::param(n, v, "an SNR in dB within ±200"));
                    }
                }
                if *mean_good == 0 || *mean_bad == 0 {
                    return Err(Error::param("mean", 0, "positive mean sojourns (ns) in both states"));
                }
            }
            Snr::Trace { times, db, end, .. } => {
                if times.is_empty() || times.len() != db.len() {
                    return Err(Error::param("trace", times.len(), "a non-empty SNR trace with one time per value"));
                }
                if times[0] != 0 || times.windows(2).any(|w| w[1] <= w[0]) {
                    return Err(Error::param("trace", "times", "times starting at 0 and strictly increasing"));
                }
                if *end <= *times.last().unwrap() {
                    return Err(Error::param("end", end, "a trace end after its last time"));
                }
                if let Some(v) = db.iter().find(|v| !v.is_finite() || v.abs() > 200.0) {
                    return Err(Error::param("trace", v, "SNR values in dB within ±200"));
                }
            }
        }
        if interval == 0 {
            return Err(Error::param("interval", 0, "a positive packet interval (ns)"));
        }
        let table = PerTable::cached(model, *mode);
        let bits = table.data_bits(psdu_bytes);
        Ok(PhyChannel { snr, table, bits, interval, n: 0, state: State::new(), others: vec![], last_unit: (Unit::default(), 0, 0.0) })
    }

    /// The SNR (dB) at time `t` (non-decreasing between calls), moving the process there.
    pub fn snr_db_at(&mut self, t: Nanos, rng: &mut Rng) -> f64 {
        let st = &mut self.state;
        let dt = t.saturating_sub(st.now);
        let first = !st.started;
        st.started = true;
        st.now = st.now.max(t);
        match &self.snr {
            Snr::Process { mean_db, fading, coherence, sigma_db, tau } => {
                if *fading != Fading::None {
                    let block = t / coherence;
                    if block != st.block {
                        st.block = block;
                        st.gain = draw_gain(*fading, rng);
                    }
                }
                if *sigma_db > 0.0 {
                    let z: f64 = StandardNormal.sample(rng);
                    if first {
                        st.shadow_db = sigma_db * z;
                    } else {
                        // AR(1) over the gap: exact for a Gauss-Markov (Ornstein-Uhlenbeck) process
                        let rho = (-(dt as f64) / *tau as f64).exp();
                        st.shadow_db = rho * st.shadow_db + sigma_db * (1.0 - rho * rho).sqrt() * z;
                    }
                }
                let fade_db = if *fading == Fading::None { 0.0 } else { 10.0 * st.gain.max(1e-30).log10() };
                mean_db + st.shadow_db + fade_db
            }
            Snr::TwoState { good_db, bad_db, mean_good, mean_bad } => {
                if first {
                    // stationary start: bad with probability mean_bad / (mean_good + mean_bad)
                    st.bad = uniform(rng) * ((mean_good + mean_bad) as f64) < *mean_bad as f64;
                    st.until = exp_draw(if st.bad { *mean_bad } else { *mean_good }, rng);
                }
                while st.until <= t {
                    st.bad = !st.bad;
                    st.until = st.until.saturating_add(exp_draw(if st.bad { *mean_bad } else { *mean_good }, rng));
                }
                if st.bad {
                    *bad_db
                } else {
                    *good_db
                }
            }
            Snr::Trace { times, db, end, wrap } => {
                let tt = if *wrap { t % end } else { t };
                if tt < times[st.cursor] {
                    st.cursor = 0;
                }
                while st.cursor + 1 < times.len() && times[st.cursor + 1] <= tt {
                    st.cursor += 1;
                }
                db[st.cursor]
            }
        }
    }

    /// Probability that a frame sent at SNR `snr_db` is lost.
    pub fn frame_error(&self, snr_db: f64) -> f64 {
        -self.table.ln_success(snr_db, self.bits).exp_m1()
    }

    fn decide(&mut self, t: Nanos, rng: &mut Rng) -> bool {
        let snr = self.snr_db_at(t, rng);
        uniform(rng) < self.frame_error(snr)
    }

    /// The table and data-field bits of a link layer's unit (its PSDU: ⌈bits / 8⌉ bytes,
    /// in its own mode or the channel's).
    fn unit_curve(&mut self, unit: Unit) -> (usize, f64) {
        if self.last_unit.0 != unit || self.last_unit.2 == 0.0 {
            let i = match unit.mode {
                None => 0,
                Some(m) if *m == *self.table.mode() => 0,
                Some(m) => match self.others.iter().position(|t| t.mode() == m) {
                    Some(j) => j + 1,
                    None => {
                        self.others.push(PerTable::cached(*self.table.model(), *m));
                        self.others.len()
                    }
                },
            };
            let t = if i == 0 { &self.table } else { &self.others[i - 1] };
            self.last_unit = (unit, i, t.data_bits(unit.bits.div_ceil(8)));
        }
        (self.last_unit.1, self.last_unit.2)
    }

    /// Probability that a link layer's unit sent at SNR `snr_db` is lost.
    pub fn unit_error(&mut self, snr_db: f64, unit: Unit) -> f64 {
        let (i, bits) = self.unit_curve(unit);
        let t = if i == 0 { &self.table } else { &self.others[i - 1] };
        -t.ln_success(snr_db, bits).exp_m1()
    }

    fn decide_unit(&mut self, t: Nanos, unit: Unit, rng: &mut Rng) -> bool {
        let snr = self.snr_db_at(t, rng);
        uniform(rng) < self.unit_error(snr, unit)
    }
}

impl LossModel for PhyChannel {
    fn name(&self) -> &'static str {
        "phy"
    }

    fn lost_packet(&mut self, rng: &mut Rng) -> bool {
        let t = self.n.saturating_mul(self.interval);
        self.n += 1;
        self.decide(t, rng)
    }

    fn lost_in_transit(&mut self, start: Nanos, _end: Nanos, rng: &mut Rng) -> bool {
        self.decide(start, rng)
    }

    /// A link layer's unit: its own PSDU length and PHY mode, not `bytes=` and `mode=`.
    fn lost_unit(&mut self, unit: Unit, rng: &mut Rng) -> bool {
        let t = self.n.saturating_mul(self.interval);
        self.n += 1;
        self.decide_unit(t, unit, rng)
    }

    fn lost_unit_in_transit(&mut self, start: Nanos, _end: Nanos, unit: Unit, rng: &mut Rng) -> bool {
        self.decide_unit(start, unit, rng)
    }

    fn reset(&mut self) {
        self.n = 0;
        self.state = State::new();
    }

    /// Exact for a constant SNR and for the two-state chain (a mixture of two constants);
    /// fading, shadowing and traces have no closed form here.
    fn mean_loss(&self) -> Option<f64> {
        match &self.snr {
            Snr::Process { mean_db, fading: Fading::None, sigma_db, .. } if *sigma_db == 0.0 => Some(self.frame_error(*mean_db)),
            Snr::TwoState { good_db, bad_db, mean_good, mean_bad } => {
                let pb = *mean_bad as f64 / (*mean_good + *mean_bad) as f64;
                Some(pb * self.frame_error(*bad_db) + (1.0 - pb) * self.frame_error(*good_db))
            }
            _ => None,
        }
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::ErrorModel;
    use crate::rng::from_seed;

    const MS: Nanos = 1_000_000;

    fn mode(name: &str) -> &'static PhyMode {
        PhyMode::by_name(name).unwrap()
    }

    fn constant(db: f64) -> Snr {
        Snr::Process { mean_db: db, fading: Fading::None, coherence: 0, sigma_db: 0.0, tau: 0 }
    }

    fn loss_rate(ch: &mut PhyChannel, n: usize, seed: u64) -> f64 {
        let mut rng = from_seed(seed);
        (0..n).filter(|_| ch.lost_packet(&mut rng)).count() as f64 / n as f64
    }

    #[test]
    fn constant_snr_loses_at_the_curves_rate() {
        let m = ErrorModel::default();
        let mut ch = PhyChannel::new(constant(6.5), mode("cck11"), m, 1028, MS).unwrap();
        let p = m.frame_error(mode("cck11"), 6.5, 1028);
        assert!((ch.mean_loss().unwrap() - p).abs() < 1e-3);
        let n = 200_000;
        let got = loss_rate(&mut ch, n, 3);
        assert!((got - p).abs() < 5.0 * (p * (1.0 - p) / n as f64).sqrt(), "{got} vs {p}");
    }

    #[test]
    fn a_link_layers_units_bring_their_own_length_and_mode() {
        // One channel at 6 dB set up for 1 028-byte cck11 frames: a unit of 104 bytes, or one
        // sent at 1 Mb/s, is lost at its own curve's rate (the closed form within 1e-3, the
        // sampled rate within 5 standard errors); a unit without a mode uses the channel's.
        let m = ErrorModel::default();
        let mut ch = PhyChannel::new(constant(6.0), mode("cck11"), m, 1028, MS).unwrap();
        let cases = [
            (Unit { bits: 1028 * 8, mode: None }, m.frame_error(mode("cck11"), 6.0, 1028)),
            (Unit { bits: 104 * 8, mode: None }, m.frame_error(mode("cck11"), 6.0, 104)),
            (Unit { bits: 1028 * 8, mode: Some(mode("dsss1")) }, m.frame_error(mode("dsss1"), 6.0, 1028)),
            (Unit { bits: 1028 * 8, mode: Some(mode("cck5.5")) }, m.frame_error(mode("cck5.5"), 6.0, 1028)),
        ];
        assert!(cases[1].1 < cases[0].1 / 3.0 && cases[2].1 < 1e-6 && cases[3].1 < cases[0].1);
        let mut rng = from_seed(5);
        let n = 100_000;
        for (u, p) in cases {
            assert!((ch.unit_error(6.0, u) - p).abs() < 1e-3, "{u:?}: {} vs {p}", ch.unit_error(6.0, u));
            let lost = (0..n).filter(|_| ch.lost_unit(u, &mut rng)).count() as f64 / n as f64;
            assert!((lost - p).abs() <= 5.0 * (p * (1.0 - p) / n as f64).sqrt() + 1e-9, "{u:?}: {lost} vs {p}");
        }
        assert_eq!(ch.others.len(), 2, "one table per other mode, built once");
    }

    #[test]
    fn the_same_snr_loses_long_fast_frames_more() {
        let snr = Snr::TwoState { good_db: 12.0, bad_db: 4.0, mean_good: 200 * MS, mean_bad: 50 * MS };
        let m = ErrorModel::default();
        let mut slow_short = PhyChannel::new(snr.clone(), mode("dsss1"), m, 100, MS).unwrap();
        let mut fast_long = PhyChannel::new(snr, mode("cck11"), m, 1500, MS).unwrap();
        let (a, b) = (loss_rate(&mut slow_short, 100_000, 1), loss_rate(&mut fast_long, 100_000, 1));
        assert!(a < 0.01 && b > 0.15, "{a} {b}");
    }

    #[test]
    fn two_state_losses_come_in_bursts() {
        // bad SNR loses nearly every frame: mean burst ≈ mean bad sojourn / interval = 20 packets
        let snr = Snr::TwoState { good_db: 20.0, bad_db: -5.0, mean_good: 180 * MS, mean_bad: 20 * MS };
        let mut ch = PhyChannel::new(snr, mode("cck11"), ErrorModel::default(), 1028, MS).unwrap();
        let mut rng = from_seed(9);
        let lost: Vec<bool> = (0..400_000).map(|_| ch.lost_packet(&mut rng)).collect();
        let rate = lost.iter().filter(|&&x| x).count() as f64 / lost.len() as f64;
        let bursts = lost.windows(2).filter(|w| w[1] && !w[0]).count() as f64;
        let mean_burst = rate * lost.len() as f64 / bursts;
        assert!((rate - 0.1).abs() < 0.02, "{rate}");
        assert!((mean_burst - 20.0).abs() < 3.0, "{mean_burst}");
        assert!((ch.mean_loss().unwrap() - 0.1).abs() < 1e-3);
    }

    #[test]
    fn rayleigh_and_ricean_keep_mean_power_one() {
        for (f, var) in [(Fading::Rayleigh, 1.0), (Fading::Ricean { k: 3.0 }, (1.0 + 2.0 * 3.0) / 16.0)] {
            let mut rng = from_seed(4);
            let n = 200_000;
            let g: Vec<f64> = (0..n).map(|_| draw_gain(f, &mut rng)).collect();
            let mean = g.iter().sum::<f64>() / n as f64;
            let v = g.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
            assert!((mean - 1.0).abs() < 0.01, "{f:?} mean {mean}");
            assert!((v - var).abs() < 0.03, "{f:?} var {v} vs {var}");
        }
    }

    #[test]
    fn fading_blocks_hold_within_coherence_time() {
        let snr = Snr::Process { mean_db: 10.0, fading: Fading::Rayleigh, coherence: 10 * MS, sigma_db: 0.0, tau: 0 };
        let mut ch = PhyChannel::new(snr, mode("ofdm6"), ErrorModel::default(), 1000, MS).unwrap();
        let mut rng = from_seed(2);
        let a: Vec<f64> = (0..30).map(|i| ch.snr_db_at(i * MS, &mut rng)).collect();
        for blk in a.chunks(10) {
            assert!(blk.iter().all(|x| *x == blk[0]));
        }
        assert!(a[0] != a[10] && a[10] != a[20]);
    }

    #[test]
    fn shadowing_has_its_standard_deviation_and_correlation() {
        let snr = Snr::Process { mean_db: 10.0, fading: Fading::None, coherence: 0, sigma_db: 4.0, tau: 100 * MS };
        let mut ch = PhyChannel::new(snr, mode("ofdm6"), ErrorModel::default(), 1000, MS).unwrap();
        let mut rng = from_seed(5);
        let x: Vec<f64> = (0..200_000u64).map(|i| ch.snr_db_at(i * 10 * MS, &mut rng) - 10.0).collect();
        let n = x.len() as f64;
        let sd = (x.iter().map(|v| v * v).sum::<f64>() / n).sqrt();
        // lag-one correlation of an OU process sampled every 10 ms with τ = 100 ms: e^−0.1
        let c1 = x.windows(2).map(|w| w[0] * w[1]).sum::<f64>() / (n - 1.0) / (sd * sd);
        assert!((sd - 4.0).abs() < 0.1, "{sd}");
        assert!((c1 - (-0.1f64).exp()).abs() < 0.01, "{c1}");
    }

    #[test]
    fn trace_holds_and_wraps() {
        let snr = Snr::Trace { times: vec![0, 10 * MS, 20 * MS], db: vec![1.0, 2.0, 3.0], end: 30 * MS, wrap: true };
        let mut ch = PhyChannel::new(snr, mode("dsss1"), ErrorModel::default(), 100, MS).unwrap();
        let mut rng = from_seed(1);
        let seen: Vec<f64> = [0, 5, 10, 19, 20, 29, 30, 41].iter().map(|ms| ch.snr_db_at(ms * MS, &mut rng)).collect();
        assert_eq!(seen, vec![1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 1.0, 2.0]);
        let held = Snr::Trace { times: vec![0, 10 * MS], db: vec![1.0, 2.0], end: 20 * MS, wrap: false };
        let mut ch = PhyChannel::new(held, mode("dsss1"), ErrorModel::default(), 100, MS).unwrap();
        assert_eq!(ch.snr_db_at(1_000 * MS, &mut rng), 2.0);
    }

    #[test]
    fn reset_replays_the_same_channel() {
        let snr = Snr::Process { mean_db: 8.0, fading: Fading::Ricean { k: 2.0 }, coherence: 5 * MS, sigma_db: 2.0, tau: 50 * MS };
        let mut ch = PhyChannel::new(snr, mode("ofdm12"), ErrorModel::default(), 1000, MS).unwrap();
        let a: Vec<bool> = { let mut r = from_seed(7); (0..1000).map(|_| ch.lost_packet(&mut r)).collect() };
        ch.reset();
        let b: Vec<bool> = { let mut r = from_seed(7); (0..1000).map(|_| ch.lost_packet(&mut r)).collect() };
        assert_eq!(a, b);
    }

    #[test]
    fn bad_parameters_are_named() {
        let m = ErrorModel::default();
        let e = |snr: Snr| PhyChannel::new(snr, mode("dsss1"), m, 100, MS).unwrap_err().to_string();
        assert!(e(Snr::Process { mean_db: f64::NAN, fading: Fading::None, coherence: 0, sigma_db: 0.0, tau: 0 }).contains("snr"));
        assert!(e(Snr::Process { mean_db: 5.0, fading: Fading::Rayleigh, coherence: 0, sigma_db: 0.0, tau: 0 }).contains("coherence"));
        assert!(e(Snr::Process { mean_db: 5.0, fading: Fading::Ricean { k: -1.0 }, coherence: MS, sigma_db: 0.0, tau: 0 }).contains("K-factor"));
        assert!(e(Snr::Trace { times: vec![0, 0], db: vec![1.0, 2.0], end: MS, wrap: true }).contains("increasing"));
        assert!(e(Snr::Trace { times: vec![0, MS], db: vec![1.0, 2.0], end: MS, wrap: true }).contains("end"));
        assert!(e(Snr::TwoState { good_db: 10.0, bad_db: 0.0, mean_good: 0, mean_bad: MS }).contains("sojourn"));
    }
}
