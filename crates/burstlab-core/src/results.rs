//! What a simulation run reports (see `docs/simulator.md` for each counter's meaning).
use crate::time::Nanos;

/// Time series, one row per ACK processed by the sender and per timeout.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub time: Vec<Nanos>,
    /// Congestion window, bytes.
    pub cwnd: Vec<u64>,
    /// Slow-start threshold, bytes (u64::MAX = infinite).
    pub ssthresh: Vec<u64>,
    /// Smoothed RTT (0 before the first sample).
    pub srtt: Vec<Nanos>,
    pub rto: Vec<Nanos>,
    /// Oldest unacknowledged byte and next byte to send (sequence numbers in bytes).
    pub snd_una: Vec<u64>,
    pub snd_nxt: Vec<u64>,
    /// Congestion state, numbered as Linux's and ns-3's: 0 Open, 1 Disorder, 3 Recovery,
    /// 4 Loss (2, CWR, is not a state of ours: an ECN response stays in Open).
    pub state: Vec<u8>,
}

impl Series {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

/// Counters over the measured interval (after the warm-up).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Data segments handed to the link by the sender, retransmissions included.
    pub packets_sent: u64,
    /// Data segments lost: by the channel (loss model) or dropped by a full buffer.
    pub packets_lost: u64,
    pub channel_losses: u64,
    pub queue_drops: u64,
    pub retransmissions: u64,
    /// Retransmitted segments that arrived at a receiver already holding them.
    pub spurious_retransmissions: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub acks_sent: u64,
    /// ACKs lost by the reverse channel or dropped by its buffer.
    pub acks_lost: u64,
    /// Payload bytes of all data segments that reached the receiver (duplicates too).
    pub arrived_bytes: u64,
    /// Payload bytes delivered in order to the receiving application.
    pub delivered_bytes: u64,
    pub delivered_segments: u64,
    /// Window reductions in response to ECN-Echo (RFC 3168).
    pub ecn_reductions: u64,
    /// Retransmissions found lost again by RACK's rule (`TcpConfig::rack_lost_retransmissions`)
    /// and sent again before the timer.
    pub lost_retransmissions: u64,
    /// Tail loss probes sent (RACK-TLP, `TcpConfig::rack_tlp`).
    pub loss_probes: u64,
    /// LT-TCP: proactive and reactive FEC packets sent (also in `packets_sent`), blocks the
    /// receiver decoded (rebuilding a missing data segment), FEC packets that reached a
    /// block already complete.
    pub pfec_sent: u64,
    pub rfec_sent: u64,
    pub fec_decodes: u64,
    pub fec_wasted: u64,
}

impl Counters {
    pub fn minus(&self, o: &Counters) -> Counters {
        Counters {
            packets_sent: self.packets_sent - o.packets_sent,
            packets_lost: self.packets_lost - o.packets_lost,
            channel_losses: self.channel_losses - o.channel_losses,
            queue_drops: self.queue_drops - o.queue_drops,
            retransmissions: self.retransmissions - o.retransmissions,
            spurious_retransmissions: self.spurious_retransmissions - o.spurious_retransmissions,
            fast_retransmits: self.fast_retransmits - o.fast_retransmits,
            timeouts: self.timeouts - o.timeouts,
            acks_sent: self.acks_sent - o.acks_sent,
            acks_lost: self.acks_lost - o.acks_lost,
            arrived_bytes: self.arrived_bytes - o.arrived_bytes,
            // The window's delivery starts at the data sent before it (engine `snapshot`),
            // which may not all arrive by the end.
            delivered_bytes: self.delivered_bytes.saturating_sub(o.delivered_bytes),
            delivered_segments: self.delivered_segments.saturating_sub(o.delivered_segments),
            ecn_reductions: self.ecn_reductions - o.ecn_reductions,
            lost_retransmissions: self.lost_retransmissions - o.lost_retransmissions,
            loss_probes: self.loss_probes - o.loss_probes,
            pfec_sent: self.pfec_sent - o.pfec_sent,
            rfec_sent: self.rfec_sent - o.rfec_sent,
            fec_decodes: self.fec_decodes - o.fec_decodes,
            fec_wasted: self.fec_wasted - o.fec_wasted,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimResult {
    /// In-order payload delivered to the receiving application per measured second, bits/s.
    pub goodput_bps: f64,
    /// In-order segments delivered per measured second.
    pub goodput_pps: f64,
    /// Payload of every data segment reaching the receiver (duplicates included), bits/s.
    pub throughput_bps: f64,
    /// Measured seconds (end or completion minus warm-up).
    pub duration: f64,
    pub counters: Counters,
    /// Fixed-size transfer: seconds from the start until the receiver held the last byte.
    pub completion_time: Option<f64>,
    /// Simulated time at which the run stopped.
    pub end_time: Nanos,
    /// Events processed (timers, packet arrivals, time-mode loss decisions).
    pub events: u64,
    pub series: Option<Series>,
}

/// A histogram of non-negative integers (nanoseconds) with bounded relative error: values
/// below 2^SUB are exact; above, each power of two is split into 2^SUB bins, so a bin's
/// width is at most 1/2^SUB of its value (SUB = 5: ≤ 3.1 %) (HdrHistogram's layout,
/// simplified). Recording is on the engine's per-packet path, once per packet per link:
/// the bins grow only up to the largest value seen (a link that never queues holds one),
/// so memory follows what is recorded rather than the 1920 possible bins, and the count
/// is their sum, taken when read.
#[derive(Clone, Debug, Default)]
pub struct LogHistogram {
    /// Bins 0..len; the others are empty. Bin 0's count is `zeros` more.
    counts: Vec<u64>,
    /// Values of 0 (most queueing delays on a link that is not the bottleneck), counted
    /// apart: two instructions instead of a bin lookup.
    zeros: u64,
    /// Sum of the values (wraps past 1.8·10^19: 584 years of summed nanoseconds).
    sum: u64,
    max: u64,
}

impl PartialEq for LogHistogram {
    /// Equal bins (whatever the length each has grown to), sum and maximum.
    fn eq(&self, o: &Self) -> bool {
        let n = self.counts.len().max(o.counts.len()).max(1);
        self.sum == o.sum && self.max == o.max && (0..n).all(|b| self.bin_count(b) == o.bin_count(b))
    }
}

impl LogHistogram {
    const SUB: u32 = 5;
    const BINS: usize = ((64 - Self::SUB as usize) + 1) << Self::SUB;

    #[inline]
    fn bin(v: u64) -> usize {
        let sub = 1u64 << Self::SUB;
        if v < sub {
            return v as usize;
        }
        let e = 63 - v.leading_zeros(); // ≥ SUB
        let shift = e - Self::SUB;
        (((e - Self::SUB + 1) as u64) << Self::SUB) as usize + ((v >> shift) - sub) as usize
    }

    /// The smallest value of bin `b`.
    fn low(b: usize) -> u64 {
        let sub = 1usize << Self::SUB;
        if b < sub {
            return b as u64;
        }
        let e = (b >> Self::SUB) as u32 + Self::SUB - 1;
        let m = (b & (sub - 1)) as u64 + sub as u64;
        m << (e - Self::SUB)
    }

    /// The count of bin `b`.
    fn bin_count(&self, b: usize) -> u64 {
        self.counts.get(b).copied().unwrap_or(0) + if b == 0 { self.zeros } else { 0 }
    }

    /// (bin, count) of every bin held, bin 0 always (it holds the zeros).
    fn bin_counts(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        (0..self.counts.len().max(1)).map(|b| (b, self.bin_count(b)))
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        if v == 0 {
            self.zeros += 1;
            return;
        }
        let b = Self::bin(v);
        match self.counts.get_mut(b) {
            Some(c) => *c += 1,
            None => self.grow(b),
        }
        self.sum = self.sum.wrapping_add(v);
        self.max = self.max.max(v);
    }

    /// Count a value in bin `b`, beyond the bins held so far: hold up to the end of its
    /// power of two.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, b: usize) {
        let len = ((b >> Self::SUB) + 1) << Self::SUB;
        self.counts.resize(len.min(Self::BINS), 0);
        self.counts[b] += 1;
    }

    pub fn count(&self) -> u64 {
        self.zeros + self.counts.iter().sum::<u64>()
    }

    pub fn mean(&self) -> Option<f64> {
        let n = self.count();
        (n > 0).then(|| self.sum as f64 / n as f64)
    }

    pub fn max(&self) -> Option<u64> {
        (self.count() > 0).then_some(self.max)
    }

    /// The q-quantile (0 ≤ q ≤ 1): the midpoint of the bin holding it (the maximum itself
    /// for q = 1).
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        if q >= 1.0 {
            return Some(self.max as f64);
        }
        let rank = ((q.max(0.0) * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (b, c) in self.bin_counts() {
            seen += c;
            if seen >= rank {
                let lo = Self::low(b);
                let hi = if b + 1 < Self::BINS { Self::low(b + 1) } else { u64::MAX };
                return Some(((lo as f64 + hi as f64 - 1.0) / 2.0).min(self.max as f64));
            }
        }
        Some(self.max as f64)
    }

    /// Non-empty bins as (lower edge, upper edge exclusive, count).
    pub fn bins(&self) -> Vec<(u64, u64, u64)> {
        self.bin_counts()
            .filter(|&(_, c)| c > 0)
            .map(|(b, c)| (Self::low(b), if b + 1 < Self::BINS { Self::low(b + 1) } else { u64::MAX }, c))
            .collect()
    }
}

/// Counters of one link direction over the measured interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkCounters {
    /// Packets that arrived at the link's queue.
    pub offered: u64,
    /// Packets the link transmitted (service ended by the end of the run); offered less
    /// queue drops less those still queued or in service at the end.
    pub sent: u64,
    pub bytes_sent: u64,
    /// Dropped on entry: by a full buffer, or early by RED (`early_drops`).
    pub queue_drops: u64,
    /// Lost by the link's loss process.
    pub channel_losses: u64,
    /// Reached the far end.
    pub delivered: u64,
    /// RED: packets dropped on entry before the buffer was full (counted in `queue_drops`).
    pub early_drops: u64,
    /// RED: ECN-capable packets marked CE instead of dropped.
    pub ecn_marks: u64,
}

impl LinkCounters {
    pub fn minus(&self, o: &LinkCounters) -> LinkCounters {
        LinkCounters {
            offered: self.offered - o.offered,
            sent: self.sent - o.sent,
            bytes_sent: self.bytes_sent - o.bytes_sent,
            queue_drops: self.queue_drops - o.queue_drops,
            channel_losses: self.channel_losses - o.channel_losses,
            delivered: self.delivered - o.delivered,
            early_drops: self.early_drops - o.early_drops,
            ecn_marks: self.ecn_marks - o.ecn_marks,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkResult {
    pub name: String,
    pub counters: LinkCounters,
    /// Fraction of the measured interval the link's transmitter spent sending this
    /// link's packets.
    pub utilisation: f64,
    /// Long-run capacity, bits/s (None for slotted channels).
    pub capacity_bps: Option<f64>,
    /// Queueing delay (entry to service start) of the packets that entered during the
    /// measured interval and were not dropped, ns.
    pub queue_delay: LogHistogram,
    /// The link layer's statistics over the measured interval (frames, attempts, residual
    /// losses, attempt times, service latency, FEC), if the link has one.
    pub link_layer: Option<crate::link::LinkStats>,
}

/// What a flow was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKindTag {
    Tcp,
    Cbr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlowResult {
    pub name: String,
    pub kind: FlowKindTag,
    /// TCP: what [`SimResult`] reports for one flow (goodput, counters, series...); CBR:
    /// `packets_sent`, `packets_lost`, `channel_losses`, `queue_drops`, `arrived_bytes`
    /// and `delivered_*` (datagrams that arrived) are filled, goodput = delivered bytes.
    pub result: SimResult,
    /// Retransmission timeouts that fired while an earlier copy of the segment was on its
    /// way to the receiver (and then arrived) or had already arrived (its ACK lost or late).
    pub spurious_timeouts: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NetworkResult {
    pub flows: Vec<FlowResult>,
    pub links: Vec<LinkResult>,
    /// Sum of the flows' goodputs, bits/s.
    pub aggregate_goodput_bps: f64,
    /// Jain's fairness index of the TCP flows' goodputs, (Σx)²/(n·Σx²) (None without TCP flows).
    pub jain_index: Option<f64>,
    /// Simulated time at which the run stopped.
    pub end_time: Nanos,
    pub events: u64,
}

/// Jain's fairness index of `xs` (1 = all equal, 1/n = one takes everything).
pub fn jain(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let s: f64 = xs.iter().sum();
    let q: f64 = xs.iter().map(|x| x * x).sum();
    Some(if q > 0.0 { s * s / (xs.len() as f64 * q) } else { 1.0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_bins_are_exact_below_32_and_within_3_percent_above() {
        for v in [0u64, 1, 31, 32, 33, 63, 64, 1000, 123_456_789, u64::MAX / 3] {
            let b = LogHistogram::bin(v);
            let (lo, hi) = (LogHistogram::low(b), LogHistogram::low(b + 1));
            assert!(lo <= v && v < hi, "{v}: [{lo}, {hi})");
            if v >= 32 {
                assert!((hi - lo) as f64 <= v as f64 / 32.0 + 1.0, "{v}: width {}", hi - lo);
            } else {
                assert_eq!(hi - lo, 1);
            }
        }
    }

    #[test]
    fn histogram_quantiles_of_a_uniform_sample() {
        let mut h = LogHistogram::default();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        assert_eq!(h.count(), 100_000);
        assert_eq!(h.max(), Some(100_000_000));
        for q in [0.5, 0.9, 0.99] {
            let want = q * 100_000_000.0;
            let got = h.quantile(q).unwrap();
            assert!((got / want - 1.0).abs() < 0.032, "q {q}: {got} vs {want}");
        }
        assert!((h.mean().unwrap() - 50_000_500.0).abs() < 1.0);
    }

    /// Zeros are counted apart from the bins; every reading sees them in bin 0.
    #[test]
    fn histogram_zeros_count_in_bin_zero() {
        let mut h = LogHistogram::default();
        for _ in 0..7 {
            h.record(0);
        }
        assert_eq!((h.count(), h.max(), h.mean()), (7, Some(0), Some(0.0)));
        assert_eq!(h.quantile(0.5), Some(0.0));
        assert_eq!(h.bins(), vec![(0, 1, 7)]);
        for v in [0, 0, 0, 5, 5, 40] {
            h.record(v);
        }
        assert_eq!(h.count(), 13);
        assert_eq!(h.bins(), vec![(0, 1, 10), (5, 6, 2), (40, 41, 1)]);
        // 10 of 13 values are 0: the 0.75-quantile is 0, the 0.8-quantile 5.
        assert_eq!((h.quantile(0.75), h.quantile(0.8), h.quantile(1.0)), (Some(0.0), Some(5.0), Some(40.0)));
        // The same values recorded with zero in a bin of its own compare equal.
        let mut g = LogHistogram { counts: vec![10, 0, 0, 0, 0, 2], zeros: 0, sum: 0, max: 40 };
        g.counts.resize(41, 0);
        g.counts[40] = 1;
        g.sum = 50;
        assert_eq!(h, g);
        assert_eq!(LogHistogram::default().count(), 0);
        assert_eq!(LogHistogram::default().quantile(0.5), None);
    }

    #[test]
    fn jain_known_answers() {
        assert_eq!(jain(&[5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain(&[1.0, 0.0, 0.0, 0.0]), Some(0.25));
        assert!((jain(&[1.0, 2.0]).unwrap() - 0.9).abs() < 1e-12);
        assert_eq!(jain(&[]), None);
    }
}
