//! The applications: when a flow starts and stops, ON/OFF switching, constant-bit-rate
//! sends, and the fair shares the Ideal-estimate TCP reads.
use super::*;

pub(super) struct CbrFlow {
    pub(super) bytes: u32,
    pub(super) interval: Nanos,
    pub(super) next_no: u64,
    pub(super) sent: u64,
    pub(super) delivered: u64,
    pub(super) channel_losses: u64,
    pub(super) queue_drops: u64,
    pub(super) snap: (u64, u64, u64, u64),
    /// A send is scheduled.
    pub(super) armed: bool,
}

#[allow(clippy::large_enum_variant)] // a flow's state is used in place, never moved per packet
pub(super) enum FlowState {
    Tcp(TcpFlow),
    Cbr(CbrFlow),
}

/// Aligned to a cache line, so that a flow's hot spans (`TcpFlow::DATA_HOT`, ...) cover the
/// fewest lines, the same for every flow.
#[repr(C, align(64))]
pub(super) struct FlowRt {
    /// First: a TCP flow's hot fields start the line (`TcpFlow`).
    pub(super) state: FlowState,
    /// Where its forward and reverse paths begin in the engine's path table.
    pub(super) fwd0: u32,
    pub(super) rev0: u32,
    pub(super) started: bool,
    /// ON (or no ON/OFF): the application has data.
    pub(super) on: bool,
    /// The application has stopped for good.
    pub(super) stopped: bool,
    pub(super) onoff_rng: Option<Rng>,
    pub(super) spec: FlowSpec,
}

impl FlowRt {
    pub(super) fn tcp(&mut self) -> &mut TcpFlow {
        match &mut self.state {
            FlowState::Tcp(t) => t,
            FlowState::Cbr(_) => unreachable!("not a TCP flow"),
        }
    }

    /// [`FlowRt::tcp`] for the flow of a TCP packet (a data segment or an ACK: only TCP
    /// flows make them, `Engine::flush` and `Engine::ack_packet`), without the check.
    #[inline(always)]
    pub(super) fn tcp_of_packet(&mut self) -> &mut TcpFlow {
        match &mut self.state {
            FlowState::Tcp(t) => t,
            FlowState::Cbr(_) => {
                debug_assert!(false, "a TCP packet of a CBR flow");
                // SAFETY: packets of kind Data and Ack are made by TCP flows only (above).
                unsafe { std::hint::unreachable_unchecked() }
            }
        }
    }
}

impl<const LOG: bool, const FULL: bool, const PACE: bool, S: Store> Engine<LOG, FULL, PACE, S> {
    pub(super) fn start_flow(&mut self, f: usize) {
        self.flows[f].started = true;
        if let Some(oo) = self.flows[f].spec.on_off.clone() {
            self.schedule_switch(f, &oo, true);
        }
        if let Some(stop) = self.flows[f].spec.stop {
            self.push_timer(stop, Timer::Stop(f as u32));
        }
        self.shares_stale = true;
        if self.flows[f].spec.is_tcp() {
            self.handshake(f);
            self.record(f);
            let now = self.now;
            self.flows[f].tcp().sender.start(now, &mut self.txbuf);
            self.flush_tx(f);
        } else {
            self.cbr_send(f);
        }
    }

    /// `TcpConfig::handshake`: the SYN / SYN-ACK round trip over the flow's paths (each
    /// link's delay and a SYN-sized packet's serialisation, no queueing) is the sender's
    /// first RTT sample.
    pub(super) fn handshake(&mut self, f: usize) {
        let FlowKind::Tcp(t) = &self.flows[f].spec.kind else { return };
        if !t.handshake {
            return;
        }
        let syn = t.wire_ack_bytes();
        let spec = &self.flows[f].spec;
        let rtt: Nanos = spec
            .forward
            .iter()
            .chain(&spec.reverse)
            .map(|&l| {
                let link = &self.links[l];
                let ser = self.servers[link.server].timing.rate_bps().map_or(0, |r| tx_time(syn, r.max(1.0) as u64));
                link.pipe.delay + ser
            })
            .sum();
        self.flows[f].tcp().sender.handshake_sample(rtt);
    }

    /// The Ideal-estimate TCP's input (Martignon & Capone §V): the flow's fair share now,
    /// on the wire, into its sender's `Tcb::fair_share_bps` (0: unknown).
    #[cold]
    pub(super) fn set_share(&mut self, f: usize) {
        let share = self.fair_share_bps(f);
        self.flows[f].tcp().sender.tcb.fair_share_bps = if share.is_finite() { share as u64 } else { 0 };
    }

    /// Schedule the end of the current ON (`on`) or OFF period.
    pub(super) fn schedule_switch(&mut self, f: usize, oo: &OnOff, on: bool) {
        let rng = self.flows[f].onoff_rng.as_mut().expect("ON/OFF flows have a stream");
        let secs = if on { oo.on.sample(rng) } else { oo.off.sample(rng) };
        let d = crate::time::from_secs_f64(secs.clamp(0.0, 1e9)).max(1);
        let at = self.now.saturating_add(d);
        if at <= self.end {
            self.push_timer(at, Timer::Switch(f as u32));
        }
    }

    pub(super) fn switch(&mut self, f: usize) {
        if self.flows[f].stopped {
            return;
        }
        let on = !self.flows[f].on;
        self.flows[f].on = on;
        let oo = self.flows[f].spec.on_off.clone().expect("switches belong to ON/OFF flows");
        self.schedule_switch(f, &oo, on);
        self.set_active(f, on);
    }

    pub(super) fn stop(&mut self, f: usize) {
        if !self.flows[f].stopped {
            self.flows[f].stopped = true;
            let was_on = self.flows[f].on;
            self.flows[f].on = false;
            if was_on {
                self.set_active(f, false);
            }
        }
    }

    /// The application turns on or off.
    pub(super) fn set_active(&mut self, f: usize, on: bool) {
        self.shares_stale = true;
        let now = self.now;
        match &mut self.flows[f].state {
            FlowState::Tcp(t) => {
                t.sender.set_app_backlogged(on, now, &mut self.txbuf);
                if on {
                    self.flush_tx(f);
                }
            }
            FlowState::Cbr(c) => {
                if on && !c.armed {
                    self.cbr_send(f);
                }
            }
        }
    }

    /// Send one CBR datagram now and schedule the next.
    pub(super) fn cbr_send(&mut self, f: usize) {
        let pos = self.flows[f].fwd0;
        let first = self.paths[pos as usize] as usize;
        let FlowState::Cbr(c) = &mut self.flows[f].state else { unreachable!() };
        c.armed = false;
        let no = c.next_no;
        c.next_no += 1;
        c.sent += 1;
        let (bytes, interval) = (c.bytes, c.interval);
        let p = Pkt::new(f as u32, pos, self.now, PktKind::Udp, no, 0, false);
        self.log_pkt(LogEvent::Sent, first as u32, &p);
        self.enter(first, p, bytes);
        let next = self.now + interval;
        if next <= self.end {
            if let FlowState::Cbr(c) = &mut self.flows[f].state {
                c.armed = true;
            }
            self.push_timer(next, Timer::Cbr(f as u32));
        }
    }

    /// Flow `f`'s fair share of its forward path at this instant, bits/s (Martignon &
    /// Capone §V's ideal estimate, for the congestion controls that use it).
    pub(super) fn fair_share_bps(&mut self, f: usize) -> f64 {
        if self.shares_stale {
            self.recompute_shares();
            self.shares_stale = false;
        }
        match &self.flows[f].state {
            FlowState::Tcp(t) => t.fair_share_bps,
            FlowState::Cbr(_) => f64::NAN,
        }
    }

    /// Each TCP flow's fair share of its forward path at this instant (Martignon & Capone
    /// §V's ideal estimate): over the links of the path, the link's capacity less the
    /// rates of the CBR flows active on it, divided by the TCP flows active on it; the
    /// smallest. The shares change when a flow starts, completes, or switches on or off;
    /// they are recomputed when next read (`shares_stale`), not at every change: with N
    /// flows starting, eager recomputation costs O(N²).
    pub(super) fn recompute_shares(&mut self) {
        // Few flows change rarely: a direct computation is clearer than bookkeeping.
        let n = self.links.len();
        let mut tcp = vec![0u32; n];
        let mut cbr = vec![0f64; n];
        for fl in &self.flows {
            let active = fl.started && fl.on;
            match (&fl.spec.kind, &fl.state) {
                (FlowKind::Tcp(_), FlowState::Tcp(t)) if active && t.completion.is_none() => {
                    for &l in &fl.spec.forward {
                        tcp[l] += 1;
                    }
                }
                (FlowKind::Cbr { rate_bps, .. }, _) if active => {
                    for &l in &fl.spec.forward {
                        cbr[l] += *rate_bps as f64;
                    }
                }
                _ => {}
            }
        }
        let caps: Vec<Option<f64>> = self.links.iter().map(|l| self.servers[l.server].timing.rate_bps()).collect();
        for fl in &mut self.flows {
            if let FlowState::Tcp(t) = &mut fl.state {
                let share = fl
                    .spec
                    .forward
                    .iter()
                    .filter_map(|&l| caps[l].map(|c| (c - cbr[l]).max(0.0) / tcp[l].max(1) as f64))
                    .fold(f64::INFINITY, f64::min);
                t.fair_share_bps = share;
            }
        }
    }
}
