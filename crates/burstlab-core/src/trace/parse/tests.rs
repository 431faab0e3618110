//! Tests of the text readers.
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
