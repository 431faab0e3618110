//! One error type for the core; the Python bindings turn it into exceptions.
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A parameter outside its domain: `name`, offending value, what was expected.
    InvalidParameter { name: String, value: String, expected: String },
    /// Malformed input data: where (file/line when known) and what.
    Parse { file: Option<String>, line: Option<usize>, text: String, reason: String },
    /// An operation that needs data got none (empty trace to fit, empty file).
    Empty(String),
    /// An input-sized allocation that the machine cannot hold (a trace longer than memory,
    /// an impossible `expected` count); becomes Python's `MemoryError`.
    Memory(String),
    /// A file that cannot be read or written: the path, the OS error number (when there
    /// is one) and the reason; becomes the matching Python `OSError` with `filename` set.
    Io { path: String, errno: Option<i32>, message: String },
    /// Anything else with a message.
    Other(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn param(name: &str, value: impl fmt::Display, expected: &str) -> Self {
        Error::InvalidParameter { name: name.to_string(), value: value.to_string(), expected: expected.to_string() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidParameter { name, value, expected } => {
                write!(f, "invalid parameter {name} = {value}: expected {expected}")
            }
            Error::Parse { file, line, text, reason } => {
                let file = file.as_deref().unwrap_or("<input>");
                match line {
                    Some(l) => write!(f, "{file}:{l}: {reason}: {text:?}"),
                    None => write!(f, "{file}: {reason}: {text:?}"),
                }
            }
            Error::Empty(what) => write!(f, "{what}"),
            Error::Memory(what) => write!(f, "{what}"),
            Error::Io { path, message, .. } => write!(f, "{path}: {message}"),
            Error::Other(msg) => write!(f, "{msg}"),
        }
    }
}

impl std::error::Error for Error {}
