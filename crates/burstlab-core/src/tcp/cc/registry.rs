//! The congestion controls, one line each: `Variant(Type) = "name" | "alias"..., new |t|
//! constructor;`. Adding a congestion control is its file under `tcp/cc/` and one line here
//! (`cc::tests::a_registry_line_is_all_a_new_controller_needs` shows it with a test-only
//! one), plus a line in [`crate::tcp::config::Variant`] if it wants a `--tcp` shorthand.
//!
//! A controller whose state is larger than a few words is held boxed (`Cubic(Box<Cubic>)`):
//! the enum is as large as its largest variant, and every flow holds one, so boxing BBR's,
//! CUBIC's and the other estimators' state keeps a NewReno flow's sender small (the 10,000-flow
//! dumbbell's memory per flow: `docs/validation.md`).
//!
//! The lines are text handed to a macro ([`with_registered`]), read in two places: the
//! settings (`tcp/config.rs`) make [`crate::tcp::config::CcKind`] of the names and aliases
//! (which the Python module, the CLI, TOML scenarios and `docs/parameters.md` read from the
//! parameter table); `tcp/cc/mod.rs` makes the [`crate::tcp::cc::Cc`] enum the sender holds,
//! its dispatch and its construction. This file imports neither, so the settings do not import
//! the algorithms that read them (no circle between `config.rs` and `cc/`).

/// Hands the registry's lines to the macro `$m` (types and constructors are resolved where
/// `$m` expands: only `tcp/cc/mod.rs` uses them), followed by `$extra` lines.
macro_rules! registry_lines {
    ($m:ident; $($extra:tt)*) => {
        $m! {
            /// RFC 5681 slow start and congestion avoidance (ns-3's TcpNewReno).
            Reno(Reno) = "reno" | "newreno" | "new-reno", new |t| Reno::from_config(t);
            /// Linux's `tcp_reno_cong_avoid` / `tcp_reno_ssthresh` (ns-3's TcpLinuxReno).
            LinuxReno(LinuxReno) = "linux-reno" | "linuxreno", new |t| LinuxReno::new(t.linux_reno_variant);
            /// Westwood+ (Mascolo et al. 2004).
            Westwood(Box<Westwood>) = "westwood" | "westwood+" | "westwoodplus" | "westwood-plus", new |t| Box::new(Westwood::new(t));
            /// TIBET (Martignon & Capone §II).
            Tibet(Box<Tibet>) = "tibet", new |t| Box::new(Tibet::new(t));
            /// Ideal-estimate TCP (Martignon & Capone §V): TIBET's rule fed with the exact fair share.
            Ideal(Ideal) = "ideal", new |t| Ideal::new(t);
            /// Vegas (Brakmo & Peterson 1995).
            Vegas(Box<Vegas>) = "vegas", new |t| Box::new(Vegas::new(t));
            /// CUBIC (RFC 9438).
            Cubic(Box<Cubic>) = "cubic", new |t| Box::new(Cubic::new(t));
            /// BBR v1 (Cardwell et al. 2016; Linux `tcp_bbr.c`).
            Bbr(Box<Bbr>) = "bbr" | "bbr1" | "bbrv1", new |t| Box::new(Bbr::from_config(t));
            /// BBR v3 (draft-ietf-ccwg-bbr): v1's model bounded by loss (inflight_hi/lo, bw_lo).
            Bbr3(Box<Bbr3>) = "bbr3" | "bbrv3", new |t| Box::new(Bbr3::new(t.init_cwnd));
            $($extra)*
        }
    };
}
pub(crate) use registry_lines;

/// The registry's lines given to macro `$m`; a test build adds a test-only controller.
#[cfg(not(test))]
macro_rules! with_registered {
    ($m:ident) => {
        $crate::tcp::cc::registry::registry_lines! { $m; }
    };
}
#[cfg(test)]
macro_rules! with_registered {
    ($m:ident) => {
        $crate::tcp::cc::registry::registry_lines! { $m;
            /// A test-only controller: a window fixed at `init_cwnd` (`tests::fixed`).
            Fixed(tests::fixed::Fixed) = "example-fixed", new |t| tests::fixed::Fixed(t.init_cwnd);
        }
    };
}
pub(crate) use with_registered;
