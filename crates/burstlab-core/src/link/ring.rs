//! A FIFO ring buffer with a power-of-two capacity: index arithmetic is a mask (no
//! wrap-around branch, and no bounds check: a masked index is below the capacity), and it
//! doubles when full, so a link's pipe allocates only while it grows to its largest
//! occupancy.
#[derive(Clone, Debug)]
pub struct Ring<T: Copy + Default> {
    /// Its length is `mask + 1`, a power of two (every index is masked into it).
    buf: Vec<T>,
    head: usize,
    len: usize,
    mask: usize,
}

impl<T: Copy + Default> Ring<T> {
    /// The slot at masked index `i & mask`.
    #[inline(always)]
    fn at(&self, i: usize) -> &T {
        debug_assert_eq!(self.buf.len(), self.mask + 1);
        // SAFETY: `buf.len() == mask + 1` always (set together in `with_capacity` and
        // `grow`), so `i & mask < buf.len()`.
        unsafe { self.buf.get_unchecked(i & self.mask) }
    }

    #[inline(always)]
    fn at_mut(&mut self, i: usize) -> &mut T {
        debug_assert_eq!(self.buf.len(), self.mask + 1);
        // SAFETY: as in `at`.
        unsafe { self.buf.get_unchecked_mut(i & self.mask) }
    }

    pub fn with_capacity(n: usize) -> Self {
        let cap = n.max(2).next_power_of_two();
        Ring { buf: vec![T::default(); cap], head: 0, len: 0, mask: cap - 1 }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn push_back(&mut self, x: T) {
        if self.len == self.buf.len() {
            self.grow();
        }
        *self.at_mut(self.head + self.len) = x;
        self.len += 1;
    }

    #[cold]
    fn grow(&mut self) {
        let cap = self.buf.len();
        let mut buf = vec![T::default(); cap * 2];
        for (k, slot) in buf.iter_mut().take(self.len).enumerate() {
            *slot = self.buf[(self.head + k) & self.mask];
        }
        self.buf = buf;
        self.head = 0;
        self.mask = cap * 2 - 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let x = *self.at(self.head);
        self.head = (self.head + 1) & self.mask;
        self.len -= 1;
        Some(x)
    }

    /// Remove and return the front of a ring the caller knows is not empty (no check in
    /// release builds; on an empty ring it would return a stale slot and wrap `len`, never
    /// read out of the buffer: the index is masked).
    #[inline]
    pub fn pop_front_nonempty(&mut self) -> T {
        debug_assert!(self.len > 0, "pop on an empty ring");
        let x = *self.at(self.head);
        self.head = (self.head + 1) & self.mask;
        self.len = self.len.wrapping_sub(1);
        x
    }

    #[inline]
    pub fn get(&self, k: usize) -> Option<&T> {
        if k < self.len {
            Some(self.at(self.head + k))
        } else {
            None
        }
    }

    #[inline]
    pub fn get_mut(&mut self, k: usize) -> Option<&mut T> {
        if k < self.len {
            Some(self.at_mut(self.head + k))
        } else {
            None
        }
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        (0..self.len).map(move |k| &self.buf[(self.head + k) & self.mask])
    }
}

impl<T: Copy + Default> std::ops::Index<usize> for Ring<T> {
    type Output = T;
    #[inline]
    fn index(&self, k: usize) -> &T {
        self.get(k).expect("ring index out of range")
    }
}

impl<T: Copy + Default> std::ops::IndexMut<usize> for Ring<T> {
    #[inline]
    fn index_mut(&mut self, k: usize) -> &mut T {
        self.get_mut(k).expect("ring index out of range")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_like_a_deque() {
        let mut r: Ring<u32> = Ring::with_capacity(2);
        let mut d = VecDeque::new();
        let mut x = 0u32;
        for step in 0..10_000u32 {
            if step % 7 < 4 || d.is_empty() {
                r.push_back(x);
                d.push_back(x);
                x += 1;
            } else {
                assert_eq!(r.pop_front(), d.pop_front());
            }
            assert_eq!(r.len(), d.len());
            assert_eq!(r.front(), d.front());
            let k = step as usize % (d.len() + 1);
            assert_eq!(r.get(k), d.get(k));
        }
        assert!(r.iter().copied().eq(d.iter().copied()));
    }
}
