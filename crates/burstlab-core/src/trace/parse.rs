//! Text trace readers: bytes + file name in, a [`BitTrace`] (1 = delivered) out.
//!
//! Formats (see `docs/traces.md`):
//! - `bits`: one `0`/`1` per line;
//! - `string`: one long `0`/`1` string, whitespace (including newlines) allowed anywhere;
//! - `seqlist`: one line per *received* packet, `seq [more fields]`; missing sequence
//!   numbers are losses (the Rutgers ORBIT traces);
//! - `ttem`: one `0`/`1` per line per time slot Δ in Ttem's convention, 0 = good and
//!   1 = bad (Barsocchi et al. §II.B), flipped to burstlab's 1 = delivered.
//!
//! Blank lines and lines whose first non-blank character is `#` are skipped in the
//! line-based formats. Every error names the file, the 1-based line and the offending text.
use super::bits::BitTrace;
use crate::error::{Error, Result};

/// Without `expected`, a sequence list longer than this is refused (a stray huge number
/// would otherwise allocate the whole range).
pub const MAX_IMPLICIT_SEQ: u64 = 1 << 36;

/// What [`parse_seqlist`] saw besides the bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqListInfo {
    /// Distinct sequence numbers kept (= delivered entries).
    pub received: u64,
    /// Lines repeating a sequence number already seen (ignored).
    pub duplicates: u64,
    /// Lines with seq ≥ expected that were dropped (only with `drop_beyond`).
    pub dropped: u64,
    /// Largest sequence number on any line (dropped ones included), None if no line.
    pub max_seq: Option<u64>,
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

fn parse_err(file: &str, line: usize, text: &[u8], reason: &str) -> Error {
    Error::Parse { file: Some(file.to_string()), line: Some(line), text: shorten(text), reason: reason.to_string() }
}

fn empty_err(file: &str, what: &str) -> Error {
    Error::Empty(format!("{file}: empty file: {what}"))
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

/// Non-blank, non-comment lines as (1-based line number, trimmed content).
fn content_lines(data: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    data.split(|&b| b == b'\n').enumerate().filter_map(|(i, l)| {
        let t = trim(l);
        (!t.is_empty() && t[0] != b'#').then_some((i + 1, t))
    })
}

/// `bits`: one 0/1 per line. `one_means_lost` flips the polarity so that the result
/// always has 1 = delivered.
pub fn parse_bits(data: &[u8], file: &str, one_means_lost: bool) -> Result<BitTrace> {
    let mut t = BitTrace::with_capacity(data.len() / 2 + 1);
    for (line, s) in content_lines(data) {
        match s {
            b"0" => t.push(one_means_lost),
            b"1" => t.push(!one_means_lost),
            _ => return Err(parse_err(file, line, s, "expected a single 0 or 1")),
        }
    }
    if t.is_empty() {
        return Err(empty_err(file, "no trace entries"));
    }
    Ok(t)
}

/// `ttem`: Ttem's time-slot channel trace, 0 = good (no error in the interval) and
/// 1 = bad (a frame is corrupted), Barsocchi et al. §II.B; returned with 1 = delivered.
pub fn parse_ttem(data: &[u8], file: &str) -> Result<BitTrace> {
    parse_bits(data, file, true)
}

/// `string`: '0'/'1' characters with any whitespace (newlines included) between them.
/// A `#` starts a comment that runs to the end of its line.
pub fn parse_string(data: &[u8], file: &str, one_means_lost: bool) -> Result<BitTrace> {
    let mut t = BitTrace::with_capacity(data.len());
    for (i, l) in data.split(|&b| b == b'\n').enumerate() {
        for (col, &c) in l.iter().enumerate() {
            match c {
                b'0' => t.push(one_means_lost),
                b'1' => t.push(!one_means_lost),
                b'#' => break,
                c if c.is_ascii_whitespace() => {}
                _ => {
                    let end = (col + 1..l.len()).find(|&j| l[j].is_ascii_whitespace()).unwrap_or(l.len());
                    let reason = format!("column {}: expected only 0 and 1", col + 1);
                    return Err(parse_err(file, i + 1, &l[col..end], &reason));
                }
            }
        }
    }
    if t.is_empty() {
        return Err(empty_err(file, "no trace entries"));
    }
    Ok(t)
}

fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 {
        return None;
    }
    let mut v = 0u64;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as u64;
    }
    Some(v)
}

/// `seqlist`: one line per received packet, `seq [more fields]` (extra fields ignored).
///
/// `expected` is the number of packets sent (entries 0..expected); without it the trace
/// runs to the largest sequence number seen (max seq + 1). A seq ≥ `expected` is an error
/// naming its line, unless `drop_beyond`, where it is dropped and counted
/// ([`SeqListInfo::dropped`]). Repeated sequence numbers count once. A file with no line
/// is an all-lost trace of `expected` entries, or an error without `expected`.
pub fn parse_seqlist(data: &[u8], file: &str, expected: Option<u64>, drop_beyond: bool) -> Result<(BitTrace, SeqListInfo)> {
    if let Some(0) = expected {
        return Err(Error::param("expected", 0, "a positive number of packets sent"));
    }
    let limit = expected.unwrap_or(MAX_IMPLICIT_SEQ);
    let mut info = SeqListInfo::default();
    let mut seqs: Vec<u64> = Vec::with_capacity(data.len() / 4 + 1);
    for (line, s) in content_lines(data) {
        let field = s.split(|c| c.is_ascii_whitespace() || *c == b',').next().unwrap_or(s);
        let Some(seq) = parse_u64(field) else {
            return Err(parse_err(file, line, s, "expected a non-negative integer sequence number as the first field"));
        };
        info.max_seq = Some(info.max_seq.map_or(seq, |m| m.max(seq)));
        if seq >= limit {
            if drop_beyond && expected.is_some() {
                info.dropped += 1;
                continue;
            }
            let reason = match expected {
                Some(e) => format!("sequence number {seq} is beyond the {e} packets expected (0..{})", e - 1),
                None => format!("sequence number {seq} is too large without an explicit expected count (limit {MAX_IMPLICIT_SEQ})"),
            };
            return Err(parse_err(file, line, s, &reason));
        }
        seqs.push(seq);
    }
    let len = match expected {
        Some(e) => e,
        None => match seqs.iter().max() {
            Some(&m) => m + 1,
            None => return Err(empty_err(file, "no received packet, and no expected count to say how many were sent")),
        },
    };
    let len = usize::try_from(len).map_err(|_| Error::param("expected", len, "a trace length this machine can hold"))?;
    let mut words = vec![0u64; len.div_ceil(64)];
    for &s in &seqs {
        let (k, bit) = ((s >> 6) as usize, 1u64 << (s & 63));
        if words[k] & bit != 0 {
            info.duplicates += 1;
        } else {
            words[k] |= bit;
            info.received += 1;
        }
    }
    Ok((BitTrace::from_words(words, len)?, info))
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

    #[test]
    fn bits_with_blank_lines_comments_and_crlf() {
        let t = parse_bits(b"# header\n1\r\n0\n\n  1 \n0\n", "f.txt", false).unwrap();
        assert_eq!(t.to_bytes(), vec![1, 0, 1, 0]);
        let lost = parse_bits(b"1\n0\n0\n", "f", true).unwrap();
        assert_eq!(lost.to_bytes(), vec![0, 1, 1]);
    }

    #[test]
    fn bits_error_names_file_line_and_text() {
        let e = parse_bits(b"1\n0\n1\n2\n", "trace.txt", false).unwrap_err();
        assert_eq!(parse_error_parts(e.clone()), (Some("trace.txt".into()), Some(4), "2".into()));
        assert!(e.to_string().starts_with("trace.txt:4: "), "{e}");
        let e = parse_bits(b"1\n0 1\n", "t", false).unwrap_err();
        assert_eq!(parse_error_parts(e).1, Some(2));
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
    }

    #[test]
    fn seqlist_known_answer() {
        // Received 0, 1, 3, 6 (with extra fields) → 1101001 (max seq + 1 = 7 entries).
        let (t, info) = parse_seqlist(b"0 12\n1 11\n3 -40 x\n6 10\n", "sdec", None, false).unwrap();
        assert_eq!(t.to_bytes(), vec![1, 1, 0, 1, 0, 0, 1]);
        assert_eq!(info, SeqListInfo { received: 4, duplicates: 0, dropped: 0, max_seq: Some(6) });
        // With expected = 10 the tail is lost.
        let (t, _) = parse_seqlist(b"0 12\n1 11\n3 -40 x\n6 10\n", "sdec", Some(10), false).unwrap();
        assert_eq!(t.to_bytes(), vec![1, 1, 0, 1, 0, 0, 1, 0, 0, 0]);
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
        assert!(parse_seqlist(b"100000000000\n", "x", None, false).is_err());
    }

    #[test]
    fn long_lines_are_shortened_in_errors() {
        let mut data = b"1\n".to_vec();
        data.extend_from_slice(&[b'z'; 500]);
        let e = parse_bits(&data, "long", false).unwrap_err();
        let (_, line, text) = parse_error_parts(e);
        assert_eq!(line, Some(2));
        assert!(text.len() <= 60 && text.ends_with("..."));
    }
}
