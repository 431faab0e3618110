//! burstlab-core: traces, loss models, links and TCP over lossy, bursty links.
//!
//! Pure Rust, no Python. Conventions (see `docs/architecture.md`):
//! - bits: 1 = delivered (good), 0 = lost (bad);
//! - time: integer nanoseconds ([`time::Nanos`]);
//! - randomness: one seeded stream per component ([`rng::stream`]), so every run is
//!   reproducible from its seed and adding a component never changes another's draws.

pub mod error;
pub mod hist;
pub mod link;
pub mod loss;
pub mod mem;
pub mod param;
pub mod phy;
pub mod results;
pub mod rng;
pub mod shell_key;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod trace;

pub use error::{Error, Result};
