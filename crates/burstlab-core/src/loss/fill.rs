//! Word-level trace writing for the fast samplers (`sample_into`): runs of a constant
//! value are written as masks, Bernoulli blocks either 64 comparisons per word or, for
//! rare events, by geometric skipping between them. Both are exact in distribution.
use crate::rng::{uniform, Rng, RngExt};
use crate::trace::BitTrace;

/// Below this loss probability (or above 1 − it) a Bernoulli block is written by
/// geometric gaps between the rare outcomes instead of one comparison per bit.
const GEOMETRIC_BELOW: f64 = 0.05;

/// Accumulates bits in a word and appends whole words to the trace.
pub struct BitWriter<'a> {
    out: &'a mut BitTrace,
    cur: u64,
    n: usize,
}

impl<'a> BitWriter<'a> {
    pub fn new(out: &'a mut BitTrace) -> Self {
        BitWriter { out, cur: 0, n: 0 }
    }

    #[inline]
    fn flush_full(&mut self) {
        if self.n == 64 {
            self.out.push_word(self.cur, 64);
            self.cur = 0;
            self.n = 0;
        }
    }

    /// Append one bit (true = delivered).
    #[inline]
    pub fn push(&mut self, delivered: bool) {
        self.cur |= (delivered as u64) << self.n;
        self.n += 1;
        self.flush_full();
    }

    /// Append the low `k` ≤ 64 bits of `bits`, LSB first.
    #[inline]
    pub fn push_bits(&mut self, bits: u64, k: usize) {
        debug_assert!(k <= 64);
        if k == 0 {
            return;
        }
        let bits = if k == 64 { bits } else { bits & ((1u64 << k) - 1) };
        let room = 64 - self.n; // n < 64 between calls
        self.cur |= bits << self.n;
        if k >= room {
            self.out.push_word(self.cur, 64);
            self.cur = if room == 64 { 0 } else { bits >> room };
            self.n = k - room;
        } else {
            self.n += k;
        }
    }

    /// Append `len` copies of `delivered`.
    pub fn push_run(&mut self, delivered: bool, mut len: u64) {
        while len > 0 {
            if self.n == 0 && len >= 64 {
                // Whole words straight through.
                let fill = if delivered { u64::MAX } else { 0 };
                let words = len / 64;
                for _ in 0..words {
                    self.out.push_word(fill, 64);
                }
                len -= words * 64;
                continue;
            }
            let take = (64 - self.n).min(len as usize);
            if delivered {
                let mask = if take == 64 { u64::MAX } else { (1u64 << take) - 1 };
                self.cur |= mask << self.n;
            }
            self.n += take;
            len -= take as u64;
            self.flush_full();
        }
    }

    /// Append `len` packets, each lost independently with probability `p`.
    pub fn push_bernoulli(&mut self, p: f64, len: u64, rng: &mut Rng) {
        if len == 0 {
            return;
        }
        if p <= 0.0 {
            return self.push_run(true, len);
        }
        if p >= 1.0 {
            return self.push_run(false, len);
        }
        if !(GEOMETRIC_BELOW..=1.0 - GEOMETRIC_BELOW).contains(&p) {
            // The rarer outcome is `rare`; gaps of the common one between them are
            // geometric (number of failures before the first success).
            let (rare_delivered, q) = if p < 0.5 { (false, p) } else { (true, 1.0 - p) };
            let ln1mq = (-q).ln_1p();
            let mut left = len;
            loop {
                let gap = geometric_failures(rng, ln1mq);
                if gap >= left {
                    self.push_run(!rare_delivered, left);
                    return;
                }
                self.push_run(!rare_delivered, gap);
                self.push(rare_delivered);
                left -= gap + 1;
                if left == 0 {
                    return;
                }
            }
        }
        // One 64-bit comparison per packet: lost iff draw < p·2^64.
        let thr = (p * 18446744073709551616.0) as u64;
        let mut left = len;
        while left > 0 && self.n != 0 {
            self.push(rng.random::<u64>() >= thr);
            left -= 1;
        }
        while left >= 64 {
            let mut w = 0u64;
            for j in 0..64 {
                w |= ((rng.random::<u64>() >= thr) as u64) << j;
            }
            self.out.push_word(w, 64);
            left -= 64;
        }
        while left > 0 {
            self.push(rng.random::<u64>() >= thr);
            left -= 1;
        }
    }

    /// Write the partial word; the trace then holds everything pushed.
    pub fn finish(mut self) {
        if self.n > 0 {
            self.out.push_word(self.cur, self.n);
            self.n = 0;
        }
    }
}

/// Number of failures before the first success of Bernoulli trials whose failure
/// probability is exp(`ln_fail`) (inverse transform; `ln_fail` = ln(1 − q) < 0).
/// Returns u64::MAX when `ln_fail` is 0 (a success never happens).
#[inline]
pub fn geometric_failures(rng: &mut Rng, ln_fail: f64) -> u64 {
    if ln_fail >= 0.0 {
        return u64::MAX;
    }
    if ln_fail == f64::NEG_INFINITY {
        return 0;
    }
    let u = 1.0 - uniform(rng); // (0, 1]
    let x = (u.ln() / ln_fail).floor();
    if x >= 1.8e19 {
        u64::MAX
    } else {
        x as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;
    use crate::trace::stats::transitions;

    #[test]
    fn runs_land_in_order() {
        let mut t = BitTrace::new();
        let mut w = BitWriter::new(&mut t);
        w.push_run(true, 3);
        w.push_run(false, 70);
        w.push(true);
        w.push_run(true, 130);
        w.push_run(false, 2);
        w.finish();
        let mut want = vec![1u8; 3];
        want.extend(vec![0u8; 70]);
        want.extend(vec![1u8; 131]);
        want.extend(vec![0u8; 2]);
        assert_eq!(t.to_bytes(), want);
    }

    #[test]
    fn push_bits_matches_single_pushes() {
        let mut a = BitTrace::new();
        let mut b = BitTrace::new();
        let mut wa = BitWriter::new(&mut a);
        let mut wb = BitWriter::new(&mut b);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for k in [3usize, 64, 61, 64, 1, 0, 64, 17, 50] {
            x = x.rotate_left(13).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            wa.push_bits(x, k);
            for j in 0..k {
                wb.push((x >> j) & 1 == 1);
            }
        }
        wa.finish();
        wb.finish();
        assert_eq!(a, b);
        assert_eq!(a.len(), 3 + 64 + 61 + 64 + 1 + 64 + 17 + 50);
    }

    #[test]
    fn unaligned_start_is_kept() {
        let mut t = BitTrace::from_bools([true, false, true]);
        let mut w = BitWriter::new(&mut t);
        w.push_run(false, 100);
        w.finish();
        assert_eq!(t.len(), 103);
        assert_eq!(t.count_ones(), 2);
    }

    /// Both Bernoulli paths (geometric skipping and per-bit comparison) give the right
    /// loss rate within 5 binomial standard errors and no correlation between neighbours.
    #[test]
    fn bernoulli_blocks_have_the_right_rate() {
        for (i, &p) in [0.001, 0.03, 0.2, 0.5, 0.97, 0.999].iter().enumerate() {
            let mut r = from_seed(100 + i as u64);
            let mut t = BitTrace::new();
            let mut w = BitWriter::new(&mut t);
            let n = 300_000u64;
            // Uneven block sizes exercise partial words.
            let mut left = n;
            let mut k = 1u64;
            while left > 0 {
                let b = k.min(left);
                w.push_bernoulli(p, b, &mut r);
                left -= b;
                k = k * 3 % 1000 + 1;
            }
            w.finish();
            assert_eq!(t.len() as u64, n);
            let loss = 1.0 - t.count_ones() as f64 / n as f64;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!((loss - p).abs() < 5.0 * se, "p={p}: {loss}");
            // Independence: b = P(loss | success) ≈ p, g = P(success | loss) ≈ 1 − p.
            let tr = transitions(&t);
            let mu = tr.mu().unwrap();
            assert!(mu.abs() < 0.02, "p={p}: mu={mu}");
        }
    }
}
