//! Window trajectories of every congestion control and loss recovery under deterministic
//! drops, asserted step by step (as `validation.rs` does for Tahoe, Reno, NewReno and
//! SACK). The scenario is the same: 1 Gb/s (serialisation 8.32 µs per 1040-byte packet),
//! 10 ms one way, initial window 10, one ACK per segment, segments 2 and 5 of the first
//! window dropped. The expected (cwnd, ssthresh) after every ACK are derived in
//! `docs/tcp.md` and in the comments from the papers' and RFCs' rules.
use burstlab_core::link::LossMode;
use burstlab_core::loss::DeterministicList;
use burstlab_core::sim::{run, LinkConfig, Scenario, TcpConfig, Workload};
use burstlab_core::tcp::config::{CcKind, RecoveryKind};
use burstlab_core::time::{NS_PER_MS, NS_PER_S};

use crate::validation::drop_run_with as drop_run;

fn with(cc: CcKind, recovery: RecoveryKind) -> TcpConfig {
    TcpConfig { cc, recovery, ..TcpConfig::default() }
}

const INF: u64 = u64::MAX;

const fn k(x: u64) -> u64 {
    x * 1000
}

/// The first window up to the third duplicate ACK, common to every variant below: slow
/// start to 12 on ACKs 1 and 2, two duplicate ACKs (segments 3 and 4 arrive above the hole).
const OPENING: [(u64, u64); 5] = [(k(10), INF), (k(11), INF), (k(12), INF), (k(12), INF), (k(12), INF)];

/// Times of the scenario, ns: a 1040-byte data packet takes 8320 ns on the 1 Gb/s link, a
/// 40-byte ACK 320 ns; the first ACK arrives at t1 = 20 ms + 8320 + 320 (segment 0 sent at 0),
/// the second 8320 ns later. RTT_min = t1.
const T1: u64 = 20_000_000 + 8320 + 320;

fn assert_rows(rows: &[(u64, u64)], want: &[(u64, u64)], what: &str) {
    assert!(rows.len() >= want.len(), "{what}: only {} rows", rows.len());
    for (i, (got, w)) in rows.iter().zip(want).enumerate() {
        assert_eq!(got, w, "{what}: row {i} (rows {:?})", &rows[..want.len()]);
    }
}

/// Westwood+: its bandwidth samples come once per SRTT (20 ms), but the whole first window
/// is acknowledged within 0.1 ms, so at this first loss there is no sample yet and the loss
/// response is RFC 5681's (`westwood.rs`): the NewReno trajectory of `validation.rs`.
#[test]
fn deterministic_drops_westwood() {
    let (r, rows) = drop_run(with(CcKind::Westwood, RecoveryKind::NewReno));
    let mut want = OPENING.to_vec();
    want.extend([(k(9), k(6)), (k(10), k(6)), (k(11), k(6)), (k(12), k(6)), (k(13), k(6)), (k(14), k(6)), (k(15), k(6)),
                 (k(16), k(6)), (k(14), k(6)), (k(15), k(6)), (k(16), k(6)), (k(17), k(6)), (k(18), k(6)), (k(6), k(6)),
                 (6166, k(6))]); // fmt
    assert_rows(&rows, &want, "westwood");
    assert_eq!((r.counters.fast_retransmits, r.counters.retransmissions, r.counters.timeouts), (1, 2, 0));
}

/// TIBET, the sent-packet estimator of Martignon & Capone §II with α = 0.99, by hand:
/// segments 0-9 leave at t = 0 (intervals 0 after the first); ACK 1 at t1 sends 10 (interval
/// t1) and 11 (0); ACK 2 at t1 + 8320 sends 12 (8320) and 13 (0). The duplicate ACKs send
/// nothing. So Av_length = 8000 bits and Av_interv = 0.01·t1·0.99³ + 0.01·8320·0.99 ns;
/// Bwe = 8000 / Av_interv = 41.19 Mb/s, and at the third duplicate ACK ssthresh = Bwe·RTT_min
/// = Bwe/8 · t1 = 103 017 bytes (eq. (2)); cwnd = ssthresh (+ NewReno's 3 segments of
/// inflation): the window grows after the loss, as the paper's rule says when the estimate
/// exceeds the window.
#[test]
fn deterministic_drops_tibet() {
    let (r, rows) = drop_run(with(CcKind::Tibet, RecoveryKind::NewReno));
    let av_interv = 0.01 * T1 as f64 * 0.99f64.powi(3) + 0.01 * 8320.0 * 0.99; // ns
    let ss = (8000.0 / (av_interv * 1e-9) / 8.0 * T1 as f64 * 1e-9).round() as u64;
    assert_eq!(ss, 103_017);
    let mut want = OPENING.to_vec();
    want.push((ss + k(3), ss)); // third duplicate ACK
    want.extend((1..=7).map(|i| (ss + k(3 + i), ss))); // inflation by the 7 further duplicates
    want.push((ss + k(10) - k(3) + k(1), ss)); // partial ACK of 3 segments: − 3 + 1
    assert_rows(&rows, &want, "tibet");
    assert!(r.counters.fast_retransmits >= 1 && r.counters.timeouts == 0);
}

/// The Ideal TCP: ssthresh = the fair share (here the whole link, 1 Gb/s of which a
/// 1000-byte segment's payload is 1000/1040) × RTT_min = 10⁹/8 · 1000/1040 · t1 bytes.
#[test]
fn deterministic_drops_ideal() {
    let (_, rows) = drop_run(with(CcKind::Ideal, RecoveryKind::NewReno));
    let ss = (1e9 / 8.0 * 1000.0 / 1040.0 * T1 as f64 * 1e-9).round() as u64;
    assert_eq!(ss, 2_404_885);
    let mut want = OPENING.to_vec();
    want.push((ss + k(3), ss));
    want.extend((1..=7).map(|i| (ss + k(3 + i), ss)));
    want.push((ss + k(10) - k(2), ss));
    assert_rows(&rows, &want, "ideal");
}

/// Vegas: the first ACK ends a cycle with one RTT sample (≤ 2: Reno growth); then slow
/// start as Reno; NewReno's recovery as in `validation.rs` (Vegas is off outside Open,
/// its loss response is RFC 5681's). At the full ACK Vegas restarts a cycle at snd_nxt: the
/// next four ACKs are inside it (no growth above ssthresh), the fifth ends it with every RTT
/// = BaseRTT (nothing queues at 1 Gb/s): Diff = 0 < α → cwnd + 1 segment.
#[test]
fn deterministic_drops_vegas() {
    let (r, rows) = drop_run(with(CcKind::Vegas, RecoveryKind::NewReno));
    let mut want = OPENING.to_vec();
    want.extend([(k(9), k(6)), (k(10), k(6)), (k(11), k(6)), (k(12), k(6)), (k(13), k(6)), (k(14), k(6)), (k(15), k(6)),
                 (k(16), k(6)), (k(14), k(6)), (k(15), k(6)), (k(16), k(6)), (k(17), k(6)), (k(18), k(6)), (k(6), k(6)),
                 (k(6), k(6)), (k(6), k(6)), (k(6), k(6)), (k(6), k(6)), (k(7), k(6))]); // fmt
    assert_rows(&rows, &want, "vegas");
    assert_eq!((r.counters.fast_retransmits, r.counters.retransmissions), (1, 2));
}

/// CUBIC with PRR (RFC 9438, RFC 6937, RFC 6675), SACK on. Third duplicate ACK: ssthresh =
/// β·FlightSize = 0.7·12 segments = 8400 bytes; W_max = 12. Pipe = 8 segments (2 is lost,
/// 3, 4, 6 SACKed, 5 and 7-13 in flight); pipe ≤ ssthresh, so PRR-SSRB: sndcnt = min(8400 −
/// 8000, max(1000, 1000) + 1000) = 400, raised to one segment for the fast retransmit:
/// cwnd = 9000. Next SACK (7): pipe 8 (2 retransmitted counts again), prr_delivered 2000,
/// prr_out 1000: sndcnt = min(400, 2000) → cwnd 8400. From the SACK of 8 on, 5 is lost
/// (3 SACKed above) and PRR holds cwnd = pipe + sndcnt = ssthresh = 8400 through the partial
/// and the full ACK. Avoidance then: K = ∛((12 − 8.4)/0.4) = ∛9 s, W_cubic(0) = 8.4 < W_est
/// = 8.4 + α_cubic/8.4 (α_cubic = 0.9/1.7): the Reno-friendly region, cwnd = W_est = 8463,
/// then + α_cubic/cwnd per ACK.
#[test]
fn deterministic_drops_cubic_prr() {
    let (r, rows) = drop_run(with(CcKind::Cubic, RecoveryKind::Prr));
    let mut want = OPENING.to_vec();
    want.push((9000, 8400));
    want.extend((0..9).map(|_| (8400, 8400))); // 7 SACKs, the partial ACK, the full ACK
    let a: f64 = 0.9 / 1.7;
    let w1: f64 = 8.4 + a / 8.4;
    let c1 = (w1 * 1000.0) as u64;
    want.push((c1, 8400));
    want.push((((w1 + a / (c1 as f64 / 1000.0)) * 1000.0) as u64, 8400));
    assert_rows(&rows, &want, "cubic");
    let c = r.counters;
    assert_eq!((c.fast_retransmits, c.retransmissions, c.spurious_retransmissions, c.timeouts), (1, 2, 0, 0));
}

/// Linux Reno with PRR: ssthresh = cwnd/2 = 6 segments. Third duplicate ACK: pipe 8 >
/// ssthresh, so proportional: ⌈1000·6000/12000⌉ = 500, raised to one segment: cwnd 9000;
/// next SACK: ⌈2000·½⌉ − 1000 = 0 → cwnd = pipe = 8000; then pipe ≤ ssthresh and cwnd =
/// ssthresh = 6000 to the end of recovery. Avoidance counts segments: after 6 acknowledged,
/// one more (the exit ACK itself does not count).
#[test]
fn deterministic_drops_linux_reno_prr() {
    let (r, rows) = drop_run(with(CcKind::LinuxReno, RecoveryKind::Prr));
    let mut want = OPENING.to_vec();
    want.extend([(9000, k(6)), (8000, k(6))]);
    want.extend((0..13).map(|_| (k(6), k(6)))); // to the exit, then 5 ACKs counted
    want.push((k(7), k(6)));
    assert_rows(&rows, &want, "linux-reno");
    assert_eq!((r.counters.fast_retransmits, r.counters.retransmissions), (1, 2));
    // RFC 5681 growth with the same PRR recovery: identical to the exit, then + SMSS²/cwnd.
    let (_, reno) = drop_run(with(CcKind::Reno, RecoveryKind::Prr));
    assert_rows(&reno, &want[..15], "reno/prr");
    assert_eq!(&reno[15..17], &[(6166, k(6)), (6328, k(6))]);
}

/// A paced loss later in the flow, for the estimators: 8.32 Mb/s (one 1040-byte packet per
/// ms, 1 MB/s of payload), 10 ms one way, cwnd capped at 30 segments (a standing queue of
/// 8), no delayed ACK; packet 2000 (t ≈ 2 s) dropped. ACKs arrive 1 ms apart and each sends
/// one segment, so every estimator sees exactly 1 MB/s: TIBET's inter-departure times are
/// all 1 ms (α^n of the start-up left, n ≈ 1950), Westwood+'s per-SRTT samples count one
/// segment per ms, and the Ideal TCP's fair share is the link, 8.32 Mb/s·1000/1040. RTT_min
/// is the first segment's: 1 ms + 20 ms + a 40-byte ACK's 38.462 µs.
fn paced_loss(cc: CcKind) -> (u64, Vec<(u64, u64)>) {
    use burstlab_core::time::tx_time;
    let tcp = TcpConfig { init_cwnd: 10, delayed_ack: false, max_cwnd: Some(30), ..with(cc, RecoveryKind::NewReno) };
    let link = LinkConfig::new(8_320_000, 10 * NS_PER_MS, 1000)
        .with_loss(Box::new(DeterministicList::new(&[2000], None).expect("valid drop list")), LossMode::Packet);
    let mut sc = Scenario::new(tcp, link, Workload::bulk(3 * NS_PER_S));
    sc.series = true;
    let r = run(sc).unwrap();
    let s = r.series.unwrap();
    let rows: Vec<(u64, u64)> = s.cwnd.iter().zip(&s.ssthresh).map(|(&c, &t)| (c, t)).collect();
    let rtt_min = tx_time(1040, 8_320_000) + 20 * NS_PER_MS + tx_time(40, 8_320_000);
    // The first loss response, from its row on.
    let first = rows.iter().position(|&(_, t)| t != INF).expect("a loss");
    (rtt_min, rows[first - 1..].to_vec())
}

/// After the paced loss: ssthresh = 1 MB/s × RTT_min = 21 038 bytes for TIBET (exactly, α^n
/// is below a byte) and the Ideal TCP; Westwood+'s per-SRTT samples are exact too but its
/// EWMA starts in slow start, 0.9^n later (n ≈ 80 samples of 24 ms): within 0.1 %. Then
/// the recovery: TIBET and Ideal set cwnd = ssthresh below the capped 30 segments, Westwood+
/// min(cwnd, ssthresh) = ssthresh; NewReno inflates by 3, then 1 per duplicate ACK.
#[test]
fn paced_loss_estimators() {
    for cc in [CcKind::Tibet, CcKind::Ideal, CcKind::Westwood] {
        let (rtt_min, rows) = paced_loss(cc);
        let want = (1e6 * rtt_min as f64 * 1e-9).round() as u64;
        assert_eq!(want, 21_038);
        assert_eq!(rows[0], (k(30), INF), "{cc:?}: capped window before the loss");
        let ss = rows[1].1;
        if cc == CcKind::Westwood {
            assert!(ss.abs_diff(want) <= want / 1000, "{cc:?}: ssthresh {ss}, want {want} ± 0.1 %");
        } else {
            assert_eq!(ss, want, "{cc:?}");
        }
        assert_eq!(rows[1].0, ss + k(3), "{cc:?}: cwnd = ssthresh + 3 segments");
        for i in 2..8 {
            assert_eq!(rows[i], (ss + k(2 + i as u64), ss), "{cc:?}: inflation, row {i}");
        }
        // The full ACK (one hole): cwnd = ssthresh.
        let exit = rows.iter().position(|&(c, _)| c == ss).expect("recovery ends");
        assert!(rows[2..exit].iter().all(|&(c, t)| t == ss && c > ss), "{cc:?}: {:?}", &rows[..exit + 1]);
    }
}

/// The drop-list scenario with ECN marks instead of drops: RED on the forward link with
/// w_q = 1 (the average is the queue itself) and min_th = 2.5, max_th = 3, not gentle, no
/// hard drop: every ECN-capable packet that finds 3 or more waiting is marked, no other. The
/// initial window of 10 leaves at t = 0: packet i finds i − 1 waiting, so packets 4-9 carry
/// CE; later packets find an empty queue.
fn ecn_run(tcp: TcpConfig) -> (burstlab_core::results::SimResult, Vec<(u64, u64)>) {
    use burstlab_core::link::{QueueDisc, RedParams};
    let tcp = TcpConfig { init_cwnd: 10, delayed_ack: false, ecn: true, ..tcp };
    let red = RedParams { min_th: 2.5, max_th: 3.0, weight: 1.0, gentle: false, hard_drop: false, ..RedParams::default() };
    let link = LinkConfig::new(1_000_000_000, 10 * NS_PER_MS, 1000).with_queue(QueueDisc::Red(red));
    let mut sc = Scenario::new(tcp, link, Workload::bulk(NS_PER_S));
    sc.reverse = Some(LinkConfig::new(1_000_000_000, 10 * NS_PER_MS, 1000));
    sc.series = true;
    let r = run(sc).unwrap();
    let s = r.series.clone().unwrap();
    let rows = s.cwnd.iter().zip(&s.ssthresh).map(|(&c, &t)| (c, t)).collect();
    (r, rows)
}

/// RFC 3168 §6.1.2-6.1.3 step by step (NewReno, one ACK per segment). ACKs 1-4: slow start
/// to 14. ACK 5 is the first with ECE (packet 4 carried CE): FlightSize = 18 − 5 = 13
/// segments, ssthresh = cwnd = 6.5 segments, no retransmission. The receiver echoes ECE
/// until the CWR segment (18, the first new one after the reduction, sent at ACK 13 when 5
/// segments remain in flight) reaches it: ACKs 6-18 carry ECE and neither grow nor reduce the
/// window again (they cover data sent before the reduction). ACK 19 has none: congestion
/// avoidance, + SMSS²/cwnd. One reduction, no loss.
#[test]
fn ecn_echo_trajectory() {
    let (r, rows) = ecn_run(TcpConfig::variant(burstlab_core::sim::Variant::NewReno));
    let mut want = vec![(k(10), INF), (k(11), INF), (k(12), INF), (k(13), INF), (k(14), INF)];
    want.extend((5..=18).map(|_| (6500, 6500))); // ACK 5 reduces; ACKs 6-18 hold
    want.push((6500 + 1_000_000 / 6500, 6500)); // ACK 19: no ECE
    want.push((6653 + 1_000_000 / 6653, 6500));
    assert_rows(&rows, &want, "newreno+ecn");
    let c = r.counters;
    assert_eq!((c.ecn_reductions, c.retransmissions, c.fast_retransmits, c.timeouts, c.packets_lost), (1, 0, 0, 0, 0));
    // CUBIC (RFC 9438 §4.6: ECE as a loss): ssthresh = cwnd = β·cwnd in whole segments (with
    // ssthresh_rule = cwnd, as Linux), ⌊0.7·14⌋ = 9, then held to the ACK of the CWR segment.
    let (r, rows) = ecn_run(TcpConfig { ssthresh_rule: burstlab_core::tcp::SsthreshRule::Cwnd, ..with(CcKind::Cubic, RecoveryKind::Prr) });
    assert_rows(&rows[..5], &want[..5], "cubic+ecn slow start");
    assert!(rows[5..19].iter().all(|&x| x == (9000, 9000)), "{:?}", &rows[5..20]);
    assert!(rows[19].0 > 9000 && r.counters.ecn_reductions == 1);
}

/// The handshake's sample (`TcpConfig::handshake`): before any data, SRTT = both delays plus
/// a 40-byte SYN each way (32 µs at 10 Mb/s): 20.064 ms, and RTO = SRTT + 4·SRTT/2, bounded
/// below by rto_min.
#[test]
fn handshake_seeds_the_rtt_estimator() {
    let tcp = TcpConfig { handshake: true, rto_min: 10 * NS_PER_MS, ..TcpConfig::default() };
    let mut sc = Scenario::new(tcp, LinkConfig::new(10_000_000, 10 * NS_PER_MS, 100), Workload::bulk(NS_PER_S));
    sc.series = true;
    let s = run(sc).unwrap().series.unwrap();
    assert_eq!((s.srtt[0], s.rto[0]), (20_064_000, 3 * 20_064_000));
    let mut plain = Scenario::new(TcpConfig::default(), LinkConfig::new(10_000_000, 10 * NS_PER_MS, 100), Workload::bulk(NS_PER_S));
    plain.series = true;
    let p = run(plain).unwrap().series.unwrap();
    assert_eq!((p.srtt[0], p.rto[0]), (0, NS_PER_S));
}

/// The invariants of `validation.rs` (contiguous delivery, nothing arrives unsent,
/// counters agree with the log, goodput ≤ capacity, every lost copy repaired or still
/// outstanding) over random scenarios drawn across every congestion control, recovery and
/// option of this module: timestamps, handshake, byte counting, the RTT congestion control
/// sees, PRR and Westwood+ variants, HyStart flavours, ssthresh rules, exit growth, RACK's
/// rule for lost retransmissions.
#[test]
fn invariants_hold_for_every_variant() {
    use burstlab_core::loss::{Bernoulli, GilbertElliott, LossModel};
    use burstlab_core::rng::{stream, uniform, RngExt};
    use burstlab_core::sim::{engine, AckLoss};
    use burstlab_core::tcp::config::{CcRtt, Hystart, PrrVariant, WestwoodVariant};
    use burstlab_core::tcp::SsthreshRule;
    let mut g = stream(2025, 11);
    let (mut lost, mut frs, mut tos) = (0, 0, 0);
    for case in 0..140 {
        let cc = [CcKind::Reno, CcKind::LinuxReno, CcKind::Westwood, CcKind::Tibet, CcKind::Ideal, CcKind::Vegas, CcKind::Cubic][g.random_range(0..7)];
        let recovery = [RecoveryKind::Tahoe, RecoveryKind::Reno, RecoveryKind::NewReno, RecoveryKind::Sack, RecoveryKind::Prr][g.random_range(0..5)];
        let b = |g: &mut burstlab_core::rng::Rng| g.random_range(0..2) == 0;
        let tcp = TcpConfig {
            cc,
            recovery,
            init_cwnd: g.random_range(1..11),
            delayed_ack: b(&mut g),
            rto_min: 200 * NS_PER_MS,
            rto_max: 10 * NS_PER_S,
            limited_transmit: b(&mut g),
            timestamps: b(&mut g),
            handshake: b(&mut g),
            abc: b(&mut g),
            grow_on_loss_exit: b(&mut g),
            grow_on_recovery_exit: b(&mut g),
            rwnd: if b(&mut g) { Some(g.random_range(4..200)) } else { None },
            cc_rtt: [CcRtt::Sample, CcRtt::Srtt][g.random_range(0..2)],
            prr_variant: [PrrVariant::Rfc, PrrVariant::Ns3, PrrVariant::Linux][g.random_range(0..3)],
            westwood_variant: [WestwoodVariant::Mascolo, WestwoodVariant::Ns3][g.random_range(0..2)],
            hystart: [Hystart::Off, Hystart::Linux, Hystart::Ns3][g.random_range(0..3)],
            tibet_estimator: [burstlab_core::tcp::config::TibetEstimator::Sent, burstlab_core::tcp::config::TibetEstimator::Ack][g.random_range(0..2)],
            ssthresh_rule: [SsthreshRule::FlightSize, SsthreshRule::Pipe, SsthreshRule::Cwnd, SsthreshRule::Ns3][g.random_range(0..4)],
            rack_lost_retransmissions: b(&mut g),
            rack_tlp: b(&mut g),
            rto_keeps_recovery_ssthresh: b(&mut g),
            cubic_variant: [burstlab_core::tcp::config::CubicVariant::Rfc, burstlab_core::tcp::config::CubicVariant::Linux, burstlab_core::tcp::config::CubicVariant::Ns3][g.random_range(0..3)],
            dupack_rule: [burstlab_core::tcp::config::DupackRule::Rfc5681, burstlab_core::tcp::config::DupackRule::Rfc6675, burstlab_core::tcp::config::DupackRule::Ns3][g.random_range(0..3)],
            pipe_rule: [burstlab_core::tcp::config::PipeRule::Rfc6675, burstlab_core::tcp::config::PipeRule::Ns3][g.random_range(0..2)],
            ..TcpConfig::default()
        };
        let rate = [1_000_000u64, 10_000_000, 100_000_000][g.random_range(0..3)];
        let delay = g.random_range(1..60) * NS_PER_MS;
        let buffer = g.random_range(2..200);
        let model: Box<dyn LossModel> = if b(&mut g) {
            Box::new(Bernoulli::new(uniform(&mut g) * 0.15).unwrap())
        } else {
            Box::new(GilbertElliott::from_prr_mu(0.7 + 0.3 * uniform(&mut g), uniform(&mut g) * 0.9).unwrap())
        };
        let workload = if g.random_range(0..3) == 0 {
            Workload { duration: Some(60 * NS_PER_S), size: Some(g.random_range(1..300_000)), warmup: 0 }
        } else {
            Workload::bulk(g.random_range(2..12) * NS_PER_S)
        };
        let mut sc = Scenario::new(tcp, LinkConfig::new(rate, delay, buffer).with_loss(model, LossMode::Packet), workload);
        sc.ack_loss = [AckLoss::None, AckLoss::Independent][g.random_range(0..2)];
        sc.seed = case;
        sc.log = true;
        let what = format!("case {case}: {cc:?}/{recovery:?} rate {rate} delay {delay} buffer {buffer} {workload:?}");
        let rto_max = sc.tcp.rto_max;
        let (r, log) = engine::run_logged(sc).unwrap();
        crate::validation::check_log(&r, &log, rate, rto_max, &what);
        (lost, frs, tos) = (lost + r.counters.packets_lost, frs + r.counters.fast_retransmits, tos + r.counters.timeouts);
    }
    eprintln!("every variant: {lost} lost, {frs} fast retransmits, {tos} timeouts");
    assert!(lost > 1000 && frs > 100 && tos > 50, "the cases exercised loss ({lost}), fast retransmits ({frs}), timeouts ({tos})");
}

#[test]
#[ignore]
fn dump_trajectories() {
    use CcKind::*;
    use RecoveryKind as R;
    for (cc, rec) in [(Westwood, R::NewReno), (Tibet, R::NewReno), (Ideal, R::NewReno), (Vegas, R::NewReno), (Cubic, R::Prr), (LinuxReno, R::Prr), (Reno, R::Prr)] {
        let (r, rows) = drop_run(with(cc, rec));
        let c = r.counters;
        eprintln!("{cc:?}/{rec:?}: FR {} retx {} spur {} TO {}", c.fast_retransmits, c.retransmissions, c.spurious_retransmissions, c.timeouts);
        for (i, (w, s)) in rows.iter().take(24).enumerate() {
            eprintln!("  {i:2} {w} {}", if *s == u64::MAX { "inf".to_string() } else { s.to_string() });
        }
    }
}
