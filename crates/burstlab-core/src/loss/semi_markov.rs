//! Two-state semi-Markov channel in continuous time (Pentikousis & Badr §2, Fig. 1a): the channel
//! alternates between good and bad periods whose lengths are drawn from arbitrary sojourn
//! distributions ([`Sojourn`]). Two readings of the same trajectory (Pentikousis & Badr §2):
//!
//! - [`TimeMode::Rate`] (rate-based): a packet is dropped with the drop probability of
//!   the state the channel is in when the packet starts (`start`); when it arrives does
//!   not matter otherwise.
//! - [`TimeMode::Temporal`] (ON/OFF): the bad state drops *every* packet in transit during
//!   it, the good state none: a packet occupying [start, end) is lost iff a bad period
//!   overlaps it (a zero-length packet: iff the channel is bad at `start`). Drop
//!   probabilities must then be 0 (good) and 1 (bad).
//!
//! The trajectory is generated lazily: periods are produced up to the latest queried time
//! and dropped once they end before the current `start` (the engine's calls come with
//! non-decreasing `start`).
//!
//! Packet mode (`lost_packet`, `sample_into`): packet n occupies [n·T, (n+1)·T) with
//! T = `packet_interval` (a required setting).
use super::sojourn::Sojourn;
use super::{check_pos_ns, check_prob, LossModel};
use crate::rng::{uniform, Rng};
use crate::time::{Nanos, NS_PER_S};
use std::collections::VecDeque;

use super::spec::{gt, loss_param, max, min, LossKind, LossModelSpec, SpecDefault, INTERVAL_HELP};

/// `semi:good=pareto/0.1/1.5,bad=exp/0.05[,pg=0,pb=1,temporal=0,interval=0.001]` (also `semi-markov`).
pub const SPEC: LossModelSpec = LossModelSpec {
    name: "semi",
    aliases: &["semi-markov", "semi_markov"],
    help: "Two-state semi-Markov channel in time: any sojourn law per state (exp, det, pareto, lognormal, geom).",
    reference: "Pentikousis & Badr, Error Modeling for TCP Simulations, §2",
    forms: &[&["good", "bad", "pg", "pb", "temporal", "interval"]],
    params: &[
        loss_param("semi", "good", LossKind::Law, "s", SpecDefault::Required, None, None, "Sojourn law of the good state, e.g. pareto/0.1/1.5.", ""),
        loss_param("semi", "bad", LossKind::Law, "s", SpecDefault::Required, None, None, "Sojourn law of the bad state, e.g. exp/0.05.", ""),
        loss_param("semi", "pg", LossKind::Real, "", SpecDefault::Is("0"), min(0.0), max(1.0), "Loss probability in the good state (rate-based reading).", ""),
        loss_param("semi", "pb", LossKind::Real, "", SpecDefault::Is("1"), min(0.0), max(1.0), "Loss probability in the bad state (rate-based reading).", ""),
        loss_param("semi", "temporal", LossKind::Flag, "", SpecDefault::Is("0"), None, None, "1: the temporal ON/OFF reading (then pg = 0, pb = 1).", "Pentikousis & Badr §2"),
        loss_param("semi", "interval", LossKind::Real, "s", SpecDefault::Is("0.001"), gt(0.0), None, INTERVAL_HELP, ""),
    ],
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeMode {
    Rate,
    Temporal,
}

/// Sojourn draws in seconds → whole nanoseconds, at least 1 ns so time always advances.
pub(crate) fn draw_ns(d: &Sojourn, rng: &mut Rng) -> Nanos {
    let s = d.sample(rng) * NS_PER_S as f64;
    if s >= 1.8e19 {
        u64::MAX / 4
    } else {
        (s.round() as Nanos).max(1)
    }
}

/// Exponential laws: gaps longer than this many mean cycles are crossed in one exact step.
pub const SKIP_CYCLES: f64 = 64.0;

/// Lazily generated alternating trajectory: `periods` are (start, end, bad) with no gaps
/// (after a skip, the trajectory restarts at the queried time).
#[derive(Clone, Debug, Default)]
pub(crate) struct Trajectory {
    periods: VecDeque<(Nanos, Nanos, bool)>,
}

impl Trajectory {
    fn clear(&mut self) {
        self.periods.clear();
    }

    /// Make sure the trajectory covers [start, end) and forget periods ending at or before `start`.
    ///
    /// With exponential laws (a continuous-time Markov chain) a gap of more than
    /// [`SKIP_CYCLES`] mean cycles before `start` is crossed in one step: the state at
    /// `start` is drawn from the chain's transient law, P(bad at t + Δ | entering X at t) =
    /// π_B + (1[X = bad] − π_B)·e^(−(1/m_G + 1/m_B)Δ), and by memorylessness the period
    /// from `start` on is a fresh sojourn. This is exact, and keeps the cost per query
    /// bounded however fast the channel changes relative to the queries.
    fn cover(&mut self, start: Nanos, end: Nanos, good: &Sojourn, bad: &Sojourn, first_bad: impl FnOnce(&mut Rng) -> bool, rng: &mut Rng) {
        if self.periods.is_empty() {
            let b = first_bad(rng);
            let d = draw_ns(if b { bad } else { good }, rng);
            self.periods.push_back((0, d, b));
        }
        // Forget the past as we go, so a long jump ahead keeps the buffer short.
        loop {
            while self.periods.len() > 1 && self.periods.front().expect("non-empty").1 <= start {
                self.periods.pop_front();
            }
            let &(_, e, b) = self.periods.back().expect("non-empty");
            if e > end.max(start) {
                break;
            }
            if let (Sojourn::Exponential { mean: mg }, Sojourn::Exponential { mean: mb }) = (good, bad) {
                let cycle = (mg + mb) * NS_PER_S as f64;
                if start > e && (start - e) as f64 > SKIP_CYCLES * cycle {
                    let gap = (start - e) as f64 / NS_PER_S as f64;
                    let pi_b = mb / (mg + mb);
                    let x0 = if b { 0.0 } else { 1.0 }; // the state entered at e is !b
                    let p_bad = pi_b + (x0 - pi_b) * (-(1.0 / mg + 1.0 / mb) * gap).exp();
                    let now_bad = uniform(rng) < p_bad;
                    let d = draw_ns(if now_bad { bad } else { good }, rng);
                    self.periods.clear();
                    self.periods.push_back((start, start.saturating_add(d), now_bad));
                    continue;
                }
            }
            let d = draw_ns(if b { good } else { bad }, rng);
            self.periods.push_back((e, e.saturating_add(d), !b));
        }
    }

    /// State at time t (t within the covered range).
    fn bad_at(&self, t: Nanos) -> bool {
        self.periods.iter().find(|p| p.0 <= t && t < p.1).map(|p| p.2).unwrap_or(false)
    }

    /// Does a bad period overlap [start, end)? (start == end: bad at start.)
    fn bad_overlaps(&self, start: Nanos, end: Nanos) -> bool {
        if end <= start {
            return self.bad_at(start);
        }
        self.periods.iter().any(|&(a, b, bad)| bad && a < end && b > start)
    }
}

#[derive(Clone, Debug)]
pub struct SemiMarkov {
    good: Sojourn,
    bad: Sojourn,
    /// Drop probability in the good / bad state.
    pub loss_good: f64,
    pub loss_bad: f64,
    pub mode: TimeMode,
    /// Packet mode: packet n occupies [n·T, (n+1)·T).
    pub packet_interval: Nanos,
    /// Start in a fixed state instead of the time-stationary choice.
    initial_bad: Option<bool>,
    traj: Trajectory,
    packet: u64,
}

impl SemiMarkov {
    pub fn new(good: Sojourn, bad: Sojourn, loss_good: f64, loss_bad: f64, mode: TimeMode, packet_interval: Nanos) -> crate::Result<Self> {
        super::check_time_law("good", &good)?;
        super::check_time_law("bad", &bad)?;
        let loss_good = check_prob("loss_good", loss_good)?;
        let loss_bad = check_prob("loss_bad", loss_bad)?;
        if mode == TimeMode::Temporal {
            // Pentikousis & Badr §2: an ON/OFF model drops nothing in the good state and all in the bad one.
            if loss_good != 0.0 {
                return Err(crate::Error::param("loss_good", loss_good, "0 in temporal (ON/OFF) mode"));
            }
            if loss_bad != 1.0 {
                return Err(crate::Error::param("loss_bad", loss_bad, "1 in temporal (ON/OFF) mode"));
            }
        }
        Ok(SemiMarkov {
            good,
            bad,
            loss_good,
            loss_bad,
            mode,
            packet_interval: check_pos_ns("packet_interval", packet_interval)?,
            initial_bad: None,
            traj: Trajectory::default(),
            packet: 0,
        })
    }

    pub fn with_initial_state(mut self, bad: bool) -> Self {
        self.initial_bad = Some(bad);
        self
    }

    pub fn good(&self) -> &Sojourn {
        &self.good
    }

    pub fn bad(&self) -> &Sojourn {
        &self.bad
    }

    /// Long-run fraction of time in the bad state, m_B / (m_G + m_B), where both means are finite.
    pub fn time_fraction_bad(&self) -> Option<f64> {
        let (mg, mb) = (self.good.mean()?, self.bad.mean()?);
        Some(mb / (mg + mb))
    }
}

impl LossModel for SemiMarkov {
    fn name(&self) -> &'static str {
        match (self.mode, self.good.is_exponential() && self.bad.is_exponential()) {
            (TimeMode::Rate, true) => "markov-ct",
            (TimeMode::Temporal, true) => "on-off",
            (TimeMode::Rate, false) => "semi-markov",
            (TimeMode::Temporal, false) => "semi-markov-on-off",
        }
    }

    fn lost_packet(&mut self, rng: &mut Rng) -> bool {
        let t = self.packet.saturating_mul(self.packet_interval);
        self.packet += 1;
        self.lost_in_transit(t, t.saturating_add(self.packet_interval), rng)
    }

    fn lost_in_transit(&mut self, start: Nanos, end: Nanos, rng: &mut Rng) -> bool {
        let init = self.initial_bad;
        let frac = self.time_fraction_bad();
        // The first period's state: fixed, or bad with the long-run time fraction (the
        // first period is a fresh full sojourn, not a residual one; docs/loss-models.md).
        let first = move |r: &mut Rng| init.unwrap_or_else(|| uniform(r) < frac.unwrap_or(0.5));
        let cover_end = if self.mode == TimeMode::Temporal { end } else { start };
        self.traj.cover(start, cover_end, &self.good, &self.bad, first, rng);
        match self.mode {
            TimeMode::Temporal => self.traj.bad_overlaps(start, end),
            TimeMode::Rate => {
                let p = if self.traj.bad_at(start) { self.loss_bad } else { self.loss_good };
                p >= 1.0 || (p > 0.0 && uniform(rng) < p)
            }
        }
    }

    fn reset(&mut self) {
        self.traj.clear();
        self.packet = 0;
    }

    /// Rate mode: Σ (time fraction in state) × (drop probability) (ergodic average at
    /// packet starts). Temporal mode in packet mode, exponential good sojourn of mean m_G:
    /// a packet [s, s+T) is lost iff bad at s or the (memoryless) residual good time is
    /// < T: π_B + π_G·(1 − e^(−T/m_G)). Other temporal cases: None.
    fn mean_loss(&self) -> Option<f64> {
        let pb = self.time_fraction_bad()?;
        match self.mode {
            TimeMode::Rate => Some(pb * self.loss_bad + (1.0 - pb) * self.loss_good),
            TimeMode::Temporal => match self.good {
                Sojourn::Exponential { mean } => {
                    let t = self.packet_interval as f64 / NS_PER_S as f64;
                    Some(pb + (1.0 - pb) * (1.0 - (-t / mean).exp()))
                }
                _ => None,
            },
        }
    }

    fn time_loss_fraction(&self) -> Option<f64> {
        let pb = self.time_fraction_bad()?;
        Some(pb * self.loss_bad + (1.0 - pb) * self.loss_good)
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;
    use crate::time::NS_PER_MS;

    #[test]
    fn rate_mode_mean_loss_tibet_settings() {
        // TIBET (Martignon & Capone §IV.B): good 8 s, bad 4 s, 1 % loss in good, 30 % in bad.
        let mut m = SemiMarkov::new(Sojourn::exponential(8.0).unwrap(), Sojourn::exponential(4.0).unwrap(), 0.01, 0.3, TimeMode::Rate, 10 * NS_PER_MS).unwrap();
        let want = m.mean_loss().unwrap();
        assert!((want - (8.0 / 12.0 * 0.01 + 4.0 / 12.0 * 0.3)).abs() < 1e-12);
        let mut r = from_seed(21);
        // 2e6 packets of 10 ms = 20000 s ≈ 1667 cycles; 100 batches of ≈ 17 cycles each.
        let n = 2_000_000;
        let v: Vec<bool> = (0..n).map(|_| m.lost_packet(&mut r)).collect();
        let loss = v.iter().filter(|&&x| x).count() as f64 / n as f64;
        let tol = crate::loss::batch_tolerance(&v, 5.0);
        assert!((loss - want).abs() < tol, "{loss} vs {want} ± {tol}");
    }

    #[test]
    fn on_off_loses_every_packet_overlapping_a_bad_period() {
        let mut m = SemiMarkov::new(Sojourn::deterministic(1.0).unwrap(), Sojourn::deterministic(0.5).unwrap(), 0.0, 1.0, TimeMode::Temporal, NS_PER_MS)
            .unwrap()
            .with_initial_state(false);
        let mut r = from_seed(1);
        let s = NS_PER_S;
        // Good [0,1), bad [1,1.5), good [1.5,2.5), bad [2.5,3) ...
        assert!(!m.lost_in_transit(0, s / 2, &mut r));
        assert!(m.lost_in_transit(s - 1000, s + 10, &mut r)); // straddles the start of bad
        assert!(m.lost_in_transit(s + s / 4, s + s / 4, &mut r)); // zero-length inside bad
        assert!(m.lost_in_transit(s + s / 2 - 1, 2 * s, &mut r)); // straddles the end of bad
        assert!(!m.lost_in_transit(s + s / 2, 2 * s, &mut r));
        assert!(m.lost_in_transit(2 * s, 4 * s, &mut r)); // spans a whole bad period
    }

    #[test]
    fn on_off_exponential_mean_loss_matches_sampling() {
        let mut m = SemiMarkov::new(Sojourn::exponential(0.05).unwrap(), Sojourn::exponential(0.02).unwrap(), 0.0, 1.0, TimeMode::Temporal, 5 * NS_PER_MS).unwrap();
        let want = m.mean_loss().unwrap();
        let pb: f64 = 0.02 / 0.07;
        assert!((want - (pb + (1.0 - pb) * (1.0 - (-0.1f64).exp()))).abs() < 1e-12);
        let mut r = from_seed(8);
        let n = 1_000_000;
        let v: Vec<bool> = (0..n).map(|_| m.lost_packet(&mut r)).collect();
        let lost = v.iter().filter(|&&x| x).count() as f64 / n as f64;
        let tol = crate::loss::batch_tolerance(&v, 5.0);
        assert!((lost - want).abs() < tol, "{lost} vs {want} ± {tol}");
    }

    #[test]
    fn heavy_tailed_sojourns_run_and_keep_time_fraction() {
        let mut m = SemiMarkov::new(Sojourn::pareto(0.1, 2.5).unwrap(), Sojourn::lognormal(-3.0, 0.5).unwrap(), 0.0, 1.0, TimeMode::Rate, NS_PER_MS).unwrap();
        let pb = m.time_fraction_bad().unwrap();
        let mut r = from_seed(3);
        let n = 2_000_000;
        let v: Vec<bool> = (0..n).map(|_| m.lost_packet(&mut r)).collect();
        let lost = v.iter().filter(|&&x| x).count() as f64 / n as f64;
        let tol = crate::loss::batch_tolerance(&v, 5.0);
        assert!((lost - pb).abs() < tol, "{lost} vs {pb} ± {tol}");
    }

    /// The trajectory is lazy: only periods overlapping the current query are kept, even
    /// after a long jump ahead (≈ 10^6 periods generated and dropped).
    #[test]
    fn trajectory_keeps_only_the_live_periods() {
        let mut m = SemiMarkov::new(Sojourn::exponential(0.001).unwrap(), Sojourn::exponential(0.001).unwrap(), 0.0, 1.0, TimeMode::Temporal, NS_PER_MS).unwrap();
        let mut r = from_seed(5);
        m.lost_in_transit(0, NS_PER_MS, &mut r);
        m.lost_in_transit(1000 * NS_PER_S, 1000 * NS_PER_S + 5 * NS_PER_MS, &mut r);
        assert!(m.traj.periods.len() < 40, "{}", m.traj.periods.len());
        let &(a, b, _) = m.traj.periods.front().unwrap();
        assert!(a <= 1000 * NS_PER_S && b > 1000 * NS_PER_S);
        // Periods are contiguous and alternate.
        for w in m.traj.periods.iter().collect::<Vec<_>>().windows(2) {
            assert_eq!(w[0].1, w[1].0);
            assert_ne!(w[0].2, w[1].2);
        }
    }

    #[test]
    fn temporal_mode_demands_all_or_nothing() {
        let e = SemiMarkov::new(Sojourn::exponential(1.0).unwrap(), Sojourn::exponential(1.0).unwrap(), 0.0, 0.5, TimeMode::Temporal, 1).unwrap_err();
        assert!(e.to_string().contains("loss_bad ="));
        let e = SemiMarkov::new(Sojourn::exponential(1.0).unwrap(), Sojourn::exponential(1.0).unwrap(), 0.0, 1.0, TimeMode::Rate, 0).unwrap_err();
        assert!(e.to_string().contains("packet_interval ="));
    }
}
