//! Criterion benchmarks live in `benches/`; see `benchmarks/README.md`.
//!
//! [`htsim`]: the three network-speed scenarios (single flow, 10-flow dumbbell, 4-hop
//! chain) set up as close to htsim's drivers in `benchmarks/htsim/` as the two simulators
//! allow, shared by the `network_speed` binary and the criterion bench `network`.
//!
//! [`variants`]: the per-variant speed scenario (issue 11), shared by the `network_speed`
//! binary (`variant -tcp NAME`, for `benchmarks/variant_speed.py`) and the criterion bench
//! `sim_variants`.

pub mod htsim {
    //! The scenarios of `benchmarks/htsim/` (htsim's `TcpSrc`/`TcpSink`, `Queue`, `Pipe`
    //! and a Bernoulli drop element after the queue) in burstlab terms. What is matched:
    //! - 1000-byte data packets on the wire (htsim's `Packet::set_packet_size(1000)`:
    //!   `header_bytes = 0`), 40-byte ACKs (`TcpAck::ACKSIZE`);
    //! - every segment ACKed at once (htsim's `TcpSink` has no delayed ACK);
    //! - minimum RTO 250 ms, initial RTO 3 s (`TcpSrc`), RFC 6298 without clock term;
    //! - initial window 2 segments, infinite initial ssthresh (set by the drivers);
    //! - buffers in bytes: htsim's `Queue` counts the packet in service, so its limit
    //!   of (B + 1)·1000 bytes is burstlab's B·1000 bytes waiting (`BufferUnit::Bytes`);
    //! - Bernoulli loss after the queue (per packet, decided once the packet is queued:
    //!   the same law as htsim's drop element, which sees the packet after its service).
    //!
    //! What is not (the simulators differ): htsim's NewReno halves cwnd where burstlab
    //! halves FlightSize (RFC 5681 eq. 4), htsim checks its timers every 10 ms (a
    //! scanner) where burstlab fires them on time, htsim's RTO has no upper bound
    //! (burstlab's: 60 s), and the two draw their losses from different generators
    //! (mt19937-64 against PCG): equal in law, not packet for packet.
    use burstlab_core::link::{BufferUnit, LossMode, Timing};
    use burstlab_core::loss::Bernoulli;
    use burstlab_core::sim::{FlowSpec, LinkLoss, LinkSpec, Network, TcpConfig, Variant};
    use burstlab_core::time::{Nanos, NS_PER_MS, NS_PER_S, NS_PER_US};

    /// Data packet on the wire (htsim's packet size), bytes.
    pub const PKT: u64 = 1000;

    /// htsim's TCP in burstlab's settings (see the module documentation).
    pub fn tcp() -> TcpConfig {
        TcpConfig {
            mss: PKT,
            header_bytes: 0,
            ack_bytes: 40,
            init_cwnd: 2,
            delayed_ack: false,
            rto_min: 250 * NS_PER_MS,
            rto_initial: 3 * NS_PER_S,
            ..TcpConfig::variant(Variant::NewReno)
        }
    }

    /// One direction of a hop on its own server: `buffer` data packets waiting (htsim:
    /// `buffer + 1` with the one in service), lost with probability `p` after the queue.
    fn link(net: &mut Network, name: &str, rate_bps: u64, delay: Nanos, buffer: u64, p: f64) -> usize {
        let s = net.server(Timing::Rate { rate_bps });
        let mut l = LinkSpec::new(name, s, delay, buffer * PKT);
        l.buffer_unit = BufferUnit::Bytes;
        if p > 0.0 {
            l.loss = LinkLoss::Own(Box::new(Bernoulli::new(p).expect("0 < p < 1")), LossMode::Packet);
        }
        net.link(l)
    }

    /// A full-duplex hop: (forward link with loss `p`, lossless reverse link).
    fn hop(net: &mut Network, name: &str, rate_bps: u64, delay: Nanos, buffer: u64, p: f64) -> (usize, usize) {
        let f = link(net, name, rate_bps, delay, buffer, p);
        let r = link(net, &format!("{name}.rev"), rate_bps, delay, buffer, 0.0);
        (f, r)
    }

    fn network(secs: f64, seed: u64) -> Network {
        let mut net = Network::new((secs * NS_PER_S as f64) as Nanos);
        net.seed = seed;
        net
    }

    /// The single-flow scenario (htsim `main_lossy_tcp.cpp`): 10 Mb/s, 10 ms, 100 packets
    /// waiting, loss `p` after the queue; ACKs through a 10 Mb/s queue and a 10 ms pipe.
    pub fn single(p: f64, secs: f64, seed: u64) -> Network {
        let mut net = network(secs, seed);
        let (f, r) = hop(&mut net, "forward", 10_000_000, 10 * NS_PER_MS, 100, p);
        net.flow(FlowSpec::tcp("flow", tcp(), vec![f], vec![r]));
        net
    }

    /// Bottleneck buffer of the dumbbell: one bandwidth-delay product at the 50 ms RTT in
    /// 1000-byte packets, rounded up (63 at 10 Mb/s).
    pub fn dumbbell_buffer(bottleneck_bps: u64) -> u64 {
        (bottleneck_bps * 50 / 1000).div_ceil(8 * PKT).max(2)
    }

    /// The dumbbell (htsim `main_dumbbell_tcp.cpp`): `n` flows, each over its own access
    /// hop (100 Mb/s, 5 ms, 1000 packets: never full) into one bottleneck hop
    /// (`bottleneck_bps`, 20 ms, one BDP of buffer, loss `p`) and back the same way;
    /// flow k starts at k·1 ms / n.
    pub fn dumbbell(n: usize, bottleneck_bps: u64, p: f64, secs: f64, seed: u64) -> Network {
        let mut net = network(secs, seed);
        let (bf, br) = hop(&mut net, "bottleneck", bottleneck_bps, 20 * NS_PER_MS, dumbbell_buffer(bottleneck_bps), p);
        for k in 0..n {
            let (af, ar) = hop(&mut net, &format!("access{k}"), 100_000_000, 5 * NS_PER_MS, 1000, 0.0);
            let mut f = FlowSpec::tcp(&format!("f{k}"), tcp(), vec![af, bf], vec![br, ar]);
            f.start = (k as u64 * 1000 / n as u64) * NS_PER_US;
            net.flow(f);
        }
        net
    }

    /// The chain (htsim `main_chain_tcp.cpp`): one flow over `hops` hops of 10 Mb/s, each
    /// 10 ms / hops of delay (the single flow's RTT), 100 packets of buffer, loss
    /// `p_hop` after each forward queue; ACKs back through the reverse queues and pipes.
    pub fn chain(hops: usize, p_hop: f64, secs: f64, seed: u64) -> Network {
        let mut net = network(secs, seed);
        let delay = 10 * NS_PER_MS / hops as u64;
        let hs: Vec<_> = (0..hops).map(|k| hop(&mut net, &format!("h{k}"), 10_000_000, delay, 100, p_hop)).collect();
        let fwd = hs.iter().map(|h| h.0).collect();
        let rev = hs.iter().rev().map(|h| h.1).collect();
        net.flow(FlowSpec::tcp("flow", tcp(), fwd, rev));
        net
    }

    /// Per-hop loss of the 4-hop chain: 1 − (1 − 0.0025)^4 ≈ 1 % end to end, as the
    /// single flow.
    pub const CHAIN_P_HOP: f64 = 0.0025;
}

pub mod variants {
    //! Every congestion control and loss recovery on one single-flow scenario (issue 11's
    //! target: none above 1.5× NewReno per simulated data packet): the "ns3" scenario of
    //! `sim_newreno` (10 Mb/s, 10 ms one way, 100-packet DropTail, 1000-byte segments, 1 %
    //! Bernoulli loss), each variant with its `--tcp` pair and RFC defaults, plus NewReno
    //! with RFC 7323 timestamps, and NewReno with ECN and LT-TCP over the same link with a
    //! RED queue (ns-3's defaults) instead of DropTail: LT-TCP needs ECN marks. Packets are
    //! the flow's `packets_sent`: data segments handed to the link, retransmissions and
    //! LT-TCP's FEC packets included, counted the same way for every variant.
    use burstlab_core::link::{LossMode, QueueDisc, RedParams};
    use burstlab_core::loss::Bernoulli;
    use burstlab_core::sim::{LinkConfig, Scenario, TcpConfig, Variant, Workload};
    use burstlab_core::tcp::config::Pacing;
    use burstlab_core::time::{Nanos, NS_PER_MS};

    /// (name, TCP settings, the link's RED queue instead of DropTail), NewReno first.
    pub fn all() -> Vec<(&'static str, TcpConfig, bool)> {
        let v = TcpConfig::variant;
        vec![
            ("newreno", v(Variant::NewReno), false),
            ("reno", v(Variant::Reno), false),
            ("tahoe", v(Variant::Tahoe), false),
            ("sack", v(Variant::Sack), false),
            ("westwood", v(Variant::Westwood), false),
            ("tibet", v(Variant::Tibet), false),
            ("ideal", v(Variant::Ideal), false),
            ("vegas", v(Variant::Vegas), false),
            ("cubic+prr", v(Variant::Cubic), false),
            ("linux-reno+prr", v(Variant::LinuxReno), false),
            // Pacing (issue 30): CUBIC paced by Linux's internal pacing and by fq's rule.
            ("cubic+paced", TcpConfig { pacing: Pacing::Internal, ..v(Variant::Cubic) }, false),
            ("cubic+fq", TcpConfig { pacing: Pacing::Fq, ..v(Variant::Cubic) }, false),
            ("newreno+timestamps", TcpConfig { timestamps: true, ..v(Variant::NewReno) }, false),
            ("newreno+ecn+red", TcpConfig { ecn: true, ..v(Variant::NewReno) }, true),
            ("sack+ecn+red", TcpConfig { ecn: true, ..v(Variant::Sack) }, true),
            ("lt-tcp+red", v(Variant::LtTcp), true),
            ("bbr", v(Variant::Bbr), false),
            ("bbr3", v(Variant::Bbr3), false),
            // BBR without pacing (its window alone): what the pacer and its timers cost BBR.
            ("bbr+unpaced", TcpConfig { pacing: Pacing::Off, ..v(Variant::Bbr) }, false),
        ]
    }

    /// The scenario of one variant: `duration` of bulk transfer, seed `seed`.
    pub fn scenario(tcp: &TcpConfig, red: bool, duration: Nanos, seed: u64) -> Scenario {
        let mut link =
            LinkConfig::new(10_000_000, 10 * NS_PER_MS, 100).with_loss(Box::new(Bernoulli::new(0.01).expect("0 < p < 1")), LossMode::Packet);
        let reverse = LinkConfig::new(10_000_000, 10 * NS_PER_MS, 100); // DropTail, lossless: RED on the data path only
        if red {
            link = link.with_queue(QueueDisc::Red(RedParams::default()));
        }
        let mut sc = Scenario::new(tcp.clone(), link, Workload::bulk(duration));
        sc.reverse = Some(reverse);
        sc.seed = seed;
        sc
    }
}

/// This thread's CPU time in seconds (Linux `/proc/thread-self/schedstat`), if readable:
/// on the shared development machine, wall time counts other people's builds too.
pub fn thread_cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

/// Median (wall seconds, CPU seconds of this thread) over `reps` timings of `f`.
pub fn median_wall_cpu<F: FnMut()>(mut f: F, reps: usize) -> (f64, f64) {
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        let (t0, c0) = (std::time::Instant::now(), thread_cpu_secs());
        f();
        wall.push(t0.elapsed().as_secs_f64());
        cpu.push(match (c0, thread_cpu_secs()) {
            (Some(a), Some(b)) => b - a,
            _ => f64::NAN,
        });
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        v[v.len() / 2]
    };
    (med(&mut wall), med(&mut cpu))
}
