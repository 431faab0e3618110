//! Per-packet cost of every congestion control and loss recovery against NewReno (issue
//! 11 target: no variant above 1.5× NewReno's wall time per simulated data packet).
//!
//! The single-flow scenario of `sim_newreno` ("ns3": 10 Mb/s, 10 ms one way, 100-packet
//! DropTail, 1000-byte segments, 100 s, 1 % Bernoulli loss), each variant with its `--tcp`
//! pair and RFC defaults, plus NewReno with RFC 7323 timestamps, and (issue 11, phase 2) NewReno
//! with ECN and LT-TCP over the same link with a RED queue (ns-3's defaults) instead of
//! DropTail: LT-TCP needs ECN marks, and its FEC packets count as packets. The ratios are
//! measured side by side (the variants interleaved, best of several rounds), so a loaded
//! machine slows all of them alike: `cargo bench -p burstlab-bench --bench sim_variants`.
//! The scenarios are `burstlab_bench::variants`; `benchmarks/variant_speed.py` measures the
//! same ones in CPU time and instructions (callgrind) per packet.
use burstlab_bench::variants::{all as variants, scenario as variant_scenario};
use burstlab_core::sim::{run, Scenario, TcpConfig};
use burstlab_core::time::NS_PER_S;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::time::Instant;

const TARGET_RATIO: f64 = 1.5;

fn scenario(tcp: &TcpConfig, red: bool, seed: u64) -> Scenario {
    variant_scenario(tcp, red, 100 * NS_PER_S, seed)
}

/// Wall nanoseconds per simulated data packet (FEC packets included) over seeds 1..=10.
fn ns_per_packet(tcp: &TcpConfig, red: bool) -> f64 {
    let t = Instant::now();
    let mut packets = 0;
    for seed in 1..=10 {
        packets += run(black_box(scenario(tcp, red, seed))).unwrap().counters.packets_sent;
    }
    t.elapsed().as_nanos() as f64 / packets as f64
}

fn bench(c: &mut Criterion) {
    let vs = variants();
    // Side by side: 7 rounds, each variant once per round; the best round of each.
    let mut best = vec![f64::INFINITY; vs.len()];
    for _ in 0..7 {
        for (i, (_, tcp, red)) in vs.iter().enumerate() {
            best[i] = best[i].min(ns_per_packet(tcp, *red));
        }
    }
    println!("\nper simulated data packet (best of 7 interleaved rounds, seeds 1-10, 1 % loss):");
    for (i, (name, _, _)) in vs.iter().enumerate() {
        let ratio = best[i] / best[0];
        println!(
            "  {name:<20} {:>7.1} ns  {ratio:>5.2}× NewReno  {}",
            best[i],
            if ratio <= TARGET_RATIO { "within 1.5×" } else { "ABOVE 1.5×" }
        );
    }
    let mut g = c.benchmark_group("sim_variants_1pct");
    g.sample_size(10);
    for (name, tcp, red) in &vs {
        let packets = run(scenario(tcp, *red, 1)).unwrap().counters.packets_sent;
        g.throughput(Throughput::Elements(packets));
        g.bench_function(*name, |b| b.iter(|| run(black_box(scenario(tcp, *red, 1))).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
