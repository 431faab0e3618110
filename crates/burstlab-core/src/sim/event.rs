//! The event queue: a binary heap ordered by (time, insertion sequence), so events at
//! the same nanosecond run in the order they were scheduled (SimPy's tie-breaking
//! counter). It holds the timers; packets in flight live in the link pipes, whose next
//! events the engine keeps in a tournament tree and merges with the heap by the same
//! (time, sequence) key.
use crate::time::Nanos;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Timer events (small and Copy); the number is the flow's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Timer {
    /// Sender retransmission timer.
    Rto(u32),
    /// Receiver delayed-ACK timer.
    DelAck(u32),
    /// End of the warm-up: measurement starts.
    Warmup,
    /// A flow starts.
    Start(u32),
    /// A CBR flow sends its next datagram.
    Cbr(u32),
    /// An ON/OFF flow's period ends.
    Switch(u32),
    /// A flow's application stops.
    Stop(u32),
    /// The server of a CoDel or FQ-CoDel link frees up: its queue's next dequeue.
    Dequeue(u32),
    /// A paced sender's next burst may leave (`tcp/sender/pacing.rs`).
    Pace(u32),
}

#[derive(Clone, Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<(Nanos, u64, Timer)>>,
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(64) }
    }

    #[inline]
    pub fn push(&mut self, t: Nanos, seq: u64, ev: Timer) {
        self.heap.push(Reverse((t, seq, ev)));
    }

    /// The earliest event's key ([`super::mintree::key`] of its time and sequence), or
    /// [`super::mintree::NONE`].
    #[inline]
    pub fn peek_key(&self) -> super::mintree::Key {
        self.heap.peek().map_or(super::mintree::NONE, |r| super::mintree::key(r.0 .0, r.0 .1))
    }

    /// The earliest (time, sequence, event).
    #[inline]
    pub fn peek(&self) -> Option<(Nanos, u64, Timer)> {
        self.heap.peek().map(|r| r.0)
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Nanos, u64, Timer)> {
        self.heap.pop().map(|r| r.0)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.push(5, 0, Timer::DelAck(0));
        q.push(3, 1, Timer::Warmup);
        q.push(5, 2, Timer::Rto(1));
        q.push(3, 3, Timer::Rto(0));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(3, 1, Timer::Warmup), (3, 3, Timer::Rto(0)), (5, 0, Timer::DelAck(0)), (5, 2, Timer::Rto(1))]);
    }
}
