//! Every statistic of `burstlab.stats.trace_stats` in one pass over the packed words:
//! PRR, the transition counts and μ (Srinivasan et al. §5.2-5.3), both run-length
//! histograms (§4 Fig. 4, §8 Fig. 15; Barsocchi et al. §IV), μ of every chunk and its RMS
//! deviation (§8 Fig. 16) and μ over a grid of prefixes (§8 Figs. 17-18).
//!
//! The pass keeps two running counts, the 1s and the |11| pairs (two hardware popcounts
//! per word, [`super::stats`]), records them at every chunk and prefix boundary, and counts
//! runs 16 entries at a time ([`RunCounter`]). Every range's transition counts then follow
//! from the counts at its two ends, so chunks and prefixes cost nothing beyond the one pass.
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

/// Run lengths, 16 entries at a time. A run that lies wholly inside a 16-entry chunk is
/// determined by the chunk's bit pattern alone, so the pass only counts patterns
/// (`table[x] += 1`) and expands each pattern's inner runs once at the end; the runs that
/// touch a chunk boundary are stitched from the chunk's leading and trailing run lengths
/// with branch-free arithmetic. Cost: a few operations per 16 entries, however many runs.
///
/// Branch-free updates that must not count go to discard slots, one per chunk position in
/// the word, so that consecutive updates never wait on the same memory location (a
/// read-modify-write chain through one address costs a store-forwarding latency each).
const CHUNK: u32 = 16;
const CMASK: u64 = (1 << CHUNK) - 1;
const PER_WORD: usize = 64 / CHUNK as usize;
/// Dense histogram stride per value: lengths 0..DENSE, then the discard slots.
const STRIDE: usize = DENSE + PER_WORD;

struct RunCounter {
    /// Pattern counts, then one discard slot per chunk position (uniform chunks have no
    /// inner run).
    table: Vec<u32>,
    /// Dense counts: `dense[v * STRIDE + len]`, v = 0 (loss bursts) or 1 (success runs).
    dense: Vec<u64>,
    long: [Vec<u64>; 2],
    /// The run in progress: its value and length so far.
    pval: u64,
    plen: u64,
}

impl RunCounter {
    fn new(first: u64) -> Self {
        RunCounter { table: vec![0; (1 << CHUNK) + PER_WORD], dense: vec![0; 2 * STRIDE], long: [Vec::new(), Vec::new()], pval: first, plen: 0 }
    }

    /// Count a run of value `v` and length `len` if `keep` (all ones) or touch discard
    /// slot `pos` (`keep` = 0); branch-free except for the rare long run.
    #[inline(always)]
    fn add(&mut self, v: u64, len: u64, keep: u64, pos: usize) {
        if len < DENSE as u64 {
            let slot = (len & keep) | ((DENSE + pos) as u64 & !keep);
            self.dense[(v as usize) * STRIDE + slot as usize] += 1;
        } else if keep != 0 {
            self.long[v as usize].push(len);
        }
    }

    /// One full chunk (bits of `x`, first entry in bit 0) at position `POS` of its word.
    #[inline(always)]
    fn chunk<const POS: usize>(&mut self, x: u64) {
        let (b0, bl) = (x & 1, x >> (CHUNK - 1));
        // leading run: entries equal to b0 from the start (CHUNK if the chunk is uniform)
        let lead = ((x ^ (0u64.wrapping_sub(b0) & CMASK)) | (1 << CHUNK)).trailing_zeros() as u64;
        // trailing run: entries equal to the last one, at the end
        let z = (x ^ (0u64.wrapping_sub(bl) & CMASK)) & CMASK;
        let trail = ((z << (64 - CHUNK)) | (1 << (63 - CHUNK))).leading_zeros() as u64;
        // all-ones masks: the chunk is uniform; the pending run continues into it
        let whole = 0u64.wrapping_sub(lead >> 4); // lead is 1..=16: lead >> 4 == 1 iff uniform
        let same = (b0 ^ self.pval).wrapping_sub(1); // b0 == pval → all ones, else 0
        let idx = (x & !whole) | (((1 << CHUNK) + POS) as u64 & whole);
        self.table[idx as usize] += 1;
        // The pending run ends here unless the chunk is uniform and continues it.
        self.add(self.pval, self.plen + (lead & same), !(same & whole), POS);
        // A new leading run that also ends inside the chunk.
        self.add(b0, lead, !same & !whole, POS);
        self.plen = trail + (self.plen & whole & same);
        self.pval = bl;
    }

    /// A full word, chunk by chunk.
    #[inline(always)]
    fn word(&mut self, w: u64) {
        self.chunk::<0>(w & CMASK);
        self.chunk::<1>((w >> CHUNK) & CMASK);
        self.chunk::<2>((w >> (2 * CHUNK)) & CMASK);
        self.chunk::<3>(w >> (3 * CHUNK));
    }

    /// Entries one at a time (the trace's last, partial word).
    fn bits(&mut self, w: u64, n: usize) {
        for j in 0..n {
            let b = (w >> j) & 1;
            if b != self.pval {
                if self.plen > 0 {
                    self.add(self.pval, self.plen, !0, 0);
                }
                self.pval = b;
                self.plen = 0;
            }
            self.plen += 1;
        }
    }

    /// Expand the pattern counts into the histograms: every run of a pattern that neither
    /// starts at its first entry nor ends at its last is an inner run.
    fn flush(&mut self) {
        for x in 0..(1usize << CHUNK) {
            let c = self.table[x] as u64;
            if c == 0 {
                continue;
            }
            self.table[x] = 0;
            let mut changes = ((x ^ (x >> 1)) as u64) & (CMASK >> 1); // bit j: entry j != entry j+1
            if changes.count_ones() < 2 {
                continue;
            }
            let mut prev = changes.trailing_zeros() as usize;
            changes &= changes - 1;
            while changes != 0 {
                let j = changes.trailing_zeros() as usize;
                let v = (x >> j) & 1;
                self.dense[v * STRIDE + (j - prev)] += c;
                prev = j;
                changes &= changes - 1;
            }
        }
    }

    fn finish(mut self, n: usize) -> [RunHistogram; 2] {
        if n > 0 {
            self.add(self.pval, self.plen, !0, 0);
        }
        self.flush();
        let mut out = [RunHistogram::new(), RunHistogram::new()];
        for (v, h) in out.iter_mut().enumerate() {
            let d = &self.dense[v * STRIDE..v * STRIDE + DENSE];
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

/// The generic pass; compiled per CPU feature set by [`pass_dispatch`].
#[inline(always)]
fn pass(t: &BitTrace, marks: &[usize], at: &mut [Cumulative], runs: bool) -> [RunHistogram; 2] {
    let words = t.words();
    let n = t.len();
    let (mut ones, mut n11) = (0u64, 0u64);
    let mut next_mark = 0usize;
    let mut rc = RunCounter::new(words.first().map_or(0, |w| w & 1));
    let full_words = n / 64;
    for (k, &w) in words.iter().enumerate() {
        let nx = words.get(k + 1).copied().unwrap_or(0);
        let y = (w >> 1) | (nx << 63);
        let base = k << 6;
        // marks inside this word (base <= p < base + 64)
        while next_mark < marks.len() && marks[next_mark] < base + 64 {
            let m = (1u64 << (marks[next_mark] - base)) - 1;
            at[next_mark] = Cumulative { ones: ones + (w & m).count_ones() as u64, n11: n11 + (w & y & m).count_ones() as u64 };
            next_mark += 1;
        }
        ones += w.count_ones() as u64;
        n11 += (w & y).count_ones() as u64;
        if runs {
            if k < full_words {
                rc.word(w);
                if k & 0x3FFF_FFFF == 0x3FFF_FFFF {
                    rc.flush(); // u32 pattern counts: at most 2^30 words (2^32 chunks) between flushes
                }
            } else {
                rc.bits(w, n - base);
            }
        }
    }
    while next_mark < marks.len() {
        at[next_mark] = Cumulative { ones, n11 };
        next_mark += 1;
    }
    if runs {
        rc.finish(n)
    } else {
        [RunHistogram::new(), RunHistogram::new()]
    }
}

fn pass_dispatch(t: &BitTrace, marks: &[usize], at: &mut [Cumulative], runs: bool) -> [RunHistogram; 2] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("popcnt") && std::arch::is_x86_feature_detected!("bmi1") && std::arch::is_x86_feature_detected!("lzcnt") {
            #[target_feature(enable = "popcnt,bmi1,lzcnt")]
            unsafe fn fast(t: &BitTrace, marks: &[usize], at: &mut [Cumulative], runs: bool) -> [RunHistogram; 2] {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::convergence::{chunk_mu, chunk_rms_deviation, prefix_mu};
    use crate::trace::runs::run_histograms;
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

    #[test]
    fn runs_can_be_skipped() {
        let t = BitTrace::from_str01("1100101110").unwrap();
        let s = summarize(&t, 5, &[], false);
        assert_eq!(s.loss_bursts.count() + s.success_runs.count(), 0);
        assert_eq!(s.transitions, Transitions { n00: 1, n01: 2, n10: 3, n11: 3 });
    }
}
