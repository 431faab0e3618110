//! BBR v3 (Cardwell, Swett, Beshay, *BBR Congestion Control*, draft-ietf-ccwg-bbr-01, "the
//! draft" below; Linux's `tcp_bbr.c` of the v3 branch, google/bbr `v3`). It keeps v1's model
//! (max bandwidth, min RTT; `cc/bbr.rs`) and bounds it with what loss says: `inflight_hi`, the
//! volume in flight at which a probe saw more than 2 % loss, and `bw_lo`/`inflight_lo`, cut by
//! β = 0.7 per round with loss outside probing (the draft §5.5.10 "Loss-based bounds"). ProbeBW
//! is four phases:
//!
//! | phase  | pacing gain | cwnd gain | leaves when (draft section, Linux function)                                   |
//! |--------|-------------|-----------|-------------------------------------------------------------------------------|
//! | Down   | 0.9         | 2         | in flight ≤ BDP and ≤ 85 % of inflight_hi → Cruise; time to probe → Refill (§5.3.3.6, `bbr_update_cycle_phase`) |
//! | Cruise | 1.0         | 2         | time to probe: 2-3 s, or the Reno-coexistence round count (§5.3.3.5, `bbr_is_time_to_probe_bw`) |
//! | Refill | 1.0         | 2         | one round, the lower bounds reset (§5.3.3.3, `bbr_start_bw_probe_refill`)      |
//! | Up     | 1.25        | 2.25      | a min RTT and in flight above 1.25·BDP, or loss > 2 % (§5.3.3.4, `bbr_is_inflight_too_high`) |
//!
//! Startup (pacing gain 2.77 = 4 ln 2, cwnd gain 2) ends at a bandwidth plateau (3 rounds
//! < 25 % growth) or at high loss (a round in recovery with ≥ 6 loss events and > 2 % lost,
//! §5.3.1.3 `bbr_check_loss_too_high_in_startup`); Drain paces at 0.35; ProbeRTT every 5 s
//! holds cwnd at half the BDP for 200 ms and a round (§5.3.4).
//!
//! ECN: the draft and Linux v3 respond to CE marks only with an accurate, per-packet echo
//! (DCTCP/L4S-style ECN, Linux's `ecn_eligible`); burstlab's receivers echo RFC 3168 ECE until
//! CWR, which v3 does not use as a bound, so, as in Linux with classic ECN, only loss bounds the
//! model here. Not modelled, as in `bbr.rs`: restart from idle and undo.
use super::bbr::{Memo, MIN_CWND, PROBE_RTT_TIME};
use super::CongestionControl;
use crate::tcp::rate_sample::RateSample;
use crate::tcp::{AckInfo, CaState, Tcb};
use crate::time::{Nanos, NS_PER_MS, NS_PER_S};

/// Startup's pacing gain, 4 ln 2 (the draft §5.3.1.1 BBRStartupPacingGain).
pub const STARTUP_PACING_GAIN: f64 = 2.77;
/// Drain's pacing gain (the draft §5.3.2, BBRDrainPacingGain).
pub const DRAIN_PACING_GAIN: f64 = 0.35;
/// The default cwnd gain (BBRDefaultCwndGain), and ProbeBW_UP's (§5.3.3.4).
pub const CWND_GAIN: f64 = 2.0;
pub const UP_CWND_GAIN: f64 = 2.25;
/// ProbeBW's pacing gains (§5.3.3).
pub const DOWN_GAIN: f64 = 0.9;
pub const UP_GAIN: f64 = 1.25;
/// The loss rate a probe tolerates (BBRLossThresh), the cut per lossy round (BBRBeta), the
/// headroom left below inflight_hi while cruising (BBRHeadroom) (§2.7).
pub const LOSS_THRESH: f64 = 0.02;
pub const BETA: f64 = 0.7;
pub const HEADROOM: f64 = 0.15;
/// Loss events in a round that end Startup (BBRStartupFullLossCnt, §5.3.1.3).
pub const STARTUP_FULL_LOSS_CNT: u32 = 6;
/// ProbeRTT: every 5 s, at half the BDP (ProbeRTTInterval, ProbeRTTCwndGain, §5.3.4).
pub const PROBE_RTT_INTERVAL: Nanos = 5 * NS_PER_S;
pub const PROBE_RTT_CWND_GAIN: f64 = 0.5;
/// The min RTT filter (MinRTTFilterLen, §5.5.9).
pub const MIN_RTT_WINDOW: Nanos = 10 * NS_PER_S;
const INIT_CWND: u64 = 10;
const INF: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    Down,
    Cruise,
    Refill,
    Up,
    ProbeRtt,
}

impl Mode {
    fn probe_bw(self) -> bool {
        matches!(self, Mode::Down | Mode::Cruise | Mode::Refill | Mode::Up)
    }
}

/// Where the ACKs stand relative to a bandwidth probe (the draft's BBR.ack_phase).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
    Refilling,
}

#[derive(Clone, Debug)]
pub struct Bbr3 {
    pub mode: Mode,
    /// Max bandwidth of the current and the previous ProbeBW cycle, segments/s (the draft's
    /// MaxBwFilterLen = 2 cycles; Linux `bw_hi[2]`).
    bw_hi: [f64; 2],
    /// Lower bound from loss, segments/s (∞: none) and the latest round's samples.
    pub bw_lo: f64,
    bw_latest: f64,
    /// Upper and lower bounds on what is in flight, segments (u64::MAX: none).
    pub inflight_hi: u64,
    pub inflight_lo: u64,
    inflight_latest: u64,
    pub min_rtt: Option<Nanos>,
    min_rtt_stamp: Nanos,
    probe_rtt_min: Option<Nanos>,
    probe_rtt_min_stamp: Nanos,
    probe_rtt_done: Option<Nanos>,
    probe_rtt_round_done: bool,
    /// Packet-timed rounds (§5.5.1).
    pub round_count: u64,
    next_round_delivered: u64,
    pub round_start: bool,
    /// Loss rounds (§5.5.10.2): per-round loss accounting.
    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    loss_events_in_round: u32,
    pub filled_pipe: bool,
    full_bw: f64,
    full_bw_cnt: u32,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    pacing: f64,
    /// `bbr_tso_segs_goal` at `pacing` for segments of `tso_mss` bytes, set with the rate.
    tso_goal: u64,
    tso_mss: u64,
    /// The window rules' last results and their inputs ([`Memo`]): `set_cwnd`'s BBRInflight
    /// at cwnd_gain ((bw, gain) as bits, min RTT, segments per burst, whether in Up), and the
    /// Reno-coexistence BDP of `time_to_probe` (bw as bits, min RTT).
    inflight_memo: Memo<(u64, u64, Option<Nanos>, u64, bool)>,
    bdp_memo: Memo<(u64, Option<Nanos>)>,
    pub cwnd: u64,
    prior_cwnd: u64,
    packet_conservation: bool,
    prev_state: CaState,
    /// Bandwidth probing (§5.3.3).
    ack_phase: AckPhase,
    bw_probe_samples: bool,
    bw_probe_up_rounds: u32,
    bw_probe_up_acks: u64,
    probe_up_cnt: u64,
    bw_probe_wait: Nanos,
    rounds_since_bw_probe: u64,
    cycle_stamp: Nanos,
    delivered: u64,
    rng: u64,
}

impl Bbr3 {
    pub fn new(init_cwnd: u64) -> Self {
        Bbr3 {
            mode: Mode::Startup,
            bw_hi: [0.0; 2],
            bw_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_hi: INF,
            inflight_lo: INF,
            inflight_latest: 0,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_min: None,
            probe_rtt_min_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_in_round: false,
            loss_events_in_round: 0,
            filled_pipe: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            pacing_gain: STARTUP_PACING_GAIN,
            cwnd_gain: CWND_GAIN,
            pacing: 0.0,
            tso_goal: 1,
            tso_mss: 0,
            inflight_memo: Memo::default(),
            bdp_memo: Memo::default(),
            cwnd: init_cwnd,
            prior_cwnd: 0,
            packet_conservation: false,
            prev_state: CaState::Open,
            ack_phase: AckPhase::Init,
            bw_probe_samples: false,
            bw_probe_up_rounds: 0,
            bw_probe_up_acks: 0,
            probe_up_cnt: INF,
            bw_probe_wait: 0,
            rounds_since_bw_probe: 0,
            cycle_stamp: 0,
            delivered: 0,
            rng: 0,
        }
    }

    pub fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// The bandwidth the model uses: max_bw bounded by bw_lo (§5.5.10.3 BBRBoundBWForModel).
    pub fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_lo)
    }

    /// BBRBDPMultiple: ⌈bw · min_rtt · gain⌉ segments (the initial window before an RTT).
    pub fn bdp(&self, bw: f64, gain: f64) -> u64 {
        match self.min_rtt {
            None => INIT_CWND,
            Some(r) => (bw * r as f64 * 1e-9 * gain).ceil() as u64,
        }
    }

    /// BBRInflight with the quantization budget (§5.6.4.2; Linux `bbr_quantization_budget`:
    /// 3 send bursts, even, +2 in Up).
    pub fn inflight(&self, bw: f64, gain: f64, mss: u64) -> u64 {
        let mut c = self.bdp(bw, gain) + 3 * self.tso_segs_goal(mss);
        c = (c + 1) & !1;
        if self.mode == Mode::Up {
            c += 2;
        }
        c
    }

    /// Segments per send burst (`bbr_tso_segs_goal`: 1 ms at the pacing rate, at least 2 above
    /// 1.2 Mb/s, at most 127), kept with the pacing rate for the usual segment size.
    #[inline]
    fn tso_segs_goal(&self, mss: u64) -> u64 {
        if mss == self.tso_mss { self.tso_goal } else { self.tso_segs_goal_at(mss) }
    }

    fn tso_segs_goal_at(&self, mss: u64) -> u64 {
        (((self.pacing / 1024.0) as u64) / mss.max(1)).max(if self.pacing < 1.2e6 / 8.0 { 1 } else { 2 }).min(127)
    }

    /// The pacing rate is now `rate` bytes/s (segments of `mss` bytes).
    fn set_pacing(&mut self, rate: f64, mss: u64) {
        self.pacing = rate;
        self.tso_mss = mss;
        self.tso_goal = self.tso_segs_goal_at(mss);
    }

    /// BBRInflightWithHeadroom: inflight_hi less 15 % (at least the minimum window).
    pub fn inflight_with_headroom(&self) -> u64 {
        if self.inflight_hi == INF {
            return INF;
        }
        let h = ((HEADROOM * self.inflight_hi as f64).max(1.0)) as u64;
        self.inflight_hi.saturating_sub(h).max(MIN_CWND)
    }

    fn random(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn start_round(&mut self) {
        self.next_round_delivered = self.delivered;
    }

    /// BBRUpdateRound (§5.5.1).
    fn update_round(&mut self, rs: &RateSample) {
        self.round_start = false;
        if rs.acked_sacked > 0 && rs.prior_delivered >= self.next_round_delivered && rs.valid() {
            self.start_round();
            self.round_count += 1;
            self.rounds_since_bw_probe += 1;
            self.round_start = true;
        }
    }

    /// BBRUpdateMaxBw (§5.5.5): the cycle's max, app-limited samples only if they raise it.
    fn update_max_bw(&mut self, rs: &RateSample, bw: f64) {
        if !rs.valid() {
            return;
        }
        if bw >= self.max_bw() || !rs.is_app_limited {
            self.bw_hi[1] = self.bw_hi[1].max(bw);
        }
    }

    /// BBRAdvanceMaxBwFilter: a new cycle slot.
    fn advance_max_bw_filter(&mut self) {
        self.bw_hi[0] = self.bw_hi[1];
        self.bw_hi[1] = 0.0;
    }

    /// BBRUpdateLatestDeliverySignals and the loss round (§5.5.10.2).
    fn update_latest_signals(&mut self, rs: &RateSample, rate: f64) {
        self.loss_round_start = false;
        if !rs.valid() {
            return;
        }
        self.bw_latest = self.bw_latest.max(rate);
        self.inflight_latest = self.inflight_latest.max(rs.delivered);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = self.delivered;
            self.loss_round_start = true;
        }
    }

    /// BBRIsInflightTooHigh (§5.5.10.2, Linux `bbr_is_inflight_too_high`): more than 2 % of
    /// what was in flight when the sampled segment left was lost.
    fn inflight_too_high(rs: &RateSample) -> bool {
        rs.lost > 0 && rs.tx_in_flight > 0 && rs.lost as f64 > rs.tx_in_flight as f64 * LOSS_THRESH
    }

    /// BBRHandleInflightTooHigh: inflight_hi from the loss, and a probe ends.
    fn handle_inflight_too_high(&mut self, rs: &RateSample, mss: u64) {
        self.bw_probe_samples = false;
        if !rs.is_app_limited {
            let target = self.inflight(self.max_bw(), 1.0, mss);
            self.inflight_hi = rs.tx_in_flight.max((BETA * target as f64) as u64);
        }
        if self.mode == Mode::Up {
            self.start_down(rs.now);
        }
    }

    /// BBRAdaptUpperBounds (§5.5.10.2).
    fn adapt_upper_bounds(&mut self, rs: &RateSample, mss: u64) {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode.probe_bw() && !rs.is_app_limited {
                self.advance_max_bw_filter();
            }
        }
        if self.bw_probe_samples && Self::inflight_too_high(rs) {
            return self.handle_inflight_too_high(rs, mss);
        }
        if self.inflight_hi == INF {
            return;
        }
        if rs.tx_in_flight > self.inflight_hi {
            self.inflight_hi = rs.tx_in_flight;
        }
        if self.mode == Mode::Up {
            self.probe_inflight_hi_upward(rs);
        }
    }

    /// BBRProbeInflightHiUpward and BBRRaiseInflightHiSlope: inflight_hi grows 1, 2, 4, ...
    /// segments per round while the window is full.
    fn probe_inflight_hi_upward(&mut self, rs: &RateSample) {
        if self.cwnd < self.inflight_hi {
            return; // not using the whole of inflight_hi
        }
        self.bw_probe_up_acks += rs.acked_sacked;
        if self.bw_probe_up_acks >= self.probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.probe_up_cnt;
            self.inflight_hi += delta;
        }
        if self.round_start {
            self.raise_inflight_hi_slope();
        }
    }

    fn raise_inflight_hi_slope(&mut self) {
        let growth = 1u64 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.probe_up_cnt = (self.cwnd / growth).max(1);
    }

    /// BBRAdaptLowerBoundsFromCongestion (§5.5.10.3): once per loss round with loss, outside
    /// probing, bw_lo and inflight_lo fall to max(latest, β · bound).
    fn adapt_lower_bounds(&mut self) {
        if matches!(self.mode, Mode::Refill | Mode::Up) {
            return;
        }
        if self.loss_in_round {
            if self.bw_lo == f64::INFINITY {
                self.bw_lo = self.max_bw();
            }
            if self.inflight_lo == INF {
                self.inflight_lo = self.cwnd;
            }
            self.bw_lo = self.bw_latest.max(BETA * self.bw_lo);
            self.inflight_lo = self.inflight_latest.max((BETA * self.inflight_lo as f64) as u64);
        }
    }

    fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = INF;
    }

    /// The congestion signals of the round (BBRUpdateCongestionSignals, §5.5.10.3).
    fn update_congestion_signals(&mut self, rs: &RateSample) {
        if rs.losses > 0 {
            self.loss_in_round = true;
            self.loss_events_in_round += 1;
        }
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds();
        self.loss_in_round = false;
    }

    /// BBRAdvanceLatestDeliverySignals: a new loss round starts from this sample.
    fn advance_latest_signals(&mut self, rs: &RateSample, rate: f64) {
        if self.loss_round_start {
            self.bw_latest = rate;
            self.inflight_latest = rs.delivered;
        }
    }

    /// BBRCheckStartupDone: full bandwidth or high loss (§5.3.1.2-3).
    fn check_startup_done(&mut self, rs: &RateSample, state: CaState, mss: u64) {
        if self.mode != Mode::Startup {
            return;
        }
        if self.round_start && !rs.is_app_limited && !self.filled_pipe {
            if self.max_bw() >= self.full_bw * 1.25 {
                self.full_bw = self.max_bw();
                self.full_bw_cnt = 0;
            } else {
                self.full_bw_cnt += 1;
                self.filled_pipe = self.full_bw_cnt >= 3;
            }
        }
        // BBRCheckStartupHighLoss: a round in recovery with many loss events and > 2 % lost.
        if self.loss_round_start && matches!(state, CaState::Recovery | CaState::Loss)
            && self.loss_events_in_round >= STARTUP_FULL_LOSS_CNT && Self::inflight_too_high(rs)
        {
            self.inflight_hi = self.bdp(self.max_bw(), 1.0).max(self.inflight_latest.max(1));
            self.filled_pipe = true;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
        if self.filled_pipe {
            self.mode = Mode::Drain;
        }
        let _ = mss;
    }

    /// BBRCheckDrainDone (§5.3.2).
    fn check_drain_done(&mut self, rs: &RateSample, mss: u64) {
        if self.mode == Mode::Drain && rs.inflight <= self.inflight(self.bw(), 1.0, mss) {
            self.start_down(rs.now);
        }
    }

    /// BBRStartProbeBW_DOWN (§5.3.3.6): a new cycle; wait 2-3 s before the next probe.
    fn start_down(&mut self, now: Nanos) {
        if self.rng == 0 {
            self.rng = now ^ self.delivered.rotate_left(32) ^ 0xB3;
        }
        self.bw_probe_up_cnt_reset();
        self.bw_probe_wait = 2 * NS_PER_S + (self.random() * NS_PER_S as f64) as Nanos;
        self.rounds_since_bw_probe = 0;
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.mode = Mode::Down;
    }

    fn bw_probe_up_cnt_reset(&mut self) {
        self.probe_up_cnt = INF;
    }

    /// BBRStartProbeBW_REFILL (§5.3.3.3).
    fn start_refill(&mut self) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acks = 0;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.mode = Mode::Refill;
    }

    /// BBRStartProbeBW_UP (§5.3.3.4).
    fn start_up(&mut self, now: Nanos) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.cycle_stamp = now;
        self.mode = Mode::Up;
        self.raise_inflight_hi_slope();
    }

    /// BBRIsRenoCoexistenceProbeTime and the 2-3 s wait (§5.3.3.5).
    fn time_to_probe(&mut self, now: Nanos, mss: u64) -> bool {
        // BBRTargetInflight = min(BDP, cwnd), at most 63 rounds
        let _ = mss;
        let bw = self.bw();
        let key = (bw.to_bits(), self.min_rtt);
        let bdp = match self.bdp_memo.get(key) {
            Some(b) => b,
            None => self.bdp_memo.set(key, self.bdp(bw, 1.0)),
        };
        let reno_rounds = bdp.min(self.cwnd).min(63);
        if now.saturating_sub(self.cycle_stamp) > self.bw_probe_wait || self.rounds_since_bw_probe >= reno_rounds {
            self.start_refill();
            return true;
        }
        false
    }

    /// BBRUpdateProbeBWCyclePhase (§5.3.3.6).
    fn update_cycle_phase(&mut self, rs: &RateSample, mss: u64) {
        if !self.filled_pipe || !self.mode.probe_bw() {
            return;
        }
        let now = rs.now;
        match self.mode {
            Mode::Down => {
                if self.time_to_probe(now, mss) {
                    return;
                }
                // BBRIsTimeToCruise
                let inflight = rs.inflight;
                if inflight <= self.inflight_with_headroom() && inflight <= self.inflight(self.max_bw(), 1.0, mss) {
                    self.mode = Mode::Cruise;
                }
            }
            Mode::Cruise => {
                self.time_to_probe(now, mss);
            }
            Mode::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_up(now);
                }
            }
            Mode::Up => {
                // BBRIsTimeToGoDown: a min RTT of probing and the window at 1.25·BDP
                let long = now.saturating_sub(self.cycle_stamp) > self.min_rtt.unwrap_or(0);
                if long && rs.inflight + rs.acked_sacked >= self.inflight(self.max_bw(), UP_GAIN, mss) {
                    self.start_down(now);
                }
            }
            _ => {}
        }
    }

    /// BBRUpdateMinRTT and ProbeRTT (§5.3.4, §5.5.9).
    fn update_min_rtt(&mut self, rs: &RateSample, mss: u64) {
        let now = rs.now;
        let probe_expired = now > self.probe_rtt_min_stamp + PROBE_RTT_INTERVAL;
        if let Some(r) = rs.rtt {
            if self.probe_rtt_min.is_none_or(|m| r < m) || probe_expired {
                self.probe_rtt_min = Some(r);
                self.probe_rtt_min_stamp = now;
            }
        }
        let expired = now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if self.probe_rtt_min.is_some_and(|p| self.min_rtt.is_none_or(|m| p < m)) || expired {
            self.min_rtt = self.probe_rtt_min;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
        if probe_expired && self.mode != Mode::ProbeRtt && self.min_rtt.is_some() {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        if self.mode == Mode::ProbeRtt {
            let target = self.probe_rtt_cwnd(mss);
            if self.probe_rtt_done.is_none() && rs.inflight <= target {
                self.probe_rtt_done = Some(now + PROBE_RTT_TIME);
                self.probe_rtt_round_done = false;
                self.start_round();
            } else if let Some(done) = self.probe_rtt_done {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    // BBRExitProbeRTT
                    self.probe_rtt_min_stamp = now;
                    self.reset_lower_bounds();
                    self.cwnd = self.cwnd.max(self.prior_cwnd);
                    if self.filled_pipe {
                        self.start_down(now);
                        self.mode = Mode::Cruise;
                    } else {
                        self.mode = Mode::Startup;
                    }
                }
            }
        }
    }

    fn probe_rtt_cwnd(&self, mss: u64) -> u64 {
        let _ = mss;
        self.bdp(self.bw(), PROBE_RTT_CWND_GAIN).max(MIN_CWND)
    }

    fn save_cwnd(&mut self) {
        if !matches!(self.prev_state, CaState::Recovery | CaState::Loss) && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (STARTUP_PACING_GAIN, CWND_GAIN),
            Mode::Drain => (DRAIN_PACING_GAIN, CWND_GAIN),
            Mode::Down => (DOWN_GAIN, CWND_GAIN),
            Mode::Cruise | Mode::Refill => (1.0, CWND_GAIN),
            Mode::Up => (UP_GAIN, UP_CWND_GAIN),
            Mode::ProbeRtt => (1.0, PROBE_RTT_CWND_GAIN),
        };
    }

    /// BBRSetCwnd with recovery's packet conservation and the model's bounds (§5.6.4).
    fn set_cwnd(&mut self, tcb: &Tcb, rs: &RateSample) {
        let acked = rs.acked_sacked;
        let state = tcb.state;
        let in_rec = |s: CaState| matches!(s, CaState::Recovery | CaState::Loss);
        // §5.6.4.4: packet conservation in the first round of recovery, restore on exit.
        if rs.losses > 0 {
            self.cwnd = self.cwnd.saturating_sub(rs.losses).max(1);
        }
        if state == CaState::Recovery && self.prev_state != CaState::Recovery {
            self.packet_conservation = true;
            self.start_round();
            self.cwnd = rs.inflight + acked.max(1);
        } else if in_rec(self.prev_state) && !in_rec(state) {
            self.cwnd = self.cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        if self.round_start {
            self.packet_conservation = false;
        }
        self.prev_state = state;
        if self.packet_conservation {
            self.cwnd = self.cwnd.max(rs.inflight + acked);
        } else if acked > 0 {
            let bw = self.bw();
            let key = (bw.to_bits(), self.cwnd_gain.to_bits(), self.min_rtt, self.tso_segs_goal(tcb.mss), self.mode == Mode::Up);
            let max_inflight = match self.inflight_memo.get(key) {
                Some(m) => m,
                None => self.inflight_memo.set(key, self.inflight(bw, self.cwnd_gain, tcb.mss)),
            };
            if self.filled_pipe {
                self.cwnd = (self.cwnd + acked).min(max_inflight);
            } else if self.cwnd < max_inflight || self.delivered < INIT_CWND {
                self.cwnd += acked;
            }
            self.cwnd = self.cwnd.max(MIN_CWND);
        }
        // BBRBoundCwndForProbeRTT and BBRBoundCwndForModel (§5.6.4.5-6).
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd(tcb.mss));
        }
        let cap = match self.mode {
            Mode::Down | Mode::Refill | Mode::Up => self.inflight_hi,
            Mode::ProbeRtt | Mode::Cruise => self.inflight_with_headroom(),
            _ => INF,
        };
        self.cwnd = self.cwnd.min(cap.min(self.inflight_lo).max(MIN_CWND));
    }

    /// BBRSetPacingRate (§5.6.2): never lower before the pipe is full; 1 % margin.
    fn set_pacing_rate(&mut self, tcb: &Tcb) {
        let rate = self.bw() * tcb.mss as i64 as f64 * self.pacing_gain * 0.99; // (i64: the same double)
        if self.filled_pipe || rate > self.pacing {
            self.set_pacing(rate, tcb.mss);
        }
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    /// BBRUpdateOnACK (§5.2.3): the model, then the control parameters.
    fn on_rate_sample(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        if self.pacing == 0.0 {
            // BBRInitPacingRate: StartupPacingGain · InitialCwnd / SRTT (1 ms before any).
            let rtt = tcb.srtt.unwrap_or(NS_PER_MS).max(1000);
            self.set_pacing(STARTUP_PACING_GAIN * self.cwnd as f64 * tcb.mss as f64 * 1e9 / rtt as f64, tcb.mss);
        }
        self.delivered = rs.delivered_total;
        self.update_round(rs);
        // The sample's rate (segments/s), computed once for the three rules that read it.
        let rate = rs.rate();
        self.update_latest_signals(rs, rate);
        self.update_max_bw(rs, rate);
        self.adapt_upper_bounds(rs, tcb.mss);
        self.update_cycle_phase(rs, tcb.mss);
        self.update_congestion_signals(rs);
        self.check_startup_done(rs, tcb.state, tcb.mss);
        self.check_drain_done(rs, tcb.mss);
        self.update_min_rtt(rs, tcb.mss);
        self.advance_latest_signals(rs, rate);
        self.update_gains();
        self.set_pacing_rate(tcb);
        self.set_cwnd(tcb, rs);
        let max = tcb.max_cwnd / tcb.mss.max(1);
        tcb.cwnd = self.cwnd.min(max.max(1)) * tcb.mss;
    }

    /// Loss recovery starts (§5.6.4.4 BBROnEnterRecovery's saved window).
    fn ssthresh_on_loss(&mut self, tcb: &Tcb) -> u64 {
        self.save_cwnd();
        tcb.ssthresh
    }

    fn cwnd_after_fast_retransmit(&self, tcb: &Tcb, _ssthresh: u64) -> u64 {
        tcb.cwnd
    }

    /// A timeout (§5.6.4.4 BBROnEnterRTO... Linux `bbr_set_state(TCP_CA_Loss)`): one segment,
    /// the round ends, and the probe's loss counts against inflight_hi.
    fn on_timeout(&mut self, tcb: &mut Tcb) {
        self.cwnd = 1;
        tcb.cwnd = tcb.mss;
        self.prev_state = CaState::Loss;
        self.round_start = true;
        self.full_bw = 0.0;
        self.loss_in_round = true;
    }

    fn on_ack(&mut self, _tcb: &mut Tcb, _ack: &AckInfo) {}

    fn pacing_rate(&self, _tcb: &Tcb) -> Option<f64> {
        (self.pacing > 0.0).then_some(self.pacing)
    }
}

#[cfg(test)]
mod tests;
