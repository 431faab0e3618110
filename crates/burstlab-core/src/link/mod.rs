//! One direction of a link: a DropTail queue feeding a serialiser of fixed capacity,
//! then a propagation delay ([`queue::Pipe`]), and the loss process that decides each
//! packet's fate ([`channel::LossSource`]).
pub mod channel;
pub mod queue;

pub use channel::{LossMode, LossSource};
pub use queue::{BufferUnit, InFlight, Pipe, Timing};
