//! The link layer for Python: `link_measure(layer, loss, mode, frames, frame_bytes, seed,
//! quantiles)` (a saturated link without TCP) and `wifi_timing(dcf, packet_bytes)` (802.11
//! DCF timing). `layer` is the flat dict `burstlab.linklayer` builds from its dataclasses
//! (seconds and bits/s, as at the Python surface); [`link_layer_config`] turns it into the
//! core's [`LinkLayerConfig`], for the simulator's links too.
use crate::errors::{to_py, IntoPyResult};
use crate::loss::PyLossModel;
use burstlab_core::link::adapt::{RateAdaptConfig, RateAdaptParams, RateControlKind};
use burstlab_core::link::arq::{ArqConfig, LimitCounts};
use burstlab_core::link::harq::{HarqConfig, Sizing};
use burstlab_core::hist::Durations;
use burstlab_core::link::layer::{measure_with, AttemptTiming, Backoff, Count};
use burstlab_core::link::wifi::{Dcf, Preamble};
use burstlab_core::link::{LinkLayerConfig, LinkStats, LossMode};
use burstlab_core::time::{self, Nanos};
use burstlab_core::Error;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn item<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(d.get_item(key)?.filter(|v| !v.is_none()))
}

/// `d[key]` as T, or `default` when absent or None; a value of the wrong type is a
/// ParameterError naming `key`.
fn get<'py, T: FromPyObject<'py>>(d: &Bound<'py, PyDict>, key: &str, default: T) -> PyResult<T> {
    let expected = match std::any::type_name::<T>() {
        "u32" => "a non-negative integer below 2^32",
        "bool" => "True or False",
        "alloc::string::String" => "a string",
        _ => "a number",
    };
    match item(d, key)? {
        None => Ok(default),
        Some(v) => v.extract::<T>().map_err(|_| to_py(Error::param(key, v.repr().map(|r| r.to_string()).unwrap_or_default(), expected))),
    }
}

/// Seconds → ns: finite, ≥ 0, at most an hour.
fn secs(name: &str, s: f64) -> PyResult<Nanos> {
    if s.is_finite() && (0.0..=3600.0).contains(&s) {
        Ok(time::from_secs_f64(s))
    } else {
        Err(to_py(Error::param(name, s, "a number of seconds in [0, 3600]")))
    }
}

/// A rate in bits/s, ≥ 1.
fn rate(name: &str, r: f64) -> PyResult<u64> {
    if r.is_finite() && (1.0..=1e15).contains(&r) {
        Ok(r.round() as u64)
    } else {
        Err(to_py(Error::param(name, r, "a rate in bits/s between 1 and 1e15")))
    }
}

/// 802.11 DCF parameters: {"rate", "preamble", "ack_rate", "slot", "sifs", "difs",
/// "mac_overhead_bytes", "ack_bytes", "llc_snap_bytes", "cw_min", "cw_max"}; absent keys
/// take 802.11b's values.
pub fn dcf_from_dict(d: &Bound<'_, PyDict>) -> PyResult<Dcf> {
    let r = rate("rate", get(d, "rate", 11e6)?)?;
    let preamble: String = get(d, "preamble", "long".to_string())?;
    let mut dcf = Dcf::dsss(r, Preamble::parse(&preamble).py()?).py()?;
    if let Some(a) = get::<Option<f64>>(d, "ack_rate", None)? {
        dcf.ack_rate_bps = rate("ack_rate", a)?;
    }
    dcf.slot = secs("slot", get(d, "slot", 20e-6)?)?;
    dcf.sifs = secs("sifs", get(d, "sifs", 10e-6)?)?;
    dcf.difs = secs("difs", get(d, "difs", 50e-6)?)?;
    dcf.mac_overhead_bytes = get(d, "mac_overhead_bytes", 28u32)?;
    dcf.ack_bytes = get(d, "ack_bytes", 14u32)?;
    dcf.llc_snap_bytes = get(d, "llc_snap_bytes", 8u32)?;
    dcf.cw_min = get(d, "cw_min", 31u32)?;
    dcf.cw_max = get(d, "cw_max", 1023u32)?;
    dcf.validate().py()?;
    Ok(dcf)
}

/// {"dcf": {...}} or {"attempt_time": s | [min, max], "rate": bits/s | None}, with
/// "backoff": None | {"cw_min", "cw_max", "slot"}.
fn timing_from_dict(d: &Bound<'_, PyDict>) -> PyResult<AttemptTiming> {
    let mut t = match item(d, "dcf")? {
        Some(dcf) => {
            if item(d, "attempt_time")?.is_some() || item(d, "rate")?.is_some() {
                return Err(to_py(Error::param("timing", "a Dcf with attempt_time or rate", "one of them")));
            }
            dcf_from_dict(dcf.downcast::<PyDict>()?)?.timing(false)
        }
        None => {
            let at =
                item(d, "attempt_time")?.ok_or_else(|| to_py(Error::param("timing", "nothing", "a Dcf, seconds or a (min, max) pair")))?;
            let mut t = if let Ok(x) = at.extract::<f64>() {
                AttemptTiming::fixed(secs("attempt_time", x)?)
            } else if let Ok([lo, hi]) = at.extract::<Vec<f64>>().as_deref() {
                AttemptTiming::uniform(secs("attempt_time", *lo)?, secs("attempt_time_max", *hi)?)
            } else {
                return Err(to_py(Error::param("attempt_time", at.repr()?, "seconds or a (min, max) pair of seconds")));
            };
            if let Some(r) = get::<Option<f64>>(d, "rate", None)? {
                t.rate_bps = rate("rate", r)?;
            }
            t
        }
    };
    if let Some(b) = item(d, "backoff")? {
        let b = b.downcast::<PyDict>()?;
        let slot = secs("slot", get(b, "slot", 20e-6)?)?;
        t.backoff = Some(Backoff::new(get(b, "cw_min", 31u32)?, get(b, "cw_max", 1023u32)?, slot).py()?);
    }
    t.validate().py()?;
    Ok(t)
}

/// The DCF a rate-adaptive ARQ hop derives its rates' timing from: its `timing`'s Dcf
/// (802.11b's by default); a fixed attempt time or rate has no rates to choose between.
fn adaptive_dcf(d: &Bound<'_, PyDict>, control: &str) -> PyResult<Dcf> {
    let Some(t) = item(d, "timing")? else { return Ok(Dcf::b11()) };
    let t = t.downcast::<PyDict>()?;
    if item(t, "attempt_time")?.is_some() || item(t, "rate")?.is_some() {
        return Err(to_py(Error::param("rate_control", control, "the 802.11 DCF timing (no attempt_time or rate): each rate has its own air time")));
    }
    match item(t, "dcf")? {
        Some(dcf) => dcf_from_dict(dcf.downcast::<PyDict>()?),
        None => Ok(Dcf::b11()),
    }
}

/// The link layer of `burstlab.linklayer.Arq` / `Harq` (their `_config()` dicts).
pub fn link_layer_config(d: &Bound<'_, PyDict>) -> PyResult<LinkLayerConfig> {
    let kind: String = get(d, "kind", String::new())?;
    let timing = match item(d, "timing")? {
        Some(t) => timing_from_dict(t.downcast::<PyDict>()?)?,
        None => Dcf::b11().timing(false),
    };
    let cfg = match kind.as_str() {
        "arq" => {
            let counts: String = get(d, "counts", "retries".to_string())?;
            let (limit, counts) = (get(d, "retry_limit", 7u32)?, LimitCounts::parse(&counts).py()?);
            // the declared rate-adaptation settings (RateAdaptParams::PARAMS), each checked by name
            let mut params = RateAdaptParams::default();
            for p in RateAdaptParams::PARAMS {
                if let Some(v) = crate::convert::param_value(d, p)? {
                    params.set(p.name, v).py()?;
                }
            }
            if params.control == RateControlKind::Fixed {
                LinkLayerConfig::Arq(ArqConfig { limit, counts, timing, adapt: None })
            } else {
                let dcf = adaptive_dcf(d, burstlab_core::param::Named::name(&params.control))?;
                let mut cfg = ArqConfig::adaptive(limit, counts, RateAdaptConfig::dsss_with(params, &dcf).py()?, false);
                cfg.timing.backoff = timing.backoff; // the hop's backoff, at every rate
                LinkLayerConfig::Arq(cfg)
            }
        }
        "harq" => {
            let dft = HarqConfig::new(timing);
            let sizing: String = get(d, "sizing", "quantile".to_string())?;
            let sizing = match sizing.as_str() {
                "quantile" => Sizing::Quantile { target: get(d, "target", 0.99)? },
                "mean" => Sizing::Mean,
                other => return Err(to_py(Error::param("sizing", other, "quantile or mean"))),
            };
            LinkLayerConfig::Harq(HarqConfig {
                attempts: get(d, "attempts", dft.attempts)?,
                fragment_bytes: get(d, "fragment_bytes", dft.fragment_bytes)?,
                fragment_header_bytes: get(d, "fragment_header_bytes", dft.fragment_header_bytes)?,
                max_fragments: get(d, "max_fragments", dft.max_fragments)?,
                sizing,
                proactive: get(d, "proactive", dft.proactive)?,
                ewma_gain: get(d, "ewma_gain", dft.ewma_gain)?,
                initial_loss: get(d, "initial_loss", dft.initial_loss)?,
                timing,
            })
        }
        other => return Err(to_py(Error::param("kind", other, "arq or harq"))),
    };
    cfg.build().py()?; // validates every parameter by name
    Ok(cfg)
}

fn distribution<'py>(py: Python<'py>, h: &Durations, quantiles: &[f64]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let s = |v: Option<Nanos>| v.map(time::to_secs_f64);
    d.set_item("count", h.count())?;
    d.set_item("mean", h.mean().map(|m| m / 1e9))?;
    d.set_item("min", s(h.min()))?;
    d.set_item("max", s(h.max()))?;
    let q = PyDict::new(py);
    for &x in quantiles {
        q.set_item(x, s(h.quantile_clamped(x)))?;
    }
    d.set_item("quantiles", q)?;
    let (mut lo, mut w, mut c) = (vec![], vec![], vec![]);
    for (l, width, n) in h.buckets() {
        lo.push(time::to_secs_f64(l));
        w.push(time::to_secs_f64(width));
        c.push(n);
    }
    d.set_item("lower", lo.into_pyarray(py))?;
    d.set_item("width", w.into_pyarray(py))?;
    d.set_item("counts", c.into_pyarray(py))?;
    Ok(d)
}

/// A saturated link without TCP (`burstlab.linklayer.measure`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn link_measure<'py>(
    py: Python<'py>,
    layer: &Bound<'py, PyDict>,
    loss: Option<PyRef<'py, PyLossModel>>,
    mode: &str,
    frames: u64,
    frame_bytes: u32,
    seed: u64,
    quantiles: Vec<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let cfg = link_layer_config(layer)?;
    let mode = match mode {
        "packet" => LossMode::Packet,
        "time" => LossMode::Time,
        other => return Err(to_py(Error::param("mode", other, "packet or time"))),
    };
    if let Some(q) = quantiles.iter().find(|q| !(0.0..=1.0).contains(*q)) {
        return Err(to_py(Error::param("quantiles", q, "probabilities in [0, 1]")));
    }
    let model = loss.map(|m| m.fresh());
    let (r, interrupt) = py.allow_threads(move || {
        let mut interrupt: Option<PyErr> = None;
        let r = measure_with(&cfg, model.as_deref(), mode, frames, frame_bytes, seed, || {
            Python::with_gil(|py| py.check_signals()).map_err(|e| interrupt = Some(e)).is_ok()
        });
        (r, interrupt)
    });
    if let Some(e) = interrupt {
        return Err(e);
    }
    let m = r.py()?;
    let d = stats_dict(py, &m.stats, &quantiles)?;
    d.set_item("duration", time::to_secs_f64(m.duration))?;
    d.set_item("frames_per_second", m.frames_per_second())?;
    d.set_item("throughput_bps", m.throughput_bps())?;
    d.set_item("loss_estimate", m.loss_estimate)?;
    Ok(d)
}

/// A link layer's statistics as a dict (`burstlab.linklayer.measure`, and the links of a
/// network's results): counters, attempts per frame, the attempt-time and latency
/// distributions (`quantiles`), and the FEC counters as (fragments, bytes).
pub fn stats_dict<'py>(py: Python<'py>, st: &LinkStats, quantiles: &[f64]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("frames", st.frames)?;
    d.set_item("delivered", st.delivered)?;
    d.set_item("dropped", st.dropped)?;
    d.set_item("attempts", st.attempts)?;
    d.set_item("failed_attempts", st.failed_attempts)?;
    d.set_item("units_sent", st.units_sent)?;
    d.set_item("units_lost", st.units_lost)?;
    d.set_item("attempts_per_frame", st.attempts_per_frame.clone().into_pyarray(py))?;
    d.set_item("attempt_time", distribution(py, &st.attempt_time, quantiles)?)?;
    d.set_item("latency", distribution(py, &st.latency, quantiles)?)?;
    let fec = PyDict::new(py);
    let f = st.fec;
    for (name, c) in [
        ("data_sent", f.data_sent),
        ("pfec_sent", f.pfec_sent),
        ("rfec_sent", f.rfec_sent),
        ("pfec_wasted", f.pfec_wasted),
        ("rfec_wasted", f.rfec_wasted),
    ] {
        let Count { fragments, bytes } = c;
        fec.set_item(name, (fragments, bytes))?;
    }
    d.set_item("fec", fec)?;
    // a rate-adaptive hop's attempts per rate (empty at a fixed rate)
    let rates = st
        .rates
        .iter()
        .map(|r| {
            let x = PyDict::new(py);
            x.set_item("mode", r.mode)?;
            x.set_item("rate_bps", r.rate_bps)?;
            x.set_item("attempts", r.attempts)?;
            x.set_item("successes", r.successes)?;
            x.set_item("share", if st.attempts > 0 { r.attempts as f64 / st.attempts as f64 } else { 0.0 })?;
            Ok(x)
        })
        .collect::<PyResult<Vec<_>>>()?;
    d.set_item("rates", rates)?;
    Ok(d)
}

/// 802.11 DCF timing of one attempt carrying `packet_bytes` (`burstlab.linklayer.wifi_timing`):
/// the parts in seconds and the saturated capacity in bits/s.
#[pyfunction]
fn wifi_timing<'py>(py: Python<'py>, dcf: &Bound<'py, PyDict>, packet_bytes: u32) -> PyResult<Bound<'py, PyDict>> {
    let c = dcf_from_dict(dcf)?;
    if packet_bytes == 0 {
        return Err(to_py(Error::param("packet_bytes", 0, "a positive packet size in bytes")));
    }
    let d = PyDict::new(py);
    let s = time::to_secs_f64;
    d.set_item("difs", s(c.difs))?;
    d.set_item("mean_backoff", c.mean_backoff() / 1e9)?;
    d.set_item("data", s(c.data_time(packet_bytes)))?;
    d.set_item("sifs", s(c.sifs))?;
    d.set_item("ack", s(c.ack_time()))?;
    d.set_item("attempt", s(c.attempt_time(packet_bytes)))?;
    d.set_item("capacity_bps", c.capacity_bps(packet_bytes))?;
    Ok(d)
}

/// Check a link layer's settings (`burstlab.linklayer.Arq`/`Harq` config dict): an error
/// names the bad parameter.
#[pyfunction]
fn check_link_layer(layer: &Bound<'_, PyDict>) -> PyResult<()> {
    link_layer_config(layer).map(|_| ())
}

/// The descriptor table of an ARQ hop's rate adaptation (`RateAdaptParams::PARAMS`), as
/// `red_params`: `burstlab.linklayer.RATE_PARAMS`, the `arq:` spec keys, `docs/parameters.md`.
#[pyfunction]
fn rate_adapt_params<'py>(py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let r = RateAdaptParams::default();
    RateAdaptParams::PARAMS.iter().map(|p| crate::convert::spec_dict(py, p, r.get(p.name))).collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rate_adapt_params, m)?)?;
    m.add_function(wrap_pyfunction!(check_link_layer, m)?)?;
    m.add_function(wrap_pyfunction!(link_measure, m)?)?;
    m.add_function(wrap_pyfunction!(wifi_timing, m)?)?;
    Ok(())
}

/// A link's `link_layer` entry (a `burstlab.linklayer.Arq`/`Harq` config dict), if any.
pub(crate) fn layer_of(d: &Bound<'_, PyDict>) -> PyResult<Option<burstlab_core::link::LinkLayerConfig>> {
    match d.get_item("link_layer")? {
        Some(v) if !v.is_none() => Ok(Some(link_layer_config(v.downcast::<PyDict>()?)?)),
        _ => Ok(None),
    }
}
