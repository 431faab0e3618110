//! Independent bit errors: each bit is received wrongly with probability BER, so a unit of
//! b bits is lost with probability 1 − (1 − BER)^b ([`crate::phy::ber_loss`]). On a link
//! layer's hop every unit brings its own size ([`Unit`]): a 104-byte HARQ fragment is
//! lost far less often than the 1 064-byte frame around it (Subramanian et al.'s
//! LL-HARQ premise). Where no size is given (a plain link: the n-th packet) a unit of
//! `bytes` is assumed. `overhead_bytes` are added to every unit (a PHY header exposed to
//! the same bit errors; 0 by default: the MAC frame alone).
use super::spec::{loss_param, max, min, LossKind, LossModelSpec, SpecDefault};
use super::{LossModel, Unit};
use crate::rng::{uniform, Rng};
use crate::Error;

/// `ber:ber=1e-5[,bytes=1028,overhead=0]`.
pub const SPEC: LossModelSpec = LossModelSpec {
    name: "ber",
    aliases: &["bit-errors", "bit_errors"],
    help: "Independent bit errors: a unit of b bits is lost with 1 − (1 − BER)^b; on an ARQ or HARQ hop each attempt or fragment with its own size, elsewhere a unit of `bytes` (docs/phy.md).",
    reference: "Subramanian et al., Experimental Study of Link and Transport Protocols in Interference-Prone WLAN Environments (size-dependent loss)",
    forms: &[&["ber", "bytes", "overhead"]],
    params: &[
        loss_param("ber", "ber", LossKind::Real, "", SpecDefault::Required, min(0.0), max(0.5), "Bit error rate: the probability that one bit is received wrongly.", ""),
        loss_param("ber", "bytes", LossKind::Int, "bytes", SpecDefault::Is("1028"), None, max(4294967295.0), "Size of a unit that brings none of its own (a packet on a plain link).", ""),
        loss_param("ber", "overhead", LossKind::Int, "bytes", SpecDefault::Is("0"), None, max(4294967295.0), "Bytes added to every unit, exposed to the same bit errors (a PHY header).", ""),
    ],
};

#[derive(Clone, Debug, PartialEq)]
pub struct BitErrors {
    ber: f64,
    /// ln(1 − BER).
    ln_keep: f64,
    bytes: u32,
    overhead_bits: u64,
    /// The last unit size asked about and its loss probability (sizes repeat: data
    /// frames, fragments, ACKs).
    cached: (u32, f64),
}

impl BitErrors {
    pub fn new(ber: f64, bytes: u32, overhead_bytes: u32) -> crate::Result<Self> {
        if !(ber.is_finite() && (0.0..=0.5).contains(&ber)) {
            return Err(Error::param("ber", ber, "a bit error rate in [0, 0.5]"));
        }
        let mut m = BitErrors { ber, ln_keep: (-ber).ln_1p(), bytes, overhead_bits: overhead_bytes as u64 * 8, cached: (u32::MAX, 0.0) };
        m.cached = (u32::MAX, m.unit_loss(u32::MAX));
        Ok(m)
    }

    pub fn ber(&self) -> f64 {
        self.ber
    }

    /// Loss probability of a unit of `bits` bits (plus the overhead).
    #[inline]
    pub fn unit_loss(&self, bits: u32) -> f64 {
        -(((bits as u64 + self.overhead_bits) as f64) * self.ln_keep).exp_m1()
    }

    #[inline]
    fn draw(&mut self, bits: u32, rng: &mut Rng) -> bool {
        if self.cached.0 != bits {
            self.cached = (bits, self.unit_loss(bits));
        }
        uniform(rng) < self.cached.1
    }

    fn packet_bits(&self) -> u32 {
        Unit::bytes(self.bytes as u64).bits
    }
}

impl LossModel for BitErrors {
    fn name(&self) -> &'static str {
        "ber"
    }

    fn lost_packet(&mut self, rng: &mut Rng) -> bool {
        let b = self.packet_bits();
        self.draw(b, rng)
    }

    fn lost_unit(&mut self, unit: Unit, rng: &mut Rng) -> bool {
        self.draw(unit.bits, rng)
    }

    fn lost_unit_in_transit(&mut self, _start: crate::time::Nanos, _end: crate::time::Nanos, unit: Unit, rng: &mut Rng) -> bool {
        self.draw(unit.bits, rng)
    }

    fn reset(&mut self) {}

    /// For units of `bytes` (a plain link's packets).
    fn mean_loss(&self) -> Option<f64> {
        Some(self.unit_loss(self.packet_bits()))
    }

    fn clone_box(&self) -> Box<dyn LossModel> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;

    #[test]
    fn unit_loss_known_answers_and_sizes() {
        let m = BitErrors::new(1e-4, 1000, 0).unwrap();
        // 8 000 bits at 1e-4: 1 − (1 − 1e-4)^8000 = 0.550681…
        assert!((m.mean_loss().unwrap() - (1.0 - (1.0f64 - 1e-4).powi(8000))).abs() < 1e-12);
        assert!((m.unit_loss(800) - (1.0 - (1.0f64 - 1e-4).powi(800))).abs() < 1e-12);
        // The overhead counts toward every unit.
        let o = BitErrors::new(1e-4, 1000, 24).unwrap();
        assert!((o.unit_loss(800) - m.unit_loss(800 + 192)).abs() < 1e-15);
        assert_eq!(BitErrors::new(0.0, 1000, 0).unwrap().unit_loss(1 << 20), 0.0);
        for bad in [-1e-3, 0.6, f64::NAN] {
            assert!(BitErrors::new(bad, 1000, 0).unwrap_err().to_string().contains("ber ="));
        }
        // Sampled per unit: each size at its own rate, within 5 standard errors.
        let mut m = m;
        let mut rng = from_seed(7);
        let n = 200_000;
        for bits in [800u32, 8000, 8512] {
            let lost = (0..n).filter(|_| m.lost_unit(Unit { bits, mode: None }, &mut rng)).count() as f64 / n as f64;
            let p = m.unit_loss(bits);
            assert!((lost - p).abs() < 5.0 * (p * (1.0 - p) / n as f64).sqrt(), "{bits} bits: {lost} vs {p}");
        }
    }
}
