//! One direction of a link: a DropTail queue feeding a serialiser of fixed capacity,
//! then a propagation delay ([`queue::Pipe`]), and the loss process that decides each
//! packet's fate ([`channel::LossSource`]).
pub mod capacity;
pub mod channel;
pub mod queue;
pub mod ring;

pub use capacity::Opportunities;
pub use channel::{LossMode, LossSource, LossWindow};
pub use queue::{BufferUnit, InFlight, Pipe, Server, Timing};
