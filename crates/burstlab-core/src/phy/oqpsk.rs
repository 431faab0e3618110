//! IEEE 802.15.4 2.4 GHz O-QPSK (250 kb/s, 16-ary orthogonal DSSS symbols of 4 bits, 2 per
//! byte): two published curves.
//!
//! **ns-3** (`LrWpanErrorModel`, after IEEE 802.15.4-2006 Annex E): the bit error of 16-ary
//! orthogonal signalling with 32-chip sequences,
//! BER = (8/15)·(1/16)·Σ_{k=2}^{16} (−1)^k C(16,k) exp(20·SNR·(1/k − 1)), then (1 − BER)^bits.
//!
//! **CPM** (TinyOS TOSSIM's CC2420 fit, `CpmModelC.nc`, `prr_estimate_from_snr`; Lee, Cerpa
//! and Levis): a symbol error ½·erfc(β₁·√(|SNR − β₂|/2)) with β₁ = 1.3687, β₂ = 0.9187, and
//! (1 − Pse)^symbols with 2 symbols per byte (CPM's own 23-byte frame is its 46 symbols). Its
//! |SNR − β₂| makes the curve rise again to about 1 % success below SNR ≈ −0.37 dB, as CPM
//! does; the synthetic TOSSIM links (`burstlab.datasets.tossim`) use the same curve.

/// Which 802.15.4 curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OqpskModel {
    Ns3,
    Cpm,
}

/// CPM's CC2420 constants.
pub const CPM_BETA1: f64 = 1.3687;
pub const CPM_BETA2: f64 = 0.9187;

/// ln of the probability that `nbits` bits (a whole number of bytes for CPM) all survive at
/// `snr` (linear).
pub fn ln_success(model: OqpskModel, snr: f64, nbits: f64) -> f64 {
    match model {
        OqpskModel::Ns3 => {
            let mut sum = 0.0;
            let mut c = 1.0f64; // C(16, k), built up from C(16, 0)
            for k in 1..=16u32 {
                c = c * (17 - k) as f64 / k as f64;
                if k >= 2 {
                    let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                    sum += sign * c * (20.0 * snr * (1.0 / k as f64 - 1.0)).exp();
                }
            }
            let ber = (sum * 8.0 / 15.0 / 16.0).clamp(0.0, 1.0);
            nbits * (-ber).ln_1p()
        }
        OqpskModel::Cpm => {
            let x = (snr - CPM_BETA2).abs();
            let pse = 0.5 * super::erfc(CPM_BETA1 * (x / 2.0).sqrt());
            (nbits / 4.0) * (-pse).ln_1p()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpm_matches_tossim_curve_for_23_bytes() {
        // CPM at SNR 2 dB for its 46-symbol frame: (1 − ½erfc(β₁√(|10^0.2 − β₂|/2)))^46
        let snr = 10f64.powf(0.2);
        let pse = 0.5 * crate::phy::erfc(CPM_BETA1 * ((snr - CPM_BETA2).abs() / 2.0).sqrt());
        let want = (1.0 - pse).powi(46);
        assert!((ln_success(OqpskModel::Cpm, snr, 23.0 * 8.0).exp() - want).abs() < 1e-12);
    }

    #[test]
    fn ns3_curve_is_a_probability_and_falls_with_snr() {
        let mut last = 0.0;
        for db in -10..10 {
            let v = ln_success(OqpskModel::Ns3, 10f64.powf(db as f64 / 10.0), 1.0).exp();
            assert!((0.0..=1.0).contains(&v) && v >= last - 1e-12, "{db} dB: {v}");
            last = v;
        }
        // at 0 dB the bit error is small but not negligible (802.15.4 needs little SNR)
        let ber0 = 1.0 - ln_success(OqpskModel::Ns3, 1.0, 1.0).exp();
        assert!(ber0 > 1e-6 && ber0 < 1e-2, "{ber0}");
    }
}
