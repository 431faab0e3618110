//! Python values to the core's settings, shared by every simulator entry point (`sim`,
//! `network`, `watch`): typed dict lookups with the package's parameter errors, seconds to
//! nanoseconds, the descriptor tables' values ([`param_value`], [`py_value`], [`spec_dict`]),
//! `TcpConfig` and a link's queue discipline.
use crate::errors::IntoPyResult;
use burstlab_core::link::{CodelParams, FqParams, QueueDisc, RedParams};
use burstlab_core::param::{Kind, ParamSpec, Value};
use burstlab_core::sim::{TcpConfig, Variant};
use burstlab_core::time::Nanos;
use burstlab_core::Error;
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
    if (0.0..burstlab_core::time::MAX_RUN_SECS).contains(&s) {
        Ok(burstlab_core::time::from_secs_f64(s))
    } else if s.is_finite() && s > 0.0 {
        Err(crate::errors::to_py(Error::param(name, s, burstlab_core::time::MAX_RUN_EXPECTED)))
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
/// Every key is read through the core's descriptor table (`TcpConfig::PARAMS`): its kind says
/// how to convert the Python value, `TcpConfig::set` checks the declared range.
pub(crate) fn tcp_config(d: &Bound<'_, PyDict>) -> PyResult<TcpConfig> {
    let mut t = match get::<String>(d, "variant")? {
        Some(v) => TcpConfig::variant(Variant::parse(&v).py()?),
        None => TcpConfig::default(),
    };
    for p in TcpConfig::PARAMS {
        if let Some(v) = param_value(d, p)? {
            t.set(p.name, v).py()?;
        }
    }
    Ok(t)
}

/// The value under `p.name` in `d` as the core's [`Value`] (None: absent, or None where none
/// is not a value of its own).
pub(crate) fn param_value(d: &Bound<'_, PyDict>, p: &ParamSpec) -> PyResult<Option<Value>> {
    let key = p.name;
    Ok(match p.kind {
        Kind::OptInt => match d.get_item(key)? {
            None => None,
            Some(v) if v.is_none() => Some(Value::OptInt(None)),
            Some(_) => Some(Value::OptInt(Some(count(key, req(d, key, 0i64)?)?))),
        },
        Kind::Bool => get::<bool>(d, key)?.map(Value::Bool),
        Kind::Int => get::<i64>(d, key)?.map(|x| count(key, x)).transpose()?.map(Value::Int),
        Kind::Real => get::<f64>(d, key)?.map(|_| real(d, key, 0.0)).transpose()?.map(Value::Real),
        Kind::Time => get::<f64>(d, key)?.map(|s| secs(key, s)).transpose()?.map(Value::Time),
        Kind::Choice(_) => get::<String>(d, key)?.map(Value::Text),
    })
}

/// A core [`Value`] as the Python value (seconds for times).
pub(crate) fn py_value<'py>(py: Python<'py>, v: Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Int(n) => n.into_pyobject(py)?.into_any(),
        Value::OptInt(n) => n.into_pyobject(py)?.into_any(),
        Value::Real(r) => r.into_pyobject(py)?.into_any(),
        Value::Time(t) => (t as f64 / 1e9).into_pyobject(py)?.into_any(),
        Value::Text(s) => s.into_pyobject(py)?.into_any(),
    })
}

pub(crate) fn spec_dict<'py>(py: Python<'py>, p: &ParamSpec, default: Option<Value>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", p.name)?;
    d.set_item("component", p.component)?;
    d.set_item("kind", p.kind.name())?;
    d.set_item("unit", p.unit)?;
    d.set_item("default", default.map(|v| py_value(py, v)).transpose()?)?;
    d.set_item("choices", match p.kind {
        Kind::Choice(c) => Some(c.to_vec()),
        _ => None,
    })?;
    d.set_item("min", p.min.map(|b| (b.value, b.inclusive)))?;
    d.set_item("max", p.max.map(|b| (b.value, b.inclusive)))?;
    d.set_item("range", p.range_text())?;
    d.set_item("help", p.help)?;
    d.set_item("reference", p.reference)?;
    Ok(d)
}

/// A link's queue discipline from its dict: `queue` "droptail" (default), "red", "codel" or
/// "fq_codel", with the parameters in the dict under `red`, `codel` (CoDel's, FQ-CoDel's per
/// queue) and `fq_codel` (FQ-CoDel's scheduler); missing keys: the Rust defaults.
pub(crate) fn queue_disc(prefix: &str, d: &Bound<'_, PyDict>) -> PyResult<QueueDisc> {
    let kind: String = req(d, "queue", "droptail".to_string())?;
    let codel = || queue_params(prefix, d, "codel", CodelParams::PARAMS, |c: &mut CodelParams, n, v| c.set(n, v));
    match kind.as_str() {
        "droptail" => Ok(QueueDisc::DropTail),
        "red" => Ok(QueueDisc::Red(queue_params(prefix, d, "red", RedParams::PARAMS, |r: &mut RedParams, n, v| r.set(n, v))?)),
        "codel" => Ok(QueueDisc::Codel(codel()?)),
        "fq_codel" => {
            let fq = queue_params(prefix, d, "fq_codel", FqParams::PARAMS, |f: &mut FqParams, n, v| f.set(n, v))?;
            Ok(QueueDisc::FqCodel(codel()?, fq))
        }
        _ => Err(crate::errors::to_py(Error::param(&format!("{prefix}.queue"), kind, "droptail, red, codel or fq_codel"))),
    }
}

/// A queue discipline's parameters from the dict `d[table]`, every key through the core's
/// table `specs` (ranges are checked by `validate` with the link's name); a bad value is named
/// `PREFIX.TABLE_NAME` (`link L.red_max_p`).
fn queue_params<T: Default>(
    prefix: &str,
    d: &Bound<'_, PyDict>,
    table: &str,
    specs: &[ParamSpec],
    set: impl Fn(&mut T, &str, Value) -> burstlab_core::Result<()>,
) -> PyResult<T> {
    let r = dict_of(d.py(), d, table)?;
    let mut out = T::default();
    for p in specs {
        if let Some(v) = param_value(&r, p)? {
            set(&mut out, p.name, v).map_err(|e| crate::errors::to_py(match e {
                Error::InvalidParameter { name, value, expected } => Error::InvalidParameter { name: format!("{prefix}.{table}_{name}"), value, expected },
                e => e,
            }))?;
        }
    }
    Ok(out)
}

pub(crate) fn dict_of<'py>(py: Python<'py>, d: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyDict>> {
    match d.get_item(key)? {
        Some(v) if !v.is_none() => Ok(v.downcast_into::<PyDict>()?),
        _ => Ok(PyDict::new(py)),
    }
}
