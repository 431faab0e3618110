//! LT-TCP's blocks that have lost more than their parity, for the send loop's question
//! "which block needs an RFEC packet now?" (`lt.rs`, [`super::lt::Lt::rfec_due`]): the first,
//! in sequence order, with ⌈(lost − P)/(1 − E)⌉ > RFEC sent, E the current erasure
//! estimate.
//!
//! The rule's left side grows with E (rounding included: 1 − E, the division and the ceiling
//! are each monotone), so each block has a threshold θ, the largest E at which it needs
//! nothing more: it needs a packet exactly when E > θ. The thresholds sit in a tree of
//! minima over the blocks in sequence order, and the first block with θ < E is found by
//! one descent: the question costs O(log n) whatever the number of blocks, instead of a
//! scan of all of them on every packet sent (issue 34: a hole that stays open under a
//! window of 10^6 slots left thousands of blocks over their parity, each already sent its
//! RFEC packets, and the scan made the run quadratic). θ is recomputed when a block's count
//! of lost slots or of RFEC packets sent changes.

/// Whether a block that has lost `over` slots more than its parity, and sent `sent` RFEC
/// packets, needs another at erasure estimate `e` (Subramanian et al., LT-TCP's reactive FEC:
/// ⌈(lost − P)/(1 − E)⌉ in all).
#[inline]
pub fn needs_rfec(over: u32, sent: u32, e: f64) -> bool {
    ((over as f64 / (1.0 - e)).ceil() as u32) > sent
}

/// The largest erasure estimate at which [`needs_rfec`] is false (−1 if it is true at 0,
/// +∞ if false at 1), found by bisection over the bit patterns of [0, 1] (ordered as the
/// numbers are).
pub fn threshold(over: u32, sent: u32) -> f64 {
    if needs_rfec(over, sent, 0.0) {
        return -1.0;
    }
    if !needs_rfec(over, sent, 1.0) {
        return f64::INFINITY;
    }
    let (mut lo, mut hi) = (0f64.to_bits(), 1f64.to_bits());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if needs_rfec(over, sent, f64::from_bits(mid)) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    f64::from_bits(lo)
}

/// The blocks over their parity (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct Deficit {
    /// Block starts in sequence order, and their thresholds; those below `head` are gone.
    starts: Vec<u64>,
    theta: Vec<f64>,
    head: usize,
    /// Minima of the thresholds: leaf `j` (node `cap + j`) is `theta[j]`, +∞ for a gone
    /// block or none.
    tree: Vec<f64>,
    cap: usize,
}

impl Deficit {
    pub fn is_empty(&self) -> bool {
        self.head == self.starts.len()
    }

    /// The blocks' starts, in sequence order.
    pub fn starts(&self) -> &[u64] {
        &self.starts[self.head..]
    }

    /// Block `start` (after every block held) crossed its parity; `theta`: its threshold.
    pub fn push(&mut self, start: u64, theta: f64) {
        debug_assert!(self.starts().last().is_none_or(|&l| l < start), "blocks cross in sequence order");
        self.starts.push(start);
        self.theta.push(theta);
        if self.starts.len() > self.cap {
            self.rebuild((self.cap * 2).max(16));
        } else {
            self.set_leaf(self.starts.len() - 1, theta);
        }
    }

    /// Forget the blocks that start below `first` (acknowledged whole).
    pub fn pop_below(&mut self, first: u64) {
        while self.head < self.starts.len() && self.starts[self.head] < first {
            self.set_leaf(self.head, f64::INFINITY);
            self.head += 1;
        }
        if self.head >= 64 && 2 * self.head >= self.starts.len() {
            // Compact: the positions move down by `head`.
            self.starts.drain(..self.head);
            self.theta.drain(..self.head);
            self.head = 0;
            self.rebuild(self.cap);
        }
    }

    /// Block `start`'s threshold is now `theta` (no change if it is not held).
    pub fn set(&mut self, start: u64, theta: f64) {
        let j = self.head + self.starts().partition_point(|&s| s < start);
        if self.starts.get(j) == Some(&start) {
            self.set_leaf(j, theta);
        }
    }

    /// The first block at or after position `from` (of an earlier answer's + 1) whose
    /// threshold is below `e`: (its position, its start).
    pub fn first_needing(&self, e: f64, from: usize) -> Option<(usize, u64)> {
        let j = self.descend(1, 0, self.cap, e, from.max(self.head))?;
        Some((j, self.starts[j]))
    }

    fn descend(&self, node: usize, l: usize, r: usize, e: f64, from: usize) -> Option<usize> {
        // `!(x < e)`: a NaN estimate needs nothing, as in `needs_rfec`.
        if r <= from || self.cap == 0 || !(self.tree[node] < e) {
            return None;
        }
        if r - l == 1 {
            return Some(l);
        }
        let m = (l + r) / 2;
        self.descend(2 * node, l, m, e, from).or_else(|| self.descend(2 * node + 1, m, r, e, from))
    }

    fn set_leaf(&mut self, j: usize, theta: f64) {
        if j >= self.head {
            self.theta[j] = theta;
        }
        let mut n = self.cap + j;
        self.tree[n] = theta;
        while n > 1 {
            n /= 2;
            self.tree[n] = self.tree[2 * n].min(self.tree[2 * n + 1]);
        }
    }

    /// Lay the tree out again for `cap` leaves, from the thresholds.
    fn rebuild(&mut self, cap: usize) {
        self.cap = cap;
        self.tree = vec![f64::INFINITY; 2 * cap];
        for j in self.head..self.starts.len() {
            self.tree[cap + j] = self.theta[j];
        }
        for n in (1..cap).rev() {
            self.tree[n] = self.tree[2 * n].min(self.tree[2 * n + 1]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, RngExt};

    /// The threshold splits the estimates exactly: needed above it, not at or below it.
    #[test]
    fn threshold_is_exact() {
        let mut g = stream(5, 1);
        for _ in 0..2000 {
            let (over, sent) = (g.random_range(1..300u32), g.random_range(0..400u32));
            let t = threshold(over, sent);
            if t.is_finite() && t >= 0.0 {
                assert!(!needs_rfec(over, sent, t) && needs_rfec(over, sent, f64::from_bits(t.to_bits() + 1)), "{over} {sent} {t}");
            }
            for _ in 0..20 {
                let e = g.random_range(0.0..1.0);
                assert_eq!(needs_rfec(over, sent, e), e > t, "{over} {sent} {e} {t}");
            }
        }
        // Known answers: 3 over the parity, 2 sent: needed at any E; 3 sent: while 1 − E
        // rounds to 1 (3/(1 − E) ≤ 3); 4 sent: up to 1/4 (3/0.75 = 4).
        assert_eq!(threshold(3, 2), -1.0);
        let t = threshold(3, 3);
        assert!((0.0..1e-15).contains(&t) && 1.0 - t == 1.0 && 1.0 - f64::from_bits(t.to_bits() + 1) < 1.0, "{t}");
        assert!((threshold(3, 4) - 0.25).abs() < 1e-15 && !needs_rfec(3, 4, 0.25) && needs_rfec(3, 4, 0.2500001));
    }

    /// The first block needing a packet against a scan of every block, while blocks cross,
    /// change their thresholds and are acknowledged, and the tree grows and compacts.
    #[test]
    fn first_needing_matches_a_scan() {
        let mut g = stream(6, 1);
        let mut d = Deficit::default();
        let mut want: Vec<(u64, f64)> = Vec::new();
        let mut next = 0u64;
        for _ in 0..20_000 {
            match g.random_range(0..6) {
                0 | 1 => {
                    next += g.random_range(1..50u64);
                    let t = g.random_range(-0.1..1.0);
                    d.push(next, t);
                    want.push((next, t));
                }
                2 if !want.is_empty() => {
                    let (s, _) = want[g.random_range(0..want.len())];
                    let t = g.random_range(-0.1..1.0);
                    d.set(s, t);
                    want.iter_mut().find(|w| w.0 == s).unwrap().1 = t;
                    if want.iter().all(|w| w.0 != s + 1) {
                        d.set(s + 1, -1.0); // not a block held: no change
                    }
                }
                3 if !want.is_empty() => {
                    let first = want[g.random_range(0..want.len())].0 + g.random_range(0..2u64);
                    d.pop_below(first);
                    want.retain(|w| w.0 >= first);
                }
                _ => {}
            }
            assert_eq!(d.starts(), want.iter().map(|w| w.0).collect::<Vec<_>>());
            assert_eq!(d.is_empty(), want.is_empty());
            let e = g.random_range(0.0..1.0);
            let mut from = 0;
            let mut got = Vec::new();
            while let Some((j, s)) = d.first_needing(e, from) {
                got.push(s);
                from = j + 1;
            }
            let all: Vec<u64> = want.iter().filter(|w| e > w.1).map(|w| w.0).collect();
            assert_eq!(got, all, "e {e}");
        }
    }
}
