//! Sojourn (holding-time) distributions for the semi-Markov, VDDP and run-length models
//! (Pentikousis & Badr §2: "sampled from a pre-selected but arbitrary distribution").
//!
//! Values are in the caller's unit: seconds for the time models, packets for run lengths
//! ([`Sojourn::sample_count`] turns a draw into a run of at least one packet).
use super::{check_pos, check_prob};
use crate::rng::{uniform, Rng};
use crate::Error;
use rand_distr::{Distribution, Exp, LogNormal, Pareto};

#[derive(Clone, Debug)]
pub enum Sojourn {
    /// Exponential with the given mean.
    Exponential { mean: f64 },
    /// Always `value`.
    Deterministic { value: f64 },
    /// Pareto: P(X > x) = (scale / x)^shape for x ≥ scale.
    Pareto { scale: f64, shape: f64 },
    /// exp(N(mu, sigma²)).
    Lognormal { mu: f64, sigma: f64 },
    /// Geometric number of packets ≥ 1 with the given mean (P(X = k) = q(1−q)^(k−1), q = 1/mean).
    Geometric { mean: f64 },
    /// Draws from `values` with probabilities proportional to `weights`; with
    /// `tail_prob` > 0 a draw is instead, with that probability, a Pareto tail
    /// (`tail_scale`, `tail_shape`) — an empirical body spliced to a heavy tail.
    Empirical { values: Vec<f64>, cum: Vec<f64>, tail_prob: f64, tail_scale: f64, tail_shape: f64 },
}

impl Sojourn {
    pub fn exponential(mean: f64) -> crate::Result<Self> {
        Ok(Sojourn::Exponential { mean: check_pos("mean", mean)? })
    }

    pub fn deterministic(value: f64) -> crate::Result<Self> {
        Ok(Sojourn::Deterministic { value: check_pos("value", value)? })
    }

    pub fn pareto(scale: f64, shape: f64) -> crate::Result<Self> {
        Ok(Sojourn::Pareto { scale: check_pos("scale", scale)?, shape: check_pos("shape", shape)? })
    }

    pub fn lognormal(mu: f64, sigma: f64) -> crate::Result<Self> {
        if !mu.is_finite() {
            return Err(Error::param("mu", mu, "a finite number"));
        }
        if !(sigma.is_finite() && sigma >= 0.0) {
            return Err(Error::param("sigma", sigma, "a non-negative finite number"));
        }
        Ok(Sojourn::Lognormal { mu, sigma })
    }

    pub fn geometric(mean: f64) -> crate::Result<Self> {
        if !(mean.is_finite() && mean >= 1.0) {
            return Err(Error::param("mean", mean, "a mean run length ≥ 1"));
        }
        Ok(Sojourn::Geometric { mean })
    }

    /// Empirical distribution (`weights` None = equal weights), optionally spliced to a
    /// Pareto tail drawn with probability `tail` = (prob, scale, shape).
    pub fn empirical(values: &[f64], weights: Option<&[f64]>, tail: Option<(f64, f64, f64)>) -> crate::Result<Self> {
        if values.is_empty() {
            return Err(Error::param("values", "[]", "at least one value"));
        }
        for &v in values {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::param("values", v, "positive finite values"));
            }
        }
        let w: Vec<f64> = match weights {
            Some(w) => {
                if w.len() != values.len() {
                    return Err(Error::param("weights", w.len(), &format!("{} weights, one per value", values.len())));
                }
                for &x in w {
                    if !(x.is_finite() && x >= 0.0) {
                        return Err(Error::param("weights", x, "non-negative finite weights"));
                    }
                }
                w.to_vec()
            }
            None => vec![1.0; values.len()],
        };
        let total: f64 = w.iter().sum();
        if total <= 0.0 {
            return Err(Error::param("weights", total, "weights with a positive sum"));
        }
        let mut acc = 0.0;
        let cum = w
            .iter()
            .map(|x| {
                acc += x / total;
                acc
            })
            .collect();
        let (tail_prob, tail_scale, tail_shape) = match tail {
            None => (0.0, 1.0, 1.0),
            Some((p, s, a)) => (check_prob("tail_prob", p)?, check_pos("tail_scale", s)?, check_pos("tail_shape", a)?),
        };
        Ok(Sojourn::Empirical { values: values.to_vec(), cum, tail_prob, tail_scale, tail_shape })
    }

    /// One draw (in the distribution's unit).
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match self {
            Sojourn::Exponential { mean } => Exp::new(1.0 / mean).expect("validated").sample(rng),
            Sojourn::Deterministic { value } => *value,
            Sojourn::Pareto { scale, shape } => Pareto::new(*scale, *shape).expect("validated").sample(rng),
            Sojourn::Lognormal { mu, sigma } => LogNormal::new(*mu, *sigma).expect("validated").sample(rng),
            Sojourn::Geometric { mean } => {
                let ln_stay = (-1.0 / mean).ln_1p();
                super::fill::geometric_failures(rng, ln_stay).saturating_add(1) as f64
            }
            Sojourn::Empirical { values, cum, tail_prob, tail_scale, tail_shape } => {
                if *tail_prob > 0.0 && uniform(rng) < *tail_prob {
                    return Pareto::new(*tail_scale, *tail_shape).expect("validated").sample(rng);
                }
                let u = uniform(rng);
                let i = cum.partition_point(|&c| c <= u).min(values.len() - 1);
                values[i]
            }
        }
    }

    /// A draw as a whole number of packets ≥ 1 (run lengths): floor of the draw, so a
    /// Pareto with integer scale k has P(X ≥ l) = (k / l)^shape for integers l ≥ k.
    pub fn sample_count(&self, rng: &mut Rng) -> u64 {
        let x = self.sample(rng);
        if x >= 1.8e19 {
            u64::MAX / 4
        } else {
            (x.floor() as u64).max(1)
        }
    }

    /// A typical draw, to judge a time scale: the mean where it is finite, else the
    /// smallest value the law takes (Pareto scale, spliced body) or its median.
    pub fn typical(&self) -> f64 {
        if let Some(m) = self.mean() {
            return m;
        }
        match self {
            Sojourn::Pareto { scale, .. } => *scale,
            Sojourn::Lognormal { mu, .. } => mu.exp(),
            Sojourn::Empirical { values, .. } => values.iter().copied().fold(f64::INFINITY, f64::min),
            Sojourn::Exponential { mean } | Sojourn::Geometric { mean } => *mean,
            Sojourn::Deterministic { value } => *value,
        }
    }

    /// The mean, where it is finite and known in closed form (None for a Pareto with
    /// shape ≤ 1 or a spliced heavy tail without a finite mean).
    pub fn mean(&self) -> Option<f64> {
        match self {
            Sojourn::Exponential { mean } | Sojourn::Geometric { mean } => Some(*mean),
            Sojourn::Deterministic { value } => Some(*value),
            Sojourn::Pareto { scale, shape } => (*shape > 1.0).then(|| shape * scale / (shape - 1.0)),
            Sojourn::Lognormal { mu, sigma } => Some((mu + sigma * sigma / 2.0).exp()),
            Sojourn::Empirical { values, cum, tail_prob, tail_scale, tail_shape } => {
                let mut prev = 0.0;
                let body: f64 = values
                    .iter()
                    .zip(cum)
                    .map(|(v, c)| {
                        let m = v * (c - prev);
                        prev = *c;
                        m
                    })
                    .sum();
                if *tail_prob > 0.0 {
                    if *tail_shape <= 1.0 {
                        return None;
                    }
                    Some((1.0 - tail_prob) * body + tail_prob * tail_shape * tail_scale / (tail_shape - 1.0))
                } else {
                    Some(body)
                }
            }
        }
    }

    /// Mean of [`Sojourn::sample_count`], where known exactly (geometric, deterministic,
    /// empirical with integer values and no tail).
    pub fn mean_count(&self) -> Option<f64> {
        match self {
            Sojourn::Geometric { mean } => Some(*mean),
            Sojourn::Deterministic { value } => Some(value.floor().max(1.0)),
            Sojourn::Empirical { values, tail_prob, .. } if *tail_prob == 0.0 && values.iter().all(|v| v.fract() == 0.0) => self.mean(),
            _ => None,
        }
    }

    /// True for the exponential law (memoryless residual time).
    pub fn is_exponential(&self) -> bool {
        matches!(self, Sojourn::Exponential { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;

    #[test]
    fn sample_means_match_closed_forms() {
        let n = 200_000;
        let cases = [
            Sojourn::exponential(2.0).unwrap(),
            Sojourn::deterministic(0.5).unwrap(),
            Sojourn::pareto(1.0, 3.5).unwrap(),
            Sojourn::lognormal(0.2, 0.5).unwrap(),
            Sojourn::geometric(4.0).unwrap(),
            Sojourn::empirical(&[1.0, 2.0, 10.0], Some(&[2.0, 1.0, 1.0]), None).unwrap(),
        ];
        let mut r = from_seed(9);
        for d in &cases {
            let xs: Vec<f64> = (0..n).map(|_| d.sample(&mut r)).collect();
            let m = xs.iter().sum::<f64>() / n as f64;
            let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n as f64;
            let want = d.mean().unwrap();
            assert!((m - want).abs() <= 6.0 * (var / n as f64).sqrt() + 1e-12, "{d:?}: {m} vs {want}");
        }
    }

    #[test]
    fn pareto_counts_have_power_law_tail() {
        let d = Sojourn::pareto(2.0, 1.5).unwrap();
        let mut r = from_seed(4);
        let n = 200_000;
        let xs: Vec<u64> = (0..n).map(|_| d.sample_count(&mut r)).collect();
        for l in [2u64, 8, 32] {
            let frac = xs.iter().filter(|&&x| x >= l).count() as f64 / n as f64;
            let want = (2.0 / l as f64).powf(1.5);
            assert!((frac - want).abs() < 5.0 * (want * (1.0 - want) / n as f64).sqrt() + 1e-12, "{l}: {frac} vs {want}");
        }
    }

    #[test]
    fn bad_parameters_name_themselves() {
        assert!(Sojourn::exponential(-1.0).unwrap_err().to_string().contains("mean ="));
        assert!(Sojourn::pareto(1.0, 0.0).unwrap_err().to_string().contains("shape ="));
        assert!(Sojourn::lognormal(0.0, -1.0).unwrap_err().to_string().contains("sigma ="));
        assert!(Sojourn::empirical(&[], None, None).unwrap_err().to_string().contains("values ="));
        assert!(Sojourn::empirical(&[1.0], None, Some((1.5, 1.0, 1.0))).unwrap_err().to_string().contains("tail_prob ="));
    }
}
