//! Pacing in the engine (`tcp/sender/pacing.rs`; docs/tcp.md "Pacing"): departure times
//! at the sender, bursts, and what pacing does to a shallow buffer's drops.
use burstlab_core::link::LossMode;
use burstlab_core::loss::Bernoulli;
use burstlab_core::sim::engine::run_logged;
use burstlab_core::sim::{LinkConfig, LogEvent, LogKind, LogRec, Scenario, TcpConfig, Variant, Workload};
use burstlab_core::tcp::config::Pacing;
use burstlab_core::time::{Nanos, NS_PER_MS, NS_PER_S};

/// The departure times of the flow's data segments (handed to the forward link).
fn departures(log: &[LogRec]) -> Vec<Nanos> {
    log.iter().filter(|r| r.event == LogEvent::Sent && r.kind == LogKind::Data).map(|r| r.t).collect()
}

/// The largest number of segments that leave at one instant, after the first `skip`.
fn largest_burst(d: &[Nanos], skip: usize) -> usize {
    d[skip.min(d.len())..].chunk_by(|a, b| a == b).map(|c| c.len()).max().unwrap_or(0)
}

fn run(tcp: TcpConfig, link: LinkConfig, w: Workload, seed: u64) -> (burstlab_core::results::SimResult, Vec<LogRec>) {
    let mut sc = Scenario::new(tcp, link, w);
    sc.seed = seed;
    sc.log = true;
    run_logged(sc).expect("a valid scenario")
}

#[test]
fn a_flow_paced_at_half_its_window_sends_two_segments_every_sixteen_ms() {
    // 1 Gb/s, 40 ms each way: RTT 80 ms, the window capped at 20 segments of 1000 bytes.
    // With pacing_ss_ratio = 50 % the rate is half of cwnd/SRTT, 10 000 B / 80 ms =
    // 125 kB/s, so the pacer, not the window, sets every departure: bursts of 2 segments
    // (tcp_min_tso_segs; 125 kB/s >> 10 is 122 B), 2000 B / 125 kB/s = 16 ms apart.
    let tcp = TcpConfig {
        pacing: Pacing::Internal,
        pacing_ss_ratio: 50,
        max_cwnd: Some(20),
        init_cwnd: 10,
        ..TcpConfig::variant(Variant::Cubic)
    };
    let link = LinkConfig::new(1_000_000_000, 40 * NS_PER_MS, 1000);
    let (r, log) = run(tcp, link, Workload::bulk(10 * NS_PER_S), 1);
    assert_eq!(r.counters.packets_lost, 0);
    let d: Vec<Nanos> = departures(&log).into_iter().filter(|&t| t >= 2 * NS_PER_S).collect();
    let bursts: Vec<&[Nanos]> = d.chunk_by(|a, b| a == b).collect();
    assert!(bursts.iter().all(|b| b.len() == 2), "bursts of 2: {:?}", &bursts[..10]);
    for w in bursts.windows(2) {
        let gap = w[1][0] - w[0][0];
        // SRTT is 80 ms plus the segment's and the ACK's serialisation (8.6 µs).
        assert!((16_000_000..=16_010_000).contains(&gap), "a gap of {gap} ns, not 16 ms");
    }
    // 8 s at 125 segments/s.
    assert!((995..=1005).contains(&d.len()), "{} segments in 8 s", d.len());
}

#[test]
fn fq_pacing_spaces_single_packets_below_its_low_rate_then_two_packet_refills() {
    // The same flow under fq. At first (cwnd 10 segments: 62.5 kB/s, below fq's 550 kb/s =
    // 68.75 kB/s low-rate threshold) every packet goes alone, 1000 B / 62.5 kB/s = 16 ms
    // apart, the initial quantum unused; at 20 segments (125 kB/s, above it) 2 packets per
    // refill, 2·1000 B / 125 kB/s = 16 ms apart.
    let tcp = TcpConfig {
        pacing: Pacing::Fq,
        pacing_ss_ratio: 50,
        max_cwnd: Some(20),
        init_cwnd: 10,
        handshake: true, // the rate is known from the first segment on
        ..TcpConfig::variant(Variant::Cubic)
    };
    let (_, log) = run(tcp, LinkConfig::new(1_000_000_000, 40 * NS_PER_MS, 1000), Workload::bulk(10 * NS_PER_S), 1);
    let d = departures(&log);
    for k in 1..6 {
        assert!((16_000_000..=16_001_000).contains(&(d[k] - d[k - 1])), "{:?}", &d[..8]);
    }
    let later: Vec<Nanos> = d.into_iter().filter(|&t| t >= 2 * NS_PER_S).collect();
    let bursts: Vec<&[Nanos]> = later.chunk_by(|a, b| a == b).collect();
    assert!(bursts.iter().all(|b| b.len() == 2), "{:?}", &bursts[..10]);
    for w in bursts.windows(2) {
        let gap = w[1][0] - w[0][0];
        assert!((16_000_000..=16_010_000).contains(&gap), "a gap of {gap} ns, not 16 ms");
    }
    assert!((995..=1005).contains(&later.len()), "{} segments in 8 s", later.len());
}

#[test]
fn a_paced_flow_never_sends_more_than_its_burst_allowance_at_once() {
    // Property over seeds and loss rates: with the window capped at 100 segments the rate is
    // at most 2 · 100 000 B / 20 ms = 10 MB/s, whose bursts are 10 MB/s >> 10 = 9765 B:
    // 9 segments; a retransmission sent at once (fast retransmit, timeout) may join one.
    for seed in 1..=4 {
        for p in [0.0, 0.01, 0.05] {
            let link = || {
                let l = LinkConfig::new(100_000_000, 10 * NS_PER_MS, 200);
                if p > 0.0 { l.with_loss(Box::new(Bernoulli::new(p).unwrap()), LossMode::Packet) } else { l }
            };
            let tcp = TcpConfig { pacing: Pacing::Internal, max_cwnd: Some(100), init_cwnd: 10, ..TcpConfig::variant(Variant::Cubic) };
            let (_, log) = run(tcp, link(), Workload::bulk(5 * NS_PER_S), seed);
            let paced = largest_burst(&departures(&log), 10);
            assert!(paced <= 10, "seed {seed}, p {p}: {paced} segments at once");
        }
    }
}

#[test]
fn pacing_loses_fewer_packets_on_a_shallow_buffer() {
    // A short transfer (200 kB) whose initial window (40 segments, the RTT known from the
    // handshake) is four times a 10-packet buffer at 10 Mb/s, 40 ms each way: unpaced, the
    // window arrives at once and 30 segments are dropped; paced, all but the first 10
    // (internal: Linux's unpaced start; fq: its initial quantum) leave at 2·cwnd/SRTT = 8 Mb/s,
    // below the link's rate.
    // (No loss model: the run is the same for every seed.)
    let drops = |pacing| {
        let tcp = TcpConfig { pacing, init_cwnd: 40, handshake: true, ..TcpConfig::variant(Variant::Cubic) };
        let (r, _) = run(tcp, LinkConfig::new(10_000_000, 40 * NS_PER_MS, 10), Workload::transfer(200_000), 1);
        (r.counters.queue_drops, r.completion_time.expect("completes"))
    };
    let (off, internal, fq) = (drops(Pacing::Off), drops(Pacing::Internal), drops(Pacing::Fq));
    eprintln!("200 kB: (drops, completion s): off {off:?}, internal {internal:?}, fq {fq:?}");
    assert!(off.0 >= 30, "{off:?}");
    assert!(internal.0 < off.0 && fq.0 < off.0, "off {off:?}, internal {internal:?}, fq {fq:?}");
}

#[test]
fn pacing_does_not_lower_a_long_transfers_drops_on_one_bottleneck() {
    // What pacing does not do (docs/tcp.md "Pacing"): on a single bottleneck the ACK clock
    // already spaces a long transfer's segments at the link's rate; pacing at 2·cwnd/SRTT
    // delays the queue's growth in slow start, cwnd overshoots further, and the one loss
    // episode at its end is larger (Aggarwal, Savage, Anderson, "Understanding the
    // Performance of TCP Pacing": delayed congestion signals).
    let drops = |pacing| {
        let tcp = TcpConfig { pacing, init_cwnd: 10, ..TcpConfig::variant(Variant::Cubic) };
        run(tcp, LinkConfig::new(10_000_000, 40 * NS_PER_MS, 10), Workload::transfer(5_000_000), 1).0.counters.queue_drops
    };
    let (off, internal) = (drops(Pacing::Off), drops(Pacing::Internal));
    eprintln!("5 MB: drops off {off}, internal {internal}");
    assert!(internal > off, "off {off}, internal {internal}");
}
