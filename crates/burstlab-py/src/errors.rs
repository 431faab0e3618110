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
