//! Convergence of μ with trace length (Srinivasan et al. §8).
use super::bits::BitTrace;
use super::stats::{transitions_range, Transitions};

/// μ over the prefixes [0, L) for each L in `lengths` (ascending, ≤ trace length);
/// NaN where μ is undefined. Counts are accumulated, so the cost is one pass.
pub fn prefix_mu(t: &BitTrace, lengths: &[usize]) -> Vec<f64> {
    let mut acc = Transitions::default();
    let mut prev = 0usize;
    let mut out = Vec::with_capacity(lengths.len());
    for &l in lengths {
        assert!(l >= prev && l <= t.len(), "prefix lengths must be ascending and within the trace");
        // pairs (i, i+1) with i + 1 < l not yet counted start at max(prev - 1, 0).
        let from = prev.saturating_sub(1);
        if l > from {
            acc = acc + transitions_range(t, from, l);
        }
        prev = l.max(prev);
        out.push(acc.mu().unwrap_or(f64::NAN));
    }
    out
}

/// μ of every full chunk of `chunk` entries (a trailing partial chunk is ignored);
/// NaN for chunks where μ is undefined.
pub fn chunk_mu(t: &BitTrace, chunk: usize) -> Vec<f64> {
    assert!(chunk > 0);
    (0..t.len() / chunk)
        .map(|k| transitions_range(t, k * chunk, (k + 1) * chunk).mu().unwrap_or(f64::NAN))
        .collect()
}

/// Root-mean-square deviation of the chunks' μ from the whole-trace μ (Srinivasan et al. §8,
/// Fig. 16), over the chunks whose μ is defined. None if the trace μ is undefined or
/// no chunk has a defined μ.
pub fn chunk_rms_deviation(t: &BitTrace, chunk: usize) -> Option<f64> {
    let whole = transitions_range(t, 0, t.len()).mu()?;
    let devs: Vec<f64> = chunk_mu(t, chunk).into_iter().filter(|m| !m.is_nan()).map(|m| (m - whole).powi(2)).collect();
    if devs.is_empty() {
        return None;
    }
    Some((devs.iter().sum::<f64>() / devs.len() as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::stats::transitions;

    #[test]
    fn prefix_mu_matches_direct() {
        let v: Vec<u8> = (0..1000u32).map(|i| ((i / 7 + i / 13) % 3 != 0) as u8).collect();
        let t = BitTrace::from_bytes(&v);
        let lens = [0usize, 1, 2, 50, 64, 65, 300, 999, 1000];
        let got = prefix_mu(&t, &lens);
        for (l, m) in lens.iter().zip(got) {
            let direct = transitions(&t.slice(0, *l)).mu().unwrap_or(f64::NAN);
            assert!(m == direct || (m.is_nan() && direct.is_nan()), "L={l}: {m} vs {direct}");
        }
    }

    #[test]
    fn chunk_rms_of_periodic_trace_known_answer() {
        // A periodic pattern gives every chunk (aligned on the period) the same μ.
        let v: Vec<u8> = (0..6000).map(|i| (i % 10 < 7) as u8).collect();
        let t = BitTrace::from_bytes(&v);
        let cm = chunk_mu(&t, 1000);
        assert_eq!(cm.len(), 6);
        assert!(cm.iter().all(|m| (m - cm[0]).abs() < 1e-12));
        // Every chunk: |10| = 100, |11| = 600, |01| = 99, |00| = 200; the whole trace:
        // |10| = 600, |11| = 3600, |01| = 599, |00| = 1200. All chunks share one μ, so
        // the RMS deviation is exactly |μ_chunk − μ_whole|.
        let mu_chunk = 1.0 - 99.0 / 299.0 - 100.0 / 700.0;
        let mu_whole = 1.0 - 599.0 / 1799.0 - 600.0 / 4200.0;
        assert!((cm[0] - mu_chunk).abs() < 1e-12);
        let rms = chunk_rms_deviation(&t, 1000).unwrap();
        assert!((rms - (mu_chunk - mu_whole).abs()).abs() < 1e-12, "{rms}");
    }
}
