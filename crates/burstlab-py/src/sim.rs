//! The simulator for Python: `simulate(config, forward_loss, reverse_loss)` and
//! `simulate_trace(trace, config)`. `config` is the flat dict that
//! `burstlab.sim` builds from its dataclasses (seconds and bits/s, as at the Python
//! surface); the result is a dict of numbers plus numpy arrays for the series.
use crate::errors::IntoPyResult;
use crate::loss::PyLossModel;
use crate::trace::PyBitTrace;
use burstlab_core::link::{BufferUnit, LossMode};
use burstlab_core::results::SimResult;
use burstlab_core::sim::{self, AckLoss, AckPath, LinkConfig, Scenario, TcpConfig, Variant, Workload};
use burstlab_core::tcp::rtt::RtoEstimator;
use burstlab_core::tcp::SsthreshRule;
use burstlab_core::time::Nanos;
use burstlab_core::Error;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;

pub(crate) fn get<'py, T: FromPyObject<'py>>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<T>> {
    match d.get_item(key)? {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v.extract::<T>().map(Some).map_err(|_| {
            crate::errors::to_py(Error::param(key, v.repr().map(|r| r.to_string()).unwrap_or_default(), "a number"))
        }),
    }
}

pub(crate) fn req<'py, T: FromPyObject<'py>>(d: &Bound<'py, PyDict>, key: &str, default: T) -> PyResult<T> {
    Ok(get(d, key)?.unwrap_or(default))
}

/// Seconds → ns, rejecting negatives and non-finite values with the parameter's name.
pub(crate) fn secs(name: &str, s: f64) -> PyResult<Nanos> {
    if (0.0..1.0e9).contains(&s) {
        Ok(burstlab_core::time::from_secs_f64(s))
    } else {
        Err(crate::errors::to_py(Error::param(name, s, "a non-negative, finite number of seconds")))
    }
}

pub(crate) fn count(name: &str, x: i64) -> PyResult<u64> {
    u64::try_from(x).map_err(|_| crate::errors::to_py(Error::param(name, x, "a non-negative integer")))
}

pub(crate) fn tcp_config(d: &Bound<'_, PyDict>) -> PyResult<TcpConfig> {
    let dft = TcpConfig::default();
    let variant: String = req(d, "variant", "newreno".to_string())?;
    let reset: String = req(d, "rto_backoff_reset", "sample".to_string())?;
    let rto_backoff_reset = match reset.as_str() {
        "sample" => burstlab_core::tcp::rtt::BackoffReset::Sample,
        "new_ack" => burstlab_core::tcp::rtt::BackoffReset::NewAck,
        _ => return Err(crate::errors::to_py(Error::param("rto_backoff_reset", reset, "sample or new_ack"))),
    };
    // The `tossim` profile's timer and receiver (Srinivasan et al. §3.1; docs/study.md).
    let est: String = req(d, "rto_estimator", "rfc6298".to_string())?;
    let rto_estimator = match est.as_str() {
        "rfc6298" => RtoEstimator::Rfc6298,
        "rfc793" => RtoEstimator::Rfc793 { alpha: req(d, "rto_alpha", 0.875)?, beta: req(d, "rto_beta", 2.0)? },
        _ => return Err(crate::errors::to_py(Error::param("rto_estimator", est, "rfc6298 or rfc793"))),
    };
    let pat: String = req(d, "partial_ack_timer", "first".to_string())?;
    let restart_timer_every_partial_ack = match pat.as_str() {
        "first" => false,
        "every" => true,
        _ => return Err(crate::errors::to_py(Error::param("partial_ack_timer", pat, "first or every"))),
    };
    let rule: String = req(d, "ssthresh_rule", "flightsize".to_string())?;
    let ssthresh_rule = match rule.as_str() {
        "flightsize" => SsthreshRule::FlightSize,
        "pipe" => SsthreshRule::Pipe,
        "flightsize_minus_lost" => SsthreshRule::FlightSizeMinusLost,
        _ => return Err(crate::errors::to_py(Error::param("ssthresh_rule", rule, "flightsize, pipe or flightsize_minus_lost"))),
    };
    Ok(TcpConfig {
        variant: Variant::parse(&variant).py()?,
        mss: count("mss", req(d, "mss", dft.mss as i64)?)?,
        header_bytes: count("header_bytes", req(d, "header_bytes", dft.header_bytes as i64)?)?,
        ack_bytes: count("ack_bytes", req(d, "ack_bytes", dft.ack_bytes as i64)?)?,
        init_cwnd: count("init_cwnd", req(d, "init_cwnd", dft.init_cwnd as i64)?)?,
        max_cwnd: get::<i64>(d, "max_cwnd")?.map(|x| count("max_cwnd", x)).transpose()?,
        rwnd: get::<i64>(d, "rwnd")?.map(|x| count("rwnd", x)).transpose()?,
        delayed_ack: req(d, "delayed_ack", dft.delayed_ack)?,
        ack_every: count("ack_every", req(d, "ack_every", dft.ack_every as i64)?)?.min(u32::MAX as u64) as u32,
        ack_timeout: secs("ack_timeout", req(d, "ack_timeout", 0.2)?)?,
        rto_min: secs("rto_min", req(d, "rto_min", 1.0)?)?,
        rto_max: secs("rto_max", req(d, "rto_max", 60.0)?)?,
        rto_initial: secs("rto_initial", req(d, "rto_initial", 1.0)?)?,
        clock_granularity: secs("clock_granularity", req(d, "clock_granularity", 0.0)?)?,
        dupack_threshold: count("dupack_threshold", req(d, "dupack_threshold", 3)?)?.min(u32::MAX as u64) as u32,
        limited_transmit: req(d, "limited_transmit", false)?,
        ssthresh_rule,
        grow_on_loss_exit: req(d, "grow_on_loss_exit", true)?,
        rto_backoff_reset,
        rto_estimator,
        rto_backoff: req(d, "rto_backoff", true)?,
        ack_on_idle: req(d, "ack_on_idle", false)?,
        fast_retransmit_after_timeout: req(d, "fast_retransmit_after_timeout", false)?,
        restart_timer_every_partial_ack,
    })
}

fn link_config(prefix: &str, d: &Bound<'_, PyDict>, loss: Option<&PyLossModel>) -> PyResult<LinkConfig> {
    let rate: f64 = req(d, "rate", 10e6)?;
    if !(rate.is_finite() && rate >= 1.0) {
        return Err(crate::errors::to_py(Error::param(&format!("{prefix}.rate"), rate, "a rate of at least 1 bit/s")));
    }
    let unit: String = req(d, "buffer_unit", "packets".to_string())?;
    let unit = match unit.as_str() {
        "packets" => BufferUnit::Packets,
        "bytes" => BufferUnit::Bytes,
        _ => return Err(crate::errors::to_py(Error::param(&format!("{prefix}.buffer_unit"), unit, "packets or bytes"))),
    };
    let mode: String = req(d, "loss_mode", "packet".to_string())?;
    let mode = match mode.as_str() {
        "packet" => LossMode::Packet,
        "time" => LossMode::Time,
        _ => return Err(crate::errors::to_py(Error::param(&format!("{prefix}.loss_mode"), mode, "packet or time"))),
    };
    let mut l = LinkConfig::new(
        rate.round() as u64,
        secs(&format!("{prefix}.delay"), req(d, "delay", 0.01)?)?,
        count(&format!("{prefix}.buffer"), req(d, "buffer", 100)?)?,
    )
    .with_unit(unit);
    l.loss_mode = mode;
    let window: String = req(d, "loss_window", "serialisation".to_string())?;
    l.loss_window = burstlab_core::link::LossWindow::parse(&window)
        .map_err(|_| crate::errors::to_py(Error::param(&format!("{prefix}.loss_window"), window, "serialisation or transit")))?;
    l.loss = loss.map(|m| m.fresh());
    Ok(l)
}

pub(crate) fn dict_of<'py>(py: Python<'py>, d: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyDict>> {
    match d.get_item(key)? {
        Some(v) if !v.is_none() => Ok(v.downcast_into::<PyDict>()?),
        _ => Ok(PyDict::new(py)),
    }
}

fn workload(d: &Bound<'_, PyDict>) -> PyResult<Workload> {
    let duration = get::<f64>(d, "duration")?.map(|s| secs("duration", s)).transpose()?;
    let size = get::<i64>(d, "size")?.map(|x| count("size", x)).transpose()?;
    let warmup = secs("warmup", req(d, "warmup", 0.0)?)?;
    Ok(Workload { duration, size, warmup })
}

pub(crate) fn result_dict<'py>(py: Python<'py>, r: SimResult) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let c = r.counters;
    d.set_item("goodput_bps", r.goodput_bps)?;
    d.set_item("goodput_pps", r.goodput_pps)?;
    d.set_item("throughput_bps", r.throughput_bps)?;
    d.set_item("duration", r.duration)?;
    d.set_item("packets_sent", c.packets_sent)?;
    d.set_item("packets_lost", c.packets_lost)?;
    d.set_item("channel_losses", c.channel_losses)?;
    d.set_item("queue_drops", c.queue_drops)?;
    d.set_item("retransmissions", c.retransmissions)?;
    d.set_item("spurious_retransmissions", c.spurious_retransmissions)?;
    d.set_item("fast_retransmits", c.fast_retransmits)?;
    d.set_item("timeouts", c.timeouts)?;
    d.set_item("acks_sent", c.acks_sent)?;
    d.set_item("acks_lost", c.acks_lost)?;
    d.set_item("delivered_bytes", c.delivered_bytes)?;
    d.set_item("delivered_segments", c.delivered_segments)?;
    d.set_item("completion_time", r.completion_time)?;
    d.set_item("end_time", burstlab_core::time::to_secs_f64(r.end_time))?;
    d.set_item("events", r.events)?;
    let s = PyDict::new(py);
    if let Some(x) = r.series {
        let f = |v: Vec<u64>| v.into_iter().map(|t| t as f64 / 1e9).collect::<Vec<f64>>();
        let b = |v: Vec<u64>| v.into_iter().map(|t| if t == u64::MAX { f64::INFINITY } else { t as f64 }).collect::<Vec<f64>>();
        s.set_item("time", f(x.time).into_pyarray(py))?;
        s.set_item("cwnd", b(x.cwnd).into_pyarray(py))?;
        s.set_item("ssthresh", b(x.ssthresh).into_pyarray(py))?;
        s.set_item("srtt", f(x.srtt).into_pyarray(py))?;
        s.set_item("rto", f(x.rto).into_pyarray(py))?;
        s.set_item("snd_una", x.snd_una.into_pyarray(py))?;
        s.set_item("snd_nxt", x.snd_nxt.into_pyarray(py))?;
    }
    d.set_item("series", s)?;
    Ok(d)
}

/// Run one scenario. `config` keys: `tcp` (dict), `forward` and `reverse` (dicts, or
/// None for the reverse), `ack_loss`, `workload` (dict), `seed`, `series`.
#[pyfunction]
#[pyo3(signature = (config, forward_loss=None, reverse_loss=None))]
fn simulate<'py>(
    py: Python<'py>,
    config: &Bound<'py, PyDict>,
    forward_loss: Option<PyRef<'py, PyLossModel>>,
    reverse_loss: Option<PyRef<'py, PyLossModel>>,
) -> PyResult<Bound<'py, PyDict>> {
    let tcp = tcp_config(&dict_of(py, config, "tcp")?)?;
    let forward = link_config("forward", &dict_of(py, config, "forward")?, forward_loss.as_deref())?;
    let reverse = match config.get_item("reverse")? {
        Some(v) if !v.is_none() => Some(link_config("reverse", v.downcast::<PyDict>()?, reverse_loss.as_deref())?),
        _ => None,
    };
    let ack_loss: String = req(config, "ack_loss", "none".to_string())?;
    let mut sc = Scenario::new(tcp, forward, workload(&dict_of(py, config, "workload")?)?);
    sc.reverse = reverse;
    sc.ack_loss = AckLoss::parse(&ack_loss).py()?;
    sc.seed = count("seed", req(config, "seed", 1)?)?;
    sc.series = req(config, "series", false)?;
    let r = py.allow_threads(move || sim::run(sc)).py()?;
    result_dict(py, r)
}

/// Slotted trace-driven run (Srinivasan et al. §3.1). `config` keys: `tcp` (dict), `slot`
/// (seconds), `ack_path` ("lossless" | "trace"), `seed`, `series`.
#[pyfunction]
fn simulate_trace<'py>(
    py: Python<'py>,
    trace: PyRef<'py, PyBitTrace>,
    config: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyDict>> {
    let tcp = tcp_config(&dict_of(py, config, "tcp")?)?;
    let slot = secs("slot", req(config, "slot", 0.01)?)?;
    let ack_path: String = req(config, "ack_path", "lossless".to_string())?;
    let seed = count("seed", req(config, "seed", 1)?)?;
    let mut sc = Scenario::slotted(tcp, trace.inner.clone(), slot, AckPath::parse(&ack_path).py()?, seed);
    sc.series = req(config, "series", false)?;
    let r = py.allow_threads(move || sim::run(sc)).py()?;
    result_dict(py, r)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_trace, m)?)?;
    Ok(())
}
