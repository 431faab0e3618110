//! Simulator speed: one bulk NewReno flow at 1% Bernoulli loss, in simulated data
//! packets per wall-clock second (target: ≥ 5·10^6 on one core, ≥ 100× ns-3's
//! simulation loop on the same scenario; see benchmarks/sim_speed.py for the ns-3 half).
//!
//! Scenarios: "ns3" is the ns-3 comparison setup (10 Mb/s, 10 ms one-way, 100-packet
//! DropTail, 1000-byte segments, 100 s); "fast" is the same flow on a 1 Gb/s link
//! (larger windows, more packets per run).
use burstlab_core::link::LossMode;
use burstlab_core::loss::Bernoulli;
use burstlab_core::sim::{run, LinkConfig, Scenario, TcpConfig, Variant, Workload};
use burstlab_core::time::{NS_PER_MS, NS_PER_S};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::time::Instant;

const TARGET_PPS: f64 = 5.0e6;

fn scenario(rate: u64, secs: u64, seed: u64) -> Scenario {
    let tcp = TcpConfig::variant(Variant::NewReno);
    let link = LinkConfig::new(rate, 10 * NS_PER_MS, 100).with_loss(Box::new(Bernoulli::new(0.01).unwrap()), LossMode::Packet);
    let mut sc = Scenario::new(tcp, link, Workload::bulk(secs * NS_PER_S));
    sc.seed = seed;
    sc
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("sim_newreno_1pct");
    for (name, rate, secs) in [("ns3", 10_000_000u64, 100u64), ("fast", 1_000_000_000, 100)] {
        let packets = run(scenario(rate, secs, 1)).unwrap().counters.packets_sent;
        // A direct figure too, outside criterion's statistics: 20 runs, total packets / wall time.
        let t = Instant::now();
        let mut total = 0;
        for seed in 1..=20 {
            total += run(scenario(rate, secs, seed)).unwrap().counters.packets_sent;
        }
        let pps = total as f64 / t.elapsed().as_secs_f64();
        println!(
            "sim_newreno[{name}]: {pps:.3e} simulated data packets per wall-second (target ≥ {TARGET_PPS:.0e}: {})",
            if pps >= TARGET_PPS { "met" } else { "NOT met" }
        );
        g.throughput(Throughput::Elements(packets));
        g.bench_function(name, |b| b.iter(|| run(black_box(scenario(rate, secs, 1))).unwrap()));
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
