//! The word-at-a-time and SIMD kernels of the readers: trimming, decimal numbers eight digits
//! at a time ([`swar8`]), 64 bytes scanned at once for newlines and non-digits (SSE2), and
//! the batched fast path of the number-per-line formats ([`feed_numbers`]).
use super::*;

#[inline]
pub(super) fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if first.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if last.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    s
}

/// A decimal u64 (1-20 digits, no sign), None otherwise (an empty field, a non-digit,
/// or a value beyond 2^64 − 1).
#[inline]
pub(super) fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    let mut v = 0u64;
    for &c in s {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(d as u64)?;
    }
    Some(v)
}

/// Value of 8 decimal digits in a little-endian word (first digit in the lowest byte,
/// each byte 0-9): three multiply-shift steps combine pairs, quads and octets.
#[inline(always)]
pub(super) fn swar8(t: u64) -> u64 {
    let v = ((t & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(2561)) >> 8;
    let v = ((v & 0x00FF_00FF_00FF_00FF).wrapping_mul(6_553_601)) >> 16;
    ((v & 0x0000_FFFF_0000_FFFF).wrapping_mul(42_949_672_960_001)) >> 32
}

/// Bytes of `t = w ^ 0x30…30` that are not decimal digits, as their high bits.
#[inline(always)]
pub(super) fn non_digits(t: u64) -> u64 {
    ((t & 0x7F7F_7F7F_7F7F_7F7F).wrapping_add(0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080
}

pub(super) const POW10: [u64; 9] = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// The newlines of `b[at..at + 64]` (bit j: byte j is `\n`) and its bytes that are
/// neither a digit nor a newline (needs `at + 64 <= b.len()`). x86-64: SSE2; elsewhere
/// every byte counts as not a digit (the callers then check each number themselves).
#[inline(always)]
pub(super) fn scan_digits(b: &[u8], at: usize) -> (u64, u64) {
    let b = &b[at..at + 64];
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_sub_epi8};
        let (mut nl, mut good) = (0u64, 0u64);
        for k in 0..4 {
            // SAFETY: SSE2 is baseline on x86-64; the 16 bytes read lie inside `b` (64 long).
            let (n, g) = unsafe {
                let v = _mm_loadu_si128(b.as_ptr().add(16 * k) as *const __m128i);
                let is_nl = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8));
                let d = _mm_sub_epi8(v, _mm_set1_epi8(b'0' as i8));
                let is_digit = _mm_cmpeq_epi8(_mm_max_epu8(d, _mm_set1_epi8(9)), _mm_set1_epi8(9)); // d <= 9 unsigned
                (_mm_movemask_epi8(is_nl), _mm_movemask_epi8(_mm_or_si128(is_nl, is_digit)))
            };
            nl |= (n as u32 as u64) << (16 * k);
            good |= (g as u32 as u64) << (16 * k);
        }
        (nl, !good)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u64;
        for k in 0..8 {
            let z = load(b, 8 * k) ^ 0x0A0A_0A0A_0A0A_0A0A;
            // high bit of each byte: set iff the byte is nonzero (no carries across bytes)
            let nonzero = (((z & 0x7F7F_7F7F_7F7F_7F7F).wrapping_add(0x7F7F_7F7F_7F7F_7F7F)) | z) & 0x8080_8080_8080_8080;
            let nl = (!nonzero & 0x8080_8080_8080_8080) >> 7;
            m |= (nl.wrapping_mul(BYTE_GATHER) >> 56) << (8 * k);
        }
        (m, u64::MAX)
    }
}

/// The value of `win[at..at + len]` if it is 1-16 decimal digits (`at` < 64).
#[inline(always)]
pub(super) fn number_of(win: &[u8; 80], at: usize, len: usize) -> Option<u64> {
    let low = |k: usize| if k >= 8 { u64::MAX } else { (1u64 << (8 * k)) - 1 };
    let at = at & 63;
    let load = |o: usize| u64::from_le_bytes(win[o..o + 8].try_into().expect("8 bytes"));
    let t = load(at) ^ 0x3030_3030_3030_3030;
    if (1..=8).contains(&len) {
        return (non_digits(t) & low(len) == 0).then(|| swar8(t << (8 * (8 - len))));
    }
    if (9..=16).contains(&len) {
        let t2 = load(at + 8) ^ 0x3030_3030_3030_3030;
        let k = len - 8;
        if non_digits(t) | (non_digits(t2) & low(k)) == 0 {
            let lo = if k == 8 { swar8(t2) } else { swar8(t2 << (8 * (8 - k))) };
            return Some(swar8(t) * POW10[k] + lo);
        }
    }
    None
}

/// Lines in one batch of the number-per-line fast path.
pub(super) const BATCH: usize = 256;

/// The fast path of the number-per-line formats: from `i` (a line start), the lines that
/// are only 1-16 digits, their values into `vals` and their starts into `starts`, until a
/// line of another form, the end of `b` or a full batch; returns how many and where the
/// line after them starts. The newlines and the non-digits of 64 bytes are found at once
/// (SSE2), the lines between them converted independently (eight digits by [`swar8`]), so
/// no step waits for the length of the number before it, and the consumer then takes the
/// batch in a loop of its own (no call per line).
#[inline(always)]
pub(super) fn number_batch(b: &[u8], mut i: usize, vals: &mut [u64; BATCH], starts: &mut [usize; BATCH]) -> (usize, usize) {
    let n = b.len();
    let mut c = 0usize;
    while i + 80 <= n && c + 64 <= BATCH {
        let (mut m, bad) = scan_digits(b, i);
        if m == 0 {
            return (c, i);
        }
        let base = i;
        // the lines ending before the first byte that is neither a digit nor a newline are
        // digits only: 1-8 of them need no further check
        let first_bad = bad.trailing_zeros() as usize;
        // the window and 16 bytes more, as a fixed-size array: the reads below need no
        // bounds checks (a line starts 0-63 bytes in, and its number is read 16 bytes long)
        let win: &[u8; 80] = b[i..i + 80].try_into().expect("80 bytes");
        while m != 0 {
            let q = m.trailing_zeros() as usize;
            let p = base + q;
            let (at, len) = ((i - base) & 63, p - i);
            let v = if q < first_bad && (1..=8).contains(&len) {
                let t = u64::from_le_bytes(win[at..at + 8].try_into().expect("8 bytes")) ^ 0x3030_3030_3030_3030;
                swar8(t << (8 * (8 - len)))
            } else {
                let Some(v) = number_of(win, at, len) else { return (c, i) };
                v
            };
            vals[c & (BATCH - 1)] = v;
            starts[c & (BATCH - 1)] = i;
            c += 1;
            i = p + 1;
            m &= m - 1;
        }
    }
    while c < BATCH {
        let Some((v, next)) = digits_line(b, i) else { break };
        vals[c] = v;
        starts[c] = i;
        c += 1;
        i = next;
    }
    (c, i)
}

/// A reader of a number-per-line format (`seqlist`, Mahimahi), fed by [`feed_numbers`].
pub(super) trait NumberLines {
    /// Take the leading values of `vals` (lines `line`, `line + 1`, … that are only a
    /// number) that need nothing special; returns how many (the line after them goes to
    /// [`NumberLines::other`], which reports any error).
    fn take(&mut self, vals: &[u64], line: usize) -> Result<usize>;
    /// Any other line (trimmed; blank and comment lines included).
    fn other(&mut self, s: &[u8], line: usize) -> Result<()>;
}

/// The feed loop of the number-per-line formats: batches of number-only lines to
/// [`NumberLines::take`], every other line (and a line `take` leaves) to
/// [`NumberLines::other`] with its number.
pub(super) fn feed_numbers<T: NumberLines>(sink: &mut T, line: &mut usize, b: &[u8]) -> Result<()> {
    let n = b.len();
    let mut vals = [0u64; BATCH];
    let mut starts = [0usize; BATCH];
    let mut i = 0;
    while i < n {
        loop {
            let (c, next) = number_batch(b, i, &mut vals, &mut starts);
            if c == 0 {
                break;
            }
            let took = sink.take(&vals[..c], *line)?;
            *line += took;
            if took < c {
                i = starts[took];
                break;
            }
            i = next;
        }
        if i >= n {
            break;
        }
        let end = find_newline(&b[i..]).map_or(n, |p| i + p);
        sink.other(trim(&b[i..end]), *line)?;
        *line += 1;
        i = end + 1;
    }
    Ok(())
}

/// The fast path's last lines (fewer than 80 bytes left): if `b[i..]` starts with a line that is
/// only 1-15 digits and its newline, that number and the index after the newline. Eight
/// bytes at a time: the first non-digit is found with bit tricks and the digits are
/// converted with [`swar8`], so no branch depends on the number's length.
#[inline(always)]
pub(super) fn digits_line(b: &[u8], i: usize) -> Option<(u64, usize)> {
    if i + 16 <= b.len() {
        let t = load(b, i) ^ 0x3030_3030_3030_3030;
        let nd = non_digits(t);
        if nd != 0 {
            let k = (nd.trailing_zeros() / 8) as usize;
            if k == 0 || b[i + k] != b'\n' {
                return None;
            }
            return Some((swar8(t << (8 * (8 - k))), i + k + 1));
        }
        let t2 = load(b, i + 8) ^ 0x3030_3030_3030_3030;
        let nd2 = non_digits(t2);
        let k2 = (nd2.trailing_zeros() / 8) as usize;
        if nd2 == 0 || b[i + 8 + k2] != b'\n' {
            return None;
        }
        let lo = if k2 == 0 { 0 } else { swar8(t2 << (8 * (8 - k2))) };
        return Some((swar8(t) * POW10[k2] + lo, i + 8 + k2 + 1));
    }
    let mut j = i;
    let mut v = 0u64;
    let stop = b.len().min(i + 19);
    while j < stop {
        let d = b[j].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = v * 10 + d as u64; // at most 19 digits: no overflow
        j += 1;
    }
    (j > i && j < b.len() && b[j] == b'\n').then_some((v, j + 1))
}

#[inline]
pub(super) fn find_newline(s: &[u8]) -> Option<usize> {
    s.iter().position(|&b| b == b'\n')
}
