//! Simulation time: integer nanoseconds, never floating point inside the engine.

/// A point in time or a duration, in nanoseconds.
pub type Nanos = u64;

pub const NS_PER_US: Nanos = 1_000;
pub const NS_PER_MS: Nanos = 1_000_000;
pub const NS_PER_S: Nanos = 1_000_000_000;

/// The longest run the simulator takes, exclusive: 10^9 s (31.7 years) = 10^18 ns. Every time
/// a run reads or stores then stays far below 2^63 ns (a run's timers reach past its end by at
/// most a backed-off retransmission timeout or a link's delay), which packed per-segment
/// records rely on (a flag in a send time's top bit). The Python layer applies the same bound
/// to every time it converts.
pub const MAX_RUN: Nanos = 1_000_000_000 * NS_PER_S;

/// A run of `span` ns, or the error that refuses it ([`MAX_RUN`]).
pub fn check_run(what: &str, span: Nanos) -> crate::error::Result<()> {
    if span >= MAX_RUN {
        return Err(crate::error::Error::param(what, span as f64 / NS_PER_S as f64,
            "less than 10^9 s (31.7 years): the simulator counts time in 64-bit nanoseconds"));
    }
    Ok(())
}

/// Seconds (float, as at the Python surface) to nanoseconds, rounded to nearest.
pub fn from_secs_f64(s: f64) -> Nanos {
    debug_assert!(s >= 0.0 && s.is_finite());
    (s * NS_PER_S as f64).round() as Nanos
}

/// Nanoseconds to seconds (float).
pub fn to_secs_f64(t: Nanos) -> f64 {
    t as f64 / NS_PER_S as f64
}

/// Time to serialise `bytes` at `rate_bps` bits/s, rounded up to a whole nanosecond.
pub fn tx_time(bytes: u64, rate_bps: u64) -> Nanos {
    debug_assert!(rate_bps > 0);
    let bits = bytes as u128 * 8 * NS_PER_S as u128;
    bits.div_ceil(rate_bps as u128) as Nanos
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_known_answers() {
        // 1000 bytes at 10 Mb/s = 800 us exactly.
        assert_eq!(tx_time(1000, 10_000_000), 800 * NS_PER_US);
        // 1500 bytes at 1 Gb/s = 12 us.
        assert_eq!(tx_time(1500, 1_000_000_000), 12 * NS_PER_US);
        // rounding up: 1 byte at 3 b/s = 8/3 s.
        assert_eq!(tx_time(1, 3), 2_666_666_667);
    }

    #[test]
    fn runs_of_10_to_the_9_seconds_and_longer_are_refused() {
        assert!(check_run("duration", MAX_RUN - 1).is_ok());
        let e = check_run("duration", MAX_RUN).unwrap_err().to_string();
        assert!(e.contains("duration") && e.contains("less than 10^9 s"), "{e}");
        assert!(check_run("duration", u64::MAX).is_err());
        // far below the top bit that packed per-segment records use
        assert!(MAX_RUN < (1u64 << 63) / 8);
    }

    #[test]
    fn secs_round_trip() {
        assert_eq!(from_secs_f64(0.3), 300 * NS_PER_MS);
        assert_eq!(to_secs_f64(1_500_000_000), 1.5);
    }
}
