//! Independent (Bernoulli) losses: every packet is lost with probability p
//! (Srinivasan et al. §6 "independent link"; Barsocchi et al. Table I).
use super::{check_prob, LossModel};
use crate::rng::{Rng, RngExt};
use crate::trace::BitTrace;

use super::spec::{loss_param, max, min, LossKind, LossModelSpec, SpecDefault};

/// `bernoulli:p=0.05` (also `bern`, `iid`).
pub const SPEC: LossModelSpec = LossModelSpec {
    name: "bernoulli",
    aliases: &["bern", "iid"],
    help: "Independent losses: each packet lost with probability p.",
    reference: "Srinivasan et al., PRR Is Not Enough, §6; Barsocchi et al., Table I",
    forms: &[&["p"]],
    params: &[loss_param("bernoulli", "p", LossKind::Real, "", SpecDefault::Required, min(0.0), max(1.0), "Loss probability of each packet.", "")],
};

#[derive(Clone, Debug, PartialEq)]
pub struct Bernoulli {
    p: f64,
    /// Lost iff a uniform u64 draw is below this threshold (p · 2^64, saturating).
    threshold: u64,
}

impl Bernoulli {
    pub fn new(p: f64) -> crate::Result<Self> {
        let p = check_prob("p", p)?;
        let threshold = if p >= 1.0 { u64::MAX } else { (p * 18446744073709551616.0) as u64 };
        Ok(Bernoulli { p, threshold })
    }

    pub fn p(&self) -> f64 {
        self.p
    }

    /// The fate of the next packet (true = lost): what every mode of the model decides.
    #[inline(always)]
    pub(crate) fn draw(&self, rng: &mut Rng) -> bool {
        self.p >= 1.0 || rng.random::<u64>() < self.threshold
    }
}

impl LossModel for Bernoulli {
    fn name(&self) -> &'static str {
        "bernoulli"
    }

    #[inline]
    fn lost_packet(&mut self, rng: &mut Rng) -> bool {
        self.draw(rng)
    }

    fn reset(&mut self) {}

    fn as_bernoulli(&self) -> Option<&Bernoulli> {
        Some(self)
    }

    fn mean_loss(&self) -> Option<f64> {
        Some(self.p)
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }

    /// Word-level: geometric gaps between losses for small p, 64 comparisons per word
    /// otherwise ([`super::fill::BitWriter::push_bernoulli`]).
    fn sample_into(&mut self, n: usize, rng: &mut Rng, out: &mut BitTrace) {
        let mut w = super::fill::BitWriter::new(out);
        w.push_bernoulli(self.p, n as u64, rng);
        w.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;

    #[test]
    fn rejects_bad_p() {
        for p in [-0.1, 1.1, f64::NAN] {
            let e = Bernoulli::new(p).unwrap_err().to_string();
            assert!(e.contains("p ="), "{e}");
        }
    }

    #[test]
    fn extremes_and_mean() {
        let mut r = from_seed(3);
        let mut zero = Bernoulli::new(0.0).unwrap();
        let mut one = Bernoulli::new(1.0).unwrap();
        assert!((0..1000).all(|_| !zero.lost_packet(&mut r)));
        assert!((0..1000).all(|_| one.lost_packet(&mut r)));
        let mut m = Bernoulli::new(0.2).unwrap();
        let mut t = BitTrace::new();
        let n = 200_000;
        m.sample_into(n, &mut r, &mut t);
        let loss = 1.0 - t.count_ones() as f64 / n as f64;
        // 5 standard errors of a binomial proportion.
        let se = (0.2f64 * 0.8 / n as f64).sqrt();
        assert!((loss - 0.2).abs() < 5.0 * se, "{loss}");
    }
}
