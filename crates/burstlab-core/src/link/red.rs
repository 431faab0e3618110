//! Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1993) with Explicit Congestion Notification (RFC 3168 §5, §7):
//! a queue discipline a link's admission consults before its DropTail buffer check
//! ([`QueueDisc`], the seam; `sim/engine.rs` calls [`Red::arrival`] on entry).
//!
//! For every arriving packet (F&J §4, the algorithm of their Fig. 2):
//! - the average queue: `avg ← (1 − w_q)·avg + w_q·q` when the queue is not empty; after an
//!   idle period, `avg ← (1 − w_q)^m · avg` with `m = (now − q_time)/s`, the packets a link
//!   could have sent since the queue emptied (`s`: the transmission time of a packet of
//!   `mean_packet_bytes`, F&J's "typical small packet");
//! - `min_th ≤ avg < max_th`: `count` packets since the last mark, `p_b = max_p·(avg −
//!   min_th)/(max_th − min_th)`, `p_a = p_b/(1 − count·p_b)` (the marks uniformly spaced);
//!   with `wait` (Floyd's later recommendation, ns-2's and ns-3's default) `p_a = 0` while
//!   `count·p_b < 1`, `p_b/(2 − count·p_b)` below 2, else 1; marked with probability `p_a`;
//! - `avg ≥ max_th`: every packet marked (a *forced* mark); with `gentle` (Floyd 2000, ns-3's
//!   default) `p_b` rises from `max_p` at `max_th` to 1 at `2·max_th` instead, forced beyond;
//! - marking: an ECN-capable packet (ECT) gets CE instead of being dropped when `ecn` is on
//!   (RFC 3168 §7), except a forced one with `hard_drop` (ns-3's `UseHardDrop`); anything
//!   else is dropped.
//!
//! `q` counts the packets (or bytes, with a byte buffer) waiting for the link's server, not
//! the one in service — what the DropTail buffer counts — and `q_time` is when the last of
//! them left the queue (its service start). Thresholds are in the buffer's unit. The link's
//! buffer still bounds the queue: a packet RED accepts is dropped if it does not fit.
//! `docs/simulator.md` ("RED and ECN") lists the defaults beside ns-3 3.44's RedQueueDisc.
use crate::rng::{uniform, Rng};
use crate::time::Nanos;
use crate::{Error, Result};

crate::params! {
    /// RED's parameters (defaults: ns-3 3.44's RedQueueDisc, except `ecn`), declared once:
    /// `RedParams::PARAMS` gives Python's `Red`, the `--red-*` options, the TOML `red_*` keys
    /// and `docs/parameters.md`. Thresholds in the link's buffer unit.
    pub struct RedParams {
        /// Thresholds of the average queue, in the link's buffer unit.
        red min_th: f64 [real] = 5.0, "", min 0.0,
            "Average queue below which nothing is marked (the link's buffer unit).", "Floyd & Jacobson 1993 §4";
        red max_th: f64 [real] = 15.0, "", min 0.0,
            "Average queue from which every packet is marked (gentle: up to 2 max_th); above min_th.", "Floyd & Jacobson 1993 §4";
        /// Marking probability at `max_th` (ns-3: 1/LInterm).
        red max_p: f64 [real] = 0.02, "", gt 0.0, max 1.0,
            "Marking probability at max_th (ns-3: 1/LInterm).", "Floyd & Jacobson 1993 §4";
        /// Weight of the EWMA of the queue, w_q.
        red weight: f64 [real] = 0.002, "", gt 0.0, max 1.0,
            "Weight w_q of the average queue's EWMA.", "Floyd & Jacobson 1993 §6";
        red gentle: bool [bool] = true, "",
            "Between max_th and 2 max_th the probability rises to 1 instead of jumping (Floyd 2000).", "Floyd 2000, Recommendations on using the gentle variant of RED";
        red wait: bool [bool] = true, "",
            "Marks spaced by at least 1/p_b packets (ns-2's and ns-3's default).", "ns-2 RED wait_; ns-3 RedQueueDisc Wait";
        /// Mark ECT packets instead of dropping them (RFC 3168).
        red ecn: bool [bool] = true, "",
            "ECN-capable packets are marked (CE), not dropped.", "RFC 3168 §7";
        /// Drop forced marks even when the packet is ECN-capable (ns-3's UseHardDrop).
        red hard_drop: bool [bool] = true, "",
            "Forced marks (above the thresholds) stay drops (ns-3's UseHardDrop).", "ns-3 RedQueueDisc";
        /// The "typical small packet" whose transmission time counts the idle period, bytes.
        red mean_packet_bytes: u32 [u32] = 500, "bytes", min 1,
            "The packet whose transmission time counts an idle period.", "Floyd & Jacobson 1993 §4";
    }
    virtual {}
}

impl RedParams {
    /// Every declared range (named `link LINK.red_NAME`), and max_th above min_th.
    pub fn validate(&self, link: &str) -> Result<()> {
        let name = |p: &str| format!("link {link}.red_{p}");
        self.check_ranges().map_err(|e| match e {
            Error::InvalidParameter { name: n, value, expected } => Error::InvalidParameter { name: name(&n), value, expected },
            e => e,
        })?;
        if !(self.max_th.is_finite() && self.max_th > self.min_th) {
            return Err(Error::param(&name("max_th"), self.max_th, &format!("a threshold above min_th = {}", self.min_th)));
        }
        Ok(())
    }
}

/// The queue discipline of a link: what its admission asks before the buffer check.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum QueueDisc {
    /// Drop on entry only when the buffer is full (`queue.rs`).
    #[default]
    DropTail,
    Red(RedParams),
    /// CoDel (`codel.rs`, RFC 8289): decides at dequeue.
    Codel(crate::link::CodelParams),
    /// FQ-CoDel (`fq_codel.rs`, RFC 8290): per-flow queues with CoDel each, DRR between them.
    FqCodel(crate::link::CodelParams, crate::link::FqParams),
}

impl QueueDisc {
    /// Whether it decides at dequeue (CoDel, FQ-CoDel: a dequeue event per packet).
    pub fn at_dequeue(&self) -> bool {
        matches!(self, QueueDisc::Codel(_) | QueueDisc::FqCodel(..))
    }
}

/// What RED does with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Enqueue with CE set (the packet is ECN-capable).
    Mark,
    /// Drop it on entry (an early drop, counted with the buffer's drops).
    Drop,
}

/// RED's state on one link direction.
#[derive(Clone, Debug)]
pub struct Red {
    p: RedParams,
    /// The average queue.
    pub avg: f64,
    /// Packets since the last mark while `avg` is between the thresholds (−1 below).
    count: i64,
    /// Transmission time of a packet of `mean_packet_bytes`, ns (0: no idle decay).
    s: f64,
    /// ln(1 − w_q)/s: the average decays by exp(idle·this) over `idle` ns.
    decay: f64,
    /// The average at and above which every packet is marked: `max_th`, or `2·max_th` with
    /// `gentle`.
    top: f64,
    rng: Rng,
}

impl Red {
    /// RED for a link whose packet of `mean_packet_bytes` takes `s` ns to send.
    pub fn new(p: RedParams, s: f64, rng: Rng) -> Self {
        let decay = if s > 0.0 { (1.0 - p.weight).ln() / s } else { 0.0 };
        let top = if p.gentle { 2.0 * p.max_th } else { p.max_th };
        Red { p, avg: 0.0, count: -1, s, decay, top, rng }
    }

    /// A packet arrives at `now` and finds `q` waiting (in the buffer's unit), the queue
    /// empty since `q_time` when `q` is 0; `ect`: it is ECN-capable.
    #[inline(always)]
    pub fn arrival(&mut self, now: Nanos, q: f64, q_time: Nanos, ect: bool) -> Verdict {
        self.update_avg(now, q, q_time);
        let p = &self.p;
        if self.avg < p.min_th {
            self.count = -1;
            return Verdict::Enqueue;
        }
        if self.avg >= self.top {
            self.count = 0;
            return if p.ecn && ect && !p.hard_drop { Verdict::Mark } else { Verdict::Drop };
        }
        self.count += 1;
        let pa = self.mark_probability();
        if uniform(&mut self.rng) < pa {
            self.count = 0;
            return if p.ecn && ect { Verdict::Mark } else { Verdict::Drop };
        }
        Verdict::Enqueue
    }

    /// F&J's average: the EWMA of the queue at arrivals, decayed over idle time.
    fn update_avg(&mut self, now: Nanos, q: f64, q_time: Nanos) {
        let w = self.p.weight;
        if q > 0.0 {
            self.avg = (1.0 - w) * self.avg + w * q;
        } else if self.s > 0.0 && self.avg > 0.0 {
            // (1 − w_q)^m, m = (now − q_time)/s. An arrival at the instant the last packet
            // started its service (a sender's back-to-back pair) decays by exp(0) = 1: skipped.
            // (as i64: one conversion instruction; an idle time is far below 2^63 ns)
            let idle = now.saturating_sub(q_time);
            if idle > 0 {
                self.avg *= (idle as i64 as f64 * self.decay).exp();
            }
        }
    }

    /// p_b at the current average (F&J eq. for p_b; gentle above max_th).
    pub fn base_probability(&self) -> f64 {
        let p = &self.p;
        if self.avg < p.min_th {
            0.0
        } else if self.avg < p.max_th {
            p.max_p * (self.avg - p.min_th) / (p.max_th - p.min_th)
        } else if p.gentle && self.avg < 2.0 * p.max_th {
            p.max_p + (1.0 - p.max_p) * (self.avg - p.max_th) / p.max_th
        } else {
            1.0
        }
    }

    /// p_a: p_b spread by `count` (uniform spacing; or `wait`).
    fn mark_probability(&self) -> f64 {
        let pb = self.base_probability();
        let c = self.count as f64 * pb;
        if self.p.wait {
            if c < 1.0 {
                0.0
            } else if c < 2.0 {
                pb / (2.0 - c)
            } else {
                1.0
            }
        } else if c < 1.0 {
            pb / (1.0 - c)
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn red(p: RedParams) -> Red {
        Red::new(p, 1000.0, stream(1, 2))
    }

    /// The average is F&J's EWMA of the queue seen at arrivals, exactly, and decays by
    /// (1 − w_q)^m over an idle period of m packet times.
    #[test]
    fn average_tracks_the_ewma() {
        let mut r = red(RedParams { min_th: 1e9, max_th: 2e9, ..RedParams::default() });
        let w = 0.002;
        let mut want = 0.0f64;
        for (i, q) in [3.0, 7.0, 12.0, 0.5, 40.0].iter().cycle().take(2000).enumerate() {
            assert_eq!(r.arrival(i as u64, *q, 0, false), Verdict::Enqueue);
            want = (1.0 - w) * want + w * q;
            assert!((r.avg - want).abs() <= 1e-12 * want.max(1.0), "arrival {i}: {} vs {want}", r.avg);
        }
        // A constant queue: the average approaches it as 1 − (1 − w)^n.
        let mut r = red(RedParams { min_th: 1e9, max_th: 2e9, ..RedParams::default() });
        for _ in 0..1000 {
            r.arrival(0, 10.0, 0, false);
        }
        assert!((r.avg - 10.0 * (1.0 - (1.0 - w).powi(1000))).abs() < 1e-9);
        // Idle for 500 packet times (s = 1000 ns): × (1 − w)^500.
        let before = r.avg;
        r.arrival(600_000, 0.0, 100_000, false);
        assert!((r.avg - before * (1.0 - w).powf(500.0)).abs() < 1e-12);
    }

    /// p_b: 0 below min_th, linear to max_p at max_th, then (gentle) linear to 1 at 2·max_th,
    /// or 1 at once.
    #[test]
    fn base_probability_curve() {
        let mut r = red(RedParams::default()); // 5, 15, 0.02, gentle
        let at = |r: &mut Red, avg: f64| {
            r.avg = avg;
            r.base_probability()
        };
        assert_eq!(at(&mut r, 4.99), 0.0);
        assert_eq!(at(&mut r, 5.0), 0.0);
        assert!((at(&mut r, 10.0) - 0.01).abs() < 1e-15);
        assert!((at(&mut r, 15.0) - 0.02).abs() < 1e-15);
        assert!((at(&mut r, 22.5) - (0.02 + 0.98 * 0.5)).abs() < 1e-15);
        assert_eq!(at(&mut r, 30.0), 1.0);
        r.p.gentle = false;
        assert_eq!(at(&mut r, 15.0), 1.0);
    }

    /// The count-based spacing: with the average held where p_b = 0.01, F&J's rule (count
    /// incremented before p_a = p_b/(1 − count·p_b)) spaces marks uniformly on 1..=99 packets
    /// (mean 50); with `wait`, on 100..=199 (mean 149.5). Means over 4000 marks, within 4
    /// standard errors (the uniform law's σ = 100/√12 ≈ 28.9 packets).
    #[test]
    fn marks_are_spaced_by_count() {
        for (wait, mean, lo, hi) in [(false, 50.0, 1, 99), (true, 149.5, 100, 199)] {
            let mut r = red(RedParams { weight: 1.0, wait, ecn: true, ..RedParams::default() });
            let (mut gaps, mut since) = (vec![], 0u64);
            while gaps.len() < 4000 {
                since += 1;
                // w = 1: avg = q = 10 → p_b = 0.01
                if r.arrival(0, 10.0, 0, true) == Verdict::Mark {
                    gaps.push(since);
                    since = 0;
                }
            }
            let m = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
            let se = (100.0f64 / 12f64.sqrt()) / (gaps.len() as f64).sqrt();
            assert!((m - mean).abs() < 4.0 * se, "wait {wait}: mean gap {m}, want {mean} ± {}", 4.0 * se);
            assert!(gaps[1..].iter().all(|&g| (lo..=hi).contains(&g)), "wait {wait}: gaps outside {lo}..={hi}");
        }
    }

    /// ECN: early marks of ECT packets replace drops; non-ECT packets are dropped; a forced
    /// mark is a drop with `hard_drop`, a mark without.
    #[test]
    fn marks_replace_drops_for_ect_packets() {
        let mut r = red(RedParams { weight: 1.0, gentle: false, ..RedParams::default() });
        assert_eq!(r.arrival(0, 20.0, 0, true), Verdict::Drop); // forced, hard drop
        r.p.hard_drop = false;
        assert_eq!(r.arrival(0, 20.0, 0, true), Verdict::Mark);
        assert_eq!(r.arrival(0, 20.0, 0, false), Verdict::Drop);
        assert_eq!(r.arrival(0, 2.0, 0, true), Verdict::Enqueue);
        // Between the thresholds: the same draws give marks (ECT) or drops (not ECT).
        let verdicts = |ect: bool| {
            let mut r = red(RedParams { weight: 1.0, wait: false, ..RedParams::default() });
            (0..5000).map(|_| r.arrival(0, 14.0, 0, ect)).collect::<Vec<_>>()
        };
        let (a, b) = (verdicts(true), verdicts(false));
        let marks = a.iter().filter(|&&v| v == Verdict::Mark).count();
        assert!(marks > 0 && a.iter().all(|&v| v != Verdict::Drop));
        assert_eq!(b.iter().filter(|&&v| v == Verdict::Drop).count(), marks);
        r.p.ecn = false;
        assert_eq!(r.arrival(0, 20.0, 0, true), Verdict::Drop);
    }
}
