//! The discrete-event simulator: a scenario ([`scenario::Scenario`]) in, a result
//! ([`crate::results::SimResult`]) out. See `docs/simulator.md`.
pub mod engine;
pub mod event;
pub mod scenario;

pub use engine::{run, run_logged, LogRec};
pub use scenario::{AckLoss, AckPath, LinkConfig, Scenario, SlottedConfig, TcpConfig, Variant, Workload};

#[cfg(test)]
pub(crate) mod validation;
