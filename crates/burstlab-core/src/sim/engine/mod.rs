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
//! packet in a pipe is 64 bytes (SACK blocks wait in their flow's queue; on a network of many
//! links the entries sit in one pool the pipes share, their rings holding 4-byte indices:
//! [`pooled`]), statistics are
//! counted once per packet per link, and the per-packet log is a compile-time parameter.
//! So is the set of checks for the features most runs do not use (RED, link layers,
//! LT-TCP, timestamps, ECN, the Ideal-estimate TCP, RACK's lost retransmissions, time
//! series: [`needs_full`]): a run without them runs an engine compiled without them, with
//! the same results (tested on random networks). (Speed against htsim:
//! `docs/validation.md`, "Speed against htsim".)
//!
//! A link's queue discipline is DropTail, or RED with ECN marking (`link/red.rs`), which
//! `Engine::enter` consults before the buffer check (`red_verdict`), or CoDel or FQ-CoDel
//! (`link/codel.rs`, `link/fq_codel.rs`), whose packets wait in the discipline's queue until
//! a dequeue timer hands them to the link (`aqm.rs`: those links alone have an event per
//! packet); packets carry their ECN and TCP header bits, and LT-TCP's FEC marks, in the
//! spare bits of their meta word.
//!
//! The single-link [`Scenario`] runs as a network of two links and one flow and gives the
//! results it gave before networks existed (`tests/system/regression.rs`).
//!
//! Layout: this file holds the engine's state, its construction and the event loop; the
//! rest adds methods to the same [`Engine`] (one struct, so the packet path stays flat:
//! no call through a pointer, no new indirection per packet):
//! - `packet.rs`: the packet ([`Pkt`]) and the per-packet log ([`LogRec`]);
//! - `links.rs`: a packet entering a link, its fate, its arrival;
//! - `aqm.rs`: CoDel and FQ-CoDel links (their dequeue events);
//! - `hosts.rs`: the TCP end hosts (the glue to `tcp::sender` and `tcp::receiver`);
//! - `apps.rs`: the applications (start, stop, ON/OFF, CBR) and the fair shares;
//! - `collect.rs`: time series, warm-up snapshots and the results;
//! - `ahead.rs`: prefetching what the next event will touch, in networks whose state
//!   outgrows the caches (the loop is compiled twice, with and without it).
//!
//! The names imported below are the engine's shared vocabulary: each part takes them
//! with `use super::*`.
mod ahead;
mod apps;
mod aqm;
mod collect;
mod hosts;
mod links;
mod packet;

use super::event::{EventQueue, Timer};
use super::mintree::{key, Key, MinTree, NONE};
use super::network::{FlowKind, FlowSpec, LinkLoss, Network, OnOff};
use super::scenario::{Scenario, TcpConfig};
use super::watch::{next_quantum, Progress, Watch};
use crate::link::{
    AqmQueue, InFlight, LinkLayer, LossMode, LossSource, LossWindow, Mixed, Pipe, QueueDisc, Queued, Red, Ring, Server,
    Slots, Timing, Verdict,
};
use crate::results::{
    jain, Counters, FlowKindTag, FlowResult, LinkCounters, LinkResult, LogHistogram, NetworkResult, Series, SimResult,
};
use crate::rng::{component_id, stream, Rng};
use crate::tcp::cc::CongestionControl;
use crate::tcp::config::{CcKind, DupackRule, RecoveryKind};
use crate::tcp::pkt_flags::{CE, CWR, ECE, ECT, PFEC, RFEC};
use crate::tcp::receiver::{Receiver, RxAction};
use crate::tcp::sender::{AckPath, Sender, NO_TIMER};
use crate::tcp::wire::{AckPkt, Tx};
use crate::time::{to_secs_f64, tx_time, Nanos};
use crate::Result;
use std::collections::VecDeque;
use ahead::*;
use apps::*;
use aqm::*;
use hosts::*;
use links::*;
pub use packet::*;


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

/// The engine; `LOG`: whether it records the per-packet log (a constant, so that a run
/// without the log pays nothing for it). `FULL`: whether any flow or link uses a feature
/// of [`needs_full`] (false: their per-packet checks are compiled out of the run). `PACE`:
/// whether a flow is paced or samples its delivery rate ([`needs_pace`]; implied by `FULL`):
/// the plain engine with the pacing timers and the sender's hooks compiled in.
///
/// `S`: where the links' pipes keep their packets ([`Store`]).
struct Engine<const LOG: bool, const FULL: bool, const PACE: bool, S: Store> {
    now: Nanos,
    seq: u64,
    events: u64,
    heap: EventQueue,
    /// The links' next events (sources `0..links`), the timer heap's top (source
    /// `timers`, in the tree: it changes seldom) and, in an engine with pacing (`FULL` or
    /// `PACE`), each flow's pacing wake-up (source `timers + 1 + flow`: [`Engine::set_pace`]).
    tree: MinTree,
    timers: usize,
    /// Each flow's pending pacing wake-up, the key its tree source holds ([`NONE`]: none);
    /// empty in an engine without pacing.
    pace_keys: Vec<Key>,
    servers: Vec<Server>,
    links: Vec<LinkRt<S>>,
    /// What the links' pipes share: the pool of packet entries ([`Mixed`]), or nothing
    /// (each pipe holds its entries inline).
    pool: S::Pool,
    /// Each link's head packet, noted for prefetching (`ahead.rs`) if `prefetching`.
    heads: Vec<Head>,
    /// The network's state is large enough to be worth prefetching ([`worth_prefetching`]).
    prefetching: bool,
    flows: Vec<FlowRt>,
    /// Where a TCP flow's parts sit in its [`FlowRt`] (`ahead.rs`).
    layout: FlowLayout,
    /// The first link of each flow's forward path (`ahead.rs`: prefetched with an ACK's
    /// sender, which sends into it), `u32::MAX` if none.
    first_hops: Vec<u32>,
    /// Every flow's forward path, then its reverse path, as link indices, each path
    /// followed by [`END`]: a packet's `pos` moves along it.
    paths: Vec<u32>,
    /// The server of the link at each position of `paths` (so that a packet's entry reads
    /// its server by its position, beside the link, not through the link).
    path_servers: Vec<u32>,
    txbuf: Vec<Tx>,
    /// An arriving ACK without a queue entry, as its sender reads it (`Engine::on_ack`
    /// writes the fields it carries; the others keep their defaults): one for the engine,
    /// not one per flow (it was a cache line of each flow's state per ACK).
    ack_in: AckPkt,
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
    let pool = pooled(&net);
    run_engines(net, watch, pool)
}

/// [`run_network`] with the packets kept in a shared pool (`pool`, on the plain engine: see
/// [`pooled`]) or inline, whatever the network's size (for tests: both must give the same
/// runs).
#[doc(hidden)]
pub fn run_network_stored(net: Network, pool: bool) -> Result<NetworkResult> {
    net.validate()?;
    run_engines(net, None, pool).map(|(r, _)| r)
}

/// The engine compiled for the features the network uses (see [`needs_full`]).
fn run_engines(net: Network, watch: Option<Watch>, pool: bool) -> Result<(NetworkResult, Vec<LogRec>)> {
    let full = needs_full(&net);
    let pace = !full && needs_pace(&net);
    match (net.log, full, pace) {
        (true, true, _) => run_engine::<true, true, false>(net, watch, pool),
        (true, false, true) => run_engine::<true, false, true>(net, watch, pool),
        (true, false, false) => run_engine::<true, false, false>(net, watch, pool),
        (false, true, _) => run_engine::<false, true, false>(net, watch, pool),
        (false, false, true) => run_engine::<false, false, true>(net, watch, pool),
        (false, false, false) => run_engine::<false, false, false>(net, watch, pool),
    }
}

/// A single-link scenario with a [`Watch`] (see [`run_network_watched`]).
pub fn run_watched(sc: Scenario, watch: Option<Watch>) -> Result<SimResult> {
    sc.validate()?;
    let (mut r, _) = run_network_watched(sc.into_network(), watch)?;
    Ok(r.flows.swap_remove(0).result)
}

/// [`run_network_logged`] with every feature's checks compiled in, whatever the network
/// uses (for tests: the plain engine must give the same runs).
#[doc(hidden)]
pub fn run_network_full(net: Network) -> (NetworkResult, Vec<LogRec>) {
    net.validate().expect("a valid network");
    if net.log {
        run_engine::<true, true, false>(net, None, false).expect("no watch to stop it")
    } else {
        let pool = pooled(&net);
        run_engine::<false, true, false>(net, None, pool).expect("no watch to stop it")
    }
}

fn run_engine<const LOG: bool, const FULL: bool, const PACE: bool>(
    net: Network,
    watch: Option<Watch>,
    pool: bool,
) -> Result<(NetworkResult, Vec<LogRec>)> {
    // Only the plain engine has a pooled instantiation (see `pooled`).
    if !LOG && !FULL && !PACE && pool {
        run_store::<LOG, FULL, PACE, Mixed<InFlight<Pkt>>>(net, watch)
    } else {
        run_store::<LOG, FULL, PACE, Ring<InFlight<Pkt>>>(net, watch)
    }
}

fn run_store<const LOG: bool, const FULL: bool, const PACE: bool, S: Store>(
    net: Network,
    watch: Option<Watch>,
) -> Result<(NetworkResult, Vec<LogRec>)> {
    let mut e = Engine::<LOG, FULL, PACE, S>::new(net);
    e.watch = watch;
    e.run();
    match e.interrupted {
        Some(p) => Err(super::watch::interrupted(p)),
        None => Ok(e.finish()),
    }
}

/// Where the engine's pipes keep their packets (`link/slots.rs`): inline, each pipe in its
/// own ring, or in one pool the pipes share, their rings holding indices into it.
trait Store: Slots<InFlight<Pkt>> {}

impl<S: Slots<InFlight<Pkt>>> Store for S {}

/// Networks with more links than this keep their packets in a shared pool.
pub const POOL_LINKS: usize = 64;

/// In a pooled network, a link that at least this many flows cross (forward or back) keeps
/// its packets in its own ring ([`Mixed`]): it holds many packets at once, each for long, and
/// a ring's entries are read and written in sequence where the pool's are scattered. There
/// are few such links (each needs this many flows' paths), so their rings' sizes, each the
/// most its link ever held, stay a small part of the memory.
pub const BUSY_FLOWS: usize = 32;

/// Which links of `net` are busy ([`BUSY_FLOWS`]).
pub fn busy_links(net: &Network) -> Vec<bool> {
    let mut crossing = vec![0usize; net.links.len()];
    for f in &net.flows {
        for &l in f.forward.iter().chain(&f.reverse) {
            crossing[l] += 1;
        }
    }
    crossing.into_iter().map(|n| n >= BUSY_FLOWS).collect()
}

/// Whether the engine keeps a network's packets in one pool shared by its links rather than
/// in each link's own ring: when it has more than [`POOL_LINKS`] links and runs on the plain
/// engine (no per-packet log, none of [`needs_full`]'s or [`needs_pace`]'s features). A ring
/// keeps the size of the most it ever held, so inline entries cost the sum over the links of
/// each one's largest occupancy, which with many links (many flows, each over its own
/// access links) is far more than the packets in flight at once, what a pool holds; with a
/// few links the sum is small and the pool's indirection would cost each hop a few
/// instructions for nothing. The results are the same either way (storage only). The
/// other engines keep their packets inline: each pooled instantiation of the engine is
/// more code, and with one for every engine the compiler stopped inlining the sender's
/// scoreboard into its ACK path (+47 instructions per data packet on the single flow,
/// which never uses the pool).
pub fn pooled(net: &Network) -> bool {
    net.links.len() > POOL_LINKS && !net.log && !needs_full(net) && !needs_pace(net)
}

/// Whether a network uses a feature whose per-packet checks the engine compiles out of a
/// run without it: a RED, CoDel or FQ-CoDel queue or a link layer on a link; LT-TCP, RFC
/// 7323 timestamps, ECN, the Ideal-estimate TCP or RACK in a flow; the flows' time series; a
/// warm-up. (The others, among them SACK, delayed ACKs, time-mode loss and every congestion
/// control, cost a plain run nothing or are checked as before; pacing and delivery-rate
/// samples need only [`needs_pace`].)
pub fn needs_full(net: &Network) -> bool {
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

/// Whether a flow is paced or its congestion control reads delivery-rate samples (BBR): the
/// sender's hooks at each transmission and ACK and the engine's pacing timers, which a run
/// of the plain engine without such a flow compiles out (issue 30: a paced flow on the
/// plain engine's path, not the full one).
pub fn needs_pace(net: &Network) -> bool {
    net.flows.iter().any(|f| match &f.kind {
        // (a radio sender, the slotted mode's `radio` queue, is held and woken as a paced one)
        FlowKind::Tcp(t) => f.radio || t.paced() || crate::tcp::cc::Cc::from_config(t).wants_rate_samples(),
        FlowKind::Cbr { .. } => false,
    })
}

impl<const LOG: bool, const FULL: bool, const PACE: bool, S: Store> Engine<LOG, FULL, PACE, S> {
    fn new(net: Network) -> Self {
        let seed = net.seed;
        let mut links: Vec<LinkRt<S>> = Vec::with_capacity(net.links.len());
        let owners: Vec<usize> =
            net.links.iter().enumerate().map(|(i, l)| if let LinkLoss::Shared(j) = l.loss { j } else { i }).collect();
        let busy = busy_links(&net);
        for (i, l) in net.links.into_iter().enumerate() {
            let pipe = Pipe::new(l.delay, l.buffer, l.buffer_unit);
            let pipe = if busy[i] { pipe.busy() } else { pipe };
            let qdisc = match &l.queue {
                QueueDisc::DropTail => None,
                q @ (QueueDisc::Codel(_) | QueueDisc::FqCodel(..)) => {
                    // FQ-CoDel's hash perturbation, from the link's own stream.
                    let perturb = rand::RngCore::next_u64(&mut stream(seed, component_id(&format!("link.{}.fq", l.name))));
                    let q = AqmQueue::new(q, perturb).expect("a queue that decides at dequeue");
                    Some(Box::new(Qdisc::Aqm(AqmRt { q, pending: false, drops: Vec::new() })))
                }
                QueueDisc::Red(p) => {
                    // F&J's s: a packet of mean_packet_bytes on this link's server.
                    let bits = p.mean_packet_bytes as f64 * 8.0;
                    let s = match &net.servers[l.server] {
                        Timing::Slotted { slot } => *slot as f64,
                        t => t.rate_bps().map_or(0.0, |r| bits / r * 1e9),
                    };
                    let rng = stream(seed, component_id(&format!("link.{}.red", l.name)));
                    Some(Box::new(Qdisc::Red(Red::new(p.clone(), s, rng))))
                }
            };
            let loss = match l.loss {
                LinkLoss::None => LossSource::None,
                LinkLoss::Own(m, _) if m.as_keyed().is_some() => {
                    let mut r = m.as_keyed().expect("keyed").clone();
                    crate::loss::LossModel::reset(&mut r);
                    // its fallback model draws on the link's loss stream
                    r.set_rng(stream(seed, component_id(&format!("link.{}.loss", l.name))));
                    LossSource::Keyed(Box::new(r))
                }
                LinkLoss::Own(mut m, mode) => {
                    m.reset();
                    let rng = stream(seed, component_id(&format!("link.{}.loss", l.name)));
                    LossSource::own(m, rng, mode)
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
                snap: None,
                busy: 0,
                qdelay: LogHistogram::default(),
                qdisc,
            });
        }
        for i in 0..links.len() {
            let o = links[i].owner;
            // A link layer decides each frame on entry, whatever the mode.
            // So does a CoDel or FQ-CoDel link, at each packet's dequeue (its service start).
            let at_entry = links[i].layer.is_some() || matches!(links[i].qdisc.as_deref(), Some(Qdisc::Aqm(_)));
            links[i].time_mode = links[o].loss.mode() == Some(LossMode::Time) && !at_entry;
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
                        let mut sender = make_sender(t, f.size);
                        if f.radio {
                            sender.use_radio();
                        }
                        FlowState::Tcp(TcpFlow {
                            // The full engine calls the full ACK path (`Engine::on_ack`).
                            ack_path: (PACE || !sender.default_rules()).then(|| sender.plain_ack_path::<PACE>()),
                            receiver: Receiver::from_tcp(t),
                            rto_sched: NO_TIMER,
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
                            pending_rto: VecDeque::new(), // allocated at the first timeout
                            sacks: VecDeque::new(),
                            next_sack: 0,
                            spurious_timeouts: 0,
                            snapshot: None,
                            series: net.series.then(Box::default),
                            fair_share_bps: f64::INFINITY,
                            fwd0: 0, // set with the paths, below
                            rev0: 0,
                            total_segs: sender.total_segs(),
                            sender,
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
            if let FlowState::Tcp(t) = &mut f.state {
                (t.fwd0, t.rev0) = (f.fwd0, f.rev0);
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
        // A plain engine reads no warm-up (`needs_full`: a warm-up needs the full one).
        assert!(FULL || net.warmup == 0, "a run with a warm-up needs the full engine");
        Engine {
            now: 0,
            seq: 0,
            events: 0,
            heap: EventQueue::new(),
            timers: nlinks,
            // (a pacing slot per flow only where a flow may be paced)
            tree: MinTree::with_hot(nlinks + 1 + if FULL || PACE { flows.len() } else { 0 }, &hot),
            pace_keys: if FULL || PACE { vec![NONE; flows.len()] } else { Vec::new() },
            servers: net.servers.into_iter().map(Server::new).collect(),
            heads: vec![Head::default(); links.len()],
            prefetching: worth_prefetching::<S>(flows.len(), links.len()),
            links,
            pool: S::Pool::default(),
            layout: FlowLayout::of(&flows),
            first_hops: flows.iter().map(|f| f.spec.forward.first().map_or(u32::MAX, |&l| l as u32)).collect(),
            flows,
            path_servers,
            paths,
            txbuf: Vec::with_capacity(256),
            ack_in: AckPkt::default(),
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
        self.push_keyed(t, seq, ev);
    }

    /// A timer at `t` with insertion sequence `seq` into the heap, and the heap's earliest
    /// into its tree source.
    #[inline]
    fn push_keyed(&mut self, t: Nanos, seq: u64, ev: Timer) {
        self.heap.push(t, seq, ev);
        self.tree.set(self.timers, self.heap.peek_key());
    }

    /// Flow `f`'s pacing wake-up at `t`: its tree source's key, with the next insertion
    /// sequence (as a heap entry pushed now would have). A flow has one slot: a wake-up
    /// still pending there (its sender has moved its wake-up earlier) goes to the heap with
    /// its own key, where it fires as a superseded timer does (`Sender::on_pace_timer`
    /// ignores it), so every wake-up fires in the order, and counts as the event, that a
    /// heap entry per wake-up gave. (The sender moves a wake-up earlier rarely: a slot
    /// saves the heap's push and pop for all the others.)
    #[inline]
    fn set_pace(&mut self, f: usize, t: Nanos) {
        let k = key(t, self.next_seq());
        let old = std::mem::replace(self.pace_keys.at_mut(f), k);
        if old != NONE {
            self.push_keyed(super::mintree::key_time(old), old as u64, Timer::Pace(f as u32));
        }
        self.tree.set(self.timers + 1 + f, k);
    }

    /// The pacing slot of source `i` (beyond the heap's) is the next event: empty it and
    /// fire its wake-up (`AHEAD`: prefetching the event after it first, as a heap timer does).
    #[inline]
    fn fire_pace<const AHEAD: bool>(&mut self, i: usize) {
        let f = i - self.timers - 1;
        let k = std::mem::replace(self.pace_keys.at_mut(f), NONE);
        self.tree.set(i, NONE);
        if AHEAD {
            self.ahead();
        }
        self.on_pace(f, super::mintree::key_time(k));
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
            Timer::Dequeue(l) => self.aqm_dequeue(l as usize),
            Timer::Pace(f) => self.on_pace(f as usize, t),
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
            // (Two copies of the loop: one prefetches, the other has no trace of it.)
            if self.prefetching {
                self.run_until_stop::<true>();
            } else {
                self.run_until_stop::<false>();
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

    /// Run the events before `stop_before`; `AHEAD`: prefetch what the next one will touch
    /// (`ahead.rs`).
    #[inline(always)]
    fn run_until_stop<const AHEAD: bool>(&mut self) {
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
                if AHEAD {
                    self.ahead();
                }
                self.on_timer(t, ev);
            } else if (FULL || PACE) && i > self.timers {
                self.fire_pace::<AHEAD>(i);
            } else {
                self.on_link::<AHEAD>(i);
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::Timing;
    use crate::time::{NS_PER_MS, NS_PER_S};

    /// One BBR flow (paced) over a link each way, on the paced plain engine.
    fn paced_engine() -> Engine<false, false, true, Ring<InFlight<Pkt>>> {
        let mut net = Network::new(NS_PER_S);
        let s = net.server(Timing::Rate { rate_bps: 10_000_000 });
        let f = net.link(crate::sim::LinkSpec::new("f", s, 10 * NS_PER_MS, 100));
        let s = net.server(Timing::Rate { rate_bps: 10_000_000 });
        let r = net.link(crate::sim::LinkSpec::new("r", s, 10 * NS_PER_MS, 100));
        net.flow(FlowSpec::tcp("bbr", TcpConfig::variant(crate::sim::Variant::Bbr), vec![f], vec![r]));
        net.validate().expect("a valid network");
        assert!(needs_pace(&net) && !needs_full(&net));
        Engine::new(net)
    }

    /// A flow's pacing wake-up is its tree slot, keyed (time, sequence) as a heap entry
    /// pushed then would be; a pending one moved earlier goes to the heap with its own key,
    /// so both fire, in the order (and as the events) the heap gave them.
    #[test]
    fn a_superseded_pacing_wake_up_keeps_its_heap_key() {
        let mut e = paced_engine();
        let slot = e.timers + 1;
        e.set_pace(0, 5_000);
        let first = e.seq;
        assert!(e.heap.peek().is_none(), "a wake-up alone takes no heap entry");
        assert_eq!(e.tree.min(), (5_000, slot));
        // An RTO at the same instant, scheduled after it, runs after it (sequence order).
        e.push_timer(5_000, Timer::Rto(0));
        assert_eq!(e.tree.min(), (5_000, slot));
        e.set_pace(0, 3_000);
        assert_eq!(e.tree.min(), (3_000, slot), "the new wake-up is the flow's slot");
        let mut heap: Vec<_> = std::iter::from_fn(|| e.heap.pop()).collect();
        heap.sort();
        assert_eq!(heap, vec![(5_000, first, Timer::Pace(0)), (5_000, first + 1, Timer::Rto(0))]);
        assert_eq!(e.pace_keys[0], key(3_000, first + 2));
    }
}
