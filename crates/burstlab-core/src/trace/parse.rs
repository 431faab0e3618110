//! Text trace readers, streamed: a file (or bytes) in, a [`BitTrace`] (1 = delivered) out,
//! through a fixed 1 MiB buffer, so reading costs the packed trace plus a constant
//! (docs/traces.md "Memory").
//!
//! Formats (see `docs/traces.md`):
//! - `bits`: one `0`/`1` per line;
//! - `string`: one long `0`/`1` string, whitespace (including newlines) allowed anywhere;
//! - `seqlist`: one line per *received* packet, `seq [more fields]`; missing sequence
//!   numbers are losses (the Rutgers ORBIT traces);
//! - `ttem`: one `0`/`1` per line per time slot Δ in Ttem's convention, 0 = good and
//!   1 = bad (Barsocchi et al. §II.B), flipped to burstlab's 1 = delivered;
//! - `mahimahi`: a link-capacity trace, not a reception trace: one line per 1500-byte
//!   delivery opportunity, an integer number of milliseconds, non-decreasing (repeated
//!   timestamps = several opportunities in that millisecond), as Mahimahi's `mm-link`
//!   reads them (Winstein, Sivaraman, Balakrishnan, NSDI 2013). Read by [`read_mahimahi`].
//!
//! Blank lines and lines whose first non-blank character is `#` are skipped in the
//! line-based formats. Every error names the file, the 1-based line and the offending text.
//!
//! Speed: `bits`/`ttem` lines of the form `0\n`/`1\n` are checked and packed 32 at a time
//! (eight 8-byte words compared with a pattern, the digit bits gathered with one multiply
//! each), `string` 32 characters at a time; `seqlist` and Mahimahi lines that are only a
//! number in batches ([`feed_numbers`], shared by both: 64 bytes scanned at once, the
//! numbers converted eight digits at a time, then consumed in a loop of their own);
//! anything else takes the per-line path, which also gives every error.
use super::bits::BitTrace;
use crate::error::{Error, Result};
use crate::mem;
use std::io::Read;
use std::path::Path;

/// Read buffer; also the longest line the line-based formats accept.
pub const BLOCK: usize = 1 << 20;

/// Without `expected`, a sequence list makes a trace of max seq + 1 entries. A sequence
/// number at or beyond `IMPLICIT_FACTOR` × (lines so far) + `IMPLICIT_SLACK` would make a
/// trace with a PRR below 1/`IMPLICIT_FACTOR` = 0.1 % and is held aside until the end;
/// if it is still that far beyond the others then, it is refused (a stray number must not
/// allocate the whole range; `--expected` says that it is meant).
pub const IMPLICIT_FACTOR: u64 = 1024;
pub const IMPLICIT_SLACK: u64 = 1 << 20;
/// At most this many such far sequence numbers are held before the list is refused.
const FAR_MAX: usize = 1 << 16;

/// A text format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Bits,
    String,
    Ttem,
    SeqList,
    Mahimahi,
}

impl Format {
    pub fn parse(name: &str) -> Result<Self> {
        Ok(match name {
            "bits" => Format::Bits,
            "string" => Format::String,
            "ttem" => Format::Ttem,
            "seqlist" => Format::SeqList,
            "mahimahi" => Format::Mahimahi,
            other => return Err(Error::param("format", format!("{other:?}"), "one of bits, string, seqlist, ttem, mahimahi")),
        })
    }
}

/// What a sequence list held besides the bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqListInfo {
    /// Distinct sequence numbers kept (= delivered entries).
    pub received: u64,
    /// Lines repeating a sequence number already seen (ignored).
    pub duplicates: u64,
    /// Lines with seq ≥ expected that were dropped (only with `drop_beyond`).
    pub dropped: u64,
    /// Largest sequence number on any line (dropped ones included), None if no line.
    pub max_seq: Option<u64>,
    /// Every line held a single field and the numbers never decreased (a Mahimahi trace
    /// also looks like this; with duplicates it is more likely one than a sequence list).
    pub sorted_single: bool,
}

impl Default for SeqListInfo {
    fn default() -> Self {
        SeqListInfo { received: 0, duplicates: 0, dropped: 0, max_seq: None, sorted_single: true }
    }
}

/// Where a value came from: a 1-based text line or a 0-based table row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    Line(usize),
    Row(usize),
}

fn shorten(text: &[u8]) -> String {
    let s = String::from_utf8_lossy(text);
    let s = s.trim();
    if s.chars().count() > 60 {
        let cut: String = s.chars().take(57).collect();
        format!("{cut}...")
    } else {
        s.to_string()
    }
}

fn loc_err(file: &str, loc: Loc, text: &[u8], reason: &str) -> Error {
    match loc {
        Loc::Line(line) => Error::Parse { file: Some(file.to_string()), line: Some(line), text: shorten(text), reason: reason.to_string() },
        Loc::Row(row) => Error::Parse { file: Some(format!("{file}: row {row}")), line: None, text: shorten(text), reason: reason.to_string() },
    }
}

fn parse_err(file: &str, line: usize, text: &[u8], reason: &str) -> Error {
    loc_err(file, Loc::Line(line), text, reason)
}

fn empty_err(file: &str, what: &str) -> Error {
    Error::Empty(format!("{file}: empty file: {what}"))
}

/// An I/O failure on `path`, keeping the OS error number (the Python side raises the
/// matching `OSError` subclass with `filename` set).
pub fn io_err(path: &str, e: &std::io::Error) -> Error {
    let msg = e.to_string();
    let msg = msg.split(" (os error").next().unwrap_or(&msg).to_string();
    Error::Io { path: path.to_string(), errno: e.raw_os_error(), message: msg }
}

#[inline]
fn trim(mut s: &[u8]) -> &[u8] {
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
fn parse_u64(s: &[u8]) -> Option<u64> {
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
fn swar8(t: u64) -> u64 {
    let v = ((t & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(2561)) >> 8;
    let v = ((v & 0x00FF_00FF_00FF_00FF).wrapping_mul(6_553_601)) >> 16;
    ((v & 0x0000_FFFF_0000_FFFF).wrapping_mul(42_949_672_960_001)) >> 32
}

/// Bytes of `t = w ^ 0x30…30` that are not decimal digits, as their high bits.
#[inline(always)]
fn non_digits(t: u64) -> u64 {
    ((t & 0x7F7F_7F7F_7F7F_7F7F).wrapping_add(0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080
}

const POW10: [u64; 9] = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// The newlines of `b[at..at + 64]` (bit j: byte j is `\n`) and its bytes that are
/// neither a digit nor a newline (needs `at + 64 <= b.len()`). x86-64: SSE2; elsewhere
/// every byte counts as not a digit (the callers then check each number themselves).
#[inline(always)]
fn scan_digits(b: &[u8], at: usize) -> (u64, u64) {
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
fn number_of(win: &[u8; 80], at: usize, len: usize) -> Option<u64> {
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
const BATCH: usize = 256;

/// The fast path of the number-per-line formats: from `i` (a line start), the lines that
/// are only 1-16 digits, their values into `vals` and their starts into `starts`, until a
/// line of another form, the end of `b` or a full batch; returns how many and where the
/// line after them starts. The newlines and the non-digits of 64 bytes are found at once
/// (SSE2), the lines between them converted independently (eight digits by [`swar8`]), so
/// no step waits for the length of the number before it, and the consumer then takes the
/// batch in a loop of its own (no call per line).
#[inline(always)]
fn number_batch(b: &[u8], mut i: usize, vals: &mut [u64; BATCH], starts: &mut [usize; BATCH]) -> (usize, usize) {
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
trait NumberLines {
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
fn feed_numbers<T: NumberLines>(sink: &mut T, line: &mut usize, b: &[u8]) -> Result<()> {
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
fn digits_line(b: &[u8], i: usize) -> Option<(u64, usize)> {
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
fn find_newline(s: &[u8]) -> Option<usize> {
    s.iter().position(|&b| b == b'\n')
}

/// A consumer of complete lines (or, for `string`, of any bytes).
trait Sink {
    /// `block` ends just after a newline unless `eof`.
    fn feed(&mut self, block: &[u8], eof: bool) -> Result<()>;
    /// Whether `feed` needs whole lines.
    fn line_based(&self) -> bool {
        true
    }
    /// The line that did not fit the buffer.
    fn line_no(&self) -> usize;
}

/// Read `r` to its end into `sink` through one [`BLOCK`]-sized buffer.
fn drive<R: Read, S: Sink>(mut r: R, sink: &mut S, file: &str, path: &str) -> Result<()> {
    let mut buf = vec![0u8; BLOCK];
    let mut have = 0usize;
    loop {
        // fill the buffer (or reach the end)
        let mut end = have;
        while end < buf.len() {
            match r.read(&mut buf[end..]) {
                Ok(0) => break,
                Ok(n) => end += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_err(path, &e)),
            }
        }
        let eof = end < buf.len();
        if !sink.line_based() {
            sink.feed(&buf[..end], eof)?;
            have = 0;
        } else if eof {
            sink.feed(&buf[..end], true)?;
        } else {
            match buf[..end].iter().rposition(|&b| b == b'\n') {
                Some(p) => {
                    sink.feed(&buf[..=p], false)?;
                    buf.copy_within(p + 1..end, 0);
                    have = end - p - 1;
                }
                None => {
                    return Err(parse_err(file, sink.line_no(), &buf[..80], &format!("a line longer than {} bytes: not a text trace of this format", BLOCK)));
                }
            }
        }
        if eof {
            return Ok(());
        }
    }
}

// ---------------------------------------------------------------------------------- bits

/// `bits` and `ttem`: one 0/1 per line; `one` is the bit a `1` stands for.
struct BitsSink<'a> {
    t: BitTrace,
    flip: u64,
    line: usize,
    file: &'a str,
}

/// `0\n` / `1\n` four times in a little-endian u64: the digit bytes masked to their upper
/// seven bits must read `0`, the others `\n`.
const PAIR_MASK: u64 = 0xFFFE_FFFE_FFFE_FFFE;
const PAIR_WANT: u64 = 0x0A30_0A30_0A30_0A30;
/// Gathers bits 0, 16, 32 and 48 into bits 45-48 (no two partial products overlap).
const PAIR_GATHER: u64 = (1 << 45) | (1 << 30) | (1 << 15) | 1;

#[inline(always)]
fn load(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"))
}

impl Sink for BitsSink<'_> {
    fn line_no(&self) -> usize {
        self.line
    }

    fn feed(&mut self, b: &[u8], _eof: bool) -> Result<()> {
        self.t.reserve_bits(b.len() / 2 + 1, &format!("reading {}", self.file))?;
        let n = b.len();
        let mut i = 0;
        while i < n {
            // fast path: 32 lines of exactly `0\n` / `1\n`
            while i + 64 <= n {
                let mut bad = 0u64;
                let mut bits = 0u64;
                for k in 0..8 {
                    let w = load(b, i + 8 * k);
                    bad |= (w & PAIR_MASK) ^ PAIR_WANT;
                    bits |= (((w & 0x0001_0001_0001_0001).wrapping_mul(PAIR_GATHER) >> 45) & 0xF) << (4 * k);
                }
                if bad != 0 {
                    break;
                }
                self.t.append(bits ^ self.flip, 32);
                i += 64;
                self.line += 32;
            }
            if i >= n {
                break;
            }
            // one line
            let end = find_newline(&b[i..]).map_or(n, |p| i + p);
            let s = trim(&b[i..end]);
            match s {
                b"0" => self.t.append(self.flip & 1, 1),
                b"1" => self.t.append(!self.flip & 1, 1),
                _ if s.is_empty() || s[0] == b'#' => {}
                _ => return Err(parse_err(self.file, self.line, s, "expected a single 0 or 1")),
            }
            self.line += 1;
            i = end + 1;
        }
        Ok(())
    }
}

// -------------------------------------------------------------------------------- string

struct StringSink<'a> {
    t: BitTrace,
    flip: u64,
    line: usize,
    /// Absolute offset of the block being fed and of the current line's start.
    offset: usize,
    line_start: usize,
    in_comment: bool,
    file: &'a str,
}

/// Gathers the low bit of each byte into the top byte (byte i → bit 56 + i).
const BYTE_GATHER: u64 = 0x0102_0408_1020_4080;

impl Sink for StringSink<'_> {
    fn line_based(&self) -> bool {
        false
    }

    fn line_no(&self) -> usize {
        self.line
    }

    fn feed(&mut self, b: &[u8], _eof: bool) -> Result<()> {
        self.t.reserve_bits(b.len(), &format!("reading {}", self.file))?;
        let n = b.len();
        let mut i = 0;
        while i < n {
            if self.in_comment {
                match find_newline(&b[i..]) {
                    Some(p) => {
                        i += p + 1;
                        self.line += 1;
                        self.line_start = self.offset + i;
                        self.in_comment = false;
                    }
                    None => break,
                }
                continue;
            }
            // fast path: 32 characters that are all 0 or 1
            while i + 32 <= n {
                let mut bad = 0u64;
                let mut bits = 0u64;
                for k in 0..4 {
                    let w = load(b, i + 8 * k);
                    bad |= (w & 0xFEFE_FEFE_FEFE_FEFE) ^ 0x3030_3030_3030_3030;
                    bits |= ((w & 0x0101_0101_0101_0101).wrapping_mul(BYTE_GATHER) >> 56) << (8 * k);
                }
                if bad != 0 {
                    break;
                }
                self.t.append(bits ^ self.flip, 32);
                i += 32;
            }
            // the rest one character at a time, until the next run of 0/1 characters
            while i < n {
                match b[i] {
                    b'0' => self.t.append(self.flip & 1, 1),
                    b'1' => self.t.append(!self.flip & 1, 1),
                    b'\n' => {
                        self.line += 1;
                        self.line_start = self.offset + i + 1;
                    }
                    b'#' => {
                        self.in_comment = true;
                        i += 1;
                        break;
                    }
                    c if c.is_ascii_whitespace() => {}
                    _ => {
                        let end = (i + 1..n).find(|&j| b[j].is_ascii_whitespace()).unwrap_or(n);
                        let col = self.offset + i - self.line_start + 1;
                        return Err(parse_err(self.file, self.line, &b[i..end], &format!("column {col}: expected only 0 and 1")));
                    }
                }
                i += 1;
                if i + 32 <= n && b[i] & 0xFE == b'0' {
                    break; // back to the fast path
                }
            }
        }
        self.offset += n;
        Ok(())
    }
}

// ------------------------------------------------------------------------------- seqlist

/// Sequence numbers in, a trace out (the `seqlist` reader and the sequence-only CSV and
/// Parquet tables share it). See [`parse_seqlist`] for the rules.
pub struct SeqListBuilder {
    words: Vec<u64>,
    expected: Option<u64>,
    drop_beyond: bool,
    info: SeqListInfo,
    /// Sequence numbers held aside (implicit length only): (seq, where, text).
    far: Vec<(u64, Loc, String)>,
    lines: u64,
    /// IMPLICIT_FACTOR × lines + IMPLICIT_SLACK, kept up to date line by line.
    bound: u64,
    /// Largest sequence number on any line (valid when `any`) and, + 1, the largest kept
    /// in `words` (implicit length; 0 = none).
    any: bool,
    max_seen: u64,
    max_kept1: u64,
    file: String,
}

impl SeqListBuilder {
    /// `expected` (if given) is allocated now, checked against available memory.
    pub fn new(file: &str, expected: Option<u64>, drop_beyond: bool) -> Result<Self> {
        let mut words = Vec::new();
        if let Some(e) = expected {
            if e == 0 {
                return Err(Error::param("expected", 0, "a positive number of packets sent"));
            }
            let n_words = usize::try_from(e.div_ceil(64))
                .map_err(|_| Error::Memory(format!("{file}: a trace of expected = {e} entries does not fit in this machine's address space")))?;
            words = mem::zeroed(n_words, &format!("{file}: a trace of expected = {e} entries"))?;
        }
        Ok(SeqListBuilder {
            words,
            expected,
            drop_beyond,
            info: SeqListInfo::default(),
            far: Vec::new(),
            lines: 0,
            bound: IMPLICIT_SLACK,
            any: false,
            max_seen: 0,
            max_kept1: 0,
            file: file.to_string(),
        })
    }

    #[inline(always)]
    fn set(&mut self, seq: u64) {
        let (k, bit) = ((seq >> 6) as usize, 1u64 << (seq & 63));
        if self.words[k] & bit != 0 {
            self.info.duplicates += 1;
        } else {
            self.words[k] |= bit;
            self.info.received += 1;
        }
    }

    fn far_error(&self, seq: u64, loc: Loc, text: &[u8]) -> Error {
        loc_err(
            &self.file,
            loc,
            text,
            &format!(
                "sequence number {seq} is far beyond the others ({} lines so far): without an expected count it would make a trace \
                 of {} entries with a PRR below {:.1} %; give the number of packets sent (--expected) if that is right",
                self.lines,
                seq as u128 + 1,
                100.0 / IMPLICIT_FACTOR as f64
            ),
        )
    }

    /// One sequence number from `loc` (`text` is quoted in errors).
    #[inline(always)]
    pub fn add(&mut self, seq: u64, loc: Loc, text: &[u8]) -> Result<()> {
        self.any = true;
        self.max_seen = self.max_seen.max(seq);
        if let Some(e) = self.expected {
            if seq >= e {
                if self.drop_beyond {
                    self.info.dropped += 1;
                    return Ok(());
                }
                return Err(loc_err(&self.file, loc, text, &format!("sequence number {seq} is beyond the {e} packets expected (0..{})", e - 1)));
            }
            self.set(seq);
            return Ok(());
        }
        self.lines += 1;
        self.bound = self.bound.saturating_add(IMPLICIT_FACTOR);
        if seq >= self.bound {
            if self.far.len() >= FAR_MAX {
                return Err(self.far_error(seq, loc, text));
            }
            self.far.push((seq, loc, shorten(text)));
            return Ok(());
        }
        let k = (seq >> 6) as usize;
        if k >= self.words.len() {
            mem::grow(&mut self.words, k + 1, &format!("reading {}", self.file))?;
            self.words.resize(k + 1, 0);
        }
        self.max_kept1 = self.max_kept1.max(seq + 1);
        self.set(seq);
        Ok(())
    }

    /// [`SeqListBuilder::add`] for a batch of sequence numbers from number-only lines, the
    /// common cases only (in range, or dropped beyond `expected`; without `expected`, below
    /// the bound and inside the words so far), with [`note_order`] for each; returns how
    /// many it took (the first one it did not take changes nothing and goes to `add`).
    /// The word being filled stays in a register while the numbers stay in it (sorted
    /// lists: about 64 × PRR lines), so no line waits on the store of the one before.
    #[inline(always)]
    fn add_batch(&mut self, vals: &[u64], prev: &mut Option<u64>, sorted: &mut bool) -> usize {
        let (mut ck, mut cur) = (usize::MAX, 0u64); // the cached word: index and value
        let (mut received, mut duplicates, mut dropped, mut max_seen) = (0u64, 0u64, 0u64, self.max_seen);
        let (mut lines, mut bound, mut max_kept1) = (self.lines, self.bound, self.max_kept1);
        let mut took = vals.len();
        for (j, &seq) in vals.iter().enumerate() {
            match self.expected {
                Some(e) if seq >= e => {
                    if !self.drop_beyond {
                        took = j;
                        break;
                    }
                    dropped += 1;
                    max_seen = max_seen.max(seq);
                    note_order(prev, sorted, seq, true);
                    continue;
                }
                Some(_) => {}
                None => {
                    let b = bound.saturating_add(IMPLICIT_FACTOR);
                    if seq >= b || (seq >> 6) as usize >= self.words.len() {
                        took = j;
                        break;
                    }
                    lines += 1;
                    bound = b;
                    max_kept1 = max_kept1.max(seq + 1);
                }
            }
            max_seen = max_seen.max(seq);
            note_order(prev, sorted, seq, true);
            let k = (seq >> 6) as usize;
            if k != ck {
                if ck != usize::MAX {
                    self.words[ck] = cur;
                }
                ck = k;
                cur = self.words[k];
            }
            let dup = (cur >> (seq & 63)) & 1;
            cur |= 1 << (seq & 63);
            duplicates += dup;
            received += dup ^ 1;
        }
        if ck != usize::MAX {
            self.words[ck] = cur;
        }
        if took > 0 {
            self.any = true;
        }
        self.info.received += received;
        self.info.duplicates += duplicates;
        self.info.dropped += dropped;
        (self.max_seen, self.lines, self.bound, self.max_kept1) = (max_seen, lines, bound, max_kept1);
        took
    }

    /// The trace: `expected` entries, or max seq + 1.
    pub fn finish(mut self) -> Result<(BitTrace, SeqListInfo)> {
        self.info.max_seq = self.any.then_some(self.max_seen);
        let len = match self.expected {
            Some(e) => e,
            None => {
                if let Some((seq, loc, text)) = self.far.iter().find(|f| f.0 >= self.bound) {
                    return Err(self.far_error(*seq, *loc, text.as_bytes()));
                }
                let far_max = self.far.iter().map(|f| f.0).max();
                match (self.max_kept1.checked_sub(1)).into_iter().chain(far_max).max() {
                    Some(m) => m + 1,
                    None => return Err(empty_err(&self.file, "no received packet, and no expected count to say how many were sent")),
                }
            }
        };
        let len = usize::try_from(len).map_err(|_| Error::Memory(format!("{}: a trace of {len} entries does not fit in this machine's address space", self.file)))?;
        let n_words = len.div_ceil(64);
        if n_words > self.words.len() {
            mem::grow(&mut self.words, n_words, &format!("{}: a trace of {len} entries", self.file))?;
            self.words.resize(n_words, 0);
        }
        for seq in std::mem::take(&mut self.far).into_iter().map(|f| f.0) {
            self.set(seq);
        }
        Ok((BitTrace::from_words(self.words, len)?, self.info))
    }
}

struct SeqSink<'a> {
    acc: Option<SeqListBuilder>,
    expected: Option<u64>,
    drop_beyond: bool,
    line: usize,
    prev: Option<u64>,
    sorted_single: bool,
    file: &'a str,
}

/// `# burstlab seqlist: expected=N` (what the writer puts on the first line).
fn header_expected(line: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(line).ok()?;
    let rest = s.strip_prefix('#')?.trim_start();
    if !rest.starts_with("burstlab seqlist") {
        return None;
    }
    let v = rest.split("expected=").nth(1)?;
    let digits: String = v.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// Keep [`SeqListInfo::sorted_single`] up to date: a line with more than one field, or a
/// number below the one before, ends it.
#[inline(always)]
fn note_order(prev: &mut Option<u64>, sorted: &mut bool, seq: u64, single_field: bool) {
    if !single_field || prev.is_some_and(|p| seq < p) {
        *sorted = false;
    }
    *prev = Some(seq);
}

impl Sink for SeqSink<'_> {
    fn line_no(&self) -> usize {
        self.line
    }

    fn feed(&mut self, b: &[u8], _eof: bool) -> Result<()> {
        let mut line = self.line;
        let r = feed_numbers(self, &mut line, b);
        self.line = line;
        r
    }
}

impl NumberLines for SeqSink<'_> {
    fn take(&mut self, vals: &[u64], _line: usize) -> Result<usize> {
        let Some(acc) = self.acc.as_mut() else { return Ok(0) }; // the first line: a header?
        Ok(acc.add_batch(vals, &mut self.prev, &mut self.sorted_single))
    }

    fn other(&mut self, s: &[u8], line: usize) -> Result<()> {
        if s.is_empty() {
            return Ok(());
        }
        if self.acc.is_none() {
            let from_header = if line == 1 && self.expected.is_none() { header_expected(s) } else { None };
            if from_header == Some(0) {
                return Err(parse_err(self.file, line, s, "the header says no packet was sent (expected=0): a trace needs at least one"));
            }
            let expected = self.expected.or(from_header);
            self.acc = Some(SeqListBuilder::new(self.file, expected, self.drop_beyond)?);
        }
        if s[0] != b'#' {
            let cut = s.iter().position(|&c| c.is_ascii_whitespace() || c == b',').unwrap_or(s.len());
            let Some(seq) = parse_u64(&s[..cut]) else {
                return Err(parse_err(self.file, line, s, "expected a non-negative integer sequence number as the first field"));
            };
            note_order(&mut self.prev, &mut self.sorted_single, seq, cut == s.len());
            self.acc.as_mut().expect("made above").add(seq, Loc::Line(line), s)?;
        }
        Ok(())
    }
}

// ------------------------------------------------------------------------------ mahimahi

struct MahimahiSink<'a> {
    times: Vec<u64>,
    line: usize,
    file: &'a str,
    /// The input's size in bytes, if known: the first block's lines then size `times` for
    /// the whole input at once (one allocation, its pages huge: `mem::advise_huge`).
    hint: Option<usize>,
}

impl Sink for MahimahiSink<'_> {
    fn line_no(&self) -> usize {
        self.line
    }

    fn feed(&mut self, b: &[u8], _eof: bool) -> Result<()> {
        if let Some(size) = self.hint.take() {
            // Lines in the whole input, from the first block's (+10 % and a little more; at
            // most one per two bytes). Only an estimate: if that much memory is not to be
            // had, `times` grows as the lines come, and refuses only what does not fit.
            let lines = b.iter().filter(|&&c| c == b'\n').count().max(1);
            let est = ((size as f64 * lines as f64 / b.len().max(1) as f64 * 1.1) as usize + 1024).min(size / 2 + 1);
            if est > self.times.capacity() {
                let more = est - self.times.len();
                let _ = mem::reserve(&mut self.times, more, &format!("reading {}", self.file));
            }
        }
        let mut line = self.line;
        let r = feed_numbers(self, &mut line, b);
        self.line = line;
        r
    }
}

impl NumberLines for MahimahiSink<'_> {
    fn take(&mut self, vals: &[u64], _line: usize) -> Result<usize> {
        // the non-decreasing prefix (a decrease goes to `other`, which reports it)
        let mut last = self.times.last().copied().unwrap_or(0);
        let mut took = vals.len();
        for (j, &ms) in vals.iter().enumerate() {
            if ms < last {
                took = j;
                break;
            }
            last = ms;
        }
        let need = self.times.len() + took;
        if need > self.times.capacity() {
            mem::grow(&mut self.times, need, &format!("reading {}", self.file))?;
        }
        self.times.extend_from_slice(&vals[..took]);
        Ok(took)
    }

    fn other(&mut self, s: &[u8], line: usize) -> Result<()> {
        if s.is_empty() || s[0] == b'#' {
            return Ok(());
        }
        let Some(ms) = parse_u64(s) else {
            return Err(parse_err(self.file, line, s, "expected one whole number of milliseconds per line (a Mahimahi delivery opportunity)"));
        };
        if let Some(&last) = self.times.last() {
            if ms < last {
                return Err(parse_err(self.file, line, s, &format!("timestamps must not decrease (the line before says {last} ms)")));
            }
        }
        if self.times.len() == self.times.capacity() {
            let need = self.times.len() + 1;
            mem::grow(&mut self.times, need, &format!("reading {}", self.file))?;
        }
        self.times.push(ms);
        Ok(())
    }
}

// ----------------------------------------------------------------------------- entries

/// Options of [`parse_reader`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `bits`/`string`: a `1` means lost.
    pub one_means_lost: bool,
    /// `seqlist`: number of packets sent (else the `# burstlab seqlist: expected=N`
    /// header, else max seq + 1).
    pub expected: Option<u64>,
    /// `seqlist`: drop and count seq ≥ expected instead of failing.
    pub drop_beyond: bool,
}

/// What a reader returns.
#[derive(Clone, Debug, PartialEq)]
pub enum Parsed {
    Trace(BitTrace, SeqListInfo),
    /// Mahimahi delivery opportunities, in milliseconds.
    Times(Vec<u64>),
}

/// Parse a text trace from a reader. `file` names it in errors (`path` in I/O errors);
/// `size_hint` (bytes) sizes the first reservation.
pub fn parse_reader<R: Read>(r: R, fmt: Format, file: &str, path: &str, opts: Options, size_hint: Option<u64>) -> Result<Parsed> {
    let hint = size_hint.unwrap_or(0).min(usize::MAX as u64) as usize;
    let what = format!("reading {file}");
    match fmt {
        Format::Bits | Format::Ttem => {
            let lost = if fmt == Format::Ttem { true } else { opts.one_means_lost }; // Barsocchi et al. §II.B: 1 = bad
            let mut s = BitsSink { t: BitTrace::try_with_capacity(hint / 2 + 1, &what)?, flip: if lost { u64::MAX } else { 0 }, line: 1, file };
            drive(r, &mut s, file, path)?;
            if s.t.is_empty() {
                return Err(empty_err(file, "no trace entries"));
            }
            s.t.shrink_to_fit();
            Ok(Parsed::Trace(s.t, SeqListInfo::default()))
        }
        Format::String => {
            let flip = if opts.one_means_lost { u64::MAX } else { 0 };
            let mut s = StringSink { t: BitTrace::try_with_capacity(hint, &what)?, flip, line: 1, offset: 0, line_start: 0, in_comment: false, file };
            drive(r, &mut s, file, path)?;
            if s.t.is_empty() {
                return Err(empty_err(file, "no trace entries"));
            }
            s.t.shrink_to_fit();
            Ok(Parsed::Trace(s.t, SeqListInfo::default()))
        }
        Format::SeqList => {
            if opts.expected == Some(0) {
                return Err(Error::param("expected", 0, "a positive number of packets sent"));
            }
            let mut s = SeqSink { acc: None, expected: opts.expected, drop_beyond: opts.drop_beyond, line: 1, prev: None, sorted_single: true, file };
            drive(r, &mut s, file, path)?;
            let acc = match s.acc {
                Some(a) => a,
                None => SeqListBuilder::new(file, opts.expected, opts.drop_beyond)?,
            };
            let (t, mut info) = acc.finish()?;
            info.sorted_single = s.sorted_single;
            Ok(Parsed::Trace(t, info))
        }
        Format::Mahimahi => {
            let mut s = MahimahiSink { times: Vec::new(), line: 1, file, hint: (hint > 0).then_some(hint) };
            drive(r, &mut s, file, path)?;
            match s.times.last() {
                None => Err(empty_err(file, "no delivery opportunity (a Mahimahi trace has one timestamp in milliseconds per line)")),
                Some(0) => Err(Error::Parse {
                    file: Some(file.to_string()),
                    line: None,
                    text: "0".into(),
                    reason: "every timestamp is 0 ms: a Mahimahi trace must last a nonzero time".into(),
                }),
                Some(_) => {
                    s.times.shrink_to_fit();
                    Ok(Parsed::Times(s.times))
                }
            }
        }
    }
}

/// Parse the file at `path` (`file` names it in messages), streamed.
pub fn parse_path(path: &Path, fmt: Format, file: &str, opts: Options) -> Result<Parsed> {
    let p = path.to_string_lossy();
    let f = std::fs::File::open(path).map_err(|e| io_err(&p, &e))?;
    let size = f.metadata().ok().map(|m| m.len());
    parse_reader(f, fmt, file, &p, opts, size)
}

/// Parse bytes already in memory.
pub fn parse_bytes(data: &[u8], fmt: Format, file: &str, opts: Options) -> Result<Parsed> {
    parse_reader(data, fmt, file, file, opts, Some(data.len() as u64))
}

fn trace_of(p: Parsed) -> (BitTrace, SeqListInfo) {
    match p {
        Parsed::Trace(t, i) => (t, i),
        Parsed::Times(_) => unreachable!("only the mahimahi format gives times"),
    }
}

/// `bits`: one 0/1 per line. `one_means_lost` flips the polarity so that the result
/// always has 1 = delivered.
pub fn parse_bits(data: &[u8], file: &str, one_means_lost: bool) -> Result<BitTrace> {
    parse_bytes(data, Format::Bits, file, Options { one_means_lost, ..Options::default() }).map(|p| trace_of(p).0)
}

/// `ttem`: Ttem's time-slot channel trace, 0 = good (no error in the interval) and
/// 1 = bad (a frame is corrupted), Barsocchi et al. §II.B; returned with 1 = delivered.
pub fn parse_ttem(data: &[u8], file: &str) -> Result<BitTrace> {
    parse_bytes(data, Format::Ttem, file, Options::default()).map(|p| trace_of(p).0)
}

/// `string`: '0'/'1' characters with any whitespace (newlines included) between them.
/// A `#` starts a comment that runs to the end of its line.
pub fn parse_string(data: &[u8], file: &str, one_means_lost: bool) -> Result<BitTrace> {
    parse_bytes(data, Format::String, file, Options { one_means_lost, ..Options::default() }).map(|p| trace_of(p).0)
}

/// `seqlist`: one line per received packet, `seq [more fields]` (extra fields ignored).
///
/// `expected` is the number of packets sent (entries 0..expected); without it, a first
/// line `# burstlab seqlist: expected=N` gives it, else the trace runs to the largest
/// sequence number seen (max seq + 1; a number more than [`IMPLICIT_FACTOR`] times the
/// line count beyond is refused, see there). A seq ≥ `expected` is an error naming its
/// line, unless `drop_beyond`, where it is dropped and counted ([`SeqListInfo::dropped`]).
/// Repeated sequence numbers count once. A file with no line is an all-lost trace of
/// `expected` entries, or an error without `expected`. The `expected` entries are
/// allocated first, checked against available memory ([`crate::mem`]).
pub fn parse_seqlist(data: &[u8], file: &str, expected: Option<u64>, drop_beyond: bool) -> Result<(BitTrace, SeqListInfo)> {
    parse_bytes(data, Format::SeqList, file, Options { expected, drop_beyond, ..Options::default() }).map(trace_of)
}

/// A Mahimahi link-capacity trace: the delivery opportunities in milliseconds
/// (non-decreasing, at least one, the last > 0, as `mm-link` requires).
pub fn read_mahimahi(path: &Path, file: &str) -> Result<Vec<u64>> {
    match parse_path(path, Format::Mahimahi, file, Options::default())? {
        Parsed::Times(t) => Ok(t),
        Parsed::Trace(..) => unreachable!("the mahimahi format gives times"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_error_parts(e: Error) -> (Option<String>, Option<usize>, String) {
        match e {
            Error::Parse { file, line, text, .. } => (file, line, text),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    /// Byte-at-a-time reads, so every line and fast-path window is split across reads.
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() || buf.is_empty() {
                return Ok(0);
            }
            buf[0] = self.0[0];
            self.0 = &self.0[1..];
            Ok(1)
        }
    }

    #[test]
    fn bits_with_blank_lines_comments_and_crlf() {
        let t = parse_bits(b"# header\n1\r\n0\n\n  1 \n0\n", "f.txt", false).unwrap();
        assert_eq!(t.to_bytes(), vec![1, 0, 1, 0]);
        let lost = parse_bits(b"1\n0\n0\n", "f", true).unwrap();
        assert_eq!(lost.to_bytes(), vec![0, 1, 1]);
    }

    #[test]
    fn fast_paths_match_the_line_by_line_reading() {
        // Long runs of clean lines (fast path) interrupted by every kind of slow line.
        let mut data = Vec::new();
        let mut want = Vec::new();
        for i in 0..5000u32 {
            let b = ((i.wrapping_mul(2654435761) >> 9) & 1) as u8;
            data.extend_from_slice(if b == 1 { b"1\n" } else { b"0\n" });
            want.push(b);
            match i % 997 {
                5 => data.extend_from_slice(b"\n"),
                17 => data.extend_from_slice(b"# note\n"),
                29 => {
                    data.extend_from_slice(b" 1\r\n");
                    want.push(1);
                }
                _ => {}
            }
        }
        let t = parse_bits(&data, "f", false).unwrap();
        assert_eq!(t.to_bytes(), want);
        let t = parse_bits(&data, "f", true).unwrap();
        assert_eq!(t.to_bytes(), want.iter().map(|b| 1 - b).collect::<Vec<_>>());
        let p = parse_reader(Trickle(&data), Format::Bits, "f", "f", Options::default(), None).unwrap();
        assert_eq!(trace_of(p).0.to_bytes(), want);
        // string: the same bits as one string with a newline every 70 characters and comments
        let mut s = Vec::new();
        for (i, b) in want.iter().enumerate() {
            s.push(b'0' + b);
            if i % 70 == 69 {
                s.extend_from_slice(if i % 700 == 699 { b" # c 01x\n" } else { b"\n" });
            }
        }
        assert_eq!(parse_string(&s, "s", false).unwrap().to_bytes(), want);
        let p = parse_reader(Trickle(&s), Format::String, "s", "s", Options::default(), None).unwrap();
        assert_eq!(trace_of(p).0.to_bytes(), want);
    }

    #[test]
    fn bits_error_names_file_line_and_text() {
        let e = parse_bits(b"1\n0\n1\n2\n", "trace.txt", false).unwrap_err();
        assert_eq!(parse_error_parts(e.clone()), (Some("trace.txt".into()), Some(4), "2".into()));
        assert!(e.to_string().starts_with("trace.txt:4: "), "{e}");
        let e = parse_bits(b"1\n0 1\n", "t", false).unwrap_err();
        assert_eq!(parse_error_parts(e).1, Some(2));
        // after many fast-path lines, the line number is still right
        let mut data = b"0\n".repeat(100);
        data.extend_from_slice(b"x\n");
        data.extend_from_slice(&b"1\n".repeat(100));
        assert_eq!(parse_error_parts(parse_bits(&data, "t", false).unwrap_err()).1, Some(101));
        let p = parse_reader(Trickle(&data), Format::Bits, "t", "t", Options::default(), None).unwrap_err();
        assert_eq!(parse_error_parts(p).1, Some(101));
    }

    #[test]
    fn empty_inputs_are_empty_errors() {
        for data in [&b""[..], b"\n\n", b"# only a comment\n"] {
            assert!(matches!(parse_bits(data, "e", false), Err(Error::Empty(_))));
            assert!(matches!(parse_string(data, "e", false), Err(Error::Empty(_))));
            assert!(matches!(parse_seqlist(data, "e", None, false), Err(Error::Empty(_))));
        }
    }

    #[test]
    fn ttem_flips_polarity() {
        // Barsocchi et al. §II.B: 0 = good interval, 1 = bad interval.
        let t = parse_ttem(b"0\n0\n1\n0\n", "ch.ttem").unwrap();
        assert_eq!(t.to_bytes(), vec![1, 1, 0, 1]);
    }

    #[test]
    fn string_allows_whitespace_and_reports_column() {
        let t = parse_string(b"0110 1\n  11\t0\n", "s", false).unwrap();
        assert_eq!(t.to_bytes(), vec![0, 1, 1, 0, 1, 1, 1, 0]);
        let e = parse_string(b"0101\n01x1 11\n", "s.txt", false).unwrap_err();
        assert!(e.to_string().contains("column 3"), "{e}");
        assert_eq!(parse_error_parts(e), (Some("s.txt".into()), Some(2), "x1".into()));
        // columns and lines stay right behind the fast path and across reads
        let mut data = b"01".repeat(40);
        data.extend_from_slice(b"\n0101010101010101010101010101010101010101z\n");
        let e = parse_reader(Trickle(&data), Format::String, "s", "s", Options::default(), None).unwrap_err();
        assert!(e.to_string().contains("column 41"), "{e}");
        assert_eq!(parse_error_parts(e).1, Some(2));
    }

    #[test]
    fn seqlist_known_answer() {
        // Received 0, 1, 3, 6 (with extra fields) → 1101001 (max seq + 1 = 7 entries).
        let (t, info) = parse_seqlist(b"0 12\n1 11\n3 -40 x\n6 10\n", "sdec", None, false).unwrap();
        assert_eq!(t.to_bytes(), vec![1, 1, 0, 1, 0, 0, 1]);
        assert_eq!(info, SeqListInfo { received: 4, duplicates: 0, dropped: 0, max_seq: Some(6), sorted_single: false });
        // With expected = 10 the tail is lost.
        let (t, _) = parse_seqlist(b"0 12\n1 11\n3 -40 x\n6 10\n", "sdec", Some(10), false).unwrap();
        assert_eq!(t.to_bytes(), vec![1, 1, 0, 1, 0, 0, 1, 0, 0, 0]);
        // The writer's header gives the expected count.
        let (t, info) = parse_seqlist(b"# burstlab seqlist: expected=9\n0\n3\n", "h", None, false).unwrap();
        assert_eq!((t.len(), info.received, info.sorted_single), (9, 2, true));
    }

    #[test]
    fn seqlist_duplicates_strays_and_empty() {
        let (t, info) = parse_seqlist(b"2\n0\n2\n", "d", Some(4), false).unwrap();
        assert_eq!(t.to_bytes(), vec![1, 0, 1, 0]);
        assert_eq!(info.duplicates, 1);
        assert_eq!(info.received, 2);
        let e = parse_seqlist(b"0\n1\n7 3\n", "r", Some(5), false).unwrap_err();
        assert!(e.to_string().contains("beyond the 5 packets"), "{e}");
        assert_eq!(parse_error_parts(e), (Some("r".into()), Some(3), "7 3".into()));
        let (t, info) = parse_seqlist(b"0\n1\n7 3\n", "r", Some(5), true).unwrap();
        assert_eq!(t.to_bytes(), vec![1, 1, 0, 0, 0]);
        assert_eq!((info.dropped, info.max_seq), (1, Some(7)));
        // An empty file with `expected` is an all-lost trace (nothing received).
        let (t, info) = parse_seqlist(b"", "empty", Some(301), false).unwrap();
        assert_eq!((t.len(), t.count_ones(), info.received), (301, 0, 0));
    }

    #[test]
    fn seqlist_rejects_bad_numbers() {
        for (data, line) in [(&b"0\n-1 5\n"[..], 2), (b"1.5\n", 1), (b"abc def\n", 1), (b"99999999999999999999\n", 1)] {
            let e = parse_seqlist(data, "x", None, false).unwrap_err();
            assert_eq!(parse_error_parts(e).1, Some(line));
        }
        assert!(matches!(parse_seqlist(b"0\n", "x", Some(0), false), Err(Error::InvalidParameter { .. })));
    }

    /// A stray huge number never allocates its range: it is held aside and refused at the
    /// end unless enough lines make it plausible; impossible `expected` counts are memory
    /// errors, not aborts.
    #[test]
    fn seqlist_huge_numbers_and_counts_are_refused_without_allocating() {
        for data in [&b"68719476735\n"[..], b"0\n1\n18446744073709551615\n", b"# burstlab seqlist: expected=1000000000000000000\n1\n"] {
            let e = parse_seqlist(data, "x", None, false).unwrap_err();
            assert!(matches!(e, Error::Parse { .. } | Error::Memory(_)), "{e:?}");
        }
        let e = parse_seqlist(b"0\n1\n100000000000\n", "x", None, false).unwrap_err();
        assert!(e.to_string().contains("x:3: sequence number 100000000000 is far beyond"), "{e}");
        assert!(matches!(parse_seqlist(b"1\n", "x", Some(u64::MAX), false), Err(Error::Memory(_))));
        // Far numbers that the rest of the file makes plausible are kept.
        let mut data = b"2000000\n".to_vec();
        for i in 0..2000u32 {
            data.extend_from_slice(format!("{i}\n").as_bytes());
        }
        let (t, info) = parse_seqlist(&data, "x", None, false).unwrap();
        assert_eq!((t.len(), info.received), (2_000_001, 2001));
    }

    #[test]
    fn swar_number_lines_match_the_plain_parser() {
        let mut x = 1u64;
        for _ in 0..20000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let digits = 1 + (x >> 60) as usize % 15;
            let v = (x >> 3) % 10u64.pow(digits as u32);
            for line in [format!("{v}\n"), format!("{:0>w$}\n", v, w = digits), format!("{v} 3\n"), format!("{v}\r\n")] {
                let mut buf = line.clone().into_bytes();
                buf.extend_from_slice(&[b'9'; 20]);
                let want = if line.ends_with(" 3\n") || line.ends_with("\r\n") { None } else { Some((v, line.len())) };
                assert_eq!(digits_line(&buf, 0), want, "{line:?}");
                assert_eq!(digits_line(&buf[..line.len()], 0), want, "{line:?} (short buffer)");
            }
        }
        assert_eq!(digits_line(b"\n0123456789abcdef", 0), None);
        // number_lines over a block of such lines agrees with the line-by-line reading
        let mut block = Vec::new();
        let mut want = Vec::new();
        for k in 0..3000u64 {
            let v = k.wrapping_mul(0x9E3779B97F4A7C15) >> (4 + k % 60);
            let line = match k % 50 {
                7 => format!("{v} x\n"),
                _ => format!("{v}\n"),
            };
            block.extend_from_slice(line.as_bytes());
            want.push((line.contains(' '), v));
        }
        let mut i = 0;
        let mut got = Vec::new();
        let (mut vals, mut starts) = ([0u64; BATCH], [0usize; BATCH]);
        while i < block.len() {
            loop {
                let (c, next) = number_batch(&block, i, &mut vals, &mut starts);
                for j in 0..c {
                    let end = if j + 1 < c { starts[j + 1] } else { next };
                    assert_eq!(parse_u64(&block[starts[j]..end - 1]), Some(vals[j]));
                    got.push((false, vals[j]));
                }
                i = next;
                if c == 0 {
                    break;
                }
            }
            if i < block.len() {
                let end = i + find_newline(&block[i..]).unwrap();
                let s = &block[i..end];
                let cut = s.iter().position(|&c| c == b' ').unwrap_or(s.len());
                got.push((cut < s.len(), parse_u64(&s[..cut]).unwrap()));
                i = end + 1;
            }
        }
        assert_eq!(got, want);
        assert_eq!(digits_line(b"1234567890123456\n0", 0), None); // 16 digits: the slow path
    }

    /// Property: the batched fast path of the number-per-line formats reads exactly as the
    /// line-by-line path ([`NumberLines::other`] on every line) on random texts of mostly
    /// clean lines with rare odd ones (comments, blanks, CRLF, extra fields, leading blanks,
    /// 9-20 digit numbers, decreasing, repeated, beyond `expected`, not numbers): the same
    /// trace and counts, or the same error (file, line, text, reason).
    #[test]
    fn property_number_batches_equal_the_line_by_line_path() {
        use rand::Rng;
        fn lines(data: &[u8]) -> Vec<&[u8]> {
            let mut v: Vec<&[u8]> = data.split(|&c| c == b'\n').collect();
            if v.last().is_some_and(|l| l.is_empty()) {
                v.pop();
            }
            v
        }
        fn slow_seqlist(data: &[u8], opts: Options) -> Result<(BitTrace, SeqListInfo)> {
            let mut s = SeqSink { acc: None, expected: opts.expected, drop_beyond: opts.drop_beyond, line: 1, prev: None, sorted_single: true, file: "f" };
            for (k, l) in lines(data).into_iter().enumerate() {
                s.other(trim(l), k + 1)?;
            }
            let acc = match s.acc {
                Some(a) => a,
                None => SeqListBuilder::new("f", opts.expected, opts.drop_beyond)?,
            };
            let (t, mut info) = acc.finish()?;
            info.sorted_single = s.sorted_single;
            Ok((t, info))
        }
        fn slow_mahimahi(data: &[u8]) -> Result<Vec<u64>> {
            let mut s = MahimahiSink { times: Vec::new(), line: 1, file: "f", hint: None };
            for (k, l) in lines(data).into_iter().enumerate() {
                s.other(trim(l), k + 1)?;
            }
            Ok(s.times)
        }
        let mut r = crate::rng::from_seed(5);
        for case in 0..400 {
            let n_lines = r.random_range(0..3000usize);
            let odd_rate = [0.0, 0.001, 0.01, 0.1][case % 4];
            let mut data = Vec::new();
            let mut v = r.random_range(0..1000u64);
            for _ in 0..n_lines {
                v += r.random_range(0..3u64);
                if r.random::<f64>() < odd_rate {
                    let odd: String = match r.random_range(0..12u32) {
                        0 => "# note".into(),
                        1 => "".into(),
                        2 => format!("{v}\r"),
                        3 => format!("{v} 7"),
                        4 => format!(" {v}"),
                        5 => format!("{}", r.random_range(10u64.pow(8)..10u64.pow(16))),
                        6 => format!("{}", r.random_range(10u64.pow(16)..u64::MAX)),
                        7 => "99999999999999999999".into(),
                        8 => format!("{}", v.saturating_sub(5)),
                        9 => format!("{v}"),
                        10 => "x1".into(),
                        _ => format!("{},3", v + 100_000),
                    };
                    data.extend_from_slice(odd.as_bytes());
                } else {
                    data.extend_from_slice(format!("{v}").as_bytes());
                }
                data.push(b'\n');
            }
            if case % 7 == 0 {
                data.pop(); // no final newline
            }
            let same = |a: &Error, b: &Error| a.to_string() == b.to_string();
            for opts in [
                Options::default(),
                Options { expected: Some(v + 10), ..Options::default() },
                Options { expected: Some(v / 2 + 1), drop_beyond: true, ..Options::default() },
                Options { expected: Some(v / 2 + 1), ..Options::default() },
            ] {
                let got = parse_bytes(&data, Format::SeqList, "f", opts).map(trace_of);
                match (got, slow_seqlist(&data, opts)) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b, "case {case} {opts:?}"),
                    (Err(a), Err(b)) => assert!(same(&a, &b), "case {case} {opts:?}: {a} / {b}"),
                    (a, b) => panic!("case {case} {opts:?}: {a:?} / {b:?}"),
                }
            }
            let got = parse_bytes(&data, Format::Mahimahi, "f", Options::default());
            match (got, slow_mahimahi(&data)) {
                (Ok(Parsed::Times(a)), Ok(b)) => assert_eq!(a, b, "case {case}"),
                (Err(a), Ok(b)) => assert!(b.last().is_none_or(|&l| l == 0) && matches!(a, Error::Empty(_) | Error::Parse { line: None, .. }), "case {case}: {a}"),
                (Err(a), Err(b)) => assert!(same(&a, &b), "case {case}: {a} / {b}"),
                (a, b) => panic!("case {case}: {a:?} / {b:?}"),
            }
        }
    }

    #[test]
    fn mahimahi_sizing_from_the_first_block_is_only_an_estimate() {
        // Blank lines first (the estimate counts them), then opportunities.
        let mut data = vec![b'\n'; 5000];
        data.extend_from_slice(b"5\n6\n6\n9\n");
        let t = |p: Parsed| match p {
            Parsed::Times(t) => t,
            Parsed::Trace(..) => unreachable!("mahimahi gives times"),
        };
        assert_eq!(t(parse_bytes(&data, Format::Mahimahi, "f", Options::default()).unwrap()), vec![5, 6, 6, 9]);
        // A size hint far beyond memory (a device that reports one): the reader does not
        // refuse, it grows as the lines come.
        let got = parse_reader(&data[..], Format::Mahimahi, "f", "f", Options::default(), Some(1 << 60)).unwrap();
        assert_eq!(t(got), vec![5, 6, 6, 9]);
    }

    #[test]
    fn mahimahi_reads_opportunities_and_refuses_what_mm_link_refuses() {
        let p = parse_bytes(b"0\n0\n2\n3\n3\n# c\n\n17\n", Format::Mahimahi, "m", Options::default()).unwrap();
        assert_eq!(p, Parsed::Times(vec![0, 0, 2, 3, 3, 17]));
        let e = parse_bytes(b"1\n5\n4\n", Format::Mahimahi, "m.up", Options::default()).unwrap_err();
        assert_eq!(parse_error_parts(e.clone()), (Some("m.up".into()), Some(3), "4".into()));
        assert!(e.to_string().contains("must not decrease"), "{e}");
        let e = parse_bytes(b"1\n2 3\n", Format::Mahimahi, "m", Options::default()).unwrap_err();
        assert_eq!(parse_error_parts(e).1, Some(2));
        assert!(matches!(parse_bytes(b"\n", Format::Mahimahi, "m", Options::default()), Err(Error::Empty(_))));
        assert!(parse_bytes(b"0\n0\n", Format::Mahimahi, "m", Options::default()).unwrap_err().to_string().contains("nonzero"));
    }

    #[test]
    fn long_lines_are_shortened_in_errors() {
        let mut data = b"1\n".to_vec();
        data.extend_from_slice(&[b'z'; 500]);
        let e = parse_bits(&data, "long", false).unwrap_err();
        let (_, line, text) = parse_error_parts(e);
        assert_eq!(line, Some(2));
        assert!(text.len() <= 60 && text.ends_with("..."));
        // a line longer than the buffer is refused, naming it
        let mut data = b"0\n".to_vec();
        data.extend_from_slice(&vec![b'1'; BLOCK + 10]);
        let e = parse_bits(&data, "long", false).unwrap_err();
        assert_eq!(parse_error_parts(e).1, Some(2));
    }

    #[test]
    fn io_errors_keep_the_os_error() {
        let e = parse_path(Path::new("/nonexistent/x.bits"), Format::Bits, "x.bits", Options::default()).unwrap_err();
        assert!(matches!(e, Error::Io { errno: Some(2), .. }), "{e:?}");
    }
}

