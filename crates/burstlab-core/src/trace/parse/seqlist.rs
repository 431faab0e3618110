//! The `seqlist` reader (one line per received packet) and [`SeqListBuilder`], which the
//! sequence-only CSV and Parquet tables share.
use super::*;

/// Sequence numbers in, a trace out (the `seqlist` reader and the sequence-only CSV and
/// Parquet tables share it). See [`parse_seqlist`] for the rules.
pub struct SeqListBuilder {
    pub(super) words: Vec<u64>,
    pub(super) expected: Option<u64>,
    pub(super) drop_beyond: bool,
    pub(super) info: SeqListInfo,
    /// Sequence numbers held aside (implicit length only): (seq, where, text).
    pub(super) far: Vec<(u64, Loc, String)>,
    pub(super) lines: u64,
    /// IMPLICIT_FACTOR × lines + IMPLICIT_SLACK, kept up to date line by line.
    pub(super) bound: u64,
    /// Largest sequence number on any line (valid when `any`) and, + 1, the largest kept
    /// in `words` (implicit length; 0 = none).
    pub(super) any: bool,
    pub(super) max_seen: u64,
    pub(super) max_kept1: u64,
    pub(super) file: String,
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

pub(super) struct SeqSink<'a> {
    pub(super) acc: Option<SeqListBuilder>,
    pub(super) expected: Option<u64>,
    pub(super) drop_beyond: bool,
    pub(super) line: usize,
    pub(super) prev: Option<u64>,
    pub(super) sorted_single: bool,
    pub(super) file: &'a str,
}

/// `# burstlab seqlist: expected=N` (what the writer puts on the first line).
pub(super) fn header_expected(line: &[u8]) -> Option<u64> {
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
pub(super) fn note_order(prev: &mut Option<u64>, sorted: &mut bool, seq: u64, single_field: bool) {
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
