//! Retransmission timer computation, RFC 6298, with configurable bounds; optionally the
//! original RFC 793 §3.7 estimator and no exponential backoff (the `tossim` profile of the
//! PRR/μ study, see [`RtoEstimator`]).
use super::Tcb;
use crate::time::Nanos;

#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct RttConfig {
    // What every RTT sample reads first (`SenderConfig::HOT`), the rest after.
    pub rto_min: Nanos,
    pub rto_max: Nanos,
    /// Clock granularity G of RFC 6298 §2.
    pub granularity: Nanos,
    pub rto_initial: Nanos,
    /// When a backed-off RTO collapses back (see [`BackoffReset`]).
    pub backoff_reset: BackoffReset,
    /// RFC 6298 §5.5 / RFC 1122 §4.2.3.1 exponential backoff on a timeout (default on).
    pub backoff: bool,
    /// How RTO follows the RTT samples (RFC 6298 by default).
    pub estimator: RtoEstimator,
}

/// How RTO is computed from RTT samples.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum RtoEstimator {
    /// RFC 6298 §2: RTO = SRTT + max(G, 4·RTTVAR) (Jacobson/Karels).
    #[default]
    Rfc6298,
    /// RFC 793 §3.7 ("Retransmission Timeout"), the reference Srinivasan et al. cite for
    /// TCP itself: SRTT = α·SRTT + (1 − α)·RTT, RTO = min(UBOUND, max(LBOUND, β·SRTT)),
    /// "UBOUND ... (e.g., 1 minute), LBOUND ... (e.g., 1 second), ALPHA ... (e.g., .8 to
    /// .9), BETA ... (e.g., 1.3 to 2.0)" — exactly the 1-60 s bounds of Srinivasan et al.
    /// §3.1. RFC 793 has no exponential backoff (that came with RFC 1122 §4.2.3.1); use it
    /// with `backoff = false` to reproduce it.
    Rfc793 { alpha: f64, beta: f64 },
}

crate::named_enum!(
    /// When the exponential backoff of RFC 6298 §5.5 is undone.
    #[derive(Default)]
    BackoffReset, "rto_backoff_reset" {
        /// RFC 6298 §5 (Karn's algorithm): the backed-off RTO is kept until a new RTT
        /// sample is taken, which only an ACK for never-retransmitted data gives.
        #[default]
        Sample = "sample",
        /// Any ACK of new data recomputes RTO from SRTT and RTTVAR, as ns-3's
        /// `TcpSocketBase` and Linux do. On very lossy links (Srinivasan et al.'s slotted traces) a
        /// timeout chain otherwise keeps RTO at its upper bound for long stretches.
        NewAck = "new_ack",
    }
);


/// Initial state (RFC 6298 §2.1): RTO = the initial value, no estimate yet.
pub fn init(tcb: &mut Tcb, c: &RttConfig) {
    tcb.srtt = None;
    tcb.rttvar = 0;
    tcb.rto = c.rto_initial.clamp(c.rto_min, c.rto_max);
}

/// A new RTT measurement `r` (RFC 6298 §2.2-2.4); also clears any backoff (§5.7 leaves
/// the backed-off value until a new sample is taken, which is what this does).
#[inline(always)]
pub fn sample(tcb: &mut Tcb, c: &RttConfig, r: Nanos) {
    sample_in::<false>(tcb, c, r)
}

/// [`sample`]; `RFC6298`: the estimator is known to be RFC 6298's (a sender with the
/// default rules, `Sender::default_rules`), not read.
#[inline(always)]
pub fn sample_in<const RFC6298: bool>(tcb: &mut Tcb, c: &RttConfig, r: Nanos) {
    debug_assert!(!RFC6298 || c.estimator == RtoEstimator::Rfc6298);
    if let (false, RtoEstimator::Rfc793 { alpha, beta }) = (RFC6298, c.estimator) {
        // RFC 793 §3.7: the first sample initialises SRTT (RFC 793 leaves it open; RFC 6298
        // (2.2) does the same).
        let srtt = tcb.srtt.map_or(r, |s| (alpha * s as f64 + (1.0 - alpha) * r as f64).round() as Nanos);
        tcb.srtt = Some(srtt);
        tcb.min_rtt = Some(tcb.min_rtt.map_or(r, |m| m.min(r)));
        tcb.rto = ((beta * srtt as f64).round() as Nanos).clamp(c.rto_min, c.rto_max);
        return;
    }
    // (The new SRTT and RTTVAR are kept in registers for the RTO below, not read back.)
    let (srtt, rttvar) = match tcb.srtt {
        // (2.2) SRTT <- R, RTTVAR <- R/2
        None => (r, r / 2),
        // (2.3) RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|; SRTT <- 7/8 SRTT + 1/8 R'
        Some(srtt) => ((7 * srtt + r) / 8, (3 * tcb.rttvar + srtt.abs_diff(r)) / 4),
    };
    tcb.srtt = Some(srtt);
    tcb.rttvar = rttvar;
    tcb.min_rtt = Some(tcb.min_rtt.map_or(r, |m| m.min(r)));
    // RTO <- SRTT + max(G, K·RTTVAR), K = 4, bounded (2.4, 2.5 and the configured maximum).
    // (`max` then `min`, not `clamp`: the bounds are ordered, `TcpConfig::validate`, and
    // clamp would test that on every sample.)
    debug_assert!(c.rto_min <= c.rto_max);
    tcb.rto = (srtt + c.granularity.max(4 * rttvar)).max(c.rto_min).min(c.rto_max);
}

/// Undo the backoff on an ACK of new data without an RTT sample, if configured
/// ([`BackoffReset::NewAck`]): RTO <- SRTT + max(G, 4·RTTVAR), bounded, or the initial
/// RTO while there is no estimate yet.
pub fn on_new_ack_without_sample(tcb: &mut Tcb, c: &RttConfig) {
    if c.backoff_reset != BackoffReset::NewAck {
        return;
    }
    tcb.rto = match (tcb.srtt, c.estimator) {
        (Some(srtt), RtoEstimator::Rfc6298) => (srtt + c.granularity.max(4 * tcb.rttvar)).clamp(c.rto_min, c.rto_max),
        (Some(srtt), RtoEstimator::Rfc793 { beta, .. }) => ((beta * srtt as f64).round() as Nanos).clamp(c.rto_min, c.rto_max),
        (None, _) => c.rto_initial.clamp(c.rto_min, c.rto_max),
    };
}

/// (5.5) Back off the timer: RTO <- min(2·RTO, max); nothing when backoff is off (RFC 793).
pub fn backoff(tcb: &mut Tcb, c: &RttConfig) {
    if c.backoff {
        tcb.rto = tcb.rto.saturating_mul(2).min(c.rto_max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    fn tcb() -> Tcb {
        Tcb::for_test(1000, 2000)
    }

    #[test]
    fn backoff_reset_policies() {
        let mut c = RttConfig { rto_min: 200 * NS_PER_MS, rto_max: 12_000 * NS_PER_MS, rto_initial: 1000 * NS_PER_MS, granularity: 0, backoff_reset: BackoffReset::Sample, estimator: RtoEstimator::Rfc6298, backoff: true };
        let mut t = tcb();
        init(&mut t, &c);
        sample(&mut t, &c, 100 * NS_PER_MS); // RTO 300 ms
        backoff(&mut t, &c);
        backoff(&mut t, &c);
        assert_eq!(t.rto, 1200 * NS_PER_MS);
        // RFC 6298 (Karn): an ACK without a sample keeps the backed-off value.
        on_new_ack_without_sample(&mut t, &c);
        assert_eq!(t.rto, 1200 * NS_PER_MS);
        // ns-3 style: it collapses back to SRTT + 4·RTTVAR.
        c.backoff_reset = BackoffReset::NewAck;
        on_new_ack_without_sample(&mut t, &c);
        assert_eq!(t.rto, 300 * NS_PER_MS);
        // Without an estimate: the initial RTO.
        let mut u = tcb();
        init(&mut u, &c);
        backoff(&mut u, &c);
        on_new_ack_without_sample(&mut u, &c);
        assert_eq!(u.rto, 1000 * NS_PER_MS);
    }

    #[test]
    fn rfc6298_known_answers() {
        let c = RttConfig { rto_min: 200 * NS_PER_MS, rto_max: 12_000 * NS_PER_MS, rto_initial: 1000 * NS_PER_MS, granularity: 0, backoff_reset: BackoffReset::Sample, estimator: RtoEstimator::Rfc6298, backoff: true };
        let mut t = tcb();
        init(&mut t, &c);
        assert_eq!(t.rto, 1000 * NS_PER_MS);
        sample(&mut t, &c, 100 * NS_PER_MS);
        // SRTT 100, RTTVAR 50, RTO = 100 + 200 = 300 ms.
        assert_eq!((t.srtt.unwrap(), t.rttvar, t.rto), (100 * NS_PER_MS, 50 * NS_PER_MS, 300 * NS_PER_MS));
        sample(&mut t, &c, 20 * NS_PER_MS);
        // RTTVAR = 3/4·50 + 1/4·80 = 57.5; SRTT = 7/8·100 + 1/8·20 = 90; RTO = 90 + 230 = 320.
        assert_eq!(t.rttvar, 57_500_000);
        assert_eq!(t.srtt.unwrap(), 90 * NS_PER_MS);
        assert_eq!(t.rto, 320 * NS_PER_MS);
        // Lower bound, then backoff doubling up to the upper bound.
        for _ in 0..50 {
            sample(&mut t, &c, NS_PER_MS);
        }
        assert_eq!(t.rto, 200 * NS_PER_MS);
        for _ in 0..10 {
            backoff(&mut t, &c);
        }
        assert_eq!(t.rto, 12_000 * NS_PER_MS);
    }

    /// RFC 793 §3.7 with α = 0.875, β = 2, bounds 1-60 s, no backoff: SRTT follows the
    /// samples by α, RTO = β·SRTT clamped, and a timeout leaves RTO where it is.
    #[test]
    fn rfc793_estimator_without_backoff() {
        let c = RttConfig {
            rto_min: 1000 * NS_PER_MS, rto_max: 60_000 * NS_PER_MS, rto_initial: 1000 * NS_PER_MS, granularity: 0,
            backoff_reset: BackoffReset::Sample, estimator: RtoEstimator::Rfc793 { alpha: 0.875, beta: 2.0 }, backoff: false,
        };
        let mut t = tcb();
        init(&mut t, &c);
        sample(&mut t, &c, 800 * NS_PER_MS); // SRTT 800 ms, RTO 1.6 s
        assert_eq!((t.srtt, t.rto), (Some(800 * NS_PER_MS), 1600 * NS_PER_MS));
        sample(&mut t, &c, 0); // SRTT = 7/8·800 = 700 ms, RTO 1.4 s
        assert_eq!((t.srtt, t.rto), (Some(700 * NS_PER_MS), 1400 * NS_PER_MS));
        for _ in 0..10 {
            backoff(&mut t, &c);
        }
        assert_eq!(t.rto, 1400 * NS_PER_MS);
        sample(&mut t, &c, 10 * NS_PER_MS); // SRTT 613.75 ms, RTO 1.2275 s
        assert_eq!(t.rto, 1_227_500_000);
        for _ in 0..40 {
            sample(&mut t, &c, 10 * NS_PER_MS);
        }
        assert_eq!(t.rto, 1000 * NS_PER_MS); // LBOUND
        // A new ACK without a sample ("new_ack") recomputes β·SRTT, here still LBOUND.
        on_new_ack_without_sample(&mut t, &RttConfig { backoff_reset: BackoffReset::NewAck, ..c });
        assert_eq!(t.rto, 1000 * NS_PER_MS);
    }
}
