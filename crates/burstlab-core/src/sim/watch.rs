//! Watching a run from outside while it runs: an interrupt (Ctrl-C) and progress.
//!
//! The engine's loop runs the events before a time (the end of the run); with a [`Watch`]
//! that time is instead the next *watch point*, where the loop calls the watch with the
//! simulated time reached and goes on to the next point. The points are spaced in simulated
//! time so that about [`WATCH_EVERY`] events pass between two ([`next_quantum`]): the
//! loop's own end test does the work, nothing is added per event or per packet. The watch
//! returns `false` to stop the run, which then ends with [`interrupted`] instead of a result. The Python bindings give a watch that
//! asks Python for pending signals (`PyErr_CheckSignals`) every few milliseconds of wall
//! time and reports progress to a callback (`burstlab sim` prints it on stderr).
use crate::time::Nanos;
use crate::Error;

/// The loop calls the watch about once per this many events: 16 384 events take 0.2–2 ms
/// at the engine's speed, so a watch that throttles itself by wall time sees every few ms.
pub const WATCH_EVERY: u64 = 1 << 14;

/// The simulated time to the next watch point, from the last `quantum` and the `events` it
/// held: scaled towards [`WATCH_EVERY`] events, by at most 8× either way per point (a burst
/// or a lull does not swing it), at least 1 ns.
pub fn next_quantum(quantum: Nanos, events: u64) -> Nanos {
    let target = WATCH_EVERY as f64;
    let scale = (target / events.max(1) as f64).clamp(0.125, 8.0);
    ((quantum as f64 * scale) as Nanos).clamp(1, Nanos::MAX / 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantum_converges_to_the_target_rate() {
        // A run of 10^7 events per simulated second: WATCH_EVERY events take 1.6 ms.
        let mut q: Nanos = 1_000_000;
        for _ in 0..20 {
            let events = (q as f64 * 1e-9 * 1e7) as u64;
            q = next_quantum(q, events);
        }
        let events = q as f64 * 1e-9 * 1e7;
        assert!((events - WATCH_EVERY as f64).abs() < 0.01 * WATCH_EVERY as f64, "{events}");
        assert_eq!(next_quantum(1, 1 << 40), 1);
        assert_eq!(next_quantum(1000, 0), 8000);
    }

    fn lossy(secs: u64) -> crate::sim::Network {
        use crate::sim::{LinkConfig, Scenario, TcpConfig, Workload};
        let link = LinkConfig::new(10_000_000, 10_000_000, 50)
            .with_loss(Box::new(crate::loss::bernoulli::Bernoulli::new(0.01).unwrap()), crate::link::LossMode::Packet);
        let w = Workload { duration: Some(secs * crate::time::NS_PER_S), size: None, warmup: crate::time::NS_PER_S };
        Scenario::new(TcpConfig::default(), link, w).into_network()
    }

    #[test]
    fn a_watched_run_is_the_same_run() {
        let plain = crate::sim::run_network(lossy(60)).unwrap();
        let calls = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let c = calls.clone();
        let watch: Watch = Box::new(move |p: Progress| {
            assert!(p.now < p.end);
            c.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            true
        });
        let (watched, _) = crate::sim::run_network_watched(lossy(60), Some(watch)).unwrap();
        assert_eq!(format!("{:?}", plain.flows[0].result), format!("{:?}", watched.flows[0].result));
        assert_eq!(plain.events, watched.events);
        let n = calls.load(std::sync::atomic::Ordering::Relaxed);
        let per = plain.events / n.max(1);
        assert!(n > 3 && per > WATCH_EVERY / 8 && per < WATCH_EVERY * 8, "{n} calls for {} events", plain.events);
    }

    #[test]
    fn a_watch_stops_the_run() {
        let watch: Watch = Box::new(|p: Progress| p.events < 100_000);
        let e = crate::sim::run_network_watched(lossy(600), Some(watch)).unwrap_err();
        assert!(e.to_string().starts_with("the simulation was interrupted at"), "{e}");
    }
}

/// Where a run is when its watch is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Simulated time reached.
    pub now: Nanos,
    /// The run's end (its duration); a run of sized flows may stop earlier.
    pub end: Nanos,
    /// Events handled so far.
    pub events: u64,
}

/// The watch of one run: called with the run's progress, `false` stops it.
pub type Watch = Box<dyn FnMut(Progress) -> bool + Send>;

/// The error of a run that its watch stopped.
pub fn interrupted(p: Progress) -> Error {
    Error::Other(format!(
        "the simulation was interrupted at {:.6} s of {:.6} s simulated ({} events)",
        crate::time::to_secs_f64(p.now),
        crate::time::to_secs_f64(p.end),
        p.events
    ))
}
