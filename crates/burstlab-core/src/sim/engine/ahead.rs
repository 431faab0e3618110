//! Prefetching what the next event will touch (issue 28: with 10,000 flows a packet's
//! state — its link's entry, its flow's sender or receiver, the next link of its path — has
//! left the caches since that flow's previous packet, and each miss used to be waited for
//! in turn). Once an event has updated the tournament tree, the tree's minimum is the next
//! event (unless this one schedules an earlier one): the engine asks the memory system for
//! that event's state ([`crate::sim::prefetch`], a hint that never faults and never changes
//! a result) and runs the rest of the current event while the lines arrive.
//!
//! The next event's packet is known without reading its link's pipe: each link keeps a
//! [`Head`] note of its head entry (where it lives, its flow, its place on its path, its
//! kind), written when the head changes (`Engine::on_link`, `Engine::admitted`). Paths
//! where the note is not kept (time-mode loss, CoDel, link layers) leave it stale: a stale
//! note prefetches the wrong lines, nothing more.
use super::*;
use crate::sim::prefetch;

/// A link's head packet as its last change left it (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub(super) struct Head {
    /// The address of its pipe entry (only ever prefetched, never read through).
    entry: usize,
    flow: u32,
    pos: u32,
    kind: PktKind,
}

impl Default for Head {
    fn default() -> Self {
        // Kind UDP: nothing of a flow to prefetch.
        Head { entry: 0, flow: 0, pos: 0, kind: PktKind::Udp }
    }
}

impl Head {
    #[inline(always)]
    pub(super) fn of(e: &InFlight<Pkt>) -> Self {
        Head { entry: e as *const InFlight<Pkt> as usize, flow: e.pkt.flow, pos: e.pkt.pos, kind: e.pkt.kind() }
    }
}

/// Where a TCP flow's parts sit inside its [`FlowRt`] (byte offsets; the same for every
/// flow, read off the first TCP flow when the engine is built), so that a flow's lines are
/// prefetched by address alone, without reading the flow (which would wait for the miss).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct FlowLayout {
    /// Offset of the TCP flow (the `FlowState::Tcp` payload).
    tcp: usize,
}

/// Bytes of a link's state that a packet's entry reads (its pipe, loss window, owner, busy
/// time, counters and queue-delay histogram: `LinkRt`'s leading fields), and of those its
/// arrival reads (the pipe): constants once `S` is known.
#[inline(always)]
fn link_entry<S: Store>() -> usize {
    std::mem::offset_of!(LinkRt<S>, loss)
}

#[inline(always)]
fn link_exit<S: Store>() -> usize {
    std::mem::size_of::<Pipe<Pkt, S>>()
}

/// The engine prefetches when the flows' and links' state exceeds this many bytes (below,
/// it stays in the caches and the prefetches would be instructions for nothing).
pub(super) const PREFETCH_ABOVE: usize = 1 << 20;

/// Whether a network of `flows` flows and `links` links has state enough to prefetch.
pub(super) fn worth_prefetching<S: Store>(flows: usize, links: usize) -> bool {
    flows * std::mem::size_of::<FlowRt>() + links * std::mem::size_of::<LinkRt<S>>() > PREFETCH_ABOVE
}

impl FlowLayout {
    pub(super) fn of(flows: &[FlowRt]) -> Self {
        for f in flows {
            if let FlowState::Tcp(t) = &f.state {
                let tcp = t as *const TcpFlow as usize - f as *const FlowRt as usize;
                return FlowLayout { tcp };
            }
        }
        FlowLayout::default()
    }
}

impl<const LOG: bool, const FULL: bool, const PACE: bool, S: Store> Engine<LOG, FULL, PACE, S> {
    /// Record link `li`'s head (it just changed and the pipe is not empty).
    #[inline(always)]
    pub(super) fn note_head(&mut self, li: usize) {
        if let Some(e) = self.links.at(li).pipe.get(&self.pool, 0) {
            *self.heads.at_mut(li) = Head::of(e);
        }
    }

    /// Prefetch what the next event will read: its link, its packet's entry, and where
    /// the packet goes (the next link of its path, or its flow's receiver or sender).
    #[inline(always)]
    pub(super) fn ahead(&self) {
        let (t, j) = self.tree.min();
        if j >= self.timers || t == Nanos::MAX {
            return;
        }
        let h = *self.heads.at(j);
        prefetch::span(self.links.at(j), link_exit::<S>());
        prefetch::span(h.entry as *const u8, std::mem::size_of::<InFlight<Pkt>>());
        self.prefetch_destination(h.flow, h.pos, h.kind);
    }

    /// Prefetch what a packet of `flow` at path position `pos` touches when it leaves its
    /// link: the next link and its server, or at the end of its path its flow's receiver
    /// (data) or sender (an ACK, with the first link of the flow's path, where the sender's
    /// next segments go).
    #[inline(always)]
    pub(super) fn prefetch_destination(&self, flow: u32, pos: u32, kind: PktKind) {
        use std::mem::size_of;
        if kind == PktKind::Udp {
            return;
        }
        // (A note's position was a packet's: its successor is in the table, a link or END.)
        let Some(&next) = self.paths.get(pos as usize + 1) else { return };
        if next != END {
            if let Some(l) = self.links.get(next as usize) {
                prefetch::span(l, link_entry::<S>());
                prefetch::value(&self.servers[l.server]);
            }
            return;
        }
        if flow as usize >= self.flows.len() {
            return;
        }
        // The flow's address, not the flow: reading it would wait for the miss.
        let base = self.flows.as_ptr() as usize + flow as usize * size_of::<FlowRt>();
        let tcp = base + self.layout.tcp;
        let span = |r: std::ops::Range<usize>| prefetch::span((tcp + r.start) as *const u8, r.len());
        if kind == PktKind::Data {
            span(TcpFlow::DATA_HOT);
        } else {
            // The ACK's sender sends into the first link of the flow's forward path.
            if let Some(l) = self.first_hops.get(flow as usize).and_then(|&l| self.links.get(l as usize)) {
                prefetch::span(l, link_entry::<S>());
                prefetch::value(&self.servers[l.server]);
            }
            span(TcpFlow::ACK_HOST);
            span(TcpFlow::SENDER_HOT);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::Timing;
    use crate::loss::Bernoulli;
    use crate::time::{NS_PER_MS, NS_PER_S, NS_PER_US};

    /// The flow's lines an arrival touches at most (`a_flows_hot_state_is_a_few_lines`).
    const DATA_LINES: usize = 5;
    const ACK_LINES: usize = 9;
    const SENDER_HOT_BYTES: usize = 512;

    /// A dumbbell of `n` TCP flows (SACK and NewReno in turn, one in ten with a size) and a
    /// CBR flow, 1 % loss on the bottleneck (decided in time mode on the reverse one), for
    /// `secs` simulated seconds.
    fn dumbbell(n: usize, secs: u64, log: bool) -> Network {
        let mut net = Network::new(secs * NS_PER_S);
        net.seed = 7;
        net.log = log;
        let link = |net: &mut Network, name: &str, bps: u64, delay: Nanos, buffer: u64, loss: Option<LossMode>| {
            let s = net.server(Timing::Rate { rate_bps: bps });
            let mut l = crate::sim::LinkSpec::new(name, s, delay, buffer);
            if let Some(mode) = loss {
                l.loss = LinkLoss::Own(Box::new(Bernoulli::new(0.01).expect("p")), mode);
            }
            net.link(l)
        };
        let bf = link(&mut net, "b", n as u64 * 1_000_000, 20 * NS_PER_MS, n as u64 * 6000, Some(LossMode::Packet));
        let br = link(&mut net, "b.rev", n as u64 * 1_000_000, 20 * NS_PER_MS, n as u64 * 6000, Some(LossMode::Time));
        for k in 0..n {
            let af = link(&mut net, &format!("a{k}"), 100_000_000, 5 * NS_PER_MS, 1_000_000, None);
            let ar = link(&mut net, &format!("a{k}.rev"), 100_000_000, 5 * NS_PER_MS, 1_000_000, None);
            let v = if k % 2 == 0 { crate::sim::Variant::Sack } else { crate::sim::Variant::NewReno };
            let mut f = FlowSpec::tcp(&format!("f{k}"), TcpConfig::variant(v), vec![af, bf], vec![br, ar]);
            f.start = k as u64 * 97 * NS_PER_US;
            if k % 10 == 3 {
                f.size = Some(200_000);
            }
            net.flow(f);
        }
        let c = link(&mut net, "c", 100_000_000, NS_PER_MS, 1_000_000, None);
        net.flow(FlowSpec::cbr("cbr", 2_000_000, 500, vec![c, bf]));
        net
    }

    fn run_with<const LOG: bool, S: Store>(net: Network, prefetching: bool) -> (NetworkResult, Vec<LogRec>, u64) {
        net.validate().expect("a valid network");
        assert!(!needs_full(&net) && !needs_pace(&net), "the plain engine's path");
        let mut e = Engine::<LOG, false, false, S>::new(net);
        e.prefetching = prefetching;
        e.run();
        let events = e.events;
        let (r, log) = e.finish();
        (r, log, events)
    }

    /// Cache lines of a flow that `r` (bytes of its `TcpFlow`, at `tcp` in the flow) covers.
    fn lines(tcp: usize, r: std::ops::Range<usize>) -> usize {
        (tcp + r.end - 1) / prefetch::LINE - (tcp + r.start) / prefetch::LINE + 1
    }

    #[test]
    fn a_flows_hot_state_is_a_few_lines() {
        // Issue 28: what a data segment's and an ACK's arrival touch of their flow, as laid
        // out (field order, `repr(C)`), pinned: the data side (the host's fields, the
        // receiver's hot head: 5 lines) and the ACK side (the host's fields in the flow's
        // first line, the sender's hot span: scoreboard, control block, congestion control,
        // recovery, counters, settings' head: 8 lines), against the 12 lines of the
        // 768-byte sender alone before.
        use crate::tcp::Tcb;
        use std::mem::{align_of, size_of};
        let e = Engine::<false, false, false, Mixed<InFlight<Pkt>>>::new(dumbbell(2, 1, false));
        let tcp = e.layout.tcp;
        assert_eq!(align_of::<FlowRt>(), prefetch::LINE, "flows start on a line");
        assert_eq!(e.flows.as_ptr() as usize % prefetch::LINE, 0);
        let (data, host, sender) = (TcpFlow::DATA_HOT, TcpFlow::ACK_HOST, TcpFlow::SENDER_HOT);
        eprintln!(
            "FlowRt {} B, TcpFlow at {tcp}; data side {data:?} ({} lines), ACK side host {host:?} ({} lines) + sender {sender:?} ({} lines); Sender {} B, hot {:?}; Tcb {} B, hot {:?}; Receiver {} B, hot {:?}; Scoreboard {} B, hot {:?}",
            size_of::<FlowRt>(), lines(tcp, data.clone()), lines(tcp, host.clone()), lines(tcp, sender.clone()),
            size_of::<Sender>(), Sender::HOT, size_of::<Tcb>(), Tcb::HOT, size_of::<Receiver>(), Receiver::HOT,
            size_of::<crate::tcp::scoreboard::Scoreboard>(), crate::tcp::scoreboard::Scoreboard::HOT,
        );
        assert_eq!(tcp, 0, "a TCP flow starts its line");
        assert!(lines(tcp, data.clone()) <= DATA_LINES, "data side: {} lines", lines(tcp, data.clone()));
        assert!(lines(tcp, host.clone()) + lines(tcp, sender.clone()) <= ACK_LINES, "ACK side");
        assert!(Sender::HOT.len() <= SENDER_HOT_BYTES && Tcb::HOT.len() <= 112, "{:?} {:?}", Sender::HOT, Tcb::HOT);
    }

    #[test]
    fn prefetching_changes_no_result() {
        // Big enough to prefetch on its own, and a small one with prefetching forced on.
        // The big one as the engine runs it, with its packets pooled (`pooled`).
        let big = dumbbell(600, 2, false);
        assert!(pooled(&big) && worth_prefetching::<Mixed<InFlight<Pkt>>>(big.flows.len(), big.links.len()), "600 flows are worth prefetching");
        let (a, _, ea) = run_with::<false, Mixed<InFlight<Pkt>>>(big, true);
        let (b, _, eb) = run_with::<false, Mixed<InFlight<Pkt>>>(dumbbell(600, 2, false), false);
        assert!(ea > 100_000, "a busy run: {ea} events");
        assert_eq!(ea, eb);
        assert_eq!(a, b);
        let small = dumbbell(20, 5, true);
        assert!(!worth_prefetching::<Ring<InFlight<Pkt>>>(small.flows.len(), small.links.len()));
        let (a, la, _) = run_with::<true, Ring<InFlight<Pkt>>>(small, true);
        let (b, lb, _) = run_with::<true, Ring<InFlight<Pkt>>>(dumbbell(20, 5, true), false);
        assert!(la.len() > 10_000 && la == lb, "the same per-packet log");
        assert_eq!(a, b);
        assert!(a.flows.iter().any(|f| f.result.counters.channel_losses > 0), "losses exercised");
    }
}
