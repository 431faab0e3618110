//! Westwood+ (Mascolo, Grieco, Ferorelli, Camarda, Piscitelli, "Performance evaluation of
//! Westwood+ TCP congestion control", Performance Evaluation 58, 2004; ns-3's
//! TcpWestwoodPlus): the sender estimates its bandwidth once per RTT from the data the ACKs
//! report delivered, low-pass filtered, and after a loss sets
//!
//! - 3 duplicate ACKs: ssthresh = BWE·RTTmin; cwnd = ssthresh if cwnd > ssthresh
//!   (through [`CongestionControl::cwnd_after_fast_retransmit`]);
//! - timeout: ssthresh = BWE·RTTmin; cwnd = 1 segment (the sender's timeout step).
//!
//! Growth is Reno's. Details the paper leaves to the implementation, as Linux's
//! `tcp_westwood.c` (by the same group) does them (`westwood_variant = "mascolo"`): a
//! duplicate ACK counts one segment delivered and a later cumulative ACK only what it
//! acknowledges beyond those ([`AckAccounting`]); samples are taken back to back, each
//! at the first ACK at least one SRTT after the previous one; the EWMA filter (pole 0.9)
//! starts at the first sample. ssthresh is at least 2 segments; before the first sample,
//! or without an RTT, the loss response is RFC 5681's.
//!
//! `westwood_variant = "ns3"` is ns-3 3.44's TcpWestwoodPlus: a sample interval opens at
//! an ACK and lasts the SRTT of that moment (so idle time, a timeout's wait, is never in a
//! sample), the sample is the segments counted in it over that SRTT; duplicate and partial
//! ACKs count one segment, the ACK that ends fast recovery all it acknowledges (SACKed
//! segments and those the duplicates stood for, again); Tustin's filter, from zero. Its
//! minimum RTT is the smallest RTT congestion control saw (`cc_rtt = "srtt"` in the ns3
//! profile, as ns-3's `m_minRtt` is the smallest SRTT).
use super::reno::Reno;
use super::{bw_window, CongestionControl};
use crate::tcp::config::{TcpConfig, WestwoodVariant};
use crate::tcp::CaState;
use crate::tcp::{AckInfo, Tcb};
use crate::time::Nanos;

/// The filters' pole (Mascolo et al. 2004; ns-3 uses the same).
const POLE: f64 = 0.9;

/// Bytes an ACK reports delivered, duplicate ACKs included (Linux's
/// `westwood_acked_count`): a duplicate ACK stands for one segment that left the network;
/// a cumulative ACK after duplicates counts only the bytes they did not already count.
#[derive(Clone, Debug, Default)]
pub(crate) struct AckAccounting {
    accounted: u64,
}

impl AckAccounting {
    #[inline]
    pub(crate) fn delivered(&mut self, ack: &AckInfo, mss: u64) -> u64 {
        if ack.dup {
            self.accounted += mss;
            return mss;
        }
        let cumul = ack.cum_bytes;
        if cumul <= mss {
            return cumul;
        }
        if self.accounted >= cumul {
            self.accounted -= cumul;
            mss
        } else {
            let d = cumul - self.accounted;
            self.accounted = 0;
            d
        }
    }
}

#[derive(Clone, Debug)]
pub struct Westwood {
    reno: Reno,
    variant: WestwoodVariant,
    /// ns-3's sample interval: its length (the SRTT when it opened).
    window: Nanos,
    acct: AckAccounting,
    /// Bytes delivered since the current sample interval began.
    bytes: u64,
    /// Start of the current sample interval (None before the first ACK).
    since: Option<Nanos>,
    /// Filtered estimate, bytes/s (0 before the first sample).
    bwe: f64,
    /// Previous raw sample (Tustin).
    last_sample: f64,
    samples: u64,
    /// Minimum of the RTTs congestion control saw (`cc_rtt`).
    rtt_min: Option<Nanos>,
}

impl Westwood {
    pub fn new(t: &TcpConfig) -> Self {
        Westwood {
            reno: Reno::from_config(t),
            variant: t.westwood_variant,
            window: 0,
            acct: AckAccounting::default(),
            bytes: 0,
            since: None,
            bwe: 0.0,
            last_sample: 0.0,
            samples: 0,
            rtt_min: None,
        }
    }

    /// The filtered estimate, bytes/s.
    pub fn bwe(&self) -> f64 {
        self.bwe
    }

    fn sample(&mut self, b: f64) {
        self.bwe = match (self.variant, self.samples) {
            (WestwoodVariant::Mascolo, 0) => b,
            (WestwoodVariant::Mascolo, _) => POLE * self.bwe + (1.0 - POLE) * b,
            (WestwoodVariant::Ns3, _) => POLE * self.bwe + (1.0 - POLE) * 0.5 * (b + self.last_sample),
        };
        self.last_sample = b;
        self.samples += 1;
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn on_ack(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        if let Some(r) = ack.rtt {
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
        }
        match self.variant {
            WestwoodVariant::Mascolo => {
                // One sample per SRTT: the bytes delivered by the ACKs of the interval just ended.
                let since = *self.since.get_or_insert(ack.now);
                if let Some(srtt) = tcb.srtt {
                    let dt = ack.now - since;
                    if dt >= srtt && dt > 0 {
                        self.sample(self.bytes as f64 / (dt as f64 * 1e-9));
                        self.bytes = 0;
                        self.since = Some(ack.now);
                    }
                }
                self.bytes += self.acct.delivered(ack, tcb.mss);
            }
            WestwoodVariant::Ns3 => {
                let Some(srtt) = tcb.srtt.filter(|&r| r > 0) else { return self.reno.grow(tcb, ack) };
                if let Some(since) = self.since {
                    if ack.now >= since + self.window {
                        self.sample(self.bytes as f64 / (self.window as f64 * 1e-9));
                        (self.bytes, self.since) = (0, None);
                    }
                }
                if self.since.is_none() {
                    (self.since, self.window) = (Some(ack.now), srtt);
                }
                let exit = ack.state_before == CaState::Recovery && tcb.state == CaState::Open;
                self.bytes += match (ack.dup, ack.state_before) {
                    (true, _) if ack.cum_bytes > 0 => ack.cum_bytes, // advances snd_una too
                    (true, _) => tcb.mss,
                    (false, CaState::Recovery) if exit => ack.cum_bytes,
                    (false, CaState::Recovery) => tcb.mss,
                    (false, _) => ack.acked_bytes,
                };
            }
        }
        self.reno.grow(tcb, ack);
    }

    fn ssthresh_on_loss(&mut self, tcb: &Tcb) -> u64 {
        match self.rtt_min {
            Some(r) if self.samples > 0 => bw_window(self.bwe, r, tcb.mss),
            _ => tcb.half_flight(),
        }
    }

    fn cwnd_after_fast_retransmit(&self, tcb: &Tcb, ssthresh: u64) -> u64 {
        tcb.cwnd.min(ssthresh)
    }

    fn on_timeout(&mut self, tcb: &mut Tcb) {
        self.reno.on_timeout(tcb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_util::ack_at;
    use crate::tcp::CaState;
    use crate::time::NS_PER_MS;

    #[test]
    fn duplicate_acks_are_accounted_once() {
        let mut a = AckAccounting::default();
        let dup = ack_at(0, 0, None, CaState::Disorder);
        assert_eq!(a.delivered(&dup, 1000), 1000);
        assert_eq!(a.delivered(&dup, 1000), 1000);
        // A cumulative ACK of 5 segments after 2 duplicates: 3 new.
        assert_eq!(a.delivered(&ack_at(0, 5, None, CaState::Recovery), 1000), 3000);
        assert_eq!(a.delivered(&ack_at(0, 2, None, CaState::Open), 1000), 2000);
    }

    /// A steady ACK stream of 1 segment per ms (1 MB/s) with SRTT 10 ms: one sample per
    /// 10 ms, each 1 MB/s; the EWMA starts at the first sample; ssthresh = 1 MB/s × 10 ms.
    #[test]
    fn estimate_and_loss_response() {
        let mut w = Westwood::new(&TcpConfig::default());
        let mut t = Tcb::for_test(1000, 20_000);
        t.srtt = Some(10 * NS_PER_MS);
        t.ssthresh = 10_000;
        assert_eq!(w.ssthresh_on_loss(&t), t.half_flight()); // no estimate yet: RFC 5681
        for i in 0..=100u64 {
            w.on_ack(&mut t, &ack_at(i * NS_PER_MS, 1, Some(10 * NS_PER_MS), CaState::Open));
        }
        assert_eq!(w.samples, 10);
        assert!((w.bwe() - 1e6).abs() < 1.0, "{}", w.bwe());
        assert_eq!(w.ssthresh_on_loss(&t), 10_000);
        // 3 duplicate ACKs: cwnd only comes down to ssthresh, never up.
        let mut small = t.clone();
        small.cwnd = 6000;
        assert_eq!(w.cwnd_after_fast_retransmit(&small, 10_000), 6000);
        assert_eq!(w.cwnd_after_fast_retransmit(&t, 10_000), 10_000);
    }

    /// ns-3's variant: Tustin's filter from zero, b ← 0.9·b + 0.05·(s + s_prev); an interval
    /// opens at an ACK and lasts the SRTT then, so the idle time before it is not counted.
    #[test]
    fn ns3_variant() {
        let mut w = Westwood::new(&TcpConfig { westwood_variant: WestwoodVariant::Ns3, ..TcpConfig::default() });
        w.sample(100.0);
        assert!((w.bwe - 5.0).abs() < 1e-12);
        w.sample(100.0);
        assert!((w.bwe - (0.9 * 5.0 + 10.0)).abs() < 1e-12);
        let mut w = Westwood::new(&TcpConfig { westwood_variant: WestwoodVariant::Ns3, ..TcpConfig::default() });
        let mut t = Tcb::for_test(1000, 20_000);
        t.srtt = Some(10 * NS_PER_MS);
        // ACKs at 0..9 ms, then a 1 s pause, then ACKs at 1000..1010 ms: the first interval
        // [0, 10 ms) holds 10 segments (1 MB/s); the second starts at 1000 ms, not at 10 ms.
        for i in (0..10).chain(1000..=1010) {
            w.on_ack(&mut t, &ack_at(i * NS_PER_MS, 1, None, CaState::Open));
        }
        assert_eq!(w.samples, 2);
        assert!((w.last_sample - 1e6).abs() < 1.0, "{}", w.last_sample);
    }
}
