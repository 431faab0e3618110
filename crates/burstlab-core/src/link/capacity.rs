//! Time-varying capacity as a schedule of delivery opportunities (Mahimahi's `mm-link`
//! traces, Winstein, Sivaraman, Balakrishnan, NSDI 2013): each entry is an instant at
//! which up to `bytes_per_opportunity` bytes may leave the bottleneck queue; repeated
//! instants are several opportunities; the schedule repeats with a period equal to its
//! last instant (Mahimahi's `LinkQueue`: when the last entry is used, the base time moves
//! forward by the last timestamp, so a one-line trace "1" is one opportunity per ms).
//!
//! Serving a packet (Mahimahi's `use_a_delivery_opportunity`): an opportunity gives its
//! bytes to the packets queued at that instant, head first; a packet larger than what is
//! left takes the rest and continues at the next opportunity; bytes left over when the
//! queue is empty are lost. A packet therefore never waits for an opportunity that has
//! passed and is never dropped for want of one.
use crate::time::Nanos;
use crate::{Error, Result};
use std::sync::Arc;

/// A looping schedule of delivery opportunities.
#[derive(Clone, Debug)]
pub struct Opportunities {
    /// Instants within one period, non-decreasing, the last one = the period (ns).
    at: Arc<[Nanos]>,
    period: Nanos,
    /// Bytes one opportunity delivers (1500 = an IP MTU, Mahimahi's "one 1500-byte
    /// packet"; its LinkQueue counts 1504 bytes of TUN frame = 4-byte header + 1500).
    pub bytes: u32,
}

impl Opportunities {
    /// From instants in nanoseconds (e.g. a Mahimahi file's milliseconds × 10^6).
    pub fn new(at: Vec<Nanos>, bytes: u32) -> Result<Self> {
        if at.is_empty() {
            return Err(Error::Empty("capacity trace: no delivery opportunities".into()));
        }
        if let Some(k) = at.windows(2).position(|w| w[1] < w[0]) {
            return Err(Error::param(
                "capacity trace",
                format!("entry {} ({} ns) after {} ns", k + 2, at[k + 1], at[k]),
                "non-decreasing instants",
            ));
        }
        let period = *at.last().unwrap();
        if period == 0 {
            return Err(Error::param("capacity trace", "every instant is 0", "a last instant > 0 (the trace's period)"));
        }
        if bytes == 0 {
            return Err(Error::param("opportunity bytes", 0, "a positive number of bytes"));
        }
        Ok(Opportunities { at: at.into(), period, bytes })
    }

    /// Number of opportunities in one period.
    pub fn len(&self) -> u64 {
        self.at.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    pub fn period(&self) -> Nanos {
        self.period
    }

    /// Long-run capacity, bits/s.
    pub fn mean_rate_bps(&self) -> f64 {
        self.len() as f64 * self.bytes as f64 * 8.0 / (self.period as f64 * 1e-9)
    }

    /// Instant of opportunity number `k` (counted from 0 over the repeated schedule).
    #[inline]
    pub fn time(&self, k: u64) -> Nanos {
        let n = self.len();
        (k / n) * self.period + self.at[(k % n) as usize]
    }

    /// The first opportunity number ≥ `k` whose instant is ≥ `t`.
    #[inline]
    pub fn first_at_or_after(&self, k: u64, t: Nanos) -> u64 {
        if self.time(k) >= t {
            return k;
        }
        let n = self.len();
        let cycle = t / self.period;
        let r = t - cycle * self.period;
        let j = self.at.partition_point(|&x| x < r) as u64;
        (cycle * n + j).max(k)
    }
}

/// Serving state of one opportunity schedule: the next unused opportunity, and what is
/// left of the last one used.
#[derive(Clone, Debug, Default)]
pub struct OppState {
    next: u64,
    last_time: Nanos,
    left: u32,
}

impl OppState {
    /// The instant the first byte of a packet joining the queue at `now` would leave.
    #[inline]
    pub fn peek_start(&self, o: &Opportunities, now: Nanos) -> Nanos {
        if self.left > 0 && now <= self.last_time {
            self.last_time
        } else {
            o.time(o.first_at_or_after(self.next, now))
        }
    }

    /// Serve a packet of `bytes` that joins the queue at `now` behind everything already
    /// served: returns (the instant its first byte leaves, the instant its last byte
    /// leaves). FIFO: called in entry order, which is service order.
    #[inline]
    pub fn serve(&mut self, o: &Opportunities, now: Nanos, bytes: u32) -> (Nanos, Nanos) {
        let mut need = bytes;
        let mut start = None;
        // What is left of the last opportunity goes to a packet that was queued when it
        // came (an opportunity at `last_time` serves packets present at that instant).
        if self.left > 0 && now <= self.last_time {
            let used = self.left.min(need);
            self.left -= used;
            need -= used;
            start = Some(self.last_time);
            if need == 0 {
                return (self.last_time, self.last_time);
            }
        }
        self.next = o.first_at_or_after(self.next, now);
        loop {
            let t = o.time(self.next);
            self.next += 1;
            start.get_or_insert(t);
            if o.bytes >= need {
                self.left = o.bytes - need;
                self.last_time = t;
                return (start.unwrap(), t);
            }
            need -= o.bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    fn ms(v: &[u64]) -> Vec<Nanos> {
        v.iter().map(|x| x * NS_PER_MS).collect()
    }

    #[test]
    fn one_line_trace_is_one_opportunity_per_period() {
        // Mahimahi's README: a trace "1" passes one MTU-sized packet per millisecond.
        let o = Opportunities::new(ms(&[1]), 1500).unwrap();
        assert_eq!((o.time(0), o.time(1), o.time(5)), (NS_PER_MS, 2 * NS_PER_MS, 6 * NS_PER_MS));
        assert!((o.mean_rate_bps() - 12e6).abs() < 1e-6);
        let mut s = OppState::default();
        let got: Vec<_> = (0..3).map(|_| s.serve(&o, 0, 1500)).collect();
        assert_eq!(got, vec![(NS_PER_MS, NS_PER_MS), (2 * NS_PER_MS, 2 * NS_PER_MS), (3 * NS_PER_MS, 3 * NS_PER_MS)]);
    }

    #[test]
    fn repeated_instants_loop_and_partial_packets() {
        // Two opportunities at 0 ms, one at 4, period 4 ms: the next cycle's 0 ms is 4 ms.
        let o = Opportunities::new(ms(&[0, 0, 4]), 1500).unwrap();
        let t: Vec<_> = (0..7).map(|k| o.time(k) / NS_PER_MS).collect();
        assert_eq!(t, vec![0, 0, 4, 4, 4, 8, 8]);
        let mut s = OppState::default();
        // 1000-byte packets all queued at 0: the two 0 ms opportunities carry 3000 B (#1,
        // #2 across both, #3); #4 waits for the 4 ms one.
        assert_eq!(s.serve(&o, 0, 1000), (0, 0));
        assert_eq!(s.serve(&o, 0, 1000), (0, 0));
        assert_eq!(s.serve(&o, 0, 1000), (0, 0));
        assert_eq!(s.serve(&o, 0, 1000), (4 * NS_PER_MS, 4 * NS_PER_MS));
        // A packet arriving at 5 ms cannot use what is left of the 4 ms opportunity.
        assert_eq!(s.serve(&o, 5 * NS_PER_MS, 100), (8 * NS_PER_MS, 8 * NS_PER_MS));
        // Long idle: opportunities are skipped, not queued up.
        assert_eq!(s.serve(&o, 1001 * NS_PER_MS, 1500), (1004 * NS_PER_MS, 1004 * NS_PER_MS));
    }

    #[test]
    fn bad_schedules_are_refused() {
        assert!(Opportunities::new(vec![], 1500).is_err());
        assert!(Opportunities::new(ms(&[0, 0]), 1500).is_err());
        assert!(Opportunities::new(ms(&[3, 2]), 1500).is_err());
        assert!(Opportunities::new(ms(&[1]), 0).is_err());
    }
}
