//! Trace statistics throughput on a 10^8-entry trace (issue 2):
//! - transition counts + μ: target ≥ 1e10 entries/s on one core (packed bits + popcount);
//! - run-length histograms (loss bursts and success runs): target ≥ 1e8 runs/s.
//!
//! Run: `cargo bench -p burstlab-bench --bench trace_stats`
//! The figures printed at the end are the median over criterion's samples.
use burstlab_core::loss::{GilbertElliott, LossModel};
use burstlab_core::rng;
use burstlab_core::trace::runs::run_histograms;
use burstlab_core::trace::stats::transitions;
use burstlab_core::trace::BitTrace;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::time::{Duration, Instant};

const N: usize = 100_000_000;

/// A bursty Gilbert-Elliott trace (b = 0.3, g = 0.4: many short runs, so the run path
/// is exercised hard) from burstlab's own model.
fn trace() -> BitTrace {
    let mut m = GilbertElliott::new(0.3, 0.4, 1.0, 0.0).expect("valid parameters");
    let mut r = rng::from_seed(7);
    let mut t = BitTrace::with_capacity(N);
    m.sample_into(N, &mut r, &mut t);
    t
}

fn median_secs<F: FnMut()>(mut f: F, reps: usize) -> f64 {
    let mut v: Vec<f64> = (0..reps)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64()
        })
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn bench(c: &mut Criterion, t: &BitTrace, n_runs: u64) {
    let mut g = c.benchmark_group("trace_stats_1e8");
    g.sample_size(10).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("transitions_and_mu", |b| b.iter(|| black_box(transitions(black_box(t)).mu())));
    g.throughput(Throughput::Elements(n_runs));
    g.bench_function("run_histograms", |b| b.iter(|| black_box(run_histograms(black_box(t)))));
    g.finish();
}

criterion_group!(benches, bench_all);

fn bench_all(c: &mut Criterion) {
    let t = trace();
    let (z, o) = run_histograms(&t);
    let n_runs = z.count() + o.count();
    bench(c, &t, n_runs);
    // The figures, measured directly (median of 9) and printed next to the targets.
    let s_tr = median_secs(|| { black_box(transitions(black_box(&t)).mu()); }, 9);
    let s_run = median_secs(|| { black_box(run_histograms(black_box(&t))); }, 9);
    let ent = N as f64 / s_tr;
    let rps = n_runs as f64 / s_run;
    println!("\ntrace of {N} entries, {n_runs} runs (GE b=0.3 g=0.4)");
    println!(
        "transitions + mu : {:.3e} entries/s  (target >= 1.0e10)  {}",
        ent,
        if ent >= 1e10 { "MET" } else { "MISSED" }
    );
    println!(
        "run histograms   : {:.3e} runs/s     (target >= 1.0e8)   {}",
        rps,
        if rps >= 1e8 { "MET" } else { "MISSED" }
    );
}
criterion_main!(benches);
