//! Run lengths: loss bursts (runs of 0s) and success runs / error gaps (runs of 1s).
//!
//! Runs are found word-at-a-time: bit j of `w ^ (w >> 1 | next << 63)` marks a change
//! between entries i and i+1, so only the run boundaries are visited.
use super::bits::BitTrace;

/// Visit every maximal run as `(value, length)`, in order.
pub fn for_each_run<F: FnMut(bool, u64)>(t: &BitTrace, mut f: F) {
    let n = t.len();
    if n == 0 {
        return;
    }
    let words = t.words();
    let mut run_start = 0usize;
    let last_pair = n - 1; // pair starts are 0..n-1 (exclusive)
    for (k, &w) in words.iter().enumerate() {
        let base = k << 6;
        if base >= last_pair {
            break;
        }
        let next = if k + 1 < words.len() { words[k + 1] } else { 0 };
        let mut d = w ^ ((w >> 1) | (next << 63));
        let valid = last_pair - base;
        if valid < 64 {
            d &= (1u64 << valid) - 1;
        }
        while d != 0 {
            let j = d.trailing_zeros() as usize;
            let i = base + j; // b_i != b_{i+1}: a run ends at i
            f((w >> j) & 1 == 1, (i + 1 - run_start) as u64);
            run_start = i + 1;
            d &= d - 1;
        }
    }
    f(t.get(n - 1), (n - run_start) as u64);
}

/// Histogram of run lengths: dense below `DENSE` and a sorted list above it, so a single
/// run of 10^8 costs nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunHistogram {
    dense: Vec<u64>,
    long: Vec<u64>,
}

pub(crate) const DENSE: usize = 4096;

impl RunHistogram {
    pub fn new() -> Self {
        RunHistogram { dense: vec![0; DENSE], long: Vec::new() }
    }

    #[inline]
    pub fn add(&mut self, len: u64) {
        if (len as usize) < DENSE {
            self.dense[len as usize] += 1;
        } else {
            self.long.push(len);
        }
    }

    /// `count` runs of length `len` (`len` < 4096, the dense part).
    #[inline]
    pub(crate) fn add_short(&mut self, len: usize, count: u64) {
        self.dense[len] += count;
    }

    /// Distinct lengths (ascending) and their counts.
    pub fn to_pairs(&self) -> (Vec<u64>, Vec<u64>) {
        let (mut lens, mut counts) = (Vec::new(), Vec::new());
        for (l, &c) in self.dense.iter().enumerate() {
            if c > 0 {
                lens.push(l as u64);
                counts.push(c);
            }
        }
        let mut long = self.long.clone();
        long.sort_unstable();
        for l in long {
            if lens.last() == Some(&l) {
                *counts.last_mut().unwrap() += 1;
            } else {
                lens.push(l);
                counts.push(1);
            }
        }
        (lens, counts)
    }

    pub fn count(&self) -> u64 {
        self.dense.iter().sum::<u64>() + self.long.len() as u64
    }

    pub fn total_length(&self) -> u64 {
        self.dense.iter().enumerate().map(|(l, &c)| l as u64 * c).sum::<u64>() + self.long.iter().sum::<u64>()
    }

    pub fn max(&self) -> u64 {
        self.long.iter().copied().max().unwrap_or_else(|| {
            self.dense.iter().rposition(|&c| c > 0).map(|l| l as u64).unwrap_or(0)
        })
    }

    pub fn mean(&self) -> Option<f64> {
        let c = self.count();
        (c > 0).then(|| self.total_length() as f64 / c as f64)
    }
}

/// All run lengths of `value`, in trace order.
pub fn run_lengths(t: &BitTrace, value: bool) -> Vec<u64> {
    let mut out = Vec::new();
    for_each_run(t, |v, l| {
        if v == value {
            out.push(l)
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::summary::run_histograms;

    fn naive_runs(v: &[u8]) -> Vec<(bool, u64)> {
        let mut out: Vec<(bool, u64)> = Vec::new();
        for &b in v {
            match out.last_mut() {
                Some((val, l)) if *val == (b == 1) => *l += 1,
                _ => out.push((b == 1, 1)),
            }
        }
        out
    }

    #[test]
    fn runs_match_naive() {
        for n in [0usize, 1, 2, 63, 64, 65, 127, 128, 129, 500] {
            let v: Vec<u8> = (0..n).map(|i| ((i * i + 3 * i) % 11 < 6) as u8).collect();
            let t = BitTrace::from_bytes(&v);
            let mut got = Vec::new();
            for_each_run(&t, |v, l| got.push((v, l)));
            assert_eq!(got, naive_runs(&v), "n={n}");
        }
    }

    #[test]
    fn histograms_match_naive_runs() {
        for n in [0usize, 1, 15, 16, 17, 63, 64, 65, 5000, 20000] {
            let v: Vec<u8> = (0..n as u64).map(|i| ((i * i / 7 + (i >> 4) * 3) % 5 < 2) as u8).collect();
            let (z, o) = run_histograms(&BitTrace::from_bytes(&v));
            let (mut zn, mut on) = (RunHistogram::new(), RunHistogram::new());
            for (val, l) in naive_runs(&v) {
                if val { on.add(l) } else { zn.add(l) }
            }
            assert_eq!((z.to_pairs(), o.to_pairs()), (zn.to_pairs(), on.to_pairs()), "n={n}");
        }
    }

    #[test]
    fn long_runs_and_histogram() {
        let mut t = BitTrace::filled(10_000, true);
        t.push(false);
        t.push(false);
        t.push(true);
        let (z, o) = run_histograms(&t);
        assert_eq!(o.to_pairs(), (vec![1, 10_000], vec![1, 1]));
        assert_eq!(z.to_pairs(), (vec![2], vec![1]));
        assert_eq!(o.max(), 10_000);
        assert_eq!(z.max(), 2);
        assert_eq!(o.total_length() + z.total_length(), t.len() as u64);
        assert_eq!(o.mean(), Some(5000.5));
        assert_eq!(run_lengths(&t, true), vec![10_000, 1]);
    }
}
