//! IEEE 802.11b DSSS/HR-DSSS chunk success rates (clauses 16 and 18): DBPSK at 1 Mb/s,
//! DQPSK at 2 Mb/s, CCK at 5.5 and 11 Mb/s, in the closed forms ns-3 uses for every error-rate
//! model (`DsssErrorRateModel`; Pei and Henderson, "Validation of ns-3 802.11b PHY model").
//!
//! | rate | symbol | Eb/N0 from the SNR (22 MHz spread) | bit or symbol error |
//! |---|---|---|---|
//! | 1 Mb/s | DBPSK, 1 bit | SNR · 22 | ½·exp(−Eb/N0) |
//! | 2 Mb/s | DQPSK, 2 bits | SNR · 22 / 2 | (√2+1)/√(8π√2) · exp(−(2−√2)·x)/√x |
//! | 5.5 Mb/s | CCK, 4 bits | SNR · 22/1.375 / 4 | 16-ary orthogonal (integral) or the Matlab fit |
//! | 11 Mb/s | CCK, 8 bits | SNR · 22/1.375 / 8 | 256-ary, from the 16-ary error: 1 − (1 − P₁₆)² |
//!
//! ns-3 computes CCK either by numerical integration (built with GSL) or, without GSL, with
//! a Matlab `berfit` of the same curves applied per bit; [`Cck`] chooses, as ns-3's build
//! does (docs/phy.md).
use super::normal_cdf;
use std::f64::consts::{PI, SQRT_2};

/// How CCK's error is computed (ns-3: `HAVE_GSL` or not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cck {
    /// The M-ary orthogonal symbol error by numerical integration (ns-3 built with GSL).
    Integral,
    /// The Matlab fit of the bit error (ns-3 built without GSL): perfect above an SNR of
    /// 10 (linear), hopeless (BER ½) below 0.1.
    MatlabFit,
}

/// 1 Mb/s DBPSK: ln of the probability that `nbits` bits all survive.
pub fn dbpsk_ln_success(snr: f64, nbits: f64) -> f64 {
    let ebn0 = snr * 22.0;
    let ber = 0.5 * (-ebn0).exp();
    nbits * (-ber).ln_1p()
}

/// The DQPSK bit error bound ns-3 uses (`DqpskFunction`).
fn dqpsk(x: f64) -> f64 {
    (SQRT_2 + 1.0) / (8.0 * PI * SQRT_2).sqrt() * (1.0 / x.sqrt()) * (-(2.0 - SQRT_2) * x).exp()
}

/// 2 Mb/s DQPSK. The bound exceeds ½ below Eb/N0 ≈ 0.41 (an SNR of −14.3 dB): it is
/// capped at ½, a coin flip per bit (ns-3 leaves it uncapped there).
pub fn dqpsk_ln_success(snr: f64, nbits: f64) -> f64 {
    let ber = dqpsk(snr * 22.0 / 2.0).min(0.5);
    nbits * (-ber).ln_1p()
}

/// Symbol error of 16-ary orthogonal signalling at energy per symbol `e2` (ns-3's
/// `SymbolErrorProb16Cck`): 1 − ∫_{−β}^{∞} (2Φ(x+β) − 1)^7 φ(x) dx with β = √(2·e2), computed
/// as Φ(−β) + ∫_{−β}^{∞} (1 − (2Φ(x+β) − 1)^7) φ(x) dx so that small errors keep their digits.
fn sep16(e2: f64) -> f64 {
    let beta = (2.0 * e2).sqrt();
    // φ(x) is below 1e-30 past |x| = 12: integrate [−β, 12] by composite Gauss-Legendre
    // (8 points on each of 256 panels), exact to ~1e-12 for these smooth integrands.
    let (a, b) = (-beta, 12.0_f64.max(-beta));
    let panels = 256;
    let h = (b - a) / panels as f64;
    let mut sum = 0.0;
    for p in 0..panels {
        let mid = a + (p as f64 + 0.5) * h;
        for (x, w) in GL8 {
            let t = mid + 0.5 * h * x;
            // 2Φ(t+β) − 1 = 1 − erfc((t+β)/√2); 1 − that^7 without cancellation
            let miss = super::erfc((t + beta) / SQRT_2);
            let not_all = -(7.0 * (-miss).ln_1p()).exp_m1();
            sum += w * 0.5 * h * not_all * (-0.5 * t * t).exp() / (2.0 * PI).sqrt();
        }
    }
    (normal_cdf(-beta) + sum).clamp(0.0, 1.0)
}

/// 8-point Gauss-Legendre nodes and weights on [−1, 1].
const GL8: [(f64, f64); 8] = [
    (-0.960_289_856_497_536_2, 0.101_228_536_290_376_26),
    (-0.796_666_477_413_626_7, 0.222_381_034_453_374_47),
    (-0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (-0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (0.796_666_477_413_626_7, 0.222_381_034_453_374_47),
    (0.960_289_856_497_536_2, 0.101_228_536_290_376_26),
];

/// 5.5 Mb/s CCK (4 bits per symbol). (The fit's constants as published, every digit.)
#[allow(clippy::excessive_precision)]
pub fn cck55_ln_success(snr: f64, nbits: f64, cck: Cck) -> f64 {
    match cck {
        Cck::Integral => {
            let ebn0 = snr * 22.0 / 1.375 / 4.0;
            let sep = sep16(4.0 * ebn0 / 2.0);
            (nbits / 4.0) * (-sep).ln_1p()
        }
        Cck::MatlabFit => {
            let ber = matlab_fit(snr, |s| {
                let (a1, a2, a3, a4) = (5.368_163_434_405_619_5e-1, 3.309_243_002_560_858_6e-3, 4.165_437_236_100_4e-1, 1.028_898_143_435_886_6);
                a1 * (-((s - a2) / a3).powf(a4)).exp()
            });
            nbits * (-ber).ln_1p()
        }
    }
}

/// 11 Mb/s CCK (8 bits per symbol).
#[allow(clippy::excessive_precision)]
pub fn cck11_ln_success(snr: f64, nbits: f64, cck: Cck) -> f64 {
    match cck {
        Cck::Integral => {
            let ebn0 = snr * 22.0 / 1.375 / 8.0;
            let e1 = 8.0 * ebn0 / 2.0;
            let sep = 1.0 - (1.0 - sep16(e1 / 2.0)).powi(2);
            (nbits / 8.0) * (-sep).ln_1p()
        }
        Cck::MatlabFit => {
            let ber = matlab_fit(snr, |s| {
                let (a1, a2, a3) = (7.905_674_226_533_345_6e-3, -1.839_744_939_917_636e-1, 1.074_068_946_870_724_1);
                let (a4, a5, a6) = (1.052_331_690_450_255_3, 3.055_229_874_649_668_7e-1, 2.203_271_512_869_843_5);
                (a1 * s * s + a2 * s + a3) / (s * s * s + a4 * s * s + a5 * s + a6)
            });
            nbits * (-ber).ln_1p()
        }
    }
}

/// The Matlab fits hold between SNR 0.1 and 10 (linear): BER 0 above, ½ below.
fn matlab_fit(snr: f64, fit: impl Fn(f64) -> f64) -> f64 {
    if snr > 10.0 {
        0.0
    } else if snr < 0.1 {
        0.5
    } else {
        fit(snr).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dbpsk_known_answer() {
        // SNR 0.1 (−10 dB): Eb/N0 = 2.2, BER = ½e^−2.2 = 0.05540…; 8 bits survive with (1−BER)^8
        let ber = 0.5 * (-2.2f64).exp();
        assert!((dbpsk_ln_success(0.1, 8.0) - 8.0 * (1.0 - ber).ln()).abs() < 1e-15);
        assert!((ber - 0.055_401_579_18).abs() < 1e-10);
    }

    #[test]
    fn sep16_limits_bounds_and_monotone() {
        // no energy: 16 equally likely symbols, error 15/16
        assert!((sep16(0.0) - 15.0 / 16.0).abs() < 1e-9, "{}", sep16(0.0));
        let mut last = 1.0;
        for i in 1..80 {
            let e2 = i as f64 * 0.5;
            let s = sep16(e2);
            assert!(s <= last + 1e-12);
            last = s;
            // orthogonal signals: one pairwise error Q(√e2) ≤ SEP ≤ the union bound 15·Q(√e2)
            let q = normal_cdf(-e2.sqrt());
            if e2 >= 4.0 {
                assert!(s >= q * (1.0 - 1e-6) && s <= 15.0 * q * (1.0 + 1e-6), "e2 {e2}: {s} vs Q {q}");
            }
        }
        // known answers (scipy.integrate.quad of the same integral, epsabs 1e-20)
        for (e2, want) in [(4.0, 0.164_480_971_581_466_35), (9.0, 0.014_579_429_159_529_877), (36.0, 1.378_074_282_934_893e-8)] {
            assert!((sep16(e2) / want - 1.0).abs() < 1e-6, "e2 {e2}: {} vs {want}", sep16(e2));
        }
    }

    #[test]
    fn every_rate_is_monotone_in_snr_and_length() {
        for cck in [Cck::Integral, Cck::MatlabFit] {
            let fs: [&dyn Fn(f64, f64) -> f64; 4] =
                [&dbpsk_ln_success, &dqpsk_ln_success, &|s, n| cck55_ln_success(s, n, cck), &|s, n| cck11_ln_success(s, n, cck)];
            for f in fs {
                let mut last = f64::NEG_INFINITY;
                for db in -10..30 {
                    let snr = 10f64.powf(db as f64 / 10.0);
                    let v = f(snr, 8000.0);
                    assert!(v >= last - 1e-9 && v <= 0.0, "{db} dB: {v} after {last}");
                    assert!(f(snr, 16000.0) <= v + 1e-12);
                    last = v;
                }
            }
        }
    }
}
