//! k-state semi-Markov chain over packets with a loss probability per state: an
//! explicit-duration (hidden semi-Markov) loss model. A state lasts a whole number of
//! packets drawn from its own law (any [`Sojourn`], e.g. an empirical body with a fitted
//! Pareto tail), every packet in it is lost independently with the state's probability,
//! then the next state is drawn from the state's row of the jump matrix.
//!
//! Two Python families share it (`burstlab.models`, `docs/loss-models.md`):
//! - `HSMMModel`: hidden regimes (say quiet and interfered periods) with their empirical
//!   duration laws and Bernoulli losses inside, segmented by an HMM (hmmlearn's Viterbi
//!   path) — the geometric sojourns of an HMM ([`super::MarkovModulated`]) become the
//!   trace's own, long-tailed ones;
//! - `RunChainModel`: states are classes of success runs (loss 0) and of loss bursts
//!   (loss 1), so the jump matrix carries the run-to-run correlation (a long burst followed
//!   by short success runs, ...) that the independent runs of [`super::RunLength`] lose,
//!   and a higher-order chain over run classes is the same machine with one state per
//!   context (a variable-order Markov chain over runs).
//!
//! Per packet: the first state is drawn from `start` and lasts a full (not residual)
//! duration; a duration of n packets covers the next n packets.
use super::fill::BitWriter;
use super::hmm::{check_chain, pick, stationary_law};
use super::sojourn::Sojourn;
use super::LossModel;
use crate::rng::{uniform, Rng};
use crate::trace::BitTrace;
use crate::Error;

#[derive(Clone, Debug)]
pub struct SemiMarkovChain {
    k: usize,
    /// Row-major k×k jump matrix: P(next state = j | leaving state i).
    jump: Vec<f64>,
    start: Vec<f64>,
    duration: Vec<Sojourn>,
    loss: Vec<f64>,
    /// Current state and the packets left in it.
    cur: Option<(usize, u64)>,
}

impl SemiMarkovChain {
    pub fn new(jump: Vec<Vec<f64>>, start: Vec<f64>, duration: Vec<Sojourn>, loss: Vec<f64>) -> crate::Result<Self> {
        let k = check_chain(("jump", &jump), ("start", &start), &loss)?;
        if duration.len() != k {
            return Err(Error::param("durations", duration.len(), &format!("{k} laws, one per state")));
        }
        Ok(SemiMarkovChain { k, jump: jump.concat(), start, duration, loss, cur: None })
    }

    pub fn n_states(&self) -> usize {
        self.k
    }

    /// The state of the next packet and the packets left in that state (≥ 1).
    #[inline]
    fn segment(&self, rng: &mut Rng) -> (usize, u64) {
        match self.cur {
            Some((s, left)) if left > 0 => (s, left),
            prev => {
                let s = match prev {
                    None => pick(rng, &self.start),
                    Some((i, _)) => pick(rng, &self.jump[i * self.k..(i + 1) * self.k]),
                };
                (s, self.duration[s].sample_count(rng))
            }
        }
    }
}

impl LossModel for SemiMarkovChain {
    fn name(&self) -> &'static str {
        "hsmm"
    }

    fn lost_packet(&mut self, rng: &mut Rng) -> bool {
        let (s, left) = self.segment(rng);
        self.cur = Some((s, left - 1));
        let p = self.loss[s];
        p >= 1.0 || (p > 0.0 && uniform(rng) < p)
    }

    fn reset(&mut self) {
        self.cur = None;
    }

    /// Renewal-reward over the embedded jump chain: Σ ν_i·E[d_i]·loss_i / Σ ν_i·E[d_i],
    /// ν its stationary law; None when a duration's mean count is not known exactly.
    fn mean_loss(&self) -> Option<f64> {
        let nu = stationary_law(&self.jump, self.k)?;
        let mut time = 0.0;
        let mut lost = 0.0;
        for ((v, d), p) in nu.iter().zip(&self.duration).zip(&self.loss) {
            let m = d.mean_count()?;
            time += v * m;
            lost += v * m * p;
        }
        (time > 0.0).then(|| lost / time)
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }

    /// Segment-level: each state visit is one Bernoulli block (or one run when its loss
    /// probability is 0 or 1).
    fn sample_into(&mut self, n: usize, rng: &mut Rng, out: &mut BitTrace) {
        let mut w = BitWriter::new(out);
        let mut left = n as u64;
        while left > 0 {
            let (s, seg) = self.segment(rng);
            let k = seg.min(left);
            w.push_bernoulli(self.loss[s], k, rng);
            left -= k;
            self.cur = Some((s, seg - k));
        }
        w.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::GilbertElliott;
    use crate::rng::from_seed;
    use crate::trace::runs::for_each_run;

    fn geom(m: f64) -> Sojourn {
        Sojourn::geometric(m).unwrap()
    }

    /// Two states with geometric durations and losses 0/1 are Gilbert-Elliott's chain:
    /// mean bad sojourn 1/g, mean good 1/b.
    #[test]
    fn two_geometric_states_are_gilbert_elliott() {
        let (b, g) = (0.02, 0.25);
        let m = SemiMarkovChain::new(vec![vec![0.0, 1.0], vec![1.0, 0.0]], vec![0.5, 0.5], vec![geom(1.0 / b), geom(1.0 / g)], vec![0.0, 1.0]).unwrap();
        let ge = GilbertElliott::new(b, g, 1.0, 0.0).unwrap();
        assert!((m.mean_loss().unwrap() - ge.mean_loss().unwrap()).abs() < 1e-12);
    }

    /// Sampled loss rate (both paths) against the renewal-reward mean, three states with
    /// empirical durations and Bernoulli losses inside.
    #[test]
    fn fast_and_slow_samplers_match_mean_loss() {
        let d = |v: &[f64], w: &[f64]| Sojourn::empirical(v, Some(w), None).unwrap();
        let mk = || {
            SemiMarkovChain::new(
                vec![vec![0.0, 0.7, 0.3], vec![0.5, 0.0, 0.5], vec![0.9, 0.1, 0.0]],
                vec![1.0, 0.0, 0.0],
                vec![d(&[50.0, 400.0], &[0.7, 0.3]), d(&[3.0, 10.0], &[0.5, 0.5]), d(&[1.0, 2.0, 30.0], &[0.4, 0.4, 0.2])],
                vec![0.01, 0.4, 0.97],
            )
            .unwrap()
        };
        let want = mk().mean_loss().unwrap();
        // By hand: ν = stationary law of the jump chain, E[d] = 155, 6.5, 7.2.
        let nu = stationary_law(&[0.0, 0.7, 0.3, 0.5, 0.0, 0.5, 0.9, 0.1, 0.0], 3).unwrap();
        let ed = [155.0, 6.5, 7.2];
        let (l, t) = (0..3).fold((0.0, 0.0), |(l, t), i| (l + nu[i] * ed[i] * [0.01, 0.4, 0.97][i], t + nu[i] * ed[i]));
        assert!((want - l / t).abs() < 1e-12);
        let n = 2_000_000;
        let mut r = from_seed(9);
        let mut t = BitTrace::new();
        mk().sample_into(n, &mut r, &mut t);
        let fast: Vec<bool> = t.iter().map(|x| !x).collect();
        let mut slow_m = mk();
        let slow: Vec<bool> = (0..n).map(|_| slow_m.lost_packet(&mut r)).collect();
        for v in [fast, slow] {
            let loss = v.iter().filter(|&&x| x).count() as f64 / n as f64;
            let tol = crate::loss::batch_tolerance(&v, 5.0);
            assert!((loss - want).abs() < tol, "{loss} vs {want} ± {tol}");
        }
    }

    /// A run chain: two success classes (1 or 50 packets) and two burst classes (1 or 20);
    /// a short success run is followed by a long burst with probability 0.9, a long one by
    /// a short burst with probability 0.9. The sampled pairs show that correlation, within
    /// 5 binomial standard errors, and runs never merge.
    #[test]
    fn run_classes_carry_run_to_run_correlation() {
        let det = |v: f64| Sojourn::deterministic(v).unwrap();
        // States: 0 = success 1, 1 = success 50, 2 = burst 1, 3 = burst 20.
        let jump = vec![
            vec![0.0, 0.0, 0.1, 0.9],
            vec![0.0, 0.0, 0.9, 0.1],
            vec![0.5, 0.5, 0.0, 0.0],
            vec![0.5, 0.5, 0.0, 0.0],
        ];
        let mut m = SemiMarkovChain::new(jump, vec![1.0, 0.0, 0.0, 0.0], vec![det(1.0), det(50.0), det(1.0), det(20.0)], vec![0.0, 0.0, 1.0, 1.0]).unwrap();
        let mut r = from_seed(3);
        let mut t = BitTrace::new();
        m.sample_into(1_000_000, &mut r, &mut t);
        let mut rs = Vec::new();
        for_each_run(&t, |v, l| rs.push((v, l)));
        rs.pop(); // the last run may be cut by the end of the sample
        let mut after = [[0u64; 2]; 2]; // [success class is long][burst is long]
        for w in rs.windows(2) {
            let ((v0, l0), (v1, l1)) = (w[0], w[1]);
            assert_ne!(v0, v1, "runs of the same value never follow each other");
            assert!(if v0 { l0 == 1 || l0 == 50 } else { l0 == 1 || l0 == 20 }, "run ({v0}, {l0})");
            if v0 {
                after[(l0 == 50) as usize][(l1 == 20) as usize] += 1;
            }
        }
        for (cls, want) in [(0usize, 0.9), (1, 0.1)] {
            let n = (after[cls][0] + after[cls][1]) as f64;
            let f = after[cls][1] as f64 / n;
            assert!((f - want).abs() < 5.0 * (want * (1.0 - want) / n).sqrt(), "class {cls}: {f} vs {want}");
        }
    }

    #[test]
    fn bad_parameters_are_named() {
        let g = || vec![geom(2.0), geom(2.0)];
        let e = SemiMarkovChain::new(vec![vec![0.5, 0.6], vec![1.0, 0.0]], vec![1.0, 0.0], g(), vec![0.0, 1.0]).unwrap_err();
        assert!(e.to_string().contains("jump ="), "{e}");
        let e = SemiMarkovChain::new(vec![vec![0.0, 1.0], vec![1.0, 0.0]], vec![1.0, 0.0], vec![geom(2.0)], vec![0.0, 1.0]).unwrap_err();
        assert!(e.to_string().contains("durations ="), "{e}");
        let e = SemiMarkovChain::new(vec![vec![0.0, 1.0], vec![1.0, 0.0]], vec![1.0, 0.0], g(), vec![0.0, 1.5]).unwrap_err();
        assert!(e.to_string().contains("loss ="), "{e}");
        let e = SemiMarkovChain::new(vec![], vec![], vec![], vec![]).unwrap_err();
        assert!(e.to_string().contains("jump ="), "{e}");
    }
}
