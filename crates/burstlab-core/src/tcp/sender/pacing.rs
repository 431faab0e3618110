//! Pacing: when a paced flow's next segment may leave (`TcpConfig::pacing`; docs/tcp.md
//! "Pacing"). The rate is the congestion control's own
//! ([`CongestionControl::pacing_rate`], BBR's) or Linux's `tcp_update_pacing_rate` default:
//!
//! ```text
//! rate = ratio · max(cwnd, packets_out·MSS) / SRTT      ratio = tcp_pacing_ss_ratio (200 %) if cwnd < ssthresh/2
//!                                                              tcp_pacing_ca_ratio (120 %) otherwise
//! ```
//!
//! (no pacing before the first RTT sample, as Linux divides by SRTT only when it has one).
//! Two release disciplines, Linux's two pacers:
//!
//! | `pacing`   | Linux                                    | bursts                                                   |
//! |------------|------------------------------------------|----------------------------------------------------------|
//! | `internal` | `tcp_pacing_check`, `tcp_update_skb_after_send`, `tcp_tso_autosize` | `max(rate >> pacing_shift, …) / MSS` segments (≥ `pacing_min_burst`), the next one `len/rate` later, less up to half of it for time the flow left unused; the first 10 segments of the connection unpaced |
//! | `fq`       | `sch_fq.c` `fq_dequeue` (packets without a departure time) | a new flow's `fq_initial_quantum` packets at once, then `fq_quantum` packets per refill, `max(len, quantum)/rate` apart (every packet alone below 550 kb/s); an idle flow gets a quantum back after 40 ms (`flow_refill_delay`) |
//!
//! The sender asks [`Pacer::may_send`] before each segment its send loops release and tells
//! [`Pacer::on_sent`] after each segment it sends, those the loops release and the
//! retransmissions it sends at once (fast retransmit, timeout, loss probe), which are charged
//! to the pacer but not held. A held flow records when it may go on ([`Pacer::wake`]); the
//! engine schedules one timer for it (one per burst, not one per segment).
use super::super::config::{Pacing, TcpConfig};
use crate::time::{Nanos, NS_PER_S};

/// Linux `GSO_LEGACY_MAX_SIZE` (`sk_gso_max_size`): the largest TSO burst, bytes.
const GSO_MAX_BYTES: u64 = 65_536;
/// Linux `tcp_update_skb_after_send`: pacing starts once 10 data segments have been sent
/// (`tp->data_segs_out >= 10`), so the initial window leaves at once.
const UNPACED_SEGMENTS: u64 = 10;
/// Linux `sch_fq.c`: `low_rate_threshold` (550 kbit/s), below which every packet is paced
/// alone (its credit zeroed), bytes per second.
const FQ_LOW_RATE: f64 = 550_000.0 / 8.0;
/// Linux `sch_fq.c`: `flow_refill_delay` (40 ms): a flow idle that long gets at least a
/// quantum of credit back.
const FQ_REFILL_DELAY: Nanos = 40_000_000;

/// One flow's pacing state (about 100 bytes, boxed in the sender only when the flow is paced).
#[derive(Clone, Debug)]
pub struct Pacer {
    fq: bool,
    ss_ratio: f64,
    ca_ratio: f64,
    shift: u32,
    min_burst: u64,
    /// fq's quantum and initial quantum, bytes.
    quantum: i64,
    /// The pacing rate, bytes per second, as of the last [`Pacer::set_rate`] (0: not paced),
    /// and its inverse in ns per byte (one division per send loop, not per segment).
    pub rate: f64,
    ns_per_byte: f64,
    /// The earliest departure of the next burst (Linux `tcp_wstamp_ns`, fq `time_next_packet`);
    /// internal pacing: as of the last [`Pacer::settle`] (read it through [`Pacer::departure`]).
    next: Nanos,
    /// Internal: segments were sent since `next` was last settled; `next` is then `base`
    /// plus `burst_bytes` at the rate, less idle credit ([`Pacer::settle`]: computed once
    /// per burst, when it is read, instead of once per segment).
    unsettled: bool,
    /// Internal: the current burst, its start, where its departure times start, the idle
    /// credit it may use, its bytes, and the segments it may still take.
    burst_at: Nanos,
    base: Nanos,
    idle_credit: Nanos,
    burst_bytes: u64,
    left: u64,
    /// Segments sent (Linux `data_segs_out`).
    sent: u64,
    /// [`Pacer::burst_segments`]'s short-path allowance and the min RTT it is for.
    short_path: (Option<Nanos>, u64),
    /// fq: the flow's credit, bytes, and its last departure.
    credit: i64,
    last: Nanos,
    /// When the held flow may go on (None: not held).
    pub wake: Option<Nanos>,
    /// The timer the engine has scheduled for it.
    pub sched: Option<Nanos>,
}

impl Pacer {
    /// The pacer `t` asks for, if the flow is paced ([`TcpConfig::paced`]).
    pub fn from_config(t: &TcpConfig) -> Option<Box<Pacer>> {
        t.paced().then(|| {
            Box::new(Pacer {
                fq: t.pacing == Pacing::Fq,
                ss_ratio: t.pacing_ss_ratio as f64 / 100.0,
                ca_ratio: t.pacing_ca_ratio as f64 / 100.0,
                shift: t.pacing_shift,
                min_burst: t.pacing_min_burst as u64,
                quantum: t.fq_quantum as i64 * t.mss as i64,
                rate: 0.0,
                ns_per_byte: 0.0,
                next: 0,
                unsettled: false,
                burst_at: Nanos::MAX,
                base: 0,
                idle_credit: 0,
                burst_bytes: 0,
                left: 0,
                sent: 0,
                short_path: (None, 0),
                credit: t.fq_initial_quantum as i64 * t.mss as i64,
                last: 0,
                wake: None,
                sched: None,
            })
        })
    }

    /// Linux `tcp_update_pacing_rate`: `ratio · max(cwnd, in flight) / SRTT` bytes per
    /// second, the ratio `tcp_pacing_ss_ratio` while cwnd < ssthresh/2 (slow start, not yet
    /// near its end), `tcp_pacing_ca_ratio` otherwise; 0 (unpaced) without an SRTT.
    pub fn default_rate(&self, cwnd: u64, ssthresh: u64, in_flight: u64, srtt: Option<Nanos>) -> f64 {
        match srtt {
            Some(s) if s > 0 => {
                let ratio = if cwnd < ssthresh / 2 { self.ss_ratio } else { self.ca_ratio };
                // (through i64: one conversion instruction where u64 → f64 takes several; the
                // same double for every value below 2^63, which a window in bytes and an RTT in
                // ns are, capped there all the same)
                let w = cwnd.max(in_flight).min(i64::MAX as u64) as i64 as f64;
                ratio * w * NS_PER_S as f64 / s.min(i64::MAX as u64) as i64 as f64
            }
            _ => 0.0,
        }
    }

    /// The rate the next departures are spaced at (bytes per second; 0 or not finite: not
    /// paced).
    #[inline]
    pub fn set_rate(&mut self, rate: f64) {
        if rate != self.rate {
            // (NaN fails both comparisons)
            self.change_rate(if rate > 0.0 && rate < f64::INFINITY { rate } else { 0.0 });
        }
    }

    /// [`Pacer::set_rate`] for a rate from [`Pacer::default_rate`], finite and ≥ 0 by
    /// construction (a ratio ≤ 10, a window below 2^63 bytes, an SRTT ≥ 1 ns): the same
    /// result without the check for infinities and NaN.
    #[inline]
    pub fn set_default_rate(&mut self, rate: f64) {
        debug_assert!(rate.is_finite() && rate >= 0.0, "default rate {rate}");
        if rate != self.rate {
            self.change_rate(rate);
        }
    }

    /// A new rate, finite and ≥ 0 (0: not paced).
    #[inline(always)]
    fn change_rate(&mut self, rate: f64) {
        // (the segments sent so far keep the departure their rate gave them)
        self.settle();
        self.rate = rate;
        self.ns_per_byte = if rate > 0.0 { NS_PER_S as f64 / rate } else { 0.0 };
    }

    /// Nanoseconds `bytes` take at the pacing rate.
    #[inline]
    fn span(&self, bytes: u64) -> Nanos {
        // (bytes · ns/byte is finite and ≥ 0: capped at 1 s it converts through i64, one
        // instruction, to the same integer as `min(1e9) as u64`)
        // (a burst's bytes, segments sent at one instant, are far below 2^63: they convert
        // exactly through i64)
        let ns = bytes as i64 as f64 * self.ns_per_byte;
        let ns = if ns < NS_PER_S as f64 { ns } else { NS_PER_S as f64 };
        // SAFETY: `ns` is in [0, 1e9] (a NaN takes the else branch above), which i64 holds;
        // the unchecked conversion is `as i64` without its saturation checks.
        unsafe { ns.to_int_unchecked::<i64>() as Nanos }
    }

    /// Linux `tcp_tso_autosize`: the segments of one burst, `rate >> shift` bytes (about
    /// 1 ms), plus `GSO_MAX >> (min RTT in µs >> tcp_tso_rtt_log = 9)` on short paths, at most
    /// `GSO_MAX`, at least `pacing_min_burst` segments.
    fn burst_segments(&mut self, mss: u64, min_rtt: Option<Nanos>) -> u64 {
        // `rate as u64`: capped at 10^15 B/s (whose 2^-shift, shift ≤ 30, is above GSO_MAX
        // as any larger rate's is: the same result), it converts unchecked.
        let rate = if self.rate < 1e15 { self.rate } else { 1e15 };
        // SAFETY: a pacer with a rate (the caller checks rate > 0) holds a finite one, so
        // `rate` is in (0, 1e15], which i64 holds.
        let bytes = unsafe { rate.to_int_unchecked::<i64>() as u64 } >> self.shift;
        // (the min RTT changes rarely: its allowance is kept with it)
        if self.short_path.0 != min_rtt {
            let r = min_rtt.map_or(u64::MAX, |m| (m / 1000) >> 9);
            self.short_path = (min_rtt, if r < 64 { GSO_MAX_BYTES >> r } else { 0 });
        }
        ((bytes + self.short_path.1).min(GSO_MAX_BYTES) / mss.max(1)).max(self.min_burst)
    }

    /// Whether a segment may leave at `now` (the current burst has room, or the next may start).
    #[inline]
    pub fn may_send(&mut self, now: Nanos) -> bool {
        // (fq never starts an internal burst: its `burst_at` stays Nanos::MAX)
        (self.burst_at == now && self.left > 0) || self.rate == 0.0 || now >= self.departure()
    }

    /// The send loop stops for the pacer: the flow goes on at [`Pacer::departure`].
    #[inline]
    pub fn hold(&mut self) {
        self.wake = Some(self.departure());
    }

    /// The earliest departure of the next burst.
    #[inline]
    pub fn departure(&mut self) -> Nanos {
        self.settle();
        self.next
    }

    /// Internal pacing, `tcp_update_skb_after_send` for the segments of the current burst
    /// sent since the last call: len_ns = `burst_bytes` at the rate, less min(len_ns/2, the
    /// idle credit); wstamp = the burst's start + len_ns. (The departure after each segment
    /// is a function of the burst's bytes so far, so computing it for the last one gives
    /// the same time as computing it after every segment.)
    #[inline]
    fn settle(&mut self) {
        if self.unsettled {
            self.unsettled = false;
            let ns = self.span(self.burst_bytes);
            self.next = self.base + ns - (ns / 2).min(self.idle_credit);
        }
    }

    /// A segment of `len` payload bytes left at `now`.
    #[inline]
    pub fn on_sent(&mut self, now: Nanos, len: u64, mss: u64, min_rtt: Option<Nanos>) {
        self.sent += 1;
        if self.fq {
            return self.fq_sent(now, len);
        }
        if !(self.burst_at == now && self.left > 0) {
            // A new burst (Linux: a new TSO skb): `__tcp_transmit_skb`'s
            // tcp_wstamp_ns = max(tcp_wstamp_ns, now), the time the flow left unused its credit.
            self.left = if self.rate > 0.0 { self.burst_segments(mss, min_rtt) } else { u64::MAX };
            self.burst_at = now;
            let next = self.departure();
            self.base = next.max(now);
            self.idle_credit = self.base - next;
            self.burst_bytes = 0;
            self.next = self.base;
        }
        self.left -= 1;
        if self.rate > 0.0 && self.sent > UNPACED_SEGMENTS {
            // `tcp_update_skb_after_send`: len_ns −= min(len_ns/2, credit); wstamp += len_ns
            // ([`Pacer::settle`], when the departure is next read).
            self.burst_bytes += len;
            self.unsettled = true;
        }
    }

    /// `fq_dequeue` for one flow's packet of `len` bytes at `now`.
    #[inline(never)]
    fn fq_sent(&mut self, now: Nanos, len: u64) {
        if self.sent > 1 && now >= self.last + FQ_REFILL_DELAY {
            self.credit = self.credit.max(self.quantum); // `fq_enqueue`: a detached flow's refill
        }
        self.last = now;
        if self.credit <= 0 {
            self.credit += self.quantum; // the round robin's refill
        }
        self.credit -= len as i64;
        if self.rate == 0.0 {
            return;
        }
        let plen = if self.rate <= FQ_LOW_RATE {
            self.credit = 0;
            len
        } else {
            if self.credit > 0 {
                return;
            }
            len.max(self.quantum as u64)
        };
        let mut delay = self.span(plen);
        if self.next > 0 {
            // "Account for schedule/timers drifts."
            delay -= (delay / 2).min(now.saturating_sub(self.next));
        }
        self.next = now + delay;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::Variant;

    fn pacer(mode: Pacing) -> Box<Pacer> {
        let t = TcpConfig { pacing: mode, mss: 1000, ..TcpConfig::variant(Variant::Cubic) };
        Pacer::from_config(&t).expect("paced")
    }

    /// Departure times of `n` segments released as soon as the pacer allows, from t = 0.
    fn departures(p: &mut Pacer, n: usize, min_rtt: Option<Nanos>) -> Vec<Nanos> {
        let mut now = 0;
        let mut out = Vec::new();
        while out.len() < n {
            if !p.may_send(now) {
                now = p.departure();
                assert!(p.may_send(now), "the pacer lets the flow go at its wake time");
            }
            out.push(now);
            p.on_sent(now, 1000, 1000, min_rtt);
        }
        out
    }

    #[test]
    fn auto_paces_no_window_based_algorithm_and_off_nothing() {
        let t = TcpConfig::variant(Variant::Cubic);
        assert!(Pacer::from_config(&t).is_none());
        assert!(Pacer::from_config(&TcpConfig { pacing: Pacing::Off, ..t.clone() }).is_none());
        assert!(Pacer::from_config(&TcpConfig { pacing: Pacing::Internal, ..t }).is_some());
    }

    #[test]
    fn linux_default_rate_ratios() {
        let p = pacer(Pacing::Internal);
        // cwnd 20 000 B, SRTT 100 ms: 200 000 B/s; ×2 in slow start, ×1.2 beyond ssthresh/2.
        assert_eq!(p.default_rate(20_000, u64::MAX, 0, Some(100_000_000)), 400_000.0);
        assert_eq!(p.default_rate(20_000, 40_000, 0, Some(100_000_000)), 240_000.0);
        assert_eq!(p.default_rate(20_000, 40_002, 0, Some(100_000_000)), 400_000.0);
        // max(cwnd, packets out): in flight above cwnd after a reduction counts.
        assert_eq!(p.default_rate(10_000, 0, 20_000, Some(100_000_000)), 240_000.0);
        assert_eq!(p.default_rate(20_000, 0, 0, None), 0.0);
        let t = TcpConfig { pacing: Pacing::Internal, pacing_ss_ratio: 300, pacing_ca_ratio: 100, ..Default::default() };
        let q = Pacer::from_config(&t).unwrap();
        assert_eq!(q.default_rate(20_000, u64::MAX, 0, Some(100_000_000)), 600_000.0);
        assert_eq!(q.default_rate(20_000, 0, 0, Some(100_000_000)), 200_000.0);
    }

    #[test]
    fn internal_bursts_are_spaced_at_the_rate() {
        // 1 MB/s, 1000-byte segments, a long path: bursts of max(1 MB/s >> 10 = 976 B, 2
        // segments) = 2 segments, 2 ms apart, after the 10 unpaced ones.
        let mut p = pacer(Pacing::Internal);
        p.set_rate(1e6);
        let d = departures(&mut p, 30, Some(40_000_000));
        // (The burst that holds the 11th segment started with the unpaced ones.)
        assert!(d[..12].iter().all(|&t| t == 0), "{d:?}");
        for k in 12..30 {
            let gap = d[k] - d[k - 1];
            let want = if (k - 12) % 2 == 0 { 2_000_000 } else { 0 };
            assert_eq!(gap, want, "segment {k}: {d:?}");
        }
        // Over the paced part the mean rate is the pacing rate: 1000 B per ms.
        assert_eq!(d[29] - d[11], 18 * 1_000_000);
    }

    #[test]
    fn internal_burst_follows_the_rate_and_short_paths() {
        let mut p = pacer(Pacing::Internal);
        p.set_rate(10e6); // 10 MB/s >> 10 = 9765 B: 9 segments
        assert_eq!(p.burst_segments(1000, Some(40_000_000)), 9);
        // min RTT 300 µs (>> 9 = 0): + 64 KiB, capped at 64 KiB: 65 segments.
        assert_eq!(p.burst_segments(1000, Some(300_000)), 65);
        // min RTT 1 ms (1000 >> 9 = 1): + 32 KiB.
        assert_eq!(p.burst_segments(1000, Some(1_000_000)), (9765 + 32768) / 1000);
        p.set_rate(1e3);
        assert_eq!(p.burst_segments(1000, None), 2);
    }

    #[test]
    fn idle_credit_shortens_the_first_gap_by_at_most_half() {
        let mut p = pacer(Pacing::Internal);
        p.set_rate(1e6);
        departures(&mut p, 12, None); // 10 unpaced, then a 2-segment burst: next = 2 ms
        assert_eq!(p.departure(), 2_000_000);
        // The flow comes back 10 ms late: its next burst's 2 ms shrink by half.
        p.on_sent(12_000_000, 1000, 1000, None);
        p.on_sent(12_000_000, 1000, 1000, None);
        assert_eq!(p.departure(), 12_000_000 + 1_000_000);
    }

    /// The departure after a segment is computed when it is read, not per segment: it must
    /// be the one the rate in force when the segment left gives (Linux sets
    /// `tcp_wstamp_ns` in `tcp_update_skb_after_send`, at each send).
    #[test]
    fn a_rate_change_mid_burst_keeps_the_departures_already_due() {
        let mut p = pacer(Pacing::Internal);
        p.set_rate(1e6);
        departures(&mut p, 12, Some(40_000_000)); // next burst at 2 ms
        let t = 2_000_000;
        assert!(p.may_send(t));
        p.on_sent(t, 1000, 1000, Some(40_000_000)); // 1000 B at 1 MB/s: next at 3 ms
        p.set_rate(4e6);
        assert_eq!(p.departure(), 3_000_000, "the segment sent at 1 MB/s keeps its 1 ms");
        assert!(p.may_send(t), "the burst of 2 has room for a second segment");
        p.on_sent(t, 1000, 1000, Some(40_000_000));
        // The burst's 2000 B at the rate now in force, 4 MB/s: 0.5 ms after its start.
        assert_eq!(p.departure(), 2_500_000);
        assert!(!p.may_send(t) && p.may_send(2_500_000));
    }

    #[test]
    fn fq_initial_quantum_then_quantum_refills() {
        // 1 MB/s: 10 packets at once, then 2 packets every 2 ms (quantum 2 packets).
        let mut p = pacer(Pacing::Fq);
        p.set_rate(1e6);
        let d = departures(&mut p, 20, None);
        assert!(d[..10].iter().all(|&t| t == 0), "{d:?}");
        assert_eq!(&d[10..], &[2_000_000, 2_000_000, 4_000_000, 4_000_000, 6_000_000, 6_000_000, 8_000_000, 8_000_000, 10_000_000, 10_000_000]);
    }

    #[test]
    fn fq_below_the_low_rate_threshold_paces_every_packet() {
        let mut p = pacer(Pacing::Fq);
        p.set_rate(50_000.0); // < 68 750 B/s: every packet alone, 1000 B / 50 kB/s = 20 ms
        let d = departures(&mut p, 5, None);
        assert_eq!(d, vec![0, 20_000_000, 40_000_000, 60_000_000, 80_000_000]);
    }

    #[test]
    fn an_unpaced_rate_holds_nothing() {
        for mode in [Pacing::Internal, Pacing::Fq] {
            let mut p = pacer(mode);
            p.set_rate(f64::INFINITY);
            assert_eq!(p.rate, 0.0);
            assert!(departures(&mut p, 50, None).iter().all(|&t| t == 0));
        }
    }
}
