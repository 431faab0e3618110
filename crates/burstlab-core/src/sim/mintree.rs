//! A tournament tree over the engine's next events: each leaf holds one source's earliest
//! key — a link's head arrival (or, in time mode, its next loss decision), or the timer
//! heap's top — and every internal node the smallest key below it with its leaf, so the
//! root is the next event of the whole simulation. Updating a leaf costs O(log leaves)
//! and stops early once a node is unchanged; reading the minimum is one load. The engine
//! thus finds the next packet event among many links without a heap entry per packet per
//! hop (a link's key changes only when its pipe's head does).
//!
//! A key is (time, insertion sequence) packed into one `u128` (time in the high half), so
//! that ordering by time, then by sequence, is one integer comparison. Sequences are
//! unique, so keys are too (except [`NONE`], for an empty source).
use crate::time::Nanos;

pub type Key = u128;
/// The key of a source with no event.
pub const NONE: Key = u128::MAX;

/// The key of an event at time `t` with insertion sequence `seq`.
#[inline(always)]
pub fn key(t: Nanos, seq: u64) -> Key {
    ((t as u128) << 64) | seq as u128
}

/// The time of a key.
#[inline(always)]
pub fn key_time(k: Key) -> Nanos {
    (k >> 64) as Nanos
}

/// A node: the smallest key below it and the leaf (source) holding it.
#[derive(Clone, Copy, Debug)]
struct Node {
    key: Key,
    leaf: u32,
}

/// How many sources may be kept beside the tree ([`MinTree::with_hot`]).
pub const HOT: usize = 2;
/// Marks a source kept beside the tree in [`MinTree::place`].
const HOT_FLAG: u32 = 1 << 31;

#[derive(Clone, Debug)]
pub struct MinTree {
    /// Number of leaves (a power of two ≥ the number of sources in the tree).
    size: usize,
    /// 1-based heap layout, node 1 = the root; the leaves are nodes size..2·size; a
    /// node's `leaf` is the source that holds its key. Its length is a power of two, so
    /// indices are masked rather than bounds-checked.
    nodes: Box<[Node]>,
    /// Where each source's key lives: its leaf's position, or `HOT_FLAG | slot`.
    place: Vec<u32>,
    /// The sources kept beside the tree (the busiest: the engine's bottleneck links),
    /// whose updates then cost one store, and their keys, compared at every `min`.
    hot: [Key; HOT],
    hot_src: [u32; HOT],
}

impl MinTree {
    pub fn new(n: usize) -> Self {
        Self::with_hot(n, &[])
    }

    /// A tree over sources `0..n`, but for those in `hot` (at most [`HOT`], distinct).
    pub fn with_hot(n: usize, hot: &[usize]) -> Self {
        assert!(hot.len() <= HOT, "at most {HOT} sources beside the tree");
        let mut place = vec![0u32; n];
        let mut hot_src = [0u32; HOT];
        for (slot, &i) in hot.iter().enumerate() {
            place[i] = HOT_FLAG | slot as u32;
            hot_src[slot] = i as u32;
        }
        let cold: Vec<usize> = (0..n).filter(|&i| place[i] & HOT_FLAG == 0).collect();
        let size = cold.len().max(1).next_power_of_two();
        let mut nodes = vec![Node { key: NONE, leaf: 0 }; 2 * size];
        for (pos, &i) in cold.iter().enumerate() {
            place[i] = pos as u32;
            nodes[size + pos].leaf = i as u32;
        }
        MinTree { size, nodes: nodes.into_boxed_slice(), place, hot: [NONE; HOT], hot_src }
    }

    /// Set source `i`'s key.
    #[inline(always)]
    pub fn set(&mut self, i: usize, key: Key) {
        let p = self.place[i];
        if p & HOT_FLAG != 0 {
            self.hot[(p & 1) as usize] = key;
        } else {
            self.set_leaf(p as usize, i as u32, key);
        }
    }

    /// Set the key of the leaf at `pos` (source `src`): a larger key replays its matches
    /// up to the root.
    #[inline]
    fn set_leaf(&mut self, pos: usize, src: u32, key: Key) {
        let nodes = &mut self.nodes[..];
        debug_assert!(pos < self.size && nodes.len() == 2 * self.size);
        let Some(mask) = nodes.len().checked_sub(1) else { return };
        let mut n = (pos + self.size) & mask;
        let old = nodes[n].key;
        nodes[n].key = key;
        if key < old {
            // A smaller key (a packet entering an empty link) climbs while it wins: a
            // node whose key is no larger is unchanged, and so is everything above it.
            while n > 1 {
                n >>= 1;
                let p = &mut nodes[n & mask];
                if p.key <= key {
                    return;
                }
                *p = Node { key, leaf: src };
            }
            return;
        }
        let (mut k, mut w) = (key, src);
        while n > 1 {
            let sib = nodes[(n ^ 1) & mask];
            // Branch-free minimum: which side wins is unpredictable.
            let lt = (sib.key < k) as u128;
            let m = lt.wrapping_neg();
            k = (sib.key & m) | (k & !m);
            let m32 = (lt as u32).wrapping_neg();
            w = (sib.leaf & m32) | (w & !m32);
            n >>= 1;
            nodes[n & mask] = Node { key: k, leaf: w };
        }
    }

    /// The earliest key and its source.
    #[inline(always)]
    pub fn min(&self) -> (Key, usize) {
        let root = self.nodes[1];
        let (mut k, mut w) = (root.key, root.leaf);
        for j in 0..HOT {
            if self.hot[j] < k {
                k = self.hot[j];
                w = self.hot_src[j];
            }
        }
        (k, w as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, RngExt};

    /// Random updates of `n` sources (a third of them to the `hot` ones, if any), each
    /// followed by a check of the minimum against a scan of all keys.
    fn check_against_a_scan(n: usize, hot: &[usize], seed: u64) {
        let mut t = MinTree::with_hot(n, hot);
        let mut keys = vec![NONE; n];
        let mut g = stream(seed, 1);
        for seq in 0..3000u64 {
            let i = if !hot.is_empty() && g.random_range(0..3) == 0 {
                hot[g.random_range(0..hot.len())]
            } else {
                g.random_range(0..n)
            };
            let k = if g.random_range(0..5) == 0 { NONE } else { key(g.random_range(0..50), seq) };
            keys[i] = k;
            t.set(i, k);
            let want = *keys.iter().min().unwrap();
            assert_eq!(t.min().0, want);
            assert_eq!(keys[t.min().1], want);
        }
    }

    #[test]
    fn min_matches_a_linear_scan() {
        for n in [1usize, 2, 3, 5, 8, 9, 13, 64, 300] {
            check_against_a_scan(n, &[], n as u64);
        }
    }

    #[test]
    fn sources_beside_the_tree() {
        for (n, hot) in [(1usize, vec![0usize]), (2, vec![0, 1]), (5, vec![3]), (9, vec![8, 2]), (40, vec![0, 39])] {
            check_against_a_scan(n, &hot, n as u64 + 100);
        }
    }

    #[test]
    fn keys_order_by_time_then_sequence() {
        assert!(key(1, u64::MAX) < key(2, 0));
        assert!(key(5, 3) < key(5, 4));
        assert_eq!(key_time(key(123_456_789_000, 42)), 123_456_789_000);
        assert!(key(Nanos::MAX - 1, u64::MAX) < NONE);
    }
}
