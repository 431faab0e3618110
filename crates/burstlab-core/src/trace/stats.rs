//! Transition counts and the Gilbert-Elliott statistics of Srinivasan et al. §5.2-5.3 and §6.2.
//!
//! Encoding the trace as a bit string (1 = success), `|xy|` counts the adjacent pairs
//! (b_i, b_{i+1}) = (x, y). Then g = |01| / (|01| + |00|) is P(success | previous loss),
//! b = |10| / (|10| + |11|) is P(loss | previous success) and μ = 1 − g − b.
use super::bits::BitTrace;

/// Counts of adjacent pairs; `n00 + n01 + n10 + n11 = len − 1` for a non-empty trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transitions {
    pub n00: u64,
    pub n01: u64,
    pub n10: u64,
    pub n11: u64,
}

impl Transitions {
    pub fn total(&self) -> u64 {
        self.n00 + self.n01 + self.n10 + self.n11
    }

    /// g = P(1 | previous 0) = |01| / (|01| + |00|); None when no loss is followed by a packet.
    pub fn g(&self) -> Option<f64> {
        let d = self.n01 + self.n00;
        (d > 0).then(|| self.n01 as f64 / d as f64)
    }

    /// b = P(0 | previous 1) = |10| / (|10| + |11|); None when no success is followed by a packet.
    pub fn b(&self) -> Option<f64> {
        let d = self.n10 + self.n11;
        (d > 0).then(|| self.n10 as f64 / d as f64)
    }

    /// μ = 1 − g − b (Srinivasan et al. §5.2); undefined unless both g and b are.
    pub fn mu(&self) -> Option<f64> {
        Some(1.0 - self.g()? - self.b()?)
    }
}

impl std::ops::Add for Transitions {
    type Output = Transitions;
    fn add(self, o: Transitions) -> Transitions {
        Transitions { n00: self.n00 + o.n00, n01: self.n01 + o.n01, n10: self.n10 + o.n10, n11: self.n11 + o.n11 }
    }
}

/// Hardware popcount, chosen at run time (docs/traces.md "Speed"): the kernels below are
/// compiled three times, for x86-64 with AVX2 (LLVM vectorises the popcounts), with the
/// POPCNT instruction, and for the baseline x86-64 (or any other architecture), and the
/// first call picks the best the CPU has (`is_x86_feature_detected!`, cached by std). So a
/// wheel built anywhere runs everywhere and still uses the instructions where they exist.
macro_rules! dispatch {
    ($generic:ident ( $($arg:expr),* )) => {{
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt") {
                #[target_feature(enable = "avx2,popcnt")]
                unsafe fn avx2(words: &[u64], next: u64) -> (u64, u64) { $generic(words, next) }
                // SAFETY: the CPU has AVX2 and POPCNT (checked just above).
                return unsafe { avx2($($arg),*) };
            }
            if std::arch::is_x86_feature_detected!("popcnt") {
                #[target_feature(enable = "popcnt")]
                unsafe fn popcnt(words: &[u64], next: u64) -> (u64, u64) { $generic(words, next) }
                // SAFETY: the CPU has POPCNT (checked just above).
                return unsafe { popcnt($($arg),*) };
            }
        }
        $generic($($arg),*)
    }};
}

/// (ones, |11|) over `words`, where the bit after the last word is bit 0 of `next`:
/// |11| counts the pairs (i, i+1) both 1 whose start i lies in `words`.
#[inline(always)]
fn ones_n11_generic(words: &[u64], next: u64) -> (u64, u64) {
    let (mut ones, mut n11) = (0u64, 0u64);
    if let Some((&last, head)) = words.split_last() {
        for (w, nx) in head.iter().zip(&words[1..]) {
            let y = (w >> 1) | (nx << 63);
            ones += w.count_ones() as u64;
            n11 += (w & y).count_ones() as u64;
        }
        let y = (last >> 1) | (next << 63);
        ones += last.count_ones() as u64;
        n11 += (last & y).count_ones() as u64;
    }
    (ones, n11)
}

/// (ones, |11|) of whole words, with the fastest popcount the CPU has.
pub fn ones_n11(words: &[u64], next: u64) -> (u64, u64) {
    dispatch!(ones_n11_generic(words, next))
}

/// Number of 1 bits in `words` (hardware popcount where the CPU has it).
pub fn popcount_words(words: &[u64]) -> u64 {
    ones_n11(words, 0).0
}

impl BitTrace {
    /// Number of 1s (delivered packets).
    pub fn count_ones(&self) -> u64 {
        popcount_words(self.words())
    }
}

/// Cumulative counts up to bit position p: C1(p) = ones among bits [0, p) and
/// C11(p) = pairs (j, j+1) with j < p and both bits 1 (a pair past the end counts as 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cumulative {
    pub ones: u64,
    pub n11: u64,
}

/// Transition counts of the pairs within [s, e) from the cumulative counts at s and e and
/// the bits b_{e-1}, b_e (b_len = 0): with j ranging over the pair starts [s, e − 1),
/// |11| = C11(e−1) − C11(s), the 1s among pair starts give |10| = that − |11| and the 1s
/// among pair ends give |01| = that − |11|.
pub(crate) fn transitions_between(t: &BitTrace, s: usize, cs: Cumulative, e: usize, ce: Cumulative) -> Transitions {
    if e < s + 2 {
        return Transitions::default();
    }
    let bit = |i: usize| if i < t.len() { t.get(i) as u64 } else { 0 };
    let (bs, be1, be) = (bit(s), bit(e - 1), bit(e));
    let n11 = ce.n11 - (be1 & be) - cs.n11;
    let starts_ones = (ce.ones - be1) - cs.ones; // ones in [s, e-1)
    let ends_ones = ce.ones - (cs.ones + bs); // ones in [s+1, e)
    let (n10, n01) = (starts_ones - n11, ends_ones - n11);
    let pairs = (e - s - 1) as u64;
    Transitions { n00: pairs - n11 - n10 - n01, n01, n10, n11 }
}

/// The cumulative counts at position `p` (one pass over the words before it).
fn cumulative_at(t: &BitTrace, p: usize) -> Cumulative {
    let words = t.words();
    let k = p >> 6;
    let nx = |i: usize| words.get(i).copied().unwrap_or(0);
    let (mut ones, mut n11) = ones_n11(&words[..k], nx(k));
    let r = p & 63;
    if r > 0 {
        let w = words[k] & ((1u64 << r) - 1);
        let y = (words[k] >> 1) | (nx(k + 1) << 63);
        ones += w.count_ones() as u64;
        n11 += (w & y).count_ones() as u64;
    }
    Cumulative { ones, n11 }
}

/// Transition counts over pairs (i, i+1) with `start <= i` and `i + 1 < end`,
/// i.e. within bits [start, end). Word-at-a-time with two hardware popcounts per word
/// (|11| and the 1s; the other counts follow): memory-bound.
pub fn transitions_range(t: &BitTrace, start: usize, end: usize) -> Transitions {
    assert!(start <= end && end <= t.len());
    if end - start < 2 {
        return Transitions::default();
    }
    let cs = cumulative_at(t, start);
    // C(end) = C(start) + counts over [start, end): whole words in between, parts at the ends.
    let words = t.words();
    let nx = |i: usize| words.get(i).copied().unwrap_or(0);
    let mut ce = cs;
    let (ks, ke) = (start >> 6, end >> 6);
    let part = |k: usize, lo: usize, hi: usize| -> (u64, u64) {
        // bits [lo, hi) of word k (hi <= 64)
        let mask = if hi - lo == 64 { u64::MAX } else { ((1u64 << (hi - lo)) - 1) << lo };
        let w = words[k];
        let y = (w >> 1) | (nx(k + 1) << 63);
        ((w & mask).count_ones() as u64, (w & y & mask).count_ones() as u64)
    };
    if ks == ke {
        let (o, p) = part(ks, start & 63, end & 63);
        ce.ones += o;
        ce.n11 += p;
    } else {
        let (o, p) = part(ks, start & 63, 64);
        let (o2, p2) = ones_n11(&words[ks + 1..ke], nx(ke));
        ce.ones += o + o2;
        ce.n11 += p + p2;
        if end & 63 != 0 {
            let (o3, p3) = part(ke, 0, end & 63);
            ce.ones += o3;
            ce.n11 += p3;
        }
    }
    transitions_between(t, start, cs, end, ce)
}

pub fn transitions(t: &BitTrace) -> Transitions {
    transitions_range(t, 0, t.len())
}

/// Srinivasan et al. §6.2: with G = PRR, B = 1 − PRR, G·b = B·g and μ = 1 − b − g,
/// b = (1 − PRR)(1 − μ) and g = PRR·(1 − μ). Returns (g, b).
pub fn ge_from_prr_mu(prr: f64, mu: f64) -> (f64, f64) {
    (prr * (1.0 - mu), (1.0 - prr) * (1.0 - mu))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(v: &[u8]) -> Transitions {
        let mut t = Transitions::default();
        for w in v.windows(2) {
            match (w[0], w[1]) {
                (0, 0) => t.n00 += 1,
                (0, 1) => t.n01 += 1,
                (1, 0) => t.n10 += 1,
                _ => t.n11 += 1,
            }
        }
        t
    }

    #[test]
    fn hand_computed_fixture() {
        // 1 1 0 0 1 0 1 1 1 0: pairs 11 10 00 01 10 01 11 11 10
        let t = BitTrace::from_str01("1100101110").unwrap();
        let tr = transitions(&t);
        assert_eq!(tr, Transitions { n00: 1, n01: 2, n10: 3, n11: 3 });
        // g = 2/3, b = 3/6, mu = 1 - 2/3 - 1/2 = -1/6
        assert!((tr.g().unwrap() - 2.0 / 3.0).abs() < 1e-15);
        assert!((tr.b().unwrap() - 0.5).abs() < 1e-15);
        assert!((tr.mu().unwrap() + 1.0 / 6.0).abs() < 1e-15);
        assert_eq!(t.count_ones(), 6); // PRR 0.6
    }

    #[test]
    fn matches_naive_on_all_ranges() {
        let v: Vec<u8> = (0..200u32).map(|i| ((i.wrapping_mul(2654435761) >> 7) & 1) as u8).collect();
        let t = BitTrace::from_bytes(&v);
        for start in [0usize, 1, 2, 62, 63, 64, 65, 127] {
            for end in [start, start + 1, start + 2, 64, 65, 128, 129, 190, 200] {
                if end < start || end > 200 {
                    continue;
                }
                assert_eq!(transitions_range(&t, start, end), naive(&v[start..end]), "{start}..{end}");
            }
        }
    }

    #[test]
    fn degenerate_traces_have_undefined_mu() {
        for s in ["", "1", "0", "1111", "0000"] {
            let t = BitTrace::from_str01(s).unwrap();
            assert_eq!(transitions(&t).mu(), None, "{s:?}");
        }
    }

    #[test]
    fn section_6_2_identities() {
        // The §6.2 two-successes examples are checked where they are computed
        // (python/burstlab/stats.py, tests/test_stats.py); here the (g, b) mapping.
        let (g, b) = ge_from_prr_mu(0.3, 0.5);
        assert!((1.0 - g - b - 0.5).abs() < 1e-12);
        assert!((0.3 * b - 0.7 * g).abs() < 1e-12); // G·b = B·g
    }
}
