//! Delivery-rate estimation: Cheng, Cardwell, Yeganeh, Jacobson, *Delivery Rate Estimation*
//! (draft-cheng-iccrg-delivery-rate-estimation-02), as Linux's `tcp_rate.c` implements it.
//! BBR v1 and v3 (`cc/bbr.rs`, `cc/bbr3.rs`) build their bandwidth model from these samples.
//!
//! At each transmission the sender snapshots the connection's delivery state into the
//! segment's record (§3.2 "Transmitting a data packet", `tcp_rate_skb_sent`): how much had been
//! delivered (`delivered`), when (`delivered_time`), the send time of the packet that started
//! the current flight (`first_sent_time`), whether the flow was application-limited, and (for
//! BBR v3) how much was in flight and lost. On each ACK (§3.3 "Upon receiving an ACK",
//! `tcp_rate_skb_delivered` + `tcp_rate_gen`) the most recently sent of the segments it
//! delivers (cumulatively or by SACK; equal send times: the highest sequence, Linux's
//! `tcp_skb_sent_after`) gives the sample: the data delivered since that segment
//! was sent, over the longer of its send interval and its ACK interval (§3.3 "so that the
//! estimate is not inflated by ACK compression"), invalid when shorter than the minimum RTT.
//! Linux visits every segment an ACK delivers; the sampler visits the ends of the newly
//! acknowledged range and of each SACK block, and the retransmissions the ACK delivers, which
//! gives the same segment: between two ends, first transmissions were sent in sequence order,
//! so the upper end is the latest of them, and a retransmission, which may be the latest
//! wherever it sits, is visited from the list of those outstanding. (Until 2026-11-29 it
//! visited the ends alone: a cumulative ACK over two repaired holes was sampled on the older
//! repair, and a repair SACKed inside a block gave no sample.) The one case left is a first
//! transmission delivered out of order inside a block (reordering, which FIFO links do not do).
//!
//! Memory: one 32-byte record per outstanding segment (in a power-of-two ring: at most twice
//! the most ever outstanding) and 8 bytes per outstanding retransmission, kept only for a flow whose congestion
//! control asks for samples (the sender holds the sampler behind an `Option<Box<_>>`). Counters
//! in a record are 32-bit (differences of the connection's 64-bit counters, wrapping), times
//! the send time in ns and two µs offsets before it (Linux keeps µs too).
//!
//! Counting: segments (sequence numbers count segments here, `tcp/mod.rs`). Delivered data is
//! the cumulative ACK point plus the segments SACKed above it (SACK marks are never withdrawn on
//! the scoreboard), so a retransmission that was not needed is not counted twice. "Lost" is the
//! sender's retransmission count: a segment is retransmitted exactly when it is deemed lost
//! (RFC 6675 NextSeg rules 1 and 3, a timeout's go-back-N), which is the draft's `C.lost`
//! incremented a little later (at the retransmission, not at the marking).
use crate::time::Nanos;

/// What one ACK tells about the path's delivery rate (Linux's `struct rate_sample`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Arrival time of the ACK.
    pub now: Nanos,
    /// Segments delivered over `interval` (`rs.delivered`), 0 with no valid sample.
    pub delivered: u64,
    /// The sample's interval, ns; 0 when the ACK gives no valid rate sample (no newly
    /// delivered segment with a record, or an interval shorter than the minimum RTT, §3.3).
    pub interval: Nanos,
    /// The connection's delivered count when the sampled segment was sent (`P.delivered`).
    pub prior_delivered: u64,
    /// The connection's delivered count after this ACK (`C.delivered`).
    pub delivered_total: u64,
    /// Segments this ACK newly delivers, cumulatively or by SACK (`rs.acked_sacked`).
    pub acked_sacked: u64,
    /// Segments newly deemed lost since the previous ACK (`rs.losses`).
    pub losses: u64,
    /// Segments lost while the sampled segment was in flight (BBR v3's `rs.lost`).
    pub lost: u64,
    /// Segments in flight when the sampled segment was sent, itself included (`rs.tx_in_flight`).
    pub tx_in_flight: u64,
    /// Segments in flight now, after the ACK (Linux's `tcp_packets_in_flight`).
    pub inflight: u64,
    /// Whether the sampled segment was sent while the flow was application-limited.
    pub is_app_limited: bool,
    /// RTT of the sampled segment, if it was not retransmitted (Karn's rule, RFC 6298 §3).
    pub rtt: Option<Nanos>,
}

impl RateSample {
    /// Whether the sample has a usable interval (Linux: `rs->interval_us > 0`).
    #[inline]
    pub fn valid(&self) -> bool {
        self.interval > 0
    }

    /// Delivery rate, segments per second (0 for an invalid sample).
    #[inline]
    pub fn rate(&self) -> f64 {
        // (through i64: the same doubles for counts and intervals below 2^63, in one
        // conversion instruction where an unsigned one takes several)
        if self.interval == 0 { 0.0 } else { self.delivered as i64 as f64 * 1e9 / self.interval as i64 as f64 }
    }
}

/// One segment's snapshot at its (last) transmission.
#[derive(Clone, Copy, Debug, Default)]
struct Rec {
    sent: Nanos,
    /// `sent − first_sent_time`, µs.
    first_sent_ago: u32,
    /// `sent − delivered_time`, µs.
    delivered_ago: u32,
    delivered: u32,
    lost: u32,
    tx_in_flight: u32,
    flags: u8,
}

const APP_LIMITED: u8 = 1;
const RETX: u8 = 2;
/// Its delivery has been sampled already (Linux clears `tx.delivered_mstamp`).
const CONSUMED: u8 = 4;

#[inline]
fn ago_us(sent: Nanos, then: Nanos) -> u32 {
    (sent.saturating_sub(then) / 1000).min(u32::MAX as u64) as u32
}

/// The connection's delivery state and the records of the outstanding segments.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// `C.delivered`, segments.
    delivered: u64,
    /// `C.delivered_time`.
    delivered_time: Nanos,
    /// `C.first_sent_time`.
    first_sent_time: Nanos,
    /// `C.app_limited`: the delivered count that ends the application-limited period (0: none).
    app_limited: u64,
    /// `C.lost` as of the last ACK.
    lost_seen: u64,
    /// Records of segments `base .. base + len`, segment `s` at `s mod recs.len()` (a
    /// power-of-two ring, as the links' arrival times: acknowledging moves `base`, no record
    /// is moved).
    recs: Vec<Rec>,
    base: u64,
    len: u64,
    /// The retransmitted segments not yet delivered (in sending order; a segment sent
    /// again is listed again): an ACK samples those it delivers, wherever they sit.
    retx: Vec<u64>,
    /// The lowest and highest segment in `retx` (`retx_lo > retx_hi` when it is empty): an ACK
    /// that acknowledges nothing at or above the lowest, and whose blocks miss [lowest,
    /// highest], delivers none of them.
    retx_lo: u64,
    retx_hi: u64,
}

impl RateSampler {
    /// Segment `seg` leaves the sender at `now` (§3.2): `inflight` segments were in flight
    /// before it, `lost` segments have been deemed lost so far, `retx` if it is a retransmission.
    /// (Inlined into the sender's transmit path, as `on_ack`: no call frame per packet.)
    #[inline(always)]
    pub fn on_send(&mut self, seg: u64, now: Nanos, inflight: u64, lost: u64, retx: bool) {
        if inflight == 0 {
            // §3.2: a new flight starts; its intervals are measured from now.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        if self.len == 0 {
            self.base = seg;
        }
        let mut flags = if self.app_limited != 0 { APP_LIMITED } else { 0 };
        if retx {
            flags |= RETX;
        }
        let r = Rec {
            sent: now,
            first_sent_ago: ago_us(now, self.first_sent_time),
            delivered_ago: ago_us(now, self.delivered_time),
            delivered: self.delivered as u32,
            lost: lost as u32,
            tx_in_flight: (inflight + 1).min(u32::MAX as u64) as u32,
            flags,
        };
        let end = self.base + self.len;
        if seg >= self.base && seg < end {
            let i = self.slot(seg);
            self.recs[i] = r;
            if retx {
                if self.retx.is_empty() {
                    (self.retx_lo, self.retx_hi) = (seg, seg);
                }
                self.retx.push(seg);
                self.retx_lo = self.retx_lo.min(seg);
                self.retx_hi = self.retx_hi.max(seg);
            }
        } else if seg == end {
            if self.len as usize == self.recs.len() {
                self.grow();
            }
            let i = self.slot(seg);
            self.recs[i] = r;
            self.len += 1;
        }
        // (below the base: already acknowledged, nothing to sample)
    }

    /// The retransmissions the ACK being read delivers (below the new cumulative point
    /// `una` or in a SACK block) are candidates ([`consider`]); those delivered or sampled
    /// leave the list. (Out of line: ACKs with no retransmission outstanding find it empty.)
    #[inline(never)]
    fn retransmissions_delivered(&mut self, una: u64, blocks: &[(u64, u64)], best: &mut (u128, usize)) {
        let (base, len, recs, list) = (self.base, self.len, &mut self.recs[..], &mut self.retx);
        let mut k = 0;
        while k < list.len() {
            let seg = list[k];
            // (within [s, e): one unsigned comparison each; an empty block holds nothing)
            let mut delivered = seg < una;
            for &(s, e) in blocks {
                delivered |= seg.wrapping_sub(s) < e.saturating_sub(s);
            }
            if delivered || seg.wrapping_sub(base) >= len {
                consider(recs, base, len, seg, best);
                list.swap_remove(k);
            } else {
                k += 1;
            }
        }
        self.retx_lo = list.iter().copied().min().unwrap_or(0);
        self.retx_hi = list.iter().copied().max().unwrap_or(0);
    }

    /// Where segment `seg`'s record sits in the ring.
    #[inline(always)]
    fn slot(&self, seg: u64) -> usize {
        seg as usize & (self.recs.len() - 1)
    }

    /// Double the ring (at least 16 records), each record moved to its new slot.
    #[cold]
    fn grow(&mut self) {
        let cap = (self.recs.len() * 2).max(16);
        let mut recs = vec![Rec::default(); cap];
        for seg in self.base..self.base + self.len {
            recs[seg as usize & (cap - 1)] = self.recs[self.slot(seg)];
        }
        self.recs = recs;
    }

    /// The application has nothing more to send while the window has room (Linux's
    /// `tcp_rate_check_app_limited`, §3.4): samples taken until the data in flight now is
    /// delivered are marked application-limited.
    pub fn mark_app_limited(&mut self, inflight: u64) {
        self.app_limited = (self.delivered + inflight).max(1);
    }

    /// An ACK arrives at `now` (§3.3). `una` is the cumulative ACK point before and after it,
    /// `sacked` the segments SACKed above the new point (the scoreboard's count), `blocks` the
    /// ACK's SACK blocks, `lost` and `inflight` as after the ACK, `min_rtt` the flow's.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn on_ack(&mut self, now: Nanos, una: (u64, u64), sacked: u64, blocks: &[(u64, u64)], lost: u64, inflight: u64, min_rtt: Option<Nanos>) -> RateSample {
        let total = una.1 + sacked;
        let newly = total.saturating_sub(self.delivered);
        // The most recently sent of the segments this ACK delivers (`tcp_rate_skb_delivered`,
        // called by Linux for every segment delivered, keeps the latest send time, ties to the
        // highest sequence: `tcp_skb_sent_after`): the ends of the newly acknowledged range and
        // of each SACK block, and the retransmissions it delivers, each sampled once. (A first
        // transmission between two ends is sent before the upper end, as first transmissions
        // go in sequence order; a retransmission may be the latest of all wherever it sits: a
        // cumulative ACK that covers two repaired holes is sampled on the later repair.)
        let mut best = NO_CANDIDATE;
        let (base, len, recs) = (self.base, self.len, &mut self.recs[..]);
        if una.1 > una.0 {
            consider(recs, base, len, una.0, &mut best);
            consider(recs, base, len, una.1 - 1, &mut best);
        }
        for &(s, e) in blocks {
            if e > s {
                consider(recs, base, len, s, &mut best);
                consider(recs, base, len, e - 1, &mut best);
            }
        }
        if !self.retx.is_empty()
            && (una.1 > self.retx_lo || blocks.iter().any(|&(s, e)| s <= self.retx_hi && e > self.retx_lo))
        {
            self.retransmissions_delivered(una.1, blocks, &mut best);
        }
        // The records below the new cumulative ACK point are done with.
        if una.1 > self.base {
            let gone = (una.1 - self.base).min(self.len);
            self.base += gone;
            self.len -= gone;
        }
        if self.len == 0 {
            self.base = una.1;
        }
        if newly > 0 {
            self.delivered = total;
            self.delivered_time = now;
        }
        // §3.4: the application-limited period ends once its data is delivered.
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let losses = lost.saturating_sub(self.lost_seen);
        self.lost_seen = self.lost_seen.max(lost);
        let mut rs = RateSample { now, delivered_total: self.delivered, acked_sacked: newly, losses, inflight, ..Default::default() };
        if best.0 == NO_CANDIDATE.0 || newly == 0 {
            return rs;
        }
        let p = self.recs[best.1];
        let p_delivered = (self.delivered as u32).wrapping_sub(p.delivered) as u64;
        rs.delivered = p_delivered;
        rs.prior_delivered = self.delivered - p_delivered;
        rs.lost = (lost as u32).wrapping_sub(p.lost) as u64;
        rs.tx_in_flight = p.tx_in_flight as u64;
        rs.is_app_limited = p.flags & APP_LIMITED != 0;
        rs.rtt = (p.flags & RETX == 0).then(|| now.saturating_sub(p.sent));
        // §3.3: the flight now starts at the sampled segment's send time.
        self.first_sent_time = p.sent;
        let send_elapsed = p.first_sent_ago as u64 * 1000;
        let ack_elapsed = now.saturating_sub(p.sent - (p.delivered_ago as u64 * 1000).min(p.sent));
        let interval = send_elapsed.max(ack_elapsed);
        // §3.3: an interval shorter than the minimum RTT would over-estimate the rate.
        if interval >= min_rtt.unwrap_or(0) && rs.delivered > 0 {
            rs.interval = interval;
        }
        rs
    }

    /// Segments the sampler holds a record for (its memory, in records).
    pub fn records(&self) -> usize {
        self.len as usize
    }
}

/// An ACK's candidate sample so far: the order key of its record (0: none), its slot.
const NO_CANDIDATE: (u128, usize) = (0, usize::MAX);

/// Segment `seg` is delivered by the ACK being read (the ring `recs` holds segments `base ..
/// base + len`): if it has a record not yet sampled, mark it sampled, and make it the
/// candidate if it was sent after the candidate so far, or at the same time with a higher
/// sequence (Linux's `tcp_rate_skb_delivered` with `tcp_skb_sent_after`): its order key is
/// (send time, segment) + 1, one comparison.
#[inline(always)]
fn consider(recs: &mut [Rec], base: u64, len: u64, seg: u64, best: &mut (u128, usize)) {
    if seg.wrapping_sub(base) >= len {
        return; // no record: below the base or never sent
    }
    let i = seg as usize & (recs.len() - 1);
    let r = &mut recs[i];
    if r.flags & CONSUMED == 0 {
        r.flags |= CONSUMED;
        let k = ((r.sent as u128) << 64 | seg as u128) + 1;
        if k > best.0 {
            *best = (k, i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: Nanos = 1_000_000;

    /// Ten segments sent at once, then one new segment per ACK, the ACKs one `gap` apart:
    /// in steady state each segment is acknowledged 10 gaps after it was sent, when 10 more
    /// have been delivered: the sample is 10 segments over 10 ms, the bottleneck's rate.
    #[test]
    fn an_ack_clocked_flow_measures_its_bottleneck() {
        let (first, gap) = (40 * MS, MS); // 1000 segments/s
        let mut s = RateSampler::default();
        let n = 10;
        for seg in 0..n {
            s.on_send(seg, 0, seg, 0, false);
        }
        let mut next = n;
        let mut last = RateSample::default();
        for k in 0..200u64 {
            let now = first + k * gap;
            last = s.on_ack(now, (k, k + 1), 0, &[], 0, next - k - 1, Some(10 * MS));
            s.on_send(next, now, next - k - 1, 0, false);
            next += 1;
        }
        assert!(last.valid());
        assert_eq!((last.acked_sacked, last.delivered, last.interval), (1, 10, 10 * MS));
        assert!((last.rate() - 1000.0).abs() < 1e-9, "{}", last.rate());
        assert_eq!(last.rtt, Some(10 * MS));
        assert_eq!(last.tx_in_flight, 10);
    }

    #[test]
    fn the_first_flight_gives_the_known_answer() {
        // 4 segments sent at 0, 1, 2, 3 ms (the flight starts at 0); ACKs at 50..53 ms.
        let mut s = RateSampler::default();
        for seg in 0..4 {
            s.on_send(seg, seg * MS, seg, 0, false);
        }
        let rs = s.on_ack(50 * MS, (0, 1), 0, &[], 0, 3, None);
        // P = segment 0: delivered 0 at send, delivered_time 0; send interval 0, ACK interval
        // 50 ms: 1 segment / 50 ms.
        assert_eq!((rs.delivered, rs.interval, rs.prior_delivered), (1, 50 * MS, 0));
        let rs = s.on_ack(53 * MS, (1, 4), 0, &[], 0, 0, None);
        // P = segment 3, sent at 3 ms when the flight began at... the first sample moved
        // first_sent_time to 0 ms (segment 0's send); send interval 3 ms, ACK interval
        // 53 − 0 = 53 ms; 4 − 0 = 4 delivered.
        assert_eq!((rs.delivered, rs.interval, rs.acked_sacked), (4, 53 * MS, 3));
        assert!((rs.rate() - 4.0 / 0.053).abs() < 1e-6);
    }

    #[test]
    fn sacked_segments_count_once_and_give_the_latest_sample() {
        let mut s = RateSampler::default();
        for seg in 0..6 {
            s.on_send(seg, seg * MS, seg, 0, false);
        }
        // Segment 0 lost; 1-2 SACKed, then 1-4 (the block repeated and grown).
        let a = s.on_ack(50 * MS, (0, 0), 2, &[(1, 3)], 0, 4, None);
        assert_eq!((a.acked_sacked, a.delivered), (2, 2));
        let b = s.on_ack(52 * MS, (0, 0), 4, &[(1, 5)], 0, 2, None);
        assert_eq!(b.acked_sacked, 2);
        // Segment 4 (sent at 4 ms, when 0 were delivered) is the newest: 4 delivered since.
        assert_eq!(b.delivered, 4);
        // The retransmission of 0 at 60 ms repairs the hole: all 5 delivered, sampled on it.
        s.on_send(0, 60 * MS, 1, 1, true);
        let c = s.on_ack(100 * MS, (0, 5), 0, &[], 1, 1, None);
        assert_eq!((c.acked_sacked, c.delivered_total, c.rtt, c.losses), (1, 5, None, 1));
        assert_eq!(c.delivered, 1, "delivered since the retransmission was sent");
    }

    /// Thirty segments sent 1 ms apart; segments 10 and 20 lost. The SACK for 11-19 comes
    /// first (19 delivered), 10 is retransmitted at 42 ms; then the SACK for 21-29 (28
    /// delivered), 20 is retransmitted at 46 ms. One cumulative ACK covers both repairs:
    /// Linux (`tcp_rate_skb_delivered` for each segment it frees, `tcp_skb_sent_after`)
    /// samples the later retransmission, 20, sent when 28 were delivered: 2 since.
    fn two_repaired_holes() -> RateSampler {
        let mut s = RateSampler::default();
        for seg in 0..30 {
            s.on_send(seg, seg * MS, seg, 0, false);
        }
        s.on_ack(40 * MS, (0, 10), 0, &[], 0, 20, None);
        let a = s.on_ack(41 * MS, (10, 10), 9, &[(11, 20)], 0, 11, None);
        assert_eq!(a.delivered_total, 19);
        s.on_send(10, 42 * MS, 11, 1, true);
        let b = s.on_ack(45 * MS, (10, 10), 18, &[(21, 30), (11, 20)], 1, 2, None);
        assert_eq!(b.delivered_total, 28);
        s.on_send(20, 46 * MS, 2, 2, true);
        s
    }

    #[test]
    fn a_cumulative_ack_over_two_repairs_samples_the_later_one() {
        let mut s = two_repaired_holes();
        let rs = s.on_ack(90 * MS, (10, 30), 0, &[], 2, 0, None);
        assert_eq!((rs.acked_sacked, rs.delivered_total), (2, 30));
        assert_eq!((rs.prior_delivered, rs.delivered), (28, 2), "the repair of 20, not of 10 (11 delivered since)");
        assert_eq!(rs.tx_in_flight, 3);
        assert_eq!(rs.rtt, None, "a retransmission gives no RTT (Karn)");
        assert!(s.retx.is_empty(), "both repairs delivered: none outstanding");
    }

    #[test]
    fn a_repair_sacked_inside_a_block_is_sampled() {
        // The repair of 10 is lost; that of 20 arrives: the receiver's block grows to 11-29,
        // whose ends were sampled before. Linux samples the newly SACKed segment 20.
        let mut s = two_repaired_holes();
        let rs = s.on_ack(90 * MS, (10, 10), 19, &[(11, 30)], 2, 1, None);
        assert_eq!((rs.acked_sacked, rs.delivered_total), (1, 29));
        assert!(rs.valid());
        assert_eq!((rs.prior_delivered, rs.delivered), (28, 1));
        assert_eq!(s.retx, vec![10], "the lost repair stays listed");
        // 10 is repaired again at 95 ms, when 29 were delivered; its ACK samples it once.
        s.on_send(10, 95 * MS, 1, 3, true);
        let rs = s.on_ack(140 * MS, (10, 30), 0, &[], 3, 0, None);
        assert_eq!((rs.prior_delivered, rs.delivered), (29, 1));
        assert!(s.retx.is_empty());
    }

    #[test]
    fn segments_sent_at_the_same_instant_sample_the_highest() {
        // `tcp_skb_sent_after`: equal send times are ordered by sequence.
        let mut s = RateSampler::default();
        for seg in 0..3 {
            s.on_send(seg, 0, seg, 0, false);
        }
        let rs = s.on_ack(40 * MS, (0, 2), 0, &[], 0, 1, None);
        assert_eq!(rs.tx_in_flight, 2, "segment 1 (2 in flight when sent), not segment 0");
        let rs = s.on_ack(41 * MS, (2, 2), 1, &[(2, 3)], 0, 0, None);
        assert_eq!(rs.tx_in_flight, 3);
    }

    #[test]
    fn app_limited_marks_samples_until_its_data_is_delivered() {
        let mut s = RateSampler::default();
        s.on_send(0, 0, 0, 0, false);
        s.mark_app_limited(1);
        s.on_send(1, MS, 1, 0, false);
        let a = s.on_ack(40 * MS, (0, 1), 0, &[], 0, 1, None);
        assert!(!a.is_app_limited, "segment 0 left before the application ran dry");
        let b = s.on_ack(41 * MS, (1, 2), 0, &[], 0, 0, None);
        assert!(b.is_app_limited);
        s.on_send(2, 41 * MS, 0, 0, false);
        let c = s.on_ack(81 * MS, (2, 3), 0, &[], 0, 0, None);
        assert!(!c.is_app_limited, "delivered 2 > app_limited 2 after segment 1: period over");
    }

    #[test]
    fn a_sample_shorter_than_the_min_rtt_is_invalid() {
        let mut s = RateSampler::default();
        s.on_send(0, 0, 0, 0, false);
        let rs = s.on_ack(10 * MS, (0, 1), 0, &[], 0, 0, Some(20 * MS));
        assert!(!rs.valid() && rs.rate() == 0.0);
        assert_eq!(rs.acked_sacked, 1);
        // a duplicate ACK that delivers nothing gives no sample
        let rs = s.on_ack(11 * MS, (1, 1), 0, &[], 0, 0, None);
        assert!(!rs.valid() && rs.acked_sacked == 0);
    }

    #[test]
    fn records_stay_within_the_window() {
        let mut s = RateSampler::default();
        for seg in 0..100 {
            s.on_send(seg, seg, seg, 0, false);
            if seg >= 10 {
                s.on_ack(seg + 1, (seg - 10, seg - 9), 0, &[], 0, 10, None);
            }
        }
        assert_eq!(s.records(), 10);
        assert_eq!(std::mem::size_of::<Rec>(), 32);
    }
}
