//! Where a link's pipe keeps its entries ([`Slots`]): in its own ring ([`Ring`], the
//! entries inline), or in one pool shared by every pipe of the network, the pipe's ring
//! holding 4-byte indices into it ([`Pooled`], [`Pool`]).
//!
//! A ring grows to a power of two at its largest occupancy and keeps that size, so inline
//! entries cost the sum over the links of each one's largest occupancy: with many flows,
//! each over its own access links, that is far more than the packets in flight at any one
//! time (10,000 flows of the htsim dumbbell: each access link holds its flow's window for
//! its 5 ms once in a while, 32 entries of 64 bytes, 20,000 such rings). The pool holds the
//! entries of the packets in the network at once (htsim's packet pool does the same), and a
//! link's ring 4 bytes per entry. The price is one indirection per access to an entry and
//! a free-list push and pop per hop (a packet takes the slot just freed by the one that
//! left the previous link: a last-in, first-out free list); the engine uses the pool only
//! on networks with many links (`sim/engine`), where it pays.
//!
//! Nothing is allocated per packet: the pool, its free list and the rings grow (doubling)
//! to the most they hold and keep that size.
use super::ring::Ring;

/// A FIFO of entries of type `T`, the storage of a link's pipe; `Pool` is what the pipes of
/// one network share (nothing, for entries held inline).
pub trait Slots<T: Copy + Default> {
    type Pool: Default;
    fn new() -> Self;
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

/// Entries of type `T` shared by the pipes of one network: slots in one vector, and the
/// free ones on a stack (last freed, first reused).
#[derive(Clone, Debug)]
pub struct Pool<T> {
    slots: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Pool<T> {
    fn default() -> Self {
        Pool { slots: Vec::new(), free: Vec::new() }
    }
}

impl<T: Copy> Pool<T> {
    /// Store `x` in a free slot (a new one if none is free) and return its index.
    #[inline(always)]
    pub fn alloc(&mut self, x: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                // SAFETY: the free list holds only indices of slots made by `push` below.
                unsafe { *self.slots.get_unchecked_mut(i as usize) = x };
                i
            }
            None => self.alloc_new(x),
        }
    }

    #[cold]
    #[inline(never)]
    fn alloc_new(&mut self, x: T) -> u32 {
        let i = u32::try_from(self.slots.len()).expect("fewer than 2^32 packets in flight");
        self.slots.push(x);
        i
    }

    /// Return slot `i` (allocated, not freed since) and free it.
    #[inline(always)]
    pub fn take(&mut self, i: u32) -> T {
        let x = *self.at(i);
        // (Its capacity is the number of slots at most: a push that grows it is amortised.)
        self.free.push(i);
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

    /// Slots in use (allocated, not freed).
    pub fn in_use(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Slots made (the most in use at once so far).
    pub fn made(&self) -> usize {
        self.slots.len()
    }
}

/// A pipe's FIFO as 4-byte indices into the network's [`Pool`].
#[derive(Clone, Debug)]
pub struct Pooled(Ring<u32>);

impl<T: Copy + Default> Slots<T> for Pooled {
    type Pool = Pool<T>;

    #[inline(always)]
    fn new() -> Self {
        Pooled(Ring::with_capacity(2))
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline(always)]
    fn get<'a>(&'a self, pool: &'a Pool<T>, k: usize) -> Option<&'a T> {
        self.0.get(k).map(|&i| pool.at(i))
    }

    #[inline(always)]
    fn get_mut<'a>(&'a mut self, pool: &'a mut Pool<T>, k: usize) -> Option<&'a mut T> {
        self.0.get(k).map(|&i| pool.at_mut(i))
    }

    #[inline(always)]
    fn push_back(&mut self, pool: &mut Pool<T>, x: T) {
        let i = pool.alloc(x);
        self.0.push_back(i)
    }

    #[inline(always)]
    fn pop_front_nonempty(&mut self, pool: &mut Pool<T>) -> T {
        let i = self.0.pop_front_nonempty();
        pool.take(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Several pooled FIFOs sharing one pool behave like separate deques, and the pool
    /// holds no more slots than the entries in them at once (freed slots are reused).
    #[test]
    fn pooled_fifos_behave_like_deques_and_reuse_slots() {
        let mut pool: Pool<u64> = Pool::default();
        let mut fifos: Vec<Pooled> = (0..3).map(|_| <Pooled as Slots<u64>>::new()).collect();
        let mut deques: Vec<VecDeque<u64>> = vec![VecDeque::new(); 3];
        let mut most = 0;
        for step in 0..20_000u64 {
            let j = (step * 7 % 3) as usize;
            if step % 5 < 3 || deques[j].is_empty() {
                fifos[j].push_back(&mut pool, step);
                deques[j].push_back(step);
            } else {
                assert_eq!(Some(fifos[j].pop_front_nonempty(&mut pool)), deques[j].pop_front());
            }
            let held: usize = deques.iter().map(|d| d.len()).sum();
            most = most.max(held);
            assert_eq!(pool.in_use(), held);
            let k = step as usize % (deques[j].len() + 1);
            assert_eq!(fifos[j].get(&pool, k), deques[j].get(k));
        }
        assert_eq!(pool.made(), most);
        if let Some(x) = fifos[0].get_mut(&mut pool, 0) {
            *x = 99;
            assert_eq!(fifos[0].get(&pool, 0), Some(&99));
        }
    }
}
