//! LT-TCP in the engine (docs/validation.md, "LT-TCP").
use burstlab_core::link::{LossMode, QueueDisc, RedParams};
use burstlab_core::loss::Bernoulli;
use burstlab_core::results::SimResult;
use burstlab_core::sim::{run, LinkConfig, Scenario, TcpConfig, Variant, Workload};
use burstlab_core::time::{NS_PER_MS, NS_PER_S};

/// Subramanian et al.'s synthetic scenario: one flow, 10 Mb/s, RTT 100 ms, uniform
/// (Bernoulli) loss `p` on the data path, a RED/ECN queue.
fn subramanian(tcp: TcpConfig, p: f64, secs: u64, seed: u64) -> SimResult {
    let mut link = LinkConfig::new(10_000_000, 50 * NS_PER_MS, 250).with_queue(QueueDisc::Red(RedParams::default()));
    if p > 0.0 {
        link = link.with_loss(Box::new(Bernoulli::new(p).unwrap()), LossMode::Packet);
    }
    let mut sc = Scenario::new(tcp, link, Workload::bulk(secs * NS_PER_S));
    sc.seed = seed;
    run(sc).unwrap()
}

/// Mean goodput (bits/s) and its standard error over seeds 1..=n.
fn mean_se(tcp: &TcpConfig, p: f64, n: u64) -> (f64, f64) {
    let g: Vec<f64> = (1..=n).map(|seed| subramanian(tcp.clone(), p, 100, seed).goodput_bps).collect();
    let m = g.iter().sum::<f64>() / n as f64;
    let var = g.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1) as f64;
    (m, (var / n as f64).sqrt())
}

/// Subramanian et al.'s TCP SACK against LT-TCP (after Tickoo et al., Figs. 1 and 4): one
/// flow, 10 Mb/s, RTT 100 ms, uniform loss of data packets, a RED/ECN queue (ns-2's and
/// ns-3's default thresholds), 100 s runs, 10 seeds each (docs/validation.md, "LT-TCP";
/// the whole curve: `benchmarks/lt_tcp/subramanian.py`).
/// - TCP SACK collapses beyond 5 %: below 5 % of its lossless goodput at 5 % and 10 % loss
///   (mean + 2 standard errors).
/// - LT-TCP keeps at least 40 % of its lossless goodput at 30 % loss, and degrades roughly
///   linearly: its shares at 10 % and 20 % loss lie within 0.1 (+ 2 standard errors) of the
///   straight line from the lossless point to the 30 % one, decreasing. With RFC 5681's
///   per-ACK growth (the RFC default, ns-2's) the share at 30 % is 0.43 ± 0.04: one ECN
///   reduction or two, after which the window regrows by one ACK's share per block decoded,
///   decide each run; with RFC 3465 byte counting (`abc`) 0.54 ± 0.013, asserted with 2
///   standard errors to spare.
#[test]
fn subramanian_lt_tcp_against_sack() {
    let sack = TcpConfig::variant(Variant::Sack);
    let (s0, _) = mean_se(&sack, 0.0, 10);
    for p in [0.05, 0.1] {
        let (m, se) = mean_se(&sack, p, 10);
        eprintln!("SACK {p}: {:.4} ± {:.4} of {:.3} Mb/s", m / s0, se / s0, s0 / 1e6);
        assert!(m + 2.0 * se < 0.05 * s0, "SACK at {p}: {m} of {s0}");
    }
    for abc in [false, true] {
        let lt = TcpConfig { abc, ..TcpConfig::variant(Variant::LtTcp) };
        let (g0, se0) = mean_se(&lt, 0.0, 10);
        let share: Vec<(f64, f64)> = [0.1, 0.2, 0.3]
            .iter()
            .map(|&p| {
                let (m, se) = mean_se(&lt, p, 10);
                // The ratio's standard error, both means independent.
                (m / g0, (m / g0) * ((se / m).powi(2) + (se0 / g0).powi(2)).sqrt())
            })
            .collect();
        eprintln!("LT-TCP (abc {abc}): lossless {:.3} Mb/s; shares at 10, 20, 30 %: {share:.3?}", g0 / 1e6);
        let (s30, e30) = share[2];
        if abc {
            assert!(s30 - 2.0 * e30 >= 0.4, "LT-TCP with byte counting at 30 %: {s30:.3} ± {e30:.3}");
        } else {
            assert!(s30 >= 0.4, "LT-TCP at 30 %: {s30:.3} ± {e30:.3}");
        }
        for (i, &(s, e)) in share[..2].iter().enumerate() {
            let line = 1.0 - (1.0 - s30) * (i + 1) as f64 / 3.0;
            assert!((s - line).abs() <= 0.1 + 2.0 * (e + e30), "abc {abc}: share {s:.3} at {}0 %, the line {line:.3}", i + 1);
        }
        assert!(share.windows(2).all(|w| w[1].0 < w[0].0) && share[0].0 < 1.0, "{share:?}");
    }
}

/// The drop-list scenario of `validation.rs` (1 Gb/s: a 1040-byte packet takes 8320 ns;
/// 10 ms one way; initial window 10; one ACK per segment) for LT-TCP with fixed 1000-byte
/// segments, an initial erasure estimate of 0.2, a transfer of 16 000 bytes (16 data
/// segments), the packets `drops` (1-based, in the order they enter the link) lost.
///
/// Blocks by `Lt::form_block`: block 0 = the initial window, N = 10, P = ⌈10·0.2⌉ = 2: data
/// slots 0-7, parity 8-9. Block 1 is formed when slot 10 leaves at the first ACK (cwnd 11
/// segments: N = 11, P = 3, k = 8), and the 8 segments left fit, so P = ⌈8·0.2/0.8⌉ = 2: data
/// 10-17, parity 18-19; the transfer is 20 slots.
fn lt_drop_run(drops: &[u64]) -> (SimResult, Vec<(u64, u64)>, Vec<burstlab_core::sim::LogRec>) {
    lt_drop_run_queue(drops, QueueDisc::DropTail)
}

fn lt_drop_run_queue(drops: &[u64], q: QueueDisc) -> (SimResult, Vec<(u64, u64)>, Vec<burstlab_core::sim::LogRec>) {
    use burstlab_core::loss::DeterministicList;
    use burstlab_core::sim::engine::run_logged;
    let tcp = TcpConfig {
        init_cwnd: 10,
        delayed_ack: false,
        lt_adaptive_mss: false,
        lt_initial_erasure: 0.2,
        ..TcpConfig::variant(Variant::LtTcp)
    };
    let link = LinkConfig::new(1_000_000_000, 10 * NS_PER_MS, 1000)
        .with_loss(Box::new(DeterministicList::new(drops, None).expect("valid drop list")), LossMode::Packet)
        .with_queue(q);
    let mut sc = Scenario::new(tcp, link, Workload::transfer(16_000));
    sc.reverse = Some(LinkConfig::new(1_000_000_000, 10 * NS_PER_MS, 1000));
    sc.series = true;
    sc.log = true;
    let (r, log) = run_logged(sc).unwrap();
    let s = r.series.clone().unwrap();
    let rows = s.cwnd.iter().zip(&s.ssthresh).map(|(&c, &t)| (c, t)).collect();
    (r, rows, log)
}

const INF: u64 = u64::MAX;

/// Two losses in block 0 (slots 2 and 5), no more than its parity. The receiver holds 0, 1,
/// 3, 4, 6, 7 and the parity 8; the parity 9 is its 8th symbol: the block decodes at 9's
/// arrival (10 ms + 10·8320 ns) and ACK 10 goes out. The sender: slow start on ACKs 1 and 2
/// (11, 12 segments), five duplicate ACKs (for 3, 4, 6, 8, 9) that neither reduce nor grow
/// the window — LT-TCP does not treat the holes as congestion, and IsLost's two lost slots
/// are within the block's parity, so no RFEC — then ACK 10: slow start, one segment. Block
/// 1's data all arrive, which completes it: the transfer is complete when slot 17 arrives
/// (the run stops before its parity 18-19 would arrive, wasted). No retransmission, no RFEC,
/// no reduction.
#[test]
fn pfec_repairs_losses_within_the_parity() {
    use burstlab_core::sim::LogEvent;
    let (r, rows, log) = lt_drop_run(&[3, 6]);
    let mut want = vec![(10_000, INF), (11_000, INF), (12_000, INF)];
    want.extend([(12_000, INF); 5]); // duplicate ACKs for slots 3, 4, 6, 8, 9
    want.push((13_000, INF)); // ACK 10 (the decode); the transfer completes before ACK 11
    assert_eq!(rows, want);
    let decode = log.iter().find(|x| x.event == LogEvent::Delivered && x.seg == 2).expect("slot 2 delivered");
    assert_eq!((decode.t, decode.to), (10_000_000 + 10 * 8320, 10), "block 0 decoded at parity 9's arrival");
    let c = r.counters;
    assert_eq!((c.retransmissions, c.rfec_sent, c.pfec_sent, c.fec_decodes, c.fec_wasted), (0, 0, 4, 1, 0));
    assert_eq!((c.fast_retransmits, c.timeouts, c.channel_losses, c.delivered_bytes, c.delivered_segments), (0, 0, 2, 16_000, 16));
    assert!(rows.iter().all(|&(_, ss)| ss == INF), "a loss reduced the window");
    // Completion: slot 17 (the 18th packet sent: 10 at 0, 10-17 from the first ACKs) arrives.
    let last = log.iter().filter(|x| x.event == LogEvent::Delivered).next_back().unwrap();
    assert_eq!((last.seg, last.to), (17, 20));
    assert_eq!(r.completion_time, Some(last.t as f64 / 1e9));
}

/// Three losses in block 0 (slots 2, 5, 7): one beyond its parity. Slot 7 is IsLost once three
/// slots above it are SACKed: 8, 9, and 10 (sent at ACK 1, 20 ms + 8320 + 320 ns), whose
/// duplicate ACK reaches the sender at 40 ms + 2·8320 + 2·320 ns; the block lacks 3 − 2 = 1 symbol, so ⌈1/(1 − 0.2)⌉ = 2 RFEC packets leave at
/// once, ahead of anything else. The first decodes block 0 on arrival, and with block 1
/// already whole (slots 10-17) the transfer completes then. The window: slow start on ACKs 1
/// and 2, then 15 duplicate ACKs (for 3, 4, 6, 8, 9 and block 1's ten slots), no reduction.
#[test]
fn rfec_repairs_losses_beyond_the_parity() {
    use burstlab_core::sim::LogEvent;
    let (r, rows, log) = lt_drop_run(&[3, 6, 8]);
    let mut want = vec![(10_000, INF), (11_000, INF), (12_000, INF)];
    want.extend([(12_000, INF); 15]);
    assert_eq!(rows, want);
    // The two RFEC packets: sent with the segment number of their block's start (0), at the
    // duplicate ACK of slot 10.
    let t_rfec = 40_000_000 + 2 * 8320 + 2 * 320;
    let rfec: Vec<_> = log.iter().filter(|x| x.event == LogEvent::Sent && x.kind == burstlab_core::sim::LogKind::Data && x.t == t_rfec).collect();
    assert_eq!(rfec.iter().map(|x| x.seg).collect::<Vec<_>>(), vec![0, 0]);
    let c = r.counters;
    assert_eq!((c.retransmissions, c.rfec_sent, c.pfec_sent, c.fec_decodes), (0, 2, 4, 1));
    assert_eq!((c.fast_retransmits, c.timeouts, c.channel_losses, c.delivered_segments), (0, 0, 3, 16));
    // Decoded when the first RFEC arrives (one 1040-byte packet time after it left, + 10 ms).
    assert_eq!(r.completion_time, Some((t_rfec + 8320 + 10_000_000) as f64 / 1e9));
}

/// ECN is LT-TCP's congestion signal: the same two losses, and a RED queue that marks
/// every packet finding 3 or more waiting (w_q = 1, thresholds 2.5-3, as in
/// `trajectories::ecn_echo_trajectory`): the initial window's slots 4-9 carry CE. The losses
/// reduce nothing (PFEC repairs them, as in `pfec_repairs_losses_within_the_parity`); the
/// first ECE, on the duplicate ACK for slot 4, halves the window: the RFC 6675 pipe (LT-TCP's
/// flight: slots 2 and 5-14, with 3 and 4 SACKed and nothing IsLost yet) is 11 segments, so
/// ssthresh = cwnd = 5.5 segments. Every later ACK carries ECE until the CWR slot (15, the
/// first sent after the reduction) arrives, and none reduces or grows the window again; the
/// transfer completes first. One reduction, no retransmission.
#[test]
fn ecn_is_the_only_window_cut() {
    let red = RedParams { min_th: 2.5, max_th: 3.0, weight: 1.0, gentle: false, hard_drop: false, ..RedParams::default() };
    let (r, rows, log) = lt_drop_run_queue(&[3, 6], QueueDisc::Red(red));
    let mut want = vec![(10_000, INF), (11_000, INF), (12_000, INF), (12_000, INF)]; // start, ACK 1, ACK 2, dup (slot 3)
    want.extend([(5_500, 5_500); 10]); // dups for 4 (ECE: reduce), 6, 8, 9; ACK 10 (decode); ACKs 11-15
    assert_eq!(rows, want);
    let c = r.counters;
    assert_eq!((c.ecn_reductions, c.retransmissions, c.rfec_sent, c.fec_decodes, c.timeouts), (1, 0, 0, 1, 0));
    let cwr = log.iter().find(|x| x.kind == burstlab_core::sim::LogKind::Data && x.seg == 15).expect("slot 15 sent");
    assert_eq!(cwr.t, 40_000_000 + 2 * 8320 + 2 * 320, "slot 15 leaves at ACK 11 (slot 10 was sent at ACK 1)");
}

/// LT-TCP over random scenarios (its every option, DropTail or RED, Bernoulli or
/// Gilbert-Elliott loss up to 30 %, ACK loss, delayed ACKs, transfers and bulk): in-order
/// delivery without gaps, counters that agree with the log, goodput within capacity, and
/// every transfer over a path whose ACKs are not lost complete — no stall that only the end
/// of the run would hide. (With both directions losing up to 30 %, a transfer can take
/// longer than the run: each timeout's retransmission or its ACK is lost about half the
/// time, and the timer doubles; that is TCP's last resort, not a stall.)
#[test]
fn lt_invariants_on_random_scenarios() {
    use burstlab_core::loss::{GilbertElliott, LossModel};
    use burstlab_core::rng::{stream, uniform, RngExt};
    use burstlab_core::sim::engine::run_logged;
    use burstlab_core::sim::{AckLoss, LogEvent, LogKind};
    let mut g = stream(2026, 11);
    let (mut decodes, mut rfec, mut retx, mut tos, mut done) = (0, 0, 0, 0, 0);
    for case in 0..60 {
        let b = |g: &mut burstlab_core::rng::Rng| g.random_range(0..2) == 0;
        let mss = [500u64, 1000, 1460][g.random_range(0..3)];
        let tcp = TcpConfig {
            init_cwnd: g.random_range(1..11),
            mss,
            delayed_ack: b(&mut g),
            timestamps: b(&mut g),
            abc: b(&mut g),
            rto_min: 200 * NS_PER_MS,
            lt_pfec: g.random_range(0..4) > 0,
            lt_rfec: g.random_range(0..4) > 0,
            lt_adaptive_mss: b(&mut g),
            lt_granularity: g.random_range(1..20),
            lt_mss_min: g.random_range(100..=mss),
            lt_erasure_gain: 0.05 + 0.95 * uniform(&mut g),
            lt_initial_erasure: 0.3 * uniform(&mut g),
            lt_max_block: g.random_range(2..300),
            ..TcpConfig::variant(Variant::LtTcp)
        };
        let rate = [1_000_000u64, 10_000_000, 50_000_000][g.random_range(0..3)];
        let delay = g.random_range(1..60) * NS_PER_MS;
        let p = 0.3 * uniform(&mut g);
        let model: Box<dyn LossModel> = if b(&mut g) {
            Box::new(Bernoulli::new(p).unwrap())
        } else {
            Box::new(GilbertElliott::from_prr_mu(1.0 - p, 0.8 * uniform(&mut g)).unwrap())
        };
        let queue = if g.random_range(0..4) > 0 { QueueDisc::Red(RedParams::default()) } else { QueueDisc::DropTail };
        let size = g.random_range(1..400_000u64);
        let workload = if b(&mut g) { Workload { duration: Some(600 * NS_PER_S), size: Some(size), warmup: 0 } } else { Workload::bulk(g.random_range(5..30) * NS_PER_S) };
        let link = LinkConfig::new(rate, delay, g.random_range(5..300)).with_loss(model, LossMode::Packet).with_queue(queue);
        let mut sc = Scenario::new(tcp, link, workload);
        let ack_loss = [AckLoss::None, AckLoss::Independent][g.random_range(0..4) / 3];
        sc.ack_loss = ack_loss;
        sc.seed = case;
        sc.log = true;
        let what = format!("case {case}: rate {rate} delay {delay} p {p:.3} {workload:?} {:?}", sc.tcp);
        let (r, log) = run_logged(sc).unwrap();
        let c = r.counters;
        let (mut next, mut sent, mut sent_retx) = (0u64, 0u64, 0u64);
        for rec in log.iter().filter(|x| x.kind == LogKind::Data) {
            match rec.event {
                LogEvent::Sent => (sent, sent_retx) = (sent + 1, sent_retx + rec.retx as u64),
                LogEvent::Delivered => {
                    assert_eq!(rec.seg, next, "{what}: delivery gap or repeat");
                    assert!(rec.to > rec.seg, "{what}");
                    next = rec.to;
                }
                _ => {}
            }
        }
        assert_eq!((sent, sent_retx), (c.packets_sent, c.retransmissions), "{what}");
        assert!(c.pfec_sent + c.rfec_sent + c.retransmissions <= c.packets_sent, "{what}");
        assert!(c.delivered_segments <= next && c.delivered_bytes <= c.arrived_bytes, "{what}");
        assert!(r.goodput_bps <= rate as f64 * mss as f64 / (mss + 40) as f64 * 1.0001, "{what}: goodput {}", r.goodput_bps);
        if workload.size.is_some() && ack_loss == AckLoss::None {
            assert!(r.completion_time.is_some(), "{what}: the transfer did not complete in 600 s ({c:?})");
            assert_eq!(c.delivered_bytes, size, "{what}");
            done += 1;
        }
        (decodes, rfec, retx, tos) = (decodes + c.fec_decodes, rfec + c.rfec_sent, retx + c.retransmissions, tos + c.timeouts);
    }
    eprintln!("LT-TCP: {done} transfers complete, {decodes} decodes, {rfec} RFEC, {retx} retransmissions, {tos} timeouts");
    assert!(done > 12 && decodes > 1000 && rfec > 1000 && retx > 100 && tos > 10, "the cases exercised FEC and the last resorts");
}

#[test]
#[ignore]
fn dump_lt_drops() {
    let drops: Vec<u64> = std::env::var("LT_DROPS").unwrap_or("3,6,8".into()).split(',').map(|x| x.parse().unwrap()).collect();
    let (r, rows, log) = lt_drop_run(&drops);
    for r in log.iter().take(120) {
        eprintln!("{:12} {:?} {:?} link {} seg {} to {} retx {}", r.t, r.event, r.kind, r.link as i64, r.seg, r.to, r.retx);
    }
    eprintln!("{:?}", &rows[..rows.len().min(40)]);
    eprintln!("{:?}", r.counters);
}
