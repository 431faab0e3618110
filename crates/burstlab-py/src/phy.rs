//! The PHY error-rate curves for Python (`burstlab.phy`): a frame's error rate and a chunk's
//! success rate from the SNR, the mode and the length (`burstlab_core::phy`).
use crate::errors::{to_py, IntoPyResult};
use crate::loss::PyLossModel;
use burstlab_core::link::minstrel::{Minstrel, MinstrelParams};
use burstlab_core::link::rate::{measure_set, rate_set_acked, AckRates, Aarf, RateControl, RateSet, RateTable};
use burstlab_core::link::wifi::Dcf;
use burstlab_core::loss::{Fading, PhyChannel, Snr};
use burstlab_core::rng;
use burstlab_core::phy::{ErrorModel, PhyMode, MODES};
use burstlab_core::time::{self, Nanos};
use burstlab_core::Error;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn model(ofdm: &str, cck: &str, oqpsk: &str, preamble: &str) -> PyResult<ErrorModel> {
    ErrorModel::from_names(ofdm, cck, oqpsk, preamble).py()
}

/// Frame error rate of a PSDU of `psdu_bytes` in `mode` at each SNR (dB): PHY header and
/// data field (docs/phy.md).
#[pyfunction]
#[pyo3(signature = (mode, snr_db, psdu_bytes, ofdm="nist", cck="integral", oqpsk="ns3", preamble="long"))]
#[allow(clippy::too_many_arguments)]
fn phy_frame_error<'py>(
    py: Python<'py>,
    mode: &str,
    snr_db: PyReadonlyArray1<'_, f64>,
    psdu_bytes: u32,
    ofdm: &str,
    cck: &str,
    oqpsk: &str,
    preamble: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let m = model(ofdm, cck, oqpsk, preamble)?;
    let md = PhyMode::by_name(mode).py()?;
    let snr = snr_db.as_slice()?;
    if let Some(bad) = snr.iter().find(|x| x.is_nan()) {
        return Err(to_py(Error::param("snr_db", bad, "numbers (dB)")));
    }
    Ok(snr.iter().map(|&db| m.frame_error(md, db, psdu_bytes)).collect::<Vec<f64>>().into_pyarray(py))
}

/// Probability that `nbits` bits sent in `mode` at each SNR (linear ratio, as ns-3's
/// `GetChunkSuccessRate` takes it) all survive.
#[pyfunction]
#[pyo3(signature = (mode, snr, nbits, ofdm="nist", cck="integral", oqpsk="ns3"))]
fn phy_chunk_success<'py>(
    py: Python<'py>,
    mode: &str,
    snr: PyReadonlyArray1<'_, f64>,
    nbits: f64,
    ofdm: &str,
    cck: &str,
    oqpsk: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let m = model(ofdm, cck, oqpsk, "long")?;
    let md = PhyMode::by_name(mode).py()?;
    if !(nbits.is_finite() && nbits >= 0.0) {
        return Err(to_py(Error::param("nbits", nbits, "a non-negative number of bits")));
    }
    let snr = snr.as_slice()?;
    if let Some(bad) = snr.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
        return Err(to_py(Error::param("snr", bad, "non-negative linear ratios")));
    }
    Ok(snr.iter().map(|&s| m.chunk_ln_success(md, s, nbits).exp()).collect::<Vec<f64>>().into_pyarray(py))
}

/// Every mode as (name, data rate in bits/s).
#[pyfunction]
fn phy_modes() -> Vec<(&'static str, u64)> {
    MODES.iter().map(|m| (m.name, m.rate_bps)).collect()
}

/// `d[key]` as f64 (or `default` when absent); a wrong type or a missing required entry is a
/// ParameterError naming `snr.key`.
fn num(d: &Bound<'_, PyDict>, key: &str, default: Option<f64>) -> PyResult<f64> {
    match d.get_item(key)?.filter(|v| !v.is_none()) {
        Some(v) => v.extract::<f64>().map_err(|_| to_py(Error::param(&format!("snr.{key}"), v.repr().map(|r| r.to_string()).unwrap_or_default(), "a number"))),
        None => default.ok_or_else(|| to_py(Error::param("snr", format!("no {key:?}"), &format!("a {key:?} entry")))),
    }
}

/// Seconds → ns: finite, ≥ 0 (0 allowed where the process does not use it), at most 10^9 s.
fn ns(key: &str, s: f64) -> PyResult<Nanos> {
    if s.is_finite() && (0.0..=1e9).contains(&s) {
        Ok(time::from_secs_f64(s))
    } else {
        Err(to_py(Error::param(&format!("snr.{key}"), s, "seconds in [0, 1e9]")))
    }
}

/// The SNR source from its dict (`burstlab.lossspec` builds it; seconds and dB):
/// {"kind": "process", "mean_db", "fading": none|rayleigh|ricean, "k", "coherence", "sigma_db", "tau"},
/// {"kind": "two_state", "good_db", "bad_db", "mean_good", "mean_bad"},
/// {"kind": "trace", "times": [s], "db": [dB], "end": s, "wrap": bool}.
fn snr_from_dict(d: &Bound<'_, PyDict>) -> PyResult<Snr> {
    let kind: String = match d.get_item("kind")? {
        Some(k) => k.extract()?,
        None => return Err(to_py(Error::param("snr", "a dict without \"kind\"", "a \"kind\" entry"))),
    };
    match kind.as_str() {
        "process" => {
            let fading: String = d.get_item("fading")?.map(|v| v.extract()).transpose()?.unwrap_or_else(|| "none".into());
            let fading = match fading.as_str() {
                "none" => Fading::None,
                "rayleigh" => Fading::Rayleigh,
                "ricean" => Fading::Ricean { k: num(d, "k", None)? },
                other => return Err(to_py(Error::param("snr.fading", other, "none, rayleigh or ricean"))),
            };
            Ok(Snr::Process {
                mean_db: num(d, "mean_db", None)?,
                fading,
                coherence: ns("coherence", num(d, "coherence", Some(0.0))?)?,
                sigma_db: num(d, "sigma_db", Some(0.0))?,
                tau: ns("tau", num(d, "tau", Some(0.0))?)?,
            })
        }
        "two_state" => Ok(Snr::TwoState {
            good_db: num(d, "good_db", None)?,
            bad_db: num(d, "bad_db", None)?,
            mean_good: ns("mean_good", num(d, "mean_good", None)?)?,
            mean_bad: ns("mean_bad", num(d, "mean_bad", None)?)?,
        }),
        "trace" => {
            let times: Vec<f64> = d.get_item("times")?.map(|v| v.extract()).transpose()?.unwrap_or_default();
            let db: Vec<f64> = d.get_item("db")?.map(|v| v.extract()).transpose()?.unwrap_or_default();
            let times = times.iter().map(|&t| ns("times", t)).collect::<PyResult<Vec<Nanos>>>()?;
            let wrap: bool = d.get_item("wrap")?.map(|v| v.extract()).transpose()?.unwrap_or(true);
            Ok(Snr::Trace { times, db, end: ns("end", num(d, "end", None)?)?, wrap })
        }
        other => Err(to_py(Error::param("snr.kind", other, "process, two_state or trace"))),
    }
}

/// A loss model of frames of `psdu_bytes` in `mode` over an SNR source (`burstlab_core::loss::phy`).
#[pyfunction]
#[pyo3(signature = (mode, psdu_bytes, snr, packet_interval=0.001, ofdm="nist", cck="integral", oqpsk="ns3", preamble="long"))]
#[allow(clippy::too_many_arguments)]
fn phy_loss_model(
    mode: &str,
    psdu_bytes: u32,
    snr: &Bound<'_, PyDict>,
    packet_interval: f64,
    ofdm: &str,
    cck: &str,
    oqpsk: &str,
    preamble: &str,
) -> PyResult<PyLossModel> {
    let m = model(ofdm, cck, oqpsk, preamble)?;
    let md = PhyMode::by_name(mode).py()?;
    if !(packet_interval.is_finite() && packet_interval > 0.0) || time::from_secs_f64(packet_interval) == 0 {
        return Err(to_py(Error::param("packet_interval", packet_interval, "a positive number of seconds (≥ 1 ns)")));
    }
    let ch = PhyChannel::new(snr_from_dict(snr)?, md, m, psdu_bytes, time::from_secs_f64(packet_interval)).py()?;
    Ok(PyLossModel::new(Box::new(ch)))
}

/// A saturated 802.11 link with rate adaptation (`link::rate::measure_set`): `controller` arf,
/// aarf or minstrel over `rate_set` b (1, 2, 5.5, 11 Mb/s), g (ERP-OFDM 6-54 Mb/s) or bg (both,
/// ns-3's 802.11g order), each ACK at the highest `ack_rates` rate (basic or mandatory,
/// `link::rate::AckRates`) at or below the data rate; counts of attempts and successes per
/// rate, the MAC throughput. `rate_table` distinct | ns3 (`link::rate::RateTable`): the
/// controller's table lists each rate once, or each DSSS rate twice as ns-3 3.44's stations
/// do; the counts are per rate either way (a rate's two entries summed).
#[pyfunction]
#[pyo3(signature = (controller, snr, frames, packet_bytes=1000, max_attempts=7, seed=1, cck="integral", rate_set="b", ack_rates="basic", rate_table="distinct"))]
#[allow(clippy::too_many_arguments)]
fn phy_rate_measure<'py>(
    py: Python<'py>,
    controller: &str,
    snr: &Bound<'_, PyDict>,
    frames: u64,
    packet_bytes: u32,
    max_attempts: u32,
    seed: u64,
    cck: &str,
    rate_set: &str,
    ack_rates: &str,
    rate_table: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let ack = AckRates::parse(ack_rates).py()?;
    let (modes, dcfs) = rate_set_acked(RateSet::parse(rate_set).py()?, ack, &Dcf::b11()).py()?;
    let entries = RateTable::parse(rate_table).py()?.entries(&modes);
    let (table_modes, table_dcfs): (Vec<_>, Vec<_>) = entries.iter().map(|&i| (modes[i], dcfs[i])).unzip();
    let n = entries.len();
    let mut rc: Box<dyn RateControl> = match controller {
        "arf" => Box::new(Aarf::new(false, n).py()?),
        "aarf" => Box::new(Aarf::new(true, n).py()?),
        // its sampling table from its own stream (one RNG stream per component)
        "minstrel" => Box::new(Minstrel::new(&table_dcfs, MinstrelParams::default(), rng::mix64(seed ^ rng::component_id("minstrel"))).py()?),
        other => return Err(to_py(Error::param("controller", other, "arf, aarf or minstrel"))),
    };
    if frames == 0 || frames > 100_000_000 {
        return Err(to_py(Error::param("frames", frames, "between 1 and 10^8 frames")));
    }
    let model = ErrorModel::from_names("nist", cck, "ns3", "long").py()?;
    let snr = snr_from_dict(snr)?;
    let m = py
        .allow_threads(|| measure_set(rc.as_mut(), &table_modes, &table_dcfs, snr, model, frames, packet_bytes, max_attempts, &mut rng::from_seed(seed)))
        .py()?;
    let (mut attempts, mut successes) = (vec![0u64; modes.len()], vec![0u64; modes.len()]);
    for (e, &i) in entries.iter().enumerate() {
        attempts[i] += m.attempts[e];
        successes[i] += m.successes[e];
    }
    let out = PyDict::new(py);
    out.set_item("frames", m.frames)?;
    out.set_item("delivered", m.delivered)?;
    out.set_item("duration", m.duration as f64 * 1e-9)?;
    out.set_item("rates", modes.iter().map(|md| md.rate_bps).collect::<Vec<u64>>())?;
    out.set_item("modes", modes.iter().map(|md| md.name).collect::<Vec<&str>>())?;
    out.set_item("attempts", attempts)?;
    out.set_item("successes", successes)?;
    out.set_item("throughput_bps", m.throughput_bps)?;
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(phy_frame_error, m)?)?;
    m.add_function(wrap_pyfunction!(phy_chunk_success, m)?)?;
    m.add_function(wrap_pyfunction!(phy_modes, m)?)?;
    m.add_function(wrap_pyfunction!(phy_loss_model, m)?)?;
    m.add_function(wrap_pyfunction!(phy_rate_measure, m)?)?;
    Ok(())
}
