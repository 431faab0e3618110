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

#[derive(Clone, Debug)]
pub struct SlottedConfig {
    pub trace: BitTrace,
    pub slot: Nanos,
    pub ack_path: AckPath,
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
        sc.slotted = Some(SlottedConfig { trace, slot, ack_path });
        sc
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
            net.flow(FlowSpec::tcp("flow", self.tcp, vec![f], vec![r]));
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
