//! A FIFO link direction as a pipe: a packet entering at `now` starts serialising when
//! the link is free, occupies it for its transmission time and arrives one propagation
//! delay later. Because the link is FIFO with a fixed delay, arrivals leave in entry
//! order, so the engine needs no heap event per packet: it peeks at the pipe's head
//! (ordered with heap events by (time, insertion sequence)).
//!
//! DropTail: a packet is dropped on entry when the packets (or bytes) waiting for the
//! serialiser, not counting the one being serialised, already fill the buffer.
use crate::time::{tx_time, Nanos};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferUnit {
    Packets,
    Bytes,
}

/// How a direction times its packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// Capacity (bits/s) and one-way propagation delay.
    Rate { rate_bps: u64, delay: Nanos },
    /// Slotted channel (Srinivasan et al. §3.1): one transmission opportunity per slot; a packet
    /// occupies the next free slot (shared with the other direction when both use the
    /// engine's slot allocator) and arrives at the slot's end.
    Slotted { slot: Nanos },
    /// Lossless instant path of the slotted mode: a packet sent at `now` arrives at the
    /// end of the current slot (at `now` itself when `now` is a slot boundary).
    SlotEnd { slot: Nanos },
}

#[derive(Clone, Copy, Debug)]
pub struct InFlight<P: Copy> {
    /// When the packet entered the link.
    pub entered: Nanos,
    /// Serialisation start.
    pub start: Nanos,
    /// Arrival at the far end.
    pub arrive: Nanos,
    /// Global insertion sequence (ties between equal times go to the lower).
    pub seq: u64,
    /// Fate decided (packet mode decides on entry, time mode at `start`).
    pub decided: bool,
    pub lost: bool,
    pub pkt: P,
}

#[derive(Clone, Debug)]
pub struct Pipe<P: Copy> {
    pub timing: Timing,
    pub buffer: u64,
    pub unit: BufferUnit,
    /// Packets in the pipe, in arrival order.
    ring: VecDeque<InFlight<P>>,
    /// Number of entries at the front of `ring` whose fate is decided.
    decided: usize,
    /// When the serialiser is next free.
    busy_until: Nanos,
    /// Serialisation starts (and sizes) of packets still waiting, for DropTail.
    waiting: VecDeque<(Nanos, u32)>,
    waiting_bytes: u64,
    /// Packets dropped by the full buffer.
    pub queue_drops: u64,
}

impl<P: Copy> Pipe<P> {
    pub fn new(timing: Timing, buffer: u64, unit: BufferUnit) -> Self {
        Pipe {
            timing,
            buffer,
            unit,
            ring: VecDeque::with_capacity(1024),
            decided: 0,
            busy_until: 0,
            waiting: VecDeque::with_capacity(1024),
            waiting_bytes: 0,
            queue_drops: 0,
        }
    }

    /// Enter a packet of `bytes` at `now`; `slot_next` is the slot allocator of the
    /// slotted mode. Returns the index of the new entry, or None if DropTail dropped it.
    #[inline]
    pub fn enter(&mut self, now: Nanos, bytes: u32, seq: u64, pkt: P, slot_next: &mut u64) -> Option<usize> {
        let (start, arrive) = match self.timing {
            Timing::Rate { rate_bps, delay } => {
                while let Some(&(s, b)) = self.waiting.front() {
                    if s > now {
                        break;
                    }
                    self.waiting.pop_front();
                    self.waiting_bytes -= b as u64;
                }
                let start = self.busy_until.max(now);
                if start > now {
                    let full = match self.unit {
                        BufferUnit::Packets => self.waiting.len() as u64 >= self.buffer,
                        BufferUnit::Bytes => self.waiting_bytes + bytes as u64 > self.buffer,
                    };
                    if full {
                        self.queue_drops += 1;
                        return None;
                    }
                    self.waiting.push_back((start, bytes));
                    self.waiting_bytes += bytes as u64;
                }
                let end = start + tx_time(bytes as u64, rate_bps);
                self.busy_until = end;
                (start, end + delay)
            }
            Timing::Slotted { slot } => {
                let k = now.div_ceil(slot).max(*slot_next);
                *slot_next = k + 1;
                (k * slot, (k + 1) * slot)
            }
            Timing::SlotEnd { slot } => {
                let t = now.div_ceil(slot) * slot;
                (now, t)
            }
        };
        self.ring.push_back(InFlight { entered: now, start, arrive, seq, decided: false, lost: false, pkt });
        Some(self.ring.len() - 1)
    }

    #[inline]
    pub fn entry_mut(&mut self, i: usize) -> &mut InFlight<P> {
        &mut self.ring[i]
    }

    /// Mark entries decided up to and including `i` (packet mode decides on entry).
    #[inline]
    pub fn mark_decided(&mut self, i: usize, lost: bool) {
        let e = &mut self.ring[i];
        e.decided = true;
        e.lost = lost;
        if i == self.decided {
            self.decided += 1;
        }
    }

    /// The head's (arrival time, sequence), if any.
    #[inline]
    pub fn head(&self) -> Option<(Nanos, u64)> {
        self.ring.front().map(|e| (e.arrive, e.seq))
    }

    /// The first undecided entry's (start, sequence), for time-mode decisions.
    #[inline]
    pub fn next_undecided(&self) -> Option<(Nanos, u64)> {
        self.ring.get(self.decided).map(|e| (e.start, e.seq))
    }

    /// The first undecided entry.
    #[inline]
    pub fn undecided_mut(&mut self) -> &mut InFlight<P> {
        &mut self.ring[self.decided]
    }

    #[inline]
    pub fn advance_decided(&mut self) {
        self.ring[self.decided].decided = true;
        self.decided += 1;
    }

    /// Remove and return the head.
    #[inline]
    pub fn pop(&mut self) -> InFlight<P> {
        let e = self.ring.pop_front().expect("pop on an empty pipe");
        debug_assert!(e.decided);
        self.decided -= 1;
        e
    }

    pub fn len(&self) -> usize {
        self.ring.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_US;

    #[test]
    fn serialisation_delay_and_droptail() {
        // 1000-byte packets at 10 Mb/s: 800 us each; 5 ms delay; buffer of 2 packets.
        let mut p: Pipe<u32> =
            Pipe::new(Timing::Rate { rate_bps: 10_000_000, delay: 5_000 * NS_PER_US }, 2, BufferUnit::Packets);
        let mut sn = 0;
        let mut arrivals = vec![];
        for k in 0..5u32 {
            if let Some(i) = p.enter(0, 1000, k as u64, k, &mut sn) {
                p.mark_decided(i, false);
                arrivals.push(p.entry_mut(i).arrive);
            }
        }
        // Packet 0 serialises at once, 1 and 2 wait, 3 and 4 are dropped.
        assert_eq!(arrivals, vec![5_800 * NS_PER_US, 6_600 * NS_PER_US, 7_400 * NS_PER_US]);
        assert_eq!(p.queue_drops, 2);
        // At 800 us packet 1 starts: one waiting, room for one more.
        assert!(p.enter(800 * NS_PER_US, 1000, 9, 9, &mut sn).is_some());
        assert!(p.enter(800 * NS_PER_US, 1000, 10, 10, &mut sn).is_none());
        assert_eq!(p.head(), Some((5_800 * NS_PER_US, 0)));
    }

    #[test]
    fn slotted_shares_opportunities() {
        let slot = 10;
        let mut a: Pipe<u8> = Pipe::new(Timing::Slotted { slot }, 0, BufferUnit::Packets);
        let mut b: Pipe<u8> = Pipe::new(Timing::Slotted { slot }, 0, BufferUnit::Packets);
        let mut sn = 0;
        let i = a.enter(0, 1, 0, 0, &mut sn).unwrap();
        let j = b.enter(3, 1, 1, 0, &mut sn).unwrap();
        let k = a.enter(3, 1, 2, 0, &mut sn).unwrap();
        assert_eq!((a.entry_mut(i).start, a.entry_mut(i).arrive), (0, 10));
        assert_eq!((b.entry_mut(j).start, b.entry_mut(j).arrive), (10, 20));
        assert_eq!((a.entry_mut(k).start, a.entry_mut(k).arrive), (20, 30));
        let mut c: Pipe<u8> = Pipe::new(Timing::SlotEnd { slot }, 0, BufferUnit::Packets);
        let i = c.enter(20, 1, 3, 0, &mut sn).unwrap();
        let j = c.enter(21, 1, 4, 0, &mut sn).unwrap();
        assert_eq!((c.entry_mut(i).arrive, c.entry_mut(j).arrive), (20, 30));
    }
}
