//! TCP sender: window-limited transmission, cumulative and duplicate ACK processing,
//! the retransmission timer (RFC 6298) and the hooks into congestion control and loss
//! recovery. The engine feeds it ACKs and timer expiries; it appends the segments to
//! transmit to a caller-owned buffer (no allocation per packet).
use super::cc::{Cc, CongestionControl};
use super::config::{CcRtt, DupackRule, PipeRule, TcpConfig};
use super::receiver::AckPkt;
use super::recovery::lt::{Blocks, Lt};
use super::recovery::{LossRecovery, Recovery};
use super::rtt::{self, RttConfig};
use super::scoreboard::Scoreboard;
use super::{AckInfo, CaState, SsthreshRule, Tcb};
use crate::time::Nanos;
use std::collections::VecDeque;

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
    /// [`TcpConfig::sack_dupacks`]: any rule but RFC 5681's needs the full engine.
    pub dupack_rule: DupackRule,
    /// [`TcpConfig::pipe_rule`].
    pub pipe_rule: PipeRule,
    /// [`TcpConfig::rack_lost_retransmissions`].
    pub rack_lost_retransmissions: bool,
    /// [`TcpConfig::rack_tlp`].
    pub rack_tlp: bool,
    pub rtt: RttConfig,
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

/// A segment handed to the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tx {
    pub seg: u64,
    pub len: u32,
    pub retx: bool,
    /// Send time, the segment's RFC 7323 TSval.
    pub ts: Nanos,
    /// Header bits (`tcp::pkt_flags`): CWR, LT-TCP's FEC marks; the engine adds ECT, the
    /// network CE.
    pub flags: u8,
    /// LT-TCP: an RFEC packet's number, low 16 bits (0 otherwise).
    pub rseq: u16,
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
    /// Segments the application has supplied so far (u64::MAX = always backlogged; an
    /// ON/OFF application holds it at what was sent when it turns OFF).
    app_limit: u64,
    /// RFC 3168 §6.1.2: `high_tx` at the last window reduction (loss or ECN), the first
    /// segment sent after it (which carries CWR). A loss below it does not reduce again; an
    /// ECN-Echo counts only on an ACK beyond it.
    cwr_until: u64,
    /// Set CWR on the next new data segment.
    send_cwr: bool,
    /// An ECN-Echo at a window of one segment: send nothing new until the timer fires
    /// (RFC 3168 §6.1.2).
    ecn_hold: bool,
    /// LT-TCP (`recovery/lt.rs`): segments are slots of FEC blocks.
    lt: bool,
    /// RACK's detection of lost retransmissions ([`TcpConfig::rack_lost_retransmissions`]),
    /// when on and the recovery uses SACK.
    rack: Option<Box<RackRetx>>,
    pub counters: SenderCounters,
}

/// The retransmissions of the current SACK fast recovery, for RACK's rule (RFC 8985 §6.2):
/// a segment is lost once a segment sent after it has been delivered (and a reordering
/// window has passed: none here, as Linux's RACK without reordering seen in recovery).
#[derive(Clone, Debug, Default)]
struct RackRetx {
    /// Retransmissions in flight, in the order sent: (segment, when).
    out: VecDeque<(u64, Nanos)>,
    /// Retransmissions found lost again, to be sent again before anything else.
    resend: VecDeque<u64>,
    /// `rack_tlp` outside recovery: the latest segment delivered (send time, segment) and
    /// RACK.rtt, the time from its sending to its delivery (RFC 8985 §6.2 step 2).
    latest: Option<(Nanos, u64)>,
    rtt: Nanos,
    /// Which timer the sender's one deadline (`Sender::rto_deadline`, what the engine
    /// schedules) stands for, and the retransmission timer's own while another is armed.
    timer: RackTimer,
    rto_at: Option<Nanos>,
    /// A tail loss probe is outstanding until snd_una passes this (one per tail, §7.3).
    tlp_high: Option<u64>,
}

/// What [`RackRetx::timer`] is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum RackTimer {
    #[default]
    Rto,
    /// A tail loss probe (RFC 8985 §7.2).
    Probe,
    /// RACK's reordering timer (§6.3): snd_una will be lost then.
    Reo,
}

impl Sender {
    /// The sender `t` describes (congestion control and loss recovery included).
    pub fn from_config(t: &TcpConfig, total_bytes: Option<u64>) -> Self {
        Sender::new(SenderConfig::from_tcp(t, total_bytes), Cc::from_config(t), Recovery::from_config(t, total_bytes))
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
        Sender {
            tcb,
            cfg,
            cc,
            rec,
            board: Scoreboard::with_capacity(16),
            rto_deadline: None,
            backoffs: 0,
            total_segs,
            last_len,
            app_limit: u64::MAX,
            cwr_until: 0,
            send_cwr: false,
            ecn_hold: false,
            lt,
            rack,
            counters: SenderCounters::default(),
        }
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

    /// [`Sender::seg_len`] and [`Sender::bytes_below`] of LT-TCP's slots, out of line so
    /// that the others inline.
    #[inline(never)]
    fn lt_seg_len(&self, seg: u64) -> u64 {
        self.lt_blocks().and_then(|b| b.find(seg)).map_or(self.tcb.mss, |b| b.slot(seg).0 as u64)
    }

    #[inline(never)]
    fn lt_bytes_below(&self, n: u64) -> u64 {
        self.lt_blocks().map_or(0, |b| b.bytes_below(n))
    }

    /// Application segments in segments [0, n): n, or with LT-TCP the data slots among them.
    pub fn segments_below(&self, n: u64) -> u64 {
        match self.lt_blocks() {
            Some(b) => b.segments_below(n),
            None => n,
        }
    }

    /// LT-TCP's blocks (what each packet's header tells the receiver), if LT-TCP.
    #[inline]
    pub fn lt_blocks(&self) -> Option<&Blocks> {
        match &self.rec {
            Recovery::Lt(l) => Some(&l.blocks),
            _ => None,
        }
    }

    #[inline]
    fn lt_mut(&mut self) -> Option<&mut Lt> {
        match &mut self.rec {
            Recovery::Lt(l) => Some(l),
            _ => None,
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
            self.app_limit = u64::MAX;
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
                    r.out.clear();
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

    /// RACK (RFC 8985 §6.2), before `a` updates the board: the latest (send time, segment)
    /// among the segments `a` delivers (newly SACKed or acknowledged), leaving out a
    /// retransmission delivered sooner than the minimum RTT after it was sent (its
    /// original must have arrived: Linux's `tcp_rack_advance`). Bounded work per ACK: first
    /// transmissions go out in sequence order and arrive in it on a FIFO path, so the
    /// latest one delivered is the top of a block (or the cumulative ACK) above what was
    /// delivered before; a retransmission delivered is one of this recovery's, in `out`.
    #[inline(never)]
    fn rack_latest_delivered(&self, a: &AckPkt, now: Nanos) -> Option<(Nanos, u64)> {
        let min_rtt = self.tcb.min_rtt.unwrap_or(0);
        let board = &self.board;
        let seen = |seg: u64, t: Nanos, retx: bool| (!retx || now.saturating_sub(t) >= min_rtt).then_some((t, seg));
        let mut latest: Option<(Nanos, u64)> = None;
        let tops = a.sack[..a.nsack as usize].iter().map(|&(_, e)| e).chain(std::iter::once(a.ack));
        for e in tops {
            let top = e.min(board.end()).wrapping_sub(1);
            if e > board.high_sacked() && board.is_unsacked(top) {
                if let Some(st) = board.get(top) {
                    latest = latest.max(seen(top, st.sent_at, st.retransmitted));
                }
            }
        }
        let delivered = |seg: u64| seg < a.ack || a.sack[..a.nsack as usize].iter().any(|&(s, e)| s <= seg && seg < e);
        for &(seg, t) in self.rack.as_ref().map(|r| &r.out).into_iter().flatten() {
            if board.is_unsacked(seg) && delivered(seg) && board.get(seg).is_some_and(|st| st.sent_at == t) {
                latest = latest.max(seen(seg, t, true));
            }
        }
        latest
    }

    /// RACK: every retransmission of this recovery sent before `latest` (send time, then
    /// segment) and not delivered by the ACK up to `ack` is lost again: it goes to the
    /// front of the send queue. Retransmissions are kept in the order sent, so the walk
    /// stops at the first one sent after `latest`.
    #[inline(never)]
    fn rack_detect(&mut self, ack: u64, latest: (Nanos, u64)) {
        let Some(r) = self.rack.as_mut() else { return };
        while let Some(&(seg, t)) = r.out.front() {
            if seg < ack || self.board.is_sacked(seg) {
                r.out.pop_front(); // delivered
            } else if (t, seg) < latest {
                r.out.pop_front();
                r.resend.push_back(seg);
                self.counters.lost_retransmissions += 1;
            } else {
                break;
            }
        }
    }

    /// RACK: retransmissions found lost again and not yet sent again (they are not in
    /// flight, although RFC 6675's pipe counts every segment below HighRxt as a
    /// retransmission in flight).
    #[inline]
    fn rack_pending(&self) -> u64 {
        let Some(r) = self.rack.as_ref() else { return 0 };
        r.resend.iter().filter(|&&s| self.board.is_unsacked(s)).count() as u64
    }

    /// RACK: the next retransmission found lost again that is still outstanding.
    #[inline]
    fn rack_next_resend(&mut self) -> Option<u64> {
        let r = self.rack.as_mut()?;
        std::iter::from_fn(|| r.resend.pop_front()).find(|&s| self.board.is_unsacked(s))
    }

    /// RFC 6675 §4 SetPipe into `tcb.pipe` (bytes). `head_lost`: count snd_una as lost
    /// whatever the SACKs say (it is being fast-retransmitted: ns-3's `MarkHeadAsLost`).
    /// Without SACK: FlightSize less the segments the duplicate ACKs stand for.
    fn update_pipe(&mut self, head_lost: bool) {
        let mss = self.tcb.mss;
        let t = &self.tcb;
        let segs = if self.rec.uses_sack() {
            let thresh = self.loss_threshold();
            let mut p = self.board.pipe(t.high_tx, t.high_rxt.max(t.snd_una), thresh).saturating_sub(self.rack_pending()) + self.phantoms();
            let head_counted = self.board.is_unsacked(t.snd_una) && !self.board.is_lost(t.snd_una, thresh);
            if head_lost && head_counted && t.snd_una < t.high_tx {
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
        self.on_ack_in::<true>(a, now, out)
    }

    /// [`Sender::on_ack`]; `FULL = false` only for a sender without LT-TCP, timestamps or ECN
    /// (the engine's plain runs, `sim/engine.rs`): their checks are then compiled out.
    #[inline]
    pub fn on_ack_in<const FULL: bool>(&mut self, a: &AckPkt, now: Nanos, out: &mut Vec<Tx>) {
        debug_assert!(FULL || !(self.lt || self.cfg.timestamps || self.cfg.ecn || self.rack.is_some()));
        let state_before = self.tcb.state;
        let cwnd_at_ack = self.tcb.cwnd;
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
            let acked_segs = a.ack.min(self.tcb.high_tx) - una;
            if a.ack > self.tcb.high_tx {
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
                Some(r) => rtt::sample(&mut self.tcb, &self.cfg.rtt, r),
                None => rtt::on_new_ack_without_sample(&mut self.tcb, &self.cfg.rtt),
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
                rtt: self.cc_rtt(rtt_sample),
                dup: false,
                state_before,
            };
            // ns-3 grows the window only in Open: not on an ACK that is also a duplicate.
            if !(cum_dup && self.cfg.dupack_rule == DupackRule::Ns3) {
                self.cc.on_ack(&mut self.tcb, &info);
            }
            // RFC 6298 §5.2-5.3: stop the timer when all is acknowledged, else restart it.
            if self.tcb.snd_una >= self.tcb.high_tx {
                self.rto_deadline = None;
            } else if restart {
                self.rto_deadline = Some(now + self.tcb.rto);
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
        self.send_loop_in::<FULL>(now, out);
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
        self.update_pipe(true);
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

    /// Whether the engine's timer of this sender is its retransmission timer (not a tail
    /// loss probe or RACK's reordering timer, `rack_tlp`).
    pub fn timer_is_rto(&self) -> bool {
        self.rack.as_ref().is_none_or(|r| r.timer == RackTimer::Rto)
    }

    /// RACK-TLP: the retransmission timer's own deadline back in `rto_deadline` (the ACK
    /// then restarts or keeps it as RFC 6298 says; [`Sender::rack_arm`] puts an earlier
    /// probe or reordering deadline in front again).
    #[inline]
    fn rack_restore_rto(&mut self) {
        if let Some(r) = self.rack.as_mut() {
            if r.timer != RackTimer::Rto {
                r.timer = RackTimer::Rto;
                self.rto_deadline = r.rto_at;
            }
        }
    }

    /// RACK (RFC 8985 §6.2 steps 1-2) outside recovery, before `a` updates the board: the
    /// latest segment it delivers, and RACK.rtt.
    fn rack_advance(&mut self, a: &AckPkt, now: Nanos) {
        if let Some(l) = self.rack_latest_delivered(a, now) {
            let r = self.rack.as_mut().expect("RACK state");
            if r.latest.is_none_or(|x| l > x) {
                r.latest = Some(l);
                r.rtt = now - l.0;
            }
        }
    }

    /// RACK outside recovery (§6.2 step 5): when snd_una is lost — unSACKed, sent before the
    /// latest segment delivered, RACK.rtt plus the reordering window after it was sent (the
    /// window min RTT / 4 while fewer than DupThresh segments are SACKed, else 0: Linux's
    /// `tcp_rack_reo_wnd` without reordering seen). None: nothing says it is lost.
    fn rack_una_lost_at(&self) -> Option<Nanos> {
        let r = self.rack.as_ref()?;
        let una = self.tcb.snd_una;
        if una >= self.tcb.high_tx || !self.board.is_unsacked(una) {
            return None;
        }
        let sent = self.board.get(una)?.sent_at;
        // (Sent in the same instant: in sequence order, as Linux's tcp_rack_sent_after.)
        if (sent, una) >= r.latest? {
            return None;
        }
        let reo = if self.board.sacked_count() >= self.tcb.dupack_threshold as u64 { 0 } else { self.tcb.min_rtt.unwrap_or(0) / 4 };
        Some(sent + r.rtt + reo)
    }

    /// Whether RACK finds snd_una lost at `now` ([`Sender::rack_una_lost_at`]).
    #[inline]
    fn rack_una_lost(&self, now: Nanos) -> bool {
        self.rack_una_lost_at().is_some_and(|t| t <= now)
    }

    /// After an ACK, RACK-TLP's timers (RFC 8985 §6.3, §7.2): the reordering timer while
    /// snd_una will be lost by time, else in Open state with data in flight and no probe
    /// outstanding a tail loss probe 2·SRTT on (+ 200 ms with one segment in flight, Linux's
    /// TCP_RTO_MIN for a delayed ACK; + 2 ms otherwise, TCP_TIMEOUT_MIN), either only if
    /// earlier than the retransmission timer.
    fn rack_arm(&mut self, now: Nanos) {
        let (una, high) = (self.tcb.snd_una, self.tcb.high_tx);
        let rto = self.rto_deadline;
        let state = self.tcb.state;
        let reo = if matches!(state, CaState::Open | CaState::Disorder) { self.rack_una_lost_at() } else { None };
        let srtt = self.tcb.srtt;
        let Some(r) = self.rack.as_mut() else { return };
        if r.tlp_high.is_some_and(|h| una >= h) {
            r.tlp_high = None;
        }
        let early = if let Some(t) = reo {
            Some((t.max(now), RackTimer::Reo))
        } else if state == CaState::Open && una < high && r.tlp_high.is_none() {
            srtt.map(|s| {
                let extra = if high - una == 1 { 200 * crate::time::NS_PER_MS } else { 2 * crate::time::NS_PER_MS };
                (now + 2 * s + extra, RackTimer::Probe)
            })
        } else {
            None
        };
        if let Some((t, kind)) = early {
            if rto.is_some_and(|x| t < x) {
                (r.timer, r.rto_at) = (kind, rto);
                self.rto_deadline = Some(t);
            }
        }
    }

    /// The tail loss probe (RFC 8985 §7.3, Linux's `tcp_send_loss_probe`): a new segment if
    /// the receiver's window allows (whatever cwnd says), else the last one sent again; then
    /// the retransmission timer from now.
    fn send_loss_probe(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        let (una, high) = (self.tcb.snd_una, self.tcb.high_tx);
        if una >= high || self.tcb.state != CaState::Open {
            return; // (acknowledged meanwhile; the restored timer stands)
        }
        if high < self.rwnd_end() {
            self.transmit(high, now, out);
            self.tcb.snd_nxt = self.tcb.high_tx;
        } else if self.board.is_unsacked(high - 1) {
            self.transmit(high - 1, now, out);
        } else {
            return;
        }
        self.counters.loss_probes += 1;
        let r = self.rack.as_mut().expect("RACK state");
        r.tlp_high = Some(self.tcb.high_tx);
        self.rto_deadline = Some(now + self.tcb.rto);
    }

    /// RACK on any ACK outside recovery (an ACK that advances snd_una to a hole too, not
    /// only a duplicate): snd_una lost by time starts fast recovery before new data goes out
    /// (so the retransmission leads the burst), as a duplicate ACK would. Whether it did.
    fn rack_check_entry(&mut self, sacked: u64, now: Nanos, out: &mut Vec<Tx>) -> bool {
        let enter = matches!(self.tcb.state, CaState::Open | CaState::Disorder)
            && self.tcb.snd_una >= self.tcb.recover
            && self.rack_una_lost(now);
        if enter {
            self.fast_retransmit(sacked * self.tcb.mss, now, out);
        }
        enter
    }

    /// RACK's reordering timer fires (§6.3): snd_una lost now starts fast recovery.
    fn on_reo_timeout(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        if self.rack_check_entry(0, now, out) {
            self.send_loop(now, out);
        }
        self.rack_arm(now);
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

    /// LT-TCP after an ACK (`recovery/lt.rs`): the blocks acknowledged, the echoed estimate,
    /// the slots newly shown lost, the RFEC packets that have passed.
    #[inline]
    fn lt_after_ack(&mut self, a: &AckPkt) {
        let (una, high, thresh) = (self.tcb.snd_una, self.tcb.high_tx, self.tcb.dupack_threshold);
        let Recovery::Lt(l) = &mut self.rec else { unreachable!("LT-TCP's recovery") };
        l.after_ack(&self.board, una, high, thresh, a.lt_erasure.map(|e| e as f64 * 1e-6), a.lt_rfec);
    }

    /// RFC 3168 §6.1.2, an ACK with ECN-Echo outside loss recovery: it does not grow cwnd;
    /// if it acknowledges the first segment sent after the last reduction (the receiver echoes
    /// CE until that segment's CWR reaches it), it is treated as a loss: ssthresh and cwnd
    /// reduced as congestion control and the recovery's entry would, without retransmission
    /// or inflation, once per window of data. At a window of one segment the timer is
    /// restarted and nothing new is sent until it fires. (`state_before`: the state when the
    /// ACK arrived; an ECN-Echo in or into loss recovery is the recovery's.)
    #[cold]
    #[inline(never)]
    fn on_ece(&mut self, state_before: CaState, cwnd_at_ack: u64, now: Nanos) {
        let open = |s: CaState| matches!(s, CaState::Open | CaState::Disorder);
        if !(self.cfg.ecn && open(state_before) && open(self.tcb.state)) {
            return;
        }
        self.tcb.cwnd = cwnd_at_ack; // no growth from an ECN-Echo ACK
        if self.tcb.snd_una <= self.cwr_until {
            return;
        }
        if self.tcb.ssthresh_rule == SsthreshRule::Pipe {
            self.update_pipe(false);
        }
        let ss = self.cc.ssthresh_on_loss(&self.tcb);
        let base = self.cc.cwnd_after_fast_retransmit(&self.tcb, ss);
        self.tcb.ssthresh = ss;
        if cwnd_at_ack <= self.tcb.mss {
            self.ecn_hold = true;
            self.rto_deadline = Some(now + self.tcb.rto);
        } else {
            self.tcb.cwnd = base.min(cwnd_at_ack).max(self.tcb.mss);
        }
        self.counters.ecn_reductions += 1;
        self.window_reduced();
    }

    /// A window reduction (ECN response, fast retransmit, timeout): the next new data segment
    /// carries CWR (RFC 3168 §6.1.2, as Linux queues it on every reduction) and this window
    /// is not reduced again.
    #[inline]
    fn window_reduced(&mut self) {
        if self.cfg.ecn {
            self.cwr_until = self.tcb.high_tx;
            self.send_cwr = true;
        }
    }

    /// The RTT congestion control sees with an ACK whose own sample is `sample`.
    #[inline]
    fn cc_rtt(&self, sample: Option<Nanos>) -> Option<Nanos> {
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
                self.rto_deadline = r.rto_at;
                return match kind {
                    RackTimer::Probe => self.send_loss_probe(now, out),
                    _ => self.on_reo_timeout(now, out),
                };
            }
        }
        self.rto_deadline = None;
        if self.ecn_hold {
            // RFC 3168 §6.1.2: the timer restarted by an ECN-Echo at one segment lets one
            // new segment go; it is not a timeout.
            self.ecn_hold = false;
            self.send_loop(now, out);
            if self.tcb.snd_una < self.tcb.high_tx && self.rto_deadline.is_none() {
                self.rto_deadline = Some(now + self.tcb.rto);
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
        // RFC 5681 eq. (4) on the first timeout; held constant on repeated timeouts.
        if self.backoffs == 0 {
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
        self.rto_deadline = Some(now + self.tcb.rto);
    }

    #[inline(always)]
    fn transmit(&mut self, seg: u64, now: Nanos, out: &mut Vec<Tx>) {
        self.transmit_in::<true>(seg, now, out)
    }

    /// [`Sender::transmit`] (`FULL`: as [`Sender::on_ack_in`]).
    #[inline(always)]
    fn transmit_in<const FULL: bool>(&mut self, seg: u64, now: Nanos, out: &mut Vec<Tx>) {
        let retx = seg < self.tcb.high_tx;
        let (mut flags, len) = if FULL && self.lt { self.lt_slot(seg) } else { (0, self.seg_len(seg)) };
        if retx {
            self.counters.retransmissions += 1;
            if let Some(s) = self.board.get_mut(seg) {
                s.retransmitted = true;
                s.sent_at = now;
            }
            if let Some(r) = self.rack.as_mut().filter(|_| FULL && self.cfg.rack_lost_retransmissions && matches!(self.tcb.state, CaState::Recovery | CaState::Loss)) {
                r.out.push_back((seg, now));
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
        // RFC 6298 §5.1: start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.tcb.rto);
        }
    }

    /// LT-TCP: slot `seg` is about to leave. A new slot past the blocks formed starts a block
    /// (its segment size becomes `Tcb::mss`, the unit of the window; the transfer's size known
    /// once the last block is formed). Its header bits (PFEC for a parity slot) and payload.
    #[inline(always)]
    fn lt_slot(&mut self, seg: u64) -> (u8, u64) {
        let Recovery::Lt(l) = &mut self.rec else { unreachable!("LT-TCP's recovery") };
        if seg >= l.blocks.end() {
            self.lt_form_block();
        }
        let Recovery::Lt(l) = &self.rec else { unreachable!("LT-TCP's recovery") };
        let Some(slot) = l.blocks.slot(seg) else { return (0, self.tcb.mss) };
        match slot {
            (len, true) => {
                if seg >= self.tcb.high_tx {
                    self.counters.pfec_sent += 1;
                }
                (super::pkt_flags::PFEC, len as u64)
            }
            (len, false) => (0, len as u64),
        }
    }

    /// LT-TCP: form the next block for the current window (once per window).
    #[inline(never)]
    fn lt_form_block(&mut self) {
        let Recovery::Lt(l) = &mut self.rec else { unreachable!("LT-TCP's recovery") };
        let cwnd = self.tcb.cwnd.min(self.tcb.max_cwnd);
        if let Some(b) = l.form_block(cwnd) {
            self.tcb.mss = b.seg as u64;
        }
        if l.all_formed() {
            self.total_segs = l.blocks.end();
        }
    }

    /// LT-TCP outside the post-timeout Loss state: while the pipe (RFC 6675's, plus the RFEC
    /// packets in flight) leaves room for a packet, send (1) the RFEC packets a block needs,
    /// (2) as a last resort the lost slots of blocks whose RFEC have passed (RFC 6675 NextSeg
    /// rule 1), (3) new slots.
    #[inline(always)]
    fn lt_send_loop(&mut self, now: Nanos, rwnd_end: u64, out: &mut Vec<Tx>) {
        let thresh = self.tcb.dupack_threshold;
        let mut high_rxt = self.tcb.high_rxt.max(self.tcb.snd_una);
        let Recovery::Lt(l) = &self.rec else { unreachable!("LT-TCP's recovery") };
        let mut pipe = self.board.pipe(self.tcb.high_tx, high_rxt, thresh) + l.rfec_in_flight();
        let cwnd = self.tcb.cwnd.min(self.tcb.max_cwnd);
        while cwnd >= (pipe + 1) * self.tcb.mss {
            let Recovery::Lt(l) = &mut self.rec else { unreachable!() };
            if let Some(i) = l.rfec_due(self.tcb.snd_una, self.tcb.high_tx) {
                let (start, len, rseq) = l.rfec_sent(i, self.tcb.high_tx);
                self.counters.rfec_sent += 1;
                self.counters.packets_sent += 1;
                self.cc.on_send(&self.tcb, now, len as u64);
                out.push(Tx { seg: start, len, retx: false, ts: now, flags: super::pkt_flags::RFEC, rseq });
                if self.rto_deadline.is_none() {
                    self.rto_deadline = Some(now + self.tcb.rto);
                }
            } else if let Some(s) = l.retransmissions_possible().then(|| self.board.next_retransmission(high_rxt, thresh, false)).flatten().filter(|&s| l.may_retransmit(s)) {
                high_rxt = s + 1;
                self.transmit(s, now, out);
            } else if self.tcb.high_tx < rwnd_end {
                let seg = self.tcb.high_tx;
                self.transmit(seg, now, out);
                self.tcb.snd_nxt = self.tcb.high_tx;
                if self.tcb.high_tx >= self.total_segs {
                    pipe += 1;
                    break;
                }
            } else {
                break;
            }
            pipe += 1;
        }
        self.tcb.high_rxt = high_rxt;
        self.tcb.cwnd_limited = cwnd < (pipe + 1) * self.tcb.mss;
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
        self.tcb.snd_una.saturating_add(self.cfg.rwnd).min(self.total_segs).min(self.app_limit)
    }

    /// Send whatever the windows allow.
    fn send_loop(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        self.send_loop_in::<true>(now, out)
    }

    /// [`Sender::send_loop`] (`FULL`: as [`Sender::on_ack_in`]).
    #[inline]
    fn send_loop_in<const FULL: bool>(&mut self, now: Nanos, out: &mut Vec<Tx>) {
        if FULL && self.ecn_hold {
            return;
        }
        let rwnd_end = self.rwnd_end();
        if self.tcb.state == CaState::Recovery && self.rec.uses_sack() {
            return self.sack_send_loop(now, rwnd_end, out);
        }
        if FULL && self.lt && self.tcb.state != CaState::Loss {
            return self.lt_send_loop(now, rwnd_end, out);
        }
        let mss = self.tcb.mss;
        let mut allowed = self.tcb.cwnd.min(self.tcb.max_cwnd);
        let by_pipe = FULL && self.cfg.dupack_rule != DupackRule::Rfc5681;
        if self.cfg.limited_transmit && self.tcb.state == CaState::Disorder && !by_pipe {
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
                while (inflight + 1) * mss <= allowed {
                    let Some(seg) = self.rack_next_resend() else { break };
                    self.transmit_in::<FULL>(seg, now, out);
                    inflight += 1;
                }
            }
        }
        // (`total_segs` may shrink as LT-TCP forms its last block.)
        while self.tcb.snd_nxt < rwnd_end.min(self.total_segs) && (inflight + 1) * mss <= allowed {
            let seg = self.tcb.snd_nxt;
            self.tcb.snd_nxt += 1;
            if seg < self.tcb.high_tx && self.board.is_sacked(seg) {
                if self.tcb.state != CaState::Loss && !by_pipe {
                    inflight += 1; // counted in snd_nxt − snd_una
                }
                continue; // after a timeout, skip what the receiver has SACKed (RFC 6675 §5.1)
            }
            self.transmit_in::<FULL>(seg, now, out);
            inflight += 1;
        }
        // The window, not the receiver or the data, is what stops the sender.
        self.tcb.cwnd_limited = (inflight + 1) * mss > allowed;
    }

    /// RFC 6675 §5 step (C): while cwnd − pipe ≥ 1 SMSS, send NextSeg.
    fn sack_send_loop(&mut self, now: Nanos, rwnd_end: u64, out: &mut Vec<Tx>) {
        let thresh = self.loss_threshold();
        let mut high_rxt = self.tcb.high_rxt.max(self.tcb.snd_una);
        let mut pipe = self.board.pipe(self.tcb.high_tx, high_rxt, thresh).saturating_sub(self.rack_pending()) + self.phantoms();
        let mss = self.tcb.mss;
        let cwnd = self.tcb.cwnd.min(self.tcb.max_cwnd);
        while cwnd >= (pipe + 1) * mss {
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
            self.transmit(seg, now, out);
            if seg + 1 > self.tcb.snd_nxt {
                self.tcb.snd_nxt = seg + 1;
            }
            pipe += 1;
        }
        self.tcb.high_rxt = high_rxt;
        self.tcb.cwnd_limited = cwnd < (pipe + 1) * mss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::Reno as RenoCc;
    use crate::tcp::receiver::MAX_SACK_BLOCKS;
    use crate::tcp::recovery::NewReno;
    use crate::tcp::rtt::BackoffReset;
    use crate::tcp::SsthreshRule;
    use crate::time::NS_PER_MS;

    fn sender(init_cwnd: u64, max_cwnd: u64, rwnd: u64) -> Sender {
        let cfg = SenderConfig {
            mss: 1000,
            init_cwnd,
            max_cwnd,
            rwnd,
            dupack_threshold: 3,
            limited_transmit: false,
            dupack_rule: DupackRule::Rfc5681,
            pipe_rule: PipeRule::Rfc6675,
            rack_lost_retransmissions: false,
            rack_tlp: false,
            rtt: RttConfig { rto_min: 200 * NS_PER_MS, rto_max: 60_000 * NS_PER_MS, rto_initial: 1000 * NS_PER_MS, granularity: 0, backoff_reset: BackoffReset::Sample, estimator: Default::default(), backoff: true },
            ssthresh_rule: SsthreshRule::FlightSize,
            grow_on_loss_exit: true,
            grow_on_recovery_exit: false,
            timestamps: false,
            cc_rtt: CcRtt::Sample,
            total_bytes: None,
            fast_retransmit_after_timeout: false,
            restart_timer_every_partial_ack: false,
            ecn: false,
        };
        Sender::new(cfg, Cc::Reno(RenoCc::default()), Recovery::NewReno(NewReno::default()))
    }

    /// A RFC 6675 SACK sender, with or without RACK's rule for lost retransmissions.
    fn sack_sender(init_cwnd: u64, rack: bool) -> Sender {
        let mut cfg = sender(init_cwnd, u64::MAX, u64::MAX).cfg;
        cfg.rack_lost_retransmissions = rack;
        Sender::new(cfg, Cc::Reno(RenoCc::default()), Recovery::Sack(crate::tcp::recovery::sack::Sack))
    }

    fn ack(n: u64) -> AckPkt {
        AckPkt { ack: n, sack: [(0, 0); MAX_SACK_BLOCKS], nsack: 0, tsecr: 0, ece: false, lt_erasure: None, lt_rfec: None }
    }

    fn segs(out: &mut Vec<Tx>) -> Vec<(u64, bool)> {
        out.drain(..).map(|t| (t.seg, t.retx)).collect()
    }

    /// Karn's rule (RFC 6298 §3, §5): ACKs that cover a retransmitted segment give no RTT
    /// sample and keep the backed-off RTO; the first ACK of never-retransmitted data gives
    /// a sample again. Expected values by hand from RFC 6298 §2 (α = 1/8, β = 1/4, K = 4).
    #[test]
    fn karns_rule_across_a_timeout() {
        let ms = NS_PER_MS;
        let mut s = sender(2, u64::MAX, u64::MAX);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(segs(&mut out), vec![(0, false), (1, false)]);
        assert_eq!(s.tcb.rto, 1000 * ms); // RFC 6298 §2.1: initial RTO
        // ACK 1 after 100 ms: first sample, SRTT 100, RTTVAR 50, RTO 100 + 4·50 = 300 ms.
        s.on_ack(&ack(1), 100 * ms, &mut out);
        assert_eq!((s.tcb.srtt, s.tcb.rttvar, s.tcb.rto), (Some(100 * ms), 50 * ms, 300 * ms));
        // Slow start: cwnd 3 segments, una = 1 → segments 2 and 3 go out.
        assert_eq!(segs(&mut out), vec![(2, false), (3, false)]);
        // Timeout: one segment, go back to una, RTO doubled to 600 ms (§5.5).
        s.on_rto(1000 * ms, &mut out);
        assert_eq!(segs(&mut out), vec![(1, true)]);
        assert_eq!((s.tcb.cwnd, s.tcb.rto, s.counters.timeouts), (1000, 600 * ms, 1));
        // ssthresh = max(FlightSize / 2, 2·SMSS) = max(3000 / 2, 2000) (RFC 5681 eq. 4).
        assert_eq!(s.tcb.ssthresh, 2000);
        // ACK 2 covers the retransmitted segment 1: no sample, RTO stays backed off.
        s.on_ack(&ack(2), 1050 * ms, &mut out);
        assert_eq!((s.tcb.srtt, s.tcb.rto), (Some(100 * ms), 600 * ms));
        // Go-back-N resends 2 and 3 (cwnd 2 segments after one slow-start ACK).
        assert_eq!(segs(&mut out), vec![(2, true), (3, true)]);
        // ACK 4 covers retransmissions only: still no sample; new data 4 and 5 go out.
        s.on_ack(&ack(4), 1100 * ms, &mut out);
        assert_eq!((s.tcb.srtt, s.tcb.rto), (Some(100 * ms), 600 * ms));
        assert_eq!(segs(&mut out), vec![(4, false), (5, false)]);
        // ACK 5 covers segment 4, sent once at 1100 ms: sample R = 50 ms.
        // RTTVAR = 3/4·50 + 1/4·|100 − 50| = 50; SRTT = 7/8·100 + 1/8·50 = 93.75;
        // RTO = 93.75 + 4·50 = 293.75 ms.
        s.on_ack(&ack(5), 1150 * ms, &mut out);
        assert_eq!((s.tcb.srtt, s.tcb.rttvar, s.tcb.rto), (Some(93_750_000), 50 * ms, 293_750_000));
    }

    /// RFC 7323: with timestamps every ACK of new data gives a sample, now − TSecr, also when
    /// it covers a retransmission (the echo tells which copy arrived), where Karn's rule
    /// gives none; duplicate ACKs give none.
    #[test]
    fn timestamps_sample_every_new_ack() {
        let ms = NS_PER_MS;
        let mut s = sender(2, u64::MAX, u64::MAX);
        s.cfg.timestamps = true;
        let mut out = Vec::new();
        s.start(0, &mut out);
        let ts_ack = |n: u64, tsecr: u64| AckPkt { tsecr, ..ack(n) };
        s.on_ack(&ts_ack(1, 0), 100 * ms, &mut out);
        assert_eq!((s.tcb.srtt, s.tcb.rto), (Some(100 * ms), 300 * ms));
        s.on_rto(1000 * ms, &mut out); // retransmits 1 at 1000 ms
        assert_eq!(s.tcb.rto, 600 * ms);
        // The ACK of the retransmission echoes its TSval (1000 ms): R = 50 ms.
        // RTTVAR = 3/4·50 + 1/4·50 = 50; SRTT = 7/8·100 + 1/8·50 = 93.75; RTO = 293.75 ms.
        s.on_ack(&ts_ack(2, 1000 * ms), 1050 * ms, &mut out);
        assert_eq!((s.tcb.srtt, s.tcb.rto), (Some(93_750_000), 293_750_000));
        let before = (s.tcb.srtt, s.tcb.rttvar);
        s.on_ack(&ts_ack(2, 1000 * ms), 1060 * ms, &mut out); // duplicate: no sample
        assert_eq!((s.tcb.srtt, s.tcb.rttvar), before);
    }

    /// The receiver window and the maximum window bound the flight (segments in flight =
    /// min(cwnd, max_cwnd, rwnd)); the timer stops once everything is acknowledged
    /// (RFC 6298 §5.2).
    #[test]
    fn receiver_and_maximum_windows_bound_the_flight() {
        let mut out = Vec::new();
        let mut s = sender(10, u64::MAX, 3);
        s.start(0, &mut out);
        assert_eq!(out.len(), 3);
        out.clear();
        s.on_ack(&ack(1), 10, &mut out);
        assert_eq!(segs(&mut out), vec![(3, false)]); // una = 1: segments 1..=3 in flight
        let mut m = sender(10, 4000, u64::MAX);
        m.start(0, &mut out);
        assert_eq!(out.len(), 4);
        out.clear();
        for a in 1..=4 {
            m.on_ack(&ack(a), 10 * a, &mut out);
        }
        // Slow start would reach 8 segments; max_cwnd keeps 4 in flight: 4..=7 sent.
        assert_eq!(segs(&mut out).iter().map(|x| x.0).collect::<Vec<_>>(), vec![4, 5, 6, 7]);
        // A 2-segment transfer: the timer runs while data is outstanding, stops at the end.
        let mut f = sender(2, u64::MAX, u64::MAX);
        f.cfg.total_bytes = Some(1500);
        let mut f = Sender::new(f.cfg, Cc::Reno(RenoCc::default()), Recovery::NewReno(NewReno::default()));
        f.start(0, &mut out);
        assert_eq!(out.iter().map(|t| t.len).collect::<Vec<_>>(), vec![1000, 500]);
        assert_eq!(f.rto_deadline, Some(1000 * NS_PER_MS));
        f.on_ack(&ack(1), 10, &mut out);
        assert_eq!(f.rto_deadline, Some(10 + f.tcb.rto)); // restarted (§5.3)
        f.on_ack(&ack(2), 20, &mut out);
        assert_eq!(f.rto_deadline, None);
        assert_eq!(out.len(), 2); // nothing beyond the transfer
    }

    /// The `tossim` profile's sender options. (1) `fast_retransmit_after_timeout`: after a
    /// timeout, three duplicate ACKs start fast retransmit (RFC 2581 §3.2, RFC 2582's base
    /// algorithm); RFC 6582's careful variant ignores them until `recover` is acknowledged.
    #[test]
    fn fast_retransmit_after_a_timeout_is_a_choice() {
        let ms = NS_PER_MS;
        for frat in [false, true] {
            let mut s = sender(2, u64::MAX, u64::MAX);
            s.cfg.fast_retransmit_after_timeout = frat;
            let mut out = Vec::new();
            s.start(0, &mut out);
            s.on_rto(1000 * ms, &mut out);
            assert_eq!(segs(&mut out), vec![(0, false), (1, false), (0, true)]);
            for k in 1..=3 {
                s.on_ack(&ack(0), (1000 + 300 * k) * ms, &mut out); // e.g. the receiver's idle ACKs
            }
            if frat {
                // ssthresh = max(FlightSize/2, 2·SMSS) = 2000; cwnd = ssthresh + 3·SMSS: the
                // retransmission of 0, then go-back-N resumes at 1 up to 5 segments in flight.
                assert_eq!(segs(&mut out), vec![(0, true), (1, true), (2, false), (3, false), (4, false)]);
                assert_eq!((s.counters.fast_retransmits, s.tcb.state, s.tcb.ssthresh, s.tcb.cwnd), (1, CaState::Recovery, 2000, 5000));
            } else {
                assert!(out.is_empty());
                assert_eq!((s.counters.fast_retransmits, s.tcb.state), (0, CaState::Loss));
            }
        }
    }

    /// (2) `restart_timer_every_partial_ack`: RFC 2582 §4's Slow-but-Steady variant restarts
    /// the timer on every partial ACK; the Impatient variant (RFC 6582) only on the first.
    #[test]
    fn slow_but_steady_restarts_the_timer_on_every_partial_ack() {
        let ms = NS_PER_MS;
        for every in [false, true] {
            let mut s = sender(10, u64::MAX, u64::MAX);
            s.cfg.restart_timer_every_partial_ack = every;
            let mut out = Vec::new();
            s.start(0, &mut out);
            for t in [10, 20, 30] {
                s.on_ack(&ack(0), t * ms, &mut out);
            }
            assert_eq!(s.tcb.state, CaState::Recovery);
            s.on_ack(&ack(3), 100 * ms, &mut out); // first partial ACK: both restart
            assert_eq!(s.rto_deadline, Some(1100 * ms));
            s.on_ack(&ack(5), 200 * ms, &mut out); // second partial ACK
            assert_eq!(s.rto_deadline, Some(if every { 1200 } else { 1100 } * ms));
        }
    }

    /// RACK's rule for retransmissions (RFC 8985 §6.2): segment 0 is lost, fast-retransmitted
    /// at 13 ms, and lost again. Once a segment sent after that retransmission (new data, 10)
    /// is SACKed, RACK sends 0 again at once; RFC 6675 alone (HighRxt is past 0) sends it
    /// only after the retransmission timer.
    #[test]
    fn rack_resends_a_lost_retransmission_without_the_timer() {
        let ms = NS_PER_MS;
        for rack in [false, true] {
            let mut s = sack_sender(10, rack);
            let mut out = Vec::new();
            s.start(0, &mut out);
            assert_eq!(out.len(), 10);
            out.clear();
            let sack = |e: u64| {
                let mut a = ack(0);
                a.sack[0] = (1, e);
                a.nsack = 1;
                a
            };
            // Segments 1..=9 arrive, 0 does not: duplicate ACKs SACKing 1..e.
            let mut resent_at = Vec::new();
            for (k, e) in (2..=10).enumerate() {
                let now = (10 + k as u64) * ms;
                s.on_ack(&sack(e), now, &mut out);
                for t in out.drain(..) {
                    if t.seg == 0 {
                        resent_at.push(now);
                    }
                }
            }
            // The third duplicate ACK (12 ms) starts recovery and retransmits 0; the later
            // ones send new data 10, 11, ... (sent after that retransmission).
            assert_eq!((s.tcb.state, resent_at.clone()), (CaState::Recovery, vec![12 * ms]));
            assert!(s.tcb.high_tx > 10);
            // The retransmission of 0 is lost; the ACK SACKing new segment 10 arrives.
            s.on_ack(&sack(11), 40 * ms, &mut out);
            let again = out.iter().any(|t| t.seg == 0 && t.retx);
            assert_eq!(again, rack, "rack = {rack}");
            assert_eq!(s.counters.lost_retransmissions, rack as u64);
            assert_eq!(s.counters.timeouts, 0);
            // Found lost once: a later SACK (of 11) does not send it a third time.
            out.clear();
            s.on_ack(&sack(12), 41 * ms, &mut out);
            assert!(!out.iter().any(|t| t.seg == 0));
            assert_eq!(s.counters.lost_retransmissions, rack as u64);
        }
    }

    fn rack_tlp_sender(init_cwnd: u64, on: bool) -> Sender {
        let mut s = sack_sender(init_cwnd, on);
        s.cfg.rack_tlp = on;
        s
    }

    fn sack_ack(cum: u64, blocks: &[(u64, u64)]) -> AckPkt {
        let mut a = ack(cum);
        for (i, &b) in blocks.iter().enumerate() {
            a.sack[i] = b;
        }
        a.nsack = blocks.len() as u8;
        a
    }

    /// What a duplicate ACK is with SACK (`dupack_rule`). Three segments in congestion
    /// avoidance (cwnd = ssthresh = 3000), segment 1 lost. The ACK at 20 ms acknowledges 0 and
    /// SACKs 2: RFC 5681 returns to Open and grows cwnd (3333) with 2 segments in FlightSize:
    /// one new segment (3). RFC 6675 counts it a duplicate ACK (reset, then one) and sends
    /// while cwnd − pipe ≥ 1 SMSS, the SACKed 2 out of the pipe: 3 and 4; ns-3 likewise but
    /// without growing cwnd. The ACK at 21 ms SACKs 3: RFC 5681 has 3 segments in flight, no
    /// room; the others a pipe of 2 (1 and 4): one more (5, ns-3; RFC 6675's cwnd 3333 too).
    /// The same ACK again brings no new SACK information: a duplicate for RFC 5681 only (its
    /// second; the others stay at two). The ACK at 22 ms SACKs 4: the third duplicate for
    /// RFC 6675 and ns-3 (fast retransmit of 1), the second for RFC 5681 (with two SACKed
    /// above it, 1 is not yet lost).
    #[test]
    fn dupack_rules_with_sack() {
        let ms = NS_PER_MS;
        for rule in [DupackRule::Rfc5681, DupackRule::Rfc6675, DupackRule::Ns3] {
            let mut s = sack_sender(3, false);
            s.cfg.dupack_rule = rule;
            s.tcb.ssthresh = 3000;
            let mut out = Vec::new();
            s.start(0, &mut out);
            out.clear();
            let rfc5681 = rule == DupackRule::Rfc5681;
            s.on_ack(&sack_ack(1, &[(2, 3)]), 20 * ms, &mut out);
            let state = if rfc5681 { CaState::Open } else { CaState::Disorder };
            let cwnd = if rule == DupackRule::Ns3 { 3000 } else { 3333 };
            assert_eq!((s.tcb.state, s.tcb.dupacks, s.tcb.cwnd), (state, u32::from(!rfc5681), cwnd), "{rule:?}");
            let sent: &[(u64, bool)] = if rfc5681 { &[(3, false)] } else { &[(3, false), (4, false)] };
            assert_eq!(segs(&mut out), sent, "{rule:?}");
            s.on_ack(&sack_ack(1, &[(2, 4)]), 21 * ms, &mut out);
            let sent: &[(u64, bool)] = if rfc5681 { &[] } else { &[(5, false)] };
            assert_eq!((s.tcb.dupacks, segs(&mut out).as_slice()), (if rfc5681 { 1 } else { 2 }, sent), "{rule:?}");
            let mut again = s.clone();
            again.on_ack(&sack_ack(1, &[(2, 4)]), 21 * ms, &mut out);
            assert_eq!((again.tcb.state, again.tcb.dupacks, out.len()), (CaState::Disorder, s.tcb.dupacks + u32::from(rfc5681), 0), "{rule:?}");
            s.on_ack(&sack_ack(1, &[(2, 5)]), 22 * ms, &mut out);
            let recovery = !rfc5681;
            assert_eq!(s.tcb.state == CaState::Recovery, recovery, "{rule:?}");
            assert_eq!(out.first().map(|t| (t.seg, t.retx)) == Some((1, true)), recovery, "{rule:?}");
            assert_eq!(s.counters.fast_retransmits, u64::from(recovery));
        }
    }

    /// What a SACK sender counts in flight (`pipe_rule`). Eight segments, 0 and 1 lost; the
    /// ACKs SACKing 2, 3 and 4 start recovery (0 resent), the next ones let 1 be resent too.
    /// The resent 0 is lost again and the resent 1 arrives: SACKed. RFC 6675 takes it out of
    /// the pipe; ns-3 keeps it in until the cumulative ACK passes it, so that ACK lets one
    /// new segment fewer go.
    #[test]
    fn pipe_rules() {
        let ms = NS_PER_MS;
        let mut pipes = Vec::new();
        for rule in [PipeRule::Rfc6675, PipeRule::Ns3] {
            let mut s = sack_sender(8, false);
            s.cfg.pipe_rule = rule;
            let mut out = Vec::new();
            s.start(0, &mut out);
            out.clear();
            let mut resent = Vec::new();
            for (k, e) in (3..=8).enumerate() {
                s.on_ack(&sack_ack(0, &[(2, e)]), (20 + k as u64) * ms, &mut out);
                resent.extend(out.drain(..).filter(|t| t.retx).map(|t| t.seg));
            }
            assert_eq!((s.tcb.state, resent.as_slice()), (CaState::Recovery, &[0, 1][..]), "{rule:?}");
            assert_eq!(s.phantoms(), 0);
            s.on_ack(&sack_ack(0, &[(1, 8)]), 40 * ms, &mut out);
            assert_eq!(s.phantoms(), u64::from(rule == PipeRule::Ns3), "{rule:?}");
            s.update_pipe(false);
            pipes.push((s.tcb.pipe, out.drain(..).count()));
        }
        // The window filled in both, with one new segment fewer for ns-3's count.
        assert_eq!(pipes[1].0, pipes[0].0);
        assert_eq!(pipes[1].1 + 1, pipes[0].1);
    }

    /// RACK-TLP entering recovery by time (RFC 8985 §6.2-6.3): 4 segments at 0; the ACK of 0
    /// at 20 ms gives RTT 20 ms (min RTT 20) and sends 4, 5; 1 is lost, and the ACK at 21 ms
    /// SACKs 2 (sent at 0, delivered 21 ms later: RACK.rtt 21 ms). 1 is lost at 0 + 21 +
    /// 20/4 = 26 ms (one SACK, fewer than DupThresh): the reordering timer, not the
    /// retransmission timer, is armed for 26 ms, and firing starts fast recovery with 1 sent
    /// again. RFC 6675 alone waits (one duplicate ACK, the timer at the RTO).
    #[test]
    fn rack_tlp_enters_recovery_by_time() {
        let ms = NS_PER_MS;
        for on in [false, true] {
            let mut s = rack_tlp_sender(4, on);
            let mut out = Vec::new();
            s.start(0, &mut out);
            out.clear();
            s.on_ack(&ack(1), 20 * ms, &mut out);
            assert_eq!(s.tcb.min_rtt, Some(20 * ms));
            out.clear();
            s.on_ack(&sack_ack(1, &[(2, 3)]), 21 * ms, &mut out);
            assert!(out.iter().all(|t| !t.retx), "on = {on}");
            assert_eq!(s.tcb.state, CaState::Disorder);
            if !on {
                assert!(s.timer_is_rto() && s.rto_deadline.unwrap() > 200 * ms);
                continue;
            }
            assert_eq!((s.rto_deadline, s.timer_is_rto()), (Some(26 * ms), false));
            out.clear();
            s.on_rto(26 * ms, &mut out);
            assert_eq!(s.tcb.state, CaState::Recovery);
            assert_eq!(out.first().map(|t| (t.seg, t.retx)), Some((1, true)));
            assert_eq!((s.counters.fast_retransmits, s.counters.timeouts), (1, 0));
            assert!(s.timer_is_rto() && s.rto_deadline.unwrap() > 200 * ms);
        }
    }

    /// The tail loss probe (RFC 8985 §7): after the ACK at 20 ms (SRTT 20 ms) with three
    /// segments in flight in Open state, the probe is due 2·20 + 2 = 42 ms later; it sends
    /// a new segment whatever cwnd allows and the retransmission timer then runs from it. With
    /// one segment in flight the delayed-ACK allowance is 200 ms.
    #[test]
    fn rack_tlp_tail_loss_probe() {
        let ms = NS_PER_MS;
        let mut s = rack_tlp_sender(4, true);
        s.cfg.rwnd = 8;
        let mut out = Vec::new();
        s.start(0, &mut out);
        out.clear();
        s.on_ack(&ack(1), 20 * ms, &mut out);
        let sent = segs(&mut out);
        let high = s.tcb.high_tx;
        assert_eq!(s.tcb.state, CaState::Open);
        assert_eq!((s.rto_deadline, s.timer_is_rto()), (Some(62 * ms), false), "sent {sent:?}");
        s.on_rto(62 * ms, &mut out);
        assert_eq!(segs(&mut out), vec![(high, false)]);
        assert_eq!((s.counters.loss_probes, s.counters.timeouts), (1, 0));
        assert_eq!((s.rto_deadline, s.timer_is_rto()), (Some(62 * ms + s.tcb.rto), true));
        // No second probe for the same tail: the next ACK (of 1) leaves the probe outstanding.
        s.on_ack(&ack(2), 70 * ms, &mut out);
        assert!(s.timer_is_rto());
        // One segment in flight (the receiver's window holds one): 2·SRTT + 200 ms.
        let mut s = rack_tlp_sender(1, true);
        s.cfg.rwnd = 1;
        s.cfg.rtt.rto_min = 1000 * ms; // (so that the probe comes first)
        s.start(0, &mut out);
        out.clear();
        s.on_ack(&ack(1), 20 * ms, &mut out);
        assert_eq!(s.tcb.high_tx - s.tcb.snd_una, 1, "{:?}", segs(&mut out));
        assert_eq!((s.rto_deadline, s.timer_is_rto()), (Some(20 * ms + 2 * 20 * ms + 200 * ms), false));
    }

    /// RACK-TLP in fast recovery: a hole is lost once one segment sent after it is SACKed
    /// (RFC 8985 with no reordering window on a FIFO path), not DupThresh: 0 and 8 of ten are
    /// lost; three ACKs SACKing 1-3 start recovery (0 sent again); the ACK SACKing 9 makes 8
    /// lost and it goes next, where RFC 6675 alone needs two more SACKed segments above it.
    #[test]
    fn rack_tlp_marks_holes_in_recovery() {
        let ms = NS_PER_MS;
        for on in [false, true] {
            let mut s = rack_tlp_sender(10, on);
            let mut out = Vec::new();
            s.start(0, &mut out);
            out.clear();
            for e in 2..=4 {
                s.on_ack(&sack_ack(0, &[(1, e)]), (20 + e) * ms, &mut out);
            }
            assert_eq!(s.tcb.state, CaState::Recovery);
            let first: Vec<_> = segs(&mut out);
            assert_eq!(first.first(), Some(&(0, true)), "on = {on}");
            for e in 5..=8 {
                s.on_ack(&sack_ack(0, &[(1, e)]), (20 + e) * ms, &mut out);
            }
            s.on_ack(&sack_ack(0, &[(9, 10), (1, 8)]), 30 * ms, &mut out);
            let resent_8 = segs(&mut out).contains(&(8, true));
            assert_eq!(resent_8, on, "on = {on}");
        }
    }

    /// RACK after a timeout: the retransmissions of the Loss state are watched too. Two
    /// segments are lost and the timer fires; 0 and 1 go again (0 first, then 1 as the first
    /// ACK opens the window); when the copy of 1 (sent after 0's) is SACKed while 0's copy is
    /// missing, RACK sends 0 a third time without a second timeout.
    #[test]
    fn rack_after_a_timeout() {
        let ms = NS_PER_MS;
        for rack in [false, true] {
            let mut s = sack_sender(2, rack);
            let mut out = Vec::new();
            s.start(0, &mut out); // 0 and 1, both lost
            s.on_rto(1000 * ms, &mut out);
            assert_eq!(s.tcb.state, CaState::Loss);
            out.clear();
            // cwnd one segment: 0 went at 1000 ms. Open the window to two segments by hand
            // (slow start would after one ACK), so that 1 follows.
            s.tcb.cwnd = 2 * s.tcb.mss;
            s.send_loop(1001 * ms, &mut out);
            assert_eq!(segs(&mut out), vec![(1, true)]); // 1 sent after 0's copy
            // 0's copy is lost; 1's arrives: the receiver SACKs 1.
            let mut a = ack(0);
            a.sack[0] = (1, 2);
            a.nsack = 1;
            s.on_ack(&a, 1050 * ms, &mut out);
            let again = segs(&mut out).contains(&(0, true));
            assert_eq!(again, rack, "rack = {rack}");
            assert_eq!((s.counters.lost_retransmissions, s.counters.timeouts), (rack as u64, 1));
        }
    }
}
