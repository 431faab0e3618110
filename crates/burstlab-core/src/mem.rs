//! Input-sized allocations, checked before they are made (docs/errors.md: "never runaway
//! memory").
//!
//! Every buffer whose size comes from input (a trace length, an `expected` count, a
//! sample size) is reserved through this module: the request is compared with the memory
//! the system says is available (Linux `MemAvailable` in `/proc/meminfo`; elsewhere only
//! the allocator's answer counts) and then reserved fallibly (`try_reserve_exact`), so an
//! impossible request becomes [`Error::Memory`] (a Python `MemoryError`) instead of an
//! allocation abort or a visit from the kernel's OOM killer. The check against available
//! memory matters on Linux, whose default overcommit grants allocations it cannot back.
use crate::error::{Error, Result};

/// Bytes of memory available to a new allocation, if the system says (Linux `MemAvailable`).
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// `bytes` with three significant digits in the largest unit that keeps them whole-ish:
/// "125 GB", "1.25e5 TB" for absurd requests.
fn human(bytes: u64) -> String {
    let b = bytes as f64;
    let (v, unit) = if b >= 1e12 {
        (b / 1e12, "TB")
    } else if b >= 1e9 {
        (b / 1e9, "GB")
    } else if b >= 1e6 {
        (b / 1e6, "MB")
    } else {
        return format!("{bytes} bytes");
    };
    if v >= 1000.0 {
        format!("{v:.3e} {unit}")
    } else {
        let digits = if v >= 100.0 { 0 } else if v >= 10.0 { 1 } else { 2 };
        format!("{v:.digits$} {unit}")
    }
}

/// Refuse a request for `bytes` of memory (for `what`) larger than what is available.
pub fn check(bytes: u64, what: &str) -> Result<()> {
    if let Some(avail) = available_bytes() {
        if bytes > avail {
            return Err(Error::Memory(format!("{what} needs {}, only {} of memory is available", human(bytes), human(avail))));
        }
    }
    Ok(())
}

/// Memory of a packed trace of `bits` entries, saturating.
pub fn packed_bytes(bits: u64) -> u64 {
    bits.div_ceil(64).saturating_mul(8)
}

/// Reserve room for `additional` more elements in `v` (exactly), or an [`Error::Memory`]
/// naming `what`; checked against available memory first.
pub fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Result<()> {
    let need = v.len().checked_add(additional);
    if let Some(need) = need {
        if need <= v.capacity() {
            return Ok(());
        }
    }
    let bytes = (additional as u64).saturating_mul(std::mem::size_of::<T>() as u64);
    check(bytes, what)?;
    v.try_reserve_exact(additional)
        .map_err(|_| Error::Memory(format!("{what} needs {}, which cannot be allocated", human(bytes))))?;
    advise_huge(v);
    Ok(())
}

/// Buffers of at least this many bytes ask for transparent huge pages ([`advise_huge`]).
const HUGE_BYTES: usize = 8 << 20;

/// Ask the kernel to back `v`'s allocation with transparent huge pages (Linux, where THP is
/// commonly in `madvise` mode; advisory: nothing changes if the system refuses). An
/// input-sized buffer of hundreds of MB otherwise takes a page fault every 4 KiB as it
/// fills: a third of the Mahimahi reader's time on a 0.9 GB trace (`docs/traces.md`).
pub fn advise_huge<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 2 << 20;
        let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
        if bytes < HUGE_BYTES {
            return;
        }
        let start = v.as_mut_ptr() as usize;
        let (a, end) = ((start + PAGE - 1) & !(PAGE - 1), (start + bytes) & !(PAGE - 1));
        if end > a {
            // SAFETY: [a, end) lies inside `v`'s allocation; MADV_HUGEPAGE changes only how
            // the kernel backs those pages, never their contents or validity. Errors (THP
            // disabled, an old kernel) leave the pages as they were.
            unsafe {
                libc::madvise(a as *mut libc::c_void, end - a, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// Give the whole pages of `v`'s spare capacity (past its length) back to the system,
/// keeping the allocation (Linux; elsewhere nothing). For a vector of an over-aligned type,
/// which `shrink_to_fit` shrinks only by a copy into a new block (the allocator's realloc
/// serves alignments up to 16): the engine's flows, aligned to cache lines, as their results
/// are made (`sim/engine/collect.rs`).
pub fn release_spare<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let size = std::mem::size_of::<T>();
        let base = v.as_mut_ptr() as usize;
        let (start, end) = (base + v.len() * size, base + v.capacity() * size);
        let (a, b) = ((start + PAGE - 1) & !(PAGE - 1), end & !(PAGE - 1));
        if b > a {
            // SAFETY: [a, b) lies in `v`'s spare capacity, memory `v` owns and holds nothing
            // in (no element, no allocator metadata: the block's header precedes `base`);
            // MADV_DONTNEED on private memory drops those pages, which read as zeros if used
            // again. A larger page size makes the call fail, leaving the pages as they were.
            unsafe {
                libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_DONTNEED);
            }
        }
    }
}

/// Grow `v` amortised (at least doubling, like `Vec::push`) so that it can hold `min_len`
/// elements; checked and fallible.
pub fn grow<T>(v: &mut Vec<T>, min_len: usize, what: &str) -> Result<()> {
    if min_len <= v.capacity() {
        return Ok(());
    }
    let target = min_len.max(v.capacity().saturating_mul(2)).max(8);
    let extra = target - v.len();
    match reserve(v, extra, what) {
        Ok(()) => Ok(()),
        // The doubled size may not fit where the exact one does.
        Err(_) => reserve(v, min_len - v.len(), what),
    }
}

/// A vector of `n` zeros (checked and fallible).
pub fn zeroed<T: Copy + Default>(n: usize, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    reserve(&mut v, n, what)?;
    v.resize(n, T::default());
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_requests_are_errors_not_aborts() {
        let mut v: Vec<u64> = Vec::new();
        let e = reserve(&mut v, usize::MAX / 16, "a test buffer").unwrap_err();
        assert!(matches!(e, Error::Memory(_)), "{e:?}");
        assert!(e.to_string().contains("a test buffer needs"), "{e}");
        assert!(zeroed::<u64>(usize::MAX / 16, "x").is_err());
        // Ordinary requests succeed and growth is amortised.
        let mut v: Vec<u8> = zeroed(10, "y").unwrap();
        grow(&mut v, 11, "y").unwrap();
        assert!(v.capacity() >= 20);
    }

    #[test]
    fn released_spare_capacity_keeps_the_elements_and_the_room() {
        #[repr(align(64))]
        #[derive(Clone, Copy, PartialEq, Debug)]
        struct Line([u64; 8]);
        let n = 40_000; // 2.5 MB: pages to give back
        let mut v: Vec<Line> = (0..n).map(|k| Line([k as u64; 8])).collect();
        let cap = v.capacity();
        v.truncate(n / 3);
        release_spare(&mut v);
        assert_eq!(v.capacity(), cap, "the allocation is kept");
        assert!(v.iter().enumerate().all(|(k, l)| *l == Line([k as u64; 8])), "the elements are untouched");
        v.extend((n / 3..n).map(|k| Line([k as u64 + 1; 8])));
        assert_eq!(v[n - 1], Line([n as u64; 8]), "the released room holds new elements");
        let mut empty: Vec<Line> = Vec::new();
        release_spare(&mut empty); // nothing to release
    }

    #[test]
    fn packed_bytes_saturates() {
        assert_eq!(packed_bytes(0), 0);
        assert_eq!(packed_bytes(1), 8);
        assert_eq!(packed_bytes(65), 16);
        assert!(packed_bytes(u64::MAX) > 1 << 60);
    }
}
