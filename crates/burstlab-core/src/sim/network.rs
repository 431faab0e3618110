//! A network scenario: servers (channels), link directions that use them, and flows
//! over paths of links. Topology is data: a flow's forward path is the list of links its
//! data crosses, its reverse path the list its ACKs cross. The single-link
//! [`super::Scenario`] is one such network ([`super::Scenario::into_network`]).
use crate::tcp::config::TcpConfig;
use crate::link::{BufferUnit, LinkLayerConfig, LossMode, LossWindow, QueueDisc, Timing};
use crate::loss::{LossModel, Sojourn};
use crate::time::Nanos;
use crate::trace::BitTrace;
use crate::{Error, Result};

/// The loss process of one link direction.
#[derive(Debug)]
pub enum LinkLoss {
    None,
    /// Its own model, drawing from the stream `link.NAME.loss`.
    Own(Box<dyn LossModel>, LossMode),
    /// The model instance (and stream) of another link: one channel process for both
    /// (Pentikousis & Badr's synchronized data and ACK losses).
    Shared(usize),
    /// Slotted mode: lost iff the trace entry of the packet's slot is 0 (or past the end).
    Trace { trace: BitTrace, slot: Nanos },
}

/// One direction of a hop.
#[derive(Debug)]
pub struct LinkSpec {
    /// Names the link in results and its random stream (`link.NAME.loss`).
    pub name: String,
    /// Index of the server (transmitter) in [`Network::servers`]: the two directions of
    /// a half-duplex hop, or the links of one slotted channel, share one.
    pub server: usize,
    pub delay: Nanos,
    pub buffer: u64,
    pub buffer_unit: BufferUnit,
    pub loss: LinkLoss,
    /// Time mode: which interval the loss process is asked about.
    pub loss_window: LossWindow,
    /// DropTail (the default) or RED with ECN marking (`link/red.rs`).
    pub queue: QueueDisc,
    /// A link layer (802.11 ARQ, hybrid ARQ) between the channel and the network layer:
    /// the loss process decides each attempt (per attempt in packet mode, over the
    /// attempt's own interval in time mode; `loss_window` does not apply) and the frame
    /// is lost only when the attempt limit drops it. Needs a [`Timing::LinkLayer`] server.
    pub layer: Option<LinkLayerConfig>,
}

impl LinkSpec {
    pub fn new(name: &str, server: usize, delay: Nanos, buffer: u64) -> Self {
        LinkSpec {
            name: name.to_string(),
            server,
            delay,
            buffer,
            buffer_unit: BufferUnit::Packets,
            loss: LinkLoss::None,
            loss_window: LossWindow::default(),
            queue: QueueDisc::DropTail,
            layer: None,
        }
    }
}

/// What a flow is.
#[derive(Clone, Debug)]
pub enum FlowKind {
    Tcp(Box<TcpConfig>),
    /// Constant-bit-rate datagrams (UDP cross traffic, Martignon & Capone §III): one
    /// packet of `packet_bytes` (on the wire) every `packet_bytes·8/rate` seconds.
    Cbr { rate_bps: u64, packet_bytes: u32 },
}

/// Alternating activity: ON periods, during which a TCP flow's application has data to
/// send without limit (a CBR flow sends), and OFF periods, during which it supplies none.
/// Durations in seconds, drawn from the flow's stream `flow.NAME.onoff`; the flow starts ON.
#[derive(Clone, Debug)]
pub struct OnOff {
    pub on: Sojourn,
    pub off: Sojourn,
}

#[derive(Clone, Debug)]
pub struct FlowSpec {
    pub name: String,
    pub kind: FlowKind,
    /// TCP: payload bytes to transfer (None = bulk).
    pub size: Option<u64>,
    pub on_off: Option<OnOff>,
    /// When the flow starts.
    pub start: Nanos,
    /// When its application stops supplying data (None = never).
    pub stop: Option<Nanos>,
    /// Links its data (or datagrams) cross, in order.
    pub forward: Vec<usize>,
    /// Links its ACKs cross, in order (TCP only).
    pub reverse: Vec<usize>,
    /// TCP: the sender hands its first link one packet at a time, the next when the slot
    /// of the last has ended (the slotted mode's `radio` queue, [`super::SenderQueue`]).
    pub radio: bool,
}

impl FlowSpec {
    pub fn tcp(name: &str, tcp: TcpConfig, forward: Vec<usize>, reverse: Vec<usize>) -> Self {
        FlowSpec {
            name: name.to_string(),
            kind: FlowKind::Tcp(Box::new(tcp)),
            size: None,
            on_off: None,
            start: 0,
            stop: None,
            forward,
            reverse,
            radio: false,
        }
    }

    pub fn cbr(name: &str, rate_bps: u64, packet_bytes: u32, forward: Vec<usize>) -> Self {
        FlowSpec {
            name: name.to_string(),
            kind: FlowKind::Cbr { rate_bps, packet_bytes },
            size: None,
            on_off: None,
            start: 0,
            stop: None,
            forward,
            reverse: vec![],
            radio: false,
        }
    }

    pub fn is_tcp(&self) -> bool {
        matches!(self.kind, FlowKind::Tcp(_))
    }
}

#[derive(Debug)]
pub struct Network {
    pub servers: Vec<Timing>,
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    /// The run stops at this time, or earlier when every TCP flow has a size and has
    /// completed.
    pub duration: Nanos,
    /// Counters and rates cover [warmup, end].
    pub warmup: Nanos,
    pub seed: u64,
    /// Record each TCP flow's time series.
    pub series: bool,
    /// Record the per-packet log.
    pub log: bool,
}

impl Network {
    pub fn new(duration: Nanos) -> Self {
        Network { servers: vec![], links: vec![], flows: vec![], duration, warmup: 0, seed: 1, series: false, log: false }
    }

    /// Add a server, returning its index.
    pub fn server(&mut self, t: Timing) -> usize {
        self.servers.push(t);
        self.servers.len() - 1
    }

    /// Add a link, returning its index.
    pub fn link(&mut self, l: LinkSpec) -> usize {
        self.links.push(l);
        self.links.len() - 1
    }

    /// Add a flow, returning its index.
    pub fn flow(&mut self, f: FlowSpec) -> usize {
        self.flows.push(f);
        self.flows.len() - 1
    }

    pub fn validate(&self) -> Result<()> {
        if self.duration == 0 {
            return Err(Error::param("duration", 0, "a positive time"));
        }
        crate::time::check_run("duration", self.duration)?;
        if self.warmup >= self.duration {
            return Err(Error::param("warmup", self.warmup as f64 / 1e9, "shorter than the duration"));
        }
        if self.flows.is_empty() {
            return Err(Error::param("flows", "none", "at least one flow"));
        }
        if self.flows.len() > u32::MAX as usize / 2 || self.links.len() > u32::MAX as usize / 2 {
            return Err(Error::param("network", format!("{} flows, {} links", self.flows.len(), self.links.len()), "fewer than 2^31 of each"));
        }
        for (i, t) in self.servers.iter().enumerate() {
            if let Timing::Rate { rate_bps: 0 } = t {
                return Err(Error::param(&format!("server {i} rate"), 0, "a positive rate in bits/s"));
            }
            if let Timing::Slotted { slot: 0 } | Timing::SlotEnd { slot: 0 } = t {
                return Err(Error::param("slot", 0, "a positive time"));
            }
        }
        let mut names = std::collections::HashSet::new();
        for (i, l) in self.links.iter().enumerate() {
            if !names.insert(l.name.as_str()) {
                return Err(Error::param("link name", &l.name, "a name no other link has"));
            }
            if l.server >= self.servers.len() {
                return Err(Error::param(&format!("link {}.server", l.name), l.server, "the index of a server"));
            }
            match &l.queue {
                QueueDisc::Red(r) => r.validate(&l.name)?,
                QueueDisc::Codel(c) => c.validate(&format!("link {}", l.name))?,
                QueueDisc::FqCodel(c, f) => {
                    c.validate(&format!("link {}", l.name))?;
                    f.validate(&format!("link {}", l.name))?;
                }
                QueueDisc::DropTail => {}
            }
            if l.queue.at_dequeue() {
                // The dequeue event serves one packet at a time on a server of fixed rate that
                // no other link shares (docs/simulator.md, "CoDel and FQ-CoDel").
                let shared = self.links.iter().enumerate().any(|(j, o)| j != i && o.server == l.server);
                let why = if !matches!(self.servers[l.server], Timing::Rate { .. }) {
                    Some("a link of fixed rate (not a capacity trace or a slotted channel)")
                } else if shared {
                    Some("a link with a transmitter of its own (not half-duplex)")
                } else if l.layer.is_some() {
                    Some("a link without a link layer")
                } else {
                    None
                };
                if let Some(why) = why {
                    let q = if matches!(l.queue, QueueDisc::Codel(_)) { "codel" } else { "fq_codel" };
                    return Err(Error::param(&format!("link {}.queue", l.name), q, why));
                }
            }
            match &l.loss {
                LinkLoss::Shared(j) => {
                    let ok = *j != i && *j < self.links.len() && matches!(self.links[*j].loss, LinkLoss::Own(..));
                    if !ok {
                        return Err(Error::param(
                            &format!("link {}.loss", l.name),
                            format!("shared with link {j}"),
                            "another link that has a loss model of its own",
                        ));
                    }
                }
                // a keyed replay is asked with each packet's key; a link layer's attempts
                // have none (and their number differs between runs)
                LinkLoss::Own(m, _) if m.as_keyed().is_some() && l.layer.is_some() => {
                    return Err(Error::param(&format!("link {}.loss", l.name), "keyed-replay", "a link without a link layer"));
                }
                LinkLoss::Trace { trace, slot } => {
                    if *slot == 0 {
                        return Err(Error::param("slot", 0, "a positive time"));
                    }
                    if trace.is_empty() {
                        return Err(Error::Empty("run_trace: the trace is empty".into()));
                    }
                }
                _ => {}
            }
            self.validate_layer(i)?;
        }
        let mut names = std::collections::HashSet::new();
        for f in &self.flows {
            if !names.insert(f.name.as_str()) {
                return Err(Error::param("flow name", &f.name, "a name no other flow has"));
            }
            let what = |p: &str| format!("flow {}.{p}", f.name);
            if f.forward.is_empty() {
                return Err(Error::param(&what("path"), "[]", "at least one link"));
            }
            if f.forward.len() > u16::MAX as usize || f.reverse.len() > u16::MAX as usize {
                return Err(Error::param(&what("path"), f.forward.len().max(f.reverse.len()), "at most 65535 links"));
            }
            for &l in f.forward.iter().chain(&f.reverse) {
                if l >= self.links.len() {
                    return Err(Error::param(&what("path"), l, "indices of links"));
                }
            }
            if f.start >= self.duration {
                return Err(Error::param(&what("start"), f.start as f64 / 1e9, "earlier than the end of the run"));
            }
            if f.radio {
                // The engine reads the radio's packet back from its first link (`flush`).
                let alone = self.flows.iter().filter(|g| g.forward.contains(&f.forward[0]) || g.reverse.contains(&f.forward[0])).count() == 1;
                let slotted = matches!(self.servers[self.links[f.forward[0]].server], Timing::Slotted { .. });
                let tcp = matches!(&f.kind, FlowKind::Tcp(_));
                if !(alone && slotted && tcp) {
                    return Err(Error::param(&what("radio"), true, "a TCP flow alone on a slotted first link"));
                }
            }
            match &f.kind {
                FlowKind::Tcp(t) => {
                    t.validate()?;
                    if f.reverse.is_empty() {
                        return Err(Error::param(&what("reverse_path"), "[]", "at least one link for the ACKs"));
                    }
                    if f.size == Some(0) {
                        return Err(Error::param(&what("size"), 0, "a positive number of bytes"));
                    }
                }
                FlowKind::Cbr { rate_bps, packet_bytes } => {
                    if *rate_bps == 0 {
                        return Err(Error::param(&what("rate"), 0, "a positive rate in bits/s"));
                    }
                    if *packet_bytes == 0 {
                        return Err(Error::param(&what("packet_bytes"), 0, "a positive size in bytes"));
                    }
                    if f.size.is_some() {
                        return Err(Error::param(&what("size"), "a size", "none for a CBR flow (give stop instead)"));
                    }
                }
            }
        }
        Ok(())
    }

    /// Link `i`'s link layer: valid settings, on a [`Timing::LinkLayer`] server (and only
    /// links with a link layer on such a server). A link layer decides its frames' fates
    /// when they enter, its attempts in the future; a process in time mode must then be
    /// asked in time order, so every link that uses the same time-mode process has a link
    /// layer and the same server (whose frames are served one after the other).
    fn validate_layer(&self, i: usize) -> Result<()> {
        let l = &self.links[i];
        let on_layer_server = matches!(self.servers[l.server], Timing::LinkLayer);
        match &l.layer {
            None if on_layer_server => {
                return Err(Error::param(&format!("link {}.link_layer", l.name), "none", "a link layer: its server is timed by one"))
            }
            None => return Ok(()),
            Some(_) if !on_layer_server => {
                return Err(Error::param(
                    &format!("link {}.server", l.name),
                    l.server,
                    "a server timed by the link layer (Timing::LinkLayer)",
                ))
            }
            Some(c) => {
                c.build()?;
            }
        }
        let owner = if let LinkLoss::Shared(j) = l.loss { j } else { i };
        if !matches!(self.links[owner].loss, LinkLoss::Own(_, LossMode::Time)) {
            return Ok(());
        }
        for (j, m) in self.links.iter().enumerate() {
            let uses = j == owner || matches!(m.loss, LinkLoss::Shared(o) if o == owner);
            if uses && (m.layer.is_none() || m.server != l.server) {
                return Err(Error::param(
                    &format!("link {}.loss", m.name),
                    format!("the time-mode loss process of link {}", self.links[owner].name),
                    &format!("a link layer on the server of link {} (a time-mode channel under a link layer is asked in time order)", l.name),
                ));
            }
        }
        Ok(())
    }
}
