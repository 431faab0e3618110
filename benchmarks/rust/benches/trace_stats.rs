//! Trace statistics throughput on 10^9-entry traces (issue 13; issue 2 set the first targets):
//! - PRR, g, b and μ (the transition counts): target ≥ 2.5e10 entries/s on one core;
//! - everything `trace_stats` returns (PRR, transitions, both run-length histograms, chunk
//!   μ and its RMS deviation, the μ-convergence grid) in one fused pass: target ≥ 5e9
//!   entries/s;
//! - run-length histograms alone: target ≥ 1e8 runs/s (issue 2).
//!
//! Two traces from burstlab's own Gilbert-Elliott model: b = 0.3, g = 0.4 (3.4·10^8 runs,
//! a run every 2.9 entries: the worst case for the run walk) and a realistic bursty link,
//! PRR 0.9, μ 0.6 (Srinivasan et al. §6.2's example; a run every 14 entries).
//!
//! Run: `cargo bench -p burstlab-bench --bench trace_stats` (set BURSTLAB_BENCH_N to change
//! the length). The figures printed at the end are medians of 7 direct timings.
use burstlab_core::loss::{GilbertElliott, LossModel};
use burstlab_core::rng;
use burstlab_core::trace::summary::run_histograms;
use burstlab_core::trace::stats::transitions;
use burstlab_core::trace::summary::summarize;
use burstlab_core::trace::BitTrace;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::time::Duration;
use burstlab_bench::median_wall_cpu;

fn n_entries() -> usize {
    std::env::var("BURSTLAB_BENCH_N").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000_000_000)
}

fn trace(mut m: GilbertElliott, n: usize, seed: u64) -> BitTrace {
    let mut r = rng::from_seed(seed);
    let mut t = BitTrace::with_capacity(n);
    m.sample_into(n, &mut r, &mut t);
    t
}

/// The grid `burstlab.stats.trace_stats` uses: 100 evenly spaced prefixes.
fn grid(n: usize) -> Vec<usize> {
    (1..=100).map(|k| ((k as f64) * n as f64 / 100.0).round() as usize).collect()
}

fn verdict(x: f64, target: f64) -> &'static str {
    if x >= target {
        "MET"
    } else {
        "MISSED"
    }
}

fn bench_all(c: &mut Criterion) {
    let n = n_entries();
    let traces = [
        ("GE b=0.3 g=0.4", trace(GilbertElliott::new(0.3, 0.4, 1.0, 0.0).expect("valid"), n, 7)),
        ("GE PRR=0.9 mu=0.6", trace(GilbertElliott::from_prr_mu(0.9, 0.6).expect("valid"), n, 8)),
    ];
    let g = grid(n);
    let mut group = c.benchmark_group("trace_stats");
    group.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(n as u64));
    for (name, t) in &traces {
        group.bench_function(format!("prr_g_b_mu/{name}"), |b| b.iter(|| black_box(transitions(black_box(t)).mu())));
        group.bench_function(format!("trace_stats_fused/{name}"), |b| b.iter(|| black_box(summarize(black_box(t), 6000, &g, true))));
    }
    group.finish();
    println!("\ntraces of {n} entries; medians of 7 timings");
    for (name, t) in &traces {
        let (z, o) = run_histograms(t);
        let n_runs = z.count() + o.count();
        let s_tr = median_wall_cpu(|| { black_box(transitions(black_box(t)).mu()); }, 7);
        let s_all = median_wall_cpu(|| { black_box(summarize(black_box(t), 6000, &g, true)); }, 7);
        let s_run = median_wall_cpu(|| { black_box(run_histograms(black_box(t))); }, 7);
        println!("[{name}, {n_runs} runs]   (per wall second; per CPU second of this thread)");
        let line = |what: &str, count: f64, unit: &str, (wall, cpu): (f64, f64), target: f64| {
            let (w, c) = (count / wall, count / cpu);
            println!("  {what:20}: {w:.3e} {unit}/s wall, {c:.3e} {unit}/s CPU  (target >= {target:.1e})  {}", verdict(w.max(c), target));
        };
        line("PRR/g/b/mu", n as f64, "entries", s_tr, 2.5e10);
        line("trace_stats (fused)", n as f64, "entries", s_all, 5e9);
        line("run histograms", n_runs as f64, "runs", s_run, 1e8);
    }
}

criterion_group!(benches, bench_all);
criterion_main!(benches);
