//! The one log-linear histogram of the crate (HdrHistogram's layout, simplified): a
//! link's queueing delays ([`crate::results::LinkResult::queue_delay`], `SUB` = 5) and a
//! link layer's attempt times and frame latencies ([`Durations`]: `SUB` = 6 and an exact
//! minimum, [`crate::link::LinkStats`]).
//!
//! Values below 2^SUB have a bin each (exact); above, every power of two is split into
//! 2^SUB equal bins, so a bin is at most 1/2^SUB of its lower edge wide (SUB = 5: 3.1 %;
//! SUB = 6: 1.6 %, and exact below 128). Recording is on the engine's per-packet path: the
//! bins grow only up to the largest value seen (a link that never queues holds one), zeros
//! are counted apart (two instructions instead of a bin lookup), and the count is the bins'
//! sum, taken when read. A bin counts in 16 bits and carries past 65,535 into a 64-bit
//! array made only then (a run of 10,000 flows holds 20,000 links' histograms: a quarter of
//! the memory of 64-bit bins; the carry costs the record one branch, taken once per 65,536
//! values of a bin). The sum and maximum are exact, and so is the minimum with
//! `EXACT_MIN` (a compile-time choice: the queueing delays, recorded per packet, do without).
//!
//! Two readings of a quantile, one per use (each kept as its results were made):
//! [`LogHistogram::quantile`], the midpoint of the bin as a real number (the maximum itself
//! for q = 1), and [`LogHistogram::quantile_clamped`], the nearest rank's bin midpoint in
//! whole nanoseconds, clamped to the exact [min, max].
use crate::time::Nanos;

/// A link layer's durations (attempt times, frame latencies): 64 bins per power of two,
/// exact below 128 ns, exact minimum.
pub type Durations = LogHistogram<6, true>;

#[derive(Clone, Debug)]
pub struct LogHistogram<const SUB: u32 = 5, const EXACT_MIN: bool = false> {
    /// Bins lo..lo + len; the others are empty. Bin 0's count is `zeros` more. Only the
    /// powers of two between the smallest and the largest value seen are held: a link
    /// whose queueing delays are all near one packet's transmission time holds 32 bins,
    /// not the ~400 below them (memory per link with thousands of access links).
    /// The counts' low 16 bits: a quarter of the memory of 64-bit counts (a 10,000-flow
    /// dumbbell held 27 MB of them, 20,000 links' worth); a bin that passes 2^16 − 1 carries
    /// into `carries`.
    counts: Vec<u16>,
    /// The counts above the low 16 bits (in units of 2^16), beside `counts` (same index),
    /// made on the first carry: only a histogram with a bin of 65,536 values holds them (a
    /// busy link's, not the thousands of access links'). Boxed: one word while absent.
    #[allow(clippy::box_collection)]
    carries: Option<Box<Vec<u64>>>,
    lo: usize,
    /// Values of 0 (most queueing delays on a link that is not the bottleneck).
    zeros: u64,
    /// Sum of the values modulo 2^64 (it wraps past 1.8·10^19: 584 years of summed
    /// nanoseconds; [`LogHistogram::unwrapped_sum`] recovers the wraps from the bins).
    sum: u64,
    max: u64,
    /// Smallest value other than 0 (u64::MAX before one), kept when `EXACT_MIN`.
    min: u64,
}

impl<const SUB: u32, const EXACT_MIN: bool> Default for LogHistogram<SUB, EXACT_MIN> {
    fn default() -> Self {
        LogHistogram { counts: Vec::new(), carries: None, lo: 0, zeros: 0, sum: 0, min: u64::MAX, max: 0 }
    }
}

impl<const SUB: u32, const EXACT_MIN: bool> PartialEq for LogHistogram<SUB, EXACT_MIN> {
    /// Equal bins (whatever the length each has grown to), sum, minimum and maximum.
    fn eq(&self, o: &Self) -> bool {
        let n = self.hi().max(o.hi()).max(1);
        self.sum == o.sum && self.min == o.min && self.max == o.max && (0..n).all(|b| self.bin_count(b) == o.bin_count(b))
    }
}

impl<const SUB: u32, const EXACT_MIN: bool> LogHistogram<SUB, EXACT_MIN> {
    pub const BINS: usize = ((64 - SUB as usize) + 1) << SUB;

    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub(crate) fn bin(v: u64) -> usize {
        let sub = 1u64 << SUB;
        if v < sub {
            return v as usize;
        }
        let e = 63 - v.leading_zeros(); // ≥ SUB
        let shift = e - SUB;
        (((e - SUB + 1) as u64) << SUB) as usize + ((v >> shift) - sub) as usize
    }

    /// The smallest value of bin `b`.
    pub(crate) fn low(b: usize) -> u64 {
        let sub = 1usize << SUB;
        if b < sub {
            return b as u64;
        }
        let e = (b >> SUB) as u32 + SUB - 1;
        let m = (b & (sub - 1)) as u64 + sub as u64;
        m << (e - SUB)
    }

    /// The width of bin `b` (1 below 2^SUB).
    fn width(b: usize) -> u64 {
        if b < 1 << SUB {
            1
        } else {
            1 << ((b >> SUB) - 1)
        }
    }

    /// The exclusive upper edge of bin `b` (u64::MAX for the last).
    fn high(b: usize) -> u64 {
        if b + 1 < Self::BINS {
            Self::low(b + 1)
        } else {
            u64::MAX
        }
    }

    /// One past the last bin held.
    fn hi(&self) -> usize {
        self.lo + self.counts.len()
    }

    /// The count of held bin `i` (bin `lo + i`), its carries included.
    fn held(&self, i: usize) -> u64 {
        let carries = self.carries.as_ref().map_or(0, |c| c[i]);
        carries << 16 | self.counts[i] as u64
    }

    /// The count of bin `b`.
    fn bin_count(&self, b: usize) -> u64 {
        let held = b.checked_sub(self.lo).filter(|&i| i < self.counts.len()).map_or(0, |i| self.held(i));
        held + if b == 0 { self.zeros } else { 0 }
    }

    /// Add `k` to held bin `i`.
    #[inline]
    fn add(&mut self, i: usize, k: u64) {
        let c = &mut self.counts[i];
        let v = *c as u64 + k;
        *c = v as u16;
        if v >> 16 != 0 {
            self.carry(i, v >> 16);
        }
    }

    /// Held bin `i`'s low count passed 2^16 − 1: `k` more units of 2^16 (one call per
    /// 65,536 values of a bin: off the per-packet path's cost).
    #[cold]
    #[inline(never)]
    fn carry(&mut self, i: usize, k: u64) {
        let n = self.counts.len();
        let carries = self.carries.get_or_insert_with(|| Box::new(vec![0; n]));
        carries[i] = carries[i].wrapping_add(k); // (wraps as a 64-bit count would)
    }

    /// (bin, count) of bin 0 (it holds the zeros) and of every bin held, in increasing order.
    fn bin_counts(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        std::iter::once(0).chain(self.lo.max(1)..self.hi()).map(|b| (b, self.bin_count(b)))
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        if v == 0 {
            self.zeros += 1;
            return;
        }
        let b = Self::bin(v);
        match self.counts.get_mut(b.wrapping_sub(self.lo)) {
            Some(c) => {
                let (n, over) = c.overflowing_add(1);
                *c = n;
                if over {
                    self.carry(b - self.lo, 1);
                }
            }
            None => self.grow(b),
        }
        self.sum = self.sum.wrapping_add(v);
        if EXACT_MIN {
            self.min = self.min.min(v);
        }
        self.max = self.max.max(v);
    }

    /// Record `v` `k` times.
    #[inline]
    pub fn record_n(&mut self, v: u64, k: u64) {
        if k == 0 {
            return;
        }
        if v == 0 {
            self.zeros += k;
            return;
        }
        let b = Self::bin(v);
        if b.wrapping_sub(self.lo) < self.counts.len() {
            self.add(b - self.lo, k);
        } else {
            self.grow(b);
            self.add(b - self.lo, k - 1);
        }
        self.sum = self.sum.wrapping_add(v.wrapping_mul(k));
        if EXACT_MIN {
            self.min = self.min.min(v);
        }
        self.max = self.max.max(v);
    }

    /// Count a value in bin `b`, outside the bins held so far: hold from the start of its
    /// power of two (if below) or up to its end (if above).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, b: usize) {
        let (start, end) = ((b >> SUB) << SUB, (((b >> SUB) + 1) << SUB).min(Self::BINS));
        // Exactly the octaves spanned, not Vec's doubling: a run of many flows holds one
        // histogram per link, and this is called once per new octave only.
        let span = if self.counts.is_empty() {
            end - start
        } else if b < self.lo {
            self.hi() - start
        } else {
            end - self.lo
        };
        // The new bins go below the old (`below` of them) or above; the carries, if any, grow
        // alike.
        let below = if b < self.lo && !self.counts.is_empty() { self.lo - start } else { 0 };
        let lo = if self.counts.is_empty() || b < self.lo { start } else { self.lo };
        fn fit<T: Copy + Default>(c: &mut Vec<T>, below: usize, span: usize) {
            c.reserve_exact(span - c.len());
            c.splice(0..0, std::iter::repeat_n(T::default(), below));
            c.resize(span, T::default());
        }
        fit(&mut self.counts, below, span);
        if let Some(c) = self.carries.as_deref_mut() {
            fit(c, below, span);
        }
        self.lo = lo;
        self.counts[b - self.lo] += 1;
    }

    /// Empty it (the bins keep their memory).
    pub fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.carries = None;
        (self.zeros, self.sum, self.min, self.max) = (0, 0, u64::MAX, 0);
    }

    pub fn count(&self) -> u64 {
        self.zeros + (0..self.counts.len()).map(|i| self.held(i)).sum::<u64>()
    }

    pub fn sum(&self) -> u64 {
        self.sum
    }

    /// The mean, None when empty: exact while the sum is known exactly
    /// ([`LogHistogram::unwrapped_sum`]), else the midpoint of the bins' bounds on it (within
    /// 1/2^(SUB+1) of the truth: 1.6 % with SUB = 5).
    pub fn mean(&self) -> Option<f64> {
        let n = self.count();
        (n > 0).then(|| {
            let total = self.unwrapped_sum().map_or_else(
                || {
                    let (lo, hi) = self.sum_bounds();
                    (lo as f64 + hi as f64) / 2.0
                },
                |s| s as f64,
            );
            total / n as f64
        })
    }

    /// The bounds the bins put on the sum of the values: each value lies between its bin's
    /// edges (and at most the maximum).
    fn sum_bounds(&self) -> (u128, u128) {
        let (mut lo, mut hi) = (0u128, 0u128);
        for (b, c) in self.bin_counts() {
            lo += Self::low(b) as u128 * c as u128;
            hi += (Self::high(b) - 1).min(self.max) as u128 * c as u128;
        }
        (lo, hi)
    }

    /// The sum of the values, exactly, when it can be told. `sum` counts modulo 2^64 (one add
    /// per value on the engine's per-packet path): a run long enough wraps it — 8000 s of a
    /// lossless flow into an unbounded buffer reported a mean queueing delay of 721 s for a
    /// median of 2010 s (benchmarks/scale_audit.py). The bins bound the true sum; while the
    /// bounds are less than 2^64 apart (a sum below ~5.9·10^20 with SUB = 5) exactly one
    /// number congruent to `sum` lies between them.
    pub fn unwrapped_sum(&self) -> Option<u128> {
        const WRAP: u128 = 1 << 64;
        let (lo, hi) = self.sum_bounds();
        if hi - lo >= WRAP {
            return None;
        }
        let s = self.sum as u128;
        let k = if lo > s { (lo - s).div_ceil(WRAP) } else { 0 };
        let total = s + k * WRAP;
        (total <= hi).then_some(total)
    }

    /// The smallest value: exact with `EXACT_MIN`, else the lower edge of the lowest bin
    /// held (exact below 2^SUB).
    pub fn min(&self) -> Option<u64> {
        if self.zeros > 0 {
            return Some(0);
        }
        if EXACT_MIN {
            return (self.count() > 0).then_some(self.min);
        }
        (0..self.counts.len()).position(|i| self.held(i) > 0).map(|i| Self::low(self.lo + i))
    }

    pub fn max(&self) -> Option<u64> {
        (self.count() > 0).then_some(self.max)
    }

    /// The q-quantile (0 ≤ q ≤ 1): the midpoint of the bin holding it (the maximum itself
    /// for q = 1). The reading of a link's queueing delay.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        if q >= 1.0 {
            return Some(self.max as f64);
        }
        let rank = ((q.max(0.0) * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (b, c) in self.bin_counts() {
            seen += c;
            if seen >= rank {
                return Some(((Self::low(b) as f64 + Self::high(b) as f64 - 1.0) / 2.0).min(self.max as f64));
            }
        }
        Some(self.max as f64)
    }

    /// The q-quantile (0 ≤ q ≤ 1) by nearest rank (the ⌈q·n⌉-th smallest value, at least
    /// the first): the midpoint of its bin in whole nanoseconds, clamped to [min, max]
    /// (exact below 2^SUB and at the extremes). The reading of a link layer's durations.
    pub fn quantile_clamped(&self, q: f64) -> Option<Nanos> {
        let (n, min) = (self.count(), self.min()?);
        let rank = ((q.clamp(0.0, 1.0) * n as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (b, c) in self.bin_counts() {
            seen += c;
            if seen >= rank {
                return Some((Self::low(b) + (Self::width(b) - 1) / 2).clamp(min, self.max));
            }
        }
        Some(self.max)
    }

    /// Non-empty bins as (lower edge, upper edge exclusive, count).
    pub fn bins(&self) -> Vec<(u64, u64, u64)> {
        self.bin_counts().filter(|&(_, c)| c > 0).map(|(b, c)| (Self::low(b), Self::high(b), c)).collect()
    }

    /// Non-empty bins as (lower edge, width, count), in increasing order.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.bin_counts().filter(|&(_, c)| c > 0).map(|(b, c)| (Self::low(b), Self::width(b), c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_sum_is_recovered_from_the_bins() {
        // 100 values of 3·10^17 ns sum to 3·10^19, past 2^64: the u64 sum wrapped once.
        let mut h = LogHistogram::<5>::default();
        for i in 0..100u64 {
            h.record(300_000_000_000_000_000 + i);
        }
        let want: u128 = (0..100u128).map(|i| 300_000_000_000_000_000 + i).sum();
        assert!(want > u64::MAX as u128 && (h.sum() as u128) < want);
        assert_eq!(h.unwrapped_sum(), Some(want));
        assert_eq!(h.mean(), Some(want as f64 / 100.0));
        // The same with record_n and a linear ramp (the queue of a flow that never stops
        // growing), zeros included.
        let mut g = LogHistogram::<5>::default();
        let mut want = 0u128;
        for i in 0..200_000u64 {
            let v = i * 2_000_000_000; // up to 4·10^14 ns: 1.2·10^20 in all
            g.record_n(v, 3);
            want += 3 * v as u128;
        }
        assert!(want > 2 * u64::MAX as u128);
        assert_eq!(g.unwrapped_sum(), Some(want));
        // Past the bins' resolution (bounds 2^64 or more apart) the mean is the bounds'
        // midpoint, within 1.6 %.
        let mut big = LogHistogram::<5>::default();
        for i in 0..10_000u64 {
            big.record(1_000_000_000_000_000_000 + i * 12_345_678_901);
        }
        assert_eq!(big.unwrapped_sum(), None);
        let truth = (0..10_000u64).map(|i| 1e18 + (i * 12_345_678_901) as f64).sum::<f64>() / 1e4;
        assert!((big.mean().unwrap() / truth - 1.0).abs() < 0.016, "{} {truth}", big.mean().unwrap());
    }

    #[test]
    fn bins_are_exact_below_32_and_within_3_percent_above() {
        for v in [0u64, 1, 31, 32, 33, 63, 64, 1000, 123_456_789, u64::MAX / 3] {
            let b = LogHistogram::<5>::bin(v);
            let (lo, hi) = (LogHistogram::<5>::low(b), LogHistogram::<5>::low(b + 1));
            assert!(lo <= v && v < hi, "{v}: [{lo}, {hi})");
            if v >= 32 {
                assert!((hi - lo) as f64 <= v as f64 / 32.0 + 1.0, "{v}: width {}", hi - lo);
            } else {
                assert_eq!(hi - lo, 1);
            }
        }
    }

    /// SUB = 6 tiles the whole range: exact below 128, then 64 bins per power of two.
    #[test]
    fn fine_bins_tile_the_range() {
        type H = Durations;
        let mut next = 0u64;
        for b in 0..H::BINS {
            let (lo, w) = (H::low(b), H::width(b));
            assert_eq!(lo, next, "bin {b}");
            assert_eq!(w == 1, lo < 128, "bin {b} at {lo}: width {w}");
            if lo >= 128 {
                assert!(w * 64 <= lo, "bin {b}: width {w} at {lo}");
            }
            next = lo.wrapping_add(w);
        }
        assert_eq!(next, 0, "the last bin ends at 2^64");
        for v in [0, 1, 127, 128, 129, 255, 256, 1000, 1 << 20, (1 << 40) + 12345, u64::MAX - 1, u64::MAX] {
            let b = H::bin(v);
            assert!(v >= H::low(b) && v - H::low(b) < H::width(b), "{v}");
        }
    }

    #[test]
    fn quantiles_of_a_uniform_sample() {
        let mut h = LogHistogram::<5>::default();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        assert_eq!(h.count(), 100_000);
        assert_eq!(h.max(), Some(100_000_000));
        for q in [0.5, 0.9, 0.99] {
            let want = q * 100_000_000.0;
            let got = h.quantile(q).unwrap();
            assert!((got / want - 1.0).abs() < 0.032, "q {q}: {got} vs {want}");
        }
        assert!((h.mean().unwrap() - 50_000_500.0).abs() < 1.0);
    }

    #[test]
    fn clamped_quantiles_and_moments() {
        let mut h = Durations::new();
        assert_eq!(h.quantile_clamped(0.5), None);
        // 1..=100 ns: exact.
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.quantile_clamped(0.5), Some(50));
        assert_eq!(h.quantile_clamped(0.99), Some(99));
        assert_eq!(h.quantile_clamped(0.0), Some(1));
        assert_eq!(h.quantile_clamped(1.0), Some(100));
        assert_eq!(h.mean(), Some(50.5));
        // Large values: within 1/128 relative of the true quantile.
        let mut g = Durations::new();
        for v in 0..10_000u64 {
            g.record(1_000_000 + v * 997);
        }
        for q in [0.1, 0.5, 0.9, 0.999] {
            let rank = (q * 10_000.0f64).ceil() as u64;
            let truth = (1_000_000 + (rank - 1) * 997) as f64;
            let got = g.quantile_clamped(q).unwrap() as f64;
            assert!((got - truth).abs() / truth <= 1.0 / 128.0, "q {q}: {got} vs {truth}");
        }
        assert_eq!(g.min(), Some(1_000_000));
        assert_eq!(g.max(), Some(1_000_000 + 9_999 * 997));
        assert_eq!(g.buckets().map(|(_, _, c)| c).sum::<u64>(), 10_000);
        g.clear();
        assert_eq!((g.count(), g.buckets().count(), g.min()), (0, 0, None));
        // record_n is k records.
        let (mut a, mut b) = (Durations::new(), Durations::new());
        for (v, k) in [(0u64, 3u64), (5, 0), (300, 4), (1 << 30, 2)] {
            a.record_n(v, k);
            (0..k).for_each(|_| b.record(v));
        }
        assert_eq!(a, b);
        assert_eq!((a.count(), a.min(), a.sum()), (9, Some(0), 4 * 300 + 2 * (1 << 30)));
    }

    /// Zeros are counted apart from the bins; every reading sees them in bin 0.
    #[test]
    fn zeros_count_in_bin_zero() {
        let mut h = LogHistogram::<5>::default();
        for _ in 0..7 {
            h.record(0);
        }
        assert_eq!((h.count(), h.max(), h.mean(), h.min()), (7, Some(0), Some(0.0), Some(0)));
        assert_eq!(h.quantile(0.5), Some(0.0));
        assert_eq!(h.bins(), vec![(0, 1, 7)]);
        for v in [0, 0, 0, 5, 5, 40] {
            h.record(v);
        }
        assert_eq!(h.count(), 13);
        assert_eq!(h.bins(), vec![(0, 1, 10), (5, 6, 2), (40, 41, 1)]);
        // 10 of 13 values are 0: the 0.75-quantile is 0, the 0.8-quantile 5.
        assert_eq!((h.quantile(0.75), h.quantile(0.8), h.quantile(1.0)), (Some(0.0), Some(5.0), Some(40.0)));
        // The same values recorded with zero in a bin of its own compare equal.
        let mut g = LogHistogram::<5> { counts: vec![10, 0, 0, 0, 0, 2], carries: None, lo: 0, zeros: 0, sum: 0, min: u64::MAX, max: 40 };
        g.counts.resize(41, 0);
        g.counts[40] = 1;
        g.sum = 50;
        assert_eq!(h, g);
        assert_eq!((h.min(), g.min()), (Some(0), Some(0)));
        let mut f = LogHistogram::<5>::default();
        f.record(1000);
        assert_eq!(f.min(), Some(LogHistogram::<5>::low(LogHistogram::<5>::bin(1000))), "the lowest bin's edge");
        assert_eq!(LogHistogram::<5>::default().count(), 0);
        assert_eq!(LogHistogram::<5>::default().quantile(0.5), None);
    }

    /// A bin past 2^16 − 1 values carries into its upper part, and every reading sees the
    /// whole 64-bit count, also after the bins grow either way.
    #[test]
    fn counts_carry_past_16_bits() {
        let mut h = LogHistogram::<5>::default();
        for _ in 0..200_000 {
            h.record(1000);
        }
        h.record(1001);
        assert_eq!(h.count(), 200_001);
        assert_eq!(h.bins(), vec![(992, 1008, 200_001)]);
        let i = LogHistogram::<5>::bin(1000) - h.lo;
        assert_eq!(h.carries.as_ref().map(|c| c[i]), Some(200_001 >> 16));
        // Growing below and above keeps the carries beside their bins.
        h.record(5);
        h.record(1 << 20);
        h.record_n(1000, 5 << 32 | 7);
        let want = vec![(5, 6, 1), (992, 1008, (5 << 32) + 200_008), (1 << 20, (1 << 20) + (1 << 15), 1)];
        assert_eq!(h.bins(), want);
        assert_eq!(h.count(), (5 << 32) + 200_010);
        assert_eq!(h.min(), Some(5));
        assert_eq!(h.quantile_clamped(0.5), Some(999));
        // Equal to a histogram fed the same counts in another order.
        let mut g = LogHistogram::<5>::default();
        for &(lo, _, c) in want.iter().rev() {
            g.record_n(lo, c);
        }
        assert_eq!(g.bins(), h.bins());
        h.clear();
        assert_eq!((h.count(), h.bins()), (0, vec![]));
    }

    /// Only the powers of two between the smallest and largest value are held, whichever
    /// order the values come in; every reading matches a reference histogram that holds
    /// every bin from 0 (the layout before `lo`).
    #[test]
    fn holds_only_the_powers_of_two_seen() {
        let mut h = LogHistogram::<5>::default();
        for v in [120_000u64, 121_000, 125_000] {
            h.record(v);
        }
        assert_eq!(h.counts.len(), 32, "one power of two: 32 bins, not {}", h.hi());
        // Memory: exactly the bins held, grown an octave at a time above and below.
        assert_eq!(h.counts.capacity(), 32);
        let mut g = h.clone();
        g.record(300_000);
        g.record(1_000);
        assert_eq!((g.counts.len(), g.counts.capacity()), (g.hi() - g.lo, g.hi() - g.lo));
        assert_eq!(g.counts.len(), 32 * 10, "the octaves 2^9 (1000) to 2^18 (300 000)");
        assert_eq!(h.lo, (LogHistogram::<5>::bin(120_000) >> 5) << 5);
        // Values below and above, in scrambled order, against a reference that counts
        // every value in a full array of bins.
        let mut x: u64 = 88172645463325252;
        let mut full = vec![0u64; LogHistogram::<5>::BINS];
        let mut zeros = 0;
        for v in [120_000u64, 121_000, 125_000] {
            full[LogHistogram::<5>::bin(v)] += 1;
        }
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = (x % 1000) << (x >> 58); // 0 .. ~2^73 wraps below u64::MAX
            h.record(v);
            if v == 0 {
                zeros += 1;
            } else {
                full[LogHistogram::<5>::bin(v)] += 1;
            }
        }
        assert_eq!(h.count(), 5003);
        let got: Vec<(u64, u64)> = h.bins().into_iter().map(|(lo, _, c)| (lo, c)).collect();
        let mut want: Vec<(u64, u64)> = Vec::new();
        if zeros > 0 {
            want.push((0, zeros));
        }
        for (b, &c) in full.iter().enumerate().filter(|(_, c)| **c > 0) {
            want.push((LogHistogram::<5>::low(b), c));
        }
        assert_eq!(got, want);
        let want_min = if zeros > 0 { 0 } else { want[0].0 };
        assert_eq!(h.min(), Some(want_min));
        // A histogram fed the same bins in reverse order holds the same counts.
        let mut r = LogHistogram::<5>::default();
        for &(lo, c) in want.iter().rev() {
            r.record_n(lo, c);
        }
        assert_eq!(r.bins(), h.bins());
        // Quantiles read the same bins: the 0.5-quantile of both lies in the same bin.
        let mid = |g: &LogHistogram<5>| LogHistogram::<5>::bin(g.quantile_clamped(0.5).unwrap());
        assert_eq!(mid(&r), mid(&h));
    }
}
