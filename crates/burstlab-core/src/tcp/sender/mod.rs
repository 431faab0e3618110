//! TCP sender: window-limited transmission, cumulative and duplicate ACK processing,
//! the retransmission timer (RFC 6298) and the hooks into congestion control and loss
//! recovery. The engine feeds it ACKs and timer expiries; it appends the segments to
//! transmit to a caller-owned buffer (no allocation per packet).
use super::cc::{Cc, CongestionControl};
use super::config::{CcRtt, DupackRule, PipeRule, TcpConfig};
use super::wire::AckPkt;
use super::recovery::lt::{Blocks, Lt};
use super::recovery::{LossRecovery, Recovery};
use super::rtt::{self, RttConfig};
use super::scoreboard::Scoreboard;
use super::{AckInfo, CaState, SsthreshRule, Tcb};
use crate::time::Nanos;
use std::collections::VecDeque;

mod ecn;
mod lt;
mod pacing;
mod rack;
mod radio;
mod rate;
#[cfg(test)]
mod tests;

pub use pacing::Pacer;
pub use radio::RadioGate;
use rack::{RackRetx, RackTimer};
pub use super::wire::Tx;

/// [`Sender::rto_timer`] when the retransmission timer is stopped.
pub const NO_TIMER: Nanos = Nanos::MAX;

/// A sender's ACK path as the engine calls it: a monomorphised [`Sender::on_ack_in`]
/// chosen when the flow is built ([`Sender::plain_ack_path`]).
pub type AckPath = fn(&mut Sender, &AckPkt, Nanos, &mut Vec<Tx>);

#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct SenderConfig {
    // Hot: the plain ACK path's reads (`SenderConfig::HOT`): segment size, receiver
    // window, the RTO's bounds and granularity.
    pub mss: u64,
    /// Receiver window, segments (u64::MAX = unbounded).
    pub rwnd: u64,
    pub rtt: RttConfig,
    // Cold: read at construction, on duplicate ACKs, timeouts, recovery or by the full engine.
    /// Initial window, segments (RFC 5681 §3.1 IW).
    pub init_cwnd: u64,
    /// Maximum congestion window, bytes (u64::MAX = unbounded).
    pub max_cwnd: u64,
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit on the first DupThresh−1 duplicate ACKs.
    pub limited_transmit: bool,
    /// [`TcpConfig::sack_dupacks`]: any rule but RFC 5681's needs the full engine.
    pub dupack_rule: DupackRule,
    /// [`TcpConfig::pipe_rule`].
    pub pipe_rule: PipeRule,
    /// [`TcpConfig::rack_lost_retransmissions`].
    pub rack_lost_retransmissions: bool,
    /// [`TcpConfig::rack_tlp`].
    pub rack_tlp: bool,
    /// [`TcpConfig::rto_keeps_recovery_ssthresh`].
    pub rto_keeps_recovery_ssthresh: bool,
    pub ssthresh_rule: super::SsthreshRule,
    pub grow_on_loss_exit: bool,
    /// Whether the ACK that ends fast recovery also grows cwnd (after setting it to ssthresh).
    pub grow_on_recovery_exit: bool,
    /// RFC 7323 timestamps: RTT samples from the echoed send times.
    pub timestamps: bool,
    /// Which RTT congestion control sees ([`CcRtt`]).
    pub cc_rtt: CcRtt,
    /// Payload bytes to send in all (None = unlimited, bulk).
    pub total_bytes: Option<u64>,
    /// Duplicate ACKs after a timeout may trigger fast retransmit (RFC 2581, RFC 2582's base
    /// algorithm); off: RFC 6582's careful variant (the `tossim` profile turns it on).
    pub fast_retransmit_after_timeout: bool,
    /// Restart the timer on every partial ACK (RFC 2582 §4 Slow-but-Steady); off: only the
    /// first (Impatient, RFC 6582 §3.2 step 5).
    pub restart_timer_every_partial_ack: bool,
    /// RFC 3168 ECN: respond to ECN-Echo once per window, flag CWR.
    pub ecn: bool,
}

impl SenderConfig {
    /// The settings an ACK of the plain path reads: the head (`mss`, `rwnd`, and the RTO's
    /// bounds and granularity at the head of `rtt`).
    pub const HOT: std::ops::Range<usize> =
        0..std::mem::offset_of!(SenderConfig, rtt) + std::mem::offset_of!(RttConfig, rto_initial);

    /// The sender settings of `t` for a transfer of `total_bytes` (None = bulk).
    pub fn from_tcp(t: &TcpConfig, total_bytes: Option<u64>) -> Self {
        SenderConfig {
            mss: t.mss,
            init_cwnd: t.init_cwnd,
            max_cwnd: t.max_cwnd.map_or(u64::MAX, |m| m.saturating_mul(t.mss)),
            rwnd: t.rwnd.unwrap_or(u64::MAX),
            dupack_threshold: t.dupack_threshold,
            limited_transmit: t.limited_transmit,
            dupack_rule: t.sack_dupacks(),
            pipe_rule: t.pipe_rule,
            rack_lost_retransmissions: t.rack_lost_retransmissions,
            rack_tlp: t.rack_tlp,
            rto_keeps_recovery_ssthresh: t.rto_keeps_recovery_ssthresh,
            rtt: RttConfig {
                rto_min: t.rto_min,
                rto_max: t.rto_max,
                rto_initial: t.rto_initial,
                granularity: t.clock_granularity,
                backoff_reset: t.rto_backoff_reset,
                estimator: t.rto_estimator,
                backoff: t.rto_backoff,
            },
            ssthresh_rule: t.resolved_ssthresh_rule(),
            grow_on_loss_exit: t.grow_on_loss_exit,
            grow_on_recovery_exit: t.grow_on_recovery_exit,
            timestamps: t.timestamps,
            cc_rtt: t.cc_rtt,
            total_bytes,
            fast_retransmit_after_timeout: t.fast_retransmit_after_timeout,
            restart_timer_every_partial_ack: t.restart_timer_every_partial_ack,
            ecn: t.ecn_on(),
        }
    }
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
    /// Window reductions in response to ECN-Echo (RFC 3168 §6.1.2).
    pub ecn_reductions: u64,
    /// LT-TCP: proactive and reactive FEC packets sent (also in `packets_sent`).
    pub pfec_sent: u64,
    pub rfec_sent: u64,
    /// Retransmissions found lost again by RACK's rule ([`TcpConfig::rack_lost_retransmissions`]).
    pub lost_retransmissions: u64,
    /// Tail loss probes sent ([`TcpConfig::rack_tlp`]).
    pub loss_probes: u64,
}

#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Sender {
    // The layout is the flow's cache footprint (issue 28): what an ACK of the plain path
    // reads and writes is one span, `Sender::HOT` (the scoreboard's hot tail, the control
    // block, congestion control, recovery, the timer and send limits, the counters, the
    // settings' hot head); the rest lies before and after it.
    pub board: Scoreboard,
    pub tcb: Tcb,
    pub cc: Cc,
    pub rec: Recovery,
    /// Retransmission timer deadline (RFC 6298 §5), [`NO_TIMER`] when stopped (a plain
    /// time, so that the engine compares it with its scheduled timer in one comparison on
    /// every ACK: [`Sender::rto_timer`]).
    rto_due_at: Nanos,
    total_segs: u64,
    last_len: u64,
    /// Segments the application has supplied so far, at most `total_segs` (so that the send
    /// loop's end is one minimum less): `total_segs` while backlogged; an ON/OFF
    /// application holds it at what was sent when it turns OFF.
    app_limit: u64,
    /// Timeouts since the last ACK of new data (RFC 5681: ssthresh held on repeats).
    backoffs: u32,
    /// Set CWR on the next new data segment.
    send_cwr: bool,
    /// An ECN-Echo at a window of one segment: send nothing new until the timer fires
    /// (RFC 3168 §6.1.2).
    ecn_hold: bool,
    /// LT-TCP (`recovery/lt.rs`): segments are slots of FEC blocks.
    lt: bool,
    pub counters: SenderCounters,
    pub cfg: SenderConfig,
    // Cold: ECN, RACK, the rate sampler, the pacer (the full and paced engines).
    /// RFC 3168 §6.1.2: `high_tx` at the last window reduction (loss or ECN), the first
    /// segment sent after it (which carries CWR). A loss below it does not reduce again; an
    /// ECN-Echo counts only on an ACK beyond it.
    cwr_until: u64,
    /// RACK's detection of lost retransmissions ([`TcpConfig::rack_lost_retransmissions`]),
    /// when on and the recovery uses SACK.
    rack: Option<Box<RackRetx>>,
    /// Delivery-rate samples (`tcp/rate_sample.rs`, `sender/rate.rs`), for a congestion
    /// control that reads them (BBR).
    rate: Option<Box<super::rate_sample::RateSampler>>,
    /// Pacing (`pacing.rs`), when the flow is paced ([`TcpConfig::paced`]).
    pub pacer: Option<Box<Pacer>>,
    /// The slotted mode's radio (`radio.rs`), inactive unless [`Sender::use_radio`].
    pub radio: RadioGate,
}

impl Sender {
    /// The bytes an ACK of the engine's plain path (the default rules, Reno-style growth,
    /// outside recovery) reads or writes, with the segments it sends: one span from the
    /// scoreboard's hot tail to the settings' hot head (issue 28: with 10,000 flows each
    /// ACK finds its sender evicted since the flow's previous one, and the engine prefetches
    /// this span; the 768-byte sender's other lines are for recovery, timeouts and the full
    /// engine's features).
    pub const HOT: std::ops::Range<usize> = std::mem::offset_of!(Sender, board) + Scoreboard::HOT.start
        ..std::mem::offset_of!(Sender, cfg) + SenderConfig::HOT.end;

    /// The sender `t` describes (congestion control and loss recovery included).
    pub fn from_config(t: &TcpConfig, total_bytes: Option<u64>) -> Self {
        let mut s = Sender::new(SenderConfig::from_tcp(t, total_bytes), Cc::from_config(t), Recovery::from_config(t, total_bytes));
        s.pacer = Pacer::from_config(t);
        s
    }

    pub fn new(cfg: SenderConfig, cc: Cc, rec: Recovery) -> Self {
        let lt = matches!(rec, Recovery::Lt(_));
        let (total_segs, last_len) = match cfg.total_bytes {
            // LT-TCP: the number of slots is known once the last block is formed.
            None | Some(_) if lt => (u64::MAX, cfg.mss),
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
            grow_on_recovery_exit: cfg.grow_on_recovery_exit,
            pipe: 0,
            high_rxt: 0,
            cwnd_limited: true,
            fair_share_bps: 0,
        };
        rtt::init(&mut tcb, &cfg.rtt);
        let rack = ((cfg.rack_lost_retransmissions || cfg.rack_tlp) && rec.uses_sack() && !lt).then(Box::default);
        let rate = Sender::rate_sampler_for(&cc);
        Sender {
            tcb,
            cfg,
            cc,
            rec,
            board: Scoreboard::with_capacity(16),
            rto_due_at: NO_TIMER,
            backoffs: 0,
            total_segs,
            last_len,
            app_limit: total_segs,
            cwr_until: 0,
            send_cwr: false,
            ecn_hold: false,
            lt,
            rack,
            rate,
            pacer: None,
            radio: RadioGate::default(),
            counters: SenderCounters::default(),
        }
    }

    /// The retransmission timer's deadline (RFC 6298 §5), None when it is stopped (with
    /// RACK-TLP, the deadline of the sender's one timer: [`Sender::timer_is_rto`]).
    pub fn rto_deadline(&self) -> Option<Nanos> {
        (self.rto_due_at != NO_TIMER).then_some(self.rto_due_at)
    }

    /// [`Sender::rto_deadline`] as a time, [`NO_TIMER`] when stopped.
    #[inline(always)]
    pub fn rto_timer(&self) -> Nanos {
        self.rto_due_at
    }

    pub fn total_segs(&self) -> u64 {
        self.total_segs
    }

    /// Payload bytes of segment `seg` (LT-TCP: of slot `seg`, a data segment or a PFEC packet).
    #[inline]
    pub fn seg_len(&self, seg: u64) -> u64 {
        if self.lt {
            return self.lt_seg_len(seg);
        }
        self.plain_seg_len(seg)
    }

    /// [`Sender::seg_len`] of a sender without LT-TCP.
    #[inline(always)]
    fn plain_seg_len(&self, seg: u64) -> u64 {
        if seg + 1 == self.total_segs {
            self.last_len
        } else {
            self.cfg.mss
        }
    }

    /// Application bytes in segments [0, n) (LT-TCP: in slots [0, n), FEC not counted).
    #[inline]
    pub fn bytes_below(&self, n: u64) -> u64 {
        if self.lt {
            return self.lt_bytes_below(n);
        }
        if n >= self.total_segs {
            self.cfg.total_bytes.unwrap_or(u64::MAX)
        } else {
            n * self.cfg.mss
        }
    }

    /// Application segments in segments [0, n): n, or with LT-TCP the data slots among them.
    pub fn segments_below(&self, n: u64) -> u64 {
        match self.lt_blocks() {
            Some(b) => b.segments_below(n),
            None => n,
        }
    }

    /// The RTT sample of the connection's handshake (`TcpConfig::handshake`), taken before
    /// any data is sent.
    pub fn handshake_sample(&mut self, rtt: Nanos) {
        rtt::sample(&mut self.tcb, &self.cfg.rtt, rtt);
    }

    /// Open the connection: send the initial window.
    pub fn start(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        self.send_loop(now, out);
    }

    /// The application stops supplying data (`false`: nothing beyond what has been sent
    /// is written) or supplies it again without limit (`true`, then send what the
    /// windows allow).
    pub fn set_app_backlogged(&mut self, backlogged: bool, now: Nanos, out: &mut Vec<Tx>) {
        if backlogged {
            self.app_limit = self.total_segs;
            self.send_loop(now, out);
        } else {
            self.app_limit = self.tcb.high_tx;
        }
    }

    fn set_state(&mut self, to: CaState) {
        let from = self.tcb.state;
        if from != to {
            self.tcb.state = to;
            self.cc.on_state_change(&mut self.tcb, from, to);
            if matches!(from, CaState::Recovery | CaState::Loss) {
                if let Some(r) = self.rack.as_mut() {
                    r.clear_out();
                    r.resend.clear();
                }
            }
            if matches!(to, CaState::Recovery | CaState::Loss) {
                if let Some(r) = self.rack.as_mut() {
                    (r.tlp_high, r.latest) = (None, None);
                }
            }
        }
    }

    /// RFC 6675 §4 SetPipe into `tcb.pipe` (bytes). `head_lost`: count snd_una as lost
    /// whatever the SACKs say (it is being fast-retransmitted: ns-3's `MarkHeadAsLost`).
    /// Without SACK: FlightSize less the segments the duplicate ACKs stand for.
    fn update_pipe(&mut self, head_lost: bool) {
        self.update_pipe_at(head_lost, self.loss_threshold());
    }

    /// [`Sender::update_pipe`] with `thresh` SACKed segments above a hole making it lost.
    fn update_pipe_at(&mut self, head_lost: bool, thresh: u32) {
        let mss = self.tcb.mss;
        let t = &self.tcb;
        let segs = if self.rec.uses_sack() {
            let mut p = self.board.pipe(t.high_tx, t.high_rxt.max(t.snd_una), thresh).saturating_sub(self.rack_pending()) + self.phantoms();
            // (the head's marks read only when it is being retransmitted)
            if head_lost && t.snd_una < t.high_tx && self.board.is_unsacked(t.snd_una) && !self.board.is_lost(t.snd_una, thresh) {
                p -= 1;
            }
            p
        } else {
            (t.high_tx - t.snd_una).saturating_sub(t.dupacks as u64)
        };
        self.tcb.pipe = segs * mss;
    }

    /// An ACK arrives at `now`.
    pub fn on_ack(&mut self, a: &AckPkt, now: Nanos, out: &mut Vec<Tx>) {
        self.on_ack_in::<true, true, false>(a, now, out)
    }

    /// Whether every rule the per-ACK path reads is at its default (the `rfc` profile's):
    /// congestion control sees the ACK's own RTT sample (`cc_rtt`), RTO follows RFC 6298
    /// (`rto_estimator`) and keeps its backoff until a new sample (`rto_backoff_reset`), no
    /// limited transmit (RFC 3042 is an option), duplicate ACKs by RFC 5681 (`dupack_rule`).
    /// Such a sender's plain ACK path has these rules as constants ([`Sender::plain_ack_path`]).
    pub fn default_rules(&self) -> bool {
        let c = &self.cfg;
        c.cc_rtt == CcRtt::Sample
            && c.rtt.estimator == rtt::RtoEstimator::Rfc6298
            && c.rtt.backoff_reset == rtt::BackoffReset::Sample
            && !c.limited_transmit
            && c.dupack_rule == DupackRule::Rfc5681
    }

    /// The ACK path of the engine's plain runs (`FULL = false`, see [`Sender::on_ack_in`])
    /// for this sender, chosen once at construction: the default rules compiled in as
    /// constants ([`Sender::default_rules`]), or the rules of the sender's profile read
    /// where they apply. The profile is thus a strategy picked when the flow is built, not a
    /// branch on every ACK.
    pub fn plain_ack_path<const PACE: bool>(&self) -> AckPath {
        if self.default_rules() {
            Sender::on_ack_in::<false, PACE, true>
        } else {
            Sender::on_ack_in::<false, PACE, false>
        }
    }

    /// [`Sender::on_ack`]; `FULL = false` only for a sender without LT-TCP, timestamps or ECN
    /// (the engine's plain runs, `sim/engine.rs`): their checks are then compiled out; `PACE`
    /// (implied by `FULL`) compiles in the pacer's and the delivery-rate sampler's hooks;
    /// `STD` only for a sender with [`Sender::default_rules`], whose rules are then
    /// constants. (The rules of rarer points, a duplicate ACK, a partial ACK, a timeout, are
    /// read where they apply, out of the per-ACK path: `on_dupack`, `on_recovery_ack`,
    /// `on_rto`.)
    #[inline]
    pub fn on_ack_in<const FULL: bool, const PACE: bool, const STD: bool>(&mut self, a: &AckPkt, now: Nanos, out: &mut Vec<Tx>) {
        self.ack_body::<FULL, PACE, STD>(a, now, out)
    }

    /// [`Sender::on_ack_in`] of a plain run with the default rules (`FULL = false`,
    /// `STD`), always in line in its caller: the engine calls it for a sender with
    /// [`Sender::default_rules`] (the common case) instead of through its [`AckPath`]
    /// pointer, and saves the call's register saves and restores (about 6 instructions per
    /// ACK, callgrind).
    #[inline(always)]
    pub fn on_ack_std<const PACE: bool>(&mut self, a: &AckPkt, now: Nanos, out: &mut Vec<Tx>) {
        self.ack_body::<false, PACE, true>(a, now, out)
    }

    /// The body of [`Sender::on_ack_in`] and [`Sender::on_ack_std`].
    #[inline(always)]
    fn ack_body<const FULL: bool, const PACE: bool, const STD: bool>(&mut self, a: &AckPkt, now: Nanos, out: &mut Vec<Tx>) {
        debug_assert!(FULL || !(self.lt || self.cfg.timestamps || self.cfg.ecn || self.rack.is_some()));
        debug_assert!(FULL || PACE || (self.rate.is_none() && self.pacer.is_none()));
        debug_assert!(!STD || self.default_rules());
        let state_before = self.tcb.state;
        let (cwnd_at_ack, una_before) = (self.tcb.cwnd, self.tcb.snd_una);
        let mut sacked = 0;
        if FULL && self.cfg.rack_tlp {
            self.rack_restore_rto();
        }
        // RACK: what this ACK delivers, read before it updates the board.
        let rack_latest = match &self.rack {
            Some(r) if FULL && !r.out.is_empty() && matches!(self.tcb.state, CaState::Recovery | CaState::Loss) => {
                self.rack_latest_delivered(a, now)
            }
            Some(_) if FULL && self.cfg.rack_tlp && matches!(self.tcb.state, CaState::Open | CaState::Disorder) => {
                self.rack_advance(a, now);
                None
            }
            _ => None,
        };
        if a.nsack > 0 && self.rec.uses_sack() {
            for &(s, e) in &a.sack[..a.nsack as usize] {
                sacked += self.board.mark_sacked(s, e);
            }
        }
        if let Some(latest) = rack_latest {
            self.rack_detect(a.ack, latest);
        }
        // RFC 6675 §2 (`dupack_rule`): with SACK, outside loss recovery, an ACK is a duplicate
        // if and only if it SACKs new data, whether or not it advances snd_una.
        let sack_dups = FULL
            && self.cfg.dupack_rule != DupackRule::Rfc5681
            && matches!(state_before, CaState::Open | CaState::Disorder);
        if a.ack > self.tcb.snd_una {
            let cum_dup = sack_dups && sacked > 0;
            let una = self.tcb.snd_una;
            // (Only LT-TCP's ACKs reach beyond high_tx: a plain sender is acknowledged only
            // what it sent.)
            debug_assert!(FULL || a.ack <= self.tcb.high_tx);
            let acked_segs = if FULL { a.ack.min(self.tcb.high_tx) } else { a.ack } - una;
            if FULL && a.ack > self.tcb.high_tx {
                // LT-TCP: a decoded block's slots the sender had not sent yet (its parity).
                self.tcb.high_tx = a.ack;
            }
            // Whole segments below the transfer's last (`Tcb::mss` is the configured MSS but
            // for LT-TCP); LT-TCP counts its window in packets of the current size (data and
            // FEC alike).
            let acked_bytes = if (FULL && self.lt) || a.ack < self.total_segs {
                acked_segs * self.tcb.mss
            } else {
                self.bytes_below(a.ack) - self.bytes_below(una)
            };
            // RTT sample. With RFC 7323 timestamps, from the echoed send time, on every ACK
            // of new data (the echo names the copy that was acknowledged, so retransmissions
            // count too). Otherwise Karn's rule (RFC 6298 §3): no sample from an ACK that
            // covers a retransmitted segment (it may acknowledge the retransmission, and a
            // later segment's wait would include the timeout); the sample is taken from the
            // highest segment this ACK covers.
            let (covers_retx, was_sacked, newest) = self.board.advance(a.ack);
            let rtt_sample = if FULL && self.cfg.timestamps {
                Some(now.saturating_sub(a.tsecr))
            } else {
                newest.filter(|_| !covers_retx).map(|t| now.saturating_sub(t))
            };
            // What this ACK delivers: not the segments SACKed earlier (RFC 6937's
            // DeliveredData; Linux's `acked_sacked`). Congestion control counts these.
            let fresh_segs = acked_segs - was_sacked.min(acked_segs);
            let fresh_bytes = acked_bytes.saturating_sub(was_sacked * self.tcb.mss);
            self.tcb.snd_una = a.ack;
            if self.tcb.snd_nxt < a.ack {
                self.tcb.snd_nxt = a.ack;
            }
            match rtt_sample {
                Some(r) => rtt::sample_in::<STD>(&mut self.tcb, &self.cfg.rtt, r),
                None if !STD => rtt::on_new_ack_without_sample(&mut self.tcb, &self.cfg.rtt),
                None => {} // RFC 6298 §5.7: the backoff stays until a new sample
            }
            // RFC 6675 §5: a cumulative ACK resets DupAcks (ns-3 keeps them when the ACK is a
            // duplicate too).
            if !(cum_dup && self.cfg.dupack_rule == DupackRule::Ns3) {
                self.tcb.dupacks = 0;
            }
            self.backoffs = 0;
            let restart;
            match state_before {
                CaState::Recovery => {
                    let delivered = fresh_bytes + sacked * self.tcb.mss;
                    restart = self.on_recovery_ack(acked_bytes, delivered, covers_retx, now, out);
                }
                CaState::Loss => {
                    if self.tcb.snd_una >= self.tcb.recover {
                        self.set_state(CaState::Open);
                    }
                    restart = true;
                }
                CaState::Open | CaState::Disorder => {
                    if !cum_dup {
                        self.set_state(CaState::Open);
                    }
                    restart = true;
                }
            }
            let info = AckInfo {
                now,
                acked_bytes: fresh_bytes,
                acked_segs: fresh_segs,
                cum_bytes: acked_bytes,
                rtt: self.cc_rtt_in::<STD>(rtt_sample),
                dup: false,
                state_before,
            };
            // ns-3 grows the window only in Open: not on an ACK that is also a duplicate.
            if !(cum_dup && self.cfg.dupack_rule == DupackRule::Ns3) {
                if let Cc::Reno(c) = &mut self.cc {
                    // Reno's growth in line, `info` in registers (built in memory only
                    // for the call that takes it there).
                    c.on_ack(&mut self.tcb, &info);
                } else {
                    let other = info;
                    self.cc.on_ack(&mut self.tcb, &other);
                }
            }
            // RFC 6298 §5.2-5.3: stop the timer when all is acknowledged, else restart it.
            if self.tcb.snd_una >= self.tcb.high_tx {
                self.rto_due_at = NO_TIMER;
            } else if restart {
                self.rto_due_at = now + self.tcb.rto;
            }
            if cum_dup {
                // ns-3 passes congestion control the segments the ACK delivers (cumulatively
                // or by SACK) less the duplicate ACKs before it (`PktsAcked` in Disorder).
                let cc = (self.cfg.dupack_rule == DupackRule::Ns3)
                    .then(|| (fresh_segs + sacked).saturating_sub(u64::from(self.tcb.dupacks)) * self.tcb.mss);
                self.on_dupack(sacked, state_before, cc, now, out);
            }
        } else if a.ack == self.tcb.snd_una && self.tcb.snd_una < self.tcb.high_tx {
            if !(sack_dups && sacked == 0) {
                self.on_dupack(sacked, state_before, Some(0), now, out);
            }
        }
        if FULL && self.cfg.rack_tlp {
            self.rack_check_entry(sacked, now, out);
        }
        if FULL && self.lt {
            self.lt_after_ack(a);
        }
        if FULL && a.ece {
            self.on_ece(state_before, cwnd_at_ack, now);
        }
        if (FULL || PACE) && self.rate.is_some() {
            self.rate_on_ack(a, una_before, now);
        }
        if !FULL && !PACE && STD {
            self.send_body::<FULL, PACE, STD>(now, out);
        } else {
            self.send_loop_in::<FULL, PACE, STD>(now, out);
        }
        if FULL && self.cfg.rack_tlp {
            self.rack_arm(now);
        }
    }

    /// An ACK of new data in fast recovery (`acked_bytes` newly acknowledged, `delivered`
    /// as RFC 6937's DeliveredData): the recovery's response, its exit or a partial ACK's
    /// retransmission (RFC 6582 §3.2 step 5, RFC 6675 §5). Returns whether the timer is
    /// restarted. Out of line: the per-ACK path outside recovery does not carry it.
    #[inline(never)]
    fn on_recovery_ack(&mut self, acked_bytes: u64, delivered: u64, covers_retx: bool, now: Nanos, out: &mut Vec<Tx>) -> bool {
        if let Recovery::Prr(_) = self.rec {
            self.update_pipe(false);
        }
        let act = self.rec.on_ack(&mut self.tcb, acked_bytes, delivered, covers_retx);
        let mut restart = true;
        if act.exit {
            self.set_state(CaState::Open);
        } else {
            // tossim: RFC 2582 §4's Slow-but-Steady variant restarts the timer on
            // every partial ACK (`restart_timer_every_partial_ack`), not only the first.
            restart = act.restart_timer || self.cfg.restart_timer_every_partial_ack;
        }
        if act.retransmit_una && self.tcb.snd_una < self.tcb.high_tx {
            self.transmit(self.tcb.snd_una, now, out);
        }
        restart
    }

    /// Enter fast recovery (RFC 5681 §3.2, RFC 6582, RFC 6675 §5; `delivered` bytes newly
    /// SACKed by the ACK that found the loss) and fast-retransmit snd_una.
    fn fast_retransmit(&mut self, delivered: u64, now: Nanos, out: &mut Vec<Tx>) {
        // With RACK-TLP the pipe PRR's first step reads is already the recovery's (a hole
        // with one SACKed segment above it lost, `loss_threshold`): Linux marks the holes
        // lost (`tcp_fastretrans_alert` → `tcp_identify_packet_loss`) before it computes the
        // window (`tcp_cong_control` → `tcp_cwnd_reduction`, in_flight without them), so a
        // whole window lost but one segment re-enters with cwnd 1, not with every hole
        // counted in flight and then sent at once.
        let thresh = if self.cfg.rack_tlp { 1 } else { self.tcb.dupack_threshold };
        self.update_pipe_at(true, thresh);
        let (ss, base) = if self.tcb.snd_una < self.cwr_until {
            // RFC 3168 §6.1.2: one reduction per window for CE marks and
            // losses together (the ECN response already made it).
            (self.tcb.ssthresh, self.tcb.cwnd.min(self.tcb.ssthresh))
        } else {
            let ss = self.cc.ssthresh_on_loss(&self.tcb);
            (ss, self.cc.cwnd_after_fast_retransmit(&self.tcb, ss))
        };
        self.window_reduced();
        let from = self.tcb.state;
        let act = self.rec.enter(&mut self.tcb, ss, base, delivered);
        let to = self.tcb.state;
        self.tcb.state = from;
        self.set_state(to);
        self.counters.fast_retransmits += 1;
        if act.retransmit_una {
            self.transmit(self.tcb.snd_una, now, out);
        }
    }

    /// SACKed segments above a hole that make it lost (RFC 6675 IsLost): DupThresh, or with
    /// RACK-TLP in fast recovery one (RFC 8985 §6.2 with no reordering window: a segment sent
    /// after it was delivered, which on FIFO paths is one SACKed above it).
    #[inline]
    fn loss_threshold(&self) -> u32 {
        if self.cfg.rack_tlp && self.tcb.state == CaState::Recovery {
            1
        } else {
            self.tcb.dupack_threshold
        }
    }

    /// A duplicate ACK (`sacked` segments newly SACKed by it) in state `state_before`: fast
    /// retransmit at DupThresh (RFC 5681 §3.2, RFC 6582, RFC 6675 §5), or the recovery's
    /// response to it. Out of line: the per-ACK path of new data does not carry it.
    #[inline(never)]
    fn on_dupack(&mut self, sacked: u64, state_before: CaState, cc: Option<u64>, now: Nanos, out: &mut Vec<Tx>) {
        self.tcb.dupacks += 1;
        let delivered = sacked * self.tcb.mss;
        // tossim: with `fast_retransmit_after_timeout`, duplicate ACKs after a timeout
        // count towards fast retransmit as in Open (RFC 2581 §3.2; RFC 2582's base
        // algorithm, before its "careful" variants that RFC 3782 and RFC 6582 adopted): a
        // lost retransmission is then repaired by the receiver's duplicate ACKs, not by
        // another timeout.
        let frat = self.cfg.fast_retransmit_after_timeout;
        match state_before {
            CaState::Open | CaState::Disorder | CaState::Loss if state_before != CaState::Loss || frat => {
                if state_before != CaState::Loss {
                    self.set_state(CaState::Disorder);
                }
                let sack_lost = || {
                    self.rec.uses_sack() && self.board.is_lost(self.tcb.snd_una, self.tcb.dupack_threshold)
                };
                // RFC 6582 §3.2 step 2 (and RFC 6675 §5): no new recovery unless the
                // ACK covers the previous episode's `recover`; classic Reno has no such check.
                let allowed = frat || matches!(self.rec, Recovery::Reno(_)) || self.tcb.snd_una >= self.tcb.recover;
                // LT-TCP: erasures never start a recovery (no window reduction); its FEC
                // and last-resort retransmissions go out in its send loop.
                // RACK-TLP (`rack_tlp`): snd_una lost by time, with fewer SACKs.
                let rack_lost = || self.cfg.rack_tlp && self.rack_una_lost(now);
                if !self.lt && allowed && (self.tcb.dupacks >= self.tcb.dupack_threshold || sack_lost() || rack_lost()) {
                    self.fast_retransmit(delivered, now, out);
                }
            }
            CaState::Recovery => {
                if let Recovery::Prr(_) = self.rec {
                    self.update_pipe(false);
                }
                let act = self.rec.on_dupack(&mut self.tcb, delivered);
                if act.retransmit_una {
                    self.transmit(self.tcb.snd_una, now, out);
                }
            }
            CaState::Open | CaState::Disorder | CaState::Loss => {} // Loss without `frat`
        }
        if let Some(cum_bytes) = cc {
            let rtt = self.cc_rtt(None);
            let info = AckInfo { now, acked_bytes: 0, acked_segs: 0, cum_bytes, rtt, dup: true, state_before };
            self.cc.on_ack(&mut self.tcb, &info);
        }
    }

    /// The RTT congestion control sees with an ACK whose own sample is `sample`.
    #[inline]
    fn cc_rtt(&self, sample: Option<Nanos>) -> Option<Nanos> {
        self.cc_rtt_in::<false>(sample)
    }

    /// [`Sender::cc_rtt`] (`STD`: as [`Sender::on_ack_in`]).
    #[inline(always)]
    fn cc_rtt_in<const STD: bool>(&self, sample: Option<Nanos>) -> Option<Nanos> {
        if STD {
            return sample;
        }
        match self.cfg.cc_rtt {
            CcRtt::Sample => sample,
            CcRtt::Srtt => self.tcb.srtt,
        }
    }

    /// The retransmission timer fires (RFC 6298 §5.4-5.6, RFC 5681 §3.1).
    pub fn on_rto(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        if let Some(r) = self.rack.as_mut() {
            let kind = r.timer;
            if kind != RackTimer::Rto {
                r.timer = RackTimer::Rto;
                self.rto_due_at = r.rto_at.unwrap_or(NO_TIMER);
                return match kind {
                    RackTimer::Probe => self.send_loss_probe(now, out),
                    _ => self.on_reo_timeout(now, out),
                };
            }
        }
        self.rto_due_at = NO_TIMER;
        if self.ecn_hold {
            // RFC 3168 §6.1.2: the timer restarted by an ECN-Echo at one segment lets one
            // new segment go; it is not a timeout.
            self.ecn_hold = false;
            self.send_loop(now, out);
            if self.tcb.snd_una < self.tcb.high_tx && self.rto_due_at == NO_TIMER {
                self.rto_due_at = now + self.tcb.rto;
            }
            return;
        }
        if self.tcb.snd_una >= self.tcb.high_tx {
            return;
        }
        self.counters.timeouts += 1;
        self.window_reduced();
        if let Some(l) = self.lt_mut() {
            l.on_timeout();
        }
        // RFC 5681 eq. (4) on the first timeout; held constant on repeated timeouts; with
        // `rto_keeps_recovery_ssthresh` (Linux `tcp_enter_loss`) also in fast recovery before
        // its recovery point, where this window already reduced it.
        let reduced = self.cfg.rto_keeps_recovery_ssthresh && self.tcb.state == CaState::Recovery && self.tcb.snd_una < self.tcb.recover;
        if self.backoffs == 0 && !reduced {
            if self.tcb.ssthresh_rule == SsthreshRule::Pipe {
                self.update_pipe(false);
            }
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
        self.rto_due_at = now + self.tcb.rto;
    }

    #[inline(always)]
    fn transmit(&mut self, seg: u64, now: Nanos, out: &mut Vec<Tx>) {
        self.transmit_in::<true, true>(seg, now, out)
    }

    /// [`Sender::transmit`] (`FULL`, `PACE`: as [`Sender::on_ack_in`]).
    #[inline(always)]
    fn transmit_in<const FULL: bool, const PACE: bool>(&mut self, seg: u64, now: Nanos, out: &mut Vec<Tx>) {
        let retx = seg < self.tcb.high_tx;
        if (FULL || PACE) && self.rate.is_some() {
            self.rate_on_send(seg, now, retx);
        }
        let (mut flags, len) = if FULL && self.lt { self.lt_slot(seg) } else { (0, self.plain_seg_len(seg)) };
        if retx {
            self.counters.retransmissions += 1;
            self.board.note_retransmission(seg, now);
            if let Some(r) = self.rack.as_mut().filter(|_| FULL && self.cfg.rack_lost_retransmissions && matches!(self.tcb.state, CaState::Recovery | CaState::Loss)) {
                r.push_out(seg, now);
            }
        } else {
            self.board.push(seg, now);
            self.tcb.high_tx = seg + 1;
        }
        self.counters.packets_sent += 1;
        self.cc.on_send(&self.tcb, now, len);
        if self.tcb.state == CaState::Recovery {
            self.rec.on_transmit(len);
        }
        if FULL && self.send_cwr && !retx {
            self.send_cwr = false;
            flags |= super::pkt_flags::CWR;
        }
        out.push(Tx { seg, len: len as u32, retx, ts: now, flags, rseq: 0 });
        if FULL || PACE {
            if let Some(p) = self.pacer.as_mut() {
                p.on_sent(now, len, self.tcb.mss, self.tcb.min_rtt);
            }
            self.radio.on_sent();
        }
        // RFC 6298 §5.1: start the timer if it is not running.
        if self.rto_due_at == NO_TIMER {
            self.rto_due_at = now + self.tcb.rto;
        }
    }

    /// `pipe_rule = "ns3"`: the retransmitted segments SACKed since, which ns-3 still
    /// counts in flight (not after a timeout: ns-3 clears the marks then, and the Loss
    /// state's count does not use this).
    #[inline]
    fn phantoms(&self) -> u64 {
        if self.cfg.pipe_rule == PipeRule::Ns3 { self.board.sacked_retransmitted() } else { 0 }
    }

    /// One past the last segment the receiver's window, the transfer and the application
    /// allow.
    #[inline]
    fn rwnd_end(&self) -> u64 {
        debug_assert!(self.app_limit <= self.total_segs);
        self.tcb.snd_una.saturating_add(self.cfg.rwnd).min(self.app_limit)
    }

    /// Send whatever the windows allow.
    fn send_loop(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        self.send_loop_in::<true, true, false>(now, out)
    }

    /// [`Sender::send_loop`] (`FULL`, `PACE`, `STD`: as [`Sender::on_ack_in`]).
    #[inline]
    fn send_loop_in<const FULL: bool, const PACE: bool, const STD: bool>(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        self.send_body::<FULL, PACE, STD>(now, out)
    }

    /// The body of [`Sender::send_loop_in`], always in line: the unpaced plain ACK path
    /// with the default rules ([`Sender::on_ack_std`]) carries it, without a call.
    #[inline(always)]
    fn send_body<const FULL: bool, const PACE: bool, const STD: bool>(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        if FULL && self.ecn_hold {
            return;
        }
        if (FULL || PACE) && self.pacer.is_some() {
            // (in line in the paced build, whose send loops all pace; out of line in the full one)
            if PACE && !FULL {
                self.pace_rate_in();
            } else {
                self.pace_rate();
            }
        }
        let rwnd_end = self.rwnd_end();
        if self.tcb.state == CaState::Recovery && self.rec.uses_sack() {
            return self.sack_send_loop::<FULL, PACE>(now, rwnd_end, out);
        }
        if FULL && self.lt && self.tcb.state != CaState::Loss {
            return self.lt_send_loop(now, rwnd_end, out);
        }
        let mss = self.tcb.mss;
        let mut allowed = self.tcb.cwnd.min(self.tcb.max_cwnd);
        let by_pipe = FULL && self.cfg.dupack_rule != DupackRule::Rfc5681;
        if !STD && self.cfg.limited_transmit && self.tcb.state == CaState::Disorder && !by_pipe {
            // RFC 3042: up to DupThresh−1 extra segments of new data.
            allowed += self.tcb.dupacks.min(self.tcb.dupack_threshold - 1) as u64 * mss;
        }
        // Segments in flight: snd_nxt − snd_una; after a timeout with SACK, the RFC 6675 pipe:
        // what was (re)sent since the timeout and not SACKed (the copies sent before it are
        // deemed lost, RFC 6675 §5.1), as ns-3 and Linux count.
        let mut inflight = self.tcb.snd_nxt - self.tcb.snd_una;
        if by_pipe && self.tcb.state != CaState::Loss && self.board.sacked_count() > 0 {
            // RFC 6675 §5 step (3) (`dupack_rule`): outside recovery too, cwnd − pipe, the
            // SACKed segments and those lost by IsLost out of it (limited transmit).
            inflight = self.board.pipe(self.tcb.snd_nxt, self.tcb.snd_una, self.tcb.dupack_threshold) + self.phantoms();
        }
        if self.tcb.state == CaState::Loss && self.rec.uses_sack() {
            inflight -= self.board.sacked_between(self.tcb.snd_una, self.tcb.snd_nxt);
            if FULL && self.rack.is_some() {
                // RACK after a timeout: retransmissions of this episode lost again are not
                // in flight, and go first.
                inflight = inflight.saturating_sub(self.rack_pending());
                while (inflight + 1) * mss <= allowed && self.pace_gate::<FULL, PACE>(now) {
                    let Some(seg) = self.rack_next_resend() else { break };
                    self.transmit_in::<FULL, PACE>(seg, now, out);
                    inflight += 1;
                }
            }
        }
        // (`total_segs` may shrink as LT-TCP forms its last block; `rwnd_end` is below it
        // otherwise.)
        let mut held = false;
        while self.tcb.snd_nxt < if FULL { rwnd_end.min(self.total_segs) } else { rwnd_end } && (inflight + 1) * mss <= allowed {
            if !self.pace_gate::<FULL, PACE>(now) {
                held = true;
                break;
            }
            let seg = self.tcb.snd_nxt;
            self.tcb.snd_nxt += 1;
            if seg < self.tcb.high_tx && self.board.is_sacked(seg) {
                if self.tcb.state != CaState::Loss && !by_pipe {
                    inflight += 1; // counted in snd_nxt − snd_una
                }
                continue; // after a timeout, skip what the receiver has SACKed (RFC 6675 §5.1)
            }
            self.transmit_in::<FULL, PACE>(seg, now, out);
            inflight += 1;
        }
        // The window, not the receiver or the data, is what stops the sender (or the pacer,
        // which releases the window's room over the round trip: Linux counts a paced flow
        // cwnd-limited, its segments queued in fq or behind the pacing timer).
        self.tcb.cwnd_limited = held || (inflight + 1) * mss > allowed;
    }

    /// RFC 6675 §5 step (C): while cwnd − pipe ≥ 1 SMSS, send NextSeg.
    fn sack_send_loop<const FULL: bool, const PACE: bool>(&mut self, now: Nanos, rwnd_end: u64, out: &mut Vec<Tx>) {
        let thresh = self.loss_threshold();
        let mut high_rxt = self.tcb.high_rxt.max(self.tcb.snd_una);
        let mut pipe = self.board.pipe(self.tcb.high_tx, high_rxt, thresh).saturating_sub(self.rack_pending()) + self.phantoms();
        let mss = self.tcb.mss;
        let cwnd = self.tcb.cwnd.min(self.tcb.max_cwnd);
        let mut held = false;
        while cwnd >= (pipe + 1) * mss {
            if !self.pace_gate::<FULL, PACE>(now) {
                held = true;
                break;
            }
            let seg = if let Some(s) = self.rack_next_resend() {
                s // RACK: a retransmission lost again, first (it is below HighRxt)
            } else if let Some(s) = self.board.next_retransmission(high_rxt, thresh, false) {
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
            self.transmit_in::<FULL, PACE>(seg, now, out);
            if seg + 1 > self.tcb.snd_nxt {
                self.tcb.snd_nxt = seg + 1;
            }
            pipe += 1;
        }
        self.tcb.high_rxt = high_rxt;
        self.tcb.cwnd_limited = held || cwnd < (pipe + 1) * mss;
    }

    // ---- pacing (`pacing.rs`) ---------------------------------------------------------

    /// The pacing rate for the segments about to go: the congestion control's, or Linux's
    /// `tcp_update_pacing_rate` default (`Pacer::default_rate`).
    #[inline(never)]
    fn pace_rate(&mut self) {
        self.pace_rate_in()
    }

    /// [`Sender::pace_rate`], in line.
    #[inline(always)]
    fn pace_rate_in(&mut self) {
        let Some(p) = self.pacer.as_deref() else { return };
        let t = &self.tcb;
        match self.cc.pacing_rate(t) {
            Some(rate) => self.pacer.as_mut().expect("checked above").set_rate(rate),
            None => {
                let rate = p.default_rate(t.cwnd.min(t.max_cwnd), t.ssthresh, (t.high_tx - t.snd_una) * t.mss, t.srtt);
                self.pacer.as_mut().expect("checked above").set_default_rate(rate);
            }
        }
    }

    /// Whether the pacer lets a segment leave at `now`; if not, the flow is held until its
    /// next departure ([`Sender::pace_due`]).
    #[inline(always)]
    fn pace_gate<const FULL: bool, const PACE: bool>(&mut self, now: Nanos) -> bool {
        match self.pacer.as_mut() {
            Some(p) if FULL || PACE => {
                if p.may_send(now) {
                    // (and the slotted mode's radio, `radio.rs`: free in every other run)
                    return self.radio.may_send(now);
                }
                p.hold();
                false
            }
            // The slotted mode's radio (`radio.rs`; free from the start in every other run).
            None if FULL || PACE => self.radio.may_send(now),
            _ => true,
        }
    }

    /// The time a held paced flow goes on, when the engine has no pacing timer scheduled at
    /// or before it (then counted as scheduled: the caller schedules it).
    #[inline]
    pub fn pace_due(&mut self) -> Option<Nanos> {
        let p = self.pacer.as_mut()?;
        let w = p.wake.take()?;
        if p.sched.is_some_and(|s| s <= w) {
            return None;
        }
        p.sched = Some(w);
        Some(w)
    }

    /// The pacing timer scheduled for `at` fires: whether it is the flow's current one (a
    /// superseded one is ignored); if so, send what the windows and the pacer allow.
    pub fn on_pace_timer(&mut self, at: Nanos, now: Nanos, out: &mut Vec<Tx>) -> bool {
        if !self.pace_timer_current(at) {
            return false;
        }
        self.send_loop(now, out);
        true
    }

    /// [`Sender::on_pace_timer`] for a sender of the engine's paced plain runs (as
    /// [`Sender::on_ack_in`] with `FULL = false`): that build's send loop, whose per-segment
    /// checks of LT-TCP, ECN and RACK are compiled out, as on its ACK path.
    #[inline]
    pub fn on_pace_timer_plain(&mut self, at: Nanos, now: Nanos, out: &mut Vec<Tx>) -> bool {
        debug_assert!(!(self.lt || self.cfg.ecn || self.rack.is_some()));
        if !self.pace_timer_current(at) {
            return false;
        }
        self.send_loop_in::<false, true, false>(now, out);
        true
    }

    /// Whether the pacing timer for `at` is the flow's current one (then no longer scheduled).
    #[inline(always)]
    fn pace_timer_current(&mut self, at: Nanos) -> bool {
        match self.pacer.as_mut() {
            Some(p) if p.sched == Some(at) => {
                p.sched = None;
                true
            }
            _ => false,
        }
    }
}
