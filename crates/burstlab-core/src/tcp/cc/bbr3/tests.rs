//! Known answers for BBR v3's transitions (draft-ietf-ccwg-bbr-01), driven by hand-made samples.
use super::*;

const MS: Nanos = NS_PER_MS;
const MSS: u64 = 1000;

struct Drive {
    b: Bbr3,
    tcb: Tcb,
    now: Nanos,
    total: u64,
}

impl Drive {
    fn new() -> Self {
        let mut tcb = Tcb::for_test(MSS, 10 * MSS);
        tcb.srtt = Some(40 * MS);
        Drive { b: Bbr3::new(10), tcb, now: 0, total: 0 }
    }

    /// One ACK closing a round: `rate` segments/s over `rtt`, `inflight` left, `lost` segments
    /// lost while the sampled one was in flight (`tx_in_flight` of them were).
    fn ack(&mut self, rate: f64, rtt: Nanos, inflight: u64, tx_in_flight: u64, lost: u64, losses: u64) {
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
            tx_in_flight,
            lost,
            losses,
            rtt: Some(rtt),
            ..Default::default()
        };
        self.b.on_rate_sample(&mut self.tcb, &rs);
    }

    fn round(&mut self, rate: f64, inflight: u64) {
        self.ack(rate, 40 * MS, inflight, inflight, 0, 0);
    }
}

/// Startup to a plateau at 1000 segments/s (BDP 40 at 40 ms), Drain, and ProbeBW_DOWN.
fn in_probe_bw() -> Drive {
    let mut d = Drive::new();
    for rate in [125.0, 250.0, 500.0, 1000.0] {
        d.round(rate, 30);
        assert_eq!(d.b.mode, Mode::Startup);
    }
    d.round(1000.0, 100);
    d.round(1000.0, 100);
    d.round(1000.0, 100);
    assert!(d.b.filled_pipe);
    assert_eq!(d.b.mode, Mode::Drain, "in flight 100 > BDP");
    assert_eq!(d.b.pacing_gain, DRAIN_PACING_GAIN);
    d.round(1000.0, 40);
    assert_eq!(d.b.mode, Mode::Down);
    d
}

#[test]
fn startup_drain_down_cruise() {
    let mut d = in_probe_bw();
    assert_eq!(d.b.pacing_gain, DOWN_GAIN);
    // In flight at or below the BDP (and no inflight_hi yet): cruise (§5.3.3.6 IsTimeToCruise).
    d.round(1000.0, 30);
    assert_eq!(d.b.mode, Mode::Cruise);
    assert_eq!((d.b.pacing_gain, d.b.cwnd_gain), (1.0, CWND_GAIN));
    // pacing rate: bw · mss · gain · 0.99
    assert!((d.b.pacing_rate(&d.tcb).unwrap() - 1000.0 * 1000.0 * 0.99).abs() < 1e-6);
}

#[test]
fn cruise_refill_up_down_cycle() {
    let mut d = in_probe_bw();
    d.round(1000.0, 30);
    assert_eq!(d.b.mode, Mode::Cruise);
    // Time to probe: the Reno-coexistence bound (min(BDP, cwnd, 63) = 40 rounds at 40 ms
    // = 1.6 s) comes before the 2-3 s wait.
    let mut rounds = 0;
    while d.b.mode == Mode::Cruise {
        d.round(1000.0, 30);
        rounds += 1;
        assert!(rounds < 80);
    }
    assert_eq!(d.b.mode, Mode::Refill);
    assert_eq!(rounds + 1, 40, "40 rounds since Down began, one of them in Down");
    // Refill lasts one round, then Up at 1.25 with cwnd gain 2.25.
    d.round(1000.0, 40);
    assert_eq!(d.b.mode, Mode::Up);
    assert_eq!((d.b.pacing_gain, d.b.cwnd_gain), (UP_GAIN, UP_CWND_GAIN));
    // 3 of 60 in flight lost (5 % > 2 %): inflight_hi = the volume in flight, back to Down.
    d.ack(1000.0, 40 * MS, 55, 60, 3, 3);
    assert_eq!(d.b.mode, Mode::Down);
    assert_eq!(d.b.inflight_hi, 60);
    // The cwnd is now capped by inflight_hi in Down and by 85 % of it (51) in Cruise.
    assert!(d.b.cwnd <= 60);
    assert_eq!(d.b.inflight_with_headroom(), 51);
}

#[test]
fn up_ends_after_a_min_rtt_at_five_quarters_of_the_bdp() {
    let mut d = in_probe_bw();
    d.round(1000.0, 30);
    while d.b.mode != Mode::Up {
        d.round(1000.0, 40);
    }
    // No loss, in flight 1.25·BDP + budget: Down.
    d.ack(1000.0, 41 * MS, 60, 60, 0, 0);
    assert_eq!(d.b.mode, Mode::Down);
    assert_eq!(d.b.inflight_hi, INF, "no loss: no upper bound");
}

#[test]
fn loss_outside_probing_sets_the_lower_bounds() {
    let mut d = in_probe_bw();
    d.round(1000.0, 30);
    assert_eq!(d.b.mode, Mode::Cruise);
    let cwnd = d.b.cwnd;
    // A loss in this round; at the next loss-round start the bounds are cut by β.
    d.ack(1000.0, 40 * MS, 30, 30, 1, 1);
    d.ack(500.0, 40 * MS, 30, 30, 1, 0);
    assert!((d.b.bw_lo - 1000.0_f64.max(BETA * 1000.0)).abs() < 1e-9, "bw_lo = max(latest, β·max_bw): {}", d.b.bw_lo);
    assert_eq!(d.b.inflight_lo, 40u64.max((BETA * cwnd as f64) as u64));
    // Another lossy round with a lower latest rate: bw_lo = max(500, 0.7 · 1000) = 700.
    d.ack(500.0, 40 * MS, 30, 30, 1, 1);
    d.ack(500.0, 40 * MS, 30, 30, 1, 0);
    assert!((d.b.bw_lo - 700.0).abs() < 1e-9, "{}", d.b.bw_lo);
    assert!((d.b.bw() - 700.0).abs() < 1e-9);
    // Refill resets them.
    while d.b.mode != Mode::Refill {
        d.round(1000.0, 30);
    }
    assert_eq!((d.b.bw_lo, d.b.inflight_lo), (f64::INFINITY, INF));
}

#[test]
fn startup_ends_at_high_loss() {
    let mut d = Drive::new();
    d.round(125.0, 20);
    d.round(250.0, 20);
    assert_eq!(d.b.mode, Mode::Startup);
    d.tcb.state = CaState::Recovery;
    // Within one round (samples of segments sent before the round began): 6 loss events.
    let round_prior = d.total - 1;
    for k in 0..6 {
        d.total += 2;
        let rs = RateSample { now: d.now + (k + 1) * MS, delivered: 10, interval: 40 * MS, prior_delivered: round_prior,
                              delivered_total: d.total, acked_sacked: 2, inflight: 40, tx_in_flight: 50, lost: k + 1, losses: 1,
                              rtt: Some(40 * MS), ..Default::default() };
        d.b.on_rate_sample(&mut d.tcb, &rs);
        assert_eq!(d.b.mode, Mode::Startup, "no round end yet");
    }
    // The round ends with 10 of 50 lost (20 % > 2 %): the pipe is full, inflight_hi set.
    d.ack(250.0, 40 * MS, 40, 50, 10, 1);
    assert!(d.b.filled_pipe);
    assert_ne!(d.b.mode, Mode::Startup);
    assert!(d.b.inflight_hi < INF);
    // max(BDP = ⌈250 · 0.040⌉ = 10, the round's largest delivered volume, 10)
    assert_eq!(d.b.inflight_hi, 10);
}

#[test]
fn probe_rtt_every_five_seconds_at_half_the_bdp() {
    let mut d = in_probe_bw();
    let start = d.now;
    while d.b.mode != Mode::ProbeRtt {
        d.ack(1000.0, 45 * MS, 30, 30, 0, 0);
        assert!(d.now < start + 6 * NS_PER_S);
    }
    // cwnd = max(0.5 · BDP, 4) = ⌈0.5 · 1000 · 0.040⌉ = 20 (the min RTT stays 40 ms: 10 s window)
    assert_eq!(d.b.cwnd, 20);
    let entered = d.now;
    while d.b.mode == Mode::ProbeRtt {
        d.ack(1000.0, 41 * MS, 20, 20, 0, 0);
        assert!(d.now < entered + 500 * MS);
    }
    assert!(d.now > entered + PROBE_RTT_TIME);
    assert_eq!(d.b.mode, Mode::Cruise);
}

#[test]
fn random_loss_below_the_threshold_leaves_the_upper_bound_alone() {
    // 1 % loss while probing is tolerated (BBRLossThresh 2 %).
    let mut d = in_probe_bw();
    d.round(1000.0, 30);
    while d.b.mode != Mode::Up {
        d.round(1000.0, 40);
    }
    d.ack(1000.0, 10 * MS, 55, 100, 1, 1);
    assert_eq!(d.b.inflight_hi, INF);
}

/// BBR v3's remembered BBRInflight and Reno-coexistence BDP are those computed afresh, and its
/// send-burst goal kept with the pacing rate is `bbr_tso_segs_goal` at that rate, after every ACK
/// of a flow through Startup, ProbeBW's four phases and ProbeRTT.
#[test]
fn remembered_bounds_equal_recomputed_ones() {
    let mut d = Drive::new();
    let mut modes = Vec::new();
    for k in 0..300u64 {
        let rate = [900.0, 1000.0, 1100.0][(k / 5 % 3) as usize];
        d.round(rate, 30 + k % 11);
        let b = &d.b;
        assert_eq!(b.tso_segs_goal(MSS), b.tso_segs_goal_at(MSS), "ACK {k}");
        let bw = b.bw();
        let key = (bw.to_bits(), b.cwnd_gain.to_bits(), b.min_rtt, b.tso_segs_goal(MSS), b.mode == Mode::Up);
        if let Some(m) = b.inflight_memo.get(key) {
            assert_eq!(m, b.inflight(bw, b.cwnd_gain, MSS), "ACK {k}");
        }
        if let Some(m) = b.bdp_memo.get((bw.to_bits(), b.min_rtt)) {
            assert_eq!(m, b.bdp(bw, 1.0), "ACK {k}");
        }
        if !modes.contains(&b.mode) {
            modes.push(b.mode);
        }
    }
    for m in [Mode::Down, Mode::Cruise, Mode::Refill, Mode::Up, Mode::ProbeRtt] {
        assert!(modes.contains(&m), "{m:?} not reached: {modes:?}");
    }
}
