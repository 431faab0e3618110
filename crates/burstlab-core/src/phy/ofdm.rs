//! IEEE 802.11a/g OFDM chunk success rates (clauses 17 and 19, ERP-OFDM): the two published
//! forms ns-3 offers, NIST's and YANS's.
//!
//! **NIST** (Pei and Henderson, "Validation of OFDM error rate model in ns-3", 2010): the
//! uncoded bit error of the subcarrier modulation at the SNR (BPSK ½·erfc(√SNR), QPSK
//! ½·erfc(√(SNR/2)), M-QAM (√M−1)/(√M·log₂√M)·erfc(√(SNR/(2(M−1)/3)))), then the
//! convolutional code's first-event error bound from the Bhattacharyya parameter
//! D = √(4p(1−p)) with the distance spectra of the rate ½ code and its punctured rates 2/3
//! and 3/4 (Frenger et al.; Haccoun and Bégin for 5/6), and (1 − Pe)^bits.
//!
//! **YANS** (Lacage and Henderson, "Yet Another Network Simulator", 2006): the uncoded error
//! at Eb/N0 = SNR · 20 MHz / coded rate (BPSK ½·erfc(√(Eb/N0)); M-QAM the square-QAM symbol
//! error spread over log₂M bits), then the union bound over the code's free distance d and
//! d + 1 (a_d, a_{d+1} terms, hard decisions: P_d = Σ_{i>d/2} C(d,i)pⁱ(1−p)^{d−i}, half the
//! tie at even d), and (1 − Pe)^bits.
use super::erfc;

/// Which published OFDM form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfdmModel {
    Nist,
    Yans,
}

/// An OFDM mode's subcarrier constellation (2 = BPSK, 4 = QPSK, 16, 64) and code rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ofdm {
    pub constellation: u32,
    /// Code rate numerator and denominator (1/2, 2/3, 3/4).
    pub code: (u32, u32),
    /// Data rate, bits/s (the coded rate is data × den / num).
    pub rate_bps: u64,
}

impl Ofdm {
    fn coded_rate(&self) -> f64 {
        self.rate_bps as f64 * self.code.1 as f64 / self.code.0 as f64
    }
}

// ------------------------------------------------------------------------------- NIST
fn nist_uncoded(m: u32, snr: f64) -> f64 {
    match m {
        2 => 0.5 * erfc(snr.sqrt()),
        4 => 0.5 * erfc((snr / 2.0).sqrt()),
        _ => {
            let z = (snr / (2.0 * (m as f64 - 1.0) / 3.0)).sqrt();
            let sq = (m as f64).sqrt();
            (sq - 1.0) / (sq * sq.log2()) * erfc(z)
        }
    }
}

/// First-event error bound of the punctured rate-½ code (NIST's `CalculatePe`).
fn nist_pe(p: f64, code: (u32, u32)) -> f64 {
    let d = (4.0 * p * (1.0 - p)).sqrt();
    let series = |b: f64, first: i32, coeffs: &[f64]| -> f64 {
        coeffs.iter().enumerate().map(|(i, c)| c * d.powi(first + i as i32)).sum::<f64>() / (2.0 * b)
    };
    match code {
        (1, 2) => series(1.0, 10, &[36.0, 0.0, 211.0, 0.0, 1404.0, 0.0, 11633.0, 0.0, 77433.0, 0.0, 502690.0, 0.0, 3322763.0, 0.0, 21292910.0, 0.0, 134365911.0]),
        (2, 3) => series(2.0, 6, &[3.0, 70.0, 285.0, 1276.0, 6160.0, 27128.0, 117019.0, 498860.0, 2103891.0, 8784123.0]),
        (3, 4) => series(3.0, 5, &[42.0, 201.0, 1492.0, 10469.0, 62935.0, 379644.0, 2253373.0, 13073811.0, 75152755.0, 428005675.0]),
        (5, 6) => series(5.0, 4, &[92.0, 528.0, 8694.0, 79453.0, 792114.0, 7375573.0, 67884974.0, 610875423.0, 5427275376.0, 47664215639.0]),
        _ => 1.0,
    }
}

fn nist_ln_success(mode: &Ofdm, snr: f64, nbits: f64) -> f64 {
    let ber = nist_uncoded(mode.constellation, snr);
    if ber == 0.0 {
        return 0.0;
    }
    let pe = nist_pe(ber, mode.code).min(1.0);
    nbits * (-pe).ln_1p()
}

// ------------------------------------------------------------------------------- YANS
fn binomial(k: u32, p: f64, n: u32) -> f64 {
    let mut c = 1.0;
    for i in 0..k {
        c = c * (n - i) as f64 / (i + 1) as f64;
    }
    c * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
}

/// Probability that hard decisions over `d` bits choose the wrong path: i errors for i from
/// ⌊d/2⌋+1 to d − 1 (YANS's sum stops below d; the all-wrong term is < p^d), and half the
/// ties at even d.
fn pd(ber: f64, d: u32) -> f64 {
    let mut s: f64 = ((d / 2 + 1)..d).map(|i| binomial(i, ber, d)).sum();
    if d.is_multiple_of(2) {
        s += 0.5 * binomial(d / 2, ber, d);
    }
    s
}

fn yans_ln_success(mode: &Ofdm, snr: f64, nbits: f64) -> f64 {
    let ebno = snr * 20e6 / mode.coded_rate();
    let m = mode.constellation;
    let ber = if m == 2 {
        0.5 * erfc(ebno.sqrt())
    } else {
        let mf = m as f64;
        let z = (1.5 * mf.log2() * ebno / (mf - 1.0)).sqrt();
        let z1 = (1.0 - 1.0 / mf.sqrt()) * erfc(z);
        (1.0 - (1.0 - z1).powi(2)) / mf.log2()
    };
    if ber == 0.0 {
        return 0.0;
    }
    // (d_free, a_d, a_{d+1}) of the rate-½ K=7 code and its punctured rates (Frenger et al.)
    let (dfree, ad, ad1) = match (m, mode.code) {
        (2, (1, 2)) => (10, 11.0, 0.0),
        (2, _) => (5, 8.0, 0.0),
        (_, (1, 2)) => (10, 11.0, 0.0),
        (64, (2, 3)) => (6, 1.0, 16.0),
        (64.., (5, 6)) => (4, 14.0, 69.0),
        _ => (5, 8.0, 31.0),
    };
    let mut pmu = ad * pd(ber, dfree);
    if m != 2 {
        pmu += ad1 * pd(ber, dfree + 1);
    }
    nbits * (-pmu.min(1.0)).ln_1p()
}

/// ln of the probability that `nbits` bits sent in `mode` at `snr` (linear) all survive.
pub fn ln_success(model: OfdmModel, mode: &Ofdm, snr: f64, nbits: f64) -> f64 {
    match model {
        OfdmModel::Nist => nist_ln_success(mode, snr, nbits),
        OfdmModel::Yans => yans_ln_success(mode, snr, nbits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R6: Ofdm = Ofdm { constellation: 2, code: (1, 2), rate_bps: 6_000_000 };
    const R54: Ofdm = Ofdm { constellation: 64, code: (3, 4), rate_bps: 54_000_000 };

    #[test]
    fn yans_pd_known_answers() {
        // d = 3: P = C(3,2)p²(1−p) + … the loop covers i in [2, 3): 3p²(1−p); d = 4: i = 3 and ½·C(4,2)p²(1−p)²
        let p: f64 = 0.1;
        assert!((pd(p, 3) - 3.0 * p * p * (1.0 - p)).abs() < 1e-15);
        assert!((pd(p, 4) - (4.0 * p.powi(3) * (1.0 - p) + 0.5 * 6.0 * p * p * (1.0 - p).powi(2))).abs() < 1e-15);
    }

    #[test]
    fn nist_bpsk_half_known_answer() {
        // SNR 1: BER = ½erfc(1) = 0.0786496…, D = √(4p(1−p)) and the d^10 term dominates
        let p = 0.5 * erfc(1.0);
        assert!((p - 0.078_649_603_525_143_2).abs() < 1e-12);
        let d = (4.0 * p * (1.0 - p)).sqrt();
        assert!(nist_pe(p, (1, 2)) > 0.5 * 36.0 * d.powi(10));
    }

    #[test]
    fn faster_modes_need_more_snr() {
        for model in [OfdmModel::Nist, OfdmModel::Yans] {
            // the SNR (dB) where 1000 bytes have a 50 % chance
            let at50 = |mode: &Ofdm| (0..4000).map(|i| -10.0 + i as f64 * 0.01).find(|db: &f64| ln_success(model, mode, 10f64.powf(db / 10.0), 8000.0) > 0.5f64.ln()).unwrap();
            assert!(at50(&R54) > at50(&R6) + 10.0, "{model:?}: {} vs {}", at50(&R54), at50(&R6));
        }
    }
}
