//! Known answers for each of BBR v1's transitions, driven by hand-made rate samples.
use super::*;

const MS: Nanos = NS_PER_MS;
const MSS: u64 = 1000;

/// One ACK per round: `delivered` segments over `interval`, the round's RTT `rtt`,
/// `inflight` segments left in flight, `acked` newly delivered.
struct Drive {
    b: Bbr,
    tcb: Tcb,
    now: Nanos,
    total: u64,
    /// Segments reported lost with each sample.
    losses: u64,
}

impl Drive {
    fn new() -> Self {
        let mut tcb = Tcb::for_test(MSS, 10 * MSS);
        tcb.srtt = Some(40 * MS);
        Drive { b: Bbr::new(10), tcb, now: 0, total: 0, losses: 0 }
    }

    /// A round at `rate` segments/s with RTT `rtt`: one sample that starts a new round.
    fn round(&mut self, rate: f64, rtt: Nanos, inflight: u64) -> RateSample {
        let delivered = (rate * rtt as f64 * 1e-9).round() as u64;
        self.now += rtt;
        let prior = self.total;
        self.total += delivered;
        let rs = RateSample {
            now: self.now,
            delivered,
            interval: rtt,
            prior_delivered: prior,
            delivered_total: self.total,
            acked_sacked: delivered,
            inflight,
            losses: self.losses,
            rtt: Some(rtt),
            ..Default::default()
        };
        self.b.on_rate_sample(&mut self.tcb, &rs);
        rs
    }
}

#[test]
fn gains_are_linux_constants() {
    assert!((HIGH_GAIN - 2.88671875).abs() < 1e-12); // (739)/256
    assert!((DRAIN_GAIN - 0.34375).abs() < 1e-12); // 88/256
    assert!(HIGH_GAIN * DRAIN_GAIN < 1.0);
}

#[test]
fn max_filter_keeps_the_best_of_its_window() {
    // One sample per round: 10 at round 0, then 8. The 10 is the estimate through round 10
    // (window 10 rounds) and forgotten at round 11, when the sub-window's 8 takes over.
    let mut f = WinMax::default();
    f.update(10, 0, 10.0);
    for t in 1..=10 {
        f.update(10, t, 8.0);
        assert_eq!(f.get(), 10.0, "round {t}");
    }
    f.update(10, 11, 8.0);
    assert_eq!(f.get(), 8.0);
    // A new maximum replaces everything at once.
    f.update(10, 12, 9.0);
    assert_eq!(f.get(), 9.0);
    // Nothing for longer than the window: the next sample is the estimate, however small.
    f.update(10, 40, 1.0);
    assert_eq!(f.get(), 1.0);
}

#[test]
fn startup_drain_probe_bw() {
    let mut d = Drive::new();
    assert_eq!(d.b.mode, Mode::Startup);
    // The bandwidth doubles per round, then stalls at 1000 segments/s (10 Mb/s of 1250-byte..
    // here 1000-byte segments: 8 Mb/s).
    for rate in [125.0, 250.0, 500.0, 1000.0] {
        d.round(rate, 40 * MS, 20);
        assert_eq!(d.b.mode, Mode::Startup);
    }
    assert!(!d.b.full_bw_reached);
    // Three rounds without 25 % growth: the pipe is full (`bbr_check_full_bw_reached`).
    d.round(1000.0, 40 * MS, 200);
    d.round(1100.0, 40 * MS, 200);
    assert_eq!(d.b.mode, Mode::Startup);
    d.round(1000.0, 40 * MS, 200);
    assert!(d.b.full_bw_reached);
    // In flight (200) above 1·BDP + budget (1100·0.04 = 44, + 3·2 = 50): Drain.
    assert_eq!(d.b.mode, Mode::Drain);
    assert_eq!(d.b.pacing_gain, DRAIN_GAIN);
    // ssthresh = 1·BDP (⌈1100 · 0.040⌉ = 44) + 3 bursts of 3 segments (Startup's pacing,
    // 2.886 · 1100 · 1000 · 0.99 B/s, sends 3 segments per ms) = 53, made even: 54.
    assert_eq!(d.tcb.ssthresh, 54 * MSS);
    // pacing rate: max bw 1100 segments/s · 1000 B · drain gain · 0.99
    let want = 1100.0 * 1000.0 * DRAIN_GAIN * 0.99;
    assert!((d.b.pacing_rate(&d.tcb).unwrap() - want).abs() < 1e-6);
    // Inflight drops to the BDP: ProbeBW, in any phase but the 3/4 one.
    d.round(1000.0, 40 * MS, 50);
    assert_eq!(d.b.mode, Mode::ProbeBw);
    assert_ne!(d.b.cycle_idx, 1);
    assert_eq!(d.b.cwnd_gain, CWND_GAIN);
    assert_eq!(d.b.pacing_gain, PACING_GAINS[d.b.cycle_idx]);
}

fn probe_bw() -> Drive {
    let mut d = Drive::new();
    for rate in [125.0, 250.0, 500.0, 1000.0, 1000.0, 1000.0, 1000.0] {
        d.round(rate, 40 * MS, 30);
    }
    assert_eq!(d.b.mode, Mode::ProbeBw);
    d
}

#[test]
fn probe_bw_cycles_through_its_gains_once_per_min_rtt() {
    let mut d = probe_bw();
    // At 1·bw the phase ends after a min RTT of delivery time; the cycle visits all 8.
    let mut seen = Vec::new();
    for _ in 0..16 {
        d.round(1000.0, 41 * MS, 40);
        seen.push(d.b.cycle_idx);
    }
    for i in 0..8 {
        assert!(seen.contains(&i), "phase {i} never visited: {seen:?}");
    }
    // cwnd in ProbeBW: 2·BDP (2 · 1000 · 0.040 = 80) + the ACK aggregation (each ACK here
    // delivers a whole round, 41 segments, where 0 were expected at the epoch's start) + 3
    // bursts of 2 = 127, made even: 128; 2 more in the probing phase.
    d.round(1000.0, 41 * MS, 40);
    let budget = if d.b.cycle_idx == 0 { 2 } else { 0 };
    assert_eq!(d.b.cwnd, 128 + budget);
}

#[test]
fn probe_rtt_after_ten_seconds_without_a_lower_rtt() {
    let mut d = probe_bw();
    let saved_start = d.now;
    while d.now < saved_start + MIN_RTT_WINDOW - 50 * MS {
        d.round(1000.0, 45 * MS, 40);
        assert_ne!(d.b.mode, Mode::ProbeRtt);
    }
    let cwnd_before = d.b.cwnd;
    while d.b.mode != Mode::ProbeRtt {
        d.round(1000.0, 45 * MS, 40);
    }
    // cwnd capped at 4 segments; min RTT refreshed by the expired filter
    assert_eq!(d.b.cwnd, MIN_CWND);
    assert_eq!(d.tcb.cwnd, MIN_CWND * MSS);
    assert_eq!(d.b.min_rtt, Some(45 * MS));
    // 200 ms at ≤ 4 segments in flight and one round, then back to ProbeBW with the window
    let entered = d.now;
    d.round(1000.0, 41 * MS, 4);
    while d.b.mode == Mode::ProbeRtt {
        d.round(100.0, 41 * MS, 4);
        assert!(d.now < entered + 400 * MS);
    }
    assert!(d.now > entered + PROBE_RTT_TIME);
    assert_eq!(d.b.mode, Mode::ProbeBw);
    assert!(d.b.cwnd >= cwnd_before, "{} < {cwnd_before}", d.b.cwnd);
}

#[test]
fn recovery_conserves_packets_then_restores_the_window() {
    let mut d = probe_bw();
    let w = d.b.cwnd;
    d.b.ssthresh_on_loss(&d.tcb); // entering recovery saves the window
    d.tcb.state = CaState::Recovery;
    let rs = RateSample { now: d.now + MS, acked_sacked: 2, losses: 1, inflight: 30, delivered_total: d.total + 2, ..Default::default() };
    d.b.on_rate_sample(&mut d.tcb, &rs);
    // Linux: cwnd = packets in flight + newly delivered
    assert_eq!(d.b.cwnd, 32);
    d.tcb.state = CaState::Open;
    let rs = RateSample { now: d.now + 2 * MS, acked_sacked: 1, inflight: 30, delivered_total: d.total + 3, ..Default::default() };
    d.b.on_rate_sample(&mut d.tcb, &rs);
    assert!(d.b.cwnd >= w.min(86), "restored to the saved window: {} vs {w}", d.b.cwnd);
}

#[test]
fn random_loss_does_not_shrink_the_model() {
    // The same deliveries with and without 1 loss per round (2.4 %) give the same bandwidth
    // estimate and pacing rate: BBR v1 does not read loss as congestion.
    let mut a = probe_bw();
    let mut b = probe_bw();
    b.losses = 1;
    for _ in 0..50 {
        a.round(1000.0, 41 * MS, 40);
        b.round(1000.0, 41 * MS, 40);
    }
    assert_eq!(a.b.max_bw(), b.b.max_bw());
    assert_eq!(a.b.pacing_rate(&a.tcb), b.b.pacing_rate(&b.tcb));
    assert!(!b.b.lt_use_bw);
}

#[test]
fn heavy_loss_at_a_steady_rate_is_taken_for_a_policer() {
    // 15 lost per 41 delivered (> 50/256): two sampling intervals of 4+ rounds at the same
    // rate make `bbr_lt_bw_sampling` use their average, at pacing gain 1.
    let mut d = probe_bw();
    d.losses = 15;
    let mut rounds = 0;
    while !d.b.lt_use_bw {
        d.round(1000.0, 41 * MS, 40);
        rounds += 1;
        assert!(rounds <= 12, "no policer detected after {rounds} rounds");
    }
    assert!(rounds >= 8, "two intervals of at least 4 rounds: {rounds}");
    assert!((d.b.bw() - 1000.0).abs() < 30.0, "{}", d.b.bw());
    assert_eq!(d.b.pacing_gain, 1.0);
}

#[test]
fn a_timeout_restarts_from_one_segment() {
    let mut d = probe_bw();
    d.b.ssthresh_on_loss(&d.tcb);
    d.b.on_timeout(&mut d.tcb);
    assert_eq!((d.b.cwnd, d.tcb.cwnd), (1, MSS));
    assert!(d.b.round_start);
}

/// [`probe_bw`] with ns-3 3.44's rules (`bbr_variant = "ns3"`).
fn probe_bw_ns3() -> Drive {
    let mut d = Drive::new();
    d.b = Bbr::from_config(&TcpConfig { bbr_variant: BbrVariant::Ns3, init_cwnd: 10, ..TcpConfig::default() });
    for rate in [125.0, 250.0, 500.0, 1000.0, 1000.0, 1000.0, 1000.0] {
        d.round(rate, 40 * MS, 30);
    }
    assert_eq!(d.b.mode, Mode::ProbeBw);
    d
}

#[test]
fn ns3_leaves_fast_recovery_at_ssthresh() {
    // ns-3: TcpBbr restores the saved window, then TcpSocketBase sets cWnd = ssThresh (BBR's
    // one-BDP window from Drain), from which BBR grows by what the exit ACK delivered.
    let mut d = probe_bw_ns3();
    let w = d.b.cwnd;
    let ss = d.tcb.ssthresh / MSS;
    assert!(ss < w, "ssthresh {ss} below the window {w} (cwnd gain 2 against 1)");
    // `TcpBbr::InFlight`: 1·BDP (1000 segments/s · 40 ms) + 3 quanta of one segment, not made
    // even; Linux adds 3 bursts of 2 segments and rounds up to even.
    let bdp = d.b.bdp(d.b.max_bw(), 1.0);
    assert_eq!(ss, bdp + 3);
    assert_eq!(probe_bw().tcb.ssthresh / MSS, (bdp + 3 * 2 + 1) & !1);
    d.b.ssthresh_on_loss(&d.tcb);
    d.tcb.state = CaState::Recovery;
    let rs = RateSample { now: d.now + MS, acked_sacked: 2, losses: 1, inflight: 30, delivered_total: d.total + 2, ..Default::default() };
    d.b.on_rate_sample(&mut d.tcb, &rs);
    assert_eq!(d.b.cwnd, 32, "packet conservation as Linux");
    d.tcb.state = CaState::Open;
    let rs = RateSample { now: d.now + 2 * MS, acked_sacked: 1, inflight: 30, delivered_total: d.total + 3, ..Default::default() };
    d.b.on_rate_sample(&mut d.tcb, &rs);
    assert_eq!(d.b.cwnd, ss + 1);
    // Linux's restores the saved window instead (`recovery_conserves_packets_then_restores_the_window`).
}

#[test]
fn ns3_restores_nothing_after_a_timeout_and_keeps_its_full_pipe() {
    let (mut l, mut n) = (probe_bw(), probe_bw_ns3());
    for d in [&mut l, &mut n] {
        d.b.ssthresh_on_loss(&d.tcb);
        d.b.on_timeout(&mut d.tcb);
        d.tcb.state = CaState::Loss;
        let rs = RateSample { now: d.now + MS, acked_sacked: 1, inflight: 1, delivered_total: d.total + 1, ..Default::default() };
        d.b.on_rate_sample(&mut d.tcb, &rs);
        assert_eq!(d.b.cwnd, 4, "one segment, + 1 delivered, at least 4");
        // The timeout's recovery ends.
        d.tcb.state = CaState::Open;
        let rs = RateSample { now: d.now + 2 * MS, acked_sacked: 1, inflight: 1, delivered_total: d.total + 2, ..Default::default() };
        d.b.on_rate_sample(&mut d.tcb, &rs);
    }
    assert!(l.b.cwnd > 30, "Linux restores the saved window: {}", l.b.cwnd);
    assert_eq!(n.b.cwnd, 5, "ns-3 grows from where the timeout left it");
    // Linux restarts full-pipe detection at a timeout (`bbr_set_state`); ns-3 does not.
    assert_eq!(l.b.full_bw, 0.0);
    assert!(n.b.full_bw > 0.0);
}

#[test]
fn ns3_has_no_policer_detector() {
    // The losses that make Linux's BBR take a policer's rate (previous test) leave ns-3's alone.
    let mut d = probe_bw_ns3();
    d.losses = 15;
    for _ in 0..30 {
        d.round(1000.0, 41 * MS, 40);
    }
    assert!(!d.b.lt_use_bw);
}

/// The target window and pacing rate reused from the last ACK ([`Memo`]) are those the rules
/// compute afresh: a flow driven through Startup, Drain, ProbeBW and a loss, with rates and RTTs
/// that change every few ACKs and repeat in between, checked after every ACK.
#[test]
fn remembered_window_and_rate_equal_recomputed_ones() {
    let mut d = Drive::new();
    let mut hits = 0;
    for k in 0..400u64 {
        let rate = [800.0, 1000.0, 1000.0, 1200.0, 1000.0][(k / 3 % 5) as usize];
        let rtt = [40, 40, 42, 40][(k / 7 % 4) as usize] * MS;
        d.losses = u64::from(k % 50 == 49);
        let before = d.b.target.key;
        d.round(rate, rtt, 30 + k % 17);
        let bw = d.b.bw();
        let fresh = d.b.quantization_budget(d.b.bdp(bw, d.b.cwnd_gain) + d.b.ack_aggregation_cwnd(bw), MSS);
        let memo = d.b.cwnd_target(bw, MSS);
        assert_eq!(memo, fresh, "ACK {k}");
        hits += usize::from(before.is_some() && before == d.b.target.key);
        let rate_bytes = Bbr::rate_bytes(bw, d.b.pacing_gain, MSS);
        let key = (bw.to_bits(), d.b.pacing_gain.to_bits(), MSS);
        if let Some(bits) = d.b.rate_memo.get(key) {
            assert_eq!(bits, rate_bytes.to_bits(), "ACK {k}");
        }
    }
    assert!(d.b.mode == Mode::ProbeBw, "{:?}", d.b.mode);
    assert!(hits > 100, "the window was reused on {hits} of 400 ACKs");
}
