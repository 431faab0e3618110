//! Networks for Python: `simulate_network(config, losses, capacities)`. `config` is the
//! plain dict `burstlab.sim.Network` builds (servers, links, flows; seconds and bits/s);
//! `losses` holds each link's loss model (or None), `capacities` each server's delivery
//! opportunities in nanoseconds (or None for a fixed rate). The result is a dict: per flow
//! (the single-run result plus name, kind and spurious timeouts), per link, aggregate, and
//! the per-packet log as numpy arrays when asked for.
use crate::errors::IntoPyResult;
use crate::linklayer::layer_of;
use crate::loss::PyLossModel;
use crate::convert::{count, dict_of, get, queue_disc, req, secs, seed, tcp_config};
use crate::sim::result_dict;
use burstlab_core::link::{BufferUnit, LossMode, LossWindow, Opportunities, Timing};
use burstlab_core::loss::Sojourn;
use burstlab_core::results::{FlowKindTag, NetworkResult};
use burstlab_core::sim::{FlowSpec, LinkLoss, LinkSpec, LogEvent, LogKind, LogRec, Network, OnOff};
use burstlab_core::time::to_secs_f64;
use burstlab_core::Error;
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

fn err(e: Error) -> PyErr {
    crate::errors::to_py(e)
}

fn dicts<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Vec<Bound<'py, PyDict>>> {
    match d.get_item(key)? {
        None => Ok(vec![]),
        Some(v) if v.is_none() => Ok(vec![]),
        Some(v) => v.downcast::<PyList>()?.iter().map(|x| Ok(x.downcast_into::<PyDict>()?)).collect(),
    }
}

fn indices(name: &str, d: &Bound<'_, PyDict>, key: &str) -> PyResult<Vec<usize>> {
    let v: Vec<i64> = req(d, key, vec![])?;
    v.into_iter().map(|x| count(name, x).map(|u| u as usize)).collect()
}

fn choice<T>(name: &str, value: &str, options: &[(&str, T)]) -> PyResult<T>
where
    T: Copy,
{
    options.iter().find(|(k, _)| *k == value).map(|(_, v)| *v).ok_or_else(|| {
        let names: Vec<&str> = options.iter().map(|(k, _)| *k).collect();
        err(Error::param(name, value, &format!("one of {}", names.join(", "))))
    })
}

/// A duration law from {"dist": "exponential"|"constant"|"pareto", "mean": s, "shape": a}.
fn sojourn(name: &str, d: &Bound<'_, PyDict>) -> PyResult<Sojourn> {
    let dist: String = req(d, "dist", "exponential".to_string())?;
    let mean: f64 = req(d, "mean", f64::NAN)?;
    // An ON/OFF period of nanoseconds switches the flow 10^9 times per simulated second.
    if mean.is_finite() && mean > 0.0 && !(1e-6..1e9).contains(&mean) {
        return Err(err(Error::param(name, mean, "a mean period from 1 µs to 10^9 s (shorter ones switch the flow 10^9 times per simulated second)")));
    }
    match dist.as_str() {
        "exponential" => Sojourn::exponential(mean),
        "constant" => Sojourn::deterministic(mean),
        "pareto" => {
            let shape: f64 = req(d, "shape", 1.5)?;
            if !(shape.is_finite() && shape > 1.0) {
                return Err(err(Error::param(&format!("{name}.shape"), shape, "a Pareto shape > 1 (a finite mean)")));
            }
            Sojourn::pareto(mean * (shape - 1.0) / shape, shape)
        }
        _ => return Err(err(Error::param(&format!("{name}.dist"), dist, "exponential, constant or pareto"))),
    }
    .map_err(|e| match e {
        Error::InvalidParameter { value, expected, .. } => err(Error::InvalidParameter { name: name.to_string(), value, expected }),
        e => err(e),
    })
}

fn network(
    config: &Bound<'_, PyDict>,
    losses: Vec<Option<PyRef<'_, PyLossModel>>>,
    capacities: Vec<Option<PyReadonlyArray1<'_, u64>>>,
) -> PyResult<Network> {
    let duration = secs("duration", req(config, "duration", 100.0)?)?;
    let mut net = Network::new(duration);
    net.warmup = secs("warmup", req(config, "warmup", 0.0)?)?;
    net.seed = seed(config)?;
    net.series = req(config, "series", false)?;
    net.log = req(config, "log", false)?;
    let servers = dicts(config, "servers")?;
    if capacities.len() != servers.len() {
        return Err(err(Error::param("capacities", capacities.len(), &format!("one entry per server ({})", servers.len()))));
    }
    for (k, (s, cap)) in servers.iter().zip(capacities).enumerate() {
        let name = format!("servers[{k}]");
        let t = match cap {
            Some(a) => {
                let bytes = count(&format!("{name}.opportunity_bytes"), req(s, "opportunity_bytes", 1500)?)?;
                let bytes = u32::try_from(bytes).map_err(|_| err(Error::param("opportunity_bytes", bytes, "at most 2^32 - 1")))?;
                Timing::Opportunities(Opportunities::new(a.as_slice()?.to_vec(), bytes).py()?)
            }
            None if req(s, "link_layer", false)? => Timing::LinkLayer,
            None => {
                let rate: f64 = req(s, "rate", 10e6)?;
                if !(rate.is_finite() && (1.0..1.0e15).contains(&rate)) {
                    return Err(err(Error::param(&format!("{name}.rate"), crate::errors::num(rate), "a rate from 1 bit/s to 10^15 bit/s")));
                }
                Timing::Rate { rate_bps: rate.round() as u64 }
            }
        };
        net.server(t);
    }
    let links = dicts(config, "links")?;
    if losses.len() != links.len() {
        return Err(err(Error::param("losses", losses.len(), &format!("one entry per link ({})", links.len()))));
    }
    for (l, loss) in links.iter().zip(losses) {
        let name: String = req(l, "name", String::new())?;
        let server = count(&format!("link {name}.server"), req(l, "server", 0)?)? as usize;
        let mut spec = LinkSpec::new(
            &name,
            server,
            secs(&format!("{name}.delay"), req(l, "delay", 0.0)?)?,
            count(&format!("{name}.buffer"), req(l, "buffer", 100)?)?,
        );
        let unit: String = req(l, "buffer_unit", "packets".to_string())?;
        spec.buffer_unit =
            choice(&format!("{name}.buffer_unit"), &unit, &[("packets", BufferUnit::Packets), ("bytes", BufferUnit::Bytes)])?;
        let window: String = req(l, "loss_window", "serialisation".to_string())?;
        spec.loss_window = choice(
            &format!("{name}.loss_window"),
            &window,
            &[("serialisation", LossWindow::Serialisation), ("transit", LossWindow::Transit)],
        )?;
        spec.queue = queue_disc(&name, l)?;
        let mode: String = req(l, "loss_mode", "packet".to_string())?;
        let mode = choice(&format!("{name}.loss_mode"), &mode, &[("packet", LossMode::Packet), ("time", LossMode::Time)])?;
        let shared: Option<i64> = get(l, "loss_shared_with")?;
        spec.loss = match (shared, loss) {
            (Some(j), _) => LinkLoss::Shared(count(&format!("{name}.loss_shared_with"), j)? as usize),
            (None, Some(m)) => LinkLoss::Own(m.fresh(), mode),
            (None, None) => LinkLoss::None,
        };
        spec.layer = layer_of(l)?;
        net.link(spec);
    }
    for f in dicts(config, "flows")? {
        let name: String = req(&f, "name", String::new())?;
        let forward = indices(&format!("flow {name}.path"), &f, "forward")?;
        let reverse = indices(&format!("flow {name}.reverse_path"), &f, "reverse")?;
        let kind: String = req(&f, "kind", "tcp".to_string())?;
        let mut spec = match kind.as_str() {
            "tcp" => {
                let d = match f.get_item("tcp")? {
                    Some(v) if !v.is_none() => v.downcast_into::<PyDict>()?,
                    _ => PyDict::new(f.py()),
                };
                FlowSpec::tcp(&name, tcp_config(&d)?, forward, reverse)
            }
            "cbr" => {
                let rate: f64 = req(&f, "rate", f64::NAN)?;
                if !(rate.is_finite() && (1.0..1.0e15).contains(&rate)) {
                    return Err(err(Error::param(&format!("flow {name}.rate"), crate::errors::num(rate), "a rate from 1 bit/s to 10^15 bit/s")));
                }
                let bytes = count(&format!("flow {name}.packet_bytes"), req(&f, "packet_bytes", 1000)?)?;
                let bytes = u32::try_from(bytes).map_err(|_| err(Error::param("packet_bytes", bytes, "at most 2^32 - 1")))?;
                FlowSpec::cbr(&name, rate.round() as u64, bytes, forward)
            }
            _ => return Err(err(Error::param(&format!("flow {name}.kind"), kind, "tcp or cbr"))),
        };
        spec.size = get::<i64>(&f, "size")?.map(|x| count(&format!("flow {name}.size"), x)).transpose()?;
        spec.start = secs(&format!("flow {name}.start"), req(&f, "start", 0.0)?)?;
        spec.stop = get::<f64>(&f, "stop")?.map(|s| secs(&format!("flow {name}.stop"), s)).transpose()?;
        if let Some(oo) = f.get_item("on_off")?.filter(|v| !v.is_none()) {
            let oo = oo.downcast_into::<PyDict>()?;
            let on = dict_of(f.py(), &oo, "on")?;
            let off = dict_of(f.py(), &oo, "off")?;
            spec.on_off = Some(OnOff { on: sojourn(&format!("flow {name}.on"), &on)?, off: sojourn(&format!("flow {name}.off"), &off)? });
        }
        net.flow(spec);
    }
    Ok(net)
}

/// Quantiles reported for a link layer's attempt time and latency in network results.
const LAYER_QUANTILES: [f64; 4] = [0.5, 0.9, 0.99, 0.999];

fn log_arrays<'py>(py: Python<'py>, log: Vec<LogRec>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let ev = |e: LogEvent| match e {
        LogEvent::Sent => 0u8,
        LogEvent::Dropped => 1,
        LogEvent::Lost => 2,
        LogEvent::Arrived => 3,
        LogEvent::Delivered => 4,
    };
    let kind = |k: LogKind| match k {
        LogKind::Data => 0u8,
        LogKind::Ack => 1,
        LogKind::Datagram => 2,
    };
    d.set_item("time", log.iter().map(|r| to_secs_f64(r.t)).collect::<Vec<f64>>().into_pyarray(py))?;
    d.set_item("event", log.iter().map(|r| ev(r.event)).collect::<Vec<u8>>().into_pyarray(py))?;
    d.set_item("kind", log.iter().map(|r| kind(r.kind)).collect::<Vec<u8>>().into_pyarray(py))?;
    d.set_item("flow", log.iter().map(|r| r.flow).collect::<Vec<u32>>().into_pyarray(py))?;
    d.set_item(
        "link",
        log.iter().map(|r| if r.link == u32::MAX { -1 } else { r.link as i64 }).collect::<Vec<i64>>().into_pyarray(py),
    )?;
    d.set_item("seg", log.iter().map(|r| r.seg).collect::<Vec<u64>>().into_pyarray(py))?;
    d.set_item("to", log.iter().map(|r| r.to).collect::<Vec<u64>>().into_pyarray(py))?;
    d.set_item("retx", log.iter().map(|r| r.retx).collect::<Vec<bool>>().into_pyarray(py))?;
    d.set_item("sent_time", log.iter().map(|r| to_secs_f64(r.t0)).collect::<Vec<f64>>().into_pyarray(py))?;
    Ok(d)
}

fn network_dict<'py>(py: Python<'py>, r: NetworkResult, log: Option<Vec<LogRec>>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let flows = PyList::empty(py);
    for f in r.flows {
        let x = result_dict(py, f.result)?;
        x.set_item("name", f.name)?;
        x.set_item("kind", if f.kind == FlowKindTag::Tcp { "tcp" } else { "cbr" })?;
        x.set_item("spurious_timeouts", f.spurious_timeouts)?;
        flows.append(x)?;
    }
    d.set_item("flows", flows)?;
    let links = PyList::empty(py);
    for l in r.links {
        let x = PyDict::new(py);
        let c = l.counters;
        x.set_item("name", l.name)?;
        x.set_item("offered", c.offered)?;
        x.set_item("sent", c.sent)?;
        x.set_item("bytes_sent", c.bytes_sent)?;
        x.set_item("queue_drops", c.queue_drops)?;
        x.set_item("channel_losses", c.channel_losses)?;
        x.set_item("delivered", c.delivered)?;
        x.set_item("early_drops", c.early_drops)?;
        x.set_item("ecn_marks", c.ecn_marks)?;
        x.set_item("utilisation", l.utilisation)?;
        x.set_item("capacity_bps", l.capacity_bps)?;
        let q = &l.queue_delay;
        let s = |v: Option<f64>| v.map(|ns| ns / 1e9);
        x.set_item("queue_delay_mean", s(q.mean()))?;
        x.set_item("queue_delay_p50", s(q.quantile(0.5)))?;
        x.set_item("queue_delay_p90", s(q.quantile(0.9)))?;
        x.set_item("queue_delay_p99", s(q.quantile(0.99)))?;
        x.set_item("queue_delay_max", s(q.max().map(|m| m as f64)))?;
        match &l.link_layer {
            Some(st) => x.set_item("link_layer", crate::linklayer::stats_dict(py, st, &LAYER_QUANTILES)?)?,
            None => x.set_item("link_layer", py.None())?,
        }
        links.append(x)?;
    }
    d.set_item("links", links)?;
    d.set_item("aggregate_goodput_bps", r.aggregate_goodput_bps)?;
    d.set_item("jain_index", r.jain_index)?;
    d.set_item("end_time", to_secs_f64(r.end_time))?;
    d.set_item("events", r.events)?;
    match log {
        Some(l) => d.set_item("log", log_arrays(py, l)?)?,
        None => d.set_item("log", py.None())?,
    }
    Ok(d)
}

/// Run a network. See the module documentation for the arguments.
#[pyfunction]
fn simulate_network<'py>(
    py: Python<'py>,
    config: &Bound<'py, PyDict>,
    losses: Vec<Option<PyRef<'py, PyLossModel>>>,
    capacities: Vec<Option<PyReadonlyArray1<'py, u64>>>,
) -> PyResult<Bound<'py, PyDict>> {
    let net = network(config, losses, capacities)?;
    let want_log = net.log;
    let (r, log) = crate::watch::run(py, config, net)?;
    network_dict(py, r, want_log.then_some(log))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate_network, m)?)?;
    Ok(())
}
