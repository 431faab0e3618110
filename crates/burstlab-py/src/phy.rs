//! The PHY error-rate curves for Python (`burstlab.phy`): a frame's error rate and a chunk's
//! success rate from the SNR, the mode and the length (`burstlab_core::phy`).
use crate::errors::{to_py, IntoPyResult};
use burstlab_core::phy::{ErrorModel, PhyMode, MODES};
use burstlab_core::Error;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

fn model(ofdm: &str, cck: &str, oqpsk: &str, preamble: &str) -> PyResult<ErrorModel> {
    ErrorModel::from_names(ofdm, cck, oqpsk, preamble).py()
}

/// Frame error rate of a PSDU of `psdu_bytes` in `mode` at each SNR (dB): PHY header and
/// data field (docs/phy.md).
#[pyfunction]
#[pyo3(signature = (mode, snr_db, psdu_bytes, ofdm="nist", cck="integral", oqpsk="ns3", preamble="long"))]
#[allow(clippy::too_many_arguments)]
fn phy_frame_error<'py>(
    py: Python<'py>,
    mode: &str,
    snr_db: PyReadonlyArray1<'_, f64>,
    psdu_bytes: u32,
    ofdm: &str,
    cck: &str,
    oqpsk: &str,
    preamble: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let m = model(ofdm, cck, oqpsk, preamble)?;
    let md = PhyMode::by_name(mode).py()?;
    let snr = snr_db.as_slice()?;
    if let Some(bad) = snr.iter().find(|x| x.is_nan()) {
        return Err(to_py(Error::param("snr_db", bad, "numbers (dB)")));
    }
    Ok(snr.iter().map(|&db| m.frame_error(md, db, psdu_bytes)).collect::<Vec<f64>>().into_pyarray(py))
}

/// Probability that `nbits` bits sent in `mode` at each SNR (linear ratio, as ns-3's
/// `GetChunkSuccessRate` takes it) all survive.
#[pyfunction]
#[pyo3(signature = (mode, snr, nbits, ofdm="nist", cck="integral", oqpsk="ns3"))]
fn phy_chunk_success<'py>(
    py: Python<'py>,
    mode: &str,
    snr: PyReadonlyArray1<'_, f64>,
    nbits: f64,
    ofdm: &str,
    cck: &str,
    oqpsk: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let m = model(ofdm, cck, oqpsk, "long")?;
    let md = PhyMode::by_name(mode).py()?;
    if !(nbits.is_finite() && nbits >= 0.0) {
        return Err(to_py(Error::param("nbits", nbits, "a non-negative number of bits")));
    }
    let snr = snr.as_slice()?;
    if let Some(bad) = snr.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
        return Err(to_py(Error::param("snr", bad, "non-negative linear ratios")));
    }
    Ok(snr.iter().map(|&s| m.chunk_ln_success(md, s, nbits).exp()).collect::<Vec<f64>>().into_pyarray(py))
}

/// Every mode as (name, data rate in bits/s).
#[pyfunction]
fn phy_modes() -> Vec<(&'static str, u64)> {
    MODES.iter().map(|m| (m.name, m.rate_bps)).collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(phy_frame_error, m)?)?;
    m.add_function(wrap_pyfunction!(phy_chunk_success, m)?)?;
    m.add_function(wrap_pyfunction!(phy_modes, m)?)?;
    Ok(())
}
