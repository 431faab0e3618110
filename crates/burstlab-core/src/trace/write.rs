//! Text trace writers, streamed from the packed words through a 1 MiB buffer, so writing
//! costs the packed trace plus a constant (docs/traces.md "Memory"). The formats are those
//! of [`super::parse`]; what is written reads back to the same trace.
use super::bits::BitTrace;
use super::parse::{io_err, Format};
use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

const BUF: usize = 1 << 20;

/// Eight entries (the bits of a byte, LSB first) as `b\n` pairs.
fn pair_table() -> Vec<[u8; 16]> {
    (0..256u32)
        .map(|x| {
            let mut out = [b'\n'; 16];
            for j in 0..8 {
                out[2 * j] = b'0' + ((x >> j) & 1) as u8;
            }
            out
        })
        .collect()
}

/// Write `t` in `fmt` to `out` (`bits`/`string`: 1 = delivered unless `one_means_lost`; `ttem` always
/// writes Ttem's 1 = bad, Barsocchi et al. §II.B). `seqlist` starts with a
/// `# burstlab seqlist: expected=N` line so that trailing losses survive.
pub fn write_text<W: Write>(t: &BitTrace, fmt: Format, one_means_lost: bool, mut out: W) -> std::io::Result<()> {
    let flip = match fmt {
        Format::Ttem => u64::MAX,
        Format::Bits | Format::String if one_means_lost => u64::MAX,
        _ => 0, // a sequence list names the received packets whatever the polarity
    };
    let n = t.len();
    let words = t.words();
    let mut buf: Vec<u8> = Vec::with_capacity(BUF + 4096);
    let flush = |buf: &mut Vec<u8>, out: &mut W| -> std::io::Result<()> {
        out.write_all(buf)?;
        buf.clear();
        Ok(())
    };
    match fmt {
        Format::Bits | Format::Ttem => {
            let table = pair_table();
            for (k, &w) in words.iter().enumerate() {
                let w = w ^ flip;
                let m = (n - 64 * k).min(64);
                if m == 64 {
                    for byte in w.to_le_bytes() {
                        buf.extend_from_slice(&table[byte as usize]);
                    }
                } else {
                    for j in 0..m {
                        buf.push(b'0' + ((w >> j) & 1) as u8);
                        buf.push(b'\n');
                    }
                }
                if buf.len() >= BUF {
                    flush(&mut buf, &mut out)?;
                }
            }
        }
        Format::String => {
            let table: Vec<[u8; 8]> = (0..256u32).map(|x| std::array::from_fn(|j| b'0' + ((x >> j) & 1) as u8)).collect();
            for (k, &w) in words.iter().enumerate() {
                let w = w ^ flip;
                let m = (n - 64 * k).min(64);
                for byte in w.to_le_bytes().iter().take(m.div_ceil(8)) {
                    buf.extend_from_slice(&table[*byte as usize]);
                }
                buf.truncate(buf.len() - (m.div_ceil(8) * 8 - m));
                if buf.len() >= BUF {
                    flush(&mut buf, &mut out)?;
                }
            }
            buf.push(b'\n');
        }
        Format::SeqList => {
            buf.extend_from_slice(format!("# burstlab seqlist: expected={n}\n").as_bytes());
            let mut digits = [0u8; 20];
            for (k, &w) in words.iter().enumerate() {
                let mut w = w ^ flip;
                if 64 * k + 64 > n {
                    w &= (1u64 << (n - 64 * k)) - 1;
                }
                while w != 0 {
                    let mut v = (64 * k) as u64 + w.trailing_zeros() as u64;
                    let mut i = digits.len();
                    loop {
                        i -= 1;
                        digits[i] = b'0' + (v % 10) as u8;
                        v /= 10;
                        if v == 0 {
                            break;
                        }
                    }
                    buf.extend_from_slice(&digits[i..]);
                    buf.push(b'\n');
                    w &= w - 1;
                }
                if buf.len() >= BUF {
                    flush(&mut buf, &mut out)?;
                }
            }
        }
        Format::Mahimahi => {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "a reception trace cannot be written as a Mahimahi capacity trace"));
        }
    }
    flush(&mut buf, &mut out)?;
    out.flush()
}

/// Write `t` to the file at `path` (created or truncated). An I/O error (a full disk)
/// keeps its OS error number ([`Error::Io`]).
pub fn write_path(t: &BitTrace, fmt: Format, one_means_lost: bool, path: &Path) -> Result<()> {
    if fmt == Format::Mahimahi {
        return Err(Error::param("format", "mahimahi", "a reception-trace format (bits, string, seqlist, ttem): a Mahimahi file is a link-capacity trace"));
    }
    let p = path.to_string_lossy();
    let f = std::fs::File::create(path).map_err(|e| io_err(&p, &e))?;
    write_text(t, fmt, one_means_lost, &f).map_err(|e| io_err(&p, &e))?;
    f.sync_all().map_err(|e| io_err(&p, &e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::parse::{parse_bytes, Options, Parsed};

    fn roundtrip(t: &BitTrace, fmt: Format, lost: bool) -> BitTrace {
        let mut out = Vec::new();
        write_text(t, fmt, lost, &mut out).unwrap();
        match parse_bytes(&out, fmt, "t", Options { one_means_lost: lost, ..Options::default() }).unwrap() {
            Parsed::Trace(t, _) => t,
            Parsed::Times(_) => unreachable!(),
        }
    }

    #[test]
    fn every_format_reads_back_to_the_same_trace() {
        for n in [1usize, 7, 8, 63, 64, 65, 1000, 4099] {
            let v: Vec<u8> = (0..n as u64).map(|i| ((i.wrapping_mul(2654435761) >> 11) & 1) as u8).collect();
            let t = BitTrace::from_bytes(&v);
            for fmt in [Format::Bits, Format::String, Format::Ttem, Format::SeqList] {
                for lost in [false, true] {
                    assert_eq!(roundtrip(&t, fmt, lost), t, "n={n} {fmt:?} lost={lost}");
                }
            }
        }
    }

    #[test]
    fn known_text() {
        let t = BitTrace::from_str01("1101").unwrap();
        let text = |fmt, lost| {
            let mut out = Vec::new();
            write_text(&t, fmt, lost, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(text(Format::Bits, false), "1\n1\n0\n1\n");
        assert_eq!(text(Format::Bits, true), "0\n0\n1\n0\n");
        assert_eq!(text(Format::Ttem, false), "0\n0\n1\n0\n");
        assert_eq!(text(Format::String, false), "1101\n");
        assert_eq!(text(Format::SeqList, false), "# burstlab seqlist: expected=4\n0\n1\n3\n");
    }

    #[test]
    fn a_full_device_is_an_io_error_with_its_errno() {
        let t = BitTrace::filled(1 << 22, true);
        if Path::new("/dev/full").exists() {
            let e = write_path(&t, Format::Bits, false, Path::new("/dev/full")).unwrap_err();
            assert!(matches!(e, Error::Io { errno: Some(28), .. }), "{e:?}"); // ENOSPC
        }
    }
}
