//! Continuous-time two-state Markov channel (Pentikousis & Badr §2, Fig. 1a): exponential sojourns
//! in good and bad, a drop rate per state (rate-based), or the temporal ON/OFF reading in
//! which the bad state drops every packet in transit. TIBET's setting (Martignon & Capone §IV.B) is
//! `markov_ct(8.0, 4.0, 0.01, p_bad, ..)`. Both are [`SemiMarkov`] with exponential laws.
use super::semi_markov::{SemiMarkov, TimeMode};
use super::sojourn::Sojourn;
use crate::time::Nanos;

use super::spec::{gt, loss_param, max, min, LossKind, LossModelSpec, SpecDefault, INTERVAL_HELP};

/// `ctmc:good=8,bad=4[,pg=0.01,pb=0.3,interval=0.001]` (also `markov-ct`).
pub const SPEC_CTMC: LossModelSpec = LossModelSpec {
    name: "ctmc",
    aliases: &["markov-ct", "markov_ct"],
    help: "Continuous-time two-state Markov chain, rate-based: exponential sojourns, a loss probability per state.",
    reference: "Pentikousis & Badr, Error Modeling for TCP Simulations, §2 and Fig. 1a; Martignon & Capone §IV.B",
    forms: &[&["good", "bad", "pg", "pb", "interval"]],
    params: &[
        loss_param("ctmc", "good", LossKind::Real, "s", SpecDefault::Required, gt(0.0), None, "Mean sojourn in the good state.", ""),
        loss_param("ctmc", "bad", LossKind::Real, "s", SpecDefault::Required, gt(0.0), None, "Mean sojourn in the bad state.", ""),
        loss_param("ctmc", "pg", LossKind::Real, "", SpecDefault::Is("0"), min(0.0), max(1.0), "Loss probability in the good state.", ""),
        loss_param("ctmc", "pb", LossKind::Real, "", SpecDefault::Is("1"), min(0.0), max(1.0), "Loss probability in the bad state.", ""),
        loss_param("ctmc", "interval", LossKind::Real, "s", SpecDefault::Is("0.001"), gt(0.0), None, INTERVAL_HELP, ""),
    ],
};

/// `onoff:good=1.8,bad=0.2[,interval=0.001]` (also `on-off`).
pub const SPEC_ONOFF: LossModelSpec = LossModelSpec {
    name: "onoff",
    aliases: &["on-off", "on_off"],
    help: "Temporal ON/OFF channel: exponential periods; every packet in transit during a bad period is lost.",
    reference: "Pentikousis & Badr, Error Modeling for TCP Simulations, §2",
    forms: &[&["good", "bad", "interval"]],
    params: &[
        loss_param("onoff", "good", LossKind::Real, "s", SpecDefault::Required, gt(0.0), None, "Mean good (ON) period.", ""),
        loss_param("onoff", "bad", LossKind::Real, "s", SpecDefault::Required, gt(0.0), None, "Mean bad (OFF) period.", ""),
        loss_param("onoff", "interval", LossKind::Real, "s", SpecDefault::Is("0.001"), gt(0.0), None, INTERVAL_HELP, ""),
    ],
};

/// Rate-based continuous-time Markov chain: mean sojourns in seconds, drop probabilities
/// per state; packet mode uses `packet_interval` (ns) between packet starts.
pub fn markov_ct(mean_good: f64, mean_bad: f64, loss_good: f64, loss_bad: f64, packet_interval: Nanos) -> crate::Result<SemiMarkov> {
    SemiMarkov::new(
        Sojourn::exponential(mean_good).map_err(|e| rename(e, "mean_good"))?,
        Sojourn::exponential(mean_bad).map_err(|e| rename(e, "mean_bad"))?,
        loss_good,
        loss_bad,
        TimeMode::Rate,
        packet_interval,
    )
}

/// Temporal ON/OFF (Pentikousis & Badr §2): exponential good/bad periods, every packet in transit
/// during a bad period is lost.
pub fn on_off(mean_good: f64, mean_bad: f64, packet_interval: Nanos) -> crate::Result<SemiMarkov> {
    SemiMarkov::new(
        Sojourn::exponential(mean_good).map_err(|e| rename(e, "mean_good"))?,
        Sojourn::exponential(mean_bad).map_err(|e| rename(e, "mean_bad"))?,
        0.0,
        1.0,
        TimeMode::Temporal,
        packet_interval,
    )
}

/// Give a parameter error the caller's parameter name.
pub(crate) fn rename(e: crate::Error, name: &str) -> crate::Error {
    match e {
        crate::Error::InvalidParameter { value, expected, .. } => crate::Error::InvalidParameter { name: name.to_string(), value, expected },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::LossModel;
    use crate::rng::from_seed;
    use crate::time::NS_PER_MS;

    #[test]
    fn names_and_errors() {
        assert_eq!(markov_ct(8.0, 4.0, 0.01, 0.3, NS_PER_MS).unwrap().name(), "markov-ct");
        assert_eq!(on_off(1.8, 0.2, NS_PER_MS).unwrap().name(), "on-off");
        let e = markov_ct(-8.0, 4.0, 0.0, 1.0, NS_PER_MS).unwrap_err().to_string();
        assert!(e.contains("mean_good ="), "{e}");
        let e = on_off(1.0, 0.0, NS_PER_MS).unwrap_err().to_string();
        assert!(e.contains("mean_bad ="), "{e}");
    }

    /// Sojourns the nanosecond clock cannot resolve are refused by name; a chain much
    /// faster than the packets is crossed in exact skips (the long-run loss is π_B·p_B).
    #[test]
    fn fast_channels_are_refused_or_skipped() {
        for (g, b) in [(1e-9, 1e-9), (1e-12, 1e-12), (1.0, 1e-7)] {
            let e = markov_ct(g, b, 0.0, 1.0, NS_PER_MS).unwrap_err().to_string();
            assert!(e.contains("at least 1 µs"), "{e}");
        }
        // 1 ms packets over a chain with 10 µs + 30 µs cycles: every step is a skip.
        let mut m = markov_ct(10e-6, 30e-6, 0.0, 1.0, NS_PER_MS).unwrap();
        let mut r = from_seed(5);
        let n = 200_000usize;
        let v: Vec<bool> = (0..n).map(|_| m.lost_packet(&mut r)).collect();
        let frac = v.iter().filter(|&&x| x).count() as f64 / n as f64;
        // independent draws (the chain forgets in 25 cycles): binomial standard error
        let tol = 5.0 * (0.75f64 * 0.25 / n as f64).sqrt();
        assert!((frac - 0.75).abs() < tol, "{frac} ± {tol}");
    }

    /// Stationary probabilities: sampled on a fine grid with zero-length probes, the
    /// fraction of time bad matches m_B/(m_G+m_B) (Pentikousis & Badr's A/B = 1.8 s / 0.2 s).
    #[test]
    fn stationary_bad_fraction() {
        let mut m = on_off(1.8, 0.2, NS_PER_MS).unwrap();
        let mut r = from_seed(17);
        let n = 4_000_000u64; // 10 ms grid over 40000 s ≈ 20000 cycles
        let v: Vec<bool> = (0..n).map(|i| m.lost_in_transit(i * 10 * NS_PER_MS, i * 10 * NS_PER_MS, &mut r)).collect();
        let frac = v.iter().filter(|&&x| x).count() as f64 / n as f64;
        let tol = crate::loss::batch_tolerance(&v, 5.0);
        assert!((frac - 0.1).abs() < tol, "{frac} ± {tol}");
    }
}
