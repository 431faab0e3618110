use burstlab_core::link::LossMode;
use burstlab_core::loss::Bernoulli;
use burstlab_core::sim::{run, LinkConfig, Scenario, TcpConfig, Variant, Workload};
use burstlab_core::time::{NS_PER_MS, NS_PER_S};
fn main() {
    let secs: u64 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(100);
    let tcp = TcpConfig { variant: Variant::NewReno, ..TcpConfig::default() };
    let link = LinkConfig::new(10_000_000, 10 * NS_PER_MS, 100).with_loss(Box::new(Bernoulli::new(0.01).unwrap()), LossMode::Packet);
    let mut sc = Scenario::new(tcp, link, Workload::bulk(secs * NS_PER_S));
    sc.seed = 1;
    let r = run(sc).unwrap();
    println!("{} {} {}", r.counters.packets_sent, r.events, r.goodput_bps);
}
