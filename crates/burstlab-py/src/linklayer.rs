//! The link layer for Python: `link_measure(layer, loss, mode, frames, frame_bytes, seed,
//! quantiles)` (a saturated link without TCP) and `wifi_timing(dcf, packet_bytes)` (802.11
//! DCF timing). `layer` is the flat dict `burstlab.linklayer` builds from its dataclasses
//! (seconds and bits/s, as at the Python surface); [`link_layer_config`] turns it into the
//! core's [`LinkLayerConfig`], for the simulator's links too.
use crate::errors::{to_py, IntoPyResult};
use crate::loss::PyLossModel;
use burstlab_core::link::adapt::{RateAdaptConfig, RateAdaptParams, RateControlKind};
use burstlab_core::link::arq::{ArqConfig, ArqParams};
use burstlab_core::link::attempt::AttemptParams;
use burstlab_core::link::harq::{HarqConfig, HarqParams};
use burstlab_core::param::{ParamSpec, Value};
use crate::convert::{param_value, spec_dict};
use burstlab_core::hist::Durations;
use burstlab_core::link::layer::{measure_with, AttemptTiming, Count};
use burstlab_core::link::wifi::{Dcf, DcfParams, DcfPhy};
use burstlab_core::link::{LinkLayerConfig, LinkStats, LossMode};
use burstlab_core::time::{self, Nanos};
use burstlab_core::Error;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn item<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(d.get_item(key)?.filter(|v| !v.is_none()))
}

/// The settings `T` from `d`: every key of its declared table (`T::PARAMS`) read by its kind
/// and set by name (range-checked), absent keys at the declared defaults.
fn declared<T: Default>(
    d: &Bound<'_, PyDict>,
    specs: &[ParamSpec],
    set: impl Fn(&mut T, &str, Value) -> burstlab_core::Result<()>,
) -> PyResult<T> {
    let mut out = T::default();
    // a timing dict's "backoff" is the Backoff's own dict (read below), not the spec's choice
    for p in specs.iter().filter(|p| p.name != "backoff") {
        if let Some(v) = param_value(d, p)? {
            set(&mut out, p.name, v).py()?;
        }
    }
    Ok(out)
}

/// 802.11 DCF parameters (the keys of `DcfParams::PARAMS`: rate, preamble, ack_rate, slot,
/// sifs, difs, the byte counts, cw_min, cw_max); absent keys take 802.11b's values.
pub fn dcf_from_dict(d: &Bound<'_, PyDict>) -> PyResult<Dcf> {
    declared(d, DcfParams::PARAMS, |p: &mut DcfParams, n, v| p.set(n, v))?.dcf().py()
}

/// {"dcf": {...}} or the attempt model's keys (`AttemptParams::PARAMS`: "attempt_time",
/// "attempt_time_max", "rate"), with "backoff": None | {"cw_min", "cw_max", "slot"}.
fn timing_from_dict(d: &Bound<'_, PyDict>) -> PyResult<AttemptTiming> {
    let own = declared(d, AttemptParams::PARAMS, |p: &mut AttemptParams, n, v| p.set(n, v))?;
    let mut t = match item(d, "dcf")? {
        Some(dcf) => {
            if own.is_timed() {
                return Err(to_py(Error::param("timing", "a Dcf with attempt_time or rate", "one of them")));
            }
            dcf_from_dict(dcf.downcast::<PyDict>()?)?.timing(false)
        }
        None if item(d, "attempt_time")?.is_none() => {
            return Err(to_py(Error::param("timing", "nothing", "a Dcf, seconds or a (min, max) pair")))
        }
        None => own.timing().py()?,
    };
    if let Some(b) = item(d, "backoff")? {
        let mut p: DcfParams = declared(b.downcast::<PyDict>()?, DcfParams::PARAMS, |p: &mut DcfParams, n, v| p.set(n, v))?;
        if t.symbol != 0 {
            p.phy = DcfPhy::Erp; // an ERP-OFDM hop's backoff starts at ERP's CWmin
        }
        t.backoff = Some(p.backoff().py()?);
    }
    t.validate().py()?;
    Ok(t)
}

/// The DCF a rate-adaptive ARQ hop derives its rates' timing from: its `timing`'s Dcf
/// (802.11b's by default); a fixed attempt time or rate has no rates to choose between.
fn adaptive_dcf(d: &Bound<'_, PyDict>, control: &str) -> PyResult<Dcf> {
    let Some(t) = item(d, "timing")? else { return Ok(Dcf::b11()) };
    let t = t.downcast::<PyDict>()?;
    if item(t, "attempt_time")?.is_some() || item(t, "rate")?.is_some_and(|r| r.extract::<f64>().map_or(true, |r| r != 0.0)) {
        return Err(to_py(Error::param("rate_control", control, "the 802.11 DCF timing (no attempt_time or rate): each rate has its own air time")));
    }
    match item(t, "dcf")? {
        Some(dcf) => dcf_from_dict(dcf.downcast::<PyDict>()?),
        None => Ok(Dcf::b11()),
    }
}

/// The link layer of `burstlab.linklayer.Arq` / `Harq` (their `_config()` dicts): the keys of
/// `ArqParams::PARAMS` and `RateAdaptParams::PARAMS`, or of `HarqParams::PARAMS`, each read
/// through its declaration.
pub fn link_layer_config(d: &Bound<'_, PyDict>) -> PyResult<LinkLayerConfig> {
    let kind: String = crate::convert::req(d, "kind", String::new())?;
    let timing = match item(d, "timing")? {
        Some(t) => timing_from_dict(t.downcast::<PyDict>()?)?,
        None => Dcf::b11().timing(false),
    };
    let cfg = match kind.as_str() {
        "arq" => {
            let own = declared(d, ArqParams::PARAMS, |p: &mut ArqParams, n, v| p.set(n, v))?;
            let params = declared(d, RateAdaptParams::PARAMS, |p: &mut RateAdaptParams, n, v| p.set(n, v))?;
            if params.control == RateControlKind::Fixed {
                LinkLayerConfig::Arq(ArqConfig::from_params(&own, timing))
            } else {
                let dcf = adaptive_dcf(d, burstlab_core::param::Named::name(&params.control))?;
                let mut cfg = ArqConfig::adaptive(own.retry_limit, own.counts, RateAdaptConfig::with(params, &dcf).py()?, false);
                cfg.timing.backoff = timing.backoff; // the hop's backoff, at every rate
                LinkLayerConfig::Arq(cfg)
            }
        }
        "harq" => {
            let own = declared(d, HarqParams::PARAMS, |p: &mut HarqParams, n, v| p.set(n, v))?;
            LinkLayerConfig::Harq(HarqConfig::from_params(&own, timing))
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
    RateAdaptParams::PARAMS.iter().map(|p| spec_dict(py, p, r.get(p.name))).collect()
}

/// The link layer's descriptor tables, as `red_params`: {"arq": `ArqParams::PARAMS`, "harq":
/// `HarqParams::PARAMS`, "attempt": `AttemptParams::PARAMS`, "dcf": `DcfParams::PARAMS`}
/// (Python's `Arq`, `Harq`, `Dcf` and `Backoff` fields, the spec and TOML keys, the docs).
#[pyfunction]
fn link_layer_params(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let (a, h, t, w) = (ArqParams::default(), HarqParams::default(), AttemptParams::default(), DcfParams::default());
    d.set_item("arq", ArqParams::PARAMS.iter().map(|p| spec_dict(py, p, a.get(p.name))).collect::<PyResult<Vec<_>>>()?)?;
    d.set_item("harq", HarqParams::PARAMS.iter().map(|p| spec_dict(py, p, h.get(p.name))).collect::<PyResult<Vec<_>>>()?)?;
    d.set_item("attempt", AttemptParams::PARAMS.iter().map(|p| spec_dict(py, p, t.get(p.name))).collect::<PyResult<Vec<_>>>()?)?;
    d.set_item("dcf", DcfParams::PARAMS.iter().map(|p| spec_dict(py, p, w.get(p.name))).collect::<PyResult<Vec<_>>>()?)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rate_adapt_params, m)?)?;
    m.add_function(wrap_pyfunction!(link_layer_params, m)?)?;
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
