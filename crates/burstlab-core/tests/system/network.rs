//! Validation of the network engine (docs/validation.md, "Networks"): chains, dumbbells,
//! time-varying capacity, half-duplex hops, cross traffic, the time-mode loss window,
//! spurious timeouts, and invariants over random topologies checked on the per-packet log.
use burstlab_core::sim::*;
use burstlab_core::sim::engine::{needs_full, run_network_full};
use burstlab_core::link::{BufferUnit, LossMode, LossWindow, Opportunities, Timing};
use burstlab_core::loss::{on_off, Bernoulli, GilbertElliott, LossModel, Sojourn};
use burstlab_core::results::{FlowKindTag, NetworkResult};
use burstlab_core::rng::{stream, uniform, RngExt};
use burstlab_core::time::{Nanos, NS_PER_MS, NS_PER_S};

/// A full-duplex hop: a forward and a lossless reverse link, each on its own server.
fn hop(net: &mut Network, name: &str, rate: u64, delay: Nanos, buffer: u64) -> (usize, usize) {
    let a = net.server(Timing::Rate { rate_bps: rate });
    let b = net.server(Timing::Rate { rate_bps: rate });
    let f = net.link(LinkSpec::new(name, a, delay, buffer));
    let r = net.link(LinkSpec::new(&format!("{name}.rev"), b, delay, buffer));
    (f, r)
}

fn tcp(net: &mut Network, name: &str, cfg: TcpConfig, fwd: Vec<usize>, rev: Vec<usize>) -> usize {
    net.flow(FlowSpec::tcp(name, cfg, fwd, rev))
}

/// Bandwidth-delay product in 1040-byte packets (at least 2).
fn bdp(rate: u64, rtt: Nanos) -> u64 {
    ((rate as f64 * rtt as f64 / 1e9 / 8.0 / 1040.0).ceil() as u64).max(2)
}

/// Lossless chain of 4 hops of different capacities, the slowest 4 Mb/s, with a buffer of
/// one bandwidth-delay product, 300 s: goodput ≥ 95 % of the slowest hop (the payload share
/// of a 1040-byte packet is 96.2 %; the start-up overshoot costs one timeout), and never
/// above its payload share.
#[test]
fn lossless_chain_reaches_the_slowest_hop() {
    let rates = [10_000_000u64, 4_000_000, 20_000_000, 8_000_000];
    let delays = [5, 10, 2, 8].map(|ms| ms * NS_PER_MS);
    let rtt: Nanos = 2 * delays.iter().sum::<Nanos>();
    let buffer = bdp(4_000_000, rtt);
    for v in [Variant::NewReno, Variant::Sack] {
        let mut net = Network::new(300 * NS_PER_S);
        let hops: Vec<_> = (0..4).map(|k| hop(&mut net, &format!("h{k}"), rates[k], delays[k], buffer)).collect();
        let fwd = hops.iter().map(|h| h.0).collect();
        let rev = hops.iter().rev().map(|h| h.1).collect();
        tcp(&mut net, "f", TcpConfig::variant(v), fwd, rev);
        let r = run_network(net).unwrap();
        let g = r.flows[0].result.goodput_bps;
        eprintln!("chain {v:?}: goodput {:.4} Mb/s = {:.4} of the slowest hop", g / 1e6, g / 4e6);
        assert!(g >= 0.95 * 4e6, "{v:?}: {g}");
        assert!(g <= 4e6 * 1000.0 / 1040.0, "{v:?}: {g}");
        // The slowest hop is the busy one; the others idle part of the time.
        let u: Vec<f64> = r.links.iter().step_by(2).map(|l| l.utilisation).collect();
        assert!(u[1] > 0.98 && u[0] < 0.41 && u[2] < 0.21, "{u:?}");
    }
}

/// The dumbbell preset of the Rust tests: N flows, each with its own access hop (100 Mb/s,
/// its own delay) into one bottleneck hop and back.
fn dumbbell(n: usize, rate: u64, delay: Nanos, access: &[Nanos], buffer: u64, secs: u64) -> Network {
    let mut net = Network::new(secs * NS_PER_S);
    let (bf, br) = hop(&mut net, "bottleneck", rate, delay, buffer);
    for (k, &d) in access.iter().enumerate().take(n) {
        let (af, ar) = hop(&mut net, &format!("access{k}"), 100_000_000, d, 1000);
        tcp(&mut net, &format!("f{k}"), TcpConfig::default(), vec![af, bf], vec![br, ar]);
    }
    net
}

/// Ten identical NewReno flows on a 2 and a 10 Mb/s bottleneck with a BDP buffer, 300 s:
/// Jain's index ≥ 0.95 and the aggregate goodput ≥ 95 % of the bottleneck's capacity.
#[test]
fn dumbbell_ten_flows_share_fairly() {
    for rate in [2_000_000u64, 10_000_000] {
        let delay = 20 * NS_PER_MS;
        let access = [5 * NS_PER_MS; 10];
        let rtt = 2 * (delay + access[0]);
        let net = dumbbell(10, rate, delay, &access, bdp(rate, rtt), 300);
        let r = run_network(net).unwrap();
        let agg = r.aggregate_goodput_bps;
        let jain = r.jain_index.unwrap();
        eprintln!("dumbbell {} Mb/s: aggregate {:.4} of capacity, Jain {:.4}", rate / 1_000_000, agg / rate as f64, jain);
        assert!(jain >= 0.95, "Jain {jain}");
        assert!(agg >= 0.95 * rate as f64, "aggregate {agg}");
        assert!(agg <= rate as f64 * 1000.0 / 1040.0);
        assert!(r.links[0].counters.queue_drops > 0, "the flows must contend");
    }
}

/// Flows with different RTTs through a DropTail bottleneck: the short-RTT flow gets more
/// (TCP's known RTT bias), so Jain's index is below that of identical flows.
#[test]
fn dumbbell_rtt_bias() {
    let net = dumbbell(2, 10_000_000, 10 * NS_PER_MS, &[NS_PER_MS, 80 * NS_PER_MS], 50, 200);
    let r = run_network(net).unwrap();
    let (a, b) = (r.flows[0].result.goodput_bps, r.flows[1].result.goodput_bps);
    assert!(a > 1.5 * b, "short RTT {a}, long RTT {b}");
    assert!(r.jain_index.unwrap() < 0.95);
}

/// A time-varying link with a large buffer: a bulk flow gets ≥ 90 % of the schedule's own
/// mean capacity over the run and never more.
#[test]
fn opportunity_capacity_is_used_and_never_exceeded() {
    // A bursty synthetic schedule: 1-4 opportunities per ms in 500 ms phases.
    let mut at = Vec::new();
    let mut g = stream(5, 5);
    for ms in 1..=10_000u64 {
        let k = 1 + ((ms / 500) % 4) + g.random_range(0..2);
        for _ in 0..k {
            at.push(ms * NS_PER_MS);
        }
    }
    let o = Opportunities::new(at, 1500).unwrap();
    let cap = o.mean_rate_bps();
    let mut net = Network::new(60 * NS_PER_S);
    let s = net.server(Timing::Opportunities(o));
    let f = net.link(LinkSpec::new("cell", s, 20 * NS_PER_MS, 2000));
    let (_, r) = hop(&mut net, "wired", 100_000_000, 20 * NS_PER_MS, 1000);
    tcp(&mut net, "f", TcpConfig::default(), vec![f], vec![r]);
    let res = run_network(net).unwrap();
    let wire = res.links[0].counters.bytes_sent as f64 * 8.0 / 60.0;
    eprintln!("opportunities: {:.3} Mb/s of {:.3} ({:.3})", wire / 1e6, cap / 1e6, wire / cap);
    assert!(wire >= 0.9 * cap && wire <= cap * 1.001, "{wire} of {cap}");
}

/// Each Mahimahi trace of the shared data, as the downlink of a cellular path with a
/// large buffer: ≥ 90 % of the trace's own mean capacity, never more.
#[test]
fn mahimahi_traces_are_saturated() {
    let root = std::env::var("BURSTLAB_SHARED").unwrap_or_else(|_| "../../../shared".into());
    let dir = std::path::Path::new(&root).join("data/mahimahi-cellular");
    let names = ["TMobile-LTE-short.down", "TMobile-LTE-short.up", "Verizon-LTE-short.down", "Verizon-LTE-short.up"];
    for name in names {
        let text = std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("{}: {e} (set BURSTLAB_SHARED to the shared folder)", dir.join(name).display()));
        let at: Vec<Nanos> = text.lines().map(|l| l.trim().parse::<u64>().unwrap() * NS_PER_MS).collect();
        let o = Opportunities::new(at, 1500).unwrap();
        let (cap, period) = (o.mean_rate_bps(), o.period());
        let mut net = Network::new(period);
        let s = net.server(Timing::Opportunities(o));
        let f = net.link(LinkSpec::new("cell", s, 20 * NS_PER_MS, 10_000));
        let (_, r) = hop(&mut net, "wired", 1_000_000_000, 20 * NS_PER_MS, 10_000);
        tcp(&mut net, "f", TcpConfig::default(), vec![f], vec![r]);
        let res = run_network(net).unwrap();
        let wire = res.links[0].counters.bytes_sent as f64 * 8.0 / (period as f64 / 1e9);
        eprintln!("{name}: {:.3} of {:.3} Mb/s ({:.3})", wire / 1e6, cap / 1e6, wire / cap);
        assert!(wire >= 0.9 * cap && wire <= cap * 1.001, "{name}: {wire} of {cap}");
    }
}

/// The time-mode loss window: on a 10 %-bad ON/OFF channel (good 1.8 s, bad 0.2 s) the
/// loss rate does not depend on the propagation delay when only the serialisation is
/// exposed, and grows with it when the whole transit is (the earlier behaviour).
#[test]
fn time_mode_loss_rate_does_not_depend_on_the_delay() {
    let rate_at = |delay: Nanos, window: LossWindow, seed: u64| {
        let mut net = Network::new(2000 * NS_PER_S);
        net.seed = seed;
        let a = net.server(Timing::Rate { rate_bps: 1_000_000 });
        let b = net.server(Timing::Rate { rate_bps: 1_000_000 });
        let mut l = LinkSpec::new("ch", a, delay, 1000);
        l.loss = LinkLoss::Own(Box::new(on_off(1.8, 0.2, NS_PER_MS).unwrap()), LossMode::Time);
        l.loss_window = window;
        let f = net.link(l);
        let r = net.link(LinkSpec::new("back", b, 0, 1000));
        net.flow(FlowSpec::cbr("u", 500_000, 1000, vec![f]));
        let _ = r;
        let res = run_network(net).unwrap();
        let c = res.flows[0].result.counters;
        c.channel_losses as f64 / c.packets_sent as f64
    };
    let seeds = 1..=4u64;
    let mean = |d, w| seeds.clone().map(|s| rate_at(d, w, s)).sum::<f64>() / 4.0;
    let (s0, s300) = (mean(0, LossWindow::Serialisation), mean(300 * NS_PER_MS, LossWindow::Serialisation));
    let (t0, t300) = (mean(0, LossWindow::Transit), mean(300 * NS_PER_MS, LossWindow::Transit));
    eprintln!("loss: serialisation {s0:.4} / {s300:.4}, transit {t0:.4} / {t300:.4}");
    // A packet is lost if a bad period overlaps its exposure window: with bad periods
    // starting at rate 1/(1.8 + 0.2) = 0.5 per second and a 10 % bad share, P = 0.1 + 0.5·w.
    // Serialisation (1000 B at 1 Mb/s): w = 8 ms, P ≈ 0.104, whatever the delay. Transit:
    // w = 8 ms + delay, P ≈ 0.254 at 300 ms. Over 4 × 2000 s (~4000 bad periods) the
    // standard error of the mean is ≈ 0.003.
    assert!((s0 - s300).abs() < 0.015, "{s0} vs {s300}");
    assert!((s0 - 0.104).abs() < 0.015, "{s0}");
    assert!((t300 - 0.25).abs() < 0.03 && t300 > s300 + 0.1, "{t300}");
    assert!((t0 - s0).abs() < 0.015);
}

/// A half-duplex hop carries data and ACKs on one channel: a lossless bulk flow gets the
/// channel less the ACKs' share (computed from the ACK count), where a full-duplex hop gives
/// the data the whole channel.
#[test]
fn half_duplex_hop_shares_the_channel_with_acks() {
    let run = |half: bool| {
        let mut net = Network::new(100 * NS_PER_S);
        let a = net.server(Timing::Rate { rate_bps: 5_000_000 });
        let b = if half { a } else { net.server(Timing::Rate { rate_bps: 5_000_000 }) };
        let f = net.link(LinkSpec::new("wifi", a, NS_PER_MS, 200));
        let r = net.link(LinkSpec::new("wifi.rev", b, NS_PER_MS, 200));
        let cfg = TcpConfig { delayed_ack: false, ack_bytes: 1040, ..TcpConfig::default() };
        tcp(&mut net, "f", cfg, vec![f], vec![r]);
        run_network(net).unwrap()
    };
    let (full, half) = (run(false), run(true));
    let g_full = full.flows[0].result.goodput_bps;
    let g_half = half.flows[0].result.goodput_bps;
    // ACKs as large as data and one per segment: the data gets half the channel, so half
    // the full-duplex goodput (the loss episodes of slow start differ a little: 5 %).
    eprintln!("half duplex: {:.3} Mb/s, full duplex {:.3} Mb/s", g_half / 1e6, g_full / 1e6);
    assert!(g_full > 0.95 * 5e6 * 1000.0 / 1040.0, "{g_full}");
    assert!((g_half / (g_full / 2.0) - 1.0).abs() < 0.05, "{g_half} vs {g_full}");
    // Together the two directions fill the channel and never exceed it, in equal shares.
    let (ud, ua) = (half.links[0].utilisation, half.links[1].utilisation);
    assert!(ud + ua <= 1.0 + 1e-9 && ud + ua > 0.97, "{ud} + {ua}");
    assert!((ud - ua).abs() < 0.01, "{ud} vs {ua}");
}

/// Constant-rate cross traffic takes its rate; TCP gets (about) the rest; the engine's
/// fair share of the TCP flow is the capacity less the CBR rate.
#[test]
fn cbr_cross_traffic_takes_its_share() {
    let mut net = Network::new(100 * NS_PER_S);
    let (bf, br) = hop(&mut net, "bottleneck", 10_000_000, 20 * NS_PER_MS, 60);
    tcp(&mut net, "tcp", TcpConfig::default(), vec![bf], vec![br]);
    net.flow(FlowSpec::cbr("udp", 3_000_000, 1000, vec![bf]));
    let r = run_network(net).unwrap();
    let (t, u) = (&r.flows[0].result, &r.flows[1].result);
    assert_eq!(r.flows[1].kind, FlowKindTag::Cbr);
    let sent = u.counters.packets_sent as f64;
    assert!((sent - 100.0 * 3e6 / 8000.0).abs() <= 1.0, "{sent}");
    let udp = u.goodput_bps;
    eprintln!("cbr: udp {:.3} Mb/s ({} dropped), tcp {:.3} Mb/s", udp / 1e6, u.counters.queue_drops, t.goodput_bps / 1e6);
    assert!(udp > 2.7e6 && udp <= 3e6);
    assert!(t.goodput_bps > 0.85 * 7e6 * 1000.0 / 1040.0, "{}", t.goodput_bps);
    assert!(udp + t.throughput_bps * 1040.0 / 1000.0 <= 10e6 * 1.0001);
}

/// ON/OFF: a flow that is on half the time (exponential 2 s periods) gets about half of
/// what a bulk flow gets, and sends nothing while off.
#[test]
fn on_off_flows_send_only_when_on() {
    let mk = |oo: Option<OnOff>| {
        let mut net = Network::new(400 * NS_PER_S);
        let (f, r) = hop(&mut net, "l", 10_000_000, 10 * NS_PER_MS, 100);
        let i = tcp(&mut net, "f", TcpConfig::default(), vec![f], vec![r]);
        net.flows[i].on_off = oo;
        net.log = true;
        run_network_logged(net).unwrap()
    };
    let (bulk, _) = mk(None);
    let oo = OnOff { on: Sojourn::exponential(2.0).unwrap(), off: Sojourn::exponential(2.0).unwrap() };
    let (res, log) = mk(Some(oo));
    let ratio = res.flows[0].result.goodput_bps / bulk.flows[0].result.goodput_bps;
    eprintln!("on/off: {ratio:.3} of bulk");
    // ~100 cycles of 4 s: the ON share is 0.5 ± 0.05 (3 sd); slow start at each ON costs a bit.
    assert!(ratio > 0.35 && ratio < 0.56, "{ratio}");
    // Gaps of new data: the log shows silences of seconds between bursts of new segments.
    let sends: Vec<Nanos> = log.iter().filter(|r| r.event == LogEvent::Sent && r.kind == LogKind::Data && !r.retx).map(|r| r.t).collect();
    let long_gaps = sends.windows(2).filter(|w| w[1] - w[0] > NS_PER_S).count();
    assert!(long_gaps > 20, "{long_gaps}");
}

/// A flow that starts later gets its goodput over its own lifetime, and a flow that stops
/// frees the link.
#[test]
fn start_and_stop_times() {
    let mut net = Network::new(100 * NS_PER_S);
    let (f, r) = hop(&mut net, "l", 10_000_000, 10 * NS_PER_MS, 100);
    let a = tcp(&mut net, "early", TcpConfig::default(), vec![f], vec![r]);
    let b = tcp(&mut net, "late", TcpConfig::default(), vec![f], vec![r]);
    net.flows[a].stop = Some(50 * NS_PER_S);
    net.flows[b].start = 50 * NS_PER_S;
    let r = run_network(net).unwrap();
    let (ea, la) = (&r.flows[0].result, &r.flows[1].result);
    assert!((la.duration - 50.0).abs() < 1e-9);
    assert!(la.goodput_bps > 0.9 * 9.6e6, "{}", la.goodput_bps);
    // The early flow sent for 50 s of its 100 s: its goodput over the run is about half.
    assert!(ea.goodput_bps > 0.45 * 9.6e6 && ea.goodput_bps < 0.51 * 9.6e6, "{}", ea.goodput_bps);
}

/// Fixed-size transfers: the run ends when the last completes; each has its completion
/// time from its own start.
#[test]
fn transfers_complete_and_end_the_run() {
    let mut net = Network::new(1000 * NS_PER_S);
    let (f, r) = hop(&mut net, "l", 10_000_000, 10 * NS_PER_MS, 100);
    for (k, size) in [1_000_000u64, 3_000_000].iter().enumerate() {
        let i = tcp(&mut net, &format!("t{k}"), TcpConfig::default(), vec![f], vec![r]);
        net.flows[i].size = Some(*size);
        net.flows[i].start = k as u64 * NS_PER_S;
    }
    let r = run_network(net).unwrap();
    let (c0, c1) = (r.flows[0].result.completion_time.unwrap(), r.flows[1].result.completion_time.unwrap());
    assert!(c0 > 0.8 && c1 > 2.4, "{c0} {c1}");
    assert_eq!(r.end_time, burstlab_core::time::from_secs_f64(1.0 + c1));
    assert_eq!(r.flows[1].result.counters.delivered_bytes, 3_000_000);
}

/// A capacity outage longer than the RTO: the queued segments wait, the timer fires while
/// the first copy is still on its way, and the timeout is counted spurious; without the
/// outage there are none.
#[test]
fn spurious_timeouts_are_detected() {
    let run = |outage: bool| {
        // 1 opportunity per ms, except none during [2 s, 5 s) when `outage`.
        let at: Vec<Nanos> =
            (1..=10_000u64).filter(|ms| !outage || !(2000..5000).contains(ms)).map(|ms| ms * NS_PER_MS).collect();
        let mut net = Network::new(10 * NS_PER_S);
        let s = net.server(Timing::Opportunities(Opportunities::new(at, 1500).unwrap()));
        let f = net.link(LinkSpec::new("cell", s, 10 * NS_PER_MS, 1000));
        let (_, r) = hop(&mut net, "back", 100_000_000, 10 * NS_PER_MS, 1000);
        let cfg = TcpConfig { rto_min: 200 * NS_PER_MS, max_cwnd: Some(20), ..TcpConfig::default() };
        tcp(&mut net, "f", cfg, vec![f], vec![r]);
        run_network(net).unwrap()
    };
    let (calm, stormy) = (run(false), run(true));
    assert_eq!((calm.flows[0].result.counters.timeouts, calm.flows[0].spurious_timeouts), (0, 0));
    let (t, s) = (stormy.flows[0].result.counters.timeouts, stormy.flows[0].spurious_timeouts);
    eprintln!("outage: {t} timeouts, {s} spurious");
    assert!(s >= 1 && s <= t, "{s} of {t}");
    // Nothing was lost: every timeout was spurious.
    assert_eq!(stormy.flows[0].result.counters.packets_lost, 0);
    assert_eq!(s, t);
}

/// Invariants over random networks (chains and dumbbells, 1-6 flows of every variant plus
/// CBR, random rates, delays, buffers, loss models and modes, half-duplex hops), checked
/// on the per-packet log: no link serves faster than its capacity, no segment is delivered
/// twice or skipped, nothing arrives that was not sent, counters agree with the log,
/// every flow's goodput is at most its bottleneck's payload share.
#[test]
fn invariants_on_random_networks() {
    let mut g = stream(4242, 7);
    let (mut total_lost, mut total_delivered) = (0u64, 0u64);
    for case in 0..60u64 {
        let g0 = g.clone();
        let (net, bottleneck) = random_network(&mut g, case);
        let what = format!("case {case}");
        let servers = net.servers.clone();
        let link_server: Vec<usize> = net.links.iter().map(|l| l.server).collect();
        let (r, log) = run_network_logged(net).unwrap();
        check_network(&r, &log, &servers, &link_server, &bottleneck, &what);
        // These networks use none of `needs_full`'s features: the engine ran without their
        // checks, and the engine with them gives the same run.
        let (net, _) = random_network(&mut g0.clone(), case);
        assert!(!needs_full(&net), "{what}");
        assert_eq!(run_network_full(net), (r.clone(), log), "{what}: the full engine differs");
        for f in &r.flows {
            total_lost += f.result.counters.packets_lost;
            total_delivered += f.result.counters.delivered_segments;
        }
    }
    eprintln!("random networks: {total_lost} lost, {total_delivered} delivered");
    assert!(total_lost > 1000 && total_delivered > 50_000);
}

/// A random network of `invariants_on_random_networks`, and each flow's bottleneck rate.
pub(crate) fn random_network(g: &mut burstlab_core::rng::Rng, case: u64) -> (Network, Vec<u64>) {
    {
        let nh = g.random_range(1..5);
        let mut net = Network::new(g.random_range(5..30) * NS_PER_S);
        net.seed = case;
        net.log = true;
        let mut hops = Vec::new();
        let mut caps = Vec::new();
        for k in 0..nh {
            let rate = [500_000u64, 2_000_000, 10_000_000, 50_000_000][g.random_range(0..4)];
            let delay = g.random_range(0..40) * NS_PER_MS;
            let buffer = g.random_range(2..150);
            let a = net.server(Timing::Rate { rate_bps: rate });
            let b = if g.random_range(0..4) == 0 { a } else { net.server(Timing::Rate { rate_bps: rate }) };
            let mut l = LinkSpec::new(&format!("h{k}"), a, delay, buffer);
            if g.random_range(0..4) == 0 {
                l.buffer_unit = BufferUnit::Bytes;
                l.buffer *= 1040;
            }
            if g.random_range(0..2) == 0 {
                let m: Box<dyn LossModel> = if g.random_range(0..2) == 0 {
                    Box::new(Bernoulli::new(uniform(g) * 0.1).unwrap())
                } else {
                    Box::new(GilbertElliott::from_prr_mu(0.7 + 0.3 * uniform(g), uniform(g) * 0.8).unwrap())
                };
                let mode = if g.random_range(0..2) == 0 { LossMode::Packet } else { LossMode::Time };
                l.loss = LinkLoss::Own(m, mode);
            }
            let f = net.link(l);
            let mut rl = LinkSpec::new(&format!("h{k}.rev"), b, delay, buffer);
            if g.random_range(0..4) == 0 && matches!(net.links[f].loss, LinkLoss::Own(..)) {
                rl.loss = LinkLoss::Shared(f);
            }
            let r = net.link(rl);
            hops.push((f, r));
            caps.push(rate);
        }
        let nf = g.random_range(1..7);
        let mut bottleneck = Vec::new();
        for k in 0..nf {
            // A contiguous segment of the chain.
            let a = g.random_range(0..nh);
            let b = g.random_range(a..nh) + 1;
            let fwd: Vec<usize> = (a..b).map(|h| hops[h].0).collect();
            let rev: Vec<usize> = (a..b).rev().map(|h| hops[h].1).collect();
            let cap = caps[a..b].iter().copied().min().unwrap();
            if g.random_range(0..5) == 0 {
                net.flow(FlowSpec::cbr(&format!("u{k}"), cap / g.random_range(2..10), 500, fwd));
            } else {
                let variant = [Variant::Tahoe, Variant::Reno, Variant::NewReno, Variant::Sack][g.random_range(0..4)];
                let cfg = TcpConfig {
            delayed_ack: g.random_range(0..2) == 0,
                    init_cwnd: g.random_range(1..11),
                    rto_min: 200 * NS_PER_MS,
                    rto_max: 10 * NS_PER_S,
                    limited_transmit: g.random_range(0..2) == 0,
            ..TcpConfig::variant(variant)
        };
                let i = tcp(&mut net, &format!("f{k}"), cfg, fwd, rev);
                net.flows[i].start = g.random_range(0..3) * NS_PER_S;
                if g.random_range(0..3) == 0 {
                    net.flows[i].size = Some(g.random_range(1..2_000_000));
                }
            }
            bottleneck.push(cap);
        }
        (net, bottleneck)
    }
}

fn check_network(r: &NetworkResult, log: &[LogRec], servers: &[Timing], link_server: &[usize], bottleneck: &[u64], what: &str) {
    use std::collections::HashMap;
    // Each server's busy time never exceeds the run's length (no link faster than its
    // capacity): the utilisations of the links sharing a server add up to at most 1.
    let mut per_server = vec![0.0; servers.len()];
    for (l, lr) in r.links.iter().enumerate() {
        per_server[link_server[l]] += lr.utilisation;
    }
    for (s, u) in per_server.iter().enumerate() {
        assert!(*u <= 1.0 + 1e-9, "{what}: server {s} busy {u}");
    }
    // And independently of the busy accounting: the bytes a fixed-rate server sent fit in
    // the time it had, plus the packets in service at the end.
    let secs = r.end_time as f64 / 1e9;
    for (s, t) in servers.iter().enumerate() {
        if let Timing::Rate { rate_bps } = t {
            let bytes: u64 =
                r.links.iter().enumerate().filter(|(l, _)| link_server[*l] == s).map(|(_, x)| x.counters.bytes_sent).sum();
            assert!(bytes as f64 * 8.0 <= *rate_bps as f64 * secs + 8.0 * 1040.0 * 4.0, "{what}: server {s} sent {bytes} B");
        }
    }
    for (k, f) in r.flows.iter().enumerate() {
        let c = &f.result.counters;
        let data: Vec<&LogRec> =
            log.iter().filter(|x| x.flow == k as u32 && x.kind != LogKind::Ack).collect();
        let sent: u64 = data.iter().filter(|x| x.event == LogEvent::Sent).count() as u64;
        assert_eq!(sent, c.packets_sent, "{what} flow {k}");
        let lost = data.iter().filter(|x| matches!(x.event, LogEvent::Lost | LogEvent::Dropped)).count() as u64;
        assert_eq!(lost, c.packets_lost, "{what} flow {k}");
        // Goodput at most the payload share of the bottleneck (CBR: 500 B datagrams, all payload).
        let share = if f.kind == FlowKindTag::Tcp { 1000.0 / 1040.0 } else { 1.0 };
        assert!(f.result.goodput_bps <= bottleneck[k] as f64 * share * 1.0001, "{what} flow {k}: {}", f.result.goodput_bps);
        if f.kind == FlowKindTag::Tcp {
            let mut next = 0;
            let mut sent_segs: HashMap<u64, ()> = HashMap::new();
            for x in &data {
                match x.event {
                    LogEvent::Sent => {
                        sent_segs.insert(x.seg, ());
                    }
                    LogEvent::Arrived => assert!(sent_segs.contains_key(&x.seg), "{what}: {} arrived unsent", x.seg),
                    LogEvent::Delivered => {
                        assert_eq!(x.seg, next, "{what} flow {k}: delivery gap or repeat");
                        next = x.to;
                    }
                    _ => {}
                }
            }
            assert_eq!(next, c.delivered_segments, "{what} flow {k}");
            assert!(c.delivered_bytes <= c.arrived_bytes);
            assert!(c.spurious_retransmissions <= c.retransmissions);
            assert!(f.spurious_timeouts <= c.timeouts);
        }
    }
}

/// Paced flows and BBR run on the plain engine with only the pacing timers and the sender's
/// delivery-rate hooks compiled in (`needs_pace`, issue 30): the same runs, packet for packet,
/// as the engine with every feature's checks. Alone and mixed with unpaced flows, on a lossy
/// dumbbell (1 % Bernoulli, a shallow bottleneck buffer, so that recovery and the pacer's
/// holds both happen).
#[test]
fn paced_flows_on_the_plain_engine_match_the_full_engine() {
    use burstlab_core::sim::engine::needs_pace;
    use burstlab_core::tcp::config::Pacing;
    let paced = [
        ("bbr", TcpConfig::variant(Variant::Bbr)),
        ("bbr3", TcpConfig::variant(Variant::Bbr3)),
        ("cubic+internal", TcpConfig { pacing: Pacing::Internal, ..TcpConfig::variant(Variant::Cubic) }),
        ("cubic+fq", TcpConfig { pacing: Pacing::Fq, ..TcpConfig::variant(Variant::Cubic) }),
        ("sack+internal", TcpConfig { pacing: Pacing::Internal, ..TcpConfig::variant(Variant::Sack) }),
    ];
    let build = |flows: &[(&str, TcpConfig)]| {
        let mut net = Network::new(20 * NS_PER_S);
        let (bf, br) = hop(&mut net, "bottleneck", 10_000_000, 10 * NS_PER_MS, 30);
        net.links[bf].loss = LinkLoss::Own(Box::new(Bernoulli::new(0.01).unwrap()), LossMode::Packet);
        for (k, (name, cfg)) in flows.iter().enumerate() {
            let (af, ar) = hop(&mut net, &format!("access{k}"), 100_000_000, (1 + 7 * k as u64) * NS_PER_MS, 1000);
            tcp(&mut net, name, cfg.clone(), vec![af, bf], vec![br, ar]);
        }
        net.log = true;
        net
    };
    let mut mixed: Vec<(&str, TcpConfig)> = paced.to_vec();
    mixed.push(("newreno", TcpConfig::variant(Variant::NewReno)));
    mixed.push(("sack", TcpConfig::variant(Variant::Sack)));
    let cases: Vec<Vec<(&str, TcpConfig)>> = paced.iter().map(|f| vec![f.clone()]).chain([mixed]).collect();
    for flows in &cases {
        let what: Vec<&str> = flows.iter().map(|f| f.0).collect();
        let net = build(flows);
        assert!(!needs_full(&net) && needs_pace(&net), "{what:?}");
        let (r, log) = run_network_logged(net).unwrap();
        assert!(r.flows.iter().all(|f| f.result.counters.retransmissions > 0), "{what:?}: every flow recovers from losses");
        assert_eq!(run_network_full(build(flows)), (r, log), "{what:?}: the full engine differs");
    }
}

/// A Rust caller gets the bound the Python layer applies: a run of 10^9 s or more is refused
/// before it starts (time::MAX_RUN: every stored time stays far below 2^63 ns), one just
/// below it is accepted by validation.
#[test]
fn runs_of_10_to_the_9_seconds_are_refused_from_rust_too() {
    let build = |duration: Nanos| {
        let mut net = Network::new(duration);
        let (f, r) = hop(&mut net, "a", 1_000, NS_PER_MS, 10);
        net.flow(FlowSpec::tcp("f", TcpConfig::default(), vec![f], vec![r]));
        net
    };
    let e = run_network(build(burstlab_core::time::MAX_RUN)).unwrap_err().to_string();
    assert!(e.contains("duration") && e.contains("less than 10^9 s"), "{e}");
    assert!(build(u64::MAX).validate().is_err());
    assert!(build(burstlab_core::time::MAX_RUN - 1).validate().is_ok());
}
