//! Validation of the simulator against known answers (docs/validation.md).
use super::*;
use crate::link::LossMode;
use crate::loss::{Bernoulli, DropList, GilbertElliott};
use crate::results::SimResult;
use crate::time::{NS_PER_MS, NS_PER_S};

fn base(variant: Variant, loss: Option<Box<dyn crate::loss::LossModel>>, secs: u64) -> Scenario {
    let tcp = TcpConfig { variant, ..TcpConfig::default() };
    let mut link = LinkConfig::new(10_000_000, 10 * NS_PER_MS, 100);
    if let Some(m) = loss {
        link = link.with_loss(m, LossMode::Packet);
    }
    Scenario::new(tcp, link, Workload::bulk(secs * NS_PER_S))
}

#[test]
fn smoke() {
    for v in [Variant::Tahoe, Variant::Reno, Variant::NewReno, Variant::Sack] {
        for p in [0.0, 0.01, 0.05] {
            let r: SimResult = run(base(v, Some(Box::new(Bernoulli::new(p).unwrap())), 20)).unwrap();
            eprintln!("{v:?} p={p}: {:.3} Mb/s {:?}", r.goodput_bps / 1e6, r.counters);
        }
    }
}
