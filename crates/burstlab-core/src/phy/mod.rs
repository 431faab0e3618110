//! The channel as physics: the probability that a frame survives, from the signal-to-noise
//! ratio, the PHY mode (modulation, coding, bit rate) and the frame's length — so that a short
//! frame at a robust rate survives where a long one at a fast rate does not (docs/phy.md).
//!
//! | standard | modes | curves ([`ErrorModel`]) |
//! |---|---|---|
//! | 802.11b DSSS/HR-DSSS | 1, 2, 5.5, 11 Mb/s | closed forms of [`dsss`]; CCK by integral or Matlab fit |
//! | 802.11a/g OFDM | 6, 9, 12, 18, 24, 36, 48, 54 Mb/s | NIST or YANS ([`ofdm`]) |
//! | 802.15.4 O-QPSK | 250 kb/s | ns-3's or TOSSIM's CPM ([`oqpsk`]) |
//! | any | — | a bit error rate: p = 1 − (1 − BER)^bits ([`ber_loss`]) |
//!
//! A frame is its PHY header at the standard's header mode and its payload at the data mode
//! ([`ErrorModel::frame_ln_success`]), as ns-3 computes a PPDU's success field by field:
//! 802.11b's PLCP header (48 bits) at 1 Mb/s (long preamble) or 2 Mb/s (short); OFDM's
//! SIGNAL field (24 bits) at 6 Mb/s and the data field (SERVICE 16 + 8·PSDU + 6 tail bits,
//! padded to whole symbols) at the data mode; 802.15.4's SHR and PHR (6 bytes) with the PSDU.
//! [`PerTable`] precomputes a mode's curve on a 0.05 dB grid, so a per-frame decision costs a
//! lookup and one `exp`, not a special function.
pub mod dsss;
pub mod ofdm;
pub mod oqpsk;

use crate::Error;
pub use dsss::Cck;
pub use ofdm::{Ofdm, OfdmModel};
pub use oqpsk::OqpskModel;

/// The complementary error function (libm's).
pub fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// The standard normal distribution function Φ(x).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// dB → linear power ratio.
pub fn db_to_linear(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// A unit of `bits` bits, each lost independently with probability `ber`, is lost with
/// probability 1 − (1 − BER)^bits (computed without cancellation for small BER).
pub fn ber_loss(ber: f64, bits: f64) -> f64 {
    -(bits * (-ber).ln_1p()).exp_m1()
}

/// How a mode's symbols are modulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modulation {
    Dbpsk,
    Dqpsk,
    Cck55,
    Cck11,
    Ofdm(Ofdm),
    Oqpsk,
}

/// A PHY mode: its name, data rate and modulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhyMode {
    pub name: &'static str,
    pub rate_bps: u64,
    pub modulation: Modulation,
}

const fn ofdm(name: &'static str, mbps: u64, constellation: u32, code: (u32, u32)) -> PhyMode {
    PhyMode { name, rate_bps: mbps * 1_000_000, modulation: Modulation::Ofdm(Ofdm { constellation, code, rate_bps: mbps * 1_000_000 }) }
}

/// Every mode, slowest first within each standard (802.11b, 802.11a/g, 802.15.4).
pub const MODES: &[PhyMode] = &[
    PhyMode { name: "dsss1", rate_bps: 1_000_000, modulation: Modulation::Dbpsk },
    PhyMode { name: "dsss2", rate_bps: 2_000_000, modulation: Modulation::Dqpsk },
    PhyMode { name: "cck5.5", rate_bps: 5_500_000, modulation: Modulation::Cck55 },
    PhyMode { name: "cck11", rate_bps: 11_000_000, modulation: Modulation::Cck11 },
    ofdm("ofdm6", 6, 2, (1, 2)),
    ofdm("ofdm9", 9, 2, (3, 4)),
    ofdm("ofdm12", 12, 4, (1, 2)),
    ofdm("ofdm18", 18, 4, (3, 4)),
    ofdm("ofdm24", 24, 16, (1, 2)),
    ofdm("ofdm36", 36, 16, (3, 4)),
    ofdm("ofdm48", 48, 64, (2, 3)),
    ofdm("ofdm54", 54, 64, (3, 4)),
    PhyMode { name: "oqpsk250", rate_bps: 250_000, modulation: Modulation::Oqpsk },
];

impl PhyMode {
    /// The mode named `name` (see [`MODES`]).
    pub fn by_name(name: &str) -> crate::Result<&'static PhyMode> {
        MODES.iter().find(|m| m.name == name).ok_or_else(|| {
            let names: Vec<&str> = MODES.iter().map(|m| m.name).collect();
            Error::param("mode", name, &format!("one of {}", names.join(", ")))
        })
    }
}

/// 802.11b PLCP preamble (its header's rate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DsssPreamble {
    /// Header at 1 Mb/s DBPSK.
    Long,
    /// Header at 2 Mb/s DQPSK.
    Short,
}

/// The curves a channel uses, one choice per standard (docs/phy.md lists them with their sources).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorModel {
    pub ofdm: OfdmModel,
    pub cck: Cck,
    pub oqpsk: OqpskModel,
    pub preamble: DsssPreamble,
}

impl Default for ErrorModel {
    /// NIST for OFDM (ns-3's default `WifiPhy` error model), CCK by integral, ns-3's
    /// 802.15.4 curve, long preamble.
    fn default() -> Self {
        ErrorModel { ofdm: OfdmModel::Nist, cck: Cck::Integral, oqpsk: OqpskModel::Ns3, preamble: DsssPreamble::Long }
    }
}

impl ErrorModel {
    /// The model from its choices' names: `ofdm` nist | yans, `cck` integral | matlab,
    /// `oqpsk` ns3 | cpm, `preamble` long | short.
    pub fn from_names(ofdm: &str, cck: &str, oqpsk: &str, preamble: &str) -> crate::Result<Self> {
        Ok(ErrorModel {
            ofdm: match ofdm {
                "nist" => OfdmModel::Nist,
                "yans" => OfdmModel::Yans,
                _ => return Err(Error::param("ofdm", ofdm, "nist or yans")),
            },
            cck: match cck {
                "integral" => Cck::Integral,
                "matlab" => Cck::MatlabFit,
                _ => return Err(Error::param("cck", cck, "integral or matlab")),
            },
            oqpsk: match oqpsk {
                "ns3" => OqpskModel::Ns3,
                "cpm" => OqpskModel::Cpm,
                _ => return Err(Error::param("oqpsk", oqpsk, "ns3 or cpm")),
            },
            preamble: match preamble {
                "long" => DsssPreamble::Long,
                "short" => DsssPreamble::Short,
                _ => return Err(Error::param("preamble", preamble, "long or short")),
            },
        })
    }
}

const OFDM6: Ofdm = Ofdm { constellation: 2, code: (1, 2), rate_bps: 6_000_000 };

impl ErrorModel {
    /// ln of the probability that `nbits` bits sent in `mode` at `snr` (linear) all survive
    /// (ns-3's `GetChunkSuccessRate`, as a logarithm: a product of fields is a sum).
    pub fn chunk_ln_success(&self, mode: &PhyMode, snr: f64, nbits: f64) -> f64 {
        let snr = snr.max(0.0);
        match mode.modulation {
            Modulation::Dbpsk => dsss::dbpsk_ln_success(snr, nbits),
            Modulation::Dqpsk => dsss::dqpsk_ln_success(snr, nbits),
            Modulation::Cck55 => dsss::cck55_ln_success(snr, nbits, self.cck),
            Modulation::Cck11 => dsss::cck11_ln_success(snr, nbits, self.cck),
            Modulation::Ofdm(o) => ofdm::ln_success(self.ofdm, &o, snr, nbits),
            Modulation::Oqpsk => oqpsk::ln_success(self.oqpsk, snr, nbits),
        }
    }

    /// (header's ln success, data field's bits) for a PSDU of `psdu_bytes` in `mode`.
    fn header_and_bits(&self, mode: &PhyMode, snr: f64, psdu_bytes: u32) -> (f64, f64) {
        match mode.modulation {
            Modulation::Ofdm(o) => {
                // 4 µs OFDM symbols carry rate·4 µs data bits; SERVICE + PSDU + tail padded up
                let dbps = o.rate_bps / 250_000;
                let nsym = (16 + 8 * psdu_bytes as u64 + 6).div_ceil(dbps);
                (ofdm::ln_success(self.ofdm, &OFDM6, snr, 24.0), (nsym * dbps) as f64)
            }
            Modulation::Oqpsk => (0.0, 8.0 * (psdu_bytes as f64 + 6.0)),
            _ => {
                let header = match self.preamble {
                    DsssPreamble::Long => dsss::dbpsk_ln_success(snr, 48.0),
                    DsssPreamble::Short => dsss::dqpsk_ln_success(snr, 48.0),
                };
                (header, 8.0 * psdu_bytes as f64)
            }
        }
    }

    /// ln of the probability that a frame (a PSDU of `psdu_bytes` bytes: MAC header, body and
    /// FCS) sent in `mode` at `snr` (linear) is received: header and data field both survive.
    pub fn frame_ln_success(&self, mode: &PhyMode, snr: f64, psdu_bytes: u32) -> f64 {
        let snr = snr.max(0.0);
        let (header, bits) = self.header_and_bits(mode, snr, psdu_bytes);
        header + self.chunk_ln_success(mode, snr, bits)
    }

    /// The frame error rate (1 − success).
    pub fn frame_error(&self, mode: &PhyMode, snr_db: f64, psdu_bytes: u32) -> f64 {
        -self.frame_ln_success(mode, db_to_linear(snr_db), psdu_bytes).exp_m1()
    }
}

/// A mode's error curve precomputed on an SNR grid (dB): the header's ln success h and the
/// data field's ln success per bit b, so that PER(snr, bytes) = 1 − exp(h + bits·b) costs a
/// lookup and three `exp`s, not a special function. What is interpolated (linearly, 0.05 dB
/// steps) is ln(−h) and ln(−b): close to ln of the bit error, which falls almost linearly
/// in the linear SNR, so the interpolation error is a fraction of a per cent of the error
/// probability itself (tested against the closed forms).
#[derive(Clone, Debug)]
pub struct PerTable {
    model: ErrorModel,
    mode: PhyMode,
    lo_db: f64,
    step_db: f64,
    /// ln(−h), ln(−b) at each grid point.
    header: Vec<f64>,
    per_bit: Vec<f64>,
}

/// ln(−x) for a ln success x ≤ 0, kept finite: a certain loss (x = −∞) is capped at
/// x = −`cap`, a certain success (x = 0) at e^−700.
fn ln_neg(x: f64, cap: f64) -> f64 {
    (-x).clamp(1e-300, cap).ln().max(-700.0)
}

impl PerTable {
    pub const STEP_DB: f64 = 0.05;
    pub const LO_DB: f64 = -20.0;
    pub const HI_DB: f64 = 50.0;

    pub fn new(model: ErrorModel, mode: PhyMode) -> Self {
        let n = ((Self::HI_DB - Self::LO_DB) / Self::STEP_DB).round() as usize + 1;
        let (mut header, mut per_bit) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for i in 0..n {
            let snr = db_to_linear(Self::LO_DB + i as f64 * Self::STEP_DB);
            // one reference length splits the frame into header + bits·per_bit exactly, since
            // every curve is (1 − Pe)^bits: ln success is linear in the bits
            let (h, bits) = model.header_and_bits(&mode, snr, 1000);
            header.push(ln_neg(h, 700.0));
            per_bit.push(ln_neg(model.chunk_ln_success(&mode, snr, bits) / bits, 40.0));
        }
        PerTable { model, mode, lo_db: Self::LO_DB, step_db: Self::STEP_DB, header, per_bit }
    }

    /// [`PerTable::new`], computed once per process for each curve set and mode (a table
    /// is a pure function of them; 802.11b's CCK integrals take ≈ 0.1 s), then copied.
    pub fn cached(model: ErrorModel, mode: PhyMode) -> Self {
        use std::sync::{Mutex, OnceLock};
        static CACHE: OnceLock<Mutex<Vec<PerTable>>> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
        if let Some(t) = cache.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|t| t.model == model && t.mode == mode) {
            return t.clone();
        }
        // computed outside the lock: another thread may compute the same table meanwhile
        let t = PerTable::new(model, mode);
        let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
        if !c.iter().any(|x| x.model == model && x.mode == mode) {
            c.push(t.clone());
        }
        t
    }

    pub fn mode(&self) -> &PhyMode {
        &self.mode
    }

    pub fn model(&self) -> &ErrorModel {
        &self.model
    }

    /// Bits of the data field for a PSDU of `psdu_bytes` (OFDM pads to whole symbols).
    pub fn data_bits(&self, psdu_bytes: u32) -> f64 {
        self.model.header_and_bits(&self.mode, 1.0, psdu_bytes).1
    }

    /// ln success at `snr_db` of a data field of `bits` bits (from [`PerTable::data_bits`]).
    #[inline]
    pub fn ln_success(&self, snr_db: f64, bits: f64) -> f64 {
        let x = ((snr_db - self.lo_db) / self.step_db).clamp(0.0, (self.header.len() - 1) as f64);
        let i = (x as usize).min(self.header.len() - 2);
        let f = x - i as f64;
        let h = self.header[i] + f * (self.header[i + 1] - self.header[i]);
        let b = self.per_bit[i] + f * (self.per_bit[i + 1] - self.per_bit[i]);
        -h.exp() - bits * b.exp()
    }

    /// Frame error rate at `snr_db` for a PSDU of `psdu_bytes`.
    pub fn frame_error(&self, snr_db: f64, psdu_bytes: u32) -> f64 {
        -self.ln_success(snr_db, self.data_bits(psdu_bytes)).exp_m1()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_tables_are_the_computed_ones() {
        let m = ErrorModel::default();
        let cck = *PhyMode::by_name("cck11").unwrap();
        let fresh = PerTable::new(m, cck);
        for t in [PerTable::cached(m, cck), PerTable::cached(m, cck)] {
            assert_eq!((t.header.clone(), t.per_bit.clone()), (fresh.header.clone(), fresh.per_bit.clone()));
        }
        let other = PerTable::cached(m, *PhyMode::by_name("dsss1").unwrap());
        assert_eq!(other.mode().name, "dsss1");
        assert_ne!(other.per_bit, fresh.per_bit);
    }

    #[test]
    fn ber_loss_known_answers() {
        assert_eq!(ber_loss(0.0, 12000.0), 0.0);
        assert!((ber_loss(1e-5, 8000.0) / (1.0 - (1.0f64 - 1e-5).powi(8000)) - 1.0).abs() < 1e-9);
        assert!((ber_loss(0.5, 1.0) - 0.5).abs() < 1e-15);
    }

    #[test]
    fn longer_frames_and_faster_modes_lose_more() {
        let m = ErrorModel::default();
        for pair in MODES[..4].windows(2).chain(MODES[4..12].windows(2)) {
            let (slow, fast) = (&pair[0], &pair[1]);
            for db in [0.0, 5.0, 10.0, 15.0, 20.0] {
                // (9 and 12 Mb/s cross where both lose under 1e-4 of their frames)
                assert!(m.frame_error(fast, db, 1028) >= m.frame_error(slow, db, 1028) - 1e-4, "{} vs {} at {db} dB", fast.name, slow.name);
            }
        }
        for mode in MODES {
            for db in [0.0, 4.0, 8.0, 12.0] {
                assert!(m.frame_error(mode, db, 1500) >= m.frame_error(mode, db, 100) - 1e-12, "{}", mode.name);
            }
        }
    }

    #[test]
    fn table_matches_the_closed_forms() {
        for model in [ErrorModel::default(), ErrorModel { ofdm: OfdmModel::Yans, cck: Cck::MatlabFit, oqpsk: OqpskModel::Cpm, preamble: DsssPreamble::Short }] {
            for mode in MODES {
                let t = PerTable::new(model, *mode);
                for i in 0..400 {
                    let db = -5.0 + i as f64 * 0.0731;
                    for bytes in [40u32, 1028, 1500] {
                        let exact = model.frame_error(mode, db, bytes);
                        let fast = t.frame_error(db, bytes);
                        assert!((exact - fast).abs() < 1e-3, "{} {db} dB {bytes} B: {exact} vs {fast}", mode.name);
                    }
                }
            }
        }
    }

    #[test]
    fn unknown_mode_names_the_choices() {
        let e = PhyMode::by_name("ofdm7").unwrap_err().to_string();
        assert!(e.contains("ofdm7") && e.contains("cck11") && e.contains("oqpsk250"), "{e}");
    }
}
