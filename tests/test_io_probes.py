"""Probe logs (``probes`` tables, ``ping`` output) and format detection of multi-column files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from burstlab import ParameterError, TraceFormatError
from burstlab.io import detect_format, read_trace, write_trace
from burstlab.probelog import read_ping, read_probe_table, slots_in_time
from burstlab.traces import Trace


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_probe_table_known_answer(tmp_path: Path) -> None:
    p = write(tmp_path, "probes.txt", "100.0\t1\t44.5\n100.1\t2\t-1\n100.25\t3\t40.0\n100.3\t4\t41.5\n")
    assert detect_format(p) == "probes"
    t, rtt = read_probe_table(p)
    assert t.to_numpy().tolist() == [1, 0, 1, 1]
    assert np.allclose(t.timestamps, [0.0, 0.1, 0.25, 0.3])
    assert t.meta["t0"] == 100.0 and t.meta["lost"] == 1 and t.meta["unlogged"] == 0
    assert np.isnan(rtt[1]) and rtt[0] == 44.5
    assert read_trace(p).to_numpy().tolist() == [1, 0, 1, 1]


def test_probe_table_header_comma_and_unlogged_gap(tmp_path: Path) -> None:
    # a header in another column order; sequence 3 was never logged: lost, time interpolated
    p = write(tmp_path, "irtt.csv.txt", "seq,time,rtt_ms\n1,10.0,5\n2,10.5,6\n4,11.5,7\n")
    assert detect_format(p) == "probes"
    t, _ = read_probe_table(p)
    assert t.to_numpy().tolist() == [1, 1, 0, 1]
    assert np.allclose(t.timestamps, [0.0, 0.5, 1.0, 1.5])
    assert t.meta["unlogged"] == 1 and t.meta["lost"] == 1


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("1.0 1 3\n2.0 1 4\n", r":2: sequence number 1 after 1"),
        ("1.0 1 3\n0.5 2 4\n", r":2: time 0.5 is earlier"),
        ("1.0 1 3\n2.0 2 -2\n", r":2: RTT -2 ms"),
        ("1.0 1 3\n2.0 2\n", r":2: expected 3 fields"),
        ("1.0 1 3\n2.0 x 4\n", r":2: not a number"),
    ],
)
def test_probe_table_errors_name_the_line(tmp_path: Path, text: str, match: str) -> None:
    p = write(tmp_path, "bad.txt", text)
    with pytest.raises(TraceFormatError, match=match):
        read_probe_table(p)


PING_D = """PING 8.8.8.8 (8.8.8.8) 56(84) bytes of data.
[1700000000.100000] 64 bytes from 8.8.8.8: icmp_seq=1 ttl=117 time=20.1 ms
[1700000001.200000] no answer yet for icmp_seq=2
[1700000001.100000] 64 bytes from 8.8.8.8: icmp_seq=3 ttl=117 time=19.9 ms
[1700000001.150000] 64 bytes from 8.8.8.8: icmp_seq=3 ttl=117 time=25.0 ms (DUP!)
[1700000001.300000] 64 bytes from 8.8.8.8: icmp_seq=5 ttl=117 time=21.0 ms

--- 8.8.8.8 ping statistics ---
7 packets transmitted, 3 received, +1 duplicates, 57.1429% packet loss, time 6006ms
"""


def test_ping_output_with_timestamps_losses_and_summary(tmp_path: Path) -> None:
    p = write(tmp_path, "ping.log", PING_D)
    assert detect_format(p) == "ping"
    t, rtt = read_ping(p)
    # 1 reply, 2 no answer, 3 reply (a DUP ignored), 4 never logged, 5 reply, 6-7 sent but never answered
    assert t.to_numpy().tolist() == [1, 0, 1, 0, 1, 0, 0]
    assert t.meta["unlogged"] == 3 and t.meta["lost"] == 4
    assert rtt[0] == pytest.approx(20.1) and rtt[2] == pytest.approx(19.9)
    # probe 2's own time (its timeout report) is later than probe 3's reply: times must not go backwards
    assert t.timestamps is None or np.all(np.diff(t.timestamps) >= 0)


def test_ping_without_timestamps_bsd(tmp_path: Path) -> None:
    text = "PING host (1.2.3.4): 56 data bytes\n64 bytes from 1.2.3.4: icmp_seq=0 ttl=50 time=10.0 ms\nRequest timeout for icmp_seq 1\n64 bytes from 1.2.3.4: icmp_seq=2 ttl=50 time=11.0 ms\n"
    t, _ = read_ping(write(tmp_path, "bsd.txt", text))
    assert t.to_numpy().tolist() == [1, 0, 1] and t.timestamps is None


def test_ping_errors(tmp_path: Path) -> None:
    with pytest.raises(TraceFormatError, match=r":3: icmp_seq=1 after 2"):
        read_ping(write(tmp_path, "a.txt", "PING x\n64 bytes from x: icmp_seq=2 ttl=1 time=1 ms\n64 bytes from x: icmp_seq=1 ttl=1 time=1 ms\n"))
    with pytest.raises(Exception, match="no ping replies"):
        read_ping(write(tmp_path, "b.txt", "PING x\n"))


def test_slots_in_time_sample_and_hold() -> None:
    t = Trace([1, 0, 1], timestamps=[0.0, 0.25, 0.3])
    s = slots_in_time(t, 0.1)
    # slots at 0, 0.1, 0.2 hold probe 0; 0.3 is probe 2's own time (probe 1, held 0.05 s, falls between slots)
    assert s.to_numpy().tolist() == [1, 1, 1, 1] and s.interval == 0.1
    s = slots_in_time(t, 0.05)
    assert s.to_numpy().tolist() == [1, 1, 1, 1, 1, 0, 1]
    with pytest.raises(ParameterError, match="no timestamps"):
        slots_in_time(Trace([1, 0]), 0.1)


def test_rutgers_three_lines_are_a_seqlist_not_bits(tmp_path: Path) -> None:
    # the example: Rutgers `seq rssi` lines were read as 0/1 strings and refused
    p = write(tmp_path, "sdec1-4", "0 11\n1 10\n2 7\n")
    assert detect_format(p) == "seqlist"
    assert read_trace(p).to_numpy().tolist() == [1, 1, 1]
    with pytest.raises(TraceFormatError, match=r"several columns per line.*--format seqlist"):
        read_trace(p, "bits")


def test_multi_column_file_is_refused_with_the_formats_that_read_it(tmp_path: Path) -> None:
    p = write(tmp_path, "table.txt", "5 11\n1 10\n2 7\n")  # first column not in order: not a received list
    with pytest.raises(TraceFormatError, match=r"2 columns.*not 0/1 bits.*--format seqlist.*--format probes"):
        detect_format(p)
    # 0/1 strings with blanks stay strings
    assert detect_format(write(tmp_path, "s.txt", "0 1 1 0\n1 1 0 0\n")) == "string"


def test_probe_formats_are_read_only(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="read, not written"):
        write_trace(Trace([1, 0]), tmp_path / "x.txt", "probes")


def test_starlink_file(shared: Path) -> None:
    """SOURCE.txt: 36,000 probes, 913 lost, median gap 0.149 s, span 9,658 s."""
    p = shared / "data/starlink-ping/no-isl-ping-gw-seattle-230911-170535-0.1s-60min.txt"
    assert detect_format(p) == "probes"
    t = read_trace(p)
    assert len(t) == 36_000 and t.meta["lost"] == 913 and t.meta["unlogged"] == 0
    assert t.meta["median_gap_s"] == pytest.approx(0.149, abs=0.001)
    assert t.meta["span_s"] == pytest.approx(9658, abs=1)
    gaps = np.diff(t.timestamps)
    big = np.flatnonzero(gaps > 4)
    assert 800 <= len(big) <= 880
    # every ~5 s gap ends with a lost probe: the prober's reply timeout (docs/datasets.md)
    assert np.all(t.to_numpy()[big + 1] == 0)
