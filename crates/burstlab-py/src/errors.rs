//! Python exceptions for core errors. All derive from ValueError, so callers that
//! only know the standard library still catch them.
use burstlab_core::Error;
use pyo3::create_exception;
use pyo3::exceptions::{PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;

create_exception!(_core, BurstlabError, PyValueError, "Base class of burstlab's errors.");
create_exception!(_core, ParameterError, BurstlabError, "A parameter outside its domain.");
create_exception!(_core, TraceFormatError, BurstlabError, "Malformed trace input (names file, line and text).");
create_exception!(_core, EmptyInputError, BurstlabError, "An operation got no data (empty file, empty trace).");

pub fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::InvalidParameter { .. } => ParameterError::new_err(msg),
        Error::Parse { .. } => TraceFormatError::new_err(msg),
        Error::Empty(_) => EmptyInputError::new_err(msg),
        Error::Memory(_) => PyMemoryError::new_err(msg),
        // OSError(errno, strerror, filename) picks the subclass (FileNotFoundError, ...).
        Error::Io { path, errno: Some(n), message } => PyOSError::new_err((n, message, path)),
        Error::Io { .. } => PyOSError::new_err(msg),
        Error::Other(_) => BurstlabError::new_err(msg),
    }
}

/// A whole-number argument `name` from Python, or the package's `ParameterError` naming it
/// (PyO3's own conversion raised `OverflowError` for -1 or 2^70, `TypeError` for 1.5).
pub fn whole<'py, T: FromPyObject<'py>>(name: &str, v: &Bound<'py, PyAny>, expected: &str) -> PyResult<T> {
    // numpy integers too (through __index__), not a float or a bool
    let is_int = !v.is_instance_of::<pyo3::types::PyFloat>() && !v.is_instance_of::<pyo3::types::PyBool>();
    match v.extract::<T>() {
        Ok(x) if is_int => Ok(x),
        _ => Err(to_py(Error::param(name, v.repr().map(|r| r.to_string()).unwrap_or_default(), expected))),
    }
}

/// A number for a message: as written where it is readable, in exponent form where its
/// decimal expansion runs to hundreds of digits (`1e-300`, not 300 zeros).
pub fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-3..1e15).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// `?`-friendly conversion of core results.
pub trait IntoPyResult<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for burstlab_core::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("BurstlabError", py.get_type::<BurstlabError>())?;
    m.add("ParameterError", py.get_type::<ParameterError>())?;
    m.add("TraceFormatError", py.get_type::<TraceFormatError>())?;
    m.add("EmptyInputError", py.get_type::<EmptyInputError>())?;
    Ok(())
}
