//! Run-length (alternating renewal / semi-Markov over packets) model: success runs and
//! loss bursts alternate, their lengths drawn independently from their own distributions
//! (empirical, geometric, Pareto, lognormal, or an empirical body spliced to a Pareto
//! tail). It reproduces the trace's run-length distributions, including the long
//! polynomial tails of Barsocchi et al. Fig. 2 and Srinivasan et al. §9 that Gilbert-Elliott's geometric
//! runs cannot. Lengths are whole packets ≥ 1 ([`Sojourn::sample_count`]).
use super::fill::BitWriter;
use super::sojourn::Sojourn;
use super::LossModel;
use crate::rng::{uniform, Rng};
use crate::trace::BitTrace;

use super::spec::{loss_param, LossKind, LossModelSpec, SpecDefault};

/// `runlength:success=pareto/1/1.5,burst=geom/2` (also `run-length`, `runs`).
pub const SPEC: LossModelSpec = LossModelSpec {
    name: "runlength",
    aliases: &["run-length", "runs"],
    help: "Alternating runs of delivered and lost packets, each run length drawn from its law.",
    reference: "Srinivasan et al., PRR Is Not Enough, §6 (run lengths)",
    forms: &[&["success", "burst"]],
    params: &[
        loss_param("runlength", "success", LossKind::Law, "packets", SpecDefault::Required, None, None, "Law of the delivered runs, e.g. pareto/1/1.5.", ""),
        loss_param("runlength", "burst", LossKind::Law, "packets", SpecDefault::Required, None, None, "Law of the loss bursts, e.g. geom/2.", ""),
    ],
};

#[derive(Clone, Debug)]
pub struct RunLength {
    success: Sojourn,
    burst: Sojourn,
    /// Start with a success run (true), a loss burst (false), or choose with the long-run
    /// share of packets (None; the first run is a full run, not a residual one).
    initial_success: Option<bool>,
    /// Current run: (delivered?, packets left in it).
    cur: Option<(bool, u64)>,
}

impl RunLength {
    pub fn new(success: Sojourn, burst: Sojourn) -> Self {
        RunLength { success, burst, initial_success: None, cur: None }
    }

    pub fn with_initial_state(mut self, success: bool) -> Self {
        self.initial_success = Some(success);
        self
    }

    pub fn success(&self) -> &Sojourn {
        &self.success
    }

    pub fn burst(&self) -> &Sojourn {
        &self.burst
    }

    fn draw(&self, delivered: bool, rng: &mut Rng) -> u64 {
        if delivered {
            self.success.sample_count(rng)
        } else {
            self.burst.sample_count(rng)
        }
    }

    fn first(&self, rng: &mut Rng) -> bool {
        match self.initial_success {
            Some(s) => s,
            None => match (self.success.mean_count(), self.burst.mean_count()) {
                (Some(a), Some(b)) => uniform(rng) < a / (a + b),
                _ => true,
            },
        }
    }
}

impl LossModel for RunLength {
    fn name(&self) -> &'static str {
        "runlength"
    }

    fn lost_packet(&mut self, rng: &mut Rng) -> bool {
        let (v, left) = match self.cur {
            Some((v, l)) if l > 0 => (v, l),
            Some((v, _)) => (!v, self.draw(!v, rng)),
            None => {
                let v = self.first(rng);
                (v, self.draw(v, rng))
            }
        };
        self.cur = Some((v, left - 1));
        !v
    }

    fn reset(&mut self) {
        self.cur = None;
    }

    /// Long-run loss = E[burst] / (E[burst] + E[success run]) (renewal-reward), where both
    /// means are known exactly.
    fn mean_loss(&self) -> Option<f64> {
        let (a, b) = (self.success.mean_count()?, self.burst.mean_count()?);
        Some(b / (a + b))
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }

    fn sample_into(&mut self, n: usize, rng: &mut Rng, out: &mut BitTrace) {
        let mut w = BitWriter::new(out);
        let mut left = n as u64;
        while left > 0 {
            let (v, l) = match self.cur {
                Some((v, l)) if l > 0 => (v, l),
                Some((v, _)) => (!v, self.draw(!v, rng)),
                None => {
                    let v = self.first(rng);
                    (v, self.draw(v, rng))
                }
            };
            let k = l.min(left);
            w.push_run(v, k);
            left -= k;
            self.cur = Some((v, l - k));
        }
        w.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;
    use crate::trace::summary::run_histograms;

    #[test]
    fn empirical_runs_are_reproduced() {
        let succ = Sojourn::empirical(&[1.0, 5.0, 40.0], Some(&[0.5, 0.3, 0.2]), None).unwrap();
        let burst = Sojourn::empirical(&[1.0, 2.0, 7.0], Some(&[0.6, 0.3, 0.1]), None).unwrap();
        let mut m = RunLength::new(succ, burst).with_initial_state(true);
        let want = m.mean_loss().unwrap();
        let (ms, mb) = (0.5 + 1.5 + 8.0, 0.6 + 0.6 + 0.7);
        assert!((want - mb / (ms + mb)).abs() < 1e-12);
        let mut r = from_seed(14);
        let mut t = BitTrace::new();
        let n = 1_000_000;
        m.sample_into(n, &mut r, &mut t);
        let (zeros, ones) = run_histograms(&t);
        // Adjacent runs of the same value merge only if a draw is 0, which cannot happen
        // (lengths ≥ 1), so the histograms are the drawn ones (up to the cut last run).
        let (l, c) = ones.to_pairs();
        assert_eq!(l, vec![1, 5, 40]);
        let tot: u64 = c.iter().sum();
        for (ci, pi) in c.iter().zip([0.5, 0.3, 0.2]) {
            let f = *ci as f64 / tot as f64;
            assert!((f - pi).abs() < 5.0 * (pi * (1.0 - pi) / tot as f64).sqrt() + 1.0 / tot as f64, "{f} vs {pi}");
        }
        // Burst law 1, 2, 7 w.p. 0.6, 0.3, 0.1: variance E[X²] − mb² = 6.7 − 1.9² = 3.09.
        let se_b = (3.09f64 / zeros.count() as f64).sqrt();
        assert!((zeros.mean().unwrap() - mb).abs() < 5.0 * se_b, "{:?} vs {mb} ± {}", zeros.mean(), 5.0 * se_b);
        let lost: Vec<bool> = t.iter().map(|x| !x).collect();
        let loss = lost.iter().filter(|&&x| x).count() as f64 / n as f64;
        let tol = crate::loss::batch_tolerance(&lost, 5.0);
        assert!((loss - want).abs() < tol, "{loss} vs {want} ± {tol}");
    }

    #[test]
    fn slow_path_matches_fast_path_bit_for_bit() {
        let succ = Sojourn::pareto(1.0, 1.2).unwrap();
        let burst = Sojourn::geometric(3.0).unwrap();
        let mut a = RunLength::new(succ.clone(), burst.clone());
        let mut b = RunLength::new(succ, burst);
        let (mut r1, mut r2) = (from_seed(5), from_seed(5));
        let mut t = BitTrace::new();
        a.sample_into(50_000, &mut r1, &mut t);
        let slow = BitTrace::from_bools((0..50_000).map(|_| !b.lost_packet(&mut r2)));
        assert_eq!(t, slow);
    }
}
