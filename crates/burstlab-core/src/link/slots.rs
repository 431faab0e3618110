//! Where a link's pipe keeps its entries ([`Slots`]): in its own ring ([`Ring`], the
//! entries inline), or in one pool shared by every pipe of the network, each pipe a list
//! through it ([`Pooled`], [`Pool`]: a 4-byte link from each slot to the next).
//!
//! A ring grows to a power of two at its largest occupancy and keeps that size, so inline
//! entries cost the sum over the links of each one's largest occupancy: with many flows,
//! each over its own access links, that is far more than the packets in flight at any one
//! time (10,000 flows of the htsim dumbbell: each access link holds its flow's window for
//! its 5 ms once in a while, 32 entries of 64 bytes, 20,000 such rings). The pool holds the
//! entries of the packets in the network at once (htsim's packet pool does the same), each
//! with a 4-byte link to the next of its pipe (or of the free slots); a pipe holds three
//! words. The price is one indirection per access to an entry and a slot taken from and
//! returned to the free list per hop (a packet takes the slot just freed by the one that
//! left the previous link: a last-in, first-out free list); the engine uses the pool only
//! on networks with many links (`sim/engine`), where it pays.
//!
//! [`Mixed`] keeps a busy link's entries in its own ring and the others' in the pool (the
//! engine's choice on networks of many links: `sim/engine`).
//!
//! Nothing is allocated per packet: the pool grows (doubling) to the most it holds and
//! keeps that size.
use super::ring::Ring;
use std::cell::Cell;

/// A FIFO of entries of type `T`, the storage of a link's pipe; `Pool` is what the pipes of
/// one network share (nothing, for entries held inline).
pub trait Slots<T: Copy + Default> {
    type Pool: Default;
    fn new() -> Self;
    /// The storage of a busy link's pipe (one that many flows cross: [`Mixed`] keeps its
    /// entries in its own ring); the same as [`Slots::new`] unless the type tells them apart.
    fn busy() -> Self
    where
        Self: Sized,
    {
        Self::new()
    }
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The entry `k` places behind the front.
    fn get<'a>(&'a self, pool: &'a Self::Pool, k: usize) -> Option<&'a T>;
    fn get_mut<'a>(&'a mut self, pool: &'a mut Self::Pool, k: usize) -> Option<&'a mut T>;
    fn push_back(&mut self, pool: &mut Self::Pool, x: T);
    /// Remove and return the front of a FIFO the caller knows is not empty.
    fn pop_front_nonempty(&mut self, pool: &mut Self::Pool) -> T;
}

impl<T: Copy + Default> Slots<T> for Ring<T> {
    type Pool = ();

    #[inline(always)]
    fn new() -> Self {
        // Two entries at first: the ring doubles as the pipe fills (memory O(occupancy): a
        // network of many flows has many links that never hold more than a few).
        Ring::with_capacity(2)
    }

    #[inline(always)]
    fn len(&self) -> usize {
        Ring::len(self)
    }

    #[inline(always)]
    fn get<'a>(&'a self, _: &'a (), k: usize) -> Option<&'a T> {
        Ring::get(self, k)
    }

    #[inline(always)]
    fn get_mut<'a>(&'a mut self, _: &'a mut (), k: usize) -> Option<&'a mut T> {
        Ring::get_mut(self, k)
    }

    #[inline(always)]
    fn push_back(&mut self, _: &mut (), x: T) {
        Ring::push_back(self, x)
    }

    #[inline(always)]
    fn pop_front_nonempty(&mut self, _: &mut ()) -> T {
        Ring::pop_front_nonempty(self)
    }
}

/// No slot (the end of a list).
const NIL: u32 = u32::MAX;

/// Entries of type `T` shared by the pipes of one network: slots in one vector, each with
/// the index of the next slot of its list (the next packet of its pipe, or the next free
/// slot) in a second one. Free slots form a stack (the last freed is reused first).
#[derive(Clone, Debug)]
pub struct Pool<T> {
    slots: Vec<T>,
    next: Vec<u32>,
    free: u32,
    in_use: usize,
}

impl<T> Default for Pool<T> {
    fn default() -> Self {
        Pool { slots: Vec::new(), next: Vec::new(), free: NIL, in_use: 0 }
    }
}

impl<T: Copy> Pool<T> {
    /// Store `x` in a free slot (a new one if none is free) and return its index; the slot
    /// ends its list.
    #[inline(always)]
    pub fn alloc(&mut self, x: T) -> u32 {
        self.in_use += 1;
        let i = self.free;
        if i == NIL {
            return self.alloc_new(x);
        }
        // SAFETY: the free list holds only indices of slots made by `alloc_new`, below
        // `slots.len() == next.len()`.
        unsafe {
            self.free = *self.next.get_unchecked(i as usize);
            *self.next.get_unchecked_mut(i as usize) = NIL;
            *self.slots.get_unchecked_mut(i as usize) = x;
        }
        i
    }

    #[cold]
    #[inline(never)]
    fn alloc_new(&mut self, x: T) -> u32 {
        let i = u32::try_from(self.slots.len()).ok().filter(|&i| i != NIL).expect("fewer than 2^32 − 1 packets in flight");
        self.slots.push(x);
        self.next.push(NIL);
        i
    }

    /// Return slot `i` (allocated, not freed since) and free it.
    #[inline(always)]
    pub fn take(&mut self, i: u32) -> T {
        let x = *self.at(i);
        *self.next_mut(i) = self.free;
        self.free = i;
        self.in_use -= 1;
        x
    }

    #[inline(always)]
    pub fn at(&self, i: u32) -> &T {
        debug_assert!((i as usize) < self.slots.len());
        // SAFETY: the indices passed are allocated slots (`alloc`'s), below `slots.len()`.
        unsafe { self.slots.get_unchecked(i as usize) }
    }

    #[inline(always)]
    pub fn at_mut(&mut self, i: u32) -> &mut T {
        debug_assert!((i as usize) < self.slots.len());
        // SAFETY: as in `at`.
        unsafe { self.slots.get_unchecked_mut(i as usize) }
    }

    /// The slot after `i` in its list.
    #[inline(always)]
    fn next_of(&self, i: u32) -> u32 {
        debug_assert!((i as usize) < self.next.len());
        // SAFETY: as in `at` (`next` and `slots` have the same length).
        unsafe { *self.next.get_unchecked(i as usize) }
    }

    #[inline(always)]
    fn next_mut(&mut self, i: u32) -> &mut u32 {
        debug_assert!((i as usize) < self.next.len());
        // SAFETY: as in `next_of`.
        unsafe { self.next.get_unchecked_mut(i as usize) }
    }

    /// Slots in use (allocated, not freed).
    pub fn in_use(&self) -> usize {
        self.in_use
    }

    /// Slots made (the most in use at once so far).
    pub fn made(&self) -> usize {
        self.slots.len()
    }
}

/// A pipe's FIFO as a list through the network's [`Pool`] (first and last slot, length): no
/// memory of its own beyond these words, whatever it held. Reading the entry `k` places
/// behind the front walks the list from the nearest of two remembered places (position and
/// slot) at or before `k`, or from the front: the pipe reads forward from where it read last
/// (the first packet waiting for the server, the first undecided one), so a read costs a
/// step or two.
#[derive(Clone, Debug)]
pub struct Pooled {
    head: u32,
    tail: u32,
    len: u32,
    /// Entries popped so far: entry `k` behind the front was the `popped + k`-th pushed, its
    /// mark's number (64 bits: never wraps).
    popped: u64,
    /// Two (number, slot) pairs read last; a mark whose entry has left is ignored (its
    /// position, number − popped, wraps past the length).
    marks: [Cell<(u64, u32)>; 2],
}

impl Pooled {
    /// The slot of the entry at position `k` (< len).
    #[inline(always)]
    fn slot<T: Copy>(&self, pool: &Pool<T>, k: u32) -> u32 {
        if k == 0 {
            return self.head;
        }
        let k = k as u64;
        let (a, b) = (self.marks[0].get(), self.marks[1].get());
        let (pa, pb) = (a.0.wrapping_sub(self.popped), b.0.wrapping_sub(self.popped));
        // The remembered place nearest at or before k (a gone entry's position is past the
        // length, so past k), else the front, replacing the mark further on.
        let (mut p, mut i, m) = if pa <= k && (pb > k || pa >= pb) {
            (pa, a.1, 0)
        } else if pb <= k {
            (pb, b.1, 1)
        } else {
            (0, self.head, (pb > pa) as usize)
        };
        while p < k {
            i = pool.next_of(i);
            p += 1;
        }
        self.marks[m].set((self.popped + k, i));
        i
    }
}

impl<T: Copy + Default> Slots<T> for Pooled {
    type Pool = Pool<T>;

    #[inline(always)]
    fn new() -> Self {
        // (Marks numbered past every entry: ignored until set.)
        let gone = Cell::new((u64::MAX, NIL));
        Pooled { head: NIL, tail: NIL, len: 0, popped: 0, marks: [gone.clone(), gone] }
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.len as usize
    }

    #[inline(always)]
    fn get<'a>(&'a self, pool: &'a Pool<T>, k: usize) -> Option<&'a T> {
        if k >= self.len as usize {
            return None;
        }
        Some(pool.at(self.slot(pool, k as u32)))
    }

    #[inline(always)]
    fn get_mut<'a>(&'a mut self, pool: &'a mut Pool<T>, k: usize) -> Option<&'a mut T> {
        if k >= self.len as usize {
            return None;
        }
        let i = self.slot(pool, k as u32);
        Some(pool.at_mut(i))
    }

    #[inline(always)]
    fn push_back(&mut self, pool: &mut Pool<T>, x: T) {
        let i = pool.alloc(x);
        if self.len == 0 {
            self.head = i;
        } else {
            *pool.next_mut(self.tail) = i;
        }
        self.tail = i;
        self.len += 1;
    }

    #[inline(always)]
    fn pop_front_nonempty(&mut self, pool: &mut Pool<T>) -> T {
        debug_assert!(self.len > 0, "pop on an empty pipe");
        let i = self.head;
        self.head = pool.next_of(i);
        self.len -= 1;
        self.popped += 1;
        pool.take(i)
    }
}

/// A pipe's FIFO in its own ring (a busy link: [`Slots::busy`]) or as a list through the
/// network's [`Pool`] (every other link). A link that many flows cross (a dumbbell's
/// bottleneck) holds most of the packets in flight, each for long (its queue and its
/// propagation delay); in its own ring its entries are written and read in sequence, which the
/// processor's prefetcher follows, where through the pool each would be wherever the free
/// list put it, a cache miss at its arrival. The many lightly used links (the access
/// links) keep the pool's economy: a ring keeps the size of the most it ever held, and there
/// are few busy links (each needs many flows' paths).
#[derive(Clone, Debug)]
pub enum Mixed<T: Copy + Default> {
    Own(Ring<T>),
    Listed(Pooled),
}

impl<T: Copy + Default> Slots<T> for Mixed<T> {
    type Pool = Pool<T>;

    #[inline(always)]
    fn new() -> Self {
        Mixed::Listed(<Pooled as Slots<T>>::new())
    }

    #[inline(always)]
    fn busy() -> Self {
        Mixed::Own(<Ring<T> as Slots<T>>::new())
    }

    #[inline(always)]
    fn len(&self) -> usize {
        match self {
            Mixed::Own(r) => r.len(),
            Mixed::Listed(l) => l.len as usize,
        }
    }

    #[inline(always)]
    fn get<'a>(&'a self, pool: &'a Pool<T>, k: usize) -> Option<&'a T> {
        match self {
            Mixed::Own(r) => r.get(k),
            Mixed::Listed(l) => l.get(pool, k),
        }
    }

    #[inline(always)]
    fn get_mut<'a>(&'a mut self, pool: &'a mut Pool<T>, k: usize) -> Option<&'a mut T> {
        match self {
            Mixed::Own(r) => r.get_mut(k),
            Mixed::Listed(l) => l.get_mut(pool, k),
        }
    }

    #[inline(always)]
    fn push_back(&mut self, pool: &mut Pool<T>, x: T) {
        match self {
            Mixed::Own(r) => r.push_back(x),
            Mixed::Listed(l) => l.push_back(pool, x),
        }
    }

    #[inline(always)]
    fn pop_front_nonempty(&mut self, pool: &mut Pool<T>) -> T {
        match self {
            Mixed::Own(r) => r.pop_front_nonempty(),
            Mixed::Listed(l) => l.pop_front_nonempty(pool),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// One step of a random walk of `fifos` against `deques`, the same for both: FIFO `j` =
    /// step·7 mod n takes the step's number three steps in five (or when empty), gives one
    /// back otherwise. Returns `j`.
    fn step_both<S: Slots<u64, Pool = Pool<u64>>>(fifos: &mut [S], deques: &mut [VecDeque<u64>], pool: &mut Pool<u64>, step: u64) -> usize {
        let j = (step * 7 % fifos.len() as u64) as usize;
        if step % 5 < 3 || deques[j].is_empty() {
            fifos[j].push_back(pool, step);
            deques[j].push_back(step);
        } else {
            assert_eq!(Some(fifos[j].pop_front_nonempty(pool)), deques[j].pop_front());
        }
        j
    }

    /// Several pooled FIFOs sharing one pool behave like separate deques, and the pool
    /// holds no more slots than the entries in them at once (freed slots are reused).
    #[test]
    fn pooled_fifos_behave_like_deques_and_reuse_slots() {
        let mut pool: Pool<u64> = Pool::default();
        let mut fifos: Vec<Pooled> = (0..3).map(|_| <Pooled as Slots<u64>>::new()).collect();
        let mut deques: Vec<VecDeque<u64>> = vec![VecDeque::new(); 3];
        let mut most = 0;
        for step in 0..20_000u64 {
            let j = step_both(&mut fifos, &mut deques, &mut pool, step);
            let held: usize = deques.iter().map(|d| d.len()).sum();
            most = most.max(held);
            assert_eq!(pool.in_use(), held);
            // Reads forward, backward and past the end (the remembered places move).
            let n = deques[j].len();
            for k in [step as usize % (n + 1), (step as usize * 3 + 1) % (n + 1), n.saturating_sub(1), n / 2, n] {
                assert_eq!(fifos[j].get(&pool, k), deques[j].get(k));
            }
        }
        assert_eq!(pool.made(), most);
        if let Some(x) = fifos[0].get_mut(&mut pool, 0) {
            *x = 99;
            assert_eq!(fifos[0].get(&pool, 0), Some(&99));
        }
    }

    /// Mixed FIFOs, busy ones in their own rings and the others through the pool, behave
    /// like separate deques; the pool holds only the listed ones' entries.
    #[test]
    fn mixed_fifos_behave_like_deques_and_only_listed_ones_use_the_pool() {
        let mut pool: Pool<u64> = Pool::default();
        let mut fifos: Vec<Mixed<u64>> = (0..4).map(|j| if j % 2 == 0 { Mixed::busy() } else { Mixed::new() }).collect();
        let mut deques: Vec<VecDeque<u64>> = vec![VecDeque::new(); 4];
        for step in 0..20_000u64 {
            let j = step_both(&mut fifos, &mut deques, &mut pool, step);
            assert_eq!(pool.in_use(), deques[1].len() + deques[3].len());
            let n = deques[j].len();
            assert_eq!(fifos[j].len(), n);
            for k in [step as usize % (n + 1), n / 2, n] {
                assert_eq!(fifos[j].get(&pool, k), deques[j].get(k));
            }
            if let Some(x) = fifos[j].get_mut(&mut pool, n / 3) {
                *x += 1;
                deques[j][n / 3] += 1;
            }
        }
        assert!(matches!(fifos[0], Mixed::Own(_)) && matches!(fifos[1], Mixed::Listed(_)));
    }
}
