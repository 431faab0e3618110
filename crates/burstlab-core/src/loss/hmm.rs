//! k-state Markov-modulated Bernoulli losses: a hidden Markov chain over packets with a
//! loss probability per state (a discrete HMM with a binary emission). Its parameters come
//! from the Python Baum-Welch fit (`burstlab.models.HMMModel`, hmmlearn); Gilbert-Elliott is
//! the case k = 2. Per packet, as hmmlearn's generative model: the first packet's state is
//! drawn from `start`, every later packet's from the transition row of the previous state.
use super::fill::{geometric_failures, BitWriter};
use super::{check_prob, LossModel};
use crate::rng::{uniform, Rng};
use crate::trace::BitTrace;
use crate::Error;

#[derive(Clone, Debug)]
pub struct MarkovModulated {
    k: usize,
    /// Row-major k×k transition matrix.
    trans: Vec<f64>,
    start: Vec<f64>,
    loss: Vec<f64>,
    state: Option<usize>,
}

fn check_dist(name: &str, row: &[f64]) -> crate::Result<()> {
    for &p in row {
        check_prob(name, p)?;
    }
    let s: f64 = row.iter().sum();
    if (s - 1.0).abs() > 1e-6 {
        return Err(Error::param(name, format!("{row:?}"), "probabilities summing to 1"));
    }
    Ok(())
}

/// A k-state chain's parameters, each error naming its argument: a k×k matrix of
/// probability rows, an initial law of k entries and k loss probabilities; returns k.
pub(crate) fn check_chain(trans: (&str, &[Vec<f64>]), start: (&str, &[f64]), loss: &[f64]) -> crate::Result<usize> {
    let k = trans.1.len();
    if k == 0 {
        return Err(Error::param(trans.0, "[]", "at least one state"));
    }
    for row in trans.1 {
        if row.len() != k {
            return Err(Error::param(trans.0, format!("a row of {} entries", row.len()), &format!("a {k}×{k} matrix")));
        }
        check_dist(trans.0, row)?;
    }
    if start.1.len() != k {
        return Err(Error::param(start.0, start.1.len(), &format!("{k} entries")));
    }
    check_dist(start.0, start.1)?;
    if loss.len() != k {
        return Err(Error::param("loss", loss.len(), &format!("{k} entries")));
    }
    for &p in loss {
        check_prob("loss", p)?;
    }
    Ok(k)
}

/// Draw an index from a discrete distribution.
pub(crate) fn pick(rng: &mut Rng, p: &[f64]) -> usize {
    let u = uniform(rng);
    let mut acc = 0.0;
    for (i, &x) in p.iter().enumerate() {
        acc += x;
        if u < acc {
            return i;
        }
    }
    // Rounding: the last state with positive probability.
    p.iter().rposition(|&x| x > 0.0).unwrap_or(p.len() - 1)
}

impl MarkovModulated {
    pub fn new(trans: Vec<Vec<f64>>, start: Vec<f64>, loss: Vec<f64>) -> crate::Result<Self> {
        let k = check_chain(("transmat", &trans), ("startprob", &start), &loss)?;
        Ok(MarkovModulated { k, trans: trans.concat(), start, loss, state: None })
    }

    pub fn n_states(&self) -> usize {
        self.k
    }

    fn row(&self, i: usize) -> &[f64] {
        &self.trans[i * self.k..(i + 1) * self.k]
    }

    /// Stationary law of the chain ([`stationary_law`]).
    pub fn stationary(&self) -> Option<Vec<f64>> {
        stationary_law(&self.trans, self.k)
    }
}

/// Stationary law of a k-state chain with row-major transition matrix `trans` (solves
/// π(A − I) = 0, Σπ = 1 by Gaussian elimination); None if the chain is not irreducible
/// enough for a unique solution.
#[allow(clippy::needless_range_loop)] // matrix code reads best with indices
pub(crate) fn stationary_law(trans: &[f64], k: usize) -> Option<Vec<f64>> {
    // Rows of M: equations Σ_i π_i (A_ij − δ_ij) = 0 for j < k−1, then Σ π_i = 1.
    let mut m = vec![vec![0.0; k + 1]; k];
    for j in 0..k - 1 {
        for i in 0..k {
            m[j][i] = trans[i * k + j] - if i == j { 1.0 } else { 0.0 };
        }
    }
    for i in 0..k {
        m[k - 1][i] = 1.0;
    }
    m[k - 1][k] = 1.0;
    for c in 0..k {
        let piv = (c..k).max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))?;
        if m[piv][c].abs() < 1e-12 {
            return None;
        }
        m.swap(c, piv);
        for r in 0..k {
            if r != c {
                let f = m[r][c] / m[c][c];
                for x in c..=k {
                    m[r][x] -= f * m[c][x];
                }
            }
        }
    }
    Some((0..k).map(|i| m[i][k] / m[i][i]).collect())
}

impl LossModel for MarkovModulated {
    fn name(&self) -> &'static str {
        "hmm"
    }

    fn lost_packet(&mut self, rng: &mut Rng) -> bool {
        let s = match self.state {
            None => pick(rng, &self.start),
            Some(i) => pick(rng, self.row(i)),
        };
        self.state = Some(s);
        let p = self.loss[s];
        p >= 1.0 || (p > 0.0 && uniform(rng) < p)
    }

    fn reset(&mut self) {
        self.state = None;
    }

    /// Σ π_i · loss_i over the stationary law.
    fn mean_loss(&self) -> Option<f64> {
        let pi = self.stationary()?;
        Some(pi.iter().zip(&self.loss).map(|(a, b)| a * b).sum())
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }

    /// Run-level: a state's sojourn is geometric (stay probability A_ii), the next state
    /// is drawn from the row without the diagonal; each sojourn is one Bernoulli block.
    fn sample_into(&mut self, n: usize, rng: &mut Rng, out: &mut BitTrace) {
        if n == 0 {
            return;
        }
        let k = self.k;
        let mut s = match self.state {
            None => pick(rng, &self.start),
            Some(i) => pick(rng, self.row(i)),
        };
        let mut w = BitWriter::new(out);
        let mut left = n as u64;
        let mut off = vec![0.0; k];
        loop {
            let stay = self.trans[s * k + s];
            let extra = geometric_failures(rng, (-(1.0 - stay)).ln_1p());
            let run = extra.saturating_add(1).min(left);
            w.push_bernoulli(self.loss[s], run, rng);
            left -= run;
            if left == 0 {
                break;
            }
            // Leave s: P(j | leaving) = A_sj / (1 − A_ss).
            let row = self.row(s);
            let denom = 1.0 - stay;
            for j in 0..k {
                off[j] = if j == s { 0.0 } else { row[j] / denom };
            }
            s = pick(rng, &off);
        }
        w.finish();
        self.state = Some(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::GilbertElliott;
    use crate::rng::from_seed;

    fn three() -> MarkovModulated {
        MarkovModulated::new(
            vec![vec![0.98, 0.015, 0.005], vec![0.1, 0.85, 0.05], vec![0.01, 0.01, 0.98]],
            vec![1.0, 0.0, 0.0],
            vec![0.0, 0.3, 0.95],
        )
        .unwrap()
    }

    #[test]
    fn stationary_law_solves_the_balance_equations() {
        let m = three();
        let pi = m.stationary().unwrap();
        assert!((pi.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        for j in 0..3 {
            let flow: f64 = (0..3).map(|i| pi[i] * m.trans[i * 3 + j]).sum();
            assert!((flow - pi[j]).abs() < 1e-12);
        }
        // k = 2 reduces to Gilbert-Elliott's b/(b+g).
        let g2 = MarkovModulated::new(vec![vec![0.9, 0.1], vec![0.3, 0.7]], vec![0.5, 0.5], vec![0.0, 1.0]).unwrap();
        let ge = GilbertElliott::new(0.1, 0.3, 1.0, 0.0).unwrap();
        assert!((g2.mean_loss().unwrap() - ge.mean_loss().unwrap()).abs() < 1e-12);
    }

    #[test]
    fn fast_and_slow_samplers_match_mean_loss() {
        let n = 1_000_000;
        let mut r = from_seed(6);
        let want = three().mean_loss().unwrap();
        let mut fast = three();
        let mut t = BitTrace::new();
        fast.sample_into(n, &mut r, &mut t);
        let mut slow = three();
        let slow_v: Vec<bool> = (0..n).map(|_| slow.lost_packet(&mut r)).collect();
        let fast_v: Vec<bool> = t.iter().map(|b| !b).collect();
        for v in [fast_v, slow_v] {
            let l = v.iter().filter(|&&x| x).count() as f64 / n as f64;
            let tol = crate::loss::batch_tolerance(&v, 5.0);
            assert!((l - want).abs() < tol, "{l} vs {want} ± {tol}");
        }
    }

    #[test]
    fn bad_matrices_are_named() {
        let e = MarkovModulated::new(vec![vec![0.5, 0.6], vec![0.5, 0.5]], vec![1.0, 0.0], vec![0.0, 1.0]).unwrap_err();
        assert!(e.to_string().contains("transmat ="), "{e}");
        let e = MarkovModulated::new(vec![vec![1.0]], vec![1.0], vec![1.2]).unwrap_err();
        assert!(e.to_string().contains("loss ="), "{e}");
    }
}
