//! `BitTrace`: packed reception bits and their statistics.
use crate::errors::IntoPyResult;
use burstlab_core::trace::{bits::BitTrace, convergence, parse, runs, stats, summary, write};
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

fn check_chunk(chunk: usize) -> PyResult<()> {
    if chunk == 0 {
        return Err(crate::errors::ParameterError::new_err("invalid parameter chunk = 0: expected a positive chunk size"));
    }
    Ok(())
}

/// Prefix lengths, checked: ascending and at most the trace length.
fn prefix_lengths(lengths: PyReadonlyArray1<'_, u64>, len: usize) -> PyResult<Vec<usize>> {
    let ls: Vec<usize> = lengths.as_array().iter().map(|&l| l as usize).collect();
    let mut prev = 0usize;
    for &l in &ls {
        if l < prev || l > len {
            return Err(PyValueError::new_err(format!("prefix lengths must be ascending and at most the trace length {len}; got {l} after {prev}")));
        }
        prev = l;
    }
    Ok(ls)
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

    /// `length` entries all equal to `value` (MemoryError if the machine cannot hold them).
    #[staticmethod]
    fn filled(length: &Bound<'_, PyAny>, value: bool) -> PyResult<Self> {
        let length = crate::errors::whole::<usize>("length", length, "a number of entries from 0 to 2^64 − 1")?;
        Ok(BitTrace::try_filled(length, value, &format!("a trace of {length} entries")).py()?.into())
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __repr__(&self) -> String {
        format!("BitTrace(len={}, delivered={})", self.inner.len(), self.inner.count_ones())
    }

    /// One uint8 per entry (MemoryError if the machine cannot hold 8× the packed trace).
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let v = py.allow_threads(|| self.inner.try_to_bytes()).py()?;
        Ok(v.into_pyarray(py))
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

    /// Every statistic in one pass over the words (Srinivasan et al. §5.2-5.3, §8): a dict with
    /// ``length``, ``ones``, ``n00 n01 n10 n11``, ``loss_bursts`` and ``success_runs``
    /// ((lengths, counts) pairs), ``chunk_mu`` (μ of each full chunk of ``chunk`` entries),
    /// ``chunk_rms`` and ``prefix_mu`` (μ over [0, L) for each L of ``prefixes``).
    fn summary<'py>(&self, py: Python<'py>, chunk: usize, prefixes: PyReadonlyArray1<'_, u64>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        check_chunk(chunk)?;
        let ls = prefix_lengths(prefixes, self.inner.len())?;
        let s = py.allow_threads(|| summary::summarize(&self.inner, chunk, &ls, true));
        let d = pyo3::types::PyDict::new(py);
        let t = s.transitions;
        d.set_item("length", s.len)?;
        d.set_item("ones", s.ones)?;
        d.set_item("n00", t.n00)?;
        d.set_item("n01", t.n01)?;
        d.set_item("n10", t.n10)?;
        d.set_item("n11", t.n11)?;
        let (zl, zc) = s.loss_bursts.to_pairs();
        let (ol, oc) = s.success_runs.to_pairs();
        d.set_item("loss_bursts", (zl.into_pyarray(py), zc.into_pyarray(py)))?;
        d.set_item("success_runs", (ol.into_pyarray(py), oc.into_pyarray(py)))?;
        d.set_item("chunk_mu", s.chunk_mu.into_pyarray(py))?;
        d.set_item("chunk_rms", s.chunk_rms)?;
        d.set_item("prefix_mu", s.prefix_mu.into_pyarray(py))?;
        Ok(d)
    }

    /// Both run-length histograms in one pass: ((loss lengths, counts), (success lengths, counts)).
    #[allow(clippy::type_complexity)]
    fn run_histograms<'py>(
        &self,
        py: Python<'py>,
    ) -> ((Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u64>>), (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u64>>)) {
        let (zeros, ones) = py.allow_threads(|| summary::run_histograms(&self.inner));
        let ((zl, zc), (ol, oc)) = (zeros.to_pairs(), ones.to_pairs());
        ((zl.into_pyarray(py), zc.into_pyarray(py)), (ol.into_pyarray(py), oc.into_pyarray(py)))
    }

    /// Root-mean-square deviation of the per-chunk μ from the whole-trace μ (Srinivasan et al. §8),
    /// over full chunks whose μ is defined; None where undefined.
    fn chunk_rms(&self, py: Python<'_>, chunk: usize) -> PyResult<Option<f64>> {
        check_chunk(chunk)?;
        Ok(py.allow_threads(|| convergence::chunk_rms_deviation(&self.inner, chunk)))
    }

    /// Lengths of all runs of `value`, in trace order.
    fn run_lengths<'py>(&self, py: Python<'py>, value: bool) -> Bound<'py, PyArray1<u64>> {
        let v = py.allow_threads(|| runs::run_lengths(&self.inner, value));
        v.into_pyarray(py)
    }

    /// μ over the prefixes [0, L) for each (ascending) L; NaN where undefined.
    fn prefix_mu<'py>(&self, py: Python<'py>, lengths: PyReadonlyArray1<'_, u64>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let ls = prefix_lengths(lengths, self.inner.len())?;
        let v = py.allow_threads(|| convergence::prefix_mu(&self.inner, &ls));
        Ok(v.into_pyarray(py))
    }

    /// μ of every full chunk of `chunk` entries; NaN where undefined.
    fn chunk_mu<'py>(&self, py: Python<'py>, chunk: usize) -> PyResult<Bound<'py, PyArray1<f64>>> {
        check_chunk(chunk)?;
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

type Parsed = (PyBitTrace, u64, u64, u64, Option<u64>, bool);

fn reception(p: parse::Parsed) -> Parsed {
    match p {
        parse::Parsed::Trace(t, i) => (t.into(), i.received, i.duplicates, i.dropped, i.max_seq, i.sorted_single),
        parse::Parsed::Times(_) => unreachable!("callers refuse the mahimahi format"),
    }
}

fn text_format(format: &str) -> PyResult<parse::Format> {
    match parse::Format::parse(format).py()? {
        parse::Format::Mahimahi => Err(crate::errors::ParameterError::new_err(
            "invalid parameter format = 'mahimahi': a Mahimahi file is a link-capacity trace, not a packet-reception trace (read it with burstlab.io.read_mahimahi)",
        )),
        f => Ok(f),
    }
}

/// Parse a text trace (`bits`, `string`, `seqlist` or `ttem`) from its bytes; errors name
/// `file`, the 1-based line and the offending text. Returns the trace (1 = delivered) and,
/// for `seqlist`, (received, duplicates, dropped, max_seq, sorted_single); zeros, None and
/// True otherwise.
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
) -> PyResult<Parsed> {
    let fmt = text_format(format)?;
    let bytes = data.as_bytes();
    let opts = parse::Options { one_means_lost, expected, drop_beyond };
    Ok(reception(py.allow_threads(|| parse::parse_bytes(bytes, fmt, file, opts)).py()?))
}

/// Parse the text trace at `path`, streamed through a fixed buffer (memory: the packed
/// trace plus a constant); as :func:`parse_text` otherwise. `file` names it in messages.
#[pyfunction]
#[pyo3(signature = (path, format, file=None, one_means_lost=false, expected=None, drop_beyond=false))]
fn parse_file(
    py: Python<'_>,
    path: std::path::PathBuf,
    format: &str,
    file: Option<String>,
    one_means_lost: bool,
    expected: Option<u64>,
    drop_beyond: bool,
) -> PyResult<Parsed> {
    let fmt = text_format(format)?;
    let label = file.unwrap_or_else(|| path.to_string_lossy().into_owned());
    let opts = parse::Options { one_means_lost, expected, drop_beyond };
    Ok(reception(py.allow_threads(|| parse::parse_path(&path, fmt, &label, opts)).py()?))
}

/// A Mahimahi link-capacity trace: the delivery opportunities (one 1500-byte packet each)
/// in milliseconds, non-decreasing, as uint64.
#[pyfunction]
#[pyo3(signature = (path, file=None))]
fn read_mahimahi<'py>(py: Python<'py>, path: std::path::PathBuf, file: Option<String>) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let label = file.unwrap_or_else(|| path.to_string_lossy().into_owned());
    let v = py.allow_threads(|| parse::read_mahimahi(&path, &label)).py()?;
    Ok(v.into_pyarray(py))
}

/// Write `trace` to `path` in a text format (`bits`, `string`, `seqlist`, `ttem`),
/// streamed from the packed words; an OSError (a full disk) names `path`.
#[pyfunction]
#[pyo3(signature = (trace, path, format, one_means_lost=false))]
fn write_text(py: Python<'_>, trace: &PyBitTrace, path: std::path::PathBuf, format: &str, one_means_lost: bool) -> PyResult<()> {
    let fmt = parse::Format::parse(format).py()?;
    py.allow_threads(|| write::write_path(&trace.inner, fmt, one_means_lost, &path)).py()
}

/// A trace built piece by piece (the streaming CSV and Parquet readers): `extend` with
/// 0/1 bytes, then `finish`. Room is reserved fallibly (MemoryError, never an abort).
#[pyclass(name = "BitTraceBuilder", module = "burstlab._core")]
pub struct PyBitTraceBuilder {
    inner: Option<BitTrace>,
}

#[pymethods]
impl PyBitTraceBuilder {
    #[new]
    fn new() -> Self {
        PyBitTraceBuilder { inner: Some(BitTrace::new()) }
    }

    /// Append one entry per byte (nonzero = 1).
    fn extend(&mut self, py: Python<'_>, bits: PyReadonlyArray1<'_, u8>) -> PyResult<()> {
        let t = self.inner.as_mut().ok_or_else(|| PyValueError::new_err("BitTraceBuilder: already finished"))?;
        let v = bits.as_array();
        let s: Vec<u8>;
        let slice = match v.as_slice() {
            Some(x) => x,
            None => {
                s = v.iter().copied().collect();
                &s
            }
        };
        py.allow_threads(|| -> burstlab_core::Result<()> {
            t.reserve_bits(slice.len(), "building a trace")?;
            for chunk in slice.chunks(64) {
                let w = chunk.iter().enumerate().fold(0u64, |w, (j, &b)| w | (((b != 0) as u64) << j));
                t.append(w, chunk.len());
            }
            Ok(())
        })
        .py()
    }

    fn __len__(&self) -> usize {
        self.inner.as_ref().map_or(0, |t| t.len())
    }

    /// The trace (the builder is then empty).
    fn finish(&mut self) -> PyResult<PyBitTrace> {
        let mut t = self.inner.take().ok_or_else(|| PyValueError::new_err("BitTraceBuilder: already finished"))?;
        t.shrink_to_fit();
        Ok(t.into())
    }
}

/// Sequence numbers of received packets in, a trace out: the rules of the `seqlist`
/// reader (duplicates counted once, `expected` or max seq + 1, far strays refused) for the
/// sequence-only CSV and Parquet tables. Errors name `file` and the line (`first_line` +
/// index) or, with `rows`, the row.
#[pyclass(name = "SeqListBuilder", module = "burstlab._core")]
pub struct PySeqListBuilder {
    inner: Option<parse::SeqListBuilder>,
}

#[pymethods]
impl PySeqListBuilder {
    #[new]
    #[pyo3(signature = (file, expected=None, drop_beyond=false))]
    fn new(file: &str, expected: Option<u64>, drop_beyond: bool) -> PyResult<Self> {
        Ok(PySeqListBuilder { inner: Some(parse::SeqListBuilder::new(file, expected, drop_beyond).py()?) })
    }

    /// Add `seqs`; entry i is line `first + i` (or row `first + i` with `rows`).
    #[pyo3(signature = (seqs, first, rows=false))]
    fn add(&mut self, py: Python<'_>, seqs: PyReadonlyArray1<'_, u64>, first: usize, rows: bool) -> PyResult<()> {
        let b = self.inner.as_mut().ok_or_else(|| PyValueError::new_err("SeqListBuilder: already finished"))?;
        let v: Vec<u64> = seqs.as_array().iter().copied().collect();
        py.allow_threads(|| -> burstlab_core::Result<()> {
            for (i, &s) in v.iter().enumerate() {
                let loc = if rows { parse::Loc::Row(first + i) } else { parse::Loc::Line(first + i) };
                b.add(s, loc, s.to_string().as_bytes())?;
            }
            Ok(())
        })
        .py()
    }

    /// (trace, received, duplicates, dropped, max_seq).
    fn finish(&mut self) -> PyResult<(PyBitTrace, u64, u64, u64, Option<u64>)> {
        let b = self.inner.take().ok_or_else(|| PyValueError::new_err("SeqListBuilder: already finished"))?;
        let (t, i) = b.finish().py()?;
        Ok((t.into(), i.received, i.duplicates, i.dropped, i.max_seq))
    }
}

/// Bytes of memory available to a new allocation (Linux `MemAvailable`), or None where
/// the system does not say: the figure every input-sized allocation is checked against.
#[pyfunction]
fn available_memory() -> Option<u64> {
    burstlab_core::mem::available_bytes()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(available_memory, m)?)?;
    m.add_class::<PyBitTrace>()?;
    m.add_class::<PyBitTraceBuilder>()?;
    m.add_class::<PySeqListBuilder>()?;
    m.add_function(wrap_pyfunction!(parse_text, m)?)?;
    m.add_function(wrap_pyfunction!(parse_file, m)?)?;
    m.add_function(wrap_pyfunction!(read_mahimahi, m)?)?;
    m.add_function(wrap_pyfunction!(write_text, m)?)?;
    Ok(())
}
