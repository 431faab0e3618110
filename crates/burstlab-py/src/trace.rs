//! `BitTrace`: packed reception bits and their statistics.
use crate::errors::IntoPyResult;
use burstlab_core::trace::{bits::BitTrace, convergence, parse, runs, stats};
use numpy::ndarray::ArrayView1;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyBytes};

/// Packed bits, 1 = delivered, 0 = lost; bit i in word i // 64 at position i % 64.
#[pyclass(name = "BitTrace", module = "burstlab._core", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyBitTrace {
    pub inner: BitTrace,
}

impl From<BitTrace> for PyBitTrace {
    fn from(inner: BitTrace) -> Self {
        PyBitTrace { inner }
    }
}

fn check_range(start: usize, end: usize, len: usize) -> PyResult<()> {
    if start > end || end > len {
        return Err(PyIndexError::new_err(format!("range {start}..{end} out of bounds for a trace of {len} entries")));
    }
    Ok(())
}

#[pymethods]
impl PyBitTrace {
    /// From one byte per entry (nonzero = delivered).
    #[staticmethod]
    fn from_numpy(py: Python<'_>, bits: PyReadonlyArray1<'_, u8>) -> PyResult<Self> {
        let t = match bits.as_slice() {
            Ok(s) => py.allow_threads(|| BitTrace::from_bytes(s)),
            Err(_) => BitTrace::from_bytes(&bits.as_array().iter().copied().collect::<Vec<u8>>()),
        };
        Ok(t.into())
    }

    /// From packed little-endian words (`numpy.packbits(b, bitorder="little")` viewed as uint64).
    #[staticmethod]
    fn from_words(words: PyReadonlyArray1<'_, u64>, length: usize) -> PyResult<Self> {
        Ok(BitTrace::from_words(words.as_array().to_vec(), length).py()?.into())
    }

    /// `length` entries all equal to `value`.
    #[staticmethod]
    fn filled(length: usize, value: bool) -> Self {
        BitTrace::filled(length, value).into()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __repr__(&self) -> String {
        format!("BitTrace(len={}, delivered={})", self.inner.len(), self.inner.count_ones())
    }

    /// One uint8 per entry.
    fn to_numpy<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        let v = py.allow_threads(|| self.inner.to_bytes());
        v.into_pyarray(py)
    }

    /// The packed words: a read-only view into this trace's memory (no copy); the view
    /// keeps the trace alive.
    fn words<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let py = slf.py();
        let view = ArrayView1::from(slf.get().inner.words());
        // SAFETY: the pyclass is frozen and BitTrace is never mutated after construction,
        // so the words outlive the array, whose base object (`slf`) keeps them alive.
        let arr = unsafe { PyArray1::borrow_from_array(&view, slf.clone().into_any()) };
        arr.call_method("setflags", (), Some(&[("write", false)].into_py_dict(py)?))?;
        Ok(arr)
    }

    fn count_ones(&self) -> u64 {
        self.inner.count_ones()
    }

    /// Pair counts (|00|, |01|, |10|, |11|) over [start, end) (default: whole trace).
    #[pyo3(signature = (start=0, end=None))]
    fn transitions(&self, py: Python<'_>, start: usize, end: Option<usize>) -> PyResult<(u64, u64, u64, u64)> {
        let end = end.unwrap_or(self.inner.len());
        check_range(start, end, self.inner.len())?;
        let t = py.allow_threads(|| stats::transitions_range(&self.inner, start, end));
        Ok((t.n00, t.n01, t.n10, t.n11))
    }

    /// Both run-length histograms in one pass: ((loss lengths, counts), (success lengths, counts)).
    #[allow(clippy::type_complexity)]
    fn run_histograms<'py>(
        &self,
        py: Python<'py>,
    ) -> ((Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u64>>), (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u64>>)) {
        let (zeros, ones) = py.allow_threads(|| runs::run_histograms(&self.inner));
        let ((zl, zc), (ol, oc)) = (zeros.to_pairs(), ones.to_pairs());
        ((zl.into_pyarray(py), zc.into_pyarray(py)), (ol.into_pyarray(py), oc.into_pyarray(py)))
    }

    /// Root-mean-square deviation of the per-chunk μ from the whole-trace μ (Srinivasan et al. §8),
    /// over full chunks whose μ is defined; None where undefined.
    fn chunk_rms(&self, py: Python<'_>, chunk: usize) -> PyResult<Option<f64>> {
        if chunk == 0 {
            return Err(crate::errors::ParameterError::new_err("invalid parameter chunk = 0: expected a positive chunk size"));
        }
        Ok(py.allow_threads(|| convergence::chunk_rms_deviation(&self.inner, chunk)))
    }

    /// Lengths of all runs of `value`, in trace order.
    fn run_lengths<'py>(&self, py: Python<'py>, value: bool) -> Bound<'py, PyArray1<u64>> {
        let v = py.allow_threads(|| runs::run_lengths(&self.inner, value));
        v.into_pyarray(py)
    }

    /// μ over the prefixes [0, L) for each (ascending) L; NaN where undefined.
    fn prefix_mu<'py>(&self, py: Python<'py>, lengths: PyReadonlyArray1<'_, u64>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let ls: Vec<usize> = lengths.as_array().iter().map(|&l| l as usize).collect();
        let mut prev = 0usize;
        for &l in &ls {
            if l < prev || l > self.inner.len() {
                return Err(PyValueError::new_err(format!(
                    "prefix lengths must be ascending and at most the trace length {}; got {l} after {prev}",
                    self.inner.len()
                )));
            }
            prev = l;
        }
        let v = py.allow_threads(|| convergence::prefix_mu(&self.inner, &ls));
        Ok(v.into_pyarray(py))
    }

    /// μ of every full chunk of `chunk` entries; NaN where undefined.
    fn chunk_mu<'py>(&self, py: Python<'py>, chunk: usize) -> PyResult<Bound<'py, PyArray1<f64>>> {
        if chunk == 0 {
            return Err(crate::errors::ParameterError::new_err("invalid parameter chunk = 0: expected a positive chunk size"));
        }
        let v = py.allow_threads(|| convergence::chunk_mu(&self.inner, chunk));
        Ok(v.into_pyarray(py))
    }

    /// Entries [start, end) as a new trace.
    fn slice(&self, start: usize, end: usize) -> PyResult<Self> {
        check_range(start, end, self.inner.len())?;
        Ok(self.inner.slice(start, end).into())
    }

    /// The complement (polarity flipped).
    fn inverted(&self) -> Self {
        self.inner.inverted().into()
    }

    /// Parse a string of '0'/'1' characters (1 = delivered).
    #[staticmethod]
    fn from_str01(s: &str) -> PyResult<Self> {
        Ok(BitTrace::from_str01(s).py()?.into())
    }
}

/// Parse a text trace (`bits`, `string`, `seqlist` or `ttem`) from its bytes; errors name
/// `file`, the 1-based line and the offending text. Returns the trace (1 = delivered) and,
/// for `seqlist`, (received, duplicates, dropped, max_seq); zeros and None otherwise.
#[pyfunction]
#[pyo3(signature = (data, format, file="<input>", one_means_lost=false, expected=None, drop_beyond=false))]
fn parse_text(
    py: Python<'_>,
    data: &Bound<'_, PyBytes>,
    format: &str,
    file: &str,
    one_means_lost: bool,
    expected: Option<u64>,
    drop_beyond: bool,
) -> PyResult<(PyBitTrace, u64, u64, u64, Option<u64>)> {
    let bytes = data.as_bytes();
    let res = py.allow_threads(|| match format {
        "bits" => parse::parse_bits(bytes, file, one_means_lost).map(|t| (t, parse::SeqListInfo::default())),
        "string" => parse::parse_string(bytes, file, one_means_lost).map(|t| (t, parse::SeqListInfo::default())),
        "ttem" => parse::parse_ttem(bytes, file).map(|t| (t, parse::SeqListInfo::default())),
        "seqlist" => parse::parse_seqlist(bytes, file, expected, drop_beyond),
        other => Err(burstlab_core::Error::param("format", other, "one of bits, string, seqlist, ttem")),
    });
    let (t, info) = res.py()?;
    Ok((t.into(), info.received, info.duplicates, info.dropped, info.max_seq))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyBitTrace>()?;
    m.add_function(wrap_pyfunction!(parse_text, m)?)?;
    Ok(())
}
