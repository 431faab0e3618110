//! CUBIC (RFC 9438), with HyStart (Ha & Rhee, "Taming the elephants: New TCP slow start",
//! Computer Networks 55(9), 2011) as Linux and ns-3 implement it.
//!
//! Congestion avoidance, windows in segments, t the time since the epoch (the first ACK in
//! avoidance after a congestion event) began:
//!
//! - W_cubic(t) = C·(t − K)³ + W_max (§4.2, eq. 1), K = ∛((W_max − cwnd_epoch)/C) (eq. 2;
//!   0 with W_max = cwnd_epoch when cwnd_epoch ≥ W_max, and after a timeout, §4.8);
//! - target = W_cubic(t + SRTT) bounded to [cwnd, 1.5·cwnd] (§4.2);
//! - Reno-friendly region (§4.3): W_est = cwnd_epoch + α_cubic·(segments acknowledged)/cwnd,
//!   α_cubic = 3(1 − β)/(1 + β), 1 once W_est ≥ cwnd_prior; if W_cubic(t) < W_est, cwnd = W_est;
//! - concave and convex regions (§4.4-4.5): cwnd += (target − cwnd)/cwnd per ACK (per
//!   acknowledged segment with `abc`, as Linux and ns-3 count);
//! - congestion event (§4.6-4.7): ssthresh = β·FlightSize (β·cwnd with `ssthresh_rule =
//!   "cwnd"`, as Linux and ns-3, in whole segments), at least 2 segments; W_max = cwnd, or
//!   cwnd·(1 + β)/2 with fast convergence when cwnd < W_max; the epoch ends.
//!
//! Slow start is RFC 5681's (RFC 3465 byte counting with `abc`), left early by HyStart:
//! each round (the ACKs of one window), once cwnd ≥ 16 segments, slow start ends
//! (ssthresh = cwnd) when the ACKs of the round arrive as a train (each within 2 ms of the
//! previous) lasting longer than a threshold, or when the smallest of the first 8 RTTs of the
//! round exceeds the minimum RTT by a threshold:
//!
//! | `hystart` | train longer than | delay increase | samples ignored after an epoch starts |
//! |---|---|---|---|
//! | `linux` (Linux 6.x `tcp_cubic.c`) | min RTT / 2 | clamp(min RTT / 8, 4 ms, 16 ms) | 1 s |
//! | `ns3` (ns-3 3.44 `TcpCubic`) | min RTT | clamp(min RTT, 4 ms, 1 s) | 10 ms |
//!
//! Growth only while the flow is cwnd-limited (RFC 9438 §5.8 via RFC 7661; Linux's
//! `tcp_is_cwnd_limited`, ns-3's `m_isCwndLimited`).
use super::cubic_ns3::Ns3Cubic;
use super::cubic_update::{cnt_toward, reno_estimate_cnt};
use super::{may_grow, CongestionControl};
use crate::tcp::config::{CubicVariant, Hystart, TcpConfig};
use crate::tcp::{AckInfo, CaState, SsthreshRule, Tcb};
use crate::time::{Nanos, NS_PER_MS, NS_PER_S};

/// HyStart applies from this window on (segments; Linux's and ns-3's `hystart_low_window`).
const HYSTART_LOW_WINDOW: u64 = 16;
/// ACKs closer than this form a train (Linux's `hystart_ack_delta_us`, ns-3's HyStartAckDelta).
const HYSTART_ACK_DELTA: Nanos = 2 * NS_PER_MS;
/// RTT samples per round before the delay test (HYSTART_MIN_SAMPLES).
const HYSTART_MIN_SAMPLES: u32 = 8;

#[derive(Clone, Debug)]
pub struct Cubic {
    beta: f64,
    c: f64,
    fast_convergence: bool,
    reno_friendly: bool,
    abc: bool,
    /// RFC 3465 §2.2's L, in segments.
    abc_limit: Option<u64>,
    /// In the slow start that follows a timeout (RFC 3465 §2.3: L = 1 there).
    ss_after_timeout: bool,
    hystart: Hystart,
    // RFC 9438 state, windows in segments.
    w_max: f64,
    cwnd_prior: f64,
    k: f64,
    origin: f64,
    w_est: f64,
    epoch_start: Option<Nanos>,
    after_timeout: bool,
    /// Fractional bytes of growth not yet added to cwnd.
    frac: f64,
    /// `cubic_variant = "linux"`: Linux's integer state ([`LinuxCubic`]).
    linux: Option<LinuxCubic>,
    /// `cubic_variant = "ns3"`: ns-3's ([`Ns3Cubic`]).
    ns3: Option<Ns3Cubic>,
    // HyStart.
    found: bool,
    round_start: Nanos,
    last_ack: Nanos,
    end_seq: u64,
    curr_rtt: Nanos,
    sample_cnt: u32,
    delay_min: Nanos,
}

impl Cubic {
    pub fn new(t: &TcpConfig) -> Self {
        Cubic {
            beta: t.cubic_beta,
            c: t.cubic_c,
            fast_convergence: t.cubic_fast_convergence,
            reno_friendly: t.cubic_reno_friendly,
            abc: t.abc,
            abc_limit: t.abc_limit,
            ss_after_timeout: false,
            hystart: t.hystart,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            origin: 0.0,
            w_est: 0.0,
            epoch_start: None,
            after_timeout: false,
            frac: 0.0,
            linux: (t.cubic_variant == CubicVariant::Linux).then(|| LinuxCubic::new(t.cubic_beta, t.cubic_c)),
            ns3: (t.cubic_variant == CubicVariant::Ns3).then(|| Ns3Cubic::new(t.cubic_beta, t.cubic_c)),
            found: false,
            round_start: 0,
            last_ack: 0,
            end_seq: 0,
            curr_rtt: Nanos::MAX,
            sample_cnt: 0,
            delay_min: Nanos::MAX,
        }
    }

    /// W_cubic(t), segments.
    #[inline]
    fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k).powi(3) + self.origin
    }

    fn hystart_reset(&mut self, now: Nanos, tcb: &Tcb) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = tcb.snd_nxt.max(tcb.high_tx);
        self.curr_rtt = Nanos::MAX;
        self.sample_cnt = 0;
    }

    /// One RTT sample in slow start (Linux's `hystart_update`, ns-3's `HystartUpdate`).
    fn hystart_update(&mut self, tcb: &mut Tcb, now: Nanos, delay: Nanos) {
        let ns3 = self.hystart == Hystart::Ns3;
        if now - self.last_ack <= HYSTART_ACK_DELTA {
            self.last_ack = now;
            let train = if ns3 { self.delay_min } else { self.delay_min / 2 };
            if now - self.round_start > train {
                self.found = true;
            }
        }
        let thresh = if ns3 {
            self.delay_min.clamp(4 * NS_PER_MS, NS_PER_S)
        } else {
            (self.delay_min / 8).clamp(4 * NS_PER_MS, 16 * NS_PER_MS)
        };
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            self.curr_rtt = self.curr_rtt.min(delay);
            self.sample_cnt += 1;
        } else if self.curr_rtt > self.delay_min.saturating_add(thresh) {
            self.found = true;
        }
        if self.found {
            tcb.ssthresh = tcb.cwnd;
        }
    }

    fn add_bytes(&mut self, tcb: &mut Tcb, bytes: f64) {
        let total = tcb.cwnd as f64 + self.frac + bytes;
        tcb.cwnd = total as u64;
        self.frac = total - tcb.cwnd as f64;
    }

    fn congestion_avoidance(&mut self, tcb: &mut Tcb, now: Nanos, acked_segs: u64) {
        let mss = tcb.mss as f64;
        let cwnd = tcb.cwnd as f64 / mss;
        if self.epoch_start.is_none() {
            self.epoch_start = Some(now);
            if self.after_timeout || self.w_max <= cwnd {
                // §4.8 after a timeout, and a window already above W_max: K = 0 from here.
                (self.k, self.origin) = (0.0, cwnd);
                if self.after_timeout {
                    self.w_max = cwnd;
                }
            } else {
                (self.k, self.origin) = (((self.w_max - cwnd) / self.c).cbrt(), self.w_max);
            }
            self.w_est = cwnd;
            self.after_timeout = false;
        }
        let n = if self.abc { acked_segs as f64 } else { 1.0 };
        let t = (now - self.epoch_start.unwrap_or(now)) as f64 * 1e-9;
        let rtt = tcb.srtt.unwrap_or(0) as f64 * 1e-9;
        if self.reno_friendly {
            let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { 3.0 * (1.0 - self.beta) / (1.0 + self.beta) };
            self.w_est += alpha * n / cwnd;
            if self.w_cubic(t) < self.w_est {
                if self.w_est > cwnd {
                    self.add_bytes(tcb, (self.w_est - cwnd) * mss);
                }
                return;
            }
        }
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        self.add_bytes(tcb, (target - cwnd) / cwnd * n * mss);
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        let now = ack.now;
        if let Some(delay) = ack.rtt {
            let ignore = if self.hystart == Hystart::Ns3 { 10 * NS_PER_MS } else { NS_PER_S };
            if self.epoch_start.is_none_or(|e| now - e >= ignore) {
                self.delay_min = self.delay_min.min(delay.max(1));
                if self.hystart != Hystart::Off
                    && !self.found
                    && tcb.cwnd < tcb.ssthresh
                    && tcb.cwnd >= HYSTART_LOW_WINDOW * tcb.mss
                {
                    self.hystart_update(tcb, now, delay.max(1));
                }
            }
        }
        if !may_grow(tcb, ack) || !tcb.cwnd_limited {
            return;
        }
        let ns3 = self.ns3.is_some();
        // ns-3's ProcessAck: the ACK that ends fast recovery counts every segment it
        // acknowledges cumulatively.
        let mut acked = if ns3 && ack.state_before == CaState::Recovery { ack.cum_bytes / tcb.mss } else { ack.acked_segs };
        if tcb.cwnd < tcb.ssthresh {
            if self.hystart != Hystart::Off && tcb.snd_una > self.end_seq {
                self.hystart_reset(now, tcb);
            }
            // ns-3's TcpCubic: the whole ACK in slow start, past ssthresh if it goes there.
            let room = if ns3 { u64::MAX } else { tcb.ssthresh - tcb.cwnd };
            // RFC 3465 §2.2-2.3's L (`abc_limit`; none by default, as Linux and ns-3): what it
            // cuts off is not counted toward avoidance.
            let cap = match self.abc_limit {
                None => u64::MAX,
                Some(_) if self.ss_after_timeout => tcb.mss,
                Some(l) => l.saturating_mul(tcb.mss),
            };
            let add = if self.abc { (acked * tcb.mss).min(room).min(cap) } else { ack.acked_bytes.min(tcb.mss) };
            tcb.cwnd += add;
            let by_limit = add == cap && cap < room.min(acked * tcb.mss);
            if add == room {
                self.ss_after_timeout = false;
            }
            acked = if self.abc && !ns3 && !by_limit { acked - add.div_ceil(tcb.mss).min(acked) } else { 0 };
        }
        if acked > 0 && tcb.cwnd >= tcb.ssthresh {
            if let Some(n) = &mut self.ns3 {
                n.congestion_avoidance(tcb, now, acked, self.reno_friendly, self.delay_min);
                self.epoch_start = n.epoch_start; // (HyStart's 10 ms of ignored samples)
            } else {
                match &mut self.linux {
                    Some(l) => l.congestion_avoidance(tcb, now, acked, self.reno_friendly, self.delay_min),
                    None => self.congestion_avoidance(tcb, now, acked),
                }
            }
        }
        tcb.cwnd = tcb.cwnd.min(tcb.max_cwnd);
    }

    fn ssthresh_on_loss(&mut self, tcb: &Tcb) -> u64 {
        if let Some(l) = &mut self.linux {
            self.epoch_start = None; // (HyStart's 1 s of ignored samples restarts as Linux's)
            return l.ssthresh_on_loss(tcb, self.fast_convergence);
        }
        if let Some(n) = &mut self.ns3 {
            self.epoch_start = None;
            return n.ssthresh_on_loss(tcb, self.fast_convergence);
        }
        let cwnd = tcb.cwnd as f64 / tcb.mss as f64;
        self.cwnd_prior = cwnd;
        // §4.7 fast convergence.
        self.w_max = if self.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + self.beta) / 2.0 } else { cwnd };
        self.epoch_start = None;
        let basis = tcb.loss_flight() as f64 * self.beta;
        let ss = if tcb.ssthresh_rule == SsthreshRule::Cwnd {
            // Linux and ns-3: whole segments, max(cwnd·β, 2).
            (basis / tcb.mss as f64) as u64 * tcb.mss
        } else {
            basis as u64
        };
        ss.max(2 * tcb.mss)
    }

    fn on_timeout(&mut self, _tcb: &mut Tcb) {
        self.after_timeout = true;
        self.ss_after_timeout = true;
        self.epoch_start = None;
        self.found = false;
        self.frac = 0.0;
        if let Some(l) = &mut self.linux {
            // `cubictcp_state(TCP_CA_Loss)`: `bictcp_reset`; `tcp_enter_loss` clears the
            // avoidance counter.
            l.reset();
        }
        if let Some(n) = &mut self.ns3 {
            n.reset(); // `CongestionStateSet(CA_LOSS)`: `CubicReset`
        }
    }

    fn on_state_change(&mut self, tcb: &mut Tcb, _from: CaState, to: CaState) {
        if to == CaState::Loss {
            // Linux's and ns-3's reset on entering Loss: HyStart starts a new round.
            self.delay_min = Nanos::MAX;
            self.hystart_reset(self.last_ack, tcb);
            self.end_seq = 0;
        }
    }
}

/// Linux 6.x `tcp_cubic.c`'s congestion avoidance (`bictcp_update`, `cubictcp_cong_avoid`,
/// `cubictcp_recalc_ssthresh`, and `tcp_cong_avoid_ai` of `tcp_cong.c`), in its integer
/// units: windows in whole segments, time in 1/1024 s (`BICTCP_HZ`), β in 1/1024 (717 for
/// 0.7), C as `bic_scale`/1024·10 (41 for 0.4). Differences from RFC 9438 that matter at small
/// windows: the Reno estimate `tcp_cwnd` grows a whole segment per `(cwnd·beta_scale) >> 3`
/// segments acknowledged (`beta_scale` = ⌊8(1024 + β)/3/(1024 − β)⌋ = 15: α ≈ 0.53, never
/// 1), restarts at cwnd with every epoch, and cwnd follows it by one segment per
/// `cwnd/(tcp_cwnd − cwnd)` acknowledged, so cwnd lags it; the increment count `cnt` is
/// recomputed at most once per jiffy (1 ms here, HZ = 1000) and, cwnd unchanged, every
/// HZ/32; `cnt` ≥ 2; ≤ 20 until the first loss. K is `cube_factor·(W_max − cwnd)`'s cube
/// root in f64 (Linux's `cubic_root` is a table and one Newton step, within 1/1024 s).
#[derive(Clone, Debug, Default)]
pub struct LinuxCubic {
    beta: u64,
    beta_scale: u64,
    cube_rtt_scale: u64,
    cube_factor: u64,
    cnt: u64,
    last_max_cwnd: u64,
    last_cwnd: u64,
    last_time: Nanos,
    origin: u64,
    k: u64,
    epoch_start: Option<Nanos>,
    ack_cnt: u64,
    tcp_cwnd: u64,
    /// `tp->snd_cwnd_cnt`: segments acknowledged toward the next increment.
    cwnd_cnt: u64,
}

/// Linux's `HZ / 32` (with HZ = 1000: 31 jiffies) and one jiffy.
const JIFFY: Nanos = NS_PER_MS;
const HZ_32: Nanos = 31 * JIFFY;
/// `BICTCP_BETA_SCALE`.
const BETA_SCALE: u64 = 1024;

impl LinuxCubic {
    pub fn new(beta: f64, c: f64) -> Self {
        let beta = ((beta * BETA_SCALE as f64).round() as u64).clamp(1, BETA_SCALE - 1);
        // `bic_scale` = C·1024/10 (41 for 0.4); `cube_rtt_scale` = bic_scale·10;
        // `cube_factor` = 2^40 / (bic_scale·10).
        let bic_scale = ((c * BETA_SCALE as f64 / 10.0).round() as u64).max(1);
        LinuxCubic {
            beta,
            beta_scale: 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta),
            cube_rtt_scale: bic_scale * 10,
            cube_factor: (1u64 << 40) / (bic_scale * 10),
            ..LinuxCubic::default()
        }
    }

    /// `bictcp_reset`: the state of a new connection, constants kept.
    fn reset(&mut self) {
        let (beta, beta_scale, cube_rtt_scale, cube_factor) = (self.beta, self.beta_scale, self.cube_rtt_scale, self.cube_factor);
        *self = LinuxCubic { beta, beta_scale, cube_rtt_scale, cube_factor, ..LinuxCubic::default() };
    }

    /// `bictcp_update(ca, cwnd, acked)`: the segments to acknowledge per increment of cwnd.
    fn update(&mut self, cwnd: u64, acked: u64, now: Nanos, reno_friendly: bool, delay_min: Nanos) {
        self.ack_cnt += acked;
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= HZ_32 {
            return;
        }
        // "The CUBIC function can update ca->cnt at most once per jiffy."
        if !(self.epoch_start.is_some() && now.saturating_sub(self.last_time) < JIFFY) {
            self.last_cwnd = cwnd;
            self.last_time = now;
            let epoch = *self.epoch_start.get_or_insert_with(|| {
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    (self.k, self.origin) = (0, cwnd);
                } else {
                    let x = (self.cube_factor as f64) * (self.last_max_cwnd - cwnd) as f64;
                    (self.k, self.origin) = (x.cbrt() as u64, self.last_max_cwnd);
                }
                now
            });
            // t = now − epoch + delay_min, in 1/1024 s.
            let dmin = if delay_min == Nanos::MAX { 0 } else { delay_min };
            let t = (((now - epoch + dmin) as u128) << 10) / 1_000_000_000;
            let t = t as u64;
            let offs = t.abs_diff(self.k) as u128;
            let delta = ((self.cube_rtt_scale as u128 * offs * offs * offs) >> 40) as u64;
            let target = if t < self.k { self.origin.saturating_sub(delta) } else { self.origin + delta };
            self.cnt = cnt_toward(target, cwnd, self.last_max_cwnd == 0);
        }
        if reno_friendly {
            self.cnt = reno_estimate_cnt(self.cnt, cwnd, self.beta_scale, &mut self.ack_cnt, &mut self.tcp_cwnd);
        }
        // "At most 1 packet per 2 packets ACKed: cwnd grows at 1.5x per RTT."
        self.cnt = self.cnt.max(2);
    }

    /// `cubictcp_cong_avoid` after slow start: `bictcp_update`, then `tcp_cong_avoid_ai`.
    fn congestion_avoidance(&mut self, tcb: &mut Tcb, now: Nanos, acked: u64, reno_friendly: bool, delay_min: Nanos) {
        let cwnd = tcb.cwnd / tcb.mss;
        self.update(cwnd, acked, now, reno_friendly, delay_min);
        let w = self.cnt;
        let mut add = 0;
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            add += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let d = self.cwnd_cnt / w;
            self.cwnd_cnt -= d * w;
            add += d;
        }
        tcb.cwnd += add * tcb.mss;
    }

    /// `cubictcp_recalc_ssthresh`: the epoch ends, W_max (fast convergence), and
    /// max(cwnd·β, 2) segments; `tcp_init_cwnd_reduction` clears the avoidance counter.
    fn ssthresh_on_loss(&mut self, tcb: &Tcb, fast_convergence: bool) -> u64 {
        let cwnd = tcb.cwnd / tcb.mss;
        self.epoch_start = None;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && fast_convergence {
            cwnd * (BETA_SCALE + self.beta) / (2 * BETA_SCALE)
        } else {
            cwnd
        };
        self.cwnd_cnt = 0;
        (cwnd * self.beta / BETA_SCALE).max(2) * tcb.mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_util::ack_at;

    fn cubic(abc: bool) -> Cubic {
        Cubic::new(&TcpConfig { abc, hystart: Hystart::Off, ..TcpConfig::default() })
    }

    /// RFC 3465 §2.2-2.3 in CUBIC's slow start: with L = 2 an ACK of four segments adds two;
    /// after a timeout one; without L all four.
    #[test]
    fn slow_start_byte_counting_limit() {
        let with = |l| Cubic::new(&TcpConfig { abc: true, abc_limit: l, hystart: Hystart::Off, ..TcpConfig::default() });
        for (l, timeout, want) in [(None, false, 6000), (Some(2), false, 4000), (Some(2), true, 3000), (None, true, 6000)] {
            let mut c = with(l);
            let mut t = Tcb::for_test(1000, 2000);
            t.ssthresh = 100_000;
            t.max_cwnd = u64::MAX;
            t.cwnd_limited = true;
            if timeout {
                c.on_timeout(&mut t);
            }
            c.on_ack(&mut t, &ack_at(1, 4, None, CaState::Open));
            assert_eq!(t.cwnd, want, "L = {l:?}, after a timeout: {timeout}");
        }
    }

    /// A loss at cwnd 100 segments (W_max = 100, ssthresh 70), then avoidance from
    /// cwnd_epoch = 70: K = ∛(30/0.4) = 4.217 s; the window follows W_cubic(t + RTT) and
    /// reaches W_max near t = K (RFC 9438 eq. 1-2), growing per ACK by (target − cwnd)/cwnd.
    #[test]
    fn cubic_function_after_a_loss() {
        let mut c = cubic(false);
        let mut t = Tcb::for_test(1000, 100_000);
        t.snd_una = 0;
        t.high_tx = 100;
        let ss = c.ssthresh_on_loss(&t);
        assert_eq!(ss, 70_000);
        assert_eq!(c.w_max, 100.0);
        t.cwnd = ss;
        t.ssthresh = ss;
        t.srtt = Some(100 * NS_PER_MS);
        // One ACK per segment of the window per RTT (100 ms): run 4.2 s.
        let mut now = 0;
        while now < 4_217 * NS_PER_MS {
            let per = 100 * NS_PER_MS / t.cwnd_segs();
            now += per;
            c.on_ack(&mut t, &ack_at(now, 1, None, CaState::Open));
        }
        assert!((c.k - (30.0f64 / 0.4).cbrt()).abs() < 1e-9);
        // Per ACK the window moves 1/cwnd of the way to W_cubic(t + RTT), so it trails
        // W_cubic(t) slightly; at t = K it is within a segment of W_max.
        let w = t.cwnd as f64 / 1000.0;
        assert!((99.0..=100.5).contains(&w), "cwnd {w} segments at t = K");
        // Plateau: near W_max growth is slow; the convex region speeds up again.
        let at_k = t.cwnd;
        while now < 5_217 * NS_PER_MS {
            now += 100 * NS_PER_MS / t.cwnd_segs();
            c.on_ack(&mut t, &ack_at(now, 1, None, CaState::Open));
        }
        let one_s_later = t.cwnd as f64 / 1000.0;
        let want = c.w_cubic(1.0 + (30.0f64 / 0.4).cbrt());
        assert!(t.cwnd > at_k && (one_s_later - want).abs() < 1.5, "{one_s_later} vs {want}");
    }

    /// Fast convergence (§4.7): a loss below the previous W_max releases bandwidth:
    /// W_max = cwnd·(1 + β)/2. With `ssthresh_rule = "cwnd"` ssthresh is ⌊β·cwnd⌋ segments.
    #[test]
    fn fast_convergence_and_cwnd_rule() {
        let mut c = cubic(false);
        let mut t = Tcb::for_test(1000, 100_000);
        t.ssthresh_rule = SsthreshRule::Cwnd;
        c.ssthresh_on_loss(&t);
        t.cwnd = 81_000;
        assert_eq!(c.ssthresh_on_loss(&t), 56_000); // ⌊81·0.7⌋ = 56
        assert!((c.w_max - 81.0 * 1.7 / 2.0).abs() < 1e-9);
    }

    /// The Reno-friendly region (§4.3): with a small W_max drop (K tiny) W_cubic is flat
    /// near W_max; W_est grows by α_cubic = 3·0.3/1.7 per window of ACKs. Here the cubic
    /// curve is below W_est from the start when W_max < cwnd_epoch is forced small.
    #[test]
    fn reno_friendly_region() {
        let mut c = cubic(true);
        let mut t = Tcb::for_test(1000, 10_000);
        t.ssthresh = 10_000;
        t.srtt = Some(NS_PER_S);
        c.cwnd_prior = 1000.0; // keep α_cubic below 1
        // 10 ACKs of one segment within a microsecond: W_cubic stays at 10, W_est gains
        // α/cwnd per segment ≈ 10·0.529/10.
        for i in 1..=10 {
            c.on_ack(&mut t, &ack_at(i, 1, None, CaState::Open));
        }
        // Σ α/cwnd over 10 ACKs with cwnd growing from 10 to 10.5 segments.
        let alpha = 3.0 * 0.3 / 1.7;
        assert!(c.w_est - 10.0 > alpha * 10.0 / 10.6 && c.w_est - 10.0 < alpha, "{}", c.w_est);
        assert!((t.cwnd as f64 / 1000.0 - c.w_est).abs() < 0.002, "{} vs {}", t.cwnd, c.w_est);
    }

    fn linux_cubic() -> Cubic {
        Cubic::new(&TcpConfig { abc: true, hystart: Hystart::Off, cubic_variant: CubicVariant::Linux, ..TcpConfig::default() })
    }

    /// Linux's constants and a loss at 20 segments: β = 717/1024, `beta_scale` =
    /// ⌊8·1741/3/307⌋ = 15, `cube_factor` = ⌊2^40/410⌋; ssthresh = ⌊20·717/1024⌋ = 14
    /// segments, W_max 20. The epoch starts at the first ACK (delay_min 20 ms): K =
    /// ⌊∛(2 681 735 677·6)⌋ = 2524 (1/1024 s), t = ⌊0.020·1024⌋ = 20, offs = 2504, delta =
    /// ⌊410·2504³/2^40⌋ = 5, target 20 − 5 = 15 > 14: cnt = 14/(15 − 14) = 14 (the Reno
    /// estimate, 14 + 1 per 26 segments, does not lower it). So the 14th segment acknowledged
    /// (ACKs 1 ms apart: cnt is not recomputed within HZ/32) makes cwnd 15 segments.
    #[test]
    fn linux_cubic_known_answers() {
        let mut c = linux_cubic();
        let l = c.linux.clone().unwrap();
        assert_eq!((l.beta, l.beta_scale, l.cube_rtt_scale, l.cube_factor), (717, 15, 410, 2_681_735_677));
        let mut t = Tcb::for_test(1000, 20_000);
        let ss = c.ssthresh_on_loss(&t);
        assert_eq!(ss, 14_000);
        assert_eq!(c.linux.as_ref().unwrap().last_max_cwnd, 20);
        (t.cwnd, t.ssthresh) = (ss, ss);
        c.delay_min = 20 * NS_PER_MS;
        for i in 1..=14u64 {
            assert_eq!(t.cwnd, 14_000, "before ACK {i}");
            c.on_ack(&mut t, &ack_at(i * NS_PER_MS, 1, None, CaState::Open));
            let l = c.linux.as_ref().unwrap();
            assert_eq!((l.k, l.origin, l.cnt), (2524, 20, 14));
        }
        assert_eq!(t.cwnd, 15_000);
        // A second loss below W_max: fast convergence, W_max = ⌊15·1741/2048⌋ = 12.
        t.cwnd = 15_000;
        assert_eq!(c.ssthresh_on_loss(&t), 10_000); // ⌊15·717/1024⌋
        assert_eq!(c.linux.as_ref().unwrap().last_max_cwnd, 12);
    }

    /// The Reno-friendly region, Linux's way: with W_max at cwnd (K = 0, the cubic term
    /// ≈ 0.4·t³ segments) the window grows with the Reno estimate, one segment per
    /// ⌊15·cwnd/8⌋ acknowledged (α = 8/15 ≈ 0.53 per window of ACKs), cwnd one count behind:
    /// over 40 windows of one-segment ACKs (25 ms each, 1 s), 40·8/15 ≈ 21 segments less the
    /// lag (the estimate's first step after ⌊15·10/8⌋ = 18 ACKs, cwnd's a window later) and
    /// the rounding of ⌊15·cwnd/8⌋; RFC 9438's arithmetic (α switching to 1 at the prior
    /// window, here the start) grows faster.
    #[test]
    fn linux_cubic_reno_estimate_pace() {
        let run = |mut c: Cubic| {
            let mut t = Tcb::for_test(1000, 10_000);
            c.ssthresh_on_loss(&t); // W_max = 10
            if let Some(l) = c.linux.as_mut() {
                l.last_max_cwnd = 10; // (the loss left 7; hold W_max at the epoch's window)
            }
            c.w_max = 10.0;
            (t.cwnd, t.ssthresh) = (10_000, 10_000);
            t.srtt = Some(25 * NS_PER_MS);
            let mut now = 0;
            for _ in 0..40 {
                let n = t.cwnd_segs();
                for _ in 0..n {
                    now += 25 * NS_PER_MS / n;
                    c.on_ack(&mut t, &ack_at(now, 1, None, CaState::Open));
                }
            }
            t.cwnd as f64 / 1000.0 - 10.0
        };
        let linux = run(linux_cubic());
        assert!((17.0..=21.5).contains(&linux), "Linux: +{linux} segments in 40 windows");
        let rfc = run(cubic(true));
        assert!(rfc > linux + 3.0, "RFC 9438: +{rfc}, Linux: +{linux}");
    }

    /// HyStart's delay test (Linux flavour): min RTT 40 ms, threshold clamp(5 ms, 4, 16) =
    /// 5 ms; once a round has 8 samples, all ≥ 46 ms, the next ACK ends slow start.
    #[test]
    fn hystart_delay_exit() {
        let mut c = Cubic::new(&TcpConfig::default());
        let mut t = Tcb::for_test(1000, 20_000);
        let ms = NS_PER_MS;
        c.on_ack(&mut t, &ack_at(ms, 0, Some(40 * ms), CaState::Open)); // delay_min 40 ms
        t.snd_una = 1;
        t.snd_nxt = 40;
        let mut now = 10 * ms;
        let mut acks = 0;
        while !c.found && acks < 20 {
            now += 3 * ms; // no ACK train (gaps > 2 ms)
            c.on_ack(&mut t, &ack_at(now, 1, Some(46 * ms), CaState::Open));
            acks += 1;
        }
        // The first new ACK opens the round (its sample counted in the old one); 8 samples
        // fill the new round; the 10th ACK's sample triggers the exit.
        assert!(c.found);
        assert_eq!(acks, 10);
        assert!(t.ssthresh < u64::MAX && t.ssthresh <= t.cwnd, "{} {}", t.ssthresh, t.cwnd);
        assert_eq!(t.ssthresh, 20_000 + 9_000); // cwnd when found: 9 slow-start ACKs before
    }

    /// HyStart's ACK train (ns-3 flavour: longer than the min RTT, 10 ms here).
    #[test]
    fn hystart_ack_train_exit() {
        let mut c = Cubic::new(&TcpConfig { hystart: Hystart::Ns3, ..TcpConfig::default() });
        let mut t = Tcb::for_test(1000, 16_000);
        let ms = NS_PER_MS;
        c.on_ack(&mut t, &ack_at(ms, 0, Some(10 * ms), CaState::Open));
        t.snd_una = 1;
        t.snd_nxt = 100;
        let mut now = 20 * ms;
        while !c.found {
            now += ms; // 1 ms apart: one train
            c.on_ack(&mut t, &ack_at(now, 1, Some(10 * ms), CaState::Open));
            assert!(now < 40 * ms);
        }
        // The round began at the first ACK of new data (21 ms); found once now − 21 > 10.
        assert_eq!(now, 32 * ms);
    }
}
