//! TCP sender: window-limited transmission, cumulative and duplicate ACK processing,
//! the retransmission timer (RFC 6298) and the hooks into congestion control and loss
//! recovery. The engine feeds it ACKs and timer expiries; it appends the segments to
//! transmit to a caller-owned buffer (no allocation per packet).
use super::cc::{Cc, CongestionControl};
use super::receiver::AckPkt;
use super::recovery::{LossRecovery, Recovery};
use super::rtt::{self, RttConfig};
use super::scoreboard::Scoreboard;
use super::{AckInfo, CaState, Tcb};
use crate::time::Nanos;

#[derive(Clone, Copy, Debug)]
pub struct SenderConfig {
    pub mss: u64,
    /// Initial window, segments (RFC 5681 §3.1 IW).
    pub init_cwnd: u64,
    /// Maximum congestion window, bytes (u64::MAX = unbounded).
    pub max_cwnd: u64,
    /// Receiver window, segments (u64::MAX = unbounded).
    pub rwnd: u64,
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit on the first DupThresh−1 duplicate ACKs.
    pub limited_transmit: bool,
    pub rtt: RttConfig,
    pub ssthresh_rule: super::SsthreshRule,
    pub grow_on_loss_exit: bool,
    /// Payload bytes to send in all (None = unlimited, bulk).
    pub total_bytes: Option<u64>,
}

/// A segment handed to the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tx {
    pub seg: u64,
    pub len: u32,
    pub retx: bool,
}

/// Sender-side counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderCounters {
    /// Data segments handed to the link, retransmissions included.
    pub packets_sent: u64,
    pub retransmissions: u64,
    /// Fast retransmit episodes (DupThresh duplicate ACKs or SACK loss detection).
    pub fast_retransmits: u64,
    pub timeouts: u64,
}

#[derive(Clone, Debug)]
pub struct Sender {
    pub tcb: Tcb,
    pub cfg: SenderConfig,
    pub cc: Cc,
    pub rec: Recovery,
    pub board: Scoreboard,
    /// Retransmission timer deadline (RFC 6298 §5), None when stopped.
    pub rto_deadline: Option<Nanos>,
    /// Timeouts since the last ACK of new data (RFC 5681: ssthresh held on repeats).
    backoffs: u32,
    total_segs: u64,
    last_len: u64,
    pub counters: SenderCounters,
}

impl Sender {
    pub fn new(cfg: SenderConfig, cc: Cc, rec: Recovery) -> Self {
        let (total_segs, last_len) = match cfg.total_bytes {
            None => (u64::MAX, cfg.mss),
            Some(b) => (b.div_ceil(cfg.mss), b - (b.div_ceil(cfg.mss).max(1) - 1) * cfg.mss),
        };
        let mut tcb = Tcb {
            mss: cfg.mss,
            cwnd: (cfg.init_cwnd * cfg.mss).min(cfg.max_cwnd),
            ssthresh: u64::MAX,
            max_cwnd: cfg.max_cwnd,
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            recover: 0,
            dupacks: 0,
            dupack_threshold: cfg.dupack_threshold,
            state: CaState::Open,
            srtt: None,
            rttvar: 0,
            rto: 0,
            min_rtt: None,
            ssthresh_rule: cfg.ssthresh_rule,
            grow_on_loss_exit: cfg.grow_on_loss_exit,
        };
        rtt::init(&mut tcb, &cfg.rtt);
        Sender {
            tcb,
            cfg,
            cc,
            rec,
            board: Scoreboard::with_capacity(1024),
            rto_deadline: None,
            backoffs: 0,
            total_segs,
            last_len,
            counters: SenderCounters::default(),
        }
    }

    pub fn total_segs(&self) -> u64 {
        self.total_segs
    }

    /// Payload bytes of segment `seg`.
    #[inline]
    pub fn seg_len(&self, seg: u64) -> u64 {
        if seg + 1 == self.total_segs {
            self.last_len
        } else {
            self.cfg.mss
        }
    }

    /// Payload bytes in segments [0, n).
    #[inline]
    pub fn bytes_below(&self, n: u64) -> u64 {
        if n >= self.total_segs {
            self.cfg.total_bytes.unwrap_or(u64::MAX)
        } else {
            n * self.cfg.mss
        }
    }

    /// Open the connection: send the initial window.
    pub fn start(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        self.send_loop(now, out);
    }

    fn set_state(&mut self, to: CaState) {
        let from = self.tcb.state;
        if from != to {
            self.tcb.state = to;
            self.cc.on_state_change(&mut self.tcb, from, to);
        }
    }

    /// An ACK arrives at `now`.
    pub fn on_ack(&mut self, a: &AckPkt, now: Nanos, out: &mut Vec<Tx>) {
        let state_before = self.tcb.state;
        if a.nsack > 0 && self.rec.uses_sack() {
            for &(s, e) in &a.sack[..a.nsack as usize] {
                self.board.mark_sacked(s, e);
            }
        }
        if a.ack > self.tcb.snd_una {
            let una = self.tcb.snd_una;
            let acked_segs = a.ack - una;
            let acked_bytes = self.bytes_below(a.ack) - self.bytes_below(una);
            // Karn's rule (RFC 6298 §3): no sample from an ACK that covers a retransmitted
            // segment (it may acknowledge the retransmission, and a later segment's wait
            // would include the timeout); otherwise the sample is taken from the highest
            // segment this ACK covers.
            let newest = self.board.get(a.ack - 1).map(|s| s.sent_at);
            let covers_retx = self.board.advance(a.ack);
            let rtt_sample = newest.filter(|_| !covers_retx).map(|t| now.saturating_sub(t));
            self.tcb.snd_una = a.ack;
            if self.tcb.snd_nxt < a.ack {
                self.tcb.snd_nxt = a.ack;
            }
            match rtt_sample {
                Some(r) => rtt::sample(&mut self.tcb, &self.cfg.rtt, r),
                None => rtt::on_new_ack_without_sample(&mut self.tcb, &self.cfg.rtt),
            }
            self.tcb.dupacks = 0;
            self.backoffs = 0;
            let mut restart = true;
            match state_before {
                CaState::Recovery => {
                    let act = self.rec.on_ack(&mut self.tcb, acked_bytes);
                    if act.exit {
                        self.set_state(CaState::Open);
                    } else {
                        restart = act.restart_timer;
                    }
                    if act.retransmit_una && self.tcb.snd_una < self.tcb.high_tx {
                        self.transmit(self.tcb.snd_una, now, out);
                    }
                }
                CaState::Loss => {
                    if self.tcb.snd_una >= self.tcb.recover {
                        self.set_state(CaState::Open);
                    }
                }
                CaState::Open | CaState::Disorder => self.set_state(CaState::Open),
            }
            let info = AckInfo { now, acked_bytes, acked_segs, rtt: rtt_sample, dup: false, state_before };
            self.cc.on_ack(&mut self.tcb, &info);
            // RFC 6298 §5.2-5.3: stop the timer when all is acknowledged, else restart it.
            if self.tcb.snd_una >= self.tcb.high_tx {
                self.rto_deadline = None;
            } else if restart {
                self.rto_deadline = Some(now + self.tcb.rto);
            }
        } else if a.ack == self.tcb.snd_una && self.tcb.snd_una < self.tcb.high_tx {
            self.tcb.dupacks += 1;
            match state_before {
                CaState::Open | CaState::Disorder => {
                    self.set_state(CaState::Disorder);
                    let sack_lost = self.rec.uses_sack()
                        && self.board.is_lost(self.tcb.snd_una, self.tcb.dupack_threshold);
                    // RFC 6582 §3.2 step 2 (and RFC 6675 §5): no new recovery unless the
                    // ACK covers the previous episode's `recover`; classic Reno has no such check.
                    let allowed = matches!(self.rec, Recovery::Reno(_)) || self.tcb.snd_una >= self.tcb.recover;
                    if (self.tcb.dupacks >= self.tcb.dupack_threshold || sack_lost) && allowed {
                        let ss = self.cc.ssthresh_on_loss(&self.tcb);
                        let from = self.tcb.state;
                        let act = self.rec.enter(&mut self.tcb, ss);
                        let to = self.tcb.state;
                        self.tcb.state = from;
                        self.set_state(to);
                        self.counters.fast_retransmits += 1;
                        if act.retransmit_una {
                            self.transmit(self.tcb.snd_una, now, out);
                        }
                    }
                }
                CaState::Recovery => {
                    let act = self.rec.on_dupack(&mut self.tcb);
                    if act.retransmit_una {
                        self.transmit(self.tcb.snd_una, now, out);
                    }
                }
                CaState::Loss => {}
            }
            let info = AckInfo { now, acked_bytes: 0, acked_segs: 0, rtt: None, dup: true, state_before };
            self.cc.on_ack(&mut self.tcb, &info);
        }
        self.send_loop(now, out);
    }

    /// The retransmission timer fires (RFC 6298 §5.4-5.6, RFC 5681 §3.1).
    pub fn on_rto(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        self.rto_deadline = None;
        if self.tcb.snd_una >= self.tcb.high_tx {
            return;
        }
        self.counters.timeouts += 1;
        // RFC 5681 eq. (4) on the first timeout; held constant on repeated timeouts.
        if self.backoffs == 0 {
            self.tcb.ssthresh = self.cc.ssthresh_on_loss(&self.tcb);
        }
        self.backoffs += 1;
        // Loss window: one segment; go back to snd_una.
        self.tcb.cwnd = self.tcb.mss;
        self.tcb.recover = self.tcb.high_tx;
        self.tcb.dupacks = 0;
        self.tcb.snd_nxt = self.tcb.snd_una;
        rtt::backoff(&mut self.tcb, &self.cfg.rtt);
        self.set_state(CaState::Loss);
        self.cc.on_timeout(&mut self.tcb);
        self.send_loop(now, out);
        // (5.5-5.6) restart the timer with the backed-off RTO.
        self.rto_deadline = Some(now + self.tcb.rto);
    }

    #[inline]
    fn transmit(&mut self, seg: u64, now: Nanos, out: &mut Vec<Tx>) {
        let retx = seg < self.tcb.high_tx;
        if retx {
            self.counters.retransmissions += 1;
            if let Some(s) = self.board.get_mut(seg) {
                s.retransmitted = true;
                s.sent_at = now;
            }
        } else {
            self.board.push(seg, now);
            self.tcb.high_tx = seg + 1;
        }
        self.counters.packets_sent += 1;
        out.push(Tx { seg, len: self.seg_len(seg) as u32, retx });
        // RFC 6298 §5.1: start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.tcb.rto);
        }
    }

    /// Send whatever the windows allow.
    fn send_loop(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        let rwnd_end = self.tcb.snd_una.saturating_add(self.cfg.rwnd).min(self.total_segs);
        if self.tcb.state == CaState::Recovery {
            if let Recovery::Sack(_) = self.rec {
                return self.sack_send_loop(now, rwnd_end, out);
            }
        }
        let mss = self.tcb.mss;
        let mut allowed = self.tcb.cwnd.min(self.tcb.max_cwnd);
        if self.cfg.limited_transmit && self.tcb.state == CaState::Disorder {
            // RFC 3042: up to DupThresh−1 extra segments of new data.
            allowed += self.tcb.dupacks.min(self.tcb.dupack_threshold - 1) as u64 * mss;
        }
        while self.tcb.snd_nxt < rwnd_end && (self.tcb.snd_nxt - self.tcb.snd_una + 1) * mss <= allowed {
            let seg = self.tcb.snd_nxt;
            self.tcb.snd_nxt += 1;
            if seg < self.tcb.high_tx && self.board.get(seg).is_some_and(|s| s.sacked) {
                continue; // after a timeout, skip what the receiver has SACKed (RFC 6675 §5.1)
            }
            self.transmit(seg, now, out);
        }
    }

    /// RFC 6675 §5 step (C): while cwnd − pipe ≥ 1 SMSS, send NextSeg.
    fn sack_send_loop(&mut self, now: Nanos, rwnd_end: u64, out: &mut Vec<Tx>) {
        let thresh = self.tcb.dupack_threshold;
        let Recovery::Sack(s) = &self.rec else { unreachable!() };
        let mut high_rxt = s.high_rxt.max(self.tcb.snd_una);
        let mut pipe = self.board.pipe(self.tcb.high_tx, high_rxt, thresh);
        let mss = self.tcb.mss;
        while self.tcb.cwnd.min(self.tcb.max_cwnd) >= (pipe + 1) * mss {
            let seg = if let Some(s) = self.board.next_retransmission(high_rxt, thresh, false) {
                high_rxt = s + 1; // rule 1: a lost segment
                s
            } else if self.tcb.high_tx < rwnd_end {
                self.tcb.high_tx // rule 2: new data
            } else if let Some(s) = self.board.next_retransmission(high_rxt, thresh, true) {
                high_rxt = s + 1; // rule 3
                s
            } else {
                break;
            };
            self.transmit(seg, now, out);
            if seg + 1 > self.tcb.snd_nxt {
                self.tcb.snd_nxt = seg + 1;
            }
            pipe += 1;
        }
        if let Recovery::Sack(s) = &mut self.rec {
            s.high_rxt = high_rxt;
        }
    }
}
