//! FQ-CoDel (Hoeiland-Joergensen, McKenney, Taht, Gettys, Dumazet, RFC 8290): packets hashed
//! by flow into `flows` queues, each with its own CoDel (`codel.rs`), served by deficit round
//! robin (DRR) with a quantum of one MTU, new flows before old ones.
//!
//! The rules (RFC 8290 §4, and Linux's `net/sched/sch_fq_codel.c`, its reference):
//! - classification (§4.1.1, §5.2.5): a packet's flow (burstlab's flow number and whether it is
//!   data or an ACK, the simulator's 5-tuple) is hashed with a per-link random perturbation
//!   into one of `flows` (1024) queues; distinct flows may collide, as in Linux;
//! - enqueue (§4.1): the packet is timestamped and appended to its queue; a queue that was in
//!   neither list joins the tail of the *new* list with a deficit of one `quantum`;
//! - overflow (§4.1, Linux `fq_codel_drop`): when the link's buffer is exceeded, packets are
//!   dropped from the head of the queue with the most bytes, up to `drop_batch` packets or
//!   until half of its bytes are gone ("drop from the fattest flow");
//! - dequeue (§4.2): the first queue of the new list, else of the old list; a queue whose
//!   deficit is spent gets another quantum and moves to the tail of the old list; otherwise
//!   its CoDel dequeues a packet (which may drop or mark, as in RFC 8289), and the packet's
//!   bytes are charged to the deficit. A queue found empty leaves the lists, except that an
//!   empty *new* queue moves to the old list while the old list has queues (§4.2: so that a
//!   flow cannot starve the others by going idle and coming back as new);
//! - CoDel's "at most one MTU queued" test counts the whole link's backlog, as Linux does.
use super::codel::{prefixed, CodelParams, CodelVars, Dequeued, Queued, Source};
use crate::time::Nanos;
use crate::Result;
use std::collections::VecDeque;

crate::params! {
    /// FQ-CoDel's scheduler parameters (defaults: RFC 8290 §5.2, with the quantum of one
    /// 1500-byte IP packet: Linux's 1514 counts the Ethernet header); its per-queue CoDel
    /// takes [`CodelParams`].
    pub struct FqParams {
        fq_codel quantum: u32 [u32] = 1500, "bytes", min 1,
            "Bytes a queue may send per round of the deficit round robin (one MTU).", "RFC 8290 §5.2.4";
        fq_codel flows: u32 [u32] = 1024, "", min 1, max 65536.0,
            "Number of queues the flows are hashed into.", "RFC 8290 §5.2.5";
        fq_codel drop_batch: u32 [u32] = 64, "packets", min 1,
            "On overflow, at most this many packets dropped at once from the fattest queue (or half its bytes).", "RFC 8290 §4.1; Linux fq_codel drop_batch";
    }
    virtual {}
}

impl FqParams {
    /// Every declared range, named `PREFIX.fq_codel_NAME`.
    pub fn validate(&self, prefix: &str) -> Result<()> {
        self.check_ranges().map_err(|e| prefixed(e, prefix, "fq_codel_"))
    }
}

/// One of FQ-CoDel's queues.
#[derive(Clone, Debug, Default)]
struct FlowQueue<P> {
    q: VecDeque<Queued<P>>,
    bytes: u64,
    deficit: i64,
    vars: CodelVars,
    /// In the new or the old list.
    listed: bool,
}

/// A flow queue as CoDel sees it: its packets, the link's backlog (Linux) for the MTU test.
struct FlowSource<'a, P> {
    f: &'a mut FlowQueue<P>,
    total: &'a mut u64,
    len: &'a mut usize,
}

impl<P> Source<P> for FlowSource<'_, P> {
    fn pop(&mut self) -> Option<Queued<P>> {
        let q = self.f.q.pop_front()?;
        self.f.bytes -= q.bytes as u64;
        *self.total -= q.bytes as u64;
        *self.len -= 1;
        Some(q)
    }
    fn backlog_bytes(&self) -> u64 {
        *self.total
    }
}

/// An FQ-CoDel queue (RFC 8290).
#[derive(Clone, Debug)]
pub struct FqCodel<P> {
    pub codel: CodelParams,
    pub fq: FqParams,
    perturb: u64,
    queues: Vec<FlowQueue<P>>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    bytes: u64,
    len: usize,
}

impl<P: Default> FqCodel<P> {
    /// `perturb`: the hash's random perturbation (Linux draws one per qdisc).
    pub fn new(codel: CodelParams, fq: FqParams, perturb: u64) -> Self {
        let queues = (0..fq.flows).map(|_| FlowQueue::default()).collect();
        FqCodel { codel, fq, perturb, queues, new_flows: VecDeque::new(), old_flows: VecDeque::new(), bytes: 0, len: 0 }
    }

    /// The queue of the flow `key` (§4.1.1: hash, then scale to `flows`).
    pub fn classify(&self, key: u64) -> usize {
        ((crate::rng::mix64(key ^ self.perturb) as u128 * self.fq.flows as u128) >> 64) as usize
    }

    /// §4.1: append to the flow's queue; a queue in neither list becomes a new flow.
    pub fn enqueue(&mut self, key: u64, q: Queued<P>) {
        let i = self.classify(key);
        let f = &mut self.queues[i];
        let b = q.bytes as u64;
        f.bytes += b;
        f.q.push_back(q);
        self.bytes += b;
        self.len += 1;
        if !f.listed {
            f.listed = true;
            f.deficit = self.fq.quantum as i64;
            self.new_flows.push_back(i as u32);
        }
    }

    /// §4.1 overflow: drop from the head of the fattest queue, up to `drop_batch` packets
    /// or until half its bytes are gone (Linux `fq_codel_drop`), into `drops`.
    pub fn drop_from_fattest(&mut self, drops: &mut Vec<Queued<P>>) {
        let Some((i, fat)) = self.queues.iter().enumerate().max_by_key(|(i, f)| (f.bytes, std::cmp::Reverse(*i))) else {
            return;
        };
        let threshold = fat.bytes / 2;
        let mut src = FlowSource { f: &mut self.queues[i], total: &mut self.bytes, len: &mut self.len };
        let (mut n, mut dropped) = (0, 0u64);
        while let Some(q) = src.pop() {
            dropped += q.bytes as u64;
            drops.push(q);
            n += 1;
            if n >= self.fq.drop_batch || dropped >= threshold {
                break;
            }
        }
    }

    /// §4.2: the next packet to send at `now` (None: every queue is empty); CoDel's drops
    /// appended to `drops`.
    pub fn dequeue(&mut self, now: Nanos, drops: &mut Vec<Queued<P>>) -> Option<Dequeued<P>> {
        loop {
            let (from_new, i) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i as usize),
                (None, Some(&i)) => (false, i as usize),
                (None, None) => return None,
            };
            let f = &mut self.queues[i];
            if f.deficit <= 0 {
                // Spent: another quantum, to the tail of the old list.
                f.deficit += self.fq.quantum as i64;
                self.pop_list(from_new);
                self.old_flows.push_back(i as u32);
                continue;
            }
            let mut vars = f.vars;
            let mut src = FlowSource { f, total: &mut self.bytes, len: &mut self.len };
            let out = vars.dequeue(now, &self.codel, &mut src, drops);
            let f = &mut self.queues[i];
            f.vars = vars;
            if let Some(d) = out {
                f.deficit -= d.q.bytes as i64;
                return Some(d);
            }
            let keep = from_new && !self.old_flows.is_empty();
            f.listed = keep;
            self.pop_list(from_new);
            if keep {
                // An empty new queue passes through the old list (no starvation).
                self.old_flows.push_back(i as u32);
            }
        }
    }

    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }

    /// Packets queued.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    fn fq(quantum: u32) -> FqCodel<u32> {
        FqCodel::new(CodelParams { ecn: false, ..CodelParams::default() }, FqParams { quantum, ..FqParams::default() }, 7)
    }

    fn q(n: u32, bytes: u32) -> Queued<u32> {
        Queued { pkt: n, bytes, enq: 0, ect: false }
    }

    /// Two keys in distinct queues (the perturbation fixed: keys 1 and 2 do not collide).
    fn two_keys(f: &FqCodel<u32>) -> (u64, u64) {
        assert_ne!(f.classify(1), f.classify(2));
        (1, 2)
    }

    /// DRR with a quantum of 1500 bytes: a flow of 1500-byte packets and one of 500-byte
    /// packets, both backlogged, send equal bytes per round (one big packet, then three
    /// small ones).
    #[test]
    fn drr_shares_bytes() {
        let mut f = fq(1500);
        let (a, b) = two_keys(&f);
        for k in 0..20 {
            f.enqueue(a, q(k, 1500));
        }
        for k in 100..160 {
            f.enqueue(b, q(k, 500));
        }
        let mut drops = vec![];
        let (mut ba, mut bb) = (0, 0);
        for _ in 0..40 {
            let d = f.dequeue(0, &mut drops).unwrap();
            if d.q.pkt < 100 { ba += d.q.bytes } else { bb += d.q.bytes }
        }
        assert!(drops.is_empty());
        assert_eq!((ba, bb), (15_000, 15_000));
    }

    /// A new (sparse) flow is served before the backlogged old ones (§4.2).
    #[test]
    fn new_flows_go_first() {
        let mut f = fq(1500);
        let (a, b) = two_keys(&f);
        for k in 0..10 {
            f.enqueue(a, q(k, 1500));
        }
        let mut drops = vec![];
        f.dequeue(0, &mut drops); // a: new → spends its quantum
        f.dequeue(0, &mut drops); // a: moved to old, refilled, sends
        f.enqueue(b, q(99, 100));
        assert_eq!(f.dequeue(0, &mut drops).unwrap().q.pkt, 99);
        assert_eq!(f.len(), 8);
    }

    /// Overflow drops from the head of the fattest queue: half its bytes, or drop_batch.
    #[test]
    fn overflow_drops_from_the_fattest_queue() {
        let mut f = fq(1500);
        let (a, b) = two_keys(&f);
        for k in 0..10 {
            f.enqueue(a, q(k, 1000));
        }
        for k in 10..13 {
            f.enqueue(b, q(k, 1000));
        }
        let mut drops = vec![];
        f.drop_from_fattest(&mut drops);
        assert_eq!(drops.iter().map(|d| d.pkt).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
        assert_eq!((f.len(), f.bytes()), (8, 8000));
        let mut g = FqCodel::new(CodelParams::default(), FqParams { drop_batch: 2, ..FqParams::default() }, 7);
        for k in 0..10 {
            g.enqueue(a, q(k, 1000));
        }
        drops.clear();
        g.drop_from_fattest(&mut drops);
        assert_eq!(drops.len(), 2);
    }

    /// Each queue has its own CoDel: a standing queue in one flow is dropped from while a
    /// flow whose packets wait less than target is not.
    #[test]
    fn per_queue_codel() {
        let ms = NS_PER_MS;
        let mut f = fq(1500);
        let (a, b) = two_keys(&f);
        let mut drops = vec![];
        let mut n = 0;
        for t in (100..1100).map(|k| k * ms) {
            // a: always 60 packets queued, 80 ms old; b: one packet, 1 ms old.
            while f.queues[f.classify(a)].q.len() < 60 {
                f.enqueue(a, Queued { pkt: n, bytes: 1500, enq: t - 80 * ms, ect: false });
                n += 1;
            }
            if f.queues[f.classify(b)].q.is_empty() {
                f.enqueue(b, Queued { pkt: u32::MAX, bytes: 1500, enq: t - ms, ect: false });
            }
            f.dequeue(t, &mut drops);
            f.dequeue(t, &mut drops);
        }
        assert!(drops.len() > 10);
        assert!(drops.iter().all(|d| d.pkt != u32::MAX));
    }

    /// The hash spreads keys over the queues: 10 000 keys into 1024 queues fill each with
    /// about 9.8 (every queue within 9.8 ± 6σ).
    #[test]
    fn classification_is_uniform() {
        let f = fq(1500);
        let mut n = vec![0u32; 1024];
        for k in 0..10_000u64 {
            n[f.classify(k)] += 1;
        }
        let (lo, hi) = (n.iter().min().unwrap(), n.iter().max().unwrap());
        assert!(*lo >= 1 && *hi <= 29, "{lo}..{hi}");
    }

    #[test]
    fn validate_names_the_parameter() {
        let e = FqParams { flows: 0, ..FqParams::default() }.validate("link b").unwrap_err();
        assert!(e.to_string().contains("link b.fq_codel_flows"), "{e}");
    }
}
