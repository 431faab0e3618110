//! RED and ECN in the network engine (docs/validation.md, "RED and ECN"): marks replace
//! drops for ECN-capable flows, the queue RED keeps, goodput beside DropTail, and the
//! invariants of the per-packet log with RED on every link.
use burstlab_core::sim::*;
use burstlab_core::link::{QueueDisc, RedParams, Timing};
use burstlab_core::results::NetworkResult;
use burstlab_core::time::{Nanos, NS_PER_MS, NS_PER_S};

/// A dumbbell: `n` TCP flows, each through its own 100 Mb/s access hop (delays 2-8 ms) into a
/// 10 Mb/s, 20 ms bottleneck with a 100-packet buffer and queue discipline `q`, 200 s.
fn dumbbell(n: usize, q: &QueueDisc, tcp: &TcpConfig, seed: u64) -> Network {
    let mut net = Network::new(200 * NS_PER_S);
    net.seed = seed;
    let link = |net: &mut Network, name: &str, rate: u64, delay: Nanos, q: &QueueDisc| {
        let s = net.server(Timing::Rate { rate_bps: rate });
        let mut l = LinkSpec::new(name, s, delay, 100);
        l.queue = q.clone();
        net.link(l)
    };
    let bf = link(&mut net, "bottleneck", 10_000_000, 20 * NS_PER_MS, q);
    let br = link(&mut net, "bottleneck.rev", 10_000_000, 20 * NS_PER_MS, q);
    for k in 0..n {
        let d = (2 + 2 * (k as u64 % 4)) * NS_PER_MS;
        let af = link(&mut net, &format!("a{k}"), 100_000_000, d, &QueueDisc::DropTail);
        let ar = link(&mut net, &format!("a{k}.rev"), 100_000_000, d, &QueueDisc::DropTail);
        net.flow(FlowSpec::tcp(&format!("f{k}"), tcp.clone(), vec![af, bf], vec![br, ar]));
    }
    net
}

fn bottleneck(r: &NetworkResult) -> &burstlab_core::results::LinkResult {
    r.links.iter().find(|l| l.name == "bottleneck").expect("a bottleneck")
}

/// RFC 3168 §7: RED marks the ECN-capable packets it would have dropped early. Eight NewReno
/// flows on the RED bottleneck (ns-3's defaults: thresholds 5 and 15 packets, gentle to 30,
/// forced drops kept as drops): with ECN on, the senders reduce on ECN-Echo and RED's drops
/// fall to a tenth — what is left are the forced drops of the start-up overshoot (the
/// average lags the queue, w_q = 0.002) and packets that are not ECN-capable
/// (retransmissions, RFC 3168 §6.1.5); with ECN off there is no mark. The 100-packet buffer
/// itself overflows only in the first slow start; the loss recoveries fall fourfold.
#[test]
fn ecn_marks_replace_early_drops() {
    let red = QueueDisc::Red(RedParams::default());
    let run = |ecn: bool| run_network(dumbbell(8, &red, &TcpConfig { ecn, ..TcpConfig::default() }, 3)).unwrap();
    let (on, off) = (run(true), run(false));
    let (c_on, c_off) = (bottleneck(&on).counters, bottleneck(&off).counters);
    let reductions: u64 = on.flows.iter().map(|f| f.result.counters.ecn_reductions).sum();
    eprintln!("ECN on: {c_on:?}, {reductions} ECN reductions\nECN off: {c_off:?}");
    assert!(c_on.ecn_marks > 500 && reductions > 500, "{c_on:?}");
    assert_eq!((c_off.ecn_marks, off.flows.iter().map(|f| f.result.counters.ecn_reductions).sum::<u64>()), (0, 0));
    assert!(c_on.early_drops * 10 < c_off.early_drops, "early drops: {} with ECN, {} without", c_on.early_drops, c_off.early_drops);
    for c in [c_on, c_off] {
        assert!(c.queue_drops - c.early_drops < 20, "the buffer overflowed: {c:?}");
    }
    let recoveries = |r: &NetworkResult| r.flows.iter().map(|f| f.result.counters.fast_retransmits + f.result.counters.timeouts).sum::<u64>();
    assert!(recoveries(&on) * 4 < recoveries(&off), "loss recoveries with ECN {}, without {}", recoveries(&on), recoveries(&off));
}

/// RED against DropTail on the same dumbbell: the aggregate goodput stays within 3 % of
/// DropTail's (both near the bottleneck's payload rate, 9.62 Mb/s), the queueing delay is a
/// fraction of DropTail's full buffer, the mean queue below RED's gentle ceiling (2·max_th =
/// 30 packets), and the flows share fairly (Jain ≥ 0.9).
#[test]
fn red_goodput_and_queue_beside_droptail() {
    let tcp = TcpConfig { ecn: true, ..TcpConfig::default() };
    let red = run_network(dumbbell(8, &QueueDisc::Red(RedParams::default()), &tcp, 1)).unwrap();
    let dt = run_network(dumbbell(8, &QueueDisc::DropTail, &tcp, 1)).unwrap();
    let pkt = 1040.0 * 8.0 / 10e6; // s per data packet on the bottleneck
    let (qr, qd) = (bottleneck(&red).queue_delay.mean().unwrap() / 1e9 / pkt, bottleneck(&dt).queue_delay.mean().unwrap() / 1e9 / pkt);
    let (gr, gd) = (red.aggregate_goodput_bps, dt.aggregate_goodput_bps);
    eprintln!("RED: {:.3} Mb/s, mean queue {qr:.1} pkts, Jain {:.3}; DropTail: {:.3} Mb/s, {qd:.1} pkts", gr / 1e6, red.jain_index.unwrap(), gd / 1e6);
    assert!(gr >= 0.97 * gd && gr <= 10e6 * 1000.0 / 1040.0, "RED {gr}, DropTail {gd}");
    assert!(gd >= 0.95 * 10e6 * 1000.0 / 1040.0, "DropTail {gd}");
    assert!(qr < 30.0 && qr < qd / 2.0, "mean queue: RED {qr} packets, DropTail {qd}");
    assert!(red.jain_index.unwrap() >= 0.9);
}
