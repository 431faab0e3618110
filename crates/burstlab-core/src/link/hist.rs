//! A fixed-size log-linear histogram of nanosecond durations (the idea of HdrHistogram):
//! values below 128 ns have a bucket each; above, every power of two is split into 64
//! equal buckets, so a bucket is at most 1/64 of its lower edge wide and the midpoint
//! reported for a percentile is within 0.8 % of any value in the bucket. 3776 counters
//! (30 KB) cover the whole u64 range; recording is a leading-zero count and an increment,
//! with no allocation. The count, sum, minimum and maximum are exact.
use crate::time::Nanos;

const SUB_BITS: u32 = 7;
const LINEAR: usize = 1 << SUB_BITS;
const HALF: usize = LINEAR / 2;
/// Buckets: LINEAR exact ones, then HALF per power of two from 2^SUB_BITS to 2^63.
pub const BUCKETS: usize = LINEAR + (64 - SUB_BITS as usize) * HALF;

#[derive(Clone, Debug, PartialEq)]
pub struct LogHist {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    min: Nanos,
    max: Nanos,
}

impl Default for LogHist {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn index(v: u64) -> usize {
    if v < LINEAR as u64 {
        v as usize
    } else {
        let e = 63 - v.leading_zeros(); // ≥ SUB_BITS
        let m = (v >> (e - (SUB_BITS - 1))) as usize; // top SUB_BITS bits: HALF ≤ m < LINEAR
        LINEAR + (e - SUB_BITS) as usize * HALF + (m - HALF)
    }
}

/// Lower edge and width of bucket `i`.
fn bounds(i: usize) -> (u64, u64) {
    if i < LINEAR {
        (i as u64, 1)
    } else {
        let j = i - LINEAR;
        let shift = (j / HALF) as u32 + 1;
        (((HALF + j % HALF) as u64) << shift, 1u64 << shift)
    }
}

impl LogHist {
    pub fn new() -> Self {
        LogHist { counts: vec![0; BUCKETS], n: 0, sum: 0, min: Nanos::MAX, max: 0 }
    }

    #[inline]
    pub fn record(&mut self, v: Nanos) {
        self.counts[index(v)] += 1;
        self.n += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Record `v` `k` times.
    #[inline]
    pub fn record_n(&mut self, v: Nanos, k: u64) {
        if k > 0 {
            self.counts[index(v)] += k;
            self.n += k;
            self.sum += v as u128 * k as u128;
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
    }

    pub fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.n = 0;
        self.sum = 0;
        self.min = Nanos::MAX;
        self.max = 0;
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// Exact mean (ns), None when empty.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum as f64 / self.n as f64)
    }

    pub fn min(&self) -> Option<Nanos> {
        (self.n > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<Nanos> {
        (self.n > 0).then_some(self.max)
    }

    /// The q-quantile (0 ≤ q ≤ 1) by nearest rank (the ⌈q·n⌉-th smallest value, at least
    /// the first): the midpoint of its bucket, clamped to [min, max] (exact below 128 ns
    /// and at the extremes). None when empty.
    pub fn quantile(&self, q: f64) -> Option<Nanos> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        let mut cum = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            cum += c;
            if cum >= rank {
                let (lo, w) = bounds(i);
                return Some((lo + (w - 1) / 2).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }

    /// Non-empty buckets as (lower edge, width, count), in increasing order.
    pub fn buckets(&self) -> impl Iterator<Item = (Nanos, Nanos, u64)> + '_ {
        self.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, &c)| {
            let (lo, w) = bounds(i);
            (lo, w, c)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_range() {
        // Consecutive buckets touch, and every probed value falls in its own bucket.
        let mut next = 0u64;
        for i in 0..BUCKETS {
            let (lo, w) = bounds(i);
            assert_eq!(lo, next, "bucket {i}");
            next = lo.wrapping_add(w);
            // Relative width ≤ 1/64 above the linear part.
            if i >= LINEAR {
                assert!(w * 64 <= lo, "bucket {i}: width {w} at {lo}");
            }
        }
        assert_eq!(next, 0, "the last bucket ends at 2^64");
        for v in [0, 1, 127, 128, 129, 255, 256, 1000, 1 << 20, (1 << 40) + 12345, u64::MAX - 1, u64::MAX] {
            let (lo, w) = bounds(index(v));
            assert!(v >= lo && v - lo < w, "{v} in [{lo}, +{w})");
        }
    }

    #[test]
    fn quantiles_and_moments() {
        let mut h = LogHist::new();
        assert_eq!(h.quantile(0.5), None);
        // 1..=100 ns: exact (linear buckets).
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), Some(50));
        assert_eq!(h.quantile(0.99), Some(99));
        assert_eq!(h.quantile(0.0), Some(1));
        assert_eq!(h.quantile(1.0), Some(100));
        assert_eq!(h.mean(), Some(50.5));
        // Large values: within 1/128 relative of the true quantile.
        let mut g = LogHist::new();
        for v in 0..10_000u64 {
            g.record(1_000_000 + v * 997);
        }
        for q in [0.1, 0.5, 0.9, 0.999] {
            let rank = (q * 10_000.0f64).ceil() as u64;
            let truth = (1_000_000 + (rank - 1) * 997) as f64;
            let got = g.quantile(q).unwrap() as f64;
            assert!((got - truth).abs() / truth <= 1.0 / 128.0, "q {q}: {got} vs {truth}");
        }
        assert_eq!(g.min(), Some(1_000_000));
        assert_eq!(g.max(), Some(1_000_000 + 9_999 * 997));
        assert_eq!(g.buckets().map(|(_, _, c)| c).sum::<u64>(), 10_000);
        g.clear();
        assert_eq!((g.count(), g.buckets().count()), (0, 0));
    }
}
