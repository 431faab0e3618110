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
            delivered_bytes: self.delivered_bytes - o.delivered_bytes,
            delivered_segments: self.delivered_segments - o.delivered_segments,
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
