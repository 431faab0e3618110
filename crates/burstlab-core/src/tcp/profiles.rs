//! Profiles: named sets of [`TcpConfig`] parameter values, as data (`docs/tcp.md` gives every
//! value's source). `rfc` is the declared defaults; `ns3` is ns-3 3.44's defaults on a
//! point-to-point link; `linux` a Linux 6.x host's; `tossim` NewReno as Srinivasan et al.
//! ("PRR Is Not Enough", §3.1) ran it on TinyOS/TOSSIM. Rust, Python (`TcpConfig.profile`),
//! the CLI (`--profile`) and TOML scenarios (`profile = "ns3"`) all resolve them here.
//!
//! Resolution ([`resolve`]): the defaults, then the profile's fixed values, then the
//! `--tcp NAME` pair, then the caller's overrides; then the profile's renaming of congestion
//! controls (a Linux host's `reno` is `linux-reno`); last the values the profile computes from
//! the others (ns-3's receive window from the MSS), unless the caller gave them.
use super::config::{CcKind, TcpConfig, Variant};
use crate::param::Value;
use crate::time::{Nanos, NS_PER_MS, NS_PER_S};
use crate::{Error, Result};

/// A fixed value in a profile (a `const`-friendly [`Value`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    Bool(bool),
    Int(u64),
    Real(f64),
    Time(Nanos),
    Name(&'static str),
}

impl Lit {
    pub fn value(self) -> Value {
        match self {
            Lit::Bool(b) => Value::Bool(b),
            Lit::Int(n) => Value::Int(n),
            Lit::Real(r) => Value::Real(r),
            Lit::Time(t) => Value::Time(t),
            Lit::Name(s) => Value::Text(s.to_string()),
        }
    }
}

/// A value a profile computes from the resolved settings, with what it is, in words.
#[derive(Clone, Copy)]
pub struct Computed {
    pub name: &'static str,
    pub rule: &'static str,
    pub value: fn(&TcpConfig) -> Value,
}

/// A named set of parameter values.
#[derive(Clone, Copy)]
pub struct Profile {
    pub name: &'static str,
    pub doc: &'static str,
    pub fixed: &'static [(&'static str, Lit)],
    pub computed: &'static [Computed],
    /// Congestion controls this profile runs under another name.
    pub cc_alias: &'static [(CcKind, CcKind)],
}

use Lit::{Bool as B, Int as I, Name as N, Real as R, Time as T};

const MS: Nanos = NS_PER_MS;
const S: Nanos = NS_PER_S;

/// Every profile, `rfc` first.
pub const PROFILES: &[Profile] = &[
    Profile { name: "rfc", doc: "The RFC behaviour: every parameter's declared default.", fixed: &[], computed: &[], cc_alias: &[] },
    Profile {
        name: "ns3",
        doc: "ns-3 3.44's defaults (TcpL4Protocol, TcpSocket, TcpSocketBase, RttEstimator, TcpCubic, TcpVegas, TcpWestwoodPlus, TcpPrrRecovery) on a point-to-point link.",
        fixed: &[
            ("cc", N("cubic")),
            ("recovery", N("prr")),
            ("init_cwnd", I(10)),
            ("ack_every", I(2)),
            ("ack_timeout", T(200 * MS)),
            ("rto_min", T(S)),
            ("rto_initial", T(S)),
            ("rto_max", T(60 * S)),
            ("clock_granularity", T(MS)),
            ("dupack_threshold", I(3)),
            ("header_bytes", I(42)), // TCP 20 + IPv4 20 + PPP 2 (+12 with timestamps)
            ("ack_bytes", I(42)),
            ("limited_transmit", B(true)),
            ("timestamps", B(true)),
            ("handshake", B(true)),
            ("ssthresh_rule", N("ns3")),
            ("grow_on_loss_exit", B(false)),
            ("grow_on_recovery_exit", B(true)),
            ("rto_backoff_reset", N("new_ack")),
            ("cc_rtt", N("srtt")),
            ("prr_variant", N("ns3")),
            ("dupack_rule", N("ns3")),
            ("pipe_rule", N("ns3")),
            ("cubic_variant", N("ns3")),
            ("westwood_variant", N("ns3")),
            ("linux_reno_variant", N("ns3")),
            ("vegas_alpha", I(2)),
            ("vegas_beta", I(4)),
            ("vegas_gamma", I(1)),
            ("hystart", N("ns3")),
            ("bbr_variant", N("ns3")),
        ],
        computed: &[
            // SndBufSize = RcvBufSize = 128 KiB
            Computed { name: "rwnd", rule: "131072 // mss (128 KiB socket buffers)", value: |c| Value::OptInt(Some(131072 / c.mss)) },
            // TcpCubic counts segments, TcpNewReno one per ACK
            Computed { name: "abc", rule: "cc == cubic (TcpCubic counts segments)", value: |c| Value::Bool(c.cc == CcKind::Cubic) },
        ],
        cc_alias: &[],
    },
    Profile {
        name: "tossim",
        doc: "NewReno as Srinivasan et al. (PRR Is Not Enough, §3.1) ran it on TinyOS/TOSSIM, with the Mirage timers (docs/study.md).",
        fixed: &[
            ("cc", N("reno")),
            ("recovery", N("newreno")),
            ("init_cwnd", I(2)),
            ("max_cwnd", I(130)),
            ("ack_every", I(2)),
            ("ack_timeout", T(300 * MS)),
            ("rto_min", T(S)),
            ("rto_max", T(60 * S)),
            ("dupack_threshold", I(3)),
            ("rto_estimator", N("rfc793")),
            ("rto_alpha", R(0.875)),
            ("rto_beta", R(2.0)),
            ("rto_backoff", B(false)),
            ("ack_on_idle", B(true)),
            ("fast_retransmit_after_timeout", B(true)),
            ("partial_ack_timer", N("every")),
        ],
        computed: &[Computed { name: "rto_initial", rule: "rto_min", value: |c| Value::Time(c.rto_min) }],
        cc_alias: &[],
    },
    Profile {
        name: "linux",
        doc: "A Linux 6.x host with the kernel's defaults (net.ipv4.tcp_*, tcp_cubic.c, tcp_vegas.c).",
        fixed: &[
            ("cc", N("cubic")),
            ("recovery", N("prr")),
            ("init_cwnd", I(10)),
            ("ack_every", I(2)),
            ("ack_timeout", T(40 * MS)),        // TCP_DELACK_MIN
            ("quickack", I(16)),                // TCP_MAX_QUICKACKS (rcv_wnd / (2 rcv_mss) = 22 at the first data: 64 KB)
            ("rto_min", T(200 * MS)),           // TCP_RTO_MIN
            ("clock_granularity", T(200 * MS)), // RTO = SRTT + max(200 ms, 4 RTTVAR)
            ("rto_initial", T(S)),              // TCP_TIMEOUT_INIT
            ("rto_max", T(120 * S)),            // TCP_RTO_MAX
            ("limited_transmit", B(true)),
            ("rack_lost_retransmissions", B(true)), // RACK (tcp_recovery = 1), lost retransmissions
            ("rack_tlp", B(true)),                  // RACK-TLP (tcp_recovery = 1, tcp_early_retrans = 3)
            ("rto_keeps_recovery_ssthresh", B(true)), // tcp_enter_loss: no second reduction in Recovery
            ("timestamps", B(true)),
            ("handshake", B(true)),
            ("ssthresh_rule", N("cwnd")),
            ("grow_on_recovery_exit", B(true)),
            ("rto_backoff_reset", N("new_ack")),
            ("abc", B(true)),
            ("prr_variant", N("linux")),
            ("vegas_alpha", I(2)),
            ("vegas_beta", I(4)),
            ("hystart", N("linux")),
            ("cubic_variant", N("linux")), // tcp_cubic.c's bictcp_update
        ],
        computed: &[],
        cc_alias: &[(CcKind::Reno, CcKind::LinuxReno)],
    },
];

/// The profile called `name`, or an error listing the profiles.
pub fn profile(name: &str) -> Result<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<_> = PROFILES.iter().map(|p| p.name).collect();
        Error::param("profile", name, &format!("one of {}", names.join(", ")))
    })
}

/// `TcpConfig` of profile `name` with the `--tcp` pair `variant` and the caller's `overrides`
/// (parameter names and values; applied in declaration order, so that `rto_estimator` comes
/// before its `rto_alpha`). Ranges are checked; the rules between parameters are
/// [`TcpConfig::validate`]'s.
pub fn resolve(name: &str, variant: Option<Variant>, overrides: &[(&str, Value)]) -> Result<TcpConfig> {
    let p = profile(name)?;
    for (k, v) in overrides {
        if !TcpConfig::PARAMS.iter().any(|s| s.name == *k) {
            return Err(Error::param(k, v, "a TCP parameter (docs/parameters.md)"));
        }
    }
    let mut t = TcpConfig::default();
    for (k, v) in p.fixed {
        t.set(k, v.value())?;
    }
    if let Some(v) = variant {
        (t.cc, t.recovery) = v.pair();
    }
    for spec in TcpConfig::PARAMS {
        for (k, v) in overrides.iter().filter(|(k, _)| *k == spec.name) {
            t.set(k, v.clone())?;
        }
    }
    if let Some(&(_, to)) = p.cc_alias.iter().find(|(from, _)| *from == t.cc) {
        t.cc = to;
    }
    for c in p.computed {
        if !overrides.iter().any(|(k, _)| *k == c.name) {
            let v = (c.value)(&t);
            t.set(c.name, v)?;
        }
    }
    Ok(t)
}

impl TcpConfig {
    /// Profile `name` with no overrides (`TcpConfig::profile("linux")`).
    pub fn profile(name: &str) -> Result<TcpConfig> {
        resolve(name, None, &[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::RecoveryKind;

    #[test]
    fn every_profile_value_names_a_parameter_and_is_in_range() {
        for p in PROFILES {
            let t = TcpConfig::profile(p.name).unwrap();
            t.validate().unwrap();
            for (k, v) in p.fixed {
                let mut one = TcpConfig::default();
                one.set(k, v.value()).unwrap();
                assert_eq!(t.get(k), one.get(k), "{} {k}", p.name);
                assert_ne!(t.get(k), None);
            }
            for c in p.computed {
                assert!(t.get(c.name).is_some(), "{} {}", p.name, c.name);
            }
        }
        assert_eq!(TcpConfig::profile("rfc").unwrap(), TcpConfig::default());
        assert!(TcpConfig::profile("bsd").unwrap_err().to_string().contains("rfc, ns3, tossim, linux"));
    }

    #[test]
    fn overrides_win_and_computed_values_follow_them() {
        let ns3 = resolve("ns3", None, &[("mss", Value::Int(1460))]).unwrap();
        assert_eq!((ns3.rwnd, ns3.abc), (Some(131072 / 1460), true));
        let reno = resolve("ns3", Some(Variant::NewReno), &[("rwnd", Value::OptInt(None))]).unwrap();
        assert_eq!((reno.cc, reno.recovery, reno.rwnd, reno.abc), (CcKind::Reno, RecoveryKind::NewReno, None, false));
        let lx = resolve("linux", None, &[("cc", Value::Text("reno".into()))]).unwrap();
        assert_eq!((lx.cc, lx.rto_min), (CcKind::LinuxReno, 200 * MS));
        let ts = resolve("tossim", None, &[("rto_min", Value::Time(200 * MS))]).unwrap();
        assert_eq!(ts.rto_initial, 200 * MS);
        assert_eq!(ts.rto_793(), (0.875, 2.0));
        let e = resolve("ns3", None, &[("colour", Value::Text("blue".into()))]).unwrap_err().to_string();
        assert!(e.contains("colour"), "{e}");
        let e = resolve("linux", None, &[("rto_min", Value::Time(1))]).unwrap_err().to_string();
        assert!(e.contains("rto_min") && e.contains("0.001 s"), "{e}");
    }
}
