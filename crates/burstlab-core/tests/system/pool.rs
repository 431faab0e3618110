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

/// Random dumbbells of 32-80 flows (so more than `POOL_LINKS` links, pooled by default):
/// the bottleneck, crossed by every flow, keeps its own ring (`BUSY_FLOWS`); a side link
/// crossed by a few of them and the access links use the pool. Random variants, sizes,
/// starts, CBR, buffers in packets or bytes, loss by packet or by time, a reverse link
/// sharing its loss process or its server: the pooled run gives the inline run's results.
#[test]
fn mixed_rings_and_pool_give_the_inline_results_on_random_dumbbells() {
    use burstlab_core::link::{BufferUnit, LossMode};
    use burstlab_core::loss::{Bernoulli, GilbertElliott, LossModel};
    use burstlab_core::rng::{uniform, RngExt};
    use burstlab_core::sim::engine::BUSY_FLOWS;
    let mut g = stream(4243, 7);
    for case in 0..5u64 {
        let g0 = g.clone();
        let build = |g: &mut burstlab_core::rng::Rng| {
            let n = g.random_range(BUSY_FLOWS..80);
            let mut net = Network::new(g.random_range(2..5) * NS_PER_S);
            net.seed = case;
            let rate = [5_000_000u64, 20_000_000, 80_000_000][g.random_range(0..3)];
            let s = net.server(Timing::Rate { rate_bps: rate });
            let mut b = LinkSpec::new("bottleneck", s, g.random_range(1..40) * NS_PER_MS, g.random_range(5..300));
            if g.random_range(0..3) == 0 {
                b.buffer_unit = BufferUnit::Bytes;
                b.buffer *= 1040;
            }
            let m: Box<dyn LossModel> = if g.random_range(0..2) == 0 {
                Box::new(Bernoulli::new(uniform(g) * 0.03).unwrap())
            } else {
                Box::new(GilbertElliott::from_prr_mu(0.9 + 0.1 * uniform(g), uniform(g) * 0.8).unwrap())
            };
            b.loss = LinkLoss::Own(m, if g.random_range(0..2) == 0 { LossMode::Packet } else { LossMode::Time });
            let bf = net.link(b);
            let rs = if g.random_range(0..3) == 0 { s } else { net.server(Timing::Rate { rate_bps: rate }) };
            let mut rl = LinkSpec::new("bottleneck.rev", rs, 10 * NS_PER_MS, 300);
            if g.random_range(0..3) == 0 {
                rl.loss = LinkLoss::Shared(bf);
            }
            let br = net.link(rl);
            let s = net.server(Timing::Rate { rate_bps: rate / 2 });
            let side = net.link(LinkSpec::new("side", s, 5 * NS_PER_MS, 50));
            for k in 0..n {
                let s = net.server(Timing::Rate { rate_bps: 100_000_000 });
                let af = net.link(LinkSpec::new(&format!("a{k}"), s, g.random_range(0..20) * NS_PER_MS, 1000));
                let s = net.server(Timing::Rate { rate_bps: 100_000_000 });
                let ar = net.link(LinkSpec::new(&format!("a{k}.rev"), s, 5 * NS_PER_MS, 1000));
                // A few flows (fewer than BUSY_FLOWS) also cross the side link.
                let fwd = if k % 8 == 0 { vec![af, side, bf] } else { vec![af, bf] };
                if g.random_range(0..10) == 0 {
                    net.flow(FlowSpec::cbr(&format!("u{k}"), rate / (4 * n as u64), 500, fwd));
                    continue;
                }
                let variant = [Variant::Tahoe, Variant::Reno, Variant::NewReno, Variant::Sack, Variant::Cubic][g.random_range(0..5)];
                let cfg = TcpConfig { delayed_ack: g.random_range(0..2) == 0, init_cwnd: g.random_range(1..11), ..TcpConfig::variant(variant) };
                let i = net.flow(FlowSpec::tcp(&format!("f{k}"), cfg, fwd, vec![br, ar]));
                net.flows[i].start = g.random_range(0..1000) * NS_PER_MS;
                if g.random_range(0..3) == 0 {
                    net.flows[i].size = Some(g.random_range(1..3_000_000));
                }
            }
            net
        };
        let net = || build(&mut g0.clone());
        build(&mut g); // the next case draws after this one's
        assert!(net().links.len() > POOL_LINKS && pooled(&net()), "case {case}: not pooled");
        let busy = busy_links(&net());
        assert!(busy[0] && !busy[2] && !busy[3], "case {case}: the bottleneck alone keeps its own ring forward");
        both(net, &format!("case {case}"));
        let b = run_network(net()).unwrap().links[0].counters.clone();
        assert!(b.delivered > 1000 && b.queue_drops + b.channel_losses > 0, "case {case}: the bottleneck carried little: {b:?}");
    }
}
