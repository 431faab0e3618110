//! Gilbert-Elliott per-packet two-state Markov loss (Srinivasan et al. §5.2, Fig. 5).
//!
//! States good (G) and bad (B); per packet the chain first moves (G→B with probability
//! `b`, B→G with probability `g`), then the packet is lost with probability `k_loss` in G
//! or `h_loss` in B. Srinivasan et al. use `k_loss = 0`, `h_loss = 1`, where μ = 1 − g − b.
//! netem's `loss gemodel p r 1-h 1-k` maps as p = b, r = g, 1-h = h_loss, 1-k = k_loss.
use super::{check_prob, LossModel};
use super::fill::{geometric_failures, BitWriter};
use crate::rng::{uniform, Rng, RngExt};
use crate::trace::BitTrace;

use super::spec::{loss_param, lt, max, min, LossKind, LossModelSpec, SpecDefault};

/// `ge:prr=0.9,mu=0.6` or `ge:b=0.01,g=0.3[,h=1,k=0]` (also `gilbert-elliott`).
pub const SPEC: LossModelSpec = LossModelSpec {
    name: "ge",
    aliases: &["gilbert-elliott", "gilbert_elliott"],
    help: "Two-state Gilbert-Elliott chain over packets: from a link's PRR and μ, or its transition and loss probabilities.",
    reference: "Srinivasan et al., PRR Is Not Enough, §6.2; Linux netem's gemodel",
    forms: &[&["prr", "mu"], &["b", "g", "h", "k"]],
    params: &[
        loss_param("ge", "prr", LossKind::Real, "", SpecDefault::Required, min(0.0), max(1.0), "Packet reception ratio (with mu): b = (1-PRR)(1-μ), g = PRR(1-μ).", "Srinivasan et al. §6.2"),
        loss_param("ge", "mu", LossKind::Real, "", SpecDefault::Required, None, lt(1.0), "μ, the burstiness (with prr): 0 is independent losses, 1 a link stuck in one state; b and g must stay in [0, 1].", "Srinivasan et al. §5.2"),
        loss_param("ge", "b", LossKind::Real, "", SpecDefault::Required, min(0.0), max(1.0), "P(good → bad) per packet (netem's p).", "netem gemodel"),
        loss_param("ge", "g", LossKind::Real, "", SpecDefault::Required, min(0.0), max(1.0), "P(bad → good) per packet (netem's r).", "netem gemodel"),
        loss_param("ge", "h", LossKind::Real, "", SpecDefault::Is("1"), min(0.0), max(1.0), "Loss probability in the bad state (netem's 1-h).", "netem gemodel"),
        loss_param("ge", "k", LossKind::Real, "", SpecDefault::Is("0"), min(0.0), max(1.0), "Loss probability in the good state (netem's 1-k).", "netem gemodel"),
    ],
};

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

    /// Srinivasan et al. §6.2: b = (1 − PRR)(1 − μ), g = PRR·(1 − μ), loss-free good state and
    /// always-losing bad state.
    pub fn from_prr_mu(prr: f64, mu: f64) -> crate::Result<Self> {
        let prr = check_prob("prr", prr)?;
        // μ = 1 means g = b = 0: a chain that never leaves its first state, every packet
        // delivered or every one lost, which no PRR strictly between 0 and 1 describes.
        if !(mu.is_finite() && mu < 1.0) {
            return Err(crate::Error::param("mu", mu, "a value < 1 (μ = 1 is a link stuck in one state, not a channel with this PRR)"));
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

impl GilbertElliott {
    /// Per-packet chain steps, 64 per word: a u64 draw below P(leave)·2^64 flips the state
    /// (G→B with b, B→G with g); the loss draw (skipped when h_loss = 1 and k_loss = 0)
    /// compares a second u64 with the state's loss threshold. `bad` is the first packet's
    /// state; returns the last packet's.
    fn sample_per_packet(&self, mut bad: bool, n: usize, rng: &mut Rng, w: &mut BitWriter<'_>) -> bool {
        let thr = |p: f64| if p >= 1.0 { u64::MAX } else { (p * 18446744073709551616.0) as u64 };
        let (tb, tg) = (thr(self.b), thr(self.g));
        let pure = self.h_loss == 1.0 && self.k_loss == 0.0;
        let (th, tk) = (thr(self.h_loss), thr(self.k_loss));
        let emit = |bad: bool, rng: &mut Rng| -> bool {
            if pure {
                !bad
            } else {
                let (t, p) = if bad { (th, self.h_loss) } else { (tk, self.k_loss) };
                // lost iff draw < p·2^64 (p = 1: always lost).
                !(p >= 1.0 || (p > 0.0 && rng.random::<u64>() < t))
            }
        };
        let mut left = n;
        w.push(emit(bad, rng));
        left -= 1;
        while left > 0 {
            let k = left.min(64);
            let mut word = 0u64;
            for j in 0..k {
                let t = if bad { tg } else { tb };
                bad ^= rng.random::<u64>() < t;
                word |= (emit(bad, rng) as u64) << j;
            }
            w.push_bits(word, k);
            left -= k;
        }
        bad
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

    /// Run-level when runs are long: the state's sojourn (in packets) is geometric, so
    /// draw it at once and fill it with a Bernoulli block of that state's loss
    /// probability. When the mean cycle 1/b + 1/g is short (< 16 packets) a run costs more
    /// than its packets, so step the chain per packet, branch-free, 64 packets per word.
    fn sample_into(&mut self, n: usize, rng: &mut Rng, out: &mut BitTrace) {
        if n == 0 {
            return;
        }
        let mut w = BitWriter::new(out);
        // State of the first packet, exactly as `lost_packet` would draw it.
        let mut bad = match self.bad {
            None => self.initial_bad.unwrap_or_else(|| uniform(rng) < self.stationary_bad().unwrap_or(0.0)),
            Some(true) => uniform(rng) >= self.g,
            Some(false) => uniform(rng) < self.b,
        };
        let short_cycle = self.b > 0.0 && self.g > 0.0 && 1.0 / self.b + 1.0 / self.g < 16.0;
        if short_cycle {
            bad = self.sample_per_packet(bad, n, rng, &mut w);
        } else {
            let ln_stay_bad = (-self.g).ln_1p();
            let ln_stay_good = (-self.b).ln_1p();
            let mut left = n as u64;
            loop {
                // Packets in this state including the current one: 1 + failures before leaving.
                let extra = geometric_failures(rng, if bad { ln_stay_bad } else { ln_stay_good });
                let run = extra.saturating_add(1).min(left);
                w.push_bernoulli(if bad { self.h_loss } else { self.k_loss }, run, rng);
                left -= run;
                if left == 0 {
                    break;
                }
                bad = !bad;
            }
        }
        w.finish();
        // The chain is memoryless, so the last packet's state is all a continuation needs.
        self.bad = Some(bad);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;
    use crate::trace::stats::transitions;

    #[test]
    fn from_prr_mu_recovers_prr_and_mu() {
        let mut m = GilbertElliott::from_prr_mu(0.4, 0.6).unwrap();
        assert!((m.mean_loss().unwrap() - 0.6).abs() < 1e-12);
        let mut r = from_seed(11);
        let mut t = BitTrace::new();
        m.sample_into(400_000, &mut r, &mut t);
        let tr = transitions(&t);
        let n = t.len() as f64;
        let prr = t.count_ones() as f64 / n;
        // Standard error of the PRR of a two-state chain: √(P(1−P)/n · (1+μ)/(1−μ)).
        let se_prr = (0.4 * 0.6 / n * 1.6 / 0.4f64).sqrt();
        assert!((prr - 0.4).abs() < 5.0 * se_prr, "prr {prr} ± {}", 5.0 * se_prr);
        // μ̂ = 1 − ĝ − b̂, with ĝ a binomial proportion over the ≈ n(1−PRR) losses and b̂
        // over the ≈ n·PRR successes (Srinivasan et al. §6.2: g = PRR(1−μ) = 0.16, b = 0.24).
        let (g, b) = (0.16, 0.24);
        let se_mu = (g * (1.0 - g) / (n * 0.6) + b * (1.0 - b) / (n * 0.4)).sqrt();
        assert!((tr.mu().unwrap() - 0.6).abs() < 5.0 * se_mu, "mu {:?} ± {}", tr.mu(), 5.0 * se_mu);
    }

    #[test]
    fn rejects_impossible_parameters() {
        assert!(GilbertElliott::new(1.5, 0.1, 1.0, 0.0).unwrap_err().to_string().contains("b ="));
        assert!(GilbertElliott::from_prr_mu(0.5, -1.5).unwrap_err().to_string().contains("mu ="));
    }

    /// The run-level sampler and the per-packet path agree with the analytic mean loss,
    /// mean burst 1/g and mean gap 1/b (full four-parameter form uses only the mean).
    #[test]
    fn fast_and_slow_samplers_match_analytic_values() {
        let n = 400_000usize;
        let (b, g) = (0.02, 0.25);
        let mut fast = GilbertElliott::new(b, g, 1.0, 0.0).unwrap();
        let mut r = from_seed(5);
        let mut t = BitTrace::new();
        fast.sample_into(n, &mut r, &mut t);
        let mut slow = GilbertElliott::new(b, g, 1.0, 0.0).unwrap();
        let mut t2 = BitTrace::new();
        for _ in 0..n {
            t2.push(!slow.lost_packet(&mut r));
        }
        let pb = b / (b + g);
        for tr in [&t, &t2] {
            let loss = 1.0 - tr.count_ones() as f64 / n as f64;
            // Correlated samples: the variance of the mean of a two-state chain is
            // pb(1-pb)/n · (1+μ)/(1-μ) with μ = 1-b-g.
            let mu = 1.0 - b - g;
            let se = (pb * (1.0 - pb) / n as f64 * (1.0 + mu) / (1.0 - mu)).sqrt();
            assert!((loss - pb).abs() < 5.0 * se, "{loss} vs {pb}");
            let (zeros, ones) = crate::trace::summary::run_histograms(tr);
            let mb = zeros.mean().unwrap();
            let mg = ones.mean().unwrap();
            // Geometric run means: sd of a mean of m runs is sqrt(1-q)/q/sqrt(m).
            let sb = (1.0 - g).sqrt() / g / (zeros.count() as f64).sqrt();
            let sg = (1.0 - b).sqrt() / b / (ones.count() as f64).sqrt();
            assert!((mb - 1.0 / g).abs() < 5.0 * sb, "burst {mb}");
            assert!((mg - 1.0 / b).abs() < 5.0 * sg, "gap {mg}");
        }
        // Four-parameter form: losses in both states.
        let mut m = GilbertElliott::new(0.05, 0.2, 0.7, 0.01).unwrap();
        let want = m.mean_loss().unwrap();
        assert!((want - (0.2 * 0.7 + 0.8 * 0.01)).abs() < 1e-12);
        let mut t3 = BitTrace::new();
        m.sample_into(n, &mut r, &mut t3);
        let lost: Vec<bool> = t3.iter().map(|x| !x).collect();
        let loss = lost.iter().filter(|&&x| x).count() as f64 / n as f64;
        // 5 standard errors from 100 batch means (batches ≫ the chain's memory 1/(b+g)).
        let tol = crate::loss::batch_tolerance(&lost, 5.0);
        assert!((loss - want).abs() < tol, "{loss} vs {want} ± {tol}");
    }

    /// The per-packet word path (short cycles) against the analytic values, both for the
    /// bistable and the four-parameter form.
    #[test]
    fn short_cycle_path_matches_analytic_values() {
        let n = 400_000usize;
        let mut r = from_seed(8);
        for (b, g, h, k) in [(0.4, 0.4, 1.0, 0.0), (0.3, 0.5, 0.8, 0.05)] {
            let mut m = GilbertElliott::new(b, g, h, k).unwrap();
            let mut t = BitTrace::new();
            m.sample_into(n, &mut r, &mut t);
            assert_eq!(t.len(), n);
            let want = m.mean_loss().unwrap();
            let lost: Vec<bool> = t.iter().map(|x| !x).collect();
            let loss = lost.iter().filter(|&&x| x).count() as f64 / n as f64;
            let tol = crate::loss::batch_tolerance(&lost, 5.0);
            assert!((loss - want).abs() < tol, "{loss} vs {want} ± {tol}");
            if h == 1.0 && k == 0.0 {
                // b̂ and ĝ are binomial proportions over the successes and the losses.
                let tr = transitions(&t);
                let ones = t.count_ones() as f64;
                let (sb, sg) = ((b * (1.0 - b) / ones).sqrt(), (g * (1.0 - g) / (n as f64 - ones)).sqrt());
                assert!((tr.b().unwrap() - b).abs() < 5.0 * sb && (tr.g().unwrap() - g).abs() < 5.0 * sg, "{tr:?}");
            }
        }
    }

    #[test]
    fn sampler_continues_from_its_state() {
        // A chain that never leaves the bad state stays lossy across calls.
        let mut m = GilbertElliott::new(0.5, 0.0, 1.0, 0.0).unwrap().with_initial_state(true);
        let mut r = from_seed(1);
        let mut t = BitTrace::new();
        m.sample_into(100, &mut r, &mut t);
        assert_eq!(t.count_ones(), 0);
        assert!(m.lost_packet(&mut r));
    }
}
