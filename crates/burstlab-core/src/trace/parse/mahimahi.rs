//! The Mahimahi link-capacity reader: one line per delivery opportunity, in milliseconds.
use super::*;

pub(super) struct MahimahiSink<'a> {
    pub(super) times: Vec<u64>,
    pub(super) line: usize,
    pub(super) file: &'a str,
    /// The input's size in bytes, if known: the first block's lines then size `times` for
    /// the whole input at once (one allocation, its pages huge: `mem::advise_huge`).
    pub(super) hint: Option<usize>,
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
