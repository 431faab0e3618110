//! Text trace parsing and writing speed (issue 13: the text parser ≥ 1 GB/s).
//!
//! A 10^8-entry Gilbert-Elliott trace (b = 0.3, g = 0.4, PRR ≈ 0.57) is written in each text
//! format in memory (`bits`: 200 MB, `string`: 100 MB, `seqlist`: ≈ 0.5 GB) and parsed
//! back with the streaming reader (`parse_bytes`: the same 1 MiB-buffer path as a file);
//! a Mahimahi trace of 10^8 opportunities (≈ 0.9 GB) likewise. Figures are medians of 5
//! timings, in bytes of text per second, wall and CPU (this thread; the development machine
//! is shared).
//!
//! Run: `cargo bench -p burstlab-bench --bench trace_parse` (BURSTLAB_BENCH_N changes the length).
use burstlab_core::loss::{GilbertElliott, LossModel};
use burstlab_core::rng;
use burstlab_core::trace::parse::{parse_bytes, Format, Options};
use burstlab_core::trace::write::write_text;
use burstlab_core::trace::BitTrace;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::time::Duration;
use burstlab_bench::median_wall_cpu;

fn bench_all(c: &mut Criterion) {
    let n: usize = std::env::var("BURSTLAB_BENCH_N").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000_000);
    let mut m = GilbertElliott::new(0.3, 0.4, 1.0, 0.0).expect("valid");
    let mut r = rng::from_seed(7);
    let mut t = BitTrace::with_capacity(n);
    m.sample_into(n, &mut r, &mut t);
    let mut texts: Vec<(&str, Format, Vec<u8>)> = Vec::new();
    for (name, fmt) in [("bits", Format::Bits), ("string", Format::String), ("seqlist", Format::SeqList)] {
        let mut out = Vec::new();
        write_text(&t, fmt, false, &mut out).expect("in memory");
        texts.push((name, fmt, out));
    }
    // Mahimahi: n opportunities, 0-7 per millisecond
    let mut mm = Vec::new();
    let (mut ms, mut k) = (0u64, 0usize);
    while k < n {
        for _ in 0..(ms % 8) {
            mm.extend_from_slice(format!("{ms}\n").as_bytes());
            k += 1;
        }
        ms += 1;
    }
    texts.push(("mahimahi", Format::Mahimahi, mm));
    let mut g = c.benchmark_group("trace_parse");
    g.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    for (name, fmt, text) in &texts {
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(*name, |b| b.iter(|| black_box(parse_bytes(black_box(text), *fmt, "bench", Options::default()).expect("parses"))));
    }
    g.finish();
    println!("\ntext of a {n}-entry trace; medians of 5 timings (bytes of text per second)");
    for (name, fmt, text) in &texts {
        let (w, c) = median_wall_cpu(|| { black_box(parse_bytes(black_box(text), *fmt, "bench", Options::default()).expect("parses")); }, 5);
        let (bw, bc) = (text.len() as f64 / w, text.len() as f64 / c);
        println!("  parse {name:9} {:7.1} MB: {:.2} GB/s wall, {:.2} GB/s CPU  (target >= 1 GB/s)  {}", text.len() as f64 / 1e6, bw / 1e9, bc / 1e9, if bw.max(bc) >= 1e9 { "MET" } else { "MISSED" });
    }
    for (name, fmt, text) in texts.iter().filter(|x| x.1 != Format::Mahimahi) {
        let (w, c) = median_wall_cpu(|| { let mut out = Vec::with_capacity(text.len()); write_text(&t, *fmt, false, &mut out).expect("in memory"); black_box(out); }, 5);
        println!("  write {name:9} {:7.1} MB: {:.2} GB/s wall, {:.2} GB/s CPU", text.len() as f64 / 1e6, text.len() as f64 / w / 1e9, text.len() as f64 / c / 1e9);
    }
}

criterion_group!(benches, bench_all);
criterion_main!(benches);
