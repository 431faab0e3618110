//! burstlab's half of the network speed comparison with htsim (`benchmarks/network_speed.py`):
//! runs one scenario of `burstlab_bench::htsim` and prints one JSON line per run with the
//! data packets sent (all flows, retransmissions included, as htsim's `_packets_sent`),
//! the CPU time of `run_network` (process CPU clock, setup and results included) and the
//! peak resident set size.
//!
//! Usage: network_speed SCENARIO [-n FLOWS] [-bw MBPS] [-p P] [-T SECONDS] [-seed N] [-repeat R] [-tcp NAME]
//! SCENARIO: single | dumbbell | chain | ns3 (the ns-3 comparison scenario of `one`:
//! default TcpConfig, delayed ACKs, 100-packet buffer) | variant (`-tcp NAME`, one of
//! `burstlab_bench::variants`, for `benchmarks/variant_speed.py`).
use burstlab_bench::{htsim, variants};
use burstlab_core::link::{CodelParams, FqParams, LossMode, QueueDisc, RedParams};
use burstlab_core::loss::Bernoulli;
use burstlab_core::sim::{run_network, LinkConfig, Network, Scenario, TcpConfig, Variant, Workload};
use burstlab_core::time::{NS_PER_MS, NS_PER_S};
use cpu_time::ProcessTime;

/// Peak resident set size in kB (`VmHWM` of /proc/self/status; None elsewhere).
fn max_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

struct Args {
    scenario: String,
    n: usize,
    bw_mbps: f64,
    p: Option<f64>,
    secs: f64,
    seed: u64,
    repeat: usize,
    tcp: String,
    /// The queue discipline of the dumbbell's bottleneck (data direction).
    queue: String,
}

fn parse() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let scenario = it.next().ok_or("usage: network_speed single|dumbbell|chain|ns3 [-n N] [-bw MBPS] [-p P] [-T S] [-seed N] [-repeat R] [-tcp NAME] [-queue droptail|red|codel|fq_codel]")?;
    let mut a = Args { scenario, n: 10, bw_mbps: 10.0, p: None, secs: 100.0, seed: 1, repeat: 1, tcp: "newreno".into(), queue: "droptail".into() };
    while let Some(flag) = it.next() {
        let v = it.next().ok_or(format!("{flag}: missing value"))?;
        let bad = |e: &dyn std::fmt::Display| format!("{flag} {v}: {e}");
        match flag.as_str() {
            "-n" => a.n = v.parse().map_err(|e| bad(&e))?,
            "-bw" => a.bw_mbps = v.parse().map_err(|e| bad(&e))?,
            "-p" => a.p = Some(v.parse().map_err(|e| bad(&e))?),
            "-T" => a.secs = v.parse().map_err(|e| bad(&e))?,
            "-seed" => a.seed = v.parse().map_err(|e| bad(&e))?,
            "-repeat" => a.repeat = v.parse().map_err(|e| bad(&e))?,
            "-tcp" => a.tcp = v,
            "-queue" => a.queue = v,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(a)
}

fn build(a: &Args) -> Result<Network, String> {
    let mut net = build_plain(a)?;
    // The queue discipline of the bottleneck's data direction (the per-packet cost of CoDel
    // and FQ-CoDel beside DropTail and RED: docs/validation.md, "CoDel and FQ-CoDel").
    let queue = match a.queue.as_str() {
        "droptail" => QueueDisc::DropTail,
        "red" => QueueDisc::Red(RedParams::default()),
        "codel" => QueueDisc::Codel(CodelParams::default()),
        "fq_codel" => QueueDisc::FqCodel(CodelParams::default(), FqParams::default()),
        q => return Err(format!("-queue {q}: not one of droptail, red, codel, fq_codel")),
    };
    if queue != QueueDisc::DropTail {
        let b = net.links.iter_mut().find(|l| l.name == "bottleneck").ok_or("-queue: the scenario has no bottleneck")?;
        b.queue = queue;
    }
    Ok(net)
}

fn build_plain(a: &Args) -> Result<Network, String> {
    Ok(match a.scenario.as_str() {
        "single" => htsim::single(a.p.unwrap_or(0.01), a.secs, a.seed),
        "dumbbell" => htsim::dumbbell(a.n, (a.bw_mbps * 1e6) as u64, a.p.unwrap_or(0.0), a.secs, a.seed),
        "chain" => htsim::chain(4, a.p.unwrap_or(htsim::CHAIN_P_HOP), a.secs, a.seed),
        "ns3" => {
            let tcp = TcpConfig::variant(Variant::NewReno);
            let link = LinkConfig::new(10_000_000, 10 * NS_PER_MS, 100)
                .with_loss(Box::new(Bernoulli::new(a.p.unwrap_or(0.01)).map_err(|e| e.to_string())?), LossMode::Packet);
            let mut sc = Scenario::new(tcp, link, Workload::bulk((a.secs * NS_PER_S as f64) as u64));
            sc.seed = a.seed;
            sc.into_network()
        }
        "variant" => {
            let all = variants::all();
            let Some((_, tcp, red)) = all.iter().find(|v| v.0 == a.tcp) else {
                let names: Vec<_> = all.iter().map(|v| v.0).collect();
                return Err(format!("-tcp {}: not one of {}", a.tcp, names.join(", ")));
            };
            variants::scenario(tcp, *red, (a.secs * NS_PER_S as f64) as u64, a.seed).into_network()
        }
        s => return Err(format!("unknown scenario {s} (single, dumbbell, chain, ns3, variant)")),
    })
}

fn main() {
    let a = parse().unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    for _ in 0..a.repeat {
        let net = build(&a).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(2)
        });
        let flows = net.flows.len();
        let c0 = ProcessTime::now();
        let r = run_network(net).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(2)
        });
        let cpu = c0.elapsed().as_secs_f64();
        let packets: u64 = r.flows.iter().map(|f| f.result.counters.packets_sent).sum();
        let drops: u64 = r.links.iter().map(|l| l.counters.queue_drops).sum();
        let losses: u64 = r.links.iter().map(|l| l.counters.channel_losses).sum();
        println!(
            "{{\"sim\": \"burstlab\", \"scenario\": \"{}\", \"flows\": {flows}, \"T\": {}, \"seed\": {}, \"packets_sent\": {packets}, \
             \"channel_losses\": {losses}, \"queue_drops\": {drops}, \"goodput_bps\": {:.0}, \"events\": {}, \"loop_cpu_s\": {cpu:.6}, \
             \"loop_cpu_pps\": {:.4e}, \"maxrss_kb\": {}}}",
            a.scenario,
            a.secs,
            a.seed,
            r.aggregate_goodput_bps,
            r.events,
            packets as f64 / cpu,
            max_rss_kb().map_or("null".into(), |k| k.to_string())
        );
    }
}
