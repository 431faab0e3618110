//! Criterion benchmarks live in `benches/`; see `benchmarks/README.md`.
