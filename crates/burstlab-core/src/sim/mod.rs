//! The discrete-event simulator: a network ([`network::Network`]: links and flows over
//! paths of them) or the single-link [`scenario::Scenario`] in, results out. See
//! `docs/simulator.md`.
pub mod engine;
pub mod event;
pub mod mintree;
pub mod network;
pub mod prefetch;
pub mod scenario;
pub mod watch;
pub mod budget;

pub use engine::{run, run_logged, run_network, run_network_logged, run_network_watched, run_watched, LogEvent, LogKind, LogRec, Pkt, PktKind};
pub use network::{FlowKind, FlowSpec, LinkLoss, LinkSpec, Network, OnOff};
pub use watch::{Progress, Watch};
pub use scenario::{AckLoss, AckPath, LinkConfig, Scenario, SenderQueue, SlottedConfig, TcpConfig, Variant, Workload};

