//! The Ideal-estimate TCP of Martignon & Capone §V: "a TCP which has a perfect knowledge
//! of the exact bandwidth available along the path in every instant and uses this value to
//! set the ssthresh accordingly": TIBET's rule (ssthresh = B·RTT_min after three duplicate
//! ACKs or a timeout; cwnd = ssthresh after three duplicate ACKs, 1 segment after a
//! timeout) with B the flow's fair share, which the engine computes into
//! [`Tcb::fair_share_bps`] (on the wire; the payload share is B·MSS/(MSS + headers)).
//! RTT_min is the smallest RTT sample, as for TIBET. Growth is Reno's.
use super::reno::Reno;
use super::{bw_window, CongestionControl};
use crate::tcp::config::TcpConfig;
use crate::tcp::{AckInfo, Tcb};

#[derive(Clone, Debug)]
pub struct Ideal {
    reno: Reno,
    /// Payload bytes per wire byte of a full segment.
    payload_share: f64,
}

impl Ideal {
    pub fn new(t: &TcpConfig) -> Self {
        Ideal { reno: Reno::from_config(t), payload_share: t.mss as f64 / (t.mss + t.wire_header_bytes()) as f64 }
    }
}

impl CongestionControl for Ideal {
    fn name(&self) -> &'static str {
        "ideal"
    }

    fn on_ack(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        self.reno.grow(tcb, ack);
    }

    fn ssthresh_on_loss(&mut self, tcb: &Tcb) -> u64 {
        match tcb.min_rtt {
            Some(r) if tcb.fair_share_bps > 0 => bw_window(tcb.fair_share_bps as f64 / 8.0 * self.payload_share, r, tcb.mss),
            _ => tcb.half_flight(),
        }
    }

    fn on_timeout(&mut self, tcb: &mut Tcb) {
        self.reno.on_timeout(tcb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    /// 10.4 Mb/s on the wire with 1000 + 40-byte packets is 10 Mb/s of payload; × 100 ms =
    /// 125 000 bytes.
    #[test]
    fn ssthresh_is_the_fair_share_window() {
        let mut c = Ideal::new(&TcpConfig::default());
        let mut t = Tcb::for_test(1000, 4000);
        t.fair_share_bps = 10_400_000;
        assert_eq!(c.ssthresh_on_loss(&t), t.half_flight()); // no RTT yet
        t.min_rtt = Some(100 * NS_PER_MS);
        assert_eq!(c.ssthresh_on_loss(&t), 125_000);
        assert_eq!(c.cwnd_after_fast_retransmit(&t, 125_000), 125_000);
    }
}
