//! burstlab._core: thin PyO3 wrappers over burstlab-core. Errors become Python
//! exceptions; no panic crosses the boundary.
use pyo3::prelude::*;

mod convert;
mod errors;
mod linklayer;
mod loss;
mod network;
mod phy;
mod shell;
mod sim;
mod trace;
mod watch;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // A hash of the engine's sources (build.rs): part of every results-store key.
    m.add("ENGINE_FINGERPRINT", env!("BURSTLAB_ENGINE_FINGERPRINT"))?;
    errors::register(m)?;
    trace::register(m)?;
    loss::register(m)?;
    sim::register(m)?;
    network::register(m)?;
    linklayer::register(m)?;
    phy::register(m)?;
    shell::register(m)?;
    Ok(())
}
