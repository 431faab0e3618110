//! Packet-reception traces: packed bits (1 = delivered, 0 = lost) and their statistics
//! (Srinivasan et al. §5.2-5.3, §6.2, §8; Barsocchi et al. §IV).
pub mod bits;
pub mod convergence;
pub mod parse;
pub mod runs;
pub mod stats;
pub mod summary;
pub mod write;

pub use bits::BitTrace;
pub use runs::RunHistogram;
pub use stats::Transitions;
