//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, *BBR: Congestion-Based Congestion
//! Control*, ACM Queue 2016; draft-cardwell-iccrg-bbr-congestion-control-00, "the draft" below),
//! as Linux's `net/ipv4/tcp_bbr.c` runs it. The model: the bottleneck bandwidth is the windowed
//! maximum of the delivery-rate samples (`tcp/rate_sample.rs`) over 10 packet-timed rounds, the
//! propagation delay the windowed minimum RTT over 10 s; the flow paces at `pacing_gain · bw`
//! and keeps at most `cwnd_gain · bw · min_rtt` (plus a quantization budget) in flight. Loss is
//! not a congestion signal (except the policer detector, `lt_bw`, and packet conservation in
//! the first round of recovery).
//!
//! | state     | pacing gain                 | cwnd gain | leaves when (Linux function)                            |
//! |-----------|-----------------------------|-----------|---------------------------------------------------------|
//! | Startup   | 2/ln 2 ≈ 2.885              | 2.885     | bw grew < 25 % over 3 rounds (`bbr_check_full_bw_reached`) |
//! | Drain     | 1/2.885                     | 2.885     | inflight ≤ 1·BDP (`bbr_check_drain`)                    |
//! | ProbeBW   | 5/4, 3/4, 1 ×6 (cycling)    | 2         | min RTT 10 s old (`bbr_update_min_rtt`)                 |
//! | ProbeRTT  | 1                           | 1 (cwnd 4)| 200 ms and one round at ≤ 4 segments (`bbr_check_probe_rtt_done`) |
//!
//! The sender calls [`CongestionControl::on_rate_sample`] on every ACK (Linux's `cong_control`,
//! `bbr_main`); this module sets `tcb.cwnd` there and reports its pacing rate through
//! [`CongestionControl::pacing_rate`]. Not modelled: the restart after idle
//! (`CA_EVENT_TX_START`; the flows here are bulk or ON/OFF, whose OFF period BBR's
//! application-limited marking covers) and undo of spurious recoveries (`bbr_undo_cwnd`).
use super::CongestionControl;
use crate::tcp::config::{BbrVariant, TcpConfig};
use crate::tcp::rate_sample::RateSample;
use crate::tcp::{AckInfo, CaState, Tcb};
use crate::time::{Nanos, NS_PER_MS, NS_PER_S};

/// Startup's gain, 2/ln 2 (Linux `bbr_high_gain` = 2885/1000 in 1/256 units, rounded up).
pub const HIGH_GAIN: f64 = (256 * 2885 / 1000 + 1) as f64 / 256.0;
/// Drain's pacing gain, its inverse (Linux `bbr_drain_gain`).
pub const DRAIN_GAIN: f64 = (256 * 1000 / 2885) as f64 / 256.0;
/// ProbeBW's cwnd gain (Linux `bbr_cwnd_gain`; the draft §4.2.3.3 "cwnd_gain = 2").
pub const CWND_GAIN: f64 = 2.0;
/// ProbeBW's pacing-gain cycle (the draft §4.3.4.3; Linux `bbr_pacing_gain[]`).
pub const PACING_GAINS: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The max-bandwidth filter's window, rounds (Linux `bbr_bw_rtts` = CYCLE_LEN + 2).
pub const BW_WINDOW_ROUNDS: u64 = 10;
/// The min-RTT filter's window (Linux `bbr_min_rtt_win_sec`; the draft's MinRTTFilterLen).
pub const MIN_RTT_WINDOW: Nanos = 10 * NS_PER_S;
/// Time in ProbeRTT (Linux `bbr_probe_rtt_mode_ms`; the draft's ProbeRTTDuration).
pub const PROBE_RTT_TIME: Nanos = 200 * NS_PER_MS;
/// The smallest cwnd BBR aims at, segments (Linux `bbr_cwnd_min_target`).
pub const MIN_CWND: u64 = 4;
/// Linux pacing 1 % below the estimate (`bbr_pacing_margin_percent`).
const PACING_MARGIN: f64 = 0.99;
/// Linux's TCP_INIT_CWND: the window before any RTT sample, and slow start's floor.
const INIT_CWND: u64 = 10;

/// Kathleen Nichols' windowed running maximum over three samples (Linux `lib/win_minmax.c`,
/// the filter the draft §4.5.2.2 "BBR.max_bw" names): the best, second- and third-best values
/// of the window, each with the time (here: the round) it was measured.
#[derive(Clone, Copy, Debug, Default)]
pub struct WinMax {
    s: [(u64, f64); 3],
}

impl WinMax {
    pub fn get(&self) -> f64 {
        self.s[0].1
    }

    pub fn reset(&mut self, t: u64, v: f64) {
        self.s = [(t, v); 3];
    }

    /// `minmax_running_max`: add sample `v` at time `t` over a window of `win`.
    pub fn update(&mut self, win: u64, t: u64, v: f64) {
        if v >= self.s[0].1 || t.saturating_sub(self.s[2].0) > win {
            return self.reset(t, v); // a new maximum, or nothing left in the window
        }
        if v >= self.s[1].1 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        // `minmax_subwin_update`: age the best samples out of the window.
        let dt = t.saturating_sub(self.s[0].0);
        if dt > win {
            self.s = [self.s[1], self.s[2], (t, v)];
            if t.saturating_sub(self.s[0].0) > win {
                self.s = [self.s[1], self.s[2], (t, v)];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = (t, v);
        }
    }
}

/// A window rule's last result and every input it was computed from (BBR v1 and v3). The
/// inputs of the target window (bandwidth estimate, min RTT, gain, phase, pacing rate) change a
/// few times per round, the ACKs come many per round: an ACK whose inputs equal the last ones
/// (floating-point inputs compared bit for bit) reuses the result, the same integer the rule
/// would compute again.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Memo<K> {
    key: Option<K>,
    val: u64,
}

impl<K: PartialEq + Copy> Memo<K> {
    /// The result for `key`, if it is the last one computed.
    #[inline]
    pub(super) fn get(&self, key: K) -> Option<u64> {
        (self.key == Some(key)).then_some(self.val)
    }

    #[inline]
    pub(super) fn set(&mut self, key: K, val: u64) -> u64 {
        *self = Memo { key: Some(key), val };
        val
    }
}

/// The inputs of v1's target window: (bw, cwnd_gain) as bits, min RTT, whether the pipe is
/// full, the larger extra-acked estimate, segments per send burst (`bbr_tso_segs_goal`),
/// whether ProbeBW is in its probing (5/4) phase.
type TargetKey = (u64, u64, Option<Nanos>, bool, u64, u64, bool);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// BBR v1's state (Linux `struct bbr`).
#[derive(Clone, Debug)]
pub struct Bbr {
    /// Linux's or ns-3's rules where a loss episode ends (`bbr_variant`).
    ns3: bool,
    pub mode: Mode,
    /// Max bandwidth filter, segments/s over rounds.
    bw: WinMax,
    /// Min RTT and when it was measured (None before the first sample).
    pub min_rtt: Option<Nanos>,
    min_rtt_stamp: Nanos,
    probe_rtt_done: Option<Nanos>,
    probe_rtt_round_done: bool,
    /// Packet-timed rounds (the draft §4.5.1 "round counting").
    pub rtt_cnt: u64,
    next_rtt_delivered: u64,
    pub round_start: bool,
    packet_conservation: bool,
    prev_state: CaState,
    /// cwnd before a recovery or ProbeRTT, segments (`bbr_save_cwnd`).
    prior_cwnd: u64,
    full_bw: f64,
    full_bw_cnt: u32,
    pub full_bw_reached: bool,
    pub cycle_idx: usize,
    cycle_stamp: Nanos,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    /// The pacing rate, bytes/s (Linux `sk_pacing_rate`).
    pacing: f64,
    /// `bbr_tso_segs_goal` at that rate for segments of `tso_mss` bytes (set with the rate:
    /// the window rules ask for it several times per ACK).
    tso_goal: u64,
    tso_mss: u64,
    has_seen_rtt: bool,
    /// `set_cwnd`'s target window and what it was computed from ([`Memo`]).
    target: Memo<TargetKey>,
    /// `bbr_rate_bytes_per_sec` of the last (bw, pacing gain) as bits, and the segment size.
    rate_memo: Memo<(u64, u64, u64)>,
    /// BBR's cwnd, segments (the sender's `tcb.cwnd` is set from it on every ACK; loss
    /// recovery's own settings in between are overridden, as Linux skips PRR for a
    /// `cong_control` algorithm).
    pub cwnd: u64,
    /// Long-term ("policer") bandwidth estimate (`bbr_lt_bw_sampling`).
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    pub lt_use_bw: bool,
    lt_bw: f64,
    lt_last_delivered: u64,
    lt_last_stamp: Nanos,
    lt_last_lost: u64,
    /// ACK aggregation (`bbr_update_ack_aggregation`), segments.
    extra_acked: [u64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    ack_epoch_stamp: Nanos,
    ack_epoch_acked: u64,
    /// The connection's counters as of the last sample (Linux's `tp->delivered`, `tp->lost`,
    /// `tp->delivered_mstamp`).
    delivered: u64,
    lost: u64,
    delivered_stamp: Nanos,
    /// Random state for ProbeBW's starting phase (Linux `prandom_u32_max`): seeded from the
    /// flow's own history at its first entry, so flows that start at different times or see
    /// different paths do not cycle in step, and a run is reproducible.
    rng: u64,
}

impl Bbr {
    /// A flow that starts with `init_cwnd` segments (`bbr_init`).
    pub fn new(init_cwnd: u64) -> Self {
        Bbr {
            ns3: false,
            mode: Mode::Startup,
            bw: WinMax::default(),
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            packet_conservation: false,
            prev_state: CaState::Open,
            prior_cwnd: 0,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            // `bbr_init_pacing_rate_from_rtt` with no RTT yet: init_cwnd per nominal 1 ms.
            pacing: 0.0,
            tso_goal: 1,
            tso_mss: 0,
            has_seen_rtt: false,
            target: Memo::default(),
            rate_memo: Memo::default(),
            cwnd: init_cwnd,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0.0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            ack_epoch_stamp: 0,
            ack_epoch_acked: 0,
            delivered: 0,
            lost: 0,
            delivered_stamp: 0,
            rng: 0,
        }
    }

    /// The flow's BBR as configured (`init_cwnd`, `bbr_variant`).
    pub fn from_config(t: &TcpConfig) -> Self {
        Bbr { ns3: t.bbr_variant == BbrVariant::Ns3, ..Bbr::new(t.init_cwnd) }
    }

    /// The bandwidth estimate, segments/s (`bbr_bw`: the policer's rate when one is detected).
    pub fn bw(&self) -> f64 {
        if self.lt_use_bw { self.lt_bw } else { self.bw.get() }
    }

    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// `bbr_bdp`: ⌈bw · min_rtt · gain⌉ segments; the initial window before any RTT sample.
    pub fn bdp(&self, bw: f64, gain: f64) -> u64 {
        match self.min_rtt {
            None => INIT_CWND,
            Some(r) => (bw * r as f64 * 1e-9 * gain).ceil() as u64,
        }
    }

    /// `bbr_tso_segs_goal`: segments per send burst Linux budgets for (1 ms of pacing at
    /// `sk_pacing_shift` 10, at least 2 above 1.2 Mb/s, at most 127).
    #[inline]
    fn tso_segs_goal(&self, mss: u64) -> u64 {
        if mss == self.tso_mss { self.tso_goal } else { self.tso_segs_goal_at(mss) }
    }

    fn tso_segs_goal_at(&self, mss: u64) -> u64 {
        let min = if self.pacing < 1.2e6 / 8.0 { 1 } else { 2 };
        ((self.pacing / 1024.0) as u64 / mss.max(1)).max(min).min(127)
    }

    /// `bbr_quantization_budget`: room for three send bursts, an even window, and two more
    /// segments in the probing phase so that small BDPs probe too.
    /// `bbr_variant = "ns3"`: `TcpBbr::InFlight`'s three send quanta of one segment each
    /// (`SetSendQuantum`: ns-3 has no TSO), the window not made even.
    fn quantization_budget(&self, cwnd: u64, mss: u64) -> u64 {
        let mut c;
        if self.ns3 {
            c = cwnd + 3;
        } else {
            c = cwnd + 3 * self.tso_segs_goal(mss);
            c = (c + 1) & !1;
        }
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            c += 2;
        }
        c
    }

    /// `bbr_inflight`: BDP at `gain` with the quantization budget.
    pub fn inflight(&self, bw: f64, gain: f64, mss: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain), mss)
    }

    /// `bbr_rate_bytes_per_sec`: a rate in segments/s at `gain`, as bytes/s less the 1 % margin.
    fn rate_bytes(bw: f64, gain: f64, mss: u64) -> f64 {
        bw * mss as f64 * gain * PACING_MARGIN
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain · cwnd / (SRTT, or 1 ms before any sample).
    fn init_pacing_from_rtt(&mut self, tcb: &Tcb) {
        let rtt = match tcb.srtt {
            Some(s) => {
                self.has_seen_rtt = true;
                s.max(1000)
            }
            None => NS_PER_MS,
        };
        self.set_pacing(Self::rate_bytes(self.cwnd as f64 * 1e9 / rtt as f64, HIGH_GAIN, tcb.mss), tcb.mss);
    }

    /// The pacing rate is now `rate` bytes/s (segments of `mss` bytes).
    fn set_pacing(&mut self, rate: f64, mss: u64) {
        self.pacing = rate;
        self.tso_mss = mss;
        self.tso_goal = self.tso_segs_goal_at(mss);
    }

    /// `bbr_set_pacing_rate` (the draft §4.2.1): never lower the rate in Startup, before the
    /// pipe is estimated full.
    fn set_pacing_rate(&mut self, tcb: &Tcb, bw: f64, gain: f64) {
        if !self.has_seen_rtt && tcb.srtt.is_some() {
            self.init_pacing_from_rtt(tcb);
        }
        // The rate at (bw, gain, mss) as last computed, or computed now ([`Memo`]).
        let key = (bw.to_bits(), gain.to_bits(), tcb.mss);
        let rate = match self.rate_memo.get(key) {
            Some(bits) => f64::from_bits(bits),
            None => f64::from_bits(self.rate_memo.set(key, Self::rate_bytes(bw, gain, tcb.mss).to_bits())),
        };
        if (self.full_bw_reached || rate > self.pacing) && rate != self.pacing {
            self.set_pacing(rate, tcb.mss);
        }
    }

    /// `bbr_save_cwnd`: the last good cwnd, to restore after recovery or ProbeRTT.
    fn save_cwnd(&mut self) {
        if self.prev_state != CaState::Recovery && self.prev_state != CaState::Loss && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    fn random(&mut self, n: u64) -> u64 {
        // splitmix64
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }

    /// `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % PACING_GAINS.len();
        self.cycle_stamp = self.delivered_stamp;
    }

    /// `bbr_reset_probe_bw_mode`: a random phase other than the 3/4 one (the draft §4.3.4.4).
    fn reset_probe_bw_mode(&mut self) {
        if self.rng == 0 {
            self.rng = self.delivered_stamp ^ self.delivered.rotate_left(32) ^ 0x5EED;
        }
        self.mode = Mode::ProbeBw;
        self.cycle_idx = PACING_GAINS.len() - 1 - self.random(7) as usize;
        self.advance_cycle_phase();
    }

    fn reset_mode(&mut self) {
        if self.full_bw_reached { self.reset_probe_bw_mode() } else { self.mode = Mode::Startup }
    }

    fn reset_lt_interval(&mut self) {
        self.lt_last_stamp = self.delivered_stamp;
        self.lt_last_delivered = self.delivered;
        self.lt_last_lost = self.lost;
        self.lt_rtt_cnt = 0;
    }

    fn reset_lt(&mut self) {
        self.lt_bw = 0.0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_interval();
    }

    /// `bbr_lt_bw_interval_done`: two intervals of consistent rate (within 1/8 or 4 kb/s)
    /// and high loss: a policer; use their average for 48 rounds.
    fn lt_interval_done(&mut self, bw: f64, mss: u64) {
        if self.lt_bw > 0.0 {
            let diff = (bw - self.lt_bw).abs();
            if diff <= self.lt_bw / 8.0 || Self::rate_bytes(diff, 1.0, mss) <= 4000.0 / 8.0 {
                self.lt_bw = (bw + self.lt_bw) / 2.0;
                self.lt_use_bw = true;
                self.pacing_gain = 1.0;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_interval();
    }

    /// `bbr_lt_bw_sampling`: the long-term rate over 4-16 rounds that begin and end with a
    /// loss, when over 20 % (50/256) of what was delivered was lost.
    fn lt_sampling(&mut self, rs_losses: u64, app_limited: bool, mss: u64) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= 48 {
                    self.reset_lt();
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        if !self.lt_is_sampling {
            if rs_losses == 0 {
                return;
            }
            self.reset_lt_interval();
            self.lt_is_sampling = true;
        }
        if app_limited {
            return self.reset_lt();
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < 4 {
            return;
        }
        if self.lt_rtt_cnt > 16 {
            return self.reset_lt();
        }
        if rs_losses == 0 {
            return;
        }
        let lost = self.lost - self.lt_last_lost;
        let delivered = self.delivered - self.lt_last_delivered;
        if delivered == 0 || (lost << 8) < 50 * delivered {
            return;
        }
        // Linux times the interval in ms.
        let t = self.delivered_stamp / NS_PER_MS - self.lt_last_stamp / NS_PER_MS;
        if t < 1 {
            return;
        }
        self.lt_interval_done(delivered as f64 * 1e3 / t as f64, mss);
    }

    /// `bbr_update_bw` (the draft §4.5.2): round counting and the max filter.
    fn update_bw(&mut self, rs: &RateSample, mss: u64) {
        self.round_start = false;
        if !rs.valid() {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        // (ns-3's TcpBbr has no policer detector.) `lt_sampling` returns at once when it
        // neither samples nor uses the long-term rate and this ACK reports no loss: tested here,
        // on the common path, without the call.
        if !self.ns3 && (self.lt_use_bw || self.lt_is_sampling || rs.losses > 0) {
            self.lt_sampling(rs.losses, rs.is_app_limited, mss);
        }
        let bw = rs.rate();
        // An application-limited sample only if it raises the estimate.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(BW_WINDOW_ROUNDS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`: the largest excess of ACKed data over bw · epoch, kept
    /// over 5-10 rounds, added to the target window.
    fn update_ack_aggregation(&mut self, rs: &RateSample) {
        if rs.acked_sacked == 0 || !rs.valid() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= 5 {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch = self.delivered_stamp.saturating_sub(self.ack_epoch_stamp);
        let mut expected = (self.bw() * epoch as i64 as f64 * 1e-9) as u64; // (i64: the same double, ns < 2^63)
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + rs.acked_sacked >= 1 << 20 {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = self.delivered_stamp;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xFFFFF);
        let extra = (self.ack_epoch_acked - expected).min(self.cwnd);
        let e = &mut self.extra_acked[self.extra_acked_win_idx];
        *e = (*e).max(extra);
    }

    /// `bbr_ack_aggregation_cwnd` at bandwidth `bw` (= `self.bw()`).
    fn ack_aggregation_cwnd(&self, bw: f64) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        let max = (bw * 0.1) as u64; // bw · 100 ms (`bbr_extra_acked_max_us`)
        self.extra_acked[0].max(self.extra_acked[1]).min(max)
    }

    /// The target window of `bbr_set_cwnd` at bandwidth `bw`: `bbr_bdp` at `cwnd_gain` plus
    /// `bbr_ack_aggregation_cwnd`, with `bbr_quantization_budget`; recomputed only when one of
    /// its inputs changed since the last ACK ([`Memo`]).
    fn cwnd_target(&mut self, bw: f64, mss: u64) -> u64 {
        // The aggregation allowance's own inputs: its cap bw · 100 ms depends on bw (in the
        // key), the larger of the two windows' estimates and whether the pipe is full.
        let extra = self.extra_acked[0].max(self.extra_acked[1]);
        let probing = self.mode == Mode::ProbeBw && self.cycle_idx == 0;
        let tso = if self.ns3 { 0 } else { self.tso_segs_goal(mss) };
        let key = (bw.to_bits(), self.cwnd_gain.to_bits(), self.min_rtt, self.full_bw_reached, extra, tso, probing);
        if let Some(target) = self.target.get(key) {
            return target;
        }
        let target = self.quantization_budget(self.bdp(bw, self.cwnd_gain) + self.ack_aggregation_cwnd(bw), mss);
        self.target.set(key, target)
    }

    /// `bbr_is_next_cycle_phase` (the draft §4.3.4.3).
    fn is_next_cycle_phase(&self, rs: &RateSample, prior_inflight: u64, mss: u64) -> bool {
        let full_length = self.delivered_stamp.saturating_sub(self.cycle_stamp) > self.min_rtt.unwrap_or(u64::MAX);
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        // (no pacing delay is modelled ahead of the sender: packets in the network at the
        // earliest departure time are those in flight, plus a burst when probing)
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            // (ns-3's `IsNextCyclePhase` compares the prior in-flight alone.)
            let inflight = prior_inflight + if self.ns3 { 0 } else { self.tso_segs_goal(mss) };
            return full_length && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain, mss));
        }
        full_length || prior_inflight <= self.inflight(bw, 1.0, mss)
    }

    /// `bbr_check_full_bw_reached` (the draft §4.3.2.2 "full pipe").
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * 1.25 {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= 3;
    }

    /// `bbr_check_drain` (the draft §4.3.3).
    fn check_drain(&mut self, tcb: &mut Tcb, inflight: u64) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            tcb.ssthresh = self.inflight(self.max_bw(), 1.0, tcb.mss) * tcb.mss;
        }
        if self.mode == Mode::Drain && inflight <= self.inflight(self.max_bw(), 1.0, tcb.mss) {
            self.reset_probe_bw_mode();
        }
    }

    /// `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, now: Nanos) {
        if !self.probe_rtt_done.is_some_and(|d| now > d) {
            return;
        }
        self.min_rtt_stamp = now;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    /// `bbr_update_min_rtt` (the draft §4.3.5 ProbeRTT and §4.5.3 min RTT).
    fn update_min_rtt(&mut self, rs: &RateSample) {
        let now = rs.now;
        let expired = now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(r) = rs.rtt {
            if self.min_rtt.is_none_or(|m| r <= m) || expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            if self.probe_rtt_done.is_none() && rs.inflight <= MIN_CWND {
                self.probe_rtt_done = Some(now + PROBE_RTT_TIME);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered;
            } else if self.probe_rtt_done.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(now);
                }
            }
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (if self.lt_use_bw { 1.0 } else { PACING_GAINS[self.cycle_idx] }, CWND_GAIN),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: packet conservation in the first round of
    /// recovery, the saved window restored when recovery ends. Returns whether conservation
    /// set the window.
    fn recover_or_restore(&mut self, tcb: &Tcb, rs: &RateSample) -> bool {
        let state = tcb.state;
        let mut cwnd = self.cwnd;
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        let in_rec = |s: CaState| matches!(s, CaState::Recovery | CaState::Loss);
        // (both transitions need a change of state: most ACKs skip them at one comparison)
        if state != self.prev_state {
            if state == CaState::Recovery {
                self.packet_conservation = true;
                self.next_rtt_delivered = self.delivered;
                cwnd = rs.inflight + rs.acked_sacked;
            } else if in_rec(self.prev_state) && !in_rec(state) {
                if !self.ns3 {
                    cwnd = cwnd.max(self.prior_cwnd);
                } else if self.prev_state == CaState::Recovery {
                    // ns-3: `TcpBbr::RestoreCwnd` on CA_EVENT_COMPLETE_CWR, then
                    // `TcpSocketBase::ProcessAck` sets cWnd = ssThresh as it leaves recovery.
                    cwnd = tcb.ssthresh / tcb.mss.max(1);
                }
                // (ns-3, after a timeout: `CA_LOSS` → `CA_OPEN` sends no event; nothing restored.)
                self.packet_conservation = false;
            }
            self.prev_state = state;
        }
        if self.packet_conservation {
            self.cwnd = cwnd.max(rs.inflight + rs.acked_sacked);
            return true;
        }
        self.cwnd = cwnd;
        false
    }

    /// `bbr_set_cwnd` (the draft §4.2.3).
    fn set_cwnd(&mut self, tcb: &Tcb, rs: &RateSample, bw: f64) {
        let acked = rs.acked_sacked;
        if acked > 0 && !self.recover_or_restore(tcb, rs) {
            let target = self.cwnd_target(bw, tcb.mss);
            if self.full_bw_reached {
                self.cwnd = (self.cwnd + acked).min(target);
            } else if self.cwnd < target || self.delivered < INIT_CWND {
                self.cwnd += acked;
            }
            self.cwnd = self.cwnd.max(MIN_CWND);
        }
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(MIN_CWND);
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    /// `bbr_main`: update the model, then the pacing rate and the window.
    fn on_rate_sample(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        if self.pacing == 0.0 {
            self.init_pacing_from_rtt(tcb);
            self.ack_epoch_stamp = rs.now;
        }
        self.delivered = rs.delivered_total;
        self.lost += rs.losses;
        if rs.acked_sacked > 0 {
            self.delivered_stamp = rs.now;
        }
        self.update_bw(rs, tcb.mss);
        self.update_ack_aggregation(rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs, rs.inflight + rs.acked_sacked, tcb.mss) {
            self.advance_cycle_phase();
        }
        self.check_full_bw_reached(rs);
        self.check_drain(tcb, rs.inflight);
        self.update_min_rtt(rs);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(tcb, bw, self.pacing_gain);
        self.set_cwnd(tcb, rs, bw);
        let max = tcb.max_cwnd / tcb.mss.max(1);
        tcb.cwnd = self.cwnd.min(max.max(1)) * tcb.mss;
    }

    /// `bbr_ssthresh`: save the window; BBR keeps ssthresh (Linux: infinite until Drain).
    fn ssthresh_on_loss(&mut self, tcb: &Tcb) -> u64 {
        self.save_cwnd();
        tcb.ssthresh
    }

    /// Recovery starts from BBR's window; `on_rate_sample` of the same ACK sets it.
    fn cwnd_after_fast_retransmit(&self, tcb: &Tcb, _ssthresh: u64) -> u64 {
        tcb.cwnd
    }

    /// `bbr_set_state(TCP_CA_Loss)` after `tcp_enter_loss` set cwnd to one segment: the
    /// timeout ends a round, restarts full-pipe detection and feeds the policer detector a loss
    /// (`bbr_variant = "ns3"`: only the round).
    fn on_timeout(&mut self, tcb: &mut Tcb) {
        self.cwnd = 1;
        tcb.cwnd = tcb.mss;
        self.prev_state = CaState::Loss;
        self.round_start = true;
        if !self.ns3 {
            // (ns-3's `CongestionStateSet(CA_LOSS)` only saves the window and starts a round.)
            self.full_bw = 0.0;
            self.lt_sampling(1, false, tcb.mss);
        }
    }

    fn on_ack(&mut self, _tcb: &mut Tcb, _ack: &AckInfo) {}

    fn pacing_rate(&self, _tcb: &Tcb) -> Option<f64> {
        (self.pacing > 0.0).then_some(self.pacing)
    }
}

#[cfg(test)]
mod tests;
