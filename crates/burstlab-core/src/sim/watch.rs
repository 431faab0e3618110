//! Watching a run from outside while it runs: an interrupt (Ctrl-C) and progress.
//!
//! The engine's loop already counts its events; every [`WATCH_EVERY`] of them (a mask
//! test on that counter, nothing per packet) it calls the run's [`Watch`], if it has one,
//! with the simulated time reached. The watch returns `false` to stop the run, which then
//! ends with [`interrupted`] instead of a result. The Python bindings give a watch that
//! asks Python for pending signals (`PyErr_CheckSignals`) every few milliseconds of wall
//! time and reports progress to a callback (`burstlab sim` prints it on stderr).
use crate::time::Nanos;
use crate::Error;

/// The loop calls the watch once per this many events: 16 384 events take 0.2–2 ms at
/// the engine's speed, so a watch that throttles itself by wall time sees every few ms.
pub const WATCH_EVERY: u64 = 1 << 14;

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
