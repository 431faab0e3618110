//! The link layer in the network engine (docs/validation.md, "Link layer in the engine"):
//! a hop's ARQ or hybrid ARQ times its frames and meets its loss process attempt by attempt;
//! TCP sees the residual loss and the variable service time (Subramanian et al. slides 9-10:
//! spurious timeouts), on a full-duplex hop or on a half-duplex medium that ACKs share.
use burstlab_core::sim::*;
use burstlab_core::link::arq::ArqConfig;
use burstlab_core::link::harq::HarqConfig;
use burstlab_core::link::{AttemptTiming, LinkLayerConfig, LinkStats, LossMode, Timing};
use burstlab_core::loss::{on_off, Bernoulli, LossModel};
use burstlab_core::results::NetworkResult;
use burstlab_core::time::{Nanos, NS_PER_MS, NS_PER_S, NS_PER_US};

/// One hop: a forward link with link layer `layer` and loss `loss`, a lossless fixed-rate
/// reverse link; one bulk TCP flow `tcp` over it for `secs` seconds.
fn one_hop(layer: Option<LinkLayerConfig>, loss: LinkLoss, tcp: TcpConfig, secs: u64, seed: u64) -> NetworkResult {
    one_hop_buffer(layer, loss, tcp, secs, seed, 50)
}

/// [`one_hop`] with a forward buffer of `buffer` packets.
fn one_hop_buffer(layer: Option<LinkLayerConfig>, loss: LinkLoss, tcp: TcpConfig, secs: u64, seed: u64, buffer: u64) -> NetworkResult {
    let mut net = Network::new(secs * NS_PER_S);
    net.seed = seed;
    let a = net.server(if layer.is_some() { Timing::LinkLayer } else { Timing::Rate { rate_bps: 8_000_000 } });
    let b = net.server(Timing::Rate { rate_bps: 100_000_000 });
    let mut f = LinkSpec::new("wifi", a, NS_PER_MS, buffer);
    f.layer = layer;
    f.loss = loss;
    let f = net.link(f);
    let r = net.link(LinkSpec::new("wifi.rev", b, NS_PER_MS, 50));
    net.flow(FlowSpec::tcp("f", tcp, vec![f], vec![r]));
    run_network(net).unwrap()
}

fn arq(retries: u32, timing: AttemptTiming) -> Option<LinkLayerConfig> {
    Some(LinkLayerConfig::Arq(ArqConfig::retries(retries, timing)))
}

fn bernoulli(p: f64) -> LinkLoss {
    LinkLoss::Own(Box::new(Bernoulli::new(p).unwrap()), LossMode::Packet)
}

fn stats(r: &NetworkResult, link: usize) -> &LinkStats {
    r.links[link].link_layer.as_ref().expect("a link layer")
}

/// Lossless ARQ with a fixed 1-ms attempt: one frame per millisecond, so TCP's goodput is
/// the payload of 1000 segments per second (less the start-up), every frame in one
/// attempt, each attempt 1 ms, and the link layer saw every frame the link carried.
#[test]
fn a_lossless_arq_hop_serves_one_frame_per_attempt() {
    let r = one_hop(arq(7, AttemptTiming::fixed(NS_PER_MS)), LinkLoss::None, TcpConfig::default(), 60, 1);
    let s = stats(&r, 0);
    let g = r.flows[0].result.goodput_bps;
    eprintln!("lossless ARQ: {:.4} Mb/s, {} frames", g / 1e6, s.frames);
    assert!(g <= 8e6 && g > 0.97 * 8e6, "{g}");
    assert_eq!((s.attempts, s.dropped, s.units_lost), (s.frames, 0, 0));
    assert_eq!(s.attempts_per_frame[1], s.frames);
    assert_eq!((s.attempt_time.min(), s.attempt_time.max()), (Some(NS_PER_MS), Some(NS_PER_MS)));
    // The link layer serves each frame as it is admitted: its frames are the link's, and
    // those admitted but still queued at the end (at most a buffer and one in service).
    let c = r.links[0].counters;
    assert!(s.frames >= c.sent && s.frames - c.sent <= 51, "{} vs {}", s.frames, c.sent);
    assert_eq!(r.links[0].capacity_bps, None);
}

/// ARQ with R retries on a Bernoulli(p) channel: the link layer's raw loss is p and its
/// residual loss p^(R+1); the frames TCP loses on the link are the residual losses; TCP's
/// own loss rate is the residual one. Tolerances: 4 binomial standard errors.
#[test]
fn arq_turns_raw_loss_into_residual_loss() {
    let (p, retries) = (0.5, 2u32);
    let r = one_hop(arq(retries, AttemptTiming::fixed(200 * NS_PER_US)), bernoulli(p), TcpConfig::default(), 120, 3);
    let s = stats(&r, 0);
    let raw = s.units_lost as f64 / s.units_sent as f64;
    let residual = s.dropped as f64 / s.frames as f64;
    let want = p.powi(retries as i32 + 1);
    let se = |q: f64, n: u64| (q * (1.0 - q) / n as f64).sqrt();
    eprintln!("ARQ p {p} R {retries}: raw {raw:.4}, residual {residual:.5} (want {want:.5}), {} frames", s.frames);
    assert!((raw - p).abs() < 4.0 * se(p, s.units_sent), "{raw}");
    assert!((residual - want).abs() < 4.0 * se(want, s.frames), "{residual}");
    assert!(s.dropped >= r.links[0].counters.channel_losses && s.dropped - r.links[0].counters.channel_losses <= 1);
    assert_eq!(r.flows[0].result.counters.channel_losses, r.links[0].counters.channel_losses);
    // Attempts per frame: geometric, truncated at R + 1.
    let n = s.frames as f64;
    for (a, &count) in s.attempts_per_frame.iter().enumerate().skip(1) {
        let q = if a as u32 <= retries { p.powi(a as i32 - 1) * (1.0 - p) } else { p.powi(retries as i32) };
        assert!((count as f64 / n - q).abs() < 4.0 * se(q, s.frames), "{a}: {count}");
    }
}

/// Subramanian et al. slides 9-10: with a persistent ARQ under heavy raw loss and attempt
/// times uniform in [min, max] (their slide 8), a frame's service time varies from one
/// short attempt to R + 1 long ones and the frames behind it wait (head-of-line): TCP's
/// RTO, tracking a smaller SRTT, fires while the segment is still being retried, and the
/// copy that then arrives makes the timeout spurious. The comparison is a plain link with
/// the same residual loss, the same mean service rate and the same buffer (5 packets, so
/// that queueing alone cannot push the RTT past the RTO): its timeouts are real losses.
#[test]
fn arq_latency_spikes_cause_spurious_timeouts() {
    let (p, retries, buffer, secs) = (0.6, 7u32, 5u64, 600u64);
    let (lo, hi) = (NS_PER_MS, 20 * NS_PER_MS);
    let tcp = TcpConfig { rto_min: 200 * NS_PER_MS, ..TcpConfig::default() };
    let ll = one_hop_buffer(arq(retries, AttemptTiming::uniform(lo, hi)), bernoulli(p), tcp.clone(), secs, 5, buffer);
    let s = stats(&ll, 0);
    let residual = s.dropped as f64 / s.frames as f64;
    let f = &ll.flows[0];
    let rate = s.frames as f64 / secs as f64 * 1040.0 * 8.0;
    let mut net = Network::new(secs * NS_PER_S);
    net.seed = 5;
    let a = net.server(Timing::Rate { rate_bps: rate as u64 });
    let b = net.server(Timing::Rate { rate_bps: 100_000_000 });
    let mut fl = LinkSpec::new("plain", a, NS_PER_MS, buffer);
    fl.loss = bernoulli(residual);
    let fl = net.link(fl);
    let rl = net.link(LinkSpec::new("plain.rev", b, NS_PER_MS, 50));
    net.flow(FlowSpec::tcp("f", tcp, vec![fl], vec![rl]));
    let plain = run_network(net).unwrap();
    let g = &plain.flows[0];
    eprintln!(
        "ARQ uniform [{lo}, {hi}] ns, p {p}: residual {residual:.4}, latency p99 {:?} ns; {} timeouts, {} spurious | plain link: {} timeouts, {} spurious",
        s.latency.quantile(0.99),
        f.result.counters.timeouts,
        f.spurious_timeouts,
        g.result.counters.timeouts,
        g.spurious_timeouts
    );
    assert!(f.spurious_timeouts >= 20, "{}", f.spurious_timeouts);
    assert!(g.spurious_timeouts * 5 <= f.spurious_timeouts, "{} vs {}", g.spurious_timeouts, f.spurious_timeouts);
}

/// A half-duplex Wi-Fi hop with a link layer in each direction: data and ACKs take turns
/// on one medium and one time-mode channel (a bad period kills the attempts of both
/// directions that fall in it). Both directions' frames are served, the medium is never
/// busier than the run is long, and the channel's bad share shows in the raw loss of both.
#[test]
fn acks_share_the_medium_and_its_channel() {
    let run = |shared_channel: bool| {
        let mut net = Network::new(200 * NS_PER_S);
        net.seed = 9;
        let medium = net.server(Timing::LinkLayer);
        let timing = AttemptTiming { rate_bps: 11_000_000, ..AttemptTiming::fixed(300 * NS_PER_US) };
        let layer = arq(7, timing);
        let mut f = LinkSpec::new("wifi", medium, 0, 100);
        f.layer = layer.clone();
        // 10 % of the time bad (mean 0.1 s bad, 0.9 s good), everything lost while bad.
        f.loss = LinkLoss::Own(Box::new(on_off(0.9, 0.1, NS_PER_MS).unwrap()), LossMode::Time);
        let f = net.link(f);
        let mut r = LinkSpec::new("wifi.rev", medium, 0, 100);
        r.layer = layer;
        if shared_channel {
            r.loss = LinkLoss::Shared(f);
        }
        let r = net.link(r);
        let wired = net.server(Timing::Rate { rate_bps: 100_000_000 });
        let w = net.link(LinkSpec::new("wired", wired, 20 * NS_PER_MS, 1000));
        let wired_rev = net.server(Timing::Rate { rate_bps: 100_000_000 });
        let wr = net.link(LinkSpec::new("wired.rev", wired_rev, 20 * NS_PER_MS, 1000));
        net.flow(FlowSpec::tcp("f", TcpConfig::default(), vec![w, f], vec![r, wr]));
        run_network(net).unwrap()
    };
    for shared in [false, true] {
        let res = run(shared);
        let (d, a) = (stats(&res, 0), stats(&res, 1));
        let busy = res.links[0].utilisation + res.links[1].utilisation;
        let (raw_d, raw_a) = (d.raw_loss_rate().unwrap(), a.raw_loss_rate().unwrap_or(0.0));
        eprintln!(
            "half-duplex ARQ (ACK channel shared: {shared}): data {} frames raw {raw_d:.3}, ACKs {} frames raw {raw_a:.3}, medium busy {busy:.3}, goodput {:.3} Mb/s",
            d.frames,
            a.frames,
            res.flows[0].result.goodput_bps / 1e6
        );
        assert!(d.frames > 1000 && a.frames > 300, "{} {}", d.frames, a.frames);
        assert!(busy <= 1.0 + 1e-9, "{busy}");
        // The channel is bad 10 % of the time; a frame caught in a bad period is retried
        // in it, so more than 10 % of the data attempts fail. ACKs are sent when data gets
        // through, mostly in good periods: fewer of theirs fail, but some do when the
        // channel is shared, none when the reverse direction has a channel of its own.
        assert!(raw_d > 0.1 && raw_d < 0.3, "{raw_d}");
        if shared {
            assert!(raw_a > 0.005 && raw_a < raw_d, "{raw_a}");
        } else {
            assert_eq!(a.units_lost, 0);
        }
    }
}

/// Hybrid ARQ in the engine: TCP over a lossy LL-HARQ hop gets its frames through with
/// FEC; the FEC counters add up (Subramanian et al. Table 1) and the residual loss is far
/// below the fragment loss rate.
#[test]
fn harq_hop_carries_tcp() {
    let timing = AttemptTiming { rate_bps: 11_000_000, ..AttemptTiming::fixed(100 * NS_PER_US) };
    let layer = Some(LinkLayerConfig::Harq(HarqConfig { attempts: 2, ..HarqConfig::new(timing) }));
    let r = one_hop(layer, bernoulli(0.2), TcpConfig::default(), 60, 2);
    let s = stats(&r, 0);
    let fec = s.fec;
    eprintln!(
        "HARQ p 0.2: {} frames, residual {:.5}, raw {:.3}, PFEC {} RFEC {} fragments, goodput {:.3} Mb/s",
        s.frames,
        s.residual_loss_rate().unwrap(),
        s.raw_loss_rate().unwrap(),
        fec.pfec_sent.fragments,
        fec.rfec_sent.fragments,
        r.flows[0].result.goodput_bps / 1e6
    );
    assert!(s.frames > 1000);
    assert!(s.residual_loss_rate().unwrap() < 0.02);
    assert_eq!(s.units_sent, fec.data_sent.fragments + fec.pfec_sent.fragments + fec.rfec_sent.fragments);
    assert!(fec.pfec_wasted.fragments <= fec.pfec_sent.fragments && fec.rfec_wasted.fragments <= fec.rfec_sent.fragments);
    assert!(r.flows[0].result.goodput_bps > 1e6);
}

/// The single-link scenario carries a link layer too (`LinkConfig::layer`, its rate then
/// unused), as the forward link of its network; a warm-up restarts the link layer's
/// statistics with the link's counters and leaves the run itself unchanged.
#[test]
fn the_single_link_scenario_takes_a_link_layer() {
    let scenario = |warmup: Nanos| {
        let mut link = LinkConfig::new(100_000_000, NS_PER_MS, 50).with_loss(Box::new(Bernoulli::new(0.3).unwrap()), LossMode::Packet);
        link.layer = arq(3, AttemptTiming::fixed(500 * NS_PER_US));
        let mut w = Workload::bulk(30 * NS_PER_S);
        w.warmup = warmup;
        Scenario::new(TcpConfig::default(), link, w)
    };
    let go = |warmup: Nanos| (run(scenario(warmup)).unwrap(), run_network(scenario(warmup).into_network()).unwrap());
    let ((r0, n0), (r10, n10)) = (go(0), go(10 * NS_PER_S));
    assert!(r0.goodput_bps > 1e6, "{}", r0.goodput_bps);
    assert_eq!(r0.goodput_bps, n0.flows[0].result.goodput_bps);
    assert_eq!(r10.goodput_bps, n10.flows[0].result.goodput_bps);
    let (s0, s10) = (stats(&n0, 0), stats(&n10, 0));
    assert_eq!(s0.frames, n0.links[0].counters.sent);
    assert_eq!(s10.frames, n10.links[0].counters.sent);
    assert_eq!(s10.dropped, n10.links[0].counters.channel_losses);
    assert!(s10.frames < s0.frames && s10.frames > 0);
}

/// What a network with link layers must satisfy: a link layer needs a server timed by it
/// and such a server only links with one; a time-mode channel under a link layer is used
/// only by link layers on one server; the settings are checked by name.
#[test]
fn link_layer_networks_are_validated() {
    let build = |f: &dyn Fn(&mut Network)| {
        let mut net = Network::new(NS_PER_S);
        f(&mut net);
        net.validate().err().map(|e| e.to_string())
    };
    let with_flow = |net: &mut Network, fwd: usize| {
        let b = net.server(Timing::Rate { rate_bps: 1_000_000 });
        let r = net.link(LinkSpec::new("rev", b, 0, 10));
        net.flow(FlowSpec::tcp("f", TcpConfig::default(), vec![fwd], vec![r]));
    };
    let e = build(&|net| {
        let a = net.server(Timing::Rate { rate_bps: 1_000_000 });
        let mut l = LinkSpec::new("x", a, 0, 10);
        l.layer = arq(7, AttemptTiming::fixed(NS_PER_MS));
        let l = net.link(l);
        with_flow(net, l);
    });
    assert!(e.unwrap().contains("link x.server"));
    let e = build(&|net| {
        let a = net.server(Timing::LinkLayer);
        let l = net.link(LinkSpec::new("x", a, 0, 10));
        with_flow(net, l);
    });
    assert!(e.unwrap().contains("link x.link_layer"));
    let e = build(&|net| {
        let a = net.server(Timing::LinkLayer);
        let mut l = LinkSpec::new("x", a, 0, 10);
        l.layer = arq(7, AttemptTiming::uniform(5, 1));
        let l = net.link(l);
        with_flow(net, l);
    });
    assert!(e.unwrap().contains("attempt_time"));
    // A channel shared with a link on another server: refused in time mode (the process
    // would be asked out of time order), fine in packet mode (each attempt draws afresh).
    let shared_across_servers = |loss: LinkLoss| {
        let mut net = Network::new(NS_PER_S);
        let a = net.server(Timing::LinkLayer);
        let mut l = LinkSpec::new("x", a, 0, 10);
        l.layer = arq(7, AttemptTiming::fixed(NS_PER_MS));
        l.loss = loss;
        let l = net.link(l);
        let b = net.server(Timing::Rate { rate_bps: 1_000_000 });
        let mut r = LinkSpec::new("rev", b, 0, 10);
        r.loss = LinkLoss::Shared(l);
        let r = net.link(r);
        net.flow(FlowSpec::tcp("f", TcpConfig::default(), vec![l], vec![r]));
        net.validate().err().map(|e| e.to_string())
    };
    let e = shared_across_servers(LinkLoss::Own(Box::new(on_off(1.0, 1.0, NS_PER_MS).unwrap()), LossMode::Time));
    assert!(e.unwrap().contains("link rev.loss"));
    let e = shared_across_servers(LinkLoss::Own(Box::new(Bernoulli::new(0.1).unwrap()) as Box<dyn LossModel>, LossMode::Packet));
    assert_eq!(e, None);
}

/// Same seed, same results; another seed, other results (the link layer draws from its
/// own stream `link.NAME.layer`).
#[test]
fn link_layer_runs_are_reproducible() {
    let go = |seed| one_hop(arq(7, AttemptTiming::uniform(NS_PER_MS, 5 * NS_PER_MS)), bernoulli(0.3), TcpConfig::default(), 20, seed);
    let (a, b, c) = (go(1), go(1), go(2));
    assert_eq!(a.flows[0].result, b.flows[0].result);
    assert_eq!(stats(&a, 0), stats(&b, 0));
    assert_ne!(stats(&a, 0).frames, stats(&c, 0).frames);
}

