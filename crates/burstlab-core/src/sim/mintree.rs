//! A tournament tree over the engine's next events: each leaf holds one source's earliest
//! key — a link's head arrival (or, in time mode, its next loss decision), or the timer
//! heap's top — and every internal node the smallest key below it with its leaf, so the
//! root is the next event of the whole simulation. Updating a leaf costs O(log leaves)
//! and stops early once a node is unchanged; reading the minimum is one load. The engine
//! thus finds the next packet event among many links without a heap entry per packet per
//! hop (a link's key changes only when its pipe's head does).
//!
//! A key is (time, insertion sequence), handed over packed into one `u128` (time in the
//! high half); ordered by time, then by sequence. The tree's nodes hold the time and the
//! source, and each source's sequence sits in a table read only when two times are equal,
//! so a match is one 64-bit comparison. Sequences are unique, so keys are too (except
//! [`NONE`], for an empty source).
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

/// How many sources may be kept beside the tree ([`MinTree::with_hot`]).
pub const HOT: usize = 2;
/// Marks a source kept beside the tree in [`MinTree::place`].
const HOT_FLAG: u32 = 1 << 31;

#[derive(Clone, Debug)]
pub struct MinTree {
    /// Number of leaves (a power of two ≥ the number of sources in the tree).
    size: usize,
    /// 1-based heap layout, node 1 = the root; the leaves are nodes size..2·size. A node is
    /// the time of the smallest key below it (`times`) and the source that holds it
    /// (`leaves`), in two arrays: a replay reads a sibling's time and source and writes its
    /// parent's with plain scaled loads and stores. Their length is 2·size.
    times: Box<[Nanos]>,
    leaves: Box<[u32]>,
    /// Each source's key's sequence (length a power of two ≥ the sources, masked): a
    /// match compares times, and sequences only when the times are equal, so a match is
    /// one 64-bit comparison.
    seqs: Box<[u64]>,
    /// Where each source's key lives: its leaf's position, or `HOT_FLAG | slot`.
    place: Vec<u32>,
    /// The sources kept beside the tree (the busiest: the engine's bottleneck links),
    /// whose updates then cost two stores, and their keys, compared at every `min`.
    hot_t: [Nanos; HOT],
    hot_seq: [u64; HOT],
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
        let mut leaves = vec![0u32; 2 * size];
        for (pos, &i) in cold.iter().enumerate() {
            place[i] = pos as u32;
            leaves[size + pos] = i as u32;
        }
        MinTree {
            size,
            times: vec![Nanos::MAX; 2 * size].into_boxed_slice(),
            leaves: leaves.into_boxed_slice(),
            seqs: vec![u64::MAX; n.max(1).next_power_of_two()].into_boxed_slice(),
            place,
            hot_t: [Nanos::MAX; HOT],
            hot_seq: [u64::MAX; HOT],
            hot_src,
        }
    }

    /// The sequence of source `src`'s key.
    #[inline(always)]
    fn seq(&self, src: u32) -> u64 {
        self.seqs[src as usize & (self.seqs.len() - 1)]
    }

    /// Set source `i`'s key.
    #[inline(always)]
    pub fn set(&mut self, i: usize, key: Key) {
        let (t, seq) = ((key >> 64) as Nanos, key as u64);
        let p = self.place[i];
        if p & HOT_FLAG != 0 {
            let j = (p & 1) as usize;
            self.hot_t[j] = t;
            self.hot_seq[j] = seq;
        } else {
            self.set_leaf(p as usize, i as u32, t, seq);
        }
    }

    /// Set the key of the leaf at `pos` (source `src`) to (t, seq): a smaller key climbs
    /// while it wins, a larger one replays its matches up to the root.
    #[inline]
    fn set_leaf(&mut self, pos: usize, src: u32, t: Nanos, seq: u64) {
        // `pos` is a cold source's place (`with_hot`: below the number of cold sources, at
        // most `size`), and `times` and `leaves` have 2·size entries: every node index below
        // is in 1..2·size (a leaf, its sibling, their ancestors), so they are read unchecked.
        debug_assert!(pos < self.size && self.times.len() == 2 * self.size && self.leaves.len() == 2 * self.size);
        let seqs = &mut self.seqs[..];
        let Some(smask) = seqs.len().checked_sub(1) else { return };
        let old_seq = std::mem::replace(&mut seqs[src as usize & smask], seq);
        let seqs = &*seqs;
        let (times, leaves) = (&mut self.times[..], &mut self.leaves[..]);
        let mut n = pos + self.size;
        // SAFETY (each unchecked access): size ≤ n < 2·size = times.len() = leaves.len()
        // here, and then 1 ≤ n < 2·size with n ^ 1 and n >> 1 in the same range (see above).
        let old = unsafe { std::mem::replace(times.get_unchecked_mut(n), t) };
        if t < old || (t == old && seq < old_seq) {
            // A smaller key (a packet entering an empty link) climbs while it wins: a
            // node whose key is no larger is unchanged, and so is everything above it. (A
            // node still naming `src` holds its old time, no smaller than `t`: with an equal
            // time it now stands for the new key, which is what it should hold.)
            while n > 1 {
                n >>= 1;
                let (u, b) = unsafe { (*times.get_unchecked(n), *leaves.get_unchecked(n)) };
                if !below(seqs, smask, t, src, u, b) {
                    return;
                }
                unsafe {
                    *times.get_unchecked_mut(n) = t;
                    *leaves.get_unchecked_mut(n) = src;
                }
            }
            return;
        }
        let (mut k, mut w) = (t, src);
        while n > 1 {
            let (u, b) = unsafe { (*times.get_unchecked(n ^ 1), *leaves.get_unchecked(n ^ 1)) };
            if u == k {
                // Times rarely tie: the sequences are read only then.
                if seqs[b as usize & smask] < seqs[w as usize & smask] {
                    w = b;
                }
            } else {
                // Branch-free: which side wins is unpredictable.
                let lt = u < k;
                k = if lt { u } else { k };
                w = if lt { b } else { w };
            }
            n >>= 1;
            unsafe {
                *times.get_unchecked_mut(n) = k;
                *leaves.get_unchecked_mut(n) = w;
            }
        }
    }

    /// The earliest key's time and its source.
    #[inline(always)]
    pub fn min(&self) -> (Nanos, usize) {
        debug_assert!(self.times.len() >= 2 && self.leaves.len() >= 2);
        // SAFETY: `times` and `leaves` have 2·size ≥ 2 entries (`with_hot`), so the root (1)
        // is one.
        let (mut t, mut w) = unsafe { (*self.times.get_unchecked(1), *self.leaves.get_unchecked(1)) };
        let mut hot = false;
        let mut s = 0;
        for j in 0..HOT {
            let u = self.hot_t[j];
            let lt = if u != t {
                u < t
            } else {
                self.hot_seq[j] < if hot { s } else { self.seq(w) }
            };
            if lt {
                (t, w, s, hot) = (u, self.hot_src[j], self.hot_seq[j], true);
            }
        }
        (t, w as usize)
    }

    /// The earliest key (tests).
    #[cfg(test)]
    fn min_key(&self) -> (Key, usize) {
        let (t, w) = self.min();
        let s = match self.place[w] {
            p if p & HOT_FLAG != 0 => self.hot_seq[(p & 1) as usize],
            _ => self.seq(w as u32),
        };
        (key(t, s), w)
    }
}

/// Whether key (t, sequence of source `a`) is below key (u, sequence of source `b`):
/// the times decide, the sequences (`seqs`, masked by `smask`) only when they are equal.
#[inline(always)]
fn below(seqs: &[u64], smask: usize, t: Nanos, a: u32, u: Nanos, b: u32) -> bool {
    if t != u {
        t < u
    } else {
        seqs[a as usize & smask] < seqs[b as usize & smask]
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
            if want == NONE {
                assert_eq!(t.min().0, Nanos::MAX);
                continue;
            }
            assert_eq!(t.min_key().0, want);
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
