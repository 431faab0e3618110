//! Deterministic drops: the packets at the listed indices (0-based, the n-th packet
//! through the link) are lost, every other packet is delivered. Used by the simulator's
//! step-by-step validation (drop chosen segments of one window, as ns-3's TCP tests do).
use super::LossModel;
use crate::rng::Rng;

#[derive(Clone, Debug, PartialEq)]
pub struct DropList {
    /// Sorted, deduplicated packet indices to drop.
    drops: Vec<u64>,
    /// Packets seen so far.
    n: u64,
    /// Index into `drops` of the next drop not yet passed.
    next: usize,
}

impl DropList {
    pub fn new(mut drops: Vec<u64>) -> Self {
        drops.sort_unstable();
        drops.dedup();
        DropList { drops, n: 0, next: 0 }
    }

    pub fn drops(&self) -> &[u64] {
        &self.drops
    }
}

impl LossModel for DropList {
    fn name(&self) -> &'static str {
        "droplist"
    }

    fn lost_packet(&mut self, _rng: &mut Rng) -> bool {
        let i = self.n;
        self.n += 1;
        if self.next < self.drops.len() && self.drops[self.next] == i {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn reset(&mut self) {
        self.n = 0;
        self.next = 0;
    }

    fn mean_loss(&self) -> Option<f64> {
        None
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;

    #[test]
    fn drops_exactly_the_listed_indices() {
        let mut m = DropList::new(vec![5, 1, 5, 9]);
        let mut r = from_seed(0);
        let lost: Vec<u64> = (0..12).filter(|_| m.lost_packet(&mut r)).collect::<Vec<_>>();
        // filter consumes in order 0..12, so `lost` holds the indices that were dropped.
        assert_eq!(lost, vec![1, 5, 9]);
        m.reset();
        assert!(!m.lost_packet(&mut r));
        assert!(m.lost_packet(&mut r));
    }
}
