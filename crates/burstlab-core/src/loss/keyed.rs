//! Replay keyed by what a packet is, not by its place in the sequence (`burstlab shell
//! --replay-key segment`, docs/shell.md "Replay by packet number or by segment").
//!
//! A replay by packet number gives the k-th packet through a link the k-th logged fate: the
//! same channel, but once two TCP stacks send different packets (one more retransmission,
//! one new segment less) the same segment no longer meets the same fate. Keyed, a fate
//! belongs to a [`FateKey`]: the flow, what the packet carries ([`KeyKind`]: a data segment
//! by its sequence number, an ACK by its cumulative acknowledgement, a control packet by its
//! flags) and its transmission — the how-many-th time a packet of that flow, kind and number
//! reached this link's loss decision (0 for the first: a data segment's original, 1 for its
//! first retransmission; for ACKs, 0 for the first ACK of a cumulative number, 1 for its
//! first duplicate). The counting ([`TxCounter`]) is the same on both sides: in the shell's
//! forwarder over the real packets, in the simulator over its own.
//!
//! A packet whose key the log does not hold (a transmission the other stack never made, or
//! data past the end of the logged run) is counted as unmatched and decided by the replay's
//! fallback model on its own stream ([`KeyedReplay::otherwise`]), or, without one, delivered.
use super::LossModel;
use crate::rng::{from_seed, Rng};
use std::collections::HashMap;

/// What a packet carries, for its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum KeyKind {
    /// A TCP segment with payload: keyed by its sequence number.
    Data = 0,
    /// A TCP segment without payload, SYN, FIN or RST: keyed by its acknowledgement number.
    Ack = 1,
    /// A SYN, FIN or RST without payload: keyed by its flags.
    Control = 2,
    /// Anything else (not TCP over IPv4; the simulator's datagrams): keyed by its number.
    Other = 3,
}

impl KeyKind {
    pub fn from_u8(k: u8) -> crate::Result<Self> {
        match k {
            0 => Ok(KeyKind::Data),
            1 => Ok(KeyKind::Ack),
            2 => Ok(KeyKind::Control),
            3 => Ok(KeyKind::Other),
            _ => Err(crate::Error::param("kind", k, "0 (data), 1 (ack), 2 (control) or 3 (other)")),
        }
    }
}

/// A packet's identity before its transmission is counted: flow, kind and number (the
/// simulator: a data segment's index, an ACK's cumulative segment; the shell: bytes from the
/// flow's initial sequence number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FateKey {
    pub flow: u32,
    pub kind: KeyKind,
    pub num: u64,
}

/// Counts the transmissions of each [`FateKey`]: [`TxCounter::next`] returns 0 the first time
/// a key is seen, 1 the second, …
#[derive(Clone, Debug, Default)]
pub struct TxCounter {
    seen: HashMap<FateKey, u32>,
}

impl TxCounter {
    #[inline]
    pub fn next(&mut self, k: FateKey) -> u32 {
        let c = self.seen.entry(k).or_insert(0);
        let tx = *c;
        *c += 1;
        tx
    }

    pub fn clear(&mut self) {
        self.seen.clear();
    }
}

/// Logged fates by key: the k-th transmission of a key gets the fate logged for it.
#[derive(Clone)]
pub struct KeyedReplay {
    fates: HashMap<(FateKey, u32), bool>,
    tx: TxCounter,
    /// Decides what the log does not hold (None: delivered), on `rng`.
    otherwise: Option<Box<dyn LossModel>>,
    rng: Rng,
    /// Decisions taken from the log, and those whose key it did not hold.
    pub matched: u64,
    pub unmatched: u64,
}

/// Sizes, not the whole table (a run's log holds thousands of entries).
impl std::fmt::Debug for KeyedReplay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyedReplay")
            .field("entries", &self.fates.len())
            .field("lost", &self.fates.values().filter(|&&l| l).count())
            .field("otherwise", &self.otherwise)
            .field("matched", &self.matched)
            .field("unmatched", &self.unmatched)
            .finish()
    }
}

impl KeyedReplay {
    /// From parallel columns: each entry's key (flow, kind, num), its transmission and its
    /// fate (true = lost). A key logged twice keeps its last fate.
    pub fn new(flow: &[u32], kind: &[u8], num: &[u64], tx: &[u32], lost: &[bool]) -> crate::Result<Self> {
        let n = flow.len();
        for (name, len) in [("kind", kind.len()), ("num", num.len()), ("tx", tx.len()), ("lost", lost.len())] {
            if len != n {
                return Err(crate::Error::param(name, len, &format!("{n} entries, as many as flow")));
            }
        }
        let mut fates = HashMap::with_capacity(n);
        for i in 0..n {
            let k = FateKey { flow: flow[i], kind: KeyKind::from_u8(kind[i])?, num: num[i] };
            fates.insert((k, tx[i]), lost[i]);
        }
        Ok(KeyedReplay { fates, tx: TxCounter::default(), otherwise: None, rng: from_seed(0), matched: 0, unmatched: 0 })
    }

    /// Transmissions the log does not hold are decided by `model` (per packet) instead of
    /// being delivered.
    pub fn otherwise(mut self, model: Box<dyn LossModel>) -> Self {
        self.otherwise = Some(model);
        self
    }

    /// The stream of the fallback model (the simulator gives the link's loss stream).
    pub fn set_rng(&mut self, rng: Rng) {
        self.rng = rng;
    }

    /// The fate of the next transmission of `k` (true = lost).
    #[inline]
    pub fn decide(&mut self, k: FateKey) -> bool {
        let tx = self.tx.next(k);
        self.fate(k, tx)
    }

    /// The fate of transmission `tx` of `k`, counted by the caller (true = lost).
    #[inline]
    pub fn fate(&mut self, k: FateKey, tx: u32) -> bool {
        match self.lookup(k, tx) {
            Some(lost) => lost,
            None => self.otherwise.as_mut().is_some_and(|m| m.lost_packet(&mut self.rng)),
        }
    }

    /// The logged fate of transmission `tx` of `k`, if the log holds it (counted as matched
    /// or unmatched; no fallback).
    #[inline]
    pub fn lookup(&mut self, k: FateKey, tx: u32) -> Option<bool> {
        let f = self.fates.get(&(k, tx)).copied();
        match f {
            Some(_) => self.matched += 1,
            None => self.unmatched += 1,
        }
        f
    }

    /// Logged entries.
    pub fn len(&self) -> usize {
        self.fates.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fates.is_empty()
    }
}

/// As a loss model, so that a link can carry it: the simulator's engine takes it out
/// ([`LossModel::as_keyed`]) and asks it with each packet's key. Asked without a key (a
/// consumer that does not know packets: `burstlab gen`, a link layer's attempts), a packet is
/// unmatched and delivered.
impl LossModel for KeyedReplay {
    fn name(&self) -> &'static str {
        "keyed-replay"
    }

    fn lost_packet(&mut self, rng: &mut Rng) -> bool {
        self.unmatched += 1;
        self.otherwise.as_mut().is_some_and(|m| m.lost_packet(rng))
    }

    fn reset(&mut self) {
        self.tx.clear();
        if let Some(m) = self.otherwise.as_mut() {
            m.reset();
        }
        self.matched = 0;
        self.unmatched = 0;
    }

    fn mean_loss(&self) -> Option<f64> {
        None
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }

    fn as_keyed(&self) -> Option<&KeyedReplay> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(flow: u32, kind: KeyKind, num: u64) -> FateKey {
        FateKey { flow, kind, num }
    }

    #[test]
    fn transmissions_are_counted_per_key() {
        let mut c = TxCounter::default();
        let a = key(0, KeyKind::Data, 1448);
        let b = key(0, KeyKind::Ack, 1448);
        assert_eq!([c.next(a), c.next(b), c.next(a), c.next(a), c.next(b)], [0, 0, 1, 2, 1]);
        assert_eq!(c.next(key(1, KeyKind::Data, 1448)), 0, "another flow's segment is another key");
    }

    #[test]
    fn a_segment_meets_its_own_fate_whatever_comes_between() {
        // logged: segment 5 lost on its first transmission, delivered on its retransmission;
        // segment 6 lost on its first
        let mut r = KeyedReplay::new(&[0, 0, 0, 0], &[0, 0, 0, 0], &[4, 5, 5, 6], &[0, 0, 1, 0], &[false, true, false, true]).unwrap();
        // the replaying stack sends 5, 6, an extra new segment 7 (unlogged), then 5 again
        assert!(r.decide(key(0, KeyKind::Data, 5)));
        assert!(r.decide(key(0, KeyKind::Data, 6)));
        assert!(!r.decide(key(0, KeyKind::Data, 7)));
        assert!(!r.decide(key(0, KeyKind::Data, 5)), "the retransmission's fate, not the next packet's");
        // a second retransmission the log never saw: delivered
        assert!(!r.decide(key(0, KeyKind::Data, 5)));
        assert_eq!((r.matched, r.unmatched), (3, 2));
        r.reset();
        assert!(r.decide(key(0, KeyKind::Data, 5)), "reset starts the counts again");
    }

    #[test]
    fn what_the_log_does_not_hold_meets_the_fallback_model() {
        let mut r = KeyedReplay::new(&[0], &[0], &[1], &[0], &[false]).unwrap().otherwise(Box::new(super::super::Bernoulli::new(1.0).unwrap()));
        assert!(!r.decide(key(0, KeyKind::Data, 1)), "the logged fate");
        assert!(r.decide(key(0, KeyKind::Data, 2)), "not logged: the fallback's (p = 1)");
        assert_eq!(r.lookup(key(0, KeyKind::Data, 3), 0), None);
        assert_eq!((r.matched, r.unmatched), (1, 2));
    }

    #[test]
    fn kinds_do_not_mix_and_bad_columns_are_refused() {
        let mut r = KeyedReplay::new(&[0], &[1], &[3], &[0], &[true]).unwrap();
        assert!(!r.decide(key(0, KeyKind::Data, 3)));
        assert!(r.decide(key(0, KeyKind::Ack, 3)));
        assert!(KeyedReplay::new(&[0], &[9], &[3], &[0], &[true]).unwrap_err().to_string().contains("kind"));
        assert!(KeyedReplay::new(&[0, 1], &[0], &[3], &[0], &[true]).unwrap_err().to_string().contains("2 entries"));
    }
}
