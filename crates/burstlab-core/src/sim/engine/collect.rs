//! Result collection: the time series, the counters at the end of the warm-up, and the
//! results of every flow and link at the end of the run.
use super::*;

impl<const LOG: bool, const FULL: bool, const PACE: bool, S: Store> Engine<LOG, FULL, PACE, S> {
    /// A row of flow `f`'s time series, if it records one.
    #[inline(always)]
    pub(super) fn record(&mut self, f: usize) {
        if FULL && self.flows[f].tcp().series.is_some() {
            self.record_row(f);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn record_row(&mut self, f: usize) {
        let now = self.now;
        let t = self.flows[f].tcp();
        if let Some(s) = &mut t.series {
            let c = &t.sender.tcb;
            s.time.push(now);
            s.cwnd.push(c.cwnd);
            s.ssthresh.push(c.ssthresh);
            s.srtt.push(c.srtt.unwrap_or(0));
            s.rto.push(c.rto);
            s.snd_una.push(t.sender.bytes_below(c.snd_una));
            s.snd_nxt.push(t.sender.bytes_below(c.snd_nxt));
            s.state.push(c.state.code());
        }
    }

    /// Whether packet `p`, whose fate is decided now, was sent before the measured window
    /// opened (the warm-up's end, once reached): its flow counted it as sent before the
    /// window, so its loss or delivery is not counted in it either (lost ≤ sent and
    /// delivered ≤ sent in every window; docs/simulator.md "Warm-up").
    #[inline]
    pub(super) fn sent_before_window(&self, p: &Pkt) -> bool {
        self.window_open && p.t0 <= self.warmup
    }

    pub(super) fn snapshot(&mut self) {
        self.window_open = true;
        for i in 0..self.flows.len() {
            if self.flows[i].spec.is_tcp() {
                let mut c = self.tcp_counters(i);
                // Data sent before the window (in flight, or held out of order at the
                // receiver) is not delivered in it: the window's delivery starts at the
                // highest segment sent so far, so delivered ≤ sent and goodput ≤ the
                // bottleneck (each segment delivered in it crossed the path in it).
                let t = self.flows[i].tcp();
                let first = t.receiver.rcv_nxt.max(t.sender.tcb.high_tx);
                c.delivered_bytes = t.sender.bytes_below(first);
                c.delivered_segments = t.sender.segments_below(first);
                self.flows[i].tcp().snapshot = Some(Box::new(c));
            } else if let FlowState::Cbr(c) = &mut self.flows[i].state {
                c.snap = (c.sent, c.delivered, c.channel_losses, c.queue_drops);
            }
        }
        for l in &mut self.links {
            l.snap = Some(Box::new(l.counters()));
            if let Some(lr) = &mut l.layer {
                lr.layer.clear_stats();
            }
        }
    }

    pub(super) fn tcp_counters(&mut self, f: usize) -> Counters {
        tcp_counters(self.flows[f].tcp())
    }

    pub(super) fn finish(mut self) -> (NetworkResult, Vec<LogRec>) {
        let stop = self.stopped_at.unwrap_or(self.end);
        let warmup = self.warmup;
        let events = self.events;
        // The flows' results are made from the last flow to the first, the flows' vector
        // released as it goes: the results do not come on top of the state of every flow (the
        // run's peak memory with many flows was here: 10,000 flows' results are 4.6 MB).
        let mut state = std::mem::take(&mut self.flows);
        let mut flows: Vec<FlowResult> = Vec::with_capacity(state.len());
        // (Its pages given back, not the vector shrunk: a flow is aligned to a cache line,
        // and the allocator shrinks an over-aligned block by a copy, 16 MB more on the peak
        // at 10,000 flows.)
        while let Some(fl) = state.pop() {
            flows.push(flow_result(fl, stop, warmup, events));
            if state.len() % 1024 == 0 {
                crate::mem::release_spare(&mut state);
            }
        }
        flows.reverse();
        // (The flows' state, senders, receivers and their scoreboards, is freed: the links'
        // results are built without it.)
        let measured = stop.saturating_sub(warmup);
        let servers = &self.servers;
        let pool = &self.pool;
        let links = std::mem::take(&mut self.links)
            .into_iter()
            .map(|l| {
                // Service scheduled past the stop was counted when the packet entered: take
                // back the time beyond the stop, and the packets whose service had not ended.
                let over: Nanos =
                    l.pipe.iter(pool).map(|e| l.pipe.sent(e).saturating_sub(e.start.max(stop).max(warmup))).sum();
                let busy = l.busy.saturating_sub(over);
                let mut c = l.counters().minus(&l.snap.as_deref().copied().unwrap_or_default());
                for e in l.pipe.iter(pool).filter(|e| l.pipe.sent(e) > stop) {
                    c.sent = c.sent.saturating_sub(1);
                    c.bytes_sent = c.bytes_sent.saturating_sub(e.bytes as u64);
                }
                LinkResult {
                    name: l.name,
                    counters: c,
                    utilisation: if measured > 0 { busy as f64 / measured as f64 } else { 0.0 },
                    capacity_bps: servers[l.server].timing.rate_bps(),
                    queue_delay: l.qdelay,
                    link_layer: l.layer.map(|lr| lr.layer.stats().clone()),
                }
            })
            .collect::<Vec<_>>();
        let goodputs: Vec<f64> =
            flows.iter().filter(|f| f.kind == FlowKindTag::Tcp).map(|f| f.result.goodput_bps).collect();
        let r = NetworkResult {
            aggregate_goodput_bps: flows.iter().map(|f| f.result.goodput_bps).sum(),
            jain_index: jain(&goodputs),
            flows,
            links,
            end_time: stop,
            events: self.events,
        };
        (r, self.log)
    }
}

fn tcp_counters(t: &TcpFlow) -> Counters {
    let s = &t.sender.counters;
    Counters {
        packets_sent: s.packets_sent,
        packets_lost: t.channel_losses + t.queue_drops,
        channel_losses: t.channel_losses,
        queue_drops: t.queue_drops,
        retransmissions: s.retransmissions,
        spurious_retransmissions: t.spurious_retx,
        fast_retransmits: s.fast_retransmits,
        timeouts: s.timeouts,
        acks_sent: t.receiver.acks_sent,
        acks_lost: t.acks_lost,
        arrived_bytes: t.arrived_bytes,
        delivered_bytes: t.sender.bytes_below(t.receiver.rcv_nxt),
        delivered_segments: t.sender.segments_below(t.receiver.rcv_nxt),
        ecn_reductions: s.ecn_reductions,
        lost_retransmissions: s.lost_retransmissions,
        loss_probes: s.loss_probes,
        pfec_sent: s.pfec_sent,
        rfec_sent: s.rfec_sent,
        fec_decodes: t.receiver.lt.as_ref().map_or(0, |l| l.decodes),
        fec_wasted: t.receiver.lt.as_ref().map_or(0, |l| l.fec_wasted),
    }
}

/// Flow `fl`'s result over [max(warm-up, its start), its completion or `stop`]; the flow's
/// state is consumed (its name moves into the result).
fn flow_result(fl: FlowRt, stop: Nanos, warmup: Nanos, events: u64) -> FlowResult {
    let FlowRt { spec, mut state, .. } = fl;
    let begin = warmup.max(spec.start);
    let (kind, c, completion, series, spurious) = match &mut state {
        FlowState::Tcp(t) => {
            let before = t.snapshot.as_deref().copied().unwrap_or_default();
            (FlowKindTag::Tcp, tcp_counters(t).minus(&before), t.completion, t.series.take().map(|s| *s), t.spurious_timeouts)
        }
        FlowState::Cbr(cb) => {
            let (s0, d0, l0, q0) = cb.snap;
            let delivered = cb.delivered - d0;
            let bytes = delivered * cb.bytes as u64;
            let c = Counters {
                packets_sent: cb.sent - s0,
                packets_lost: cb.channel_losses - l0 + cb.queue_drops - q0,
                channel_losses: cb.channel_losses - l0,
                queue_drops: cb.queue_drops - q0,
                arrived_bytes: bytes,
                delivered_bytes: bytes,
                delivered_segments: delivered,
                ..Counters::default()
            };
            (FlowKindTag::Cbr, c, None, None, 0)
        }
    };
    let flow_stop = completion.unwrap_or(stop).max(begin);
    let secs = to_secs_f64(flow_stop - begin);
    let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
    FlowResult {
        name: spec.name,
        kind,
        result: SimResult {
            goodput_bps: per_s(c.delivered_bytes as f64 * 8.0),
            goodput_pps: per_s(c.delivered_segments as f64),
            throughput_bps: per_s(c.arrived_bytes as f64 * 8.0),
            duration: secs,
            counters: c,
            completion_time: completion.map(|t| to_secs_f64(t - spec.start)),
            end_time: flow_stop,
            events,
            series,
        },
        spurious_timeouts: spurious,
    }
}
