//! `LossModel`: a Rust loss model handed to Python, to sample traces or to pass to the
//! simulator (which clones it per link direction).
use crate::errors::IntoPyResult;
use crate::trace::PyBitTrace;
use burstlab_core::loss::{Bernoulli, GilbertElliott, LossModel};
use burstlab_core::rng;
use burstlab_core::trace::BitTrace;
use pyo3::prelude::*;
use std::sync::Mutex;

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

    /// Gilbert-Elliott per packet: P(G→B) = b, P(B→G) = g, loss probability h_loss in B
    /// and k_loss in G.
    #[staticmethod]
    #[pyo3(signature = (b, g, h_loss=1.0, k_loss=0.0))]
    fn gilbert_elliott(b: f64, g: f64, h_loss: f64, k_loss: f64) -> PyResult<Self> {
        Ok(Self::new(Box::new(GilbertElliott::new(b, g, h_loss, k_loss).py()?)))
    }

    /// Gilbert-Elliott from PRR and μ (seed 000 §6.2).
    #[staticmethod]
    fn gilbert_elliott_prr_mu(prr: f64, mu: f64) -> PyResult<Self> {
        Ok(Self::new(Box::new(GilbertElliott::from_prr_mu(prr, mu).py()?)))
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
    fn sample(&self, py: Python<'_>, n: usize, seed: u64) -> PyBitTrace {
        let mut m = self.fresh();
        py.allow_threads(move || {
            let mut r = rng::from_seed(seed);
            let mut t = BitTrace::with_capacity(n);
            m.sample_into(n, &mut r, &mut t);
            t
        })
        .into()
    }

    fn __repr__(&self) -> String {
        format!("LossModel({:?})", self.inner.lock().expect("loss model lock poisoned"))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyLossModel>()?;
    Ok(())
}
