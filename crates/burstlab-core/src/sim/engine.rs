//! The event loop. Timers live in the binary heap ([`super::event::EventQueue`]);
//! packets in flight live in the two link pipes, whose heads (arrivals) and, in time
//! mode, first undecided entries (serialisation starts, where the loss process is
//! consulted) are merged with the heap by the same (time, insertion sequence) key. The
//! hot path allocates nothing: pipes, scoreboard and the transmit buffer are reused.
use super::event::{EventQueue, Timer};
use super::scenario::{AckLoss, AckPath, Scenario, Variant};
use crate::link::{BufferUnit, LossMode, LossSource, Pipe, Timing};
use crate::results::{Counters, Series, SimResult};
use crate::rng::{component_id, stream};
use crate::tcp::cc::{Cc, Reno as RenoCc};
use crate::tcp::receiver::{AckPkt, Receiver, ReceiverConfig, RxAction};
use crate::tcp::recovery::{NewReno, Recovery, Reno, Sack, Tahoe};
use crate::tcp::rtt::RttConfig;
use crate::tcp::sender::{Sender, SenderConfig, Tx};
use crate::time::{to_secs_f64, Nanos};
use crate::Result;

/// One line of the optional per-packet log (tests and debugging).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogRec {
    /// Sender handed segment `seg` to the link (`retx`: a retransmission).
    Sent { t: Nanos, seg: u64, retx: bool },
    /// A copy of `seg`, sent at `sent`, was lost: by the channel, or dropped by the full
    /// buffer (`dropped`).
    Lost { sent: Nanos, seg: u64, dropped: bool },
    /// A copy of `seg` reached the receiver.
    Arrived { t: Nanos, seg: u64 },
    /// The receiver delivered segments [from, to) to the application.
    Delivered { t: Nanos, from: u64, to: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    Timer,
    FwdArrive,
    RevArrive,
    FwdDecide,
    RevDecide,
}

struct Engine {
    now: Nanos,
    seq: u64,
    events: u64,
    heap: EventQueue,
    fwd: Pipe<Tx>,
    rev: Pipe<AckPkt>,
    fwd_loss: LossSource,
    rev_loss: LossSource,
    fwd_time: bool,
    rev_time: bool,
    slot_next: u64,
    sender: Sender,
    receiver: Receiver,
    rto_sched: Option<Nanos>,
    delack_sched: Option<Nanos>,
    txbuf: Vec<Tx>,
    end: Nanos,
    warmup: Nanos,
    data_bytes_hdr: u32,
    ack_bytes: u32,
    completion: Option<Nanos>,
    // counters not kept by sender / receiver
    channel_losses: u64,
    acks_lost: u64,
    arrived_bytes: u64,
    snapshot: Counters,
    series: Option<Series>,
    log: Option<Vec<LogRec>>,
}

/// Run a scenario to completion.
pub fn run(sc: Scenario) -> Result<SimResult> {
    run_logged(sc).map(|(r, _)| r)
}

/// Run a scenario and return the per-packet log as well (when `sc.log` is set).
pub fn run_logged(sc: Scenario) -> Result<(SimResult, Vec<LogRec>)> {
    sc.validate()?;
    let mut e = Engine::new(sc);
    e.run();
    Ok(e.finish())
}

impl Engine {
    fn new(sc: Scenario) -> Self {
        let t = &sc.tcp;
        let rec = match t.variant {
            Variant::Tahoe => Recovery::Tahoe(Tahoe),
            Variant::Reno => Recovery::Reno(Reno),
            Variant::NewReno => Recovery::NewReno(NewReno::default()),
            Variant::Sack => Recovery::Sack(Sack::default()),
        };
        let scfg = SenderConfig {
            mss: t.mss,
            init_cwnd: t.init_cwnd,
            max_cwnd: t.max_cwnd.map_or(u64::MAX, |m| m.saturating_mul(t.mss)),
            rwnd: t.rwnd.unwrap_or(u64::MAX),
            dupack_threshold: t.dupack_threshold,
            limited_transmit: t.limited_transmit,
            rtt: RttConfig {
                rto_min: t.rto_min,
                rto_max: t.rto_max,
                rto_initial: t.rto_initial,
                granularity: t.clock_granularity,
                backoff_reset: t.rto_backoff_reset,
                estimator: t.rto_estimator,
                backoff: t.rto_backoff,
            },
            ssthresh_rule: t.ssthresh_rule,
            grow_on_loss_exit: t.grow_on_loss_exit,
            total_bytes: sc.workload.size,
            fast_retransmit_after_timeout: t.fast_retransmit_after_timeout,
            restart_timer_every_partial_ack: t.restart_timer_every_partial_ack,
        };
        let sender = Sender::new(scfg, Cc::Reno(RenoCc), rec);
        let receiver = Receiver::new(ReceiverConfig {
            delayed_ack: t.delayed_ack,
            ack_every: t.ack_every,
            ack_timeout: t.ack_timeout,
            sack: t.variant == Variant::Sack,
            ack_on_idle: t.ack_on_idle,
        });
        let seed = sc.seed;
        let (fwd, rev, fwd_loss, rev_loss) = if let Some(s) = sc.slotted {
            let fwd = Pipe::new(Timing::Slotted { slot: s.slot }, u64::MAX, BufferUnit::Packets);
            let fwd_loss = LossSource::Trace { trace: s.trace.clone(), slot: s.slot };
            let (rev, rev_loss) = match s.ack_path {
                AckPath::Lossless => {
                    (Pipe::new(Timing::SlotEnd { slot: s.slot }, u64::MAX, BufferUnit::Packets), LossSource::None)
                }
                AckPath::Trace => (
                    Pipe::new(Timing::Slotted { slot: s.slot }, u64::MAX, BufferUnit::Packets),
                    LossSource::Trace { trace: s.trace, slot: s.slot },
                ),
            };
            (fwd, rev, fwd_loss, rev_loss)
        } else {
            let f = sc.forward;
            let r = sc.reverse.unwrap_or_else(|| f.lossless_twin());
            let fwd = Pipe::new(Timing::Rate { rate_bps: f.rate_bps, delay: f.delay }, f.buffer, f.buffer_unit);
            let rev = Pipe::new(Timing::Rate { rate_bps: r.rate_bps, delay: r.delay }, r.buffer, r.buffer_unit);
            let fwd_copy = f.loss.as_ref().map(|m| {
                let mut m = m.clone_box();
                m.reset();
                m
            });
            let fwd_loss = match f.loss {
                Some(mut m) => {
                    m.reset();
                    LossSource::Own { model: m, rng: stream(seed, component_id("link.forward.loss")), mode: f.loss_mode }
                }
                None => LossSource::None,
            };
            let rev_own = r.loss.map(|mut m| {
                m.reset();
                (m, r.loss_mode)
            });
            let rev_loss = match sc.ack_loss {
                AckLoss::None => match rev_own {
                    Some((m, mode)) => {
                        LossSource::Own { model: m, rng: stream(seed, component_id("link.reverse.loss")), mode }
                    }
                    None => LossSource::None,
                },
                AckLoss::Independent => {
                    let (m, mode) = rev_own.unwrap_or_else(|| (fwd_copy.expect("validated"), f.loss_mode));
                    LossSource::Own { model: m, rng: stream(seed, component_id("link.reverse.loss")), mode }
                }
                AckLoss::Sync => LossSource::SharedForward,
            };
            (fwd, rev, fwd_loss, rev_loss)
        };
        let fwd_time = fwd_loss.mode(&LossSource::None) == Some(LossMode::Time);
        let rev_time = rev_loss.mode(&fwd_loss) == Some(LossMode::Time);
        Engine {
            now: 0,
            seq: 0,
            events: 0,
            heap: EventQueue::new(),
            fwd,
            rev,
            fwd_loss,
            rev_loss,
            fwd_time,
            rev_time,
            slot_next: 0,
            sender,
            receiver,
            rto_sched: None,
            delack_sched: None,
            txbuf: Vec::with_capacity(256),
            end: sc.workload.end(),
            warmup: sc.workload.warmup,
            data_bytes_hdr: (t.mss + t.header_bytes) as u32,
            ack_bytes: t.ack_bytes as u32,
            completion: None,
            channel_losses: 0,
            acks_lost: 0,
            arrived_bytes: 0,
            snapshot: Counters::default(),
            series: sc.series.then(Series::default),
            log: sc.log.then(Vec::new),
        }
    }

    #[inline]
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    fn counters(&self) -> Counters {
        let s = &self.sender.counters;
        let queue_drops = self.fwd.queue_drops;
        Counters {
            packets_sent: s.packets_sent,
            packets_lost: self.channel_losses + queue_drops,
            channel_losses: self.channel_losses,
            queue_drops,
            retransmissions: s.retransmissions,
            spurious_retransmissions: self.receiver.duplicates,
            fast_retransmits: s.fast_retransmits,
            timeouts: s.timeouts,
            acks_sent: self.receiver.acks_sent,
            acks_lost: self.acks_lost + self.rev.queue_drops,
            arrived_bytes: self.arrived_bytes,
            delivered_bytes: self.sender.bytes_below(self.receiver.rcv_nxt),
            delivered_segments: self.receiver.rcv_nxt,
        }
    }

    fn record(&mut self) {
        if let Some(s) = &mut self.series {
            let t = &self.sender.tcb;
            s.time.push(self.now);
            s.cwnd.push(t.cwnd);
            s.ssthresh.push(t.ssthresh);
            s.srtt.push(t.srtt.unwrap_or(0));
            s.rto.push(t.rto);
            s.snd_una.push(self.sender.bytes_below(t.snd_una));
            s.snd_nxt.push(self.sender.bytes_below(t.snd_nxt));
        }
    }

    /// Hand the sender's pending segments to the forward link.
    #[inline]
    fn flush_tx(&mut self) {
        for k in 0..self.txbuf.len() {
            let tx = self.txbuf[k];
            let seq = self.next_seq();
            if let Some(log) = &mut self.log {
                log.push(LogRec::Sent { t: self.now, seg: tx.seg, retx: tx.retx });
            }
            let bytes = self.data_bytes_hdr - (self.sender.cfg.mss as u32 - tx.len);
            match self.fwd.enter(self.now, bytes, seq, tx, &mut self.slot_next) {
                Some(i) => {
                    if !self.fwd_time {
                        let e = self.fwd.entry_mut(i);
                        let (s, a) = (e.start, e.arrive);
                        let lost = self.fwd_loss.decide(s, a);
                        self.fwd.mark_decided(i, lost);
                    }
                }
                None => {
                    if let Some(log) = &mut self.log {
                        log.push(LogRec::Lost { sent: self.now, seg: tx.seg, dropped: true });
                    }
                }
            }
        }
        self.txbuf.clear();
        self.sync_rto();
    }

    #[inline]
    fn send_ack(&mut self, a: AckPkt) {
        let seq = self.next_seq();
        if let Some(i) = self.rev.enter(self.now, self.ack_bytes, seq, a, &mut self.slot_next) {
            if !self.rev_time {
                let e = self.rev.entry_mut(i);
                let (s, t) = (e.start, e.arrive);
                let lost = match &mut self.rev_loss {
                    LossSource::SharedForward => self.fwd_loss.decide(s, t),
                    l => l.decide(s, t),
                };
                self.rev.mark_decided(i, lost);
            }
        }
    }

    #[inline]
    fn sync_rto(&mut self) {
        if let Some(d) = self.sender.rto_deadline {
            if self.rto_sched.is_none_or_gt(d) {
                let seq = self.next_seq();
                self.heap.push(d, seq, Timer::Rto);
                self.rto_sched = Some(d);
            }
        }
    }

    #[inline]
    fn sync_delack(&mut self, d: Nanos) {
        if self.delack_sched.is_none_or_gt(d) {
            let seq = self.next_seq();
            self.heap.push(d, seq, Timer::DelAck);
            self.delack_sched = Some(d);
        }
    }

    fn run(&mut self) {
        if self.warmup > 0 {
            let seq = self.next_seq();
            self.heap.push(self.warmup, seq, Timer::Warmup);
        }
        self.record();
        self.sender.start(0, &mut self.txbuf);
        self.flush_tx();
        loop {
            // The earliest of the heap, the two pipe heads and (time mode) the two
            // first undecided entries, by (time, sequence).
            let mut best = (Nanos::MAX, u64::MAX);
            let mut src = Src::Timer;
            if let Some((t, s, _)) = self.heap.peek() {
                best = (t, s);
            }
            if let Some(k) = self.fwd.head() {
                if k < best {
                    best = k;
                    src = Src::FwdArrive;
                }
            }
            if let Some(k) = self.rev.head() {
                if k < best {
                    best = k;
                    src = Src::RevArrive;
                }
            }
            if self.fwd_time {
                if let Some(k) = self.fwd.next_undecided() {
                    if k < best {
                        best = k;
                        src = Src::FwdDecide;
                    }
                }
            }
            if self.rev_time {
                if let Some(k) = self.rev.next_undecided() {
                    if k < best {
                        best = k;
                        src = Src::RevDecide;
                    }
                }
            }
            if best.0 > self.end || best.0 == Nanos::MAX {
                break;
            }
            self.now = best.0;
            self.events += 1;
            match src {
                Src::Timer => {
                    let (t, _, ev) = self.heap.pop().expect("peeked");
                    self.on_timer(t, ev);
                }
                Src::FwdArrive => {
                    let e = self.fwd.pop();
                    if e.lost {
                        self.channel_losses += 1;
                        if let Some(log) = &mut self.log {
                            log.push(LogRec::Lost { sent: e.entered, seg: e.pkt.seg, dropped: false });
                        }
                    } else if self.on_data(e.pkt) {
                        break;
                    }
                }
                Src::RevArrive => {
                    let e = self.rev.pop();
                    if e.lost {
                        self.acks_lost += 1;
                    } else {
                        self.sender.on_ack(&e.pkt, self.now, &mut self.txbuf);
                        self.record();
                        self.flush_tx();
                    }
                }
                Src::FwdDecide => {
                    let e = self.fwd.undecided_mut();
                    let (s, a) = (e.start, e.arrive);
                    let lost = self.fwd_loss.decide(s, a);
                    self.fwd.undecided_mut().lost = lost;
                    self.fwd.advance_decided();
                }
                Src::RevDecide => {
                    let e = self.rev.undecided_mut();
                    let (s, a) = (e.start, e.arrive);
                    let lost = match &mut self.rev_loss {
                        LossSource::SharedForward => self.fwd_loss.decide(s, a),
                        l => l.decide(s, a),
                    };
                    self.rev.undecided_mut().lost = lost;
                    self.rev.advance_decided();
                }
            }
        }
        if self.completion.is_none() {
            self.now = self.end;
        }
    }

    fn on_timer(&mut self, t: Nanos, ev: Timer) {
        match ev {
            Timer::Warmup => self.snapshot = self.counters(),
            Timer::Rto => {
                if self.rto_sched != Some(t) {
                    return; // superseded by an earlier entry
                }
                self.rto_sched = None;
                match self.sender.rto_deadline {
                    None => {}
                    Some(d) if d > t => self.sync_rto(),
                    Some(_) => {
                        self.sender.on_rto(self.now, &mut self.txbuf);
                        self.record();
                        self.flush_tx();
                    }
                }
            }
            Timer::DelAck => {
                if self.delack_sched != Some(t) {
                    return;
                }
                self.delack_sched = None;
                match self.receiver.delack_deadline {
                    None => {}
                    Some(d) if d > t => self.sync_delack(d),
                    Some(_) => {
                        if let Some(a) = self.receiver.on_delack_timer(self.now) {
                            self.send_ack(a);
                        }
                        // tossim: an idle-ACK receiver re-arms its timer (ReceiverConfig::ack_on_idle).
                        if let Some(d) = self.receiver.delack_deadline {
                            self.sync_delack(d);
                        }
                    }
                }
            }
        }
    }

    /// A data segment reaches the receiver; true when a fixed-size transfer completes.
    #[inline]
    fn on_data(&mut self, tx: Tx) -> bool {
        self.arrived_bytes += tx.len as u64;
        let before = self.receiver.rcv_nxt;
        let act = self.receiver.on_segment(tx.seg, self.now);
        if let Some(log) = &mut self.log {
            log.push(LogRec::Arrived { t: self.now, seg: tx.seg });
            if self.receiver.rcv_nxt > before {
                log.push(LogRec::Delivered { t: self.now, from: before, to: self.receiver.rcv_nxt });
            }
        }
        match act {
            RxAction::Ack(a) => {
                self.send_ack(a);
                // tossim: an idle-ACK receiver keeps its timer running after an immediate ACK.
                if let Some(d) = self.receiver.delack_deadline {
                    self.sync_delack(d);
                }
            }
            RxAction::Delay(d) => self.sync_delack(d),
        }
        if self.receiver.rcv_nxt >= self.sender.total_segs() {
            self.completion = Some(self.now);
            return true;
        }
        false
    }

    fn finish(self) -> (SimResult, Vec<LogRec>) {
        let c = self.counters().minus(&self.snapshot);
        let stop = self.completion.unwrap_or(self.end);
        let measured = stop.saturating_sub(self.warmup);
        let secs = to_secs_f64(measured);
        let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
        let r = SimResult {
            goodput_bps: per_s(c.delivered_bytes as f64 * 8.0),
            goodput_pps: per_s(c.delivered_segments as f64),
            throughput_bps: per_s(c.arrived_bytes as f64 * 8.0),
            duration: secs,
            counters: c,
            completion_time: self.completion.map(to_secs_f64),
            end_time: stop,
            events: self.events,
            series: self.series,
        };
        (r, self.log.unwrap_or_default())
    }
}

trait NoneOrGt {
    fn is_none_or_gt(&self, d: Nanos) -> bool;
}
impl NoneOrGt for Option<Nanos> {
    #[inline]
    fn is_none_or_gt(&self, d: Nanos) -> bool {
        !matches!(self, Some(s) if *s <= d)
    }
}
