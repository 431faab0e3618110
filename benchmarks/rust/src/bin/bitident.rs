//! Fingerprints of simulation results, for checking that a refactoring of burstlab-core
//! leaves every result bit for bit where it was (`benchmarks/bitident.py` compares them
//! with `benchmarks/bitident_baseline.txt`).
//!
//! One line per run: `NAME HASH packets_sent events`, where HASH is a 64-bit FNV-1a hash of
//! every reading of the result: each flow's counters, goodput, throughput, completion
//! time, end time, event count and series; each link's counters, utilisation, capacity,
//! queueing-delay histogram (count, mean, maximum, quantiles, bins) and link-layer
//! statistics (counters, attempts per frame, attempt-time and latency histograms through
//! their public readings). Floats enter by their bits.
//!
//! The runs:
//! - `variant/NAME/SEED`: the 14 scenarios of `burstlab_bench::variants` × seeds 1-3, 100 s;
//! - `net/single`, `net/dumbbell`, `net/chain`: `burstlab_bench::htsim`'s three networks,
//!   100 s (dumbbell: 10 flows at 10 Mb/s with no loss, chain: 4 hops at 0.25 % each);
//! - `random/K`: 60 random networks from a seeded generator (1-4 hops, full- or
//!   half-duplex, byte or packet buffers, DropTail or RED, Bernoulli or Gilbert-Elliott
//!   loss in packet or time mode, shared channels, ARQ or HARQ link layers, 1-5 TCP flows
//!   with every congestion control and loss recovery and random settings, CBR and on/off
//!   flows, sized transfers, start times, warm-ups, series);
//! - `parse/FORMAT/K`: the text readers (`trace::parse`) on 40 generated texts per format
//!   (clean lines, comments, blank lines, CR LF, spaces, extra fields, stray characters, some
//!   of them errors): the bits and sequence-list information read, or the error message.
//!
//! Usage: bitident [--only PREFIX]
use burstlab_bench::{htsim, variants};
use burstlab_core::link::arq::ArqConfig;
use burstlab_core::link::harq::HarqConfig;
use burstlab_core::link::{AttemptTiming, BufferUnit, LinkLayerConfig, LinkStats, LossMode, QueueDisc, RedParams, Timing};
use burstlab_core::loss::{Bernoulli, GilbertElliott, LossModel, Sojourn};
use burstlab_core::results::{NetworkResult, SimResult};
use burstlab_core::rng::{stream, uniform, Rng, RngExt};
use burstlab_core::sim::{run, run_network, FlowSpec, LinkLoss, LinkSpec, Network, OnOff, TcpConfig};
use burstlab_core::tcp::config::{
    CcKind, CcRtt, CubicVariant, DupackRule, Hystart, LinuxRenoVariant, PipeRule, PrrBound, PrrVariant, RecoveryKind, TibetEstimator,
    WestwoodVariant,
};
use burstlab_core::tcp::rtt::{BackoffReset, RtoEstimator};
use burstlab_core::tcp::SsthreshRule;
use burstlab_core::time::{NS_PER_MS, NS_PER_S};
use burstlab_core::trace::parse::{parse_bytes, Format, Options, Parsed};

/// FNV-1a over the words fed to it.
struct Fp(u64);

impl Fp {
    fn new() -> Self {
        Fp(0xcbf2_9ce4_8422_2325)
    }
    fn u(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn f(&mut self, v: f64) {
        self.u(v.to_bits())
    }
    fn of(&mut self, v: Option<f64>) {
        match v {
            None => self.u(u64::MAX),
            Some(x) => self.f(x),
        }
    }
    fn s(&mut self, s: &str) {
        self.u(s.len() as u64);
        for b in s.bytes() {
            self.u(b as u64);
        }
    }
}

fn sim(fp: &mut Fp, r: &SimResult) {
    let c = &r.counters;
    for v in [
        c.packets_sent,
        c.packets_lost,
        c.channel_losses,
        c.queue_drops,
        c.retransmissions,
        c.spurious_retransmissions,
        c.fast_retransmits,
        c.timeouts,
        c.acks_sent,
        c.acks_lost,
        c.arrived_bytes,
        c.delivered_bytes,
        c.delivered_segments,
        c.ecn_reductions,
        c.lost_retransmissions,
        c.loss_probes,
        c.pfec_sent,
        c.rfec_sent,
        c.fec_decodes,
        c.fec_wasted,
    ] {
        fp.u(v);
    }
    for v in [r.goodput_bps, r.goodput_pps, r.throughput_bps, r.duration] {
        fp.f(v);
    }
    fp.of(r.completion_time);
    fp.u(r.end_time);
    fp.u(r.events);
    match &r.series {
        None => fp.u(u64::MAX),
        Some(s) => {
            fp.u(s.len() as u64);
            for i in 0..s.len() {
                for v in [s.time[i], s.cwnd[i], s.ssthresh[i], s.srtt[i], s.rto[i], s.snd_una[i], s.snd_nxt[i], s.state[i] as u64] {
                    fp.u(v);
                }
            }
        }
    }
}

const QS: [f64; 5] = [0.0, 0.5, 0.9, 0.99, 1.0];

fn link_layer(fp: &mut Fp, s: &LinkStats) {
    for v in [s.frames, s.delivered, s.dropped, s.attempts, s.failed_attempts, s.units_sent, s.units_lost] {
        fp.u(v);
    }
    for &v in &s.attempts_per_frame {
        fp.u(v);
    }
    for h in [&s.attempt_time, &s.latency] {
        fp.u(h.count());
        fp.of(h.mean());
        fp.u(h.min().unwrap_or(u64::MAX));
        fp.u(h.max().unwrap_or(u64::MAX));
        for q in QS {
            fp.u(h.quantile_clamped(q).unwrap_or(u64::MAX));
        }
    }
    let f = &s.fec;
    for c in [&f.data_sent, &f.pfec_sent, &f.rfec_sent, &f.pfec_wasted, &f.rfec_wasted] {
        fp.u(c.fragments);
        fp.u(c.bytes);
    }
}

fn network(r: &NetworkResult) -> u64 {
    let mut fp = Fp::new();
    for f in &r.flows {
        fp.s(&f.name);
        fp.s(&format!("{:?}", f.kind));
        sim(&mut fp, &f.result);
        fp.u(f.spurious_timeouts);
    }
    for l in &r.links {
        fp.s(&l.name);
        let c = &l.counters;
        for v in [c.offered, c.sent, c.bytes_sent, c.queue_drops, c.channel_losses, c.delivered, c.early_drops, c.ecn_marks] {
            fp.u(v);
        }
        fp.f(l.utilisation);
        fp.of(l.capacity_bps);
        let h = &l.queue_delay;
        fp.u(h.count());
        fp.of(h.mean());
        fp.u(h.max().unwrap_or(u64::MAX));
        for q in QS {
            fp.of(h.quantile(q));
        }
        for (lo, hi, n) in h.bins() {
            fp.u(lo);
            fp.u(hi);
            fp.u(n);
        }
        match &l.link_layer {
            None => fp.u(u64::MAX),
            Some(s) => link_layer(&mut fp, s),
        }
    }
    fp.f(r.aggregate_goodput_bps);
    fp.of(r.jain_index);
    fp.u(r.end_time);
    fp.u(r.events);
    fp.0
}

fn line(name: &str, r: &NetworkResult) -> String {
    let sent: u64 = r.flows.iter().map(|f| f.result.counters.packets_sent).sum();
    format!("{name} {:016x} {sent} {}", network(r), r.events)
}

fn pick<T: Copy>(g: &mut Rng, xs: &[T]) -> T {
    xs[g.random_range(0..xs.len())]
}

fn coin(g: &mut Rng, one_in: u32) -> bool {
    g.random_range(0..one_in) == 0
}

/// A TCP configuration with a random congestion control, recovery and settings (the
/// fields the ns3, linux and tossim profiles set among them), drawn again until it
/// validates. One field per statement: the order of the draws defines the generator.
#[allow(clippy::field_reassign_with_default)]
fn random_tcp(g: &mut Rng) -> TcpConfig {
    let parse_any = |g: &mut Rng, names: &[&'static str]| names[g.random_range(0..names.len())];
    loop {
        let mut t = TcpConfig::default();
        // the seven controllers the baseline was recorded with (later ones are appended to NAMES)
        t.cc = CcKind::parse(parse_any(g, &CcKind::NAMES[..7])).unwrap();
        t.recovery = RecoveryKind::parse(parse_any(g, RecoveryKind::NAMES)).unwrap();
        t.mss = pick(g, &[536, 1000, 1448]);
        t.init_cwnd = g.random_range(1..11);
        if coin(g, 4) {
            t.max_cwnd = Some(g.random_range(4..80));
        }
        if coin(g, 5) {
            t.rwnd = Some(g.random_range(4..80));
        }
        t.delayed_ack = coin(g, 2);
        t.ack_every = g.random_range(1..3);
        t.ack_timeout = pick(g, &[40, 200, 500]) * NS_PER_MS;
        t.rto_min = pick(g, &[200, 1000]) * NS_PER_MS;
        t.rto_max = pick(g, &[10, 60]) * NS_PER_S;
        t.rto_initial = pick(g, &[1, 3]) * NS_PER_S;
        t.clock_granularity = pick(g, &[0, 1, 200]) * NS_PER_MS;
        t.dupack_threshold = g.random_range(2..5);
        t.limited_transmit = coin(g, 2);
        t.dupack_rule = DupackRule::parse(parse_any(g, DupackRule::NAMES)).unwrap();
        t.pipe_rule = PipeRule::parse(parse_any(g, PipeRule::NAMES)).unwrap();
        t.rack_lost_retransmissions = coin(g, 3);
        t.rack_tlp = coin(g, 3);
        t.ssthresh_rule = pick(g, &[SsthreshRule::FlightSize, SsthreshRule::Pipe, SsthreshRule::FlightSizeMinusLost]);
        t.grow_on_loss_exit = coin(g, 2);
        t.grow_on_recovery_exit = coin(g, 2);
        t.rto_backoff_reset = pick(g, &[BackoffReset::Sample, BackoffReset::NewAck]);
        t.timestamps = coin(g, 3);
        t.handshake = coin(g, 3);
        t.abc = coin(g, 3);
        t.cc_rtt = CcRtt::parse(parse_any(g, CcRtt::NAMES)).unwrap();
        t.prr_bound = PrrBound::parse(parse_any(g, PrrBound::NAMES)).unwrap();
        t.prr_variant = PrrVariant::parse(parse_any(g, PrrVariant::NAMES)).unwrap();
        t.westwood_variant = WestwoodVariant::parse(parse_any(g, WestwoodVariant::NAMES)).unwrap();
        t.linux_reno_variant = LinuxRenoVariant::parse(parse_any(g, LinuxRenoVariant::NAMES)).unwrap();
        t.tibet_estimator = TibetEstimator::parse(parse_any(g, TibetEstimator::NAMES)).unwrap();
        t.cubic_variant = CubicVariant::parse(parse_any(g, CubicVariant::NAMES)).unwrap();
        t.hystart = Hystart::parse(parse_any(g, Hystart::NAMES)).unwrap();
        t.cubic_fast_convergence = coin(g, 2);
        t.cubic_reno_friendly = coin(g, 2);
        t.rto_estimator = pick(g, &[RtoEstimator::Rfc6298, RtoEstimator::Rfc793 { alpha: 0.875, beta: 2.0 }]);
        t.rto_backoff = !coin(g, 4);
        t.ack_on_idle = coin(g, 4);
        t.fast_retransmit_after_timeout = coin(g, 3);
        t.restart_timer_every_partial_ack = coin(g, 3);
        t.ecn = coin(g, 3);
        t.lt_adaptive_mss = coin(g, 2);
        t.lt_pfec = !coin(g, 4);
        t.lt_rfec = !coin(g, 4);
        if t.validate().is_ok() {
            return t;
        }
    }
}

fn random_loss(g: &mut Rng) -> Box<dyn LossModel> {
    if coin(g, 2) {
        Box::new(Bernoulli::new(uniform(g) * 0.08).unwrap())
    } else {
        Box::new(GilbertElliott::from_prr_mu(0.75 + 0.25 * uniform(g), uniform(g) * 0.8).unwrap())
    }
}

fn random_layer(g: &mut Rng, rate_bps: u64) -> LinkLayerConfig {
    let mut timing = if coin(g, 2) { AttemptTiming::fixed(g.random_range(50..500) * 1000) } else { AttemptTiming::uniform(100_000, 900_000) };
    timing.rate_bps = rate_bps;
    if coin(g, 2) {
        LinkLayerConfig::Arq(ArqConfig::retries(g.random_range(0..7), timing))
    } else {
        let mut h = HarqConfig::new(timing);
        h.proactive = coin(g, 2);
        LinkLayerConfig::Harq(h)
    }
}

/// Random network number `case` (see the module documentation).
fn random_network(g: &mut Rng, case: u64) -> Network {
    let nh = g.random_range(1..5);
    let mut net = Network::new(g.random_range(5..25) * NS_PER_S);
    net.seed = case;
    if coin(g, 4) {
        net.warmup = g.random_range(1..4) * NS_PER_S;
    }
    net.series = coin(g, 4);
    let mut hops = Vec::new();
    for k in 0..nh {
        let rate = pick(g, &[1_000_000u64, 2_000_000, 10_000_000, 50_000_000]);
        let delay = g.random_range(0..30) * NS_PER_MS;
        let buffer = g.random_range(2..120);
        let layered = coin(g, 5);
        let a = net.server(if layered { Timing::LinkLayer } else { Timing::Rate { rate_bps: rate } });
        let b = if !layered && coin(g, 5) { a } else { net.server(Timing::Rate { rate_bps: rate }) };
        let mut l = LinkSpec::new(&format!("h{k}"), a, delay, buffer);
        if coin(g, 4) {
            l.buffer_unit = BufferUnit::Bytes;
            l.buffer *= 1040;
        }
        if coin(g, 4) {
            l.queue = QueueDisc::Red(RedParams::default());
        }
        if !coin(g, 3) {
            let mode = if coin(g, 2) { LossMode::Packet } else { LossMode::Time };
            l.loss = LinkLoss::Own(random_loss(g), mode);
        }
        if layered {
            l.layer = Some(random_layer(g, rate));
        }
        let f = net.link(l);
        let mut rl = LinkSpec::new(&format!("h{k}.rev"), b, delay, buffer);
        if !layered && coin(g, 5) && matches!(net.links[f].loss, LinkLoss::Own(..)) {
            rl.loss = LinkLoss::Shared(f);
        }
        let r = net.link(rl);
        hops.push((f, r, rate));
    }
    for k in 0..g.random_range(1..6) {
        let a = g.random_range(0..nh);
        let b = g.random_range(a..nh) + 1;
        let fwd: Vec<usize> = (a..b).map(|h| hops[h].0).collect();
        let rev: Vec<usize> = (a..b).rev().map(|h| hops[h].1).collect();
        let cap = hops[a..b].iter().map(|h| h.2).min().unwrap();
        let i = if coin(g, 6) {
            let mut f = FlowSpec::cbr(&format!("u{k}"), cap / g.random_range(2..10), 500, fwd);
            if coin(g, 2) {
                f.on_off = Some(OnOff { on: Sojourn::Exponential { mean: 0.5 }, off: Sojourn::Exponential { mean: 0.5 } });
            }
            net.flow(f)
        } else {
            net.flow(FlowSpec::tcp(&format!("f{k}"), random_tcp(g), fwd, rev))
        };
        net.flows[i].start = g.random_range(0..2000) * NS_PER_MS;
        if net.flows[i].is_tcp() && coin(g, 4) {
            net.flows[i].size = Some(g.random_range(1..3_000_000));
        }
        if coin(g, 6) {
            net.flows[i].stop = Some(net.flows[i].start + g.random_range(1..10) * NS_PER_S);
        }
    }
    net
}

/// A random text in `fmt`'s shape (see the module documentation), 10^3-10^5 lines.
fn random_text(g: &mut Rng, fmt: Format) -> Vec<u8> {
    let n = pick(g, &[1_000usize, 10_000, 100_000]);
    let noisy = coin(g, 2);
    let mut out = Vec::new();
    let mut v = 0u64;
    for i in 0..n {
        if noisy && coin(g, 50) {
            out.extend_from_slice(pick(g, &[&b"# a comment\n"[..], b"\n", b"  \n", b"\r\n"]));
        }
        match fmt {
            Format::Bits | Format::Ttem => out.push(if coin(g, 5) { b'0' } else { b'1' }),
            Format::String => {
                out.push(if coin(g, 5) { b'0' } else { b'1' });
                if noisy && coin(g, 20) {
                    out.push(b' ');
                }
            }
            Format::SeqList | Format::Mahimahi => {
                v += if fmt == Format::Mahimahi { g.random_range(0..3) } else { g.random_range(1..4) };
                out.extend_from_slice(v.to_string().as_bytes());
                if fmt == Format::SeqList && noisy && coin(g, 30) {
                    out.extend_from_slice(b" 17 x");
                }
            }
        }
        if fmt != Format::String || coin(g, 64) {
            out.extend_from_slice(if noisy && coin(g, 40) { b"\r\n" } else { b"\n" });
        }
        if noisy && i == n / 2 && coin(g, 4) {
            out.extend_from_slice(b"2\n"); // an error for every format but seqlist and mahimahi
        }
    }
    out
}

fn parse_line(name: &str, data: &[u8], fmt: Format) -> String {
    let opts = Options { one_means_lost: fmt == Format::String, ..Options::default() };
    let mut fp = Fp::new();
    match parse_bytes(data, fmt, "gen.txt", opts) {
        Ok(Parsed::Trace(t, info)) => {
            fp.u(t.len() as u64);
            for &w in t.words() {
                fp.u(w);
            }
            fp.s(&format!("{info:?}"));
            format!("{name} {:016x} {} {}", fp.0, t.len(), t.count_ones())
        }
        Ok(Parsed::Times(v)) => {
            for &x in &v {
                fp.u(x);
            }
            format!("{name} {:016x} {} -", fp.0, v.len())
        }
        Err(e) => {
            fp.s(&e.to_string());
            format!("{name} {:016x} error -", fp.0)
        }
    }
}

fn main() {
    let only = std::env::args().skip_while(|a| a != "--only").nth(1).unwrap_or_default();
    let want = |name: &str| name.starts_with(&only);
    for (name, tcp, red) in variants::all() {
        for seed in 1..=3 {
            let n = format!("variant/{name}/{seed}");
            if want(&n) {
                let sc = variants::scenario(&tcp, red, 100 * NS_PER_S, seed);
                let r = run(sc).expect("variant scenario runs");
                let mut fp = Fp::new();
                sim(&mut fp, &r);
                println!("{n} {:016x} {} {}", fp.0, r.counters.packets_sent, r.events);
            }
        }
    }
    type Make = fn() -> Network;
    let nets: [(&str, Make); 3] = [
        ("net/single", || htsim::single(0.01, 100.0, 1)),
        ("net/dumbbell", || htsim::dumbbell(10, 10_000_000, 0.0, 100.0, 1)),
        ("net/chain", || htsim::chain(4, htsim::CHAIN_P_HOP, 100.0, 1)),
    ];
    for (n, make) in nets {
        if want(n) {
            println!("{}", line(n, &run_network(make()).expect("network runs")));
        }
    }
    let mut g = stream(2828, 28);
    for case in 0..60u64 {
        let net = random_network(&mut g, case);
        let n = format!("random/{case}");
        if want(&n) {
            match run_network(net) {
                Ok(r) => println!("{}", line(&n, &r)),
                Err(e) => println!("{n} error {}", e.to_string().replace(' ', "_")),
            }
        }
    }
    let mut g = stream(2828, 29);
    for (fname, fmt) in [("bits", Format::Bits), ("string", Format::String), ("ttem", Format::Ttem), ("seqlist", Format::SeqList), ("mahimahi", Format::Mahimahi)] {
        for k in 0..40 {
            let text = random_text(&mut g, fmt);
            let n = format!("parse/{fname}/{k}");
            if want(&n) {
                println!("{}", parse_line(&n, &text, fmt));
            }
        }
    }
}
