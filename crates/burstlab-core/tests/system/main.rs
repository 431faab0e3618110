//! System tests of burstlab-core: whole simulations through the public API (the engine
//! with TCP, links, link layers and RED; LT-TCP; the papers' scenarios; congestion-window
//! trajectories; the single-link regression fixture). Unit tests stay beside their code.
//! One test binary (one link step for all of them).
mod link_layer;
mod codel;
mod lt_tcp;
mod network;
mod pacing;
mod pool;
mod papers;
mod red;
mod regression;
mod trajectories;
mod validation;
