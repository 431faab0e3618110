"""TOSSIM-noise-derived links: CPM's SNR→PRR curve, the noise reader's cleaning, the links."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from burstlab import TraceFormatError
from burstlab.datasets.tossim import derive_link, expected_prr, prr_from_snr, read_noise, signal_for_prr, tossim


def _cpm(snr: float) -> float:
    # CpmModelC.nc prr_estimate_from_snr, written out with the math module:
    # X = |10^(SNR/10) − 0.9187|, PSE = ½ erfc(1.3687 √(X/2)), PRR = (1 − PSE)^46
    x = abs(10 ** (snr / 10) - 0.9187)
    pse = 0.5 * math.erfc(1.3687 * math.sqrt(x / 2))
    return min(1.0, max(0.0, (1 - pse) ** 46))


def test_curve_known_values() -> None:
    snrs = np.array([-5.0, 0.0, 3.0, 5.0, 6.0, 8.0, 20.0])
    got = prr_from_snr(snrs)
    assert got == pytest.approx([_cpm(s) for s in snrs], rel=1e-12, abs=1e-300)
    # SNR 5 dB: X = 10^0.5 − 0.9187 = 2.24357; PSE = ½ erfc(1.3687·1.05915) = 0.020148; (1−PSE)^46 ≈ 0.3916
    assert got[3] == pytest.approx(0.3916, abs=5e-4)
    assert got[-1] == 1.0
    # monotone above CPM's absolute-value kink (SNR ≈ −0.37 dB)
    grid = prr_from_snr(np.linspace(0.0, 15.0, 301))
    assert np.all(np.diff(grid) >= 0)


def test_reader_reports_malformed_lines(tmp_path: Path) -> None:
    f = tmp_path / "n.txt"
    f.write_text("-98\n-97\n-96 \n\n\n")
    nt = read_noise(f)
    assert nt.noise_dbm.tolist() == [-98.0, -97.0, -96.0]
    assert nt.stripped_lines == (3,) and nt.blank_lines == (4, 5)
    assert "stripped (line 3)" in nt.report() and "2 empty line(s) skipped (line 4, 5)" in nt.report()
    g = tmp_path / "bad.txt"
    g.write_text("-98\nabc\n")
    with pytest.raises(TraceFormatError, match=r"bad.txt: line 2: .*'abc'"):
        read_noise(g)


def test_links_are_seeded_and_hit_targets(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    f = tmp_path / "synthetic-noise.txt"
    f.write_text("\n".join(str(int(v)) for v in np.where(rng.random(20000) < 0.1, -70, -98)) + "\n")
    nt = read_noise(f)
    s = signal_for_prr(nt.noise_dbm, 0.5)
    assert expected_prr(nt.noise_dbm, s) == pytest.approx(0.5, abs=0.01)
    a, b = derive_link(nt, s, seed=3), derive_link(nt, s, seed=3)
    assert a == b and derive_link(nt, s, seed=4) != a
    assert a.stats().prr == pytest.approx(0.5, abs=0.02)
    links = list(tossim(tmp_path, files=["synthetic-noise"], targets=[0.3, 0.6], segment=10000))
    assert [t.meta["start"] for t in links] == [0, 0, 10000, 10000]
    assert all(len(t) == 10000 for t in links)


def test_shared_files(shared: Path) -> None:
    root = shared / "data" / "tossim-noise"
    nt = read_noise(root / "meyer-heavy.txt")
    # SOURCE.txt: 196610 lines, of which 196608 "-98 " has a trailing space and two are empty
    assert len(nt.noise_dbm) == 196608
    assert nt.stripped_lines == (196608,) and nt.blank_lines == (196609, 196610)
    links = list(tossim(root, files=["meyer-heavy"], targets=[0.3, 0.5]))
    assert len(links) == 4 and all(len(t) == 98304 for t in links)
    for t in links:
        assert t.stats().prr == pytest.approx(t.meta["expected_prr"], abs=0.01)
        assert "196608" in t.meta["cleaning"]


def test_any_noise_file_by_path(tmp_path: Path) -> None:
    """`--dataset tossim --noise FILE`: any TOSSIM noise trace, by path; a file shorter than
    the segment is one link; a binary file is a TraceFormatError naming it."""
    rng = np.random.default_rng(1)
    f = tmp_path / "my-noise.txt"
    f.write_text("\n".join(str(int(v)) for v in np.where(rng.random(5000) < 0.2, -75, -97)) + "\n")
    links = list(tossim(noise_files=[f], targets=[0.4]))  # default segment 98,304 > 5000 readings
    assert len(links) == 1 and len(links[0]) == 5000 and links[0].meta["noise_file"] == "my-noise.txt"
    assert links[0].meta["expected_prr"] == pytest.approx(0.4, abs=0.01)
    b = tmp_path / "bin.txt"
    b.write_bytes(b"\xff\xfe\x00\x01")
    with pytest.raises(TraceFormatError, match="bin.txt: not a text file"):
        list(tossim(noise_files=[b], targets=[0.4]))
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        list(tossim(noise_files=[tmp_path / "nope.txt"], targets=[0.4]))
