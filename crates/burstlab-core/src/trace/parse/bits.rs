//! The `bits` and `ttem` readers: one 0/1 per line, `0\n`/`1\n` checked and packed 32 at a time.
use super::*;

/// `bits` and `ttem`: one 0/1 per line; `one` is the bit a `1` stands for.
pub(super) struct BitsSink<'a> {
    pub(super) t: BitTrace,
    pub(super) flip: u64,
    pub(super) line: usize,
    pub(super) file: &'a str,
}

/// `0\n` / `1\n` four times in a little-endian u64: the digit bytes masked to their upper
/// seven bits must read `0`, the others `\n`.
pub(super) const PAIR_MASK: u64 = 0xFFFE_FFFE_FFFE_FFFE;
pub(super) const PAIR_WANT: u64 = 0x0A30_0A30_0A30_0A30;
/// Gathers bits 0, 16, 32 and 48 into bits 45-48 (no two partial products overlap).
pub(super) const PAIR_GATHER: u64 = (1 << 45) | (1 << 30) | (1 << 15) | 1;

#[inline(always)]
pub(super) fn load(b: &[u8], i: usize) -> u64 {
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
