//! Congestion control: how the window grows and how far it shrinks on loss, separate
//! from loss recovery (which decides what to retransmit). Modelled on ns-3's
//! TcpCongestionOps and smoltcp's `congestion` controllers: every hook defaults to a
//! no-op, so a variant overrides only what it changes. One file per algorithm:
//!
//! - [`reno`]: RFC 5681 (with RFC 3465 byte counting as an option), shared by Tahoe, Reno,
//!   NewReno and SACK, and the growth rule of the estimators and of Vegas outside its cycles;
//! - [`linux_reno`]: Linux's `tcp_reno_cong_avoid` (ns-3's TcpLinuxReno);
//! - [`westwood`]: Westwood+ (Mascolo, Grieco, Ferorelli, Camarda, Piscitelli 2004);
//! - [`tibet`]: TIBET (Martignon & Capone §II);
//! - [`ideal`]: the Ideal-estimate TCP (Martignon & Capone §V);
//! - [`vegas`]: Vegas (Brakmo & Peterson 1995);
//! - [`cubic`]: CUBIC (RFC 9438) with HyStart (Ha & Rhee 2011);
//! - [`bbr`]: BBR v1 (Cardwell et al. 2016, Linux `tcp_bbr.c`), over the delivery-rate samples
//!   of `tcp/rate_sample.rs`;
//! - [`bbr3`]: BBR v3 (draft-ietf-ccwg-bbr), over the same samples.
use super::config::{CcKind, TcpConfig};
use super::rate_sample::RateSample;
use super::{AckInfo, CaState, Tcb};
use crate::time::Nanos;

pub mod bbr;
pub mod bbr3;
pub mod cubic;
pub mod cubic_ns3;
mod cubic_update;
pub mod ideal;
pub mod linux_reno;
pub mod registry;
pub mod reno;
pub mod tibet;
pub mod vegas;
pub mod westwood;

pub use bbr::Bbr;
pub use bbr3::Bbr3;
pub use cubic::Cubic;
pub use ideal::Ideal;
pub use linux_reno::LinuxReno;
pub use reno::Reno;
pub use tibet::Tibet;
pub use vegas::Vegas;
pub use westwood::Westwood;

pub trait CongestionControl {
    fn name(&self) -> &'static str;

    /// Every ACK that reaches the sender, new or duplicate, after loss recovery processed
    /// it and before the sender transmits in response. Window growth happens here.
    fn on_ack(&mut self, _tcb: &mut Tcb, _ack: &AckInfo) {}

    /// The slow-start threshold after a loss (returns it, does not set it), called once per
    /// loss event (fast retransmit, or the first of a run of timeouts). Default: RFC 5681
    /// §3.1 equation (4), max(FlightSize/2, 2·SMSS), FlightSize as `ssthresh_rule` says.
    fn ssthresh_on_loss(&mut self, tcb: &Tcb) -> u64 {
        tcb.half_flight()
    }

    /// The window the loss recovery starts from after DupThresh duplicate ACKs, before it
    /// adds its inflation (RFC 5681 §3.2 step 3's "ssthresh"). Default: the new ssthresh,
    /// as RFC 5681 and Martignon & Capone's TIBET ("cwnd is set to the same value of
    /// ssthresh after three duplicate ACKs") say; Westwood+ only lowers the window.
    fn cwnd_after_fast_retransmit(&self, _tcb: &Tcb, ssthresh: u64) -> u64 {
        ssthresh
    }

    /// A retransmission timeout fired (after the sender set ssthresh and cwnd).
    fn on_timeout(&mut self, _tcb: &mut Tcb) {}

    /// The congestion state changed.
    fn on_state_change(&mut self, _tcb: &mut Tcb, _from: CaState, _to: CaState) {}

    /// A segment of `bytes` payload bytes was handed to the link at `now` (a new one or a
    /// retransmission). TIBET's sent-packet estimator runs here.
    fn on_send(&mut self, _tcb: &Tcb, _now: Nanos, _bytes: u64) {}

    /// The rate, in bytes per second, at which the sender should release segments, or
    /// `None` for an algorithm that sets no pacing rate of its own (the sender then paces,
    /// if the settings ask it to, at Linux's `tcp_update_pacing_rate` default: cwnd/srtt
    /// scaled by `tcp_pacing_ss_ratio` or `tcp_pacing_ca_ratio`). BBR sets its rate here
    /// (draft-ietf-ccwg-bbr §5.6.2, Linux `bbr_set_pacing_rate`).
    fn pacing_rate(&self, _tcb: &Tcb) -> Option<f64> {
        None
    }

    /// Whether the sender should keep delivery-rate samples for this algorithm
    /// (`tcp/rate_sample.rs`): BBR's model is built from them. Asked once, when the sender is built.
    fn wants_rate_samples(&self) -> bool {
        false
    }

    /// The delivery-rate sample of an ACK (new or duplicate), after loss recovery and
    /// [`CongestionControl::on_ack`] saw it and before the sender transmits in response
    /// (Linux's `cong_control` hook, draft-ietf-ccwg-bbr §4.2 "per-ACK steps"). Called only
    /// when [`CongestionControl::wants_rate_samples`] said so.
    fn on_rate_sample(&mut self, _tcb: &mut Tcb, _rs: &RateSample) {}
}

/// Read from the registry's lines (`registry.rs`: one line per congestion control), it
/// generates the [`Cc`] enum the sender holds (a direct, non-virtual call per ACK), the
/// dispatch of every hook and [`Cc::from_config`]; `config.rs` reads the same lines for
/// [`CcKind`].
macro_rules! cc_registry {
    ($($(#[$doc:meta])* $v:ident($ty:ty) = $name:literal $(| $alias:literal)*, new |$t:ident| $new:expr;)+) => {
        /// The congestion controllers, as an enum so the per-ACK call is a direct call.
        #[derive(Clone, Debug)]
        pub enum Cc { $($v($ty)),+ }

        impl Cc {
            /// The congestion control `t.cc` names, with its parameters from `t`.
            pub fn from_config(t: &TcpConfig) -> Cc {
                match t.cc { $(CcKind::$v => { let $t = t; Cc::$v($new) }),+ }
            }

            /// Which congestion control this is.
            pub fn kind(&self) -> CcKind {
                match self { $(Cc::$v(_) => CcKind::$v),+ }
            }

            #[inline(never)]
            fn on_ack_other(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
                match self { $(Cc::$v(c) => c.on_ack(tcb, ack)),+ }
            }
        }

        impl CongestionControl for Cc {
            fn name(&self) -> &'static str {
                match self { $(Cc::$v(c) => c.name()),+ }
            }
            #[inline(always)]
            fn on_ack(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
                // Reno's growth (Tahoe, Reno, NewReno, SACK) inline; the others through the table.
                if let Cc::Reno(c) = self {
                    return c.on_ack(tcb, ack);
                }
                self.on_ack_other(tcb, ack)
            }
            fn ssthresh_on_loss(&mut self, tcb: &Tcb) -> u64 {
                match self { $(Cc::$v(c) => c.ssthresh_on_loss(tcb)),+ }
            }
            fn cwnd_after_fast_retransmit(&self, tcb: &Tcb, ssthresh: u64) -> u64 {
                match self { $(Cc::$v(c) => c.cwnd_after_fast_retransmit(tcb, ssthresh)),+ }
            }
            fn on_timeout(&mut self, tcb: &mut Tcb) {
                match self { $(Cc::$v(c) => c.on_timeout(tcb)),+ }
            }
            fn on_state_change(&mut self, tcb: &mut Tcb, from: CaState, to: CaState) {
                match self { $(Cc::$v(c) => c.on_state_change(tcb, from, to)),+ }
            }
            #[inline]
            fn on_send(&mut self, tcb: &Tcb, now: Nanos, bytes: u64) {
                match self { $(Cc::$v(c) => c.on_send(tcb, now, bytes)),+ }
            }
            #[inline]
            fn pacing_rate(&self, tcb: &Tcb) -> Option<f64> {
                match self { $(Cc::$v(c) => c.pacing_rate(tcb)),+ }
            }
            #[inline]
            fn wants_rate_samples(&self) -> bool {
                match self { $(Cc::$v(c) => c.wants_rate_samples()),+ }
            }
            #[inline]
            fn on_rate_sample(&mut self, tcb: &mut Tcb, rs: &RateSample) {
                match self { $(Cc::$v(c) => c.on_rate_sample(tcb, rs)),+ }
            }
        }
    };
}

registry::with_registered!(cc_registry);

/// `SsthreshRule::Ns3` made concrete per congestion control: kept with the settings
/// (`config.rs`), so that the settings do not import the algorithms that read them.
pub use super::config::resolve_ssthresh_rule;

/// Whether an ACK may grow the window (RFC 5681 §3.1-3.2): new data acknowledged, not in
/// fast recovery (recovery sets the window itself, RFC 5681 §3.2 / RFC 6582 / RFC 6675 /
/// RFC 6937), and, as the sender is configured, the ACK that ends recovery or the Loss state.
#[inline]
pub(crate) fn may_grow(tcb: &Tcb, ack: &AckInfo) -> bool {
    if ack.acked_bytes == 0 {
        return false;
    }
    match ack.state_before {
        CaState::Recovery => tcb.state != CaState::Recovery && tcb.grow_on_recovery_exit,
        CaState::Loss => tcb.state == CaState::Loss || tcb.grow_on_loss_exit,
        _ => true,
    }
}

/// A bandwidth estimate times a minimum RTT, as a window in payload bytes, at least
/// 2·SMSS (ssthresh = Bwe·RTTmin, Martignon & Capone eq. (2); Westwood+'s BWE·RTTmin) and at
/// most [`MAX_BW_WINDOW_SEGMENTS`] segments: an estimate made of back-to-back events (a burst
/// sent within one nanosecond, a filter pole near 0: `tibet_alpha = 1e-9`) is near infinite,
/// and its window was handed to the path at once (3 GB, an allocation abort; issue 34).
#[inline]
pub(crate) fn bw_window(bytes_per_s: f64, rtt_min: Nanos, mss: u64) -> u64 {
    let w = (bytes_per_s * rtt_min as f64 * 1e-9).round();
    if w.is_finite() && w > 0.0 {
        (w as u64).clamp(2 * mss, MAX_BW_WINDOW_SEGMENTS * mss.max(1))
    } else {
        2 * mss
    }
}

/// The largest window a bandwidth estimate sets: 2^20 segments (1.5 GB of 1460-byte
/// segments in flight, 10 Tb/s over 1.2 ms), far beyond any path the simulator runs.
pub(crate) const MAX_BW_WINDOW_SEGMENTS: u64 = 1 << 20;

#[cfg(test)]
mod bw_window_tests {
    #[test]
    fn a_runaway_estimate_gives_a_bounded_window() {
        assert_eq!(super::bw_window(f64::INFINITY, 20_000_000, 1000), 2000);
        assert_eq!(super::bw_window(1e15, 20_000_000, 1000), super::MAX_BW_WINDOW_SEGMENTS * 1000);
        assert_eq!(super::bw_window(1.25e6, 20_000_000, 1000), 25_000);
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use crate::tcp::{AckInfo, CaState};
    use crate::time::Nanos;

    /// An ACK of `segs` 1000-byte segments (0: a duplicate ACK) at `now` ns with RTT `rtt`.
    pub fn ack_at(now: Nanos, segs: u64, rtt: Option<Nanos>, state: CaState) -> AckInfo {
        AckInfo { now, acked_bytes: segs * 1000, acked_segs: segs, cum_bytes: segs * 1000, rtt, dup: segs == 0, state_before: state }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::CcKind;

    /// The whole of a new congestion control, as a test builds it: this module and the line
    /// `Fixed(tests::fixed::Fixed) = "example-fixed", new |t| ...;` in the registry.
    pub(super) mod fixed {
        use crate::tcp::cc::CongestionControl;
        use crate::tcp::{AckInfo, Tcb};

        /// A window fixed at the given number of segments, whatever happens.
        #[derive(Clone, Debug)]
        pub struct Fixed(pub u64);

        impl CongestionControl for Fixed {
            fn name(&self) -> &'static str {
                "example-fixed"
            }
            fn on_ack(&mut self, tcb: &mut Tcb, _ack: &AckInfo) {
                tcb.cwnd = self.0 * tcb.mss;
            }
            fn ssthresh_on_loss(&mut self, tcb: &Tcb) -> u64 {
                self.0 * tcb.mss
            }
        }
    }

    #[test]
    fn a_registry_line_is_all_a_new_controller_needs() {
        use crate::tcp::sender::Sender;
        use crate::tcp::wire::AckPkt;
        // Its name parses, is listed (the parameter table the CLI, Python and TOML read) ...
        assert_eq!(CcKind::parse("Example_Fixed").unwrap(), CcKind::Fixed);
        assert!(CcKind::NAMES.contains(&"example-fixed"));
        let spec = crate::tcp::config::TcpConfig::PARAMS.iter().find(|p| p.name == "cc").unwrap();
        assert!(format!("{:?}", spec).contains("example-fixed"), "{spec:?}");
        // ... the settings build it, and a sender runs it through the enum's dispatch.
        let t = TcpConfig { cc: CcKind::Fixed, init_cwnd: 3, ..TcpConfig::default() };
        let cc = Cc::from_config(&t);
        assert_eq!((cc.kind(), cc.name()), (CcKind::Fixed, "example-fixed"));
        let mut s = Sender::from_config(&t, None);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(out.len(), 3);
        s.tcb.cwnd = 50 * t.mss; // whatever the window was, the next ACK fixes it again
        out.clear();
        s.on_ack(&AckPkt { ack: 1, ..AckPkt::default() }, 1_000_000, &mut out);
        assert_eq!((s.tcb.cwnd, out.len()), (3 * t.mss, 1));
    }

    #[test]
    fn ns3_rule_resolution() {
        use crate::tcp::SsthreshRule;
        use CcKind::*;
        use SsthreshRule as R;
        assert_eq!(resolve_ssthresh_rule(R::Ns3, Reno, false, false), R::FlightSizeMinusLost);
        assert_eq!(resolve_ssthresh_rule(R::Ns3, Reno, false, true), R::Pipe);
        assert_eq!(resolve_ssthresh_rule(R::Ns3, Westwood, true, false), R::Pipe);
        assert_eq!(resolve_ssthresh_rule(R::Ns3, Cubic, true, true), R::Cwnd);
        assert_eq!(resolve_ssthresh_rule(R::Ns3, Vegas, true, true), R::Ns3);
        assert_eq!(resolve_ssthresh_rule(R::FlightSize, Cubic, true, true), R::FlightSize);
    }

    #[test]
    fn a_newreno_sender_does_not_hold_room_for_the_largest_controller() {
        // Each flow's sender holds one `Cc`: the controllers with state beyond a few words
        // are boxed in the registry, so the enum stays the size of Reno's state plus a tag
        // and a pointer (the 10,000-flow dumbbell's memory per flow).
        assert!(std::mem::size_of::<Cc>() <= 32, "Cc is {} bytes", std::mem::size_of::<Cc>());
        for name in ["cubic", "bbr", "bbr3", "westwood", "vegas", "tibet"] {
            let t = TcpConfig { cc: CcKind::parse(name).unwrap(), ..TcpConfig::default() };
            assert_eq!(Cc::from_config(&t).kind(), t.cc);
        }
    }

    #[test]
    fn bandwidth_window() {
        // 1.25 MB/s (10 Mb/s) × 20 ms = 25 000 bytes; a null estimate gives the 2-segment floor.
        assert_eq!(bw_window(1.25e6, 20_000_000, 1000), 25_000);
        assert_eq!(bw_window(0.0, 20_000_000, 1000), 2000);
        assert_eq!(bw_window(f64::NAN, 20_000_000, 1000), 2000);
    }
}
