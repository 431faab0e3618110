//! Network engine speed: the three scenarios of the htsim comparison
//! (`burstlab_bench::htsim`: single flow, 10-flow dumbbell, 4-hop chain; 100 s each), in
//! simulated data packets per second (criterion's throughput). The side-by-side ratio
//! with htsim is `python benchmarks/network_speed.py` (target: ≥ 3× htsim's packets per
//! CPU-second on each).
use burstlab_bench::htsim;
use burstlab_core::sim::{run_network, Network};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("network");
    let scenarios: [(&str, fn() -> Network); 3] = [
        ("single", || htsim::single(0.01, 100.0, 1)),
        ("dumbbell10", || htsim::dumbbell(10, 10_000_000, 0.0, 100.0, 1)),
        ("chain4", || htsim::chain(4, htsim::CHAIN_P_HOP, 100.0, 1)),
    ];
    for (name, make) in scenarios {
        let packets: u64 = run_network(make()).unwrap().flows.iter().map(|f| f.result.counters.packets_sent).sum();
        g.throughput(Throughput::Elements(packets));
        g.bench_function(name, |b| b.iter(|| run_network(black_box(make())).unwrap()));
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
