//! Software prefetch: ask the memory system for a cache line the program will read soon,
//! without waiting for it, so that the miss overlaps the work done meanwhile. A hint only:
//! it never faults (any address may be named, a stale or dangling one included) and never
//! changes what the program computes. On x86-64 it is SSE's `prefetcht0` (part of the
//! baseline instruction set); elsewhere it compiles to nothing.

/// Bytes in a cache line (x86-64 and most ARM cores).
pub const LINE: usize = 64;

/// Prefetch the cache line holding `p` into every level of the cache.
#[inline(always)]
pub fn line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` reads nothing architecturally and cannot fault, whatever the
    // address (Intel SDM Vol. 2B, PREFETCHh: "does not affect program behavior").
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Prefetch every cache line of `*r`.
#[inline(always)]
pub fn value<T>(r: &T) {
    span(r, std::mem::size_of::<T>());
}

/// Prefetch every cache line of the `n` bytes from `p`, the first and last lines included
/// whatever the alignment (an `n` the compiler knows, a type's size or offset, unrolls into
/// one prefetch per line).
#[inline(always)]
pub fn span<T>(p: *const T, n: usize) {
    let a = p as usize;
    let mut k = 0;
    while k < n {
        line((a + k) as *const u8);
        k += LINE;
    }
    if n > 0 {
        line((a + n - 1) as *const u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_address_is_a_harmless_hint() {
        // Null, unaligned, unmapped and freed addresses: a prefetch never faults.
        line(std::ptr::null::<u8>());
        line(usize::MAX as *const u64);
        span(0x1234_5678usize as *const u8, 1000);
        let v = vec![7u64; 100];
        let p = v.as_ptr();
        value(&v[3]);
        drop(v);
        span(p, 800);
        let x = [1u8; 300];
        value(&x);
        assert_eq!(x.iter().map(|&b| b as u32).sum::<u32>(), 300, "the data is untouched");
    }
}
