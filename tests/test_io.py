"""Trace readers and writers: formats, detection, polarity, round trips and bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from burstlab import EmptyInputError, ParameterError, Trace, TraceFormatError
from burstlab.io import WRITE_FORMATS, detect_format, iter_trace_files, parse_trace, read_trace, write_trace


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def test_bits_both_polarities(tmp_path: Path) -> None:
    p = write(tmp_path, "a.txt", "# comment\n1\n0\n0\r\n\n1\n")
    t = read_trace(p)
    assert t.to_numpy().tolist() == [1, 0, 0, 1]
    assert t.meta["format"] == "bits" and t.name == str(p)
    assert read_trace(p, one_means="lost").to_numpy().tolist() == [0, 1, 1, 0]


def test_string_format(tmp_path: Path) -> None:
    p = write(tmp_path, "s.txt", "0110 0111\n1100\n")
    assert detect_format(p) == "string"
    assert read_trace(p).to_numpy().tolist() == [0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0]
    assert read_trace(p, one_means="lost").to_numpy().tolist() == [1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1]


def test_seqlist_expected_and_meta(tmp_path: Path) -> None:
    p = write(tmp_path, "sdec1-2", "0 12\n1 11\n3 10\n3 10\n6 9\n")
    assert detect_format(p) == "seqlist"
    t = read_trace(p)
    assert t.to_numpy().tolist() == [1, 1, 0, 1, 0, 0, 1]
    assert t.meta == {"format": "seqlist", "expected": 7, "received": 4, "duplicates": 1, "dropped": 0, "max_seq": 6}
    t = read_trace(p, expected=9)
    assert t.to_numpy().tolist() == [1, 1, 0, 1, 0, 0, 1, 0, 0]
    with pytest.raises(TraceFormatError, match=r"sdec1-2:5: .*beyond the 5 packets.*6 9"):
        read_trace(p, expected=5)
    t = read_trace(p, expected=5, drop_beyond=True)
    assert len(t) == 5 and t.meta["dropped"] == 1


def test_empty_seqlist_with_expected_is_all_lost(tmp_path: Path) -> None:
    p = write(tmp_path, "sdec9-9", "")
    t = read_trace(p, expected=301)
    assert len(t) == 301 and t.bits.count_ones() == 0
    with pytest.raises(EmptyInputError, match="empty file"):
        read_trace(p)
    with pytest.raises(EmptyInputError, match="empty file"):
        read_trace(p, "bits")


def test_ttem_polarity_and_default_interval(tmp_path: Path) -> None:
    # Barsocchi et al. §II.B: 0 = good interval, 1 = bad interval, Δ = 5 ms.
    p = write(tmp_path, "ch.ttem", "0\n0\n1\n1\n0\n")
    t = read_trace(p)
    assert t.meta["format"] == "ttem"
    assert t.to_numpy().tolist() == [1, 1, 0, 0, 1]
    assert t.interval == 0.005
    assert read_trace(p, interval=0.01).interval == 0.01
    # Without the extension ttem is indistinguishable from bits: forced with fmt.
    q = write(tmp_path, "ch.txt", "0\n0\n1\n")
    assert read_trace(q, "ttem").to_numpy().tolist() == [1, 1, 0]


def test_csv_full_and_subsets(tmp_path: Path) -> None:
    p = write(tmp_path, "t.csv", "seq,time,received\n0,0.0,1\n1,0.1,0\n2,0.3,1\n")
    t = read_trace(p)
    assert t.to_numpy().tolist() == [1, 0, 1]
    assert t.timestamps is not None and t.timestamps.tolist() == [0.0, 0.1, 0.3]
    q = write(tmp_path, "r.data", "received\n1\n1\n0\n")
    assert detect_format(q) == "csv"
    assert read_trace(q).to_numpy().tolist() == [1, 1, 0]
    lost = write(tmp_path, "l.csv", "lost\n1\n0\n")
    assert read_trace(lost).to_numpy().tolist() == [0, 1]
    # seq only: a list of received packets, like seqlist.
    s = write(tmp_path, "s.csv", "seq\n0\n2\n")
    assert read_trace(s).to_numpy().tolist() == [1, 0, 1]
    assert read_trace(s, expected=5).to_numpy().tolist() == [1, 0, 1, 0, 0]
    # A uniform time column is a slotted trace.
    u = write(tmp_path, "u.csv", "seq,time,received\n0,0,1\n1,0.25,0\n2,0.5,1\n")
    tu = read_trace(u)
    assert tu.interval == 0.25 and tu.timestamps is None


@pytest.mark.parametrize(
    "text,match",
    [
        ("seq,time,received\n0,0.0,1\n1,abc,0\n", r"t\.csv:3: time is not a number: '1,abc,0'"),
        ("seq,time,received\n0,0.0,1\n1,0.1\n", r"t\.csv:3: expected 3 fields"),
        ("seq,received\n0,1\n1,2\n", r"t\.csv:3: received must be 0 or 1"),
        ("seq,received\n0,1\n2,0\n", r"t\.csv:3: seq must count up by one"),
        ("time,received\n0.5,1\n0.2,0\n", r"t\.csv:3: time goes backwards"),
        ("seq,colour\n0,1\n", r"t\.csv:1: the header must name"),
        ("seq,received\n", r"empty file"),
    ],
)
def test_csv_errors_name_file_and_line(tmp_path: Path, text: str, match: str) -> None:
    p = write(tmp_path, "t.csv", text)
    with pytest.raises((TraceFormatError, EmptyInputError), match=match):
        read_trace(p)


@pytest.mark.parametrize(
    "fmt,text,line,bad",
    [
        ("bits", "1\n0\n1\nx\n", 4, "x"),
        ("bits", "1\n0\n\n10\n", 4, "10"),
        ("string", "0101\n01a1\n", 2, "a1"),
        ("seqlist", "0 3\n1 4\n-2 5\n", 3, "-2 5"),
        ("seqlist", "0\n1.5\n", 2, "1.5"),
        ("ttem", "0\n1\n2\n", 3, "2"),
    ],
)
def test_malformed_line_named(tmp_path: Path, fmt: str, text: str, line: int, bad: str) -> None:
    p = write(tmp_path, "bad.txt", text)
    with pytest.raises(TraceFormatError) as e:
        read_trace(p, fmt)
    msg = str(e.value)
    assert msg.startswith(f"{p}:{line}:"), msg
    assert repr(bad).strip("'") in msg


def test_detection_failures_and_parameters(tmp_path: Path) -> None:
    p = write(tmp_path, "weird.txt", "hello world\n")
    with pytest.raises(TraceFormatError, match="cannot tell the trace format"):
        read_trace(p)
    with pytest.raises(EmptyInputError):
        read_trace(write(tmp_path, "blank.txt", "\n  \n# c\n"))
    ok = write(tmp_path, "ok.txt", "1\n0\n")
    with pytest.raises(ParameterError, match="interval"):
        read_trace(ok, interval=-1.0)
    with pytest.raises(ParameterError, match="format"):
        read_trace(ok, "nope")
    with pytest.raises(ParameterError, match="one_means"):
        read_trace(ok, one_means="maybe")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="expected"):
        read_trace(ok, "seqlist", expected=0)
    with pytest.raises(TraceFormatError, match="Parquet"):
        read_trace(write(tmp_path, "x.parquet", "not parquet"))


def test_detection_rules(tmp_path: Path) -> None:
    assert detect_format(write(tmp_path, "a", "0\n1\n")) == "bits"
    assert detect_format(write(tmp_path, "b", "011\n")) == "string"
    assert detect_format(write(tmp_path, "c", "5 -60\n7 -61\n")) == "seqlist"
    assert detect_format(write(tmp_path, "c2", "5,-60\n7,-61\n")) == "seqlist"
    assert read_trace(tmp_path / "c2").to_numpy().tolist() == [0, 0, 0, 0, 0, 1, 0, 1]
    assert detect_format(write(tmp_path, "d", "seq,received\n0,1\n")) == "csv"
    assert detect_format(write(tmp_path, "e.ttem", "0\n")) == "ttem"
    assert detect_format(write(tmp_path, "f.pq", b"PAR1")) == "parquet"
    assert detect_format(write(tmp_path, "g", b"PAR1....")) == "parquet"


traces = st.builds(
    lambda bits, interval: Trace(np.array(bits, dtype=np.uint8), interval=interval),
    st.lists(st.integers(0, 1), min_size=1, max_size=300),
    st.one_of(st.none(), st.sampled_from([0.001, 0.005, 0.25])),
)


@settings(max_examples=25, deadline=None)
@given(traces, st.sampled_from(WRITE_FORMATS), st.sampled_from(["received", "lost"]))
def test_round_trip_every_format(tmp_path_factory: pytest.TempPathFactory, t: Trace, fmt: str, one_means: str) -> None:
    d = tmp_path_factory.mktemp("rt")
    p = d / f"trace.{fmt}"
    write_trace(t, p, fmt, one_means=one_means)  # type: ignore[arg-type]
    back = read_trace(p, fmt, one_means=one_means)  # type: ignore[arg-type]
    assert np.array_equal(back.to_numpy(), t.to_numpy())
    if fmt == "parquet" or (fmt == "csv" and len(t) > 1):  # one CSV time value cannot say the step
        assert back.interval == t.interval
    assert not [f for f in d.iterdir() if f.name.startswith(".")]  # no temp file left


def test_timestamps_round_trip_through_tables(tmp_path: Path) -> None:
    t = Trace([1, 0, 1, 1], timestamps=[0.0, 0.1, 0.35, 0.4])
    for ext in ("csv", "parquet"):
        write_trace(t, tmp_path / f"t.{ext}")
        back = read_trace(tmp_path / f"t.{ext}")
        assert back == t


def test_failed_write_leaves_nothing(tmp_path: Path) -> None:
    t = Trace([1, 0])
    with pytest.raises(ParameterError):
        write_trace(t, tmp_path / "x.txt", "nope")
    assert list(tmp_path.iterdir()) == []


def test_parse_trace_from_bytes_and_walk(tmp_path: Path) -> None:
    assert parse_trace(b"1\n0\n", "bits").to_numpy().tolist() == [1, 0]
    (tmp_path / "sub").mkdir()
    write(tmp_path, "sub/b.txt", "1\n")
    write(tmp_path, "a.txt", "0\n")
    write(tmp_path, ".hidden", "0\n")
    assert [p.name for p in iter_trace_files([tmp_path])] == ["a.txt", "b.txt"]


def test_large_bits_file_parses(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    v = rng.integers(0, 2, 1_000_000, dtype=np.uint8)
    p = tmp_path / "big.txt"
    write_trace(Trace(v), p, "bits")
    assert np.array_equal(read_trace(p).to_numpy(), v)


def test_detection_lets_the_parser_name_a_bad_line(tmp_path: Path) -> None:
    p = write(tmp_path, "t", "1\n0\n1\n2\n1\n")
    with pytest.raises(TraceFormatError, match=r":4: expected a single 0 or 1"):
        read_trace(p)
    # a received-sequence list without extra fields (each seq once) is still a seqlist
    assert detect_format(write(tmp_path, "q", "0\n1\n5\n9\n")) == "seqlist"


def test_seq_rssi_lines_with_zero_rssi_are_a_seqlist(tmp_path: Path) -> None:
    # A Rutgers file whose first lines have rssi 0 (dbm-5 node1-2 → 7-4 starts "0 0", "1 0").
    p = write(tmp_path, "sdec7-4", "0 0\n1 0\n6 1\n")
    assert detect_format(p) == "seqlist"
    assert detect_format(write(tmp_path, "s2", "0 1 1 0\n11\n")) == "string"
