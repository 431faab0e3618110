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

/// [`MAX_RUN`] in seconds, as times arrive at the Python surface.
pub const MAX_RUN_SECS: f64 = (MAX_RUN / NS_PER_S) as f64;

/// What a time at or past [`MAX_RUN`] is told it should be.
pub const MAX_RUN_EXPECTED: &str = "less than 10^9 s (31.7 years): the simulator counts time in 64-bit nanoseconds";

/// A run of `span` ns, or the error that refuses it ([`MAX_RUN`]).
pub fn check_run(what: &str, span: Nanos) -> crate::error::Result<()> {
    if span >= MAX_RUN {
        return Err(crate::error::Error::param(what, span as f64 / NS_PER_S as f64, MAX_RUN_EXPECTED));
    }
    Ok(())
}

/// A slotted run of `len` slots of `slot` ns, or the error that refuses it: the run lasts
/// len × slot, bounded like every time ([`MAX_RUN`]); the error names the slot and both factors.
pub fn check_slotted_run(len: usize, slot: Nanos) -> crate::error::Result<()> {
    let (slot_s, n) = (slot as f64 * 1e-9, len as f64);
    let span = slot_s * n;
    if span >= MAX_RUN_SECS {
        let why = format!("a run (len(trace) × slot = {len} × {slot_s} s = {span:.3e} s) shorter than 10^9 s: the simulator counts time in 64-bit nanoseconds");
        return Err(crate::error::Error::param("slot", slot_s, &why));
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
        // a slotted run: its slots times its length, named with both factors
        assert!(check_slotted_run(1_000, 999_999 * NS_PER_S).is_ok());
        let e = check_slotted_run(300, 4821 * 3600 * NS_PER_S).unwrap_err().to_string();
        assert!(e.contains("slot") && e.contains("len(trace) × slot = 300 × 17355600 s"), "{e}");
    }

    #[test]
    fn secs_round_trip() {
        assert_eq!(from_secs_f64(0.3), 300 * NS_PER_MS);
        assert_eq!(to_secs_f64(1_500_000_000), 1.5);
    }
}
