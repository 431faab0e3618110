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

/// Transition counts over pairs (i, i+1) with `start <= i` and `i + 1 < end`,
/// i.e. within bits [start, end). Word-at-a-time with popcount: memory-bound.
pub fn transitions_range(t: &BitTrace, start: usize, end: usize) -> Transitions {
    assert!(start <= end && end <= t.len());
    if end - start < 2 {
        return Transitions::default();
    }
    let words = t.words();
    let last_i = end - 2; // last pair start
    let (ks, ke) = (start >> 6, last_i >> 6);
    let (mut n11, mut n10, mut n01) = (0u64, 0u64, 0u64);
    for k in ks..=ke {
        let w = words[k];
        let next = if k + 1 < words.len() { words[k + 1] } else { 0 };
        let y = (w >> 1) | (next << 63); // y_j = b_{64k + j + 1}
        let mut mask = u64::MAX;
        if k == ks {
            mask &= u64::MAX << (start & 63);
        }
        if k == ke {
            let r = last_i & 63;
            if r < 63 {
                mask &= (1u64 << (r + 1)) - 1;
            }
        }
        n11 += (w & y & mask).count_ones() as u64;
        n10 += (w & !y & mask).count_ones() as u64;
        n01 += (!w & y & mask).count_ones() as u64;
    }
    let pairs = (end - start - 1) as u64;
    Transitions { n00: pairs - n11 - n10 - n01, n01, n10, n11 }
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
