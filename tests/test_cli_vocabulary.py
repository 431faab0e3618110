"""One option vocabulary for every command that reads a trace or describes a link (issue 32):
``fit`` and ``report`` check units as ``sim`` does and read a trace with ``stats``'s options
(``--expected`` keeps a sequence list's trailing losses); ``stats DIR`` skips, and counts,
the empty files of a folder instead of stopping at the first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from burstlab.cli import main


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["fit", "T", "--judge", "tcp", "--rate", "fast"], "Invalid value for '--rate': 'fast'"),
        (["fit", "T", "--judge", "tcp", "--slot", "-3"], "Invalid value for '--slot': '-3'"),
        (["fit", "T", "--judge", "tcp", "--delay", "1parsec"], "Invalid value for '--delay'"),
        (["report", "T", "--slot", "0"], "Invalid value for '--slot': '0'"),
        (["report", "T", "--duration", "soon"], "Invalid value for '--duration'"),
        (["report", "T", "--rate", "0"], "Invalid value for '--rate'"),
    ],
)
def test_units_are_checked_like_sim(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], needle: str) -> None:
    f = tmp_path / "t.txt"
    f.write_text("1\n0\n1\n1\n")
    assert main([str(f) if a == "T" else a for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1 and needle in err, err


def test_fit_expected_keeps_trailing_losses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "received.txt"
    f.write_text("0\n1\n2\n5\n")  # packets 3, 4 lost; with --expected 10 also 6-9
    assert main(["fit", str(f), "--format", "seqlist", "--models", "bernoulli-fer", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reference"]["prr"] == pytest.approx(4 / 6)
    assert main(["fit", str(f), "--format", "seqlist", "--expected", "10", "--models", "bernoulli-fer", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reference"]["prr"] == pytest.approx(4 / 10)


def test_stats_dir_skips_empty_files_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "links"
    d.mkdir()
    (d / "a").write_text("0\n1\n3\n")
    (d / "b").write_text("")
    (d / "c").write_text("1\n2\n")
    assert main(["stats", str(d), "--format", "seqlist", "--csv"]) == 0
    cap = capsys.readouterr()
    assert len(cap.out.strip().splitlines()) == 3  # header + a + c
    assert "skipped 1 empty file(s)" in cap.err and "--expected" in cap.err
    assert main(["stats", str(d), "--format", "seqlist", "--expected", "4", "--csv"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 4  # b: 4 packets sent, none received
    assert main(["stats", str(d / "b"), "--format", "seqlist"]) == 2  # one file named: its error
    assert "b" in capsys.readouterr().err
    (d / "a").write_text("")
    (d / "c").write_text("")
    assert main(["stats", str(d), "--format", "seqlist"]) == 2
    assert "every trace file" in capsys.readouterr().err
