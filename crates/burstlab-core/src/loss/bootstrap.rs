//! Stationary block bootstrap of a trace (Politis & Romano, "The Stationary Bootstrap",
//! JASA 1994): the model-free reference among the loss models. The output is a
//! concatenation of blocks of the fitted trace, each starting at a uniformly drawn entry
//! and lasting a geometric number of packets with mean `mean_block` (≥ 1), read
//! circularly (past the last entry comes the first). Every dependence the trace has at
//! scales well below `mean_block` — run lengths, consecutive runs, long success runs — is
//! kept as it is; longer ones are cut at the block joins. The long-run loss equals the
//! trace's exactly (every entry is equally likely to be read).
use super::fill::geometric_failures;
use super::LossModel;
use crate::rng::{uniform, Rng};
use crate::trace::BitTrace;
use crate::Error;

use super::spec::{loss_param, min, LossKind, LossModelSpec, SpecDefault};

/// `bootstrap:file=PATH[,block=2000]`.
pub const SPEC: LossModelSpec = LossModelSpec {
    name: "bootstrap",
    aliases: &[],
    help: "Stationary block bootstrap of a trace: blocks of random length, resampled.",
    reference: "Politis & Romano, The Stationary Bootstrap (1994)",
    forms: &[&["file", "block"]],
    params: &[
        loss_param("bootstrap", "file", LossKind::Path, "", SpecDefault::Required, None, None, "The trace file (any format burstlab reads).", ""),
        loss_param("bootstrap", "block", LossKind::Real, "packets", SpecDefault::Absent, min(1.0), None, "Mean block length (left out: 5 % of the trace, at least 200).", ""),
    ],
};

#[derive(Clone, Debug)]
pub struct BlockBootstrap {
    source: BitTrace,
    mean_block: f64,
    /// ln(1 − 1/mean_block): block lengths are 1 + geometric failures.
    ln_stay: f64,
    /// Next entry to read and entries left in the current block.
    pos: u64,
    left: u64,
}

impl BlockBootstrap {
    pub fn new(source: BitTrace, mean_block: f64) -> crate::Result<Self> {
        if source.is_empty() {
            return Err(Error::param("trace", "an empty trace", "at least one entry to resample"));
        }
        if !(mean_block.is_finite() && mean_block >= 1.0) {
            return Err(Error::param("mean_block", mean_block, "a mean block length ≥ 1 packet"));
        }
        Ok(BlockBootstrap { source, mean_block, ln_stay: (-1.0 / mean_block).ln_1p(), pos: 0, left: 0 })
    }

    pub fn mean_block(&self) -> f64 {
        self.mean_block
    }

    #[inline]
    fn ensure_block(&mut self, rng: &mut Rng) {
        if self.left == 0 {
            let len = self.source.len() as u64;
            self.pos = ((uniform(rng) * len as f64) as u64).min(len - 1);
            self.left = geometric_failures(rng, self.ln_stay).saturating_add(1);
        }
    }
}

impl LossModel for BlockBootstrap {
    fn name(&self) -> &'static str {
        "bootstrap"
    }

    fn lost_packet(&mut self, rng: &mut Rng) -> bool {
        self.ensure_block(rng);
        let good = self.source.get(self.pos as usize);
        self.pos = (self.pos + 1) % self.source.len() as u64;
        self.left -= 1;
        !good
    }

    fn reset(&mut self) {
        self.left = 0;
    }

    fn mean_loss(&self) -> Option<f64> {
        let len = self.source.len() as f64;
        Some((len - self.source.count_ones() as f64) / len)
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }

    /// Copies up to 64 entries at a time; the same draws as `lost_packet`.
    fn sample_into(&mut self, n: usize, rng: &mut Rng, out: &mut BitTrace) {
        let len = self.source.len() as u64;
        let mut left = n as u64;
        while left > 0 {
            self.ensure_block(rng);
            let k = left.min(self.left).min(len - self.pos).min(64);
            out.push_word(self.source.bits_at(self.pos as usize, k as usize), k as usize);
            self.pos = (self.pos + k) % len;
            self.left -= k;
            left -= k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::{GilbertElliott, LossModel};
    use crate::rng::from_seed;
    use crate::trace::summary::run_histograms;

    fn source() -> BitTrace {
        let mut ge = GilbertElliott::new(0.01, 0.2, 1.0, 0.0).unwrap();
        let mut t = BitTrace::new();
        ge.sample_into(200_000, &mut from_seed(1), &mut t);
        t
    }

    #[test]
    fn fast_path_equals_slow_path_bit_for_bit() {
        let mut a = BlockBootstrap::new(source(), 300.0).unwrap();
        let mut b = a.clone();
        let (mut r1, mut r2) = (from_seed(5), from_seed(5));
        let mut t = BitTrace::new();
        a.sample_into(100_003, &mut r1, &mut t);
        let slow = BitTrace::from_bools((0..100_003).map(|_| !b.lost_packet(&mut r2)));
        assert_eq!(t, slow);
    }

    /// Long blocks keep the trace's loss rate and its loss-burst distribution; the loss
    /// rate within batch-means tolerance, the mean burst within 5 standard errors.
    #[test]
    fn long_blocks_keep_rate_and_bursts() {
        let src = source();
        let want = 1.0 - src.count_ones() as f64 / src.len() as f64;
        let (zs, _) = run_histograms(&src);
        let mut m = BlockBootstrap::new(src, 5000.0).unwrap();
        assert!((m.mean_loss().unwrap() - want).abs() < 1e-12);
        let mut t = BitTrace::new();
        m.sample_into(1_000_000, &mut from_seed(8), &mut t);
        let lost: Vec<bool> = t.iter().map(|x| !x).collect();
        let loss = lost.iter().filter(|&&x| x).count() as f64 / lost.len() as f64;
        let tol = crate::loss::batch_tolerance(&lost, 5.0);
        assert!((loss - want).abs() < tol, "{loss} vs {want} ± {tol}");
        // GE bursts are geometric with mean 1/g = 5 (variance (1 − g)/g² = 20).
        let (zb, _) = run_histograms(&t);
        let se = (20.0 / zb.count() as f64).sqrt();
        assert!((zb.mean().unwrap() - zs.mean().unwrap()).abs() < 5.0 * se + 5.0 * (20.0 / zs.count() as f64).sqrt());
    }

    /// Mean block 1: every entry is an independent uniform draw from the trace, so the
    /// output is Bernoulli with the trace's loss rate (no dependence between neighbours).
    #[test]
    fn unit_blocks_are_independent_draws() {
        let src = BitTrace::from_str01("1110").unwrap();
        let mut m = BlockBootstrap::new(src, 1.0).unwrap();
        let mut t = BitTrace::new();
        let n = 400_000;
        m.sample_into(n, &mut from_seed(2), &mut t);
        let tr = crate::trace::stats::transitions(&t);
        let ones = t.count_ones() as f64;
        let p = 0.25;
        assert!(((n as f64 - ones) / n as f64 - p).abs() < 5.0 * (p * (1.0 - p) / n as f64).sqrt());
        let se = (p * (1.0 - p) * (1.0 / ones + 1.0 / (n as f64 - ones))).sqrt();
        assert!(tr.mu().unwrap().abs() < 5.0 * se);
    }

    #[test]
    fn bad_parameters_are_named() {
        assert!(BlockBootstrap::new(BitTrace::new(), 10.0).unwrap_err().to_string().contains("trace ="));
        assert!(BlockBootstrap::new(BitTrace::from_str01("10").unwrap(), 0.5).unwrap_err().to_string().contains("mean_block ="));
        assert!(BlockBootstrap::new(BitTrace::from_str01("10").unwrap(), f64::NAN).unwrap_err().to_string().contains("mean_block ="));
    }
}
