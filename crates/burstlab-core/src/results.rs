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

pub use crate::hist::LogHistogram;

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
    fn jain_known_answers() {
        assert_eq!(jain(&[5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain(&[1.0, 0.0, 0.0, 0.0]), Some(0.25));
        assert!((jain(&[1.0, 2.0]).unwrap() - 0.9).abs() < 1e-12);
        assert_eq!(jain(&[]), None);
    }
}
