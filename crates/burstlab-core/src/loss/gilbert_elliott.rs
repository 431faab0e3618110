//! Gilbert-Elliott per-packet two-state Markov loss (seed 000 §5.2, Fig. 5).
//!
//! States good (G) and bad (B); per packet the chain first moves (G→B with probability
//! `b`, B→G with probability `g`), then the packet is lost with probability `k_loss` in G
//! or `h_loss` in B. Seed 000 uses `k_loss = 0`, `h_loss = 1`, where μ = 1 − g − b.
//! netem's `loss gemodel p r 1-h 1-k` maps as p = b, r = g, 1-h = h_loss, 1-k = k_loss.
use super::{check_prob, LossModel};
use crate::rng::{uniform, Rng};

#[derive(Clone, Debug, PartialEq)]
pub struct GilbertElliott {
    /// P(G → B) per packet.
    pub b: f64,
    /// P(B → G) per packet.
    pub g: f64,
    /// Loss probability in the bad state.
    pub h_loss: f64,
    /// Loss probability in the good state.
    pub k_loss: f64,
    /// Initial state (true = bad); drawn from the stationary law at `reset` when None.
    initial_bad: Option<bool>,
    bad: Option<bool>,
}

impl GilbertElliott {
    pub fn new(b: f64, g: f64, h_loss: f64, k_loss: f64) -> crate::Result<Self> {
        let b = check_prob("b", b)?;
        let g = check_prob("g", g)?;
        Ok(GilbertElliott {
            b,
            g,
            h_loss: check_prob("h_loss", h_loss)?,
            k_loss: check_prob("k_loss", k_loss)?,
            initial_bad: None,
            bad: None,
        })
    }

    /// Seed 000 §6.2: b = (1 − PRR)(1 − μ), g = PRR·(1 − μ), loss-free good state and
    /// always-losing bad state.
    pub fn from_prr_mu(prr: f64, mu: f64) -> crate::Result<Self> {
        let prr = check_prob("prr", prr)?;
        if !(mu.is_finite() && mu <= 1.0) {
            return Err(crate::Error::param("mu", mu, "a value ≤ 1"));
        }
        let (g, b) = crate::trace::stats::ge_from_prr_mu(prr, mu);
        if !(0.0..=1.0).contains(&g) || !(0.0..=1.0).contains(&b) {
            return Err(crate::Error::param(
                "mu",
                mu,
                &format!("a value that keeps g = PRR(1-μ) and b = (1-PRR)(1-μ) in [0, 1] for PRR = {prr}"),
            ));
        }
        Self::new(b, g, 1.0, 0.0)
    }

    /// Start in a fixed state instead of the stationary draw.
    pub fn with_initial_state(mut self, bad: bool) -> Self {
        self.initial_bad = Some(bad);
        self
    }

    /// Stationary probability of the bad state, b / (b + g); `None` if the chain never moves.
    pub fn stationary_bad(&self) -> Option<f64> {
        let s = self.b + self.g;
        (s > 0.0).then(|| self.b / s)
    }
}

impl LossModel for GilbertElliott {
    fn name(&self) -> &'static str {
        "gilbert-elliott"
    }

    fn lost_packet(&mut self, rng: &mut Rng) -> bool {
        let bad = match self.bad {
            None => {
                // First packet: the state is drawn from the stationary law (or fixed).
                self.initial_bad.unwrap_or_else(|| uniform(rng) < self.stationary_bad().unwrap_or(0.0))
            }
            Some(true) => uniform(rng) >= self.g,
            Some(false) => uniform(rng) < self.b,
        };
        self.bad = Some(bad);
        let p = if bad { self.h_loss } else { self.k_loss };
        p >= 1.0 || (p > 0.0 && uniform(rng) < p)
    }

    fn reset(&mut self) {
        self.bad = None;
    }

    fn mean_loss(&self) -> Option<f64> {
        let pb = self.stationary_bad()?;
        Some(pb * self.h_loss + (1.0 - pb) * self.k_loss)
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;
    use crate::trace::{stats::transitions, BitTrace};

    #[test]
    fn from_prr_mu_recovers_prr_and_mu() {
        let mut m = GilbertElliott::from_prr_mu(0.4, 0.6).unwrap();
        assert!((m.mean_loss().unwrap() - 0.6).abs() < 1e-12);
        let mut r = from_seed(11);
        let mut t = BitTrace::new();
        m.sample_into(400_000, &mut r, &mut t);
        let tr = transitions(&t);
        let prr = t.count_ones() as f64 / t.len() as f64;
        assert!((prr - 0.4).abs() < 0.01, "prr {prr}");
        assert!((tr.mu().unwrap() - 0.6).abs() < 0.01, "mu {:?}", tr.mu());
    }

    #[test]
    fn rejects_impossible_parameters() {
        assert!(GilbertElliott::new(1.5, 0.1, 1.0, 0.0).unwrap_err().to_string().contains("b ="));
        assert!(GilbertElliott::from_prr_mu(0.5, -1.5).unwrap_err().to_string().contains("mu ="));
    }
}
