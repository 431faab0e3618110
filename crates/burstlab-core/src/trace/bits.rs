//! A packed bit sequence: bit i lives in `words[i / 64]` at position `i % 64` (LSB first),
//! which is the layout of `numpy.packbits(..., bitorder="little")` viewed as `u64`.
use crate::error::{Error, Result};
use crate::mem;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitTrace {
    words: Vec<u64>,
    len: usize,
}

impl BitTrace {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity(bits: usize) -> Self {
        Self { words: Vec::with_capacity(bits.div_ceil(64)), len: 0 }
    }

    /// Room for `bits` entries, checked against available memory and reserved fallibly
    /// ([`crate::mem`]): an impossible size is an [`Error::Memory`], never an abort.
    pub fn try_with_capacity(bits: usize, what: &str) -> Result<Self> {
        let mut t = Self::new();
        t.reserve_bits(bits, what)?;
        Ok(t)
    }

    /// Make room for `additional` more entries (checked, fallible, amortised growth).
    pub fn reserve_bits(&mut self, additional: usize, what: &str) -> Result<()> {
        let need = self.len.checked_add(additional).ok_or_else(|| Error::Memory(format!("{what}: more than 2^64 entries")))?;
        mem::grow(&mut self.words, need.div_ceil(64), what)
    }

    /// `len` bits all equal to `value`, checked and fallible ([`BitTrace::filled`]).
    pub fn try_filled(len: usize, value: bool, what: &str) -> Result<Self> {
        let fill = if value { u64::MAX } else { 0 };
        let mut words = mem::zeroed::<u64>(len.div_ceil(64), what)?;
        if value {
            words.iter_mut().for_each(|w| *w = fill);
        }
        let mut t = Self { words, len };
        t.clear_tail();
        Ok(t)
    }

    /// `len` bits, all equal to `value`.
    pub fn filled(len: usize, value: bool) -> Self {
        let fill = if value { u64::MAX } else { 0 };
        let mut t = Self { words: vec![fill; len.div_ceil(64)], len };
        t.clear_tail();
        t
    }

    /// From packed words; bits past `len` are cleared so they never leak into statistics.
    pub fn from_words(words: Vec<u64>, len: usize) -> Result<Self> {
        if words.len() != len.div_ceil(64) {
            return Err(Error::param(
                "words",
                words.len(),
                &format!("{} words for {} bits", len.div_ceil(64), len),
            ));
        }
        let mut t = Self { words, len };
        t.clear_tail();
        Ok(t)
    }

    /// From one byte per entry: nonzero = 1 (delivered).
    pub fn from_bytes(v: &[u8]) -> Self {
        let mut words = Vec::with_capacity(v.len().div_ceil(64));
        for chunk in v.chunks(64) {
            let mut w = 0u64;
            for (j, &b) in chunk.iter().enumerate() {
                w |= ((b != 0) as u64) << j;
            }
            words.push(w);
        }
        Self { words, len: v.len() }
    }

    pub fn from_bools<I: IntoIterator<Item = bool>>(it: I) -> Self {
        let mut t = Self::new();
        for b in it {
            t.push(b);
        }
        t
    }

    /// Parse "0110..." (characters other than 0/1 are an error).
    pub fn from_str01(s: &str) -> Result<Self> {
        let mut t = Self::with_capacity(s.len());
        for (i, c) in s.chars().enumerate() {
            match c {
                '0' => t.push(false),
                '1' => t.push(true),
                _ => {
                    return Err(Error::Parse {
                        file: None,
                        line: None,
                        text: c.to_string(),
                        reason: format!("character {} is not 0 or 1", i + 1),
                    })
                }
            }
        }
        Ok(t)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    #[inline]
    pub fn get(&self, i: usize) -> bool {
        assert!(i < self.len, "bit index {i} out of range for length {}", self.len);
        (self.words[i >> 6] >> (i & 63)) & 1 == 1
    }

    #[inline]
    pub fn push(&mut self, b: bool) {
        let j = self.len & 63;
        if j == 0 {
            self.words.push(0);
        }
        if b {
            *self.words.last_mut().unwrap() |= 1u64 << j;
        }
        self.len += 1;
    }

    /// Append 64 bits at once when the length is a multiple of 64 (fast path for samplers);
    /// falls back to bit pushes otherwise. Only the low `n` bits of `w` are used.
    pub fn push_word(&mut self, w: u64, n: usize) {
        debug_assert!(n <= 64);
        if self.len & 63 == 0 {
            let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
            self.words.push(w & mask);
            self.len += n;
        } else {
            for j in 0..n {
                self.push((w >> j) & 1 == 1);
            }
        }
    }

    /// Append the low `n <= 64` bits of `w` at any alignment (the streaming readers' path:
    /// callers reserve first with [`BitTrace::reserve_bits`], so this never reallocates
    /// more than `Vec::push` would).
    #[inline]
    pub fn append(&mut self, w: u64, n: usize) {
        debug_assert!(n <= 64);
        if n == 0 {
            return;
        }
        let w = if n == 64 { w } else { w & ((1u64 << n) - 1) };
        let j = self.len & 63;
        if j == 0 {
            self.words.push(w);
        } else {
            *self.words.last_mut().expect("a partial word exists when len % 64 != 0") |= w << j;
            if j + n > 64 {
                self.words.push(w >> (64 - j));
            }
        }
        self.len += n;
    }

    /// Release spare capacity (after a streaming read whose size was estimated).
    pub fn shrink_to_fit(&mut self) {
        self.words.shrink_to_fit();
    }

    /// Number of 1s among bits [start, end).
    pub fn count_ones_range(&self, start: usize, end: usize) -> u64 {
        assert!(start <= end && end <= self.len);
        if start == end {
            return 0;
        }
        let (ws, we) = (start >> 6, (end - 1) >> 6);
        let mut total = 0u64;
        for k in ws..=we {
            let mut w = self.words[k];
            if k == ws {
                w &= u64::MAX << (start & 63);
            }
            if k == we {
                let hi = end - (k << 6);
                if hi < 64 {
                    w &= (1u64 << hi) - 1;
                }
            }
            total += w.count_ones() as u64;
        }
        total
    }

    /// Bits [start, end) as a new trace.
    pub fn slice(&self, start: usize, end: usize) -> BitTrace {
        assert!(start <= end && end <= self.len);
        let mut out = BitTrace::with_capacity(end - start);
        let mut i = start;
        while i < end {
            let n = (end - i).min(64);
            out.push_word(self.bits_at(i, n), n);
            i += n;
        }
        out
    }

    /// `n <= 64` bits starting at `i`, as the low bits of a word.
    #[inline]
    pub fn bits_at(&self, i: usize, n: usize) -> u64 {
        debug_assert!(n <= 64 && i + n <= self.len);
        if n == 0 {
            return 0;
        }
        let (k, s) = (i >> 6, i & 63);
        let mut w = self.words[k] >> s;
        if s != 0 && k + 1 < self.words.len() {
            w |= self.words[k + 1] << (64 - s);
        }
        if n < 64 {
            w &= (1u64 << n) - 1;
        }
        w
    }

    /// The complement (1 = lost), e.g. to convert polarity.
    pub fn inverted(&self) -> BitTrace {
        let mut t = BitTrace { words: self.words.iter().map(|w| !w).collect(), len: self.len };
        t.clear_tail();
        t
    }

    /// One byte per entry (0 or 1), checked and fallible (8× the packed size).
    pub fn try_to_bytes(&self) -> Result<Vec<u8>> {
        let mut v = Vec::new();
        mem::reserve(&mut v, self.len, &format!("unpacking a trace of {} entries to one byte per entry", self.len))?;
        self.unpack_into(&mut v);
        Ok(v)
    }

    /// One byte per entry (0 or 1).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len);
        self.unpack_into(&mut v);
        v
    }

    fn unpack_into(&self, v: &mut Vec<u8>) {
        for (k, &w) in self.words.iter().enumerate() {
            let n = (self.len - (k << 6)).min(64);
            for j in 0..n {
                v.push(((w >> j) & 1) as u8);
            }
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.len).map(move |i| self.get(i))
    }

    fn clear_tail(&mut self) {
        let r = self.len & 63;
        if r != 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << r) - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_get_and_bytes_round_trip() {
        let v: Vec<u8> = (0..200).map(|i| ((i * 7 + i / 3) % 5 < 2) as u8).collect();
        let t = BitTrace::from_bytes(&v);
        assert_eq!(t.len(), 200);
        assert_eq!(t.to_bytes(), v);
        let t2 = BitTrace::from_bools(v.iter().map(|&b| b == 1));
        assert_eq!(t, t2);
        assert_eq!(t.count_ones(), v.iter().map(|&b| b as u64).sum::<u64>());
    }

    #[test]
    fn slice_and_range_counts_match_naive() {
        let v: Vec<u8> = (0..300).map(|i| ((i * 13) % 7 < 3) as u8).collect();
        let t = BitTrace::from_bytes(&v);
        for &(a, b) in &[(0, 300), (1, 299), (63, 65), (64, 128), (5, 5), (100, 237)] {
            let s = t.slice(a, b);
            assert_eq!(s.to_bytes(), v[a..b].to_vec());
            let naive: u64 = v[a..b].iter().map(|&x| x as u64).sum();
            assert_eq!(t.count_ones_range(a, b), naive);
        }
    }

    #[test]
    fn filled_and_inverted_keep_tail_clear() {
        let t = BitTrace::filled(70, true);
        assert_eq!(t.count_ones(), 70);
        assert_eq!(t.inverted().count_ones(), 0);
        assert_eq!(BitTrace::filled(70, false).inverted().count_ones(), 70);
    }

    #[test]
    fn from_words_checks_length() {
        assert!(BitTrace::from_words(vec![0; 2], 64).is_err());
        let t = BitTrace::from_words(vec![u64::MAX], 10).unwrap();
        assert_eq!(t.count_ones(), 10);
    }

    #[test]
    fn append_at_any_alignment_matches_push() {
        let v: Vec<bool> = (0..1000u64).map(|i| (i * 2654435761) % 7 < 3).collect();
        for chunk in [1usize, 3, 17, 63, 64] {
            let mut t = BitTrace::try_with_capacity(10, "test").unwrap();
            for c in v.chunks(chunk) {
                let w = c.iter().enumerate().fold(0u64, |w, (j, &b)| w | ((b as u64) << j));
                t.reserve_bits(c.len(), "test").unwrap();
                t.append(w | (u64::MAX << c.len().min(63)) * (c.len() < 64) as u64, c.len()); // high garbage is masked
            }
            assert_eq!(t, BitTrace::from_bools(v.iter().copied()), "chunk {chunk}");
        }
    }

    #[test]
    fn impossible_sizes_are_memory_errors() {
        assert!(matches!(BitTrace::try_with_capacity(usize::MAX - 64, "t"), Err(Error::Memory(_))));
        assert!(matches!(BitTrace::try_filled(usize::MAX - 64, true, "t"), Err(Error::Memory(_))));
        assert_eq!(BitTrace::try_filled(70, true, "t").unwrap(), BitTrace::filled(70, true));
    }

    #[test]
    fn from_str01_rejects_other_characters() {
        assert_eq!(BitTrace::from_str01("0110").unwrap().to_bytes(), vec![0, 1, 1, 0]);
        assert!(BitTrace::from_str01("01x").is_err());
    }
}
