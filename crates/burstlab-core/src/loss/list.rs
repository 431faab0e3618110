//! Deterministic drop list (Pentikousis & Badr §2: "drops the 4th, 13th, 17th, and so on,
//! incoming segments"; Fall & Floyd 1996). Packets are numbered from 1 as in the seed;
//! with a `period` the pattern repeats every `period` packets.
use super::LossModel;
use crate::rng::Rng;
use crate::Error;

use super::spec::{loss_param, min, LossKind, LossModelSpec, SpecDefault};

/// `list:drops=4/13/17[,period=20]` (also `det`, `deterministic`).
pub const SPEC: LossModelSpec = LossModelSpec {
    name: "list",
    aliases: &["det", "deterministic"],
    help: "Deterministic drops: the packets numbered in the list are lost.",
    reference: "Pentikousis & Badr, Error Modeling for TCP Simulations, §2",
    forms: &[&["drops", "period"]],
    params: &[
        loss_param("list", "drops", LossKind::Packets, "", SpecDefault::Required, None, None, "The packets lost, numbered from 1.", ""),
        loss_param("list", "period", LossKind::Int, "packets", SpecDefault::Absent, min(1.0), None, "Repeat the list every period packets (left out: once).", ""),
    ],
};

#[derive(Clone, Debug, PartialEq)]
pub struct DeterministicList {
    /// Sorted, distinct, 1-based packet numbers to drop.
    drops: Vec<u64>,
    period: Option<u64>,
    /// Packets seen so far.
    n: u64,
}

impl DeterministicList {
    pub fn new(drops: &[u64], period: Option<u64>) -> crate::Result<Self> {
        if let Some(&z) = drops.iter().find(|&&d| d == 0) {
            return Err(Error::param("drops", z, "packet numbers counted from 1"));
        }
        let mut v = drops.to_vec();
        v.sort_unstable();
        v.dedup();
        if let Some(p) = period {
            if p == 0 {
                return Err(Error::param("period", p, "a positive number of packets"));
            }
            if let Some(&big) = v.iter().find(|&&d| d > p) {
                return Err(Error::param("drops", big, &format!("packet numbers ≤ period {p}")));
            }
        }
        Ok(DeterministicList { drops: v, period, n: 0 })
    }

    pub fn drops(&self) -> &[u64] {
        &self.drops
    }

    pub fn period(&self) -> Option<u64> {
        self.period
    }
}

impl LossModel for DeterministicList {
    fn name(&self) -> &'static str {
        "list"
    }

    fn lost_packet(&mut self, _rng: &mut Rng) -> bool {
        self.n += 1;
        let k = match self.period {
            Some(p) => (self.n - 1) % p + 1,
            None => self.n,
        };
        self.drops.binary_search(&k).is_ok()
    }

    fn reset(&mut self) {
        self.n = 0;
    }

    /// |drops| / period with a period; 0 for a finite list (long-run rate).
    fn mean_loss(&self) -> Option<f64> {
        Some(match self.period {
            Some(p) => self.drops.len() as f64 / p as f64,
            None => 0.0,
        })
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;
    use crate::trace::BitTrace;

    #[test]
    fn drops_exactly_the_listed_packets() {
        let mut m = DeterministicList::new(&[17, 4, 13], None).unwrap();
        let mut r = from_seed(0);
        let mut t = BitTrace::new();
        m.sample_into(20, &mut r, &mut t);
        let lost: Vec<usize> = (0..20).filter(|&i| !t.get(i)).map(|i| i + 1).collect();
        assert_eq!(lost, vec![4, 13, 17]);
        m.reset();
        assert!(!m.lost_packet(&mut r));
    }

    #[test]
    fn period_repeats_and_sets_mean() {
        let mut m = DeterministicList::new(&[2, 5], Some(5)).unwrap();
        let mut r = from_seed(0);
        let v: Vec<bool> = (0..10).map(|_| m.lost_packet(&mut r)).collect();
        assert_eq!(v, vec![false, true, false, false, true, false, true, false, false, true]);
        assert_eq!(m.mean_loss(), Some(0.4));
        assert!(DeterministicList::new(&[0], None).unwrap_err().to_string().contains("drops ="));
        assert!(DeterministicList::new(&[7], Some(5)).unwrap_err().to_string().contains("drops ="));
    }
}
