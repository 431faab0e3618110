//! The engine's fingerprint: a hash of every source file that decides a simulation's
//! numbers (this crate's and burstlab-core's sources, and the locked dependency versions,
//! whose random number generators the engine draws from). `burstlab.store` puts it in every
//! results-store key, so a study never reuses rows that another engine computed.
use std::fs;
use std::path::{Path, PathBuf};

/// FNV-1a, 64 bits: deterministic across builds and platforms, no dependency.
fn fnv(h: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *h ^= u64::from(b);
        *h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = here.join("../..");
    let inputs = [here.join("src"), root.join("crates/burstlab-core/src"), root.join("Cargo.lock")];
    let mut all = Vec::new();
    for p in &inputs {
        println!("cargo:rerun-if-changed={}", p.display());
        if p.is_dir() {
            files(p, &mut all);
        } else if p.exists() {
            all.push(p.clone());
        }
    }
    // Relative paths, sorted: the same tree gives the same fingerprint wherever it is built.
    let mut named: Vec<(String, PathBuf)> = all
        .into_iter()
        .map(|p| (p.strip_prefix(&root).unwrap_or(&p).to_string_lossy().replace('\\', "/"), p))
        .collect();
    named.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, p) in &named {
        fnv(&mut h, name.as_bytes());
        fnv(&mut h, &[0]);
        fnv(&mut h, &fs::read(p).unwrap_or_default());
        fnv(&mut h, &[0]);
    }
    println!("cargo:rustc-env=BURSTLAB_ENGINE_FINGERPRINT={h:016x}");
}
