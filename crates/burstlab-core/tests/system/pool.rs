//! The links' packets kept in one shared pool (`link/slots.rs`, the engine's choice for
//! networks of more than `POOL_LINKS` links) or inline in each link's ring: the same runs,
//! whatever the network uses (random chains and dumbbells; RED with ECN, CoDel, FQ-CoDel, a
//! link layer, time-varying capacity, time-mode loss, a warm-up, paced and CBR flows).
use burstlab_core::link::arq::ArqConfig;
use burstlab_core::link::{AttemptTiming, CodelParams, FqParams, LinkLayerConfig, LossMode, Opportunities, QueueDisc, RedParams, Timing};
use burstlab_core::loss::{Bernoulli, GilbertElliott};
use burstlab_core::rng::stream;
use burstlab_core::sim::engine::{pooled, run_network_stored, POOL_LINKS};
use burstlab_core::sim::*;
use burstlab_core::tcp::config::Pacing;
use burstlab_core::time::{NS_PER_MS, NS_PER_S, NS_PER_US};

fn both(net: impl Fn() -> Network, what: &str) -> burstlab_core::results::NetworkResult {
    let inline = run_network_stored(net(), false).unwrap();
    assert_eq!(run_network_stored(net(), true).unwrap(), inline, "{what}: the pooled run differs");
    inline
}

#[test]
fn pooled_and_inline_runs_are_the_same_on_random_networks() {
    let mut g = stream(4242, 7);
    for case in 0..30u64 {
        let g0 = g.clone();
        let _ = crate::network::random_network(&mut g, case);
        let net = || {
            let (mut n, _) = crate::network::random_network(&mut g0.clone(), case);
            n.log = false; // the engine with the per-packet log keeps its packets inline
            n
        };
        both(net, &format!("case {case}"));
    }
}

/// One network with every kind of link: a RED bottleneck marking ECN, a CoDel and an
/// FQ-CoDel hop, an 802.11 ARQ hop on a lossy channel, a Mahimahi-style capacity schedule,
/// Gilbert-Elliott loss in time mode, a warm-up; NewReno with ECN, paced BBR, CUBIC, CBR.
fn featured() -> Network {
    let mut net = Network::new(20 * NS_PER_S);
    net.seed = 3;
    net.warmup = 2 * NS_PER_S;
    let rate = |net: &mut Network, r: u64| net.server(Timing::Rate { rate_bps: r });
    let link = |net: &mut Network, name: &str, s: usize, q: QueueDisc| {
        let mut l = LinkSpec::new(name, s, 5 * NS_PER_MS, 60);
        l.queue = q;
        net.link(l)
    };
    let s = rate(&mut net, 10_000_000);
    let red = link(&mut net, "red", s, QueueDisc::Red(RedParams::default()));
    let s = rate(&mut net, 8_000_000);
    let codel = link(&mut net, "codel", s, QueueDisc::Codel(CodelParams::default()));
    let s = rate(&mut net, 8_000_000);
    let fq = link(&mut net, "fq", s, QueueDisc::FqCodel(CodelParams::default(), FqParams::default()));
    let s = net.server(Timing::LinkLayer);
    let mut w = LinkSpec::new("wifi", s, NS_PER_MS, 50);
    w.layer = Some(LinkLayerConfig::Arq(ArqConfig::retries(3, AttemptTiming::fixed(300 * NS_PER_US))));
    w.loss = LinkLoss::Own(Box::new(Bernoulli::new(0.2).unwrap()), LossMode::Packet);
    let wifi = net.link(w);
    let at: Vec<_> = (1..=4000u64).filter(|ms| ms % 7 != 0).map(|ms| ms * NS_PER_MS / 2).collect();
    let s = net.server(Timing::Opportunities(Opportunities::new(at, 1500).unwrap()));
    let mut c = LinkSpec::new("cell", s, 10 * NS_PER_MS, 80);
    c.loss = LinkLoss::Own(Box::new(GilbertElliott::from_prr_mu(0.95, 0.5).unwrap()), LossMode::Time);
    let cell = net.link(c);
    let back: Vec<usize> = (0..4)
        .map(|k| {
            let s = rate(&mut net, 100_000_000);
            link(&mut net, &format!("back{k}"), s, QueueDisc::DropTail)
        })
        .collect();
    let ecn = TcpConfig { ecn: true, ..TcpConfig::variant(Variant::NewReno) };
    net.flow(FlowSpec::tcp("ecn", ecn, vec![red, codel], vec![back[0]]));
    net.flow(FlowSpec::tcp("bbr", TcpConfig::variant(Variant::Bbr), vec![fq, red], vec![back[1]]));
    net.flow(FlowSpec::tcp("cubic", TcpConfig::variant(Variant::Cubic), vec![wifi, fq], vec![back[2]]));
    net.flow(FlowSpec::tcp("sack", TcpConfig::variant(Variant::Sack), vec![cell], vec![back[3]]));
    net.flow(FlowSpec::cbr("cbr", 1_000_000, 500, vec![codel, fq]));
    net
}

#[test]
fn pooled_and_inline_runs_are_the_same_on_every_kind_of_link() {
    let r = both(featured, "featured");
    // Each kind of link did its work: ECN marks, AQM drops, residual and channel losses.
    let link = |name: &str| r.links.iter().find(|l| l.name == name).expect("a link").counters;
    assert!(link("red").ecn_marks > 0 && link("codel").early_drops + link("fq").early_drops > 0);
    assert!(link("wifi").channel_losses > 0 && link("cell").channel_losses > 0);
    assert!(r.flows.iter().all(|f| f.result.goodput_bps > 0.0));
}

/// A dumbbell of more than `POOL_LINKS` links (SACK, BBR and paced CUBIC flows: the plain
/// engine with the pacing hooks) runs pooled by default, with the inline run's results.
#[test]
fn a_large_network_runs_pooled_with_the_inline_results() {
    let build = || {
        let mut net = Network::new(5 * NS_PER_S);
        let s = net.server(Timing::Rate { rate_bps: 40_000_000 });
        let bf = net.link(LinkSpec::new("bottleneck", s, 20 * NS_PER_MS, 200));
        let s = net.server(Timing::Rate { rate_bps: 40_000_000 });
        let br = net.link(LinkSpec::new("bottleneck.rev", s, 20 * NS_PER_MS, 200));
        for k in 0..40 {
            let s = net.server(Timing::Rate { rate_bps: 100_000_000 });
            let af = net.link(LinkSpec::new(&format!("a{k}"), s, 5 * NS_PER_MS, 1000));
            let s = net.server(Timing::Rate { rate_bps: 100_000_000 });
            let ar = net.link(LinkSpec::new(&format!("a{k}.rev"), s, 5 * NS_PER_MS, 1000));
            let cfg = match k % 3 {
                0 => TcpConfig::variant(Variant::Sack),
                1 => TcpConfig::variant(Variant::Bbr),
                _ => TcpConfig { pacing: Pacing::Internal, ..TcpConfig::variant(Variant::Cubic) },
            };
            let i = net.flow(FlowSpec::tcp(&format!("f{k}"), cfg, vec![af, bf], vec![br, ar]));
            net.flows[i].start = k as u64 * NS_PER_MS;
        }
        net
    };
    assert!(build().links.len() > POOL_LINKS && pooled(&build()));
    assert!(burstlab_core::sim::engine::needs_pace(&build()) && !burstlab_core::sim::engine::needs_full(&build()));
    let r = run_network(build()).unwrap();
    assert_eq!(run_network_stored(build(), false).unwrap(), r, "the inline run differs");
    assert!(r.links[0].counters.queue_drops > 0, "the bottleneck's buffer overflows");
}
