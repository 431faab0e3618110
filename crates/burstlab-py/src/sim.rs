//! The simulator for Python: `simulate(config, forward_loss, reverse_loss)` and
//! `simulate_trace(trace, config)`. `config` is the flat dict that
//! `burstlab.sim` builds from its dataclasses (seconds and bits/s, as at the Python
//! surface); the result is a dict of numbers plus numpy arrays for the series.
use crate::convert::{count, dict_of, get, param_value, py_value, queue_disc, req, secs, seed, spec_dict, tcp_config};
use crate::errors::IntoPyResult;
use crate::linklayer::layer_of;
use crate::loss::PyLossModel;
use crate::trace::PyBitTrace;
use burstlab_core::link::{BufferUnit, CodelParams, FqParams, LossMode, RedParams};
use burstlab_core::results::SimResult;
use burstlab_core::sim::{AckLoss, AckPath, LinkConfig, Scenario, SenderQueue, TcpConfig, Variant, Workload};
use burstlab_core::param::Value;
use burstlab_core::tcp::profiles;
use burstlab_core::Error;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The descriptor table `TcpConfig::PARAMS` for Python: one dict per parameter (name,
/// component, kind, unit, default, choices, bounds, help, reference), in declaration order.
#[pyfunction]
fn tcp_params<'py>(py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let dft = TcpConfig::default();
    TcpConfig::PARAMS.iter().map(|p| spec_dict(py, p, dft.get(p.name))).collect()
}

/// The profile `name` (`rfc`, `ns3`, `linux`, `tossim`) with `overrides` (parameter names, or
/// `variant` for the `--tcp` pair), resolved by the core: every parameter's value.
#[pyfunction]
fn tcp_profile<'py>(py: Python<'py>, name: &str, overrides: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyDict>> {
    let variant = get::<String>(overrides, "variant")?.map(|v| Variant::parse(&v)).transpose().py()?;
    let mut given: Vec<(String, Value)> = Vec::new();
    for (k, _) in overrides.iter() {
        let k: String = k.extract()?;
        if k == "variant" {
            continue;
        }
        let v = match TcpConfig::PARAMS.iter().find(|p| p.name == k) {
            Some(p) => param_value(overrides, p)?,
            None => Some(Value::Text(overrides.get_item(&k)?.map(|v| v.to_string()).unwrap_or_default())),
        };
        if let Some(v) = v {
            given.push((k, v));
        }
    }
    let given: Vec<(&str, Value)> = given.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let t = profiles::resolve(name, variant, &given).py()?;
    tcp_dict(py, &t)
}

/// The profiles as data: name -> {doc, fixed: {parameter: value}, computed: {parameter: rule},
/// cc_alias: {from: to}}.
#[pyfunction]
fn tcp_profiles<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for p in profiles::PROFILES {
        let d = PyDict::new(py);
        d.set_item("doc", p.doc)?;
        let fixed = PyDict::new(py);
        for (k, v) in p.fixed {
            fixed.set_item(k, py_value(py, v.value())?)?;
        }
        d.set_item("fixed", fixed)?;
        let computed = PyDict::new(py);
        for c in p.computed {
            computed.set_item(c.name, c.rule)?;
        }
        d.set_item("computed", computed)?;
        let alias = PyDict::new(py);
        for (a, b) in p.cc_alias {
            alias.set_item(a.name(), b.name())?;
        }
        d.set_item("cc_alias", alias)?;
        out.set_item(p.name, d)?;
    }
    Ok(out)
}

/// The descriptor table `RedParams::PARAMS` (as [`tcp_params`]).
#[pyfunction]
fn red_params<'py>(py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let dft = RedParams::default();
    RedParams::PARAMS.iter().map(|p| spec_dict(py, p, dft.get(p.name))).collect()
}

/// The descriptor tables of CoDel (`CodelParams::PARAMS`) and FQ-CoDel's scheduler
/// (`FqParams::PARAMS`), as [`red_params`].
#[pyfunction]
fn codel_params<'py>(py: Python<'py>) -> PyResult<(Vec<Bound<'py, PyDict>>, Vec<Bound<'py, PyDict>>)> {
    let (c, f) = (CodelParams::default(), FqParams::default());
    let codel = CodelParams::PARAMS.iter().map(|p| spec_dict(py, p, c.get(p.name))).collect::<PyResult<_>>()?;
    let fq = FqParams::PARAMS.iter().map(|p| spec_dict(py, p, f.get(p.name))).collect::<PyResult<_>>()?;
    Ok((codel, fq))
}

/// Every parameter of `t` as Python values (seconds, names), the inverse of [`tcp_config`].
fn tcp_dict<'py>(py: Python<'py>, t: &TcpConfig) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for p in TcpConfig::PARAMS {
        if let Some(v) = t.get(p.name) {
            d.set_item(p.name, py_value(py, v)?)?;
        }
    }
    Ok(d)
}

/// The TCP settings the simulator runs for `config` (a `burstlab.sim.TcpConfig` dict;
/// `{}` gives the Rust defaults), validated, every field present.
#[pyfunction]
fn tcp_settings<'py>(py: Python<'py>, config: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyDict>> {
    let t = tcp_config(config)?;
    t.validate().py()?;
    let d = tcp_dict(py, &t)?;
    let rule = t.resolved_ssthresh_rule();
    d.set_item("ssthresh_rule_resolved", rule.name())?;
    d.set_item("ecn_resolved", t.ecn_on())?;
    Ok(d)
}

fn link_config(prefix: &str, d: &Bound<'_, PyDict>, loss: Option<&PyLossModel>) -> PyResult<LinkConfig> {
    let rate: f64 = req(d, "rate", 10e6)?;
    if !(rate.is_finite() && rate >= 1.0) {
        return Err(crate::errors::to_py(Error::param(&format!("{prefix}.rate"), crate::errors::num(rate), "a rate of at least 1 bit/s")));
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
    l.queue = queue_disc(prefix, d)?;
    l.layer = layer_of(d)?;
    Ok(l)
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
    d.set_item("ecn_reductions", c.ecn_reductions)?;
    d.set_item("lost_retransmissions", c.lost_retransmissions)?;
    d.set_item("loss_probes", c.loss_probes)?;
    d.set_item("pfec_sent", c.pfec_sent)?;
    d.set_item("rfec_sent", c.rfec_sent)?;
    d.set_item("fec_decodes", c.fec_decodes)?;
    d.set_item("fec_wasted", c.fec_wasted)?;
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
        s.set_item("state", x.state.into_pyarray(py))?;
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
    sc.seed = seed(config)?;
    sc.series = req(config, "series", false)?;
    run_scenario(py, config, sc)
}

/// A single-link or slotted scenario through [`crate::watch::run`] (budget, Ctrl-C, progress).
fn run_scenario<'py>(py: Python<'py>, config: &Bound<'py, PyDict>, sc: Scenario) -> PyResult<Bound<'py, PyDict>> {
    sc.validate().py()?;
    let (mut r, _) = crate::watch::run(py, config, sc.into_network())?;
    result_dict(py, r.flows.swap_remove(0).result)
}

/// Slotted trace-driven run (Srinivasan et al. §3.1). `config` keys: `tcp` (dict), `slot`
/// (seconds), `ack_path` ("lossless" | "trace"), `sender_queue` ("fifo" | "radio"), `seed`, `series`.
#[pyfunction]
fn simulate_trace<'py>(
    py: Python<'py>,
    trace: PyRef<'py, PyBitTrace>,
    config: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyDict>> {
    let tcp = tcp_config(&dict_of(py, config, "tcp")?)?;
    let slot = secs("slot", req(config, "slot", 0.01)?)?;
    // The run lasts len(trace) × slot: bounded like every time (`secs`), before the trace is copied.
    burstlab_core::time::check_slotted_run(trace.inner.len(), slot).py()?;
    let ack_path: String = req(config, "ack_path", "lossless".to_string())?;
    let seed = seed(config)?;
    let queue: String = req(config, "sender_queue", "fifo".to_string())?;
    let queue = SenderQueue::parse(&queue).py()?;
    let mut sc = Scenario::slotted(tcp, trace.inner.clone(), slot, AckPath::parse(&ack_path).py()?, seed).with_sender_queue(queue);
    sc.series = req(config, "series", false)?;
    run_scenario(py, config, sc)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_trace, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_settings, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_params, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_profile, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_profiles, m)?)?;
    m.add_function(wrap_pyfunction!(red_params, m)?)?;
    m.add_function(wrap_pyfunction!(codel_params, m)?)?;
    Ok(())
}
