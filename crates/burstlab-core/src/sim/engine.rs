//! The event loop of the network engine.
//!
//! Timers (retransmission, delayed ACK, flow starts, CBR sends, ON/OFF switches, the end
//! of the warm-up) live in a binary heap ([`super::event::EventQueue`]). Packets in flight
//! live in the links' FIFO pipes: a packet's service start, end and arrival are computed
//! when it enters a link ([`crate::link::Pipe`]), so each link's next event is its head
//! (or, in time mode, its first undecided entry), and a tournament tree
//! ([`super::mintree::MinTree`]) keeps the earliest over all links and the heap's top, by
//! (time, insertion sequence) (64-bit times compared, sequences only on a tie); the two
//! links most flows cross keep their keys beside it. The loop takes the tree's minimum.
//! An arriving packet enters the next link of its path at its arrival instant; at the end
//! of its path it reaches its flow's receiver (data) or sender (ACKs). The hot path allocates nothing once the pipes,
//! scoreboards, receiver rings and the transmit buffer have grown to what they hold; a
//! packet in a pipe is 64 bytes (SACK blocks wait in their flow's queue), statistics are
//! counted once per packet per link, and the per-packet log is a compile-time parameter.
//! So is the set of checks for the features most runs do not use (RED, link layers,
//! LT-TCP, timestamps, ECN, the Ideal-estimate TCP, RACK's lost retransmissions, time
//! series: [`needs_full`]): a run without them runs an engine compiled without them, with
//! the same results (tested on random networks). (Speed against htsim:
//! `docs/validation.md`, "Speed against htsim".)
//!
//! A link's queue discipline is DropTail, or RED with ECN marking (`link/red.rs`), which
//! `Engine::enter` consults before the buffer check (`red_verdict`); packets carry their
//! ECN and TCP header bits, and LT-TCP's FEC marks, in the spare bits of their meta word.
//!
//! The single-link [`Scenario`] runs as a network of two links and one flow and gives the
//! results it gave before networks existed (`sim/regression.rs`).
use super::event::{EventQueue, Timer};
use super::mintree::{key, Key, MinTree, NONE};
use super::network::{FlowKind, FlowSpec, LinkLoss, Network, OnOff};
use super::scenario::{Scenario, TcpConfig};
use super::watch::{next_quantum, Progress, Watch};
use crate::link::{InFlight, LinkLayer, LossMode, LossSource, LossWindow, Pipe, QueueDisc, Red, Server, Timing, Verdict};
use crate::results::{
    jain, Counters, FlowKindTag, FlowResult, LinkCounters, LinkResult, LogHistogram, NetworkResult, Series, SimResult,
};
use crate::rng::{component_id, stream, Rng};
use crate::tcp::config::{CcKind, DupackRule, RecoveryKind};
use crate::tcp::pkt_flags::{CE, CWR, ECE, ECT, PFEC, RFEC};
use crate::tcp::receiver::{AckPkt, Receiver, RxAction};
use crate::tcp::sender::{Sender, Tx};
use crate::time::{to_secs_f64, tx_time, Nanos};
use crate::Result;
use std::collections::VecDeque;

/// The engine's tables indexed without a bounds check on the per-packet path, for the
/// indices its construction guarantees ([`Engine::new`] asserts them once): a link's index
/// from the tree (any source but the timers) or from a path, a link's server and loss
/// owner, a packet's flow and its position on its path (every path ends in [`END`], so the
/// position after a link is still in the table).
trait Table<T> {
    fn at(&self, i: usize) -> &T;
    fn at_mut(&mut self, i: usize) -> &mut T;
}

impl<T> Table<T> for [T] {
    #[inline(always)]
    fn at(&self, i: usize) -> &T {
        debug_assert!(i < self.len(), "index {i} out of a table of {}", self.len());
        // SAFETY: the callers pass only indices that Engine::new checked (above).
        unsafe { self.get_unchecked(i) }
    }

    #[inline(always)]
    fn at_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.len(), "index {i} out of a table of {}", self.len());
        // SAFETY: as in `at`.
        unsafe { self.get_unchecked_mut(i) }
    }
}

/// What a packet is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum PktKind {
    /// A TCP data segment.
    Data,
    /// A TCP ACK.
    Ack,
    /// A CBR datagram.
    #[default]
    Udp,
}

/// An ACK without SACK blocks ([`Pkt::aux`]).
pub const NO_SACK: u32 = u32::MAX;

/// A packet in the network: its flow, where it is on its path (an index into the
/// engine's table of paths), when its flow sent it, and what it carries. Its size on the
/// wire travels beside it ([`InFlight::bytes`](crate::link::InFlight)). Four words, no
/// enum payload: the pipes move it as such (a packet in a pipe takes 64 bytes).
#[derive(Clone, Copy, Debug, Default)]
pub struct Pkt {
    pub flow: u32,
    /// Index in the path table of the link it is on.
    pub pos: u32,
    /// When the flow handed it to the first link of its path.
    pub t0: Nanos,
    /// Data: the segment; ACK: the cumulative ACK; datagram: its number.
    pub num: u64,
    /// [`Pkt::aux`], then [`Pkt::kind`], [`Pkt::retx`] and [`Pkt::flags`] in the upper half.
    meta: u64,
}

/// Where [`Pkt::flags`] sit in the packet's meta word (7 bits, 41-47; [`Pkt::rseq`] above).
const FLAGS_SHIFT: u32 = 41;

impl Pkt {
    pub fn new(flow: u32, pos: u32, t0: Nanos, kind: PktKind, num: u64, aux: u32, retx: bool) -> Self {
        Pkt { flow, pos, t0, num, meta: aux as u64 | (kind as u64) << 32 | (retx as u64) << 40 }
    }

    /// Data: its payload bytes. ACK: the number of its SACK blocks in its flow's queue of
    /// SACK blocks in flight, or [`NO_SACK`]. ACKs of one flow cross one path of FIFO
    /// links, so they arrive in the order they were sent, and the blocks need not travel
    /// in the links' rings.
    #[inline]
    pub fn aux(&self) -> u32 {
        self.meta as u32
    }

    #[inline]
    pub fn kind(&self) -> PktKind {
        match (self.meta >> 32) as u8 {
            0 => PktKind::Data,
            1 => PktKind::Ack,
            _ => PktKind::Udp,
        }
    }

    /// Data: a retransmission.
    #[inline]
    pub fn retx(&self) -> bool {
        self.meta >> 40 & 1 != 0
    }

    /// Header bits (`tcp::pkt_flags`: ECN field, CWR / ECE, LT-TCP's FEC marks).
    #[inline]
    pub fn flags(&self) -> u8 {
        (self.meta >> FLAGS_SHIFT) as u8 & 0x7f
    }

    #[inline]
    pub fn with_flags(mut self, f: u8) -> Self {
        self.meta |= (f as u64) << FLAGS_SHIFT;
        self
    }

    /// LT-TCP: an RFEC packet's number, low 16 bits (the top of the meta word).
    #[inline]
    pub fn rseq(&self) -> u16 {
        (self.meta >> 48) as u16
    }

    #[inline]
    pub fn with_rseq(mut self, r: u16) -> Self {
        self.meta |= (r as u64) << 48;
        self
    }

    fn log_fields(&self) -> (LogKind, u64, bool) {
        let kind = match self.kind() {
            PktKind::Data => LogKind::Data,
            PktKind::Ack => LogKind::Ack,
            PktKind::Udp => LogKind::Datagram,
        };
        (kind, self.num, self.retx())
    }
}

/// One line of the optional per-packet log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogRec {
    pub t: Nanos,
    pub event: LogEvent,
    pub kind: LogKind,
    pub flow: u32,
    /// The link where it happened (`u32::MAX`: at an end host).
    pub link: u32,
    /// Data: the segment (Delivered: the first delivered); ACK: the cumulative ACK;
    /// datagram: its number.
    pub seg: u64,
    /// Delivered: one past the last segment delivered; otherwise `seg + 1`.
    pub to: u64,
    pub retx: bool,
    /// When the packet's flow sent it.
    pub t0: Nanos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogEvent {
    /// Handed to the first link of its path.
    Sent,
    /// Dropped by the full buffer of `link`.
    Dropped,
    /// Lost by the loss process of `link` (`t` = when it would have arrived).
    Lost,
    /// Reached the end of its path.
    Arrived,
    /// Segments [seg, to) delivered in order to the receiving application.
    Delivered,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    Data,
    Ack,
    Datagram,
}


#[repr(C)] // the fields a hop touches first, together (pipe, flags, counters, histogram)
struct LinkRt {
    pipe: Pipe<Pkt>,
    /// Decisions wait for the service start, in event order (time-mode processes).
    time_mode: bool,
    /// No loss process (its own or shared): no decision to make.
    lossless: bool,
    window: LossWindow,
    /// Whose loss process decides (itself, or the owner of a shared one).
    owner: usize,
    busy: Nanos,
    /// `offered` and `delivered` are filled in when read ([`LinkRt::counters`]): `sent`
    /// counts the packets admitted (until `finish` takes back those not yet served).
    c: LinkCounters,
    qdelay: LogHistogram,
    loss: LossSource,
    /// RED (`link/red.rs`), consulted at admission; None: DropTail.
    red: Option<Box<Red>>,
    /// Its link layer, if any (boxed: most links have none and stay small).
    layer: Option<Box<LayerRt>>,
    server: usize,
    name: String,
    snap: LinkCounters,
}

/// A link's link layer and its random stream (`link.NAME.layer`: attempt times, backoff).
struct LayerRt {
    layer: LinkLayer,
    rng: Rng,
}

impl LinkRt {
    /// The counters so far: every packet offered was dropped on entry or admitted, and
    /// every admitted one has left the pipe (lost or delivered) or is still in it.
    fn counters(&self) -> LinkCounters {
        let c = self.c;
        LinkCounters {
            offered: c.sent + c.queue_drops,
            delivered: c.sent - self.pipe.len() as u64 - c.channel_losses,
            ..c
        }
    }
}

/// A TCP flow's end hosts and bookkeeping.
struct TcpFlow {
    sender: Sender,
    receiver: Receiver,
    rto_sched: Option<Nanos>,
    delack_sched: Option<Nanos>,
    data_bytes_hdr: u32,
    ack_bytes: u32,
    mss: u32,
    completion: Option<Nanos>,
    channel_losses: u64,
    queue_drops: u64,
    acks_lost: u64,
    arrived_bytes: u64,
    /// Duplicates of copies sent during the measured interval.
    spurious_retx: u64,
    /// Timeouts not yet known to be spurious or not: (segment, when).
    pending_rto: VecDeque<(u64, Nanos)>,
    /// The ACKs in flight that carry SACK blocks or (with timestamps) a TSecr, oldest
    /// first, by number.
    sacks: VecDeque<(u64, AckPkt)>,
    /// An arriving ACK without a queue entry, as the sender reads it (`Engine::on_ack`).
    ack_in: AckPkt,
    /// RFC 7323 timestamps: every ACK carries its TSecr through `sacks`.
    timestamps: bool,
    /// The Ideal-estimate TCP (Martignon & Capone §V): the sender's `Tcb::fair_share_bps`
    /// is set from the engine's fair share before each ACK and timeout.
    needs_share: bool,
    /// RFC 3168: the flow's new data is ECN-capable (ECT).
    ect: u8,
    next_sack: u32,
    spurious_timeouts: u64,
    snapshot: Counters,
    series: Option<Series>,
    /// The flow's fair share of its path, bits/s, as of the last `recompute_shares`
    /// (read it through `Engine::fair_share_bps`).
    fair_share_bps: f64,
}

/// What handing a TCP flow's segments to its path needs of the flow ([`Engine::flush`]).
#[derive(Clone, Copy)]
struct Outbound {
    hdr: u32,
    mss: u32,
    ect: u8,
    /// A retransmission timer to schedule ([`rto_due`]).
    rto: Option<Nanos>,
}

impl Outbound {
    #[inline(always)]
    fn of(t: &mut TcpFlow) -> Self {
        Outbound { hdr: t.data_bytes_hdr, mss: t.mss, ect: t.ect, rto: rto_due(t) }
    }
}

/// The sender's retransmission deadline, if the flow has no timer scheduled at or before
/// it (then counted as scheduled: the caller pushes the timer).
#[inline(always)]
fn rto_due(t: &mut TcpFlow) -> Option<Nanos> {
    let d = t.sender.rto_deadline?;
    if t.rto_sched.is_none_or_gt(d) {
        t.rto_sched = Some(d);
        return Some(d);
    }
    None
}

struct CbrFlow {
    bytes: u32,
    interval: Nanos,
    next_no: u64,
    sent: u64,
    delivered: u64,
    channel_losses: u64,
    queue_drops: u64,
    snap: (u64, u64, u64, u64),
    /// A send is scheduled.
    armed: bool,
}

#[allow(clippy::large_enum_variant)] // a flow's state is used in place, never moved per packet
enum FlowState {
    Tcp(TcpFlow),
    Cbr(CbrFlow),
}

#[repr(C)]
struct FlowRt {
    /// Where its forward and reverse paths begin in the engine's path table.
    fwd0: u32,
    rev0: u32,
    state: FlowState,
    started: bool,
    /// ON (or no ON/OFF): the application has data.
    on: bool,
    /// The application has stopped for good.
    stopped: bool,
    onoff_rng: Option<Rng>,
    spec: FlowSpec,
}

impl FlowRt {
    fn tcp(&mut self) -> &mut TcpFlow {
        match &mut self.state {
            FlowState::Tcp(t) => t,
            FlowState::Cbr(_) => unreachable!("not a TCP flow"),
        }
    }
}

/// The engine; `LOG`: whether it records the per-packet log (a constant, so that a run
/// without the log pays nothing for it). `FULL`: whether any flow or link uses a feature
/// of [`needs_full`] (false: their per-packet checks are compiled out of the run).
struct Engine<const LOG: bool, const FULL: bool> {
    now: Nanos,
    seq: u64,
    events: u64,
    heap: EventQueue,
    /// The links' next events (sources `0..links`) and the timer heap's top (source
    /// `timers`, in the tree: it changes seldom).
    tree: MinTree,
    timers: usize,
    servers: Vec<Server>,
    links: Vec<LinkRt>,
    flows: Vec<FlowRt>,
    /// Every flow's forward path, then its reverse path, as link indices, each path
    /// followed by [`END`]: a packet's `pos` moves along it.
    paths: Vec<u32>,
    /// The server of the link at each position of `paths` (so that a packet's entry reads
    /// its server by its position, beside the link, not through the link).
    path_servers: Vec<u32>,
    txbuf: Vec<Tx>,
    end: Nanos,
    warmup: Nanos,
    /// TCP flows with a size that have not completed; the run stops when the last one
    /// does (if every TCP flow has a size).
    finite_open: usize,
    stop_on_completion: bool,
    stopped_at: Option<Nanos>,
    /// The loop runs the events before this time: just after the end (at most the timers'
    /// and empty links' `Nanos::MAX`), or, once the run has stopped, 0 (none).
    stop_before: Nanos,
    /// The flows' fair shares need recomputing (see `recompute_shares`).
    shares_stale: bool,
    /// The per-packet log (empty unless `LOG`).
    log: Vec<LogRec>,
    /// Called every `WATCH_EVERY` events (interrupt, progress: `sim/watch.rs`); set when it
    /// stopped the run.
    watch: Option<Watch>,
    interrupted: Option<Progress>,
    /// The warm-up has ended: the measured window is open (see `sent_before_window`).
    window_open: bool,
}

/// The end of a path in [`Engine::paths`].
const END: u32 = u32::MAX;

/// Run a single-link scenario to completion.
pub fn run(sc: Scenario) -> Result<SimResult> {
    run_logged(sc).map(|(r, _)| r)
}

/// Run a single-link scenario and return the per-packet log as well (when `sc.log` is set).
pub fn run_logged(sc: Scenario) -> Result<(SimResult, Vec<LogRec>)> {
    sc.validate()?;
    let (mut r, log) = run_network_logged(sc.into_network())?;
    Ok((r.flows.swap_remove(0).result, log))
}

/// Run a network scenario.
pub fn run_network(net: Network) -> Result<NetworkResult> {
    run_network_logged(net).map(|(r, _)| r)
}

/// Run a network scenario and return the per-packet log as well (when `net.log` is set).
pub fn run_network_logged(net: Network) -> Result<(NetworkResult, Vec<LogRec>)> {
    run_network_watched(net, None)
}

/// [`run_network_logged`] with a [`Watch`] that may stop the run (Ctrl-C) and sees its
/// progress: a stopped run is the error [`super::watch::interrupted`].
pub fn run_network_watched(net: Network, watch: Option<Watch>) -> Result<(NetworkResult, Vec<LogRec>)> {
    net.validate()?;
    let full = needs_full(&net);
    match (net.log, full) {
        (true, true) => run_engine::<true, true>(net, watch),
        (true, false) => run_engine::<true, false>(net, watch),
        (false, true) => run_engine::<false, true>(net, watch),
        (false, false) => run_engine::<false, false>(net, watch),
    }
}

/// A single-link scenario with a [`Watch`] (see [`run_network_watched`]).
pub fn run_watched(sc: Scenario, watch: Option<Watch>) -> Result<SimResult> {
    sc.validate()?;
    let (mut r, _) = run_network_watched(sc.into_network(), watch)?;
    Ok(r.flows.swap_remove(0).result)
}

/// [`run_network_logged`] with every feature's checks compiled in, whatever the network
/// uses (tests: the plain engine must give the same runs).
#[cfg(test)]
pub(crate) fn run_network_full(net: Network) -> (NetworkResult, Vec<LogRec>) {
    net.validate().expect("a valid network");
    if net.log {
        run_engine::<true, true>(net, None).expect("no watch to stop it")
    } else {
        run_engine::<false, true>(net, None).expect("no watch to stop it")
    }
}

fn run_engine<const LOG: bool, const FULL: bool>(net: Network, watch: Option<Watch>) -> Result<(NetworkResult, Vec<LogRec>)> {
    let mut e = Engine::<LOG, FULL>::new(net);
    e.watch = watch;
    e.run();
    match e.interrupted {
        Some(p) => Err(super::watch::interrupted(p)),
        None => Ok(e.finish()),
    }
}

/// Whether a network uses a feature whose per-packet checks the engine compiles out of a
/// run without it: a RED queue or a link layer on a link; LT-TCP, RFC 7323 timestamps, ECN
/// or the Ideal-estimate TCP in a flow; the flows' time series; a warm-up. (The others, among them
/// SACK, delayed ACKs, time-mode loss and every congestion control, cost a plain run
/// nothing or are checked as before.)
pub(crate) fn needs_full(net: &Network) -> bool {
    net.series
        || net.warmup > 0 // the window's attribution of losses (`sent_before_window`)
        || net.links.iter().any(|l| !matches!(l.queue, QueueDisc::DropTail) || l.layer.is_some())
        || net.flows.iter().any(|f| match &f.kind {
            FlowKind::Tcp(t) => {
                t.recovery == RecoveryKind::Lt
                    || t.timestamps
                    || t.ecn_on()
                    || t.cc == CcKind::Ideal
                    || t.rack_lost_retransmissions
                    || t.rack_tlp
                    || t.sack_dupacks() != DupackRule::Rfc5681
            }
            FlowKind::Cbr { .. } => false,
        })
}

// Congestion control, loss recovery and every sender option come from TcpConfig.
fn make_sender(t: &TcpConfig, size: Option<u64>) -> Sender {
    Sender::from_config(t, size)
}

impl<const LOG: bool, const FULL: bool> Engine<LOG, FULL> {
    fn new(net: Network) -> Self {
        let seed = net.seed;
        let mut links: Vec<LinkRt> = Vec::with_capacity(net.links.len());
        let owners: Vec<usize> =
            net.links.iter().enumerate().map(|(i, l)| if let LinkLoss::Shared(j) = l.loss { j } else { i }).collect();
        for (i, l) in net.links.into_iter().enumerate() {
            let pipe = Pipe::new(l.delay, l.buffer, l.buffer_unit);
            let red = match &l.queue {
                QueueDisc::DropTail => None,
                QueueDisc::Red(p) => {
                    // F&J's s: a packet of mean_packet_bytes on this link's server.
                    let bits = p.mean_packet_bytes as f64 * 8.0;
                    let s = match &net.servers[l.server] {
                        Timing::Slotted { slot } => *slot as f64,
                        t => t.rate_bps().map_or(0.0, |r| bits / r * 1e9),
                    };
                    let rng = stream(seed, component_id(&format!("link.{}.red", l.name)));
                    Some(Box::new(Red::new(p.clone(), s, rng)))
                }
            };
            let loss = match l.loss {
                LinkLoss::None => LossSource::None,
                LinkLoss::Own(mut m, mode) => {
                    m.reset();
                    let rng = stream(seed, component_id(&format!("link.{}.loss", l.name)));
                    LossSource::Own { model: m, rng, mode }
                }
                LinkLoss::Shared(j) => LossSource::Shared(j),
                LinkLoss::Trace { trace, slot } => LossSource::Trace { trace, slot },
            };
            let layer = l.layer.as_ref().map(|c| {
                Box::new(LayerRt {
                    layer: c.build().expect("validated"),
                    rng: stream(seed, component_id(&format!("link.{}.layer", l.name))),
                })
            });
            links.push(LinkRt {
                layer,
                name: l.name,
                pipe,
                server: l.server,
                loss,
                owner: owners[i],
                time_mode: false,
                lossless: false,
                window: l.loss_window,
                c: LinkCounters::default(),
                snap: LinkCounters::default(),
                busy: 0,
                qdelay: LogHistogram::default(),
                red,
            });
        }
        for i in 0..links.len() {
            let o = links[i].owner;
            // A link layer decides each frame on entry, whatever the mode.
            links[i].time_mode = links[o].loss.mode() == Some(LossMode::Time) && links[i].layer.is_none();
            links[i].lossless = matches!(links[o].loss, LossSource::None);
        }
        let mut finite_open = 0;
        let mut any_tcp = false;
        let mut all_finite = true;
        let mut flows = net
            .flows
            .into_iter()
            .map(|f| {
                let state = match &f.kind {
                    FlowKind::Tcp(t) => {
                        any_tcp = true;
                        if f.size.is_some() && f.on_off.is_none() {
                            finite_open += 1;
                        } else {
                            all_finite = false;
                        }
                        FlowState::Tcp(TcpFlow {
                            sender: make_sender(t, f.size),
                            receiver: Receiver::from_tcp(t),
                            rto_sched: None,
                            delack_sched: None,
                            data_bytes_hdr: (t.mss + t.wire_header_bytes()) as u32, // + TCP options
                            ack_bytes: t.wire_ack_bytes() as u32,
                            timestamps: t.timestamps,
                            needs_share: t.cc == CcKind::Ideal,
                            ect: if t.ecn_on() { ECT } else { 0 },
                            mss: t.mss as u32,
                            completion: None,
                            channel_losses: 0,
                            queue_drops: 0,
                            acks_lost: 0,
                            arrived_bytes: 0,
                            spurious_retx: 0,
                            pending_rto: VecDeque::with_capacity(8),
                            sacks: VecDeque::new(),
                            ack_in: AckPkt::default(),
                            next_sack: 0,
                            spurious_timeouts: 0,
                            snapshot: Counters::default(),
                            series: net.series.then(Series::default),
                            fair_share_bps: f64::INFINITY,
                        })
                    }
                    FlowKind::Cbr { rate_bps, packet_bytes } => FlowState::Cbr(CbrFlow {
                        bytes: *packet_bytes,
                        interval: crate::time::tx_time(*packet_bytes as u64, *rate_bps).max(1),
                        next_no: 0,
                        sent: 0,
                        delivered: 0,
                        channel_losses: 0,
                        queue_drops: 0,
                        snap: (0, 0, 0, 0),
                        armed: false,
                    }),
                };
                let onoff_rng = f.on_off.as_ref().map(|_| stream(seed, component_id(&format!("flow.{}.onoff", f.name))));
                FlowRt { spec: f, state, fwd0: 0, rev0: 0, started: false, on: true, stopped: false, onoff_rng }
            })
            .collect::<Vec<_>>();
        let mut paths = Vec::new();
        for f in &mut flows {
            for (start, path) in [(&mut f.fwd0, &f.spec.forward), (&mut f.rev0, &f.spec.reverse)] {
                *start = paths.len() as u32;
                paths.extend(path.iter().map(|&l| l as u32));
                paths.push(END);
            }
        }
        let nlinks = links.len();
        // What `Table` relies on: every index the per-packet path reads without a check.
        assert!(paths.iter().all(|&l| l == END || (l as usize) < nlinks), "a path names no link");
        assert!(links.iter().all(|l| l.server < net.servers.len() && l.owner < nlinks), "a link's server or owner");
        assert!(flows.len() <= u32::MAX as usize && paths.len() < u32::MAX as usize);
        let path_servers = paths.iter().map(|&l| if l == END { 0 } else { links[l as usize].server as u32 }).collect();
        // The links most flows cross (the bottleneck's two directions in a dumbbell) keep
        // their keys beside the tree: their updates are most of the updates.
        let mut crossing = vec![0usize; nlinks];
        for f in &flows {
            for &l in f.spec.forward.iter().chain(&f.spec.reverse) {
                crossing[l] += 1;
            }
        }
        let mut by_use: Vec<usize> = (0..nlinks).collect();
        by_use.sort_by_key(|&l| std::cmp::Reverse(crossing[l]));
        let hot: Vec<usize> = by_use.into_iter().take(super::mintree::HOT).collect();
        Engine {
            now: 0,
            seq: 0,
            events: 0,
            heap: EventQueue::new(),
            timers: nlinks,
            tree: MinTree::with_hot(nlinks + 1, &hot),
            servers: net.servers.into_iter().map(Server::new).collect(),
            links,
            flows,
            path_servers,
            paths,
            txbuf: Vec::with_capacity(256),
            end: net.duration,
            warmup: net.warmup,
            finite_open,
            stop_on_completion: any_tcp && all_finite,
            stopped_at: None,
            stop_before: net.duration.saturating_add(1),
            shares_stale: true,
            log: Vec::new(),
            watch: None,
            interrupted: None,
            window_open: false,
        }
    }

    #[inline]
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    #[inline]
    fn push_timer(&mut self, t: Nanos, ev: Timer) {
        let seq = self.next_seq();
        self.heap.push(t, seq, ev);
        self.tree.set(self.timers, self.heap.peek_key());
    }

    // ---- links -------------------------------------------------------------------

    /// The link's next event key: its first undecided entry (time mode) when that comes
    /// no later than its head's arrival, else the head's arrival.
    #[inline]
    fn link_key(&self, i: usize) -> Key {
        let l = self.links.at(i);
        let h = l.pipe.head().map_or(NONE, |(t, s)| key(t, s));
        if l.time_mode {
            if let Some((t, s)) = l.pipe.next_undecided() {
                return h.min(key(t, s));
            }
        }
        h
    }

    #[inline]
    fn refresh(&mut self, i: usize) {
        let k = self.link_key(i);
        self.tree.set(i, k);
    }

    /// The fate of a packet on link `i` served during [start, sent], arriving at `arrive`:
    /// the loss process of the link's owner (itself, or the link whose process it shares)
    /// over the link's loss window.
    #[inline(always)]
    fn decide(&mut self, i: usize, start: Nanos, sent: Nanos, arrive: Nanos) -> bool {
        let l = self.links.at_mut(i);
        let end = match l.window {
            LossWindow::Serialisation => sent,
            LossWindow::Transit => arrive,
        };
        if l.owner == i {
            l.loss.decide(start, end)
        } else {
            let o = l.owner;
            self.links.at_mut(o).loss.decide(start, end)
        }
    }

    #[inline(always)]
    fn log_pkt(&mut self, event: LogEvent, link: u32, p: &Pkt) {
        if LOG {
            let (kind, seg, retx) = p.log_fields();
            self.log.push(LogRec { t: self.now, event, kind, flow: p.flow, link, seg, to: seg + 1, retx, t0: p.t0 });
        }
    }

    /// Put a packet of `bytes` on link `li` at the current time.
    #[inline(always)]
    fn enter(&mut self, li: usize, mut p: Pkt, bytes: u32) {
        debug_assert_eq!(self.paths[p.pos as usize] as usize, li, "a packet enters the link at its position");
        if FULL && self.links.at(li).red.is_some() {
            // The packet stays in registers: RED sees only its ECN capability.
            match self.red_verdict(li, p.flags() & ECT != 0) {
                Verdict::Enqueue => {}
                Verdict::Mark => p = p.with_flags(CE),
                Verdict::Drop => return self.lose(li, &p, true),
            }
        }
        let now = self.now;
        let l = self.links.at_mut(li);
        if FULL && l.layer.is_some() {
            return self.enter_layer(li, p, bytes);
        }
        let server = self.servers.at_mut(*self.path_servers.at(p.pos as usize) as usize);
        let Some((start, sent)) = l.pipe.admit(now, bytes, server) else {
            return self.lose(li, &p, true);
        };
        self.admitted(li, p, bytes, start, sent, None)
    }

    /// [`Engine::enter`] on a link with a link layer: the frame's attempts are played out
    /// now, from its service start (the server is FIFO, so the channel is asked in time
    /// order: `Network::validate`); its fate and service end follow from them.
    #[inline(never)]
    fn enter_layer(&mut self, li: usize, p: Pkt, bytes: u32) {
        let now = self.now;
        let owner = self.links[li].owner;
        let mut ch = std::mem::replace(&mut self.links[owner].loss, LossSource::None);
        let l = &mut self.links[li];
        let mut lr = l.layer.take().expect("a link layer");
        let mut delivered = true;
        let admitted = l.pipe.admit_layer(now, bytes, &mut self.servers[l.server], |start| {
            let s = lr.layer.serve(start, bytes, &mut ch, &mut lr.rng);
            delivered = s.delivered;
            s.end
        });
        l.layer = Some(lr);
        self.links[owner].loss = ch;
        match admitted {
            None => self.lose(li, &p, true),
            Some((start, sent)) => self.admitted(li, p, bytes, start, sent, Some(!delivered)),
        }
    }

    /// Packet `p` of `bytes` was admitted to link `li`'s pipe: service from `start` to
    /// `sent`; `lost` if its fate is already known (a link layer's), else decided here
    /// (packet mode) or at its service start (time mode).
    #[inline(always)]
    fn admitted(&mut self, li: usize, p: Pkt, bytes: u32, start: Nanos, sent: Nanos, lost: Option<bool>) {
        let now = self.now;
        let l = self.links.at_mut(li);
        self.seq += 1;
        let seq = self.seq;
        l.c.sent += 1;
        l.c.bytes_sent += bytes as u64;
        // Busy time within the measured interval (trimmed at the stop in finish()).
        if now >= self.warmup {
            // sent ≥ start ≥ now ≥ warmup: the whole service is measured.
            l.busy += sent - start;
            l.qdelay.record(start - now);
        } else {
            l.busy += sent.saturating_sub(start.max(self.warmup));
        }
        let arrive = sent + l.pipe.delay;
        let e = InFlight { start, arrive, seq, bytes, lost: false, pkt: p };
        // The link's next event changes only if this packet is its new head, or (time
        // mode) its first undecided entry.
        if l.time_mode {
            let first_undecided = l.pipe.decided() == l.pipe.len();
            l.pipe.push(e, false);
            if first_undecided {
                self.refresh(li);
            }
        } else {
            let was_empty = l.pipe.is_empty();
            let lost = match lost {
                Some(lost) => lost,
                None => !l.lossless && self.decide(li, start, sent, arrive),
            };
            self.links.at_mut(li).pipe.push(InFlight { lost, ..e }, true);
            if was_empty {
                self.tree.set(li, key(arrive, seq));
            }
        }
    }

    /// The queue discipline's seam: RED (`link/red.rs`) decides on a packet arriving at link
    /// `li` (`ect`: ECN-capable) from the queue it finds; an early drop is a queue drop, a
    /// mark sets CE (both counted here; the caller applies them).
    #[inline(always)]
    fn red_verdict(&mut self, li: usize, ect: bool) -> Verdict {
        let now = self.now;
        let l = self.links.at_mut(li);
        let q = l.pipe.backlog(now) as i64 as f64; // (a queue is far below 2^63)
        let q_time = l.pipe.last_start;
        let red = l.red.as_mut().expect("called for RED links");
        let v = red.arrival(now, q, q_time, ect);
        match v {
            Verdict::Enqueue => {}
            Verdict::Mark => l.c.ecn_marks += 1,
            Verdict::Drop => l.c.early_drops += 1,
        }
        v
    }

    /// `p` is lost on link `li`: dropped on entry by its full buffer (`by_queue`), or
    /// lost by its loss process. Counted for the link and the packet's flow (an ACK's
    /// loss, either way, as `acks_lost`), and logged.
    #[cold]
    #[inline(never)]
    fn lose(&mut self, li: usize, p: &Pkt, by_queue: bool) {
        let c = &mut self.links[li].c;
        let (counter, event) =
            if by_queue { (&mut c.queue_drops, LogEvent::Dropped) } else { (&mut c.channel_losses, LogEvent::Lost) };
        *counter += 1;
        self.log_pkt(event, li as u32, p);
        if FULL && self.sent_before_window(p) {
            return; // its flow counted it as sent before the measured window: its fate is not in it
        }
        let (queue_drops, channel_losses) = match &mut self.flows[p.flow as usize].state {
            FlowState::Tcp(t) if p.kind() == PktKind::Ack => return t.acks_lost += 1,
            FlowState::Tcp(t) => (&mut t.queue_drops, &mut t.channel_losses),
            FlowState::Cbr(c) => (&mut c.queue_drops, &mut c.channel_losses),
        };
        *(if by_queue { queue_drops } else { channel_losses }) += 1;
    }

    /// The next event of link `li` at the current time: a time-mode decision or an arrival.
    #[inline(always)]
    fn on_link(&mut self, li: usize) {
        let l = self.links.at_mut(li);
        if l.time_mode {
            let head = l.pipe.head().map_or(NONE, |(t, s)| key(t, s));
            if l.pipe.next_undecided().is_some_and(|(t, s)| key(t, s) <= head) {
                return self.decide_time_mode(li);
            }
            let e = l.pipe.pop();
            self.refresh(li);
            return self.arrive(li, e);
        }
        let e = l.pipe.pop();
        let k = l.pipe.head().map_or(NONE, |(t, s)| key(t, s));
        self.tree.set(li, k);
        self.arrive(li, e)
    }

    /// Time mode: decide the fate of link `li`'s first undecided entry at its service start.
    #[inline(never)]
    fn decide_time_mode(&mut self, li: usize) {
        let p = &self.links[li].pipe;
        let e = p.undecided();
        let (s, t, a) = (e.start, p.sent(e), e.arrive);
        let lost = self.decide(li, s, t, a);
        self.links[li].pipe.decide_next(lost);
        self.refresh(li);
    }

    /// Packet `e` reaches the far end of link `li`: the next link of its path, or its end host.
    #[inline(always)]
    fn arrive(&mut self, li: usize, e: InFlight<Pkt>) {
        let p = e.pkt;
        if e.lost {
            return self.lose(li, &p, false);
        }
        let pos = p.pos + 1;
        let next = *self.paths.at(pos as usize);
        if next != END {
            return self.enter(next as usize, Pkt { pos, ..p }, e.bytes);
        }
        self.log_pkt(LogEvent::Arrived, u32::MAX, &p);
        let f = p.flow as usize;
        match p.kind() {
            PktKind::Data => {
                let (flags, rseq) = if FULL { (p.flags(), p.rseq()) } else { (0, 0) };
                let tx = Tx { seg: p.num, len: p.aux(), retx: p.retx(), ts: p.t0, flags, rseq };
                self.on_data(f, tx, p.t0)
            }
            PktKind::Ack if FULL => self.on_ack(f, p.num, p.aux(), p.flags(), p.rseq()),
            PktKind::Ack => self.on_ack(f, p.num, p.aux(), 0, 0),
            PktKind::Udp => {
                let early = FULL && self.sent_before_window(&p);
                if let FlowState::Cbr(c) = &mut self.flows[f].state {
                    c.delivered += !early as u64;
                }
            }
        }
    }

    // ---- TCP end hosts -----------------------------------------------------------

    /// A row of flow `f`'s time series, if it records one.
    #[inline(always)]
    fn record(&mut self, f: usize) {
        if FULL && self.flows[f].tcp().series.is_some() {
            self.record_row(f);
        }
    }

    #[cold]
    #[inline(never)]
    fn record_row(&mut self, f: usize) {
        let now = self.now;
        let t = self.flows[f].tcp();
        if let Some(s) = &mut t.series {
            let c = &t.sender.tcb;
            s.time.push(now);
            s.cwnd.push(c.cwnd);
            s.ssthresh.push(c.ssthresh);
            s.srtt.push(c.srtt.unwrap_or(0));
            s.rto.push(c.rto);
            s.snd_una.push(t.sender.bytes_below(c.snd_una));
            s.snd_nxt.push(t.sender.bytes_below(c.snd_nxt));
            s.state.push(c.state.code());
        }
    }

    /// Hand flow `f`'s pending segments to the first link of its path.
    #[inline]
    fn flush_tx(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        let pos = fl.fwd0;
        let out = Outbound::of(fl.tcp());
        self.flush(f, pos, out);
    }

    /// [`Engine::flush_tx`] with what it needs of the flow, taken while the caller held it
    /// (one lookup of the flow per ACK, not three).
    #[inline(always)]
    fn flush(&mut self, f: usize, pos: u32, out: Outbound) {
        let Outbound { hdr, mss, ect, rto } = out;
        let first = *self.paths.at(pos as usize) as usize;
        let now = self.now;
        for k in 0..self.txbuf.len() {
            let tx = *self.txbuf.at(k);
            let mut p = Pkt::new(f as u32, pos, now, PktKind::Data, tx.seg, tx.len, tx.retx);
            if FULL {
                // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
                let flags = tx.flags | if tx.retx { 0 } else { ect };
                p = p.with_flags(flags).with_rseq(tx.rseq);
            }
            self.log_pkt(LogEvent::Sent, first as u32, &p);
            self.enter(first, p, hdr - (mss - tx.len));
        }
        self.txbuf.clear();
        if let Some(d) = rto {
            self.push_timer(d, Timer::Rto(f as u32));
        }
    }

    /// Flow `f`'s receiver sends the ACK it made last ([`Receiver::last_ack`]).
    fn send_ack(&mut self, f: usize) {
        let fl = self.flows.at_mut(f);
        let pos = fl.rev0;
        let t = fl.tcp();
        let bytes = t.ack_bytes;
        let p = Self::ack_packet(t, f, pos, self.now);
        self.send(p, bytes);
    }

    /// The packet of flow `f`'s last ACK, leaving at `now` on the path at `pos` (its SACK
    /// blocks, or with timestamps its echo, wait in the flow's queue).
    #[inline(always)]
    fn ack_packet(t: &mut TcpFlow, f: usize, pos: u32, now: Nanos) -> Pkt {
        let a = t.receiver.last_ack();
        let mut flags = if FULL && a.ece { ECE } else { 0 };
        let mut rseq = 0;
        let ack = a.ack;
        let sack = if a.nsack == 0 && !(FULL && t.timestamps) {
            // LT-TCP's option on an ACK without SACK blocks travels in the packet: its
            // erasure estimate in the SACK-queue field (flag PFEC), the echoed RFEC number in
            // the RFEC-number field (flag RFEC).
            if let Some(e) = a.lt_erasure.filter(|_| FULL) {
                flags |= PFEC;
                if let Some(r) = a.lt_rfec {
                    (flags, rseq) = (flags | RFEC, r);
                }
                e
            } else {
                NO_SACK
            }
        } else {
            let id = t.next_sack;
            t.next_sack = if id == NO_SACK - 1 { 0 } else { id + 1 };
            t.sacks.push_back((id as u64, *a));
            id
        };
        let mut p = Pkt::new(f as u32, pos, now, PktKind::Ack, ack, sack, false);
        if FULL {
            p = p.with_flags(flags).with_rseq(rseq);
        }
        p
    }

    /// Hand packet `p` of `bytes` to the first link of its path.
    #[inline(always)]
    fn send(&mut self, p: Pkt, bytes: u32) {
        let first = *self.paths.at(p.pos as usize) as usize;
        self.log_pkt(LogEvent::Sent, first as u32, &p);
        self.enter(first, p, bytes);
    }

    #[inline]
    fn sync_rto(&mut self, f: usize) {
        if let Some(d) = rto_due(self.flows[f].tcp()) {
            self.push_timer(d, Timer::Rto(f as u32));
        }
    }

    #[inline]
    fn sync_delack(&mut self, f: usize, d: Nanos) {
        let t = self.flows[f].tcp();
        if t.delack_sched.is_none_or_gt(d) {
            t.delack_sched = Some(d);
            self.push_timer(d, Timer::DelAck(f as u32));
        }
    }

    /// An ACK reaches flow `f`'s sender: its cumulative ACK, and its SACK blocks from the
    /// flow's queue (dropping those of earlier ACKs that were lost on the way). An ACK
    /// without a queue entry is written into the flow's `ack_in` field by field (not built
    /// and copied whole: the sender reads a few of its fields).
    #[inline(always)]
    fn on_ack(&mut self, f: usize, ack: u64, sack: u32, flags: u8, rseq: u16) {
        let now = self.now;
        if FULL && self.flows.at_mut(f).tcp().needs_share {
            self.set_share(f);
        }
        let fl = self.flows.at_mut(f);
        let pos = fl.fwd0;
        let t = fl.tcp();
        let ece = flags & ECE != 0;
        if !FULL && sack == NO_SACK {
            t.ack_in.ack = ack; // the other fields keep their defaults in a plain run
            t.sender.on_ack_in::<false>(&t.ack_in, now, &mut self.txbuf);
        } else if flags & PFEC != 0 || sack == NO_SACK {
            let a = &mut t.ack_in;
            a.ack = ack;
            a.ece = ece;
            (a.lt_erasure, a.lt_rfec) = if flags & PFEC != 0 {
                (Some(sack), (flags & RFEC != 0).then_some(rseq))
            } else {
                (None, None)
            };
            t.sender.on_ack(&t.ack_in, now, &mut self.txbuf);
        } else {
            while t.sacks.front().expect("an ACK's SACK blocks wait in its flow's queue").0 != sack as u64 {
                t.sacks.pop_front();
            }
            let (_, a) = t.sacks.front().expect("found above");
            t.sender.on_ack_in::<FULL>(a, now, &mut self.txbuf);
            t.sacks.pop_front();
        }
        let out = Outbound::of(t);
        self.record(f);
        self.flush(f, pos, out);
    }

    /// A data segment reaches flow `f`'s receiver.
    #[inline(always)]
    fn on_data(&mut self, f: usize, tx: Tx, t0: Nanos) {
        let (now, warmup) = (self.now, self.warmup);
        let fl = self.flows.at_mut(f);
        let rev = fl.rev0;
        let t = fl.tcp();
        t.arrived_bytes += tx.len as u64;
        let dups = t.receiver.duplicates;
        // A pending timeout for this segment was spurious if this copy, the first to
        // arrive, was sent before it fired. (An LT-TCP RFEC packet is no copy of a segment.)
        if !t.pending_rto.is_empty() && tx.flags & RFEC == 0 {
            let before = t.pending_rto.len();
            t.pending_rto.retain(|&(s, at)| s != tx.seg || at <= t0);
            t.spurious_timeouts += (before - t.pending_rto.len()) as u64;
            t.pending_rto.retain(|&(s, _)| s != tx.seg);
        }
        let before = t.receiver.rcv_nxt;
        if FULL {
            if t.timestamps {
                t.receiver.note_tsval(tx.seg, tx.ts); // RFC 7323 TS.Recent
            }
            if tx.flags & (CE | CWR) != 0 {
                t.receiver.note_ecn(tx.flags); // RFC 3168 §6.1.3
            }
        }
        let act = t.receiver.on_arrival(&tx, now, if FULL { t.sender.lt_blocks() } else { None });
        let after = t.receiver.rcv_nxt;
        // A copy of data the receiver already held: spurious if sent in the measured interval.
        if t.receiver.duplicates > dups && t0 >= warmup {
            t.spurious_retx += 1;
        }
        let done = after >= t.sender.total_segs();
        if LOG && after > before {
            self.log.push(LogRec {
                t: now,
                event: LogEvent::Delivered,
                kind: LogKind::Data,
                flow: f as u32,
                link: u32::MAX,
                seg: before,
                to: after,
                retx: tx.retx,
                t0,
            });
        }
        match act {
            RxAction::Ack => {
                let (p, bytes) = (Self::ack_packet(t, f, rev, now), t.ack_bytes);
                // tossim: an idle-ACK receiver keeps its timer running after an immediate ACK.
                let delack = t.receiver.delack_deadline;
                self.send(p, bytes);
                if let Some(d) = delack {
                    self.sync_delack(f, d);
                }
            }
            RxAction::Delay(d) => self.sync_delack(f, d),
        }
        if done {
            self.completed(f);
        }
    }

    /// Flow `f`'s receiver holds the whole transfer.
    #[cold]
    fn completed(&mut self, f: usize) {
        let now = self.now;
        let t = self.flows[f].tcp();
        if t.completion.is_none() {
            t.completion = Some(now);
            if self.flows[f].spec.on_off.is_none() {
                self.finite_open -= 1;
                self.shares_stale = true;
                if self.stop_on_completion && self.finite_open == 0 {
                    self.stopped_at = Some(now);
                    self.stop_before = 0; // the loop ends after this event
                }
            }
        }
    }

    fn on_rto(&mut self, f: usize, at: Nanos) {
        let (now, warmup) = (self.now, self.warmup);
        let t = self.flows[f].tcp();
        if t.rto_sched != Some(at) {
            return; // superseded by an earlier entry
        }
        t.rto_sched = None;
        match t.sender.rto_deadline {
            None => {}
            Some(d) if d > at => self.sync_rto(f),
            Some(_) => {
                let seg = t.sender.tcb.snd_una;
                // (A tail loss probe or RACK's reordering timer is no timeout.)
                if seg < t.sender.tcb.high_tx && now >= warmup && t.sender.timer_is_rto() {
                    if t.receiver.holds(seg) {
                        t.spurious_timeouts += 1;
                    } else {
                        t.pending_rto.push_back((seg, now));
                    }
                }
                if t.needs_share {
                    self.set_share(f);
                }
                let t = self.flows[f].tcp();
                t.sender.on_rto(now, &mut self.txbuf);
                self.record(f);
                self.flush_tx(f);
            }
        }
    }

    fn on_delack(&mut self, f: usize, at: Nanos) {
        let t = self.flows[f].tcp();
        if t.delack_sched != Some(at) {
            return;
        }
        t.delack_sched = None;
        match t.receiver.delack_deadline {
            None => {}
            Some(d) if d > at => self.sync_delack(f, d),
            Some(_) => {
                let now = self.now;
                if t.receiver.on_delack_timer(now) {
                    self.send_ack(f);
                }
                // tossim: an idle-ACK receiver re-arms its timer (ReceiverConfig::ack_on_idle).
                if let Some(d) = self.flows[f].tcp().receiver.delack_deadline {
                    self.sync_delack(f, d);
                }
            }
        }
    }

    // ---- flows ---------------------------------------------------------------------

    fn start_flow(&mut self, f: usize) {
        self.flows[f].started = true;
        if let Some(oo) = self.flows[f].spec.on_off.clone() {
            self.schedule_switch(f, &oo, true);
        }
        if let Some(stop) = self.flows[f].spec.stop {
            self.push_timer(stop, Timer::Stop(f as u32));
        }
        self.shares_stale = true;
        if self.flows[f].spec.is_tcp() {
            self.handshake(f);
            self.record(f);
            let now = self.now;
            self.flows[f].tcp().sender.start(now, &mut self.txbuf);
            self.flush_tx(f);
        } else {
            self.cbr_send(f);
        }
    }

    /// `TcpConfig::handshake`: the SYN / SYN-ACK round trip over the flow's paths (each
    /// link's delay and a SYN-sized packet's serialisation, no queueing) is the sender's
    /// first RTT sample.
    fn handshake(&mut self, f: usize) {
        let FlowKind::Tcp(t) = &self.flows[f].spec.kind else { return };
        if !t.handshake {
            return;
        }
        let syn = t.wire_ack_bytes();
        let spec = &self.flows[f].spec;
        let rtt: Nanos = spec
            .forward
            .iter()
            .chain(&spec.reverse)
            .map(|&l| {
                let link = &self.links[l];
                let ser = self.servers[link.server].timing.rate_bps().map_or(0, |r| tx_time(syn, r.max(1.0) as u64));
                link.pipe.delay + ser
            })
            .sum();
        self.flows[f].tcp().sender.handshake_sample(rtt);
    }

    /// The Ideal-estimate TCP's input (Martignon & Capone §V): the flow's fair share now,
    /// on the wire, into its sender's `Tcb::fair_share_bps` (0: unknown).
    #[cold]
    fn set_share(&mut self, f: usize) {
        let share = self.fair_share_bps(f);
        self.flows[f].tcp().sender.tcb.fair_share_bps = if share.is_finite() { share as u64 } else { 0 };
    }

    /// Schedule the end of the current ON (`on`) or OFF period.
    fn schedule_switch(&mut self, f: usize, oo: &OnOff, on: bool) {
        let rng = self.flows[f].onoff_rng.as_mut().expect("ON/OFF flows have a stream");
        let secs = if on { oo.on.sample(rng) } else { oo.off.sample(rng) };
        let d = crate::time::from_secs_f64(secs.clamp(0.0, 1e9)).max(1);
        let at = self.now.saturating_add(d);
        if at <= self.end {
            self.push_timer(at, Timer::Switch(f as u32));
        }
    }

    fn switch(&mut self, f: usize) {
        if self.flows[f].stopped {
            return;
        }
        let on = !self.flows[f].on;
        self.flows[f].on = on;
        let oo = self.flows[f].spec.on_off.clone().expect("switches belong to ON/OFF flows");
        self.schedule_switch(f, &oo, on);
        self.set_active(f, on);
    }

    fn stop(&mut self, f: usize) {
        if !self.flows[f].stopped {
            self.flows[f].stopped = true;
            let was_on = self.flows[f].on;
            self.flows[f].on = false;
            if was_on {
                self.set_active(f, false);
            }
        }
    }

    /// The application turns on or off.
    fn set_active(&mut self, f: usize, on: bool) {
        self.shares_stale = true;
        let now = self.now;
        match &mut self.flows[f].state {
            FlowState::Tcp(t) => {
                t.sender.set_app_backlogged(on, now, &mut self.txbuf);
                if on {
                    self.flush_tx(f);
                }
            }
            FlowState::Cbr(c) => {
                if on && !c.armed {
                    self.cbr_send(f);
                }
            }
        }
    }

    /// Send one CBR datagram now and schedule the next.
    fn cbr_send(&mut self, f: usize) {
        let pos = self.flows[f].fwd0;
        let first = self.paths[pos as usize] as usize;
        let FlowState::Cbr(c) = &mut self.flows[f].state else { unreachable!() };
        c.armed = false;
        let no = c.next_no;
        c.next_no += 1;
        c.sent += 1;
        let (bytes, interval) = (c.bytes, c.interval);
        let p = Pkt::new(f as u32, pos, self.now, PktKind::Udp, no, 0, false);
        self.log_pkt(LogEvent::Sent, first as u32, &p);
        self.enter(first, p, bytes);
        let next = self.now + interval;
        if next <= self.end {
            if let FlowState::Cbr(c) = &mut self.flows[f].state {
                c.armed = true;
            }
            self.push_timer(next, Timer::Cbr(f as u32));
        }
    }

    /// Flow `f`'s fair share of its forward path at this instant, bits/s (Martignon &
    /// Capone §V's ideal estimate, for the congestion controls that use it).
    fn fair_share_bps(&mut self, f: usize) -> f64 {
        if self.shares_stale {
            self.recompute_shares();
            self.shares_stale = false;
        }
        match &self.flows[f].state {
            FlowState::Tcp(t) => t.fair_share_bps,
            FlowState::Cbr(_) => f64::NAN,
        }
    }

    /// Each TCP flow's fair share of its forward path at this instant (Martignon & Capone
    /// §V's ideal estimate): over the links of the path, the link's capacity less the
    /// rates of the CBR flows active on it, divided by the TCP flows active on it; the
    /// smallest. The shares change when a flow starts, completes, or switches on or off;
    /// they are recomputed when next read (`shares_stale`), not at every change: with N
    /// flows starting, eager recomputation costs O(N²).
    fn recompute_shares(&mut self) {
        // Few flows change rarely: a direct computation is clearer than bookkeeping.
        let n = self.links.len();
        let mut tcp = vec![0u32; n];
        let mut cbr = vec![0f64; n];
        for fl in &self.flows {
            let active = fl.started && fl.on;
            match (&fl.spec.kind, &fl.state) {
                (FlowKind::Tcp(_), FlowState::Tcp(t)) if active && t.completion.is_none() => {
                    for &l in &fl.spec.forward {
                        tcp[l] += 1;
                    }
                }
                (FlowKind::Cbr { rate_bps, .. }, _) if active => {
                    for &l in &fl.spec.forward {
                        cbr[l] += *rate_bps as f64;
                    }
                }
                _ => {}
            }
        }
        let caps: Vec<Option<f64>> = self.links.iter().map(|l| self.servers[l.server].timing.rate_bps()).collect();
        for fl in &mut self.flows {
            if let FlowState::Tcp(t) = &mut fl.state {
                let share = fl
                    .spec
                    .forward
                    .iter()
                    .filter_map(|&l| caps[l].map(|c| (c - cbr[l]).max(0.0) / tcp[l].max(1) as f64))
                    .fold(f64::INFINITY, f64::min);
                t.fair_share_bps = share;
            }
        }
    }

    // ---- the loop ------------------------------------------------------------------

    fn on_timer(&mut self, t: Nanos, ev: Timer) {
        match ev {
            Timer::Warmup => self.snapshot(),
            Timer::Rto(f) => self.on_rto(f as usize, t),
            Timer::DelAck(f) => self.on_delack(f as usize, t),
            Timer::Start(f) => self.start_flow(f as usize),
            Timer::Cbr(f) => {
                let fl = &self.flows[f as usize];
                if fl.on && !fl.stopped {
                    self.cbr_send(f as usize);
                } else if let FlowState::Cbr(c) = &mut self.flows[f as usize].state {
                    c.armed = false;
                }
            }
            Timer::Switch(f) => self.switch(f as usize),
            Timer::Stop(f) => self.stop(f as usize),
        }
    }

    /// Whether packet `p`, whose fate is decided now, was sent before the measured window
    /// opened (the warm-up's end, once reached): its flow counted it as sent before the
    /// window, so its loss or delivery is not counted in it either (lost ≤ sent and
    /// delivered ≤ sent in every window; docs/simulator.md "Warm-up").
    #[inline]
    fn sent_before_window(&self, p: &Pkt) -> bool {
        self.window_open && p.t0 <= self.warmup
    }

    fn snapshot(&mut self) {
        self.window_open = true;
        for i in 0..self.flows.len() {
            if self.flows[i].spec.is_tcp() {
                let mut c = self.tcp_counters(i);
                // Data sent before the window (in flight, or held out of order at the
                // receiver) is not delivered in it: the window's delivery starts at the
                // highest segment sent so far, so delivered ≤ sent and goodput ≤ the
                // bottleneck (each segment delivered in it crossed the path in it).
                let t = self.flows[i].tcp();
                let first = t.receiver.rcv_nxt.max(t.sender.tcb.high_tx);
                c.delivered_bytes = t.sender.bytes_below(first);
                c.delivered_segments = t.sender.segments_below(first);
                self.flows[i].tcp().snapshot = c;
            } else if let FlowState::Cbr(c) = &mut self.flows[i].state {
                c.snap = (c.sent, c.delivered, c.channel_losses, c.queue_drops);
            }
        }
        for l in &mut self.links {
            l.snap = l.counters();
            if let Some(lr) = &mut l.layer {
                lr.layer.clear_stats();
            }
        }
    }

    fn tcp_counters(&mut self, f: usize) -> Counters {
        let t = self.flows[f].tcp();
        let s = &t.sender.counters;
        Counters {
            packets_sent: s.packets_sent,
            packets_lost: t.channel_losses + t.queue_drops,
            channel_losses: t.channel_losses,
            queue_drops: t.queue_drops,
            retransmissions: s.retransmissions,
            spurious_retransmissions: t.spurious_retx,
            fast_retransmits: s.fast_retransmits,
            timeouts: s.timeouts,
            acks_sent: t.receiver.acks_sent,
            acks_lost: t.acks_lost,
            arrived_bytes: t.arrived_bytes,
            delivered_bytes: t.sender.bytes_below(t.receiver.rcv_nxt),
            delivered_segments: t.sender.segments_below(t.receiver.rcv_nxt),
            ecn_reductions: s.ecn_reductions,
            lost_retransmissions: s.lost_retransmissions,
            loss_probes: s.loss_probes,
            pfec_sent: s.pfec_sent,
            rfec_sent: s.rfec_sent,
            fec_decodes: t.receiver.lt.as_ref().map_or(0, |l| l.decodes),
            fec_wasted: t.receiver.lt.as_ref().map_or(0, |l| l.fec_wasted),
        }
    }

    fn run(&mut self) {
        if self.warmup > 0 {
            self.push_timer(self.warmup, Timer::Warmup);
        }
        for f in 0..self.flows.len() {
            let s = self.flows[f].spec.start;
            if s == 0 {
                self.start_flow(f);
            } else {
                self.push_timer(s, Timer::Start(f as u32));
            }
        }
        // A watch is called at watch points in simulated time, spaced so that about
        // WATCH_EVERY events pass between two (`sim/watch.rs`): the loop stops at the next
        // one as it stops at the end, so the watch costs the loop nothing per event.
        let end = self.stop_before;
        let mut quantum: Nanos = 1_000_000; // 1 ms simulated, then adapted
        let mut seen = 0;
        if self.watch.is_some() {
            self.stop_before = end.min(quantum);
        }
        loop {
            loop {
                let (t, i) = self.tree.min();
                if t >= self.stop_before {
                    break;
                }
                self.now = t;
                self.events += 1;
                if i == self.timers {
                    let (t, _, ev) = self.heap.pop().expect("the timers' key is the heap's top");
                    self.tree.set(self.timers, self.heap.peek_key());
                    self.on_timer(t, ev);
                } else {
                    self.on_link(i);
                }
            }
            if self.watch.is_none() || self.stopped_at.is_some() || self.stop_before >= end || !self.poll_watch() {
                break;
            }
            quantum = next_quantum(quantum, self.events - seen);
            seen = self.events;
            self.stop_before = end.min(self.stop_before.saturating_add(quantum));
        }
        if self.stopped_at.is_none() {
            self.now = self.end;
        }
    }

    /// Ask the run's watch whether to go on (see `sim/watch.rs`); out of the loop's way.
    #[cold]
    #[inline(never)]
    fn poll_watch(&mut self) -> bool {
        let p = Progress { now: self.now, end: self.end, events: self.events };
        let go = self.watch.as_mut().is_none_or(|w| w(p));
        if !go {
            self.interrupted = Some(p);
        }
        go
    }

    fn finish(mut self) -> (NetworkResult, Vec<LogRec>) {
        let stop = self.stopped_at.unwrap_or(self.end);
        let warmup = self.warmup;
        let mut flows = Vec::with_capacity(self.flows.len());
        for f in 0..self.flows.len() {
            let begin = warmup.max(self.flows[f].spec.start);
            let name = self.flows[f].spec.name.clone();
            let tcp = self.flows[f].spec.is_tcp();
            let c = if tcp { Some(self.tcp_counters(f)) } else { None };
            let (kind, c, completion, series, spurious) = match &mut self.flows[f].state {
                FlowState::Tcp(t) => {
                    let c = c.expect("counted above");
                    (FlowKindTag::Tcp, c.minus(&t.snapshot), t.completion, t.series.take(), t.spurious_timeouts)
                }
                FlowState::Cbr(cb) => {
                    let (s0, d0, l0, q0) = cb.snap;
                    let delivered = cb.delivered - d0;
                    let bytes = delivered * cb.bytes as u64;
                    let c = Counters {
                        packets_sent: cb.sent - s0,
                        packets_lost: cb.channel_losses - l0 + cb.queue_drops - q0,
                        channel_losses: cb.channel_losses - l0,
                        queue_drops: cb.queue_drops - q0,
                        arrived_bytes: bytes,
                        delivered_bytes: bytes,
                        delivered_segments: delivered,
                        ..Counters::default()
                    };
                    (FlowKindTag::Cbr, c, None, None, 0)
                }
            };
            let flow_stop = completion.unwrap_or(stop).max(begin);
            let secs = to_secs_f64(flow_stop - begin);
            let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
            let start = self.flows[f].spec.start;
            flows.push(FlowResult {
                name,
                kind,
                result: SimResult {
                    goodput_bps: per_s(c.delivered_bytes as f64 * 8.0),
                    goodput_pps: per_s(c.delivered_segments as f64),
                    throughput_bps: per_s(c.arrived_bytes as f64 * 8.0),
                    duration: secs,
                    counters: c,
                    completion_time: completion.map(|t| to_secs_f64(t - start)),
                    end_time: flow_stop,
                    events: self.events,
                    series,
                },
                spurious_timeouts: spurious,
            });
        }
        let measured = stop.saturating_sub(warmup);
        let servers = &self.servers;
        let links = std::mem::take(&mut self.links)
            .into_iter()
            .map(|l| {
                // Service scheduled past the stop was counted when the packet entered: take
                // back the time beyond the stop, and the packets whose service had not ended.
                let over: Nanos =
                    l.pipe.iter().map(|e| l.pipe.sent(e).saturating_sub(e.start.max(stop).max(warmup))).sum();
                let busy = l.busy.saturating_sub(over);
                let mut c = l.counters().minus(&l.snap);
                for e in l.pipe.iter().filter(|e| l.pipe.sent(e) > stop) {
                    c.sent = c.sent.saturating_sub(1);
                    c.bytes_sent = c.bytes_sent.saturating_sub(e.bytes as u64);
                }
                LinkResult {
                    name: l.name,
                    counters: c,
                    utilisation: if measured > 0 { busy as f64 / measured as f64 } else { 0.0 },
                    capacity_bps: servers[l.server].timing.rate_bps(),
                    queue_delay: l.qdelay,
                    link_layer: l.layer.map(|lr| lr.layer.stats().clone()),
                }
            })
            .collect::<Vec<_>>();
        let goodputs: Vec<f64> =
            flows.iter().filter(|f| f.kind == FlowKindTag::Tcp).map(|f| f.result.goodput_bps).collect();
        let r = NetworkResult {
            aggregate_goodput_bps: flows.iter().map(|f| f.result.goodput_bps).sum(),
            jain_index: jain(&goodputs),
            flows,
            links,
            end_time: stop,
            events: self.events,
        };
        (r, self.log)
    }
}

trait NoneOrGt {
    fn is_none_or_gt(&self, d: Nanos) -> bool;
}
impl NoneOrGt for Option<Nanos> {
    #[inline]
    fn is_none_or_gt(&self, d: Nanos) -> bool {
        !matches!(self, Some(s) if *s <= d)
    }
}
