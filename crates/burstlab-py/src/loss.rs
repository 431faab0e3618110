//! `LossModel`: a Rust loss model handed to Python, to sample traces or to pass to the
//! simulator (which clones it per link direction).
use crate::errors::IntoPyResult;
use crate::trace::PyBitTrace;
use burstlab_core::loss::{registry, spec, KeyedReplay};
use burstlab_core::loss::{
    markov_ct, on_off, Bernoulli, BlockBootstrap, DeterministicList, EndBehavior, GilbertElliott, LossModel, MarkovModulated, Replay, RunLength, SemiMarkov, SemiMarkovChain,
    Sojourn, TimeMode, Vddp,
};
use burstlab_core::rng;
use burstlab_core::time::{self, Nanos};
use burstlab_core::trace::BitTrace;
use burstlab_core::Error;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Mutex;

/// Seconds (Python) to nanoseconds, rejecting non-positive or non-finite values by name.
fn secs(name: &str, s: f64) -> PyResult<Nanos> {
    if !(s.is_finite() && s > 0.0) || time::from_secs_f64(s) == 0 {
        return Err(crate::errors::to_py(Error::param(name, s, "a positive number of seconds (≥ 1 ns)")));
    }
    Ok(time::from_secs_f64(s))
}

fn get_f64(d: &Bound<'_, PyDict>, what: &str, key: &str) -> PyResult<f64> {
    match d.get_item(key)? {
        Some(v) => v.extract::<f64>(),
        None => Err(crate::errors::to_py(Error::param(what, format!("{{... no {key:?} ...}}"), &format!("a {key:?} entry")))),
    }
}

/// A sojourn / run-length law from a dict: {"kind": "exponential", "mean": m},
/// {"kind": "deterministic", "value": v}, {"kind": "pareto", "scale": s, "shape": a},
/// {"kind": "lognormal", "mu": m, "sigma": s}, {"kind": "geometric", "mean": m},
/// {"kind": "empirical", "values": [...], "weights": [...]?, "tail_prob": p?,
/// "tail_scale": s?, "tail_shape": a?}. `what` names the argument in errors.
fn sojourn_from_dict(what: &str, d: &Bound<'_, PyDict>) -> PyResult<Sojourn> {
    let kind: String = match d.get_item("kind")? {
        Some(k) => k.extract()?,
        None => return Err(crate::errors::to_py(Error::param(what, "a dict without \"kind\"", "a \"kind\" entry"))),
    };
    let r = match kind.as_str() {
        "exponential" | "exp" => Sojourn::exponential(get_f64(d, what, "mean")?),
        "deterministic" | "det" => Sojourn::deterministic(get_f64(d, what, "value")?),
        "pareto" => Sojourn::pareto(get_f64(d, what, "scale")?, get_f64(d, what, "shape")?),
        "lognormal" => Sojourn::lognormal(get_f64(d, what, "mu")?, get_f64(d, what, "sigma")?),
        "geometric" | "geom" => Sojourn::geometric(get_f64(d, what, "mean")?),
        "empirical" => {
            let values: Vec<f64> = match d.get_item("values")? {
                Some(v) => v.extract()?,
                None => return Err(crate::errors::to_py(Error::param(what, "no \"values\"", "a \"values\" list"))),
            };
            let weights: Option<Vec<f64>> = match d.get_item("weights")? {
                Some(w) if !w.is_none() => Some(w.extract()?),
                _ => None,
            };
            let tail = match d.get_item("tail_prob")? {
                Some(p) if !p.is_none() && p.extract::<f64>()? > 0.0 => {
                    Some((p.extract::<f64>()?, get_f64(d, what, "tail_scale")?, get_f64(d, what, "tail_shape")?))
                }
                _ => None,
            };
            Sojourn::empirical(&values, weights.as_deref(), tail)
        }
        other => Err(Error::param(
            what,
            format!("kind={other:?}"),
            "one of exponential, deterministic, pareto, lognormal, geometric, empirical",
        )),
    };
    r.map_err(|e| match e {
        Error::InvalidParameter { name, value, expected } => {
            crate::errors::to_py(Error::InvalidParameter { name: format!("{what}.{name}"), value, expected })
        }
        other => crate::errors::to_py(other),
    })
}

#[pyclass(name = "LossModel", module = "burstlab._core", frozen)]
pub struct PyLossModel {
    pub inner: Mutex<Box<dyn LossModel>>,
}

impl PyLossModel {
    pub fn new(m: Box<dyn LossModel>) -> Self {
        PyLossModel { inner: Mutex::new(m) }
    }

    /// A fresh, reset copy of the model (for a simulator component).
    pub fn fresh(&self) -> Box<dyn LossModel> {
        let mut m = self.inner.lock().expect("loss model lock poisoned").clone_box();
        m.reset();
        m
    }
}

#[pymethods]
impl PyLossModel {
    /// Independent losses with probability `p`.
    #[staticmethod]
    fn bernoulli(p: f64) -> PyResult<Self> {
        Ok(Self::new(Box::new(Bernoulli::new(p).py()?)))
    }

    /// Independent bit errors at rate `ber`: a unit of b bits (+ 8·`overhead_bytes`) is
    /// lost with 1 − (1 − ber)^b; a link layer's units bring their own size, packets on a
    /// plain link are `packet_bytes` long.
    #[staticmethod]
    #[pyo3(signature = (ber, packet_bytes=1028, overhead_bytes=0))]
    fn bit_errors(ber: f64, packet_bytes: u32, overhead_bytes: u32) -> PyResult<Self> {
        Ok(Self::new(Box::new(burstlab_core::loss::BitErrors::new(ber, packet_bytes, overhead_bytes).py()?)))
    }

    /// Gilbert-Elliott per packet: P(G→B) = b, P(B→G) = g, loss probability h_loss in B
    /// and k_loss in G.
    #[staticmethod]
    #[pyo3(signature = (b, g, h_loss=1.0, k_loss=0.0))]
    fn gilbert_elliott(b: f64, g: f64, h_loss: f64, k_loss: f64) -> PyResult<Self> {
        Ok(Self::new(Box::new(GilbertElliott::new(b, g, h_loss, k_loss).py()?)))
    }

    /// Gilbert-Elliott from PRR and μ (Srinivasan et al. §6.2).
    #[staticmethod]
    fn gilbert_elliott_prr_mu(prr: f64, mu: f64) -> PyResult<Self> {
        Ok(Self::new(Box::new(GilbertElliott::from_prr_mu(prr, mu).py()?)))
    }

    /// Deterministic drop list: 1-based packet numbers (Pentikousis & Badr §2), repeating every
    /// `period` packets if given.
    #[staticmethod]
    #[pyo3(signature = (drops, period=None))]
    fn deterministic(drops: Vec<u64>, period: Option<u64>) -> PyResult<Self> {
        Ok(Self::new(Box::new(DeterministicList::new(&drops, period).py()?)))
    }

    /// Continuous-time two-state Markov chain, rate-based (Pentikousis & Badr Fig. 1a): mean sojourns
    /// in seconds and a drop probability per state. Packet mode: one packet every
    /// `packet_interval` seconds.
    #[staticmethod]
    #[pyo3(signature = (mean_good, mean_bad, loss_good=0.0, loss_bad=1.0, packet_interval=0.001))]
    fn markov_ct(mean_good: f64, mean_bad: f64, loss_good: f64, loss_bad: f64, packet_interval: f64) -> PyResult<Self> {
        let iv = secs("packet_interval", packet_interval)?;
        Ok(Self::new(Box::new(markov_ct(mean_good, mean_bad, loss_good, loss_bad, iv).py()?)))
    }

    /// Temporal ON/OFF (Pentikousis & Badr §2): exponential periods; every packet in transit during
    /// a bad period is lost.
    #[staticmethod]
    #[pyo3(signature = (mean_good, mean_bad, packet_interval=0.001))]
    fn on_off(mean_good: f64, mean_bad: f64, packet_interval: f64) -> PyResult<Self> {
        let iv = secs("packet_interval", packet_interval)?;
        Ok(Self::new(Box::new(on_off(mean_good, mean_bad, iv).py()?)))
    }

    /// Two-state semi-Markov channel with arbitrary sojourn laws (dicts, seconds);
    /// `temporal=True` is the ON/OFF reading (then loss_good = 0, loss_bad = 1).
    #[staticmethod]
    #[pyo3(signature = (good, bad, loss_good=0.0, loss_bad=1.0, temporal=false, packet_interval=0.001))]
    fn semi_markov(
        good: &Bound<'_, PyDict>,
        bad: &Bound<'_, PyDict>,
        loss_good: f64,
        loss_bad: f64,
        temporal: bool,
        packet_interval: f64,
    ) -> PyResult<Self> {
        let iv = secs("packet_interval", packet_interval)?;
        let mode = if temporal { TimeMode::Temporal } else { TimeMode::Rate };
        let m = SemiMarkov::new(sojourn_from_dict("good", good)?, sojourn_from_dict("bad", bad)?, loss_good, loss_bad, mode, iv).py()?;
        Ok(Self::new(Box::new(m)))
    }

    /// VDDP (Pentikousis & Badr §2, Fig. 1b): exponential main sojourns (seconds), ON share
    /// (`drop_*`) and mean ON+OFF sub-cycle (`cycle_*`, seconds) per main state.
    #[staticmethod]
    #[pyo3(signature = (mean_a, mean_b, drop_a, drop_b, cycle_a, cycle_b, packet_interval=0.001))]
    #[allow(clippy::too_many_arguments)]
    fn vddp(mean_a: f64, mean_b: f64, drop_a: f64, drop_b: f64, cycle_a: f64, cycle_b: f64, packet_interval: f64) -> PyResult<Self> {
        let iv = secs("packet_interval", packet_interval)?;
        Ok(Self::new(Box::new(Vddp::exponential(mean_a, mean_b, drop_a, drop_b, cycle_a, cycle_b, iv).py()?)))
    }

    /// Trace replay; `slot` (seconds) makes it time-indexed (Ttem); `end` is one of
    /// "wrap", "deliver", "drop", "hold".
    #[staticmethod]
    #[pyo3(signature = (trace, end="wrap", slot=None))]
    fn replay(trace: &crate::trace::PyBitTrace, end: &str, slot: Option<f64>) -> PyResult<Self> {
        let slot = slot.map(|s| secs("slot", s)).transpose()?;
        let end = EndBehavior::parse(end).py()?;
        Ok(Self::new(Box::new(Replay::new(trace.inner.clone(), slot, end).py()?)))
    }

    /// A replay keyed by what each packet is (`loss/keyed.rs`, docs/shell.md): entry i says
    /// whether transmission `tx[i]` (0: the first) of the packet of flow `flow[i]`, kind
    /// `kind[i]` (0 data segment, 1 ACK, 2 control, 3 other) and number `num[i]` (the
    /// simulator: a data segment's number, an ACK's cumulative segment) is lost. The
    /// simulator asks it with each packet's key; a key it does not hold is decided by
    /// `otherwise` (a loss model, per packet, on the link's loss stream) or, without one,
    /// delivered.
    #[staticmethod]
    #[pyo3(signature = (flow, kind, num, tx, lost, otherwise=None))]
    fn keyed_replay(
        flow: PyReadonlyArray1<'_, u32>,
        kind: PyReadonlyArray1<'_, u8>,
        num: PyReadonlyArray1<'_, u64>,
        tx: PyReadonlyArray1<'_, u32>,
        lost: PyReadonlyArray1<'_, bool>,
        otherwise: Option<PyRef<'_, PyLossModel>>,
    ) -> PyResult<Self> {
        let mut r = KeyedReplay::new(flow.as_slice()?, kind.as_slice()?, num.as_slice()?, tx.as_slice()?, lost.as_slice()?).py()?;
        if let Some(m) = otherwise {
            if m.inner.lock().expect("loss model lock poisoned").as_keyed().is_some() {
                return Err(crate::errors::to_py(Error::param("otherwise", "keyed-replay", "a loss model that is not itself a keyed replay")));
            }
            r = r.otherwise(m.fresh());
        }
        Ok(Self::new(Box::new(r)))
    }

    /// k-state Markov-modulated losses (an HMM with binary emissions): transition matrix,
    /// initial law and a loss probability per state.
    #[staticmethod]
    fn hmm(transmat: Vec<Vec<f64>>, startprob: Vec<f64>, loss: Vec<f64>) -> PyResult<Self> {
        Ok(Self::new(Box::new(MarkovModulated::new(transmat, startprob, loss).py()?)))
    }

    /// Run-length model: success runs and loss bursts (packets) from the given laws.
    #[staticmethod]
    fn run_length(success: &Bound<'_, PyDict>, burst: &Bound<'_, PyDict>) -> PyResult<Self> {
        Ok(Self::new(Box::new(RunLength::new(sojourn_from_dict("success", success)?, sojourn_from_dict("burst", burst)?))))
    }

    /// k-state semi-Markov chain over packets (a hidden semi-Markov model): jump matrix
    /// (row i: the next state after leaving i), initial law, one duration law per state
    /// (dicts as `run_length` takes them, packets) and a loss probability per state.
    #[staticmethod]
    fn hsmm(jump: Vec<Vec<f64>>, start: Vec<f64>, durations: Vec<Bound<'_, PyDict>>, loss: Vec<f64>) -> PyResult<Self> {
        let laws = durations.iter().enumerate().map(|(i, d)| sojourn_from_dict(&format!("durations[{i}]"), d)).collect::<PyResult<Vec<_>>>()?;
        Ok(Self::new(Box::new(SemiMarkovChain::new(jump, start, laws, loss).py()?)))
    }

    /// Stationary block bootstrap of `trace` (Politis & Romano): blocks starting at uniform
    /// entries, read circularly, geometric lengths with mean `mean_block` packets.
    #[staticmethod]
    fn bootstrap(trace: &crate::trace::PyBitTrace, mean_block: f64) -> PyResult<Self> {
        Ok(Self::new(Box::new(BlockBootstrap::new(trace.inner.clone(), mean_block).py()?)))
    }

    /// Long-run fraction of time a zero-length packet would be lost (time models), or None.
    fn time_loss_fraction(&self) -> Option<f64> {
        self.inner.lock().expect("loss model lock poisoned").time_loss_fraction()
    }

    /// Time mode on a fresh copy: for each i, is a packet in transit during
    /// [starts[i], ends[i]] (seconds, `starts` non-decreasing) lost?
    fn lost_in_transit_many<'py>(
        &self,
        py: Python<'py>,
        starts: PyReadonlyArray1<'_, f64>,
        ends: PyReadonlyArray1<'_, f64>,
        seed: u64,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let s = starts.as_array();
        let e = ends.as_array();
        if s.len() != e.len() {
            return Err(crate::errors::to_py(Error::param("ends", e.len(), &format!("{} entries, as many as starts", s.len()))));
        }
        let mut iv = Vec::with_capacity(s.len());
        let mut prev = 0u64;
        for (i, (&a, &b)) in s.iter().zip(e.iter()).enumerate() {
            if !(a.is_finite() && a >= 0.0 && b.is_finite() && b >= a) {
                return Err(crate::errors::to_py(Error::param("starts", format!("[{a}, {b}] at {i}"), "finite 0 ≤ start ≤ end")));
            }
            let (ta, tb) = (time::from_secs_f64(a), time::from_secs_f64(b));
            if ta < prev {
                return Err(crate::errors::to_py(Error::param("starts", a, "non-decreasing start times")));
            }
            prev = ta;
            iv.push((ta, tb));
        }
        let mut m = self.fresh();
        let out = py.allow_threads(move || {
            let mut r = rng::from_seed(seed);
            iv.into_iter().map(|(a, b)| m.lost_in_transit(a, b, &mut r)).collect::<Vec<bool>>()
        });
        Ok(out.into_pyarray(py))
    }

    /// Packet mode on a fresh copy: the fates of `n` packets asked one at a time
    /// (`lost_packet`, True = lost), as a link in packet mode draws them on the stream
    /// seeded `seed`. The same distribution as `sample`, whose faster samplers consume the
    /// stream differently, so not the same sequence for a seed.
    fn lost_packets_many<'py>(&self, py: Python<'py>, n: &Bound<'_, PyAny>, seed: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let n = crate::errors::whole::<usize>("n", n, "a number of packets from 0 to 2^64 − 1")?;
        let seed = crate::errors::whole::<u64>("seed", seed, "a whole number from 0 to 2^64 − 1")?;
        let mut out: Vec<bool> = Vec::new();
        out.try_reserve_exact(n).map_err(|_| pyo3::exceptions::PyMemoryError::new_err(format!("{n} packets' fates do not fit in memory")))?;
        let mut m = self.fresh();
        let out = py.allow_threads(move || {
            let mut r = rng::from_seed(seed);
            out.extend((0..n).map(|_| m.lost_packet(&mut r)));
            out
        });
        Ok(out.into_pyarray(py))
    }

    #[getter]
    fn name(&self) -> &'static str {
        self.inner.lock().expect("loss model lock poisoned").name()
    }

    /// Stationary packet loss probability, or None.
    fn mean_loss(&self) -> Option<f64> {
        self.inner.lock().expect("loss model lock poisoned").mean_loss()
    }

    /// `n` packets from a fresh copy of the model, seeded by `seed` (1 = delivered).
    /// The packed trace is reserved first: a size the machine cannot hold is a
    /// MemoryError naming it, never an abort.
    fn sample(&self, py: Python<'_>, n: &Bound<'_, PyAny>, seed: &Bound<'_, PyAny>) -> PyResult<PyBitTrace> {
        let n = crate::errors::whole::<usize>("n", n, "a number of packets from 0 to 2^64 − 1")?;
        let seed = crate::errors::whole::<u64>("seed", seed, "a whole number from 0 to 2^64 − 1")?;
        let mut t = BitTrace::try_with_capacity(n, &format!("sampling {n} packets"))
            .map_err(|e| crate::errors::to_py(e))?;
        let mut m = self.fresh();
        let t = py.allow_threads(move || {
            let mut r = rng::from_seed(seed);
            m.sample_into(n, &mut r, &mut t);
            t
        });
        Ok(t.into())
    }

    fn __repr__(&self) -> String {
        format!("LossModel({:?})", self.inner.lock().expect("loss model lock poisoned"))
    }
}

/// The loss models a spec string names, as each model file declares them
/// (`burstlab_core::loss::registry::MODELS`): name, aliases, help, reference, forms and parameters
/// (the TCP table's fields, with `kind` as a spec writes it, `default` as text, and `required`).
#[pyfunction]
fn loss_specs<'py>(py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    registry::MODELS
        .iter()
        .map(|m| {
            let d = PyDict::new(py);
            d.set_item("name", m.name)?;
            d.set_item("aliases", m.aliases.to_vec())?;
            d.set_item("help", m.help)?;
            d.set_item("reference", m.reference)?;
            d.set_item("forms", m.forms.iter().map(|f| f.to_vec()).collect::<Vec<_>>())?;
            let params = m
                .params
                .iter()
                .map(|p| {
                    let pd = PyDict::new(py);
                    pd.set_item("name", p.spec.name)?;
                    pd.set_item("component", p.spec.component)?;
                    pd.set_item("kind", p.kind.name())?;
                    pd.set_item("unit", p.spec.unit)?;
                    pd.set_item("min", p.spec.min.map(|b| (b.value, b.inclusive)))?;
                    pd.set_item("max", p.spec.max.map(|b| (b.value, b.inclusive)))?;
                    pd.set_item("range", p.spec.range_text())?;
                    pd.set_item("help", p.spec.help)?;
                    pd.set_item("reference", p.spec.reference)?;
                    pd.set_item("choices", match p.kind {
                        spec::LossKind::Choice(c) => Some(c.to_vec()),
                        _ => None,
                    })?;
                    pd.set_item("default", match p.default {
                        spec::SpecDefault::Is(v) => Some(v),
                        _ => None,
                    })?;
                    pd.set_item("required", p.default == spec::SpecDefault::Required)?;
                    Ok(pd)
                })
                .collect::<PyResult<Vec<_>>>()?;
            d.set_item("params", params)?;
            Ok(d)
        })
        .collect()
}

/// A loss spec string read against the declarations (`registry::parse`): the model's name and a
/// dict of its parameters' values (given or default; None when left out). A law is a dict as
/// `LossModel.semi_markov` takes it. An error is a `ParameterError` naming what is wrong.
#[pyfunction]
fn read_loss_spec<'py>(py: Python<'py>, text: &str) -> PyResult<(&'static str, Bound<'py, PyDict>)> {
    let (model, values) = registry::parse(text).map_err(|e| crate::errors::ParameterError::new_err(e.0))?;
    let d = PyDict::new(py);
    for (name, v) in values {
        match v {
            spec::SpecValue::Real(x) => d.set_item(name, x)?,
            spec::SpecValue::Int(n) => d.set_item(name, n)?,
            spec::SpecValue::Flag(b) => d.set_item(name, b)?,
            spec::SpecValue::Law(kind, args) => {
                let law = PyDict::new(py);
                law.set_item("kind", kind)?;
                for (k, x) in args {
                    law.set_item(k, x)?;
                }
                d.set_item(name, law)?
            }
            spec::SpecValue::Packets(v) => d.set_item(name, v)?,
            spec::SpecValue::Text(t) => d.set_item(name, t)?,
            spec::SpecValue::Absent => d.set_item(name, py.None())?,
        }
    }
    Ok((model.name, d))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyLossModel>()?;
    m.add_function(wrap_pyfunction!(loss_specs, m)?)?;
    m.add_function(wrap_pyfunction!(read_loss_spec, m)?)?;
    Ok(())
}
