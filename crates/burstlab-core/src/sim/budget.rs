//! The work and memory of a run, estimated before it starts (docs/errors.md "Bounds").
//!
//! A run's work is its events: about one per packet per hop (a data packet entering each
//! link of its path, its ACK each link of the reverse path) plus the timers that fire (a
//! retransmission timeout at most every `rto_min`, an ON/OFF switch at each period's end).
//! Its memory grows with the packets in flight and queued (a window of a bandwidth-delay
//! product plus the buffers), and, when asked for, with what it records: a time-series row
//! per ACK, timeout or pacing release of each TCP flow (`series`) and a few per-packet log
//! records per packet (`log`), which grow with the run's length. [`estimate`] bounds all of
//! it from the network alone, without running it; [`check`] refuses a run over the work
//! budget (naming the estimate and the option that raises it) or over the memory the
//! process can have.
//!
//! The packet rates are an upper bound of what the links can carry: each flow starts at
//! its path's slowest link, and a few rounds of proportional sharing bring every link's
//! load down to its capacity (a bottleneck shared by N flows carries N shares, not N
//! bottlenecks). A transfer of a fixed size sends at most a multiple of its segments.
use super::network::{FlowKind, FlowSpec, Network};
use crate::link::{BufferUnit, LinkLayerConfig, Timing};
use crate::tcp::config::CcKind;
use crate::time::{to_secs_f64, Nanos, NS_PER_S};
use crate::{Error, Result};

/// The default work budget: 2·10^8 events, 4–15 s of CPU at the engine's speed (a run of the
/// default budget ends within 30 s also on a loaded machine; issue 34).
pub const DEFAULT_MAX_EVENTS: u64 = 200_000_000;

/// Packets a transfer of `n` segments may send, retransmissions included (a loss rate up
/// to ~98 % before the estimate is exceeded; the run still stops at its duration).
const RETRANSMISSION_ALLOWANCE: f64 = 64.0;

/// Bytes of memory per packet in flight or queued: the link ring's entry, the sender's
/// scoreboard entry and the receiver's out-of-order state, with slack for the rings'
/// doubling (measured: `--rate 1e13` for 1 s held 1.7·10^7 packets in 980 MB).
const BYTES_PER_PACKET: f64 = 64.0;

/// Bytes of one time-series row ([`crate::results::Series`]: seven 8-byte columns and the
/// state's byte).
const SERIES_ROW_BYTES: f64 = (7 * std::mem::size_of::<u64>() + 1) as f64;

/// Per-packet log records per packet sent, at most: a data segment is sent, then dropped or
/// lost at one link or arrives and is delivered (3); its ACK is sent, then dropped, lost or
/// arrives (2). (Measured: 4.84 per packet on one lossy link, 3.94 on a 4-hop chain.)
const LOG_RECORDS_PER_PACKET: f64 = 5.0;

/// What a run will cost, bounded from above.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Data packets and datagrams sent, all flows.
    pub packets: f64,
    /// Events: packet-hops (data and ACKs) and timers.
    pub events: f64,
    /// Packets in flight and in queues at once, all flows.
    pub in_flight: f64,
    /// Time-series rows (with `series`) and per-packet log records (with `log`) the run
    /// records: they grow with its length, not with its window (a scale audit's finding:
    /// `--duration 70000s --no-delayed-ack --series` was within the work budget and aborted
    /// allocating its 8·10^7 rows under a 4 GiB cap).
    pub series_rows: f64,
    pub log_records: f64,
}

impl Estimate {
    /// Memory the packets in flight need, in bytes.
    pub fn memory_bytes(&self) -> f64 {
        self.in_flight * BYTES_PER_PACKET
    }

    /// Memory the time series and the per-packet log need, in bytes.
    pub fn recorded_bytes(&self) -> f64 {
        self.series_rows * SERIES_ROW_BYTES + self.log_records * std::mem::size_of::<super::LogRec>() as f64
    }
}

/// The rate (packets per second) a server gives packets of `bits`, or None if unbounded
/// here (a link layer's rate is its attempts', found on its links).
fn server_pps(net: &Network, server: usize, bits: f64) -> Option<f64> {
    match &net.servers[server] {
        // A packet takes at least 1 ns on the simulator's clock.
        Timing::Rate { rate_bps } => Some((*rate_bps as f64 / bits).min(1e9)),
        Timing::Opportunities(o) => Some(o.mean_rate_bps() / bits),
        Timing::Slotted { slot } | Timing::SlotEnd { slot } => Some(NS_PER_S as f64 / (*slot).max(1) as f64),
        Timing::LinkLayer => net
            .links
            .iter()
            .filter(|l| l.server == server)
            .filter_map(|l| l.layer.as_ref())
            .map(|c| match c {
                LinkLayerConfig::Arq(a) => a.timing.rate_bps as f64,
                LinkLayerConfig::Harq(h) => h.timing.rate_bps as f64,
            })
            .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))))
            .map(|r| r / bits),
    }
}

/// Whether flow `f` sends into a slotted channel's FIFO that no buffer bounds, without a
/// radio to hold its packets (the slotted mode's `fifo` queue: `sim/scenario.rs`).
fn into_slotted_fifo(net: &Network, f: &FlowSpec) -> bool {
    !f.radio
        && f.forward.first().is_some_and(|&l| {
            let link = &net.links[l];
            matches!(net.servers[link.server], Timing::Slotted { .. }) && link.buffer == u64::MAX
        })
}

/// The segments a TCP flow sends at its start: its initial window, at most its transfer.
fn initial_window(t: &crate::tcp::config::TcpConfig, size: Option<u64>) -> f64 {
    let segs = size.map_or(u64::MAX, |s| s.div_ceil(t.mss.max(1)));
    t.init_cwnd.min(segs) as f64
}

/// Estimate a network's work and memory (see the module documentation).
pub fn estimate(net: &Network) -> Estimate {
    let end = net.duration;
    let nl = net.links.len();
    // Each flow's data packets per second, its active time, its packet cap.
    let mut rate = vec![0.0f64; net.flows.len()];
    let mut active = vec![0.0f64; net.flows.len()];
    let mut in_flight = 0.0;
    let mut timers = 0.0;
    for (i, f) in net.flows.iter().enumerate() {
        let stop = f.stop.unwrap_or(end).min(end);
        active[i] = to_secs_f64(stop.saturating_sub(f.start));
        let (bits, own) = match &f.kind {
            FlowKind::Tcp(t) => (((t.mss + t.header_bytes).max(1) * 8) as f64, f64::INFINITY),
            FlowKind::Cbr { rate_bps, packet_bytes } => {
                let b = (*packet_bytes).max(1) as f64 * 8.0;
                (b, *rate_bps as f64 / b)
            }
        };
        let path_pps = f.forward.iter().filter_map(|&l| server_pps(net, net.links[l].server, bits)).fold(own, f64::min);
        rate[i] = if path_pps.is_finite() { path_pps } else { 1e9 }; // no bound: one packet per ns
        let delay: Nanos = f.forward.iter().chain(&f.reverse).map(|&l| net.links[l].delay).fold(0, Nanos::saturating_add);
        let buffers: f64 = f
            .forward
            .iter()
            .map(|&l| {
                let sl = &net.links[l];
                match sl.buffer_unit {
                    BufferUnit::Packets => sl.buffer as f64,
                    BufferUnit::Bytes => sl.buffer as f64 * 8.0 / bits,
                }
            })
            .sum();
        let mut window = rate[i] * to_secs_f64(delay).max(1e-6) + buffers.min(rate[i] * active[i]) + 1.0;
        if let FlowKind::Tcp(t) = &f.kind {
            if let Some(w) = t.max_cwnd {
                window = window.min(w as f64 + 1.0);
            }
            // The initial window is handed to the path at once, whatever the rate (a link
            // layer's or a capacity trace's rate does not bound it).
            window = window.max(initial_window(t, f.size));
            if let Some(s) = f.size {
                let segs = s.div_ceil(t.mss.max(1)) as f64;
                window = window.min(segs);
            }
            // Retransmission timeouts: without backoff at most one every rto_min; with it
            // (RFC 6298 §5.5) the timer doubles up to rto_max until an ACK resets it, and the
            // ACKs are among the packets counted below.
            let every = if t.rto_backoff { t.rto_max.max(t.rto_min) } else { t.rto_min };
            let timeouts = active[i] / to_secs_f64(every.max(1)) + 64.0;
            timers += timeouts;
            // A path that takes longer to carry one packet than the timer takes to fire
            // queues a retransmission per timeout behind the one it is still carrying (a
            // fuzzer finding: 50 slots of 1.7·10^7 s each queued 1.4·10^7 copies of one
            // segment, 1 GB of ring, in a slotted run).
            if path_pps.is_finite() && 1.0 / path_pps > to_secs_f64(every.max(1)) {
                window += timeouts;
            }
            // A slotted FIFO of unbounded buffer (the slotted mode's `fifo` queue) keeps every
            // copy the sender releases until its slot comes: go-back-N after a timeout queues
            // new copies behind the stale ones, and once the queue is longer than the RTO
            // every timeout adds a window more (docs/study.md "The sender's queue": 5·10^6
            // packets queued in 4·10^6 slots). Bounded by what the sender can release: between
            // two timeouts its send loop moves snd_nxt forward by what snd_una moved (at most
            // one segment per slot) plus its largest window, which is at most `max_cwnd` and,
            // for the Reno family, the loss window (RFC 5681 §3.1: one segment) grown by at
            // most a segment per ACK and what the ACKs acknowledge; and each ACK may send one
            // retransmission at once (fast retransmit, partial ACK).
            if into_slotted_fifo(net, f) {
                let slots = path_pps * active[i];
                let acks = slots + if t.ack_on_idle && t.delayed_ack { active[i] / to_secs_f64(t.ack_timeout.max(1)) } else { 0.0 };
                let mut windows = t.max_cwnd.map_or(f64::INFINITY, |w| (w as f64 + 1.0) * (timeouts + 1.0));
                if matches!(t.cc, CcKind::Reno | CcKind::LinuxReno) {
                    windows = windows.min(timeouts + 1.0 + acks + slots);
                }
                let windows = windows.min(slots * (timeouts + 1.0)); // (a window beyond the trace is never sent)
                window = window.max(slots + windows + acks + initial_window(t, f.size));
            }
            // The idle ACK timer (`ack_on_idle`, the tossim profile) fires once per
            // ack_timeout of silence whatever the data does, and each firing sends an ACK
            // over the reverse path (a fuzzer finding: at 100 bit/s over 10^9 s these were
            // 5·10^9 events the estimate did not count).
            if t.ack_on_idle && t.delayed_ack {
                let fires = active[i] / to_secs_f64(t.ack_timeout.max(1));
                timers += fires * (1 + f.reverse.len()) as f64;
            }
        }
        if let Some(oo) = &f.on_off {
            let period = oo.on.typical() + oo.off.typical();
            timers += 2.0 * active[i] / period.max(1e-9);
        }
        in_flight += window;
    }
    // Proportional sharing: scale the flows crossing an overloaded link down to its capacity.
    let mut load = vec![0.0f64; nl];
    for _round in 0..4 {
        load.iter_mut().for_each(|x| *x = 0.0);
        for (i, f) in net.flows.iter().enumerate() {
            for &l in &f.forward {
                load[l] += rate[i];
            }
        }
        for (i, f) in net.flows.iter().enumerate() {
            let bits = match &f.kind {
                FlowKind::Tcp(t) => ((t.mss + t.header_bytes).max(1) * 8) as f64,
                FlowKind::Cbr { packet_bytes, .. } => (*packet_bytes).max(1) as f64 * 8.0,
            };
            for &l in &f.forward {
                if let Some(cap) = server_pps(net, net.links[l].server, bits) {
                    if load[l] > cap {
                        rate[i] *= cap / load[l];
                    }
                }
            }
        }
    }
    let mut packets = 0.0;
    let mut hops = 0.0;
    // A series row per ACK arrival (at most one per data packet) and per pacing release (at
    // most one per data packet), and per timer (all of them counted: a bound).
    let mut series_rows = if net.series { timers } else { 0.0 };
    for (i, f) in net.flows.iter().enumerate() {
        let mut n = rate[i] * active[i];
        if let FlowKind::Tcp(t) = &f.kind {
            n = n.max(initial_window(t, f.size));
            if let Some(s) = f.size {
                n = n.min(s.div_ceil(t.mss.max(1)) as f64 * RETRANSMISSION_ALLOWANCE);
            }
            if net.series {
                series_rows += n * if t.paced() { 2.0 } else { 1.0 };
            }
        }
        packets += n;
        // A CoDel or FQ-CoDel link adds a dequeue event per packet.
        let dequeues = f.forward.iter().chain(&f.reverse).filter(|&&l| net.links[l].queue.at_dequeue()).count();
        hops += n * (f.forward.len() + f.reverse.len() + dequeues) as f64;
        // A CBR source sends at its own rate whatever the path carries: each packet beyond
        // the path's share is an event at least, dropped at its first queue (issue 34, a
        // fuzzer finding: 1 Mbit/s into a 1 kbit/s hop for 10^9 s, 1.25·10^11 events).
        if let FlowKind::Cbr { rate_bps, packet_bytes } = &f.kind {
            let offered = *rate_bps as f64 / ((*packet_bytes).max(1) as f64 * 8.0) * active[i];
            hops += (offered - n).max(0.0);
        }
    }
    let log_records = if net.log { packets * LOG_RECORDS_PER_PACKET } else { 0.0 };
    Estimate { packets, events: hops + timers, in_flight, series_rows, log_records }
}

/// The memory this process may still use: the system's available memory and the
/// address-space limit (`ulimit -v`), whichever is less; None if neither is known.
fn memory_limit() -> Option<f64> {
    let avail = crate::mem::available_bytes().map(|b| b as f64);
    // An address-space cap counts what the process has mapped already (the interpreter,
    // its libraries, earlier runs' heap): only the rest is left for this run.
    let cap = std::fs::read_to_string("/proc/self/limits").ok().and_then(|t| {
        let line = t.lines().find(|l| l.starts_with("Max address space"))?;
        let cap = line.split_whitespace().nth(3).and_then(|v| v.parse::<f64>().ok())?;
        Some((cap - mapped_bytes().unwrap_or(0.0)).max(0.0))
    });
    match (avail, cap) {
        (Some(a), Some(c)) => Some(a.min(c)),
        (a, c) => a.or(c),
    }
}

/// The address space this process has mapped (`VmSize` in `/proc/self/status`), in bytes.
fn mapped_bytes() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmSize:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024.0)
}

/// Refuse a run whose estimated events exceed `max_events` (naming the estimate and the
/// option `option` that raises the budget) or whose packets in flight, or those and what it
/// records (series, log), need more memory than the process may have.
pub fn check(net: &Network, max_events: u64, option: &str) -> Result<Estimate> {
    check_within(net, max_events, option, memory_limit())
}

/// [`check`] against a memory limit of `limit` bytes (None: no memory check).
fn check_within(net: &Network, max_events: u64, option: &str, limit: Option<f64>) -> Result<Estimate> {
    let e = estimate(net);
    if e.events > max_events as f64 {
        return Err(Error::Other(format!(
            "the run would take about {:.2e} events ({:.2e} packets in {} s simulated, about {} of CPU), more than the budget of {:.2e}: \
             shorten the run or lower the rate, or raise the budget with {option}",
            e.events,
            e.packets,
            to_secs_f64(net.duration),
            human_seconds(e.events / EVENTS_PER_SECOND),
            max_events as f64,
        )));
    }
    if let Some(limit) = limit {
        // A third of it: a ring holds a power of two of entries (up to twice the packets)
        // and copies itself as it doubles (the old and new buffers at once: 1.5 times).
        // With half, a fuzzer input estimated at 0.91 GB of 1.9 GB left under a 4 GiB cap
        // aborted on a 1 GiB ring growth.
        if e.memory_bytes() > limit / 3.0 {
            return Err(Error::Memory(format!(
                "out of memory: the run would hold about {:.2e} packets in flight and in queues (rate × round-trip time + buffers + retransmissions queued behind a slower link), \
                 about {:.1} GB, more than the {:.1} GB this process may use: lower the rate, the delay or the buffers, or cap the window (max_cwnd)",
                e.in_flight,
                e.memory_bytes() / 1e9,
                limit / 3e9,
            ) + if slotted_fifo(net) { "; a slotted run's FIFO keeps every copy the sender releases: a shorter trace or the sender's radio (sender_queue = radio) bounds it" } else { "" }));
        }
        // The same third for what the run records: its vectors double as they grow, and
        // the results are copied out of them once.
        let recorded = e.recorded_bytes();
        if recorded > 0.0 && e.memory_bytes() + recorded > limit / 3.0 {
            let what = match (e.series_rows > 0.0, e.log_records > 0.0) {
                (true, true) => "time series and per-packet log",
                (true, false) => "time series",
                _ => "per-packet log",
            };
            return Err(Error::Memory(format!(
                "out of memory: the run's {what} would grow to about {:.2e} rows over its {} s, about {:.1} GB with the packets in flight, \
                 more than the {:.1} GB this process may use: shorten the run, or run it without the {what} \
                 (series, log; the CLI's --series, --plot, --log)",
                e.series_rows + e.log_records,
                to_secs_f64(net.duration),
                (e.memory_bytes() + recorded) / 1e9,
                limit / 3e9,
            )));
        }
    }
    Ok(e)
}

/// Whether a TCP flow of `net` sends into an unbounded slotted FIFO ([`into_slotted_fifo`]).
fn slotted_fifo(net: &Network) -> bool {
    net.flows.iter().any(|f| f.is_tcp() && into_slotted_fifo(net, f))
}

/// Events per CPU-second of the engine (a conservative figure for the message; measured
/// 2–5·10^7 in `benchmarks/network_speed.py`).
const EVENTS_PER_SECOND: f64 = 2e7;

fn human_seconds(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.0} min", s / 60.0)
    } else if s < 2.0 * 86400.0 {
        format!("{:.0} h", s / 3600.0)
    } else {
        format!("{:.0} days", s / 86400.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{LinkConfig, Scenario, TcpConfig, Workload};

    fn scenario(rate: u64, secs: u64) -> Network {
        let w = Workload { duration: Some(secs * NS_PER_S), size: None, warmup: 0 };
        Scenario::new(TcpConfig::default(), LinkConfig::new(rate, 10_000_000, 100), w).into_network()
    }

    #[test]
    fn estimate_bounds_the_events_of_a_run() {
        // 10 Mbit/s for 20 s: ~16 700 data packets of 1500 bytes, as many ACKs.
        let net = scenario(10_000_000, 20);
        let e = estimate(&net);
        let r = crate::sim::run_network(scenario(10_000_000, 20)).unwrap();
        let sent = r.flows[0].result.counters.packets_sent as f64;
        assert!(e.packets >= sent && e.packets < 1.5 * sent, "{} vs {}", e.packets, sent);
        assert!(e.events >= r.events as f64 && e.events < 3.0 * r.events as f64, "{} vs {}", e.events, r.events);
    }

    #[test]
    fn a_run_over_the_budget_is_refused_with_the_option() {
        let net = scenario(10_000_000_000_000, 1);
        let msg = check(&net, DEFAULT_MAX_EVENTS, "--max-events").unwrap_err().to_string();
        assert!(msg.contains("--max-events") && msg.contains("events"), "{msg}");
        assert!(check(&scenario(10_000_000, 1), DEFAULT_MAX_EVENTS, "--max-events").is_ok());
    }

    #[test]
    fn a_huge_initial_window_needs_its_memory() {
        // A link layer's rate bounds nothing here: 2^32 segments are handed to it at once.
        let mut t = TcpConfig::default();
        t.init_cwnd = 1 << 32;
        let w = Workload { duration: Some(NS_PER_S / 1000), size: None, warmup: 0 };
        let net = Scenario::new(t, LinkConfig::new(10_000_000, 10_000_000, 100), w).into_network();
        let e = estimate(&net);
        assert!(e.in_flight >= (1u64 << 32) as f64 && e.packets >= (1u64 << 32) as f64);
    }

    #[test]
    fn idle_ack_timers_count() {
        // a 100 bit/s link for 10^9 s: few packets, but an idle ACK every 200 ms
        let w = Workload { duration: Some(1_000_000_000 * NS_PER_S), size: None, warmup: 0 };
        let est = |idle: bool| {
            let t = TcpConfig { ack_on_idle: idle, ..TcpConfig::default() };
            estimate(&Scenario::new(t, LinkConfig::new(100, 10_000_000, 100), w).into_network()).events
        };
        let (plain, idle) = (est(false), est(true));
        assert!(idle > plain + 5e9, "{plain} {idle}");
    }

    #[test]
    fn timers_count_when_the_rto_is_tiny() {
        let mut t = TcpConfig::default();
        t.rto_min = 1;
        t.rto_max = 1;
        t.rto_initial = 1;
        let w = Workload { duration: Some(NS_PER_S), size: None, warmup: 0 };
        let net = Scenario::new(t, LinkConfig::new(10_000_000, 10_000_000, 100), w).into_network();
        assert!(estimate(&net).events >= 1e9);
    }

    #[test]
    fn recordings_are_bounded_by_the_estimate() {
        // What a run records grows with its length: the estimate bounds it, and not loosely
        // where the link is full (a loss-limited run sends less than its link carries).
        for (paced, delayed_ack, loss) in [(false, false, 0.0), (false, true, 0.0), (true, false, 0.0), (false, false, 0.05)] {
            let mut t = TcpConfig { delayed_ack, ..TcpConfig::default() };
            if paced {
                t.pacing = crate::tcp::config::Pacing::Internal;
            }
            let w = Workload { duration: Some(20 * NS_PER_S), size: None, warmup: 0 };
            let mut link = LinkConfig::new(10_000_000, 10_000_000, 100);
            if loss > 0.0 {
                link.loss = Some(Box::new(crate::loss::Bernoulli::new(loss).unwrap()));
            }
            let mut net = Scenario::new(t, link, w).into_network();
            (net.series, net.log) = (true, true);
            let e = estimate(&net);
            let (r, log) = crate::sim::run_network_logged(net).unwrap();
            let rows = r.flows[0].result.series.as_ref().unwrap().time.len() as f64;
            let recs = log.len() as f64;
            assert!(rows <= e.series_rows, "paced {paced}: {rows} rows, estimated {}", e.series_rows);
            assert!(recs <= e.log_records, "{recs} records, estimated {}", e.log_records);
            if loss == 0.0 {
                let ratio = if delayed_ack || paced { 4.0 } else { 2.0 };
                assert!(e.series_rows < ratio * rows && e.log_records < 2.0 * recs, "{rows} {recs} {e:?}");
            }
        }
    }

    #[test]
    fn a_long_recorded_run_is_refused_for_its_memory() {
        // 70 000 s of 10 Mbit/s is within the work budget; its 8·10^7 series rows are 4.8 GB
        // (under a 4 GiB cap this aborted in the allocator before the budget counted them).
        let net = |series: bool, log: bool| {
            let mut n = scenario(10_000_000, 70_000);
            (n.series, n.log) = (series, log);
            n
        };
        let limit = Some(3.5e9);
        assert!(check_within(&net(false, false), DEFAULT_MAX_EVENTS, "--max-events", limit).is_ok());
        let msg = check_within(&net(true, false), DEFAULT_MAX_EVENTS, "--max-events", limit).unwrap_err().to_string();
        assert!(msg.contains("out of memory") && msg.contains("time series") && msg.contains("--series"), "{msg}");
        let msg = check_within(&net(false, true), DEFAULT_MAX_EVENTS, "--max-events", limit).unwrap_err().to_string();
        assert!(msg.contains("per-packet log") && !msg.contains("time series"), "{msg}");
        // A machine with the memory runs it.
        assert!(check_within(&net(true, false), DEFAULT_MAX_EVENTS, "--max-events", Some(64e9)).is_ok());
        // Packets that alone would not fit are named as such, recordings or not.
        let w = Workload { duration: Some(70_000 * NS_PER_S), size: None, warmup: 0 };
        let mut queued = Scenario::new(TcpConfig::default(), LinkConfig::new(10_000_000, 10_000_000, 1 << 50), w).into_network();
        queued.series = true;
        let msg = check_within(&queued, DEFAULT_MAX_EVENTS, "--max-events", limit).unwrap_err().to_string();
        assert!(msg.contains("packets in flight and in queues") && !msg.contains("time series"), "{msg}");
    }

    #[test]
    fn retransmissions_queued_behind_a_slow_slot_count_as_memory() {
        // 50 lost slots of 1.7·10^7 s: a timeout every rto_max (60 s) queues a copy of the
        // segment behind the slot, 1.4·10^7 of them by the end (the run itself confirms it).
        use crate::sim::scenario::AckPath;
        use crate::trace::BitTrace;
        let slot = 17_000_000 * NS_PER_S;
        let sc = |slot| Scenario::slotted(TcpConfig::default(), BitTrace::filled(50, false), slot, AckPath::Lossless, 1);
        let slow = estimate(&sc(slot).into_network());
        assert!(slow.in_flight >= 1.4e7, "{slow:?}");
        // With 10 ms slots nothing piles up: the window and the buffer only.
        let fast = estimate(&sc(10 * crate::time::NS_PER_MS).into_network());
        assert!(fast.in_flight < 1e4, "{fast:?}");
        let r = crate::sim::run_network(sc(slot / 1000).into_network()).unwrap();
        let sent = r.flows[0].result.counters.packets_sent as f64;
        assert!(sent <= estimate(&sc(slot / 1000).into_network()).in_flight + 64.0, "{sent}");
    }

    /// The slotted mode's FIFO keeps every copy the sender releases: a long run of the PRR/μ
    /// study's TCP on a stationary 25 % loss channel queues more than a window (it falls into
    /// the collapse of docs/study.md "The sender's queue"), and the estimate bounds what it
    /// sends, so what it queues; the radio holds one packet, and its estimate stays a window.
    #[test]
    fn a_slotted_fifo_holds_what_its_sender_releases() {
        use crate::loss::{Bernoulli, LossModel};
        use crate::sim::scenario::{AckPath, SenderQueue};
        use crate::trace::BitTrace;
        let mut trace = BitTrace::new();
        Bernoulli::new(0.25).unwrap().sample_into(300_000, &mut crate::rng::stream(7, 9), &mut trace);
        let tcp = TcpConfig::profile("tossim").unwrap();
        let sc = |q| Scenario::slotted(tcp.clone(), trace.clone(), 10 * crate::time::NS_PER_MS, AckPath::Lossless, 7).with_sender_queue(q);
        let fifo = estimate(&sc(SenderQueue::Fifo).into_network());
        let r = crate::sim::run(sc(SenderQueue::Fifo)).unwrap();
        let sent = r.counters.packets_sent as f64;
        assert!(sent > 300_000.0 * 0.5, "the run queues far more than a window: {sent}");
        assert!(fifo.in_flight >= sent, "{fifo:?} {sent}");
        assert!(fifo.in_flight < 10.0 * 300_000.0, "{fifo:?}");
        let radio = estimate(&sc(SenderQueue::Radio).into_network());
        assert!(radio.in_flight <= 131.0 + 1.0, "{radio:?}");
    }
}
