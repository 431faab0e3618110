//! Congestion control: how the window grows and how far it shrinks on loss, separate
//! from loss recovery (which decides what to retransmit). Modelled on ns-3's
//! TcpCongestionOps and smoltcp's `congestion` controllers: every hook defaults to a
//! no-op, so a variant overrides only what it changes. Later variants (Westwood+, TIBET,
//! Vegas, an ideal-estimate TCP, loss-tolerant TCP) get every ACK's timing, RTT sample
//! and bytes acknowledged through [`CongestionControl::on_ack`].
use super::{AckInfo, CaState, Tcb};

pub mod reno;

pub use reno::Reno;

pub trait CongestionControl {
    fn name(&self) -> &'static str;

    /// Every ACK that reaches the sender, new or duplicate, before the sender transmits
    /// in response. Window growth happens here.
    fn on_ack(&mut self, _tcb: &mut Tcb, _ack: &AckInfo) {}

    /// The slow-start threshold after a loss (returns it, does not set it). Default:
    /// RFC 5681 §3.1 equation (4), max(FlightSize/2, 2·SMSS).
    fn ssthresh_on_loss(&self, tcb: &Tcb) -> u64 {
        tcb.half_flight()
    }

    /// A retransmission timeout fired (after the sender set ssthresh and cwnd).
    fn on_timeout(&mut self, _tcb: &mut Tcb) {}

    /// The congestion state changed.
    fn on_state_change(&mut self, _tcb: &mut Tcb, _from: CaState, _to: CaState) {}
}

/// The congestion controllers, as an enum so the per-ACK call is a direct call.
#[derive(Clone, Debug)]
pub enum Cc {
    Reno(Reno),
}

impl Cc {
    #[inline]
    fn inner(&mut self) -> &mut dyn CongestionControl {
        match self {
            Cc::Reno(c) => c,
        }
    }
    #[inline]
    fn inner_ref(&self) -> &dyn CongestionControl {
        match self {
            Cc::Reno(c) => c,
        }
    }
}

impl CongestionControl for Cc {
    fn name(&self) -> &'static str {
        self.inner_ref().name()
    }
    #[inline]
    fn on_ack(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        match self {
            Cc::Reno(c) => c.on_ack(tcb, ack),
        }
    }
    fn ssthresh_on_loss(&self, tcb: &Tcb) -> u64 {
        self.inner_ref().ssthresh_on_loss(tcb)
    }
    fn on_timeout(&mut self, tcb: &mut Tcb) {
        self.inner().on_timeout(tcb)
    }
    fn on_state_change(&mut self, tcb: &mut Tcb, from: CaState, to: CaState) {
        self.inner().on_state_change(tcb, from, to)
    }
}
