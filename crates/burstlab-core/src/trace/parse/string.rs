//! The `string` reader: one long 0/1 string, whitespace anywhere, 32 characters at a time.
use super::*;

pub(super) struct StringSink<'a> {
    pub(super) t: BitTrace,
    pub(super) flip: u64,
    pub(super) line: usize,
    /// Absolute offset of the block being fed and of the current line's start.
    pub(super) offset: usize,
    pub(super) line_start: usize,
    pub(super) in_comment: bool,
    pub(super) file: &'a str,
}

/// Gathers the low bit of each byte into the top byte (byte i → bit 56 + i).
pub(super) const BYTE_GATHER: u64 = 0x0102_0408_1020_4080;

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
