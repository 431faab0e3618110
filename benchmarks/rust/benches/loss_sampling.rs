//! Packet decisions per second when sampling loss models into a trace (issue 3 target:
//! ≥ 2×10^8/s on one core for Bernoulli and Gilbert-Elliott).
//!
//! `cargo bench -p burstlab-bench --bench loss_sampling`: criterion reports elements/s per
//! case; a summary line per case prints decisions/s next to the target.
use burstlab_core::loss::{Bernoulli, GilbertElliott, LossModel};
use burstlab_core::rng;
use burstlab_core::trace::BitTrace;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::time::Instant;

const N: usize = 10_000_000;
const TARGET: f64 = 2e8;

fn cases() -> Vec<(&'static str, Box<dyn LossModel>)> {
    vec![
        ("bernoulli p=0.01", Box::new(Bernoulli::new(0.01).unwrap())),
        ("bernoulli p=0.1", Box::new(Bernoulli::new(0.1).unwrap())),
        ("bernoulli p=0.5", Box::new(Bernoulli::new(0.5).unwrap())),
        ("ge bistable b=0.01 g=0.3", Box::new(GilbertElliott::new(0.01, 0.3, 1.0, 0.0).unwrap())),
        ("ge prr=0.5 mu=0.2", Box::new(GilbertElliott::from_prr_mu(0.5, 0.2).unwrap())),
        ("ge 4-param b=0.01 g=0.3 h=0.9 k=0.01", Box::new(GilbertElliott::new(0.01, 0.3, 0.9, 0.01).unwrap())),
    ]
}

fn sample(m: &dyn LossModel, seed: u64) -> BitTrace {
    let mut m = m.clone_box();
    m.reset();
    let mut r = rng::from_seed(seed);
    let mut t = BitTrace::with_capacity(N);
    m.sample_into(N, &mut r, &mut t);
    t
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("loss_sampling");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);
    for (name, m) in cases() {
        g.bench_with_input(BenchmarkId::from_parameter(name), &m, |b, m| b.iter(|| black_box(sample(m.as_ref(), 1).len())));
    }
    g.finish();
    // Summary next to the target: best of 5 runs.
    println!("\npacket decisions per second (sample_into, {N} packets, one core; target ≥ {TARGET:.0e}):");
    for (name, m) in cases() {
        let best = (0..5)
            .map(|i| {
                let t0 = Instant::now();
                black_box(sample(m.as_ref(), i).count_ones());
                t0.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min);
        let rate = N as f64 / best;
        println!("  {name:<40} {rate:>12.3e}/s  {}", if rate >= TARGET { "meets target" } else { "BELOW target" });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
