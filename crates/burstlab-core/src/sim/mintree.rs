//! A tournament tree over the links' next events: each leaf holds one link's earliest
//! (time, sequence) key — its head arrival, or in time mode its next loss decision — and
//! the root the earliest of all. Updating a leaf costs O(log links) and reading the
//! minimum O(1), so the engine finds the next packet event among many links without a
//! heap entry per packet per hop (a link's key changes only when its pipe does). With
//! few links (≤ [`SCAN`]) a linear scan of the keys is cheaper than keeping the tree, and
//! is used instead.
use crate::time::Nanos;

pub type Key = (Nanos, u64);
pub const NONE: Key = (Nanos::MAX, u64::MAX);
/// Up to this many links the minimum is found by scanning.
pub const SCAN: usize = 8;

#[derive(Clone, Debug)]
pub struct MinTree {
    /// Number of leaves (a power of two ≥ the number of links).
    size: usize,
    /// Leaf keys.
    keys: Vec<Key>,
    /// Internal nodes (1-based heap layout, node 1 = root): index of the winning leaf.
    win: Vec<u32>,
}

impl MinTree {
    pub fn new(n: usize) -> Self {
        let size = n.max(1).next_power_of_two();
        let mut t = MinTree { size, keys: vec![NONE; size], win: vec![0; size.max(2)] };
        for node in (1..size).rev() {
            t.win[node] = t.pick(node);
        }
        if size == 1 {
            t.win[1] = 0;
        }
        t
    }

    #[inline]
    fn child_winner(&self, c: usize) -> u32 {
        if c >= self.size {
            (c - self.size) as u32
        } else {
            self.win[c]
        }
    }

    #[inline]
    fn pick(&self, node: usize) -> u32 {
        let (a, b) = (self.child_winner(2 * node), self.child_winner(2 * node + 1));
        if self.keys[b as usize] < self.keys[a as usize] {
            b
        } else {
            a
        }
    }

    /// Set leaf `i`'s key.
    #[inline]
    pub fn set(&mut self, i: usize, key: Key) {
        if self.keys[i] == key {
            return;
        }
        self.keys[i] = key;
        if self.size <= SCAN {
            return;
        }
        let mut node = (i + self.size) / 2;
        while node >= 1 {
            self.win[node] = self.pick(node);
            node /= 2;
        }
    }

    /// The earliest key and its leaf (the lowest leaf among equal keys).
    #[inline]
    pub fn min(&self) -> (Key, usize) {
        if self.size <= SCAN {
            let mut best = (self.keys[0], 0);
            for (i, &k) in self.keys.iter().enumerate().skip(1) {
                if k < best.0 {
                    best = (k, i);
                }
            }
            return best;
        }
        let w = self.win[1] as usize;
        (self.keys[w], w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, RngExt};

    #[test]
    fn min_matches_a_linear_scan() {
        for n in [1usize, 2, 3, 5, 8, 9, 13, 64, 300] {
            let mut t = MinTree::new(n);
            let mut keys = vec![NONE; n];
            let mut g = stream(n as u64, 1);
            for _ in 0..2000 {
                let i = g.random_range(0..n);
                let k = if g.random_range(0..5) == 0 { NONE } else { (g.random_range(0..50), g.random_range(0..1000)) };
                keys[i] = k;
                t.set(i, k);
                let want = keys.iter().enumerate().min_by_key(|(_, k)| **k).map(|(i, k)| (*k, i)).unwrap();
                assert_eq!(t.min().0, want.0);
                assert_eq!(keys[t.min().1], want.0);
            }
        }
    }
}
