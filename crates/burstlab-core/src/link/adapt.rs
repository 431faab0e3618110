//! 802.11 rate adaptation on an ARQ hop: the rate of each attempt is chosen by a controller
//! (ARF, AARF, [`rate::Aarf`]; Minstrel, [`minstrel::Minstrel`]) from the outcomes it has
//! seen, and the channel decides the attempt at that rate and its own size (the unit carries
//! its PHY mode, so SNR-driven loss gives each rate its own error probability; a model blind
//! to size and rate loses every rate alike). Barsocchi et al. ("Packet Loss in TCP Hybrid
//! Wireless Networks", §I) name this speed switching as the level between the channel and
//! ARQ that they left out.
//!
//! | per attempt | rule |
//! |---|---|
//! | rate | the controller's current rate (`RateControl::rate` at the attempt's start) |
//! | air time | that rate's DCF attempt: PLCP, MAC header + LLC/SNAP + packet + FCS at the rate (OFDM: in whole symbols, then the signal extension), SIFS, ACK at the highest basic (DSSS: 1 or 2 Mb/s) or mandatory (OFDM: 6, 12, 24 Mb/s) rate ≤ it ([`wifi::Dcf`]) |
//! | backoff | DIFS and the hop's backoff (if any) before each attempt, the same at every rate |
//! | outcome | reported to the controller (`report`); a drop at the limit too (`dropped`) |
//! | limit | the hop's attempt limit, or Minstrel's retry chain (the sum of its stages' counts) if smaller |
//!
//! The rate set (`rate_set`) is 802.11b's (1, 2, 5.5, 11 Mb/s), 802.11g's ERP-OFDM (6-54
//! Mb/s, ERP timing: 20-µs PLCP, 4-µs symbols, 6-µs signal extension, CWmin 15) or both in
//! ns-3's 802.11g order; the controller starts at the first rate, as ns-3's managers do. Per-rate attempts and successes go to
//! [`LinkStats::rates`](super::attempt::LinkStats).
use super::attempt::{AttemptTiming, LinkStats, RateCount};
use super::minstrel::{Minstrel, MinstrelParams};
use super::rate::{rate_set_acked, AckRates, Aarf, RateControl, RateSet};
use super::wifi::Dcf;
use super::{Channel, Service, Unit};
use crate::phy::PhyMode;
use crate::rng::{Rng, RngExt};
use crate::time::{Nanos, NS_PER_S};
use crate::Error;

crate::named_enum!(
    /// Which controller chooses the rates.
    RateControlKind, "rate_control" {
        /// No adaptation: every attempt at the hop's timing rate.
        Fixed = "fixed",
        /// Kamerman and Monteban's ARF (ns-3 `ArfWifiManager`).
        Arf = "arf",
        /// Lacage, Manshaei and Turletti's AARF (ns-3 `AarfWifiManager`).
        Aarf = "aarf",
        /// Minstrel (Linux `rc80211_minstrel`, ns-3 `MinstrelWifiManager`).
        Minstrel = "minstrel",
    }
);

crate::params! {
    /// An ARQ hop's rate adaptation settings (defaults: ns-3's `ArfWifiManager`,
    /// `AarfWifiManager` and `MinstrelWifiManager` attributes): `RateAdaptParams::PARAMS`
    /// gives the `arq:` spec keys, Python's `Arq` fields, the TOML keys and
    /// `docs/parameters.md`.
    pub struct RateAdaptParams {
        rate_control control: RateControlKind [choice] as rate_control = RateControlKind::Fixed, "",
            "802.11 rate adaptation over the rate_set's rates: each attempt's rate chosen by ARF, AARF or Minstrel (fixed: the timing's rate).",
            "Kamerman & Monteban 1997; Lacage et al. 2004; Linux rc80211_minstrel";
        rate_control rate_set: RateSet [choice] = RateSet::B, "",
            "The rates chosen among: b (802.11b DSSS 1-11 Mb/s), g (802.11g ERP-OFDM 6-54 Mb/s) or bg (both, in ns-3's 802.11g order: 1, 2, 5.5, 11, 6, ..., 54).",
            "IEEE 802.11-2016 clauses 16, 18";
        rate_control ack_rates: AckRates [choice] = AckRates::Basic, "",
            "Rate of each ACK: the highest basic rate at or below the data rate, the basic rates being basic (1 and 2 Mb/s; ERP 6, 12, 24) or mandatory (every mandatory rate, as ns-3's ad hoc stations: an 802.11b frame's ACK at its own rate).",
            "IEEE 802.11-2016 §10.6.6.5";
        rate_control arf_success: u32 [u32] = 10, "attempts", min 1, max 10_000,
            "ARF/AARF: successes in a row that move one rate up (AARF's minimum).", "ns-3 ArfWifiManager SuccessThreshold";
        rate_control arf_timer: u32 [u32] = 15, "attempts", min 1, max 10_000,
            "ARF/AARF: attempts since the last rate change that move one rate up (AARF's minimum).", "ns-3 ArfWifiManager TimerThreshold";
        rate_control minstrel_update: Nanos [time] = NS_PER_S / 10, "s", min 0.001, max 10.0,
            "Minstrel: interval between statistics updates.", "ns-3 MinstrelWifiManager UpdateStatistics";
        rate_control minstrel_ewma: u32 [u32] = 75, "%", max 100,
            "Minstrel: weight of the old success probability in the EWMA.", "ns-3 MinstrelWifiManager EwmaLevel";
        rate_control minstrel_look_around: u32 [u32] = 10, "%", max 100,
            "Minstrel: share of frames that sample another rate.", "ns-3 MinstrelWifiManager LookAroundRate";
        rate_control minstrel_columns: u32 [u32] = 10, "", min 1, max 1000,
            "Minstrel: random permutations of the rates in the sampling table.", "ns-3 MinstrelWifiManager SampleColumn";
    }
    virtual {}
}

impl RateAdaptParams {
    /// Minstrel's parameters from these settings.
    pub fn minstrel(&self) -> MinstrelParams {
        MinstrelParams {
            update: self.minstrel_update,
            ewma_level: self.minstrel_ewma,
            look_around: self.minstrel_look_around,
            sample_columns: self.minstrel_columns as usize,
            ..MinstrelParams::default()
        }
    }
}

/// A hop's rate adaptation: the controller, the rates (their PHY modes) and each rate's
/// DCF timing.
#[derive(Clone, Debug, PartialEq)]
pub struct RateAdaptConfig {
    pub params: RateAdaptParams,
    pub modes: Vec<&'static PhyMode>,
    pub dcfs: Vec<Dcf>,
}

impl RateAdaptConfig {
    /// 802.11b's four rates with `base`'s MAC and PHY timing (slot, SIFS, DIFS, overheads,
    /// preamble; the long preamble at 1 Mb/s, which has no short one), each ACK at the
    /// highest basic rate (1 or 2 Mb/s) at or below the data rate.
    pub fn dsss(control: RateControlKind, base: &Dcf) -> crate::Result<Self> {
        Self::with(RateAdaptParams { control, ..RateAdaptParams::default() }, base)
    }

    /// Every setting given: the rates of `params.rate_set` ([`rate_set_acked`]) timed from `base`.
    pub fn with(params: RateAdaptParams, base: &Dcf) -> crate::Result<Self> {
        params.check_ranges()?;
        base.validate()?;
        if base.symbol != 0 {
            return Err(Error::param("phy", "erp", "dsss with rate_control (rate_set chooses the rates: g or bg for ERP-OFDM)"));
        }
        let (modes, dcfs) = rate_set_acked(params.rate_set, params.ack_rates, base)?;
        Ok(RateAdaptConfig { params, modes, dcfs })
    }

    /// The fastest rate's attempt timing (the hop's nominal timing; `backoff` as the hop's).
    pub fn fastest_timing(&self, backoff: bool) -> AttemptTiming {
        self.dcfs.last().expect("rates").timing(backoff)
    }
}

#[derive(Clone, Debug)]
enum Controller {
    Aarf(Aarf),
    Minstrel(Box<Minstrel>),
    /// Minstrel before its first frame: its sampling table is drawn then from the hop's
    /// link-layer stream.
    MinstrelPending,
}

/// A hop's rate adaptation at run time.
#[derive(Clone, Debug)]
pub struct Adaptive {
    config: RateAdaptConfig,
    controller: Controller,
    /// Per rate: the attempt's fixed part on the channel, and (for the last frame size
    /// seen) its air time and unit.
    overhead: Vec<Nanos>,
    cached_bytes: Option<u32>,
    on_air: Vec<Nanos>,
    units: Vec<Unit>,
}

impl Adaptive {
    pub fn new(config: RateAdaptConfig) -> crate::Result<Self> {
        if config.modes.len() < 2 || config.modes.len() != config.dcfs.len() {
            return Err(Error::param("rates", config.modes.len(), "at least two rates, one DCF timing each"));
        }
        for d in &config.dcfs {
            d.validate()?;
        }
        let p = &config.params;
        p.check_ranges()?;
        let controller = match p.control {
            RateControlKind::Fixed => return Err(Error::param("rate_control", "fixed", "a controller (arf, aarf or minstrel) for an adaptive hop")),
            RateControlKind::Arf | RateControlKind::Aarf => Controller::Aarf(Aarf::with_thresholds(
                p.control == RateControlKind::Aarf,
                config.modes.len(),
                p.arf_success,
                p.arf_timer,
            )?),
            RateControlKind::Minstrel => {
                // checks the parameters now (the table itself is drawn at the first frame)
                Minstrel::new(&config.dcfs, p.minstrel(), 0)?;
                Controller::MinstrelPending
            }
        };
        let overhead = config
            .dcfs
            .iter()
            .map(|d| match d.timing(false).overhead {
                super::attempt::Span::Fixed(o) => o,
                super::attempt::Span::Uniform { .. } => unreachable!("DCF timing is fixed"),
            })
            .collect();
        let n = config.modes.len();
        Ok(Adaptive { config, controller, overhead, cached_bytes: None, on_air: vec![0; n], units: vec![Unit::default(); n] })
    }

    /// The per-rate counters a hop's statistics start with.
    pub fn rate_counts(&self) -> Vec<RateCount> {
        self.config.modes.iter().map(|m| RateCount { mode: m.name, rate_bps: m.rate_bps, attempts: 0, successes: 0 }).collect()
    }

    fn controller(&mut self, rng: &mut Rng) -> &mut dyn RateControl {
        if let Controller::MinstrelPending = self.controller {
            let m = Minstrel::new(&self.config.dcfs, self.config.params.minstrel(), rng.random::<u64>()).expect("checked in new");
            self.controller = Controller::Minstrel(Box::new(m));
        }
        match &mut self.controller {
            Controller::Aarf(a) => a,
            Controller::Minstrel(m) => m.as_mut(),
            Controller::MinstrelPending => unreachable!("built above"),
        }
    }

    /// Serve one frame (see the module doc): at most `max` attempts, each preceded by
    /// `timing.before` (DIFS and the hop's backoff).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn serve<C: Channel>(
        &mut self,
        start: Nanos,
        frame_bytes: u32,
        max: u32,
        timing: &AttemptTiming,
        ch: &mut C,
        rng: &mut Rng,
        stats: &mut LinkStats,
    ) -> Service {
        if self.cached_bytes != Some(frame_bytes) {
            let body = frame_bytes as u64 + timing.encapsulation_bytes as u64;
            for (i, d) in self.config.dcfs.iter().enumerate() {
                // DSSS: the fixed part and the body at the rate; OFDM: whole symbols, per size
                self.on_air[i] =
                    if d.symbol == 0 { self.overhead[i] + crate::time::tx_time(body, d.rate_bps) } else { d.attempt_time(frame_bytes) - d.difs };
                self.units[i] = Unit { mode: Some(self.config.modes[i]), ..Unit::bytes(body + timing.header_bytes as u64) };
            }
            self.cached_bytes = Some(frame_bytes);
        }
        let n = self.on_air.len();
        let limit = {
            let rc = self.controller(rng);
            rc.max_attempts().map_or(max, |m| m.clamp(1, max))
        };
        let mut t = start;
        let mut attempts = 0;
        let delivered = loop {
            let begin = t;
            t += timing.before(attempts, rng);
            let r = self.controller(rng).rate(t).min(n - 1);
            let on_air = self.on_air[r];
            let lost = ch.attempt_lost(t, t + on_air, self.units[r]);
            t += on_air;
            attempts += 1;
            stats.attempt_time.record(t - begin);
            let rc = &mut stats.rates[r];
            rc.attempts += 1;
            rc.successes += !lost as u64;
            let ctl = self.controller(rng);
            ctl.report(t, r, !lost);
            if !lost {
                break true;
            }
            if attempts == limit {
                ctl.dropped(t);
                break false;
            }
        };
        stats.units_sent += attempts as u64;
        stats.units_lost += (attempts - delivered as u32) as u64;
        let s = Service { start, end: t, delivered, attempts };
        stats.frame(&s);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::rate::dsss_modes;
    use crate::link::wifi::Preamble;
    use crate::link::arq::{Arq, ArqConfig, LimitCounts};
    use crate::link::{LossMode, LossSource};
    use crate::loss::{Fading, PhyChannel, Snr};
    use crate::phy::ErrorModel;
    use crate::rng::from_seed;
    use crate::time::NS_PER_S;

    /// Scripted attempt fates (then delivered); records each attempt's interval and unit.
    struct Script {
        fates: Vec<bool>,
        asked: Vec<(Nanos, Nanos, Unit)>,
    }

    impl Channel for Script {
        fn attempt_lost(&mut self, s: Nanos, e: Nanos, unit: Unit) -> bool {
            self.asked.push((s, e, unit));
            self.fates.get(self.asked.len() - 1).copied().unwrap_or(false)
        }
    }

    fn hop(control: RateControlKind, limit: u32) -> Arq {
        let cfg = RateAdaptConfig::dsss(control, &Dcf::b11()).unwrap();
        Arq::new(ArqConfig::adaptive(limit, LimitCounts::Retries, cfg, false)).unwrap()
    }

    #[test]
    fn arf_on_the_hop_steps_up_after_ten_successes_and_back_after_a_failed_probe() {
        // ARF (ns-3 ArfWifiManager): from 1 Mb/s, 10 successes → 2 Mb/s; the probe fails →
        // 1 Mb/s at once; each attempt's air time and PHY mode are its rate's.
        let mut a = hop(RateControlKind::Arf, 7);
        let mut fates = vec![false; 10];
        fates.push(true); // the 11th attempt (the probe at 2 Mb/s) fails
        let mut ch = Script { fates, asked: vec![] };
        let mut rng = from_seed(1);
        let mut t = 0;
        for _ in 0..11 {
            t = a.serve(t, 1000, &mut ch, &mut rng).end;
        }
        let modes: Vec<&str> = ch.asked.iter().map(|(_, _, u)| u.mode.unwrap().name).collect();
        assert_eq!(modes[..10], ["dsss1"; 10]);
        assert_eq!(modes[10..], ["dsss2", "dsss1"]);
        let d = crate::link::rate::dsss_dcfs();
        // on the channel: data + SIFS + ACK (DIFS before it), exact to the ns per rate
        for ((s, e, _), r) in ch.asked.iter().zip([0usize; 10].iter().chain(&[1, 0])) {
            assert!((e - s).abs_diff(d[*r].attempt_time(1000) - d[*r].difs) <= 1, "rate {r}: {}", e - s);
        }
        // the unit: packet + LLC/SNAP + MAC header and FCS
        assert_eq!(ch.asked[0].2.bits, 8 * (1000 + 8 + 28));
        let st = &a.stats;
        assert_eq!(st.rates.iter().map(|r| (r.attempts, r.successes)).collect::<Vec<_>>(), vec![(11, 11), (1, 0), (0, 0), (0, 0)]);
        assert_eq!((st.frames, st.attempts, st.units_lost), (11, 12, 1));
        // two failures in a row at 2 Mb/s (out of recovery) step down: go up again first
        let mut a = hop(RateControlKind::Arf, 7);
        let mut ch = Script { fates: [vec![false; 11], vec![true, true]].concat(), asked: vec![] };
        let mut t = 0;
        for _ in 0..12 {
            t = a.serve(t, 1000, &mut ch, &mut rng).end;
        }
        let modes: Vec<&str> = ch.asked.iter().map(|(_, _, u)| u.mode.unwrap().name).collect();
        assert_eq!(modes[10..], ["dsss2", "dsss2", "dsss2", "dsss1"]);
        // clear keeps the rates, zeroed
        a.stats.clear();
        assert_eq!(a.stats.rates.iter().map(|r| r.attempts).sum::<u64>(), 0);
        assert_eq!(a.stats.rates[3].mode, "cck11");
    }

    fn constant(db: f64) -> Snr {
        Snr::Process { mean_db: db, fading: Fading::None, coherence: 0, sigma_db: 0.0, tau: 0 }
    }

    fn run(control: RateControlKind, snr: Snr, frames: u64, mode: LossMode) -> Arq {
        let model = PhyChannel::new(snr, PhyMode::by_name("cck11").unwrap(), ErrorModel::default(), 1076, 1_000_000).unwrap();
        let mut a = hop(control, 7);
        let mut ch = LossSource::Own { model: Box::new(model), rng: from_seed(3), mode };
        let mut rng = from_seed(4);
        let mut t = 0;
        for _ in 0..frames {
            t = a.serve(t, 1040, &mut ch, &mut rng).end;
        }
        a
    }

    #[test]
    fn minstrel_on_the_hop_converges_to_the_best_throughput_rate() {
        // Constant SNR: the rate with the best expected throughput (1 − PER) / air time from
        // the curves carries most attempts and is Minstrel's maxTp at the end.
        let m = ErrorModel::default();
        let d = crate::link::rate::dsss_dcfs();
        let (modes, _) = dsss_modes();
        for db in [2.0, 4.0, 25.0] {
            let best = (0..4)
                .max_by(|&i, &j| {
                    let tp = |k: usize| (1.0 - m.frame_error(modes[k], db, 1076)) / d[k].attempt_time(1040) as f64;
                    tp(i).total_cmp(&tp(j))
                })
                .unwrap();
            let a = run(RateControlKind::Minstrel, constant(db), 20_000, LossMode::Time);
            let st = &a.stats;
            let shares: Vec<f64> = st.rates.iter().map(|r| r.attempts as f64 / st.attempts as f64).collect();
            println!("{db} dB: best {} shares {shares:.3?}", modes[best].name);
            assert!(shares[best] > 0.6, "{db} dB: best {best}, shares {shares:?}");
            assert_eq!(st.rates.iter().map(|r| r.attempts).sum::<u64>(), st.attempts);
            assert_eq!(st.rates.iter().map(|r| r.successes).sum::<u64>(), st.delivered);
            // every rate sampled (look-around)
            assert!(st.rates.iter().all(|r| r.attempts > 0), "{shares:?}");
        }
    }

    #[test]
    fn a_bad_period_at_11_mbps_passes_at_1_mbps() {
        // Time mode: 25 dB, then 3 dB for 3 s, then 25 dB. At 3 dB 11 Mb/s loses ~all
        // 1 076-byte frames and 1-2 Mb/s almost none: a fixed 11 Mb/s hop drops every frame
        // of the bad period (after 8 attempts each), AARF and Minstrel step down and deliver
        // them (hundreds of frames at 1-2 Mb/s), then climb back to 11 Mb/s.
        let step = Snr::Trace { times: vec![0, 2 * NS_PER_S, 5 * NS_PER_S], db: vec![25.0, 3.0, 25.0], end: 8 * NS_PER_S, wrap: false };
        let fixed = {
            let model = PhyChannel::new(step.clone(), PhyMode::by_name("cck11").unwrap(), ErrorModel::default(), 1076, 1_000_000).unwrap();
            let mut a = Arq::new(ArqConfig::retries(7, Dcf { ack_rate_bps: 2_000_000, ..Dcf::b11() }.timing(false))).unwrap();
            let mut ch = LossSource::Own { model: Box::new(model), rng: from_seed(3), mode: LossMode::Time };
            let (mut rng, mut t) = (from_seed(4), 0);
            while t < 7 * NS_PER_S {
                t = a.serve(t, 1040, &mut ch, &mut rng).end;
            }
            a.stats
        };
        let fixed_resid = fixed.residual_loss_rate().unwrap();
        assert!(fixed_resid > 0.05, "{fixed_resid}");
        for control in [RateControlKind::Aarf, RateControlKind::Minstrel] {
            let model = PhyChannel::new(step.clone(), PhyMode::by_name("cck11").unwrap(), ErrorModel::default(), 1076, 1_000_000).unwrap();
            let mut a = hop(control, 7);
            let mut ch = LossSource::Own { model: Box::new(model), rng: from_seed(3), mode: LossMode::Time };
            let (mut rng, mut t) = (from_seed(4), 0);
            while t < 7 * NS_PER_S {
                t = a.serve(t, 1040, &mut ch, &mut rng).end;
            }
            let st = &a.stats;
            let resid = st.residual_loss_rate().unwrap();
            println!("{control:?}: residual {resid:.4} (fixed 11 Mb/s {fixed_resid:.4}), rates {:?}", st.rates);
            assert!(resid < fixed_resid / 10.0, "{control:?}: {resid}");
            assert!(st.rates[0].successes + st.rates[1].successes > 300, "{:?}", st.rates);
            assert!(st.rates[3].successes > 2000, "{:?}", st.rates);
        }
    }

    #[test]
    fn an_erp_hop_times_each_rate_in_whole_symbols_and_reports_its_modes() {
        // 802.11g on the hop: AARF from 6 Mb/s; 10 successes → 9 Mb/s. Each attempt's channel
        // interval is its rate's ERP data + SIFS + ACK (whole 4-µs symbols, 6-µs signal
        // extension), its unit the PSDU in that OFDM mode.
        let params = RateAdaptParams { control: RateControlKind::Aarf, rate_set: RateSet::G, ..RateAdaptParams::default() };
        let cfg = RateAdaptConfig::with(params, &Dcf::b11()).unwrap();
        let dcfs = cfg.dcfs.clone();
        let mut a = Arq::new(ArqConfig::adaptive(7, LimitCounts::Retries, cfg, false)).unwrap();
        let mut ch = Script { fates: vec![], asked: vec![] };
        let mut rng = from_seed(1);
        let mut t = 0;
        for _ in 0..11 {
            t = a.serve(t, 1000, &mut ch, &mut rng).end;
        }
        let modes: Vec<&str> = ch.asked.iter().map(|(_, _, u)| u.mode.unwrap().name).collect();
        assert_eq!(modes[..10], ["ofdm6"; 10]);
        assert_eq!(modes[10], "ofdm9");
        assert_eq!(ch.asked[0].1 - ch.asked[0].0, 1_414_000 + 10_000 + 50_000); // ACK at 6 Mb/s: 20 + ⌈134/24⌉·4 + 6 = 50 µs
        assert_eq!(ch.asked[10].1 - ch.asked[10].0, dcfs[1].attempt_time(1000) - dcfs[1].difs);
        assert_eq!(ch.asked[0].2.bits, 8 * 1036);
        assert_eq!(a.stats.rates.iter().map(|r| r.mode).collect::<Vec<_>>()[..2], ["ofdm6", "ofdm9"]);
    }

    #[test]
    fn parse_and_checks() {
        use crate::param::Value;
        assert_eq!(RateControlKind::parse("minstrel"), Ok(RateControlKind::Minstrel));
        assert!(RateControlKind::parse("onoe").unwrap_err().to_string().contains("rate_control = onoe"));
        // the declared settings: names, defaults (ns-3's), ranges
        let names: Vec<_> = RateAdaptParams::PARAMS.iter().map(|p| p.name).collect();
        assert_eq!(names, ["rate_control", "rate_set", "ack_rates", "arf_success", "arf_timer", "minstrel_update", "minstrel_ewma", "minstrel_look_around", "minstrel_columns"]);
        let mut p = RateAdaptParams::default();
        assert_eq!(p.minstrel(), MinstrelParams::default());
        assert!(p.set("minstrel_ewma", Value::Int(101)).unwrap_err().to_string().contains("minstrel_ewma = 101"));
        p.set("rate_control", Value::Text("aarf".into())).unwrap();
        assert_eq!(p.control, RateControlKind::Aarf);
        let mut cfg = RateAdaptConfig::dsss(RateControlKind::Minstrel, &Dcf::b11()).unwrap();
        cfg.params.minstrel_update = 0;
        assert!(Adaptive::new(cfg).unwrap_err().to_string().contains("minstrel_update = 0"));
        assert!(RateAdaptConfig::dsss(RateControlKind::Fixed, &Dcf::b11()).map(Adaptive::new).unwrap().is_err());
        // ARF's thresholds from the settings: 3 successes step up
        let params = RateAdaptParams { control: RateControlKind::Arf, arf_success: 3, ..RateAdaptParams::default() };
        let cfg = RateAdaptConfig::with(params, &Dcf::b11()).unwrap();
        let mut a = Arq::new(ArqConfig::adaptive(7, LimitCounts::Retries, cfg, false)).unwrap();
        let mut ch = Script { fates: vec![], asked: vec![] };
        let mut t = 0;
        for _ in 0..4 {
            t = a.serve(t, 100, &mut ch, &mut from_seed(0)).end;
        }
        assert_eq!(ch.asked[3].2.mode.unwrap().name, "dsss2");
        // a short preamble hop keeps the long one at 1 Mb/s
        let short = Dcf::dsss(11_000_000, Preamble::Short).unwrap();
        let cfg = RateAdaptConfig::dsss(RateControlKind::Arf, &short).unwrap();
        assert_eq!((cfg.dcfs[0].plcp, cfg.dcfs[3].plcp), (192_000, 96_000));
        // Minstrel's retry chain bounds the attempts; the hop's limit bounds Minstrel's
        let a = run(RateControlKind::Minstrel, constant(-5.0), 2_000, LossMode::Packet);
        assert!(a.stats.attempts_per_frame.iter().skip(9).all(|&c| c == 0));
        assert!(a.stats.dropped > 1000, "{:?}", a.stats.rates);
    }
}
