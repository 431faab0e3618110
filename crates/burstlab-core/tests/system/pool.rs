//! The links' packets kept in one shared pool (`link/slots.rs`, the plain engine's choice
//! for networks of more than `POOL_LINKS` links) or inline in each link's ring: the same
//! runs (random chains and dumbbells with time-mode loss, shared servers and loss
//! processes, byte buffers, CBR; a dumbbell of 82 links).
use burstlab_core::link::Timing;
use burstlab_core::rng::stream;
use burstlab_core::sim::engine::{busy_links, pooled, run_network_stored, POOL_LINKS};
use burstlab_core::sim::*;
use burstlab_core::time::{NS_PER_MS, NS_PER_S};

fn both(net: impl Fn() -> Network, what: &str) {
    let inline = run_network_stored(net(), false).unwrap();
    assert_eq!(run_network_stored(net(), true).unwrap(), inline, "{what}: the pooled run differs");
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

/// A dumbbell of more than `POOL_LINKS` links (SACK, CUBIC and NewReno flows) runs pooled by
/// default (its bottleneck, which every flow crosses, in its own ring: `BUSY_FLOWS`), with the
/// inline run's results.
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
                1 => TcpConfig::variant(Variant::Cubic),
                _ => TcpConfig { delayed_ack: false, ..TcpConfig::variant(Variant::NewReno) },
            };
            let i = net.flow(FlowSpec::tcp(&format!("f{k}"), cfg, vec![af, bf], vec![br, ar]));
            net.flows[i].start = k as u64 * NS_PER_MS;
        }
        net
    };
    assert!(build().links.len() > POOL_LINKS && pooled(&build()));
    // The bottleneck's two directions (40 flows) keep their own rings, the access links use the pool.
    let busy = busy_links(&build());
    assert_eq!(busy.iter().filter(|&&b| b).count(), 2);
    assert!(busy[0] && busy[1] && !busy[2]);
    let r = run_network(build()).unwrap();
    assert_eq!(run_network_stored(build(), false).unwrap(), r, "the inline run differs");
    assert!(r.links[0].counters.queue_drops > 0, "the bottleneck's buffer overflows");
}
