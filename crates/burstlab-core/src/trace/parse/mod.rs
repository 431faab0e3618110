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

mod bits;
mod kernels;
mod mahimahi;
mod seqlist;
mod string;
#[cfg(test)]
mod tests;

use bits::*;
use kernels::*;
use mahimahi::*;
pub use seqlist::SeqListBuilder;
use seqlist::*;
use string::*;

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

/// A consumer of complete lines (or, for `string`, of any bytes).
pub(super) trait Sink {
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
pub(super) fn drive<R: Read, S: Sink>(mut r: R, sink: &mut S, file: &str, path: &str) -> Result<()> {
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
