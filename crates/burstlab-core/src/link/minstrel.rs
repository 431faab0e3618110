//! **Minstrel** 802.11 rate adaptation (Fietkau's Linux mac80211 `rc80211_minstrel`, after
//! Smithies' madwifi Minstrel and Bicket's SampleRate), as ns-3's `MinstrelWifiManager`
//! (`src/wifi/model/minstrel-wifi-manager.cc`, Nguyen and Richart) runs it. The controller
//! keeps per-rate statistics and picks, per attempt, the rate of a multi-rate retry chain:
//!
//! | rule | source (ns-3 `MinstrelWifiManager`) |
//! |---|---|
//! | every 100 ms (`UpdateStatistics`) each rate tried in the interval gets p = successes / attempts and EWMA prob = 25 % p + 75 % old (the first time: p) | `UpdateStats`, `EwmaLevel` 75 |
//! | throughput = prob × 1 / (perfect transmission time of a 1200-byte frame at that rate); prob < 10 % counts as 0 | `UpdateStats` (`PacketLength` 1200; the 10 % floor from Linux `minstrel_calc_rate_stats`) |
//! | maxTp = highest throughput, maxTp2 = second highest, maxProb = highest prob (among rates ≥ 95 %: the highest throughput) | `UpdateStats` |
//! | a rate whose prob is < 10 % or > 95 % is tried at most twice per stage and sampled at most 4 times per interval; otherwise its retry count | `UpdateStats` |
//! | a rate's retry count: the most attempts (2..10) whose air time (data + ACK timeout, average backoff of a doubling window from 31) fits in 6 ms, else 1 | `RateInit`, `CalculateTimeUnicastPacket` |
//! | look-around: a frame samples when total × 10 % − (sampled + deferred / 2) ≥ 0 (`LookAroundRate` 10); a backlog beyond 2 × rates is forgiven | `FindRate` |
//! | the sampled rate is the next entry of a table of 10 random permutations of the rates (`SampleColumn` 10), read row by row, column by column | `InitSampleTable`, `GetNextSample` |
//! | a sampled rate slower than maxTp (and sampled in the last 20 intervals) goes second in the chain ("deferred"); a faster one goes first | `FindRate` |
//! | chain, no sampling: maxTp, maxTp2, maxProb, lowest; sampling faster: sample, maxTp, maxProb, lowest; deferred: maxTp, sample, maxProb, lowest — each stage for its retry count | `UpdateRate` |
//! | a frame is dropped once its attempts reach the sum of the chain's retry counts | `DoNeedRetransmission`, `CountRetries` |
//!
//! burstlab keeps probabilities as floats where ns-3 scales them to integers (0..18000);
//! the ordering and thresholds are the same.
//!
//! The controller keeps one row of statistics per entry of the rate table it is given. ns-3
//! 3.44's 802.11b and 802.11g stations list each DSSS rate twice ([`super::rate::RateTable`]),
//! so its Minstrel keeps two rows per DSSS rate, each with its own EWMA, and that changes
//! what it chooses: maxTp is the best of two noisy estimates of a rate (a rate just below the
//! best becomes maxTp more often: at 6 dB, 11 Mb/s carries 44 % of 802.11b's attempts in
//! ns-3, 22 % with one row per rate), and maxTp2 is usually maxTp's twin, so a failed attempt
//! is retried at the best rate rather than the next one (docs/validation.md, "802.11b
//! Minstrel against ns-3's MinstrelWifiManager").
use super::rate::RateControl;
use super::wifi::Dcf;
use crate::rng::{from_seed, Rng, RngExt};
use crate::time::{Nanos, NS_PER_S};
use crate::Error;

/// Parameters, ns-3's attribute defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct MinstrelParams {
    /// Statistics update interval (`UpdateStatistics`, 100 ms).
    pub update: Nanos,
    /// Weight of the old EWMA value in percent (`EwmaLevel`, 75).
    pub ewma_level: u32,
    /// Share of frames that sample, percent (`LookAroundRate`, 10).
    pub look_around: u32,
    /// Columns of the sampling table (`SampleColumn`, 10).
    pub sample_columns: usize,
    /// Frame length of the perfect transmission times (`PacketLength`, 1200 bytes).
    pub packet_bytes: u32,
}

impl Default for MinstrelParams {
    fn default() -> Self {
        MinstrelParams { update: NS_PER_S / 10, ewma_level: 75, look_around: 10, sample_columns: 10, packet_bytes: 1200 }
    }
}

/// One rate's statistics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RateStats {
    /// Perfect transmission time of a `packet_bytes` frame.
    pub tx_time: Nanos,
    pub retry_count: u32,
    pub adjusted_retry: u32,
    /// Attempts and successes in the current interval.
    pub attempts: u64,
    pub successes: u64,
    /// All attempts and successes so far (closed intervals).
    pub attempt_hist: u64,
    pub success_hist: u64,
    /// EWMA success probability (0..1) and throughput estimate (frames/s).
    pub prob: f64,
    pub throughput: f64,
    /// Remaining samples this interval (-1: no limit).
    pub sample_limit: i32,
    pub samples_skipped: u32,
}

/// The Minstrel controller (module doc).
#[derive(Clone, Debug)]
pub struct Minstrel {
    pub params: MinstrelParams,
    pub rates: Vec<RateStats>,
    pub max_tp: usize,
    pub max_tp2: usize,
    pub max_prob: usize,
    sample_table: Vec<Vec<usize>>,
    s_index: usize,
    s_col: usize,
    sample_rate: usize,
    is_sampling: bool,
    deferred: bool,
    /// Frames finished, frames that sampled, deferred samples outstanding.
    pub total_frames: u64,
    pub sampled_frames: u64,
    deferred_count: u64,
    long_retry: u32,
    txrate: usize,
    next_update: Nanos,
}

impl Minstrel {
    /// A controller over `dcfs` (one per rate, slowest first: their timing gives the perfect
    /// transmission times and retry counts); `seed` draws the sampling table.
    pub fn new(dcfs: &[Dcf], params: MinstrelParams, seed: u64) -> crate::Result<Self> {
        let n = dcfs.len();
        if n < 2 {
            return Err(Error::param("rates", n, "at least two rates for Minstrel"));
        }
        if params.update == 0 || params.ewma_level > 100 || params.look_around > 100 || params.sample_columns == 0 || params.packet_bytes == 0 {
            return Err(Error::param("minstrel", format!("{params:?}"), "update > 0, ewma_level and look_around in 0..=100, sample_columns ≥ 1, packet_bytes ≥ 1"));
        }
        let rates = dcfs
            .iter()
            .map(|d| {
                let tx_time = d.data_time(params.packet_bytes);
                // ns-3 RateInit: the most retries (2..10) whose air time fits in 6 ms
                let ack_timeout = d.sifs + d.slot + d.ack_time();
                let mut retry_count = 1;
                for retries in 2..11u32 {
                    let (mut tt, mut cw) = (tx_time + ack_timeout, 31u64);
                    for _ in 0..retries {
                        tt += tx_time + ack_timeout + (cw / 2) * d.slot;
                        cw = ((cw + 1) * 2).min(1023);
                    }
                    if tt > 6_000_000 {
                        break;
                    }
                    retry_count = retries;
                }
                RateStats { tx_time, retry_count, adjusted_retry: retry_count, sample_limit: -1, ..Default::default() }
            })
            .collect();
        // ns-3 InitSampleTable: column c is a random permutation of the rates
        let mut rng: Rng = from_seed(seed);
        let cols = params.sample_columns;
        let mut sample_table = vec![vec![usize::MAX; cols]; n];
        #[allow(clippy::needless_range_loop)]
        for col in 0..cols {
            for i in 0..n {
                let mut k = (i + rng.random_range(0..n)) % n;
                while sample_table[k][col] != usize::MAX {
                    k = (k + 1) % n;
                }
                sample_table[k][col] = i;
            }
        }
        let next_update = params.update;
        Ok(Minstrel {
            params,
            rates,
            max_tp: 0,
            max_tp2: 0,
            max_prob: 0,
            sample_table,
            s_index: 0,
            s_col: 0,
            sample_rate: 0,
            is_sampling: false,
            deferred: false,
            total_frames: 0,
            sampled_frames: 0,
            deferred_count: 0,
            long_retry: 0,
            txrate: 0,
            next_update,
        })
    }

    /// ns-3 `UpdateStats`: close the interval if `now` has reached its end.
    pub fn update_stats(&mut self, now: Nanos) {
        if now < self.next_update {
            return;
        }
        self.next_update = now + self.params.update;
        let w = self.params.ewma_level as f64 / 100.0;
        for r in &mut self.rates {
            if r.attempts > 0 {
                r.samples_skipped = 0;
                let p = r.successes as f64 / r.attempts as f64;
                r.prob = if r.success_hist == 0 { p } else { (1.0 - w) * p + w * r.prob };
                // Linux minstrel_calc_rate_stats: below 10 % a rate is worth nothing
                r.throughput = if r.prob < 0.1 { 0.0 } else { r.prob * NS_PER_S as f64 / r.tx_time as f64 };
            } else {
                r.samples_skipped += 1;
            }
            r.success_hist += r.successes;
            r.attempt_hist += r.attempts;
            r.successes = 0;
            r.attempts = 0;
            if r.prob > 0.95 || r.prob < 0.1 {
                // rates that (almost) always or never work: two tries, four samples at most
                if r.retry_count > 2 {
                    r.adjusted_retry = 2;
                }
                r.sample_limit = 4;
            } else {
                r.sample_limit = -1;
                r.adjusted_retry = r.retry_count;
            }
            if r.adjusted_retry == 0 {
                r.adjusted_retry = 2;
            }
        }
        let best = |skip: Option<usize>| {
            let (mut idx, mut max) = (0, 0.0);
            for (i, r) in self.rates.iter().enumerate() {
                if Some(i) != skip && r.throughput > max {
                    idx = i;
                    max = r.throughput;
                }
            }
            idx
        };
        let max_tp = best(None);
        let max_tp2 = best(Some(max_tp));
        let (mut max_prob, mut p_max) = (0, 0.0);
        for (i, r) in self.rates.iter().enumerate() {
            // above 95 %: the fastest such rate; otherwise the most reliable
            if (r.prob >= 0.95 && r.throughput >= self.rates[max_prob].throughput) || r.prob >= p_max {
                max_prob = i;
                p_max = r.prob;
            }
        }
        self.max_tp = max_tp;
        self.max_tp2 = max_tp2;
        self.max_prob = max_prob;
        if max_tp > self.txrate {
            self.txrate = max_tp;
        }
    }

    /// ns-3 `GetNextSample`: the next entry of the sampling table (its last row is never
    /// read, as in ns-3: the index wraps once past `rates − 2`).
    fn next_sample(&mut self) -> usize {
        let r = self.sample_table[self.s_index][self.s_col];
        self.s_index += 1;
        if self.s_index > self.rates.len() - 2 {
            self.s_index = 0;
            self.s_col += 1;
            if self.s_col >= self.params.sample_columns {
                self.s_col = 0;
            }
        }
        r
    }

    /// ns-3 `FindRate`: the first rate of the next frame, deciding whether it samples.
    fn find_rate(&mut self) -> usize {
        if self.total_frames == 0 {
            return 0;
        }
        let n = self.rates.len() as i64;
        let delta = (self.total_frames * self.params.look_around as u64 / 100) as i64 - (self.sampled_frames + self.deferred_count / 2) as i64;
        if delta < 0 {
            return self.max_tp;
        }
        if delta > 2 * n {
            // Linux: forgive a sampling backlog rather than burst samples
            self.sampled_frames += (delta - 2 * n) as u64;
        }
        let idx = self.next_sample();
        self.sample_rate = idx;
        if self.rates[idx].tx_time > self.rates[self.max_tp].tx_time && self.rates[idx].samples_skipped < 20 {
            self.deferred = true;
            self.deferred_count += 1;
            self.is_sampling = true;
            return self.max_tp;
        }
        if self.rates[idx].sample_limit == 0 {
            self.is_sampling = false;
            return self.max_tp;
        }
        self.is_sampling = true;
        if self.rates[idx].sample_limit > 0 {
            self.rates[idx].sample_limit -= 1;
        }
        idx
    }

    /// ns-3 `UpdateRate`: the rate after `long_retry` failed attempts of this frame.
    fn chain_rate(&self) -> usize {
        let rt = |i: usize| self.rates[i].adjusted_retry;
        let lr = self.long_retry;
        let stages = if !self.is_sampling {
            [self.max_tp, self.max_tp2, self.max_prob]
        } else if self.deferred {
            [self.max_tp, self.sample_rate, self.max_prob]
        } else {
            [self.sample_rate, self.max_tp, self.max_prob]
        };
        if lr < rt(stages[0]) {
            stages[0]
        } else if lr <= rt(stages[0]) + rt(stages[1]) {
            stages[1]
        } else if lr <= rt(stages[0]) + rt(stages[1]) + rt(stages[2]) {
            stages[2]
        } else {
            0
        }
    }

    /// ns-3 `CountRetries`: the attempts a frame may take (the chain's retry counts).
    pub fn count_retries(&self) -> u32 {
        let rt = |i: usize| self.rates[i].adjusted_retry;
        let first = if self.is_sampling { self.sample_rate } else { self.max_tp2 };
        rt(self.max_tp) + rt(first) + rt(self.max_prob) + rt(0)
    }

    /// ns-3 `UpdatePacketCounters`: a frame is finished (delivered or dropped).
    fn frame_done(&mut self, now: Nanos) {
        self.total_frames += 1;
        if self.is_sampling && (!self.deferred || self.long_retry >= self.rates[self.max_tp].adjusted_retry) {
            self.sampled_frames += 1;
        }
        self.deferred_count = self.deferred_count.saturating_sub(1);
        self.is_sampling = false;
        self.deferred = false;
        self.long_retry = 0;
        self.update_stats(now);
        self.txrate = self.find_rate();
    }
}

impl RateControl for Minstrel {
    fn name(&self) -> &'static str {
        "minstrel"
    }

    fn rate(&mut self, _now: Nanos) -> usize {
        self.txrate
    }

    fn report(&mut self, now: Nanos, rate: usize, ok: bool) {
        let r = &mut self.rates[rate];
        r.attempts += 1;
        if ok {
            r.successes += 1;
            self.frame_done(now);
        } else {
            self.long_retry += 1;
            self.txrate = self.chain_rate();
        }
    }

    fn dropped(&mut self, now: Nanos) {
        self.frame_done(now);
    }

    fn max_attempts(&self) -> Option<u32> {
        Some(self.count_retries())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::rate::{measure, dsss_dcfs};
    use crate::loss::{Fading, Snr};
    use crate::phy::ErrorModel;

    fn minstrel(seed: u64) -> Minstrel {
        Minstrel::new(&dsss_dcfs(), MinstrelParams::default(), seed).unwrap()
    }

    fn constant(db: f64) -> Snr {
        Snr::Process { mean_db: db, fading: Fading::None, coherence: 0, sigma_db: 0.0, tau: 0 }
    }

    #[test]
    fn sampling_table_columns_are_permutations() {
        let m = minstrel(7);
        for col in 0..10 {
            let mut c: Vec<usize> = (0..4).map(|row| m.sample_table[row][col]).collect();
            c.sort();
            assert_eq!(c, vec![0, 1, 2, 3]);
        }
    }

    #[test]
    fn ewma_update_known_answer() {
        let mut m = minstrel(1);
        // first interval at 11 Mb/s: 8 of 10 succeed → prob 0.8 (no history: taken as is)
        for i in 0..10 {
            m.rates[3].attempts += 1;
            m.rates[3].successes += u64::from(i < 8);
        }
        m.update_stats(NS_PER_S / 10);
        assert!((m.rates[3].prob - 0.8).abs() < 1e-12);
        // second: 2 of 10 → 0.25 × 0.2 + 0.75 × 0.8 = 0.65
        for i in 0..10 {
            m.rates[3].attempts += 1;
            m.rates[3].successes += u64::from(i < 2);
        }
        m.update_stats(2 * NS_PER_S / 10);
        assert!((m.rates[3].prob - 0.65).abs() < 1e-12, "{}", m.rates[3].prob);
        let tp = 0.65 * NS_PER_S as f64 / m.rates[3].tx_time as f64;
        assert!((m.rates[3].throughput - tp).abs() < 1e-9);
        // a rate not tried keeps its value; before the interval ends nothing moves
        m.rates[3].attempts = 10;
        m.update_stats(2 * NS_PER_S / 10 + 1);
        assert!((m.rates[3].prob - 0.65).abs() < 1e-12);
    }

    #[test]
    fn throughput_ranking_and_ten_percent_floor() {
        let mut m = minstrel(1);
        // 1 Mb/s always works, 5.5 90 %, 11 Mb/s 40 %, 2 Mb/s 5 % (below the floor)
        for (rate, ok) in [(0, 100), (1, 5), (2, 90), (3, 40)] {
            m.rates[rate].attempts = 100;
            m.rates[rate].successes = ok;
        }
        m.update_stats(NS_PER_S / 10);
        assert_eq!(m.rates[1].throughput, 0.0);
        // 11 Mb/s at 40 %: 0.4 / t11 vs 5.5 at 90 %: 0.9 / t5.5
        let (t2, t3) = (m.rates[2].tx_time as f64, m.rates[3].tx_time as f64);
        assert!(0.4 / t3 < 0.9 / t2);
        assert_eq!((m.max_tp, m.max_tp2, m.max_prob), (2, 3, 0));
        // only the rates with prob > 95 % or < 10 % get a sampling limit
        assert_eq!(m.rates.iter().map(|r| r.sample_limit).collect::<Vec<_>>(), vec![4, 4, -1, -1]);
    }

    #[test]
    fn retry_chain_order() {
        let mut m = minstrel(1);
        for r in &mut m.rates {
            r.adjusted_retry = 2;
        }
        (m.max_tp, m.max_tp2, m.max_prob) = (3, 2, 1);
        m.is_sampling = false;
        let chain: Vec<usize> = (0..9)
            .map(|lr| {
                m.long_retry = lr;
                m.chain_rate()
            })
            .collect();
        // maxTp for 2 attempts, then maxTp2, maxProb (ns-3's ≤ bounds: 3 each after the first), lowest
        assert_eq!(chain, vec![3, 3, 2, 2, 2, 1, 1, 0, 0]);
        assert_eq!(m.count_retries(), 8);
        // sampling a faster rate: sample first; a slower one: deferred behind maxTp
        (m.max_tp, m.max_tp2, m.max_prob) = (2, 1, 0);
        m.is_sampling = true;
        m.sample_rate = 3;
        m.long_retry = 0;
        assert_eq!(m.chain_rate(), 3);
        m.long_retry = 2;
        assert_eq!(m.chain_rate(), 2);
        m.deferred = true;
        m.sample_rate = 1;
        m.long_retry = 0;
        assert_eq!(m.chain_rate(), 2);
        m.long_retry = 2;
        assert_eq!(m.chain_rate(), 1);
    }

    #[test]
    fn retry_counts_fit_six_ms() {
        // 1200-byte frames: 1 Mb/s takes ~10 ms per attempt (1 try), 11 Mb/s fits more
        let m = minstrel(1);
        assert_eq!(m.rates[0].retry_count, 1);
        assert!(m.rates[3].retry_count >= 2, "{:?}", m.rates[3]);
        assert!(m.rates.windows(2).all(|w| w[0].retry_count <= w[1].retry_count));
    }

    #[test]
    fn samples_about_ten_percent_of_frames() {
        // equal air times; rate 0 delivers 90 %, the others 30 %: rate 0 has the best
        // throughput and no sampled rate is slower, so a sample goes first in the chain
        let mut m = minstrel(3);
        for r in &mut m.rates {
            r.tx_time = 1_000_000;
        }
        let mut rng = from_seed(5);
        let (mut now, frames) = (0, 100_000u64);
        let mut sampled = 0u64;
        for _ in 0..frames {
            now += 1_000_000;
            let limit = m.max_attempts().unwrap();
            let first = m.rate(now);
            // a sample that draws maxTp itself still counts as a look-around frame (ns-3)
            if m.is_sampling {
                assert!(!m.deferred);
                sampled += 1;
            } else {
                assert_eq!(first, m.max_tp);
            }
            for a in 0..limit {
                let r = m.rate(now);
                let ok = rng.random_range(0..100) < if r == 0 { 90 } else { 30 };
                m.report(now, r, ok);
                if ok {
                    break;
                }
                if a + 1 == limit {
                    m.dropped(now);
                }
            }
        }
        assert_eq!(m.max_tp, 0);
        let share = sampled as f64 / frames as f64;
        assert!((share - 0.10).abs() < 0.01, "{share}");
        assert!((m.sampled_frames as f64 / m.total_frames as f64 - 0.10).abs() < 0.01);
    }

    #[test]
    fn converges_to_the_best_rate_at_constant_snr() {
        let model = ErrorModel::default();
        // 25 dB: 11 Mb/s never fails; 4 dB: 5.5 Mb/s is the best (AARF's test, rate.rs)
        for (db, best, share) in [(25.0, 3, 0.85), (4.0, 2, 0.6)] {
            let mut m = minstrel(1);
            let r = measure(&mut m, constant(db), model, 20_000, 1000, 7, &mut from_seed(2)).unwrap();
            let total: u64 = r.attempts.iter().sum();
            assert!(r.attempts[best] as f64 > share * total as f64, "{db} dB: {r:?}");
            assert_eq!(m.max_tp, best, "{db} dB");
        }
    }

    #[test]
    fn adapts_after_an_snr_step() {
        // 25 dB for 5 s, then 4 dB: 11 Mb/s first, then 5.5 Mb/s within a few intervals
        let model = ErrorModel::default();
        let step = Snr::Trace { times: vec![0, 5 * NS_PER_S], db: vec![25.0, 4.0], end: 6 * NS_PER_S, wrap: false };
        let mut m = minstrel(1);
        let r = measure(&mut m, step, model, 40_000, 1000, 7, &mut from_seed(2)).unwrap();
        assert!(r.duration > 10 * NS_PER_S, "{r:?}");
        assert_eq!(m.max_tp, 2, "{r:?}");
        // 11 Mb/s carried the first 5 s (> 3000 frames at ~850 frames/s), 5.5 the rest
        let total: u64 = r.attempts.iter().sum();
        assert!(r.attempts[3] > 3000 && r.attempts[2] as f64 > 0.6 * total as f64, "{r:?}");
        // the 5.5 Mb/s period delivers nearly everything
        assert!(r.delivered as f64 > 0.99 * r.frames as f64, "{r:?}");
    }

    #[test]
    fn two_rows_per_rate_raise_the_near_best_rates_share() {
        // ns-3's rate table lists each DSSS rate twice (link::rate::RateTable::Ns3): two rows
        // of statistics per rate, each its own EWMA. At 6 dB 11 Mb/s's (1 − PER)/air time lies
        // just below 5.5 Mb/s's; it becomes maxTp when a noisy EWMA climbs over 5.5's, and with
        // two rows whenever either does: over 5 runs its share of attempts rises by > 10 points
        use crate::link::rate::{measure_set, rate_set_acked, AckRates, RateSet, RateTable};
        let model = ErrorModel::default();
        let (modes, dcfs) = rate_set_acked(RateSet::B, AckRates::Mandatory, &Dcf::b11()).unwrap();
        let share_11 = |table: RateTable| {
            let entries = table.entries(&modes);
            let (m2, d2): (Vec<_>, Vec<_>) = entries.iter().map(|&i| (modes[i], dcfs[i])).unzip();
            let mut share = 0.0;
            for seed in 1..=5 {
                let mut m = Minstrel::new(&d2, MinstrelParams::default(), seed).unwrap();
                let r = measure_set(&mut m, &m2, &d2, constant(6.0), model, 20_000, 1000, 7, &mut from_seed(seed)).unwrap();
                let eleven: u64 = entries.iter().zip(&r.attempts).filter(|(&i, _)| i == 3).map(|(_, a)| a).sum();
                share += eleven as f64 / r.attempts.iter().sum::<u64>() as f64 / 5.0;
                if table == RateTable::Ns3 {
                    // both copies of 11 Mb/s were tried and keep their own estimates
                    let (a, b) = (&m.rates[3], &m.rates[7]);
                    assert!(a.attempt_hist > 100 && b.attempt_hist > 100, "{a:?} {b:?}");
                    assert_ne!(a.prob, b.prob);
                }
            }
            share
        };
        let (one, two) = (share_11(RateTable::Distinct), share_11(RateTable::Ns3));
        assert!(two > one + 0.10, "11 Mb/s share: one row {one}, two rows {two}");
    }
}
