//! Every statistic of `burstlab.stats.trace_stats` in one pass over the packed words:
//! PRR, the transition counts and μ (Srinivasan et al. §5.2-5.3), both run-length
//! histograms (§4 Fig. 4, §8 Fig. 15; Barsocchi et al. §IV), μ of every chunk and its RMS
//! deviation (§8 Fig. 16) and μ over a grid of prefixes (§8 Figs. 17-18).
//!
//! The pass goes over the words in blocks of 4096 (32 KiB, so the second look at a block
//! hits the L1 cache): it keeps two running counts, the 1s and the |11| pairs (two hardware
//! popcounts per word, [`super::stats`]), records them at every chunk and prefix boundary,
//! and counts runs a word at a time ([`RunCounter`]: a cost per word and per 16 entries,
//! none per run). Every range's transition counts then follow from the counts at its two
//! ends, so chunks and prefixes cost nothing beyond the one pass.
use super::bits::BitTrace;
use super::runs::{RunHistogram, DENSE};
use super::stats::{Cumulative, Transitions};

/// What [`summarize`] computes.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub len: u64,
    pub ones: u64,
    pub transitions: Transitions,
    /// Loss bursts (runs of 0s) and success runs (runs of 1s).
    pub loss_bursts: RunHistogram,
    pub success_runs: RunHistogram,
    /// μ of each full chunk of `chunk` entries, NaN where undefined.
    pub chunk_mu: Vec<f64>,
    /// RMS deviation of the defined chunk μs from the whole-trace μ (None if undefined).
    pub chunk_rms: Option<f64>,
    /// μ over [0, L) for each L of the prefix grid, NaN where undefined.
    pub prefix_mu: Vec<f64>,
}

/// Run lengths, word at a time, with a cost per word and per 16-entry chunk but none per
/// run. Bit j of `d = w ^ (w >> 1 | next << 63)` marks a run boundary between entries j and
/// j + 1; every run is (a, b] for consecutive boundaries a < b, and is counted in exactly
/// one of three ways:
/// - a and b in the same 16-bit chunk of `d` (an inner run): the chunk's boundaries moved
///   up so that the highest, h, is bit 16 of a key, and the value of entry h in bit 0,
///   decide all its inner runs, so the pass only counts these 17-bit keys
///   (`table[key] += 1`; the keys of chunks with a boundary lie in the upper 64 Ki slots,
///   256 KiB) and [`RunCounter::flush`] expands each key's runs once;
/// - a = h and b in a later chunk of the same word: the second-lowest boundary of `d >> h`
///   (length ≤ 63);
/// - a in an earlier word (the run in progress): closed at the word's first boundary.
///
/// Nothing is tested per chunk: a chunk without a boundary takes h = 63 (its `lzcnt` is 64,
/// and shifts count mod 64), so that `d >> h` has no second boundary and the crossing
/// run's length comes out as 64, which no run between two boundaries of one word can
/// have: a discard slot; its key is 0 or 1, and a key with one boundary has no inner run.
/// Each chunk position has its own crossing histogram, so that consecutive updates rarely
/// wait on the same memory location (a read-modify-write chain through one address costs
/// a store-forwarding latency each).
const CHUNK: u32 = 16;
const PER_WORD: usize = 64 / CHUNK as usize;
/// Table keys: a chunk's boundaries from its highest down (16 bits) and a value bit.
const KEY_BITS: u32 = CHUNK + 1;
const TABLE: usize = 1 << KEY_BITS;
/// The keys of chunks with at least one boundary (bit 16 set).
const KEYS_FROM: usize = TABLE / 2;
/// Crossing runs: `cross[pos << 8 | len << 1 | v]`, len ≤ 64 (64 discards), v the value
/// of the entry *before* the run (the run's own value is `v ^ 1`).
const CROSS: usize = PER_WORD << 8;
/// Runs closed at a word's first boundary: `dense[v * DENSE + len]`, len < DENSE (len 0
/// discards).
const DENSE2: usize = 2 * DENSE;

/// A zeroed fixed-size array on the heap.
fn boxed<T: Copy + Default, const N: usize>() -> Box<[T; N]> {
    vec![T::default(); N].into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!("length N"))
}

struct RunCounter {
    /// Allocated at the first whole-word call (short traces walk their boundaries).
    table: Option<Box<[u32; TABLE]>>,
    cross: Box<[u64; CROSS]>,
    dense: Box<[u64; DENSE2]>,
    long: [Vec<u64>; 2],
    /// First entry of the run in progress.
    start: u64,
}

/// The run of value `v`, `len` entries, closed at a word's boundary; `keep` = all ones to
/// count it, 0 to discard (branch-free except for the rare long run).
#[inline(always)]
fn close(dense: &mut [u64; DENSE2], long: &mut [Vec<u64>; 2], v: u64, len: u64, keep: u64) {
    if len >= DENSE as u64 && keep != 0 {
        long[v as usize & 1].push(len);
    } else {
        dense[(v as usize * DENSE + (len & keep) as usize) & (DENSE2 - 1)] += 1;
    }
}

/// One chunk at position `POS` of a word `w` with boundaries `d`. Branch-free: about 14
/// instructions and two memory increments.
#[inline(always)]
fn chunk<const POS: usize>(table: &mut [u32; TABLE], cross: &mut [u64; CROSS], w: u64, d: u64) {
    let m = d & (0xFFFF << (POS as u32 * CHUNK));
    let lz = m.leading_zeros(); // 64 without a boundary
    let h = 63 ^ lz; // the highest boundary (127, i.e. 63 for shifts, without one)
    let x = d.wrapping_shr(h); // bit 0: h; the next set bit: the boundary that ends the run after h
    let len = (x & x.wrapping_sub(1)).trailing_zeros() as usize; // 64 if none in this word
    let v = (w.wrapping_shr(h) & 1) as usize; // entry h: the value of the run ending at h
    cross[POS << 8 | len << 1 | v] += 1;
    // the chunk's boundaries from h down, h at bit 16, and v in bit 0 (bit 0 of the shifted
    // boundaries would be h - 16, outside the chunk)
    let key = (m.wrapping_shl(lz) >> 47) as usize | v;
    table[key] += 1;
}
impl RunCounter {
    fn new() -> Self {
        RunCounter { table: None, cross: boxed(), dense: boxed(), long: [Vec::new(), Vec::new()], start: 0 }
    }

    /// Whole words (each followed by the next word of `words`, so all but the trace's
    /// last), the first starting at entry `base`.
    #[inline(always)]
    fn words(&mut self, words: &[u64], mut base: u64) {
        let table = &mut **self.table.get_or_insert_with(boxed);
        let (cross, dense, long) = (&mut *self.cross, &mut *self.dense, &mut self.long);
        let mut start = self.start;
        for (&w, &nx) in words.iter().zip(&words[1..]) {
            let d = w ^ ((w >> 1) | (nx << 63));
            // the run in progress ends at the first boundary; the next starts after the last
            let keep = 0u64.wrapping_sub((d != 0) as u64);
            let f = d.trailing_zeros() as u64 & 63;
            close(dense, long, (w >> f) & 1, (base + f + 1).wrapping_sub(start), keep);
            let next_start = (base + 64).wrapping_sub(d.leading_zeros() as u64);
            start = (next_start & keep) | (start & !keep);
            chunk::<0>(table, cross, w, d);
            chunk::<1>(table, cross, w, d);
            chunk::<2>(table, cross, w, d);
            chunk::<3>(table, cross, w, d);
            base += 64;
        }
        self.start = start;
    }

    /// One word boundary by boundary (short traces): `w` starts at entry `base` and is
    /// followed by `nx`; only the boundaries below `pairs` count.
    fn walk(&mut self, w: u64, nx: u64, base: u64, pairs: u64) {
        let mut d = w ^ ((w >> 1) | (nx << 63));
        if pairs < 64 {
            d &= (1u64 << pairs) - 1;
        }
        while d != 0 {
            let j = d.trailing_zeros() as u64;
            close(&mut self.dense, &mut self.long, (w >> j) & 1, base + j + 1 - self.start, !0);
            self.start = base + j + 1;
            d &= d - 1;
        }
    }

    /// The trace's last word (`n - base` ≤ 64 entries) and the trace's last run.
    fn last_word(&mut self, w: u64, base: u64, n: u64) {
        let pairs = n - 1 - base; // pairs (j, j + 1) inside the trace: j < pairs
        self.walk(w, 0, base, pairs);
        close(&mut self.dense, &mut self.long, (w >> pairs) & 1, n - self.start, !0);
    }

    /// Expand the pattern counts into the histograms: the runs between consecutive
    /// boundaries of a key's chunk.
    fn flush(&mut self) {
        let Some(table) = self.table.as_mut() else { return };
        // keys 0 and 1: chunks without a boundary (the rest of the lower half is never
        // touched, so its pages are never faulted in)
        table[..2].fill(0);
        for (p, c) in table[KEYS_FROM..].iter_mut().enumerate() {
            if *c == 0 {
                continue;
            }
            let count = std::mem::take(c) as u64;
            // the chunk's boundaries (the highest at bit 15); the run ending at the i-th
            // boundary from the top has the value top ^ (i & 1)
            let mut dc = (p as u64 >> 1) | 0x8000;
            let top = p as u64 & 1;
            let mut from_top = dc.count_ones() as u64 - 1;
            let mut a = dc.trailing_zeros() as u64;
            dc &= dc - 1;
            while dc != 0 {
                let b = dc.trailing_zeros() as u64;
                from_top -= 1;
                let v = top ^ (from_top & 1);
                self.dense[(v as usize) * DENSE + (b - a) as usize] += count;
                a = b;
                dc &= dc - 1;
            }
        }
    }

    fn finish(mut self) -> [RunHistogram; 2] {
        self.flush();
        for pos in 0..PER_WORD {
            for v in 0..2 {
                // slot v: the entry before the run, of the other value; len 64 discards
                for len in 1..64 {
                    self.dense[(v ^ 1) * DENSE + len] += self.cross[pos << 8 | len << 1 | v];
                }
            }
        }
        let mut out = [RunHistogram::new(), RunHistogram::new()];
        for (v, h) in out.iter_mut().enumerate() {
            let d = &self.dense[v * DENSE..(v + 1) * DENSE];
            for (len, &c) in d.iter().enumerate().skip(1) {
                if c > 0 {
                    h.add_short(len, c);
                }
            }
            for &l in &self.long[v] {
                h.add(l);
            }
        }
        out
    }
}

/// How the pass counts runs (the tests set the thresholds low to reach every path on short
/// traces).
#[derive(Clone, Copy, Debug)]
struct Runs {
    enabled: bool,
    /// Traces of at most this many words walk their boundaries one by one (cheaper than
    /// clearing and expanding the pattern table).
    short_words: usize,
    /// Words between flushes of the u32 pattern counts (at most 4 counts a word).
    flush_words: usize,
}

impl Runs {
    fn new(enabled: bool) -> Self {
        Runs { enabled, short_words: 1 << 12, flush_words: 1 << 29 }
    }
}

/// The generic pass; compiled per CPU feature set by [`pass_dispatch`].
#[inline(always)]
fn pass(t: &BitTrace, marks: &[usize], at: &mut [Cumulative], runs: Runs) -> [RunHistogram; 2] {
    let words = t.words();
    let n = t.len();
    let (mut ones, mut n11) = (0u64, 0u64);
    let mut next_mark = 0usize;
    let mut next_pos = marks.first().copied().unwrap_or(usize::MAX);
    // The counts: two popcounts a word, recorded at every mark (block by block, so that
    // the run counter's loop stays free of them).
    let mut rc = RunCounter::new();
    const BLOCK: usize = 1 << 12;
    let mut k0 = 0usize;
    while k0 < words.len() {
        let k1 = (k0 + BLOCK).min(words.len());
        for k in k0..k1 {
            let w = words[k];
            let nx = words.get(k + 1).copied().unwrap_or(0);
            let y = (w >> 1) | (nx << 63);
            let base = k << 6;
            // marks inside this word (base <= p < base + 64)
            while next_pos < base + 64 {
                let m = (1u64 << (next_pos - base)) - 1;
                at[next_mark] = Cumulative { ones: ones + (w & m).count_ones() as u64, n11: n11 + (w & y & m).count_ones() as u64 };
                next_mark += 1;
                next_pos = marks.get(next_mark).copied().unwrap_or(usize::MAX);
            }
            ones += w.count_ones() as u64;
            n11 += (w & y).count_ones() as u64;
        }
        if runs.enabled {
            // whole words followed by another; the trace's last word separately
            let k1w = k1.min(words.len() - 1);
            if words.len() <= runs.short_words {
                for k in k0..k1w {
                    rc.walk(words[k], words[k + 1], (k << 6) as u64, 64);
                }
            } else if k1w > k0 {
                rc.words(&words[k0..=k1w], (k0 << 6) as u64);
            }
            if k1 == words.len() {
                rc.last_word(words[k1 - 1], ((k1 - 1) << 6) as u64, n as u64);
            } else if k1 / runs.flush_words != k0 / runs.flush_words {
                rc.flush();
            }
        }
        k0 = k1;
    }
    while next_mark < marks.len() {
        at[next_mark] = Cumulative { ones, n11 };
        next_mark += 1;
    }
    if runs.enabled {
        rc.finish()
    } else {
        [RunHistogram::new(), RunHistogram::new()]
    }
}

fn pass_dispatch(t: &BitTrace, marks: &[usize], at: &mut [Cumulative], runs: Runs) -> [RunHistogram; 2] {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if has!("popcnt") && has!("bmi1") && has!("bmi2") && has!("lzcnt") {
            #[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt")]
            unsafe fn v3(t: &BitTrace, marks: &[usize], at: &mut [Cumulative], runs: Runs) -> [RunHistogram; 2] {
                pass(t, marks, at, runs)
            }
            // SAFETY: the CPU has POPCNT, BMI1 (tzcnt), BMI2 (shifts by any register) and
            // LZCNT, checked just above.
            return unsafe { v3(t, marks, at, runs) };
        }
        if has!("popcnt") && has!("bmi1") && has!("lzcnt") {
            #[target_feature(enable = "popcnt,bmi1,lzcnt")]
            unsafe fn fast(t: &BitTrace, marks: &[usize], at: &mut [Cumulative], runs: Runs) -> [RunHistogram; 2] {
                pass(t, marks, at, runs)
            }
            // SAFETY: the CPU has POPCNT, BMI1 (tzcnt) and LZCNT, checked just above.
            return unsafe { fast(t, marks, at, runs) };
        }
    }
    pass(t, marks, at, runs)
}

fn mu(tr: &Transitions) -> f64 {
    tr.mu().unwrap_or(f64::NAN)
}

/// All statistics in one pass. `chunk` > 0 is the chunk size of the μ RMS deviation;
/// `prefixes` (ascending, each ≤ the length) is the μ-convergence grid; `runs = false`
/// skips the run histograms (they then come back empty).
pub fn summarize(t: &BitTrace, chunk: usize, prefixes: &[usize], runs: bool) -> Summary {
    summarize_with(t, chunk, prefixes, Runs::new(runs))
}

fn summarize_with(t: &BitTrace, chunk: usize, prefixes: &[usize], runs: Runs) -> Summary {
    assert!(chunk > 0, "chunk must be positive");
    let n = t.len();
    let n_chunks = n / chunk;
    // Positions whose cumulative counts are needed, ascending: chunk bounds, prefixes, n.
    let mut marks: Vec<usize> = Vec::with_capacity(n_chunks + 1 + prefixes.len() + 1);
    marks.extend((0..=n_chunks).map(|k| k * chunk));
    let chunk_marks = marks.len();
    marks.extend_from_slice(prefixes);
    marks.push(n);
    let mut order: Vec<usize> = (0..marks.len()).collect();
    order.sort_by_key(|&i| marks[i]);
    let sorted: Vec<usize> = order.iter().map(|&i| marks[i]).collect();
    let mut at_sorted = vec![Cumulative::default(); sorted.len()];
    let hists = pass_dispatch(t, &sorted, &mut at_sorted, runs);
    let mut at = vec![Cumulative::default(); marks.len()];
    for (j, &i) in order.iter().enumerate() {
        at[i] = at_sorted[j];
    }
    let whole = super::stats::transitions_between(t, 0, Cumulative::default(), n, at[marks.len() - 1]);
    let chunk_mu: Vec<f64> = (0..n_chunks)
        .map(|k| mu(&super::stats::transitions_between(t, k * chunk, at[k], (k + 1) * chunk, at[k + 1])))
        .collect();
    let chunk_rms = whole.mu().and_then(|m| {
        let devs: Vec<f64> = chunk_mu.iter().filter(|x| !x.is_nan()).map(|x| (x - m).powi(2)).collect();
        (!devs.is_empty()).then(|| (devs.iter().sum::<f64>() / devs.len() as f64).sqrt())
    });
    let prefix_mu = prefixes
        .iter()
        .enumerate()
        .map(|(j, &l)| mu(&super::stats::transitions_between(t, 0, Cumulative::default(), l, at[chunk_marks + j])))
        .collect();
    let [loss_bursts, success_runs] = hists;
    Summary { len: n as u64, ones: at[marks.len() - 1].ones, transitions: whole, loss_bursts, success_runs, chunk_mu, chunk_rms, prefix_mu }
}

/// Histograms of (loss bursts, success runs) in one pass (the fused pass, 16 entries at a
/// time).
pub fn run_histograms(t: &BitTrace) -> (RunHistogram, RunHistogram) {
    let s = summarize(t, t.len() + 1, &[], true);
    (s.loss_bursts, s.success_runs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::convergence::{chunk_mu, chunk_rms_deviation, prefix_mu};
    use crate::trace::stats::transitions;

    fn same(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() < 1e-12)
    }

    /// The fused pass equals the separate computations (each checked against naive
    /// loops in its own module) on many lengths, chunk sizes and bit patterns.
    #[test]
    fn fused_pass_matches_the_separate_statistics() {
        for n in [0usize, 1, 2, 3, 63, 64, 65, 127, 128, 129, 1000, 6001] {
            for pat in 0..4u64 {
                let v: Vec<u8> = (0..n as u64)
                    .map(|i| match pat {
                        0 => ((i.wrapping_mul(2654435761) >> 7) & 1) as u8,
                        1 => (i % 10 < 7) as u8,
                        2 => 1,
                        _ => ((i / 37) % 2) as u8,
                    })
                    .collect();
                let t = BitTrace::from_bytes(&v);
                for chunk in [1usize, 2, 7, 64, 100, 6000] {
                    let grid: Vec<usize> = [0usize, 1, n / 3, n / 2, n].into_iter().filter(|&l| l <= n).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
                    let s = summarize(&t, chunk, &grid, true);
                    assert_eq!(s.len, n as u64);
                    assert_eq!(s.ones, t.count_ones());
                    assert_eq!(s.transitions, transitions(&t), "n={n} pat={pat}");
                    let (z, o) = run_histograms(&t);
                    assert_eq!((s.loss_bursts.to_pairs(), s.success_runs.to_pairs()), (z.to_pairs(), o.to_pairs()), "n={n} pat={pat}");
                    assert!(same(&s.chunk_mu, &chunk_mu(&t, chunk)), "n={n} pat={pat} chunk={chunk}");
                    assert_eq!(s.chunk_rms.map(|x| (x * 1e9).round()), chunk_rms_deviation(&t, chunk).map(|x| (x * 1e9).round()));
                    assert!(same(&s.prefix_mu, &prefix_mu(&t, &grid)), "n={n} pat={pat}");
                }
            }
        }
    }

    /// Naive run-length histograms, one entry at a time (the reference of the word kernel).
    fn naive_histograms(v: &[u8]) -> [RunHistogram; 2] {
        let mut h = [RunHistogram::new(), RunHistogram::new()];
        let mut i = 0;
        while i < v.len() {
            let j = (i..v.len()).find(|&j| v[j] != v[i]).unwrap_or(v.len());
            h[v[i] as usize].add((j - i) as u64);
            i = j;
        }
        h
    }

    /// Property: on random traces of random lengths (most not a multiple of 64) made of
    /// runs of random lengths (means 1 to 3000, so runs inside a 16-entry chunk, across
    /// chunks, across words and beyond the dense histogram all occur), and on all-0, all-1
    /// and alternating traces, the fused pass gives exactly the naive histograms and
    /// transition counts.
    #[test]
    fn property_word_kernel_equals_naive_runs() {
        use rand::Rng;
        let mut r = crate::rng::from_seed(20261123);
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for n in [0usize, 1, 2, 63, 64, 65, 128, 129, 191, 4097, 10_000] {
            cases.push(vec![0; n]);
            cases.push(vec![1; n]);
            cases.push((0..n).map(|i| (i % 2) as u8).collect());
            cases.push((0..n).map(|i| ((i / 16) % 2) as u8).collect());
        }
        for _ in 0..300 {
            let n = r.random_range(0..6000usize);
            let mean = [1.5f64, 3.0, 10.0, 40.0, 3000.0][r.random_range(0..5usize)];
            let mut v = Vec::with_capacity(n);
            let mut bit = r.random_range(0..2u8);
            while v.len() < n {
                let len = 1 + (-(r.random::<f64>().max(1e-300)).ln() * (mean - 1.0)) as usize;
                v.extend(std::iter::repeat(bit).take(len.min(n - v.len())));
                bit ^= 1;
            }
            cases.push(v);
        }
        // the same runs from both kernels: the word kernel (short_words 0, a flush after
        // every block) and the boundary walk
        let kernels = [Runs { enabled: true, short_words: 0, flush_words: 1 }, Runs { enabled: true, short_words: usize::MAX, flush_words: 1 }];
        let long: Vec<u8> = (0..600_000u64).map(|i| ((i.wrapping_mul(0x9E3779B97F4A7C15) >> 61) < 3 || (i / 5000) % 7 == 0) as u8).collect();
        cases.push(long);
        for (v, runs) in cases.iter().flat_map(|v| kernels.iter().map(move |k| (v, *k))) {
            let t = BitTrace::from_bytes(v);
            let s = summarize_with(&t, 1000, &[], runs);
            let [z, o] = naive_histograms(v);
            assert_eq!(s.loss_bursts.to_pairs(), z.to_pairs(), "n={}", v.len());
            assert_eq!(s.success_runs.to_pairs(), o.to_pairs(), "n={}", v.len());
            assert_eq!(s.ones, v.iter().map(|&b| b as u64).sum::<u64>());
            let mut tr = Transitions::default();
            for p in v.windows(2) {
                match (p[0], p[1]) {
                    (0, 0) => tr.n00 += 1,
                    (0, 1) => tr.n01 += 1,
                    (1, 0) => tr.n10 += 1,
                    _ => tr.n11 += 1,
                }
            }
            assert_eq!(s.transitions, tr, "n={}", v.len());
        }
    }

    #[test]
    fn runs_can_be_skipped() {
        let t = BitTrace::from_str01("1100101110").unwrap();
        let s = summarize(&t, 5, &[], false);
        assert_eq!(s.loss_bursts.count() + s.success_runs.count(), 0);
        assert_eq!(s.transitions, Transitions { n00: 1, n01: 2, n10: 3, n11: 3 });
    }
}
