//! What every simulation entry point does around the engine: the work budget checked
//! before the run (`burstlab_core::sim::budget`) and a watch during it that answers
//! Ctrl-C (`PyErr_CheckSignals` every few milliseconds of wall time) and reports progress
//! to an optional Python callback `progress(simulated_s, end_s, events)` about once a
//! second. Config keys: `max_events` (None: the default budget; 0: none),
//! `max_events_option` (how the message names the option), `progress` (a callable).
use crate::errors::IntoPyResult;
use crate::convert::get;
use burstlab_core::results::NetworkResult;
use burstlab_core::sim::budget::{self, DEFAULT_MAX_EVENTS};
use burstlab_core::sim::{self, LogRec, Network, Progress, Watch};
use burstlab_core::time::to_secs_f64;
use burstlab_core::Error;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Signals are checked at most this often (and at least this often while the engine runs).
const SIGNAL_EVERY: Duration = Duration::from_millis(5);
/// Progress is reported at most this often.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// Run `net` under the budget and the watch of `config` (GIL released while it runs).
pub(crate) fn run(py: Python<'_>, config: &Bound<'_, PyDict>, net: Network) -> PyResult<(NetworkResult, Vec<LogRec>)> {
    let max_events = match get::<i64>(config, "max_events")? {
        None => DEFAULT_MAX_EVENTS,
        Some(n) => u64::try_from(n).map_err(|_| crate::errors::to_py(Error::param("max_events", n, "a non-negative number of events (0: no budget)")))?,
    };
    let option = get::<String>(config, "max_events_option")?.unwrap_or_else(|| "max_events=N".to_string());
    if max_events > 0 {
        net.validate().py()?;
        budget::check(&net, max_events, &option).py()?;
    }
    let progress: Option<Py<PyAny>> = config.get_item("progress")?.filter(|p| !p.is_none()).map(|p| p.unbind());
    let failure: Arc<Mutex<Option<PyErr>>> = Arc::default();
    let slot = failure.clone();
    let (mut last_signal, mut last_progress) = (Instant::now(), Instant::now());
    let watch: Watch = Box::new(move |p: Progress| {
        let now = Instant::now();
        if now.duration_since(last_signal) < SIGNAL_EVERY {
            return true;
        }
        last_signal = now;
        Python::with_gil(|py| {
            let mut r = py.check_signals();
            if let (Ok(()), Some(cb)) = (&r, &progress) {
                if now.duration_since(last_progress) >= PROGRESS_EVERY {
                    last_progress = now;
                    r = cb.call1(py, (to_secs_f64(p.now), to_secs_f64(p.end), p.events)).map(|_| ());
                }
            }
            match r {
                Ok(()) => true,
                Err(e) => {
                    *slot.lock().expect("the watch's error slot") = Some(e);
                    false
                }
            }
        })
    });
    let r = py.allow_threads(move || sim::run_network_watched(net, Some(watch)));
    if let Some(e) = failure.lock().expect("the watch's error slot").take() {
        return Err(e);
    }
    r.py()
}
