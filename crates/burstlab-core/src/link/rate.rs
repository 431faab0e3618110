//! 802.11 rate adaptation: which PHY rate each transmission attempt uses, chosen from what
//! the sender has seen (Barsocchi et al. name it as the level between the channel and ARQ
//! that they left out; docs/phy.md "Rate adaptation").
//!
//! **ARF** (Kamerman and Monteban, "WaveLAN-II: a high-performance wireless LAN for the
//! unlicensed band", 1997) and **AARF** (Lacage, Manshaei and Turletti, "IEEE 802.11 Rate
//! Adaptation: A Practical Approach", MSWiM 2004), as ns-3's `ArfWifiManager` and
//! `AarfWifiManager` run them, per attempt:
//!
//! | event | rule |
//! |---|---|
//! | success | timer += 1, success += 1, failed = 0, recovery = false; when success reaches the success threshold or timer the timer threshold (and a faster rate exists): one rate up, timer = success = 0, recovery = true (the next attempt is a probe) |
//! | failure | timer += 1, failed += 1, success = 0; a failed probe (recovery, failed = 1) falls back at once and, in AARF, doubles the success threshold (at most 60) and the timer threshold (at least 10) — ARF keeps them; otherwise every second consecutive failure falls back one rate and, in AARF, resets the thresholds to their minima (10 and 15) |
//!
//! [`measure`] runs a saturated 802.11b link (frames back to back, DCF timing per rate,
//! ACKs at the highest basic rate ≤ the data rate, a retry limit) over an SNR process with
//! size- and rate-aware errors ([`crate::phy`]), and counts each rate's attempts.
use super::wifi::{Dcf, Preamble};
use crate::loss::{LossModel, PhyChannel, Snr};
use crate::phy::{ErrorModel, Modulation, PerTable, PhyMode, MODES};
use crate::rng::{uniform, Rng, RngExt};
use crate::time::{Nanos, NS_PER_S};
use crate::Error;

/// A rate controller: the rate (an index into its modes, slowest first) of the next attempt,
/// and each attempt's outcome.
pub trait RateControl: std::fmt::Debug + Send {
    fn name(&self) -> &'static str;
    fn rate(&mut self, now: Nanos) -> usize;
    fn report(&mut self, now: Nanos, rate: usize, ok: bool);
    /// The frame was dropped after its last failed attempt (already reported).
    fn dropped(&mut self, _now: Nanos) {}
    /// A limit of the controller's own on a frame's attempts (Minstrel's retry chain).
    fn max_attempts(&self) -> Option<u32> {
        None
    }
}

/// ARF and AARF (ns-3's `ArfWifiManager`, `AarfWifiManager`; the table above).
#[derive(Clone, Debug, PartialEq)]
pub struct Aarf {
    /// AARF (thresholds adapt) or ARF (fixed).
    pub adaptive: bool,
    pub min_success: u32,
    pub min_timer: u32,
    pub max_success: u32,
    /// AARF's multipliers of the thresholds after a failed probe.
    pub success_k: f64,
    pub timer_k: f64,
    n_rates: usize,
    rate: usize,
    success: u32,
    failed: u32,
    timer: u32,
    recovery: bool,
    success_threshold: u32,
    timer_threshold: u32,
}

impl Aarf {
    /// ns-3's defaults: success threshold 10, timer 15; AARF's maximum 60 and factors 2.
    pub fn new(adaptive: bool, n_rates: usize) -> crate::Result<Self> {
        if n_rates == 0 {
            return Err(Error::param("rates", 0, "at least one rate"));
        }
        Ok(Aarf {
            adaptive,
            min_success: 10,
            min_timer: 15,
            max_success: 60,
            success_k: 2.0,
            timer_k: 2.0,
            n_rates,
            rate: 0,
            success: 0,
            failed: 0,
            timer: 0,
            recovery: false,
            success_threshold: 10,
            timer_threshold: 15,
        })
    }

    /// ARF or AARF with other (minimum) success and timer thresholds than ns-3's 10 and 15.
    pub fn with_thresholds(adaptive: bool, n_rates: usize, success: u32, timer: u32) -> crate::Result<Self> {
        if success == 0 || timer == 0 {
            return Err(Error::param("arf_success", success.min(timer), "thresholds of at least 1 attempt"));
        }
        let mut a = Self::new(adaptive, n_rates)?;
        (a.min_success, a.min_timer, a.success_threshold, a.timer_threshold) = (success, timer, success, timer);
        a.max_success = a.max_success.max(success);
        Ok(a)
    }

    pub fn current(&self) -> usize {
        self.rate
    }
}

impl RateControl for Aarf {
    fn name(&self) -> &'static str {
        if self.adaptive {
            "aarf"
        } else {
            "arf"
        }
    }

    fn rate(&mut self, _now: Nanos) -> usize {
        self.rate
    }

    fn report(&mut self, _now: Nanos, _rate: usize, ok: bool) {
        self.timer += 1;
        if ok {
            self.success += 1;
            self.failed = 0;
            self.recovery = false;
            if (self.success == self.success_threshold || self.timer == self.timer_threshold) && self.rate + 1 < self.n_rates {
                self.rate += 1;
                self.timer = 0;
                self.success = 0;
                self.recovery = true;
            }
            return;
        }
        self.failed += 1;
        self.success = 0;
        if self.recovery {
            if self.failed == 1 {
                // the probe failed: back at once (AARF: and wait twice as long next time)
                if self.adaptive {
                    self.success_threshold = ((self.success_threshold as f64 * self.success_k) as u32).min(self.max_success);
                    self.timer_threshold = ((self.timer_threshold as f64 * self.timer_k) as u32).max(self.min_success);
                }
                self.rate = self.rate.saturating_sub(1);
            }
            self.timer = 0;
        } else {
            if (self.failed - 1) % 2 == 1 {
                // two failures in a row: one rate down
                if self.adaptive {
                    self.timer_threshold = self.min_timer;
                    self.success_threshold = self.min_success;
                }
                self.rate = self.rate.saturating_sub(1);
            }
            if self.failed >= 2 {
                self.timer = 0;
            }
        }
    }
}

/// What a saturated rate-adaptive link did.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    pub frames: u64,
    pub delivered: u64,
    /// Simulated time from the first attempt to the end of the last.
    pub duration: Nanos,
    /// Attempts and successful attempts at each rate (the controller's modes, slowest first).
    pub attempts: Vec<u64>,
    pub successes: Vec<u64>,
    /// Network-layer bits delivered per second.
    pub throughput_bps: f64,
}

/// The 802.11b modes (1, 2, 5.5, 11 Mb/s) and the highest basic rate (1 or 2 Mb/s) at or
/// below each: the rate of its ACK.
pub fn dsss_modes() -> (Vec<&'static PhyMode>, Vec<u64>) {
    dsss_modes_acked(AckRates::Basic)
}

/// The 802.11b modes and each one's ACK rate under `ack` ([`AckRates`]).
pub fn dsss_modes_acked(ack: AckRates) -> (Vec<&'static PhyMode>, Vec<u64>) {
    let modes: Vec<&'static PhyMode> = ["dsss1", "dsss2", "cck5.5", "cck11"].iter().map(|n| PhyMode::by_name(n).expect("802.11b modes")).collect();
    let ack = modes
        .iter()
        .map(|m| match ack {
            AckRates::Basic => m.rate_bps.min(2_000_000),
            // every HR/DSSS rate is mandatory (IEEE 802.11-2016 §16.1.1): the data rate itself
            AckRates::Mandatory => m.rate_bps,
        })
        .collect();
    (modes, ack)
}

crate::named_enum!(
    /// Which rates an ACK may use: IEEE 802.11-2016 §10.6.6.5 sends a control response at the
    /// highest rate of the BSS's basic rate set at or below the rate of the frame it answers
    /// (and, when none is, at the highest mandatory rate of the PHY at or below it). The basic
    /// rate set is the BSS's configuration; the two common readings:
    ///
    /// | choice | DSSS data (1, 2, 5.5, 11 Mb/s) | ERP-OFDM data (6-54 Mb/s) |
    /// |---|---|---|
    /// | `basic` | {1, 2} Mb/s: 1, 2, 2, 2 (an 802.11b BSS's usual basic rate set) | {6, 12, 24}: 6, 6, 12, 12, 24, 24, 24, 24 |
    /// | `mandatory` | every mandatory rate is basic: the data rate itself | the same as `basic` |
    ///
    /// `mandatory` is what ns-3 3.44's ad hoc stations do: `AdhocWifiMac` calls
    /// `AddAllSupportedModes`, which adds every mandatory mode of the PHY to the basic rate set,
    /// so `GetControlAnswerMode` ACKs an 11 Mb/s frame at 11 Mb/s (checked on its air: the
    /// ACKs of a saturated 802.11b link are 14-byte frames at 11 Mb/s, long preamble).
    AckRates, "ack_rates" {
        Basic = "basic",
        Mandatory = "mandatory",
    }
);

crate::named_enum!(
    /// Which 802.11 rates a rate-adaptive hop chooses among.
    RateSet, "rate_set" {
        /// 802.11b: DSSS/HR-DSSS 1, 2, 5.5, 11 Mb/s.
        B = "b",
        /// 802.11g ERP-OFDM only: 6, 9, 12, 18, 24, 36, 48, 54 Mb/s.
        G = "g",
        /// Mixed 802.11b/g: the four DSSS rates, then the eight ERP-OFDM ones — the order ns-3's
        /// 802.11g station lists them in, which ARF and AARF step through (11 → 6 Mb/s is "up").
        Bg = "bg",
    }
);

crate::named_enum!(
    /// How a controller's table lists the rates of a rate set:
    ///
    /// | choice | entries | what it is |
    /// |---|---|---|
    /// | `distinct` | each rate once (802.11b: 1, 2, 5.5, 11 Mb/s) | the published algorithms' table (Linux mac80211's `rc80211_minstrel` keeps one row per rate) |
    /// | `ns3` | each DSSS/HR-DSSS rate twice, then the ERP-OFDM ones (802.11b: 1, 2, 5.5, 11, 1, 2, 5.5, 11) | ns-3 3.44's 802.11b and 802.11g stations: `WifiPhy::Configure80211b` registers its one `DsssPhy` under both the DSSS and the HR/DSSS modulation class, `WifiPhy::GetModeList` walks the PHY entities of both, and `AdhocWifiMac` copies that list into each remote station's rate set (`AddAllSupportedModes`) |
    ///
    /// Under `ns3` a controller keeps separate state for the two copies of a rate: Minstrel
    /// two rows of statistics, each with its own EWMA (docs/phy.md, "Minstrel"); ARF and
    /// AARF a ladder on which 11 Mb/s steps "up" to the second copy of 1 Mb/s. It exists to
    /// compare with ns-3; `distinct` is the default.
    RateTable, "rate_table" {
        Distinct = "distinct",
        Ns3 = "ns3",
    }
);

impl RateTable {
    /// The table's entries as indices into `modes` (a rate set's modes, [`rate_set`] order:
    /// the DSSS rates first): `distinct` 0..n, `ns3` the DSSS indices twice, then the rest.
    pub fn entries(self, modes: &[&PhyMode]) -> Vec<usize> {
        let n = modes.len();
        match self {
            RateTable::Distinct => (0..n).collect(),
            RateTable::Ns3 => {
                let dsss = modes.iter().take_while(|m| !matches!(m.modulation, Modulation::Ofdm(_) | Modulation::Oqpsk)).count();
                (0..dsss).chain(0..n).collect()
            }
        }
    }
}

/// The ERP-OFDM modes (6-54 Mb/s) and each one's ACK rate: the highest mandatory rate
/// (6, 12, 24 Mb/s) at or below it (IEEE 802.11-2016 §10.6.6.5, control response rate; ns-3
/// 3.44's `GetControlAnswerMode` gives the same).
pub fn erp_modes() -> (Vec<&'static PhyMode>, Vec<u64>) {
    let modes: Vec<&'static PhyMode> =
        ["ofdm6", "ofdm9", "ofdm12", "ofdm18", "ofdm24", "ofdm36", "ofdm48", "ofdm54"].iter().map(|n| PhyMode::by_name(n).expect("ERP modes")).collect();
    let ack = modes.iter().map(|m| [24_000_000, 12_000_000, 6_000_000].into_iter().find(|&a| a <= m.rate_bps).expect("≥ 6 Mb/s")).collect();
    (modes, ack)
}

/// A rate set's modes (in the order the controllers step through them) and each mode's DCF
/// timing, from `base`'s MAC settings (slot, SIFS, DIFS, CWmax, byte counts, the preamble of
/// the DSSS rates but 1 Mb/s, which has only the long one). 802.11b's rates ACK at the highest
/// basic rate (1 or 2 Mb/s) ≤ them; ERP-OFDM's at the highest mandatory rate ≤ them, with
/// ERP timing ([`Dcf::erp`]). With ERP rates (g, bg) the contention window starts at ERP's
/// aCWmin 15 for every rate; `base`'s CWmin must then be 802.11b's default (31): another one
/// is refused rather than silently replaced.
pub fn rate_set(set: RateSet, base: &Dcf) -> crate::Result<(Vec<&'static PhyMode>, Vec<Dcf>)> {
    rate_set_acked(set, AckRates::Basic, base)
}

/// [`rate_set`] with each ACK's rate under `ack` ([`AckRates`]).
pub fn rate_set_acked(set: RateSet, ack: AckRates, base: &Dcf) -> crate::Result<(Vec<&'static PhyMode>, Vec<Dcf>)> {
    let dsss = |cw_min: u32| {
        let (modes, ack) = dsss_modes_acked(ack);
        let dcfs: Vec<Dcf> = modes
            .iter()
            .zip(&ack)
            .map(|(m, &a)| {
                let plcp = if m.rate_bps <= 1_000_000 { Preamble::Long.duration() } else { base.plcp };
                Dcf { rate_bps: m.rate_bps, ack_rate_bps: a, plcp, cw_min, symbol: 0, signal_extension: 0, ..*base }
            })
            .collect();
        (modes, dcfs)
    };
    if set != RateSet::B && base.cw_min != super::wifi::DcfParams::default().cw_min {
        return Err(Error::param("cw_min", base.cw_min, "802.11b's 31 with rate_set g or bg (ERP's CWmin, 15, is used)"));
    }
    let erp = || {
        let (modes, ack) = erp_modes();
        let dcfs: Vec<Dcf> = modes.iter().zip(&ack).map(|(m, &a)| Dcf::erp(m.rate_bps, a, base)).collect();
        (modes, dcfs)
    };
    Ok(match set {
        RateSet::B => dsss(base.cw_min),
        RateSet::G => erp(),
        RateSet::Bg => {
            let (mut modes, mut dcfs) = dsss(super::wifi::ERP_CW_MIN);
            let (m, d) = erp();
            modes.extend(m);
            dcfs.extend(d);
            (modes, dcfs)
        }
    })
}

/// The DCF timing of each 802.11b mode (long preamble, ACK at the highest basic rate ≤ it).
pub fn dsss_dcfs() -> Vec<Dcf> {
    let (modes, ack) = dsss_modes();
    modes
        .iter()
        .zip(&ack)
        .map(|(m, a)| Dcf { ack_rate_bps: *a, ..Dcf::dsss(m.rate_bps, Preamble::Long).expect("802.11b timing") })
        .collect()
}

/// A saturated 802.11b link: `frames` network-layer packets of `packet_bytes`, each tried
/// until it gets through or `max_attempts` attempts have failed, every attempt at the rate
/// `rc` picks (DIFS, binary exponential backoff, data at that rate with a long preamble,
/// SIFS, ACK at the highest basic rate ≤ it; a failed attempt lasts as long), lost with the
/// PHY curves' probability for its PSDU (packet + LLC/SNAP 8 + MAC 28 bytes) at the SNR of
/// its start. The ACK (`ack_bytes`, 14, at its rate) is lost with its own curve's probability
/// at the same SNR, drawn from a stream of its own (so the data attempts' draws are not
/// shifted by it); a lost ACK fails the attempt, as in ns-3, whose sender sees
/// no ACK before its timeout (at 6 dB an 11 Mb/s ACK is lost 1.2 % of the time).
#[allow(clippy::too_many_arguments)]
pub fn measure(
    rc: &mut dyn RateControl,
    snr: Snr,
    model: ErrorModel,
    frames: u64,
    packet_bytes: u32,
    max_attempts: u32,
    rng: &mut Rng,
) -> crate::Result<Measured> {
    let (modes, _) = dsss_modes();
    measure_set(rc, &modes, &dsss_dcfs(), snr, model, frames, packet_bytes, max_attempts, rng)
}

/// [`measure`] over any rates: `modes` and their DCF timings `dcfs` ([`rate_set`]).
#[allow(clippy::too_many_arguments)]
pub fn measure_set(
    rc: &mut dyn RateControl,
    modes: &[&'static PhyMode],
    dcfs: &[Dcf],
    snr: Snr,
    model: ErrorModel,
    frames: u64,
    packet_bytes: u32,
    max_attempts: u32,
    rng: &mut Rng,
) -> crate::Result<Measured> {
    if max_attempts == 0 {
        return Err(Error::param("max_attempts", 0, "at least one attempt"));
    }
    if modes.len() != dcfs.len() || modes.is_empty() {
        return Err(Error::param("rates", modes.len(), "one DCF timing per mode"));
    }
    let psdu = packet_bytes + 8 + 28;
    let tables: Vec<PerTable> = modes.iter().map(|m| PerTable::cached(model, **m)).collect();
    let bits: Vec<f64> = tables.iter().map(|t| t.data_bits(psdu)).collect();
    // each rate's ACK: the 802.11 mode of its ACK rate (DSSS under DSSS data, OFDM under ERP)
    let ack_tables = modes
        .iter()
        .zip(dcfs)
        .map(|(m, d)| {
            let ofdm = matches!(m.modulation, Modulation::Ofdm(_));
            MODES
                .iter()
                .find(|a| a.rate_bps == d.ack_rate_bps && matches!(a.modulation, Modulation::Ofdm(_)) == ofdm && a.modulation != Modulation::Oqpsk)
                .map(|a| PerTable::cached(model, *a))
                .ok_or_else(|| Error::param("ack_rate", d.ack_rate_bps, &format!("an 802.11 rate of {}'s kind", m.name)))
        })
        .collect::<crate::Result<Vec<PerTable>>>()?;
    let ack_bits: Vec<f64> = ack_tables.iter().zip(dcfs).map(|(t, d)| t.data_bits(d.ack_bytes)).collect();
    let mut ack_rng = crate::rng::stream(rng.clone().random::<u64>(), crate::rng::component_id("ack"));
    // the SNR process, driven by attempt start times (its frame length is irrelevant here)
    let mut channel = PhyChannel::new(snr, modes[0], model, psdu, 1)?;
    let mut now: Nanos = 0;
    let (mut attempts, mut successes) = (vec![0u64; modes.len()], vec![0u64; modes.len()]);
    let mut delivered = 0;
    for _ in 0..frames {
        let limit = rc.max_attempts().map_or(max_attempts, |m| m.clamp(1, max_attempts.max(1)));
        for retry in 0..limit {
            let r = rc.rate(now).min(modes.len() - 1);
            let d = &dcfs[r];
            let cw = ((d.cw_min as u64 + 1) << retry.min(10)).min(d.cw_max as u64 + 1) - 1;
            now += d.difs + d.slot * rng.random_range(0..=cw);
            let snr_db = channel.snr_db_at(now, rng);
            let ok = uniform(rng) >= -tables[r].ln_success(snr_db, bits[r]).exp_m1()
                && uniform(&mut ack_rng) >= -ack_tables[r].ln_success(snr_db, ack_bits[r]).exp_m1();
            now += d.data_time(packet_bytes) + d.sifs + d.ack_time();
            attempts[r] += 1;
            rc.report(now, r, ok);
            if ok {
                successes[r] += 1;
                delivered += 1;
                break;
            }
            if retry + 1 == limit {
                rc.dropped(now);
            }
        }
    }
    channel.reset();
    let throughput_bps = if now > 0 { delivered as f64 * packet_bytes as f64 * 8.0 * NS_PER_S as f64 / now as f64 } else { 0.0 };
    Ok(Measured { frames, delivered, duration: now, attempts, successes, throughput_bps })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::Fading;
    use crate::rng::from_seed;

    fn constant(db: f64) -> Snr {
        Snr::Process { mean_db: db, fading: Fading::None, coherence: 0, sigma_db: 0.0, tau: 0 }
    }

    #[test]
    fn arf_steps_known_answer() {
        // 10 successes: up (a probe); its failure: straight back; two more failures: down
        let mut a = Aarf::new(false, 4).unwrap();
        for _ in 0..10 {
            a.report(0, a.current(), true);
        }
        assert_eq!(a.current(), 1);
        a.report(0, 1, false);
        assert_eq!(a.current(), 0);
        // 15 attempts with at most one failure in a row: the timer takes it up
        let mut a = Aarf::new(false, 4).unwrap();
        for i in 0..15 {
            a.report(0, 0, i % 3 != 0);
        }
        assert_eq!(a.current(), 1);
        // at rate 1, out of recovery: the second failure in a row falls back
        a.report(0, 1, true);
        a.report(0, 1, false);
        assert_eq!(a.current(), 1);
        a.report(0, 1, false);
        assert_eq!(a.current(), 0);
    }

    #[test]
    fn aarf_doubles_its_threshold_after_a_failed_probe() {
        let mut a = Aarf::new(true, 4).unwrap();
        for _ in 0..10 {
            a.report(0, 0, true);
        }
        assert_eq!(a.current(), 1);
        a.report(0, 1, false); // the probe fails
        assert_eq!((a.current(), a.success_threshold, a.timer_threshold), (0, 20, 30));
        // now 10 successes are not enough, 20 are
        for _ in 0..19 {
            a.report(0, 0, true);
        }
        assert_eq!(a.current(), 0);
        a.report(0, 0, true);
        assert_eq!(a.current(), 1);
        // repeated failed probes: the threshold stops at 60
        for _ in 0..5 {
            a.report(0, a.current(), false);
            while a.current() == 0 {
                a.report(0, 0, true);
            }
        }
        assert_eq!(a.success_threshold, 60);
        // two failures in a row out of recovery: down and back to the minima
        a.report(0, 1, true);
        a.report(0, 1, false);
        a.report(0, 1, false);
        assert_eq!((a.current(), a.success_threshold, a.timer_threshold), (0, 10, 15));
    }

    #[test]
    fn good_channel_climbs_to_11_and_bad_one_stays_low() {
        let model = ErrorModel::default();
        let mut rng = from_seed(1);
        let mut a = Aarf::new(true, 4).unwrap();
        let m = measure(&mut a, constant(25.0), model, 5000, 1000, 7, &mut rng).unwrap();
        assert!(m.attempts[3] as f64 > 0.95 * m.attempts.iter().sum::<u64>() as f64, "{m:?}");
        assert_eq!(m.delivered, 5000);
        // at 25 dB no loss: the MAC throughput is the 11 Mb/s DCF capacity with its ACK at 2 Mb/s
        let cap = Dcf { ack_rate_bps: 2_000_000, ..Dcf::b11() }.capacity_bps(1000);
        assert!((m.throughput_bps / cap - 1.0).abs() < 0.03, "{} vs {cap}", m.throughput_bps);
        // at 2 dB 5.5 and 11 Mb/s lose nearly every frame (PER 0.99 and 1), 2 Mb/s 3 %:
        // AARF spends most attempts at 1-2 Mb/s
        let mut a = Aarf::new(true, 4).unwrap();
        let m = measure(&mut a, constant(2.0), model, 5000, 1000, 7, &mut rng).unwrap();
        assert!(m.attempts[0] + m.attempts[1] > 3 * (m.attempts[2] + m.attempts[3]), "{m:?}");
        assert!(m.delivered > 4900);
        // at 4 dB (5.5 Mb/s: PER 10 %) the best rate is 5.5 Mb/s and AARF uses it most
        let mut a = Aarf::new(true, 4).unwrap();
        let m = measure(&mut a, constant(4.0), model, 5000, 1000, 7, &mut rng).unwrap();
        assert!(m.attempts[2] > m.attempts[0] + m.attempts[1] + m.attempts[3], "{m:?}");
    }

    /// The rate with the most delivered bits per second of air time at `db` from the curves:
    /// (1 − PER) / (DIFS + mean first backoff + data + SIFS + ACK).
    fn best_rate(modes: &[&'static PhyMode], dcfs: &[Dcf], db: f64) -> usize {
        let model = ErrorModel::default();
        let score = |i: usize| {
            let t = PerTable::cached(model, *modes[i]);
            let ok = t.ln_success(db, t.data_bits(1036)).exp();
            ok / (dcfs[i].attempt_time(1000) as f64 + dcfs[i].mean_backoff())
        };
        (0..modes.len()).max_by(|&a, &b| score(a).total_cmp(&score(b))).unwrap()
    }

    #[test]
    fn erp_rates_and_their_acks_are_the_standards() {
        let (modes, dcfs) = rate_set(RateSet::G, &Dcf::b11()).unwrap();
        let mbps: Vec<u64> = modes.iter().map(|m| m.rate_bps / 1_000_000).collect();
        assert_eq!(mbps, [6, 9, 12, 18, 24, 36, 48, 54]);
        let acks: Vec<u64> = dcfs.iter().map(|d| d.ack_rate_bps / 1_000_000).collect();
        assert_eq!(acks, [6, 6, 12, 12, 24, 24, 24, 24]); // ns-3 3.44 GetControlAnswerMode
        assert!(dcfs.iter().all(|d| d.cw_min == 15 && d.symbol == 4000 && d.signal_extension == 6000 && d.plcp == 20_000));
        // bg: ns-3's 802.11g order, the DSSS rates with ERP's CWmin
        let (modes, dcfs) = rate_set(RateSet::Bg, &Dcf::b11()).unwrap();
        assert_eq!(modes.iter().map(|m| m.name).collect::<Vec<_>>()[3..5], ["cck11", "ofdm6"]);
        assert_eq!((dcfs[3].cw_min, dcfs[3].symbol, dcfs[3].ack_rate_bps), (15, 0, 2_000_000));
        // another CWmin is refused, not replaced silently
        let e = rate_set(RateSet::G, &Dcf { cw_min: 7, ..Dcf::b11() }).unwrap_err().to_string();
        assert!(e.contains("cw_min = 7"), "{e}");
        assert_eq!(rate_set(RateSet::B, &Dcf::b11()).unwrap().1, dsss_dcfs());
    }

    #[test]
    fn ack_rates_basic_or_mandatory() {
        // basic: an 802.11b BSS's {1, 2} Mb/s; mandatory: every HR/DSSS rate, so the ACK goes
        // at the data rate (ns-3 3.44's ad hoc station); ERP's answer is the same under both
        let ack = |set, a| rate_set_acked(set, a, &Dcf::b11()).unwrap().1.iter().map(|d| d.ack_rate_bps).collect::<Vec<u64>>();
        assert_eq!(ack(RateSet::B, AckRates::Basic), [1_000_000, 2_000_000, 2_000_000, 2_000_000]);
        assert_eq!(ack(RateSet::B, AckRates::Mandatory), [1_000_000, 2_000_000, 5_500_000, 11_000_000]);
        assert_eq!(ack(RateSet::G, AckRates::Basic), ack(RateSet::G, AckRates::Mandatory));
        assert_eq!(ack(RateSet::Bg, AckRates::Mandatory)[..4], [1_000_000, 2_000_000, 5_500_000, 11_000_000]);
        // one 1000-byte IP packet at 11 Mb/s, long preamble, no backoff: ns-3's shortest gap
        // between two data frames of a lossless saturated link is 1209 µs = DIFS 50 + data
        // 946 + SIFS 10 + ACK 203 (its PHY rounds each PPDU up to a whole µs: 945.45 → 946,
        // 202.18 → 203); burstlab's mandatory reading gives the same to those roundings, the
        // basic one 45.8 µs more (the 14-byte ACK at 2 Mb/s instead of 11): 3 % of the
        // 1 563-µs mean attempt, the gap between the two at 8 dB
        let (_, d) = rate_set_acked(RateSet::B, AckRates::Mandatory, &Dcf::b11()).unwrap();
        assert_eq!(d[3].attempt_time(1000), 50_000 + 945_455 + 10_000 + 202_182);
        let (_, basic) = rate_set_acked(RateSet::B, AckRates::Basic, &Dcf::b11()).unwrap();
        assert_eq!(basic[3].attempt_time(1000) - d[3].attempt_time(1000), 248_000 - 202_182);
        assert_eq!(AckRates::parse("mandatory").unwrap(), AckRates::Mandatory);
        assert!(AckRates::parse("all").unwrap_err().to_string().contains("ack_rates = all"));
    }

    #[test]
    fn aarf_and_minstrel_over_erp_rates_find_the_best_rate_of_the_curves() {
        // 802.11g ERP-OFDM (NIST curves, 1000-byte packets): at each SNR the rate with the best
        // (1 − PER)/air time carries most attempts, for AARF and Minstrel; at 30 dB, 54 Mb/s
        // with nothing lost: the 54 Mb/s DCF capacity (ACK at 24 Mb/s, CWmin 15)
        let model = ErrorModel::default();
        let (modes, dcfs) = rate_set(RateSet::G, &Dcf::b11()).unwrap();
        let mut rng = from_seed(5);
        for db in [8.0, 14.0, 20.0, 30.0] {
            let best = best_rate(&modes, &dcfs, db);
            let mut ctl: Vec<Box<dyn RateControl>> =
                vec![Box::new(Aarf::new(true, 8).unwrap()), Box::new(super::super::minstrel::Minstrel::new(&dcfs, Default::default(), 9).unwrap())];
            for rc in ctl.iter_mut() {
                let m = measure_set(rc.as_mut(), &modes, &dcfs, constant(db), model, 5000, 1000, 7, &mut rng).unwrap();
                let n: u64 = m.attempts.iter().sum();
                assert!(m.attempts[best] as f64 > 0.7 * n as f64, "{} at {db} dB: best {best}, {m:?}", rc.name());
                if db == 30.0 {
                    assert_eq!(best, 7);
                    assert_eq!(m.delivered, 5000);
                    if rc.name() == "aarf" {
                        let cap = dcfs[7].capacity_bps(1000);
                        assert!((m.throughput_bps / cap - 1.0).abs() < 0.03, "{} vs {cap}", m.throughput_bps);
                    }
                }
            }
        }
    }

    #[test]
    fn aarf_probes_less_than_arf_where_the_next_rate_fails() {
        // at 5 dB the 11 Mb/s probes fail: AARF's doubling threshold probes less often
        let model = ErrorModel::default();
        let count = |adaptive: bool| {
            let mut a = Aarf::new(adaptive, 4).unwrap();
            let m = measure(&mut a, constant(5.0), model, 20_000, 1000, 7, &mut from_seed(3)).unwrap();
            (m.attempts[3], m.throughput_bps)
        };
        let (arf_probes, arf_tp) = count(false);
        let (aarf_probes, aarf_tp) = count(true);
        assert!(aarf_probes * 2 < arf_probes, "{aarf_probes} vs {arf_probes}");
        assert!(aarf_tp > arf_tp, "{aarf_tp} vs {arf_tp}");
    }

    #[test]
    fn ns3_rate_table_lists_dsss_twice() {
        let entries = |set| {
            let (modes, _) = rate_set(set, &Dcf::b11()).unwrap();
            (RateTable::Distinct.entries(&modes), RateTable::Ns3.entries(&modes))
        };
        assert_eq!(entries(RateSet::B), (vec![0, 1, 2, 3], vec![0, 1, 2, 3, 0, 1, 2, 3]));
        // 802.11g: the DSSS rates twice, then the eight ERP-OFDM ones (ns-3's 16 rows)
        let (d, n) = entries(RateSet::Bg);
        assert_eq!(d, (0..12).collect::<Vec<_>>());
        assert_eq!(n, [0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        // no DSSS rate: nothing doubles
        assert_eq!(entries(RateSet::G).1, (0..8).collect::<Vec<_>>());
        assert_eq!(RateTable::parse("ns3").unwrap(), RateTable::Ns3);
        assert!(RateTable::parse("dup").unwrap_err().to_string().contains("rate_table"));
    }

    /// Always the same rate.
    #[derive(Debug)]
    struct Fixed(usize);

    impl RateControl for Fixed {
        fn name(&self) -> &'static str {
            "fixed"
        }
        fn rate(&mut self, _now: Nanos) -> usize {
            self.0
        }
        fn report(&mut self, _now: Nanos, _rate: usize, _ok: bool) {}
    }

    #[test]
    fn an_attempt_succeeds_when_data_and_ack_get_through() {
        // 11 Mb/s at 5 dB with its ACK at 11 Mb/s (mandatory): an attempt succeeds with
        // P(data) · P(ACK), the 1 036-byte PSDU's and the 14-byte ACK's curves (within 5
        // standard errors over 40 000 attempts); with the ACK at 2 Mb/s (basic) the ACK is
        // (almost) never lost
        let model = ErrorModel::default();
        let db = 5.0;
        for (ack, ack_mode) in [(AckRates::Mandatory, "cck11"), (AckRates::Basic, "dsss2")] {
            let (modes, dcfs) = rate_set_acked(RateSet::B, ack, &Dcf::b11()).unwrap();
            let p_data = 1.0 - model.frame_error(modes[3], db, 1036);
            let p_ack = 1.0 - model.frame_error(PhyMode::by_name(ack_mode).unwrap(), db, 14);
            let m = measure_set(&mut Fixed(3), &modes, &dcfs, constant(db), model, 40_000, 1000, 1, &mut from_seed(8)).unwrap();
            let (n, ok) = (m.attempts[3] as f64, m.successes[3] as f64);
            let p = p_data * p_ack;
            assert!((ok / n - p).abs() < 5.0 * (p * (1.0 - p) / n).sqrt(), "{ack:?}: {} vs {p} (data {p_data}, ACK {p_ack})", ok / n);
            if ack == AckRates::Mandatory {
                assert!(p_ack < 0.99 && p_ack > 0.9, "{p_ack}");
            } else {
                assert!(p_ack > 0.9999, "{p_ack}");
            }
        }
    }
}
