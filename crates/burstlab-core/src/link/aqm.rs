//! The queues that decide at dequeue (CoDel, `codel.rs`; FQ-CoDel, `fq_codel.rs`) behind one
//! type the engine holds per link, with the link's buffer as their limit: the packets (or
//! bytes) waiting, not counting the one in service, as for DropTail (`queue.rs`).
use super::codel::{CodelQueue, Dequeued, Queued};
use super::fq_codel::FqCodel;
use super::queue::BufferUnit;
use super::red::QueueDisc;
use crate::time::Nanos;

#[derive(Clone, Debug)]
pub enum AqmQueue<P> {
    Codel(CodelQueue<P>),
    FqCodel(FqCodel<P>),
}

impl<P: Copy + Default> AqmQueue<P> {
    /// The queue of discipline `q` (None for DropTail and RED, which decide on entry);
    /// `perturb`: FQ-CoDel's hash perturbation.
    pub fn new(q: &QueueDisc, perturb: u64) -> Option<Self> {
        match q {
            QueueDisc::Codel(c) => Some(AqmQueue::Codel(CodelQueue::new(c.clone()))),
            QueueDisc::FqCodel(c, f) => Some(AqmQueue::FqCodel(FqCodel::new(c.clone(), f.clone(), perturb))),
            QueueDisc::DropTail | QueueDisc::Red(_) => None,
        }
    }

    /// Enqueue packet `q` of flow `key` in a buffer of `buffer` (`unit`): CoDel drops it at
    /// the tail if the buffer is full; FQ-CoDel takes it, then drops from its fattest queue
    /// until the buffer holds what is queued (RFC 8290 §4.1). The dropped go to `drops`.
    /// `bypass`: the link is idle, the packet goes to service at once (no buffer check).
    pub fn enqueue(&mut self, key: u64, q: Queued<P>, buffer: u64, unit: BufferUnit, bypass: bool, drops: &mut Vec<Queued<P>>) {
        let over = |len: usize, bytes: u64, extra: u64| match unit {
            BufferUnit::Packets => len as u64 + (extra > 0) as u64 > buffer,
            BufferUnit::Bytes => bytes + extra > buffer,
        };
        match self {
            AqmQueue::Codel(c) => {
                if !bypass && over(c.len(), c.bytes(), q.bytes as u64) {
                    drops.push(q);
                } else {
                    c.enqueue(q);
                }
            }
            AqmQueue::FqCodel(f) => {
                f.enqueue(key, q);
                while !bypass && over(f.len(), f.bytes(), 0) {
                    f.drop_from_fattest(drops);
                }
            }
        }
    }

    pub fn dequeue(&mut self, now: Nanos, drops: &mut Vec<Queued<P>>) -> Option<Dequeued<P>> {
        match self {
            AqmQueue::Codel(c) => c.dequeue(now, drops),
            AqmQueue::FqCodel(f) => f.dequeue(now, drops),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            AqmQueue::Codel(c) => c.len(),
            AqmQueue::FqCodel(f) => f.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::{CodelParams, FqParams};

    fn q(n: u32) -> Queued<u32> {
        Queued { pkt: n, bytes: 1000, enq: 0, ect: false }
    }

    /// The buffer counts the waiting packets: CoDel drops the arrival that finds it full,
    /// FQ-CoDel drops from its fattest queue instead; a bypassing packet is never dropped.
    #[test]
    fn the_buffer_bounds_both() {
        let mut drops = vec![];
        let mut c = AqmQueue::new(&QueueDisc::Codel(CodelParams::default()), 0).unwrap();
        for k in 0..5 {
            c.enqueue(0, q(k), 3, BufferUnit::Packets, false, &mut drops);
        }
        assert_eq!((c.len(), drops.iter().map(|d| d.pkt).collect::<Vec<_>>()), (3, vec![3, 4]));
        c.enqueue(0, q(9), 3, BufferUnit::Packets, true, &mut drops);
        assert_eq!(c.len(), 4);
        drops.clear();
        let mut f = AqmQueue::new(&QueueDisc::FqCodel(CodelParams::default(), FqParams::default()), 0).unwrap();
        for k in 0..5 {
            f.enqueue(1, q(k), 3000, BufferUnit::Bytes, false, &mut drops);
        }
        // The fourth arrival overflows: half the fat queue's 4000 bytes go (packets 0, 1);
        // the fifth fits.
        assert_eq!((f.len(), drops.iter().map(|d| d.pkt).collect::<Vec<_>>()), (3, vec![0, 1]));
    }
}
