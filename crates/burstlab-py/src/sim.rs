//! The simulator for Python: `simulate(config, forward_loss, reverse_loss)` and
//! `simulate_trace(trace, config)`. `config` is the flat dict that
//! `burstlab.sim` builds from its dataclasses (seconds and bits/s, as at the Python
//! surface); the result is a dict of numbers plus numpy arrays for the series.
use crate::errors::IntoPyResult;
use crate::loss::PyLossModel;
use crate::trace::PyBitTrace;
use burstlab_core::link::{BufferUnit, LossMode, QueueDisc, RedParams};
use burstlab_core::results::SimResult;
use burstlab_core::sim::{self, AckLoss, AckPath, LinkConfig, Scenario, TcpConfig, Variant, Workload};
use burstlab_core::tcp::config::{CcKind, CcRtt, CubicVariant, DupackRule, Hystart, LinuxRenoVariant, PipeRule, PrrBound, PrrVariant, RecoveryKind, TibetEstimator, WestwoodVariant};
use burstlab_core::tcp::rtt::{BackoffReset, RtoEstimator};
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

/// Seconds → ns, rejecting negatives, non-finite values and times of 10^9 s or more (the
/// 64-bit nanosecond clock holds 1.8·10^10 s; the bound leaves room for sums of times) with
/// the parameter's name and what is wrong.
pub(crate) fn secs(name: &str, s: f64) -> PyResult<Nanos> {
    if (0.0..1.0e9).contains(&s) {
        Ok(burstlab_core::time::from_secs_f64(s))
    } else if s.is_finite() && s > 0.0 {
        Err(crate::errors::to_py(Error::param(name, s, "less than 10^9 s (31.7 years): the simulator counts time in 64-bit nanoseconds")))
    } else {
        Err(crate::errors::to_py(Error::param(name, s, "a non-negative, finite number of seconds")))
    }
}

/// The run's seed: any whole number from 0 to 2^64 − 1 (what the random streams take).
pub(crate) fn seed(config: &Bound<'_, PyDict>) -> PyResult<u64> {
    match config.get_item("seed")? {
        None => Ok(1),
        Some(v) if v.is_none() => Ok(1),
        Some(v) => v.extract::<u64>().map_err(|_| {
            crate::errors::to_py(Error::param("seed", v.repr().map(|r| r.to_string()).unwrap_or_default(), "a whole number from 0 to 2^64 − 1"))
        }),
    }
}

pub(crate) fn count(name: &str, x: i64) -> PyResult<u64> {
    u64::try_from(x).map_err(|_| crate::errors::to_py(Error::param(name, x, "a non-negative integer")))
}

/// A named choice: the string under `key` parsed by `parse`, or the default.
fn choice<T>(d: &Bound<'_, PyDict>, key: &str, default: T, parse: fn(&str) -> burstlab_core::Result<T>) -> PyResult<T> {
    match get::<String>(d, key)? {
        None => Ok(default),
        Some(s) => parse(&s).py(),
    }
}

fn flag(d: &Bound<'_, PyDict>, key: &str, default: bool) -> PyResult<bool> {
    req(d, key, default)
}

fn small(name: &str, x: i64) -> PyResult<u32> {
    let v = count(name, x)?;
    u32::try_from(v).map_err(|_| crate::errors::to_py(Error::param(name, x, "an integer below 2^32")))
}

fn real(d: &Bound<'_, PyDict>, key: &str, default: f64) -> PyResult<f64> {
    let v: f64 = req(d, key, default)?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(crate::errors::to_py(Error::param(key, v, "a finite number")))
    }
}

/// `TcpConfig` from the flat dict `burstlab.sim.TcpConfig` builds (missing keys: the Rust
/// defaults). `variant`, if present, sets the (cc, recovery) pair; `cc` and `recovery` win.
pub(crate) fn tcp_config(d: &Bound<'_, PyDict>) -> PyResult<TcpConfig> {
    let dft = match get::<String>(d, "variant")? {
        Some(v) => TcpConfig::variant(Variant::parse(&v).py()?),
        None => TcpConfig::default(),
    };
    let secs_or = |key: &str, default: Nanos| -> PyResult<Nanos> { secs(key, req(d, key, default as f64 * 1e-9)?) };
    let num = |key: &str, default: u64| -> PyResult<u64> { count(key, req(d, key, default as i64)?) };
    let num32 = |key: &str, default: u32| -> PyResult<u32> { small(key, req(d, key, default as i64)?) };
    Ok(TcpConfig {
        cc: choice(d, "cc", dft.cc, CcKind::parse)?,
        recovery: choice(d, "recovery", dft.recovery, RecoveryKind::parse)?,
        mss: num("mss", dft.mss)?,
        header_bytes: num("header_bytes", dft.header_bytes)?,
        ack_bytes: num("ack_bytes", dft.ack_bytes)?,
        init_cwnd: num("init_cwnd", dft.init_cwnd)?,
        max_cwnd: get::<i64>(d, "max_cwnd")?.map(|x| count("max_cwnd", x)).transpose()?,
        rwnd: get::<i64>(d, "rwnd")?.map(|x| count("rwnd", x)).transpose()?,
        delayed_ack: flag(d, "delayed_ack", dft.delayed_ack)?,
        ack_every: num32("ack_every", dft.ack_every)?,
        ack_timeout: secs_or("ack_timeout", dft.ack_timeout)?,
        rto_min: secs_or("rto_min", dft.rto_min)?,
        rto_max: secs_or("rto_max", dft.rto_max)?,
        rto_initial: secs_or("rto_initial", dft.rto_initial)?,
        clock_granularity: secs_or("clock_granularity", dft.clock_granularity)?,
        dupack_threshold: num32("dupack_threshold", dft.dupack_threshold)?,
        limited_transmit: flag(d, "limited_transmit", dft.limited_transmit)?,
        dupack_rule: choice(d, "dupack_rule", dft.dupack_rule, DupackRule::parse)?,
        pipe_rule: choice(d, "pipe_rule", dft.pipe_rule, PipeRule::parse)?,
        rack_lost_retransmissions: flag(d, "rack_lost_retransmissions", dft.rack_lost_retransmissions)?,
        rack_tlp: flag(d, "rack_tlp", dft.rack_tlp)?,
        ssthresh_rule: choice(d, "ssthresh_rule", dft.ssthresh_rule, SsthreshRule::parse)?,
        grow_on_loss_exit: flag(d, "grow_on_loss_exit", dft.grow_on_loss_exit)?,
        grow_on_recovery_exit: flag(d, "grow_on_recovery_exit", dft.grow_on_recovery_exit)?,
        rto_backoff_reset: choice(d, "rto_backoff_reset", dft.rto_backoff_reset, BackoffReset::parse)?,
        timestamps: flag(d, "timestamps", dft.timestamps)?,
        handshake: flag(d, "handshake", dft.handshake)?,
        abc: flag(d, "abc", dft.abc)?,
        cc_rtt: choice(d, "cc_rtt", dft.cc_rtt, CcRtt::parse)?,
        prr_bound: choice(d, "prr_bound", dft.prr_bound, PrrBound::parse)?,
        prr_variant: choice(d, "prr_variant", dft.prr_variant, PrrVariant::parse)?,
        westwood_variant: choice(d, "westwood_variant", dft.westwood_variant, WestwoodVariant::parse)?,
        linux_reno_variant: choice(d, "linux_reno_variant", dft.linux_reno_variant, LinuxRenoVariant::parse)?,
        tibet_alpha: real(d, "tibet_alpha", dft.tibet_alpha)?,
        tibet_estimator: choice(d, "tibet_estimator", dft.tibet_estimator, TibetEstimator::parse)?,
        vegas_alpha: num32("vegas_alpha", dft.vegas_alpha)?,
        vegas_beta: num32("vegas_beta", dft.vegas_beta)?,
        vegas_gamma: num32("vegas_gamma", dft.vegas_gamma)?,
        cubic_beta: real(d, "cubic_beta", dft.cubic_beta)?,
        cubic_c: real(d, "cubic_c", dft.cubic_c)?,
        cubic_fast_convergence: flag(d, "cubic_fast_convergence", dft.cubic_fast_convergence)?,
        cubic_reno_friendly: flag(d, "cubic_reno_friendly", dft.cubic_reno_friendly)?,
        cubic_variant: choice(d, "cubic_variant", dft.cubic_variant, CubicVariant::parse)?,
        hystart: choice(d, "hystart", dft.hystart, Hystart::parse)?,
        // The `tossim` profile's timer and receiver (Srinivasan et al. §3.1; docs/study.md).
        rto_estimator: match get::<String>(d, "rto_estimator")?.as_deref() {
            None | Some("rfc6298") => RtoEstimator::Rfc6298,
            Some("rfc793") => RtoEstimator::Rfc793 { alpha: req(d, "rto_alpha", 0.875)?, beta: req(d, "rto_beta", 2.0)? },
            Some(other) => return Err(crate::errors::to_py(Error::param("rto_estimator", other, "rfc6298 or rfc793"))),
        },
        rto_backoff: flag(d, "rto_backoff", dft.rto_backoff)?,
        ack_on_idle: flag(d, "ack_on_idle", dft.ack_on_idle)?,
        fast_retransmit_after_timeout: flag(d, "fast_retransmit_after_timeout", dft.fast_retransmit_after_timeout)?,
        restart_timer_every_partial_ack: match get::<String>(d, "partial_ack_timer")?.as_deref() {
            None | Some("first") => dft.restart_timer_every_partial_ack,
            Some("every") => true,
            Some(other) => return Err(crate::errors::to_py(Error::param("partial_ack_timer", other, "first or every"))),
        },
        ecn: flag(d, "ecn", dft.ecn)?,
        lt_pfec: flag(d, "lt_pfec", dft.lt_pfec)?,
        lt_rfec: flag(d, "lt_rfec", dft.lt_rfec)?,
        lt_adaptive_mss: flag(d, "lt_adaptive_mss", dft.lt_adaptive_mss)?,
        lt_granularity: num32("lt_granularity", dft.lt_granularity)?,
        lt_mss_min: num("lt_mss_min", dft.lt_mss_min)?,
        lt_erasure_gain: real(d, "lt_erasure_gain", dft.lt_erasure_gain)?,
        lt_initial_erasure: real(d, "lt_initial_erasure", dft.lt_initial_erasure)?,
        lt_max_erasure: real(d, "lt_max_erasure", dft.lt_max_erasure)?,
        lt_max_block: num32("lt_max_block", dft.lt_max_block)?,
    })
}

/// A link's queue discipline from its dict: `queue` "droptail" (default) or "red", with
/// RED's parameters in the dict under `red` (missing keys: the Rust defaults).
pub(crate) fn queue_disc(prefix: &str, d: &Bound<'_, PyDict>) -> PyResult<QueueDisc> {
    let kind: String = req(d, "queue", "droptail".to_string())?;
    match kind.as_str() {
        "droptail" => Ok(QueueDisc::DropTail),
        "red" => {
            let r = dict_of(d.py(), d, "red")?;
            let dft = RedParams::default();
            let bytes = count(&format!("{prefix}.red_mean_packet_bytes"), req(&r, "mean_packet_bytes", dft.mean_packet_bytes as i64)?)?;
            Ok(QueueDisc::Red(RedParams {
                min_th: real(&r, "min_th", dft.min_th)?,
                max_th: real(&r, "max_th", dft.max_th)?,
                max_p: real(&r, "max_p", dft.max_p)?,
                weight: real(&r, "weight", dft.weight)?,
                gentle: flag(&r, "gentle", dft.gentle)?,
                wait: flag(&r, "wait", dft.wait)?,
                ecn: flag(&r, "ecn", dft.ecn)?,
                hard_drop: flag(&r, "hard_drop", dft.hard_drop)?,
                mean_packet_bytes: u32::try_from(bytes)
                    .map_err(|_| crate::errors::to_py(Error::param(&format!("{prefix}.red_mean_packet_bytes"), bytes, "below 2^32")))?,
            }))
        }
        _ => Err(crate::errors::to_py(Error::param(&format!("{prefix}.queue"), kind, "droptail or red"))),
    }
}

/// Every field of `t` as Python values (seconds, names), the inverse of [`tcp_config`].
fn tcp_dict<'py>(py: Python<'py>, t: &TcpConfig) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let s = |n: Nanos| n as f64 / 1e9;
    d.set_item("cc", t.cc.name())?;
    d.set_item("recovery", t.recovery.name())?;
    d.set_item("mss", t.mss)?;
    d.set_item("header_bytes", t.header_bytes)?;
    d.set_item("ack_bytes", t.ack_bytes)?;
    d.set_item("init_cwnd", t.init_cwnd)?;
    d.set_item("max_cwnd", t.max_cwnd)?;
    d.set_item("rwnd", t.rwnd)?;
    d.set_item("delayed_ack", t.delayed_ack)?;
    d.set_item("ack_every", t.ack_every)?;
    d.set_item("ack_timeout", s(t.ack_timeout))?;
    d.set_item("rto_min", s(t.rto_min))?;
    d.set_item("rto_max", s(t.rto_max))?;
    d.set_item("rto_initial", s(t.rto_initial))?;
    d.set_item("clock_granularity", s(t.clock_granularity))?;
    d.set_item("dupack_threshold", t.dupack_threshold)?;
    d.set_item("limited_transmit", t.limited_transmit)?;
    d.set_item("rack_lost_retransmissions", t.rack_lost_retransmissions)?;
    d.set_item("rack_tlp", t.rack_tlp)?;
    d.set_item("ssthresh_rule", t.ssthresh_rule.name())?;
    d.set_item("grow_on_loss_exit", t.grow_on_loss_exit)?;
    d.set_item("grow_on_recovery_exit", t.grow_on_recovery_exit)?;
    d.set_item("rto_backoff_reset", t.rto_backoff_reset.name())?;
    d.set_item("timestamps", t.timestamps)?;
    d.set_item("handshake", t.handshake)?;
    d.set_item("abc", t.abc)?;
    d.set_item("cc_rtt", t.cc_rtt.name())?;
    d.set_item("prr_bound", t.prr_bound.name())?;
    d.set_item("prr_variant", t.prr_variant.name())?;
    d.set_item("dupack_rule", t.dupack_rule.name())?;
    d.set_item("pipe_rule", t.pipe_rule.name())?;
    d.set_item("westwood_variant", t.westwood_variant.name())?;
    d.set_item("linux_reno_variant", t.linux_reno_variant.name())?;
    d.set_item("tibet_alpha", t.tibet_alpha)?;
    d.set_item("tibet_estimator", t.tibet_estimator.name())?;
    d.set_item("vegas_alpha", t.vegas_alpha)?;
    d.set_item("vegas_beta", t.vegas_beta)?;
    d.set_item("vegas_gamma", t.vegas_gamma)?;
    d.set_item("cubic_beta", t.cubic_beta)?;
    d.set_item("cubic_c", t.cubic_c)?;
    d.set_item("cubic_fast_convergence", t.cubic_fast_convergence)?;
    d.set_item("cubic_reno_friendly", t.cubic_reno_friendly)?;
    d.set_item("cubic_variant", t.cubic_variant.name())?;
    d.set_item("hystart", t.hystart.name())?;
    let (est, alpha, beta) = match t.rto_estimator {
        RtoEstimator::Rfc6298 => ("rfc6298", 0.875, 2.0),
        RtoEstimator::Rfc793 { alpha, beta } => ("rfc793", alpha, beta),
    };
    d.set_item("rto_estimator", est)?;
    d.set_item("rto_alpha", alpha)?;
    d.set_item("rto_beta", beta)?;
    d.set_item("rto_backoff", t.rto_backoff)?;
    d.set_item("ack_on_idle", t.ack_on_idle)?;
    d.set_item("fast_retransmit_after_timeout", t.fast_retransmit_after_timeout)?;
    d.set_item("partial_ack_timer", if t.restart_timer_every_partial_ack { "every" } else { "first" })?;
    d.set_item("ecn", t.ecn)?;
    d.set_item("lt_pfec", t.lt_pfec)?;
    d.set_item("lt_rfec", t.lt_rfec)?;
    d.set_item("lt_adaptive_mss", t.lt_adaptive_mss)?;
    d.set_item("lt_granularity", t.lt_granularity)?;
    d.set_item("lt_mss_min", t.lt_mss_min)?;
    d.set_item("lt_erasure_gain", t.lt_erasure_gain)?;
    d.set_item("lt_initial_erasure", t.lt_initial_erasure)?;
    d.set_item("lt_max_erasure", t.lt_max_erasure)?;
    d.set_item("lt_max_block", t.lt_max_block)?;
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
    l.layer = crate::network::layer_of(d)?;
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
/// (seconds), `ack_path` ("lossless" | "trace"), `seed`, `series`.
#[pyfunction]
fn simulate_trace<'py>(
    py: Python<'py>,
    trace: PyRef<'py, PyBitTrace>,
    config: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyDict>> {
    let tcp = tcp_config(&dict_of(py, config, "tcp")?)?;
    let slot = secs("slot", req(config, "slot", 0.01)?)?;
    // The run lasts len(trace) × slot: bounded like every time (`secs`).
    let span = slot as f64 * 1e-9 * trace.inner.len() as f64;
    if span >= 1.0e9 {
        let why = format!("a run (len(trace) × slot = {} × {} s = {span:.3e} s) shorter than 10^9 s: the simulator counts time in 64-bit nanoseconds", trace.inner.len(), slot as f64 * 1e-9);
        return Err(crate::errors::to_py(Error::param("slot", slot as f64 * 1e-9, &why)));
    }
    let ack_path: String = req(config, "ack_path", "lossless".to_string())?;
    let seed = seed(config)?;
    let mut sc = Scenario::slotted(tcp, trace.inner.clone(), slot, AckPath::parse(&ack_path).py()?, seed);
    sc.series = req(config, "series", false)?;
    run_scenario(py, config, sc)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_trace, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_settings, m)?)?;
    Ok(())
}
