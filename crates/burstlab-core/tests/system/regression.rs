//! Regression of the single-link scenario across the network redesign: the engine that
//! simulated one flow over one forward and one reverse link produced the fingerprints in
//! `regression_fixture.txt` (every counter, the goodput's bits, the event count, the end
//! time) for 160 scenarios; the network engine, given the same `Scenario`, must produce
//! them bit for bit. Regenerate only for a change that is meant to move them, and say why
//! in the commit: `cargo test -p burstlab-core --release regression_dump -- --ignored --nocapture`.
use burstlab_core::sim::*;
use burstlab_core::link::LossMode;
use burstlab_core::loss::{on_off, Bernoulli, GilbertElliott, LossModel};
use burstlab_core::rng::{stream, uniform, RngExt};
use burstlab_core::time::{NS_PER_MS, NS_PER_S};
use burstlab_core::trace::BitTrace;

/// The cases: 120 random link scenarios (the generator of the invariants test) and 40
/// slotted trace-driven runs.
fn cases() -> Vec<(String, Scenario)> {
    let mut out = Vec::new();
    let mut g = stream(77, 3);
    for case in 0..120u64 {
        let variant = [Variant::Tahoe, Variant::Reno, Variant::NewReno, Variant::Sack][g.random_range(0..4)];
        let rate = [1_000_000u64, 10_000_000, 100_000_000][g.random_range(0..3)];
        let delay = g.random_range(1..60) * NS_PER_MS;
        let buffer = g.random_range(1..200);
        let model: Box<dyn LossModel> = match g.random_range(0..3) {
            0 => Box::new(Bernoulli::new(uniform(&mut g) * 0.2).unwrap()),
            1 => Box::new(GilbertElliott::from_prr_mu(0.6 + 0.4 * uniform(&mut g), uniform(&mut g) * 0.9).unwrap()),
            _ => Box::new(on_off(0.5 + uniform(&mut g), 0.05 + 0.1 * uniform(&mut g), NS_PER_MS).unwrap()),
        };
        let mode = if g.random_range(0..2) == 0 { LossMode::Packet } else { LossMode::Time };
        let tcp = TcpConfig {
            delayed_ack: g.random_range(0..2) == 0,
            init_cwnd: g.random_range(1..11),
            max_cwnd: if g.random_range(0..3) == 0 { Some(g.random_range(2..64)) } else { None },
            rwnd: if g.random_range(0..4) == 0 { Some(g.random_range(4..64)) } else { None },
            rto_min: 200 * NS_PER_MS,
            rto_max: 10 * NS_PER_S,
            limited_transmit: g.random_range(0..2) == 0,
            ..TcpConfig::variant(variant)
        };
        let workload = match g.random_range(0..4) {
            0 => Workload { duration: Some(60 * NS_PER_S), size: Some(g.random_range(1..400_000)), warmup: 0 },
            1 => Workload { duration: Some(g.random_range(4..20) * NS_PER_S), size: None, warmup: 2 * NS_PER_S },
            _ => Workload::bulk(g.random_range(2..20) * NS_PER_S),
        };
        let mut link = LinkConfig::new(rate, delay, buffer).with_loss(model, mode);
        if g.random_range(0..4) == 0 {
            link = link.with_unit(burstlab_core::link::BufferUnit::Bytes);
            link.buffer *= 1040;
        }
        transit(&mut link);
        let mut sc = Scenario::new(tcp, link, workload);
        sc.ack_loss = [AckLoss::None, AckLoss::Independent, AckLoss::Sync][g.random_range(0..3)];
        sc.seed = case;
        out.push((format!("link{case}"), sc));
    }
    for case in 0..40u64 {
        let prr = 0.2 + 0.7 * uniform(&mut g);
        let mut m = GilbertElliott::from_prr_mu(prr, uniform(&mut g) * 0.8).unwrap();
        let mut r = stream(case, 9);
        let mut trace = BitTrace::new();
        m.sample_into(g.random_range(2_000..20_000), &mut r, &mut trace);
        let variant = [Variant::Tahoe, Variant::Reno, Variant::NewReno, Variant::Sack][g.random_range(0..4)];
        let tcp = TcpConfig {
            rto_min: NS_PER_S,
            rto_max: 60 * NS_PER_S,
            ack_timeout: 300 * NS_PER_MS,
            max_cwnd: Some(130),
            rto_backoff_reset: if g.random_range(0..2) == 0 {
                burstlab_core::tcp::rtt::BackoffReset::Sample
            } else {
                burstlab_core::tcp::rtt::BackoffReset::NewAck
            },
            ..TcpConfig::variant(variant)
        };
        let ack_path = if g.random_range(0..2) == 0 { AckPath::Lossless } else { AckPath::Trace };
        out.push((format!("slot{case}"), Scenario::slotted(tcp, trace, 10 * NS_PER_MS, ack_path, case)));
    }
    out
}

/// Time-mode cases keep the loss window the fixture was made with (the whole transit).
fn transit(link: &mut LinkConfig) {
    link.loss_window = burstlab_core::link::LossWindow::Transit;
}

/// `warmup`: the run has a warm-up, over which the old engine counted as spurious the
/// duplicates of copies sent before it (up to more than `retransmissions`); the network
/// engine counts only copies sent after it, so that field is left out of those lines.
fn fingerprint(name: &str, r: &burstlab_core::results::SimResult, warmup: bool) -> String {
    let c = &r.counters;
    let spurious = if warmup { "-".to_string() } else { c.spurious_retransmissions.to_string() };
    format!(
        "{name} {} {} {} {} {} {} {} {} {} {} {} {} {} {:016x} {:016x} {} {} {:?}",
        c.packets_sent,
        c.packets_lost,
        c.channel_losses,
        c.queue_drops,
        c.retransmissions,
        spurious,
        c.fast_retransmits,
        c.timeouts,
        c.acks_sent,
        c.acks_lost,
        c.arrived_bytes,
        c.delivered_bytes,
        c.delivered_segments,
        r.goodput_bps.to_bits(),
        r.throughput_bps.to_bits(),
        r.events,
        r.end_time,
        r.completion_time.map(f64::to_bits),
    )
}

#[test]
#[ignore]
fn regression_dump() {
    for (name, sc) in cases() {
        let warm = sc.workload.warmup > 0;
        println!("{}", fingerprint(&name, &run(sc).unwrap(), warm));
    }
}

#[test]
fn single_flow_regression() {
    let want: Vec<&str> = include_str!("regression_fixture.txt").lines().collect();
    let cases = cases();
    assert_eq!(want.len(), cases.len());
    let mut bad = Vec::new();
    for ((name, sc), w) in cases.into_iter().zip(want) {
        let warm = sc.workload.warmup > 0;
        let got = fingerprint(&name, &run(sc).unwrap(), warm);
        if got != w {
            bad.push(format!("want {w}\n got {got}"));
        }
    }
    assert!(bad.is_empty(), "{} of 160 fingerprints moved:\n{}", bad.len(), bad.join("\n"));
}
