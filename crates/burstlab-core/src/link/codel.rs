//! CoDel, Controlled Delay (Nichols, Jacobson, McGregor, Iyengar, RFC 8289): an active queue
//! management that acts at dequeue on each packet's *sojourn time* (dequeue time − enqueue
//! time), not on the queue's length.
//!
//! The rules, as in RFC 8289 §5's pseudocode (and Linux's `include/net/codel_impl.h`, which the
//! RFC names as the reference where implementations vary):
//! - `dodequeue` (§5.6): a packet whose sojourn is below `target`, or that leaves at most one
//!   MTU (`mtu`, the RFC's MAXPACKET) queued behind it, resets `first_above_time`; the first
//!   packet above both starts the clock (`first_above_time = now + interval`); a packet still
//!   above them once `interval` has passed is *ok to drop*;
//! - dequeue (§5.5), not dropping: an ok-to-drop packet enters the dropping state: it is
//!   dropped (or marked), and the next drop is scheduled at `now + interval/√count` (the
//!   control law, §5.6). `count` starts at 1, except on re-entry soon after the last
//!   dropping state (`now − drop_next < 16·interval`), when it resumes at the number of drops
//!   of that state beyond the one before (`delta = count − lastcount`, if above 1);
//! - dequeue, dropping: a packet that is not ok to drop ends the state; otherwise each time
//!   `now ≥ drop_next`, the head is dropped, `count` grows by one and the next drop comes at
//!   `drop_next + interval/√count` (several drops at one dequeue if the backlog is large);
//! - ECN (RFC 8289 §5.5 note, Linux's `ecn` option; RFC 8290 §5.2.6): an ECN-capable packet
//!   (ECT) is marked CE and sent instead of dropped; in the dropping state a mark ends the
//!   dequeue (Linux `codel_dequeue`: the marked packet is the one sent).
//!
//! The control law is computed exactly (`interval/√count` in floating point); Linux's
//! Newton iteration of 1/√count agrees with it to a few parts in 10^4 after the first drops.
//!
//! Enqueue (§5.4) only timestamps the packet; the link's buffer bounds the queue (a packet
//! that finds it full is dropped at the tail, as Linux's `codel` qdisc does at its `limit`).
//! The engine runs a CoDel link with a dequeue event per packet (`docs/simulator.md`,
//! "CoDel and FQ-CoDel": why).
use crate::time::{Nanos, NS_PER_MS};
use crate::{Error, Result};
use std::collections::VecDeque;

crate::params! {
    /// CoDel's parameters (defaults: RFC 8289 §4.3-§4.4), shared by CoDel and FQ-CoDel's
    /// per-queue CoDel: `CodelParams::PARAMS` gives Python's `Codel`, the `--codel-*`
    /// options, the TOML `codel_*` keys and `docs/parameters.md`.
    pub struct CodelParams {
        codel target: Nanos [time] = 5 * NS_PER_MS, "s", gt 0.0,
            "Acceptable standing queue: the sojourn time CoDel keeps the queue's minimum at.", "RFC 8289 §4.3";
        codel interval: Nanos [time] = 100 * NS_PER_MS, "s", gt 0.0,
            "Window a sojourn must stay above target before the first drop; the control law's base.", "RFC 8289 §4.4";
        /// The RFC's MAXPACKET.
        codel mtu: u32 [u32] = 1500, "bytes", min 1,
            "A queue of at most this many bytes behind the packet is never dropped from (MAXPACKET; Linux counts 1514 with the Ethernet header).", "RFC 8289 §5.6";
        codel ecn: bool [bool] = true, "",
            "ECN-capable packets are marked (CE), not dropped.", "RFC 8289 §5.5; RFC 8290 §5.2.6";
    }
    virtual {}
}

impl CodelParams {
    /// Every declared range, named `PREFIX.codel_NAME` (e.g. `link bottleneck.codel_target`).
    pub fn validate(&self, prefix: &str) -> Result<()> {
        self.check_ranges().map_err(|e| prefixed(e, prefix, "codel_"))?;
        if self.interval < self.target {
            let name = format!("{prefix}.codel_interval");
            return Err(Error::param(&name, crate::time::to_secs_f64(self.interval), "an interval of at least codel_target"));
        }
        Ok(())
    }
}

/// A range error of a queue's parameter renamed to `PREFIX.KEYNAME`.
pub(crate) fn prefixed(e: Error, prefix: &str, key: &str) -> Error {
    match e {
        Error::InvalidParameter { name, value, expected } => {
            Error::InvalidParameter { name: format!("{prefix}.{key}{name}"), value, expected }
        }
        e => e,
    }
}

/// A packet waiting in a CoDel queue: when it entered, its size, whether it is ECN-capable.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Queued<P> {
    pub pkt: P,
    pub bytes: u32,
    pub enq: Nanos,
    pub ect: bool,
}

/// A packet CoDel hands to the link: `ce` if it marked it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dequeued<P> {
    pub q: Queued<P>,
    pub ce: bool,
}

/// What CoDel's dequeue reads: the queue it takes packets from, and the backlog its "below one
/// MTU" test counts (the queue's own; Linux's FQ-CoDel counts the whole link's).
pub trait Source<P> {
    fn pop(&mut self) -> Option<Queued<P>>;
    fn backlog_bytes(&self) -> u64;
}

/// CoDel's per-queue state (RFC 8289 §5.2).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CodelVars {
    /// When the sojourn will have been above target for an interval (0: below target).
    pub first_above_time: Nanos,
    /// When the next drop is due (dropping state).
    pub drop_next: Nanos,
    /// Drops since entering the dropping state (with the re-entry rule).
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    pub dropping: bool,
}

impl CodelVars {
    /// The control law (RFC 8289 §5.6): the next drop `interval/√count` after `t`.
    pub fn control_law(t: Nanos, count: u32, interval: Nanos) -> Nanos {
        t + (interval as f64 / (count.max(1) as f64).sqrt()) as Nanos
    }

    /// RFC 8289 §5.6 `dodequeue`: the head packet and whether it is ok to drop.
    fn dodequeue<P>(&mut self, now: Nanos, p: &CodelParams, src: &mut impl Source<P>) -> (Option<Queued<P>>, bool) {
        let Some(q) = src.pop() else {
            // The queue is empty: it is below target.
            self.first_above_time = 0;
            return (None, false);
        };
        let sojourn = now - q.enq;
        if sojourn < p.target || src.backlog_bytes() <= p.mtu as u64 {
            // Went below target (or less than one MTU is left): stay below.
            self.first_above_time = 0;
            (Some(q), false)
        } else if self.first_above_time == 0 {
            // Just went above: drop only if it stays above for an interval.
            self.first_above_time = now + p.interval;
            (Some(q), false)
        } else {
            (Some(q), now >= self.first_above_time)
        }
    }

    /// RFC 8289 §5.5 dequeue at `now`: the packet to send (None: the queue is empty), its
    /// dropped predecessors appended to `drops`.
    pub fn dequeue<P>(
        &mut self,
        now: Nanos,
        p: &CodelParams,
        src: &mut impl Source<P>,
        drops: &mut Vec<Queued<P>>,
    ) -> Option<Dequeued<P>> {
        let (mut r, ok) = self.dodequeue(now, p, src);
        if r.is_none() {
            // §5.5: an empty queue leaves the dropping state.
            self.dropping = false;
            return None;
        }
        if self.dropping {
            if !ok {
                // Sojourn below target: leave the dropping state.
                self.dropping = false;
            }
            // Time for the next drop(s) (§5.5's while loop).
            while self.dropping && now >= self.drop_next {
                let q = r.expect("ok to drop: a packet");
                self.count += 1;
                if p.ecn && q.ect {
                    // Marked instead: it is sent, and the next signal scheduled (Linux).
                    self.drop_next = Self::control_law(self.drop_next, self.count, p.interval);
                    return Some(Dequeued { q, ce: true });
                }
                drops.push(q);
                let (next, ok) = self.dodequeue(now, p, src);
                r = next;
                if !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = Self::control_law(self.drop_next, self.count, p.interval);
                }
            }
            return r.map(|q| Dequeued { q, ce: false });
        }
        let head = r.expect("not empty");
        if !ok {
            return Some(Dequeued { q: head, ce: false });
        }
        // Enter the dropping state (§5.5): drop (or mark) this packet.
        let out = if p.ecn && head.ect {
            Some(Dequeued { q: head, ce: true })
        } else {
            drops.push(head);
            self.dodequeue(now, p, src).0.map(|q| Dequeued { q, ce: false })
        };
        self.dropping = true;
        // Re-entry soon after the last dropping state resumes near its drop rate (§5.5; the
        // comparison signed, as Linux's codel_time_before: drop_next may lie ahead of now).
        let delta = self.count.wrapping_sub(self.lastcount);
        let recent = (now as i64).wrapping_sub(self.drop_next as i64) < 16 * p.interval as i64;
        self.count = if delta > 1 && recent { delta } else { 1 };
        self.lastcount = self.count;
        self.drop_next = Self::control_law(now, self.count, p.interval);
        out
    }
}

/// A CoDel queue: one FIFO with CoDel at its head (RFC 8289).
#[derive(Clone, Debug)]
pub struct CodelQueue<P> {
    pub params: CodelParams,
    q: VecDeque<Queued<P>>,
    bytes: u64,
    pub vars: CodelVars,
}

/// The FIFO CoDel dequeues from (its own backlog for the MTU test).
struct Fifo<'a, P> {
    q: &'a mut VecDeque<Queued<P>>,
    bytes: &'a mut u64,
}

impl<P> Source<P> for Fifo<'_, P> {
    fn pop(&mut self) -> Option<Queued<P>> {
        let q = self.q.pop_front()?;
        *self.bytes -= q.bytes as u64;
        Some(q)
    }
    fn backlog_bytes(&self) -> u64 {
        *self.bytes
    }
}

impl<P> CodelQueue<P> {
    pub fn new(params: CodelParams) -> Self {
        CodelQueue { params, q: VecDeque::new(), bytes: 0, vars: CodelVars::default() }
    }

    /// RFC 8289 §5.4: timestamp and append (the caller has checked the buffer).
    pub fn enqueue(&mut self, q: Queued<P>) {
        self.bytes += q.bytes as u64;
        self.q.push_back(q);
    }

    pub fn dequeue(&mut self, now: Nanos, drops: &mut Vec<Queued<P>>) -> Option<Dequeued<P>> {
        let mut src = Fifo { q: &mut self.q, bytes: &mut self.bytes };
        self.vars.dequeue(now, &self.params, &mut src, drops)
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    const MS: Nanos = NS_PER_MS;

    fn pkt(n: u32, enq: Nanos, ect: bool) -> Queued<u32> {
        Queued { pkt: n, bytes: 1500, enq, ect }
    }

    /// The control law's known answers: interval/√count after t, i.e. 100, 70.71, 57.74,
    /// 50 ms ... and 10 ms at count 100.
    #[test]
    fn control_law_spacing() {
        let i = 100 * MS;
        let gaps: Vec<Nanos> = (1..=4).map(|c| CodelVars::control_law(0, c, i)).collect();
        assert_eq!(gaps, vec![100_000_000, 70_710_678, 57_735_026, 50_000_000]);
        assert_eq!(CodelVars::control_law(7, 100, i), 7 + 10_000_000);
    }

    /// A queue kept far above target (every packet waited 50 ms, 100 packets always
    /// queued): no drop during the first interval, the first 100 ms after the sojourn went
    /// above target, then drops at the control law's spacing: gaps of 100/√1, 100/√2, ...
    /// ms (the gap after the k-th drop is interval/√k), `count` one more per drop.
    #[test]
    fn drops_follow_the_control_law() {
        let p = CodelParams { ecn: false, ..CodelParams::default() };
        let mut q = CodelQueue::new(p);
        let mut n = 0;
        for _ in 0..100 {
            q.enqueue(pkt(n, 0, false));
            n += 1;
        }
        let mut drops = vec![];
        let mut drop_times = vec![];
        // One dequeue per ms from 50 ms; each dequeued packet is replaced by one that
        // entered 50 ms before the dequeue, so the sojourn stays at 50 ms.
        for t in (50..=800).map(|k| k * MS) {
            let before = drops.len();
            let out = q.dequeue(t, &mut drops);
            assert!(out.is_some());
            for _ in before..drops.len() {
                drop_times.push(t);
            }
            while q.len() < 100 {
                q.enqueue(pkt(n, t - 50 * MS, false));
                n += 1;
            }
        }
        // Above target from the first dequeue (50 ms): ok to drop from 150 ms.
        assert_eq!(drop_times[0], 150 * MS);
        // Then 100/√1 later, 100/√2 after that, ... (each at the first ms tick at or after
        // the time due; the schedule runs from the exact times).
        let mut due = 150 * MS;
        for (k, &t) in drop_times.iter().enumerate().skip(1) {
            due = CodelVars::control_law(due, k as u32, 100 * MS);
            assert_eq!(t, due.div_ceil(MS) * MS, "drop {k}");
        }
        assert!(drop_times.len() >= 10, "{} drops", drop_times.len());
        assert_eq!(q.vars.count as usize, drop_times.len());
    }

    /// Below target, or with one MTU or less left behind the packet, nothing is dropped.
    #[test]
    fn no_drop_below_target_or_one_mtu() {
        let mut q = CodelQueue::new(CodelParams { ecn: false, ..CodelParams::default() });
        let mut drops = vec![];
        // Sojourn 4 ms < 5 ms, many packets queued, for 1 s.
        for k in 0..1000u32 {
            let t = k as Nanos * MS + 10 * MS;
            for _ in 0..2 {
                q.enqueue(pkt(k, t - 4 * MS, false));
            }
            q.dequeue(t, &mut drops);
            q.dequeue(t, &mut drops);
        }
        assert!(drops.is_empty());
        // Sojourn 50 ms but one packet of 1500 B left behind the head: never dropped.
        let mut q = CodelQueue::new(CodelParams { ecn: false, ..CodelParams::default() });
        for k in 0..1000u32 {
            let t = k as Nanos * MS + 100 * MS;
            while q.len() < 2 {
                q.enqueue(pkt(k, t - 50 * MS, false));
            }
            q.dequeue(t, &mut drops);
        }
        assert!(drops.is_empty());
    }

    /// ECN: the same schedule marks ECT packets (sent, with CE) where it drops the others,
    /// at the same times.
    #[test]
    fn ect_packets_are_marked_not_dropped() {
        let run = |ect: bool| {
            let mut q = CodelQueue::new(CodelParams::default());
            let (mut drops, mut signals) = (vec![], vec![]);
            let mut n = 0;
            for t in (50..=600).map(|k| k * MS) {
                while q.len() < 100 {
                    q.enqueue(pkt(n, t - 50 * MS, ect));
                    n += 1;
                }
                let before = drops.len();
                let out = q.dequeue(t, &mut drops).unwrap();
                if out.ce || drops.len() > before {
                    signals.push(t);
                }
                assert_eq!(out.ce, ect && signals.last() == Some(&t));
            }
            (drops.len(), signals)
        };
        let (dropped, marked_at) = run(true);
        let (dropped_plain, dropped_at) = run(false);
        assert_eq!(dropped, 0);
        assert!(dropped_plain >= 5);
        assert_eq!(marked_at, dropped_at);
    }

    /// Re-entering the dropping state soon after leaving it resumes at delta = count −
    /// lastcount; long after, at 1.
    #[test]
    fn reentry_resumes_the_drop_rate() {
        let p = CodelParams { ecn: false, ..CodelParams::default() };
        let mut v = CodelVars { count: 9, lastcount: 3, drop_next: 1000 * MS, ..CodelVars::default() };
        let mut fifo: VecDeque<Queued<u32>> = (0..10).map(|k| pkt(k, 0, false)).collect();
        let mut bytes = 15_000;
        v.first_above_time = 1; // above target for long: ok to drop
        let mut drops = vec![];
        v.dequeue(1050 * MS, &p, &mut Fifo { q: &mut fifo, bytes: &mut bytes }, &mut drops);
        assert!(v.dropping);
        assert_eq!((v.count, v.lastcount), (6, 6));
        assert_eq!(v.drop_next, CodelVars::control_law(1050 * MS, 6, 100 * MS));
        // 16 intervals after drop_next: count restarts at 1.
        let mut v = CodelVars { count: 9, lastcount: 3, drop_next: 1000 * MS, first_above_time: 1, ..CodelVars::default() };
        v.dequeue(2600 * MS, &p, &mut Fifo { q: &mut fifo, bytes: &mut bytes }, &mut drops);
        assert_eq!((v.count, v.lastcount), (1, 1));
        assert_eq!(drops.len(), 2);
    }

    #[test]
    fn validate_names_the_parameter() {
        let e = CodelParams { target: 0, ..CodelParams::default() }.validate("link b").unwrap_err();
        assert!(e.to_string().contains("link b.codel_target"), "{e}");
        let e = CodelParams { interval: MS, ..CodelParams::default() }.validate("link b").unwrap_err();
        assert!(e.to_string().contains("link b.codel_interval"), "{e}");
    }
}
