//! Criterion benchmarks live in `benches/`; see `benchmarks/README.md`. Shared helpers:

use std::time::Instant;

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
        let (t0, c0) = (Instant::now(), thread_cpu_secs());
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
