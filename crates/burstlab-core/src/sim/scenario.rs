//! Scenario description: TCP settings, the two link directions, the ACK-loss coupling,
//! the workload, the seed; or the slotted trace-driven mode of Srinivasan et al. §3.1.
use super::network::{FlowSpec, LinkLoss, LinkSpec, Network};
use crate::link::{BufferUnit, LinkLayerConfig, LossMode, LossWindow, QueueDisc, Timing};
use crate::loss::LossModel;
// tcp-variants: TcpConfig (and the --tcp shorthand) moved to tcp/config.rs.
pub use crate::tcp::config::{TcpConfig, Variant};
use crate::time::{Nanos, NS_PER_S};
use crate::trace::BitTrace;
use crate::{Error, Result};

#[derive(Debug)]
pub struct LinkConfig {
    pub rate_bps: u64,
    pub delay: Nanos,
    pub buffer: u64,
    pub buffer_unit: BufferUnit,
    pub loss: Option<Box<dyn LossModel>>,
    pub loss_mode: LossMode,
    /// Time mode: the interval the loss process is asked about (serialisation by default).
    pub loss_window: LossWindow,
    /// DropTail (default) or RED with ECN (`link/red.rs`).
    pub queue: QueueDisc,
    /// A link layer (ARQ, hybrid ARQ): it then times the link's frames (its attempts
    /// replace `rate_bps`) and its attempts meet the loss process (`docs/link-layer.md`).
    pub layer: Option<LinkLayerConfig>,
}

impl LinkConfig {
    pub fn new(rate_bps: u64, delay: Nanos, buffer: u64) -> Self {
        LinkConfig {
            rate_bps,
            delay,
            buffer,
            buffer_unit: BufferUnit::Packets,
            loss: None,
            loss_mode: LossMode::Packet,
            loss_window: LossWindow::default(),
            queue: QueueDisc::DropTail,
            layer: None,
        }
    }

    pub fn with_loss(mut self, m: Box<dyn LossModel>, mode: LossMode) -> Self {
        self.loss = Some(m);
        self.loss_mode = mode;
        self
    }

    /// Same rate, delay, buffer and queue discipline, no loss.
    pub fn lossless_twin(&self) -> Self {
        LinkConfig {
            loss: None,
            loss_window: self.loss_window,
            queue: self.queue.clone(),
            ..LinkConfig::new(self.rate_bps, self.delay, self.buffer)
        }
        .with_unit(self.buffer_unit)
    }

    pub fn with_queue(mut self, q: QueueDisc) -> Self {
        self.queue = q;
        self
    }

    pub fn with_unit(mut self, u: BufferUnit) -> Self {
        self.buffer_unit = u;
        self
    }
}

crate::named_enum!(
    /// How losses on the ACK path relate to the forward path (Pentikousis & Badr §3).
    AckLoss, "ack_loss" {
        /// ACKs are lost only by the reverse link's own model, if it has one (none by default).
        None = "none",
        /// A fresh copy of the forward model (or the reverse link's own), its own stream.
        Independent = "independent" | "indep",
        /// The forward model instance itself: one channel process for both directions.
        Sync = "sync" | "synchronized",
    }
);

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Workload {
    /// Bulk transfer for this long (or the time limit of a fixed-size transfer).
    pub duration: Option<Nanos>,
    /// Fixed-size transfer of this many payload bytes.
    pub size: Option<u64>,
    /// Initial period excluded from the measurement.
    pub warmup: Nanos,
}

impl Workload {
    pub fn bulk(duration: Nanos) -> Self {
        Workload { duration: Some(duration), size: None, warmup: 0 }
    }
    pub fn transfer(size: u64) -> Self {
        Workload { duration: None, size: Some(size), warmup: 0 }
    }
    /// Time limit of a fixed-size transfer without a duration: one simulated day.
    pub const DEFAULT_LIMIT: Nanos = 86_400 * NS_PER_S;

    pub fn end(&self) -> Nanos {
        self.duration.unwrap_or(Self::DEFAULT_LIMIT)
    }
}

crate::named_enum!(
    /// ACK transport in the slotted mode.
    AckPath, "ack_path" {
        /// A lossless reverse path: an ACK arrives at the end of the slot in which it is sent.
        Lossless = "lossless",
        /// ACKs share the slotted channel: they take transmission opportunities and the
        /// trace bit of their slot decides their fate.
        Trace = "trace",
    }
);

crate::named_enum!(
    /// How the slotted mode's sender hands its segments to the channel: a detail Srinivasan
    /// et al. leave open ("TCP signals the simulator for a packet transmission; the success
    /// or failure of that packet is determined by the datatrace entry at the corresponding
    /// time", §3.1; their TOSSIM stack was not published). docs/study.md "The sender's queue".
    SenderQueue, "sender_queue" {
        /// Every segment the sender releases waits for its slot in an unbounded FIFO, in the
        /// order sent: a timeout's go-back-N queues new copies behind the stale ones still
        /// waiting (the mode's behaviour before the choice existed).
        Fifo = "fifo",
        /// A TinyOS radio (pull): it holds one packet; the sender hands over its next segment
        /// when the slot carrying the previous one has ended (sendDone), so after a timeout
        /// the next packet sent is snd_una (`tcp/sender/radio.rs`).
        Radio = "radio",
    }
);

#[derive(Clone, Debug)]
pub struct SlottedConfig {
    pub trace: BitTrace,
    pub slot: Nanos,
    pub ack_path: AckPath,
    /// The sender's queue discipline ([`SenderQueue`]).
    pub queue: SenderQueue,
}

#[derive(Debug)]
pub struct Scenario {
    pub tcp: TcpConfig,
    pub forward: LinkConfig,
    /// None = the forward link's rate, delay and buffer, lossless.
    pub reverse: Option<LinkConfig>,
    pub ack_loss: AckLoss,
    pub workload: Workload,
    pub seed: u64,
    /// Record the time series (one row per ACK and per timeout).
    pub series: bool,
    /// Record a per-packet log (tests, debugging; not exposed to Python).
    pub log: bool,
    /// Slotted trace-driven mode: replaces the links.
    pub slotted: Option<SlottedConfig>,
}

impl Scenario {
    pub fn new(tcp: TcpConfig, forward: LinkConfig, workload: Workload) -> Self {
        Scenario {
            tcp,
            forward,
            reverse: None,
            ack_loss: AckLoss::None,
            workload,
            seed: 1,
            series: false,
            log: false,
            slotted: None,
        }
    }

    /// The slotted trace-driven scenario of Srinivasan et al. §3.1: the run lasts
    /// len(trace)·slot.
    pub fn slotted(tcp: TcpConfig, trace: BitTrace, slot: Nanos, ack_path: AckPath, seed: u64) -> Self {
        let end = trace.len() as u64 * slot;
        let mut sc = Scenario::new(tcp, LinkConfig::new(1, 0, u64::MAX), Workload::bulk(end));
        sc.seed = seed;
        sc.slotted = Some(SlottedConfig { trace, slot, ack_path, queue: SenderQueue::Fifo });
        sc
    }

    /// This slotted scenario with the sender's queue discipline `queue` (fifo by default).
    pub fn with_sender_queue(mut self, queue: SenderQueue) -> Self {
        if let Some(s) = self.slotted.as_mut() {
            s.queue = queue;
        }
        self
    }

    pub fn validate(&self) -> Result<()> {
        self.tcp.validate()?; // tcp-variants: TCP checks live in tcp/config.rs
        if let Some(s) = &self.slotted {
            if s.slot == 0 {
                return Err(Error::param("slot", 0, "a positive time"));
            }
            if s.trace.is_empty() {
                return Err(Error::Empty("run_trace: the trace is empty".into()));
            }
            return crate::time::check_slotted_run(s.trace.len(), s.slot);
        }
        let w = &self.workload;
        match (w.duration, w.size) {
            (Some(0), _) => return Err(Error::param("duration", 0, "a positive time")),
            (None, None) => return Err(Error::param("workload", "neither", "a duration or a size")),
            (_, Some(0)) => return Err(Error::param("size", 0, "a positive number of bytes")),
            _ => {}
        }
        crate::time::check_run("duration", w.end())?;
        if w.warmup >= w.end() {
            return Err(Error::param("warmup", w.warmup as f64 / 1e9, "shorter than the duration"));
        }
        for (name, l) in [("forward", Some(&self.forward)), ("reverse", self.reverse.as_ref())] {
            let Some(l) = l else { continue };
            if l.rate_bps == 0 {
                return Err(Error::param(&format!("{name}.rate"), 0, "a positive rate in bits/s"));
            }
        }
        let no_model = match self.ack_loss {
            AckLoss::None => false,
            AckLoss::Independent => {
                self.forward.loss.is_none() && !matches!(&self.reverse, Some(r) if r.loss.is_some())
            }
            AckLoss::Sync => self.forward.loss.is_none(),
        };
        if no_model {
            return Err(Error::param(
                "ack_loss",
                format!("{:?}", self.ack_loss).to_lowercase(),
                "'none' when there is no loss model to share or copy (sync needs a forward loss model)",
            ));
        }
        Ok(())
    }
}

impl Scenario {
    /// This scenario as a network: a forward link named "forward" and a reverse link named
    /// "reverse" (their loss streams are `link.forward.loss` and `link.reverse.loss`, as
    /// before networks), one TCP flow "flow" over them. The slotted mode's two directions
    /// share one slotted server when ACKs take transmission opportunities.
    pub fn into_network(self) -> Network {
        let w = self.workload;
        let mut net = Network::new(w.end());
        net.warmup = w.warmup;
        net.seed = self.seed;
        net.series = self.series;
        net.log = self.log;
        if let Some(s) = self.slotted {
            let data = net.server(Timing::Slotted { slot: s.slot });
            let mut f = LinkSpec::new("forward", data, 0, u64::MAX);
            f.loss = LinkLoss::Trace { trace: s.trace.clone(), slot: s.slot };
            let f = net.link(f);
            let r = match s.ack_path {
                AckPath::Lossless => {
                    let acks = net.server(Timing::SlotEnd { slot: s.slot });
                    net.link(LinkSpec::new("reverse", acks, 0, u64::MAX))
                }
                AckPath::Trace => {
                    let mut r = LinkSpec::new("reverse", data, 0, u64::MAX);
                    r.loss = LinkLoss::Trace { trace: s.trace, slot: s.slot };
                    net.link(r)
                }
            };
            let mut flow = FlowSpec::tcp("flow", self.tcp, vec![f], vec![r]);
            flow.radio = s.queue == SenderQueue::Radio;
            net.flow(flow);
            return net;
        }
        let fwd = self.forward;
        let rev = self.reverse.unwrap_or_else(|| fwd.lossless_twin());
        let fwd_copy = fwd.loss.as_ref().map(|m| (m.clone_box(), fwd.loss_mode));
        let link = |net: &mut Network, name: &str, l: &LinkConfig| {
            let sv = net.server(if l.layer.is_some() { Timing::LinkLayer } else { Timing::Rate { rate_bps: l.rate_bps } });
            let mut spec = LinkSpec::new(name, sv, l.delay, l.buffer);
            spec.buffer_unit = l.buffer_unit;
            spec.loss_window = l.loss_window;
            spec.queue = l.queue.clone();
            spec.layer = l.layer.clone();
            spec
        };
        let mut f = link(&mut net, "forward", &fwd);
        f.loss = match fwd.loss {
            Some(m) => LinkLoss::Own(m, fwd.loss_mode),
            None => LinkLoss::None,
        };
        let f = net.link(f);
        let mut r = link(&mut net, "reverse", &rev);
        let rev_own = rev.loss.map(|m| (m, rev.loss_mode));
        r.loss = match self.ack_loss {
            AckLoss::None => rev_own.map_or(LinkLoss::None, |(m, mode)| LinkLoss::Own(m, mode)),
            AckLoss::Independent => {
                let (m, mode) = rev_own.or(fwd_copy).expect("validated: a model to copy");
                LinkLoss::Own(m, mode)
            }
            AckLoss::Sync => LinkLoss::Shared(f),
        };
        let r = net.link(r);
        let mut flow = FlowSpec::tcp("flow", self.tcp, vec![f], vec![r]);
        flow.size = w.size;
        net.flow(flow);
        net
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::{Bernoulli, LossModel};
    use crate::sim::{run, run_logged, LogEvent, LogKind};
    use crate::time::NS_PER_MS;

    const SLOT: Nanos = 10 * NS_PER_MS;

    /// The PRR/μ study's TCP: the `tossim` profile (Srinivasan et al. §3.1).
    fn tossim() -> TcpConfig {
        TcpConfig::profile("tossim").expect("a profile")
    }

    fn bernoulli(p: f64, n: usize, seed: u64) -> BitTrace {
        let mut t = BitTrace::new();
        Bernoulli::new(p).unwrap().sample_into(n, &mut crate::rng::stream(seed, 9), &mut t);
        t
    }

    fn slotted(trace: BitTrace, queue: SenderQueue, ack_path: AckPath) -> Scenario {
        Scenario::slotted(tossim(), trace, SLOT, ack_path, 7).with_sender_queue(queue)
    }

    /// (entered, service start) of every data packet on the forward link, in order: a
    /// slotted packet's service is the slot before its arrival (or would-be arrival).
    fn data_on_link(sc: Scenario) -> Vec<(Nanos, Nanos)> {
        let mut sc = sc;
        sc.log = true;
        let (_, log) = run_logged(sc).expect("a valid run");
        // (data arrives at its receiver, at the path's end; it is sent into and lost on link 0)
        let data = log.iter().filter(|r| r.kind == LogKind::Data);
        let sent: Vec<Nanos> = data.clone().filter(|r| r.event == LogEvent::Sent).map(|r| r.t).collect();
        let left: Vec<Nanos> =
            data.filter(|r| matches!(r.event, LogEvent::Arrived | LogEvent::Lost)).map(|r| r.t - SLOT).collect();
        sent.into_iter().zip(left).collect()
    }

    /// The most of the flow's packets waiting for their slot at once (entered, not started).
    fn most_waiting(pkts: &[(Nanos, Nanos)]) -> usize {
        pkts.iter().map(|&(t, _)| pkts.iter().filter(|&&(e, s)| e <= t && s > t).count()).max().unwrap_or(0)
    }

    #[test]
    fn a_lossless_radio_carries_one_segment_per_slot() {
        let n = 2_000;
        let mut t = BitTrace::new();
        (0..n).for_each(|_| t.push(true));
        let pkts = data_on_link(slotted(t.clone(), SenderQueue::Radio, AckPath::Lossless));
        // Every slot carries a data segment, slot k the k-th one.
        assert_eq!(pkts.len(), n);
        assert!(pkts.iter().enumerate().all(|(k, &(_, s))| s == k as Nanos * SLOT), "one per slot");
        assert!(pkts.iter().all(|&(e, s)| e == s), "each handed over as its slot starts");
        let radio = run(slotted(t.clone(), SenderQueue::Radio, AckPath::Lossless)).unwrap();
        let fifo = run(slotted(t, SenderQueue::Fifo, AckPath::Lossless)).unwrap();
        assert_eq!(radio.counters.delivered_segments, n as u64);
        assert_eq!(radio.goodput_pps, fifo.goodput_pps);
        assert_eq!(radio.goodput_pps, 100.0);
    }

    #[test]
    fn a_radio_never_queues_two_of_its_packets() {
        for ack_path in [AckPath::Lossless, AckPath::Trace] {
            let pkts = data_on_link(slotted(bernoulli(0.25, 20_000, 3), SenderQueue::Radio, ack_path));
            assert!(pkts.len() > 1_000);
            // Lossless ACKs: at most the packet in the radio waits (a retransmission sent
            // at once joins it only when it is already in its slot). ACKs through the trace
            // hold slots of the same channel: a fast retransmission may then wait behind it.
            let most = if ack_path == AckPath::Lossless { 1 } else { 2 };
            assert!(most_waiting(&pkts) <= most, "{ack_path:?}: {} waiting", most_waiting(&pkts));
        }
        // The FIFO queues every copy the sender releases.
        let fifo = data_on_link(slotted(bernoulli(0.25, 20_000, 3), SenderQueue::Fifo, AckPath::Lossless));
        assert!(most_waiting(&fifo) > 10, "{}", most_waiting(&fifo));
    }

    /// A stationary channel: the goodput of a radio does not depend on the trace's length
    /// (the FIFO's falls into the collapse of docs/study.md "The sender's queue").
    #[test]
    fn radio_goodput_does_not_fall_with_the_trace_length() {
        let goodput = |n: usize, q| run(slotted(bernoulli(0.25, n, 7), q, AckPath::Lossless)).unwrap().goodput_pps;
        let (short, long) = (goodput(30_000, SenderQueue::Radio), goodput(300_000, SenderQueue::Radio));
        assert!((long / short - 1.0).abs() < 0.1, "radio: {short} pps at 30,000 slots, {long} at 300,000");
        let (short, long) = (goodput(30_000, SenderQueue::Fifo), goodput(300_000, SenderQueue::Fifo));
        assert!(long < 0.75 * short, "fifo: {short} pps at 30,000 slots, {long} at 300,000");
    }

    /// A paced sender (BBR) on a radio waits for both gates: still one packet per slot at
    /// most, at most one waiting, and the run ends (its pacer's and its radio's wake-ups
    /// share the flow's pacing slot).
    #[test]
    fn a_paced_sender_on_a_radio_waits_for_both() {
        let bbr = |trace, q| Scenario::slotted(TcpConfig::variant(Variant::Bbr), trace, SLOT, AckPath::Lossless, 1).with_sender_queue(q);
        let mut ones = BitTrace::new();
        (0..2_000).for_each(|_| ones.push(true));
        let pkts = data_on_link(bbr(ones.clone(), SenderQueue::Radio));
        assert!(most_waiting(&pkts) <= 1);
        let r = run(bbr(ones, SenderQueue::Radio)).unwrap();
        assert!(r.goodput_pps > 50.0 && r.counters.packets_sent <= 2_001, "{} pps, {} sent", r.goodput_pps, r.counters.packets_sent);
        let pkts = data_on_link(bbr(bernoulli(0.25, 20_000, 3), SenderQueue::Radio));
        assert!(pkts.len() > 100 && most_waiting(&pkts) <= 1, "{} sent, {} waiting", pkts.len(), most_waiting(&pkts));
        assert_eq!(SenderQueue::parse("Radio").unwrap(), SenderQueue::Radio);
        assert!(SenderQueue::parse("lifo").unwrap_err().to_string().contains("fifo, radio"));
    }
}
